/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Interrupt safety of every command that writes a file: SIGINT, SIGTERM or
 * SIGHUP while `run --output` or `bench --json` writes removes the hidden
 * temporary file and leaves an existing output as it was. The tool pauses
 * inside the write (CLGATHER_TEST_WRITE_PAUSE, read by the tool), the
 * test sees the temporary file appear, sends the signal, and checks the
 * directory once the process has died of it.
 */
#include <dirent.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "cli_harness.h"

/* 1 when dir holds a hidden ".*.tmp" file. */
static int has_temp(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    int found = 0;
    assert_non_null(d);
    while ((e = readdir(d)) != NULL) {
        size_t n = strlen(e->d_name);
        if (e->d_name[0] == '.' && n > 4 &&
            strcmp(e->d_name + n - 4, ".tmp") == 0)
            found = 1;
    }
    closedir(d);
    return found;
}

/* Starts the tool with a 30-second pause in its write, waits (up to 60 s:
 * the first run builds the kernel) for the temporary file in dir, sends
 * sig, and returns the wait status. */
static int interrupt_write(const char *dir, const char *const *args, int sig)
{
    pid_t pid = cli_start_env("CLGATHER_TEST_WRITE_PAUSE", "30", args);
    struct timespec tick = {0, 10 * 1000 * 1000};
    int seen = 0;
    assert_true(pid > 0);
    for (int i = 0; i < 6000 && !seen; i++) {
        seen = has_temp(dir);
        if (!seen)
            nanosleep(&tick, NULL);
    }
    if (!seen)
        kill(pid, SIGKILL);
    assert_true(seen);
    assert_int_equal(kill(pid, sig), 0);
    return cli_wait(pid);
}

static void write_inputs(const char *dir, char **data, char **indices)
{
    static const float values[4] = {1.0f, 2.0f, 3.0f, 4.0f};
    static const int64_t data_shape[1] = {4};
    static const int64_t idx[2] = {3, 0};
    static const int64_t idx_shape[1] = {2};
    *data = cli_path(dir, "data.npy");
    *indices = cli_path(dir, "indices.npy");
    assert_non_null(*data);
    assert_non_null(*indices);
    cli_write_npy(*data, CLG_DTYPE_FLOAT, 1, data_shape, values);
    cli_write_npy(*indices, CLG_DTYPE_INT64, 1, idx_shape, idx);
}

/* `run -o victim.npy` (and .pb) interrupted by each signal: it dies of
 * the signal, no temporary file is left, victim keeps its bytes. */
static void test_run_output_interrupted(void **state)
{
    static const char keep[] = "older output";
    static const int signals[] = {SIGINT, SIGTERM, SIGHUP};
    static const char *const names[] = {"victim.npy", "victim.pb"};
    char *dir = cli_subdir("run"), *d = NULL, *i = NULL;
    (void)state;

    write_inputs(dir, &d, &i);
    for (size_t n = 0; n < 2; n++)
        for (size_t s = 0; s < 3; s++) {
            char *victim = cli_path(dir, names[n]), *got;
            const char *args[] = {"run", "gather", "--data", d,   "--indices",
                                  i,     "-o",     victim,   NULL};
            int ws;
            assert_int_equal(cli_write_bytes(victim, keep, sizeof keep - 1),
                             0);
            ws = interrupt_write(dir, args, signals[s]);
            assert_true(WIFSIGNALED(ws));
            assert_int_equal(WTERMSIG(ws), signals[s]);
            if (has_temp(dir))
                fail_msg("%s, signal %d: a temporary file is left", names[n],
                         signals[s]);
            got = cli_read_text(victim);
            assert_non_null(got);
            assert_string_equal(got, keep);
            assert_int_equal(cli_count_entries(dir), 3);
            free(got);
            unlink(victim);
            free(victim);
        }
    free(d);
    free(i);
    free(dir);
}

/* `bench --json report.json` interrupted while it writes the report. */
static void test_bench_json_interrupted(void **state)
{
    static const char keep[] = "{\"an\": \"older report\"}\n";
    char *dir = cli_subdir("bench");
    char *json = cli_path(dir, "report.json"), *got;
    const char *args[] = {"bench", "--workload", "small", "--repeat",
                          "1",     "--json",     json,    NULL};
    int ws;
    (void)state;

    assert_int_equal(cli_write_bytes(json, keep, sizeof keep - 1), 0);
    ws = interrupt_write(dir, args, SIGTERM);
    assert_true(WIFSIGNALED(ws));
    assert_int_equal(WTERMSIG(ws), SIGTERM);
    assert_false(has_temp(dir));
    got = cli_read_text(json);
    assert_non_null(got);
    assert_string_equal(got, keep);
    assert_int_equal(cli_count_entries(dir), 1);
    free(got);
    free(json);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_run_output_interrupted),
        cmocka_unit_test(test_bench_json_interrupted),
    };
    return CLI_RUN_TESTS("clgather-interrupt", tests);
}
