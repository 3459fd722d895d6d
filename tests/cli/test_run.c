/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `clgather run` on real cases: --check against the CPU reference, the
 * printed output description, --output in .npy and .pb read back and
 * compared bit for bit with the ONNX pages' examples, and its exit
 * statuses; a Fortran-order .npy input and an .npz refused;
 * `clgather devices`.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>
#include <dirent.h>
#include <fcntl.h>

#include "cli_harness.h"
#include "compare.h"
#include "io_tensor.h"
#include "npy.h"
#include "npy_samples.h"
#include "onnx_io.h"

/* The tensor file at `path`, read by `read`, equals `want` bit for bit. */
static void expect_file(const char *path,
                        clg_io_status (*read)(const char *, clg_io_tensor *,
                                              clg_io_error *),
                        const clg_tensor *want)
{
    clg_io_tensor out;
    clg_io_error err;
    char detail[512];
    clg_io_tensor_init(&out);
    if (read(path, &out, &err) != CLG_IO_OK)
        fail_msg("%s", err.message);
    clg_tensor got = clg_io_tensor_view(&out);
    if (!clg_io_compare(want, &got, detail, sizeof detail, NULL))
        fail_msg("%s", detail);
    clg_io_tensor_free(&out);
}

/* ONNX Gather, Example 2: axis 1, indices [[0, 2]]. */
static void test_gather_check_npy(void **state)
{
    static const float data[9] = {1.0f, 1.2f, 1.9f, 2.3f, 3.4f,
                                  3.9f, 4.5f, 5.7f, 5.9f};
    static const int64_t data_shape[2] = {3, 3};
    static const int64_t indices[2] = {0, 2};
    static const int64_t indices_shape[2] = {1, 2};
    static const float expected[6] = {1.0f, 1.9f, 2.3f, 3.9f, 4.5f, 5.9f};
    static const int64_t out_shape[3] = {3, 1, 2};
    char *d = cli_tmp("g_data.npy"), *i = cli_tmp("g_indices.npy");
    char *o = cli_tmp("g_out.npy");
    const char *args[] = {"run",       "gather", "--data",  d,
                          "--indices", i,        "--axis",  "1",
                          "--output",  o,        "--check", NULL};
    clg_tensor ev = cli_tensor(CLG_DTYPE_FLOAT, 3, out_shape, expected);
    char line[1100];
    cli_runtime rt;
    cli_result r;
    (void)state;

    cli_write_npy(d, CLG_DTYPE_FLOAT, 2, data_shape, data);
    cli_write_npy(i, CLG_DTYPE_INT64, 2, indices_shape, indices);
    cli_device_runtime(NULL, &rt);
    snprintf(line, sizeof line, "device: %s", rt.line);
    cli_expect_run(&r, 0, args);
    assert_true(cli_has_line(r.out, "output: FLOAT [3, 1, 2]"));
    /* the runtime beside the device: "NAME on PLATFORM DRIVER" */
    if (!cli_has_line(r.out, line)) {
        cli_result_dump(&r);
        fail_msg("expected on stdout: %s", line);
    }
    assert_true(cli_has_line_prefix(r.out, "time: "));
    assert_non_null(strstr(r.out, " ms (first call; program cache: "));
    assert_true(cli_has_line(r.out, "device == reference"));
    cli_result_free(&r);

    expect_file(o, clg_npy_read, &ev);
    free(d);
    free(i);
    free(o);
}

/* A whole file (malloc'd), its size in *size. */
static unsigned char *read_bytes(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    unsigned char *buf = malloc(1 << 16);
    assert_non_null(f);
    assert_non_null(buf);
    *size = fread(buf, 1, 1 << 16, f);
    assert_true(*size > 0 && *size < (1 << 16));
    fclose(f);
    return buf;
}

/* The time line says what the program cache did: a new folder misses
 * (compiles and stores), the next process is served from it, with the
 * same output; CLGATHER_CACHE=0 says off. clgather cache lists and
 * clears the folder. */
static void test_first_call_and_program_cache(void **state)
{
    static const float data[6] = {1.0f, 1.2f, 2.3f, 3.4f, 4.5f, 5.7f};
    static const int64_t data_shape[2] = {3, 2}, index_shape[1] = {2};
    static const int64_t indices[2] = {2, -3};
    char *d = cli_tmp("c_data.npy"), *i = cli_tmp("c_indices.npy");
    char *o1 = cli_tmp("c_out1.npy"), *o2 = cli_tmp("c_out2.npy");
    char *cache = cli_tmp("program-cache");
    char row[600];
    cli_runtime rt;
    const char *was = getenv("CLGATHER_CACHE_DIR");
    char *saved = was ? strdup(was) : NULL;
    const char *first[] = {"run", "gather",   "--data", d,   "--indices",
                           i,     "--output", o1,       NULL};
    const char *second[] = {"run", "gather",   "--data", d,   "--indices",
                            i,     "--output", o2,       NULL};
    cli_result r;
    (void)state;

    cli_write_npy(d, CLG_DTYPE_FLOAT, 2, data_shape, data);
    cli_write_npy(i, CLG_DTYPE_INT64, 1, index_shape, indices);
    assert_int_equal(setenv("CLGATHER_CACHE_DIR", cache, 1), 0);
    cli_expect_run(&r, 0, first);
    assert_non_null(strstr(r.out, " ms (first call; program cache: missed, "));
    cli_result_free(&r);
    cli_expect_run(&r, 0, second);
    assert_non_null(strstr(r.out, " ms (first call; program cache: served, "));
    cli_result_free(&r);
    assert_int_equal(cli_run_env(&r, "CLGATHER_CACHE", "0", second), 0);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, " ms (first call; program cache: off)\n"));
    cli_result_free(&r);
    if (saved)
        assert_int_equal(setenv("CLGATHER_CACHE_DIR", saved, 1), 0);
    else
        assert_int_equal(unsetenv("CLGATHER_CACHE_DIR"), 0);
    /* clgather cache lists the entry, then clears it. */
    const char *show[] = {"cache", "--dir", cache, NULL};
    const char *clear[] = {"cache", "--dir", cache, "--clear", NULL};
    cli_expect_run(&r, 0, show);
    assert_non_null(strstr(r.out, "entries: 1, "));
    assert_non_null(strstr(r.out, "-DCLG_INDEX_BYTES=8"));
    /* the entry's device with its runtime's version */
    cli_device_runtime(NULL, &rt);
    snprintf(row, sizeof row, "  %s, driver %s  ", rt.name, rt.driver);
    assert_non_null(strstr(r.out, row));
    cli_result_free(&r);
    cli_expect_run(&r, 0, clear);
    assert_non_null(strstr(r.out, "removed: 1 entry\nentries: 0, "));
    cli_result_free(&r);
    size_t n1 = 0, n2 = 0;
    unsigned char *b1 = read_bytes(o1, &n1), *b2 = read_bytes(o2, &n2);
    assert_int_equal(n1, n2);
    assert_memory_equal(b1, b2, n1);
    free(b1);
    free(b2);
    free(saved);
    free(d);
    free(i);
    free(o1);
    free(o2);
    free(cache);
}

/* Where the call ran: a tiny call on the calling thread under the host
 * parameter, on the device with host=0 (the test suite's setting), in
 * the text report and in --json; compare and onnx-test always launch. */
static void test_run_reports_its_path(void **state)
{
    static const float data[6] = {1, 2, 3, 4, 5, 6};
    static const int64_t data_shape[2] = {3, 2}, index_shape[1] = {2};
    static const int64_t indices[2] = {2, -3};
    char *d = cli_tmp("p_data.npy"), *i = cli_tmp("p_indices.npy");
    char *o = cli_tmp("p_out.npy");
    const char *run[] = {"run", "gather",   "--data", d,        "--indices",
                         i,     "--output", o,        "--json", NULL};
    const char *cmp[] = {"compare", "--data", d,   "--indices",
                         i,         "--json", NULL};
    cli_result r;
    (void)state;
    cli_write_npy(d, CLG_DTYPE_FLOAT, 2, data_shape, data);
    cli_write_npy(i, CLG_DTYPE_INT64, 1, index_shape, indices);
    assert_int_equal(cli_run_env(&r, "CLGATHER_PARAMS", "host=4096", run), 0);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "\"path\": \"host\""));
    cli_result_free(&r);
    run[8] = NULL; /* the text report */
    assert_int_equal(cli_run_env(&r, "CLGATHER_PARAMS", "host=4096", run), 0);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, " ms (first call, on the calling thread: "
                                  "at most the host parameter's bytes)"));
    cli_result_free(&r);
    run[8] = "--json";
    cli_expect_run(&r, 0, run);
    assert_non_null(strstr(r.out, "\"path\": \"device\""));
    cli_result_free(&r);
    /* compare launches whatever the parameter says: its device rows
     * (one per device it finds) build programs into an empty cache. */
    char *cache = cli_tmp("p-program-cache");
    const char *show[] = {"cache", "--dir", cache, NULL};
    char *saved = getenv("CLGATHER_CACHE_DIR")
                      ? strdup(getenv("CLGATHER_CACHE_DIR"))
                      : NULL;
    assert_int_equal(setenv("CLGATHER_CACHE_DIR", cache, 1), 0);
    assert_int_equal(cli_run_env(&r, "CLGATHER_PARAMS", "host=4096", cmp), 0);
    assert_int_equal(r.status, 0);
    cli_result_free(&r);
    cli_expect_run(&r, 0, show);
    const char *entries = strstr(r.out, "entries: ");
    assert_non_null(entries);
    assert_true(atoi(entries + strlen("entries: ")) >= 1);
    cli_result_free(&r);
    if (saved)
        assert_int_equal(setenv("CLGATHER_CACHE_DIR", saved, 1), 0);
    else
        assert_int_equal(unsetenv("CLGATHER_CACHE_DIR"), 0);
    free(saved);
    free(cache);
    free(d);
    free(i);
    free(o);
}

/* clgather cache and clgather run say why the program cache passes over a
 * folder or an entry; neither blocks on a FIFO at an entry's name (the
 * alarm fails the test instead); each entry of a folder not used says the
 * folder's reason, and --clear there removes nothing, exit status 3;
 * --clear removes the cache's entries and nothing else. */
static void test_program_cache_trust(void **state)
{
    static const float data[6] = {1.0f, 1.2f, 2.3f, 3.4f, 4.5f, 5.7f};
    static const int64_t data_shape[2] = {3, 2}, index_shape[1] = {2};
    static const int64_t indices[2] = {2, -3};
    char *d = cli_tmp("t_data.npy"), *i = cli_tmp("t_indices.npy");
    char *o = cli_tmp("t_out.npy"), *cache = cli_tmp("trust-cache");
    char *foreign = cli_path(cache, "0123456789abcdef.bin");
    char *log = cli_path(cache, ".tmp-build.log");
    char *fifo = cli_path(cache, "0123456789abcde0.bin");
    char line[1200], row[600];
    cli_runtime rt;
    const char *run[] = {"run", "gather",   "--data", d,   "--indices",
                         i,     "--output", o,        NULL};
    const char *show[] = {"cache", "--dir", cache, NULL};
    const char *clear[] = {"cache", "--dir", cache, "--clear", NULL};
    cli_result r;
    (void)state;

    cli_write_npy(d, CLG_DTYPE_FLOAT, 2, data_shape, data);
    cli_write_npy(i, CLG_DTYPE_INT64, 1, index_shape, indices);
    cli_device_runtime(NULL, &rt);
    snprintf(row, sizeof row, "  %s, driver %s  ", rt.name, rt.driver);
    assert_int_equal(cli_run_env(&r, "CLGATHER_CACHE_DIR", cache, run), 0);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "program cache: missed, 1 program compiled, "
                                  "0 loaded)\n"));
    cli_result_free(&r);
    assert_int_equal(cli_write_bytes(foreign, "not an entry\n", 13), 0);
    assert_int_equal(cli_write_bytes(log, "build log\n", 10), 0);
    assert_int_equal(mkfifo(fifo, 0600), 0);
    alarm(600);
    cli_expect_run(&r, 0, show);
    snprintf(line, sizeof line, "folder: %s\nentries: 3, ", cache);
    assert_non_null(strstr(r.out, line));
    assert_non_null(strstr(r.out, "  entry not used: not a regular file  "));
    assert_non_null(strstr(r.out, "  entry not used: not a clgather entry  "));
    assert_non_null(strstr(r.out, "-DCLG_INDEX_BYTES=8"));
    assert_non_null(strstr(r.out, row));
    cli_result_free(&r);
    /* A folder others may write: not used, and both commands say so; each
     * of its entries says the folder's reason, none its device. */
    assert_int_equal(chmod(cache, 0777), 0);
    cli_expect_run(&r, 0, show);
    snprintf(line, sizeof line,
             "folder: %s (not used: folder writable by group or others)\n"
             "entries: 3, ",
             cache);
    assert_non_null(strstr(r.out, line));
    const char *p = r.out;
    int marked = 0;
    while ((p = strstr(p, "  not used: folder writable by group or "
                          "others  ")) != NULL) {
        marked++;
        p++;
    }
    assert_int_equal(marked, 3);
    assert_null(strstr(r.out, row));
    assert_null(strstr(r.out, "entry not used"));
    cli_result_free(&r);
    /* --clear there removes nothing, and says why. */
    cli_expect_run(&r, 3, clear);
    assert_non_null(strstr(r.out, "removed: 0 entries\n"));
    snprintf(line, sizeof line,
             "clgather cache: INVALID_ARGUMENT: nothing removed from the "
             "cache folder %s, which the cache does not trust (not used: "
             "folder writable by group or others)\n",
             cache);
    assert_non_null(strstr(r.err, line));
    cli_result_free(&r);
    cli_expect_run(&r, 0, show);
    assert_non_null(strstr(r.out, "entries: 3, "));
    cli_result_free(&r);
    assert_int_equal(cli_run_env(&r, "CLGATHER_CACHE_DIR", cache, run), 0);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "program cache: missed, 1 program compiled, "
                                  "0 loaded; not used: folder writable by "
                                  "group or others)\n"));
    cli_result_free(&r);
    assert_int_equal(chmod(cache, 0700), 0);
    cli_expect_run(&r, 0, clear);
    assert_non_null(strstr(r.out, "removed: 1 entry\nentries: 2, "));
    cli_result_free(&r);
    alarm(0);
    assert_int_equal(cli_file_size(foreign), 13);
    assert_int_equal(cli_file_size(log), 10);
    cli_rmtree(cache);
    free(d);
    free(i);
    free(o);
    free(cache);
    free(foreign);
    free(log);
    free(fifo);
}

/* Root with another user's HOME (sudo -E, a service whose HOME is a
 * user's folder) neither reads nor writes that user's caches: clgather's
 * own (not created: a folder on its path is another user's), and the
 * OpenCL implementation's, which the library points at root's own before
 * the first OpenCL call (POCL's kernel cache holds the shared objects it
 * dlopen()s, Mesa's its compiled shaders). */
static void test_caches_under_another_users_home(void **state)
{
    static const float data[6] = {1.0f, 1.2f, 2.3f, 3.4f, 4.5f, 5.7f};
    static const int64_t data_shape[2] = {3, 2}, index_shape[1] = {2};
    static const int64_t indices[2] = {2, -3};
    char *d = cli_tmp("h_data.npy"), *i = cli_tmp("h_indices.npy");
    char *home = cli_tmp("other-home");
    char *dot = cli_path(home, ".cache");
    char *pocl = cli_path(dot, "pocl"),
         *mesa = cli_path(dot, "mesa_shader_cache");
    const char *run[] = {"run", "gather", "--data", d, "--indices", i, NULL};
    const char *const folders[] = {home, dot, pocl, mesa};
    cli_result r;
    (void)state;

    cli_write_npy(d, CLG_DTYPE_FLOAT, 2, data_shape, data);
    cli_write_npy(i, CLG_DTYPE_INT64, 1, index_shape, indices);
    for (size_t k = 0; k < 4; k++) {
        assert_int_equal(mkdir(folders[k], 0755), 0);
        assert_int_equal(chown(folders[k], 12345, 12345), 0);
    }
    unsetenv("XDG_CACHE_HOME");
    unsetenv("POCL_CACHE_DIR");
    unsetenv("MESA_SHADER_CACHE_DIR");
    unsetenv("CLGATHER_CACHE_DIR");
    assert_int_equal(cli_run_env(&r, "HOME", home, run), 0);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "output: FLOAT [2, 2]\n"));
    assert_non_null(strstr(r.out, "not used: a folder on its path is owned "
                                  "by another user or writable by others)\n"));
    cli_result_free(&r);
    assert_int_equal(cli_count_entries(home), 1);
    assert_int_equal(cli_count_entries(dot), 2); /* pocl, mesa_shader_cache */
    assert_int_equal(cli_count_entries(pocl), 0);
    assert_int_equal(cli_count_entries(mesa), 0);
    cli_rmtree(home);
    free(d);
    free(i);
    free(home);
    free(dot);
    free(pocl);
    free(mesa);
}

/* A HOME whose ~/.cache/clgather is a symbolic link to a folder another
 * user owns (as root with another user's HOME, or a link planted there):
 * clgather cache says the folder is not used and marks its entry so;
 * --clear removes nothing, says why and exits with status 3. */
static void test_cache_clear_refuses_another_users_folder(void **state)
{
    static const float data[6] = {1.0f, 1.2f, 2.3f, 3.4f, 4.5f, 5.7f};
    static const int64_t data_shape[2] = {3, 2}, index_shape[1] = {2};
    static const int64_t indices[2] = {2, -3};
    char *d = cli_tmp("l_data.npy"), *i = cli_tmp("l_indices.npy");
    char *theirs = cli_tmp("their-cache"), *home = cli_tmp("linked-home");
    char *dot = cli_path(home, ".cache");
    char *link = cli_path(dot, "clgather");
    char line[1200];
    const char *run[] = {"run", "gather", "--data", d, "--indices", i, NULL};
    const char *show[] = {"cache", NULL};
    const char *clear[] = {"cache", "--clear", NULL};
    const char *vars[] = {"CLGATHER_CACHE_DIR", "XDG_CACHE_HOME"};
    char *saved[2];
    cli_result r;
    (void)state;

    cli_write_npy(d, CLG_DTYPE_FLOAT, 2, data_shape, data);
    cli_write_npy(i, CLG_DTYPE_INT64, 1, index_shape, indices);
    assert_int_equal(cli_run_env(&r, "CLGATHER_CACHE_DIR", theirs, run), 0);
    assert_int_equal(r.status, 0);
    cli_result_free(&r);
    DIR *folder = opendir(theirs);
    assert_non_null(folder);
    int entries = 0;
    for (struct dirent *e; (e = readdir(folder)) != NULL;)
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
            assert_int_equal(fchownat(dirfd(folder), e->d_name, 12345, 12345,
                                      0),
                             0);
            entries++;
        }
    closedir(folder);
    assert_int_equal(entries, 1);
    assert_int_equal(chown(theirs, 12345, 12345), 0);
    assert_int_equal(mkdir(home, 0700), 0);
    assert_int_equal(mkdir(dot, 0700), 0);
    assert_int_equal(symlink(theirs, link), 0);
    for (int k = 0; k < 2; k++) {
        const char *was = getenv(vars[k]);
        saved[k] = was ? strdup(was) : NULL;
        assert_int_equal(unsetenv(vars[k]), 0);
    }
    assert_int_equal(cli_run_env(&r, "HOME", home, show), 0);
    assert_int_equal(r.status, 0);
    snprintf(line, sizeof line,
             "folder: %s (not used: folder owned by another user)\n"
             "entries: 1, ",
             link);
    assert_non_null(strstr(r.out, line));
    assert_non_null(strstr(r.out, "  not used: folder owned by another user  "
                                  "-cl-std="));
    cli_result_free(&r);
    assert_int_equal(cli_run_env(&r, "HOME", home, clear), 0);
    assert_int_equal(r.status, 3);
    assert_non_null(strstr(r.out, "removed: 0 entries\n"));
    snprintf(line, sizeof line,
             "clgather cache: INVALID_ARGUMENT: nothing removed from the "
             "cache folder %s, which the cache does not trust (not used: "
             "folder owned by another user)\n",
             link);
    assert_non_null(strstr(r.err, line));
    cli_result_free(&r);
    for (int k = 0; k < 2; k++) {
        if (saved[k])
            assert_int_equal(setenv(vars[k], saved[k], 1), 0);
        free(saved[k]);
    }
    assert_int_equal(cli_count_entries(theirs), 1);
    cli_rmtree(home);
    cli_rmtree(theirs);
    free(d);
    free(i);
    free(theirs);
    free(home);
    free(dot);
    free(link);
}

/* ONNX GatherElements, Example 2, as TensorProto files, int32 data and
 * indices, output as .pb. */
static void test_gather_elements_check_pb(void **state)
{
    static const int32_t data[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
    static const int64_t data_shape[2] = {3, 3};
    static const int32_t indices[6] = {1, 2, 0, 2, 0, 0};
    static const int64_t indices_shape[2] = {2, 3};
    static const int32_t expected[6] = {4, 8, 3, 7, 2, 3};
    char *d = cli_tmp("ge_data.pb"), *i = cli_tmp("ge_indices.pb");
    char *o = cli_tmp("ge_out.pb");
    const char *args[] = {"run",       "gather-elements",
                          "--data",    d,
                          "--indices", i,
                          "--output",  o,
                          "--check",   NULL};
    clg_tensor dt = cli_tensor(CLG_DTYPE_INT32, 2, data_shape, data);
    clg_tensor it = cli_tensor(CLG_DTYPE_INT32, 2, indices_shape, indices);
    clg_tensor ev = cli_tensor(CLG_DTYPE_INT32, 2, indices_shape, expected);
    cli_result r;
    (void)state;

    assert_int_equal(cli_write_tensor(d, &dt), 0);
    assert_int_equal(cli_write_tensor(i, &it), 0);
    cli_expect_run(&r, 0, args);
    assert_true(cli_has_line(r.out, "output: INT32 [2, 3]"));
    assert_true(cli_has_line(r.out, "device == reference"));
    cli_result_free(&r);

    expect_file(o, clg_onnx_read_tensor, &ev);
    free(d);
    free(i);
    free(o);
}

/* Byte strings through the device: descriptors gathered, bytes intact,
 * written back as |S. NaN payloads and -0.0 in float16 survive too. */
static void test_strings_and_float16(void **state)
{
    static const clg_string words[3] = {{"ab", 2}, {"", 0}, {"x\0z", 3}};
    static const int64_t shape3[1] = {3};
    static const int32_t indices[4] = {2, -3, 1, 2};
    static const int64_t shape4[1] = {4};
    static const uint16_t halves[3] = {0x7e01, 0x8000, 0x3c00};
    static const uint16_t half_expected[4] = {0x3c00, 0x7e01, 0x8000, 0x3c00};
    char *d = cli_tmp("s_data.pb"), *i = cli_tmp("s_indices.npy");
    char *o = cli_tmp("s_out.npy");
    char *hd = cli_tmp("h_data.npy"), *ho = cli_tmp("h_out.npy");
    const char *args[] = {"run", "gather",   "--data", d,         "--indices",
                          i,     "--output", o,        "--check", NULL};
    const char *hargs[] = {"run", "gather",   "--data", hd,        "--indices",
                           i,     "--output", ho,       "--check", NULL};
    clg_tensor dt = cli_tensor(CLG_DTYPE_STRING, 1, shape3, words);
    clg_io_tensor out;
    clg_io_error err;
    const clg_string *s;
    cli_result r;
    (void)state;

    assert_int_equal(cli_write_tensor(d, &dt), 0);
    cli_write_npy(i, CLG_DTYPE_INT32, 1, shape4, indices);
    cli_expect_run(&r, 0, args);
    assert_true(cli_has_line(r.out, "output: STRING [4]"));
    assert_true(cli_has_line(r.out, "device == reference"));
    cli_result_free(&r);
    clg_io_tensor_init(&out);
    if (clg_npy_read(o, &out, &err) != CLG_IO_OK)
        fail_msg("%s", err.message);
    assert_int_equal(out.dtype, CLG_DTYPE_STRING);
    assert_int_equal(out.count, 4);
    s = out.data;
    assert_int_equal(s[0].length, 3);
    assert_memory_equal(s[0].data, "x\0z", 3);
    assert_int_equal(s[1].length, 2);
    assert_memory_equal(s[1].data, "ab", 2);
    assert_int_equal(s[2].length, 0);
    assert_int_equal(s[3].length, 3);
    clg_io_tensor_free(&out);

    cli_write_npy(hd, CLG_DTYPE_FLOAT16, 1, shape3, halves);
    cli_expect_run(&r, 0, hargs);
    assert_true(cli_has_line(r.out, "output: FLOAT16 [4]"));
    cli_result_free(&r);
    if (clg_npy_read(ho, &out, &err) != CLG_IO_OK)
        fail_msg("%s", err.message);
    assert_int_equal(out.dtype, CLG_DTYPE_FLOAT16);
    assert_memory_equal(out.data, half_expected, sizeof half_expected);
    clg_io_tensor_free(&out);
    free(d);
    free(i);
    free(o);
    free(hd);
    free(ho);
}

static void test_run_exit_statuses(void **state)
{
    static const float data[4] = {1, 2, 3, 4};
    static const int64_t data_shape[2] = {2, 2};
    static const int64_t bad[1] = {2};
    static const int64_t shape1[1] = {1};
    char *d = cli_tmp("x_data.npy"), *i = cli_tmp("x_bad.npy");
    char *t = cli_tmp("x_truncated.npy"), *missing = cli_tmp("x_missing.npy");
    const char *oob[] = {"run", "gather", "--data", d, "--indices", i, NULL};
    const char *bad_axis[] = {"run", "gather", "--data", d,   "--indices",
                              i,     "--axis", "2",      NULL};
    const char *trunc[] = {"run", "gather", "--data", t, "--indices", i, NULL};
    const char *miss[] = {"run",       "gather", "--data", missing,
                          "--indices", i,        NULL};
    const char *no_op[] = {"run", "--data", d, "--indices", i, NULL};
    const char *bad_op[] = {"run",       "scatter", "--data", d,
                            "--indices", i,         NULL};
    const char *no_idx[] = {"run", "gather", "--data", d, NULL};
    const char *axis_text[] = {"run", "gather", "--data", d,   "--indices",
                               i,     "--axis", "one",    NULL};
    const char *const *usage[] = {no_op, bad_op, no_idx, axis_text};
    cli_result r;
    long size;
    (void)state;

    cli_write_npy(d, CLG_DTYPE_FLOAT, 2, data_shape, data);
    cli_write_npy(i, CLG_DTYPE_INT64, 1, shape1, bad);
    cli_write_npy(t, CLG_DTYPE_FLOAT, 2, data_shape, data);
    size = cli_file_size(t);
    assert_int_equal(cli_truncate(t, (size_t)size - 3), 0);

    cli_expect_run(&r, 2, oob);
    assert_non_null(strstr(r.err, "INDEX_OUT_OF_RANGE"));
    assert_string_equal(r.out, "");
    cli_result_free(&r);
    cli_expect_run(&r, 2, bad_axis);
    assert_non_null(strstr(r.err, "INVALID_AXIS"));
    cli_result_free(&r);
    cli_expect_run(&r, 3, trunc);
    assert_non_null(strstr(r.err, "x_truncated.npy: truncated"));
    cli_result_free(&r);
    cli_expect_run(&r, 3, miss);
    assert_non_null(strstr(r.err, "x_missing.npy: cannot open"));
    cli_result_free(&r);
    for (size_t k = 0; k < sizeof usage / sizeof usage[0]; k++) {
        cli_expect_run(&r, 3, usage[k]);
        cli_result_free(&r);
    }
    /* A malformed CLGATHER_PARAMS is an environment problem, as a bad
     * CLGATHER_DEVICE is: exit 3, the item named. */
    assert_int_equal(cli_run_env(&r, "CLGATHER_PARAMS", "norm=x", oob), 0);
    assert_int_equal(r.status, 3);
    assert_non_null(strstr(r.err, "CLGATHER_PARAMS=\"norm=x\""));
    assert_string_equal(r.out, "");
    cli_result_free(&r);
    free(d);
    free(i);
    free(t);
    free(missing);
}

/* A 76-byte .npy of dtype |S0 claiming 400000000 elements once made
 * `clgather run` allocate 6.4 GB before anything else; with 1 GiB of
 * address space it now fails on what the file is, not on memory, and
 * before any output line. */
static void test_zero_byte_strings_not_amplified(void **state)
{
    static const char header[] = "{'descr': '|S0', 'fortran_order': False, "
                                 "'shape': (400000000,), }\n";
    static const int64_t indices[1] = {0};
    static const int64_t shape1[1] = {1};
    unsigned char file[128];
    char *d = cli_tmp("s0_data.npy"), *i = cli_tmp("s0_indices.npy");
    char *want = malloc(strlen(d) + 200);
    const char *args[] = {"run", "gather", "--data", d, "--indices", i, NULL};
    cli_limits limits = {(uint64_t)1 << 30, 0};
    cli_result r;
    (void)state;

    assert_non_null(want);
    memcpy(file, "\x93NUMPY\x01\x00", 8);
    file[8] = (unsigned char)(sizeof header - 1);
    file[9] = 0;
    memcpy(file + 10, header, sizeof header - 1);
    assert_int_equal(cli_write_bytes(d, file, 10 + sizeof header - 1), 0);
    assert_int_equal(cli_file_size(d), 76);
    cli_write_npy(i, CLG_DTYPE_INT64, 1, shape1, indices);
    assert_int_equal(cli_run_limited(&r, args, &limits), 0);
    if (r.status != 3)
        cli_result_dump(&r);
    assert_int_equal(r.status, 3);
    sprintf(want,
            "clgather run: %s: dtype '|S0' has elements of zero bytes: only "
            "an empty array is read, not shape [400000000] (save empty byte "
            "strings as 'S1')",
            d);
    if (!cli_has_line(r.err, want))
        cli_result_dump(&r);
    assert_true(cli_has_line(r.err, want));
    assert_string_equal(r.out, "");
    cli_result_free(&r);
    free(want);
    free(d);
    free(i);
}

/* A Fortran-order .npy (NumPy's np.asfortranarray) is read in C order:
 * data [[1, 2, 3], [4, 5, 6]] stored 1 4 2 5 3 6, Gather axis 1 with
 * indices [2, 0] gives [[3, 1], [6, 4]], written in C order. */
static void test_fortran_order_input(void **state)
{
    static const char header[] = "{'descr': '<f4', 'fortran_order': True, "
                                 "'shape': (2, 3), }";
    static const float stored[6] = {1, 4, 2, 5, 3, 6};
    static const int64_t idx[2] = {2, 0};
    static const int64_t idx_shape[1] = {2};
    static const float expected[4] = {3, 1, 6, 4};
    static const int64_t out_shape[2] = {2, 2};
    char *d = cli_tmp("f_data.npy"), *i = cli_tmp("f_indices.npy");
    char *o = cli_tmp("f_out.npy");
    const char *args[] = {"run",       "gather", "--data",  d,
                          "--indices", i,        "--axis",  "1",
                          "--output",  o,        "--check", NULL};
    unsigned char file[128 + sizeof stored];
    clg_tensor ev = cli_tensor(CLG_DTYPE_FLOAT, 2, out_shape, expected);
    size_t hlen = sizeof header - 1;
    cli_result r;
    (void)state;

    memcpy(file, "\x93NUMPY\x01\x00", 8);
    file[8] = (unsigned char)hlen;
    file[9] = 0;
    memcpy(file + 10, header, hlen);
    memcpy(file + 10 + hlen, stored, sizeof stored);
    assert_int_equal(cli_write_bytes(d, file, 10 + hlen + sizeof stored), 0);
    cli_write_npy(i, CLG_DTYPE_INT64, 1, idx_shape, idx);
    cli_expect_run(&r, 0, args);
    assert_true(cli_has_line(r.out, "output: FLOAT [2, 2]"));
    assert_true(cli_has_line(r.out, "device == reference"));
    cli_result_free(&r);
    expect_file(o, clg_npy_read, &ev);
    free(d);
    free(i);
    free(o);
}

/* An .npz (np.savez's zip of .npy files) is refused, exit status 3, with
 * what it is and how to extract an array; it once read as a malformed
 * ONNX TensorProto. */
static void test_npz_input_refused(void **state)
{
    static const int64_t idx[1] = {0};
    static const int64_t idx_shape[1] = {1};
    char *z = cli_tmp("z_data.npz"), *i = cli_tmp("z_indices.npy");
    const char *args[] = {"run", "gather", "--data", z, "--indices", i, NULL};
    char line[2048];
    cli_result r;
    (void)state;

    cli_write_npy(i, CLG_DTYPE_INT64, 1, idx_shape, idx);
    assert_int_equal(cli_write_bytes(z, npz_data_i4_2x3,
                                     sizeof npz_data_i4_2x3 - 1),
                     0);
    cli_expect_run(&r, 3, args);
    snprintf(line, sizeof line,
             "clgather run: %s: an .npz archive (a zip of .npy files, one "
             "per array; the first is 'data'), not a NumPy file of one "
             "array: extract one, e.g. 'unzip -p %s data.npy > data.npy', "
             "or in Python np.save('data.npy', np.load('%s')['data'])",
             z, z, z);
    if (!cli_has_line(r.err, line)) {
        cli_result_dump(&r);
        fail_msg("expected on stderr: %s", line);
    }
    assert_string_equal(r.out, "");
    cli_result_free(&r);
    free(z);
    free(i);
}

static void test_devices(void **state)
{
    const char *args[] = {"devices", NULL};
    cli_result r;
    (void)state;
    cli_expect_run(&r, 0, args);
    /* the first device line: "P:D  TYPE name", and one marked default */
    assert_true(cli_has_line_prefix(r.out, "0:0  "));
    assert_non_null(strstr(r.out, "  (default)\n"));
    assert_non_null(strstr(r.out, "     version: "));
    assert_non_null(strstr(r.out, "     global memory: "));
    assert_non_null(strstr(r.out, "max allocation: "));
    cli_result_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gather_check_npy),
        cmocka_unit_test(test_first_call_and_program_cache),
        cmocka_unit_test(test_run_reports_its_path),
        cmocka_unit_test(test_program_cache_trust),
        cmocka_unit_test(test_caches_under_another_users_home),
        cmocka_unit_test(test_cache_clear_refuses_another_users_folder),
        cmocka_unit_test(test_gather_elements_check_pb),
        cmocka_unit_test(test_strings_and_float16),
        cmocka_unit_test(test_run_exit_statuses),
        cmocka_unit_test(test_zero_byte_strings_not_amplified),
        cmocka_unit_test(test_fortran_order_input),
        cmocka_unit_test(test_npz_input_refused),
        cmocka_unit_test(test_devices),
    };
    return CLI_RUN_TESTS("clgather-run", tests);
}
