/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `clgather onnx-test` exit statuses 0/1/2/3/4, each triggered on purpose,
 * and the PASS / FAIL / ERROR lines; the usage errors of every command
 * (one style), its short options, and the failures of the OpenCL runtime
 * (status 4: no device, an OpenCL call that fails). The node-test directories are built
 * here (model.onnx with protobuf-c, TensorProto inputs and outputs), from
 * the ONNX Gather page's Example 2:
 *   data = [[1.0, 1.2, 1.9], [2.3, 3.4, 3.9], [4.5, 5.7, 5.9]]
 *   indices = [[0, 2]], axis = 1
 *   output = [[[1.0, 1.9]], [[2.3, 3.9]], [[4.5, 5.9]]]
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
#include "io_tensor.h"
#include "onnx.pb-c.h"

static const float ex_data[9] = {1.0f, 1.2f, 1.9f, 2.3f, 3.4f,
                                 3.9f, 4.5f, 5.7f, 5.9f};
static const int64_t ex_data_shape[2] = {3, 3};
static const int64_t ex_indices_shape[2] = {1, 2};
static const float ex_output[6] = {1.0f, 1.9f, 2.3f, 3.9f, 4.5f, 5.9f};
static const int64_t ex_output_shape[3] = {3, 1, 2};

typedef struct case_options {
    int64_t second_index;    /* indices = [[0, second_index]] */
    int corrupt_expected;    /* output[1][0][1] = 9.5 instead of 3.9 */
    int no_expected;         /* no output_0.pb */
    int indices_initializer; /* indices from an initializer */
    int initializer_listed;  /* ... also listed among graph inputs */
    clg_dtype declared_data; /* the model's data type (0: FLOAT, as fed) */
    int extra_input;         /* also write input_2.pb */
    cli_model model;         /* op_type NULL: Gather opset 13 axis 1 */
} case_options;

/* Builds <root>/<name>/{model.onnx, test_data_set_0/...}; returns the
 * test directory (malloc'd). */
static char *make_case(const char *name, const case_options *o)
{
    char *dir = cli_path(cli_root, name);
    int64_t idx[2] = {0, o->second_index};
    float expected[6];
    clg_tensor data = cli_tensor(CLG_DTYPE_FLOAT, 2, ex_data_shape, ex_data);
    clg_tensor indices = cli_tensor(CLG_DTYPE_INT64, 2, ex_indices_shape, idx);
    clg_tensor output = cli_tensor(CLG_DTYPE_FLOAT, 3, ex_output_shape,
                                   expected);
    cli_model m = o->model;

    assert_non_null(dir);
    if (m.op_type == NULL)
        m = cli_gather_model(1);
    m.data_dtype = o->declared_data != 0 ? o->declared_data : CLG_DTYPE_FLOAT;
    m.indices_dtype = CLG_DTYPE_INT64;
    if (o->indices_initializer) {
        m.indices_initializer = &indices;
        m.initializer_listed_as_input = o->initializer_listed;
    }
    memcpy(expected, ex_output, sizeof expected);
    if (o->corrupt_expected)
        expected[3] = 9.5f;
    cli_write_node_test(dir, &m, &data,
                        o->indices_initializer ? NULL : &indices,
                        o->no_expected ? NULL : &output);
    if (o->extra_input) {
        char *set = cli_path(dir, "test_data_set_0");
        char *p = cli_path(set, "input_2.pb");
        assert_non_null(p);
        assert_int_equal(cli_write_tensor(p, &indices), 0);
        free(p);
        free(set);
    }
    return dir;
}

static case_options good(void)
{
    case_options o;
    memset(&o, 0, sizeof o);
    o.second_index = 2;
    return o;
}

/* Runs `clgather onnx-test [extra] dir...`, checks the status. */
static char *line_for(const char *verdict, const char *dir, const char *rest)
{
    size_t len = strlen(verdict) + strlen(dir) + strlen(rest) + 40;
    char *s = malloc(len);
    assert_non_null(s);
    snprintf(s, len, "%s %s/test_data_set_0%s", verdict, dir, rest);
    return s;
}

/* Runs `clgather args...`, expects exit `status` and `line` on stdout
 * (both streams shown when it is missing). */
static void expect_out_line(int status, const char *const *args,
                            const char *line)
{
    cli_result r;
    cli_expect_run(&r, status, args);
    if (!cli_has_line(r.out, line))
        cli_result_dump(&r);
    assert_true(cli_has_line(r.out, line));
    cli_result_free(&r);
}

/* ---------------------------------------------------------------- 0 */

static void test_pass(void **state)
{
    case_options o = good();
    char *dir = make_case("pass", &o);
    char *line = line_for("PASS", dir, "");
    const char *dev[] = {"onnx-test", dir, NULL};
    const char *ref[] = {"onnx-test", "--reference", dir, NULL};
    char device[1100];
    cli_runtime rt;
    cli_result r;
    (void)state;

    cli_device_runtime(NULL, &rt);
    snprintf(device, sizeof device, "clgather onnx-test: device: %s", rt.line);
    cli_expect_run(&r, 0, dev);
    assert_true(cli_has_line(r.out, line));
    /* the runtime beside the device: "NAME on PLATFORM DRIVER" */
    assert_true(cli_has_line(r.err, device));
    cli_result_free(&r);
    cli_expect_run(&r, 0, ref);
    assert_true(cli_has_line(r.out, line));
    cli_result_free(&r);
    free(line);
    free(dir);
}

static void test_pass_without_expected_output(void **state)
{
    case_options o = good();
    char *dir, *line;
    const char *args[3] = {"onnx-test", NULL, NULL};
    (void)state;

    o.no_expected = 1;
    dir = make_case("no_expected", &o);
    line = line_for("PASS", dir, " (no expected output)");
    args[1] = dir;
    expect_out_line(0, args, line);
    free(line);
    free(dir);
}

/* Graph inputs minus initializers map to input_N.pb: with the indices an
 * initializer, input_0.pb is the data and there is no input_1.pb. */
static void test_indices_from_initializer(void **state)
{
    const char *names[2] = {"init_unlisted", "init_listed"};
    (void)state;
    for (int listed = 0; listed < 2; listed++) {
        case_options o = good();
        char *dir, *line;
        const char *args[3] = {"onnx-test", NULL, NULL};
        cli_result r;
        o.indices_initializer = 1;
        o.initializer_listed = listed;
        dir = make_case(names[listed], &o);
        line = line_for("PASS", dir, "");
        args[1] = dir;
        cli_expect_run(&r, 0, args);
        assert_true(cli_has_line(r.out, line));
        cli_result_free(&r);
        free(line);
        free(dir);
    }
}

/* ---------------------------------------------------------------- 1 */

static void test_corrupted_expected_output(void **state)
{
    case_options o = good();
    char *dir, *line;
    const char *dev[] = {"onnx-test", NULL, NULL};
    const char *ref[] = {"onnx-test", "--reference", NULL, NULL};
    cli_result r;
    (void)state;

    o.corrupt_expected = 1;
    dir = make_case("corrupted", &o);
    /* expected 9.5 (the corrupted file), got 3.9f from data[1][2] */
    line = line_for("FAIL", dir,
                    ": [1][0][1]: expected 9.5 (0x41180000), got 3.9000001 "
                    "(0x4079999a)");
    dev[1] = dir;
    ref[2] = dir;
    expect_out_line(1, dev, line);
    cli_expect_run(&r, 1, ref);
    assert_true(cli_has_line(r.out, line));
    cli_result_free(&r);
    free(line);
    free(dir);
}

/* ---------------------------------------------------------------- 2 */

static void test_index_out_of_range(void **state)
{
    case_options o = good();
    char *dir, *prefix;
    const char *dev[] = {"onnx-test", NULL, NULL};
    const char *ref[] = {"onnx-test", "--reference", NULL, NULL};
    cli_result r;
    (void)state;

    o.second_index = 3; /* axis 1 has size 3: valid range [-3, 2] */
    dir = make_case("out_of_range", &o);
    prefix = line_for("ERROR", dir, ": INDEX_OUT_OF_RANGE: ");
    dev[1] = dir;
    ref[2] = dir;
    cli_expect_run(&r, 2, dev);
    assert_true(cli_has_line_prefix(r.out, prefix));
    /* the library's message names the position and the value */
    assert_non_null(strstr(r.out, "indices[0][1] = 3"));
    cli_result_free(&r);
    cli_expect_run(&r, 2, ref);
    assert_true(cli_has_line_prefix(r.out, prefix));
    cli_result_free(&r);
    free(prefix);
    free(dir);
}

static void test_axis_out_of_range(void **state)
{
    case_options o = good();
    char *dir, *prefix;
    const char *args[] = {"onnx-test", NULL, NULL};
    cli_result r;
    (void)state;

    o.model = cli_gather_model(2); /* data has rank 2 */
    dir = make_case("bad_axis", &o);
    prefix = line_for("ERROR", dir, ": INVALID_AXIS: ");
    args[1] = dir;
    cli_expect_run(&r, 2, args);
    assert_true(cli_has_line_prefix(r.out, prefix));
    cli_result_free(&r);
    free(prefix);
    free(dir);
}

/* ---------------------------------------------------------------- 3 */

static void test_truncated_input(void **state)
{
    case_options o = good();
    char *dir, *set, *file, *prefix;
    size_t len;
    long size;
    const char *args[] = {"onnx-test", NULL, NULL};
    cli_result r;
    (void)state;

    dir = make_case("truncated_input", &o);
    set = cli_path(dir, "test_data_set_0");
    file = cli_path(set, "input_0.pb");
    size = cli_file_size(file);
    assert_true(size > 8);
    /* raw_data is the last field: cut into it */
    assert_int_equal(cli_truncate(file, (size_t)size - 5), 0);
    len = strlen(file) + 4;
    prefix = malloc(len + strlen(dir) + 40);
    assert_non_null(prefix);
    sprintf(prefix, "ERROR %s/test_data_set_0: %s: ", dir, file);
    args[1] = dir;
    cli_expect_run(&r, 3, args);
    assert_true(cli_has_line_prefix(r.out, prefix));
    cli_result_free(&r);
    free(prefix);
    free(file);
    free(set);
    free(dir);
}

/* An empty input file (0 bytes, e.g. /dev/null or an empty pipe) is named
 * as such, not as a TensorProto missing its data_type. */
static void test_empty_input(void **state)
{
    char *empty = cli_tmp("empty_input.pb"), *line;
    const char *args[] = {"run",       "gather", "--data", NULL,
                          "--indices", NULL,     NULL};
    cli_result r;
    (void)state;

    assert_int_equal(cli_write_bytes(empty, "", 0), 0);
    args[3] = empty;
    args[5] = empty;
    cli_expect_run(&r, 3, args);
    line = malloc(strlen(empty) + 128);
    assert_non_null(line);
    sprintf(line,
            "clgather run: %s: empty (0 bytes): neither a NumPy file nor an "
            "ONNX TensorProto",
            empty);
    assert_true(cli_has_line(r.err, line));
    cli_result_free(&r);
    free(line);
    free(empty);
}

/* An endless stream (/dev/zero) is refused at its first byte, which can
 * start neither a .npy file nor a protobuf message, instead of being read
 * until memory runs out. */
static void test_endless_input(void **state)
{
    const char *args[] = {"run",       "gather",    "--data", "/dev/zero",
                          "--indices", "/dev/zero", NULL};
    cli_result r;
    (void)state;

    cli_expect_run(&r, 3, args);
    assert_true(cli_has_line(r.err, "clgather run: /dev/zero: neither a .npy "
                                    "file nor an ONNX protobuf message "
                                    "(first byte 0x00)"));
    cli_result_free(&r);
}

static void test_truncated_model(void **state)
{
    case_options o = good();
    char *dir, *file, *prefix;
    long size;
    const char *args[] = {"onnx-test", NULL, NULL};
    cli_result r;
    (void)state;

    dir = make_case("truncated_model", &o);
    file = cli_path(dir, "model.onnx");
    size = cli_file_size(file);
    assert_true(size > 20);
    assert_int_equal(cli_truncate(file, (size_t)size / 2), 0);
    prefix = malloc(strlen(dir) + strlen(file) + 16);
    assert_non_null(prefix);
    sprintf(prefix, "ERROR %s: %s: ", dir, file);
    args[1] = dir;
    cli_expect_run(&r, 3, args);
    assert_true(cli_has_line_prefix(r.out, prefix));
    cli_result_free(&r);
    free(prefix);
    free(file);
    free(dir);
}

/* A model that is not one supported node: exit 3 and the reason (with
 * --strict, which reports other operators' tests instead of skipping
 * them). */
static void expect_model_rejected(const char *name, const char *op_type,
                                  int64_t opset, int nodes, const char *reason)
{
    case_options o = good();
    char *dir, *line;
    size_t len;
    const char *args[] = {"onnx-test", "--strict", NULL, NULL};

    o.model.op_type = op_type;
    o.model.opset = opset;
    o.model.has_axis = 1;
    o.model.axis = 1;
    o.model.node_count = nodes;
    dir = make_case(name, &o);
    len = 2 * strlen(dir) + strlen(reason) + 64;
    line = malloc(len);
    assert_non_null(line);
    snprintf(line, len, "ERROR %s: %s/model.onnx: %s", dir, dir, reason);
    args[2] = dir;
    expect_out_line(3, args, line);
    free(line);
    free(dir);
}

static void test_non_gather_model(void **state)
{
    (void)state;
    expect_model_rejected("relu", "Relu", 13, 1,
                          "the node is 'Relu', not Gather, GatherElements or "
                          "GatherND");
}

static void test_two_node_model(void **state)
{
    (void)state;
    expect_model_rejected("two_nodes", "Gather", 13, 2,
                          "the graph has 2 nodes; clgather runs models of "
                          "exactly one Gather, GatherElements or GatherND "
                          "node");
}

/* A graph of several nodes, one of another operator (an expanded
 * function's test): skipped, saying what the graph holds; under --strict
 * an error, as any graph of more than one node. */
static void test_two_node_graph_with_other_operator(void **state)
{
    case_options o = good();
    char *dir, *skip, *line;
    size_t len;
    const char *plain[] = {"onnx-test", "-v", NULL, NULL};
    const char *strict[] = {"onnx-test", "--strict", NULL, NULL};
    cli_result r;
    (void)state;

    o.model = cli_gather_model(1);
    o.model.node_count = 2;
    o.model.second_op_type = "Relu";
    dir = make_case("gather_relu", &o);
    len = 2 * strlen(dir) + 160;
    skip = malloc(len);
    line = malloc(len);
    assert_non_null(skip);
    assert_non_null(line);
    snprintf(skip, len,
             "clgather: %s: skipped: the graph has 2 nodes (Gather, Relu), "
             "not one Gather, GatherElements or GatherND node",
             dir);
    snprintf(line, len,
             "ERROR %s: %s/model.onnx: the graph has 2 nodes; clgather runs "
             "models of exactly one Gather, GatherElements or GatherND "
             "node",
             dir, dir);
    plain[2] = dir;
    cli_expect_run(&r, 0, plain);
    if (!cli_has_line(r.err, skip))
        cli_result_dump(&r);
    assert_true(cli_has_line(r.err, skip));
    assert_true(cli_has_line(r.err, "clgather onnx-test: 0 passed, 0 failed, "
                                    "0 errors, 1 skipped (not Gather, "
                                    "GatherElements or GatherND)"));
    /* the model line of -v is printed for a model that opened only */
    assert_null(strstr(r.err, "(opset"));
    cli_result_free(&r);
    strict[2] = dir;
    expect_out_line(3, strict, line);
    free(line);
    free(skip);
    free(dir);
}

/* A data set that does not fit its model, as ONNX Runtime refuses such a
 * feed: exit 3 naming the file, whatever the operator would make of it. */
static void expect_set_rejected(const char *name, const case_options *o,
                                const char *file, const char *reason)
{
    char *dir = make_case(name, o);
    size_t len = 3 * strlen(dir) + strlen(reason) + 64;
    char *line = malloc(len);
    const char *args[] = {"onnx-test", NULL, NULL};

    assert_non_null(line);
    snprintf(line, len, "ERROR %s/test_data_set_0: %s/test_data_set_0/%s%s",
             dir, dir, file, reason);
    args[1] = dir;
    expect_out_line(3, args, line);
    free(line);
    free(dir);
}

static void test_input_not_as_declared(void **state)
{
    static const int64_t wrong[2] = {3, 4}, open_dim[2] = {-1, 3};
    case_options o = good();
    char *dir, *line;
    const char *args[] = {"onnx-test", NULL, NULL};
    (void)state;

    /* the element type: FLOAT fed to a DOUBLE input */
    o.declared_data = CLG_DTYPE_DOUBLE;
    expect_set_rejected("declared_double", &o, "input_0.pb",
                        " holds FLOAT, but the model declares its input "
                        "'data' DOUBLE");
    /* a dim_value that differs */
    o = good();
    o.model = cli_gather_model(1);
    o.model.data_rank_declared = 2;
    o.model.data_shape_declared = wrong;
    expect_set_rejected("declared_3x4", &o, "input_0.pb",
                        " has shape [3, 3], but the model declares its input "
                        "'data' [3, 4]");
    /* a dim_param takes any size */
    o.model.data_shape_declared = open_dim;
    dir = make_case("declared_nx3", &o);
    line = line_for("PASS", dir, "");
    args[1] = dir;
    expect_out_line(0, args, line);
    free(line);
    free(dir);
    /* one input file more than the model's two */
    o = good();
    o.extra_input = 1;
    expect_set_rejected("extra_input", &o, "input_2.pb",
                        " is there, but the model takes 2 runtime input(s)");
}

static void test_gather_elements_before_opset_11(void **state)
{
    (void)state;
    expect_model_rejected("ge_opset10", "GatherElements", 10, 1,
                          "GatherElements needs opset >= 11; the model "
                          "imports opset 10");
}

static void test_missing_files(void **state)
{
    case_options o = good();
    char *dir, *missing, *set, *file, *line;
    size_t len;
    const char *args[] = {"onnx-test", NULL, NULL};
    cli_result r;
    (void)state;

    /* a directory that does not exist */
    missing = cli_path(cli_root, "does_not_exist");
    line = malloc(strlen(missing) + 40);
    assert_non_null(line);
    sprintf(line, "ERROR %s: no such directory", missing);
    args[1] = missing;
    cli_expect_run(&r, 3, args);
    assert_true(cli_has_line(r.out, line));
    cli_result_free(&r);
    free(line);
    free(missing);

    /* a missing input file */
    dir = make_case("missing_input", &o);
    set = cli_path(dir, "test_data_set_0");
    file = cli_path(set, "input_1.pb");
    assert_int_equal(remove(file), 0);
    len = strlen(dir) + strlen(file) + 80;
    line = malloc(len);
    assert_non_null(line);
    snprintf(line, len,
             "ERROR %s/test_data_set_0: %s: cannot open: No such file or "
             "directory",
             dir, file);
    args[1] = dir;
    cli_expect_run(&r, 3, args);
    assert_true(cli_has_line(r.out, line));
    cli_result_free(&r);
    free(line);
    free(file);

    /* a missing model.onnx */
    file = cli_path(dir, "model.onnx");
    assert_int_equal(remove(file), 0);
    line = malloc(len);
    assert_non_null(line);
    snprintf(line, len, "ERROR %s: %s: cannot open: No such file or directory",
             dir, file);
    cli_expect_run(&r, 3, args);
    assert_true(cli_has_line(r.out, line));
    cli_result_free(&r);
    free(line);
    free(file);
    free(set);
    free(dir);
}

/* A directory argument longer than the tool's path buffer is refused,
 * not cut short: cut at 4095 bytes, "<case>////...////missing" named the
 * case directory itself, which then ran and passed. */
static void test_path_too_long(void **state)
{
    case_options o = good();
    char *dir = make_case("long_path", &o);
    size_t dir_len = strlen(dir), len = dir_len + 4200 + 16;
    char *arg = malloc(len), *line;
    const char *args[] = {"onnx-test", NULL, NULL};
    cli_result r;
    (void)state;

    assert_non_null(arg);
    memcpy(arg, dir, dir_len);
    memset(arg + dir_len, '/', 4200);
    snprintf(arg + dir_len + 4200, len - dir_len - 4200, "missing");
    line = malloc(strlen(arg) + 64);
    assert_non_null(line);
    sprintf(line, "ERROR %s: path too long (%zu bytes, at most 4095)", arg,
            strlen(arg));
    args[1] = arg;
    cli_expect_run(&r, 3, args);
    assert_true(cli_has_line(r.out, line));
    assert_null(strstr(r.out, "PASS"));
    cli_result_free(&r);
    free(line);
    free(arg);
    free(dir);
}

static void test_external_data(void **state)
{
    case_options o = good();
    Onnx__TensorProto tp = ONNX__TENSOR_PROTO__INIT;
    Onnx__StringStringEntryProto loc = ONNX__STRING_STRING_ENTRY_PROTO__INIT;
    Onnx__StringStringEntryProto *entries[1] = {&loc};
    int64_t dims[2] = {3, 3};
    unsigned char buf[256];
    size_t size;
    char *dir, *set, *file;
    const char *args[] = {"onnx-test", NULL, NULL};
    cli_result r;
    (void)state;

    dir = make_case("external", &o);
    set = cli_path(dir, "test_data_set_0");
    file = cli_path(set, "input_0.pb");
    tp.n_dims = 2;
    tp.dims = dims;
    tp.has_data_type = 1;
    tp.data_type = CLG_DTYPE_FLOAT;
    tp.name = "data";
    tp.has_data_location = 1;
    tp.data_location = ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL;
    loc.key = "location";
    loc.value = "weights.bin";
    tp.n_external_data = 1;
    tp.external_data = entries;
    size = onnx__tensor_proto__get_packed_size(&tp);
    assert_true(size <= sizeof buf);
    onnx__tensor_proto__pack(&tp, buf);
    assert_int_equal(cli_write_bytes(file, buf, size), 0);
    args[1] = dir;
    cli_expect_run(&r, 3, args);
    assert_non_null(strstr(r.out, "field external_data"));
    assert_non_null(strstr(r.out, "weights.bin"));
    cli_result_free(&r);
    free(file);
    free(set);
    free(dir);
}

/* A usage error: status 3, nothing on stdout, and on stderr exactly
 * `err`: one line naming the problem, then "Try 'clgather CMD --help'." */
static void expect_usage_error(const char *const *args, const char *err)
{
    cli_result r;
    cli_expect_run(&r, 3, args);
    assert_string_equal(r.out, "");
    assert_string_equal(r.err, err);
    cli_result_free(&r);
}

static void test_usage_errors(void **state)
{
    static const char *const commands[] = {"devices", "onnx-test", "run",
                                           "compare", "bench",     "tune",
                                           "cache"};
    const char *none[] = {NULL};
    const char *unknown_cmd[] = {"frobnicate", NULL};
    const char *unknown_opt[] = {"--frobnicate", NULL};
    const char *no_dir[] = {"onnx-test", NULL};
    const char *no_op[] = {"run",       "--data", "d.npy",
                           "--indices", "i.npy",  NULL};
    const char *both[] = {"onnx-test", "--reference", "-d", "cpu", "x", NULL};
    const char *bad_opt[] = {NULL, "--bogus", "x", NULL};
    char err[256];
    (void)state;
    const char *nd_axis[] = {"run",   "gather-nd", "--axis", "1", "--data",
                             "d.npy", "--indices", "i.npy",  NULL};
    const char *gather_batch[] = {"run",       "gather", "--batch-dims",
                                  "1",         "--data", "d.npy",
                                  "--indices", "i.npy",  NULL};

    expect_usage_error(none, "clgather: no command given\n"
                             "Try 'clgather --help'.\n");
    expect_usage_error(unknown_cmd, "clgather: unknown command 'frobnicate'\n"
                                    "Try 'clgather --help'.\n");
    expect_usage_error(unknown_opt, "clgather: unknown option '--frobnicate'\n"
                                    "Try 'clgather --help'.\n");
    expect_usage_error(no_dir, "clgather onnx-test: no test directory given\n"
                               "Try 'clgather onnx-test --help'.\n");
    expect_usage_error(no_op, "clgather run: which operator? gather, "
                              "gather-elements or gather-nd\n"
                              "Try 'clgather run --help'.\n");
    expect_usage_error(nd_axis, "clgather run: gather-nd takes --batch-dims, "
                                "not --axis\n"
                                "Try 'clgather run --help'.\n");
    expect_usage_error(gather_batch, "clgather run: gather takes --axis, not "
                                     "--batch-dims\n"
                                     "Try 'clgather run --help'.\n");
    expect_usage_error(both, "clgather onnx-test: --reference and --device "
                             "exclude each other\n"
                             "Try 'clgather onnx-test --help'.\n");
    /* Every command: getopt's line, then the same hint (no usage text). */
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++) {
        bad_opt[0] = commands[i];
        snprintf(err, sizeof err,
                 "clgather %s: unrecognized option '--bogus'\n"
                 "Try 'clgather %s --help'.\n",
                 commands[i], commands[i]);
        expect_usage_error(bad_opt, err);
    }
}

/* -r is --repeat wherever a command has it (run, compare, bench, tune);
 * onnx-test's --reference has no short form. */
static void test_short_options(void **state)
{
    const char *run[] = {"run",   "gather", "--data", "d.npy", "--indices",
                         "i.npy", "-r",     "0",      NULL};
    const char *compare[] = {"compare", "-r", "0", "x", NULL};
    const char *bench[] = {"bench", "-r", "0", NULL};
    const char *tune[] = {"tune", "-r", "0", NULL};
    const char *onnx[] = {"onnx-test", "-r", "x", NULL};
    (void)state;

    expect_usage_error(run, "clgather run: --repeat '0' is not a count from "
                            "1 to 1000\n"
                            "Try 'clgather run --help'.\n");
    expect_usage_error(compare, "clgather compare: --repeat '0' is not a "
                                "count from 1 to 1000\n"
                                "Try 'clgather compare --help'.\n");
    expect_usage_error(bench, "clgather bench: --repeat '0' is not a count "
                              "from 1 to 100000\n"
                              "Try 'clgather bench --help'.\n");
    expect_usage_error(tune, "clgather tune: --repeat: '0' is not a number "
                             "in [1, 100]\n"
                             "Try 'clgather tune --help'.\n");
    expect_usage_error(onnx, "clgather onnx-test: invalid option -- 'r'\n"
                             "Try 'clgather onnx-test --help'.\n");
    /* An integer past int64 is named as such. */
    const char *huge[] = {"run",       "gather",
                          "--data",    "d.npy",
                          "--indices", "i.npy",
                          "--axis",    "99999999999999999999",
                          NULL};
    expect_usage_error(huge, "clgather run: --axis '99999999999999999999' is "
                             "not a 64-bit integer\n"
                             "Try 'clgather run --help'.\n");
    const char *huge_c[] = {"compare", "--batch-dims", "-99999999999999999999",
                            "x", NULL};
    expect_usage_error(huge_c, "clgather compare: --batch-dims "
                               "'-99999999999999999999' is not a 64-bit "
                               "integer\n"
                               "Try 'clgather compare --help'.\n");
    /* --first-call ignores a workload run's options: refused, each by
     * name. */
    static const struct {
        const char *arg, *value, *named;
    } with[] = {
        {"--json", "fc.json", "--json"},
        {"--workload", "small", "--workload"},
        {"--linearity", NULL, "--scale or --linearity"},
        {"-r", "2", "--repeat"},
        {"--seed", "1", "--seed"},
        {"--oob", "clip", "--oob"},
        {"--no-first-call", NULL, "--no-first-call"},
    };
    for (size_t i = 0; i < sizeof with / sizeof with[0]; i++) {
        const char *first[] = {"bench", "--first-call", with[i].arg,
                               with[i].value, NULL};
        char want[128];
        snprintf(want, sizeof want,
                 "clgather bench: --first-call takes --device only, not %s\n"
                 "Try 'clgather bench --help'.\n",
                 with[i].named);
        expect_usage_error(first, want);
    }
    /* Several: each named. */
    const char *several[] = {"bench", "--first-call", "--buffers",
                             "host",  "--seed",       "1",
                             NULL};
    expect_usage_error(several, "clgather bench: --first-call takes --device "
                                "only, not --seed, --buffers\n"
                                "Try 'clgather bench --help'.\n");
}

/* A device spec that matches nothing is the machine's answer, not a
 * usage error: status 4, the spec and what to run named. */
static void test_no_such_device(void **state)
{
    case_options o = good();
    char *dir = make_case("no_device", &o);
    const char *args[] = {"onnx-test", "--device", "no-such-device-xyz", dir,
                          NULL};
    cli_result r;
    (void)state;
    cli_expect_run(&r, 4, args);
    assert_true(cli_has_line_prefix(r.err,
                                    "clgather onnx-test: cannot use --device "
                                    "\"no-such-device-xyz\": "
                                    "DEVICE_NOT_FOUND: no OpenCL device "
                                    "matches \"no-such-device-xyz\"; "
                                    "devices: "));
    assert_non_null(strstr(r.err, "; 'clgather devices' lists the devices "
                                  "and their P:D specs\n"));
    assert_string_equal(r.out, "");
    cli_result_free(&r);
    free(dir);
}

/* No OpenCL runtime at all (an ICD folder with no .icd file): status 4
 * and a message naming the package, OCL_ICD_VENDORS and `clgather
 * devices`, from every command that opens a device. */
static void test_no_device_at_all(void **state)
{
    case_options o = good();
    char *dir = make_case("no_runtime", &o);
    char *icd = cli_path(cli_root, "empty_icd");
    const char *onnx[] = {"onnx-test", dir, NULL};
    const char *compare[] = {"compare", dir, NULL};
    const char *bench[] = {"bench", NULL};
    const char *tune[] = {"tune", NULL};
    const char *devices[] = {"devices", NULL};
    const char *const *cases[] = {onnx, compare, bench, tune};
    char err[512];
    cli_result r;
    (void)state;

    assert_int_equal(cli_mkdir(icd), 0);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        assert_int_equal(cli_run_env(&r, "OCL_ICD_VENDORS", icd, cases[i]), 0);
        assert_int_equal(r.status, 4);
        snprintf(err, sizeof err,
                 "clgather %s: no OpenCL device found: install an OpenCL "
                 "runtime (on a CPU, the package pocl-opencl-icd) or set "
                 "OCL_ICD_VENDORS to the folder that holds its .icd file; "
                 "'clgather devices' then lists the devices\n",
                 cases[i][0]);
        assert_non_null(strstr(r.err, err));
        cli_result_free(&r);
    }
    assert_int_equal(cli_run_env(&r, "OCL_ICD_VENDORS", icd, devices), 0);
    assert_int_equal(r.status, 4);
    assert_string_equal(r.err,
                        "clgather devices: no OpenCL device found: install "
                        "an OpenCL runtime (on a CPU, the package "
                        "pocl-opencl-icd) or set OCL_ICD_VENDORS to the "
                        "folder that holds its .icd file\n");
    assert_string_equal(r.out, "");
    cli_result_free(&r);
    free(icd);
    free(dir);
}

/* Runs args with cl_preload.c preloaded and CLG_TEST_NDRANGE=mode (the
 * sanitizers' check that their runtime comes first is relaxed for it). */
static void run_preloaded(cli_result *r, const char *mode,
                          const char *const *args)
{
    const char *asan = getenv("ASAN_OPTIONS");
    char *saved = asan != NULL ? strdup(asan) : NULL;
    char opts[2048];
    snprintf(opts, sizeof opts, "%s%sverify_asan_link_order=0",
             saved != NULL ? saved : "", saved != NULL ? ":" : "");
    assert_int_equal(setenv("ASAN_OPTIONS", opts, 1), 0);
    assert_int_equal(setenv("CLG_TEST_NDRANGE", mode, 1), 0);
    /* "fail": every program compiled, so that the first launch is always
     * the known-answer self-test's, whatever the cache holds. */
    char *cache = getenv("CLGATHER_CACHE");
    char *saved_cache = cache != NULL ? strdup(cache) : NULL;
    if (strcmp(mode, "fail") == 0)
        assert_int_equal(setenv("CLGATHER_CACHE", "0", 1), 0);
    assert_int_equal(cli_run_env(r, "LD_PRELOAD", CLG_CL_PRELOAD, args), 0);
    unsetenv("CLG_TEST_NDRANGE");
    if (saved_cache != NULL)
        setenv("CLGATHER_CACHE", saved_cache, 1);
    else
        unsetenv("CLGATHER_CACHE");
    free(saved_cache);
    if (saved != NULL)
        setenv("ASAN_OPTIONS", saved, 1);
    else
        unsetenv("ASAN_OPTIONS");
    free(saved);
}

/* An OpenCL call that fails is a runtime failure, status 4, and its
 * error is named once ("CL_INVALID_VALUE (-30)", not followed by
 * "(CL_INVALID_VALUE)" again). */
static void test_opencl_failure(void **state)
{
    case_options o = good();
    char *dir = make_case("cl_fails", &o);
    char *set = cli_path(dir, "test_data_set_0");
    char *data = cli_path(set, "input_0.pb"),
         *indices = cli_path(set, "input_1.pb");
    const char *onnx[] = {"onnx-test", dir, NULL};
    const char *run[] = {"run",   "gather", "--data", data, "--indices",
                         indices, "--axis", "1",      NULL};
    const char *bench[] = {"bench", "-w", "small", "-r", "1", NULL};
    const char *first[] = {"bench", "--first-call", NULL};
    char line[1024];
    cli_result r;
    (void)state;

    run_preloaded(&r, "fail", run);
    assert_int_equal(r.status, 4);
    assert_string_equal(r.out, "");
    assert_string_equal(r.err, "clgather run: OPENCL_ERROR: kernel "
                               "self-test: clEnqueueNDRangeKernel failed: "
                               "CL_INVALID_VALUE (-30)\n");
    cli_result_free(&r);

    run_preloaded(&r, "fail", onnx);
    assert_int_equal(r.status, 4);
    snprintf(line, sizeof line,
             "ERROR %s/test_data_set_0: OPENCL_ERROR: kernel self-test: "
             "clEnqueueNDRangeKernel failed: CL_INVALID_VALUE (-30) (the CPU "
             "reference accepted "
             "this input)",
             dir);
    if (!cli_has_line(r.out, line)) {
        cli_result_dump(&r);
        fail_msg("expected on stdout: %s", line);
    }
    cli_result_free(&r);

    /* bench: its copy kernel, and --first-call's calls. */
    run_preloaded(&r, "fail", bench);
    assert_int_equal(r.status, 4);
    assert_non_null(strstr(r.err, "CL_INVALID_VALUE (-30)"));
    assert_null(strstr(r.err, "(CL_INVALID_VALUE)"));
    cli_result_free(&r);
    run_preloaded(&r, "fail", first);
    assert_int_equal(r.status, 4);
    assert_non_null(strstr(r.err, "clgather bench: first call of "));
    assert_non_null(strstr(r.err, "OPENCL_ERROR: kernel self-test: "
                                  "clEnqueueNDRangeKernel failed: "
                                  "CL_INVALID_VALUE (-30)\n"));
    assert_null(strstr(r.err, "(CL_INVALID_VALUE)"));
    cli_result_free(&r);

    /* The same run with the runtime's own call: the control. */
    run_preloaded(&r, "forward", run);
    assert_int_equal(r.status, 0);
    cli_result_free(&r);
    free(data);
    free(indices);
    free(set);
    free(dir);
}

/* CLGATHER_VALIDATE=1 compares every host-memory call with the CPU
 * reference: a device whose kernel never ran (a marker enqueued in its
 * place) differs, status 1 as for --check, not 3. */
/* A kernel that fails its known-answer self-test is a runtime failure,
 * status 4, and the message names the status and the kernel
 * (CLGATHER_TEST_MISCOMPILE=1 builds every kernel wrong on purpose; the
 * cache off, so that every program is compiled and tested). */
static void test_miscompiled_kernel(void **state)
{
    case_options o = good();
    char *dir = make_case("miscompiled", &o);
    char *set = cli_path(dir, "test_data_set_0");
    char *data = cli_path(set, "input_0.pb"),
         *indices = cli_path(set, "input_1.pb");
    const char *run[] = {"run",   "gather", "--data", data, "--indices",
                         indices, "--axis", "1",      NULL};
    cli_result r;
    (void)state;

    assert_int_equal(setenv("CLGATHER_CACHE", "0", 1), 0);
    assert_int_equal(cli_run_env(&r, "CLGATHER_TEST_MISCOMPILE", "1", run), 0);
    unsetenv("CLGATHER_CACHE");
    assert_int_equal(r.status, 4);
    assert_string_equal(r.out, "");
    assert_true(cli_has_line_prefix(r.err, "clgather run: "
                                           "DEVICE_MISCOMPILED: "));
    assert_non_null(strstr(r.err, "clg_gather"));
    cli_result_free(&r);
    free(data);
    free(indices);
    free(set);
    free(dir);
}

static void test_validation_mismatch(void **state)
{
    case_options o = good();
    char *dir = make_case("mismatch", &o);
    char *set = cli_path(dir, "test_data_set_0");
    char *data = cli_path(set, "input_0.pb"),
         *indices = cli_path(set, "input_1.pb");
    const char *run[] = {"run",   "gather", "--data", data, "--indices",
                         indices, "--axis", "1",      NULL};
    cli_result r;
    (void)state;

    /* A plain run first: its programs pass their self-test and are
     * stored, so that the skipped kernel below is loaded from the cache
     * and reaches validation mode (compiled, the self-test refuses it). */
    assert_int_equal(cli_run(&r, run), 0);
    assert_int_equal(r.status, 0);
    cli_result_free(&r);
    assert_int_equal(setenv("CLGATHER_VALIDATE", "1", 1), 0);
    run_preloaded(&r, "skip", run);
    unsetenv("CLGATHER_VALIDATE");
    assert_int_equal(r.status, 1);
    assert_true(cli_has_line_prefix(r.err, "clgather run: DEVICE_MISMATCH: "
                                           "Gather: the device result "
                                           "differs from the reference at "
                                           "output[0][0][0]: "));
    cli_result_free(&r);
    free(data);
    free(indices);
    free(set);
    free(dir);
}

/* Every command's --help lists the exit statuses it can give, 3 and 4
 * apart. */
static void test_help_exit_statuses(void **state)
{
    static const char *const commands[] = {"devices", "onnx-test", "run",
                                           "compare", "bench",     "tune"};
    const char *args[] = {NULL, "--help", NULL};
    const char *top[] = {"--help", NULL};
    const char *cache[] = {"cache", "--help", NULL};
    cli_result r;
    (void)state;

    for (size_t i = 0; i <= sizeof commands / sizeof commands[0]; i++) {
        args[0] = i < sizeof commands / sizeof commands[0] ? commands[i]
                                                           : NULL;
        cli_expect_run(&r, 0, args[0] != NULL ? args : top);
        for (char *c = r.out; *c; c++)
            if (*c == '\n')
                *c = ' ';
        if (strstr(r.out, "4 the OpenCL runtime or device failed") == NULL ||
            strstr(r.out, "Exit status") == NULL ||
            (strstr(r.out, "3 usage") == NULL &&
             strstr(r.out, "3 a usage") == NULL)) {
            cli_result_dump(&r);
            fail_msg("%s --help: the exit statuses 3 and 4",
                     args[0] != NULL ? args[0] : "clgather");
        }
        cli_result_free(&r);
    }
    cli_expect_run(&r, 0, cache);
    assert_non_null(strstr(r.out, "Exit status: 0, or 3 a usage error"));
    cli_result_free(&r);
}

/* Several directories: one line each, and the worst status wins. */
static void test_worst_status_wins(void **state)
{
    case_options ok = good(), bad = good(), oob = good();
    char *d1, *d2, *d3, *l1, *l2, *l3;
    const char *args[] = {"onnx-test", NULL, NULL, NULL, NULL};
    cli_result r;
    (void)state;

    bad.corrupt_expected = 1;
    oob.second_index = -4;
    d1 = make_case("mix_ok", &ok);
    d2 = make_case("mix_fail", &bad);
    d3 = make_case("mix_oob", &oob);
    l1 = line_for("PASS", d1, "");
    l2 = line_for("FAIL", d2, ": [1][0][1]: ");
    l3 = line_for("ERROR", d3, ": INDEX_OUT_OF_RANGE: ");
    args[1] = d1;
    args[2] = d2;
    args[3] = d3;
    cli_expect_run(&r, 2, args);
    assert_true(cli_has_line(r.out, l1));
    assert_true(cli_has_line_prefix(r.out, l2));
    assert_true(cli_has_line_prefix(r.out, l3));
    cli_result_free(&r);

    args[3] = NULL; /* without the rejected input: 1 */
    cli_expect_run(&r, 1, args);
    cli_result_free(&r);
    free(l1);
    free(l2);
    free(l3);
    free(d1);
    free(d2);
    free(d3);
}

static void test_help_and_version(void **state)
{
    const char *version[] = {"--version", NULL};
    const char *help[] = {"--help", NULL};
    const char *cmd_help[] = {"onnx-test", "--help", NULL};
    const char *run_help[] = {"run", "--help", NULL};
    const char *dev_help[] = {"devices", "--help", NULL};
    cli_result r;
    char expected[64];
    (void)state;

    snprintf(expected, sizeof expected, "clgather %s (library %s)",
             CLG_VERSION_STRING, clg_version_string());
    cli_expect_run(&r, 0, version);
    assert_true(cli_has_line(r.out, expected));
    cli_result_free(&r);
    cli_expect_run(&r, 0, help);
    assert_true(cli_has_line_prefix(r.out, "Usage: clgather"));
    cli_result_free(&r);
    cli_expect_run(&r, 0, cmd_help);
    assert_true(cli_has_line_prefix(r.out, "Usage: clgather onnx-test"));
    cli_result_free(&r);
    cli_expect_run(&r, 0, run_help);
    assert_true(cli_has_line_prefix(r.out, "Usage: clgather run"));
    cli_result_free(&r);
    cli_expect_run(&r, 0, dev_help);
    assert_true(cli_has_line_prefix(r.out, "Usage: clgather devices"));
    cli_result_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pass),
        cmocka_unit_test(test_pass_without_expected_output),
        cmocka_unit_test(test_indices_from_initializer),
        cmocka_unit_test(test_corrupted_expected_output),
        cmocka_unit_test(test_index_out_of_range),
        cmocka_unit_test(test_axis_out_of_range),
        cmocka_unit_test(test_truncated_input),
        cmocka_unit_test(test_empty_input),
        cmocka_unit_test(test_endless_input),
        cmocka_unit_test(test_truncated_model),
        cmocka_unit_test(test_non_gather_model),
        cmocka_unit_test(test_two_node_model),
        cmocka_unit_test(test_two_node_graph_with_other_operator),
        cmocka_unit_test(test_input_not_as_declared),
        cmocka_unit_test(test_gather_elements_before_opset_11),
        cmocka_unit_test(test_missing_files),
        cmocka_unit_test(test_path_too_long),
        cmocka_unit_test(test_external_data),
        cmocka_unit_test(test_usage_errors),
        cmocka_unit_test(test_short_options),
        cmocka_unit_test(test_no_such_device),
        cmocka_unit_test(test_no_device_at_all),
        cmocka_unit_test(test_opencl_failure),
        cmocka_unit_test(test_miscompiled_kernel),
        cmocka_unit_test(test_validation_mismatch),
        cmocka_unit_test(test_help_exit_statuses),
        cmocka_unit_test(test_worst_status_wins),
        cmocka_unit_test(test_help_and_version),
    };
    return CLI_RUN_TESTS("clgather-exit-codes", tests);
}
