/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The workloads of `clgather bench`: the table, the inputs of each (made
 * once per run from the seed) and what --scale multiplies.
 */
#include <string.h>

#include "bench_internal.h"

/* The workload table; names and shapes are a contract (bench/peers.py
 * reads them back from the JSON).
 *
 * --scale F multiplies one dimension so that every tensor's memory traffic,
 * not only `bytes`, grows by F; the linearity check then measures the
 * library rather than the caches:
 *   - embedding, gather-middle-axis, small: the number of indices (rows
 *     gathered); each gathered row is read whole, the data tensor stays;
 *   - gather-last-axis: data dim 0 (the rows; the output follows). Scaling
 *     the 1024 indices instead would not scale the data traffic: with 256
 *     random columns of a 4 KiB row nearly every cache line of the row is
 *     still read;
 *   - elements-last-axis: dim 0 of data and indices, for the same reason;
 *   - elements-axis0: dim 1 (the columns) of data and indices: scaling the
 *     rows gathered along axis 0 would leave the 64 MiB data tensor to be
 *     streamed whole at every scale;
 *   - nd-positions, nd-rows: the number of index tuples (slices gathered),
 *     as embedding's;
 *   - nd-scalars: dim 0 of data and of indices, so that the tuples keep
 *     their density over the data's cache lines.
 * The GatherND workloads are real uses: a BERT masked-LM head's positions
 * (batch_dims 1: 128 positions of each of 32 sequences, rows of 3 KiB),
 * PyTorch advanced indexing x[i, j] exported as GatherND (rows of 512
 * bytes) and tuples that address single elements (k = r, scalar slices). */
const bench_workload bench_workloads[] = {
    {"embedding",
     CLG_OP_GATHER,
     CLG_DTYPE_FLOAT,
     2,
     {50257, 768, 0},
     CLG_DTYPE_INT64,
     2,
     {8, 1024},
     0,
     -1,
     0,
     0},
    {"gather-last-axis",
     CLG_OP_GATHER,
     CLG_DTYPE_FLOAT,
     2,
     {16384, 1024, 0},
     CLG_DTYPE_INT64,
     1,
     {1024, 0},
     -1,
     0,
     -1,
     0},
    {"gather-middle-axis",
     CLG_OP_GATHER,
     CLG_DTYPE_FLOAT16,
     3,
     {64, 4096, 64},
     CLG_DTYPE_INT32,
     1,
     {2048, 0},
     1,
     -1,
     0,
     0},
    {"elements-last-axis",
     CLG_OP_GATHER_ELEMENTS,
     CLG_DTYPE_FLOAT,
     2,
     {16384, 1024, 0},
     CLG_DTYPE_INT64,
     2,
     {16384, 1024},
     -1,
     0,
     0,
     0},
    {"elements-axis0",
     CLG_OP_GATHER_ELEMENTS,
     CLG_DTYPE_FLOAT,
     2,
     {4096, 4096, 0},
     CLG_DTYPE_INT32,
     2,
     {4096, 4096},
     0,
     1,
     1,
     0},
    {"small",
     CLG_OP_GATHER,
     CLG_DTYPE_FLOAT,
     2,
     {64, 64, 0},
     CLG_DTYPE_INT64,
     1,
     {16, 0},
     0,
     -1,
     0,
     1},
    {"nd-positions",
     CLG_OP_GATHER_ND,
     CLG_DTYPE_FLOAT,
     3,
     {32, 512, 768},
     CLG_DTYPE_INT64,
     3,
     {32, 128, 1},
     1,
     -1,
     1,
     0},
    {"nd-rows",
     CLG_OP_GATHER_ND,
     CLG_DTYPE_FLOAT16,
     3,
     {64, 4096, 256},
     CLG_DTYPE_INT64,
     2,
     {16384, 2, 0},
     0,
     -1,
     0,
     0},
    {"nd-scalars",
     CLG_OP_GATHER_ND,
     CLG_DTYPE_FLOAT,
     2,
     {4096, 4096, 0},
     CLG_DTYPE_INT64,
     2,
     {4194304, 2, 0},
     0,
     0,
     0,
     0},
};
_Static_assert(sizeof bench_workloads / sizeof bench_workloads[0] ==
                   BENCH_WORKLOAD_COUNT,
               "BENCH_WORKLOAD_COUNT is the number of entries of the table");

clg_call bench_call_of(const bench_workload *w, clg_oob_mode oob)
{
    clg_call c = {.size = sizeof c, .op = w->op};
    c.options.oob = oob;
    clg_call_set_attribute(&c, w->axis); /* op is one of the table's */
    return c;
}

static uint64_t splitmix64(uint64_t *state)
{
    uint64_t z = (*state += UINT64_C(0x9E3779B97F4A7C15));
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

/* round(dim * scale), at least 1 (no libm needed: scale > 0), at most
 * 2^62: converting a double past int64 is undefined, and a tensor with
 * such a dim is refused as too large anyway (run_plan skips it). */
static int64_t scaled_dim(int64_t dim, double scale)
{
    double d = (double)dim * scale + 0.5;
    if (d >= 4611686018427387904.0)
        return INT64_C(1) << 62;
    return d < 1 ? 1 : (int64_t)d;
}

static uint64_t shape_count(const int64_t *shape, size_t rank)
{
    uint64_t count = 1;
    for (size_t i = 0; i < rank; i++)
        count *= (uint64_t)shape[i];
    return count;
}

clg_status bench_workload_size(const bench_workload *w, double scale,
                               bench_result *r)
{
    clg_tensor data = {w->data_dtype, w->data_rank, r->data_shape, NULL};
    clg_tensor indices = {w->index_dtype, w->index_rank, r->index_shape, NULL};
    const size_t elem = clg_dtype_size(w->data_dtype);
    clg_status st;

    memcpy(r->data_shape, w->data_shape, sizeof r->data_shape);
    memcpy(r->index_shape, w->index_shape, sizeof r->index_shape);
    if (w->scale_data_dim >= 0)
        r->data_shape[w->scale_data_dim] =
            scaled_dim(w->data_shape[w->scale_data_dim], scale);
    if (w->scale_index_dim >= 0)
        r->index_shape[w->scale_index_dim] =
            scaled_dim(w->index_shape[w->scale_index_dim], scale);
    clg_call call = bench_call_of(w, CLG_OOB_RAISE);
    st = clg_output_shape(&call, &data, &indices, r->out_shape, CLG_MAX_RANK,
                          &r->out_rank);
    if (st != CLG_STATUS_OK)
        return st;
    r->data_bytes = shape_count(r->data_shape, w->data_rank) * elem;
    r->index_bytes = shape_count(r->index_shape, w->index_rank) *
                     clg_dtype_size(w->index_dtype);
    r->out_bytes = shape_count(r->out_shape, r->out_rank) * elem;
    r->bytes = r->out_bytes + r->index_bytes + r->out_bytes;
    return CLG_STATUS_OK;
}

void bench_fill_inputs(size_t wi, uint64_t seed, const bench_result *r,
                       void *data, void *indices)
{
    const bench_workload *w = r->w;
    uint64_t state = seed ^ (UINT64_C(0xD1B54A32D192ED03) * (wi + 1));
    const size_t first = (size_t)(w->axis < 0 ? (int64_t)w->data_rank + w->axis
                                              : w->axis);
    /* GatherND: a tuple of k components, component c along data dim
     * first + c; the other operators: one value along the axis. */
    const int64_t k = w->op == CLG_OP_GATHER_ND
                          ? r->index_shape[w->index_rank - 1]
                          : 1;
    int64_t index_count =
        (int64_t)(r->index_bytes / clg_dtype_size(w->index_dtype));
    unsigned char *d = data;
    uint64_t i = 0;
    for (; i + 8 <= r->data_bytes; i += 8) {
        uint64_t v = splitmix64(&state);
        memcpy(d + i, &v, 8);
    }
    if (i < r->data_bytes) {
        uint64_t v = splitmix64(&state);
        memcpy(d + i, &v, (size_t)(r->data_bytes - i));
    }
    for (int64_t x = 0; x < index_count; x++) {
        int64_t s = r->data_shape[first + (size_t)(x % k)];
        int64_t v = (int64_t)(splitmix64(&state) % (uint64_t)(2 * s)) - s;
        if (w->index_dtype == CLG_DTYPE_INT64)
            ((int64_t *)indices)[x] = v;
        else
            ((int32_t *)indices)[x] = (int32_t)v;
    }
}
