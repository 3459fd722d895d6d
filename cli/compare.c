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

char *clg_io_format_value(char *buf, size_t cap, clg_dtype dtype,
                          const void *elem)
{
    const unsigned char *p = elem;
    if (cap == 0)
        return buf;
    switch (dtype) {
    case CLG_DTYPE_FLOAT: {
        float f;
        uint32_t u;
        memcpy(&f, p, 4);
        memcpy(&u, p, 4);
        snprintf(buf, cap, "%.9g (0x%08x)", (double)f, (unsigned)u);
        break;
    }
    case CLG_DTYPE_DOUBLE: {
        double d;
        uint64_t u;
        memcpy(&d, p, 8);
        memcpy(&u, p, 8);
        snprintf(buf, cap, "%.17g (0x%016llx)", d, (unsigned long long)u);
        break;
    }
    case CLG_DTYPE_FLOAT16:
    case CLG_DTYPE_BFLOAT16: {
        uint16_t u;
        float f;
        memcpy(&u, p, 2);
        f = dtype == CLG_DTYPE_FLOAT16 ? clg_io_half_to_float(u)
                                       : clg_io_bfloat16_to_float(u);
        snprintf(buf, cap, "%.9g (0x%04x)", (double)f, (unsigned)u);
        break;
    }
    case CLG_DTYPE_COMPLEX64: {
        float re, im;
        uint32_t ure, uim;
        memcpy(&re, p, 4);
        memcpy(&im, p + 4, 4);
        memcpy(&ure, p, 4);
        memcpy(&uim, p + 4, 4);
        snprintf(buf, cap, "(%.9g, %.9g) (0x%08x, 0x%08x)", (double)re,
                 (double)im, (unsigned)ure, (unsigned)uim);
        break;
    }
    case CLG_DTYPE_COMPLEX128: {
        double re, im;
        uint64_t ure, uim;
        memcpy(&re, p, 8);
        memcpy(&im, p + 8, 8);
        memcpy(&ure, p, 8);
        memcpy(&uim, p + 8, 8);
        snprintf(buf, cap, "(%.17g, %.17g) (0x%016llx, 0x%016llx)", re, im,
                 (unsigned long long)ure, (unsigned long long)uim);
        break;
    }
    case CLG_DTYPE_BOOL:
        if (p[0] <= 1)
            snprintf(buf, cap, "%s", p[0] ? "true" : "false");
        else
            snprintf(buf, cap, "0x%02x", (unsigned)p[0]);
        break;
    case CLG_DTYPE_INT8: {
        int8_t v;
        memcpy(&v, p, 1);
        snprintf(buf, cap, "%d", (int)v);
        break;
    }
    case CLG_DTYPE_UINT8:
        snprintf(buf, cap, "%u", (unsigned)p[0]);
        break;
    case CLG_DTYPE_INT16: {
        int16_t v;
        memcpy(&v, p, 2);
        snprintf(buf, cap, "%d", (int)v);
        break;
    }
    case CLG_DTYPE_UINT16: {
        uint16_t v;
        memcpy(&v, p, 2);
        snprintf(buf, cap, "%u", (unsigned)v);
        break;
    }
    case CLG_DTYPE_INT32: {
        int32_t v;
        memcpy(&v, p, 4);
        snprintf(buf, cap, "%ld", (long)v);
        break;
    }
    case CLG_DTYPE_UINT32: {
        uint32_t v;
        memcpy(&v, p, 4);
        snprintf(buf, cap, "%lu", (unsigned long)v);
        break;
    }
    case CLG_DTYPE_INT64: {
        int64_t v;
        memcpy(&v, p, 8);
        snprintf(buf, cap, "%lld", (long long)v);
        break;
    }
    case CLG_DTYPE_UINT64: {
        uint64_t v;
        memcpy(&v, p, 8);
        snprintf(buf, cap, "%llu", (unsigned long long)v);
        break;
    }
    case CLG_DTYPE_STRING: {
        clg_string s;
        memcpy(&s, p, sizeof s);
        format_string(buf, cap, &s);
        break;
    }
    default:
        snprintf(buf, cap, "?");
        break;
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

int clg_io_compare(const clg_tensor *expected, const clg_tensor *actual,
                   char *detail, size_t cap, int64_t *position)
{
    char s1[512], s2[512], pos[512];
    size_t elem;
    int64_t count;
    const unsigned char *e = expected->data;
    const unsigned char *a = actual->data;
    char dummy[1];

    if (detail == NULL) {
        detail = dummy;
        cap = sizeof dummy;
    }
    if (position != NULL)
        *position = -1;
    if (cap > 0)
        detail[0] = '\0';
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
    elem = clg_dtype_size(expected->dtype);
    count = clg_io_shape_count(expected->shape, expected->rank, elem);
    if (elem == 0 || count < 0) {
        snprintf(detail, cap, "cannot compare dtype %s shape %s",
                 clg_dtype_name(expected->dtype),
                 clg_io_format_shape(s1, sizeof s1, expected->shape,
                                     expected->rank));
        return 0;
    }
    if (count > 0 && (e == NULL || a == NULL)) {
        snprintf(detail, cap, "missing data");
        return 0;
    }
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
