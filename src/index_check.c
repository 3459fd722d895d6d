/* SPDX-License-Identifier: Apache-2.0 */
/* The index check a host-memory call runs before its first launch, one
 * rule for dispatch.c and for the public clg_check_indices
 * (docs/design.md, "Host memory and device buffers"). */
#include "op.h"

/* Whether every index value has the one range p->axis_size: one value
 * per index, or tuples whose components address dims of one size. */
static int one_range(const clg_problem *p)
{
    for (size_t c = 0; c < p->components; c++)
        if (clg_index_range(p, (int64_t)c) != p->axis_size)
            return 0;
    return 1;
}

int clg_check_indices_on_device(clg_context *ctx, const clg_problem *p,
                                int in_place)
{
    uint64_t bytes = (uint64_t)p->index_count * p->index_size;
    /* The check kernel knows one range: tuples whose components' ranges
     * differ are checked on the host. */
    return in_place && one_range(p) && p->index_count > CLG_HOST_CHECK_LIMIT &&
           bytes <= clg_rt_facts(ctx)->max_alloc;
}

clg_status clg_check_indices_first(clg_context *ctx, const clg_problem *p,
                                   void *indices, int in_place,
                                   clg_index_check *ran)
{
    uint64_t bytes = (uint64_t)p->index_count * p->index_size;
    *ran = CLG_INDEX_CHECK_HOST;
    if (!clg_check_indices_on_device(ctx, p, in_place))
        return clg_check_indices_host(ctx, p, indices);
    /* Large indices: the device checks them in place, in parallel. */
    cl_mem buf = NULL;
    int raised = 0;
    *ran = CLG_INDEX_CHECK_DEVICE;
    clg_status st = clg_rt_wrap(ctx, indices, (size_t)bytes, 0, &buf);
    if (st == CLG_STATUS_OK)
        st = clg_check_indices_device(ctx, p, buf, &raised);
    clg_rt_release(&buf);
    if (st == CLG_STATUS_OK && raised)
        st = clg_check_indices_host(ctx, p, indices);
    return st;
}

clg_status clg_check_indices(clg_context *ctx, const clg_tensor *indices,
                             size_t axis, int64_t axis_size,
                             clg_index_check *ran)
{
    clg_problem p = {0};
    clg_index_check dummy;
    clg_status st;
    if (!ran)
        ran = &dummy;
    *ran = CLG_INDEX_CHECK_NONE;
    if (!ctx || !indices)
        return clg_fail(ctx, CLG_STATUS_NULL_POINTER, "%s is NULL",
                        !ctx ? "ctx" : "indices");
    if (indices->dtype != CLG_DTYPE_INT32 && indices->dtype != CLG_DTYPE_INT64)
        return clg_fail(ctx, CLG_STATUS_UNSUPPORTED_DTYPE,
                        "indices dtype %s is not INT32 or INT64",
                        clg_dtype_name(indices->dtype));
    if ((st = clg_check_shape(ctx, "indices", indices->shape, indices->rank,
                              &p.index_count)) != CLG_STATUS_OK)
        return st;
    if (axis_size < 0)
        return clg_fail(ctx, CLG_STATUS_INVALID_ARGUMENT,
                        "axis_size = %lld is negative", (long long)axis_size);
    if (p.index_count > 0 && !indices->data)
        return clg_fail(ctx, CLG_STATUS_NULL_POINTER, "indices data is NULL");
    p.index_dtype = indices->dtype;
    p.index_size = clg_dtype_size(indices->dtype);
    p.index_rank = indices->rank;
    for (size_t d = 0; d < indices->rank; d++)
        p.index_shape[d] = indices->shape[d];
    p.axis = axis;
    p.axis_size = axis_size;
    p.components = 1;
    if (p.index_count == 0)
        return CLG_STATUS_OK;
    st = clg_check_indices_first(ctx, &p, indices->data,
                                 clg_rt_facts(ctx)->host_unified, ran);
    if (st == CLG_STATUS_OK)
        clg_clear_error(ctx);
    return st;
}
