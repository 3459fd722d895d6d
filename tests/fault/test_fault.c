/* Fault injection over every OpenCL call (docs/design.md, "Errors"): for
 * each path (host memory in place and copied, whole and split into pieces,
 * the index-check kernel, device buffers) the call is run once to count
 * its OpenCL calls, context creation included, then once per call with
 * that call made to fail. Every run must give the right status with the
 * failing call named (or OK and the right result, where the library can do
 * without the call), the output contract, and a context that works after.
 */
#define _POSIX_C_SOURCE 200809L
#include "clg_test.h"

#include <inttypes.h>

#include "cl_fault.h"

typedef enum path {
    HOST_IN_PLACE,
    HOST_CHECK_KERNEL,
    HOST_COPY,
    HOST_SPLIT_IN_PLACE,
    HOST_SPLIT_COPY,
    DEVICE_BUFFERS
} path;

typedef struct scenario {
    const char *name;
    path path;
    clg_test_op op;
    int gpu_plan;          /* CLGATHER_TEST_PLAN=gpu: the copy path on POCL */
    int split;             /* CLGATHER_MAX_ALLOC=1024 */
    int64_t rows, cols, n; /* data [rows, cols]; Gather: n indices */
} scenario;

static const scenario scenarios[] = {
    {"host, in place", HOST_IN_PLACE, CLG_TEST_GATHER, 0, 0, 64, 16, 10},
    {"host, in place, check kernel", HOST_CHECK_KERNEL,
     CLG_TEST_GATHER_ELEMENTS, 0, 0, 300, 300, 0},
    {"host, copied", HOST_COPY, CLG_TEST_GATHER_ELEMENTS, 1, 0, 20, 30, 0},
    /* Split with 1 KiB buffers: 2 runs of indices x 2 data windows; 2
     * pieces of rows x 2 data windows. */
    {"host, split, in place", HOST_SPLIT_IN_PLACE, CLG_TEST_GATHER, 0, 1, 40,
     7, 40},
    {"host, split, copied", HOST_SPLIT_COPY, CLG_TEST_GATHER_ELEMENTS, 1, 1,
     16, 20, 0},
    {"device buffers", DEVICE_BUFFERS, CLG_TEST_GATHER, 0, 0, 50, 12, 33},
};

/* The tensors of one scenario and the expected output. */
typedef struct tensors {
    float *data, *out, *want;
    int64_t *idx;
    int64_t dshape[2], ishape[2], oshape[2];
    size_t ibytes, obytes;
    clg_tensor d, i, o;
} tensors;

/* aligned_alloc with the size rounded up to a multiple of 64, as C11
 * requires of it (7.22.3.1); AddressSanitizer holds callers to that, and
 * answers NULL (or, without allocator_may_return_null, a report) for a
 * size such as 144. */
static void *alloc64(size_t bytes)
{
    return aligned_alloc(64, (bytes + 63) / 64 * 64);
}

static void tensors_make(const scenario *s, tensors *t)
{
    memset(t, 0, sizeof *t);
    t->dshape[0] = s->rows;
    t->dshape[1] = s->cols;
    size_t irank = s->op == CLG_TEST_GATHER ? 1 : 2;
    t->ishape[0] = s->op == CLG_TEST_GATHER ? s->n : s->rows;
    t->ishape[1] = s->cols;
    int64_t icount = irank == 1 ? t->ishape[0] : t->ishape[0] * t->ishape[1];
    t->oshape[0] = irank == 1 ? s->n : s->rows;
    t->oshape[1] = s->cols;
    size_t dcount = (size_t)(s->rows * s->cols);
    size_t ocount = (size_t)(t->oshape[0] * t->oshape[1]);
    t->data = alloc64(dcount * 4 + 64);
    t->out = alloc64(ocount * 4 + 64);
    t->want = malloc(ocount * 4);
    t->idx = alloc64((size_t)icount * 8 + 64);
    assert_non_null(t->data);
    assert_non_null(t->out);
    assert_non_null(t->want);
    assert_non_null(t->idx);
    for (size_t k = 0; k < dcount; k++)
        t->data[k] = (float)k + 0.5f;
    for (int64_t k = 0; k < icount; k++)
        t->idx[k] = (k * 7919) % s->rows - (k % 3 == 0 ? s->rows : 0);
    t->ibytes = (size_t)icount * 8;
    t->obytes = ocount * 4;
    t->d = (clg_tensor){CLG_DTYPE_FLOAT, 2, t->dshape, t->data};
    t->i = (clg_tensor){CLG_DTYPE_INT64, irank, t->ishape, t->idx};
    t->o = (clg_tensor){CLG_DTYPE_FLOAT, 2, t->oshape, t->want};
    clg_test_op op = s->op;
    CLG_ASSERT_OK(NULL, clg_test_call(op, NULL, 1, &t->d, &t->i, 0, &t->o));
    t->o.data = t->out;
}

static void tensors_free(tensors *t)
{
    free(t->data);
    free(t->out);
    free(t->want);
    free(t->idx);
}

static void set_env(const scenario *s)
{
    if (s->gpu_plan)
        setenv("CLGATHER_TEST_PLAN", "gpu", 1);
    else
        unsetenv("CLGATHER_TEST_PLAN");
    if (s->split)
        setenv("CLGATHER_MAX_ALLOC", "1024", 1);
    else
        unsetenv("CLGATHER_MAX_ALLOC");
}

/* One call of the scenario's path on ctx. Device buffers are made here,
 * and then, when `arm` is set, the shim is armed to fail call `n` of the
 * operator call itself. */
static clg_status run_op(const scenario *s, clg_context *ctx, tensors *t,
                         int arm, uint64_t n)
{
    if (s->path != DEVICE_BUFFERS)
        return clg_test_call(s->op, ctx, 0, &t->d, &t->i, 0, &t->o);
    cl_context c = clg_context_cl_context(ctx);
    cl_int err;
    size_t dbytes = (size_t)(s->rows * s->cols) * 4;
    cl_mem bd = clCreateBuffer(c, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                               dbytes, t->data, &err);
    cl_mem bi = clCreateBuffer(c, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                               t->ibytes, t->idx, &err);
    cl_mem bo = clCreateBuffer(c, CL_MEM_WRITE_ONLY, t->obytes, NULL, &err);
    clg_status st = CLG_STATUS_OPENCL_ERROR;
    if (bd && bi && bo) {
        clg_cl_tensor D = {CLG_DTYPE_FLOAT, 2, t->dshape, bd};
        clg_cl_tensor I = {CLG_DTYPE_INT64, t->i.rank, t->ishape, bi};
        clg_cl_tensor O = {CLG_DTYPE_FLOAT, 2, t->oshape, bo};
        if (arm)
            cl_fault_arm(n);
        st = s->op == CLG_TEST_GATHER
                 ? clg_gather_cl(ctx, &D, &I, 0, &O)
                 : clg_gather_elements_cl(ctx, &D, &I, 0, &O);
        if (arm)
            cl_fault_pause();
        if (st == CLG_STATUS_OK)
            clEnqueueReadBuffer(clg_context_cl_queue(ctx), bo, CL_TRUE, 0,
                                t->obytes, t->out, 0, NULL, NULL);
    }
    clReleaseMemObject(bd);
    clReleaseMemObject(bi);
    clReleaseMemObject(bo);
    return st;
}

/* Every byte of the output is its old value (0xA5) or its result. */
static int old_or_result(const tensors *t)
{
    const unsigned char *o = (const unsigned char *)t->out;
    const unsigned char *w = (const unsigned char *)t->want;
    for (size_t k = 0; k < t->obytes; k++)
        if (o[k] != 0xA5 && o[k] != w[k])
            return 0;
    return 1;
}

/* Checks one run with call `n` failing (0: none). */
static void check_run(const scenario *s, tensors *t, uint64_t n,
                      clg_context *ctx, clg_status st)
{
    const char *failed = cl_fault_failed_call();
    clg_test_set_case("%s: OpenCL call %" PRIu64 " (%s) fails", s->name, n,
                      failed);
    if (st == CLG_STATUS_OK) {
        CLG_ASSERT_BYTES(t->out, t->want, t->obytes, 4, "output");
        return;
    }
    assert_true(*failed != '\0');
    CLG_ASSERT_CONTAINS(clg_context_last_error(ctx), failed);
    if (st != CLG_STATUS_BUILD_FAILED)
        assert_int_equal(st, CLG_STATUS_OPENCL_ERROR);
    assert_int_equal(clg_context_last_cl_error(ctx), CL_OUT_OF_RESOURCES);
    if (s->path == DEVICE_BUFFERS)
        return; /* the device buffer's contents are unspecified */
    int whole = s->path != HOST_SPLIT_IN_PLACE && s->path != HOST_SPLIT_COPY;
    if (whole && cl_fault_kernel_enqueued_before())
        assert_true(old_or_result(t)); /* the documented exception */
    else
        CLG_ASSERT_FILLED(t->out, t->obytes, 0xA5, "output after a failure");
}

/* Runs the scenario with call n failing; returns the calls counted. */
static uint64_t run_once(const scenario *s, tensors *t, uint64_t n)
{
    clg_context *ctx = NULL;
    memset(t->out, 0xA5, t->obytes);
    if (s->path == DEVICE_BUFFERS) {
        CLG_ASSERT_OK(NULL, clg_context_create(&ctx, NULL));
        clg_status st = run_op(s, ctx, t, 1, n);
        check_run(s, t, n, ctx, st);
    } else {
        cl_fault_arm(n);
        clg_status st = clg_context_create(&ctx, NULL);
        if (st != CLG_STATUS_OK) {
            clg_test_set_case("%s: create, call %" PRIu64 " (%s) fails",
                              s->name, n, cl_fault_failed_call());
            assert_null(ctx);
            CLG_ASSERT_CONTAINS(clg_context_last_error(NULL),
                                cl_fault_failed_call());
            uint64_t counted = cl_fault_calls();
            cl_fault_pause();
            return counted;
        }
        check_run(s, t, n, ctx, run_op(s, ctx, t, 0, 0));
    }
    uint64_t counted = cl_fault_calls();
    cl_fault_pause();
    /* The context still works. */
    memset(t->out, 0xA5, t->obytes);
    clg_test_set_case("%s: the call after call %" PRIu64 " failed", s->name,
                      n);
    CLG_ASSERT_OK(ctx, run_op(s, ctx, t, 0, 0));
    CLG_ASSERT_BYTES(t->out, t->want, t->obytes, 4, "output after recovery");
    clg_context_destroy(ctx);
    return counted;
}

static void test_every_call_fails_in_turn(void **state)
{
    (void)state;
    uint64_t points = 0;
    for (size_t k = 0; k < CLG_TEST_ARRAY_LEN(scenarios); k++) {
        const scenario *s = &scenarios[k];
        tensors t;
        set_env(s);
        tensors_make(s, &t);
        uint64_t calls = run_once(s, &t, 0);
        assert_true(calls >= 8);
        for (uint64_t n = 1; n <= calls; n++)
            run_once(s, &t, n);
        print_message("%s: %" PRIu64 " OpenCL calls, each made to fail\n",
                      s->name, calls);
        points += calls;
        tensors_free(&t);
    }
    unsetenv("CLGATHER_TEST_PLAN");
    unsetenv("CLGATHER_MAX_ALLOC");
    print_message("%" PRIu64 " injection points, 0 contract violations\n",
                  points);
}

int main(void)
{
    size_t count = 0;
    if (clg_devices_list(NULL, 0, &count) != CLG_STATUS_OK || count == 0)
        return 77; /* no OpenCL device at all */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_call_fails_in_turn),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
