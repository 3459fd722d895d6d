/* SPDX-License-Identifier: Apache-2.0 */
/* Owned host tensors, file helpers and error messages for clgather_io. */
/* realpath() is XSI; the target's _POSIX_C_SOURCE alone hides it. */
#define _XOPEN_SOURCE 700

#include "io_tensor.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void clg_io_error_set(clg_io_error *err, const char *fmt, ...)
{
    va_list ap;
    if (err == NULL)
        return;
    va_start(ap, fmt);
    vsnprintf(err->message, sizeof err->message, fmt, ap);
    va_end(ap);
}

void clg_io_tensor_init(clg_io_tensor *t)
{
    memset(t, 0, sizeof *t);
    t->dtype = CLG_DTYPE_UNDEFINED;
}

void clg_io_tensor_free(clg_io_tensor *t)
{
    if (t == NULL)
        return;
    free(t->data);
    free(t->string_bytes);
    clg_io_tensor_init(t);
}

int64_t clg_io_shape_count(const int64_t *shape, size_t rank, size_t elem_size)
{
    int64_t count = 1;
    for (size_t i = 0; i < rank; i++) {
        if (shape[i] < 0)
            return -1;
        if (shape[i] != 0 && count > INT64_MAX / shape[i])
            return -1;
        count *= shape[i];
    }
    /* A zero-size dimension anywhere makes the count 0, whatever the
     * others say; the checks above still rejected negative ones. */
    if (elem_size != 0 && (uint64_t)count > SIZE_MAX / elem_size)
        return -1;
    return count;
}

clg_io_status clg_io_tensor_shape(clg_io_tensor *t, clg_dtype dtype,
                                  size_t rank, const int64_t *shape,
                                  const char *what, clg_io_error *err)
{
    size_t elem = clg_dtype_size(dtype);
    int64_t count;
    char shape_text[512];

    clg_io_tensor_free(t);
    if (elem == 0) {
        clg_io_error_set(err, "%s: unsupported data type %d", what,
                         (int)dtype);
        return CLG_IO_UNSUPPORTED;
    }
    if (rank > CLG_MAX_RANK) {
        clg_io_error_set(err, "%s: rank %zu is above the maximum %d", what,
                         rank, CLG_MAX_RANK);
        return CLG_IO_FORMAT_ERROR;
    }
    count = clg_io_shape_count(shape, rank, elem);
    if (count < 0) {
        clg_io_error_set(err,
                         "%s: shape %s has a negative dimension or is too "
                         "large",
                         what,
                         clg_io_format_shape(shape_text, sizeof shape_text,
                                             shape, rank));
        return CLG_IO_FORMAT_ERROR;
    }
    t->dtype = dtype;
    t->rank = rank;
    for (size_t i = 0; i < rank; i++)
        t->shape[i] = shape[i];
    t->count = count;
    t->nbytes = (size_t)count * elem;
    return CLG_IO_OK;
}

clg_io_status clg_io_tensor_alloc_data(clg_io_tensor *t, const char *what,
                                       clg_io_error *err)
{
    if (t->count == 0 || t->data != NULL)
        return CLG_IO_OK;
    /* 64-byte aligned: the library stores a large Gather output a cache
     * line at a time only where it is (docs/decisions.md, "Embedding:
     * whole-span non-temporal stores"); glibc's calloc gives 16. */
    size_t bytes = (size_t)t->count * clg_dtype_size(t->dtype);
    t->data = aligned_alloc(64, (bytes + 63) / 64 * 64);
    if (t->data == NULL) {
        clg_io_error_set(err, "%s: cannot allocate %lld elements of %zu bytes",
                         what, (long long)t->count, clg_dtype_size(t->dtype));
        return CLG_IO_NO_MEMORY;
    }
    memset(t->data, 0, bytes);
    return CLG_IO_OK;
}

clg_io_status clg_io_tensor_alloc(clg_io_tensor *t, clg_dtype dtype,
                                  size_t rank, const int64_t *shape,
                                  const char *what, clg_io_error *err)
{
    clg_io_status st = clg_io_tensor_shape(t, dtype, rank, shape, what, err);
    if (st == CLG_IO_OK)
        st = clg_io_tensor_alloc_data(t, what, err);
    if (st != CLG_IO_OK)
        clg_io_tensor_free(t);
    return st;
}

clg_tensor clg_io_tensor_view(const clg_io_tensor *t)
{
    clg_tensor v;
    v.dtype = t->dtype;
    v.rank = t->rank;
    v.shape = t->shape;
    v.data = t->data;
    return v;
}

clg_io_status clg_io_tensor_copy(clg_io_tensor *dst, const clg_tensor *src,
                                 clg_io_error *err)
{
    clg_io_status st;
    const clg_string *in;
    clg_string *out;
    size_t total = 0;
    size_t at = 0;

    st = clg_io_tensor_alloc(dst, src->dtype, src->rank, src->shape,
                             "tensor copy", err);
    if (st != CLG_IO_OK)
        return st;
    if (dst->nbytes == 0)
        return CLG_IO_OK;
    if (src->dtype != CLG_DTYPE_STRING) {
        memcpy(dst->data, src->data, dst->nbytes);
        return CLG_IO_OK;
    }
    in = (const clg_string *)src->data;
    out = (clg_string *)dst->data;
    for (int64_t i = 0; i < dst->count; i++)
        total += in[i].length;
    dst->string_bytes = malloc(total > 0 ? total : 1);
    if (dst->string_bytes == NULL) {
        clg_io_tensor_free(dst);
        clg_io_error_set(err, "tensor copy: cannot allocate %zu bytes", total);
        return CLG_IO_NO_MEMORY;
    }
    dst->string_bytes_size = total;
    for (int64_t i = 0; i < dst->count; i++) {
        if (in[i].length > 0)
            memcpy(dst->string_bytes + at, in[i].data, in[i].length);
        out[i].data = dst->string_bytes + at;
        out[i].length = in[i].length;
        at += in[i].length;
    }
    return CLG_IO_OK;
}

/* Doubles *cap (from 64 KiB) and reallocates *buf to it. */
static clg_io_status grow_buffer(unsigned char **buf, size_t *cap,
                                 const char *path, clg_io_error *err)
{
    size_t ncap = *cap == 0 ? 65536 : *cap * 2;
    unsigned char *nbuf;
    if (ncap < *cap) {
        clg_io_error_set(err, "%s: file too large", path);
        return CLG_IO_NO_MEMORY;
    }
    nbuf = realloc(*buf, ncap);
    if (nbuf == NULL) {
        clg_io_error_set(err, "%s: cannot allocate %zu bytes", path, ncap);
        return CLG_IO_NO_MEMORY;
    }
    *buf = nbuf;
    *cap = ncap;
    return CLG_IO_OK;
}

clg_io_status clg_io_read_file(const char *path, clg_io_read_bound bound,
                               unsigned char **bytes, size_t *size,
                               clg_io_error *err)
{
    FILE *f = NULL;
    unsigned char *buf = NULL;
    size_t cap = 0;
    size_t len = 0;
    size_t state = 0, worth = SIZE_MAX;
    clg_io_status st = CLG_IO_OK;

    *bytes = NULL;
    *size = 0;
    f = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
    if (f == NULL) {
        clg_io_error_set(err, "%s: cannot open: %s", path, strerror(errno));
        st = CLG_IO_FILE_ERROR;
        goto cleanup;
    }
    /* Read in growing chunks rather than trusting fseek/ftell, so pipes
     * and special files work too; the reader's bound stops an endless
     * stream once its bytes are no longer worth reading. */
    while (len < worth) {
        size_t got, want;
        if (len == cap) {
            st = grow_buffer(&buf, &cap, path, err);
            if (st != CLG_IO_OK)
                goto cleanup;
        }
        want = cap - len < worth - len ? cap - len : worth - len;
        got = fread(buf + len, 1, want, f);
        /* Every file read here is a .npy (magic 0x93) or a protobuf
         * message, whose first byte, a field key, is at least 8 (field
         * numbers start at 1): an endless stream such as /dev/zero is
         * refused at its first bytes instead of read until memory runs
         * out. */
        if (len == 0 && got > 0 && buf[0] != 0x93 && buf[0] < 8) {
            clg_io_error_set(err,
                             "%s: neither a .npy file nor an ONNX protobuf "
                             "message (first byte 0x%02x)",
                             path, buf[0]);
            st = CLG_IO_FORMAT_ERROR;
            goto cleanup;
        }
        len += got;
        if (got == 0) {
            if (ferror(f)) {
                clg_io_error_set(err, "%s: read error: %s", path,
                                 strerror(errno));
                st = CLG_IO_FILE_ERROR;
                goto cleanup;
            }
            break;
        }
        if (bound != NULL)
            worth = bound(buf, len, &state);
    }
    *bytes = buf;
    *size = len;
    buf = NULL;

cleanup:
    free(buf);
    if (f != NULL && f != stdin)
        fclose(f);
    return st;
}

int clg_io_same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    if (strcmp(a, "-") == 0 || strcmp(b, "-") == 0 || stat(a, &sa) != 0 ||
        stat(b, &sb) != 0)
        return 0;
    return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

int clg_io_is_stdout(const char *path)
{
    struct stat sp, so;
    if (strcmp(path, "-") == 0)
        return 1;
    return stat(path, &sp) == 0 && fstat(STDOUT_FILENO, &so) == 0 &&
           sp.st_dev == so.st_dev && sp.st_ino == so.st_ino;
}

/* ---------------------------------------------------------------- writing
 *
 * An output is written to a temporary file in the directory of its target,
 * flushed to disk, then renamed over the target: a reader sees the old
 * file or the new one, never a part, and on any failure the old one stays
 * as it was and the temporary file is removed. */

/* Where a write to `path` lands. */
typedef struct out_target {
    const char *path; /* as given, for messages */
    char *file;       /* the file to replace: path, or where its symbolic
                         link points (malloc'd) */
    char *dir;        /* file's directory (malloc'd) */
    const char *base; /* file's last component, inside file */
    int exists;
    int in_place;   /* written as it is: a device, a pipe, /dev/stdout */
    struct stat sb; /* of file, when it exists */
} out_target;

static void target_free(out_target *t)
{
    free(t->file);
    free(t->dir);
    t->file = NULL;
    t->dir = NULL;
}

/* A symbolic link under /dev or /proc (/dev/stdout, /dev/fd/1,
 * /proc/self/fd/1) names an open descriptor, not a file to replace. */
static int descriptor_link(const char *path)
{
    return strncmp(path, "/dev/", 5) == 0 || strncmp(path, "/proc/", 6) == 0;
}

/* t->file (a link resolved: rename would replace the link itself, not the
 * file it names), its directory and last component. */
static clg_io_status target_split(out_target *t, clg_io_error *err)
{
    struct stat lsb;
    const char *slash;

    if (lstat(t->path, &lsb) == 0 && S_ISLNK(lsb.st_mode)) {
        t->in_place = descriptor_link(t->path);
        t->file = t->in_place ? strdup(t->path) : realpath(t->path, NULL);
    } else {
        t->file = strdup(t->path);
    }
    if (t->file == NULL) {
        clg_io_error_set(err, "%s: cannot write: %s", t->path,
                         strerror(errno));
        return CLG_IO_FILE_ERROR;
    }
    slash = strrchr(t->file, '/');
    t->base = slash != NULL ? slash + 1 : t->file;
    if (slash == NULL)
        t->dir = strdup(".");
    else if (slash == t->file)
        t->dir = strdup("/");
    else {
        t->dir = malloc((size_t)(slash - t->file) + 1);
        if (t->dir != NULL) {
            memcpy(t->dir, t->file, (size_t)(slash - t->file));
            t->dir[slash - t->file] = '\0';
        }
    }
    if (t->dir == NULL) {
        clg_io_error_set(err, "%s: out of memory", t->path);
        return CLG_IO_NO_MEMORY;
    }
    return CLG_IO_OK;
}

/* Fills *t for path: the directory must exist, and the file, if it does,
 * must not be a directory and must be writable. */
static clg_io_status target_open(out_target *t, const char *path,
                                 clg_io_error *err)
{
    struct stat dsb;
    clg_io_status st;

    memset(t, 0, sizeof *t);
    t->path = path;
    if ((st = target_split(t, err)) != CLG_IO_OK)
        return st;
    if (stat(t->dir, &dsb) != 0) {
        if (errno == ENOENT)
            clg_io_error_set(err,
                             "%s: cannot write: directory '%s' does not "
                             "exist",
                             path, t->dir);
        else
            clg_io_error_set(err, "%s: cannot write: directory '%s': %s", path,
                             t->dir, strerror(errno));
        return CLG_IO_FILE_ERROR;
    }
    if (!S_ISDIR(dsb.st_mode)) {
        clg_io_error_set(err, "%s: cannot write: '%s' is not a directory",
                         path, t->dir);
        return CLG_IO_FILE_ERROR;
    }
    t->exists = stat(t->file, &t->sb) == 0;
    if (t->base[0] == '\0' || (t->exists && S_ISDIR(t->sb.st_mode))) {
        clg_io_error_set(err, "%s: cannot write: it is a directory", path);
        return CLG_IO_FILE_ERROR;
    }
    if (t->exists && access(t->file, W_OK) != 0) {
        clg_io_error_set(err, "%s: cannot write: %s", path, strerror(errno));
        return CLG_IO_FILE_ERROR;
    }
    return CLG_IO_OK;
}

/* A device, a pipe or a descriptor link is written in place: there is no
 * file to keep. */
static int target_in_place(const out_target *t)
{
    return t->in_place || (t->exists && !S_ISREG(t->sb.st_mode));
}

/* The temporary file being written, for clg_io_remove_pending_temp (a
 * signal handler): its path is copied in while `pending` is 0, then
 * `pending` is set; a handler reads the path only while it is set. */
static char pending_path[4096];
static volatile sig_atomic_t pending;
static void (*write_pause)(void);

static void pending_set(const char *tmp)
{
    size_t n = strlen(tmp);
    pending = 0;
    if (n >= sizeof pending_path)
        return; /* not removable on a signal; a path this long is rare */
    memcpy(pending_path, tmp, n + 1);
    pending = 1;
}

static void pending_clear(void)
{
    pending = 0;
}

/* Holds SIGINT, SIGTERM and SIGHUP while a temporary file is created and
 * registered, or removed or renamed and forgotten, so that a handler
 * calling clg_io_remove_pending_temp never runs between the two halves and
 * leaves a file behind. */
static void signals_hold(sigset_t *old)
{
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGHUP);
    pthread_sigmask(SIG_BLOCK, &set, old);
}

static void signals_release(const sigset_t *old)
{
    pthread_sigmask(SIG_SETMASK, old, NULL);
}

void clg_io_remove_pending_temp(void)
{
    if (pending) {
        pending = 0;
        unlink(pending_path);
    }
}

void clg_io_set_write_pause(void (*pause)(void))
{
    write_pause = pause;
}

/* Creates "<dir>/.<base>.<pid>.<n>.tmp" (mode 0666 less the umask, as a
 * new output gets). Returns its descriptor and its malloc'd path in *tmp,
 * or -1 with errno set. */
static int temp_create(const out_target *t, char **tmp)
{
    static unsigned counter;
    size_t cap = strlen(t->dir) + 256;
    int fd = -1;

    *tmp = malloc(cap);
    if (*tmp == NULL) {
        errno = ENOMEM;
        return -1;
    }
    for (int tries = 0; tries < 100 && fd < 0; tries++) {
        /* the base is cut to keep the name within NAME_MAX */
        snprintf(*tmp, cap, "%s/.%.180s.%ld.%u.tmp", t->dir, t->base,
                 (long)getpid(), counter++);
        sigset_t old;
        signals_hold(&old);
        fd = open(*tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd >= 0)
            pending_set(*tmp);
        signals_release(&old);
        if (fd < 0 && errno != EEXIST)
            break;
    }
    if (fd < 0) {
        int e = errno;
        free(*tmp);
        *tmp = NULL;
        errno = e;
    }
    return fd;
}

/* Removes a temporary file temp_create made and forgets it, signals held
 * so that a handler never sees it registered but gone. */
static void temp_remove(const char *tmp)
{
    sigset_t old;
    signals_hold(&old);
    unlink(tmp);
    pending_clear();
    signals_release(&old);
}

clg_io_status clg_io_check_writable(const char *path, clg_io_error *err)
{
    out_target t;
    char *tmp = NULL;
    int fd;
    clg_io_status st;

    if (strcmp(path, "-") == 0)
        return CLG_IO_OK;
    st = target_open(&t, path, err);

    if (st == CLG_IO_OK && !target_in_place(&t)) {
        fd = temp_create(&t, &tmp);
        if (fd < 0) {
            clg_io_error_set(err, "%s: cannot write in directory '%s': %s",
                             path, t.dir, strerror(errno));
            st = CLG_IO_FILE_ERROR;
        } else {
            close(fd);
            temp_remove(tmp);
        }
    }
    free(tmp);
    target_free(&t);
    return st;
}

/* All of bytes to fd; 0, or -1 with errno set. */
static int write_all(int fd, const unsigned char *bytes, size_t size)
{
    while (size > 0) {
        ssize_t n = write(fd, bytes, size);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            if (n == 0)
                errno = EIO;
            return -1;
        }
        bytes += n;
        size -= (size_t)n;
    }
    return 0;
}

/* A device or a pipe: opened and written as it is. */
static clg_io_status write_in_place(const out_target *t, const void *bytes,
                                    size_t size, clg_io_error *err)
{
    int fd = open(t->file, O_WRONLY | O_TRUNC | O_CLOEXEC), e;
    if (fd < 0) {
        clg_io_error_set(err, "%s: cannot open: %s", t->path, strerror(errno));
        return CLG_IO_FILE_ERROR;
    }
    e = write_all(fd, bytes, size) != 0 ? errno : 0;
    if (close(fd) != 0 && e == 0)
        e = errno;
    if (e != 0) {
        clg_io_error_set(err, "%s: write error: %s", t->path, strerror(e));
        return CLG_IO_FILE_ERROR;
    }
    return CLG_IO_OK;
}

/* The temporary file's bytes, mode, fsync and close, then the rename.
 * *fd is closed (set to -1); the caller unlinks tmp on failure. */
static clg_io_status commit_temp(const out_target *t, int *fd, const char *tmp,
                                 const void *bytes, size_t size,
                                 clg_io_error *err)
{
    int e = 0;
    /* an existing file keeps its permission bits */
    if (t->exists && fchmod(*fd, t->sb.st_mode & 07777) != 0)
        e = errno;
    else if (write_all(*fd, bytes, size) != 0)
        e = errno;
    else if (write_pause != NULL && (write_pause(), 0))
        e = 0; /* a test's pause, with the temporary file written */
    else if (fsync(*fd) != 0)
        e = errno;
    if (close(*fd) != 0 && e == 0)
        e = errno;
    *fd = -1;
    if (e != 0) {
        clg_io_error_set(err, "%s: write error: %s", t->path, strerror(e));
        return CLG_IO_FILE_ERROR;
    }
    sigset_t old;
    signals_hold(&old);
    if (rename(tmp, t->file) != 0) {
        e = errno;
        signals_release(&old);
        clg_io_error_set(err, "%s: cannot replace: %s", t->path, strerror(e));
        return CLG_IO_FILE_ERROR;
    }
    pending_clear();
    signals_release(&old);
    return CLG_IO_OK;
}

/* "-": standard output, written as it is (stdio's buffer flushed
 * first, so that bytes written through it come before). */
static clg_io_status write_stdout(const void *bytes, size_t size,
                                  clg_io_error *err)
{
    if (fflush(stdout) != 0 || write_all(STDOUT_FILENO, bytes, size) != 0) {
        clg_io_error_set(err, "standard output: write error: %s",
                         strerror(errno));
        return CLG_IO_FILE_ERROR;
    }
    return CLG_IO_OK;
}

/* Best effort: the rename itself reaches the disk. The file is complete
 * and in place whether or not this works, so a failure is not reported. */
static void sync_directory(const char *dir)
{
    int fd = open(dir, O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
        (void)fsync(fd);
        close(fd);
    }
}

clg_io_status clg_io_write_file(const char *path, const void *bytes,
                                size_t size, clg_io_error *err)
{
    out_target t;
    char *tmp = NULL;
    int fd = -1;
    clg_io_status st;

    if (strcmp(path, "-") == 0)
        return write_stdout(bytes, size, err);
    st = target_open(&t, path, err);
    if (st != CLG_IO_OK)
        goto cleanup;
    if (target_in_place(&t)) {
        st = write_in_place(&t, bytes, size, err);
        goto cleanup;
    }
    fd = temp_create(&t, &tmp);
    if (fd < 0) {
        clg_io_error_set(err, "%s: cannot create in directory '%s': %s", path,
                         t.dir, strerror(errno));
        st = CLG_IO_FILE_ERROR;
        goto cleanup;
    }
    st = commit_temp(&t, &fd, tmp, bytes, size, err);
    if (st == CLG_IO_OK)
        sync_directory(t.dir);

cleanup:
    if (fd >= 0)
        close(fd);
    if (tmp != NULL && st != CLG_IO_OK)
        temp_remove(tmp);
    free(tmp);
    target_free(&t);
    return st;
}

char *clg_io_format_shape(char *buf, size_t cap, const int64_t *shape,
                          size_t rank)
{
    size_t at = 0;
    if (cap == 0)
        return buf;
    buf[0] = '\0';
    at += (size_t)snprintf(buf, cap, "[");
    for (size_t i = 0; i < rank && at < cap; i++)
        at += (size_t)snprintf(buf + at, cap - at, "%s%lld", i ? ", " : "",
                               (long long)shape[i]);
    if (at < cap)
        snprintf(buf + at, cap - at, "]");
    return buf;
}

char clg_io_dtype_kind(clg_dtype dtype)
{
    switch (dtype) {
#define CLG_IO_KIND_(name, number, size, kind)                                \
    case CLG_DTYPE_##name:                                                    \
        return kind;
        CLG_DTYPE_TABLE(CLG_IO_KIND_)
#undef CLG_IO_KIND_
    case CLG_DTYPE_UNDEFINED:
        break;
    }
    return 0;
}

clg_dtype clg_io_dtype_of(char kind, size_t size)
{
#define CLG_IO_MATCH_(name, number, sz, k)                                    \
    if (kind == k && size == sz)                                              \
        return CLG_DTYPE_##name;
    CLG_DTYPE_TABLE(CLG_IO_MATCH_)
#undef CLG_IO_MATCH_
    return CLG_DTYPE_UNDEFINED;
}

size_t clg_io_word_size(clg_dtype dtype)
{
    char kind = clg_io_dtype_kind(dtype);
    size_t size = clg_dtype_size(dtype);
    return kind == 'c' ? size / 2 : kind == 'S' ? 1 : size;
}

int clg_io_host_is_little_endian(void)
{
    const uint16_t probe = 1;
    unsigned char first;
    memcpy(&first, &probe, 1);
    return first == 1;
}

void clg_io_swap_words(unsigned char *p, size_t nbytes, size_t unit)
{
    if (unit < 2)
        return;
    for (size_t at = 0; at + unit <= nbytes; at += unit)
        for (size_t i = 0; i < unit / 2; i++) {
            unsigned char c = p[at + i];
            p[at + i] = p[at + unit - 1 - i];
            p[at + unit - 1 - i] = c;
        }
}
