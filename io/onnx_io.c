/* SPDX-License-Identifier: Apache-2.0 */
/* ONNX TensorProto and single-node model I/O for clgather_io, on the
 * protobuf-c code generated from Debian's onnx.proto. See onnx_io.h. */
#include "onnx_io.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "onnx.pb-c.h"

static const char *safe(const char *s)
{
    return s != NULL ? s : "";
}

/* Names of TensorProto.DataType values past clgather's table, so that a
 * rejection says what the file holds. */
static const char *onnx_type_name(int32_t t)
{
    static const struct {
        int32_t number;
        const char *name;
    } later[] = {{17, "FLOAT8E4M3FN"}, {18, "FLOAT8E4M3FNUZ"},
                 {19, "FLOAT8E5M2"},   {20, "FLOAT8E5M2FNUZ"},
                 {21, "UINT4"},        {22, "INT4"},
                 {23, "FLOAT4E2M1"}};
    if (t == 0 || (t > 0 && clg_dtype_size((clg_dtype)t) != 0))
        return clg_dtype_name((clg_dtype)t);
    for (size_t i = 0; i < sizeof later / sizeof later[0]; i++)
        if (later[i].number == t)
            return later[i].name;
    return "unknown";
}

/* ---------------------------------------------------------------- nesting */

/* protobuf-c unpacks a nested message by recursion, a stack frame or more
 * per level, with no limit of its own, and onnx.proto's messages recurse
 * (GraphProto -> NodeProto -> AttributeProto -> GraphProto, TypeProto ->
 * TypeProto.Sequence -> TypeProto): a 30 KB model nesting subgraphs 3,000
 * deep overflows the stack. So before unpacking, one loop walks the wire
 * format with a stack of its own, CLG_ONNX_MAX_NESTING + 1 entries, and
 * refuses a file that nests deeper (docs/design.md, "Tensor files"). The
 * generated descriptors say which fields are messages. The walk reads the
 * wire format by protobuf-c's own rules, so that what it calls malformed
 * protobuf-c refuses too. */

/* An open message: its descriptor and the offset where its bytes end. */
typedef struct nest_level {
    const ProtobufCMessageDescriptor *desc;
    size_t end;
} nest_level;

typedef enum nest_result {
    NEST_OK,
    NEST_MALFORMED,
    NEST_TOO_DEEP
} nest_result;

/* A varint of at most `max` bytes at b[*at .. end) into *v, *at past it;
 * 0 when it does not end within them. */
static int read_varint(const uint8_t *b, size_t end, size_t *at, size_t max,
                       uint64_t *v)
{
    uint64_t x = 0;
    for (size_t i = 0; i < max && *at + i < end; i++) {
        x |= (uint64_t)(b[*at + i] & 0x7f) << (7 * i);
        if ((b[*at + i] & 0x80) == 0) {
            *at += i + 1;
            *v = x;
            return 1;
        }
    }
    return 0;
}

/* One field's key at b[*at .. end): protobuf-c reads at most 5 bytes and
 * refuses a one-byte key of field 0. */
static int read_key(const uint8_t *b, size_t end, size_t *at, uint32_t *field,
                    unsigned *wire)
{
    uint64_t key;
    if ((b[*at] & 0xf8) == 0 || !read_varint(b, end, at, 5, &key))
        return 0;
    *field = (uint32_t)(key >> 3);
    *wire = (unsigned)(key & 7);
    return 1;
}

/* Past the value of a field of wire type `wire` at b[*at .. end), except a
 * length-delimited one's payload: *len gets its size (0 for the others).
 * 0 when malformed. */
static int skip_value(const uint8_t *b, size_t end, size_t *at, unsigned wire,
                      size_t *len)
{
    uint64_t v;
    *len = 0;
    switch (wire) {
    case 0: /* varint: at most 10 bytes */
        return read_varint(b, end, at, 10, &v);
    case 1: /* 64-bit */
    case 5: /* 32-bit */
        if (end - *at < (wire == 1 ? 8u : 4u))
            return 0;
        *at += wire == 1 ? 8 : 4;
        return 1;
    case 2: /* length-delimited: a prefix of at most 5 bytes, <= INT_MAX */
        if (!read_varint(b, end, at, 5, &v) || v > INT32_MAX || v > end - *at)
            return 0;
        *len = (size_t)v;
        return 1;
    default: /* groups, and wire types 6 and 7: protobuf-c refuses them */
        return 0;
    }
}

size_t clg_onnx_read_bound(const unsigned char *bytes, size_t len,
                           size_t *state)
{
    /* *state: the offset of the next top-level key. A key and the start
     * of its value (a varint, or a length prefix) take at most 15 bytes:
     * with fewer in, the field cannot be judged yet. */
    while (*state < len && len - *state >= 15) {
        size_t at = *state;
        uint32_t field;
        unsigned wire;
        uint64_t v;
        if (!read_key(bytes, len, &at, &field, &wire))
            return len;
        if (wire == 1 || wire == 5) {
            at += wire == 1 ? 8 : 4;
        } else if (wire == 2) {
            if (!read_varint(bytes, len, &at, 5, &v) || v > INT32_MAX)
                return len;
            at += (size_t)v;
        } else if (wire != 0 || !read_varint(bytes, len, &at, 10, &v)) {
            return len; /* a varint too long, a group, wire types 6, 7 */
        }
        *state = at;
    }
    return SIZE_MAX;
}

/* The nesting of the message `top` in b[0 .. size). On NEST_TOO_DEEP,
 * *what names the message that went past the limit and *where its offset. */
static nest_result scan_nesting(const ProtobufCMessageDescriptor *top,
                                const uint8_t *b, size_t size,
                                const char **what, size_t *where)
{
    nest_level stack[CLG_ONNX_MAX_NESTING + 1];
    size_t depth = 0, at = 0;

    stack[0].desc = top;
    stack[0].end = size;
    for (;;) {
        const ProtobufCFieldDescriptor *f;
        uint32_t field;
        unsigned wire;
        size_t len, start = at;
        while (depth > 0 && at == stack[depth].end)
            depth--;
        if (at == stack[depth].end)
            return NEST_OK;
        if (!read_key(b, stack[depth].end, &at, &field, &wire) ||
            !skip_value(b, stack[depth].end, &at, wire, &len))
            return NEST_MALFORMED;
        f = protobuf_c_message_descriptor_get_field(stack[depth].desc, field);
        if (wire != 2 || f == NULL || f->type != PROTOBUF_C_TYPE_MESSAGE) {
            at += len;
            continue;
        }
        if (depth == CLG_ONNX_MAX_NESTING) {
            *what = ((const ProtobufCMessageDescriptor *)f->descriptor)->name;
            *where = start;
            return NEST_TOO_DEEP;
        }
        depth++;
        stack[depth].desc = f->descriptor;
        stack[depth].end = at + len;
    }
}

/* `top` unpacked from bytes once their nesting is checked; NULL with the
 * message in err when they nest too deep or are malformed. `kind` names
 * the message in that message ("ONNX model"). */
static ProtobufCMessage *unpack_bounded(const ProtobufCMessageDescriptor *top,
                                        const void *bytes, size_t size,
                                        const char *name, const char *kind,
                                        clg_io_status *st, clg_io_error *err)
{
    ProtobufCMessage *msg = NULL;
    const char *what = "";
    size_t where = 0;
    nest_result r = scan_nesting(top, bytes, size, &what, &where);

    if (r == NEST_TOO_DEEP) {
        clg_io_error_set(err,
                         "%s: nested too deep: the %s at byte %zu is %d "
                         "levels below the top message; clgather reads at "
                         "most %d",
                         name, what, where, CLG_ONNX_MAX_NESTING + 1,
                         CLG_ONNX_MAX_NESTING);
        *st = CLG_IO_UNSUPPORTED;
        return NULL;
    }
    if (r == NEST_OK)
        msg = protobuf_c_message_unpack(top, NULL, size, bytes);
    if (msg == NULL) {
        clg_io_error_set(err,
                         "%s: not a valid %s (malformed or truncated "
                         "protobuf, %zu bytes)",
                         name, kind, size);
        *st = CLG_IO_FORMAT_ERROR;
    }
    return msg;
}

/* ---------------------------------------------------------------- tensors */

/* The typed field an ONNX writer uses for each dtype. */
typedef enum typed_field {
    FIELD_NONE,
    FIELD_FLOAT,
    FIELD_INT32,
    FIELD_INT64,
    FIELD_DOUBLE,
    FIELD_UINT64,
    FIELD_STRING
} typed_field;

/* onnx.proto's rule, from the dtype's kind and size: floats of 4 and 8
 * bytes (complex: per part) in float_data and double_data, the other
 * integers, bools and 16-bit floats in int32_data (INT64 in int64_data,
 * UINT32 and UINT64 in uint64_data), strings in string_data. */
static typed_field field_for(clg_dtype dtype)
{
    char kind = clg_io_dtype_kind(dtype);
    size_t size = clg_dtype_size(dtype);
    size_t part = kind == 'c' ? size / 2 : size;
    switch (kind) {
    case 'f':
    case 'c':
        return part == 4   ? FIELD_FLOAT
               : part == 8 ? FIELD_DOUBLE
               : part == 2 ? FIELD_INT32
                           : FIELD_NONE;
    case 'b':
    case 'B':
        return FIELD_INT32;
    case 'i':
        return size <= 4 ? FIELD_INT32 : FIELD_INT64;
    case 'u':
        return size <= 2 ? FIELD_INT32 : FIELD_UINT64;
    case 'S':
        return FIELD_STRING;
    default:
        return FIELD_NONE;
    }
}

static const char *field_name(typed_field f)
{
    switch (f) {
    case FIELD_FLOAT:
        return "float_data";
    case FIELD_INT32:
        return "int32_data";
    case FIELD_INT64:
        return "int64_data";
    case FIELD_DOUBLE:
        return "double_data";
    case FIELD_UINT64:
        return "uint64_data";
    case FIELD_STRING:
        return "string_data";
    default:
        return "raw_data";
    }
}

static size_t field_count(const Onnx__TensorProto *tp, typed_field f)
{
    switch (f) {
    case FIELD_FLOAT:
        return tp->n_float_data;
    case FIELD_INT32:
        return tp->n_int32_data;
    case FIELD_INT64:
        return tp->n_int64_data;
    case FIELD_DOUBLE:
        return tp->n_double_data;
    case FIELD_UINT64:
        return tp->n_uint64_data;
    case FIELD_STRING:
        return tp->n_string_data;
    default:
        return 0;
    }
}

/* External and segmented data are not supported. */
static clg_io_status check_location(const Onnx__TensorProto *tp,
                                    const char *name, clg_io_error *err)
{
    if (tp->n_external_data > 0 ||
        (tp->has_data_location &&
         tp->data_location == ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL)) {
        const char *location = "?";
        for (size_t i = 0; i < tp->n_external_data; i++)
            if (tp->external_data[i] != NULL &&
                strcmp(safe(tp->external_data[i]->key), "location") == 0)
                location = safe(tp->external_data[i]->value);
        clg_io_error_set(err,
                         "%s: field external_data: tensor '%s' keeps its "
                         "data in external file '%s'; external data is not "
                         "supported",
                         name, safe(tp->name), location);
        return CLG_IO_UNSUPPORTED;
    }
    if (tp->segment != NULL) {
        clg_io_error_set(err,
                         "%s: field segment: segmented tensors are not "
                         "supported",
                         name);
        return CLG_IO_UNSUPPORTED;
    }
    return CLG_IO_OK;
}

/* The dtype and shape of tp into *dtype and shape[0 .. tp->n_dims). */
static clg_io_status proto_type(const Onnx__TensorProto *tp, const char *name,
                                clg_dtype *dtype, int64_t *shape,
                                clg_io_error *err)
{
    if (!tp->has_data_type || tp->data_type == 0) {
        clg_io_error_set(err,
                         "%s: field data_type: missing or UNDEFINED (is this "
                         "an ONNX TensorProto file?)",
                         name);
        return CLG_IO_FORMAT_ERROR;
    }
    if (tp->data_type < 0 || clg_dtype_size((clg_dtype)tp->data_type) == 0) {
        clg_io_error_set(err,
                         "%s: field data_type: %d (%s) is not supported by "
                         "clgather",
                         name, (int)tp->data_type,
                         onnx_type_name(tp->data_type));
        return CLG_IO_UNSUPPORTED;
    }
    *dtype = (clg_dtype)tp->data_type;
    if (tp->n_dims > CLG_MAX_RANK) {
        clg_io_error_set(err,
                         "%s: field dims: rank %zu is above clgather's "
                         "maximum %d",
                         name, tp->n_dims, CLG_MAX_RANK);
        return CLG_IO_UNSUPPORTED;
    }
    for (size_t i = 0; i < tp->n_dims; i++) {
        if (tp->dims[i] < 0) {
            clg_io_error_set(err, "%s: field dims: dimension %zu is %lld",
                             name, i, (long long)tp->dims[i]);
            return CLG_IO_FORMAT_ERROR;
        }
        shape[i] = tp->dims[i];
    }
    return CLG_IO_OK;
}

/* No typed field other than the dtype's own may hold values. */
static clg_io_status check_fields(const Onnx__TensorProto *tp,
                                  const char *name, clg_dtype dtype,
                                  clg_io_error *err)
{
    typed_field want = field_for(dtype);
    for (typed_field f = FIELD_FLOAT; f <= FIELD_STRING; f++)
        if (f != want && field_count(tp, f) > 0) {
            clg_io_error_set(err,
                             "%s: field %s: not valid for data_type %s "
                             "(expected %s or raw_data)",
                             name, field_name(f), clg_dtype_name(dtype),
                             field_name(want));
            return CLG_IO_FORMAT_ERROR;
        }
    return CLG_IO_OK;
}

/* raw_data: little-endian bytes, exactly out->nbytes of them. */
static clg_io_status check_raw(const Onnx__TensorProto *tp, const char *name,
                               const clg_io_tensor *out, clg_io_error *err)
{
    typed_field want = field_for(out->dtype);
    if (out->dtype == CLG_DTYPE_STRING) {
        clg_io_error_set(err,
                         "%s: field raw_data: STRING tensors must use "
                         "string_data",
                         name);
        return CLG_IO_FORMAT_ERROR;
    }
    if (field_count(tp, want) > 0) {
        clg_io_error_set(err, "%s: fields raw_data and %s are both set", name,
                         field_name(want));
        return CLG_IO_FORMAT_ERROR;
    }
    if (tp->raw_data.len != out->nbytes) {
        char s[512];
        clg_io_error_set(err,
                         "%s: field raw_data: %zu bytes, but %s %s needs "
                         "%zu",
                         name, tp->raw_data.len, clg_dtype_name(out->dtype),
                         clg_io_format_shape(s, sizeof s, out->shape,
                                             out->rank),
                         out->nbytes);
        return CLG_IO_FORMAT_ERROR;
    }
    return CLG_IO_OK;
}

static void copy_raw(const Onnx__TensorProto *tp, clg_io_tensor *out)
{
    if (out->nbytes > 0) {
        memcpy(out->data, tp->raw_data.data, out->nbytes);
        if (!clg_io_host_is_little_endian())
            clg_io_swap_words(out->data, out->nbytes,
                              clg_io_word_size(out->dtype));
    }
}

/* The typed field must hold one value per element (two for complex). */
static clg_io_status check_value_count(const Onnx__TensorProto *tp,
                                       const char *name,
                                       const clg_io_tensor *out,
                                       clg_io_error *err)
{
    typed_field want = field_for(out->dtype);
    size_t n_values = field_count(tp, want);
    size_t per_elem = clg_io_dtype_kind(out->dtype) == 'c' ? 2 : 1;
    char s[512];
    if (n_values == (size_t)out->count * per_elem)
        return CLG_IO_OK;
    if (n_values == 0)
        clg_io_error_set(err,
                         "%s: no data: %s %s needs %lld values in %s or "
                         "raw_data",
                         name, clg_dtype_name(out->dtype),
                         clg_io_format_shape(s, sizeof s, out->shape,
                                             out->rank),
                         (long long)out->count * (long long)per_elem,
                         field_name(want));
    else
        clg_io_error_set(err,
                         "%s: field %s: %zu values, but %s %s needs "
                         "%lld",
                         name, field_name(want), n_values,
                         clg_dtype_name(out->dtype),
                         clg_io_format_shape(s, sizeof s, out->shape,
                                             out->rank),
                         (long long)out->count * (long long)per_elem);
    return CLG_IO_FORMAT_ERROR;
}

/* The values that `dtype` may take where onnx.proto stores it in a wider
 * typed field: INT8, UINT8, INT16, UINT16, BOOL and the FLOAT16 and
 * BFLOAT16 bit patterns in int32_data, UINT32 in uint64_data. 0 for the
 * dtypes whose field holds them exactly. */
static int narrow_range(clg_dtype dtype, int64_t *lo, int64_t *hi,
                        const char **note)
{
    char kind = clg_io_dtype_kind(dtype);
    size_t size = clg_dtype_size(dtype);
    *note = "";
    if ((kind == 'f' && size == 2) || kind == 'B') {
        *lo = 0, *hi = UINT16_MAX;
        *note = ", a 16-bit pattern";
        return 1;
    }
    if (kind == 'b') {
        *lo = 0, *hi = 1;
        return 1;
    }
    if (kind == 'i' && size < 4) {
        *hi = ((int64_t)1 << (8 * size - 1)) - 1;
        *lo = -*hi - 1;
        return 1;
    }
    if (kind == 'u' && size <= 4) {
        *lo = 0, *hi = ((int64_t)1 << (8 * size)) - 1;
        return 1;
    }
    return 0;
}

/* "<name>: tensor '<t>': <field>[i] = <value> (element [..]) is out of
 * range for <dtype> (lo to hi)"; the tensor part only when it is named. */
static clg_io_status out_of_range(const Onnx__TensorProto *tp,
                                  const char *name, const clg_io_tensor *out,
                                  size_t i, const char *value,
                                  clg_io_error *err)
{
    int64_t at[CLG_MAX_RANK];
    int64_t lo = 0, hi = 0;
    const char *note, *tensor = safe(tp->name);
    char element[512];
    size_t rest = i;

    narrow_range(out->dtype, &lo, &hi, &note);
    for (size_t d = out->rank; d-- > 0;) {
        at[d] = (int64_t)(rest % (size_t)out->shape[d]);
        rest /= (size_t)out->shape[d];
    }
    clg_io_error_set(err,
                     "%s: %s%s%s%s[%zu] = %s (element %s) is out of range "
                     "for %s (%lld to %lld%s)",
                     name, tensor[0] ? "tensor '" : "", tensor,
                     tensor[0] ? "': " : "", field_name(field_for(out->dtype)),
                     i, value,
                     clg_io_format_shape(element, sizeof element, at,
                                         out->rank),
                     clg_dtype_name(out->dtype), (long long)lo, (long long)hi,
                     note);
    return CLG_IO_FORMAT_ERROR;
}

/* Every value of a narrowed typed field must fit its dtype: keeping the
 * low bits would turn INT8 1000 into -24, and BOOL 7 is no bool. */
static clg_io_status check_value_range(const Onnx__TensorProto *tp,
                                       const char *name,
                                       const clg_io_tensor *out,
                                       clg_io_error *err)
{
    int64_t lo, hi;
    const char *note;
    char value[32];

    if (!narrow_range(out->dtype, &lo, &hi, &note))
        return CLG_IO_OK;
    if (field_for(out->dtype) == FIELD_UINT64) {
        for (size_t i = 0; i < tp->n_uint64_data; i++)
            if (tp->uint64_data[i] > (uint64_t)hi) {
                snprintf(value, sizeof value, "%llu",
                         (unsigned long long)tp->uint64_data[i]);
                return out_of_range(tp, name, out, i, value, err);
            }
        return CLG_IO_OK;
    }
    for (size_t i = 0; i < tp->n_int32_data; i++)
        if (tp->int32_data[i] < lo || tp->int32_data[i] > hi) {
            snprintf(value, sizeof value, "%ld", (long)tp->int32_data[i]);
            return out_of_range(tp, name, out, i, value, err);
        }
    return CLG_IO_OK;
}

/* ONNX packs the narrower types one per int32 entry, each checked to fit
 * (check_value_range); FLOAT16 and BFLOAT16 are bit patterns. */
static void copy_int32_data(const Onnx__TensorProto *tp, clg_io_tensor *out)
{
    size_t elem = clg_dtype_size(out->dtype);
    for (size_t i = 0; i < tp->n_int32_data; i++) {
        int32_t v = tp->int32_data[i];
        unsigned char *dst = (unsigned char *)out->data + i * elem;
        if (elem == 4) {
            memcpy(dst, &v, 4);
        } else if (elem == 2) {
            uint16_t u = (uint16_t)(uint32_t)v;
            memcpy(dst, &u, 2);
        } else {
            *dst = (unsigned char)(uint32_t)v;
        }
    }
}

/* string_data into out->string_bytes, one descriptor per element. */
static clg_io_status copy_string_data(const Onnx__TensorProto *tp,
                                      const char *name, clg_io_tensor *out,
                                      clg_io_error *err)
{
    size_t total = 0, at = 0;
    clg_string *s = out->data;
    for (size_t i = 0; i < tp->n_string_data; i++)
        total += tp->string_data[i].len;
    out->string_bytes = malloc(total > 0 ? total : 1);
    if (out->string_bytes == NULL) {
        clg_io_error_set(err, "%s: out of memory", name);
        return CLG_IO_NO_MEMORY;
    }
    out->string_bytes_size = total;
    for (size_t i = 0; i < tp->n_string_data; i++) {
        size_t len = tp->string_data[i].len;
        if (len > 0)
            memcpy(out->string_bytes + at, tp->string_data[i].data, len);
        s[i].data = out->string_bytes + at;
        s[i].length = len;
        at += len;
    }
    return CLG_IO_OK;
}

/* The dtype's typed field into out, its count checked. */
static clg_io_status copy_values(const Onnx__TensorProto *tp, const char *name,
                                 clg_io_tensor *out, clg_io_error *err)
{
    /* An empty tensor has no data, and its empty field no array: both
     * pointers are NULL, and memcpy(NULL, NULL, 0) is undefined. */
    if (out->count == 0)
        return CLG_IO_OK;
    switch (field_for(out->dtype)) {
    case FIELD_FLOAT:
        memcpy(out->data, tp->float_data, tp->n_float_data * sizeof(float));
        break;
    case FIELD_DOUBLE:
        memcpy(out->data, tp->double_data, tp->n_double_data * sizeof(double));
        break;
    case FIELD_INT64:
        memcpy(out->data, tp->int64_data, tp->n_int64_data * sizeof(int64_t));
        break;
    case FIELD_UINT64:
        if (clg_dtype_size(out->dtype) == sizeof(uint64_t))
            memcpy(out->data, tp->uint64_data,
                   tp->n_uint64_data * sizeof(uint64_t));
        else
            for (size_t i = 0; i < tp->n_uint64_data; i++) {
                uint32_t v = (uint32_t)tp->uint64_data[i];
                memcpy((unsigned char *)out->data + i * 4, &v, 4);
            }
        break;
    case FIELD_INT32:
        copy_int32_data(tp, out);
        break;
    case FIELD_STRING:
        return copy_string_data(tp, name, out, err);
    default:
        break;
    }
    return CLG_IO_OK;
}

/* Converts a decoded TensorProto into *out. `name` names the file (and,
 * for initializers, the tensor) in messages. The payload is checked
 * against the shape before anything is allocated, so that what is
 * allocated is bounded by the size of the file: dims alone cost nothing
 * to claim. */
static clg_io_status tensor_from_proto(const Onnx__TensorProto *tp,
                                       const char *name, clg_io_tensor *out,
                                       clg_io_error *err)
{
    clg_dtype dtype = CLG_DTYPE_UNDEFINED;
    int64_t shape[CLG_MAX_RANK];
    clg_io_status st;

    clg_io_tensor_free(out);
    st = check_location(tp, name, err);
    if (st == CLG_IO_OK)
        st = proto_type(tp, name, &dtype, shape, err);
    if (st == CLG_IO_OK)
        st = clg_io_tensor_shape(out, dtype, tp->n_dims, shape, name, err);
    if (st == CLG_IO_OK)
        st = check_fields(tp, name, dtype, err);
    if (st == CLG_IO_OK)
        st = tp->has_raw_data ? check_raw(tp, name, out, err)
                              : check_value_count(tp, name, out, err);
    if (st == CLG_IO_OK && !tp->has_raw_data)
        st = check_value_range(tp, name, out, err);
    if (st == CLG_IO_OK)
        st = clg_io_tensor_alloc_data(out, name, err);
    if (st == CLG_IO_OK && tp->has_raw_data)
        copy_raw(tp, out);
    else if (st == CLG_IO_OK)
        st = copy_values(tp, name, out, err);
    if (st != CLG_IO_OK)
        clg_io_tensor_free(out);
    return st;
}

clg_io_status clg_onnx_decode_tensor(const void *bytes, size_t size,
                                     const char *name, clg_io_tensor *out,
                                     clg_io_error *err)
{
    Onnx__TensorProto *tp;
    clg_io_status st;

    clg_io_tensor_free(out);
    tp = (Onnx__TensorProto *)unpack_bounded(&onnx__tensor_proto__descriptor,
                                             bytes, size, name,
                                             "ONNX TensorProto", &st, err);
    if (tp == NULL)
        return st;
    st = tensor_from_proto(tp, name, out, err);
    onnx__tensor_proto__free_unpacked(tp, NULL);
    return st;
}

clg_io_status clg_onnx_read_tensor(const char *path, clg_io_tensor *out,
                                   clg_io_error *err)
{
    unsigned char *bytes = NULL;
    size_t size = 0;
    clg_io_status st;

    clg_io_tensor_free(out);
    st = clg_io_read_file(path, clg_onnx_read_bound, &bytes, &size, err);
    if (st == CLG_IO_OK)
        st = clg_onnx_decode_tensor(bytes, size, path, out, err);
    free(bytes);
    return st;
}

/* A tensor the encoder can write: known dtype, valid rank and shape,
 * data unless empty. Its element count to *count. */
static clg_io_status check_encodable(const clg_tensor *t, int64_t *count,
                                     clg_io_error *err)
{
    size_t elem = clg_dtype_size(t->dtype);
    if (elem == 0) {
        clg_io_error_set(err, "TensorProto: unsupported data type %d",
                         (int)t->dtype);
        return CLG_IO_UNSUPPORTED;
    }
    if (t->rank > CLG_MAX_RANK || (t->rank > 0 && t->shape == NULL)) {
        clg_io_error_set(err, "TensorProto: invalid rank %zu", t->rank);
        return CLG_IO_FORMAT_ERROR;
    }
    *count = clg_io_shape_count(t->shape, t->rank, elem);
    if (*count < 0) {
        clg_io_error_set(err, "TensorProto: invalid shape");
        return CLG_IO_FORMAT_ERROR;
    }
    if (*count > 0 && t->data == NULL) {
        clg_io_error_set(err, "TensorProto: tensor data is NULL");
        return CLG_IO_FORMAT_ERROR;
    }
    return CLG_IO_OK;
}

/* string_data pointing at t's strings; *strings (malloc'd) to free after
 * packing. */
static clg_io_status set_string_data(Onnx__TensorProto *tp,
                                     const clg_tensor *t, int64_t count,
                                     ProtobufCBinaryData **strings)
{
    const clg_string *s = t->data;
    if (count > 0) {
        *strings = calloc((size_t)count, sizeof **strings);
        if (*strings == NULL)
            return CLG_IO_NO_MEMORY;
    }
    for (int64_t i = 0; i < count; i++) {
        /* protobuf-c's type is not const; packing only reads it. */
        (*strings)[i].data = (uint8_t *)(uintptr_t)s[i].data;
        (*strings)[i].len = s[i].length;
    }
    tp->n_string_data = (size_t)count;
    tp->string_data = *strings;
    return CLG_IO_OK;
}

/* raw_data: t's bytes in place on a little-endian host, else a swapped
 * copy in *raw (malloc'd) to free after packing. */
static clg_io_status set_raw_data(Onnx__TensorProto *tp, const clg_tensor *t,
                                  int64_t count, unsigned char **raw)
{
    size_t nbytes = (size_t)count * clg_dtype_size(t->dtype);
    tp->has_raw_data = 1;
    tp->raw_data.len = nbytes;
    if (nbytes == 0)
        return CLG_IO_OK;
    if (clg_io_host_is_little_endian()) {
        tp->raw_data.data = (uint8_t *)t->data;
        return CLG_IO_OK;
    }
    *raw = malloc(nbytes);
    if (*raw == NULL)
        return CLG_IO_NO_MEMORY;
    memcpy(*raw, t->data, nbytes);
    clg_io_swap_words(*raw, nbytes, clg_io_word_size(t->dtype));
    tp->raw_data.data = *raw;
    return CLG_IO_OK;
}

clg_io_status clg_onnx_encode_tensor(const clg_tensor *t,
                                     const char *tensor_name,
                                     unsigned char **bytes, size_t *size,
                                     clg_io_error *err)
{
    Onnx__TensorProto tp = ONNX__TENSOR_PROTO__INIT;
    ProtobufCBinaryData *strings = NULL;
    unsigned char *raw = NULL;
    unsigned char *buf = NULL;
    int64_t dims[CLG_MAX_RANK];
    int64_t count;
    clg_io_status st;

    *bytes = NULL;
    *size = 0;
    st = check_encodable(t, &count, err);
    if (st != CLG_IO_OK)
        return st;
    for (size_t i = 0; i < t->rank; i++)
        dims[i] = t->shape[i];
    tp.n_dims = t->rank;
    tp.dims = dims;
    tp.has_data_type = 1;
    tp.data_type = (int32_t)t->dtype;
    tp.name = (char *)(tensor_name != NULL ? tensor_name : "");
    st = t->dtype == CLG_DTYPE_STRING
             ? set_string_data(&tp, t, count, &strings)
             : set_raw_data(&tp, t, count, &raw);
    if (st == CLG_IO_OK) {
        size_t packed = onnx__tensor_proto__get_packed_size(&tp);
        buf = malloc(packed > 0 ? packed : 1);
        if (buf == NULL)
            st = CLG_IO_NO_MEMORY;
    }
    if (st == CLG_IO_OK) {
        *size = onnx__tensor_proto__pack(&tp, buf);
        *bytes = buf;
        buf = NULL;
    }
    if (st == CLG_IO_NO_MEMORY)
        clg_io_error_set(err, "TensorProto: out of memory");
    free(buf);
    free(raw);
    free(strings);
    return st;
}

clg_io_status clg_onnx_write_tensor(const char *path, const clg_tensor *t,
                                    const char *tensor_name, clg_io_error *err)
{
    unsigned char *bytes = NULL;
    size_t size = 0;
    clg_io_status st;

    st = clg_onnx_encode_tensor(t, tensor_name, &bytes, &size, err);
    if (st != CLG_IO_OK) {
        if (err != NULL) {
            clg_io_error e = *err;
            clg_io_error_set(err, "%s: %s", path, e.message);
        }
        return st;
    }
    st = clg_io_write_file(path, bytes, size, err);
    free(bytes);
    return st;
}

/* ---------------------------------------------------------------- models */

void clg_onnx_model_init(clg_onnx_model *m)
{
    memset(m, 0, sizeof *m);
    m->op_type = "";
    clg_io_tensor_init(&m->data.value);
    clg_io_tensor_init(&m->indices.value);
    m->data.input_index = -1;
    m->indices.input_index = -1;
    m->data.declared_rank = -1;
    m->indices.declared_rank = -1;
}

void clg_onnx_model_free(clg_onnx_model *m)
{
    if (m == NULL)
        return;
    clg_io_tensor_free(&m->data.value);
    clg_io_tensor_free(&m->indices.value);
    clg_onnx_model_init(m);
}

static int is_default_domain(const char *domain)
{
    return domain == NULL || domain[0] == '\0' ||
           strcmp(domain, "ai.onnx") == 0;
}

static const Onnx__TensorProto *find_initializer(const Onnx__GraphProto *g,
                                                 const char *name)
{
    for (size_t i = 0; i < g->n_initializer; i++)
        if (g->initializer[i] != NULL &&
            strcmp(safe(g->initializer[i]->name), name) == 0)
            return g->initializer[i];
    return NULL;
}

/* Index of `name` among the graph inputs that are not initializers (the
 * ones fed from input_N.pb), or -1. */
static int runtime_input_index(const Onnx__GraphProto *g, const char *name)
{
    int k = 0;
    for (size_t i = 0; i < g->n_input; i++) {
        const char *in = g->input[i] != NULL ? safe(g->input[i]->name) : "";
        if (find_initializer(g, in) != NULL)
            continue;
        if (strcmp(in, name) == 0)
            return k;
        k++;
    }
    return -1;
}

/* op's declared_type and declared_shape from the graph input `name`. A
 * graph input of another kind than a tensor (a sequence, a map) cannot
 * feed Gather: CLG_IO_UNSUPPORTED. */
static clg_io_status declared_input(const Onnx__GraphProto *g,
                                    const char *name, const char *role,
                                    const char *path, clg_onnx_operand *op,
                                    clg_io_error *err)
{
    const Onnx__TypeProto *type = NULL;
    const Onnx__TensorShapeProto *shape;
    for (size_t i = 0; i < g->n_input && type == NULL; i++)
        if (g->input[i] != NULL && strcmp(safe(g->input[i]->name), name) == 0)
            type = g->input[i]->type;
    if (type == NULL || type->value_case == ONNX__TYPE_PROTO__VALUE__NOT_SET)
        return CLG_IO_OK; /* the model says nothing: nothing to check */
    if (type->value_case != ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE ||
        type->tensor_type == NULL) {
        clg_io_error_set(err,
                         "%s: the node's %s input '%s' is not declared a "
                         "tensor",
                         path, role, name);
        return CLG_IO_UNSUPPORTED;
    }
    if (type->tensor_type->has_elem_type)
        op->declared_type = type->tensor_type->elem_type;
    shape = type->tensor_type->shape;
    if (shape == NULL)
        return CLG_IO_OK;
    op->declared_rank = shape->n_dim > CLG_MAX_RANK + 1 ? CLG_MAX_RANK + 1
                                                        : (int)shape->n_dim;
    for (size_t i = 0; i < shape->n_dim && i < CLG_MAX_RANK; i++) {
        const Onnx__TensorShapeProto__Dimension *d = shape->dim[i];
        op->declared_shape[i] =
            d != NULL &&
                    d->value_case ==
                        ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE &&
                    d->dim_value >= 0
                ? d->dim_value
                : -1;
    }
    return CLG_IO_OK;
}

static clg_io_status resolve_operand(const Onnx__GraphProto *g,
                                     const char *name, const char *role,
                                     const char *path, clg_onnx_operand *op,
                                     clg_io_error *err)
{
    const Onnx__TensorProto *init;
    char what[1024];

    snprintf(op->name, sizeof op->name, "%s", name);
    if (name[0] == '\0') {
        clg_io_error_set(err, "%s: the node's %s input has no name", path,
                         role);
        return CLG_IO_FORMAT_ERROR;
    }
    op->input_index = runtime_input_index(g, name);
    if (op->input_index >= 0)
        return declared_input(g, name, role, path, op, err);
    init = find_initializer(g, name);
    if (init == NULL) {
        clg_io_error_set(err,
                         "%s: the node's %s input '%s' is neither a graph "
                         "input nor an initializer",
                         path, role, name);
        return CLG_IO_FORMAT_ERROR;
    }
    snprintf(what, sizeof what, "%s: initializer '%s'", path, name);
    return tensor_from_proto(init, what, &op->value, err);
}

/* m->opset from the default domain's opset_import. */
static clg_io_status read_opset(const Onnx__ModelProto *model,
                                const char *name, clg_onnx_model *m,
                                clg_io_error *err)
{
    int have_opset = 0;
    for (size_t i = 0; i < model->n_opset_import; i++) {
        const Onnx__OperatorSetIdProto *o = model->opset_import[i];
        if (o != NULL && is_default_domain(o->domain)) {
            m->opset = o->has_version ? o->version : 0;
            have_opset = 1;
        }
    }
    if (!have_opset) {
        clg_io_error_set(err,
                         "%s: no opset_import for the default ONNX domain",
                         name);
        return CLG_IO_UNSUPPORTED;
    }
    return CLG_IO_OK;
}

/* The operators of CLG_OP_TABLE by their op_type, joined with `last`
 * before the last: "Gather, GatherElements or GatherND". */
static void op_types(char *buf, size_t cap, const char *last)
{
    size_t at = 0;
    int n = clg_op_count();
    buf[0] = '\0';
    for (int i = 0; i < n && at < cap; i++)
        at += (size_t)snprintf(buf + at, cap - at, "%s%s",
                               i == 0       ? ""
                               : i == n - 1 ? last
                                            : ", ",
                               clg_op_name((clg_op)i));
}

/* The operator of CLG_OP_TABLE whose ONNX op_type is `op_type`; 0 when
 * none is. */
static int op_of_type(const char *op_type, clg_op *op)
{
    for (int i = 0; i < clg_op_count(); i++)
        if (strcmp(op_type, clg_op_name((clg_op)i)) == 0) {
            *op = (clg_op)i;
            return 1;
        }
    return 0;
}

/* The graph's only node, which must be of the default domain. */
static clg_io_status only_node(const Onnx__GraphProto *g, const char *name,
                               const Onnx__NodeProto **node, clg_io_error *err)
{
    char ops[256];
    if (g->n_node != 1 || g->node[0] == NULL) {
        op_types(ops, sizeof ops, " or ");
        clg_io_error_set(err,
                         "%s: the graph has %zu nodes; clgather runs models "
                         "of exactly one %s node",
                         name, g->n_node, ops);
        return CLG_IO_UNSUPPORTED;
    }
    *node = g->node[0];
    if (!is_default_domain((*node)->domain)) {
        op_types(ops, sizeof ops, " and ");
        clg_io_error_set(err,
                         "%s: node '%s' is in domain '%s'; clgather runs "
                         "%s of the default domain",
                         name, safe((*node)->op_type), safe((*node)->domain),
                         ops);
        return CLG_IO_UNSUPPORTED;
    }
    return CLG_IO_OK;
}

/* m->op, m->op_type and m->op_version from the node and m->opset. */
static clg_io_status node_operator(const char *op_type, const char *name,
                                   clg_onnx_model *m, clg_io_error *err)
{
    if (!op_of_type(op_type, &m->op)) {
        char ops[256];
        op_types(ops, sizeof ops, " or ");
        clg_io_error_set(err, "%s: the node is '%s', not %s", name, op_type,
                         ops);
        return CLG_IO_UNSUPPORTED;
    }
    m->op_type = clg_op_name(m->op);
    if (m->opset < clg_op_first_opset(m->op)) {
        clg_io_error_set(err,
                         "%s: %s needs opset >= %d; the model imports opset "
                         "%lld",
                         name, m->op_type, clg_op_first_opset(m->op),
                         (long long)m->opset);
        return CLG_IO_UNSUPPORTED;
    }
    m->op_version = clg_op_version(m->op, m->opset);
    return CLG_IO_OK;
}

/* Two inputs, one output, and at most the operator's integer attribute
 * (clg_op_attribute: 'axis'; m->axis, default 0). */
static clg_io_status node_signature(const Onnx__NodeProto *node,
                                    const char *name, clg_onnx_model *m,
                                    clg_io_error *err)
{
    const char *op_type = safe(node->op_type);
    const char *attribute = clg_op_attribute(m->op);
    if (node->n_input != 2 || node->n_output != 1) {
        clg_io_error_set(err,
                         "%s: %s node has %zu inputs and %zu outputs "
                         "(expected 2 and 1)",
                         name, op_type, node->n_input, node->n_output);
        return CLG_IO_FORMAT_ERROR;
    }
    m->axis = 0;
    for (size_t i = 0; i < node->n_attribute; i++) {
        const Onnx__AttributeProto *a = node->attribute[i];
        const char *an = a != NULL ? safe(a->name) : "";
        if (strcmp(an, attribute) != 0) {
            clg_io_error_set(err, "%s: %s node has unsupported attribute '%s'",
                             name, op_type, an);
            return CLG_IO_UNSUPPORTED;
        }
        if ((a->has_type &&
             a->type != ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT) ||
            (!a->has_type && !a->has_i) ||
            (a->ref_attr_name != NULL && a->ref_attr_name[0] != '\0')) {
            clg_io_error_set(err, "%s: %s attribute '%s' is not an integer",
                             name, op_type, attribute);
            return CLG_IO_FORMAT_ERROR;
        }
        /* GatherND-11 has no batch_dims: version 12 added it. */
        if (strcmp(attribute, "batch_dims") == 0 && m->op_version < 12) {
            clg_io_error_set(err,
                             "%s: %s-%d has no attribute 'batch_dims' "
                             "(version 12 added it)",
                             name, op_type, m->op_version);
            return CLG_IO_UNSUPPORTED;
        }
        m->axis = a->i;
    }
    return CLG_IO_OK;
}

/* m->input_count, the data and indices operands, and the graph's one
 * output, which must be the node's. */
static clg_io_status node_operands(const Onnx__GraphProto *g,
                                   const Onnx__NodeProto *node,
                                   const char *name, clg_onnx_model *m,
                                   clg_io_error *err)
{
    clg_io_status st;
    for (size_t i = 0; i < g->n_input; i++) {
        const char *in = g->input[i] != NULL ? safe(g->input[i]->name) : "";
        if (find_initializer(g, in) == NULL)
            m->input_count++;
    }
    st = resolve_operand(g, safe(node->input[0]), "data", name, &m->data, err);
    if (st != CLG_IO_OK)
        return st;
    st = resolve_operand(g, safe(node->input[1]), "indices", name, &m->indices,
                         err);
    if (st != CLG_IO_OK)
        return st;
    snprintf(m->output_name, sizeof m->output_name, "%s",
             safe(node->output[0]));
    if (g->n_output != 1 || g->output[0] == NULL ||
        strcmp(safe(g->output[0]->name), m->output_name) != 0) {
        clg_io_error_set(err,
                         "%s: the graph must have one output, the node's "
                         "'%s' (it has %zu)",
                         name, m->output_name, g->n_output);
        return CLG_IO_FORMAT_ERROR;
    }
    return CLG_IO_OK;
}

clg_io_status clg_onnx_decode_model(const void *bytes, size_t size,
                                    const char *name, clg_onnx_model *m,
                                    clg_io_error *err)
{
    Onnx__ModelProto *model = NULL;
    const Onnx__NodeProto *node = NULL;
    clg_io_status st = CLG_IO_OK;

    clg_onnx_model_free(m);
    model = (Onnx__ModelProto *)unpack_bounded(&onnx__model_proto__descriptor,
                                               bytes, size, name, "ONNX model",
                                               &st, err);
    if (model != NULL && model->graph == NULL) {
        clg_io_error_set(err, "%s: the model has no graph", name);
        st = CLG_IO_FORMAT_ERROR;
    }
    if (st == CLG_IO_OK)
        st = read_opset(model, name, m, err);
    if (st == CLG_IO_OK)
        st = only_node(model->graph, name, &node, err);
    if (st == CLG_IO_OK)
        st = node_operator(safe(node->op_type), name, m, err);
    if (st == CLG_IO_OK)
        st = node_signature(node, name, m, err);
    if (st == CLG_IO_OK)
        st = node_operands(model->graph, node, name, m, err);
    if (model != NULL)
        onnx__model_proto__free_unpacked(model, NULL);
    if (st != CLG_IO_OK)
        clg_onnx_model_free(m);
    return st;
}

clg_io_status clg_onnx_read_model(const char *path, clg_onnx_model *m,
                                  clg_io_error *err)
{
    unsigned char *bytes = NULL;
    size_t size = 0;
    clg_io_status st;

    clg_onnx_model_free(m);
    st = clg_io_read_file(path, clg_onnx_read_bound, &bytes, &size, err);
    if (st == CLG_IO_OK)
        st = clg_onnx_decode_model(bytes, size, path, m, err);
    free(bytes);
    return st;
}

clg_io_status clg_onnx_check_input(const clg_onnx_operand *op,
                                   const clg_io_tensor *t, const char *file,
                                   clg_io_error *err)
{
    char have[1024], want[1024];
    int same = op->declared_rank < 0 || (size_t)op->declared_rank == t->rank;

    if (op->declared_type != 0 && op->declared_type != (int32_t)t->dtype) {
        clg_io_error_set(err,
                         "%s holds %s, but the model declares its input "
                         "'%s' %s",
                         file, clg_dtype_name(t->dtype), op->name,
                         onnx_type_name(op->declared_type));
        return CLG_IO_FORMAT_ERROR;
    }
    for (size_t i = 0; same && op->declared_rank >= 0 && i < t->rank; i++)
        same = op->declared_shape[i] < 0 ||
               op->declared_shape[i] == t->shape[i];
    if (!same) {
        /* a dimension without a dim_value prints as -1, as ONNX Runtime
         * prints it */
        if (op->declared_rank > CLG_MAX_RANK)
            snprintf(want, sizeof want, "of rank %d or more",
                     CLG_MAX_RANK + 1);
        else
            clg_io_format_shape(want, sizeof want, op->declared_shape,
                                (size_t)op->declared_rank);
        clg_io_error_set(
            err, "%s has shape %s, but the model declares its input '%s' %s",
            file, clg_io_format_shape(have, sizeof have, t->shape, t->rank),
            op->name, want);
        return CLG_IO_FORMAT_ERROR;
    }
    return CLG_IO_OK;
}

int clg_onnx_model_other_operator(const char *path, char *what, size_t cap)
{
    unsigned char *bytes = NULL;
    size_t size = 0;
    Onnx__ModelProto *model = NULL;
    const Onnx__GraphProto *g;
    clg_io_status st = CLG_IO_OK;
    int other = 0;

    if (cap > 0)
        what[0] = '\0';
    if (clg_io_read_file(path, clg_onnx_read_bound, &bytes, &size, NULL) !=
        CLG_IO_OK)
        return 0;
    model = (Onnx__ModelProto *)unpack_bounded(&onnx__model_proto__descriptor,
                                               bytes, size, path, "ONNX model",
                                               &st, NULL);
    g = model != NULL ? model->graph : NULL;
    for (size_t i = 0; g != NULL && i < g->n_node && !other; i++) {
        clg_op op;
        other = !op_of_type(g->node[i] != NULL ? safe(g->node[i]->op_type)
                                               : "",
                            &op);
    }
    char ops[256];
    op_types(ops, sizeof ops, " or ");
    if (other && g->n_node == 1) {
        snprintf(what, cap, "the node is '%s', not %s",
                 g->node[0] != NULL ? safe(g->node[0]->op_type) : "", ops);
    } else if (other) {
        /* "the graph has 3 nodes (Gather, Relu, ...), not one ..." */
        size_t at = (size_t)snprintf(what, cap, "the graph has %zu nodes (",
                                     g->n_node);
        for (size_t i = 0; i < g->n_node && i < 4 && at < cap; i++)
            at += (size_t)
                snprintf(what + at, cap - at, "%s%s", i > 0 ? ", " : "",
                         g->node[i] != NULL ? safe(g->node[i]->op_type) : "");
        if (at < cap)
            snprintf(what + at, cap - at, "%s), not one %s node",
                     g->n_node > 4 ? ", ..." : "", ops);
    }
    if (model != NULL)
        onnx__model_proto__free_unpacked(model, NULL);
    free(bytes);
    return other;
}
