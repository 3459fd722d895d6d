/* SPDX-License-Identifier: Apache-2.0 */
/* The persistent program cache (docs/design.md, "Program cache"), after
 * OpenCV's OpenCL cache and Arm Compute Library's saved program cache.
 *
 * One file per program, <16 hex digits>.bin, the XXH3-64 of its key:
 *   magic "CLGPROG\0", u32 format version (2), u32 record length,
 *   u64 payload length, u64 XXH3-64 of the payload, the record, the
 *   payload (the device's CL_PROGRAM_BINARIES), host byte order. The
 *   record is a line "passed=<entry points>\n" (the kernels whose
 *   known-answer self-test passed, names separated by ','), then the key.
 * The key is stored whole and compared whole, so a hash collision is a
 * miss, never another program. An entry of format 1 (which named no entry
 * points: its presence meant the whole program passed) is a miss.
 * Anything that does not match in full is a miss; the program is then
 * built from source and its entry rewritten.
 * Writes go to a temporary file in the same folder, renamed over the
 * entry, so that readers in other threads and processes see a whole
 * entry or none. Beyond the cap the least recently used entries are
 * evicted: a hit touches its entry's modification time. Only a folder
 * and entries that no one but this user (or root) could have written are
 * read or written (see "trust" below). Nothing here reports an error: the
 * cache only ever saves work. */
#define _GNU_SOURCE
#include "cache.h"

#include "context.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#elif defined(__linux__)
#include <sys/auxv.h>
#endif

#define DISK_MAGIC "CLGPROG"
#define DISK_FORMAT 2u
/* A bigger payload is not ours (POCL's binaries are about 10 MB). */
#define DISK_MAX_FILE (UINT64_C(1) << 30)
/* A longer record is not ours (the passed line, a device description and
 * a program key). */
#define DISK_PASSED_TAG "passed="
#define DISK_MAX_KEY (CLG_DISK_IDENT_MAX + 4096 + CLG_DISK_PASSED_MAX + 8)
/* A temporary file older than this was left by a process that died. */
#define DISK_STALE_TEMP_S 3600

typedef struct disk_header {
    char magic[8];
    uint32_t format, key_len; /* key_len: the record's, passed line and key */
    uint64_t payload_len, checksum;
} disk_header;

/* ------------------------------------------------------------ settings */

/* The settings come from host/env.c (clg_env_read_cache): a context's
 * are read once at its creation, the context-less calls below read them
 * when called. */

/* ------------------------------------------------------------ keys */

int clg_disk_program_key(const char *const *files, const char *const *sources,
                         size_t nfiles, const char *options, char *buf,
                         size_t cap)
{
    XXH64_hash_t h = 0;
    size_t len = 0;
    int n = snprintf(buf, cap, "files=");
    for (size_t i = 0; n >= 0 && (size_t)n < cap - len && i < nfiles; i++) {
        h = XXH3_64bits_withSeed(sources[i], strlen(sources[i]), h);
        len += (size_t)n;
        n = snprintf(buf + len, cap - len, "%s%s", i ? ";" : "", files[i]);
    }
    if (n < 0 || (size_t)n >= cap - len)
        return 0;
    len += (size_t)n;
    n = snprintf(buf + len, cap - len, "\nsources=%016llx\noptions=%s\n",
                 (unsigned long long)h, options);
    return n >= 0 && (size_t)n < cap - len;
}

/* One device string into the description; 0 when the query failed. */
static int describe_device(clg_context *ctx, cl_device_info what,
                           const char *name, size_t *len)
{
    char value[512];
    size_t cap = sizeof ctx->disk.ident - *len;
    if (clGetDeviceInfo(ctx->device, what, sizeof value, value, NULL) !=
        CL_SUCCESS)
        return 0;
    value[sizeof value - 1] = '\0';
    if (what == CL_DRIVER_VERSION && ctx->disk.set.driver_override[0])
        snprintf(value, sizeof value, "%s", ctx->disk.set.driver_override);
    int n = snprintf(ctx->disk.ident + *len, cap, "%s=%s\n", name, value);
    if (n < 0 || (size_t)n >= cap)
        return 0;
    *len += (size_t)n;
    return 1;
}

/* The host CPU's instruction set extensions as hex words, for the keys
 * of CPU devices: their binaries hold native code for the extensions
 * their compiler found (Intel's CPU runtime names the device after the
 * CPU's brand alone), so a binary written on another CPU, or under an
 * emulator that hides some (Valgrind hides AVX-512), would run slower
 * code, or code this CPU lacks. x86: CPUID leaves 1 (ECX, EDX), 7
 * (subleaf 0 EBX, ECX, EDX; subleaf 1 EAX) and 0x80000001 (ECX, EDX),
 * and XCR0, the register states the OS saves; other Linux hosts: the
 * auxiliary vector's AT_HWCAP and AT_HWCAP2; elsewhere "-". */
static void host_isa(char *buf, size_t cap)
{
#if defined(__x86_64__) || defined(__i386__)
    unsigned r[10] = {0}, skip = 0, lo = 0, hi = 0;
    __get_cpuid(1, &skip, &skip, &r[0], &r[1]);
    __get_cpuid_count(7, 0, &skip, &r[2], &r[3], &r[4]);
    __get_cpuid_count(7, 1, &r[5], &skip, &skip, &skip);
    __get_cpuid(0x80000001u, &skip, &skip, &r[6], &r[7]);
    if (r[0] & bit_OSXSAVE)
        __asm__("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    r[8] = hi, r[9] = lo;
    snprintf(buf, cap, "x86 %x %x %x %x %x %x %x %x %x:%x", r[0], r[1], r[2],
             r[3], r[4], r[5], r[6], r[7], r[8], r[9]);
#elif defined(__linux__) && defined(AT_HWCAP2)
    snprintf(buf, cap, "%lx %lx", getauxval(AT_HWCAP), getauxval(AT_HWCAP2));
#elif defined(__linux__)
    snprintf(buf, cap, "%lx", getauxval(AT_HWCAP));
#else
    snprintf(buf, cap, "-");
#endif
}

/* The device part of every key: platform name and version, device name,
 * vendor, driver version and OpenCL C version, clgather's version, and
 * for CPU devices the host's instruction set (host_isa). Made once, on
 * the first use; "" when a query failed (the cache is then off for the
 * context). */
static const char *describe(clg_context *ctx)
{
    char pname[512], pversion[512];
    cl_platform_id platform = NULL;
    size_t len = 0;
    if (ctx->disk.described)
        return ctx->disk.ident;
    ctx->disk.described = 1;
    ctx->disk.ident[0] = '\0';
    if (clGetDeviceInfo(ctx->device, CL_DEVICE_PLATFORM, sizeof platform,
                        &platform, NULL) != CL_SUCCESS ||
        clGetPlatformInfo(platform, CL_PLATFORM_NAME, sizeof pname, pname,
                          NULL) != CL_SUCCESS ||
        clGetPlatformInfo(platform, CL_PLATFORM_VERSION, sizeof pversion,
                          pversion, NULL) != CL_SUCCESS)
        return ctx->disk.ident;
    pname[sizeof pname - 1] = pversion[sizeof pversion - 1] = '\0';
    int n = snprintf(ctx->disk.ident, sizeof ctx->disk.ident,
                     "clgather=%s\nplatform=%s\nplatform_version=%s\n",
                     CLG_VERSION_STRING, pname, pversion);
    if (n < 0 || (size_t)n >= sizeof ctx->disk.ident)
        return ctx->disk.ident;
    len = (size_t)n;
    if (!describe_device(ctx, CL_DEVICE_NAME, "device", &len) ||
        !describe_device(ctx, CL_DEVICE_VENDOR, "vendor", &len) ||
        !describe_device(ctx, CL_DRIVER_VERSION, "driver", &len) ||
        !describe_device(ctx, CL_DEVICE_OPENCL_C_VERSION, "opencl_c", &len))
        ctx->disk.ident[0] = '\0';
    else if (ctx->type == CLG_DEVICE_TYPE_CPU) {
        char isa[256];
        if (ctx->disk.set.isa_override[0])
            snprintf(isa, sizeof isa, "%s", ctx->disk.set.isa_override);
        else
            host_isa(isa, sizeof isa);
        size_t cap = sizeof ctx->disk.ident - len;
        int m = snprintf(ctx->disk.ident + len, cap, "host_isa=%s\n", isa);
        if (m < 0 || (size_t)m >= cap)
            ctx->disk.ident[0] = '\0';
    }
    return ctx->disk.ident;
}

/* The whole key of a program (device description + program key) into a
 * new string, and its entry's file name into `name`; NULL when the cache
 * is off, the device could not be described, or memory ran out. */
static char *whole_key(clg_context *ctx, const char *key, char name[32])
{
    if (!ctx->disk.set.on)
        return NULL;
    const char *ident = describe(ctx);
    size_t a = strlen(ident), b = strlen(key);
    char *whole = *ident ? malloc(a + b + 1) : NULL;
    if (!whole)
        return NULL;
    memcpy(whole, ident, a);
    memcpy(whole + a, key, b + 1);
    snprintf(name, 32, "%016llx.bin",
             (unsigned long long)XXH3_64bits(whole, a + b));
    return whole;
}

/* ------------------------------------------------------------ trust */

/* What the cache trusts (docs/guide.md, "Program cache"), after OpenSSH's
 * StrictModes. A binary is code that the runtime runs in this process (on
 * a CPU device, native code that POCL loads with dlopen), and the key is
 * made of public facts with a checksum that anyone can recompute, so only
 * a file that no one but this user (or root) could have written is read:
 * - the folder: owned by the effective user, or by root (a shipped,
 *   read-only folder), and writable by neither group nor others;
 * - every folder above it, up to "/", walked through ".." from the open
 *   folder (so through no link): owned by the effective user or root, and
 *   writable by neither group nor others unless sticky, as /tmp is (there
 *   no one else may rename or remove what is ours);
 * - an entry: a regular file, opened without following a link and without
 *   blocking (a FIFO), examined through its descriptor; owned by the
 *   effective user or root and writable by neither group nor others.
 * Root trusts root alone. Anything else is a miss, never an error and
 * never read further; the reason, one of the strings below, is kept for
 * clg_context_cache_refusal. A folder is also written only when trusted,
 * and only files that start with this library's header are removed. */
static const char R_OFF[] = "not used: the program cache is off";
static const char R_ENV[] = "not used: CLGATHER_CACHE or CLGATHER_CACHE_MAX "
                            "is malformed";
static const char R_FOLDER_OPEN[] = "not used: folder cannot be opened";
static const char R_FOLDER_NOT_DIR[] = "not used: it, or a part of its "
                                       "path, is not a folder";
static const char R_FOLDER_OWNER[] = "not used: folder owned by another user";
static const char R_FOLDER_WRITABLE[] = "not used: folder writable by group "
                                        "or others";
static const char R_PARENT_OPEN[] = "not used: a folder above it cannot be "
                                    "examined";
static const char R_PARENT_OWNER[] = "not used: a folder above it is owned by "
                                     "another user";
static const char R_PARENT_WRITABLE[] = "not used: a folder above it is "
                                        "writable by group or others";
static const char R_PARENT_UNTRUSTED[] = "not used: a folder on its path is "
                                         "owned by another user or "
                                         "writable by others";
static const char R_NOT_CREATED[] = "not used: the folder cannot be created "
                                    "(a part of its path is not a folder, "
                                    "or not writable)";
static const char R_ENTRY_ABSENT[] = "entry not used: no such file";
static const char R_ENTRY_NAME[] = "entry not used: not an entry's name";
static const char R_ENTRY_OPEN[] = "entry not used: cannot be read";
static const char R_ENTRY_LINK[] = "entry not used: a symbolic link";
static const char R_ENTRY_TYPE[] = "entry not used: not a regular file";
static const char R_ENTRY_OWNER[] = "entry not used: owned by another user";
static const char R_ENTRY_WRITABLE[] = "entry not used: writable by group or "
                                       "others";
static const char R_ENTRY_FOREIGN[] = "entry not used: not a clgather entry";
static const char R_ENTRY_DAMAGED[] = "entry not used: truncated or damaged";
static const char R_ENTRY_IDENT[] = "entry not used: built for another "
                                    "platform, device, driver or clgather";
static const char R_ENTRY_KEY[] = "entry not used: another program's entry";
static const char R_ENTRY_CHECKSUM[] = "entry not used: its checksum does not "
                                       "match";
static const char R_ENTRY_REJECTED[] = "entry not used: the runtime refused "
                                       "its binary";

/* Opens what may be a folder only to examine it, needing no read
 * permission where the system allows. */
#ifdef O_PATH
#define DISK_O_EXAMINE (O_PATH | O_DIRECTORY | O_CLOEXEC)
#else
#define DISK_O_EXAMINE (O_RDONLY | O_DIRECTORY | O_CLOEXEC)
#endif

/* 1 when `st` is owned by a user the cache trusts: the effective user, or
 * root. */
static int trusted_owner(const struct stat *st)
{
    return st->st_uid == geteuid() || st->st_uid == 0;
}

static int writable_by_others(const struct stat *st)
{
    return (st->st_mode & (S_IWGRP | S_IWOTH)) != 0;
}

/* The folders above the one open as dfd (examined as *st), up to the root;
 * "" when each is trusted. */
static const char *check_parents(int dfd, struct stat st)
{
    const char *why = R_PARENT_OPEN;
    int fd = dfd;
    for (int depth = 0; depth < CLG_CACHE_PATH_MAX; depth++) {
        struct stat up;
        int parent = openat(fd, "..", DISK_O_EXAMINE);
        if (parent < 0 && depth == 0 && errno == EACCES) {
            why = R_FOLDER_OPEN; /* the folder itself cannot be searched */
            break;
        }
        if (fd != dfd)
            close(fd);
        fd = parent;
        if (fd < 0 || fstat(fd, &up) != 0)
            break;
        if (up.st_dev == st.st_dev && up.st_ino == st.st_ino) {
            why = ""; /* "/" is its own parent */
            break;
        }
        if (!trusted_owner(&up)) {
            why = R_PARENT_OWNER;
            break;
        }
        if (writable_by_others(&up) && !(up.st_mode & S_ISVTX)) {
            why = R_PARENT_WRITABLE;
            break;
        }
        st = up;
    }
    if (fd >= 0 && fd != dfd)
        close(fd);
    return why;
}

/* Opens folder `dir` when the cache trusts it: a descriptor to examine it
 * and open its files by (no read permission needed), or -1 with the
 * reason in *why ("" when the folder does not exist yet). */
static int open_folder(const char *dir, const char **why)
{
    struct stat st;
    int dfd = open(dir, DISK_O_EXAMINE);
    *why = "";
    if (dfd < 0) {
        if (errno == ENOTDIR)
            *why = R_FOLDER_NOT_DIR;
        else if (errno != ENOENT)
            *why = R_FOLDER_OPEN;
        return -1;
    }
    if (fstat(dfd, &st) != 0)
        *why = R_FOLDER_OPEN;
    else if (!trusted_owner(&st))
        *why = R_FOLDER_OWNER;
    else if (writable_by_others(&st))
        *why = R_FOLDER_WRITABLE;
    else
        *why = check_parents(dfd, st);
    if (**why) {
        close(dfd);
        return -1;
    }
    return dfd;
}

/* Opens file `name` of folder dfd for reading without following a link
 * and without blocking: its descriptor, or -1 when it cannot. */
static int open_file(int dfd, const char *name)
{
    return openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
}

/* Opens entry `name` of the trusted folder dfd and examines it through
 * its descriptor: *fd, or -1 with the reason ("" when it is absent). */
static const char *open_entry(int dfd, const char *name, int *fd,
                              struct stat *st)
{
    const char *why = "";
    if ((*fd = open_file(dfd, name)) < 0)
        return errno == ENOENT  ? ""
               : errno == ELOOP ? R_ENTRY_LINK
                                : R_ENTRY_OPEN;
    if (fstat(*fd, st) != 0)
        why = R_ENTRY_OPEN;
    else if (!S_ISREG(st->st_mode))
        why = R_ENTRY_TYPE;
    else if (!trusted_owner(st))
        why = R_ENTRY_OWNER;
    else if (writable_by_others(st))
        why = R_ENTRY_WRITABLE;
    if (*why) {
        close(*fd);
        *fd = -1;
    }
    return why;
}

/* ------------------------------------------------------------ load */

/* Reads exactly `len` bytes; 0 when the file ends first or fails. */
static int read_exact(int fd, void *buf, size_t len)
{
    unsigned char *p = buf;
    while (len > 0) {
        ssize_t n = read(fd, p, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return 0;
        p += n;
        len -= (size_t)n;
    }
    return 1;
}

/* The header of the entry open as fd (examined as *st), read alone: ""
 * when it is this library's, of this format, with lengths that add up to
 * the file's size. */
static const char *read_header(int fd, const struct stat *st, disk_header *h)
{
    unsigned char raw[sizeof *h];
    if (!read_exact(fd, raw, sizeof h->magic) ||
        memcmp(raw, DISK_MAGIC, sizeof h->magic))
        return R_ENTRY_FOREIGN;
    if (!read_exact(fd, raw + sizeof h->magic, sizeof raw - sizeof h->magic))
        return R_ENTRY_DAMAGED;
    memcpy(h, raw, sizeof *h);
    if (h->format != DISK_FORMAT)
        return R_ENTRY_FOREIGN;
    if (h->key_len == 0 || h->key_len > DISK_MAX_KEY || h->payload_len == 0 ||
        h->payload_len > DISK_MAX_FILE ||
        (uint64_t)st->st_size != sizeof *h + h->key_len + h->payload_len)
        return R_ENTRY_DAMAGED;
    return "";
}

/* Length of the device description at the head of a whole key: up to the
 * line "files=" that starts the program's part (clg_disk_program_key). */
static size_t ident_part(const char *key, size_t len)
{
    for (size_t i = 0; i + 6 <= len; i++)
        if ((i == 0 || key[i - 1] == '\n') && !memcmp(key + i, "files=", 6))
            return i;
    return len;
}

/* The line "passed=<names>\n" at the head of a record of `len` bytes:
 * its length, newline included, and its names into passed (size cap); 0
 * when the record does not start with one of names made of letters,
 * digits, '_' and ','. */
static size_t passed_line(const char *rec, size_t len, char *passed,
                          size_t cap)
{
    size_t tag = sizeof DISK_PASSED_TAG - 1;
    const char *eol = memchr(rec, '\n', len);
    if (!eol || (size_t)(eol - rec) < tag || memcmp(rec, DISK_PASSED_TAG, tag))
        return 0;
    size_t n = (size_t)(eol - rec) - tag;
    if (n >= cap)
        return 0;
    for (size_t i = 0; i < n; i++) {
        char c = rec[tag + i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
              (c >= '0' && c <= '9') || c == '_' || c == ','))
            return 0;
    }
    memcpy(passed, rec + tag, n);
    passed[n] = '\0';
    return tag + n + 1;
}

/* Reads the record stored after the header: its passed line into passed
 * (size cap), then compares its key with `whole`: first the device
 * description (the platform, device, driver and clgather it was built
 * for), then the program's part. */
static const char *check_key(int fd, const disk_header *h, const char *whole,
                             char *passed, size_t cap)
{
    size_t len = strlen(whole), skip = 0;
    char *stored = malloc(h->key_len);
    const char *why = R_ENTRY_DAMAGED;
    if (!stored)
        return R_ENTRY_OPEN;
    if (read_exact(fd, stored, h->key_len) &&
        (skip = passed_line(stored, h->key_len, passed, cap)) > 0) {
        const char *key = stored + skip;
        size_t key_len = h->key_len - skip;
        size_t a = ident_part(whole, len), b = ident_part(key, key_len);
        if (a != b || memcmp(whole, key, a))
            why = R_ENTRY_IDENT;
        else if (key_len != len || memcmp(whole, key, len))
            why = R_ENTRY_KEY;
        else
            why = "";
    }
    free(stored);
    return why;
}

/* The payload, read after the key (the header's length, no more), into a
 * new buffer when its checksum matches. */
static const char *read_payload(int fd, const disk_header *h,
                                unsigned char **payload)
{
    unsigned char *buf = malloc((size_t)h->payload_len);
    const char *why = "";
    if (!buf)
        return R_ENTRY_OPEN;
    if (!read_exact(fd, buf, (size_t)h->payload_len))
        why = R_ENTRY_DAMAGED;
    else if (XXH3_64bits(buf, (size_t)h->payload_len) != h->checksum)
        why = R_ENTRY_CHECKSUM;
    if (*why)
        free(buf);
    else
        *payload = buf;
    return why;
}

/* A program from a binary, built; NULL when the runtime rejects it. */
static cl_program from_binary(clg_context *ctx, const unsigned char *payload,
                              size_t len, const char *options)
{
    cl_int err = CL_SUCCESS, status = CL_SUCCESS;
    cl_program program = clCreateProgramWithBinary(ctx->cl_ctx, 1,
                                                   &ctx->device, &len,
                                                   &payload, &status, &err);
    if (program && (err != CL_SUCCESS || status != CL_SUCCESS ||
                    clBuildProgram(program, 1, &ctx->device, options, NULL,
                                   NULL) != CL_SUCCESS)) {
        clReleaseProgram(program);
        program = NULL;
    }
    return program;
}

/* The program of entry `name` of the trusted folder dfd, when the entry
 * is trusted and holds `whole`, into *program, and its passed entry points
 * into passed (size cap); the reason otherwise ("" when absent). The
 * binary reaches the runtime only after the header, the key (device
 * description first) and the checksum have matched. */
static const char *load_entry(clg_context *ctx, int dfd, const char *name,
                              const char *whole, const char *options,
                              cl_program *program, char *passed, size_t cap)
{
    struct stat st;
    disk_header h;
    unsigned char *payload = NULL;
    int fd = -1;
    const char *why = open_entry(dfd, name, &fd, &st);
    if (fd >= 0 && !*(why = read_header(fd, &st, &h)) &&
        !*(why = check_key(fd, &h, whole, passed, cap)) &&
        !*(why = read_payload(fd, &h, &payload))) {
        *program = from_binary(ctx, payload, (size_t)h.payload_len, options);
        if (*program) {
            futimens(fd, NULL); /* last use, for eviction */
        } else {
            why = R_ENTRY_REJECTED;
            atomic_fetch_add(&ctx->disk.rejected, 1);
        }
    }
    if (fd >= 0)
        close(fd);
    free(payload);
    return why;
}

cl_program clg_disk_load(clg_context *ctx, const char *key,
                         const char *options, char *passed, size_t cap)
{
    char name[32];
    char *whole = whole_key(ctx, key, name);
    cl_program program = NULL;
    const char *why = "";
    passed[0] = '\0';
    if (!whole)
        return NULL;
    int dfd = open_folder(ctx->disk.set.dir, &why);
    if (dfd >= 0) {
        why = load_entry(ctx, dfd, name, whole, options, &program, passed,
                         cap);
        close(dfd);
    }
    if (*why)
        ctx->disk.refusal = why;
    if (!program) /* a miss names no entry point, whatever was read */
        passed[0] = '\0';
    atomic_fetch_add(program ? &ctx->disk.hits : &ctx->disk.misses, 1);
    free(whole);
    return program;
}

/* ------------------------------------------------------------ store */

/* 1 when the nearest part of `dir`'s path that exists is not a folder
 * (a file where a folder would have to be created, or a symbolic link to
 * nothing, through which none can be). */
static int blocked_by_file(const char *dir)
{
    char path[CLG_CACHE_PATH_MAX];
    struct stat st;
    snprintf(path, sizeof path, "%s", dir);
    for (;;) {
        if (stat(path, &st) == 0)
            return !S_ISDIR(st.st_mode);
        if (lstat(path, &st) == 0)
            return 1; /* a link to nothing */
        char *slash = strrchr(path, '/');
        if (!slash || slash == path)
            return 0;
        *slash = '\0';
    }
}

/* Why a folder not made yet cannot be made where `dir` names it (a file
 * on its path, or a folder above it that another user controls: nothing
 * is created there), or "" when the first store makes it. */
static const char *creation_refusal(const char *dir)
{
    if (blocked_by_file(dir))
        return R_NOT_CREATED;
    return clg_rt_trusted_folder(dir) ? "" : R_PARENT_UNTRUSTED;
}

/* Creates `dir` and its parents (mode 0700); 0 when it cannot. */
static int make_dirs(const char *dir)
{
    char path[CLG_CACHE_PATH_MAX];
    struct stat st;
    if (stat(dir, &st) == 0)
        return S_ISDIR(st.st_mode);
    /* Nothing is created inside a folder another user controls. */
    if (!clg_rt_trusted_folder(dir))
        return 0;
    snprintf(path, sizeof path, "%s", dir);
    for (char *p = path + 1; *p; p++)
        if (*p == '/') {
            *p = '\0';
            if (mkdir(path, 0700) != 0 && errno != EEXIST)
                return 0;
            *p = '/';
        }
    /* EEXIST from a link to nothing: check what was made. */
    return (mkdir(path, 0700) == 0 || errno == EEXIST) &&
           stat(dir, &st) == 0 && S_ISDIR(st.st_mode);
}

/* The device's binary of `program` into a new buffer; NULL on failure. */
static unsigned char *program_binary(clg_context *ctx, cl_program program,
                                     size_t *len)
{
    cl_device_id devices[64];
    size_t sizes[64];
    unsigned char *bins[64] = {NULL};
    cl_uint n = 0, k = 0;
    if (clGetProgramInfo(program, CL_PROGRAM_NUM_DEVICES, sizeof n, &n,
                         NULL) != CL_SUCCESS ||
        n == 0 || n > 64 ||
        clGetProgramInfo(program, CL_PROGRAM_DEVICES, n * sizeof devices[0],
                         devices, NULL) != CL_SUCCESS ||
        clGetProgramInfo(program, CL_PROGRAM_BINARY_SIZES, n * sizeof sizes[0],
                         sizes, NULL) != CL_SUCCESS)
        return NULL;
    while (k < n && devices[k] != ctx->device)
        k++;
    if (k == n || sizes[k] == 0 || sizes[k] > DISK_MAX_FILE ||
        !(bins[k] = malloc(sizes[k])))
        return NULL;
    if (clGetProgramInfo(program, CL_PROGRAM_BINARIES, n * sizeof bins[0],
                         bins, NULL) != CL_SUCCESS) {
        free(bins[k]);
        return NULL;
    }
    *len = sizes[k];
    return bins[k];
}

/* Writes all `len` bytes; 0 on failure (disk full, file too large). */
static int write_all(int fd, const void *data, size_t len)
{
    const unsigned char *p = data;
    while (len > 0) {
        ssize_t n = write(fd, p, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return 0;
        p += n;
        len -= (size_t)n;
    }
    return 1;
}

/* The entry: header, record (the passed line, the key), payload, into a
 * temporary file of the trusted folder dfd (mode 0600), renamed over entry
 * `name`. */
static void write_entry(clg_context *ctx, int dfd, const char *name,
                        const char *key, const char *passed,
                        cl_program program)
{
    char temp[96];
    size_t len = 0;
    unsigned char *payload = NULL;
    int fd = -1, ok = 0;
    snprintf(temp, sizeof temp, ".tmp-%ld-%llu-%llu", (long)getpid(),
             (unsigned long long)ctx->id,
             (unsigned long long)atomic_fetch_add(&ctx->disk.temp_counter, 1));
    /* The file first: an unwritable folder costs no binary. */
    fd = openat(dfd, temp,
                O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0)
        return;
    if ((payload = program_binary(ctx, program, &len)) != NULL) {
        size_t tag = sizeof DISK_PASSED_TAG - 1, names = strlen(passed);
        disk_header h = {DISK_MAGIC, DISK_FORMAT,
                         (uint32_t)(tag + names + 1 + strlen(key)),
                         (uint64_t)len, XXH3_64bits(payload, len)};
        ok = write_all(fd, &h, sizeof h) &&
             write_all(fd, DISK_PASSED_TAG, tag) &&
             write_all(fd, passed, names) && write_all(fd, "\n", 1) &&
             write_all(fd, key, strlen(key)) && write_all(fd, payload, len);
    }
    ok = close(fd) == 0 && ok && renameat(dfd, temp, dfd, name) == 0;
    if (!ok)
        unlinkat(dfd, temp, 0);
    else
        atomic_fetch_add(&ctx->disk.stores, 1);
    free(payload);
}

/* One entry seen by the eviction scan. */
typedef struct disk_file {
    char name[32];
    struct timespec used;
    uint64_t bytes;
} disk_file;

static int older_first(const void *a, const void *b)
{
    const struct timespec *x = &((const disk_file *)a)->used;
    const struct timespec *y = &((const disk_file *)b)->used;
    if (x->tv_sec != y->tv_sec)
        return x->tv_sec < y->tv_sec ? -1 : 1;
    return (x->tv_nsec > y->tv_nsec) - (x->tv_nsec < y->tv_nsec);
}

/* 1 for a name of the form <16 hex digits>.bin. */
static int is_entry_name(const char *name)
{
    return strlen(name) == 20 && strspn(name, "0123456789abcdef") == 16 &&
           !strcmp(name + 16, ".bin");
}

/* 1 for a name of the form .tmp-<pid>-<context>-<count> (write_entry). */
static int is_temp_name(const char *name)
{
    if (strncmp(name, ".tmp-", 5))
        return 0;
    name += 5;
    for (int part = 0; part < 3; part++) {
        size_t n = strspn(name, "0123456789");
        if (n == 0 || n > 20)
            return 0;
        name += n;
        if (part < 2 && *name++ != '-')
            return 0;
    }
    return *name == '\0';
}

/* 1 when file `name` of folder dfd is an entry or a temporary file of
 * this library: its name, a regular file, this library's magic at its
 * head (whatever the format), or for a temporary file empty (its process
 * died between creating it and writing the header, write_entry). Its
 * status into *st. Nothing else is ever removed from a folder. */
static int is_ours(int dfd, const char *name, struct stat *st)
{
    disk_header h;
    int fd;
    if (!is_entry_name(name) && !is_temp_name(name))
        return 0;
    if ((fd = open_file(dfd, name)) < 0)
        return 0;
    int ours = fstat(fd, st) == 0 && S_ISREG(st->st_mode) &&
               ((st->st_size == 0 && is_temp_name(name)) ||
                (read_exact(fd, &h, sizeof h) &&
                 !memcmp(h.magic, DISK_MAGIC, sizeof h.magic)));
    close(fd);
    return ours;
}

/* Adds one entry to the eviction list; 0 when memory ran out. */
static int add_file(disk_file **files, size_t *count, size_t *capacity,
                    const char *name, const struct stat *st)
{
    if (*count == *capacity) {
        size_t cap = *capacity ? 2 * *capacity : 64;
        disk_file *grown = realloc(*files, cap * sizeof *grown);
        if (!grown)
            return 0;
        *files = grown;
        *capacity = cap;
    }
    disk_file *f = &(*files)[(*count)++];
    size_t len = strnlen(name, sizeof f->name - 1);
    memcpy(f->name, name, len); /* entries' names fit */
    f->name[len] = '\0';
    f->used = st->st_mtim;
    f->bytes = (uint64_t)st->st_size;
    return 1;
}

/* The trusted folder dfd, as it names it (no path is looked up again),
 * opened to be read; NULL (errno set) when it cannot be. */
static DIR *read_folder(int dfd)
{
    int copy = openat(dfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    DIR *d = copy >= 0 ? fdopendir(copy) : NULL; /* closedir closes it */
    if (!d && copy >= 0) {
        int err = errno;
        close(copy);
        errno = err;
    }
    return d;
}

/* Removes the least recently used entries of the trusted folder dfd until
 * it holds at most `max` bytes of them, and temporary files left by dead
 * processes. */
static void evict(int dfd, uint64_t max)
{
    DIR *d = read_folder(dfd);
    disk_file *files = NULL;
    size_t count = 0, capacity = 0;
    uint64_t total = 0;
    struct dirent *e;
    struct stat st;
    if (!d)
        return;
    while ((e = readdir(d)) != NULL) {
        if (!is_ours(dfd, e->d_name, &st))
            continue;
        if (!is_entry_name(e->d_name)) {
            if (time(NULL) - st.st_mtime > DISK_STALE_TEMP_S)
                unlinkat(dfd, e->d_name, 0);
            continue;
        }
        if (!add_file(&files, &count, &capacity, e->d_name, &st))
            break;
        total += (uint64_t)st.st_size;
    }
    if (total > max && count > 0) {
        qsort(files, count, sizeof *files, older_first);
        for (size_t i = 0; i < count && total > max; i++)
            if (unlinkat(dfd, files[i].name, 0) == 0 || errno == ENOENT)
                total -= files[i].bytes;
    }
    closedir(d);
    free(files);
}

void clg_disk_store(clg_context *ctx, const char *key, const char *passed,
                    cl_program program)
{
    char name[32];
    const char *why = "";
    int dfd = -1;
    if (strlen(passed) >= CLG_DISK_PASSED_MAX)
        return;
    char *whole = whole_key(ctx, key, name);
    if (!whole)
        return;
    struct stat st;
    if (stat(ctx->disk.set.dir, &st) != 0)
        why = creation_refusal(ctx->disk.set.dir);
    else if (!S_ISDIR(st.st_mode))
        why = R_FOLDER_NOT_DIR;
    if (!*why && !make_dirs(ctx->disk.set.dir))
        why = R_NOT_CREATED;
    if (!*why && (dfd = open_folder(ctx->disk.set.dir, &why)) >= 0) {
        write_entry(ctx, dfd, name, whole, passed, program);
        evict(dfd, ctx->disk.set.max_bytes);
        close(dfd);
    }
    if (*why)
        ctx->disk.refusal = why;
    free(whole);
}

/* ------------------------------------------------------------ public */

static void info_from(const clg_disk_settings *s, clg_cache_info *info)
{
    memset(info, 0, sizeof *info);
    info->enabled = s->on;
    snprintf(info->directory, sizeof info->directory, "%s", s->dir);
    info->max_bytes = s->max_bytes;
}

clg_status clg_cache_environment(clg_cache_info *info)
{
    clg_disk_settings s;
    char msg[512];
    if (!info)
        return clg_fail(NULL, CLG_STATUS_NULL_POINTER, "info is NULL");
    clg_status st = clg_env_read_cache(&s, msg, sizeof msg);
    if (st != CLG_STATUS_OK)
        return clg_fail(NULL, st, "%s", msg);
    info_from(&s, info);
    clg_clear_error(NULL);
    return CLG_STATUS_OK;
}

clg_status clg_context_cache_info(clg_context *ctx, clg_cache_info *info)
{
    if (!ctx || !info)
        return clg_fail(ctx, CLG_STATUS_NULL_POINTER, "%s is NULL",
                        !ctx ? "ctx" : "info");
    pthread_mutex_lock(&ctx->cache_lock);
    info_from(&ctx->disk.set, info);
    pthread_mutex_unlock(&ctx->cache_lock);
    info->hits = atomic_load(&ctx->disk.hits);
    info->misses = atomic_load(&ctx->disk.misses);
    info->stores = atomic_load(&ctx->disk.stores);
    info->rejected = atomic_load(&ctx->disk.rejected);
    clg_clear_error(ctx);
    return CLG_STATUS_OK;
}

clg_status clg_context_set_cache_dir(clg_context *ctx, const char *dir)
{
    if (!ctx)
        return clg_fail(NULL, CLG_STATUS_NULL_POINTER, "ctx is NULL");
    if (dir && (!*dir || strlen(dir) >= CLG_CACHE_PATH_MAX))
        return clg_fail(ctx, CLG_STATUS_INVALID_ARGUMENT,
                        "cache folder \"%.64s\" is empty or longer than %d "
                        "bytes",
                        dir, CLG_CACHE_PATH_MAX - 1);
    pthread_mutex_lock(&ctx->cache_lock);
    ctx->disk.set.on = dir != NULL;
    snprintf(ctx->disk.set.dir, sizeof ctx->disk.set.dir, "%s",
             dir ? dir : "");
    pthread_mutex_unlock(&ctx->cache_lock);
    clg_clear_error(ctx);
    return CLG_STATUS_OK;
}

clg_status clg_context_set_cache_max(clg_context *ctx, uint64_t bytes)
{
    if (!ctx)
        return clg_fail(NULL, CLG_STATUS_NULL_POINTER, "ctx is NULL");
    if (bytes == 0)
        return clg_fail(ctx, CLG_STATUS_INVALID_ARGUMENT,
                        "the cache's cap must be above 0 bytes");
    pthread_mutex_lock(&ctx->cache_lock);
    ctx->disk.set.max_bytes = bytes;
    pthread_mutex_unlock(&ctx->cache_lock);
    clg_clear_error(ctx);
    return CLG_STATUS_OK;
}

/* The folder `dir` names, or the environment's; NULL (message set) when
 * there is none. */
static const char *folder(const char *dir, clg_disk_settings *s)
{
    char msg[512];
    if (dir)
        return dir;
    clg_status st = clg_env_read_cache(s, msg, sizeof msg);
    if (st != CLG_STATUS_OK) {
        clg_fail(NULL, st, "%s", msg);
        return NULL;
    }
    if (!s->on) {
        clg_fail(NULL, CLG_STATUS_INVALID_ARGUMENT,
                 "the program cache is off (CLGATHER_CACHE=0, or no "
                 "CLGATHER_CACHE_DIR, XDG_CACHE_HOME or HOME)");
        return NULL;
    }
    return s->dir;
}

/* The value of line `name=` of a key into buf (size cap). */
static void key_field(const char *key, const char *name, char *buf, size_t cap)
{
    size_t n = strlen(name);
    buf[0] = '\0';
    for (const char *line = key; line && *line;) {
        const char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) : strlen(line);
        if (len > n && !strncmp(line, name, n) && line[n] == '=') {
            snprintf(buf, cap, "%.*s", (int)(len - n - 1), line + n + 1);
            return;
        }
        line = end ? end + 1 : NULL;
    }
}

/* What one entry's header says (not its checksum: a listing reads no
 * payload). The file is opened without following a link and without
 * blocking, and read only when it is a regular file: its header, then a
 * key of the header's length. */
static void describe_entry(int dfd, const char *name, clg_cache_entry *out)
{
    struct stat st;
    disk_header h;
    char key[DISK_MAX_KEY + 1];
    int fd = open_file(dfd, name);
    memset(out, 0, sizeof *out);
    /* entries' names fit; another file's is cut (memset ended it) */
    memcpy(out->file, name, strnlen(name, sizeof out->file - 1));
    if (fd < 0 || fstat(fd, &st) != 0) {
        if (fd >= 0)
            close(fd);
        return;
    }
    out->bytes = (uint64_t)st.st_size;
    out->last_use = (int64_t)st.st_mtime;
    if (S_ISREG(st.st_mode) && !*read_header(fd, &st, &h) &&
        read_exact(fd, key, h.key_len)) {
        key[h.key_len] = '\0';
        out->whole = 1;
        key_field(key, "device", out->device, sizeof out->device);
        key_field(key, "driver", out->driver, sizeof out->driver);
        key_field(key, "options", out->options, sizeof out->options);
    }
    close(fd);
}

clg_status clg_cache_list(const char *dir, clg_cache_entry *entries,
                          size_t capacity, size_t *count)
{
    clg_disk_settings s;
    struct dirent *e;
    if (!count || (!entries && capacity > 0))
        return clg_fail(NULL, CLG_STATUS_NULL_POINTER, "%s is NULL",
                        !count ? "count" : "entries");
    *count = 0;
    if (!(dir = folder(dir, &s)))
        return CLG_STATUS_INVALID_ARGUMENT;
    DIR *d = opendir(dir);
    if (!d) {
        if (errno == ENOENT) { /* nothing stored yet */
            clg_clear_error(NULL);
            return CLG_STATUS_OK;
        }
        return clg_fail(NULL, CLG_STATUS_INVALID_ARGUMENT,
                        "cannot read the cache folder %s: %s", dir,
                        strerror(errno));
    }
    while ((e = readdir(d)) != NULL)
        if (is_entry_name(e->d_name)) {
            if (*count < capacity)
                describe_entry(dirfd(d), e->d_name, &entries[*count]);
            (*count)++;
        }
    closedir(d);
    clg_clear_error(NULL);
    return CLG_STATUS_OK;
}

/* A folder the cache does not trust is never written to nor removed from
 * (see "trust" above): clearing it is refused, with the reason, as loads
 * and stores pass over it. */
clg_status clg_cache_clear(const char *dir, size_t *removed)
{
    clg_disk_settings s;
    struct dirent *e;
    struct stat st;
    const char *why = "";
    size_t n = 0;
    int failed = 0;
    if (removed)
        *removed = 0;
    if (!(dir = folder(dir, &s)))
        return CLG_STATUS_INVALID_ARGUMENT;
    int dfd = open_folder(dir, &why), err = errno;
    if (dfd < 0 && !*why) { /* not made yet: nothing stored */
        clg_clear_error(NULL);
        return CLG_STATUS_OK;
    }
    if (dfd < 0 && (why == R_FOLDER_OPEN || why == R_FOLDER_NOT_DIR))
        return clg_fail(NULL, CLG_STATUS_INVALID_ARGUMENT,
                        "cannot read the cache folder %s: %s", dir,
                        strerror(err));
    if (dfd < 0)
        return clg_fail(NULL, CLG_STATUS_INVALID_ARGUMENT,
                        "nothing removed from the cache folder %s, which the "
                        "cache does not trust (%s)",
                        dir, why);
    DIR *d = read_folder(dfd);
    if (!d) {
        err = errno;
        close(dfd);
        return clg_fail(NULL, CLG_STATUS_INVALID_ARGUMENT,
                        "cannot read the cache folder %s: %s", dir,
                        strerror(err));
    }
    while ((e = readdir(d)) != NULL)
        if (is_ours(dfd, e->d_name, &st)) {
            if (unlinkat(dfd, e->d_name, 0) == 0)
                n += is_entry_name(e->d_name);
            else if (errno != ENOENT)
                failed = errno;
        }
    closedir(d);
    close(dfd);
    if (removed)
        *removed = n;
    if (failed)
        return clg_fail(NULL, CLG_STATUS_INVALID_ARGUMENT,
                        "cannot remove entries of %s: %s", dir,
                        strerror(failed));
    clg_clear_error(NULL);
    return CLG_STATUS_OK;
}

const char *clg_context_cache_refusal(clg_context *ctx)
{
    const char *why = NULL;
    if (!ctx)
        return "";
    pthread_mutex_lock(&ctx->cache_lock);
    why = ctx->disk.refusal;
    pthread_mutex_unlock(&ctx->cache_lock);
    return why ? why : "";
}

const char *clg_cache_check(const char *dir, const char *file)
{
    clg_disk_settings s;
    char msg[512];
    const char *why = "";
    struct stat st;
    disk_header h;
    int fd = -1;
    if (!dir) {
        if (clg_env_read_cache(&s, msg, sizeof msg) != CLG_STATUS_OK)
            return R_ENV;
        if (!s.on)
            return R_OFF;
        dir = s.dir;
    }
    int dfd = open_folder(dir, &why);
    if (dfd < 0 && !*why) /* not made yet: as the first store would */
        why = creation_refusal(dir);
    if (dfd < 0)
        return *why || !file ? why : R_ENTRY_ABSENT;
    if (file && !is_entry_name(file))
        why = R_ENTRY_NAME;
    else if (file && !*(why = open_entry(dfd, file, &fd, &st)))
        why = fd < 0 ? R_ENTRY_ABSENT : read_header(fd, &st, &h);
    if (fd >= 0)
        close(fd);
    close(dfd);
    return why;
}
