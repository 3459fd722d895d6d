/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The tool's output files are never half-written: `clgather run --output`
 * and `clgather bench --json` write a temporary file beside the target and
 * rename it over the target, so a failing write (a full disk, simulated
 * with RLIMIT_FSIZE: writes past it fail with EFBIG, deterministically and
 * without root) leaves an existing file byte for byte as it was and no
 * temporary file behind; and a path that cannot be written is refused
 * before any computing, with exit status 3 and nothing on stdout.
 *
 * The runs gather an empty output (data [3, 0]), which builds no kernel,
 * so that nothing but the output file is written under the limit.
 */
#include <dirent.h>
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

#include "cli_harness.h"
#include "io_tensor.h"
#include "npy.h"

static char *in_dir(const char *dir, const char *name)
{
    char *p = cli_path(dir, name);
    assert_non_null(p);
    return p;
}

/* The names in dir, sorted, joined by spaces ("a.npy b.npy"). */
static void list_dir(const char *dir, char *out, size_t cap)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    char *names[32];
    size_t n = 0, at = 0;
    assert_non_null(d);
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        assert_true(n < 32);
        names[n] = strdup(e->d_name);
        assert_non_null(names[n]);
        n++;
    }
    closedir(d);
    for (size_t i = 1; i < n; i++)
        for (size_t j = i; j > 0 && strcmp(names[j - 1], names[j]) > 0; j--) {
            char *t = names[j];
            names[j] = names[j - 1];
            names[j - 1] = t;
        }
    out[0] = '\0';
    for (size_t i = 0; i < n; i++) {
        at += (size_t)snprintf(out + at, cap - at, "%s%s", i ? " " : "",
                               names[i]);
        free(names[i]);
    }
}

/* dir/data.npy: FLOAT [3, 0]; dir/indices.npy: INT64 [2] = {0, 2}. The
 * Gather output is FLOAT [2, 0]: a 128-byte .npy, a short .pb. */
static void write_inputs(const char *dir, char **data, char **indices)
{
    static const int64_t data_shape[2] = {3, 0};
    static const int64_t idx[2] = {0, 2};
    static const int64_t idx_shape[1] = {2};
    *data = in_dir(dir, "data.npy");
    *indices = in_dir(dir, "indices.npy");
    cli_write_npy(*data, CLG_DTYPE_FLOAT, 2, data_shape, NULL);
    cli_write_npy(*indices, CLG_DTYPE_INT64, 1, idx_shape, idx);
}

static void expect_file(const char *path, const void *bytes, size_t size)
{
    size_t got_size = 0;
    unsigned char *got = cli_read_bytes(path, &got_size);
    if (got_size != size)
        fail_msg("%s: %zu bytes, expected %zu", path, got_size, size);
    assert_memory_equal(got, bytes, size);
    free(got);
}

/* What must be untouched after a refused run: `path` holding `bytes`. */
typedef struct kept {
    const char *path;
    const void *bytes;
    size_t size;
} kept;

/* `run gather --data D --indices I --output out` under limits; exit 3,
 * stderr holding `line`, `keep` (if any) intact, stdout empty. */
static void expect_refused(const char *dir, const char *out,
                           const cli_limits *limits, const char *line,
                           const kept *keep)
{
    char *d = NULL, *i = NULL;
    const char *args[] = {"run", "gather",   "--data", NULL, "--indices",
                          NULL,  "--output", out,      NULL};
    cli_result r;

    write_inputs(dir, &d, &i);
    args[3] = d;
    args[5] = i;
    assert_int_equal(cli_run_limited(&r, args, limits), 0);
    if (r.status != 3 || !cli_has_line(r.err, line) || r.out[0] != '\0') {
        cli_result_dump(&r);
        fprintf(stderr, "expected on stderr: %s\n", line);
    }
    assert_int_equal(r.status, 3);
    assert_true(cli_has_line(r.err, line));
    if (keep != NULL)
        expect_file(keep->path, keep->bytes, keep->size);
    assert_string_equal(r.out, "");
    cli_result_free(&r);
    free(d);
    free(i);
}

static char *message(const char *fmt, const char *a, const char *b)
{
    size_t len = strlen(fmt) + strlen(a) + (b ? strlen(b) : 0) + 1;
    char *s = malloc(len);
    assert_non_null(s);
    snprintf(s, len, fmt, a, b ? b : "");
    return s;
}

/* ---------------------------------------------------------------- disk */

/* A full disk while writing over an existing .npy: the file keeps its
 * bytes (it was once left truncated, which NumPy cannot load), and no
 * temporary file is left. */
static void test_full_disk_keeps_npy(void **state)
{
    static const unsigned char keep[] = "existing contents, 37 bytes long.\n";
    char *dir = cli_subdir("full_npy");
    char *out = in_dir(dir, "keep.npy");
    char *line = message("clgather run: %s: write error: File too large", out,
                         NULL);
    cli_limits limits = {0, 64};
    kept k = {out, keep, sizeof keep};
    char names[512];
    (void)state;

    assert_int_equal(cli_write_bytes(out, keep, sizeof keep), 0);
    expect_refused(dir, out, &limits, line, &k);
    list_dir(dir, names, sizeof names);
    assert_string_equal(names, "data.npy indices.npy keep.npy");
    free(line);
    free(out);
    free(dir);
}

/* The same for a .pb output (once left as 0 bytes). */
static void test_full_disk_keeps_pb(void **state)
{
    static const unsigned char keep[] = "an older TensorProto";
    char *dir = cli_subdir("full_pb");
    char *out = in_dir(dir, "keep.pb");
    char *line = message("clgather run: %s: write error: File too large", out,
                         NULL);
    cli_limits limits = {0, 8};
    kept k = {out, keep, sizeof keep};
    char names[512];
    (void)state;

    assert_int_equal(cli_write_bytes(out, keep, sizeof keep), 0);
    expect_refused(dir, out, &limits, line, &k);
    list_dir(dir, names, sizeof names);
    assert_string_equal(names, "data.npy indices.npy keep.pb");
    free(line);
    free(out);
    free(dir);
}

/* A new output that cannot be written completely does not appear. */
static void test_full_disk_leaves_no_file(void **state)
{
    char *dir = cli_subdir("full_new");
    char *out = in_dir(dir, "new.npy");
    char *line = message("clgather run: %s: write error: File too large", out,
                         NULL);
    cli_limits limits = {0, 64};
    char names[512];
    (void)state;

    expect_refused(dir, out, &limits, line, NULL);
    list_dir(dir, names, sizeof names);
    assert_string_equal(names, "data.npy indices.npy");
    free(line);
    free(out);
    free(dir);
}

/* A successful run replaces the file whole, keeps its permission bits
 * and leaves nothing else. */
static void test_output_replaced_whole(void **state)
{
    static const unsigned char keep[] = "old";
    char *dir = cli_subdir("replace");
    char *out = in_dir(dir, "keep.npy");
    char *d = NULL, *i = NULL;
    const char *args[] = {"run", "gather",   "--data", NULL, "--indices",
                          NULL,  "--output", out,      NULL};
    cli_limits none = {0, 0};
    unsigned char *bytes;
    size_t size = 0;
    clg_io_tensor t;
    clg_io_error err;
    struct stat sb;
    char names[512];
    cli_result r;
    (void)state;

    assert_int_equal(cli_write_bytes(out, keep, sizeof keep), 0);
    assert_int_equal(chmod(out, 0640), 0);
    write_inputs(dir, &d, &i);
    args[3] = d;
    args[5] = i;
    assert_int_equal(cli_run_limited(&r, args, &none), 0);
    if (r.status != 0)
        cli_result_dump(&r);
    assert_int_equal(r.status, 0);
    assert_true(cli_has_line(r.out, "output: FLOAT [2, 0]"));
    cli_result_free(&r);
    bytes = cli_read_bytes(out, &size);
    assert_int_equal(size, 128);
    clg_io_tensor_init(&t);
    if (clg_npy_decode(bytes, size, out, &t, &err) != CLG_IO_OK)
        fail_msg("%s", err.message);
    assert_int_equal(t.dtype, CLG_DTYPE_FLOAT);
    assert_int_equal(t.rank, 2);
    assert_int_equal(t.shape[0], 2);
    assert_int_equal(t.shape[1], 0);
    clg_io_tensor_free(&t);
    free(bytes);
    assert_int_equal(stat(out, &sb), 0);
    assert_int_equal(sb.st_mode & 07777, 0640);
    list_dir(dir, names, sizeof names);
    assert_string_equal(names, "data.npy indices.npy keep.npy");
    free(d);
    free(i);
    free(out);
    free(dir);
}

/* An output path that is a symbolic link: the file it names is replaced
 * and the link stays (a rename over the path would replace the link). */
static void test_symlink_target_replaced(void **state)
{
    char *dir = cli_subdir("link");
    char *real = cli_subdir("link/real");
    char *file = in_dir(real, "t.npy");
    char *link = in_dir(dir, "link.npy");
    char *d = NULL, *i = NULL;
    const char *args[] = {"run", "gather",   "--data", NULL, "--indices",
                          NULL,  "--output", link,     NULL};
    cli_limits none = {0, 0};
    struct stat sb;
    char names[512];
    cli_result r;
    (void)state;

    assert_int_equal(cli_write_bytes(file, "old", 3), 0);
    assert_int_equal(symlink("real/t.npy", link), 0);
    write_inputs(dir, &d, &i);
    args[3] = d;
    args[5] = i;
    assert_int_equal(cli_run_limited(&r, args, &none), 0);
    if (r.status != 0)
        cli_result_dump(&r);
    assert_int_equal(r.status, 0);
    cli_result_free(&r);
    assert_int_equal(lstat(link, &sb), 0);
    assert_true(S_ISLNK(sb.st_mode));
    assert_int_equal(cli_file_size(file), 128);
    list_dir(real, names, sizeof names);
    assert_string_equal(names, "t.npy");
    free(d);
    free(i);
    free(link);
    free(file);
    free(real);
    free(dir);
}

/* ---------------------------------------------------------------- paths */

/* A missing directory is found before anything is computed or printed
 * (it once printed "output:" and "time:" first). */
static void test_missing_directory_checked_first(void **state)
{
    char *dir = cli_subdir("missing");
    char *absent = in_dir(dir, "absent");
    char *out = in_dir(absent, "out.npy");
    char *line = message("clgather run: %s: cannot write: directory '%s' "
                         "does not exist",
                         out, absent);
    cli_limits none = {0, 0};
    (void)state;

    expect_refused(dir, out, &none, line, NULL);
    free(line);
    free(out);
    free(absent);
    free(dir);
}

/* A directory on the way that is a file. */
static void test_directory_is_a_file(void **state)
{
    char *dir = cli_subdir("not_dir");
    char *plain = in_dir(dir, "plain");
    char *out = in_dir(plain, "out.npy");
    char *line = message("clgather run: %s: cannot write: '%s' is not a "
                         "directory",
                         out, plain);
    cli_limits none = {0, 0};
    kept k = {plain, "x", 1};
    (void)state;

    assert_int_equal(cli_write_bytes(plain, "x", 1), 0);
    expect_refused(dir, out, &none, line, &k);
    free(line);
    free(out);
    free(plain);
    free(dir);
}

/* The output path names a directory. */
static void test_output_is_a_directory(void **state)
{
    char *dir = cli_subdir("is_dir");
    char *out = cli_subdir("is_dir/out.npy");
    char *line = message("clgather run: %s: cannot write: it is a "
                         "directory",
                         out, NULL);
    cli_limits none = {0, 0};
    (void)state;

    expect_refused(dir, out, &none, line, NULL);
    free(line);
    free(out);
    free(dir);
}

/* ---------------------------------------------------------------- bench */

/* `bench --json` checked the path by truncating the file: a run that
 * then failed (here: no such device) left an existing report empty. */
static void test_bench_json_kept(void **state)
{
    static const char keep[] = "{\"an\": \"older report\"}\n";
    char *dir = cli_subdir("bench");
    char *json = in_dir(dir, "keep.json");
    char *absent = in_dir(dir, "absent");
    char *bad = in_dir(absent, "r.json");
    char *line = message("clgather bench: %s: cannot write: directory '%s' "
                         "does not exist",
                         bad, absent);
    const char *args[] = {
        "bench", "--json", json, "--device", "no-such-device-anywhere", NULL};
    cli_limits none = {0, 0};
    char names[512];
    cli_result r;
    (void)state;

    assert_int_equal(cli_write_bytes(json, keep, sizeof keep - 1), 0);
    assert_int_equal(cli_run_limited(&r, args, &none), 0);
    assert_int_equal(r.status, 4); /* no such device: the runtime's answer */
    assert_non_null(strstr(r.err, "DEVICE_NOT_FOUND"));
    cli_result_free(&r);
    expect_file(json, keep, sizeof keep - 1);
    list_dir(dir, names, sizeof names);
    assert_string_equal(names, "keep.json");

    args[2] = bad;
    assert_int_equal(cli_run_limited(&r, args, &none), 0);
    if (r.status != 3 || !cli_has_line(r.err, line))
        cli_result_dump(&r);
    assert_int_equal(r.status, 3);
    assert_true(cli_has_line(r.err, line));
    cli_result_free(&r);
    free(line);
    free(bad);
    free(absent);
    free(json);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_full_disk_keeps_npy),
        cmocka_unit_test(test_full_disk_keeps_pb),
        cmocka_unit_test(test_full_disk_leaves_no_file),
        cmocka_unit_test(test_output_replaced_whole),
        cmocka_unit_test(test_symlink_target_replaced),
        cmocka_unit_test(test_missing_directory_checked_first),
        cmocka_unit_test(test_directory_is_a_file),
        cmocka_unit_test(test_output_is_a_directory),
        cmocka_unit_test(test_bench_json_kept),
    };
    return CLI_RUN_TESTS("clgather-output", tests);
}
