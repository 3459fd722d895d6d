/* SPDX-License-Identifier: Apache-2.0 */
/* Tiny host-memory calls on the calling thread (docs/design.md, "Host
 * memory and device buffers"): below the `host` device parameter (bytes of
 * output and indices), a launch costs more than the copy, so each
 * operator's row has a plain loop over its slices. The problem is
 * validated and, under raise, every index checked (clg_check_indices_host)
 * before a loop runs, so the statuses and messages are the device path's;
 * the loops resolve each value with the reference's rule (clg_resolve),
 * so the bytes are the reference's. */
#include "op.h"

#include <string.h>

int64_t clg_resolve(int64_t v, int64_t s, clg_oob_mode mode)
{
    if (v >= -s && v < s)
        return v < 0 ? v + s : v;
    switch (mode) {
    case CLG_OOB_WRAP: {
        int64_t r = v % s; /* C truncates toward zero: r in (-s, s) */
        return r < 0 ? r + s : r;
    }
    case CLG_OOB_CLIP:
        return v < 0 ? 0 : s - 1;
    default:
        return -1;
    }
}

/* Index value `pos` (indices may sit at any address). */
static int64_t index_at(const clg_problem *p, const void *indices, int64_t pos)
{
    if (p->index_size == 4) {
        int32_t v;
        memcpy(&v, (const char *)indices + (size_t)pos * 4, 4);
        return v;
    }
    int64_t v;
    memcpy(&v, (const char *)indices + (size_t)pos * 8, 8);
    return v;
}

/* Copies one slice of `bytes` from data element `from`, or zeroes it when
 * `from` is -1 (fill). */
static char *put_slice(char *dst, const char *data, int64_t from, size_t bytes)
{
    if (from < 0)
        memset(dst, 0, bytes);
    else
        memcpy(dst, data + (size_t)from * bytes, bytes);
    return dst + bytes;
}

/* Gather: out[o, j, :] = data[o, resolve(idx[j]), :], slices of inner. */
void clg_gather_host(const clg_problem *p, const void *data,
                     const void *indices, void *out)
{
    int64_t outer = 1, inner = 1, s = p->axis_size;
    for (size_t d = 0; d < p->axis; d++)
        outer *= p->data_shape[d];
    for (size_t d = p->axis + 1; d < p->data_rank; d++)
        inner *= p->data_shape[d];
    size_t bytes = (size_t)inner * p->elem_size;
    char *dst = out;
    for (int64_t o = 0; o < outer; o++)
        for (int64_t j = 0; j < p->index_count; j++) {
            int64_t at = clg_resolve(index_at(p, indices, j), s, p->oob);
            dst = put_slice(dst, data, at < 0 ? -1 : o * s + at, bytes);
        }
}

/* GatherND: out[b, t, :] = data[b, resolve(tuple), :], slices of the data
 * dims after b + k; a tuple with any component out of range is filled. */
void clg_gather_nd_host(const clg_problem *p, const void *data,
                        const void *indices, void *out)
{
    size_t b = p->axis, k = p->components;
    int64_t batches = 1, slice = 1, dstride[CLG_MAX_RANK];
    for (size_t d = 0; d < b; d++)
        batches *= p->data_shape[d];
    for (size_t d = b + k; d < p->data_rank; d++)
        slice *= p->data_shape[d];
    /* Strides of the addressed dims, in slices. */
    int64_t per_batch = 1; /* slices in one batch position */
    for (size_t c = k; c-- > 0;) {
        dstride[c] = per_batch;
        per_batch *= p->data_shape[b + c];
    }
    int64_t tuples = p->index_count / (int64_t)k / (batches ? batches : 1);
    size_t bytes = (size_t)slice * p->elem_size;
    char *dst = out;
    int64_t pos = 0;
    for (int64_t i = 0; i < batches; i++)
        for (int64_t t = 0; t < tuples; t++) {
            int64_t from = i * per_batch;
            for (size_t c = 0; c < k; c++, pos++) {
                int64_t at = clg_resolve(index_at(p, indices, pos),
                                         p->data_shape[b + c], p->oob);
                from = at < 0 || from < 0 ? -1 : from + at * dstride[c];
            }
            dst = put_slice(dst, data, from, bytes);
        }
}

/* GatherElements: out[pos] = data[pos with pos[axis] = resolve(idx[pos])]
 * over the output (the indices' shape), a row of its last dim at a time,
 * the data offset of the dims off the axis kept as the row advances. */
void clg_gather_elements_host(const clg_problem *p, const void *data,
                              const void *indices, void *out)
{
    size_t r = p->data_rank, es = p->elem_size, last = r - 1;
    int64_t dstride[CLG_MAX_RANK], pos[CLG_MAX_RANK] = {0};
    int64_t st = 1;
    for (size_t d = r; d-- > 0;) {
        dstride[d] = st;
        st *= p->data_shape[d];
    }
    const int64_t *shape = p->index_shape;
    int64_t row = shape[last], s = p->axis_size;
    int64_t astride = dstride[p->axis];
    /* Along the last dim the data steps by 1, except on the axis. */
    int64_t step = p->axis == last ? 0 : 1;
    int64_t base = 0; /* data offset of the row's first element, off the
                         axis */
    char *dst = out;
    const char *src = data;
    for (int64_t e = 0; e < p->out_count; e += row) {
        /* One row, its element size a constant where it is a common one,
         * so that each copy is one load and store. */
#define CLG_ELEMENTS_ROW_(ES)                                                 \
    for (int64_t c = 0; c < row; c++, dst += (ES)) {                          \
        int64_t at = clg_resolve(index_at(p, indices, e + c), s, p->oob);     \
        if (at < 0)                                                           \
            memset(dst, 0, (ES));                                             \
        else                                                                  \
            memcpy(dst,                                                       \
                   src + (size_t)(base + c * step + at * astride) * (ES),     \
                   (ES));                                                     \
    }
        switch (es) {
        case 1:
            CLG_ELEMENTS_ROW_(1)
            break;
        case 2:
            CLG_ELEMENTS_ROW_(2)
            break;
        case 4:
            CLG_ELEMENTS_ROW_(4)
            break;
        case 8:
            CLG_ELEMENTS_ROW_(8)
            break;
        default:
            CLG_ELEMENTS_ROW_(es)
        }
#undef CLG_ELEMENTS_ROW_
        for (size_t d = last; d-- > 0;) {
            if (++pos[d] < shape[d]) {
                base += d == p->axis ? 0 : dstride[d];
                break;
            }
            base -= d == p->axis ? 0 : (shape[d] - 1) * dstride[d];
            pos[d] = 0;
        }
    }
}
