/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The JSON writer of io/ (json_out.h), read back with json-c: strings
 * with quotes, backslashes and control characters (a file name may hold
 * any of them), nesting, empty containers, numbers that are not finite.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <json-c/json.h>

#include "json_out.h"

static void test_document_round_trip(void **state)
{
    static const char odd[] = "a\"b\\c\nd\te\x01f\x7f/\xc3\xa9";
    static const int64_t shape[3] = {2, 0, -1};
    char *text = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&text, &size);
    json_object *doc, *v;
    clg_json j;
    (void)state;

    assert_non_null(f);
    clg_json_init(&j, f);
    clg_json_begin_object(&j, NULL);
    clg_json_string(&j, "odd", odd);
    clg_json_string(&j, "none", NULL);
    clg_json_int(&j, "min", INT64_MIN);
    clg_json_uint(&j, "max", UINT64_MAX);
    clg_json_number(&j, "x", 1, 0.5);
    clg_json_number(&j, "nan", 1, NAN);
    clg_json_number(&j, "absent", 0, 1.0);
    clg_json_bool(&j, "yes", 1);
    clg_json_shape(&j, "shape", shape, 3);
    clg_json_shape(&j, "scalar", shape, 0);
    clg_json_begin_array(&j, "empty");
    clg_json_end_array(&j);
    clg_json_begin_array(&j, "list");
    clg_json_begin_object(&j, NULL);
    clg_json_end_object(&j);
    clg_json_int(&j, NULL, 7);
    clg_json_end_array(&j);
    clg_json_end_object(&j);
    clg_json_finish(&j);
    assert_int_equal(fclose(f), 0);

    doc = json_tokener_parse(text);
    if (doc == NULL)
        fail_msg("not JSON:\n%s", text);
    assert_true(json_object_object_get_ex(doc, "odd", &v));
    assert_string_equal(json_object_get_string(v), odd);
    assert_true(json_object_object_get_ex(doc, "none", &v));
    assert_null(v);
    assert_true(json_object_object_get_ex(doc, "min", &v));
    assert_true(json_object_get_int64(v) == INT64_MIN);
    assert_true(json_object_object_get_ex(doc, "max", &v));
    assert_true(json_object_get_uint64(v) == UINT64_MAX);
    assert_true(json_object_object_get_ex(doc, "x", &v));
    assert_true(json_object_get_double(v) == 0.5);
    assert_true(json_object_object_get_ex(doc, "nan", &v));
    assert_null(v);
    assert_true(json_object_object_get_ex(doc, "absent", &v));
    assert_null(v);
    assert_true(json_object_object_get_ex(doc, "shape", &v));
    assert_int_equal(json_object_array_length(v), 3);
    assert_int_equal(json_object_get_int(json_object_array_get_idx(v, 2)), -1);
    assert_true(json_object_object_get_ex(doc, "scalar", &v));
    assert_int_equal(json_object_array_length(v), 0);
    assert_true(json_object_object_get_ex(doc, "empty", &v));
    assert_int_equal(json_object_array_length(v), 0);
    assert_true(json_object_object_get_ex(doc, "list", &v));
    assert_int_equal(json_object_array_length(v), 2);
    assert_int_equal(json_object_get_int(json_object_array_get_idx(v, 1)), 7);
    assert_int_equal(text[size - 1], '\n');
    json_object_put(doc);
    free(text);
}

/* Bytes that are not UTF-8 (a file name may hold any) become U+FFFD, one
 * per byte, so the document stays UTF-8; well-formed sequences pass. json-c
 * writes U+FFFD as its UTF-8 bytes (EF BF BD). */
static void test_invalid_utf8(void **state)
{
    static const struct {
        const char *in, *want;
    } cases[] = {
        {"we\xffird", "\"we\xef\xbf\xbdird\""},
        {"cut\xe2\x82", "\"cut\xef\xbf\xbd\xef\xbf\xbd\""},
        {"over\xc0\xaf", "\"over\xef\xbf\xbd\xef\xbf\xbd\""},
        {"sur\xed\xa0\x80", "\"sur\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\""},
        {"big\xf4\x90\x80\x80",
         "\"big\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\""},
        {"end\xf0", "\"end\xef\xbf\xbd\""},
        {"ok\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80",
         "\"ok\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\""},
    };
    (void)state;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *text = NULL;
        size_t size = 0;
        FILE *f = open_memstream(&text, &size);
        assert_non_null(f);
        clg_json_write_string(f, cases[i].in);
        assert_int_equal(fclose(f), 0);
        assert_string_equal(text, cases[i].want);
        json_object *v = json_tokener_parse(text);
        if (v == NULL)
            fail_msg("not JSON: %s", text);
        json_object_put(v);
        free(text);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_document_round_trip),
        cmocka_unit_test(test_invalid_utf8),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
