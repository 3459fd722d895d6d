/* SPDX-License-Identifier: Apache-2.0 */
/* Validation of the descriptors of a call, shared by the device paths and
 * the CPU reference; each operator's own shape rules are in src/shape.c,
 * index values in src/check.c. */
#include "op.h"

#include <stdio.h>
#include <string.h>

clg_status clg_check_shape(clg_context *ctx, const char *what,
                           const int64_t *shape, size_t rank, int64_t *count)
{
    if (rank > CLG_MAX_RANK)
        return clg_fail(ctx, CLG_STATUS_INVALID_RANK,
                        "%s has rank %zu, above CLG_MAX_RANK (%d)", what, rank,
                        CLG_MAX_RANK);
    if (rank > 0 && !shape)
        return clg_fail(ctx, CLG_STATUS_NULL_POINTER,
                        "%s shape is NULL with rank %zu", what, rank);
    for (size_t d = 0; d < rank; d++)
        if (shape[d] < 0)
            return clg_fail(ctx, CLG_STATUS_INVALID_SHAPE,
                            "%s.shape[%zu] = %lld is negative", what, d,
                            (long long)shape[d]);
    clg_status st = clg_shape_count(shape, rank, count);
    if (st != CLG_STATUS_OK) {
        char s[512];
        clg_format_shape(s, sizeof s, shape, rank);
        return clg_fail(ctx, st, "%s shape %s has more than 2^63-1 elements",
                        what, s);
    }
    return CLG_STATUS_OK;
}

/* The data and index dtypes; fills the element sizes. */
static clg_status check_dtypes(clg_context *ctx, clg_dtype data_dtype,
                               clg_dtype index_dtype, clg_problem *p)
{
    p->dtype = data_dtype;
    p->index_dtype = index_dtype;
    p->elem_size = clg_dtype_size(data_dtype);
    if (p->elem_size == 0)
        return clg_fail(ctx, CLG_STATUS_UNSUPPORTED_DTYPE,
                        "data dtype %d is not an ONNX TensorProto data type",
                        (int)data_dtype);
    if (index_dtype != CLG_DTYPE_INT32 && index_dtype != CLG_DTYPE_INT64)
        return clg_fail(ctx, CLG_STATUS_UNSUPPORTED_DTYPE,
                        "indices dtype %s (%d) is not INT32 or INT64",
                        clg_dtype_name(index_dtype), (int)index_dtype);
    p->index_size = index_dtype == CLG_DTYPE_INT32 ? 4 : 8;
    return CLG_STATUS_OK;
}

clg_status clg_axis_rule(clg_context *ctx, const clg_call *call,
                         clg_problem *p)
{
    int64_t axis = call->axis, r = (int64_t)p->data_rank;
    if (axis < -r || axis > r - 1)
        return clg_fail(ctx, CLG_STATUS_INVALID_AXIS,
                        "axis %lld is out of range [%lld, %lld] for data of "
                        "rank %lld",
                        (long long)axis, (long long)-r, (long long)(r - 1),
                        (long long)r);
    p->axis = (size_t)(axis < 0 ? axis + r : axis);
    p->axis_size = p->data_shape[p->axis];
    return CLG_STATUS_OK;
}

size_t clg_one_component(const clg_problem *p)
{
    (void)p;
    return 1;
}

clg_status clg_validate(clg_context *ctx, const clg_call *call,
                        clg_dtype data_dtype, size_t data_rank,
                        const int64_t *data_shape, clg_dtype index_dtype,
                        size_t index_rank, const int64_t *index_shape,
                        clg_problem *p)
{
    const clg_op_desc *row = clg_op_desc_of(call->op);
    clg_status st;
    memset(p, 0, sizeof *p);
    p->op = call->op;
    if ((st = check_dtypes(ctx, data_dtype, index_dtype, p)) != CLG_STATUS_OK)
        return st;
    if (data_rank == 0)
        return clg_fail(ctx, CLG_STATUS_INVALID_RANK,
                        "data has rank 0; %s needs data of rank >= 1",
                        clg_op_name(p->op));
    if ((st = clg_check_shape(ctx, "data", data_shape, data_rank,
                              &p->data_count)) != CLG_STATUS_OK ||
        (st = clg_check_shape(ctx, "indices", index_shape, index_rank,
                              &p->index_count)) != CLG_STATUS_OK)
        return st;
    p->data_rank = data_rank;
    p->index_rank = index_rank;
    memcpy(p->data_shape, data_shape, data_rank * sizeof(int64_t));
    if (index_rank)
        memcpy(p->index_shape, index_shape, index_rank * sizeof(int64_t));
    if ((st = row->attributes(ctx, call, p)) != CLG_STATUS_OK ||
        (st = row->infer(ctx, p)) != CLG_STATUS_OK)
        return st;
    p->components = row->components(p);
    if ((st = clg_check_shape(ctx, "output", p->out_shape, p->out_rank,
                              &p->out_count)) != CLG_STATUS_OK)
        return st;
    /* Byte sizes must fit size_t and int64 for every tensor, whatever its
     * element size. */
    const int64_t limit = INT64_MAX / CLG_MAX_ELEMENT_SIZE;
    const struct {
        const char *name;
        int64_t count;
    } t[3] = {{"data", p->data_count},
              {"indices", p->index_count},
              {"output", p->out_count}};
    for (int i = 0; i < 3; i++)
        if (t[i].count > limit)
            return clg_fail(ctx, CLG_STATUS_TENSOR_TOO_LARGE,
                            "%s has %lld elements, more than the %lld a "
                            "tensor may have (INT64_MAX / %d bytes, the "
                            "largest element)",
                            t[i].name, (long long)t[i].count, (long long)limit,
                            CLG_MAX_ELEMENT_SIZE);
    return CLG_STATUS_OK;
}

clg_status clg_validate_output(clg_context *ctx, const clg_problem *p,
                               clg_dtype dtype, size_t rank,
                               const int64_t *shape)
{
    if (dtype != p->dtype)
        return clg_fail(ctx, CLG_STATUS_UNSUPPORTED_DTYPE,
                        "output dtype %s (%d) differs from data dtype %s",
                        clg_dtype_name(dtype), (int)dtype,
                        clg_dtype_name(p->dtype));
    if (rank > 0 && !shape)
        return clg_fail(ctx, CLG_STATUS_NULL_POINTER,
                        "output shape is NULL with rank %zu", rank);
    int same = rank == p->out_rank;
    for (size_t d = 0; same && d < rank; d++)
        same = shape[d] == p->out_shape[d];
    if (!same && rank > CLG_MAX_RANK) {
        char want[512];
        clg_format_shape(want, sizeof want, p->out_shape, p->out_rank);
        return clg_fail(ctx, CLG_STATUS_SHAPE_MISMATCH,
                        "output has rank %zu, above CLG_MAX_RANK (%d); the "
                        "%s output shape is %s",
                        rank, CLG_MAX_RANK, clg_op_name(p->op), want);
    }
    if (!same) {
        char got[512], want[512];
        clg_format_shape(got, sizeof got, shape, rank);
        clg_format_shape(want, sizeof want, p->out_shape, p->out_rank);
        return clg_fail(ctx, CLG_STATUS_SHAPE_MISMATCH,
                        "output shape %s (rank %zu) differs from the %s "
                        "output shape %s",
                        got, rank, clg_op_name(p->op), want);
    }
    return CLG_STATUS_OK;
}

/* A host tensor's data pointer is present when it has elements. */
static clg_status validate_pointer(clg_context *ctx, const char *what,
                                   const void *ptr, int64_t count)
{
    if (!ptr && count > 0)
        return clg_fail(ctx, CLG_STATUS_NULL_POINTER,
                        "%s is NULL for a tensor of %lld elements", what,
                        (long long)count);
    return CLG_STATUS_OK;
}

clg_status clg_validate_call(clg_context *ctx, const clg_call *call,
                             const clg_desc *data, const clg_desc *indices,
                             const clg_desc *output, clg_problem *p)
{
    clg_status st;
    if (!data || !indices || !output)
        return clg_fail(ctx, CLG_STATUS_NULL_POINTER, "%s is NULL",
                        !data      ? "data"
                        : !indices ? "indices"
                                   : "output");
    if ((st = clg_validate(ctx, call, data->dtype, data->rank, data->shape,
                           indices->dtype, indices->rank, indices->shape,
                           p)) != CLG_STATUS_OK)
        return st;
    return clg_validate_output(ctx, p, output->dtype, output->rank,
                               output->shape);
}

/* The descriptor of a host tensor, NULL for a NULL tensor. */
static const clg_desc *host_desc(const clg_tensor *t, clg_desc *d)
{
    if (!t)
        return NULL;
    *d = (clg_desc){t->dtype, t->rank, t->shape};
    return d;
}

clg_status clg_validate_host(clg_context *ctx, const clg_call *call,
                             const clg_tensor *data, const clg_tensor *indices,
                             const clg_tensor *output, clg_problem *p)
{
    clg_desc dd, id, od;
    clg_status st = clg_validate_call(ctx, call, host_desc(data, &dd),
                                      host_desc(indices, &id),
                                      host_desc(output, &od), p);
    if (st != CLG_STATUS_OK ||
        (st = validate_pointer(ctx, "data->data", data->data,
                               p->data_count)) != CLG_STATUS_OK ||
        (st = validate_pointer(ctx, "indices->data", indices->data,
                               p->index_count)) != CLG_STATUS_OK ||
        (st = validate_pointer(ctx, "output->data", output->data,
                               p->out_count)) != CLG_STATUS_OK)
        return st;
    /* The output is written while the inputs are read: no overlap. */
    uintptr_t o0 = (uintptr_t)output->data;
    uintptr_t o1 = o0 + (uintptr_t)p->out_count * p->elem_size;
    uintptr_t d0 = (uintptr_t)data->data;
    uintptr_t d1 = d0 + (uintptr_t)p->data_count * p->elem_size;
    uintptr_t i0 = (uintptr_t)indices->data;
    uintptr_t i1 = i0 + (uintptr_t)p->index_count * p->index_size;
    if (o0 < o1 &&
        ((d0 < d1 && o0 < d1 && d0 < o1) || (i0 < i1 && o0 < i1 && i0 < o1)))
        return clg_fail(ctx, CLG_STATUS_INVALID_ARGUMENT,
                        "output memory overlaps the %s; the output must not "
                        "alias an input",
                        (d0 < d1 && o0 < d1 && d0 < o1) ? "data" : "indices");
    return CLG_STATUS_OK;
}

/* ------------------------------------------------------------ output shape */

clg_status clg_output_shape_of(const clg_call *call, const clg_tensor *data,
                               const clg_tensor *indices, int64_t *shape,
                               size_t capacity, size_t *rank)
{
    clg_problem p;
    if (!data || !indices || !rank || (!shape && capacity > 0))
        return clg_fail(NULL, CLG_STATUS_NULL_POINTER, "%s is NULL",
                        !data      ? "data"
                        : !indices ? "indices"
                        : !rank    ? "rank"
                                   : "shape");
    clg_status st = clg_validate(NULL, call, data->dtype, data->rank,
                                 data->shape, indices->dtype, indices->rank,
                                 indices->shape, &p);
    if (st != CLG_STATUS_OK)
        return st;
    if (capacity < p.out_rank)
        return clg_fail(NULL, CLG_STATUS_INVALID_ARGUMENT,
                        "shape capacity %zu is below the output rank %zu",
                        capacity, p.out_rank);
    if (p.out_rank)
        memcpy(shape, p.out_shape, p.out_rank * sizeof(int64_t));
    *rank = p.out_rank;
    return CLG_STATUS_OK;
}
