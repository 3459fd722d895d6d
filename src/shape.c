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
