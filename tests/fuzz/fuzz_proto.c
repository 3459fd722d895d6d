/* SPDX-License-Identifier: Apache-2.0 */
/* The TensorProto oracle. See fuzz_proto.h. */
#include "fuzz_proto.h"

#include <stdio.h>
#include <string.h>

#include "fuzz_common.h"

/* The typed field of each dtype, by onnx.proto's comments. */
enum field { F_NONE, F_FLOAT, F_INT32, F_INT64, F_DOUBLE, F_UINT64, F_STRING };

static enum field field_of(int32_t dtype)
{
    switch (dtype) {
    case CLG_DTYPE_FLOAT:
    case CLG_DTYPE_COMPLEX64:
        return F_FLOAT;
    case CLG_DTYPE_INT32:
    case CLG_DTYPE_INT16:
    case CLG_DTYPE_INT8:
    case CLG_DTYPE_UINT16:
    case CLG_DTYPE_UINT8:
    case CLG_DTYPE_BOOL:
    case CLG_DTYPE_FLOAT16:
    case CLG_DTYPE_BFLOAT16:
        return F_INT32;
    case CLG_DTYPE_INT64:
        return F_INT64;
    case CLG_DTYPE_DOUBLE:
    case CLG_DTYPE_COMPLEX128:
        return F_DOUBLE;
    case CLG_DTYPE_UINT32:
    case CLG_DTYPE_UINT64:
        return F_UINT64;
    case CLG_DTYPE_STRING:
        return F_STRING;
    default:
        return F_NONE;
    }
}

static size_t values_in(const Onnx__TensorProto *tp, enum field f)
{
    switch (f) {
    case F_FLOAT:
        return tp->n_float_data;
    case F_INT32:
        return tp->n_int32_data;
    case F_INT64:
        return tp->n_int64_data;
    case F_DOUBLE:
        return tp->n_double_data;
    case F_UINT64:
        return tp->n_uint64_data;
    case F_STRING:
        return tp->n_string_data;
    default:
        return 0;
    }
}

/* The range of the values of the dtypes held in a wider field. */
static int narrowed(int32_t dtype, int64_t *lo, int64_t *hi)
{
    switch (dtype) {
    case CLG_DTYPE_INT8:
        *lo = -128, *hi = 127;
        return 1;
    case CLG_DTYPE_INT16:
        *lo = -32768, *hi = 32767;
        return 1;
    case CLG_DTYPE_UINT8:
        *lo = 0, *hi = 255;
        return 1;
    case CLG_DTYPE_UINT16:
    case CLG_DTYPE_FLOAT16:
    case CLG_DTYPE_BFLOAT16:
        *lo = 0, *hi = 65535;
        return 1;
    case CLG_DTYPE_BOOL:
        *lo = 0, *hi = 1;
        return 1;
    case CLG_DTYPE_UINT32:
        *lo = 0, *hi = 4294967295LL;
        return 1;
    default:
        return 0;
    }
}

static int values_fit(const Onnx__TensorProto *tp)
{
    int64_t lo, hi;
    if (!narrowed(tp->data_type, &lo, &hi))
        return 1;
    if (tp->data_type == CLG_DTYPE_UINT32) {
        for (size_t i = 0; i < tp->n_uint64_data; i++)
            if (tp->uint64_data[i] > (uint64_t)hi)
                return 0;
        return 1;
    }
    for (size_t i = 0; i < tp->n_int32_data; i++)
        if (tp->int32_data[i] < lo || tp->int32_data[i] > hi)
            return 0;
    return 1;
}

/* The payload rules, for a tensor of `count` elements. */
static const char *payload_rule(const Onnx__TensorProto *tp, int64_t count)
{
    int32_t dt = tp->data_type;
    enum field want = field_of(dt);
    int complex = dt == CLG_DTYPE_COMPLEX64 || dt == CLG_DTYPE_COMPLEX128;
    size_t per = complex ? 2 : 1; /* values per element */
    for (int f = F_FLOAT; f <= F_STRING; f++)
        if (f != (int)want && values_in(tp, (enum field)f) > 0)
            return "a typed field of another dtype holds values";
    if (tp->has_raw_data) {
        if (dt == CLG_DTYPE_STRING)
            return "raw_data for STRING";
        if (values_in(tp, want) > 0)
            return "both raw_data and the typed field";
        if (tp->raw_data.len != (size_t)count * clg_dtype_size((clg_dtype)dt))
            return "raw_data of the wrong size";
        return NULL;
    }
    if (values_in(tp, want) != (size_t)count * per)
        return "the wrong number of values";
    if (!values_fit(tp))
        return "a value that does not fit the dtype";
    return NULL;
}

static const char *first_rule(const Onnx__TensorProto *tp)
{
    int64_t count;
    if (tp->n_external_data > 0 ||
        (tp->has_data_location &&
         tp->data_location == ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL))
        return "external data";
    if (tp->segment != NULL)
        return "a segment";
    if (!tp->has_data_type || tp->data_type < 1 || tp->data_type > 16 ||
        clg_dtype_size((clg_dtype)tp->data_type) == 0)
        return "no data_type of 1..16";
    if (tp->n_dims > CLG_MAX_RANK)
        return "more than CLG_MAX_RANK dims";
    /* clg_io_shape_count also refuses negative dimensions. */
    count = clg_io_shape_count(tp->dims, tp->n_dims,
                               clg_dtype_size((clg_dtype)tp->data_type));
    if (count < 0)
        return "a negative dimension or a size that does not fit";
    return payload_rule(tp, count);
}

int fuzz_proto_valid(const Onnx__TensorProto *tp, char *why, size_t cap)
{
    const char *rule = first_rule(tp);
    if (rule != NULL && cap > 0)
        snprintf(why, cap, "%s", rule);
    return rule == NULL;
}

/* ---------------------------------------------------------------- values */

/* Element i of t (elem bytes) holds the int32_data value v exactly. */
static int holds_int32(const clg_io_tensor *t, size_t i, int32_t v)
{
    const unsigned char *p = (const unsigned char *)t->data;
    switch (t->dtype) {
    case CLG_DTYPE_INT8: {
        int8_t x;
        memcpy(&x, p + i, 1);
        return x == v;
    }
    case CLG_DTYPE_UINT8:
    case CLG_DTYPE_BOOL:
        return p[i] == v;
    case CLG_DTYPE_INT16: {
        int16_t x;
        memcpy(&x, p + 2 * i, 2);
        return x == v;
    }
    case CLG_DTYPE_UINT16:
    case CLG_DTYPE_FLOAT16:
    case CLG_DTYPE_BFLOAT16: {
        uint16_t x;
        memcpy(&x, p + 2 * i, 2);
        return x == v;
    }
    default: {
        int32_t x;
        memcpy(&x, p + 4 * i, 4);
        return x == v;
    }
    }
}

static void check_strings(const Onnx__TensorProto *tp, const clg_io_tensor *t,
                          const char *what)
{
    const clg_string *s = t->data;
    for (size_t i = 0; i < tp->n_string_data; i++)
        FUZZ_CHECK(s[i].length == tp->string_data[i].len &&
                       (s[i].length == 0 ||
                        memcmp(s[i].data, tp->string_data[i].data,
                               s[i].length) == 0),
                   "%s: string %zu differs from string_data", what, i);
}

/* The typed field's values, element by element. */
static void check_typed(const Onnx__TensorProto *tp, const clg_io_tensor *t,
                        const char *what)
{
    const unsigned char *p = (const unsigned char *)t->data;
    size_t n = values_in(tp, field_of(tp->data_type));
    if (n == 0)
        return;
    switch (field_of(tp->data_type)) {
    case F_FLOAT:
        FUZZ_CHECK(memcmp(p, tp->float_data, n * 4) == 0, "%s: float_data",
                   what);
        break;
    case F_DOUBLE:
        FUZZ_CHECK(memcmp(p, tp->double_data, n * 8) == 0, "%s: double_data",
                   what);
        break;
    case F_INT64:
        FUZZ_CHECK(memcmp(p, tp->int64_data, n * 8) == 0, "%s: int64_data",
                   what);
        break;
    case F_UINT64:
        for (size_t i = 0; i < n; i++) {
            uint64_t x = 0;
            size_t w = t->dtype == CLG_DTYPE_UINT32 ? 4 : 8;
            memcpy(&x, p + i * w, w); /* little endian, as the reader */
            FUZZ_CHECK(x == tp->uint64_data[i], "%s: uint64_data[%zu]", what,
                       i);
        }
        break;
    case F_INT32:
        for (size_t i = 0; i < n; i++)
            FUZZ_CHECK(holds_int32(t, i, tp->int32_data[i]),
                       "%s: int32_data[%zu] = %ld is not what %s holds", what,
                       i, (long)tp->int32_data[i], clg_dtype_name(t->dtype));
        break;
    case F_STRING:
        check_strings(tp, t, what);
        break;
    default:
        break;
    }
}

void fuzz_proto_check_values(const Onnx__TensorProto *tp,
                             const clg_io_tensor *t, const char *what)
{
    FUZZ_CHECK((int32_t)t->dtype == tp->data_type && t->rank == tp->n_dims,
               "%s: %s rank %zu read from data_type %d with %zu dims", what,
               clg_dtype_name(t->dtype), t->rank, (int)tp->data_type,
               tp->n_dims);
    for (size_t d = 0; d < t->rank; d++)
        FUZZ_CHECK(t->shape[d] == tp->dims[d], "%s: dimension %zu", what, d);
    if (tp->has_raw_data)
        FUZZ_CHECK(t->nbytes == tp->raw_data.len &&
                       (t->nbytes == 0 ||
                        memcmp(t->data, tp->raw_data.data, t->nbytes) == 0),
                   "%s: the elements differ from raw_data", what);
    else
        check_typed(tp, t, what);
}

/* ---------------------------------------------------------------- nesting */

/* A varint of at most `max` bytes at b[*at .. end) into *v; 0 when it does
 * not end within them. */
static int varint(const uint8_t *b, size_t end, size_t *at, size_t max,
                  uint64_t *v)
{
    *v = 0;
    for (size_t i = 0; i < max && *at < end; i++) {
        uint8_t byte = b[(*at)++];
        *v |= (uint64_t)(byte & 0x7f) << (7 * i);
        if ((byte & 0x80) == 0)
            return 1;
    }
    return 0;
}

/* The fields of a message of `d` in b[*at .. end), `level` below the top,
 * by protobuf-c's wire rules: 1 when a message deeper than
 * CLG_ONNX_MAX_NESTING comes first, -1 when a wire error does, else 0.
 * The recursion stops at the limit, so its depth is bounded. */
static int walk(const ProtobufCMessageDescriptor *d, const uint8_t *b,
                size_t end, size_t *at, int level)
{
    while (*at < end) {
        const ProtobufCFieldDescriptor *f;
        uint64_t key, v;
        size_t width;
        int r;
        if ((b[*at] & 0xf8) == 0 || !varint(b, end, at, 5, &key))
            return -1;
        switch (key & 7) {
        case 0:
            if (!varint(b, end, at, 10, &v))
                return -1;
            break;
        case 1:
        case 5:
            width = (key & 7) == 1 ? 8 : 4;
            if (end - *at < width)
                return -1;
            *at += width;
            break;
        case 2:
            if (!varint(b, end, at, 5, &v) || v > INT32_MAX || v > end - *at)
                return -1;
            f = protobuf_c_message_descriptor_get_field(d,
                                                        (unsigned)(key >> 3));
            if (f == NULL || f->type != PROTOBUF_C_TYPE_MESSAGE) {
                *at += (size_t)v;
                break;
            }
            if (level == CLG_ONNX_MAX_NESTING)
                return 1;
            r = walk(f->descriptor, b, *at + (size_t)v, at, level + 1);
            if (r != 0)
                return r;
            break;
        default:
            return -1;
        }
    }
    return 0;
}

int fuzz_proto_too_deep(const ProtobufCMessageDescriptor *top,
                        const uint8_t *bytes, size_t size)
{
    size_t at = 0;
    return walk(top, bytes, size, &at, 0) == 1;
}
