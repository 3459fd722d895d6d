/* SPDX-License-Identifier: Apache-2.0 */
/* The persistent program cache (docs/design.md, "Program cache"), after
 * OpenCV's OpenCL cache and Arm Compute Library's saved program cache.
 *
 * One file per program, <16 hex digits>.bin, the XXH3-64 of its key:
 *   magic "CLGPROG\0", u32 format version, u32 key length,
 *   u64 payload length, u64 XXH3-64 of the payload, the key, the payload
 *   (the device's CL_PROGRAM_BINARIES), host byte order.
 * The key is stored whole and compared whole, so a hash collision is a
 * miss, never another program. Anything that does not match in full is a
 * miss; the program is then built from source and its entry rewritten.
 * Writes go to a temporary file in the same folder, renamed over the
 * entry, so that readers in other threads and processes see a whole
 * entry or none. Beyond the cap the least recently used entries are
 * evicted: a hit touches its entry's modification time. Nothing here
 * reports an error: the cache only ever saves work. */
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
#define DISK_FORMAT 1u
/* A bigger file is not ours (POCL's binaries are about 10 MB). */
#define DISK_MAX_FILE (UINT64_C(1) << 30)
/* A temporary file older than this was left by a process that died. */
#define DISK_STALE_TEMP_S 3600

typedef struct disk_header {
    char magic[8];
    uint32_t format, key_len;
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
 * new string, and its entry's path into `path`; NULL when the cache is
 * off, the device could not be described, or it does not fit. */
static char *whole_key(clg_context *ctx, const char *key, char *path,
                       size_t cap)
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
    int n = snprintf(path, cap, "%s/%016llx.bin", ctx->disk.set.dir,
                     (unsigned long long)XXH3_64bits(whole, a + b));
    if (n < 0 || (size_t)n >= cap) {
        free(whole);
        return NULL;
    }
    return whole;
}

/* ------------------------------------------------------------ load */

/* The whole file at `path` (at most DISK_MAX_FILE bytes) into a new
 * buffer; NULL when it cannot be read. Its descriptor stays open in *fd
 * (to touch it on a hit). */
static unsigned char *read_file(const char *path, size_t *size, int *fd)
{
    struct stat st;
    unsigned char *buf = NULL;
    size_t got = 0;
    *fd = open(path, O_RDONLY | O_CLOEXEC);
    if (*fd < 0 || fstat(*fd, &st) != 0 || !S_ISREG(st.st_mode) ||
        st.st_size < (off_t)sizeof(disk_header) ||
        (uint64_t)st.st_size > DISK_MAX_FILE ||
        !(buf = malloc((size_t)st.st_size)))
        return NULL;
    while (got < (size_t)st.st_size) {
        ssize_t n = read(*fd, buf + got, (size_t)st.st_size - got);
        if (n <= 0 && !(n < 0 && errno == EINTR)) {
            free(buf);
            return NULL;
        }
        got += n > 0 ? (size_t)n : 0;
    }
    *size = got;
    return buf;
}

/* The payload of entry `buf` (size bytes) when it is whole and holds
 * exactly `key`; NULL otherwise. */
static const unsigned char *check_entry(const unsigned char *buf, size_t size,
                                        const char *key, size_t *payload_len)
{
    disk_header h;
    size_t key_len = strlen(key);
    memcpy(&h, buf, sizeof h);
    if (memcmp(h.magic, DISK_MAGIC, sizeof h.magic) ||
        h.format != DISK_FORMAT || h.key_len != key_len ||
        size <= sizeof h + key_len ||
        h.payload_len != size - sizeof h - key_len ||
        memcmp(buf + sizeof h, key, key_len))
        return NULL;
    const unsigned char *payload = buf + sizeof h + key_len;
    if (XXH3_64bits(payload, (size_t)h.payload_len) != h.checksum)
        return NULL;
    *payload_len = (size_t)h.payload_len;
    return payload;
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

cl_program clg_disk_load(clg_context *ctx, const char *key,
                         const char *options)
{
    char path[CLG_CACHE_PATH_MAX + 32];
    char *whole = whole_key(ctx, key, path, sizeof path);
    unsigned char *buf = NULL;
    cl_program program = NULL;
    size_t size = 0, len = 0;
    int fd = -1;
    if (!whole)
        return NULL;
    if ((buf = read_file(path, &size, &fd)) != NULL) {
        const unsigned char *payload = check_entry(buf, size, whole, &len);
        if (payload && !(program = from_binary(ctx, payload, len, options)))
            atomic_fetch_add(&ctx->disk.rejected, 1);
    }
    if (program) {
        futimens(fd, NULL); /* last use, for eviction */
        atomic_fetch_add(&ctx->disk.hits, 1);
    } else {
        atomic_fetch_add(&ctx->disk.misses, 1);
    }
    if (fd >= 0)
        close(fd);
    free(buf);
    free(whole);
    return program;
}

/* ------------------------------------------------------------ store */

/* Creates `dir` and its parents (mode 0700); 0 when it cannot. */
static int make_dirs(const char *dir)
{
    char path[CLG_CACHE_PATH_MAX];
    struct stat st;
    if (stat(dir, &st) == 0)
        return S_ISDIR(st.st_mode);
    snprintf(path, sizeof path, "%s", dir);
    for (char *p = path + 1; *p; p++)
        if (*p == '/') {
            *p = '\0';
            if (mkdir(path, 0700) != 0 && errno != EEXIST)
                return 0;
            *p = '/';
        }
    return mkdir(path, 0700) == 0 || errno == EEXIST;
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

/* The entry: header, key, payload, into a temporary file renamed over
 * `path`. */
static void write_entry(clg_context *ctx, const char *path, const char *key,
                        cl_program program)
{
    char temp[CLG_CACHE_PATH_MAX + 96];
    size_t len = 0;
    unsigned char *payload = NULL;
    int fd = -1, ok = 0;
    snprintf(temp, sizeof temp, "%s/.tmp-%ld-%llu-%llu", ctx->disk.set.dir,
             (long)getpid(), (unsigned long long)ctx->id,
             (unsigned long long)atomic_fetch_add(&ctx->disk.temp_counter, 1));
    /* The file first: an unwritable folder costs no binary. */
    if (!make_dirs(ctx->disk.set.dir) ||
        (fd = open(temp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600)) < 0)
        return;
    if ((payload = program_binary(ctx, program, &len)) != NULL) {
        disk_header h = {DISK_MAGIC, DISK_FORMAT, (uint32_t)strlen(key),
                         (uint64_t)len, XXH3_64bits(payload, len)};
        ok = write_all(fd, &h, sizeof h) && write_all(fd, key, strlen(key)) &&
             write_all(fd, payload, len);
    }
    ok = close(fd) == 0 && ok && rename(temp, path) == 0;
    if (!ok)
        unlink(temp);
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

/* Removes the least recently used entries until the folder holds at most
 * `max` bytes of them, and temporary files left by dead processes. */
static void evict(const char *dir, uint64_t max)
{
    DIR *d = opendir(dir);
    disk_file *files = NULL;
    size_t count = 0, capacity = 0;
    uint64_t total = 0;
    struct dirent *e;
    struct stat st;
    if (!d)
        return;
    while ((e = readdir(d)) != NULL) {
        int entry = is_entry_name(e->d_name);
        int temp = !strncmp(e->d_name, ".tmp-", 5);
        if ((!entry && !temp) ||
            fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 ||
            !S_ISREG(st.st_mode))
            continue;
        if (temp) {
            if (time(NULL) - st.st_mtime > DISK_STALE_TEMP_S)
                unlinkat(dirfd(d), e->d_name, 0);
            continue;
        }
        if (count == capacity) {
            size_t cap = capacity ? 2 * capacity : 64;
            disk_file *grown = realloc(files, cap * sizeof *grown);
            if (!grown)
                break;
            files = grown;
            capacity = cap;
        }
        size_t len = strnlen(e->d_name, sizeof files[count].name - 1);
        memcpy(files[count].name, e->d_name, len); /* entries' names fit */
        files[count].name[len] = '\0';
        files[count].used = st.st_mtim;
        files[count++].bytes = (uint64_t)st.st_size;
        total += (uint64_t)st.st_size;
    }
    if (total > max && count > 0) {
        qsort(files, count, sizeof *files, older_first);
        for (size_t i = 0; i < count && total > max; i++)
            if (unlinkat(dirfd(d), files[i].name, 0) == 0 || errno == ENOENT)
                total -= files[i].bytes;
    }
    closedir(d);
    free(files);
}

void clg_disk_store(clg_context *ctx, const char *key, cl_program program)
{
    char path[CLG_CACHE_PATH_MAX + 32];
    char *whole = whole_key(ctx, key, path, sizeof path);
    if (!whole)
        return;
    write_entry(ctx, path, whole, program);
    evict(ctx->disk.set.dir, ctx->disk.set.max_bytes);
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
 * payload). */
static void describe_entry(int dfd, const char *name, clg_cache_entry *out)
{
    struct stat st;
    disk_header h;
    char key[CLG_DISK_IDENT_MAX + 1024];
    int fd = openat(dfd, name, O_RDONLY | O_CLOEXEC);
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
    if (read(fd, &h, sizeof h) == (ssize_t)sizeof h &&
        !memcmp(h.magic, DISK_MAGIC, sizeof h.magic) &&
        h.format == DISK_FORMAT && h.key_len < sizeof key &&
        (uint64_t)st.st_size == sizeof h + h.key_len + h.payload_len &&
        read(fd, key, h.key_len) == (ssize_t)h.key_len) {
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

clg_status clg_cache_clear(const char *dir, size_t *removed)
{
    clg_disk_settings s;
    struct dirent *e;
    size_t n = 0;
    int failed = 0;
    if (removed)
        *removed = 0;
    if (!(dir = folder(dir, &s)))
        return CLG_STATUS_INVALID_ARGUMENT;
    DIR *d = opendir(dir);
    if (!d && errno == ENOENT) {
        clg_clear_error(NULL);
        return CLG_STATUS_OK;
    }
    if (!d)
        return clg_fail(NULL, CLG_STATUS_INVALID_ARGUMENT,
                        "cannot read the cache folder %s: %s", dir,
                        strerror(errno));
    while ((e = readdir(d)) != NULL)
        if (is_entry_name(e->d_name) || !strncmp(e->d_name, ".tmp-", 5)) {
            if (unlinkat(dirfd(d), e->d_name, 0) == 0)
                n += is_entry_name(e->d_name);
            else if (errno != ENOENT)
                failed = errno;
        }
    closedir(d);
    if (removed)
        *removed = n;
    if (failed)
        return clg_fail(NULL, CLG_STATUS_INVALID_ARGUMENT,
                        "cannot remove entries of %s: %s", dir,
                        strerror(failed));
    clg_clear_error(NULL);
    return CLG_STATUS_OK;
}
