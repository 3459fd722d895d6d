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

/* [k, s_0, st_0, ...]: each component's dim and its stride in slices, in
 * a small buffer of the plan. */
static clg_status tuple_geom(const clg_plan_env *env, clg_call_plan *cp,
                             const clg_problem *p, cl_ulong *which)
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
    return clg_call_plan_const(env, cp, g, 1 + 2 * k, which);
}

/* The per-tuple pass (docs/design.md, "Kernels"): on a CPU plan over
 * whole tensors with slices to move, an output of at least the `norm`
 * parameter's KiB (the size at which Gather's own pass pays for its
 * launch) and positions that fit an int, one work-item per tuple computes
 * and checks the tuple's slice position once, and Gather's routine moves
 * the slices as a Gather along axis 0 of data viewed as [outer * block,
 * slice] (docs/decisions.md, "GatherND: a per-tuple pass"). */
static int gather_nd_by_tuples(const clg_plan_env *env, const clg_problem *p,
                               const clg_plan *plan, int whole)
{
    if (!whole || env->dev->plan_type != CLG_DEVICE_TYPE_CPU ||
        plan->inner < 1 || plan->outer < 1 || plan->n < 1 ||
        env->prm.norm == 0)
        return 0;
    int64_t block = plan->axis_stride / plan->inner; /* slices a batch */
    return plan->outer <= INT32_MAX / (block ? block : 1) &&
           (uint64_t)p->out_count * p->elem_size >=
               (uint64_t)env->prm.norm * 1024;
}

/* The pass's step into the box's temporary, then Gather's steps over it. */
static clg_status gather_nd_tuples_steps(const clg_plan_env *env,
                                         const clg_problem *p,
                                         const clg_plan *plan,
                                         clg_call_plan *cp)
{
    const int64_t tuples = plan->outer * plan->n;
    const int64_t block = plan->axis_stride / plan->inner;
    const int64_t slice = p->out_count / tuples; /* elements */
    const size_t k = p->components;
    clg_variant v = clg_plan_variant(CLG_ENTRY_GATHER_ND_POSITIONS, p, plan,
                                     1);
    /* Up to three components as scalars (docs/decisions.md, "GatherND: a
     * tuple's components as scalars"). */
    v.value[CLG_OPT_TUPLE] = k <= CLG_ND_SCALAR_COMPONENTS ? (unsigned)k : 0;
    /* The Gather: data [outer * block, slice] along axis 0, the int
     * positions [tuples] (out of range only under fill), output [tuples,
     * slice]. */
    clg_problem g = *p;
    g.op = CLG_OP_GATHER;
    /* The pass leaves every position in range but fill's: the Gather
     * checks nothing again, under clip's identity on them (wrap's would
     * divide again, raise's store to the slot; docs/decisions.md,
     * "GatherND: the Gather after the pass trusts its positions"). */
    g.oob = p->oob == CLG_OOB_FILL ? CLG_OOB_FILL : CLG_OOB_CLIP;
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
    clg_gather_routine.plan(&g, env->dev, plan->unit, &gp);
    cl_ulong geom = 0;
    clg_status st = tuple_geom(env, cp, p, &geom);
    if (st != CLG_STATUS_OK)
        return st;
    clg_plan_args a;
    clg_plan_args_init(&a);
    clg_parg_ref(&a, CLG_ARG_INDICES, CLG_RT_REF_INDICES, 0);
    clg_parg_ref(&a, CLG_ARG_ERR, CLG_RT_REF_ERR, 0);
    clg_parg_ref(&a, CLG_ARG_NORMED, CLG_RT_REF_TEMP, 0);
    clg_parg_value(&a, CLG_ARG_COUNT, (cl_ulong)tuples);
    clg_parg_value(&a, CLG_ARG_N, (cl_ulong)plan->n);
    clg_parg_value(&a, CLG_ARG_AXIS_STRIDE, (cl_ulong)block);
    clg_parg_ref(&a, CLG_ARG_TUPLE_GEOM, CLG_RT_REF_CONST, geom);
    static const clg_arg dims[CLG_ND_SCALAR_COMPONENTS] = {CLG_ARG_DIM0,
                                                           CLG_ARG_DIM1,
                                                           CLG_ARG_DIM2};
    for (size_t i = 0; i < CLG_ND_SCALAR_COMPONENTS; i++)
        clg_parg_value(&a, dims[i],
                       i < k ? (cl_ulong)p->data_shape[p->axis + i] : 0);
    clg_geometry geo;
    size_t origin[3] = {0, 0, 0},
           size[3] = {(size_t)plan->n, (size_t)plan->outer, 1};
    clg_geometry_make(env->dev, 2, origin, size, &geo);
    cp->box->temp_bytes = (size_t)tuples * sizeof(int);
    st = clg_call_plan_step(env, cp, &v, &a, &geo);
    return st == CLG_STATUS_OK ? clg_gather_steps_positions(env, &g, &gp, cp)
                               : st;
}

/* One work-item per output element (c, j, o); a box of empty slices
 * launches one c to check its tuples under raise; or the per-tuple pass
 * (gather_nd_by_tuples). */
static clg_status gather_nd_steps(const clg_plan_env *env,
                                  const clg_problem *p, const clg_plan *plan,
                                  const clg_box *box, int whole,
                                  int64_t out_len, clg_call_plan *cp)
{
    int64_t cols = box->c1 - box->c0;
    (void)out_len;
    if (box->o1 <= box->o0 || box->j1 <= box->j0 ||
        (cols == 0 && p->oob != CLG_OOB_RAISE))
        return CLG_STATUS_OK; /* nothing to write or check */
    if (cols > 0 && gather_nd_by_tuples(env, p, plan, whole))
        return gather_nd_tuples_steps(env, p, plan, cp);
    clg_variant v = clg_plan_variant(CLG_ENTRY_GATHER_ND, p, plan, whole);
    cl_ulong geom = 0;
    clg_status st = tuple_geom(env, cp, p, &geom);
    if (st != CLG_STATUS_OK)
        return st;
    size_t origin[3] = {(size_t)box->c0, (size_t)box->j0, (size_t)box->o0};
    size_t size[3] = {(size_t)(cols ? cols : 1), (size_t)(box->j1 - box->j0),
                      (size_t)(box->o1 - box->o0)};
    clg_geometry g;
    clg_geometry_make_wg(env->dev, env->prm.wg, 3, origin, size, &g);
    clg_plan_args a;
    clg_plan_args_init(&a);
    clg_base_pargs(plan, &a);
    clg_parg_value(&a, CLG_ARG_BATCH_STRIDE, (cl_ulong)plan->axis_stride);
    clg_parg_ref(&a, CLG_ARG_TUPLE_GEOM, CLG_RT_REF_CONST, geom);
    return clg_call_plan_step(env, cp, &v, &a, &g);
}

const clg_routine clg_gather_nd_routine = {gather_nd_plan, gather_nd_footprint,
                                           gather_nd_steps};

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
