/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Conformance: every Gather, GatherElements and GatherND node test that
 * Debian's libonnx-testdata installs (test_gather*) passes
 * `clgather onnx-test` on the default device and with --reference: the
 * output equals ONNX's output_0.pb bit for bit, dtype and shape included,
 * and the device agrees with the CPU reference. One cmocka test per
 * directory, plus the whole set in one run.
 */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cli_harness.h"

#ifndef CLG_ONNX_TESTDATA_DIR
#error "CLG_ONNX_TESTDATA_DIR must name the ONNX node-test folder"
#endif

#define MAX_DIRS 64

/* The ones Debian ships today; more test_gather* folders are run too. */
static const char *const required[] = {
    "test_gather_0",
    "test_gather_1",
    "test_gather_2d_indices",
    "test_gather_negative_indices",
    "test_gather_elements_0",
    "test_gather_elements_1",
    "test_gather_elements_negative_indices",
    "test_gathernd_example_float32",
    "test_gathernd_example_int32",
    "test_gathernd_example_int32_batch_dim1",
};

static char *g_dirs[MAX_DIRS];
static size_t g_ndirs;

static int compare_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every test_gather* folder (test_gathernd* included). */
static int find_dirs(void)
{
    DIR *d = opendir(CLG_ONNX_TESTDATA_DIR);
    struct dirent *e;
    if (d == NULL)
        return -1;
    while ((e = readdir(d)) != NULL && g_ndirs < MAX_DIRS) {
        if (strncmp(e->d_name, "test_gather", 11) != 0)
            continue;
        g_dirs[g_ndirs++] = cli_path(CLG_ONNX_TESTDATA_DIR, e->d_name);
    }
    closedir(d);
    qsort(g_dirs, g_ndirs, sizeof g_dirs[0], compare_names);
    return 0;
}

/* Number of test_data_set_* folders in dir. */
static size_t count_sets(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    size_t n = 0;
    if (d == NULL)
        return 0;
    while ((e = readdir(d)) != NULL)
        if (strncmp(e->d_name, "test_data_set_", 14) == 0)
            n++;
    closedir(d);
    return n;
}

/* Every line of the output is a PASS for a data set of `dir`. */
static void expect_all_pass(const cli_result *r, const char *dir)
{
    size_t sets = count_sets(dir), lines = 0;
    size_t n = strlen(dir);
    const char *p = r->out;
    while (*p != '\0') {
        const char *eol = strchr(p, '\n');
        if (eol == NULL)
            eol = p + strlen(p);
        if (strncmp(p, "PASS ", 5) != 0 || strncmp(p + 5, dir, n) != 0 ||
            strncmp(p + 5 + n, "/test_data_set_", 15) != 0) {
            cli_result_dump(r);
            fail_msg("unexpected line: %.*s", (int)(eol - p), p);
        }
        lines++;
        p = *eol != '\0' ? eol + 1 : eol;
    }
    assert_true(sets > 0);
    assert_int_equal(lines, sets);
}

static void test_directory(void **state)
{
    const char *dir = *state;
    const char *dev[] = {"onnx-test", dir, NULL};
    const char *ref[] = {"onnx-test", "--reference", dir, NULL};
    cli_result r;

    cli_expect_run(&r, 0, dev);
    expect_all_pass(&r, dir);
    cli_result_free(&r);

    cli_expect_run(&r, 0, ref);
    expect_all_pass(&r, dir);
    cli_result_free(&r);
}

static void test_required_directories_present(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof required / sizeof required[0]; i++) {
        int found = 0;
        for (size_t k = 0; k < g_ndirs; k++) {
            const char *base = strrchr(g_dirs[k], '/') + 1;
            if (strcmp(base, required[i]) == 0)
                found = 1;
        }
        if (!found)
            fail_msg("%s/%s is missing: install libonnx-testdata",
                     CLG_ONNX_TESTDATA_DIR, required[i]);
    }
}

/* All directories in one invocation: one PASS line per data set. */
static void test_all_in_one_run(void **state)
{
    const char *args[MAX_DIRS + 2];
    size_t lines = 0, sets = 0;
    cli_result r;
    (void)state;

    args[0] = "onnx-test";
    for (size_t k = 0; k < g_ndirs; k++) {
        args[k + 1] = g_dirs[k];
        sets += count_sets(g_dirs[k]);
    }
    args[g_ndirs + 1] = NULL;
    cli_expect_run(&r, 0, args);
    for (const char *p = r.out; (p = strstr(p, "PASS ")) != NULL; p += 5)
        lines++;
    assert_int_equal(lines, sets);
    assert_null(strstr(r.out, "FAIL"));
    assert_null(strstr(r.out, "ERROR"));
    cli_result_free(&r);
}

/* The whole node-test folder in one run, as a user types it: every
 * other operator's directory is skipped and counted, not an ERROR line
 * each; the Gather and GatherElements sets all pass; exit 0. */
static void test_whole_folder_skips_others(void **state)
{
    DIR *d = opendir(CLG_ONNX_TESTDATA_DIR);
    struct dirent *e;
    const char **args = NULL;
    size_t n = 0, cap = 64, sets = 0, lines = 0;
    char summary[128];
    cli_result r;
    (void)state;

    assert_non_null(d);
    args = calloc(cap, sizeof *args);
    assert_non_null(args);
    args[n++] = "onnx-test";
    args[n++] = "--reference";
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        if (n + 2 > cap) {
            cap *= 2;
            args = realloc(args, cap * sizeof *args);
            assert_non_null(args);
        }
        args[n++] = cli_path(CLG_ONNX_TESTDATA_DIR, e->d_name);
    }
    closedir(d);
    args[n] = NULL;
    for (size_t k = 0; k < g_ndirs; k++)
        sets += count_sets(g_dirs[k]);
    cli_expect_run(&r, 0, args);
    for (const char *p = r.out; (p = strstr(p, "PASS ")) != NULL; p += 5)
        lines++;
    if (lines != sets)
        cli_result_dump(&r);
    assert_int_equal(lines, sets);
    assert_null(strstr(r.out, "ERROR"));
    snprintf(summary, sizeof summary,
             "clgather onnx-test: %zu passed, 0 failed, 0 errors, %zu "
             "skipped (not Gather, GatherElements or GatherND)",
             sets, n - 2 - g_ndirs);
    if (!cli_has_line(r.err, summary))
        cli_result_dump(&r);
    assert_true(cli_has_line(r.err, summary));
    assert_true(n - 2 - g_ndirs > 0);
    cli_result_free(&r);
    for (size_t k = 2; k < n; k++)
        free((char *)args[k]);
    free(args);
}

/* `run gather-nd --batch-dims B --check` on the batch_dims node test's
 * inputs: the device agrees with the reference at B = 1, and B = 2 (not
 * below min(q, r) = 2) is refused with exit 2 and the library's
 * message. */
static void test_run_gather_nd(void **state)
{
    char *dir = cli_path(CLG_ONNX_TESTDATA_DIR,
                         "test_gathernd_example_int32_batch_dim1");
    char *set = cli_path(dir, "test_data_set_0");
    char *data = cli_path(set, "input_0.pb");
    char *idx = cli_path(set, "input_1.pb");
    const char *ok[] = {"run",     "gather-nd", "--batch-dims", "1",
                        "--data",  data,        "--indices",    idx,
                        "--check", NULL};
    const char *bad[] = {"run",       "gather-nd", "--batch-dims",
                         "2",         "--data",    data,
                         "--indices", idx,         NULL};
    cli_result r;
    (void)state;

    if (count_sets(dir) == 0) {
        free(dir);
        free(set);
        free(data);
        free(idx);
        skip();
    }
    cli_expect_run(&r, 0, ok);
    assert_non_null(strstr(r.out, "output: INT32 [2, 2]"));
    assert_non_null(strstr(r.out, "device == reference"));
    cli_result_free(&r);
    cli_expect_run(&r, 2, bad);
    assert_non_null(strstr(r.err, "batch_dims = 2 is out of range [0, 1] "
                                  "for data of rank 3 and indices of rank 2"));
    cli_result_free(&r);
    free(dir);
    free(set);
    free(data);
    free(idx);
}

/* Another operator's model is not one of ours: with --strict, exit 3 and
 * an ERROR line naming the operators. */
static void test_other_operator_is_rejected(void **state)
{
    char *dir = cli_path(CLG_ONNX_TESTDATA_DIR, "test_relu");
    const char *args[] = {"onnx-test", "--strict", "--reference", dir, NULL};
    cli_result r;
    (void)state;

    if (count_sets(dir) == 0) {
        free(dir);
        skip();
    }
    assert_int_equal(cli_run(&r, args), 0);
    assert_int_equal(r.status, 3);
    assert_non_null(strstr(r.out, "the node is 'Relu', not Gather, "
                                  "GatherElements or GatherND"));
    cli_result_free(&r);
    free(dir);
}

int main(void)
{
    struct CMUnitTest tests[MAX_DIRS + 5];
    char names[MAX_DIRS][96];
    size_t n = 0;
    int rc;

    if (!cli_have_device()) {
        fprintf(stderr, "no OpenCL device: skipping\n");
        return 77;
    }
    if (find_dirs() != 0)
        fprintf(stderr, "cannot open %s: install libonnx-testdata\n",
                CLG_ONNX_TESTDATA_DIR);

    tests[n++] =
        (struct CMUnitTest)cmocka_unit_test(test_required_directories_present);
    for (size_t k = 0; k < g_ndirs; k++) {
        snprintf(names[k], sizeof names[k], "%s", strrchr(g_dirs[k], '/') + 1);
        tests[n].name = names[k];
        tests[n].test_func = test_directory;
        tests[n].setup_func = NULL;
        tests[n].teardown_func = NULL;
        tests[n].initial_state = g_dirs[k];
        n++;
    }
    tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_all_in_one_run);
    tests[n++] =
        (struct CMUnitTest)cmocka_unit_test(test_whole_folder_skips_others);
    tests[n++] =
        (struct CMUnitTest)cmocka_unit_test(test_other_operator_is_rejected);
    tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_run_gather_nd);

    rc = _cmocka_run_group_tests("onnx_node_tests", tests, n, NULL, NULL);
    for (size_t k = 0; k < g_ndirs; k++)
        free(g_dirs[k]);
    return rc;
}
