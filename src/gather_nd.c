/* SPDX-License-Identifier: Apache-2.0 */
/* ONNX GatherND (opsets 11, 12, 13): its attribute rule, index rule and
 * routine, and its row of the operator descriptors (docs/design.md,
 * "Adding an operator"); its shape rules are in src/shape.c, its
 * reference rule in src/reference.c. */
#include "op.h"

#include <stdint.h>
#include <string.h>

/* batch_dims b in [0, min(q, r) - 1], for indices of rank q >= 1; the
 * first data dim a tuple addresses is b. p->axis_size is the smallest of
 * the dims the tuple's components address (0 when one of them is empty,
 * so that no mode resolves a value onto it), read by clg_validate_options
 * only; each component's own range is clg_index_range's. */
static clg_status gather_nd_attributes(clg_context *ctx, const clg_call *call,
                                       clg_problem *p)
{
    int64_t r = (int64_t)p->data_rank, q = (int64_t)p->index_rank;
    int64_t b = call->batch_dims;
    if (q < 1)
        return clg_fail(ctx, CLG_STATUS_INVALID_RANK,
                        "indices has rank 0; GatherND needs indices of rank "
                        ">= 1 (the last dim holds the index tuples)");
    int64_t top = (q < r ? q : r) - 1;
    if (b < 0 || b > top)
        return clg_fail(ctx, CLG_STATUS_INVALID_ARGUMENT,
                        "batch_dims = %lld is out of range [0, %lld] for "
                        "data of rank %lld and indices of rank %lld "
                        "(GatherND needs 0 <= batch_dims < min(q, r))",
                        (long long)b, (long long)top, (long long)r,
                        (long long)q);
    p->axis = (size_t)b;
    int64_t k = p->index_shape[q - 1], s = p->data_shape[b];
    for (int64_t c = 1; c < k && b + c < r; c++)
        if (p->data_shape[b + c] < s)
            s = p->data_shape[b + c];
    p->axis_size = s;
    return CLG_STATUS_OK;
}

/* The index rule: a tuple of indices.shape[q-1] values. */
static size_t gather_nd_components(const clg_problem *p)
{
    return (size_t)p->index_shape[p->index_rank - 1];
}

/* ------------------------------------------------------------ routine */

/* Plan coordinates [outer, n, inner]: outer the batch positions, n the
 * tuples of one batch position, inner the slice in units
 * (kernels/gather_nd.cl): as Gather's, the widest of 16, 8, 4, 2, 1 bytes
 * that divides the slice and the alignment of both base addresses, on CPU
 * devices at most 4 bytes and leaving 32 work-items in a slice of 64 bytes
 * or more (docs/design.md, "Plans"). axis_stride holds the units of one
 * batch position. */
static void gather_nd_plan(const clg_problem *p, const clg_device_facts *dev,
                           size_t align, clg_plan *plan)
{
    int64_t outer = 1, inner = 1, tuples = 1, block = 1;
    size_t k = p->components ? p->components : 1;
    for (size_t d = 0; d < p->axis; d++)
        outer *= p->data_shape[d];
    for (size_t d = p->axis; d < p->axis + k; d++)
        block *= p->data_shape[d];
    for (size_t d = p->axis + k; d < p->data_rank; d++)
        inner *= p->data_shape[d];
    for (size_t d = p->axis; d + 1 < p->index_rank; d++)
        tuples *= p->index_shape[d];
    uint64_t bytes = (uint64_t)inner * p->elem_size;
    size_t unit = CLG_MAX_ELEMENT_SIZE;
    while (unit > 1 && (bytes % unit != 0 || align % unit != 0))
        unit /= 2;
    if (dev->plan_type == CLG_DEVICE_TYPE_CPU) {
        if (unit > 4)
            unit = 4;
        while (unit > 1 && bytes >= 64 && bytes / unit < 32)
            unit /= 2;
    }
    int64_t per = (int64_t)(bytes / unit); /* the slice in units */
    memset(plan, 0, sizeof *plan);
    plan->unit = unit;
    plan->outer = outer;
    plan->n = tuples;
    plan->inner = per;
    plan->axis_size = p->axis_size;
    plan->axis_stride = block * per;
    plan->index_count = p->index_count;
    plan->data_units =
        (int64_t)((uint64_t)p->data_count * p->elem_size / unit);
    plan->out_units = (int64_t)((uint64_t)p->out_count * p->elem_size / unit);
    clg_plan_offsets(plan, dev);
}

/* A box may read any slice of its batch positions. */
static void gather_nd_footprint(const clg_plan *plan, const clg_box *b,
                                int64_t *first, int64_t *end)
{
    *first = b->o0 * plan->axis_stride;
    *end = b->o1 * plan->axis_stride;
}

/* [k, s_0, st_0, ...]: each component's dim and its stride in slices. */
static clg_status tuple_geom(clg_context *ctx, const clg_problem *p,
                             cl_mem *out)
{
    cl_ulong g[1 + 2 * CLG_MAX_RANK];
    size_t k = p->components;
    cl_ulong stride = 1;
    g[0] = k;
    for (size_t i = k; i-- > 0;) {
        g[1 + 2 * i] = (cl_ulong)p->data_shape[p->axis + i];
        g[2 + 2 * i] = stride;
        stride *= (cl_ulong)p->data_shape[p->axis + i];
    }
    return clg_rt_const_buffer(ctx, g, (1 + 2 * k) * sizeof(cl_ulong), out);
}

/* The per-tuple pass (docs/design.md, "Kernels"): on a CPU plan over
 * whole tensors with slices to move, an output of at least the `norm`
 * parameter's KiB (the size at which Gather's own pass pays for its
 * launch) and positions that fit an int, one work-item per tuple computes
 * and checks the tuple's slice position once, and Gather's routine moves
 * the slices as a Gather along axis 0 of data viewed as [outer * block,
 * slice] (docs/decisions.md, "GatherND: a per-tuple pass"). */
static int gather_nd_by_tuples(clg_context *ctx, const clg_problem *p,
                               const clg_plan *plan, int whole)
{
    clg_param_values prm;
    if (!whole || clg_rt_facts(ctx)->plan_type != CLG_DEVICE_TYPE_CPU ||
        plan->inner < 1 || plan->outer < 1 || plan->n < 1 ||
        clg_param_values_get(ctx, &prm) != CLG_STATUS_OK || prm.norm == 0)
        return 0;
    int64_t block = plan->axis_stride / plan->inner; /* slices a batch */
    return plan->outer <= INT32_MAX / (block ? block : 1) &&
           (uint64_t)p->out_count * p->elem_size >= (uint64_t)prm.norm * 1024;
}

static clg_status gather_nd_tuples_launch(clg_context *ctx,
                                          const clg_problem *p,
                                          const clg_plan *plan,
                                          const clg_windows *w)
{
    const clg_device_facts *dev = clg_rt_facts(ctx);
    const int64_t tuples = plan->outer * plan->n;
    const int64_t block = plan->axis_stride / plan->inner;
    const int64_t slice = p->out_count / tuples; /* elements */
    clg_variant v = clg_plan_variant(CLG_ENTRY_GATHER_ND_POSITIONS, p, plan,
                                     1);
    cl_kernel k = NULL;
    cl_mem geom = NULL;
    clg_windows wg = *w;
    clg_status st = clg_variant_kernel(ctx, &v, &k);
    /* The Gather: data [outer * block, slice] along axis 0, the int
     * positions [tuples] (out of range only under fill), output [tuples,
     * slice]. */
    clg_problem g = *p;
    g.op = CLG_OP_GATHER;
    g.index_dtype = CLG_DTYPE_INT32;
    g.index_size = 4;
    g.components = 1;
    g.data_rank = 2;
    g.data_shape[0] = plan->outer * block;
    g.data_shape[1] = slice;
    g.index_rank = 1;
    g.index_shape[0] = tuples;
    g.out_rank = 2;
    g.out_shape[0] = tuples;
    g.out_shape[1] = slice;
    g.axis = 0;
    g.axis_size = g.data_shape[0];
    g.index_count = tuples;
    clg_plan gp;
    clg_gather_routine.plan(&g, dev, plan->unit, &gp);
    clg_box gbox = {0, 1, 0, tuples, 0, gp.inner};
    wg.indices_svm = NULL;
    wg.index_base = wg.data_base = wg.out_base = 0;
    wg.index_len = tuples;
    wg.data_len = gp.data_units;
    wg.out_len = gp.out_units;
    if (st != CLG_STATUS_OK || w->call->dry) /* a warm-up: build both */
        return st != CLG_STATUS_OK
                   ? st
                   : clg_gather_launch_positions(ctx, &g, &gp, &gbox, &wg);
    wg.indices = NULL;
    if ((st = tuple_geom(ctx, p, &geom)) == CLG_STATUS_OK)
        st = clg_rt_call_temp(w->call, (size_t)tuples * sizeof(int),
                              &wg.indices);
    if (st == CLG_STATUS_OK) {
        cl_ulong count = (cl_ulong)tuples, n = (cl_ulong)plan->n,
                 stride = (cl_ulong)block;
        clg_args a = {{{0}}};
        clg_geometry geo;
        size_t origin[3] = {0, 0, 0}, size[3] = {(size_t)tuples, 1, 1};
        a.at[CLG_ARG_INDICES] = clg_rt_mem_arg(&w->indices, w->indices_svm);
        a.at[CLG_ARG_ERR] = CLG_RT_BUFFER(w->call->err);
        a.at[CLG_ARG_NORMED] = CLG_RT_BUFFER(wg.indices);
        a.at[CLG_ARG_COUNT] = CLG_RT_SCALAR(count);
        a.at[CLG_ARG_N] = CLG_RT_SCALAR(n);
        a.at[CLG_ARG_AXIS_STRIDE] = CLG_RT_SCALAR(stride);
        a.at[CLG_ARG_TUPLE_GEOM] = CLG_RT_BUFFER(geom);
        clg_geometry_make(dev, 1, origin, size, &geo);
        st = clg_entry_launch(w->call, v.entry, k, &a, &geo);
    }
    if (st == CLG_STATUS_OK)
        st = clg_gather_launch_positions(ctx, &g, &gp, &gbox, &wg);
    /* OpenCL defers the releases until the launches are done. */
    clg_rt_release(&geom);
    clg_rt_release(&wg.indices);
    return st;
}

/* One work-item per output element (c, j, o); a box of empty slices
 * launches one c to check its tuples under raise; or the per-tuple pass
 * (gather_nd_by_tuples). */
static clg_status gather_nd_launch(clg_context *ctx, const clg_problem *p,
                                   const clg_plan *plan, const clg_box *box,
                                   const clg_windows *w)
{
    const clg_device_facts *dev = clg_rt_facts(ctx);
    int whole = clg_launch_is_whole(plan, box, w);
    int64_t cols = box->c1 - box->c0;
    if (box->o1 <= box->o0 || box->j1 <= box->j0 ||
        (cols == 0 && p->oob != CLG_OOB_RAISE))
        return CLG_STATUS_OK; /* nothing to write or check */
    if (cols > 0 && gather_nd_by_tuples(ctx, p, plan, whole))
        return gather_nd_tuples_launch(ctx, p, plan, w);
    clg_variant v = clg_plan_variant(CLG_ENTRY_GATHER_ND, p, plan, whole);
    cl_kernel k = NULL;
    clg_status st = clg_variant_kernel(ctx, &v, &k);
    if (st != CLG_STATUS_OK || w->call->dry)
        return st;
    clg_param_values prm;
    if ((st = clg_param_values_get(ctx, &prm)) != CLG_STATUS_OK)
        return st;
    cl_mem geom = NULL;
    if ((st = tuple_geom(ctx, p, &geom)) != CLG_STATUS_OK)
        return st;
    size_t origin[3] = {(size_t)box->c0, (size_t)box->j0, (size_t)box->o0};
    size_t size[3] = {(size_t)(cols ? cols : 1), (size_t)(box->j1 - box->j0),
                      (size_t)(box->o1 - box->o0)};
    clg_geometry g;
    clg_geometry_make_wg(dev, prm.wg, 3, origin, size, &g);
    clg_base_scalars sc;
    cl_ulong batch = (cl_ulong)plan->axis_stride;
    clg_args a = {{{0}}};
    clg_base_args(plan, w, &sc, &a);
    a.at[CLG_ARG_BATCH_STRIDE] = CLG_RT_SCALAR(batch);
    a.at[CLG_ARG_TUPLE_GEOM] = CLG_RT_BUFFER(geom);
    st = clg_entry_launch(w->call, v.entry, k, &a, &g);
    /* OpenCL defers the release until the launch is done. */
    clg_rt_release(&geom);
    return st;
}

const clg_routine clg_gather_nd_routine = {gather_nd_plan, gather_nd_footprint,
                                           gather_nd_launch};

/* GatherND's row (docs/design.md, "Adding an operator"). */
const clg_op_desc clg_gather_nd_desc = {
    .attributes = gather_nd_attributes,
    .infer = clg_gather_nd_infer,
    .components = gather_nd_components,
    .tuples = 1,
    .ref_index = clg_gather_nd_ref_index,
    .ref_data = clg_gather_nd_ref_data,
    .index_window = CLG_WINDOW_TUPLES,
    .in_place_align = CLG_ALIGN_ANY,
    .routine = &clg_gather_nd_routine,
    .host = clg_gather_nd_host,
};
