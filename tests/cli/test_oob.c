/* SPDX-License-Identifier: Apache-2.0 */
/*
 * --oob on the tool: `clgather run` under every out-of-range mode writes
 * the values the formulas give (docs/design.md, "Out-of-range modes"),
 * checked against the CPU reference (--check) and against values computed
 * here; under raise it exits 2 and leaves no output file; `compare` and
 * `onnx-test` take the mode; a word that is not a mode is a usage error.
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
#include "npy.h"

static const char *const modes[4] = {"raise", "wrap", "clip", "fill"};

/* The position of v on an axis of size s under mode m, -1 for none. */
static int64_t position(int64_t v, int64_t s, int m)
{
    if (m == 1)
        return ((v % s) + s) % s;
    if (m == 2)
        return v < -s ? 0 : v > s - 1 ? s - 1 : v < 0 ? v + s : v;
    return v < -s || v > s - 1 ? -1 : v < 0 ? v + s : v;
}

/* Data FLOAT [3, 4] = 1 .. 12; Gather on axis 1 with indices [2, 3]
 * and GatherElements on axis 1 with indices [3, 2], both far out of range
 * on both sides. */
static const float data[12] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
static const int64_t data_shape[2] = {3, 4};
static const int64_t gidx[6] = {0, -1, 5, -7, 2, 100};
static const int64_t gidx_shape[2] = {2, 3};
static const int64_t eidx[6] = {9, -9, 3, -5, INT64_MIN, INT64_MAX};
static const int64_t eidx_shape[2] = {3, 2};

static void read_output(const char *path, float *out, size_t n)
{
    clg_io_tensor t;
    clg_io_error err;
    clg_io_tensor_init(&t);
    if (clg_npy_read(path, &t, &err) != CLG_IO_OK)
        fail_msg("%s", err.message);
    assert_int_equal(t.dtype, CLG_DTYPE_FLOAT);
    memcpy(out, t.data, n * sizeof *out);
    clg_io_tensor_free(&t);
}

static void test_run_every_mode(void **state)
{
    char *d = cli_tmp("o_data.npy"), *gi = cli_tmp("o_gidx.npy");
    char *ei = cli_tmp("o_eidx.npy"), *o = cli_tmp("o_out.npy");
    (void)state;
    cli_write_npy(d, CLG_DTYPE_FLOAT, 2, data_shape, data);
    cli_write_npy(gi, CLG_DTYPE_INT64, 2, gidx_shape, gidx);
    cli_write_npy(ei, CLG_DTYPE_INT64, 2, eidx_shape, eidx);
    for (int m = 0; m < 4; m++) {
        for (int elements = 0; elements < 2; elements++) {
            const char *args[] = {
                "run",       elements ? "gather-elements" : "gather",
                "--data",    d,
                "--indices", elements ? ei : gi,
                "--axis",    "1",
                "--oob",     modes[m],
                "-o",        o,
                "--check",   NULL};
            float want[18], got[18];
            size_t n = elements ? 6 : 18;
            cli_result r;
            remove(o);
            if (m == 0) {
                /* Raise: the operator rejects the input, nothing written. */
                cli_expect_run(&r, 2, args);
                assert_non_null(strstr(r.err, "INDEX_OUT_OF_RANGE"));
                assert_int_equal(cli_file_size(o), -1);
                cli_result_free(&r);
                continue;
            }
            cli_expect_run(&r, 0, args);
            assert_true(cli_has_line(r.out, "device == reference"));
            cli_result_free(&r);
            for (int64_t k = 0; k < (int64_t)n; k++) {
                int64_t row, col;
                if (elements) {
                    row = k / 2;
                    col = position(eidx[k], 4, m);
                } else {
                    row = k / 6;
                    col = position(gidx[k % 6], 4, m);
                }
                want[k] = col < 0 ? 0.0f : data[row * 4 + col];
            }
            read_output(o, got, n);
            assert_memory_equal(got, want, n * sizeof *got);
        }
    }
    free(d);
    free(gi);
    free(ei);
    free(o);
}

/* compare runs the reference and the device under the mode; a bad word
 * is a usage error for every command that takes --oob. */
static void test_compare_and_usage(void **state)
{
    char *d = cli_tmp("c_data.npy"), *gi = cli_tmp("c_gidx.npy");
    (void)state;
    cli_write_npy(d, CLG_DTYPE_FLOAT, 2, data_shape, data);
    cli_write_npy(gi, CLG_DTYPE_INT64, 2, gidx_shape, gidx);
    for (int m = 0; m < 4; m++) {
        const char *args[] = {"compare", "--data", d,       "--indices", gi,
                              "--axis",  "1",      "--oob", modes[m],    NULL};
        cli_result r;
        cli_expect_run(&r, m == 0 ? 2 : 0, args);
        assert_non_null(strstr(r.out,
                               m == 0 ? "INDEX_OUT_OF_RANGE" : "agree"));
        cli_result_free(&r);
    }
    const char *run_bad[] = {"run", "gather", "--data", d,   "--indices",
                             gi,    "--oob",  "Clip",   NULL};
    const char *cmp_bad[] = {"compare", "--data", d,      "--indices",
                             gi,        "--oob",  "zero", NULL};
    const char *onnx_bad[] = {"onnx-test", "--oob", "", ".", NULL};
    const char *bench_bad[] = {"bench", "--oob", "nan", NULL};
    const char *const *bad[] = {run_bad, cmp_bad, onnx_bad, bench_bad};
    for (size_t k = 0; k < 4; k++) {
        cli_result r;
        cli_expect_run(&r, 3, bad[k]);
        assert_non_null(strstr(r.err, "is not raise, wrap, clip or fill"));
        cli_result_free(&r);
    }
    free(d);
    free(gi);
}

/* onnx-test under every mode on a node test whose indices are in range:
 * every mode gives ONNX's expected output. */
static void test_onnx_test_modes(void **state)
{
    static const int64_t idx[2] = {2, -3};
    static const int64_t idx_shape[1] = {2};
    static const float expected[6] = {3, 2, 7, 6, 11, 10};
    static const int64_t out_shape[2] = {3, 2};
    char *dir = cli_tmp("oob_node");
    cli_model m = cli_gather_model(1);
    (void)state;
    clg_tensor td = cli_tensor(CLG_DTYPE_FLOAT, 2, data_shape, data);
    clg_tensor ti = cli_tensor(CLG_DTYPE_INT64, 1, idx_shape, idx);
    clg_tensor to = cli_tensor(CLG_DTYPE_FLOAT, 2, out_shape, expected);
    cli_write_node_test(dir, &m, &td, &ti, &to);
    for (int k = 0; k < 4; k++) {
        const char *args[] = {"onnx-test", "--oob", modes[k], dir, NULL};
        cli_result r;
        cli_expect_run(&r, 0, args);
        cli_result_free(&r);
    }
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_run_every_mode),
        cmocka_unit_test(test_compare_and_usage),
        cmocka_unit_test(test_onnx_test_modes),
    };
    return CLI_RUN_TESTS("clgather-oob", tests);
}
