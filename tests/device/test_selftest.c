/* SPDX-License-Identifier: Apache-2.0 */
/* The known-answer self-test of every kernel variant (docs/guide.md,
 * "Known-answer self-test"): kernels built wrong on purpose (the test-only
 * CLGATHER_TEST_MISCOMPILE=1, under which index -1 selects none) are
 * refused with DEVICE_MISCOMPILED, named in the message with the case and
 * the device, the caller's output untouched, and nothing is stored in the
 * disk cache; right kernels pass, are stored, and a context that loads
 * them from the disk cache does not test them again. Each test uses a
 * cache folder of its own under $TMPDIR (else /tmp), removed at its end. */
#define _GNU_SOURCE
#include "clg_test.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "context.h"

static void make_dir(char *path, size_t cap)
{
    const char *base = getenv("TMPDIR");
    snprintf(path, cap, "%s/clg-selftest-XXXXXX",
             base && *base ? base : "/tmp");
    assert_non_null(mkdtemp(path));
}

/* Removes the folder and everything in it (one level). */
static void remove_dir(const char *path)
{
    DIR *d = opendir(path);
    struct dirent *e;
    if (d) {
        while ((e = readdir(d)) != NULL)
            if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
                unlinkat(dirfd(d), e->d_name, 0);
        closedir(d);
    }
    assert_int_equal(rmdir(path), 0);
}

static size_t entries_in(const char *dir)
{
    clg_cache_entry e[64];
    size_t count = 0;
    CLG_ASSERT_OK(NULL, clg_cache_list(dir, e, 64, &count));
    return count;
}

/* The verdict of entry point `name` in program p (UNTESTED: none kept). */
static int verdict_of(const clg_cached_program *p, const char *name)
{
    for (size_t i = 0; i < p->verdict_count; i++)
        if (!strcmp(p->verdicts[i].name, name))
            return p->verdicts[i].verdict;
    return CLG_RT_UNTESTED;
}

/* Every verdict program p keeps is `verdict`, and every kernel it made
 * has one. */
static void assert_verdicts(const clg_cached_program *p, int verdict)
{
    assert_true(p->verdict_count > 0);
    for (size_t i = 0; i < p->verdict_count; i++)
        assert_int_equal(p->verdicts[i].verdict, verdict);
    for (size_t k = 0; k < p->kernel_count; k++)
        assert_int_equal(verdict_of(p, p->kernels[k].name), verdict);
}

/* A context on the default device with the program cache in `dir` and
 * CLGATHER_TEST_MISCOMPILE set to `miscompile`. */
static clg_context *open_context(const char *dir, const char *miscompile)
{
    clg_context *ctx = NULL;
    assert_int_equal(setenv("CLGATHER_CACHE_DIR", dir, 1), 0);
    assert_int_equal(setenv("CLGATHER_CACHE", "1", 1), 0);
    assert_int_equal(setenv("CLGATHER_TEST_MISCOMPILE", miscompile, 1), 0);
    clg_status st = clg_context_create(&ctx, NULL);
    unsetenv("CLGATHER_TEST_MISCOMPILE");
    unsetenv("CLGATHER_CACHE_DIR");
    unsetenv("CLGATHER_CACHE");
    if (st == CLG_STATUS_DEVICE_NOT_FOUND)
        skip();
    CLG_ASSERT_OK(NULL, st);
    return ctx;
}

/* Gather of data [4, 3] INT32 on axis 0 with INT32 indices {-1, 2, 0}
 * (GatherElements: indices [3, 3] of the same values), under `mode`.
 * Returns the call's status; on OK compares with the expected rows. */
static clg_status gather_minus_one(clg_context *ctx, int elements,
                                   clg_oob_mode mode)
{
    int32_t data[12], out[9], want[9];
    int32_t idx[9] = {-1, 2, 0, -1, 2, 0, -1, 2, 0};
    int64_t dshape[2] = {4, 3}, ishape[2] = {3, 3}, oshape[2] = {3, 3};
    clg_call_options o = {mode};
    for (int i = 0; i < 12; i++)
        data[i] = 100 + i;
    memset(out, 0x5a, sizeof out);
    clg_tensor d = {CLG_DTYPE_INT32, 2, dshape, data};
    clg_tensor x = {CLG_DTYPE_INT32, elements ? 2 : 1, ishape, idx};
    clg_tensor y = {CLG_DTYPE_INT32, 2, oshape, out};
    clg_status st = elements ? clg_gather_elements_ex(ctx, &d, &x, 0, &y, &o)
                             : clg_gather_ex(ctx, &d, &x, 0, &y, &o);
    if (st != CLG_STATUS_OK) {
        CLG_ASSERT_FILLED(out, sizeof out, 0x5a, "output of a refused call");
        return st;
    }
    for (int i = 0; i < 9; i++) {
        int32_t v = elements ? idx[i] : idx[i / 3];
        want[i] = data[(v < 0 ? v + 4 : v) * 3 + i % 3];
    }
    CLG_ASSERT_BYTES(out, want, sizeof out, 4, "output");
    return st;
}

/* Miscompiled kernels answer DEVICE_MISCOMPILED naming the kernel, the
 * case and the device, every time (the verdict is kept), and leave the
 * disk cache empty. */
static void test_miscompiled_kernel_is_refused(void **state)
{
    (void)state;
    char dir[256];
    make_dir(dir, sizeof dir);
    clg_context *ctx = open_context(dir, "1");
    const clg_oob_mode modes[2] = {CLG_OOB_RAISE, CLG_OOB_FILL};
    for (int op = 0; op < 2; op++)
        for (int m = 0; m < 2; m++) {
            clg_test_set_case("%s under %s", op ? "GatherElements" : "Gather",
                              clg_oob_mode_name(modes[m]));
            for (int again = 0; again < 2; again++) {
                assert_int_equal(gather_minus_one(ctx, op, modes[m]),
                                 CLG_STATUS_DEVICE_MISCOMPILED);
                const char *msg = clg_context_last_error(ctx);
                CLG_ASSERT_CONTAINS(msg, "kernel clg_");
                CLG_ASSERT_CONTAINS(msg, "known-answer self-test");
                CLG_ASSERT_CONTAINS(msg, clg_context_device_name(ctx));
                CLG_ASSERT_CONTAINS(msg, "INT32 indices {-1, ");
                /* The variant's own mode: a raise call whose indices the
                 * host checked runs the clip kernels (the CPU plan), one
                 * that checks as it gathers the raise kernels (the GPU
                 * plan). */
                if (modes[m] == CLG_OOB_FILL)
                    CLG_ASSERT_CONTAINS(msg, "under fill");
                else if (strstr(msg, "under raise") == NULL)
                    CLG_ASSERT_CONTAINS(msg, "under clip");
                CLG_ASSERT_CONTAINS(msg, "(build options \"-cl-std=CL1.2 ");
            }
        }
    /* Every entry point that was tested failed its test, and every
     * kernel built has failed: none was stored. */
    assert_true(ctx->program_count > 0);
    for (size_t i = 0; i < ctx->program_count; i++)
        if (strstr(ctx->programs[i]->key, "gather"))
            assert_verdicts(ctx->programs[i], CLG_RT_FAILED);
    assert_int_equal(entries_in(dir), 0);
    clg_context_destroy(ctx);
    remove_dir(dir);
}

/* Right kernels pass, answer, and are stored; a new context loads them
 * from the disk cache as passed and answers without testing them. */
static void test_passed_kernel_is_stored_with_its_verdict(void **state)
{
    (void)state;
    char dir[256];
    make_dir(dir, sizeof dir);
    for (int round = 0; round < 2; round++) {
        clg_context *ctx = open_context(dir, "0");
        for (int op = 0; op < 2; op++) {
            clg_test_set_case("round %d, %s", round,
                              op ? "GatherElements" : "Gather");
            CLG_ASSERT_OK(ctx, gather_minus_one(ctx, op, CLG_OOB_RAISE));
        }
        assert_true(ctx->program_count > 0);
        for (size_t i = 0; i < ctx->program_count; i++)
            assert_verdicts(ctx->programs[i], CLG_RT_PASSED);
        size_t stored = entries_in(dir);
        assert_int_equal(stored, ctx->program_count);
        /* The second context built nothing: every program came from the
         * disk cache (a passed verdict), so none was tested again. */
        if (round == 1)
            assert_int_equal(ctx->disk.misses, 0);
        clg_context_destroy(ctx);
    }
    remove_dir(dir);
}

/* A bad CLGATHER_TEST_MISCOMPILE is refused at creation. */
static void test_bad_switch_is_refused(void **state)
{
    (void)state;
    clg_context *ctx = NULL;
    assert_int_equal(setenv("CLGATHER_TEST_MISCOMPILE", "yes", 1), 0);
    clg_status st = clg_context_create(&ctx, NULL);
    unsetenv("CLGATHER_TEST_MISCOMPILE");
    assert_int_equal(st, CLG_STATUS_INVALID_ARGUMENT);
    CLG_ASSERT_CONTAINS(clg_context_last_error(NULL),
                        "CLGATHER_TEST_MISCOMPILE=\"yes\"");
    assert_null(ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_miscompiled_kernel_is_refused),
        cmocka_unit_test(test_passed_kernel_is_stored_with_its_verdict),
        cmocka_unit_test(test_bad_switch_is_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
