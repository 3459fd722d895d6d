/* SPDX-License-Identifier: Apache-2.0 */
/* fork (docs/guide.md, "Processes and fork"): a context used in a forked
 * child returns INVALID_ARGUMENT naming the process that created it, for
 * every kind of call (host memory, device buffers, enqueue, finish),
 * instead of hanging on POCL, and clg_context_destroy returns; a new
 * context in the child is refused with DEVICE_NOT_FOUND (POCL's device
 * threads and Rusticl's do not survive fork) except on Intel's CPU
 * runtime, where it works. The parent's context works on after the child is gone. Every
 * step of the child runs under an alarm, so a hang fails the test. */
#define _POSIX_C_SOURCE 200809L
#include "clg_test.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#define CHILD_LIMIT_S 60

static const float data[4] = {1, 2, 3, 4};
static const int64_t dshape[1] = {4};
static const int64_t idx[2] = {3, 0};
static const int64_t ishape[1] = {2};

/* clg_gather of data[{3, 0}] into out. */
static clg_status gather(clg_context *ctx, float out[2])
{
    clg_tensor td = {CLG_DTYPE_FLOAT, 1, dshape, (void *)data};
    clg_tensor ti = {CLG_DTYPE_INT64, 1, ishape, (void *)idx};
    clg_tensor to = {CLG_DTYPE_FLOAT, 1, ishape, out};
    return clg_gather(ctx, &td, &ti, 0, &to);
}

static int is_pocl(clg_context *ctx)
{
    cl_platform_id platform = NULL;
    char name[256] = "";
    assert_int_equal(clGetDeviceInfo(clg_context_cl_device(ctx),
                                     CL_DEVICE_PLATFORM, sizeof platform,
                                     &platform, NULL),
                     CL_SUCCESS);
    assert_int_equal(clGetPlatformInfo(platform, CL_PLATFORM_NAME, sizeof name,
                                       name, NULL),
                     CL_SUCCESS);
    /* Only Intel's CPU runtime runs in a forked child; every other
     * implementation is refused there (POCL's and llvmpipe's threads do
     * not survive fork). */
    return strstr(name, "Intel(R) OpenCL") == NULL;
}

/* A check in the child: prints what failed and exits with `code`. */
static void expect(int ok, int code, const char *what, const char *msg)
{
    if (ok)
        return;
    printf("child: %s (message: \"%s\")\n", what, msg ? msg : "");
    fflush(stdout);
    _exit(code);
}

/* The child's steps; exits 0 when every one behaved. */
static void child(clg_context *ctx, long parent, int pocl)
{
    char want[96];
    float out[2] = {0, 0};
    cl_event ev = NULL;
    alarm(CHILD_LIMIT_S);
    snprintf(want, sizeof want, "this context was created in process %ld",
             parent);

    clg_status st = gather(ctx, out);
    expect(st == CLG_STATUS_INVALID_ARGUMENT, 10,
           "clg_gather on the parent's context did not refuse",
           clg_context_last_error(ctx));
    expect(strstr(clg_context_last_error(ctx), want) != NULL, 11,
           "clg_gather's message does not name the parent",
           clg_context_last_error(ctx));
    expect(strstr(clg_context_last_error(ctx),
                  "A forked child must create its own context") != NULL,
           12, "the message does not say what to do",
           clg_context_last_error(ctx));

    cl_mem none = NULL;
    clg_cl_tensor cd = {CLG_DTYPE_FLOAT, 1, dshape, none};
    clg_cl_tensor ci = {CLG_DTYPE_INT64, 1, ishape, none};
    clg_cl_tensor co = {CLG_DTYPE_FLOAT, 1, ishape, none};
    st = clg_enqueue_gather(ctx, NULL, &cd, &ci, 0, &co, 0, NULL, &ev);
    expect(st == CLG_STATUS_INVALID_ARGUMENT && ev == NULL &&
               strstr(clg_context_last_error(ctx), want) != NULL,
           13, "clg_enqueue_gather did not refuse",
           clg_context_last_error(ctx));
    st = clg_gather_cl(ctx, &cd, &ci, 0, &co);
    expect(st == CLG_STATUS_INVALID_ARGUMENT, 14,
           "clg_gather_cl did not refuse", clg_context_last_error(ctx));
    expect(clg_context_finish(ctx) == CLG_STATUS_INVALID_ARGUMENT, 15,
           "clg_context_finish did not refuse", clg_context_last_error(ctx));
    expect(clg_context_finish_queue(ctx, NULL) == CLG_STATUS_INVALID_ARGUMENT,
           16, "clg_context_finish_queue did not refuse",
           clg_context_last_error(ctx));
    expect(strstr(clg_context_last_error(ctx), want) != NULL, 17,
           "the finish's message does not name the parent",
           clg_context_last_error(ctx));
    clg_context_destroy(ctx); /* returns: forgets the parent's context */

    clg_context *mine = NULL;
    st = clg_context_create(&mine, NULL);
    if (pocl) {
        expect(st == CLG_STATUS_DEVICE_NOT_FOUND && mine == NULL, 20,
               "a new context on POCL was not refused",
               clg_context_last_error(NULL));
        expect(strstr(clg_context_last_error(NULL),
                      "was forked from one that had already used OpenCL") !=
                   NULL,
               21, "the refusal does not say why",
               clg_context_last_error(NULL));
        expect(strstr(clg_context_last_error(NULL), "'spawn'") != NULL, 22,
               "the refusal does not name spawn",
               clg_context_last_error(NULL));
    } else {
        expect(st == CLG_STATUS_OK, 23, "a new context failed",
               clg_context_last_error(NULL));
        st = gather(mine, out);
        expect(st == CLG_STATUS_OK && out[0] == 4 && out[1] == 1, 24,
               "a call on the child's own context failed",
               clg_context_last_error(mine));
        clg_context_destroy(mine);
    }
    alarm(0);
    _exit(0);
}

static void test_forked_child_gets_a_status(void **state)
{
    clg_context *ctx = *state;
    float out[2] = {0, 0};
    int pocl = is_pocl(ctx);
    CLG_ASSERT_OK(ctx, gather(ctx, out)); /* OpenCL is running */
    assert_true(out[0] == 4 && out[1] == 1);
    fflush(stdout);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0)
        child(ctx, (long)getppid(), pocl);
    int ws = 0;
    alarm(2 * CHILD_LIMIT_S);
    assert_int_equal(waitpid(pid, &ws, 0), pid);
    alarm(0);
    if (WIFSIGNALED(ws))
        print_error("the child died of signal %d (%s)\n", WTERMSIG(ws),
                    WTERMSIG(ws) == SIGALRM ? "a call hung" : "a crash");
    assert_true(WIFEXITED(ws));
    assert_int_equal(WEXITSTATUS(ws), 0);
    /* The parent's context is untouched. */
    out[0] = out[1] = 0;
    CLG_ASSERT_OK(ctx, gather(ctx, out));
    assert_true(out[0] == 4 && out[1] == 1);
    CLG_ASSERT_OK(ctx, clg_context_finish(ctx));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_forked_child_gets_a_status),
    };
    return CLG_RUN_DEVICE_TESTS(tests);
}
