/* SPDX-License-Identifier: Apache-2.0 */
/* Each operator's own shape rules and output shape, below both the
 * operators and validation (docs/design.md, "Layers"): src/validate.c calls
 * them, and they call nothing of the operator layer but clg_fail. */
#include "op.h"

#include <string.h>

clg_status clg_gather_infer(clg_context *ctx, clg_problem *p)
{
    p->out_rank = p->index_rank + p->data_rank - 1;
    if (p->out_rank > CLG_MAX_RANK)
        return clg_fail(ctx, CLG_STATUS_INVALID_RANK,
                        "output rank %zu (indices rank %zu + data rank %zu - "
                        "1) is above CLG_MAX_RANK (%d)",
                        p->out_rank, p->index_rank, p->data_rank,
                        CLG_MAX_RANK);
    size_t k = 0;
    for (size_t d = 0; d < p->axis; d++)
        p->out_shape[k++] = p->data_shape[d];
    for (size_t d = 0; d < p->index_rank; d++)
        p->out_shape[k++] = p->index_shape[d];
    for (size_t d = p->axis + 1; d < p->data_rank; d++)
        p->out_shape[k++] = p->data_shape[d];
    return CLG_STATUS_OK;
}

clg_status clg_gather_elements_infer(clg_context *ctx, clg_problem *p)
{
    if (p->index_rank != p->data_rank)
        return clg_fail(ctx, CLG_STATUS_RANK_MISMATCH,
                        "indices rank %zu differs from data rank %zu; "
                        "GatherElements needs equal ranks",
                        p->index_rank, p->data_rank);
    for (size_t d = 0; d < p->data_rank; d++)
        if (d != p->axis && p->index_shape[d] > p->data_shape[d])
            return clg_fail(ctx, CLG_STATUS_SHAPE_MISMATCH,
                            "indices.shape[%zu] = %lld exceeds "
                            "data.shape[%zu] "
                            "= %lld (only the axis %zu dimension of indices "
                            "may be larger)",
                            d, (long long)p->index_shape[d], d,
                            (long long)p->data_shape[d], p->axis);
    p->out_rank = p->index_rank;
    memcpy(p->out_shape, p->index_shape, p->index_rank * sizeof(int64_t));
    return CLG_STATUS_OK;
}

/* GatherND: the first b dims of data and indices equal (no broadcast),
 * 1 <= k <= r - b, output indices.shape[:q-1] + data.shape[b+k:]. */
clg_status clg_gather_nd_infer(clg_context *ctx, clg_problem *p)
{
    size_t b = p->axis, q = p->index_rank, r = p->data_rank;
    int64_t k = p->index_shape[q - 1];
    char ds[512], is[512];
    clg_format_shape(ds, sizeof ds, p->data_shape, r);
    clg_format_shape(is, sizeof is, p->index_shape, q);
    for (size_t d = 0; d < b; d++)
        if (p->data_shape[d] != p->index_shape[d])
            return clg_fail(ctx, CLG_STATUS_SHAPE_MISMATCH,
                            "data.shape[%zu] = %lld differs from "
                            "indices.shape[%zu] = %lld: GatherND needs the "
                            "first batch_dims = %zu dims of data %s and "
                            "indices %s equal (no broadcast)",
                            d, (long long)p->data_shape[d], d,
                            (long long)p->index_shape[d], b, ds, is);
    if (k < 1 || k > (int64_t)(r - b))
        return clg_fail(ctx, CLG_STATUS_SHAPE_MISMATCH,
                        "indices.shape[%zu] = %lld is out of range [1, %zu]: "
                        "GatherND's tuples of indices %s address at most the "
                        "%zu dims of data %s after batch_dims = %zu",
                        q - 1, (long long)k, r - b, is, r - b, ds, b);
    p->out_rank = q - 1 + r - b - (size_t)k;
    if (p->out_rank > CLG_MAX_RANK)
        return clg_fail(ctx, CLG_STATUS_INVALID_RANK,
                        "output rank %zu (indices rank %zu - 1 + data rank "
                        "%zu - batch_dims %zu - %lld) is above CLG_MAX_RANK "
                        "(%d)",
                        p->out_rank, q, r, b, (long long)k, CLG_MAX_RANK);
    size_t o = 0;
    for (size_t d = 0; d + 1 < q; d++)
        p->out_shape[o++] = p->index_shape[d];
    for (size_t d = b + (size_t)k; d < r; d++)
        p->out_shape[o++] = p->data_shape[d];
    return CLG_STATUS_OK;
}
