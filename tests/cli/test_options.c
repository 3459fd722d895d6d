/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The tool's options as scripts meet them: standard input and output
 * (`--data -`, `-o -`), output names it cannot honour, an output that is
 * an input, repeated single-value options, --repeat's bounds, device specs
 * that are bare numbers or padded with spaces, and a default device spec
 * that matches nothing.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "cli_harness.h"
#include "npy.h"

static void expect_err_line(cli_result *r, const char *line)
{
    if (!cli_has_line(r->err, line)) {
        cli_result_dump(r);
        fail_msg("expected on stderr: %s", line);
    }
}

/* data.npy FLOAT [4] = {1, 2, 3, 4}, indices.npy INT64 [2] = {3, 0}: the
 * output is FLOAT [2] = {4, 1}. */
static void write_inputs(char **data, char **indices)
{
    static const float values[4] = {1.0f, 2.0f, 3.0f, 4.0f};
    static const int64_t data_shape[1] = {4};
    static const int64_t idx[2] = {3, 0};
    static const int64_t idx_shape[1] = {2};
    *data = cli_tmp("data.npy");
    *indices = cli_tmp("indices.npy");
    cli_write_npy(*data, CLG_DTYPE_FLOAT, 1, data_shape, values);
    cli_write_npy(*indices, CLG_DTYPE_INT64, 1, idx_shape, idx);
}

/* The output a run of write_inputs' files gives, as .npy bytes. */
static unsigned char *expected_npy(size_t *size)
{
    static const float values[2] = {4.0f, 1.0f};
    static const int64_t shape[1] = {2};
    clg_tensor t = cli_tensor(CLG_DTYPE_FLOAT, 1, shape, values);
    unsigned char *bytes = NULL;
    assert_int_equal(clg_npy_encode(&t, 0, &bytes, size, NULL), CLG_IO_OK);
    return bytes;
}

/* -o - writes the .npy bytes on stdout (the report goes to stderr); it
 * once created a file named "-". So does a name of the file stdout is
 * open on, a pipe (here into cat) or a file: the report once followed
 * the tensor into the pipe. Through /bin/sh, for binary stdout. */
static void test_output_to_stdout(void **state)
{
    static const char *const ways[][2] = {{"-", ""},
                                          {"/dev/stdout", ""},
                                          {"/dev/stdout", "| cat"}};
    char *d, *i, *o = cli_tmp("stdout.npy"), *e = cli_tmp("stdout.err"),
                 *err_text;
    char *dash = cli_tmp("-"), cmd[4096];
    size_t size = 0, got_size = 0;
    unsigned char *want = expected_npy(&size), *got = NULL;
    (void)state;

    write_inputs(&d, &i);
    for (size_t w = 0; w < sizeof ways / sizeof ways[0]; w++) {
        snprintf(cmd, sizeof cmd,
                 "cd '%s' && '%s' run gather --data '%s' --indices '%s' "
                 "-o %s 2> '%s' %s > '%s'",
                 cli_root, CLG_CLI_EXE, d, i, ways[w][0], e, ways[w][1], o);
        assert_int_equal(system(cmd), 0);
        got = cli_read_bytes(o, &got_size);
        assert_int_equal(got_size, size);
        assert_memory_equal(got, want, size);
        err_text = cli_read_text(e);
        assert_non_null(err_text);
        assert_true(cli_has_line(err_text, "output: FLOAT [2]"));
        free(err_text);
        free(got);
    }
    assert_int_equal(access(dash, F_OK), -1);
    free(want);
    free(dash);
    free(o);
    free(e);
    free(d);
    free(i);
}

/* --indices - reads the tensor from stdin (here: a file put on stdin by
 * the shell the harness has not, so through /bin/sh). */
static void test_input_from_stdin(void **state)
{
    char *d, *i, *o = cli_tmp("from_stdin.npy"), cmd[4096];
    size_t size = 0, got_size = 0;
    unsigned char *want = expected_npy(&size), *got = NULL;
    (void)state;

    write_inputs(&d, &i);
    snprintf(cmd, sizeof cmd,
             "'%s' run gather --data '%s' --indices - -o '%s' < '%s' "
             ">/dev/null",
             CLG_CLI_EXE, d, o, i);
    assert_int_equal(system(cmd), 0);
    got = cli_read_bytes(o, &got_size);
    assert_int_equal(got_size, size);
    assert_memory_equal(got, want, size);
    free(got);
    free(want);
    free(o);
    free(d);
    free(i);
}

/* A report that cannot be written to standard output (here /dev/full)
 * is exit status 3 and a message, never 0 with nothing written. */
static void test_stdout_write_error(void **state)
{
    static const char *const commands[] = {"devices", "devices --json",
                                           "cache --dir /nonexistent"};
    char cmd[4096];
    (void)state;

    for (size_t k = 0; k < sizeof commands / sizeof commands[0]; k++) {
        snprintf(cmd, sizeof cmd, "'%s' %s >/dev/full 2>/dev/null",
                 CLG_CLI_EXE, commands[k]);
        int status = system(cmd);
        assert_true(WIFEXITED(status));
        assert_int_equal(WEXITSTATUS(status), 3);
    }
}

/* Refused before running: an output name of no known format (x.npz once
 * got .npy bytes), an output that is an input under another name, both
 * inputs from stdin, --json beside -o -. Nothing is written. */
static void test_refused_outputs(void **state)
{
    char *d, *i, *npz = cli_tmp("x.npz"), *alias = cli_tmp("alias.npy"),
                 line[4200];
    const char *args[] = {"run", "gather", "--data", NULL, "--indices",
                          NULL,  "-o",     NULL,     NULL, NULL};
    const char *both[] = {"run",       "gather", "--data", "-",
                          "--indices", "-",      NULL};
    char *data_before;
    cli_result r;
    (void)state;

    write_inputs(&d, &i);
    args[3] = d;
    args[5] = i;
    args[7] = npz;
    cli_expect_run(&r, 3, args);
    snprintf(line, sizeof line,
             "clgather run: %s: unknown output format: name it .npy (NumPy) "
             "or .pb (ONNX TensorProto), or - for .npy on standard output",
             npz);
    expect_err_line(&r, line);
    assert_int_equal(access(npz, F_OK), -1);
    cli_result_free(&r);

    /* the data file itself, by a hard link's name */
    data_before = cli_read_text(d);
    assert_non_null(data_before);
    assert_int_equal(link(d, alias), 0);
    args[7] = alias;
    cli_expect_run(&r, 3, args);
    snprintf(line, sizeof line,
             "clgather run: %s: the output is the input file %s: refused",
             alias, d);
    expect_err_line(&r, line);
    assert_string_equal(r.out, "");
    cli_result_free(&r);
    args[7] = i; /* the indices, by their own name */
    cli_expect_run(&r, 3, args);
    snprintf(line, sizeof line,
             "clgather run: %s: the output is the input file %s: refused", i,
             i);
    expect_err_line(&r, line);
    cli_result_free(&r);
    {
        char *after = cli_read_text(d);
        assert_non_null(after);
        assert_int_equal(cli_file_size(d), cli_file_size(alias));
        assert_memory_equal(after, data_before, 10);
        free(after);
    }
    assert_true(cli_file_size(i) > 0);

    cli_expect_run(&r, 3, both);
    assert_string_equal(r.err, "clgather run: --data and --indices cannot "
                               "both be - (standard input)\n"
                               "Try 'clgather run --help'.\n");
    cli_result_free(&r);
    args[7] = "-";
    args[8] = "--json";
    cli_expect_run(&r, 3, args);
    expect_err_line(&r, "clgather run: --json and --output - both write "
                        "standard output");
    cli_result_free(&r);
    {
        const char *bench[] = {"bench", "--json", "-", NULL};
        cli_expect_run(&r, 3, bench);
        assert_string_equal(r.err,
                            "clgather bench: --json needs a file name, not -\n"
                            "Try 'clgather bench --help'.\n");
        cli_result_free(&r);
    }
    free(data_before);
    free(alias);
    free(npz);
    free(d);
    free(i);
}

/* An option that takes one value, given twice, is refused (the last one
 * used to win silently); -d twice in compare still means two devices. */
static void test_repeated_options(void **state)
{
    static const struct {
        const char *args[12];
        const char *line;
    } cases[] = {
        {{"run", "gather", "--data", "a.npy", "--data", "b.npy", "--indices",
          "i.npy", NULL},
         "clgather run: --data given twice"},
        {{"run", "gather", "--data", "a.npy", "--indices", "i.npy",
          "--indices", "j.npy", NULL},
         "clgather run: --indices given twice"},
        {{"run", "gather", "--data", "a.npy", "--indices", "i.npy", "-o",
          "x.npy", "-o", "y.npy", NULL},
         "clgather run: --output given twice"},
        {{"run", "gather", "--axis", "0", "--axis", "1", NULL},
         "clgather run: --axis given twice"},
        {{"run", "gather", "-d", "0:0", "--device", "0:0", NULL},
         "clgather run: --device given twice"},
        {{"compare", "--data", "a.npy", "--data", "b.npy", NULL},
         "clgather compare: --data given twice"},
        {{"compare", "--repeat", "2", "--repeat", "3", "x", NULL},
         "clgather compare: --repeat given twice"},
        {{"onnx-test", "-d", "0:0", "-d", "0:0", "x", NULL},
         "clgather onnx-test: --device given twice"},
        {{"bench", "--json", "a.json", "--json", "b.json", NULL},
         "clgather bench: --json given twice"},
        {{"cache", "--dir", "a", "--dir", "b", NULL},
         "clgather cache: --dir given twice"},
        {{"cache", "--dir", "", NULL}, "clgather cache: --dir needs a folder"},
    };
    cli_result r;
    (void)state;

    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        cli_expect_run(&r, 3, cases[k].args);
        expect_err_line(&r, cases[k].line);
        assert_string_equal(r.out, "");
        cli_result_free(&r);
    }
}

/* run --repeat has compare's bounds and message: 0 and 1001 refused
 * (1000000000 once ran until killed). */
static void test_run_repeat_bounds(void **state)
{
    static const char *const bad[] = {"0", "1001", "1000000000", "-1", "2x"};
    char *d, *i, line[256];
    const char *args[] = {"run", "gather",   "--data", NULL, "--indices",
                          NULL,  "--repeat", NULL,     NULL};
    const char *cmp[] = {"compare", "--repeat", NULL, "x", NULL};
    cli_result r, c;
    (void)state;

    write_inputs(&d, &i);
    args[3] = d;
    args[5] = i;
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        args[7] = bad[k];
        cmp[2] = bad[k];
        cli_expect_run(&r, 3, args);
        cli_expect_run(&c, 3, cmp);
        snprintf(line, sizeof line,
                 "clgather run: --repeat '%s' is not a count from 1 to 1000",
                 bad[k]);
        expect_err_line(&r, line);
        snprintf(line, sizeof line,
                 "clgather compare: --repeat '%s' is not a count from 1 to "
                 "1000",
                 bad[k]);
        expect_err_line(&c, line);
        cli_result_free(&r);
        cli_result_free(&c);
    }
    args[7] = "1000";
    cli_expect_run(&r, 0, args);
    assert_non_null(strstr(r.out, "(best of 1000 more)"));
    cli_result_free(&r);
    free(d);
    free(i);
}

/* -d 0 and CLGATHER_DEVICE=0 are errors naming the P:D form (a bare
 * number once matched "OpenCL 3.0"); " 0:0" is 0:0; `devices` warns when
 * CLGATHER_DEVICE matches nothing. */
static void test_device_specs(void **state)
{
    char *d, *i;
    const char *args[] = {"run", "gather", "--data", NULL, "--indices",
                          NULL,  "-d",     "0",      NULL};
    const char *deflt[] = {"run",       "gather", "--data", NULL,
                           "--indices", NULL,     NULL};
    const char *devices[] = {"devices", NULL};
    cli_result r;
    (void)state;

    write_inputs(&d, &i);
    args[3] = deflt[3] = d;
    args[5] = deflt[5] = i;
    cli_expect_run(&r, 3, args);
    expect_err_line(&r, "clgather run: cannot use --device \"0\": "
                        "INVALID_ARGUMENT: device spec \"0\" is not of the "
                        "form P:D with platform and device indices; "
                        "'clgather devices' lists the devices and their P:D "
                        "specs");
    cli_result_free(&r);
    /* The variable is named, with what to do about it. */
    assert_int_equal(cli_run_env(&r, "CLGATHER_DEVICE", "0", deflt), 0);
    assert_int_equal(r.status, 3);
    assert_string_equal(r.err,
                        "clgather run: cannot use CLGATHER_DEVICE=\"0\": "
                        "INVALID_ARGUMENT: device spec \"0\" is not of the "
                        "form P:D with platform and device indices; set "
                        "CLGATHER_DEVICE to a device 'clgather devices' "
                        "lists, or unset it\n");
    cli_result_free(&r);
    assert_int_equal(cli_run_env(&r, "CLGATHER_DEVICE", " nosuch ", deflt), 0);
    assert_int_equal(r.status, 4);
    assert_true(cli_has_line_prefix(r.err,
                                    "clgather run: cannot use "
                                    "CLGATHER_DEVICE=\"nosuch\": "
                                    "DEVICE_NOT_FOUND: no OpenCL device "
                                    "matches \"nosuch\" "
                                    "(CLGATHER_DEVICE); devices: 0:0 \""));
    assert_non_null(strstr(r.err, "\"; set CLGATHER_DEVICE to a device "
                                  "'clgather devices' lists, or unset it\n"));
    cli_result_free(&r);
    args[7] = " 0:0 ";
    cli_expect_run(&r, 0, args);
    cli_result_free(&r);
    assert_int_equal(cli_run_env(&r, "CLGATHER_DEVICE", "\t0:0 ", deflt), 0);
    assert_int_equal(r.status, 0);
    cli_result_free(&r);

    assert_int_equal(cli_run_env(&r, "CLGATHER_DEVICE", "nosuch", devices), 0);
    assert_int_equal(r.status, 0);
    assert_true(cli_has_line_prefix(r.err, "clgather devices: warning: the "
                                           "default device spec matches "
                                           "no device: DEVICE_NOT_FOUND: no "
                                           "OpenCL device matches "
                                           "\"nosuch\" (CLGATHER_DEVICE)"));
    assert_null(strstr(r.out, "(default)"));
    cli_result_free(&r);
    cli_expect_run(&r, 0, devices);
    assert_string_equal(r.err, "");
    assert_non_null(strstr(r.out, "(default)"));
    cli_result_free(&r);
    free(d);
    free(i);
}

/* np.zeros(0, 'S5') through run: the output stays '|S5' (it was '|S1'). */
static void test_empty_strings_keep_width(void **state)
{
    static const char header[] = "{'descr': '|S5', 'fortran_order': False, "
                                 "'shape': (0,), }";
    static const int64_t idx_shape[1] = {0};
    char *d = cli_tmp("e.npy"), *ip = cli_tmp("ei.npy"),
         *o = cli_tmp("eo.npy"), *text;
    unsigned char buf[128];
    const char *args[] = {"run", "gather", "--data", d,   "--indices",
                          ip,    "-o",     o,        NULL};
    cli_result r;
    (void)state;

    memset(buf, ' ', sizeof buf);
    memcpy(buf, "\x93NUMPY\x01\x00\x76\x00", 10);
    memcpy(buf + 10, header, sizeof header - 1);
    buf[127] = '\n';
    assert_int_equal(cli_write_bytes(d, buf, sizeof buf), 0);
    cli_write_npy(ip, CLG_DTYPE_INT64, 1, idx_shape, NULL);
    cli_expect_run(&r, 0, args);
    assert_true(cli_has_line(r.out, "output: STRING [0]"));
    cli_result_free(&r);
    text = cli_read_text(o);
    assert_non_null(text);
    assert_non_null(strstr(text + 10, "'descr': '|S5'"));
    free(text);
    free(d);
    free(ip);
    free(o);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_output_to_stdout),
        cmocka_unit_test(test_input_from_stdin),
        cmocka_unit_test(test_stdout_write_error),
        cmocka_unit_test(test_refused_outputs),
        cmocka_unit_test(test_repeated_options),
        cmocka_unit_test(test_run_repeat_bounds),
        cmocka_unit_test(test_device_specs),
        cmocka_unit_test(test_empty_strings_keep_width),
    };
    return CLI_RUN_TESTS("clgather-options", tests);
}
