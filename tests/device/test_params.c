/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The public device parameters, the first index check and the environment
 * (docs/design.md, "Layers", "Environment"): parameters are validated as
 * CLGATHER_PARAMS is and set per context; CLGATHER_* variables are read
 * once, at creation; clg_check_indices runs the check a host-memory call
 * runs first and names which.
 */
#define _POSIX_C_SOURCE 200809L /* setenv, unsetenv */
#include "clg_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A host-memory Gather of rows 2 and 0 (as -1 and 0) of a 3 x 2 float
 * tensor on ctx, checked. */
static void gather_rows_2_0(clg_context *ctx)
{
    float data[6] = {1, 2, 3, 4, 5, 6}, out[4] = {0};
    int64_t idx[2] = {-1, 0};
    const int64_t dshape[2] = {3, 2}, ishape[1] = {2}, oshape[2] = {2, 2};
    clg_tensor d = {CLG_DTYPE_FLOAT, 2, dshape, data};
    clg_tensor i = {CLG_DTYPE_INT64, 1, ishape, idx};
    clg_tensor o = {CLG_DTYPE_FLOAT, 2, oshape, out};
    CLG_ASSERT_OK(ctx, clg_gather(ctx, &d, &i, 0, &o));
    const float want[4] = {5, 6, 1, 2};
    assert_memory_equal(out, want, sizeof want);
}

static void test_params_get_set_parse(void **state)
{
    clg_context *ctx = *state;
    const clg_params_entry *e = clg_context_params_entry(ctx);
    assert_non_null(e);
    assert_null(clg_context_params_entry(NULL));
    clg_params p, q;
    CLG_ASSERT_OK(ctx, clg_context_get_params(ctx, &p));
    assert_memory_equal(&p, &e->params, sizeof p);

    CLG_ASSERT_OK(ctx, clg_context_parse_params(ctx, "wg=64,strip=8", &p));
    assert_int_equal(p.wg, 64);
    assert_int_equal(p.strip, 8);
    assert_int_equal(p.unit, e->params.unit);
    CLG_ASSERT_OK(ctx, clg_context_set_params(ctx, &p));
    CLG_ASSERT_OK(ctx, clg_context_get_params(ctx, &q));
    assert_memory_equal(&p, &q, sizeof p);
    char text[256];
    clg_params_format(&q, text, sizeof text);
    CLG_ASSERT_CONTAINS(text, "wg=64,strip=8,");

    /* Refused values name the field and leave the parameters in use. */
    clg_params bad = p;
    bad.unit = 3;
    CLG_ASSERT_STATUS(ctx, clg_context_set_params(ctx, &bad),
                      CLG_STATUS_INVALID_ARGUMENT);
    CLG_ASSERT_CONTAINS(clg_context_last_error(ctx),
                        "unit takes a power of two");
    bad = p;
    bad.wg = 0;
    CLG_ASSERT_STATUS(ctx, clg_context_set_params(ctx, &bad),
                      CLG_STATUS_INVALID_ARGUMENT);
    CLG_ASSERT_CONTAINS(clg_context_last_error(ctx),
                        "wg takes a number in [1, 4096]");
    CLG_ASSERT_STATUS(ctx, clg_context_parse_params(ctx, "wg=1,,", &bad),
                      CLG_STATUS_INVALID_ARGUMENT);
    CLG_ASSERT_CONTAINS(clg_context_last_error(ctx),
                        "an empty item (item 2, at byte 5: a leading, "
                        "doubled or trailing comma)");
    /* The message names the row whose fields it was applied onto. */
    char row[64];
    snprintf(row, sizeof row, "(parameter row \"%s\")", e->name);
    CLG_ASSERT_CONTAINS(clg_context_last_error(ctx), row);
    CLG_ASSERT_OK(ctx, clg_context_get_params(ctx, &q));
    assert_memory_equal(&p, &q, sizeof p);

    /* The results do not depend on the parameters. */
    gather_rows_2_0(ctx);

    CLG_ASSERT_OK(ctx, clg_context_set_params(ctx, &e->params));
    CLG_ASSERT_STATUS(ctx, clg_context_get_params(ctx, NULL),
                      CLG_STATUS_NULL_POINTER);
    CLG_ASSERT_STATUS(NULL, clg_context_set_params(NULL, &p),
                      CLG_STATUS_NULL_POINTER);
}

/* The environment is read when a context is created, not by calls. */
static void test_environment_read_once(void **state)
{
    (void)state;
    clg_context *c = NULL;
    assert_int_equal(setenv("CLGATHER_PARAMS", "wg=32", 1), 0);
    CLG_ASSERT_OK(NULL, clg_context_create(&c, NULL));
    assert_int_equal(unsetenv("CLGATHER_PARAMS"), 0);
    assert_string_equal(clg_context_params_env(c), "wg=32");
    clg_params p;
    CLG_ASSERT_OK(c, clg_context_get_params(c, &p));
    assert_int_equal(p.wg, 32);
    clg_context_destroy(c);

    /* A malformed value fails the calls that need parameters, by name. */
    assert_int_equal(setenv("CLGATHER_PARAMS", "wg=99999", 1), 0);
    c = NULL;
    CLG_ASSERT_OK(NULL, clg_context_create(&c, NULL));
    assert_int_equal(unsetenv("CLGATHER_PARAMS"), 0);
    CLG_ASSERT_STATUS(c, clg_context_get_params(c, &p),
                      CLG_STATUS_INVALID_ARGUMENT);
    CLG_ASSERT_CONTAINS(clg_context_last_error(c),
                        "CLGATHER_PARAMS=\"wg=99999\"");
    /* Valid parameters set through the API replace it. */
    CLG_ASSERT_OK(c, clg_context_set_params(c, &clg_context_params_entry(c)
                                                    ->params));
    CLG_ASSERT_OK(c, clg_context_get_params(c, &p));
    assert_null(clg_context_params_env(NULL));
    clg_context_destroy(c);

    CLG_ASSERT_OK(NULL, clg_environment_check());
    assert_int_equal(setenv("CLGATHER_VALIDATE", "2", 1), 0);
    CLG_ASSERT_STATUS(NULL, clg_environment_check(),
                      CLG_STATUS_INVALID_ARGUMENT);
    assert_string_equal(clg_context_last_error(NULL),
                        "CLGATHER_VALIDATE=\"2\" is not \"0\" or \"1\"");
    c = NULL;
    CLG_ASSERT_STATUS(NULL, clg_context_create(&c, NULL),
                      CLG_STATUS_INVALID_ARGUMENT);
    assert_null(c);
    assert_int_equal(unsetenv("CLGATHER_VALIDATE"), 0);
    CLG_ASSERT_OK(NULL, clg_environment_check());

    assert_int_equal(setenv("CLGATHER_SVM", "yes", 1), 0);
    CLG_ASSERT_STATUS(NULL, clg_environment_check(),
                      CLG_STATUS_INVALID_ARGUMENT);
    assert_string_equal(clg_context_last_error(NULL),
                        "CLGATHER_SVM=\"yes\" is not \"0\" or \"1\"");
    CLG_ASSERT_STATUS(NULL, clg_context_create(&c, NULL),
                      CLG_STATUS_INVALID_ARGUMENT);
    assert_null(c);
    /* 0 turns SVM pointers off; host memory stays in place, wrapped, and
     * calls give the same results. */
    assert_int_equal(setenv("CLGATHER_SVM", "", 1), 0);
    CLG_ASSERT_OK(NULL, clg_context_create(&c, NULL));
    const int shared = clg_context_uses_host_memory(c);
    clg_context_destroy(c);
    assert_int_equal(setenv("CLGATHER_SVM", "0", 1), 0);
    CLG_ASSERT_OK(NULL, clg_context_create(&c, NULL));
    assert_int_equal(unsetenv("CLGATHER_SVM"), 0);
    assert_int_equal(clg_context_uses_svm(c), 0);
    assert_int_equal(clg_context_uses_host_memory(c), shared);
    gather_rows_2_0(c);
    clg_context_destroy(c);
    c = NULL;
}

/* Which check ran follows the host-memory call's rule. */
static void test_check_indices(void **state)
{
    clg_context *ctx = *state;
    const int64_t n = 70000; /* above the host scan's 65536 */
    int32_t *idx = malloc((size_t)n * sizeof *idx);
    assert_non_null(idx);
    for (int64_t k = 0; k < n; k++)
        idx[k] = (int32_t)(k % 6) - 3;
    const int64_t big[1] = {n}, small[2] = {2, 3};
    clg_tensor t = {CLG_DTYPE_INT32, 1, big, idx};
    clg_index_check ran = CLG_INDEX_CHECK_NONE;
    CLG_ASSERT_OK(ctx, clg_check_indices(ctx, &t, 0, 3, &ran));
    const int shared = clg_context_uses_host_memory(ctx);
    assert_int_equal(ran,
                     shared ? CLG_INDEX_CHECK_DEVICE : CLG_INDEX_CHECK_HOST);
    idx[n - 1] = 3;
    CLG_ASSERT_STATUS(ctx, clg_check_indices(ctx, &t, 0, 3, &ran),
                      CLG_STATUS_INDEX_OUT_OF_RANGE);
    char want[96];
    snprintf(want, sizeof want,
             "indices[%lld] = 3 is out of range [-3, 2] for axis 0 of size 3",
             (long long)(n - 1));
    assert_string_equal(clg_context_last_error(ctx), want);

    clg_tensor s = {CLG_DTYPE_INT32, 2, small, idx};
    idx[4] = 9;
    CLG_ASSERT_STATUS(ctx, clg_check_indices(ctx, &s, 1, 3, &ran),
                      CLG_STATUS_INDEX_OUT_OF_RANGE);
    assert_int_equal(ran, CLG_INDEX_CHECK_HOST);
    assert_string_equal(clg_context_last_error(ctx),
                        "indices[1][1] = 9 is out of range [-3, 2] for axis "
                        "1 of size 3");
    clg_tensor f = {CLG_DTYPE_FLOAT, 2, small, idx};
    CLG_ASSERT_STATUS(ctx, clg_check_indices(ctx, &f, 0, 3, &ran),
                      CLG_STATUS_UNSUPPORTED_DTYPE);
    assert_int_equal(ran, CLG_INDEX_CHECK_NONE);
    /* Bad descriptors: the message names what is wrong, never an older
     * call's error. */
    CLG_ASSERT_STATUS(NULL, clg_check_indices(NULL, &s, 0, 3, &ran),
                      CLG_STATUS_NULL_POINTER);
    const int64_t negative[2] = {2, -3};
    clg_tensor neg = {CLG_DTYPE_INT32, 2, negative, idx};
    CLG_ASSERT_STATUS(ctx, clg_check_indices(ctx, &neg, 0, 3, &ran),
                      CLG_STATUS_INVALID_SHAPE);
    assert_string_equal(clg_context_last_error(ctx),
                        "indices.shape[1] = -3 is negative");
    clg_tensor deep = {CLG_DTYPE_INT32, CLG_MAX_RANK + 8, small, idx};
    CLG_ASSERT_STATUS(ctx, clg_check_indices(ctx, &deep, 0, 3, &ran),
                      CLG_STATUS_INVALID_RANK);
    CLG_ASSERT_CONTAINS(clg_context_last_error(ctx), "indices has rank 40");
    idx[4] = 0;
    CLG_ASSERT_STATUS(ctx, clg_check_indices(ctx, &s, 0, -1, &ran),
                      CLG_STATUS_INVALID_ARGUMENT);
    assert_string_equal(clg_context_last_error(ctx),
                        "axis_size = -1 is negative");
    CLG_ASSERT_STATUS(ctx, clg_check_indices(ctx, &s, 0, INT64_MIN, &ran),
                      CLG_STATUS_INVALID_ARGUMENT);
    assert_int_equal(ran, CLG_INDEX_CHECK_NONE);
    free(idx);
}

/* The parameters by name: each field set and read alone, validated as in
 * CLGATHER_PARAMS, seen by the struct calls too; the whole set from text. */
/* The check kernel's range test at its edges, for both index types: a
 * tensor of valid values from -s to s-1 passes; one bad value (just
 * outside, or the type's extremes), placed first, in each lane of a full
 * group of sixteen or in the short tail group, fails with its own index
 * named.
 * Sizes above the type's maximum accept every value. */
static void check_edges(clg_context *ctx, clg_dtype dtype, int64_t s,
                        int64_t lo, int64_t hi)
{
    const int64_t n = 70000 + 5; /* a tail group of 5 */
    const size_t size = dtype == CLG_DTYPE_INT32 ? 4 : 8;
    unsigned char *idx = malloc((size_t)n * size);
    assert_non_null(idx);
    const int64_t shape[1] = {n};
    clg_tensor t = {dtype, 1, shape, idx};
    clg_index_check ran = CLG_INDEX_CHECK_NONE;
    const int shared = clg_context_uses_host_memory(ctx);
    for (int64_t k = 0; k < n; k++) {
        const int64_t off = k % (s < 3 ? s : 3);
        int64_t v = k % 2 ? -s + off : s - 1 - off;
        if (size == 4) {
            int32_t w = (int32_t)v;
            memcpy(idx + k * 4, &w, 4);
        } else {
            memcpy(idx + k * 8, &v, 8);
        }
    }
    CLG_ASSERT_OK(ctx, clg_check_indices(ctx, &t, 0, s, &ran));
    assert_int_equal(ran,
                     shared ? CLG_INDEX_CHECK_DEVICE : CLG_INDEX_CHECK_HOST);
    const int64_t bad[4] = {-s - 1, s, lo, hi};
    /* First; each lane of the full group 34992 to 35007 (the CPU check
     * folds a group's sixteen in halves); in the tail. */
    int64_t at[18] = {0};
    for (int a = 1; a <= 16; a++)
        at[a] = 34991 + a;
    at[17] = n - 2;
    for (int b = 0; b < 4; b++)
        for (int a = 0; a < 18; a++) {
            unsigned char keep[8];
            memcpy(keep, idx + at[a] * (int64_t)size, size);
            if (size == 4) {
                int32_t w = (int32_t)bad[b];
                memcpy(idx + at[a] * 4, &w, 4);
            } else {
                memcpy(idx + at[a] * 8, &bad[b], 8);
            }
            CLG_ASSERT_STATUS(ctx, clg_check_indices(ctx, &t, 0, s, &ran),
                              CLG_STATUS_INDEX_OUT_OF_RANGE);
            char want[64];
            snprintf(want, sizeof want, "indices[%lld] = %lld ",
                     (long long)at[a], (long long)bad[b]);
            CLG_ASSERT_CONTAINS(clg_context_last_error(ctx), want);
            memcpy(idx + at[a] * (int64_t)size, keep, size);
        }
    free(idx);
}

/* Past the type's maximum, every value is a position. */
static void check_any_int32(clg_context *ctx)
{
    const int64_t n = 70000 + 5;
    int32_t *idx = calloc((size_t)n, sizeof *idx);
    assert_non_null(idx);
    idx[0] = INT32_MIN;
    idx[35007] = INT32_MAX;
    idx[n - 2] = INT32_MIN;
    const int64_t shape[1] = {n};
    clg_tensor t = {CLG_DTYPE_INT32, 1, shape, idx};
    clg_index_check ran = CLG_INDEX_CHECK_NONE;
    CLG_ASSERT_OK(ctx, clg_check_indices(ctx, &t, 0, INT64_C(1) << 31, &ran));
    CLG_ASSERT_STATUS(ctx, clg_check_indices(ctx, &t, 0, INT32_MAX, &ran),
                      CLG_STATUS_INDEX_OUT_OF_RANGE);
    CLG_ASSERT_CONTAINS(clg_context_last_error(ctx),
                        "indices[0] = -2147483648 ");
    free(idx);
}

static void test_check_indices_edges(void **state)
{
    clg_context *ctx = *state;
    check_edges(ctx, CLG_DTYPE_INT32, 3, INT32_MIN, INT32_MAX);
    check_edges(ctx, CLG_DTYPE_INT32, 1, INT32_MIN, INT32_MAX);
    check_edges(ctx, CLG_DTYPE_INT32, INT32_MAX - 1, INT32_MIN, INT32_MAX);
    check_edges(ctx, CLG_DTYPE_INT32, INT32_MAX, INT32_MIN, INT32_MAX);
    check_edges(ctx, CLG_DTYPE_INT64, 3, INT64_MIN, INT64_MAX);
    check_edges(ctx, CLG_DTYPE_INT64, INT64_C(1) << 40, INT64_MIN, INT64_MAX);
    check_any_int32(ctx);
}

static void test_params_by_name(void **state)
{
    clg_context *ctx = *state;
    const clg_params_entry *e = clg_context_params_entry(ctx);
    clg_params p;
    int64_t v = -1;
    CLG_ASSERT_OK(ctx, clg_context_set_params_text(ctx, ""));
    CLG_ASSERT_OK(ctx, clg_context_get_param(ctx, CLG_PARAM_WG, &v));
    assert_int_equal(v, e->params.wg);
    CLG_ASSERT_OK(ctx, clg_context_set_param(ctx, CLG_PARAM_WG, 64));
    CLG_ASSERT_OK(ctx, clg_context_set_param(ctx, CLG_PARAM_SMALL, 16));
    CLG_ASSERT_OK(ctx, clg_context_get_param(ctx, CLG_PARAM_WG, &v));
    assert_int_equal(v, 64);
    CLG_ASSERT_OK(ctx, clg_context_get_params(ctx, &p));
    assert_int_equal(p.wg, 64);
    assert_int_equal(p.small, 16);
    assert_int_equal(p.unit, e->params.unit);
    gather_rows_2_0(ctx);

    /* Refused values name the field and change nothing. */
    CLG_ASSERT_STATUS(ctx, clg_context_set_param(ctx, CLG_PARAM_UNIT, 3),
                      CLG_STATUS_INVALID_ARGUMENT);
    CLG_ASSERT_CONTAINS(clg_context_last_error(ctx),
                        "clg_context_set_param: \"unit=3\": unit takes a "
                        "power of two");
    CLG_ASSERT_STATUS(ctx, clg_context_set_param(ctx, CLG_PARAM_WG, -5),
                      CLG_STATUS_INVALID_ARGUMENT);
    CLG_ASSERT_CONTAINS(clg_context_last_error(ctx),
                        "wg takes a number in [1, 4096]");
    CLG_ASSERT_STATUS(ctx, clg_context_set_param(ctx, (clg_param)10, 1),
                      CLG_STATUS_INVALID_ARGUMENT);
    CLG_ASSERT_CONTAINS(clg_context_last_error(ctx),
                        "param 10 is not a field (0 to 9)");
    CLG_ASSERT_STATUS(ctx, clg_context_get_param(ctx, (clg_param)-1, &v),
                      CLG_STATUS_INVALID_ARGUMENT);
    CLG_ASSERT_STATUS(ctx, clg_context_get_param(ctx, CLG_PARAM_WG, NULL),
                      CLG_STATUS_NULL_POINTER);
    CLG_ASSERT_STATUS(NULL, clg_context_set_param(NULL, CLG_PARAM_WG, 1),
                      CLG_STATUS_NULL_POINTER);
    CLG_ASSERT_OK(ctx, clg_context_get_param(ctx, CLG_PARAM_UNIT, &v));
    assert_int_equal(v, e->params.unit);

    /* The built-ins decide the range on this device. */
    int64_t lo = -1, hi = -1;
    CLG_ASSERT_OK(ctx, clg_context_param_bounds(ctx, CLG_PARAM_NT, &lo, &hi));
    assert_int_equal(lo, 0);
    assert_int_equal(hi, e->builtins ? 3 : 0);
    CLG_ASSERT_OK(ctx,
                  clg_context_param_bounds(ctx, CLG_PARAM_PACK, &lo, &hi));
    assert_int_equal(hi, e->builtins ? 2 : 1);
    CLG_ASSERT_STATUS(ctx, clg_context_set_param(ctx, CLG_PARAM_NT, 2),
                      e->builtins ? CLG_STATUS_OK
                                  : CLG_STATUS_INVALID_ARGUMENT);

    /* Text: onto the row, validated whole before anything changes. */
    char text[256], row[256], want[300];
    CLG_ASSERT_OK(ctx, clg_context_set_params_text(ctx, "strip=8,wg=32"));
    CLG_ASSERT_OK(ctx, clg_context_format_params(ctx, text, sizeof text));
    clg_params q = e->params;
    q.wg = 32;
    q.strip = 8;
    clg_params_format(&q, want, sizeof want);
    /* The fields past clg_params follow, at the row's values. */
    int64_t host = -1;
    CLG_ASSERT_OK(ctx, clg_context_get_param(ctx, CLG_PARAM_HOST, &host));
    assert_true(host >= 0);
    snprintf(want + strlen(want), sizeof want - strlen(want), ",host=%lld",
             (long long)host);
    assert_string_equal(text, want);
    CLG_ASSERT_STATUS(ctx, clg_context_set_params_text(ctx, "wg=16,nt=9"),
                      CLG_STATUS_INVALID_ARGUMENT);
    CLG_ASSERT_CONTAINS(clg_context_last_error(ctx),
                        "\"nt=9\": nt takes a number in [0, 3]");
    CLG_ASSERT_OK(ctx, clg_context_get_param(ctx, CLG_PARAM_WG, &v));
    assert_int_equal(v, 32);
    /* Too small a buffer: whole items only, and the size needed. */
    CLG_ASSERT_STATUS(ctx, clg_context_format_params(ctx, text, 12),
                      CLG_STATUS_INVALID_ARGUMENT);
    assert_string_equal(text, "wg=32");
    snprintf(row, sizeof row, "need %zu bytes, buf has 12", strlen(want) + 1);
    CLG_ASSERT_CONTAINS(clg_context_last_error(ctx), row);
    CLG_ASSERT_OK(ctx, clg_context_set_params_text(ctx, NULL));
    CLG_ASSERT_OK(ctx, clg_context_get_params(ctx, &p));
    assert_memory_equal(&p, &e->params, sizeof p);
}

/* A malformed CLGATHER_PARAMS leaves no values to set one field of; the
 * whole set from text replaces it. */
static void test_params_by_name_under_a_bad_environment(void **state)
{
    (void)state;
    clg_context *c = NULL;
    int64_t v = -1;
    assert_int_equal(setenv("CLGATHER_PARAMS", "wg=99999", 1), 0);
    CLG_ASSERT_OK(NULL, clg_context_create(&c, NULL));
    assert_int_equal(unsetenv("CLGATHER_PARAMS"), 0);
    CLG_ASSERT_STATUS(c, clg_context_set_param(c, CLG_PARAM_WG, 32),
                      CLG_STATUS_INVALID_ARGUMENT);
    CLG_ASSERT_CONTAINS(clg_context_last_error(c),
                        "CLGATHER_PARAMS=\"wg=99999\"");
    CLG_ASSERT_STATUS(c, clg_context_get_param(c, CLG_PARAM_WG, &v),
                      CLG_STATUS_INVALID_ARGUMENT);
    CLG_ASSERT_STATUS(c, clg_context_set_params_text(c, NULL),
                      CLG_STATUS_INVALID_ARGUMENT);
    CLG_ASSERT_CONTAINS(clg_context_last_error(c),
                        "CLGATHER_PARAMS=\"wg=99999\": \"wg=99999\": wg "
                        "takes a number in [1, 4096]");
    CLG_ASSERT_OK(c, clg_context_set_params_text(c, "wg=16"));
    CLG_ASSERT_OK(c, clg_context_get_param(c, CLG_PARAM_WG, &v));
    assert_int_equal(v, 16);
    gather_rows_2_0(c);
    clg_context_destroy(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_params_get_set_parse),
        cmocka_unit_test(test_environment_read_once),
        cmocka_unit_test(test_check_indices),
        cmocka_unit_test(test_check_indices_edges),
        cmocka_unit_test(test_params_by_name),
        cmocka_unit_test(test_params_by_name_under_a_bad_environment),
    };
    return CLG_RUN_DEVICE_TESTS(tests);
}
