/* SPDX-License-Identifier: Apache-2.0 */
/* Helpers shared by the libFuzzer targets. See fuzz_common.h. */
#include "fuzz_common.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sanitizer/allocator_interface.h>

#include "npy.h"
#include "onnx_io.h"

void fuzz_fail(const char *file, int line, const char *what, const char *fmt,
               ...)
{
    va_list ap;
    fprintf(stderr, "\n==fuzz== check failed at %s:%d: %s\n==fuzz== ", file,
            line, what);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    abort();
}

/* ---------------------------------------------------------------- allocations */

static _Thread_local int watching;
static _Thread_local size_t watch_limit;

/* Runs inside the sanitizer's malloc, after the allocation: no allocation
 * here (watching is cleared first, so the report's own cannot recurse). */
static void on_malloc(const volatile void *ptr, size_t size)
{
    (void)ptr;
    if (!watching || size <= watch_limit)
        return;
    watching = 0;
    fprintf(stderr,
            "\n==fuzz== a single allocation of %zu bytes, above the bound "
            "of %zu bytes for this input\n",
            size, watch_limit);
    abort();
}

static void on_free(const volatile void *ptr)
{
    (void)ptr;
}

void fuzz_alloc_watch(size_t limit)
{
    static int installed;
    if (!installed) {
        FUZZ_CHECK(__sanitizer_install_malloc_and_free_hooks(on_malloc,
                                                             on_free) != 0,
                   "cannot install the sanitizer's malloc hooks");
        installed = 1;
    }
    watch_limit = limit;
    watching = 1;
}

void fuzz_alloc_unwatch(void)
{
    watching = 0;
}

size_t fuzz_alloc_limit(size_t size)
{
    return 65536 + 32 * size;
}

/* ---------------------------------------------------------------- tensors */

/* Reads every byte of p[0 .. n), so that ASan sees a short allocation. */
static void touch(const void *p, size_t n)
{
    const volatile unsigned char *b = p;
    unsigned char sum = 0;
    for (size_t i = 0; i < n; i++)
        sum ^= b[i];
    (void)sum;
}

/* The descriptors of a STRING tensor point into its string_bytes. */
static void check_strings(const clg_io_tensor *t, const char *what)
{
    const clg_string *s = t->data;
    uintptr_t lo = (uintptr_t)t->string_bytes;
    uintptr_t hi = lo + t->string_bytes_size;
    FUZZ_CHECK(t->count == 0 || t->string_bytes != NULL,
               "%s: STRING tensor of %lld elements without string_bytes", what,
               (long long)t->count);
    for (int64_t i = 0; i < t->count; i++) {
        uintptr_t at = (uintptr_t)s[i].data;
        if (s[i].length == 0)
            continue;
        FUZZ_CHECK(at >= lo && at <= hi && s[i].length <= hi - at,
                   "%s: string %lld (%zu bytes) lies outside string_bytes "
                   "(%zu bytes)",
                   what, (long long)i, s[i].length, t->string_bytes_size);
        touch(s[i].data, s[i].length);
    }
    touch(t->string_bytes, t->string_bytes_size);
}

void fuzz_check_tensor(const clg_io_tensor *t, const char *what)
{
    size_t elem = clg_dtype_size(t->dtype);
    int64_t count;
    FUZZ_CHECK(elem != 0, "%s: dtype %d", what, (int)t->dtype);
    FUZZ_CHECK(t->rank <= CLG_MAX_RANK, "%s: rank %zu", what, t->rank);
    count = clg_io_shape_count(t->shape, t->rank, elem);
    FUZZ_CHECK(count >= 0 && count == t->count,
               "%s: count %lld, the shape gives %lld", what,
               (long long)t->count, (long long)count);
    FUZZ_CHECK(t->nbytes == (size_t)count * elem,
               "%s: nbytes %zu for %lld elements of %zu bytes", what,
               t->nbytes, (long long)count, elem);
    FUZZ_CHECK((t->data != NULL) == (count > 0),
               "%s: data %p for %lld elements", what, t->data,
               (long long)count);
    touch(t->data, t->nbytes);
    if (t->dtype == CLG_DTYPE_STRING)
        check_strings(t, what);
    else
        FUZZ_CHECK(t->string_bytes == NULL && t->string_bytes_size == 0 &&
                       t->string_width == 0,
                   "%s: string fields set for dtype %s", what,
                   clg_dtype_name(t->dtype));
}

void fuzz_check_empty(const clg_io_tensor *t, const char *what)
{
    FUZZ_CHECK(t->dtype == CLG_DTYPE_UNDEFINED && t->rank == 0 &&
                   t->count == 0 && t->nbytes == 0 && t->data == NULL &&
                   t->string_bytes == NULL && t->string_bytes_size == 0,
               "%s: a failed read left a tensor behind (dtype %d, %zu "
               "bytes)",
               what, (int)t->dtype, t->nbytes);
}

void fuzz_error_reset(clg_io_error *err)
{
    memset(err->message, 'Z', sizeof err->message);
}

void fuzz_check_failure(clg_io_status st, const clg_io_error *err,
                        const char *name)
{
    size_t n = strlen(name);
    FUZZ_CHECK(st == CLG_IO_FORMAT_ERROR || st == CLG_IO_UNSUPPORTED,
               "status %d", (int)st);
    FUZZ_CHECK(memchr(err->message, '\0', sizeof err->message) != NULL,
               "the message is not terminated");
    FUZZ_CHECK(strncmp(err->message, name, n) == 0 &&
                   strncmp(err->message + n, ": ", 2) == 0 &&
                   err->message[n + 2] != '\0',
               "message '%s' does not start with '%s: '", err->message, name);
}

/* The length of STRING element s without its trailing NUL bytes. */
static size_t stripped(const clg_string *s)
{
    size_t n = s->length;
    while (n > 0 && s->data[n - 1] == '\0')
        n--;
    return n;
}

static void check_same_strings(const clg_io_tensor *a, const clg_io_tensor *b,
                               int strip_nuls, const char *what)
{
    const clg_string *sa = a->data, *sb = b->data;
    for (int64_t i = 0; i < a->count; i++) {
        size_t na = strip_nuls ? stripped(&sa[i]) : sa[i].length;
        size_t nb = strip_nuls ? stripped(&sb[i]) : sb[i].length;
        FUZZ_CHECK(na == nb &&
                       (na == 0 || memcmp(sa[i].data, sb[i].data, na) == 0),
                   "%s: string %lld differs (%zu and %zu bytes)", what,
                   (long long)i, na, nb);
    }
}

void fuzz_check_same(const clg_io_tensor *a, const clg_io_tensor *b,
                     int strip_nuls, const char *what)
{
    FUZZ_CHECK(a->dtype == b->dtype && a->rank == b->rank &&
                   a->count == b->count && a->nbytes == b->nbytes,
               "%s: %s rank %zu (%lld elements) became %s rank %zu (%lld)",
               what, clg_dtype_name(a->dtype), a->rank, (long long)a->count,
               clg_dtype_name(b->dtype), b->rank, (long long)b->count);
    for (size_t d = 0; d < a->rank; d++)
        FUZZ_CHECK(a->shape[d] == b->shape[d], "%s: dimension %zu differs",
                   what, d);
    if (a->dtype == CLG_DTYPE_STRING)
        check_same_strings(a, b, strip_nuls, what);
    else if (a->nbytes > 0)
        FUZZ_CHECK(memcmp(a->data, b->data, a->nbytes) == 0,
                   "%s: the elements differ", what);
}

/* ---------------------------------------------------------------- round trips */

static void round_trip_onnx(const clg_io_tensor *t, const clg_tensor *v)
{
    unsigned char *bytes = NULL;
    size_t size = 0;
    clg_io_error err;
    clg_io_tensor back;
    clg_io_status st;

    clg_io_tensor_init(&back);
    st = clg_onnx_encode_tensor(v, "t", &bytes, &size, &err);
    FUZZ_CHECK(st == CLG_IO_OK, "TensorProto encode: %s", err.message);
    st = clg_onnx_decode_tensor(bytes, size, "round trip", &back, &err);
    FUZZ_CHECK(st == CLG_IO_OK, "TensorProto decode of the encoded: %s",
               err.message);
    fuzz_check_tensor(&back, "TensorProto round trip");
    fuzz_check_same(t, &back, 0, "TensorProto round trip");
    clg_io_tensor_free(&back);
    free(bytes);
}

static void round_trip_npy(const clg_io_tensor *t, const clg_tensor *v)
{
    unsigned char *bytes = NULL;
    size_t size = 0;
    clg_io_error err;
    clg_io_tensor back;
    clg_io_status st;

    clg_io_tensor_init(&back);
    st = clg_npy_encode(v, t->string_width, &bytes, &size, &err);
    if (t->dtype == CLG_DTYPE_BFLOAT16) {
        FUZZ_CHECK(st == CLG_IO_UNSUPPORTED && bytes == NULL,
                   ".npy encode of BFLOAT16: status %d", (int)st);
        return;
    }
    FUZZ_CHECK(st == CLG_IO_OK, ".npy encode: %s", err.message);
    st = clg_npy_decode(bytes, size, "round trip", &back, &err);
    FUZZ_CHECK(st == CLG_IO_OK, ".npy decode of the encoded: %s", err.message);
    fuzz_check_tensor(&back, ".npy round trip");
    fuzz_check_same(t, &back, 1, ".npy round trip");
    clg_io_tensor_free(&back);
    free(bytes);
}

void fuzz_check_round_trips(const clg_io_tensor *t)
{
    clg_tensor v = clg_io_tensor_view(t);
    round_trip_onnx(t, &v);
    round_trip_npy(t, &v);
}

void fuzz_check_bound(clg_io_read_bound bound, const uint8_t *data,
                      size_t size, const char *what)
{
    size_t state = 0, len = 1;
    while (len <= size) {
        size_t worth = bound(data, len, &state);
        FUZZ_CHECK(worth > len, "%s: the read bound stops at %zu of %zu bytes",
                   what, worth, size);
        if (len == size)
            break;
        len = len < 256 ? len + 1 : len * 2;
        if (len > size)
            len = size;
    }
}
