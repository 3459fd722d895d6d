/* ONNX TensorProto data types and shape arithmetic. */
#include "op.h"

#include <stdio.h>
#include <string.h>

_Static_assert(sizeof(clg_string) == 16,
               "STRING elements are gathered as 16-byte units");

size_t clg_dtype_size(clg_dtype dtype)
{
    switch (dtype) {
    case CLG_DTYPE_UINT8:
    case CLG_DTYPE_INT8:
    case CLG_DTYPE_BOOL:
        return 1;
    case CLG_DTYPE_UINT16:
    case CLG_DTYPE_INT16:
    case CLG_DTYPE_FLOAT16:
    case CLG_DTYPE_BFLOAT16:
        return 2;
    case CLG_DTYPE_FLOAT:
    case CLG_DTYPE_INT32:
    case CLG_DTYPE_UINT32:
        return 4;
    case CLG_DTYPE_INT64:
    case CLG_DTYPE_UINT64:
    case CLG_DTYPE_DOUBLE:
    case CLG_DTYPE_COMPLEX64:
        return 8;
    case CLG_DTYPE_COMPLEX128:
        return 16;
    case CLG_DTYPE_STRING:
        return sizeof(clg_string);
    case CLG_DTYPE_UNDEFINED:
        break;
    }
    return 0;
}

const char *clg_dtype_name(clg_dtype dtype)
{
    switch (dtype) {
    case CLG_DTYPE_FLOAT:
        return "FLOAT";
    case CLG_DTYPE_UINT8:
        return "UINT8";
    case CLG_DTYPE_INT8:
        return "INT8";
    case CLG_DTYPE_UINT16:
        return "UINT16";
    case CLG_DTYPE_INT16:
        return "INT16";
    case CLG_DTYPE_INT32:
        return "INT32";
    case CLG_DTYPE_INT64:
        return "INT64";
    case CLG_DTYPE_STRING:
        return "STRING";
    case CLG_DTYPE_BOOL:
        return "BOOL";
    case CLG_DTYPE_FLOAT16:
        return "FLOAT16";
    case CLG_DTYPE_DOUBLE:
        return "DOUBLE";
    case CLG_DTYPE_UINT32:
        return "UINT32";
    case CLG_DTYPE_UINT64:
        return "UINT64";
    case CLG_DTYPE_COMPLEX64:
        return "COMPLEX64";
    case CLG_DTYPE_COMPLEX128:
        return "COMPLEX128";
    case CLG_DTYPE_BFLOAT16:
        return "BFLOAT16";
    case CLG_DTYPE_UNDEFINED:
        break;
    }
    return "UNDEFINED";
}

clg_status clg_shape_count(const int64_t *shape, size_t rank, int64_t *count)
{
    if (!count || (!shape && rank > 0))
        return CLG_STATUS_NULL_POINTER;
    if (rank > CLG_MAX_RANK)
        return CLG_STATUS_INVALID_RANK;
    int64_t n = 1;
    int overflow = 0;
    for (size_t d = 0; d < rank; d++) {
        if (shape[d] < 0)
            return CLG_STATUS_INVALID_SHAPE;
        if (shape[d] == 0)
            n = 0, overflow = 0;
        else if (n != 0 && n > INT64_MAX / shape[d])
            overflow = 1;
        else if (!overflow)
            n *= shape[d];
    }
    /* A zero dimension anywhere makes the count 0, even after an
     * overflowing prefix. */
    for (size_t d = 0; d < rank; d++)
        if (shape[d] == 0) {
            *count = 0;
            return CLG_STATUS_OK;
        }
    if (overflow)
        return CLG_STATUS_TENSOR_TOO_LARGE;
    *count = n;
    return CLG_STATUS_OK;
}

void clg_format_shape(char *buf, size_t cap, const int64_t *shape, size_t rank)
{
    size_t len = 0;
    if (cap == 0)
        return;
    buf[0] = '\0';
    len += (size_t)snprintf(buf, cap, "[");
    for (size_t d = 0; d < rank && len < cap; d++)
        len += (size_t)snprintf(buf + len, cap - len, "%s%lld", d ? ", " : "",
                                (long long)shape[d]);
    if (len < cap)
        snprintf(buf + len, cap - len, "]");
}
