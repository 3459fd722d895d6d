/* SPDX-License-Identifier: Apache-2.0 */
/* CPU reference: each operator written straight from the formula of its
 * ONNX page, element by element, with multi-indices: one loop over the
 * output, and each operator's offset rule (its row's ref_index and
 * ref_data, defined here).
 * It shares validation with the device path but none of its planning
 * (no [outer, axis, inner] folding, no units, no coalescing), so a planning
 * bug cannot hide in both. */
#include "op.h"

#include <string.h>

/* Indices may sit at any address (the API asks for no alignment), so
 * values are read with memcpy, which compiles to a plain load. */
static int64_t load_index(const void *indices, clg_dtype dtype, int64_t pos)
{
    if (dtype == CLG_DTYPE_INT32) {
        int32_t v;
        memcpy(&v, (const char *)indices + (size_t)pos * sizeof v, sizeof v);
        return v;
    }
    int64_t v;
    memcpy(&v, (const char *)indices + (size_t)pos * sizeof v, sizeof v);
    return v;
}

/* Row-major strides (in elements) of a shape. For a non-empty tensor every
 * product of its dimensions is at most its element count, which validation
 * bounds, so none overflows. An empty tensor's products need not fit:
 * [0, 2^32, 2^32] has 2^64 as its first stride, and forming it is signed
 * overflow. Its strides are never used (an empty data or index tensor
 * makes the output empty, or makes every index out of range), so they are
 * set to 0 without multiplying. */
static void strides_of(const int64_t *shape, size_t rank, int64_t *strides)
{
    int empty = 0;
    for (size_t d = 0; d < rank; d++)
        empty |= shape[d] == 0;
    int64_t s = empty ? 0 : 1;
    for (size_t d = rank; d-- > 0;) {
        strides[d] = s;
        s *= shape[d];
    }
}

/* Advances a multi-index over `shape` in row-major order. */
static void next_index(int64_t *idx, const int64_t *shape, size_t rank)
{
    for (size_t d = rank; d-- > 0;) {
        if (++idx[d] < shape[d])
            return;
        idx[d] = 0;
    }
}

/* ------------------------------------------------------------ offset rules */

/* Gather: out[o..., i..., k...] = data[o..., norm(idx[i...]), k...] */
int64_t clg_gather_ref_index(const clg_problem *p, const int64_t *pos,
                             const int64_t *istride)
{
    int64_t ioff = 0;
    for (size_t d = 0; d < p->index_rank; d++)
        ioff += pos[p->axis + d] * istride[d];
    return ioff;
}

int64_t clg_gather_ref_data(const clg_problem *p, const int64_t *pos,
                            const int64_t *at, const int64_t *dstride)
{
    size_t q = p->index_rank;
    int64_t doff = 0;
    for (size_t d = 0; d < p->axis; d++)
        doff += pos[d] * dstride[d];
    doff += at[0] * dstride[p->axis];
    for (size_t d = p->axis + 1; d < p->data_rank; d++)
        doff += pos[d + q - 1] * dstride[d];
    return doff;
}

/* GatherElements: out[p] = data[p with p[axis] = norm(idx[p])] */
int64_t clg_gather_elements_ref_index(const clg_problem *p, const int64_t *pos,
                                      const int64_t *istride)
{
    int64_t ioff = 0;
    for (size_t d = 0; d < p->index_rank; d++)
        ioff += pos[d] * istride[d];
    return ioff;
}

int64_t clg_gather_elements_ref_data(const clg_problem *p, const int64_t *pos,
                                     const int64_t *at, const int64_t *dstride)
{
    int64_t doff = 0;
    for (size_t d = 0; d < p->data_rank; d++)
        doff += (d == p->axis ? at[0] : pos[d]) * dstride[d];
    return doff;
}

/* GatherND: out[i..., j..., t...] = data[i..., norm(idx[i..., j..., 0]),
 * ..., norm(idx[i..., j..., k-1]), t...] with b batch dims i, the tuple
 * positions j (output dims b .. q-2) and the slice t. */
int64_t clg_gather_nd_ref_index(const clg_problem *p, const int64_t *pos,
                                const int64_t *istride)
{
    int64_t ioff = 0;
    for (size_t d = 0; d + 1 < p->index_rank; d++)
        ioff += pos[d] * istride[d];
    return ioff;
}

int64_t clg_gather_nd_ref_data(const clg_problem *p, const int64_t *pos,
                               const int64_t *at, const int64_t *dstride)
{
    size_t b = p->axis, k = p->components, q = p->index_rank;
    int64_t doff = 0;
    for (size_t d = 0; d < b; d++)
        doff += pos[d] * dstride[d];
    for (size_t c = 0; c < k; c++)
        doff += at[c] * dstride[b + c];
    for (size_t d = b + k; d < p->data_rank; d++)
        doff += pos[q - 1 + d - (b + k)] * dstride[d];
    return doff;
}

/* ------------------------------------------------------------ reference */

clg_status clg_reference_of(clg_context *ctx, const clg_call *call,
                            const clg_tensor *data, const clg_tensor *indices,
                            const clg_tensor *output)
{
    const clg_op_desc *row = clg_op_desc_of(call->op);
    clg_problem p;
    clg_status st;
    if ((st = clg_validate_host(ctx, call, data, indices, output, &p)) !=
            CLG_STATUS_OK ||
        (st = clg_validate_options(ctx, &call->options, &p)) != CLG_STATUS_OK)
        return st;

    /* "It is an error if any of the index values are out of bounds":
     * under raise, check them all before the output is touched. Each
     * value against the dim its component addresses. */
    for (int64_t i = 0; p.oob == CLG_OOB_RAISE && i < p.index_count; i++) {
        int64_t v = load_index(indices->data, p.index_dtype, i);
        int64_t s = clg_index_range(&p, i);
        if (v < -s || v >= s)
            return clg_fail_index(ctx, &p, i, v);
    }

    int64_t dstride[CLG_MAX_RANK], istride[CLG_MAX_RANK];
    int64_t pos[CLG_MAX_RANK] = {0}, at[CLG_MAX_RANK];
    strides_of(p.data_shape, p.data_rank, dstride);
    strides_of(p.index_shape, p.index_rank, istride);
    const char *src = (const char *)data->data;
    char *dst = (char *)output->data;
    size_t es = p.elem_size;

    for (int64_t e = 0; e < p.out_count; e++) {
        /* The index of this output element, each component resolved
         * against its own dim; fill takes a tuple with any component out
         * of range as out of range. */
        int64_t ioff = row->ref_index(&p, pos, istride);
        int fill = 0;
        for (size_t c = 0; c < p.components; c++) {
            int64_t v = load_index(indices->data, p.index_dtype,
                                   ioff + (int64_t)c);
            at[c] = clg_resolve(v, p.data_shape[p.axis + c], p.oob);
            fill |= at[c] < 0;
        }
        if (fill) /* fill: an out-of-range value gives zero bytes */
            memset(dst + (size_t)e * es, 0, es);
        else
            memcpy(dst + (size_t)e * es,
                   src + (size_t)row->ref_data(&p, pos, at, dstride) * es, es);
        next_index(pos, p.out_shape, p.out_rank);
    }
    clg_clear_error(ctx);
    return CLG_STATUS_OK;
}
