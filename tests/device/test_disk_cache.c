/* SPDX-License-Identifier: Apache-2.0 */
/* The persistent program cache (docs/design.md, "Program cache"): hits and
 * misses through the counts; every corruption of an entry is a miss that
 * rebuilds and rewrites it; a folder that cannot be created, a read-only
 * folder and a full disk leave calls working and uncached; two processes
 * of 8 threads fill one folder with no torn entry; another driver version
 * misses; the cap evicts the least recently used entries; the switches;
 * warm-up builds every kernel its call uses. The trust model: a folder or
 * entry that another user owns or may write, a folder below one, a link,
 * a FIFO, a 1 GiB file at an entry's name and an entry built for another
 * driver are misses with their reasons, and read no further; foreign files
 * survive eviction and clear; another user loads a shipped read-only
 * folder. Every call's output is compared with the CPU reference bit for
 * bit. Each test uses a folder of its own under $TMPDIR (else /tmp),
 * removed at its end. The trust tests plant other users' files with chown
 * to uids that name no one, and run a second process as one of them: they
 * need root (CAP_CHOWN, CAP_SETUID), as CI runs them.
 *
 * Run as `test_disk_cache --fill DIR`, the binary is the second process of
 * the concurrent fill; as `--as-user DIR HOME HITS REASON`, another user
 * loading a shipped folder. */
#define _GNU_SOURCE
#include "clg_test.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <grp.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "context.h"

extern char **environ;

/* The entry format (host/cache.c): a 32-byte header, the record (a line
 * naming the entry points that passed their self-test, then the key), the
 * payload. */
#define HEADER_BYTES 32
#define VARIANTS 4

/* ------------------------------------------------------------ folders */

static void make_dir(char *path, size_t cap)
{
    const char *base = getenv("TMPDIR");
    snprintf(path, cap, "%s/clg-cache-test-XXXXXX",
             base && *base ? base : "/tmp");
    assert_non_null(mkdtemp(path));
}

/* Removes the folder and everything in it (one level). */
static void remove_dir(const char *path)
{
    DIR *d = opendir(path);
    struct dirent *e;
    chmod(path, 0700);
    if (d) {
        while ((e = readdir(d)) != NULL)
            if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
                unlinkat(dirfd(d), e->d_name, 0);
        closedir(d);
    }
    assert_int_equal(rmdir(path), 0);
}

/* Number of files in the folder whose name starts with `prefix`. */
static size_t count_files(const char *path, const char *prefix)
{
    DIR *d = opendir(path);
    struct dirent *e;
    size_t n = 0;
    if (!d)
        return 0;
    while ((e = readdir(d)) != NULL)
        n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..") &&
             !strncmp(e->d_name, prefix, strlen(prefix));
    closedir(d);
    return n;
}

/* The entries of a folder (at most 64). */
static size_t list(const char *dir, clg_cache_entry *entries)
{
    size_t count = 0;
    CLG_ASSERT_OK(NULL, clg_cache_list(dir, entries, 64, &count));
    assert_true(count <= 64);
    return count;
}

static int listed(const clg_cache_entry *e, size_t n, const char *file)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(e[i].file, file))
            return 1;
    return 0;
}

/* ------------------------------------------------------------ calls */

/* Variant v: Gather or GatherElements of data [4, 8], axis 0, with a
 * data width (1 or 8 bytes: other units) and an index type (INT64, INT32)
 * that make each variant its own program. */
static const clg_dtype variant_dtype[VARIANTS] = {CLG_DTYPE_UINT8,
                                                  CLG_DTYPE_DOUBLE,
                                                  CLG_DTYPE_UINT8,
                                                  CLG_DTYPE_DOUBLE};
static const clg_dtype variant_index[VARIANTS] = {CLG_DTYPE_INT64,
                                                  CLG_DTYPE_INT64,
                                                  CLG_DTYPE_INT32,
                                                  CLG_DTYPE_INT32};

/* Runs variant v of `op` on ctx and compares it with the reference;
 * returns 0 when the call succeeded with the reference's bytes. */
static int run_variant(clg_context *ctx, clg_op op, int v)
{
    static const int64_t dshape[2] = {4, 8}, gshape[1] = {3};
    static const int64_t eshape[2] = {3, 8};
    int64_t idx[24];
    int32_t idx32[24];
    unsigned char data[4 * 8 * 8], out[3 * 8 * 8], ref[3 * 8 * 8];
    int64_t oshape[2] = {3, 8};
    for (size_t k = 0; k < sizeof data; k++)
        data[k] = (unsigned char)(k * 37 + 11);
    for (int k = 0; k < 24; k++)
        idx32[k] = (int32_t)(idx[k] = (k * 5) % 4 - (k % 3 == 0 ? 4 : 0));
    void *ip = variant_index[v] == CLG_DTYPE_INT64 ? (void *)idx : idx32;
    clg_tensor d = {variant_dtype[v], 2, dshape, data};
    clg_tensor i = op == CLG_OP_GATHER
                       ? (clg_tensor){variant_index[v], 1, gshape, ip}
                       : (clg_tensor){variant_index[v], 2, eshape, ip};
    clg_tensor o = {variant_dtype[v], 2, oshape, out}; /* both: [3, 8] */
    clg_tensor r = o;
    r.data = ref;
    memset(out, 0xA5, sizeof out);
    if (clg_test_call(op, ctx, 0, &d, &i, 0, &o) != CLG_STATUS_OK ||
        clg_test_call(op, NULL, 1, &d, &i, 0, &r) != CLG_STATUS_OK)
        return 1;
    return memcmp(out, ref, 3 * 8 * clg_dtype_size(variant_dtype[v])) != 0;
}

/* A new context using folder `dir` (NULL: the environment's). */
static clg_context *context_on(const char *dir)
{
    clg_context *ctx = NULL;
    CLG_ASSERT_OK(NULL, clg_context_create(&ctx, NULL));
    if (dir)
        CLG_ASSERT_OK(ctx, clg_context_set_cache_dir(ctx, dir));
    return ctx;
}

/* Runs variant v of Gather in a new context on `dir`; its counts. */
static clg_cache_info run_new(const char *dir, int v)
{
    clg_cache_info info;
    clg_context *ctx = context_on(dir);
    clg_test_set_case("variant %d in a new context on %s", v, dir);
    assert_int_equal(run_variant(ctx, CLG_OP_GATHER, v), 0);
    CLG_ASSERT_OK(ctx, clg_context_cache_info(ctx, &info));
    clg_context_destroy(ctx);
    return info;
}

/* run_new, and what clg_context_cache_refusal said after the call into
 * why (cap bytes). */
static clg_cache_info run_why(const char *dir, int v, char *why, size_t cap)
{
    clg_cache_info info;
    clg_context *ctx = context_on(dir);
    clg_test_set_case("variant %d in a new context on %s", v, dir);
    assert_int_equal(run_variant(ctx, CLG_OP_GATHER, v), 0);
    CLG_ASSERT_OK(ctx, clg_context_cache_info(ctx, &info));
    snprintf(why, cap, "%s", clg_context_cache_refusal(ctx));
    clg_context_destroy(ctx);
    return info;
}

static void assert_counts(const clg_cache_info *info, uint64_t hits,
                          uint64_t misses, uint64_t stores)
{
    assert_int_equal(info->hits, hits);
    assert_int_equal(info->misses, misses);
    assert_int_equal(info->stores, stores);
}

/* ------------------------------------------------------------ tests */

static void test_miss_then_hit(void **state)
{
    (void)state;
    char dir[512];
    clg_cache_entry e[64];
    make_dir(dir, sizeof dir);
    clg_cache_info first = run_new(dir, 0);
    assert_int_equal(first.enabled, 1);
    assert_string_equal(first.directory, dir);
    assert_int_equal(first.max_bytes, UINT64_C(512) << 20);
    uint64_t n = first.misses;
    assert_true(n >= 1);
    assert_counts(&first, 0, n, n);
    assert_int_equal(list(dir, e), n);
    clg_context *ctx = context_on(dir);
    for (size_t k = 0; k < n; k++) {
        assert_int_equal(e[k].whole, 1);
        assert_string_equal(e[k].device, clg_context_device_name(ctx));
        CLG_ASSERT_CONTAINS(e[k].options, "-DCLG_");
        assert_true(e[k].bytes > HEADER_BYTES);
        assert_true(e[k].last_use >= (int64_t)time(NULL) - 600);
    }
    clg_context_destroy(ctx);
    char why[256];
    clg_cache_info second = run_why(dir, 0, why, sizeof why);
    assert_counts(&second, n, 0, 0);
    assert_int_equal(second.rejected, 0);
    assert_string_equal(why, "");
    remove_dir(dir);
}

/* The ways an entry goes bad. */
typedef enum corruption {
    TRUNCATED,
    ZERO_LENGTH,
    FOREIGN_KEY,
    FLIPPED_PAYLOAD,
    REJECTED_BINARY,
    CORRUPTIONS
} corruption;

static const char *const corruption_names[CORRUPTIONS] = {
    "truncated", "zero-length", "another key", "a flipped payload byte",
    "a binary the runtime rejects"};

/* What clg_context_cache_refusal says of each. */
static const char *const corruption_reasons[CORRUPTIONS] = {
    "entry not used: truncated or damaged",
    "entry not used: not a clgather entry",
    "entry not used: another program's entry",
    "entry not used: its checksum does not match",
    "entry not used: the runtime refused its binary"};

/* A whole entry (right header, length and checksum) whose payload is not
 * a binary: the runtime must refuse it. */
static size_t garbage_payload(unsigned char *buf, size_t size)
{
    uint32_t key_len;
    uint64_t len = 4096, sum;
    static unsigned char junk[4096];
    memcpy(&key_len, buf + 12, 4);
    assert_true(HEADER_BYTES + key_len + len <= size);
    for (size_t k = 0; k < sizeof junk; k++)
        junk[k] = (unsigned char)(k * 131 + 7);
    sum = XXH3_64bits(junk, sizeof junk);
    memcpy(buf + 16, &len, 8);
    memcpy(buf + 24, &sum, 8);
    memcpy(buf + HEADER_BYTES + key_len, junk, sizeof junk);
    return HEADER_BYTES + key_len + sizeof junk;
}

static void corrupt(const char *path, corruption how)
{
    size_t size;
    unsigned char *buf = clg_test_read_file(path, &size);
    uint32_t key_len;
    memcpy(&key_len, buf + 12, 4);
    switch (how) {
    case TRUNCATED:
        size /= 2;
        break;
    case ZERO_LENGTH:
        size = 0;
        break;
    case FOREIGN_KEY: /* same length and file, another options line */
        assert_int_equal(buf[HEADER_BYTES + key_len - 1], '\n');
        buf[HEADER_BYTES + key_len - 1] ^= 0x01;
        break;
    case FLIPPED_PAYLOAD:
        buf[HEADER_BYTES + key_len + (size - HEADER_BYTES - key_len) / 2] ^=
            0x40;
        break;
    default:
        size = garbage_payload(buf, size);
        break;
    }
    clg_test_write_file(path, buf, size);
    free(buf);
}

/* 1 when the default device's runtime aborts the process on bytes that
 * are not its binary: Mesa's Rusticl 22.3 does (tests/rusticl/junk_binary.c
 * reproduces it without clgather, and ci/rusticl.sh fails once it no longer
 * does, so that this exclusion goes with the fault). Only this test's
 * deliberately forged entry can reach it: the library hands a runtime only
 * binaries built on that platform, device and driver. */
static int runtime_aborts_on_junk(void)
{
    clg_context *ctx = context_on(NULL);
    int rusticl = !strcmp(clg_context_platform_name(ctx), "rusticl");
    clg_context_destroy(ctx);
    return rusticl;
}

static void test_every_corruption_is_a_miss(void **state)
{
    (void)state;
    clg_cache_entry e[64];
    char dir[512], path[1024];
    for (int how = 0; how < CORRUPTIONS; how++) {
        if (how == REJECTED_BINARY && runtime_aborts_on_junk()) {
            print_message("%s: not tried: this runtime aborts on it "
                          "(tests/rusticl/junk_binary.c)\n",
                          corruption_names[how]);
            continue;
        }
        make_dir(dir, sizeof dir);
        clg_cache_info filled = run_new(dir, 1);
        uint64_t n = filled.misses;
        size_t count = list(dir, e);
        assert_int_equal(count, n);
        for (size_t k = 0; k < count; k++) {
            snprintf(path, sizeof path, "%.500s/%.31s", dir, e[k].file);
            corrupt(path, (corruption)how);
        }
        print_message("%s: miss, rebuilt, rewritten\n", corruption_names[how]);
        char why[256];
        clg_cache_info bad = run_why(dir, 1, why, sizeof why);
        assert_counts(&bad, 0, n, n);
        assert_string_equal(why, corruption_reasons[how]);
        assert_int_equal(bad.rejected, how == REJECTED_BINARY ? n : 0);
        clg_cache_info again = run_new(dir, 1);
        assert_counts(&again, n, 0, 0);
        remove_dir(dir);
    }
}

static void test_other_driver_version_misses(void **state)
{
    (void)state;
    char dir[512];
    clg_cache_entry e[64];
    make_dir(dir, sizeof dir);
    uint64_t n = run_new(dir, 2).misses;
    assert_int_equal(setenv("CLGATHER_TEST_DRIVER_VERSION", "test driver 99",
                            1),
                     0);
    clg_cache_info other = run_new(dir, 2);
    assert_int_equal(unsetenv("CLGATHER_TEST_DRIVER_VERSION"), 0);
    assert_counts(&other, 0, n, n);
    size_t count = list(dir, e), hooked = 0;
    assert_int_equal(count, 2 * n);
    for (size_t k = 0; k < count; k++)
        hooked += !strcmp(e[k].driver, "test driver 99");
    assert_int_equal(hooked, n);
    clg_cache_info back = run_new(dir, 2);
    assert_counts(&back, n, 0, 0);
    remove_dir(dir);
}

/* A CPU device's binary holds native code for the host's instruction set:
 * under another one (the test hook stands for a CPU with other extensions,
 * or for Valgrind, which hides some) every program misses and adds its own
 * entries, and the real one hits again after. A GPU's key does not name
 * the host's CPU: the hook changes nothing there. */
static void test_other_host_isa_misses(void **state)
{
    (void)state;
    char dir[512];
    clg_cache_entry e[64];
    make_dir(dir, sizeof dir);
    clg_context *ctx = context_on(dir);
    int cpu = clg_context_device_type(ctx) == CLG_DEVICE_TYPE_CPU;
    clg_context_destroy(ctx);
    uint64_t n = run_new(dir, 3).misses;
    assert_true(n > 0);
    assert_int_equal(setenv("CLGATHER_TEST_HOST_ISA",
                            "x86 0 0 0 0 0 0 0 0 0:3", 1),
                     0);
    clg_cache_info other = run_new(dir, 3);
    assert_int_equal(unsetenv("CLGATHER_TEST_HOST_ISA"), 0);
    if (cpu)
        assert_counts(&other, 0, n, n);
    else
        assert_counts(&other, n, 0, 0);
    assert_int_equal(list(dir, e), cpu ? 2 * n : n);
    clg_cache_info back = run_new(dir, 3);
    assert_counts(&back, n, 0, 0);
    remove_dir(dir);
}

static void test_switches(void **state)
{
    (void)state;
    char dir[512];
    clg_cache_info info;
    clg_context *ctx = NULL;
    char *saved = clg_test_env_save("CLGATHER_CACHE_DIR");
    make_dir(dir, sizeof dir);
    assert_int_equal(setenv("CLGATHER_CACHE_DIR", dir, 1), 0);
    assert_int_equal(setenv("CLGATHER_CACHE", "0", 1), 0);
    ctx = context_on(NULL);
    CLG_ASSERT_OK(ctx, clg_context_cache_info(ctx, &info));
    assert_int_equal(info.enabled, 0);
    assert_string_equal(info.directory, "");
    assert_int_equal(run_variant(ctx, CLG_OP_GATHER, 0), 0);
    CLG_ASSERT_OK(ctx, clg_context_cache_info(ctx, &info));
    assert_counts(&info, 0, 0, 0);
    assert_int_equal(count_files(dir, ""), 0);
    /* The API overrides the environment, both ways. */
    CLG_ASSERT_OK(ctx, clg_context_set_cache_dir(ctx, dir));
    CLG_ASSERT_OK(ctx, clg_context_set_cache_max(ctx, 1 << 30));
    assert_int_equal(run_variant(ctx, CLG_OP_GATHER, 3), 0);
    CLG_ASSERT_OK(ctx, clg_context_cache_info(ctx, &info));
    assert_int_equal(info.enabled, 1);
    assert_int_equal(info.max_bytes, 1 << 30);
    assert_true(info.stores >= 1);
    CLG_ASSERT_OK(ctx, clg_context_set_cache_dir(ctx, NULL));
    CLG_ASSERT_OK(ctx, clg_context_cache_info(ctx, &info));
    assert_int_equal(info.enabled, 0);
    CLG_ASSERT_STATUS(ctx, clg_context_set_cache_dir(ctx, ""),
                      CLG_STATUS_INVALID_ARGUMENT);
    CLG_ASSERT_STATUS(ctx, clg_context_set_cache_max(ctx, 0),
                      CLG_STATUS_INVALID_ARGUMENT);
    clg_context_destroy(ctx);
    /* Malformed variables fail the context, naming the value. */
    assert_int_equal(setenv("CLGATHER_CACHE", "yes", 1), 0);
    CLG_ASSERT_STATUS(NULL, clg_context_create(&ctx, NULL),
                      CLG_STATUS_INVALID_ARGUMENT);
    CLG_ASSERT_CONTAINS(clg_context_last_error(NULL),
                        "CLGATHER_CACHE=\"yes\"");
    assert_int_equal(setenv("CLGATHER_CACHE", "1", 1), 0);
    assert_int_equal(setenv("CLGATHER_CACHE_MAX", "12Q", 1), 0);
    CLG_ASSERT_STATUS(NULL, clg_context_create(&ctx, NULL),
                      CLG_STATUS_INVALID_ARGUMENT);
    CLG_ASSERT_CONTAINS(clg_context_last_error(NULL), "12Q");
    /* A count whose bytes overflow is refused, not wrapped around. */
    assert_int_equal(setenv("CLGATHER_CACHE_MAX", "99999999999G", 1), 0);
    CLG_ASSERT_STATUS(NULL, clg_context_create(&ctx, NULL),
                      CLG_STATUS_INVALID_ARGUMENT);
    CLG_ASSERT_CONTAINS(clg_context_last_error(NULL), "99999999999G");
    assert_int_equal(setenv("CLGATHER_CACHE_MAX", "8589934591G", 1), 0);
    CLG_ASSERT_OK(NULL, clg_cache_environment(&info));
    assert_true(info.max_bytes == (uint64_t)8589934591 << 30);
    assert_int_equal(setenv("CLGATHER_CACHE_MAX", "3M", 1), 0);
    CLG_ASSERT_OK(NULL, clg_cache_environment(&info));
    assert_int_equal(info.max_bytes, 3 << 20);
    assert_string_equal(info.directory, dir);
    assert_int_equal(unsetenv("CLGATHER_CACHE_DIR"), 0);
    assert_int_equal(unsetenv("CLGATHER_CACHE_MAX"), 0);
    assert_int_equal(setenv("XDG_CACHE_HOME", "/xdg/home", 1), 0);
    CLG_ASSERT_OK(NULL, clg_cache_environment(&info));
    assert_string_equal(info.directory, "/xdg/home/clgather");
    assert_int_equal(unsetenv("XDG_CACHE_HOME"), 0);
    assert_int_equal(setenv("CLGATHER_CACHE_DIR", dir, 1), 0);
    size_t removed = 0;
    CLG_ASSERT_OK(NULL, clg_cache_clear(NULL, &removed));
    assert_true(removed >= 1);
    assert_int_equal(count_files(dir, ""), 0);
    assert_int_equal(unsetenv("CLGATHER_CACHE"), 0);
    clg_test_env_restore("CLGATHER_CACHE_DIR", saved);
    remove_dir(dir);
}

static void test_folder_cannot_be_created(void **state)
{
    (void)state;
    char dir[512], below[600];
    make_dir(dir, sizeof dir);
    snprintf(below, sizeof below, "%s/file/cache", dir);
    char file[560];
    snprintf(file, sizeof file, "%s/file", dir);
    clg_test_write_file(file, "x", 1);
    char why[256];
    clg_cache_info info = run_why(below, 0, why, sizeof why);
    assert_int_equal(info.enabled, 1);
    assert_true(info.misses >= 1);
    assert_counts(&info, 0, info.misses, 0);
    /* The context says why nothing was stored. */
    assert_string_equal(why, "not used: the folder cannot be created (a "
                             "part of its path is not a folder, or not "
                             "writable)");
    /* The file itself as the folder: a context says it is not one. */
    run_why(file, 0, why, sizeof why);
    assert_string_equal(why, "not used: it, or a part of its path, is not a "
                             "folder");
    /* Asked about either: said so. */
    assert_string_equal(clg_cache_check(below, NULL),
                        "not used: it, or a part of its path, is not a "
                        "folder");
    assert_string_equal(clg_cache_check(file, NULL),
                        "not used: it, or a part of its path, is not a "
                        "folder");
    /* A symbolic link to nothing: no folder can be made through it, and
     * both say so before any store. */
    char link[600];
    snprintf(link, sizeof link, "%s/dangling", dir);
    assert_int_equal(symlink("nowhere", link), 0);
    static const char not_made[] = "not used: the folder cannot be created "
                                   "(a part of its path is not a folder, "
                                   "or not writable)";
    assert_string_equal(clg_cache_check(link, NULL), not_made);
    info = run_why(link, 0, why, sizeof why);
    assert_int_equal(info.stores, 0);
    assert_string_equal(why, not_made);
    remove_dir(dir);
}

/* A relative folder not made yet is taken from the working directory:
 * trusted there, created by the first store, then loaded from. */
static void test_relative_folder_is_created(void **state)
{
    (void)state;
    char dir[512], cwd[4096], made[600];
    make_dir(dir, sizeof dir);
    assert_non_null(getcwd(cwd, sizeof cwd));
    assert_int_equal(chdir(dir), 0);
    assert_string_equal(clg_cache_check("rel/new", NULL), "");
    clg_cache_info info = run_new("rel/new", 0);
    assert_true(info.stores >= 1);
    assert_int_equal(run_new("rel/new", 0).hits, info.stores);
    assert_int_equal(chdir(cwd), 0);
    snprintf(made, sizeof made, "%s/rel/new", dir);
    assert_int_equal(count_files(made, ""), info.stores);
    remove_dir(made);
    snprintf(made, sizeof made, "%s/rel", dir);
    remove_dir(made);
    remove_dir(dir);
}

/* Drops (on = 0) or restores the calling thread's capabilities that
 * override file permissions (root's CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH,
 * CAP_FOWNER), so that a folder's mode binds root too. */
static void file_capabilities(int on)
{
    struct __user_cap_header_struct h = {_LINUX_CAPABILITY_VERSION_3, 0};
    struct __user_cap_data_struct d[2];
    uint32_t bits = (1u << CAP_DAC_OVERRIDE) | (1u << CAP_DAC_READ_SEARCH) |
                    (1u << CAP_FOWNER);
    assert_int_equal(syscall(SYS_capget, &h, d), 0);
    d[0].effective = on ? d[0].effective | (d[0].permitted & bits)
                        : d[0].effective & ~bits;
    assert_int_equal(syscall(SYS_capset, &h, d), 0);
}

static void test_read_only_folder(void **state)
{
    (void)state;
    char dir[512], probe[600];
    make_dir(dir, sizeof dir);
    uint64_t n = run_new(dir, 0).misses;
    assert_int_equal(chmod(dir, 0500), 0);
    file_capabilities(0);
    /* The folder is read-only for this thread. */
    snprintf(probe, sizeof probe, "%s/probe", dir);
    assert_int_equal(open(probe, O_WRONLY | O_CREAT, 0600), -1);
    clg_cache_info hit = run_new(dir, 0);
    clg_cache_info miss = run_new(dir, 3);
    file_capabilities(1);
    assert_counts(&hit, n, 0, 0);
    assert_true(miss.misses >= 1);
    assert_counts(&miss, 0, miss.misses, 0);
    assert_int_equal(count_files(dir, ""), n);
    /* One this thread cannot even search: the folder itself is named, not
     * a folder above it. */
    assert_int_equal(chmod(dir, 0), 0);
    file_capabilities(0);
    char why[128];
    snprintf(why, sizeof why, "%s", clg_cache_check(dir, NULL));
    file_capabilities(1);
    assert_string_equal(why, "not used: folder cannot be opened");
    remove_dir(dir);
}

/* A full disk, as a process limit on file sizes (RLIMIT_FSIZE, SIGXFSZ
 * ignored) below the entry's size. The device compiler writes files of
 * its own while it builds (POCL's LLVM aborts the process when it cannot),
 * so the limit covers the store alone: the program is built first, then
 * stored as a build stores it. */
static void test_full_disk(void **state)
{
    (void)state;
    char dir[512];
    clg_cache_entry e[64];
    clg_cache_info full;
    struct rlimit old, small;
    make_dir(dir, sizeof dir);
    uint64_t n = run_new(dir, 3).misses;
    assert_int_equal(list(dir, e), n);
    size_t removed = 0;
    CLG_ASSERT_OK(NULL, clg_cache_clear(dir, &removed));
    assert_int_equal(removed, n);
    clg_context *ctx = context_on(NULL);
    CLG_ASSERT_OK(ctx, clg_context_set_cache_dir(ctx, NULL));
    assert_int_equal(run_variant(ctx, CLG_OP_GATHER, 3), 0);
    CLG_ASSERT_OK(ctx, clg_context_set_cache_dir(ctx, dir));
    assert_true(ctx->program_count >= 1);
    assert_int_equal(getrlimit(RLIMIT_FSIZE, &old), 0);
    small = old;
    small.rlim_cur = (rlim_t)(e[0].bytes / 2);
    signal(SIGXFSZ, SIG_IGN);
    assert_int_equal(setrlimit(RLIMIT_FSIZE, &small), 0);
    clg_disk_store(ctx, "files=test\nsources=0\noptions=\n", "",
                   ctx->programs[0]->program);
    assert_int_equal(setrlimit(RLIMIT_FSIZE, &old), 0);
    signal(SIGXFSZ, SIG_DFL);
    CLG_ASSERT_OK(ctx, clg_context_cache_info(ctx, &full));
    assert_int_equal(full.stores, 0);
    assert_int_equal(count_files(dir, ""), 0);
    /* The same store with room writes the entry. */
    clg_disk_store(ctx, "files=test\nsources=0\noptions=\n", "",
                   ctx->programs[0]->program);
    CLG_ASSERT_OK(ctx, clg_context_cache_info(ctx, &full));
    assert_int_equal(full.stores, 1);
    assert_int_equal(count_files(dir, ""), 1);
    /* Calls still succeed on the context. */
    assert_int_equal(run_variant(ctx, CLG_OP_GATHER, 3), 0);
    clg_context_destroy(ctx);
    remove_dir(dir);
}

/* ------------------------------------------------------------ trust */

/* Another user, who needs no account: a uid that names no one. */
#define OTHER_UID 12345
#define THIRD_UID 23456

/* The path of entry `file` of `dir` into path (1024 bytes). */
static void entry_path(const char *dir, const char *file, char *path)
{
    snprintf(path, 1024, "%.500s/%.31s", dir, file);
}

/* A new context on `dir` that has the folder's n entries passes over them
 * for `why`: n misses, no hit, `stores` stores, and the same reason from
 * clg_context_cache_refusal. */
static void assert_passed_over(const char *dir, int v, uint64_t n,
                               uint64_t stores, const char *why)
{
    char said[256];
    clg_cache_info info = run_why(dir, v, said, sizeof said);
    assert_counts(&info, 0, n, stores);
    assert_int_equal(info.rejected, 0);
    assert_string_equal(said, why);
}

/* A folder that another user owns or may write, or below such a folder,
 * is a miss and is not written to, with the reason; the same folder made
 * private again serves its entries. A sticky folder above it (as /tmp) is
 * fine. Runs as root in CI: chown needs no account for the other uid. */
static void test_untrusted_folder_is_not_used(void **state)
{
    (void)state;
    static const struct {
        int above;   /* 1: the folder above the cache's */
        mode_t mode; /* chmod */
        uid_t owner; /* chown */
        const char *why;
    } cases[] = {
        {0, 0777, 0, "not used: folder writable by group or others"},
        {0, 0770, 0, "not used: folder writable by group or others"},
        {0, 0700, OTHER_UID, "not used: folder owned by another user"},
        {1, 0777, 0,
         "not used: a folder above it is writable by group or others"},
        {1, 0755, OTHER_UID,
         "not used: a folder above it is owned by another user"},
    };
    char top[512], dir[600];
    clg_cache_entry e[64];
    struct stat st;
    make_dir(top, sizeof top);
    snprintf(dir, sizeof dir, "%s/cache", top);
    uint64_t n = run_new(dir, 0).misses;
    assert_true(n >= 1);
    /* The folder the store made is private. */
    assert_int_equal(stat(dir, &st), 0);
    assert_int_equal(st.st_mode & 07777, 0700);
    assert_string_equal(clg_cache_check(dir, NULL), "");
    for (size_t k = 0; k < CLG_TEST_ARRAY_LEN(cases); k++) {
        const char *target = cases[k].above ? top : dir;
        clg_test_set_case("%s %o, owner %d",
                          cases[k].above ? "above" : "folder",
                          (unsigned)cases[k].mode, (int)cases[k].owner);
        assert_int_equal(chmod(target, cases[k].mode), 0);
        assert_int_equal(chown(target, cases[k].owner, (gid_t)-1), 0);
        assert_string_equal(clg_cache_check(dir, NULL), cases[k].why);
        assert_passed_over(dir, 0, n, 0, cases[k].why);
        assert_int_equal(list(dir, e), n); /* nothing written */
        assert_int_equal(chown(target, 0, (gid_t)-1), 0);
        assert_int_equal(chmod(target, 0700), 0);
    }
    /* Sticky, as /tmp: no one else may rename or remove the folder. */
    assert_int_equal(chmod(top, 01777), 0);
    clg_cache_info sticky = run_new(dir, 0);
    assert_counts(&sticky, n, 0, 0);
    assert_int_equal(chmod(top, 0700), 0);
    remove_dir(dir);
    remove_dir(top);
}

/* Root running with another user's HOME (sudo -E, a service) finds her
 * cache folder there, filled by her: it is hers, so it is not used. */
static void test_root_with_another_users_home(void **state)
{
    (void)state;
    static const char *const vars[] = {"CLGATHER_CACHE_DIR", "XDG_CACHE_HOME",
                                       "HOME"};
    char *saved[3];
    char top[512], home[600], dot[640], dir[700], path[1024];
    clg_cache_entry e[64];
    for (int k = 0; k < 3; k++)
        saved[k] = clg_test_env_save(vars[k]);
    make_dir(top, sizeof top);
    snprintf(home, sizeof home, "%s/home", top);
    snprintf(dot, sizeof dot, "%s/.cache", home);
    snprintf(dir, sizeof dir, "%s/clgather", dot);
    assert_int_equal(mkdir(home, 0755), 0);
    assert_int_equal(unsetenv("CLGATHER_CACHE_DIR"), 0);
    assert_int_equal(unsetenv("XDG_CACHE_HOME"), 0);
    assert_int_equal(setenv("HOME", home, 1), 0);
    uint64_t n = run_new(NULL, 0).misses; /* her own run fills it */
    size_t count = list(dir, e);
    assert_int_equal(count, n);
    const char *mine[] = {home, dot, dir};
    for (int k = 0; k < 3; k++)
        assert_int_equal(chown(mine[k], OTHER_UID, OTHER_UID), 0);
    for (size_t k = 0; k < count; k++) {
        entry_path(dir, e[k].file, path);
        assert_int_equal(chown(path, OTHER_UID, OTHER_UID), 0);
    }
    assert_string_equal(clg_cache_check(NULL, NULL),
                        "not used: folder owned by another user");
    assert_passed_over(NULL, 0, n, 0,
                       "not used: folder owned by another user");
    assert_int_equal(list(dir, e), n);
    for (int k = 0; k < 3; k++)
        clg_test_env_restore(vars[k], saved[k]);
    remove_dir(dir);
    assert_int_equal(rmdir(dot), 0);
    assert_int_equal(rmdir(home), 0);
    remove_dir(top);
}

/* clg_cache_clear on a folder the cache does not trust (writable by
 * others, another user's, below a folder others may write, or another
 * user's reached through a symbolic link, as a ~/.cache/clgather that
 * links elsewhere) removes nothing and fails with the reason; the same
 * folder trusted again, through the link too, is cleared. */
static void test_clear_refuses_untrusted_folder(void **state)
{
    (void)state;
    static const struct {
        int above;    /* 1: the folder above the cache's */
        int via_link; /* 1: cleared through a symbolic link to it */
        mode_t mode;  /* chmod */
        uid_t owner;  /* chown */
        const char *why;
    } cases[] = {
        {0, 0, 0777, 0, "not used: folder writable by group or others"},
        {0, 0, 0700, OTHER_UID, "not used: folder owned by another user"},
        {1, 0, 0777, 0,
         "not used: a folder above it is writable by group or others"},
        {0, 1, 0700, OTHER_UID, "not used: folder owned by another user"},
        {0, 1, 0777, 0, "not used: folder writable by group or others"},
    };
    char top[512], dir[600], link[600], said[1400];
    clg_cache_entry e[64];
    size_t removed = 0;
    make_dir(top, sizeof top);
    snprintf(dir, sizeof dir, "%s/cache", top);
    snprintf(link, sizeof link, "%s/link", top);
    assert_int_equal(symlink(dir, link), 0);
    uint64_t n = run_new(dir, 0).misses;
    assert_true(n >= 1);
    for (size_t k = 0; k < CLG_TEST_ARRAY_LEN(cases); k++) {
        const char *target = cases[k].above ? top : dir;
        const char *cleared = cases[k].via_link ? link : dir;
        clg_test_set_case("%s %o, owner %d%s",
                          cases[k].above ? "above" : "folder",
                          (unsigned)cases[k].mode, (int)cases[k].owner,
                          cases[k].via_link ? ", through a link" : "");
        assert_int_equal(chmod(target, cases[k].mode), 0);
        assert_int_equal(chown(target, cases[k].owner, (gid_t)-1), 0);
        assert_string_equal(clg_cache_check(cleared, NULL), cases[k].why);
        removed = 99;
        assert_int_equal(clg_cache_clear(cleared, &removed),
                         CLG_STATUS_INVALID_ARGUMENT);
        assert_int_equal(removed, 0);
        snprintf(said, sizeof said,
                 "nothing removed from the cache folder %s, which the cache "
                 "does not trust (%s)",
                 cleared, cases[k].why);
        assert_string_equal(clg_context_last_error(NULL), said);
        assert_int_equal(count_files(dir, ""), n);
        assert_int_equal(chown(target, 0, (gid_t)-1), 0);
        assert_int_equal(chmod(target, 0700), 0);
        assert_int_equal(list(dir, e), n);
    }
    /* Trusted again: cleared, through the link. */
    CLG_ASSERT_OK(NULL, clg_cache_clear(link, &removed));
    assert_int_equal(removed, n);
    assert_int_equal(count_files(dir, ""), 0);
    assert_int_equal(unlink(link), 0);
    remove_dir(dir);
    remove_dir(top);
}

/* An entry that another user owns or may write, or a link, is a miss with
 * the reason; the program is rebuilt and its entry written anew (the
 * rename replaces the file, or the link itself), which the next context
 * loads. */
static void test_untrusted_entry_is_not_used(void **state)
{
    (void)state;
    enum { OWNER, GROUP_WRITABLE, OTHERS_WRITABLE, LINK, WAYS };
    static const char *const reasons[WAYS] = {
        "entry not used: owned by another user",
        "entry not used: writable by group or others",
        "entry not used: writable by group or others",
        "entry not used: a symbolic link"};
    char dir[512], path[1024], real[1100];
    clg_cache_entry e[64];
    struct stat st;
    make_dir(dir, sizeof dir);
    uint64_t n = run_new(dir, 1).misses;
    for (int how = 0; how < WAYS; how++) {
        size_t count = list(dir, e);
        assert_int_equal(count, n);
        clg_test_set_case("%s", reasons[how]);
        for (size_t k = 0; k < count; k++) {
            entry_path(dir, e[k].file, path);
            /* A store writes mode 0600, owned by the writer. */
            assert_int_equal(lstat(path, &st), 0);
            assert_true(S_ISREG(st.st_mode));
            assert_int_equal(st.st_mode & 07777, 0600);
            assert_int_equal(st.st_uid, geteuid());
            snprintf(real, sizeof real, "%s.real", path);
            if (how == OWNER)
                assert_int_equal(chown(path, OTHER_UID, (gid_t)-1), 0);
            else if (how == LINK) {
                assert_int_equal(rename(path, real), 0);
                assert_int_equal(symlink(real, path), 0);
            } else
                assert_int_equal(chmod(path,
                                       how == GROUP_WRITABLE ? 0620 : 0602),
                                 0);
            assert_string_equal(clg_cache_check(dir, e[k].file), reasons[how]);
        }
        assert_passed_over(dir, 1, n, n, reasons[how]);
        for (size_t k = 0; k < count; k++) {
            entry_path(dir, e[k].file, path);
            snprintf(real, sizeof real, "%s.real", path);
            unlink(real);
        }
        clg_cache_info again = run_new(dir, 1);
        assert_counts(&again, n, 0, 0);
    }
    remove_dir(dir);
}

/* A FIFO at an entry's name is a miss: no open, listing, check, clear or
 * eviction blocks on it (the alarm fails the test instead of hanging). */
static void test_fifo_at_entry_does_not_block(void **state)
{
    (void)state;
    char dir[512], path[1024], why[256];
    clg_cache_entry e[64];
    size_t removed = 0;
    make_dir(dir, sizeof dir);
    uint64_t n = run_new(dir, 2).misses;
    size_t count = list(dir, e);
    alarm(600);
    for (size_t k = 0; k < count; k++) {
        entry_path(dir, e[k].file, path);
        assert_int_equal(unlink(path), 0);
        assert_int_equal(mkfifo(path, 0600), 0);
        assert_string_equal(clg_cache_check(dir, e[k].file),
                            "entry not used: not a regular file");
    }
    assert_int_equal(list(dir, e), count);
    for (size_t k = 0; k < count; k++)
        assert_int_equal(e[k].whole, 0);
    clg_cache_info info = run_why(dir, 2, why, sizeof why);
    assert_counts(&info, 0, n, n); /* the rename replaced each FIFO */
    assert_string_equal(why, "entry not used: not a regular file");
    /* A FIFO with an entry's name beside entries survives eviction and a
     * clear, which stop at neither. */
    entry_path(dir, "0123456789abcdef.bin", path);
    assert_int_equal(mkfifo(path, 0600), 0);
    clg_context *ctx = context_on(dir);
    CLG_ASSERT_OK(ctx, clg_context_set_cache_max(ctx, 1));
    assert_int_equal(run_variant(ctx, CLG_OP_GATHER, 3), 0);
    clg_context_destroy(ctx);
    run_new(dir, 2);
    CLG_ASSERT_OK(NULL, clg_cache_clear(dir, &removed));
    assert_int_equal(removed, n);
    alarm(0);
    assert_int_equal(count_files(dir, ""), 1);
    assert_int_equal(count_files(dir, "0123456789abcdef.bin"), 1);
    remove_dir(dir);
}

/* 1 GiB (sparse) at each entry's name: a miss that reads its first bytes
 * alone, so the process's peak memory does not grow by the file (a whole
 * read would add 1 GiB). */
static void test_huge_file_at_entry_is_not_read(void **state)
{
    (void)state;
    char dir[512], path[1024], why[256];
    clg_cache_entry e[64];
    struct rusage before, after;
    make_dir(dir, sizeof dir);
    uint64_t n = run_new(dir, 3).misses;
    size_t count = list(dir, e);
    for (size_t k = 0; k < count; k++) {
        entry_path(dir, e[k].file, path);
        assert_int_equal(truncate(path, 0), 0);
        assert_int_equal(truncate(path, (off_t)1 << 30), 0);
        assert_string_equal(clg_cache_check(dir, e[k].file),
                            "entry not used: not a clgather entry");
    }
    assert_int_equal(getrusage(RUSAGE_SELF, &before), 0);
    assert_int_equal(list(dir, e), count);
    for (size_t k = 0; k < count; k++) {
        assert_int_equal(e[k].whole, 0);
        assert_int_equal(e[k].bytes, UINT64_C(1) << 30);
    }
    clg_cache_info info = run_why(dir, 3, why, sizeof why);
    assert_int_equal(getrusage(RUSAGE_SELF, &after), 0);
    assert_counts(&info, 0, n, n);
    assert_string_equal(why, "entry not used: not a clgather entry");
    print_message("peak memory grew by %ld KiB\n",
                  after.ru_maxrss - before.ru_maxrss);
    assert_true(after.ru_maxrss - before.ru_maxrss < 64 * 1024);
    remove_dir(dir);
}

/* Sets a file's times two hours back: a temporary file that old was left
 * by a process that died. */
static void age(const char *path)
{
    struct timespec t[2];
    clock_gettime(CLOCK_REALTIME, &t[0]);
    t[0].tv_sec -= 7200;
    t[1] = t[0];
    assert_int_equal(utimensat(AT_FDCWD, path, t, 0), 0);
}

/* Eviction and clear remove entries and the cache's own temporary files
 * (its naming, and its header or empty), and nothing else: another
 * program's file with an entry's name (with content or empty), a
 * temporary-looking file of another naming, and one of the cache's naming
 * with other content survive, old as they are; a stale temporary file of
 * the cache's goes. */
static void test_foreign_files_survive(void **state)
{
    (void)state;
    static const char *const foreign[] = {"0123456789abcdef.bin",
                                          ".tmp-build.log", ".tmp-1-2-3",
                                          "fedcba9876543210.bin"};
    char dir[512], path[1024];
    clg_cache_entry e[64];
    size_t removed = 0, size = 0;
    make_dir(dir, sizeof dir);
    uint64_t n = run_new(dir, 0).misses;
    size_t count = list(dir, e);
    for (size_t k = 0; k < CLG_TEST_ARRAY_LEN(foreign); k++) {
        entry_path(dir, foreign[k], path);
        clg_test_write_file(path, "not the cache's\n",
                            k + 1 < CLG_TEST_ARRAY_LEN(foreign) ? 16 : 0);
        age(path);
    }
    /* A stale temporary file of the cache's: an entry's bytes. */
    entry_path(dir, e[0].file, path);
    unsigned char *bytes = clg_test_read_file(path, &size);
    entry_path(dir, ".tmp-4-5-6", path);
    clg_test_write_file(path, bytes, size);
    age(path);
    free(bytes);
    /* And one left empty: its process died before writing the header. */
    entry_path(dir, ".tmp-7-8-9", path);
    clg_test_write_file(path, "", 0);
    age(path);
    assert_int_equal(count_files(dir, ""), count + 6);
    /* A store with a cap of 1 byte evicts every entry. */
    clg_context *ctx = context_on(dir);
    CLG_ASSERT_OK(ctx, clg_context_set_cache_max(ctx, 1));
    assert_int_equal(run_variant(ctx, CLG_OP_GATHER, 3), 0);
    clg_context_destroy(ctx);
    assert_int_equal(count_files(dir, ""), 4);
    for (size_t k = 0; k < CLG_TEST_ARRAY_LEN(foreign); k++)
        assert_int_equal(count_files(dir, foreign[k]), 1);
    /* Clear: the entries of a new fill and an empty temporary file go,
     * the others stay. */
    assert_int_equal(run_new(dir, 0).stores, n);
    entry_path(dir, ".tmp-10-11-12", path);
    clg_test_write_file(path, "", 0);
    assert_int_equal(count_files(dir, ""), 5 + n);
    CLG_ASSERT_OK(NULL, clg_cache_clear(dir, &removed));
    assert_int_equal(removed, n);
    assert_int_equal(count_files(dir, ""), 4);
    for (size_t k = 0; k < CLG_TEST_ARRAY_LEN(foreign); k++)
        assert_int_equal(count_files(dir, foreign[k]), 1);
    remove_dir(dir);
}

/* The entry of this program built for another driver (the test hook),
 * planted at this driver's entry name with a binary the runtime would
 * refuse: its stored device description differs, so it is a miss that
 * never reaches the runtime (no rejected binary), with the reason. */
static void test_other_identity_is_not_handed_to_the_runtime(void **state)
{
    (void)state;
    char dir[512], path[1024], from[1024];
    clg_cache_entry e[64];
    size_t size = 0, planted = 0;
    make_dir(dir, sizeof dir);
    uint64_t n = run_new(dir, 2).misses;
    assert_int_equal(setenv("CLGATHER_TEST_DRIVER_VERSION", "test driver 99",
                            1),
                     0);
    run_new(dir, 2);
    assert_int_equal(unsetenv("CLGATHER_TEST_DRIVER_VERSION"), 0);
    size_t count = list(dir, e);
    assert_int_equal(count, 2 * n);
    for (size_t a = 0; a < count; a++)
        for (size_t b = 0; b < count; b++)
            if (strcmp(e[a].driver, "test driver 99") &&
                !strcmp(e[b].driver, "test driver 99") &&
                !strcmp(e[a].options, e[b].options)) {
                entry_path(dir, e[b].file, from);
                entry_path(dir, e[a].file, path);
                unsigned char *buf = clg_test_read_file(from, &size);
                size = garbage_payload(buf, size);
                clg_test_write_file(path, buf, size);
                free(buf);
                assert_int_equal(unlink(from), 0);
                planted++;
            }
    assert_int_equal(planted, n);
    assert_passed_over(dir, 2, n, n,
                       "entry not used: built for another platform, device, "
                       "driver or clgather");
    clg_cache_info again = run_new(dir, 2);
    assert_counts(&again, n, 0, 0);
    remove_dir(dir);
}

/* Becomes OTHER_UID, keeping of root's capabilities CAP_DAC_READ_SEARCH
 * alone: it reads and searches any folder (an OpenCL runtime installed in
 * root's home, as the Intel lane's is, stays loadable) and writes nothing
 * root's. The cache's trust depends on owners and modes, not on access,
 * so the process is another user to it. 0 on success. */
static int become_other_user(void)
{
    struct __user_cap_header_struct h = {_LINUX_CAPABILITY_VERSION_3, 0};
    struct __user_cap_data_struct d[2];
    if (prctl(PR_SET_KEEPCAPS, 1L, 0L, 0L, 0L) != 0 ||
        setgroups(0, NULL) != 0 || setgid(OTHER_UID) != 0 ||
        setuid(OTHER_UID) != 0 || syscall(SYS_capget, &h, d) != 0)
        return -1;
    d[0].effective = d[0].permitted & (1u << CAP_DAC_READ_SEARCH);
    d[0].permitted = d[0].effective;
    d[0].inheritable = 0;
    memset(&d[1], 0, sizeof d[1]);
    return syscall(SYS_capset, &h, d) == 0 && geteuid() == OTHER_UID ? 0 : -1;
}

/* A shipped folder: filled by root, mode 0755, entries 0644. Another user
 * (this binary again, `--as-user`, as OTHER_UID) loads every entry; not
 * when the folder is group-writable, nor an entry of a third user's. */
static int as_user(const char *dir, const char *home, const char *hits,
                   const char *want)
{
    char pocl[700];
    clg_context *ctx = NULL;
    clg_cache_info info;
    snprintf(pocl, sizeof pocl, "%s/pocl", home);
    if (become_other_user() != 0 || setenv("HOME", home, 1) != 0 ||
        setenv("POCL_CACHE_DIR", pocl, 1) != 0) {
        fprintf(stderr, "as uid %d: cannot become that user\n", OTHER_UID);
        return 2;
    }
    if (clg_context_create(&ctx, NULL) != CLG_STATUS_OK ||
        clg_context_set_cache_dir(ctx, dir) != CLG_STATUS_OK ||
        run_variant(ctx, CLG_OP_GATHER, 0) != 0 ||
        clg_context_cache_info(ctx, &info) != CLG_STATUS_OK) {
        fprintf(stderr, "as uid %d: the call failed: %s\n", OTHER_UID,
                clg_context_last_error(ctx));
        clg_context_destroy(ctx);
        return 3;
    }
    const char *why = clg_context_cache_refusal(ctx);
    int ok = info.hits == strtoull(hits, NULL, 10) && !strcmp(why, want);
    if (!ok)
        fprintf(stderr, "as uid %d: %llu hits, %llu misses, \"%s\"\n",
                OTHER_UID, (unsigned long long)info.hits,
                (unsigned long long)info.misses, why);
    clg_context_destroy(ctx);
    return ok ? 0 : 1;
}

static void run_as_user(const char *dir, const char *home, uint64_t hits,
                        const char *want)
{
    char exe[4096], count[32];
    pid_t pid;
    int status = 0;
    ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
    assert_true(len > 0);
    exe[len] = '\0';
    snprintf(count, sizeof count, "%llu", (unsigned long long)hits);
    char *argv[] = {exe,   "--as-user",  (char *)dir, (char *)home,
                    count, (char *)want, NULL};
    assert_int_equal(posix_spawn(&pid, exe, NULL, NULL, argv, environ), 0);
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
}

static void test_shipped_folder(void **state)
{
    (void)state;
    char top[512], dir[600], home[600], pocl[700], path[1024];
    clg_cache_entry e[64];
    make_dir(top, sizeof top);
    assert_int_equal(chmod(top, 0755), 0);
    snprintf(dir, sizeof dir, "%s/shipped", top);
    snprintf(home, sizeof home, "%s/home", top);
    snprintf(pocl, sizeof pocl, "%s/pocl", home);
    assert_int_equal(mkdir(home, 0700), 0);
    assert_int_equal(mkdir(pocl, 0700), 0);
    assert_int_equal(chown(home, OTHER_UID, OTHER_UID), 0);
    assert_int_equal(chown(pocl, OTHER_UID, OTHER_UID), 0);
    uint64_t n = run_new(dir, 0).misses;
    size_t count = list(dir, e);
    assert_int_equal(chmod(dir, 0755), 0);
    for (size_t k = 0; k < count; k++) {
        entry_path(dir, e[k].file, path);
        assert_int_equal(chmod(path, 0644), 0);
    }
    run_as_user(dir, home, n, "");
    assert_int_equal(chmod(dir, 0775), 0);
    run_as_user(dir, home, 0, "not used: folder writable by group or others");
    assert_int_equal(chmod(dir, 0755), 0);
    for (size_t k = 0; k < count; k++) {
        entry_path(dir, e[k].file, path);
        assert_int_equal(chown(path, THIRD_UID, THIRD_UID), 0);
    }
    run_as_user(dir, home, 0, "entry not used: owned by another user");
    assert_int_equal(list(dir, e), n); /* the user could write nothing */
    remove_dir(dir);
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", home);
    assert_int_equal(system(cmd), 0);
    remove_dir(top);
}

/* ------------------------------------------------------------ concurrency */

#define FILL_THREADS 8

typedef struct fill_arg {
    const char *dir;
    int thread;
    int failures;
} fill_arg;

/* One thread: a context of its own on the folder, every variant of both
 * operators, in an order that differs per thread. */
static void *fill_thread(void *p)
{
    fill_arg *a = p;
    clg_context *ctx = NULL;
    if (clg_context_create(&ctx, NULL) != CLG_STATUS_OK ||
        clg_context_set_cache_dir(ctx, a->dir) != CLG_STATUS_OK) {
        a->failures++;
        clg_context_destroy(ctx);
        return NULL;
    }
    for (int k = 0; k < 2 * VARIANTS; k++) {
        int j = (k + a->thread) % (2 * VARIANTS);
        a->failures += run_variant(ctx, (clg_op)(j % 2), j / 2);
    }
    clg_context_destroy(ctx);
    return NULL;
}

/* 8 threads filling `dir`; the number of failed calls. */
static int fill(const char *dir)
{
    pthread_t t[FILL_THREADS];
    fill_arg a[FILL_THREADS];
    int failures = 0;
    for (int k = 0; k < FILL_THREADS; k++) {
        a[k] = (fill_arg){dir, k, 0};
        if (pthread_create(&t[k], NULL, fill_thread, &a[k]) != 0)
            return 1;
    }
    for (int k = 0; k < FILL_THREADS; k++) {
        pthread_join(t[k], NULL);
        failures += a[k].failures;
    }
    return failures;
}

/* Checks one entry in full: header, length, checksum. */
static void check_whole(const char *path)
{
    size_t size;
    unsigned char *buf = clg_test_read_file(path, &size);
    uint32_t format, key_len;
    uint64_t len, sum;
    assert_true(size > HEADER_BYTES);
    assert_memory_equal(buf, "CLGPROG", 8);
    memcpy(&format, buf + 8, 4);
    memcpy(&key_len, buf + 12, 4);
    memcpy(&len, buf + 16, 8);
    memcpy(&sum, buf + 24, 8);
    assert_int_equal(format, 2);
    assert_int_equal(size, HEADER_BYTES + key_len + len);
    assert_true(XXH3_64bits(buf + HEADER_BYTES + key_len, (size_t)len) == sum);
    free(buf);
}

static void test_two_processes_fill_one_folder(void **state)
{
    (void)state;
    char dir[512], exe[4096], path[1024];
    clg_cache_entry e[64];
    pid_t pid;
    int status = 0;
    make_dir(dir, sizeof dir);
    ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
    assert_true(len > 0);
    exe[len] = '\0';
    char *argv[] = {exe, "--fill", dir, NULL};
    assert_int_equal(posix_spawn(&pid, exe, NULL, NULL, argv, environ), 0);
    int failures = fill(dir);
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_int_equal(failures, 0);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
    size_t count = list(dir, e);
    assert_true(count >= 2 * VARIANTS);
    assert_int_equal(count_files(dir, ".tmp-"), 0);
    for (size_t k = 0; k < count; k++) {
        snprintf(path, sizeof path, "%.500s/%.31s", dir, e[k].file);
        assert_int_equal(e[k].whole, 1);
        check_whole(path);
    }
    /* A new context finds every program it needs there. */
    clg_context *ctx = context_on(dir);
    clg_cache_info info;
    for (int j = 0; j < 2 * VARIANTS; j++)
        assert_int_equal(run_variant(ctx, (clg_op)(j % 2), j / 2), 0);
    CLG_ASSERT_OK(ctx, clg_context_cache_info(ctx, &info));
    assert_counts(&info, count, 0, 0);
    clg_context_destroy(ctx);
    remove_dir(dir);
}

/* ------------------------------------------------------------ cap */

/* The files of `after` not in `before`, and their bytes. */
static size_t new_files(const clg_cache_entry *before, size_t nb,
                        const clg_cache_entry *after, size_t na,
                        char names[][32], uint64_t *bytes)
{
    size_t n = 0;
    *bytes = 0;
    for (size_t k = 0; k < na; k++)
        if (!listed(before, nb, after[k].file)) {
            snprintf(names[n++], 32, "%.31s", after[k].file);
            *bytes += after[k].bytes;
        }
    return n;
}

static void pause_ms(long ms)
{
    struct timespec t = {0, ms * 1000000L};
    nanosleep(&t, NULL);
}

static void test_cap_evicts_least_recently_used(void **state)
{
    (void)state;
    char dir[512], scratch[512];
    clg_cache_entry e0[64], e1[64], e2[64], e3[64];
    char names[VARIANTS][8][32];
    size_t nn[VARIANTS];
    uint64_t bytes[VARIANTS], total = 0;
    make_dir(dir, sizeof dir);
    make_dir(scratch, sizeof scratch);
    /* Variant 3's size, from a folder of its own. */
    run_new(scratch, 3);
    size_t n3 = list(scratch, e3);
    nn[3] = new_files(NULL, 0, e3, n3, names[3], &bytes[3]);
    remove_dir(scratch);
    /* Variants 0, 1, 2 in turn; then 0 is used again. */
    size_t n = 0;
    clg_cache_entry *lists[3] = {e0, e1, e2};
    for (int v = 0; v < 3; v++) {
        run_new(dir, v);
        size_t m = list(dir, lists[v]);
        nn[v] = new_files(v ? lists[v - 1] : NULL, n, lists[v], m, names[v],
                          &bytes[v]);
        assert_true(nn[v] >= 1 && nn[v] <= 8);
        total += bytes[v];
        n = m;
        pause_ms(20);
    }
    clg_cache_info touched = run_new(dir, 0);
    assert_int_equal(touched.hits, nn[0]);
    pause_ms(20);
    /* Room for all but one byte of the four: variant 1, the least
     * recently used, goes; nothing else. */
    clg_context *ctx = context_on(dir);
    CLG_ASSERT_OK(ctx, clg_context_set_cache_max(ctx, total + bytes[3] - 1));
    assert_int_equal(run_variant(ctx, CLG_OP_GATHER, 3), 0);
    clg_context_destroy(ctx);
    size_t m = list(dir, e3);
    for (int v = 0; v < VARIANTS; v++)
        for (size_t k = 0; k < nn[v]; k++)
            assert_int_equal(listed(e3, m, names[v][k]), v != 1);
    uint64_t left = 0;
    for (size_t k = 0; k < m; k++)
        left += e3[k].bytes;
    assert_true(left <= total + bytes[3] - 1);
    /* A cap below one entry keeps none. */
    ctx = context_on(dir);
    CLG_ASSERT_OK(ctx, clg_context_set_cache_max(ctx, 1));
    assert_int_equal(run_variant(ctx, CLG_OP_GATHER_ELEMENTS, 0), 0);
    clg_context_destroy(ctx);
    assert_int_equal(count_files(dir, ""), 0);
    remove_dir(dir);
}

/* ------------------------------------------------------------ warm-up */

/* Programs and kernels a context holds. */
static size_t kernels_built(const clg_context *ctx)
{
    size_t n = ctx->program_count;
    for (size_t i = 0; i < ctx->program_count; i++)
        n += ctx->programs[i]->kernel_count;
    return n;
}

/* One warm-up case: op, data [rows, cols] FLOAT, Gather with `n` indices
 * (GatherElements: indices [rows, cols]), CLGATHER_MAX_ALLOC when split. */
typedef struct warm_case {
    const char *name;
    clg_op op;
    int64_t rows, cols, n;
    const char *max_alloc;
} warm_case;

static clg_status warm_up(const warm_case *c, clg_context *ctx,
                          const clg_tensor *d, const clg_tensor *i,
                          const clg_tensor *o, const clg_call_options *opt)
{
    return c->op == CLG_OP_GATHER
               ? clg_warm_up_gather_ex(ctx, d, i, 0, o, opt)
               : clg_warm_up_gather_elements_ex(ctx, d, i, 0, o, opt);
}

static clg_status call_host(const warm_case *c, clg_context *ctx,
                            const clg_tensor *d, const clg_tensor *i,
                            const clg_tensor *o, const clg_call_options *opt)
{
    return c->op == CLG_OP_GATHER
               ? clg_gather_ex(ctx, d, i, 0, o, opt)
               : clg_gather_elements_ex(ctx, d, i, 0, o, opt);
}

/* Warm-up under `mode`, then the same call under `mode`: it builds nothing
 * more and gives the reference's result, on host memory and on device
 * buffers. Outside raise, index 0 holds rows + 3, out of range, so that
 * the modes' results differ. */
static void warm_one(const warm_case *c, clg_oob_mode mode, const char *dir)
{
    clg_context *ctx = NULL;
    clg_call_options opt = {.oob = mode};
    int64_t dshape[2] = {c->rows, c->cols};
    int64_t ishape[2] = {c->op == CLG_OP_GATHER ? c->n : c->rows, c->cols};
    size_t irank = c->op == CLG_OP_GATHER ? 1 : 2;
    int64_t icount = irank == 1 ? ishape[0] : ishape[0] * ishape[1];
    int64_t oshape[2] = {ishape[0], c->cols};
    size_t dcount = (size_t)(c->rows * c->cols),
           ocount = (size_t)(ishape[0] * c->cols);
    float *data = aligned_alloc(64, (dcount * 4 + 63) / 64 * 64);
    float *out = aligned_alloc(64, (ocount * 4 + 63) / 64 * 64);
    float *ref = malloc(ocount * 4);
    int64_t *idx = aligned_alloc(64, ((size_t)icount * 8 + 63) / 64 * 64);
    assert_true(data && out && ref && idx);
    for (size_t k = 0; k < dcount; k++)
        data[k] = (float)k + 1.0f;
    for (int64_t k = 0; k < icount; k++)
        idx[k] = (k * 7) % c->rows;
    if (mode != CLG_OOB_RAISE)
        idx[0] = c->rows + 3;
    clg_tensor d = {CLG_DTYPE_FLOAT, 2, dshape, data};
    clg_tensor i = {CLG_DTYPE_INT64, irank, ishape, idx};
    clg_tensor o = {CLG_DTYPE_FLOAT, 2, oshape, out};
    clg_tensor r = {CLG_DTYPE_FLOAT, 2, oshape, ref};
    if (c->max_alloc)
        setenv("CLGATHER_MAX_ALLOC", c->max_alloc, 1);
    ctx = context_on(dir);
    unsetenv("CLGATHER_MAX_ALLOC");
    clg_test_set_case("warm-up: %s, %s", c->name, clg_oob_mode_name(mode));
    CLG_ASSERT_OK(ctx, warm_up(c, ctx, &d, &i, &o, &opt));
    size_t built = kernels_built(ctx);
    assert_true(built >= 2);
    CLG_ASSERT_OK(ctx, call_host(c, ctx, &d, &i, &o, &opt));
    CLG_ASSERT_OK(NULL,
                  c->op == CLG_OP_GATHER
                      ? clg_reference_gather_ex(NULL, &d, &i, 0, &r, &opt)
                      : clg_reference_gather_elements_ex(NULL, &d, &i, 0, &r,
                                                         &opt));
    CLG_ASSERT_BYTES(out, ref, ocount * 4, 4, "output after warm-up");
    /* Fill zeroes what index 0 selects; the data holds no zero. */
    assert_true(mode != CLG_OOB_FILL || ref[0] == 0.0f);
    assert_true(mode == CLG_OOB_FILL || ref[0] != 0.0f);
    assert_int_equal(kernels_built(ctx), built);
    /* Device buffers: warmed with no buffers and no output, then run. */
    cl_int err;
    cl_context cl = clg_context_cl_context(ctx);
    cl_mem bd = clCreateBuffer(cl, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                               dcount * 4, data, &err);
    cl_mem bi = clCreateBuffer(cl, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                               (size_t)icount * 8, idx, &err);
    cl_mem bo = clCreateBuffer(cl, CL_MEM_READ_WRITE, ocount * 4, NULL, &err);
    assert_true(bd && bi && bo);
    clg_cl_tensor D = {CLG_DTYPE_FLOAT, 2, dshape, NULL};
    clg_cl_tensor I = {CLG_DTYPE_INT64, irank, ishape, NULL};
    clg_cl_tensor O = {CLG_DTYPE_FLOAT, 2, oshape, bo};
    CLG_ASSERT_OK(ctx,
                  c->op == CLG_OP_GATHER
                      ? clg_warm_up_gather_cl_ex(ctx, &D, &I, 0, NULL, &opt)
                      : clg_warm_up_gather_elements_cl_ex(ctx, &D, &I, 0, NULL,
                                                          &opt));
    built = kernels_built(ctx);
    D.buffer = bd;
    I.buffer = bi;
    CLG_ASSERT_OK(ctx,
                  c->op == CLG_OP_GATHER
                      ? clg_gather_cl_ex(ctx, &D, &I, 0, &O, &opt)
                      : clg_gather_elements_cl_ex(ctx, &D, &I, 0, &O, &opt));
    assert_int_equal(kernels_built(ctx), built);
    memset(out, 0, ocount * 4);
    assert_int_equal(clEnqueueReadBuffer(clg_context_cl_queue(ctx), bo,
                                         CL_TRUE, 0, ocount * 4, out, 0, NULL,
                                         NULL),
                     CL_SUCCESS);
    CLG_ASSERT_BYTES(out, ref, ocount * 4, 4, "device output after warm-up");
    /* Warm-up checks what the call checks. */
    CLG_ASSERT_STATUS(ctx, clg_warm_up_gather_ex(ctx, &d, &i, 5, NULL, &opt),
                      CLG_STATUS_INVALID_AXIS);
    CLG_ASSERT_STATUS(ctx, clg_warm_up_gather_ex(ctx, NULL, &i, 0, NULL, &opt),
                      CLG_STATUS_NULL_POINTER);
    clg_call_options no_mode = {.oob = (clg_oob_mode)7};
    CLG_ASSERT_STATUS(ctx, warm_up(c, ctx, &d, &i, NULL, &no_mode),
                      CLG_STATUS_INVALID_ARGUMENT);
    clReleaseMemObject(bd);
    clReleaseMemObject(bi);
    clReleaseMemObject(bo);
    clg_context_destroy(ctx);
    free(data);
    free(out);
    free(ref);
    free(idx);
}

static void test_warm_up_builds_every_kernel(void **state)
{
    (void)state;
    static const warm_case cases[] = {
        {"Gather, small", CLG_OP_GATHER, 40, 16, 10, NULL},
        {"Gather, 100000 indices (check kernel, normalising pass)",
         CLG_OP_GATHER, 300, 4, 100000, NULL},
        {"GatherElements", CLG_OP_GATHER_ELEMENTS, 30, 20, 0, NULL},
        {"Gather, split into pieces", CLG_OP_GATHER, 40, 7, 40, "1024"},
        {"GatherElements, split into pieces", CLG_OP_GATHER_ELEMENTS, 16, 20,
         0, "1024"},
    };
    char dir[512];
    make_dir(dir, sizeof dir);
    static const clg_oob_mode modes[] = {CLG_OOB_RAISE, CLG_OOB_WRAP,
                                         CLG_OOB_CLIP, CLG_OOB_FILL};
    for (size_t k = 0; k < CLG_TEST_ARRAY_LEN(cases); k++)
        for (size_t m = 0; m < CLG_TEST_ARRAY_LEN(modes); m++)
            warm_one(&cases[k], modes[m], dir);
    remove_dir(dir);
}

/* The warm-up without options builds raise's kernels, which are not
 * fill's: a fill call after it builds more, and after the warm-up with
 * fill's options nothing. */
static void test_warm_up_follows_the_mode(void **state)
{
    (void)state;
    char dir[512];
    make_dir(dir, sizeof dir);
    int64_t dshape[2] = {40, 16}, ishape[1] = {10}, oshape[2] = {10, 16};
    float data[40 * 16], out[10 * 16];
    int64_t idx[10] = {0, 1, 2, 3, 39, -40, 40, -41, 7, 9};
    for (size_t k = 0; k < 40 * 16; k++)
        data[k] = (float)k;
    clg_tensor d = {CLG_DTYPE_FLOAT, 2, dshape, data};
    clg_tensor i = {CLG_DTYPE_INT64, 1, ishape, idx};
    clg_tensor o = {CLG_DTYPE_FLOAT, 2, oshape, out};
    clg_call_options fill = {.oob = CLG_OOB_FILL};
    for (int with_options = 0; with_options < 2; with_options++) {
        clg_context *ctx = context_on(dir);
        clg_test_set_case("warm-up %s options, then a fill call",
                          with_options ? "with fill's" : "without");
        CLG_ASSERT_OK(ctx,
                      with_options
                          ? clg_warm_up_gather_ex(ctx, &d, &i, 0, &o, &fill)
                          : clg_warm_up_gather(ctx, &d, &i, 0, &o));
        size_t built = kernels_built(ctx);
        CLG_ASSERT_OK(ctx, clg_gather_ex(ctx, &d, &i, 0, &o, &fill));
        if (with_options)
            assert_int_equal(kernels_built(ctx), built);
        else
            assert_true(kernels_built(ctx) > built);
        /* Row 6 (index 40) and row 7 (-41) are zeroed, row 5 (-40) is 0. */
        assert_true(out[6 * 16] == 0.0f && out[7 * 16 + 15] == 0.0f);
        assert_true(out[4 * 16] == 39.0f * 16 && out[5 * 16 + 1] == 1.0f);
        clg_context_destroy(ctx);
    }
    remove_dir(dir);
}

int main(int argc, char **argv)
{
    if (argc == 3 && !strcmp(argv[1], "--fill"))
        return fill(argv[2]) == 0 ? 0 : 1;
    if (argc == 6 && !strcmp(argv[1], "--as-user"))
        return as_user(argv[2], argv[3], argv[4], argv[5]);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_miss_then_hit),
        cmocka_unit_test(test_every_corruption_is_a_miss),
        cmocka_unit_test(test_other_driver_version_misses),
        cmocka_unit_test(test_other_host_isa_misses),
        cmocka_unit_test(test_switches),
        cmocka_unit_test(test_folder_cannot_be_created),
        cmocka_unit_test(test_relative_folder_is_created),
        cmocka_unit_test(test_read_only_folder),
        cmocka_unit_test(test_full_disk),
        cmocka_unit_test(test_untrusted_folder_is_not_used),
        cmocka_unit_test(test_root_with_another_users_home),
        cmocka_unit_test(test_clear_refuses_untrusted_folder),
        cmocka_unit_test(test_untrusted_entry_is_not_used),
        cmocka_unit_test(test_fifo_at_entry_does_not_block),
        cmocka_unit_test(test_huge_file_at_entry_is_not_read),
        cmocka_unit_test(test_foreign_files_survive),
        cmocka_unit_test(test_other_identity_is_not_handed_to_the_runtime),
        cmocka_unit_test(test_shipped_folder),
        cmocka_unit_test(test_two_processes_fill_one_folder),
        cmocka_unit_test(test_cap_evicts_least_recently_used),
        cmocka_unit_test(test_warm_up_builds_every_kernel),
        cmocka_unit_test(test_warm_up_follows_the_mode),
    };
    return CLG_RUN_DEVICE_TESTS(tests);
}
