/* SPDX-License-Identifier: Apache-2.0 */
/* The device parameter fields by name (CLG_PARAM_TABLE): names, bounds,
 * the tuner's candidates against every row's values, and the rows as
 * clg_params. No device needed. */
#include "clg_test.h"

#include "params.h"

/* 1 when v is among the field's candidates. */
static int is_candidate(clg_param f, int64_t v)
{
    const int64_t *values;
    size_t n;
    CLG_ASSERT_OK(NULL, clg_param_candidates(f, &values, &n));
    for (size_t k = 0; k < n; k++)
        if (values[k] == v)
            return 1;
    return 0;
}

/* Every field is in the tuner's search space (clgather tune tries each
 * field's candidates): at least two values, ascending, each valid on a row
 * with the built-ins, and each row's own value among them and valid for
 * that row. A field a row sets that the tuner does not search, or a row
 * value the tuner never tries, fails here. */
static void test_tuner_searches_every_row_value(void **state)
{
    (void)state;
    char msg[256];
    assert_int_equal(clg_param_count(), 10);
    assert_int_equal(clg_params_table_size, 6);
    for (int f = 0; f < clg_param_count(); f++) {
        const int64_t *values;
        size_t n;
        int64_t lo, hi;
        CLG_ASSERT_OK(NULL, clg_param_candidates((clg_param)f, &values, &n));
        CLG_ASSERT_OK(NULL, clg_param_bounds((clg_param)f, &lo, &hi));
        if (n < 2)
            fail_msg("%s: the tuner searches %zu values", clg_param_name(f),
                     n);
        for (size_t k = 0; k < n; k++) {
            if (k && values[k] <= values[k - 1])
                fail_msg("%s: candidates not ascending", clg_param_name(f));
            if (values[k] < lo || values[k] > hi ||
                clg_param_check((clg_param)f, values[k], 1, msg, sizeof msg))
                fail_msg("%s: candidate %lld refused", clg_param_name(f),
                         (long long)values[k]);
        }
        for (size_t r = 0; r < clg_params_table_size; r++) {
            unsigned v = ((const unsigned *)&clg_params_rows[r])[f];
            if (!is_candidate((clg_param)f, v))
                fail_msg("row \"%s\" sets %s=%u, which the tuner never "
                         "tries",
                         clg_params_table[r].name, clg_param_name(f), v);
            if (clg_param_check((clg_param)f, v, clg_params_table[r].builtins,
                                msg, sizeof msg))
                fail_msg("row \"%s\": %s", clg_params_table[r].name, msg);
        }
    }
    /* The values the tuner's own copy lacked: Intel's pack=2, and small. */
    assert_true(is_candidate(CLG_PARAM_PACK, 2));
    assert_true(is_candidate(CLG_PARAM_SMALL, 0));
    assert_true(is_candidate(CLG_PARAM_SMALL, 64));
    assert_int_equal(clg_params_rows[1].pack, 2);
    assert_int_equal(clg_params_rows[1].small, 0);
}

/* The public rows (clg_params_entry) are the table's values. */
static void test_rows_as_clg_params(void **state)
{
    (void)state;
    for (size_t r = 0; r < clg_params_table_size; r++)
        assert_memory_equal(&clg_params_table[r].params, &clg_params_rows[r],
                            sizeof(clg_params));
    const clg_params *pocl = &clg_params_table[0].params;
    assert_string_equal(clg_params_table[0].name, "pocl-cpu");
    assert_int_equal(pocl->wg, 4096);
    assert_int_equal(pocl->strip, 256);
    assert_int_equal(pocl->nt, 3);
    assert_int_equal(pocl->small, 64);
    const clg_params_entry *rusticl = &clg_params_table[2];
    assert_string_equal(rusticl->name, "rusticl-cpu");
    assert_int_equal(rusticl->params.strip, 1024);
    assert_int_equal(rusticl->params.pack, 0);
    assert_int_equal(rusticl->builtins, 0);
    assert_int_equal(rusticl->map_wait, 1);
    assert_int_equal(clg_params_table[0].map_wait, 0);
    assert_int_equal(clg_params_table[1].map_wait, 0);
    assert_string_equal(clg_params_table[4].name, "gpu");
    assert_int_equal(clg_params_table[4].params.wg, 256);
    assert_int_equal(clg_params_table[4].params.unit, 16);
    assert_int_equal(clg_params_table[4].map_wait, 1);
    assert_string_equal(clg_params_table[5].name, "default");
    assert_int_equal(clg_params_table[5].params.strip, 0);
    assert_int_equal(clg_params_table[5].type, CLG_DEVICE_TYPE_OTHER);
}

/* Names, parsing from names, and bounds. */
static void test_names_and_bounds(void **state)
{
    (void)state;
    static const char *const names[] = {"wg",    "strip",    "pack", "chunk",
                                        "unit",  "prefetch", "nt",   "norm",
                                        "small", "host"};
    for (int f = 0; f < clg_param_count(); f++) {
        clg_param p = (clg_param)-1;
        assert_string_equal(clg_param_name((clg_param)f), names[f]);
        CLG_ASSERT_OK(NULL, clg_param_parse(names[f], &p));
        assert_int_equal(p, f);
    }
    assert_int_equal(CLG_PARAM_SMALL, 8);
    assert_int_equal(CLG_PARAM_HOST, 9);
    assert_null(clg_param_name((clg_param)10));
    assert_null(clg_param_name((clg_param)-1));
    clg_param p = CLG_PARAM_NT;
    CLG_ASSERT_STATUS(NULL, clg_param_parse("WG", &p),
                      CLG_STATUS_INVALID_ARGUMENT);
    CLG_ASSERT_CONTAINS(clg_context_last_error(NULL),
                        "\"WG\" is not a parameter field (wg, strip, pack, "
                        "chunk, unit, prefetch, nt, norm, small, host)");
    assert_int_equal(p, CLG_PARAM_NT);
    CLG_ASSERT_STATUS(NULL, clg_param_parse(NULL, &p),
                      CLG_STATUS_NULL_POINTER);
    CLG_ASSERT_STATUS(NULL, clg_param_parse("wg", NULL),
                      CLG_STATUS_NULL_POINTER);

    int64_t lo = -7, hi = -7;
    CLG_ASSERT_OK(NULL, clg_param_bounds(CLG_PARAM_UNIT, &lo, &hi));
    assert_int_equal(lo, 1);
    assert_int_equal(hi, 64);
    CLG_ASSERT_OK(NULL, clg_param_bounds(CLG_PARAM_NORM, &lo, &hi));
    assert_int_equal(lo, 0);
    assert_int_equal(hi, 999999);
    CLG_ASSERT_OK(NULL, clg_param_bounds(CLG_PARAM_PACK, &lo, &hi));
    assert_int_equal(hi, 2);
    lo = hi = -7;
    CLG_ASSERT_STATUS(NULL, clg_param_bounds((clg_param)10, &lo, &hi),
                      CLG_STATUS_INVALID_ARGUMENT);
    CLG_ASSERT_CONTAINS(clg_context_last_error(NULL),
                        "param 10 is not a field (0 to 9)");
    assert_int_equal(lo, -7);
    CLG_ASSERT_STATUS(NULL, clg_param_bounds(CLG_PARAM_WG, NULL, &hi),
                      CLG_STATUS_NULL_POINTER);

    const int64_t *values = NULL;
    size_t n = 0;
    CLG_ASSERT_OK(NULL, clg_param_candidates(CLG_PARAM_PACK, &values, &n));
    assert_int_equal(n, 3);
    assert_int_equal(values[0], 0);
    assert_int_equal(values[2], 2);
    CLG_ASSERT_STATUS(NULL, clg_param_candidates((clg_param)-1, &values, &n),
                      CLG_STATUS_INVALID_ARGUMENT);
    CLG_ASSERT_STATUS(NULL, clg_param_candidates(CLG_PARAM_WG, NULL, &n),
                      CLG_STATUS_NULL_POINTER);
}

/* The checks that set_param and CLGATHER_PARAMS share. */
static void test_value_checks(void **state)
{
    (void)state;
    char msg[256];
    assert_null(clg_param_check(CLG_PARAM_UNIT, 16, 0, msg, sizeof msg));
    assert_non_null(clg_param_check(CLG_PARAM_UNIT, 24, 1, msg, sizeof msg));
    assert_string_equal(msg, "unit takes a power of two");
    assert_non_null(clg_param_check(CLG_PARAM_WG, -1, 1, msg, sizeof msg));
    assert_string_equal(msg, "wg takes a number in [1, 4096]");
    assert_non_null(clg_param_check(CLG_PARAM_WG, INT64_MAX, 1, msg,
                                    sizeof msg));
    assert_null(clg_param_check(CLG_PARAM_PACK, 2, 1, msg, sizeof msg));
    assert_non_null(clg_param_check(CLG_PARAM_PACK, 2, 0, msg, sizeof msg));
    CLG_ASSERT_CONTAINS(msg, "pack above 1 needs a parameter row whose "
                             "compiler takes clang's built-ins");
    assert_non_null(clg_param_check((clg_param)10, 0, 1, msg, sizeof msg));

    /* CLGATHER_PARAMS onto every field. */
    clg_param_values v = clg_params_rows[2];
    assert_true(clg_param_values_parse("small=16,wg=256", 0, &v, msg,
                                       sizeof msg));
    assert_int_equal(v.small, 16);
    assert_int_equal(v.wg, 256);
    /* Every field's whole range, host's eight digits included. */
    assert_true(clg_param_values_parse("host=16777216", 0, &v, msg,
                                       sizeof msg));
    assert_int_equal(v.host, 16777216);
    assert_false(clg_param_values_parse("host=16777217", 0, &v, msg,
                                        sizeof msg));
    assert_string_equal(msg, "\"host=16777217\": host takes a number in "
                             "[0, 16777216]");
    assert_false(clg_param_values_parse("host=99999999999999999999", 0, &v,
                                        msg, sizeof msg));
    assert_int_equal(v.host, 16777216);
    assert_int_equal(v.norm, 1024);
    assert_false(clg_param_values_parse("small=16,small=0", 0, &v, msg,
                                        sizeof msg));
    assert_string_equal(msg, "\"small=0\": small is given twice");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tuner_searches_every_row_value),
        cmocka_unit_test(test_rows_as_clg_params),
        cmocka_unit_test(test_names_and_bounds),
        cmocka_unit_test(test_value_checks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
