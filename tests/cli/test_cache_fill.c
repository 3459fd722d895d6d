/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The whole-device warm-up (clg_context_fill_cache, `clgather cache
 * --fill`; docs/guide.md, "Program cache"): after a fill, a fresh context
 * on the same cache folder, and a fresh process, build nothing from
 * source for calls of the filled shape classes (the cache's counts say
 * so); a second fill loads what the first compiled; `cache --json`
 * reports the fill and the folder's entries.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cmocka.h>
#include <json-c/json.h>

#include "cli_harness.h"

#define GATHER_BIT (1u << CLG_OP_GATHER)
#define RAISE_BIT (1u << CLG_OOB_RAISE)

/* A context on the default device using cache folder dir. */
static clg_context *open_on(const char *dir)
{
    clg_context *ctx = NULL;
    assert_int_equal(clg_context_create(&ctx, NULL), CLG_STATUS_OK);
    assert_int_equal(clg_context_set_cache_dir(ctx, dir), CLG_STATUS_OK);
    return ctx;
}

/* Gather on axis `axis` of FLOAT data `shape` with `count` indices of
 * index_dtype (all 1), on ctx; output compared with the reference. */
static void gather_once(clg_context *ctx, const int64_t *shape, size_t rank,
                        int64_t axis, clg_dtype index_dtype, int64_t count)
{
    int64_t n = 1, out_shape[4], out_rank_shape[4];
    size_t out_rank = 0;
    for (size_t d = 0; d < rank; d++)
        n *= shape[d];
    float *data = malloc((size_t)n * sizeof *data);
    int64_t *idx64 = malloc((size_t)count * sizeof *idx64);
    int32_t *idx32 = malloc((size_t)count * sizeof *idx32);
    int64_t idx_shape[1] = {count};
    assert_non_null(data);
    assert_non_null(idx64);
    assert_non_null(idx32);
    for (int64_t i = 0; i < n; i++)
        data[i] = (float)i;
    for (int64_t i = 0; i < count; i++) {
        idx64[i] = 1;
        idx32[i] = 1;
    }
    clg_tensor dt = {CLG_DTYPE_FLOAT, rank, shape, data};
    clg_tensor it = {index_dtype, 1, idx_shape,
                     index_dtype == CLG_DTYPE_INT64 ? (void *)idx64
                                                    : (void *)idx32};
    assert_int_equal(clg_gather_output_shape(&dt, &it, axis, out_shape, 4,
                                             &out_rank),
                     CLG_STATUS_OK);
    int64_t m = 1;
    for (size_t d = 0; d < out_rank; d++) {
        m *= out_shape[d];
        out_rank_shape[d] = out_shape[d];
    }
    float *out = malloc((size_t)m * sizeof *out);
    float *ref = malloc((size_t)m * sizeof *ref);
    assert_non_null(out);
    assert_non_null(ref);
    clg_tensor ot = {CLG_DTYPE_FLOAT, out_rank, out_rank_shape, out};
    clg_tensor rt = {CLG_DTYPE_FLOAT, out_rank, out_rank_shape, ref};
    assert_int_equal(clg_gather(ctx, &dt, &it, axis, &ot), CLG_STATUS_OK);
    assert_int_equal(clg_reference_gather(ctx, &dt, &it, axis, &rt),
                     CLG_STATUS_OK);
    assert_memory_equal(out, ref, (size_t)m * sizeof *out);
    free(data);
    free(idx64);
    free(idx32);
    free(out);
    free(ref);
}

/* The library call: a fill, then a fresh context on the folder runs
 * Gather calls of the filled classes with every program loaded. */
static void test_fill_then_fresh_context_builds_nothing(void **state)
{
    static const int64_t rows[2] = {1000, 256}, cols[2] = {256, 1000};
    static const int64_t tiny[2] = {7, 3}, flat[1] = {100000};
    char *dir = cli_path(cli_root, "lib-cache");
    clg_cache_info info;
    size_t warmed = 0, skipped = 0;
    clg_context *ctx;
    (void)state;

    ctx = open_on(dir);
    assert_int_equal(clg_context_fill_cache(ctx, GATHER_BIT, RAISE_BIT,
                                            &warmed, &skipped),
                     CLG_STATUS_OK);
    /* 12 Gather classes x 5 element sizes x 2 index dtypes x 1 mode */
    assert_int_equal(warmed + skipped, 120);
    assert_int_equal(clg_context_cache_info(ctx, &info), CLG_STATUS_OK);
    assert_true(info.enabled);
    assert_true(info.misses >= 1);
    assert_true(info.stores >= 1);
    clg_context_destroy(ctx);

    ctx = open_on(dir);
    gather_once(ctx, rows, 2, 0, CLG_DTYPE_INT64, 64);
    gather_once(ctx, rows, 2, 0, CLG_DTYPE_INT32, 64);
    gather_once(ctx, cols, 2, 1, CLG_DTYPE_INT64, 100);
    gather_once(ctx, flat, 1, 0, CLG_DTYPE_INT64, 100000);
    gather_once(ctx, tiny, 2, 0, CLG_DTYPE_INT32, 2);
    assert_int_equal(clg_context_cache_info(ctx, &info), CLG_STATUS_OK);
    if (info.misses != 0)
        fail_msg("a fresh context compiled %llu program(s) after the fill "
                 "(%llu loaded): %s",
                 (unsigned long long)info.misses,
                 (unsigned long long)info.hits,
                 clg_context_cache_refusal(ctx));
    assert_true(info.hits >= 1);
    clg_context_destroy(ctx);
    free(dir);
}

/* Its arguments: masks outside the tables, a NULL context. */
static void test_fill_arguments(void **state)
{
    clg_context *ctx = NULL;
    size_t warmed = 7, skipped = 7;
    (void)state;
    assert_int_equal(clg_context_fill_cache(NULL, 0, 0, NULL, NULL),
                     CLG_STATUS_NULL_POINTER);
    assert_int_equal(clg_context_create(&ctx, NULL), CLG_STATUS_OK);
    assert_int_equal(clg_context_fill_cache(ctx, 1u << 31, 0, &warmed,
                                            &skipped),
                     CLG_STATUS_INVALID_ARGUMENT);
    assert_non_null(strstr(clg_context_last_error(ctx), "ops 0x80000000"));
    assert_int_equal(clg_context_fill_cache(ctx, 0, 1u << 4, NULL, NULL),
                     CLG_STATUS_INVALID_ARGUMENT);
    clg_context_destroy(ctx);
}

static json_object *parse(const char *text)
{
    json_object *doc = json_tokener_parse(text);
    if (doc == NULL)
        fail_msg("not JSON: %s", text);
    return doc;
}

static json_object *member(json_object *o, const char *key)
{
    json_object *v = NULL;
    if (!json_object_object_get_ex(o, key, &v))
        fail_msg("no member '%s' in %s", key, json_object_to_json_string(o));
    return v;
}

/* `run ... --json` (args) in a fresh process on the cache folder `dir`:
 * exit status 0, its programs loaded from the cache, none compiled. */
static void expect_served(const char *dir, const char **args)
{
    cli_result r;
    assert_int_equal(cli_run_env(&r, "CLGATHER_CACHE_DIR", dir, args), 0);
    if (r.status != 0)
        cli_result_dump(&r);
    assert_int_equal(r.status, 0);
    json_object *doc = parse(r.out);
    cli_result_free(&r);
    json_object *pc = member(member(doc, "timing"), "program_cache");
    assert_string_equal(json_object_get_string(member(pc, "state")), "served");
    assert_int_equal(json_object_get_uint64(member(pc, "programs_compiled")),
                     0);
    assert_true(json_object_get_uint64(member(pc, "programs_loaded")) >= 1);
    json_object_put(doc);
}

/* `cache --fill --json` twice, then `run --json` in a fresh process on
 * the same folder: served, nothing compiled. */
static void test_cli_fill_then_run_is_served(void **state)
{
    static const float values[6] = {1, 2, 3, 4, 5, 6};
    static const int64_t data_shape[2] = {7, 3};
    static const int64_t idx_shape[1] = {2};
    static const int32_t idx[2] = {1, 0};
    char *dir = cli_path(cli_root, "cli-cache");
    char *data = cli_tmp("tiny.npy"), *indices = cli_tmp("tiny_idx.npy");
    float seven[21];
    const char *fill[] = {"cache", "--fill", "--op", "gather", "--oob",
                          "raise", "--dir",  dir,    "--json", NULL};
    const char *run[] = {"run",       "gather", "--data", data,
                         "--indices", indices,  "--json", NULL};
    cli_result r;
    json_object *doc, *f;
    uint64_t compiled;
    (void)state;

    for (size_t i = 0; i < 21; i++)
        seven[i] = values[i % 6];
    cli_write_npy(data, CLG_DTYPE_FLOAT, 2, data_shape, seven);
    cli_write_npy(indices, CLG_DTYPE_INT32, 1, idx_shape, idx);

    cli_expect_run(&r, 0, fill);
    doc = parse(r.out);
    cli_result_free(&r);
    f = member(doc, "fill");
    assert_int_equal(json_object_get_int(member(f, "warmed")) +
                         json_object_get_int(member(f, "skipped")),
                     120);
    compiled = json_object_get_uint64(member(f, "programs_compiled"));
    assert_true(compiled >= 1);
    assert_int_equal(json_object_array_length(member(f, "operators")), 1);
    assert_string_equal(json_object_get_string(json_object_array_get_idx(
                            member(f, "operators"), 0)),
                        "gather");
    assert_true(json_object_array_length(member(doc, "entries")) >= compiled);
    assert_string_equal(json_object_get_string(member(doc, "directory")), dir);
    json_object_put(doc);

    /* a second fill compiles nothing */
    cli_expect_run(&r, 0, fill);
    doc = parse(r.out);
    cli_result_free(&r);
    f = member(doc, "fill");
    assert_int_equal(json_object_get_uint64(member(f, "programs_compiled")),
                     0);
    assert_int_equal(json_object_get_uint64(member(f, "programs_loaded")),
                     compiled);
    json_object_put(doc);

    /* a fresh process on the folder */
    expect_served(dir, run);
    free(dir);
    free(data);
    free(indices);
}

/* `cache --fill` on a folder the cache would not use (writable by group
 * and others), and on one not made yet below it: refused before anything
 * is compiled, exit 3, the reason named, nothing written. */
static void test_cli_fill_refuses_untrusted_folder(void **state)
{
    char *dir = cli_path(cli_root, "cli-cache-open");
    const char *fill[] = {"cache", "--fill", "--op", "gather", "--oob",
                          "raise", "--dir",  dir,    NULL};
    cli_result r;
    (void)state;
    assert_int_equal(mkdir(dir, 0700), 0);
    assert_int_equal(chmod(dir, 0777), 0);
    cli_expect_run(&r, 3, fill);
    assert_non_null(strstr(r.err, "writable by group or others"));
    assert_non_null(strstr(r.err, "nothing would be stored"));
    assert_null(strstr(r.err, "filling for"));
    cli_result_free(&r);
    assert_int_equal(cli_count_entries(dir), 0);
    /* A folder not made yet below it: the same, before any compile. */
    char *below = cli_path(dir, "new");
    fill[7] = below;
    cli_expect_run(&r, 3, fill);
    assert_non_null(strstr(r.err, "a folder on its path"));
    assert_null(strstr(r.err, "filling for"));
    cli_result_free(&r);
    assert_int_equal(cli_count_entries(dir), 0);
    free(below);
    free(dir);
}

/* `cache --fill --op gather-nd --oob raise`, then in a fresh process
 * GatherND calls whose outputs (1 MiB or more) take the per-tuple pass on
 * CPU devices: tuples of two components into data [512, 512], 262144 of
 * them (the check kernel's side of 65536 values), served, nothing
 * compiled, and the output right; rows of 1200 bytes, served. */
static void test_cli_fill_gather_nd_is_served(void **state)
{
    static const int64_t data_shape[2] = {512, 512};
    static const int64_t idx_shape[2] = {1 << 18, 2};
    char *dir = cli_path(cli_root, "cli-cache-nd");
    char *data = cli_tmp("nd_fill.npy"), *indices = cli_tmp("nd_fill_idx.npy");
    char *out = cli_tmp("nd_fill_out.npy");
    const char *fill[] = {"cache", "--fill", "--op", "gather-nd", "--oob",
                          "raise", "--dir",  dir,    NULL};
    const char *run[] = {"run",   "gather-nd", "--data", data,     "--indices",
                         indices, "--output",  out,      "--json", NULL};
    /* enough for both data tensors: [512, 512] and [1000, 300] */
    float *values = malloc(1000 * 300 * sizeof *values);
    int32_t *idx = malloc(((size_t)2 << 18) * sizeof *idx);
    cli_result r;

    (void)state;

    assert_non_null(values);
    assert_non_null(idx);
    for (size_t i = 0; i < 1000 * 300; i++)
        values[i] = (float)i;
    for (size_t t = 0; t < (size_t)1 << 18; t++) {
        idx[2 * t] = (int32_t)((t * 7) % 1024) - 512; /* negative half */
        idx[2 * t + 1] = (int32_t)((t * 13) % 512);
    }
    cli_write_npy(data, CLG_DTYPE_FLOAT, 2, data_shape, values);
    cli_write_npy(indices, CLG_DTYPE_INT32, 2, idx_shape, idx);

    cli_expect_run(&r, 0, fill);
    cli_result_free(&r);
    expect_served(dir, run);

    /* out[t] = data[row, col] with the row counted from the end when
     * negative */
    size_t bytes = 0;
    unsigned char *file = cli_read_bytes(out, &bytes);
    assert_non_null(file);
    assert_true(bytes > ((size_t)4 << 18));
    const float *got = (const float *)(file + bytes - ((size_t)4 << 18));
    for (size_t t = 0; t < (size_t)1 << 18; t++) {
        int32_t row = idx[2 * t] < 0 ? idx[2 * t] + 512 : idx[2 * t];
        if (got[t] != values[(size_t)row * 512 + (size_t)idx[2 * t + 1]])
            fail_msg("out[%zu] = %g, want data[%d, %d]", t, (double)got[t],
                     row, idx[2 * t + 1]);
    }
    free(file);

    /* Rows of 1200 bytes (k 1 into data [1000, 300], 1100 tuples): the
     * pass's slices move by Gather's rows body, which the fill builds
     * from Gather's classes. */
    static const int64_t rows_shape[2] = {1000, 300}, rows_idx[2] = {1100, 1};
    cli_write_npy(data, CLG_DTYPE_FLOAT, 2, rows_shape, values);
    cli_write_npy(indices, CLG_DTYPE_INT32, 2, rows_idx, idx);
    expect_served(dir, run);
    free(values);
    free(idx);
    free(dir);
    free(data);
    free(indices);
    free(out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fill_then_fresh_context_builds_nothing),
        cmocka_unit_test(test_fill_arguments),
        cmocka_unit_test(test_cli_fill_then_run_is_served),
        cmocka_unit_test(test_cli_fill_refuses_untrusted_folder),
        cmocka_unit_test(test_cli_fill_gather_nd_is_served),
    };
    return CLI_RUN_TESTS("clgather-fill", tests);
}
