/* SPDX-License-Identifier: Apache-2.0 */
/*
 * --json of run, compare, devices and onnx-test, parsed with json-c (a
 * real JSON parser): the schema of docs/cli.md, "JSON output", with the
 * same facts as the text output: devices, shapes, dtypes, times with the
 * first call flagged, agreement and the first difference, per-case
 * results and the exit status.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <json-c/json.h>

#include "cli_harness.h"

/* Runs args, expects `status`, parses stdout as one JSON object (all of
 * it: nothing after the document), and checks the fields every document
 * has. The caller puts the result. */
static json_object *run_json(int status, const char *command,
                             const char *const *args)
{
    cli_result r;
    json_tokener *tok = json_tokener_new();
    json_object *doc;
    assert_non_null(tok);
    cli_expect_run(&r, status, args);
    doc = json_tokener_parse_ex(tok, r.out, (int)strlen(r.out));
    if (doc == NULL || json_tokener_get_error(tok) != json_tokener_success) {
        cli_result_dump(&r);
        fail_msg("not JSON: %s",
                 json_tokener_error_desc(json_tokener_get_error(tok)));
    }
    /* nothing follows the document but white space (its newline) */
    {
        const char *rest = r.out + json_tokener_get_parse_end(tok);
        assert_int_equal(strspn(rest, " \n"), strlen(rest));
        assert_int_equal(r.out[strlen(r.out) - 1], '\n');
    }
    json_tokener_free(tok);
    cli_result_free(&r);
    assert_true(json_object_is_type(doc, json_type_object));
    assert_int_equal(json_object_get_int(json_object_object_get(doc,
                                                                "schema_"
                                                                "version")),
                     2);
    {
        /* the members every document begins with */
        json_object *schema = json_object_object_get(doc, "schema");
        const char *when = json_object_get_string(json_object_object_get(doc,
                                                                         "tim"
                                                                         "e"));
        char name[64];
        int y, mo, d, h, mi, sec;
        char z = 0;
        snprintf(name, sizeof name, "clgather-%s", command);
        assert_string_equal(
            json_object_get_string(json_object_object_get(schema, "name")),
            name);
        assert_int_equal(json_object_get_int(json_object_object_get(schema,
                                                                    "versio"
                                                                    "n")),
                         2);
        assert_string_equal(json_object_get_string(
                                json_object_object_get(doc, "tool_version")),
                            CLG_VERSION_STRING);
        assert_string_equal(json_object_get_string(json_object_object_get(
                                doc, "library_version")),
                            clg_version_string());
        assert_non_null(when);
        assert_int_equal(strlen(when), 20);
        assert_int_equal(sscanf(when, "%4d-%2d-%2dT%2d:%2d:%2d%c", &y, &mo, &d,
                                &h, &mi, &sec, &z),
                         7);
        assert_int_equal(z, 'Z');
        assert_true(y >= 2024 && mo >= 1 && mo <= 12 && d >= 1 && d <= 31);
    }
    assert_string_equal(json_object_get_string(json_object_object_get(doc,
                                                                      "comman"
                                                                      "d")),
                        command);
    assert_int_equal(json_object_get_int(json_object_object_get(doc,
                                                                "exit_"
                                                                "status")),
                     status);
    return doc;
}

static json_object *at(json_object *o, ...);

/* A device object names the runtime beside the device: "platform",
 * "platform_version" and "driver_version", as OpenCL answers them for
 * the device `spec` selects (NULL: the default). */
static void expect_runtime(json_object *dev, const char *spec)
{
    cli_runtime rt;
    cli_device_runtime(spec, &rt);
    assert_string_equal(json_object_get_string(at(dev, "name", NULL)),
                        rt.name);
    assert_string_equal(json_object_get_string(at(dev, "platform", NULL)),
                        rt.platform);
    assert_string_equal(json_object_get_string(at(dev, "platform_version",
                                                  NULL)),
                        rt.platform_version);
    assert_string_equal(json_object_get_string(at(dev, "driver_version",
                                                  NULL)),
                        rt.driver);
}

/* doc's member at a path of keys and array indices ("rows", "#1"). */
static json_object *at(json_object *o, ...)
{
    va_list ap;
    const char *k;
    va_start(ap, o);
    while ((k = va_arg(ap, const char *)) != NULL) {
        json_object *next = NULL;
        if (k[0] == '#') {
            assert_true(json_object_is_type(o, json_type_array));
            next = json_object_array_get_idx(o, (size_t)atoi(k + 1));
        } else {
            assert_true(json_object_is_type(o, json_type_object));
            if (!json_object_object_get_ex(o, k, &next))
                fail_msg("no member '%s' in %s", k,
                         json_object_to_json_string(o));
        }
        o = next;
    }
    va_end(ap);
    return o;
}

static const char *str(json_object *o)
{
    assert_true(json_object_is_type(o, json_type_string));
    return json_object_get_string(o);
}

static void expect_shape(json_object *o, size_t rank, const int64_t *shape)
{
    assert_true(json_object_is_type(o, json_type_array));
    assert_int_equal(json_object_array_length(o), rank);
    for (size_t d = 0; d < rank; d++)
        assert_int_equal(json_object_get_int64(json_object_array_get_idx(o,
                                                                         d)),
                         shape[d]);
}

/* data.npy FLOAT [2, 3], indices.npy INT64 [2] = {1, 0}. */
static void write_inputs(char **data, char **indices, int64_t bad_index)
{
    static const float values[6] = {1, 2, 3, 4, 5, 6};
    static const int64_t data_shape[2] = {2, 3};
    int64_t idx[2] = {1, bad_index};
    static const int64_t idx_shape[1] = {2};
    *data = cli_tmp("data.npy");
    *indices = cli_tmp(bad_index == 0 ? "indices.npy" : "bad_indices.npy");
    cli_write_npy(*data, CLG_DTYPE_FLOAT, 2, data_shape, values);
    cli_write_npy(*indices, CLG_DTYPE_INT64, 1, idx_shape, idx);
}

static void test_run_json(void **state)
{
    static const int64_t data_shape[2] = {2, 3}, idx_shape[1] = {2};
    static const int64_t out_shape[2] = {2, 3};
    char *d, *i, *bad;
    const char *args[] = {"run",       "gather", "--data",  NULL,
                          "--indices", NULL,     "--check", "--json",
                          "--repeat",  "3",      NULL};
    const char *wrap[] = {"run",       "gather", "--data", NULL,
                          "--indices", NULL,     "--oob",  "wrap",
                          "--check",   "--json", NULL};
    json_object *doc, *t;
    (void)state;

    write_inputs(&d, &i, 0);
    free(d); /* the same data.npy, written again beside bad indices */
    write_inputs(&d, &bad, 7);
    args[3] = d;
    args[5] = i;
    doc = run_json(0, "run", args);
    assert_string_equal(str(at(doc, "operator", NULL)), "Gather");
    assert_int_equal(json_object_get_int(at(doc, "axis", NULL)), 0);
    assert_string_equal(str(at(doc, "oob", NULL)), "raise");
    assert_string_equal(str(at(doc, "data", "path", NULL)), d);
    assert_string_equal(str(at(doc, "data", "dtype", NULL)), "FLOAT");
    expect_shape(at(doc, "data", "shape", NULL), 2, data_shape);
    assert_string_equal(str(at(doc, "indices", "dtype", NULL)), "INT64");
    expect_shape(at(doc, "indices", "shape", NULL), 1, idx_shape);
    assert_string_equal(str(at(doc, "output", "dtype", NULL)), "FLOAT");
    expect_shape(at(doc, "output", "shape", NULL), 2, out_shape);
    assert_true(json_object_is_type(at(doc, "output", "path", NULL),
                                    json_type_null));
    assert_true(strlen(str(at(doc, "device", "name", NULL))) > 0);
    expect_runtime(at(doc, "device", NULL), NULL);
    t = at(doc, "timing", NULL);
    assert_true(json_object_get_double(at(t, "first_call_ms", NULL)) > 0);
    assert_true(json_object_get_boolean(at(t, "first_call_includes_build",
                                           NULL)));
    assert_int_equal(json_object_get_int(at(t, "more_calls", NULL)), 3);
    assert_true(json_object_get_double(at(t, "best_more_ms", NULL)) > 0);
    /* the program cache's part in the first call, as data */
    {
        json_object *pc = at(t, "program_cache", NULL);
        const char *cache_state = str(at(pc, "state", NULL));
        uint64_t loaded =
            json_object_get_uint64(at(pc, "programs_loaded", NULL));
        uint64_t compiled =
            json_object_get_uint64(at(pc, "programs_compiled", NULL));
        assert_true(json_object_is_type(at(pc, "enabled", NULL),
                                        json_type_boolean));
        if (strcmp(cache_state, "served") == 0)
            assert_true(loaded >= 1 && compiled == 0);
        else if (strcmp(cache_state, "missed") == 0)
            assert_true(compiled >= 1);
        else
            assert_true(strcmp(cache_state, "off") == 0 ||
                        strcmp(cache_state, "not_needed") == 0);
        assert_non_null(strstr(str(at(pc, "text", NULL)),
                               strcmp(cache_state, "not_needed") == 0
                                   ? "not needed"
                                   : cache_state));
    }
    assert_true(json_object_get_boolean(at(doc, "check", "agree", NULL)));
    assert_true(json_object_is_type(at(doc, "check", "first_difference", NULL),
                                    json_type_null));
    assert_true(json_object_is_type(at(doc, "error", NULL), json_type_null));
    json_object_put(doc);

    /* rejected: exit 2, the library's message as "error" */
    args[5] = bad;
    doc = run_json(2, "run", args);
    assert_non_null(strstr(str(at(doc, "error", NULL)), "INDEX_OUT_OF_RANGE"));
    assert_true(json_object_is_type(at(doc, "timing", NULL), json_type_null));
    assert_true(json_object_is_type(at(doc, "output", NULL), json_type_null));
    json_object_put(doc);

    /* the same indices under wrap: run, and the mode recorded */
    wrap[3] = d;
    wrap[5] = bad;
    doc = run_json(0, "run", wrap);
    assert_string_equal(str(at(doc, "oob", NULL)), "wrap");
    expect_shape(at(doc, "output", "shape", NULL), 2, out_shape);
    assert_true(json_object_get_boolean(at(doc, "check", "agree", NULL)));
    json_object_put(doc);
    free(d);
    free(i);
    free(bad);
}

static void test_devices_json(void **state)
{
    const char *args[] = {"devices", "--json", NULL};
    size_t count = 0;
    clg_device_info *infos;
    json_object *doc, *list;
    (void)state;

    assert_int_equal(clg_devices_list(NULL, 0, &count), CLG_STATUS_OK);
    infos = calloc(count, sizeof *infos);
    assert_non_null(infos);
    assert_int_equal(clg_devices_list(infos, count, &count), CLG_STATUS_OK);
    doc = run_json(0, "devices", args);
    list = at(doc, "devices", NULL);
    assert_int_equal(json_object_array_length(list), count);
    for (size_t k = 0; k < count; k++) {
        char spec[32];
        json_object *dev = json_object_array_get_idx(list, k);
        snprintf(spec, sizeof spec, "%u:%u", infos[k].platform_index,
                 infos[k].device_index);
        assert_string_equal(str(at(dev, "spec", NULL)), spec);
        assert_string_equal(str(at(dev, "name", NULL)), infos[k].name);
        assert_string_equal(str(at(dev, "version", NULL)), infos[k].version);
        assert_int_equal((uint64_t)json_object_get_int64(
                             at(dev, "global_memory_bytes", NULL)),
                         infos[k].global_mem_size);
        assert_int_equal(json_object_get_boolean(at(dev, "default", NULL)),
                         infos[k].is_default);
    }
    assert_int_equal(json_object_array_length(at(doc, "warnings", NULL)), 0);
    json_object_put(doc);

    /* a default spec that matches nothing: a warning, no default */
    {
        cli_result r;
        json_object *d2;
        assert_int_equal(cli_run_env(&r, "CLGATHER_DEVICE", "nosuch", args),
                         0);
        assert_int_equal(r.status, 0);
        d2 = json_tokener_parse(r.out);
        assert_non_null(d2);
        assert_string_equal(str(at(d2, "default_spec", NULL)), "nosuch");
        assert_int_equal(json_object_array_length(at(d2, "warnings", NULL)),
                         1);
        assert_non_null(strstr(str(at(d2, "warnings", "#0", NULL)),
                               "matches no device"));
        assert_false(json_object_get_boolean(at(d2, "devices", "#0", "default",
                                                NULL)));
        json_object_put(d2);
        cli_result_free(&r);
    }
    free(infos);
}

/* A node-test directory: Gather, axis 0, data FLOAT [3], indices INT64
 * [2] = {2, 0}; output_0.pb right, or wrong at [1] when `wrong`. */
static char *node_dir(const char *name, int wrong)
{
    static const float data[3] = {1.5f, 2.5f, 3.5f};
    static const int64_t data_shape[1] = {3}, idx[2] = {2, 0};
    static const int64_t idx_shape[1] = {2};
    float out[2] = {3.5f, wrong ? 9.0f : 1.5f};
    clg_tensor d = cli_tensor(CLG_DTYPE_FLOAT, 1, data_shape, data);
    clg_tensor i = cli_tensor(CLG_DTYPE_INT64, 1, idx_shape, idx);
    clg_tensor o = cli_tensor(CLG_DTYPE_FLOAT, 1, idx_shape, out);
    cli_model m;
    char *dir = cli_tmp(name);

    memset(&m, 0, sizeof m);
    m.op_type = "Gather";
    m.opset = 13;
    m.node_count = 1;
    m.data_dtype = CLG_DTYPE_FLOAT;
    m.indices_dtype = CLG_DTYPE_INT64;
    cli_write_node_test(dir, &m, &d, &i, &o);
    return dir;
}

/* A directory of another operator's test (Relu). */
static char *relu_dir(void)
{
    cli_model m;
    char *dir = cli_tmp("relu");
    memset(&m, 0, sizeof m);
    m.op_type = "Relu";
    m.opset = 13;
    m.node_count = 1;
    m.data_dtype = CLG_DTYPE_FLOAT;
    m.indices_dtype = CLG_DTYPE_INT64;
    cli_write_node_test(dir, &m, NULL, NULL, NULL);
    return dir;
}

static void test_onnx_test_json(void **state)
{
    char *good = node_dir("good", 0), *wrong = node_dir("wrong", 1);
    char *relu = relu_dir();
    const char *args[] = {"onnx-test", "--json", good, wrong, relu, NULL};
    json_object *doc, *cases, *c;
    (void)state;

    doc = run_json(1, "onnx-test", args);
    assert_true(strlen(str(at(doc, "device", "name", NULL))) > 0);
    expect_runtime(at(doc, "device", NULL), NULL);
    assert_false(json_object_get_boolean(at(doc, "reference_only", NULL)));
    assert_string_equal(str(at(doc, "oob", NULL)), "raise");
    cases = at(doc, "cases", NULL);
    assert_int_equal(json_object_array_length(cases), 3);
    c = at(cases, "#0", NULL);
    assert_string_equal(str(at(c, "dir", NULL)), good);
    assert_string_equal(str(at(c, "set", NULL)), "test_data_set_0");
    assert_string_equal(str(at(c, "result", NULL)), "PASS");
    assert_true(json_object_get_boolean(at(c, "has_expected", NULL)));
    assert_true(json_object_is_type(at(c, "message", NULL), json_type_null));
    c = at(cases, "#1", NULL);
    assert_string_equal(str(at(c, "result", NULL)), "FAIL");
    assert_non_null(strstr(str(at(c, "message", NULL)), "[1]: expected 9"));
    c = at(cases, "#2", NULL);
    assert_string_equal(str(at(c, "dir", NULL)), relu);
    assert_string_equal(str(at(c, "result", NULL)), "SKIP");
    assert_string_equal(str(at(c, "message", NULL)),
                        "the node is 'Relu', not Gather, GatherElements or "
                        "GatherND");
    assert_int_equal(json_object_get_int(at(doc, "summary", "passed", NULL)),
                     1);
    assert_int_equal(json_object_get_int(at(doc, "summary", "failed", NULL)),
                     1);
    assert_int_equal(json_object_get_int(at(doc, "summary", "errors", NULL)),
                     0);
    assert_int_equal(json_object_get_int(at(doc, "summary", "skipped", NULL)),
                     1);
    json_object_put(doc);
    free(good);
    free(wrong);
    free(relu);
}

static void test_compare_json(void **state)
{
    static const int64_t data_shape[2] = {2, 3}, out_shape[2] = {2, 3};
    char *d, *i, *e = cli_tmp("expected_wrong.npy");
    static const float wrong[6] = {4, 5, 6, 1, 2, 7};
    const char *args[] = {"compare",    "--json", "--device",  "0:0",
                          "--data",     NULL,     "--indices", NULL,
                          "--expected", NULL,     NULL};
    json_object *doc, *c, *row;
    (void)state;

    write_inputs(&d, &i, 0);
    cli_write_npy(e, CLG_DTYPE_FLOAT, 2, out_shape, wrong);
    args[5] = d;
    args[7] = i;
    args[9] = e;
    doc = run_json(1, "compare", args);
    assert_int_equal(json_object_get_int(at(doc, "repeat", NULL)), 1);
    assert_string_equal(str(at(doc, "oob", NULL)), "raise");
    assert_string_equal(str(at(doc, "devices", "#0", "spec", NULL)), "0:0");
    expect_runtime(at(doc, "devices", "#0", NULL), "0:0");
    c = at(doc, "cases", "#0", NULL);
    assert_string_equal(str(at(c, "operator", NULL)), "Gather");
    assert_string_equal(str(at(c, "data", "dtype", NULL)), "FLOAT");
    expect_shape(at(c, "data", "shape", NULL), 2, data_shape);
    expect_shape(at(c, "output", "shape", NULL), 2, out_shape);
    assert_string_equal(str(at(c, "verdict", NULL)), "differ");
    /* the reference against --expected: differs at [1][2], flat 5 */
    row = at(c, "rows", "#0", NULL);
    assert_true(json_object_is_type(at(row, "device", NULL), json_type_null));
    assert_string_equal(str(at(row, "verdict", NULL)), "differ");
    assert_int_equal(json_object_get_int(at(row, "first_difference",
                                            "flat_index", NULL)),
                     5);
    assert_true(json_object_get_boolean(at(row, "time_includes_first_call",
                                           NULL)));
    /* the device agrees with the reference */
    row = at(c, "rows", "#1", NULL);
    assert_string_equal(str(at(row, "device", NULL)), "0:0");
    assert_string_equal(str(at(row, "verdict", NULL)), "agree");
    assert_true(json_object_get_double(at(row, "time_ms", NULL)) > 0);
    assert_true(json_object_is_type(at(row, "first_difference", NULL),
                                    json_type_null));
    assert_int_equal(json_object_get_int(at(doc, "summary", "cases", NULL)),
                     1);
    assert_int_equal(json_object_get_int(at(doc, "summary", "rows_agree",
                                            NULL)),
                     1);
    assert_int_equal(json_object_get_int(at(doc, "summary", "rows_differ",
                                            NULL)),
                     1);
    json_object_put(doc);

    /* refused: the shapes are the files' (and the full output's), even
     * though the tool checks the indices on a reduced call first */
    free(d);
    free(i);
    write_inputs(&d, &i, 7);
    args[5] = d;
    args[7] = i;
    args[8] = NULL;
    doc = run_json(2, "compare", args);
    c = at(doc, "cases", "#0", NULL);
    expect_shape(at(c, "data", "shape", NULL), 2, data_shape);
    expect_shape(at(c, "output", "shape", NULL), 2, out_shape);
    assert_string_equal(str(at(c, "verdict", NULL)), "error");
    assert_string_equal(str(at(c, "rows", "#1", "verdict", NULL)), "error");
    json_object_put(doc);
    free(d);
    free(i);
    free(e);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_run_json),
        cmocka_unit_test(test_devices_json),
        cmocka_unit_test(test_onnx_test_json),
        cmocka_unit_test(test_compare_json),
    };
    return CLI_RUN_TESTS("clgather-json", tests);
}
