/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The split path with small tensors: every host-memory call runs with
 * device buffers capped at 1 KiB (CLGATHER_MAX_ALLOC), so most outputs are
 * cut into pieces (outer rows, index runs or column ranges) and most data
 * into windows. The same randomized cases as test_random.c (every op x
 * dtype x index dtype x rank 1..8, misaligned pointers, planted bad
 * indices) must give bit-identical results and the same errors, with the
 * output untouched on error.
 */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include "clg_test_random.h"

#define CAP_BYTES 1024

static void test_buffers_are_capped(void **state)
{
    clg_context *ctx = *state;
    assert_int_equal(clg_context_max_alloc_size(ctx), CAP_BYTES);
}

static void test_random_cases_split(void **state)
{
    clg_context *ctx = *state;
    clg_test_rng rng = {clg_test_seed(0x5b117)};
    for (size_t i = 0; i < 512; i++) {
        clg_test_spec spec;
        clg_test_random_case rc;
        clg_test_random_spec(&rng, i, &spec);
        clg_test_random_case_make(&rng, &spec, &rc);
        clg_test_set_case("split case %zu: %s", i, rc.desc);
        clg_test_check_random(ctx, 1, &rc);
        clg_test_random_case_free(&rc);
    }
}

/* The same under device parameters that give small cases strips (packed
 * where a launch covers whole tensors, in place in pieces) and odd
 * work-groups; the prefetching and non-temporal settings run where the
 * device's entry allows them (test_random.c checks the refusal). */
static void test_random_cases_split_params(void **state)
{
    static const char *const settings[] = {"strip=8,chunk=3",
                                           "strip=4,pack=0,wg=7",
                                           "unit=64,prefetch=2,nt=1"};
    clg_context *ctx = *state;
    clg_test_rng rng = {clg_test_seed(0x5b118)};
    /* The row of the plan in use: under CLGATHER_TEST_PLAN=gpu, the GPU
     * row, which has no built-ins. */
    const clg_params_entry *e = clg_context_params_entry(ctx);
    for (size_t k = 0; k < CLG_TEST_ARRAY_LEN(settings) - !e->builtins; k++) {
        clg_params p = e->params;
        CLG_ASSERT_OK(ctx, clg_context_parse_params(ctx, settings[k], &p));
        CLG_ASSERT_OK(ctx, clg_context_set_params(ctx, &p));
        for (size_t i = 0; i < 256; i++) {
            clg_test_spec spec;
            clg_test_random_case rc;
            clg_test_random_spec(&rng, i, &spec);
            clg_test_random_case_make(&rng, &spec, &rc);
            clg_test_set_case("split case %zu, CLGATHER_PARAMS=%s: %s", i,
                              settings[k], rc.desc);
            clg_test_check_random(ctx, 1, &rc);
            clg_test_random_case_free(&rc);
        }
    }
    CLG_ASSERT_OK(ctx, clg_context_set_params(ctx, &e->params));
}

/* Rows far larger than one buffer: Gather pieces of columns, data windows
 * inside one row, GatherElements along a long last axis. */
static void test_long_rows(void **state)
{
    clg_context *ctx = *state;
    enum { S = 3, W = 1000 };
    const int64_t dshape[2] = {S, W}, gi[1] = {4}, gout[2] = {4, W};
    const int64_t ei[2] = {S, 700};
    double *data = malloc(S * W * sizeof *data);
    double *out = malloc(4 * W * sizeof *out),
           *ref = malloc(4 * W * sizeof *ref);
    int64_t gidx[4] = {2, -3, 1, -1};
    int32_t *eidx = malloc(S * 700 * sizeof *eidx);
    assert_non_null(data);
    for (int i = 0; i < S * W; i++)
        data[i] = i * 0.5 - 7.25;
    for (int i = 0; i < S * 700; i++)
        eidx[i] = (int32_t)((i * 7919) % (2 * W) - W);
    clg_tensor D = {CLG_DTYPE_DOUBLE, 2, dshape, data};
    clg_tensor G = {CLG_DTYPE_INT64, 1, gi, gidx};
    clg_tensor GO = {CLG_DTYPE_DOUBLE, 2, gout, out};
    clg_tensor GR = {CLG_DTYPE_DOUBLE, 2, gout, ref};
    CLG_ASSERT_OK(ctx, clg_gather(ctx, &D, &G, 0, &GO));
    CLG_ASSERT_OK(ctx, clg_reference_gather(ctx, &D, &G, 0, &GR));
    CLG_ASSERT_BYTES(out, ref, 4 * W * sizeof *out, sizeof *out, "Gather");
    for (int j = 0; j < 4; j++)
        CLG_ASSERT_BYTES(out + j * W, data + ((gidx[j] + S) % S) * W,
                         W * sizeof *out, sizeof *out, "Gather row");

    clg_tensor E = {CLG_DTYPE_INT32, 2, ei, eidx};
    clg_tensor EO = {CLG_DTYPE_DOUBLE, 2, ei, out};
    clg_tensor ER = {CLG_DTYPE_DOUBLE, 2, ei, ref};
    CLG_ASSERT_OK(ctx, clg_gather_elements(ctx, &D, &E, -1, &EO));
    CLG_ASSERT_OK(ctx, clg_reference_gather_elements(ctx, &D, &E, -1, &ER));
    CLG_ASSERT_BYTES(out, ref, S * 700 * sizeof *out, sizeof *out,
                     "GatherElements");
    assert_memory_equal(&out[1 * 700 + 0],
                        &data[1 * W + ((eidx[700] + W) % W)], sizeof *out);
    free(data);
    free(out);
    free(ref);
    free(eidx);
}

int main(void)
{
    /* Before the fixture creates its context, which reads the cap. */
    setenv("CLGATHER_MAX_ALLOC", "1024", 1);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_buffers_are_capped),
        cmocka_unit_test(test_random_cases_split),
        cmocka_unit_test(test_random_cases_split_params),
        cmocka_unit_test(test_long_rows),
    };
    return CLG_RUN_DEVICE_TESTS(tests);
}
