/* SPDX-License-Identifier: Apache-2.0 */
/* ONNX TensorProto data types and shape arithmetic. */
#include "op.h"

#include <stdio.h>
#include <string.h>

/* Every size (STRING's clg_string too) is at most the widest, and the
 * widest is one of them; the kernels have a unit of every size
 * (CLG_UNIT_SIZES in src/variant.h). */
#define CLG_DTYPE_FITS_(name, number, size, kind)                             \
    _Static_assert(size <= CLG_MAX_ELEMENT_SIZE,                              \
                   #name " is wider than CLG_MAX_ELEMENT_SIZE");
CLG_DTYPE_TABLE(CLG_DTYPE_FITS_)
#undef CLG_DTYPE_FITS_
#define CLG_DTYPE_IS_WIDEST_(name, number, size, kind)                        \
    || size == CLG_MAX_ELEMENT_SIZE
_Static_assert(0 CLG_DTYPE_TABLE(CLG_DTYPE_IS_WIDEST_),
               "CLG_MAX_ELEMENT_SIZE is the size of a dtype");
#undef CLG_DTYPE_IS_WIDEST_

size_t clg_dtype_size(clg_dtype dtype)
{
    switch (dtype) {
#define CLG_DTYPE_SIZE_(name, number, size, kind)                             \
    case CLG_DTYPE_##name:                                                    \
        return size;
        CLG_DTYPE_TABLE(CLG_DTYPE_SIZE_)
#undef CLG_DTYPE_SIZE_
    case CLG_DTYPE_UNDEFINED:
        break;
    }
    return 0;
}

const char *clg_dtype_name(clg_dtype dtype)
{
    switch (dtype) {
#define CLG_DTYPE_NAME_(name, number, size, kind)                             \
    case CLG_DTYPE_##name:                                                    \
        return #name;
        CLG_DTYPE_TABLE(CLG_DTYPE_NAME_)
#undef CLG_DTYPE_NAME_
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
