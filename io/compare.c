/* SPDX-License-Identifier: Apache-2.0 */
/* Bitwise tensor comparison and value formatting. See compare.h. */
#include "compare.h"

#include <stdio.h>
#include <string.h>

#include "io_tensor.h"

float clg_io_half_to_float(uint16_t bits)
{
    uint32_t sign = (uint32_t)(bits >> 15) << 31;
    uint32_t exp = (bits >> 10) & 0x1f;
    uint32_t mant = bits & 0x3ff;
    uint32_t u;
    float f;

    if (exp == 0) {
        /* zero or subnormal: mant * 2^-24, exact in float */
        f = (float)mant / 16777216.0f;
        return sign ? -f : f;
    }
    if (exp == 31)
        u = sign | 0x7f800000u | mant << 13; /* inf, NaN keeps its payload */
    else
        u = sign | (exp - 15 + 127) << 23 | mant << 13;
    memcpy(&f, &u, sizeof f);
    return f;
}

float clg_io_bfloat16_to_float(uint16_t bits)
{
    uint32_t u = (uint32_t)bits << 16;
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

static void format_string(char *buf, size_t cap, const clg_string *s)
{
    size_t at = 0;
    const size_t shown = s->length > 48 ? 48 : s->length;

    if (cap == 0)
        return;
    buf[0] = '\0';
#define PUT(...)                                                              \
    do {                                                                      \
        if (at < cap)                                                         \
            at += (size_t)snprintf(buf + at, cap - at, __VA_ARGS__);          \
    } while (0)
    PUT("\"");
    for (size_t i = 0; i < shown; i++) {
        unsigned char c = (unsigned char)s->data[i];
        if (c == '"' || c == '\\')
            PUT("\\%c", c);
        else if (c >= 0x20 && c < 0x7f)
            PUT("%c", c);
        else
            PUT("\\x%02x", c);
    }
    PUT("\"");
    if (shown < s->length)
        PUT("... (%zu bytes)", s->length);
#undef PUT
}

/* Floating-point kinds ('f', 'B', 'c'): the value, then its bits. 0 for
 * other kinds and sizes. */
static int format_floating(char *buf, size_t cap, char kind, size_t size,
                           const unsigned char *p)
{
    float f, re, im;
    double d, dre, dim;
    uint16_t u16;
    uint32_t u, ure, uim;
    uint64_t u64, u64re, u64im;

    if (kind == 'f' && size == 4) {
        memcpy(&f, p, 4);
        memcpy(&u, p, 4);
        snprintf(buf, cap, "%.9g (0x%08x)", (double)f, (unsigned)u);
    } else if (kind == 'f' && size == 8) {
        memcpy(&d, p, 8);
        memcpy(&u64, p, 8);
        snprintf(buf, cap, "%.17g (0x%016llx)", d, (unsigned long long)u64);
    } else if ((kind == 'f' || kind == 'B') && size == 2) {
        memcpy(&u16, p, 2);
        f = kind == 'f' ? clg_io_half_to_float(u16)
                        : clg_io_bfloat16_to_float(u16);
        snprintf(buf, cap, "%.9g (0x%04x)", (double)f, (unsigned)u16);
    } else if (kind == 'c' && size == 2 * sizeof(float)) {
        memcpy(&re, p, 4);
        memcpy(&im, p + 4, 4);
        memcpy(&ure, p, 4);
        memcpy(&uim, p + 4, 4);
        snprintf(buf, cap, "(%.9g, %.9g) (0x%08x, 0x%08x)", (double)re,
                 (double)im, (unsigned)ure, (unsigned)uim);
    } else if (kind == 'c' && size == 2 * sizeof(double)) {
        memcpy(&dre, p, 8);
        memcpy(&dim, p + 8, 8);
        memcpy(&u64re, p, 8);
        memcpy(&u64im, p + 8, 8);
        snprintf(buf, cap, "(%.17g, %.17g) (0x%016llx, 0x%016llx)", dre, dim,
                 (unsigned long long)u64re, (unsigned long long)u64im);
    } else {
        return 0;
    }
    return 1;
}

/* Integer kinds ('i', 'u' of 1, 2, 4 or 8 bytes) and bools (true, false,
 * else its byte). 0 for other kinds and sizes. */
static int format_integer(char *buf, size_t cap, char kind, size_t size,
                          const unsigned char *p)
{
    if (kind == 'b' && size == 1) {
        if (p[0] <= 1)
            snprintf(buf, cap, "%s", p[0] ? "true" : "false");
        else
            snprintf(buf, cap, "0x%02x", (unsigned)p[0]);
        return 1;
    }
    if ((kind != 'i' && kind != 'u') ||
        (size != 1 && size != 2 && size != 4 && size != 8))
        return 0;
    /* Loaded at its own width in host order, as the tensor holds it. */
    uint64_t u = 0;
    int64_t v = 0;
#define CLG_LOAD_(U, S)                                                       \
    do {                                                                      \
        U x;                                                                  \
        S y;                                                                  \
        memcpy(&x, p, sizeof x);                                              \
        memcpy(&y, p, sizeof y);                                              \
        u = x;                                                                \
        v = y;                                                                \
    } while (0)
    if (size == 1)
        CLG_LOAD_(uint8_t, int8_t);
    else if (size == 2)
        CLG_LOAD_(uint16_t, int16_t);
    else if (size == 4)
        CLG_LOAD_(uint32_t, int32_t);
    else
        CLG_LOAD_(uint64_t, int64_t);
#undef CLG_LOAD_
    if (kind == 'u')
        snprintf(buf, cap, "%llu", (unsigned long long)u);
    else
        snprintf(buf, cap, "%lld", (long long)v);
    return 1;
}

char *clg_io_format_value(char *buf, size_t cap, clg_dtype dtype,
                          const void *elem)
{
    const unsigned char *p = elem;
    if (cap == 0)
        return buf;
    char kind = clg_io_dtype_kind(dtype);
    size_t size = clg_dtype_size(dtype);
    if (format_floating(buf, cap, kind, size, p) ||
        format_integer(buf, cap, kind, size, p))
        return buf;
    if (dtype == CLG_DTYPE_STRING) {
        clg_string s;
        memcpy(&s, p, sizeof s);
        format_string(buf, cap, &s);
    } else {
        snprintf(buf, cap, "?");
    }
    return buf;
}

char *clg_io_format_position(char *buf, size_t cap, const int64_t *shape,
                             size_t rank, int64_t flat)
{
    int64_t idx[CLG_MAX_RANK];
    size_t at = 0;

    if (cap == 0)
        return buf;
    buf[0] = '\0';
    if (rank == 0 || rank > CLG_MAX_RANK) {
        snprintf(buf, cap, "[]");
        return buf;
    }
    for (size_t d = rank; d-- > 0;) {
        int64_t n = shape[d] > 0 ? shape[d] : 1;
        idx[d] = flat % n;
        flat /= n;
    }
    for (size_t d = 0; d < rank && at < cap; d++)
        at += (size_t)snprintf(buf + at, cap - at, "[%lld]",
                               (long long)idx[d]);
    return buf;
}

static int same_element(clg_dtype dtype, const unsigned char *a,
                        const unsigned char *b, size_t elem)
{
    if (dtype == CLG_DTYPE_STRING) {
        clg_string sa, sb;
        memcpy(&sa, a, sizeof sa);
        memcpy(&sb, b, sizeof sb);
        return sa.length == sb.length &&
               (sa.length == 0 || memcmp(sa.data, sb.data, sa.length) == 0);
    }
    return memcmp(a, b, elem) == 0;
}

/* 1 when the tensors can be compared element by element: same dtype and
 * shape, a known dtype, data present. Else 0, with why in detail. */
static int comparable(const clg_tensor *expected, const clg_tensor *actual,
                      char *detail, size_t cap)
{
    char s1[512], s2[512];
    size_t elem = clg_dtype_size(expected->dtype);
    int64_t count;

    if (expected->dtype != actual->dtype) {
        snprintf(detail, cap, "dtype: expected %s, got %s",
                 clg_dtype_name(expected->dtype),
                 clg_dtype_name(actual->dtype));
        return 0;
    }
    if (expected->rank != actual->rank ||
        (expected->rank > 0 &&
         memcmp(expected->shape, actual->shape,
                expected->rank * sizeof(int64_t)) != 0)) {
        snprintf(detail, cap, "shape: expected %s, got %s",
                 clg_io_format_shape(s1, sizeof s1, expected->shape,
                                     expected->rank),
                 clg_io_format_shape(s2, sizeof s2, actual->shape,
                                     actual->rank));
        return 0;
    }
    count = clg_io_shape_count(expected->shape, expected->rank, elem);
    if (elem == 0 || count < 0) {
        snprintf(detail, cap, "cannot compare dtype %s shape %s",
                 clg_dtype_name(expected->dtype),
                 clg_io_format_shape(s1, sizeof s1, expected->shape,
                                     expected->rank));
        return 0;
    }
    if (count > 0 && (expected->data == NULL || actual->data == NULL)) {
        snprintf(detail, cap, "missing data");
        return 0;
    }
    return 1;
}

int clg_io_compare(const clg_tensor *expected, const clg_tensor *actual,
                   char *detail, size_t cap, int64_t *position)
{
    char s1[512], s2[512], pos[512];
    const unsigned char *e = expected->data;
    const unsigned char *a = actual->data;
    char dummy[1];
    size_t elem;
    int64_t count;

    if (detail == NULL) {
        detail = dummy;
        cap = sizeof dummy;
    }
    if (position != NULL)
        *position = -1;
    if (cap > 0)
        detail[0] = '\0';
    if (!comparable(expected, actual, detail, cap))
        return 0;
    elem = clg_dtype_size(expected->dtype);
    count = clg_io_shape_count(expected->shape, expected->rank, elem);
    for (int64_t i = 0; i < count; i++) {
        size_t off = (size_t)i * elem;
        if (!same_element(expected->dtype, e + off, a + off, elem)) {
            snprintf(detail, cap, "%s: expected %s, got %s",
                     clg_io_format_position(pos, sizeof pos, expected->shape,
                                            expected->rank, i),
                     clg_io_format_value(s1, sizeof s1, expected->dtype,
                                         e + off),
                     clg_io_format_value(s2, sizeof s2, actual->dtype,
                                         a + off));
            if (position != NULL)
                *position = i;
            return 0;
        }
    }
    return 1;
}

/* dtype or shape of actual and reference differ: that, into buf. */
static int describe_mismatch(char *buf, size_t cap, const clg_tensor *actual,
                             const char *actual_name,
                             const clg_tensor *reference,
                             const char *reference_name)
{
    char s1[512], s2[512];

    if (actual->dtype != reference->dtype) {
        snprintf(buf, cap, "DIFFER in dtype: %s=%s %s=%s", actual_name,
                 clg_dtype_name(actual->dtype), reference_name,
                 clg_dtype_name(reference->dtype));
        return 1;
    }
    if (actual->rank != reference->rank ||
        (actual->rank > 0 && memcmp(actual->shape, reference->shape,
                                    actual->rank * sizeof(int64_t)) != 0)) {
        snprintf(buf, cap, "DIFFER in shape: %s=%s %s=%s", actual_name,
                 clg_io_format_shape(s1, sizeof s1, actual->shape,
                                     actual->rank),
                 reference_name,
                 clg_io_format_shape(s2, sizeof s2, reference->shape,
                                     reference->rank));
        return 1;
    }
    return 0;
}

int clg_io_agreement(char *buf, size_t cap, const clg_tensor *actual,
                     const char *actual_name, const clg_tensor *reference,
                     const char *reference_name, int64_t *position)
{
    char s1[512], s2[512], pos[512];
    const unsigned char *a = actual->data, *r = reference->data;
    int64_t at = -1;
    size_t off;

    if (position != NULL)
        *position = -1;
    if (cap == 0)
        return clg_io_compare(reference, actual, NULL, 0, position);
    if (describe_mismatch(buf, cap, actual, actual_name, reference,
                          reference_name))
        return 0;
    if (clg_io_compare(reference, actual, s1, sizeof s1, &at)) {
        snprintf(buf, cap, "agree");
        return 1;
    }
    if (at < 0) {
        /* a dtype without a size, or data missing */
        snprintf(buf, cap, "DIFFER: %s", s1);
        return 0;
    }
    off = (size_t)at * clg_dtype_size(actual->dtype);
    snprintf(buf, cap, "DIFFER at out%s: %s=%s %s=%s",
             clg_io_format_position(pos, sizeof pos, reference->shape,
                                    reference->rank, at),
             actual_name,
             clg_io_format_value(s1, sizeof s1, actual->dtype, a + off),
             reference_name,
             clg_io_format_value(s2, sizeof s2, reference->dtype, r + off));
    if (position != NULL)
        *position = at;
    return 0;
}
