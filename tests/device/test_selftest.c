/* SPDX-License-Identifier: Apache-2.0 */
/* The known-answer self-test of every kernel variant (docs/guide.md,
 * "Known-answer self-test"): kernels built wrong on purpose (the test-only
 * CLGATHER_TEST_MISCOMPILE=1, under which index -1 selects none) are
 * refused with DEVICE_MISCOMPILED, named in the message with the case and
 * the device, the caller's output untouched, and nothing is stored in the
 * disk cache; right kernels pass, are stored, and a context that loads
 * them from the disk cache does not test them again. Each entry point is
 * tested on its own, when first used: the disk entry names those that
 * passed, grows as more do, and never names one that failed, while the
 * program's others stay usable. Each test uses a cache folder of its own
 * under $TMPDIR (else /tmp), removed at its end. */
#define _GNU_SOURCE
#include "clg_test.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "context.h"
#include "variant.h"

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
                CLG_ASSERT_CONTAINS(msg, "(build options \"-cl-std=CL1.2 -w ");
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

/* A variant of gather.cl with INT32 or INT64 indices under `mode`,
 * 4-byte units, whole tensors, no spans, prefetching or non-temporal
 * stores: the options of one program, whichever of its entry points. */
static clg_variant gather_variant(clg_entry entry, unsigned index_bytes,
                                  clg_oob_mode mode)
{
    clg_variant v = {entry, {0}};
    v.value[CLG_OPT_INDEX_BYTES] = index_bytes;
    v.value[CLG_OPT_OOB] = (unsigned)mode;
    v.value[CLG_OPT_UNIT] = 4;
    v.value[CLG_OPT_SPAN] = 1;
    assert_null(clg_variant_check(&v));
    return v;
}

/* GatherND's per-tuple pass (every CLG_TUPLE) under wrap and clip:
 * built wrong on purpose, each is refused at its first use; built right,
 * each passes. Under wrap the pass skips the division for values in
 * range, and the test-only -1 must still reach it (kernels/gather_nd.cl,
 * clg_nd_position). */
static void test_nd_pass_miscompiled_is_refused(void **state)
{
    (void)state;
    static const clg_oob_mode modes[2] = {CLG_OOB_WRAP, CLG_OOB_CLIP};
    char dir[256];
    make_dir(dir, sizeof dir);
    for (int wrong = 1; wrong >= 0; wrong--) {
        clg_context *ctx = open_context(dir, wrong ? "1" : "0");
        for (int m = 0; m < 2; m++)
            for (unsigned k = 0; k <= CLG_ND_SCALAR_COMPONENTS; k++) {
                cl_kernel kernel = NULL;
                clg_variant v = {CLG_ENTRY_GATHER_ND_POSITIONS, {0}};
                v.value[CLG_OPT_INDEX_BYTES] = 8;
                v.value[CLG_OPT_OOB] = (unsigned)modes[m];
                v.value[CLG_OPT_UNIT] = 4;
                v.value[CLG_OPT_TUPLE] = k;
                assert_null(clg_variant_check(&v));
                clg_test_set_case("%s, CLG_TUPLE %u, %s",
                                  clg_oob_mode_name(modes[m]), k,
                                  wrong ? "miscompiled" : "right");
                clg_status st = clg_variant_kernel(ctx, &v, &kernel);
                if (wrong) {
                    assert_int_equal(st, CLG_STATUS_DEVICE_MISCOMPILED);
                    CLG_ASSERT_CONTAINS(clg_context_last_error(ctx),
                                        "clg_gather_nd_positions");
                } else {
                    CLG_ASSERT_OK(ctx, st);
                }
            }
        clg_context_destroy(ctx);
    }
    remove_dir(dir);
}

/* The one cached program of gather.cl. */
static const clg_cached_program *gather_program(const clg_context *ctx)
{
    const clg_cached_program *found = NULL;
    for (size_t i = 0; i < ctx->program_count; i++)
        if (strstr(ctx->programs[i]->key, "gather.cl")) {
            assert_null(found);
            found = ctx->programs[i];
        }
    assert_non_null(found);
    return found;
}

/* The entry points the folder's one entry records as passed: its record's
 * first line, "passed=<names>" (host/cache.c), after the 32-byte header. */
static void recorded(const char *dir, char *names, size_t cap)
{
    clg_cache_entry e[2];
    size_t count = 0;
    char path[600], record[1024];
    CLG_ASSERT_OK(NULL, clg_cache_list(dir, e, 2, &count));
    assert_int_equal(count, 1);
    snprintf(path, sizeof path, "%.500s/%.31s", dir, e[0].file);
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    assert_int_equal(fseek(f, 32, SEEK_SET), 0);
    assert_non_null(fgets(record, sizeof record, f));
    fclose(f);
    assert_int_equal(strncmp(record, "passed=", 7), 0);
    record[strcspn(record, "\n")] = '\0';
    snprintf(names, cap, "%s", record + 7);
}

static clg_cache_info counts(clg_context *ctx)
{
    clg_cache_info info;
    CLG_ASSERT_OK(ctx, clg_context_cache_info(ctx, &info));
    return info;
}

/* Entry point A (clg_gather) is tested at its first use, alone; B
 * (clg_gather_units) of the same program only at its own first use,
 * later, which rewrites the disk entry with both; a new context loads
 * the entry and tests neither. */
static void test_entry_points_are_tested_at_first_use(void **state)
{
    (void)state;
    char dir[256], names[1024];
    cl_kernel k = NULL;
    make_dir(dir, sizeof dir);
    clg_variant a = gather_variant(CLG_ENTRY_GATHER, 8, CLG_OOB_CLIP);
    clg_variant b = gather_variant(CLG_ENTRY_GATHER_UNITS, 8, CLG_OOB_CLIP);
    clg_context *ctx = open_context(dir, "0");
    CLG_ASSERT_OK(ctx, clg_variant_kernel(ctx, &a, &k));
    const clg_cached_program *p = gather_program(ctx);
    assert_int_equal(verdict_of(p, "clg_gather"), CLG_RT_PASSED);
    assert_int_equal(verdict_of(p, "clg_gather_units"), CLG_RT_UNTESTED);
    assert_int_equal(p->verdict_count, 1);
    assert_int_equal(p->kernel_count, 1); /* B was not even made */
    assert_int_equal(counts(ctx).stores, 1);
    recorded(dir, names, sizeof names);
    assert_string_equal(names, "clg_gather");

    CLG_ASSERT_OK(ctx, clg_variant_kernel(ctx, &b, &k));
    assert_int_equal(verdict_of(p, "clg_gather_units"), CLG_RT_PASSED);
    assert_int_equal(p->kernel_count, 2);
    clg_cache_info info = counts(ctx);
    assert_int_equal(info.misses, 1); /* one program, built once */
    assert_int_equal(info.stores, 2);
    recorded(dir, names, sizeof names);
    assert_string_equal(names, "clg_gather,clg_gather_units");
    /* Used again: nothing more is tested or stored. */
    CLG_ASSERT_OK(ctx, clg_variant_kernel(ctx, &a, &k));
    CLG_ASSERT_OK(ctx, clg_variant_kernel(ctx, &b, &k));
    assert_int_equal(counts(ctx).stores, 2);
    clg_context_destroy(ctx);

    /* A new context loads both verdicts with the binary: a test that
     * passed would store the entry again, one that failed would refuse. */
    ctx = open_context(dir, "0");
    CLG_ASSERT_OK(ctx, clg_variant_kernel(ctx, &b, &k));
    CLG_ASSERT_OK(ctx, clg_variant_kernel(ctx, &a, &k));
    p = gather_program(ctx);
    assert_int_equal(p->verdict_count, 2);
    assert_verdicts(p, CLG_RT_PASSED);
    info = counts(ctx);
    assert_int_equal(info.hits, 1);
    assert_int_equal(info.misses, 0);
    assert_int_equal(info.stores, 0);
    clg_context_destroy(ctx);
    recorded(dir, names, sizeof names);
    assert_string_equal(names, "clg_gather,clg_gather_units");
    remove_dir(dir);
}

/* The fill kernel runs within the cases of the trusted rows body it
 * serves: both pass together, in one test and one store. */
static void test_fill_kernel_passes_with_its_body(void **state)
{
    (void)state;
    char dir[256], names[1024];
    cl_kernel k = NULL;
    make_dir(dir, sizeof dir);
    clg_variant body = gather_variant(CLG_ENTRY_GATHER_LEAN_NORMED, 4,
                                      CLG_OOB_FILL);
    clg_variant fill = gather_variant(CLG_ENTRY_GATHER_FILL_ROWS, 4,
                                      CLG_OOB_FILL);
    clg_context *ctx = open_context(dir, "0");
    CLG_ASSERT_OK(ctx, clg_variant_kernel(ctx, &body, &k));
    const clg_cached_program *p = gather_program(ctx);
    assert_int_equal(verdict_of(p, "clg_gather_lean_normed"), CLG_RT_PASSED);
    assert_int_equal(verdict_of(p, "clg_gather_fill_rows"), CLG_RT_PASSED);
    CLG_ASSERT_OK(ctx, clg_variant_kernel(ctx, &fill, &k));
    assert_int_equal(p->verdict_count, 2);
    assert_int_equal(counts(ctx).stores, 1);
    recorded(dir, names, sizeof names);
    assert_string_equal(names, "clg_gather_lean_normed,clg_gather_fill_rows");
    clg_context_destroy(ctx);
    remove_dir(dir);
}

/* Built wrong on purpose, the program's general body (which normalises
 * indices) fails, alone: its trusted body, which reads positions the host
 * wrote, passes and stays usable, and is stored; the disk entry never
 * names the failed one, which a new context tests, and refuses, again. */
static void test_miscompiled_entry_fails_alone(void **state)
{
    (void)state;
    char dir[256], names[1024];
    cl_kernel k = NULL;
    make_dir(dir, sizeof dir);
    clg_variant general = gather_variant(CLG_ENTRY_GATHER, 4, CLG_OOB_FILL);
    clg_variant trusted = gather_variant(CLG_ENTRY_GATHER_LEAN_NORMED, 4,
                                         CLG_OOB_FILL);
    for (int round = 0; round < 2; round++) {
        clg_test_set_case("round %d", round);
        clg_context *ctx = open_context(dir, "1");
        for (int again = 0; again < 2; again++) {
            assert_int_equal(clg_variant_kernel(ctx, &general, &k),
                             CLG_STATUS_DEVICE_MISCOMPILED);
            const char *msg = clg_context_last_error(ctx);
            CLG_ASSERT_CONTAINS(msg, "kernel clg_gather failed its "
                                     "known-answer self-test");
            CLG_ASSERT_CONTAINS(msg, "INT32 indices {-1, ");
            CLG_ASSERT_CONTAINS(msg, "under fill");
            CLG_ASSERT_OK(ctx, clg_variant_kernel(ctx, &trusted, &k));
        }
        const clg_cached_program *p = gather_program(ctx);
        assert_int_equal(verdict_of(p, "clg_gather"), CLG_RT_FAILED);
        assert_int_equal(verdict_of(p, "clg_gather_lean_normed"),
                         CLG_RT_PASSED);
        assert_int_equal(verdict_of(p, "clg_gather_fill_rows"), CLG_RT_PASSED);
        assert_int_equal(p->verdict_count, 3);
        clg_cache_info info = counts(ctx);
        /* Round 0 builds and stores once; round 1 loads the entry, whose
         * passed entry points it does not test, and stores nothing. */
        assert_int_equal(info.hits, round == 1);
        assert_int_equal(info.misses, round == 0);
        assert_int_equal(info.stores, round == 0);
        recorded(dir, names, sizeof names);
        assert_string_equal(names,
                            "clg_gather_lean_normed,clg_gather_fill_rows");
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
        cmocka_unit_test(test_entry_points_are_tested_at_first_use),
        cmocka_unit_test(test_fill_kernel_passes_with_its_body),
        cmocka_unit_test(test_miscompiled_entry_fails_alone),
        cmocka_unit_test(test_nd_pass_miscompiled_is_refused),
        cmocka_unit_test(test_bad_switch_is_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
