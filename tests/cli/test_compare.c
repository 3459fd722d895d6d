/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `clgather compare` end to end: node-test directories and tensor files
 * on one device, on the same device twice, and on every device found;
 * its rows checked field by field (case, device label, time, verdict) and
 * its exit statuses 0/1/2/3 each triggered on purpose: an expected output
 * that differs from the reference, an index out of range, an axis out of
 * range, a device spec that matches nothing, usage errors. The cases are
 * the ONNX Gather page's Example 2 (axis 1, indices [[0, 2]]) and
 * GatherElements' Example 2 (axis 0). The verdict of a device that
 * differs is checked on its text in test_agreement.c.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cli_harness.h"

static const float ex_data[9] = {1.0f, 1.2f, 1.9f, 2.3f, 3.4f,
                                 3.9f, 4.5f, 5.7f, 5.9f};
static const int64_t ex_data_shape[2] = {3, 3};
static const int64_t ex_indices_shape[2] = {1, 2};
static const float ex_output[6] = {1.0f, 1.9f, 2.3f, 3.9f, 4.5f, 5.9f};
static const int64_t ex_output_shape[3] = {3, 1, 2};

/* The reference row when output[1][0][1] is read as 9.5, not 3.9. */
static const char differ_row[] =
    "DIFFER from %s at out[1][0][1]: reference=3.9000001 (0x4079999a) "
    "expected=9.5 (0x41180000)";
static const char oob_row[] = "ERROR INDEX_OUT_OF_RANGE: indices[0][1] = 5 "
                              "is out of range [-3, 2] for axis 1 of size 3";

static char *g_root;             /* temp dir of this run */
static clg_device_info *g_infos; /* every device, as the tool lists them */
static size_t g_ndevices;
static char g_label0[1024]; /* the row label of --device 0:0 */

/* The row label of the device at P:D: "NAME on PLATFORM DRIVER (P:D)",
 * the runtime named beside the device. */
static void device_label(char *buf, size_t cap, const clg_device_info *d)
{
    char spec[32];
    cli_runtime rt;
    snprintf(spec, sizeof spec, "%u:%u", (unsigned)d->platform_index,
             (unsigned)d->device_index);
    cli_device_runtime(spec, &rt);
    assert_string_equal(rt.platform, d->platform_name);
    int n = snprintf(buf, cap, "%s (%s)", rt.line, spec);
    assert_true(n > 0 && (size_t)n < cap);
}

static char *tmp(const char *name)
{
    char *p = cli_path(g_root, name);
    assert_non_null(p);
    return p;
}

/* <root>/<name>/{model.onnx, test_data_set_0/}: Gather opset 13, axis 1,
 * indices [[0, second]], output_0.pb with output[1][0][1] = expected_11.
 * Returns the directory (malloc'd). */
static char *make_case(const char *name, int64_t second, float expected_11)
{
    char *dir = tmp(name);
    int64_t idx[2] = {0, second};
    float expected[6];
    clg_tensor data = cli_tensor(CLG_DTYPE_FLOAT, 2, ex_data_shape, ex_data);
    clg_tensor indices = cli_tensor(CLG_DTYPE_INT64, 2, ex_indices_shape, idx);
    clg_tensor output = cli_tensor(CLG_DTYPE_FLOAT, 3, ex_output_shape,
                                   expected);
    cli_model m = cli_gather_model(1);

    memcpy(expected, ex_output, sizeof expected);
    expected[3] = expected_11;
    cli_write_node_test(dir, &m, &data, &indices, &output);
    return dir;
}

/* Line `n` (from 0) of text, malloc'd; fails when there is none. */
static char *line_at(const char *text, size_t n)
{
    const char *end;
    char *line;
    for (size_t i = 0; i < n && text != NULL; i++) {
        text = strchr(text, '\n');
        text = text != NULL ? text + 1 : NULL;
    }
    if (text == NULL || *text == '\0')
        fail_msg("no line %zu", n);
    end = strchr(text, '\n');
    if (end == NULL)
        end = text + strlen(text);
    line = strndup(text, (size_t)(end - text));
    assert_non_null(line);
    return line;
}

static size_t line_count(const char *text)
{
    size_t n = 0;
    for (; *text != '\0'; text++)
        n += *text == '\n';
    return n;
}

/* The width of the device column: "CPU reference" or the longest label
 * of the devices in the run. */
static int label_width(const char *const *labels, size_t n)
{
    int width = (int)strlen("CPU reference");
    for (size_t i = 0; i < n; i++)
        if ((int)strlen(labels[i]) > width)
            width = (int)strlen(labels[i]);
    return width;
}

/* Line n of r's stdout must be "<case>  <label>  <time>  <result>", the
 * label padded to `width`, the time "<ms> ms" (timed) or "-" right
 * aligned in 12 columns. */
static void expect_row(const cli_result *r, size_t n, const char *case_name,
                       const char *label, int width, int timed,
                       const char *result)
{
    char *line = line_at(r->out, n);
    char prefix[4096], field[13];
    const char *rest;
    double ms = -1.0;
    int used = 0;

    snprintf(prefix, sizeof prefix, "%s  %-*s  ", case_name, width, label);
    if (strncmp(line, prefix, strlen(prefix)) != 0)
        fail_msg("line %zu: '%s' does not start with '%s'", n, line, prefix);
    rest = line + strlen(prefix);
    assert_true(strlen(rest) >= 12);
    memcpy(field, rest, 12);
    field[12] = '\0';
    if (timed) {
        assert_int_equal(sscanf(field, "%lf ms%n", &ms, &used), 1);
        assert_int_equal(used, 12);
        assert_true(ms >= 0.0);
    } else {
        assert_string_equal(field, "           -");
    }
    assert_string_equal(rest + 12 + 2, result);
    assert_memory_equal(rest + 12, "  ", 2);
    free(line);
}

/* A case on --device 0:0: the reference's row, then the device's. */
static void expect_two_rows(const cli_result *r, const char *case_name,
                            int timed, const char *ref_result,
                            const char *dev_result)
{
    const char *labels[1] = {g_label0};
    int w = label_width(labels, 1);
    expect_row(r, 0, case_name, "CPU reference", w, timed, ref_result);
    expect_row(r, 1, case_name, g_label0, w, timed, dev_result);
}

static char *set_name(const char *dir)
{
    return cli_path(dir, "test_data_set_0");
}

/* ---------------------------------------------------------------- 0 */

static void test_node_dir_one_device(void **state)
{
    char *dir = make_case("pass", 2, 3.9f), *name = set_name(dir);
    const char *args[] = {"compare", "--device", "0:0", dir, NULL};
    cli_result r;
    (void)state;

    cli_expect_run(&r, 0, args);
    assert_int_equal(line_count(r.out), 2);
    expect_two_rows(&r, name, 1, "matches output_0.pb", "agree");
    assert_non_null(strstr(r.err, "clgather compare: 1 case(s) on 1 "
                                  "device(s): 2 row(s) agree, 0 differ, 0 "
                                  "error(s)"));
    cli_result_free(&r);
    free(name);
    free(dir);
}

/* No --device: one row for every device `clgather devices` lists, in its
 * order, each labelled "NAME (P:D)". */
static void test_every_device_by_default(void **state)
{
    char *dir = make_case("every", 2, 3.9f), *name = set_name(dir);
    const char *args[] = {"compare", dir, NULL};
    char(*labels)[1024] = calloc(g_ndevices, sizeof *labels);
    const char **ptrs = calloc(g_ndevices, sizeof *ptrs);
    cli_result r;
    int w;
    (void)state;

    assert_non_null(labels);
    assert_non_null(ptrs);
    for (size_t i = 0; i < g_ndevices; i++) {
        device_label(labels[i], sizeof labels[i], &g_infos[i]);
        ptrs[i] = labels[i];
    }
    w = label_width(ptrs, g_ndevices);
    cli_expect_run(&r, 0, args);
    assert_int_equal(line_count(r.out), 1 + g_ndevices);
    expect_row(&r, 0, name, "CPU reference", w, 1, "matches output_0.pb");
    for (size_t i = 0; i < g_ndevices; i++)
        expect_row(&r, 1 + i, name, labels[i], w, 1, "agree");
    cli_result_free(&r);
    free(ptrs);
    free(labels);
    free(name);
    free(dir);
}

/* The same device twice, best of 3 calls each (each call checked). */
static void test_same_device_twice_repeated(void **state)
{
    char *dir = make_case("twice", 2, 3.9f), *name = set_name(dir);
    const char *args[] = {"compare",  "-d", "0:0", "--device", "0:0",
                          "--repeat", "3",  dir,   NULL};
    const char *labels[1] = {g_label0};
    int w = label_width(labels, 1);
    cli_result r;
    (void)state;

    cli_expect_run(&r, 0, args);
    assert_int_equal(line_count(r.out), 3);
    expect_row(&r, 0, name, "CPU reference", w, 1, "matches output_0.pb");
    expect_row(&r, 1, name, g_label0, w, 1, "agree");
    expect_row(&r, 2, name, g_label0, w, 1, "agree");
    cli_result_free(&r);
    free(name);
    free(dir);
}

/* .npy inputs as for `run`, with and without --expected. */
static void test_npy_inputs(void **state)
{
    static const int64_t idx[2] = {0, 2};
    char *d = tmp("data.npy"), *i = tmp("indices.npy"), *e = tmp("exp.npy");
    const char *plain[] = {"compare",   "--device", "0:0",    "--data", d,
                           "--indices", i,          "--axis", "1",      NULL};
    const char *with[] = {"compare", "--device",   "0:0", "--data",
                          d,         "--indices",  i,     "--axis",
                          "1",       "--expected", e,     NULL};
    char name[1024], matches[1024];
    cli_result r;
    (void)state;

    cli_write_npy(d, CLG_DTYPE_FLOAT, 2, ex_data_shape, ex_data);
    cli_write_npy(i, CLG_DTYPE_INT64, 2, ex_indices_shape, idx);
    cli_write_npy(e, CLG_DTYPE_FLOAT, 3, ex_output_shape, ex_output);
    snprintf(name, sizeof name, "Gather(%s,%s,axis=1)", d, i);
    cli_expect_run(&r, 0, plain);
    assert_int_equal(line_count(r.out), 2);
    expect_two_rows(&r, name, 1, "(no expected output)", "agree");
    cli_result_free(&r);

    snprintf(matches, sizeof matches, "matches %s", e);
    cli_expect_run(&r, 0, with);
    assert_int_equal(line_count(r.out), 2);
    expect_two_rows(&r, name, 1, matches, "agree");
    cli_result_free(&r);
    free(d);
    free(i);
    free(e);
}

/* --op gather-elements on TensorProto files, int32 data and indices. */
static void test_gather_elements_pb(void **state)
{
    static const int32_t data[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
    static const int32_t idx[6] = {1, 2, 0, 2, 0, 0};
    static const int32_t expected[6] = {4, 8, 3, 7, 2, 3};
    static const int64_t ishape[2] = {2, 3};
    clg_tensor dt = cli_tensor(CLG_DTYPE_INT32, 2, ex_data_shape, data);
    clg_tensor it = cli_tensor(CLG_DTYPE_INT32, 2, ishape, idx);
    clg_tensor et = cli_tensor(CLG_DTYPE_INT32, 2, ishape, expected);
    char *d = tmp("ge_data.pb"), *i = tmp("ge_idx.pb"), *e = tmp("ge_exp.pb");
    const char *args[] = {
        "compare", "--device", "0:0",       "--op", "gather-elements",
        "--data",  d,          "--indices", i,      "--expected",
        e,         NULL};
    char name[1024], matches[1024];
    cli_result r;
    (void)state;

    assert_int_equal(cli_write_tensor(d, &dt), 0);
    assert_int_equal(cli_write_tensor(i, &it), 0);
    assert_int_equal(cli_write_tensor(e, &et), 0);
    snprintf(name, sizeof name, "GatherElements(%s,%s,axis=0)", d, i);
    snprintf(matches, sizeof matches, "matches %s", e);
    cli_expect_run(&r, 0, args);
    assert_int_equal(line_count(r.out), 2);
    expect_two_rows(&r, name, 1, matches, "agree");
    cli_result_free(&r);
    free(d);
    free(i);
    free(e);
}

/* ---------------------------------------------------------------- 1 */

/* The reference against output_0.pb (or --expected): the first
 * difference, both values; the device still agrees with the reference. */
static void test_expected_output_differs(void **state)
{
    static const float wrong[6] = {1.0f, 1.9f, 2.3f, 9.5f, 4.5f, 5.9f};
    static const int64_t idx[2] = {0, 2};
    char *dir = make_case("differ", 2, 9.5f), *name = set_name(dir);
    char *d = tmp("w_data.npy"), *i = tmp("w_idx.npy"), *e = tmp("w_exp.npy");
    const char *node[] = {"compare", "--device", "0:0", dir, NULL};
    const char *files[] = {"compare", "--device",   "0:0", "--data",
                           d,         "--indices",  i,     "--axis",
                           "1",       "--expected", e,     NULL};
    char row[1024], fname[1024];
    cli_result r;
    (void)state;

    cli_expect_run(&r, 1, node);
    snprintf(row, sizeof row, differ_row, "output_0.pb");
    expect_two_rows(&r, name, 1, row, "agree");
    assert_non_null(strstr(r.err, "1 row(s) agree, 1 differ, 0 error(s)"));
    cli_result_free(&r);

    cli_write_npy(d, CLG_DTYPE_FLOAT, 2, ex_data_shape, ex_data);
    cli_write_npy(i, CLG_DTYPE_INT64, 2, ex_indices_shape, idx);
    cli_write_npy(e, CLG_DTYPE_FLOAT, 3, ex_output_shape, wrong);
    cli_expect_run(&r, 1, files);
    snprintf(row, sizeof row, differ_row, e);
    snprintf(fname, sizeof fname, "Gather(%s,%s,axis=1)", d, i);
    expect_two_rows(&r, fname, 1, row, "agree");
    cli_result_free(&r);
    free(d);
    free(i);
    free(e);
    free(name);
    free(dir);
}

/* ---------------------------------------------------------------- 2 */

/* Index 5 on an axis of 3: the reference and the device both reject it,
 * each row with the library's message and no time. */
static void test_index_out_of_range(void **state)
{
    char *dir = make_case("oob", 5, 3.9f), *name = set_name(dir);
    const char *args[] = {"compare", "--device", "0:0", dir, NULL};
    cli_result r;
    (void)state;

    cli_expect_run(&r, 2, args);
    assert_int_equal(line_count(r.out), 2);
    expect_two_rows(&r, name, 0, oob_row, oob_row);
    assert_non_null(strstr(r.err, "0 row(s) agree, 0 differ, 2 error(s)"));
    cli_result_free(&r);
    free(name);
    free(dir);
}

/* GatherND with tuples of two components into data [2, 3, 4], whose
 * output (2 x 4) is larger than its indices (2 x 2): valid tuples agree
 * (the cheap first check of an output larger than the indices must keep
 * the dims the tuples address), a bad one is named on both rows. */
static void test_gather_nd_tuples(void **state)
{
    static const int64_t dshape[3] = {2, 3, 4}, ishape[2] = {2, 2};
    static const int64_t good[4] = {1, 2, 0, 1}, bad[4] = {1, 2, 0, 3};
    float data[24];
    char *d = tmp("nd_data.npy"), *i = tmp("nd_idx.npy");
    const char *args[] = {"compare",   "--device", "0:0", "--op",
                          "gather-nd", "--data",   d,     "--indices",
                          i,           NULL};
    char name[1024];
    cli_result r;
    (void)state;

    for (int k = 0; k < 24; k++)
        data[k] = (float)k;
    cli_write_npy(d, CLG_DTYPE_FLOAT, 3, dshape, data);
    cli_write_npy(i, CLG_DTYPE_INT64, 2, ishape, good);
    snprintf(name, sizeof name, "GatherND(%s,%s,batch_dims=0)", d, i);
    cli_expect_run(&r, 0, args);
    assert_int_equal(line_count(r.out), 2);
    expect_two_rows(&r, name, 1, "(no expected output)", "agree");
    cli_result_free(&r);

    cli_write_npy(i, CLG_DTYPE_INT64, 2, ishape, bad);
    cli_expect_run(&r, 2, args);
    assert_int_equal(line_count(r.out), 2);
    expect_two_rows(&r, name, 0,
                    "ERROR INDEX_OUT_OF_RANGE: indices[1][1] = 3 is out of "
                    "range [-3, 2] for data dim 1 of size 3",
                    "ERROR INDEX_OUT_OF_RANGE: indices[1][1] = 3 is out of "
                    "range [-3, 2] for data dim 1 of size 3");
    cli_result_free(&r);
    free(d);
    free(i);
}

/* An axis out of range stops the case before any device: one row. */
static void test_axis_out_of_range(void **state)
{
    static const int64_t idx[2] = {0, 2};
    char *d = tmp("a_data.npy"), *i = tmp("a_idx.npy");
    const char *args[] = {"compare",   "--device", "0:0",    "--data", d,
                          "--indices", i,          "--axis", "5",      NULL};
    char line[1024];
    cli_result r;
    (void)state;

    cli_write_npy(d, CLG_DTYPE_FLOAT, 2, ex_data_shape, ex_data);
    cli_write_npy(i, CLG_DTYPE_INT64, 2, ex_indices_shape, idx);
    cli_expect_run(&r, 2, args);
    snprintf(line, sizeof line,
             "Gather(%s,%s,axis=5)  ERROR INVALID_AXIS: axis 5 is out of "
             "range [-2, 1] for data of rank 2",
             d, i);
    assert_int_equal(line_count(r.out), 1);
    assert_true(cli_has_line(r.out, line));
    cli_result_free(&r);
    free(d);
    free(i);
}

/* ---------------------------------------------------------------- 3 */

/* A spec that matches nothing, or a malformed P:D, among good ones:
 * nothing runs. */
static void test_bad_device_spec(void **state)
{
    char *dir = make_case("bad_device", 2, 3.9f);
    const char *missing[] = {"compare",  "--device",           "0:0",
                             "--device", "no-such-device-xyz", dir,
                             NULL};
    const char *malformed[] = {"compare", "--device", "-1:0", dir, NULL};
    cli_result r;
    (void)state;

    /* No device matches: the runtime's answer (4); a malformed spec: the
     * command line's fault (3). */
    cli_expect_run(&r, 4, missing);
    assert_string_equal(r.out, "");
    assert_non_null(strstr(r.err, "clgather compare: cannot use --device "
                                  "\"no-such-device-xyz\": DEVICE_NOT_FOUND: "
                                  "no OpenCL device matches "
                                  "\"no-such-device-xyz\"; devices: "));
    assert_non_null(strstr(r.err, "; 'clgather devices' lists the devices "
                                  "and their P:D specs\n"));
    cli_result_free(&r);
    cli_expect_run(&r, 3, malformed);
    assert_string_equal(r.out, "");
    assert_string_equal(r.err,
                        "clgather compare: cannot use --device \"-1:0\": "
                        "INVALID_ARGUMENT: device spec \"-1:0\" is not of "
                        "the form P:D with platform and device indices; "
                        "'clgather devices' lists the devices and their P:D "
                        "specs\n");
    cli_result_free(&r);
    free(dir);
}

/* Several directories, one missing, one out of range: every case gets
 * its rows and the worst status wins. */
static void test_worst_status_wins(void **state)
{
    char *ok = make_case("mix_ok", 2, 3.9f), *ok_set = set_name(ok);
    char *oob = make_case("mix_oob", 5, 3.9f), *oob_set = set_name(oob);
    char *missing = tmp("mix_missing"), *row, line[1024];
    const char *args[] = {"compare", "-d", "0:0", ok, missing, oob, NULL};
    const char *labels[1] = {g_label0};
    int w = label_width(labels, 1);
    cli_result r;
    (void)state;

    cli_expect_run(&r, 3, args);
    assert_int_equal(line_count(r.out), 5);
    expect_row(&r, 0, ok_set, "CPU reference", w, 1, "matches output_0.pb");
    expect_row(&r, 1, ok_set, g_label0, w, 1, "agree");
    snprintf(line, sizeof line, "%s  ERROR no such directory", missing);
    row = line_at(r.out, 2);
    assert_string_equal(row, line);
    free(row);
    expect_row(&r, 3, oob_set, "CPU reference", w, 0, oob_row);
    expect_row(&r, 4, oob_set, g_label0, w, 0, oob_row);
    assert_non_null(strstr(r.err, "2 case(s) on 1 device(s): 2 row(s) "
                                  "agree, 0 differ, 3 error(s)"));
    cli_result_free(&r);
    free(ok);
    free(ok_set);
    free(oob);
    free(oob_set);
    free(missing);
}

static void test_usage_errors(void **state)
{
    const char *none[] = {"compare", NULL};
    const char *devices_only[] = {"compare", "--device", "0:0", NULL};
    const char *repeat0[] = {"compare", "--repeat", "0", "x", NULL};
    const char *repeat_big[] = {"compare", "--repeat", "1001", "x", NULL};
    const char *repeat_text[] = {"compare", "--repeat", "3x", "x", NULL};
    const char *bad_op[] = {"compare", "--op",      "gather-nds", "--data",
                            "a",       "--indices", "b",          NULL};
    /* GatherND's attribute is --batch-dims, Gather's --axis */
    const char *nd_axis[] = {"compare", "--op", "gather-nd", "--axis", "1",
                             "--data",  "a",    "--indices", "b",      NULL};
    const char *gather_batch[] = {"compare", "--batch-dims", "1", "--data",
                                  "a",       "--indices",    "b", NULL};
    const char *bad_axis[] = {"compare", "--axis", "one", "x", NULL};
    const char *space_axis[] = {"compare", "--axis", " 1", "x", NULL};
    const char *empty_axis[] = {"compare", "--axis", "", "x", NULL};
    const char *data_only[] = {"compare", "--data", "a", NULL};
    const char *axis_only[] = {"compare", "--axis", "1", "x", NULL};
    const char *unknown[] = {"compare", "--bogus", "x", NULL};
    const char *const *cases[] = {none,       devices_only, repeat0,
                                  repeat_big, repeat_text,  bad_op,
                                  bad_axis,   space_axis,   empty_axis,
                                  data_only,  axis_only,    unknown,
                                  nd_axis,    gather_batch};
    const char *help[] = {"compare", "--help", NULL};
    const char *main_help[] = {"--help", NULL};
    cli_result r;
    (void)state;

    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        cli_expect_run(&r, 3, cases[i]);
        assert_string_equal(r.out, "");
        assert_true(strlen(r.err) > 0);
        cli_result_free(&r);
    }
    cli_expect_run(&r, 0, help);
    assert_true(cli_has_line_prefix(r.out, "Usage: clgather compare"));
    cli_result_free(&r);
    cli_expect_run(&r, 0, main_help);
    assert_true(cli_has_line_prefix(r.out, "  compare "));
    cli_result_free(&r);
}

static int group_setup(void **state)
{
    size_t got = 0;
    (void)state;
    g_root = cli_tempdir("clgather-compare");
    if (g_root == NULL ||
        clg_devices_list(NULL, 0, &g_ndevices) != CLG_STATUS_OK)
        return -1;
    g_infos = calloc(g_ndevices, sizeof *g_infos);
    if (g_infos == NULL ||
        clg_devices_list(g_infos, g_ndevices, &got) != CLG_STATUS_OK)
        return -1;
    for (size_t i = 0; i < g_ndevices; i++)
        if (g_infos[i].platform_index == 0 && g_infos[i].device_index == 0)
            device_label(g_label0, sizeof g_label0, &g_infos[i]);
    return g_label0[0] != '\0' ? 0 : -1;
}

static int group_teardown(void **state)
{
    (void)state;
    cli_rmtree(g_root);
    free(g_root);
    free(g_infos);
    g_root = NULL;
    g_infos = NULL;
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_node_dir_one_device),
        cmocka_unit_test(test_every_device_by_default),
        cmocka_unit_test(test_same_device_twice_repeated),
        cmocka_unit_test(test_npy_inputs),
        cmocka_unit_test(test_gather_elements_pb),
        cmocka_unit_test(test_expected_output_differs),
        cmocka_unit_test(test_index_out_of_range),
        cmocka_unit_test(test_gather_nd_tuples),
        cmocka_unit_test(test_axis_out_of_range),
        cmocka_unit_test(test_bad_device_spec),
        cmocka_unit_test(test_worst_status_wins),
        cmocka_unit_test(test_usage_errors),
    };
    if (!cli_have_device()) {
        fprintf(stderr, "no OpenCL device: skipping\n");
        return 77;
    }
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
