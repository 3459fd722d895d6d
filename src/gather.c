/* SPDX-License-Identifier: Apache-2.0 */
/* ONNX Gather (opsets 1, 11, 13): plan, kernel choice and launch
 * (docs/design.md, "Kernels"), and its row of the operator descriptors;
 * its shape rules are in src/shape.c, its reference rule in
 * src/reference.c. */
#include "op.h"
#include "variant.h"

#include <string.h>

/* Data [outer, s, inner] in the widest unit that divides the contiguous
 * inner block and the alignment of both base addresses. */
static void gather_plan(const clg_problem *p, const clg_device_facts *dev,
                        size_t align, clg_plan *plan)
{
    int cpu = dev->plan_type == CLG_DEVICE_TYPE_CPU;
    int64_t outer = 1, inner = 1;
    for (size_t d = 0; d < p->axis; d++)
        outer *= p->data_shape[d];
    for (size_t d = p->axis + 1; d < p->data_rank; d++)
        inner *= p->data_shape[d];
    uint64_t block = (uint64_t)inner * p->elem_size;
    size_t unit = CLG_MAX_ELEMENT_SIZE;
    while (unit > 1 && (block % unit != 0 || align % unit != 0))
        unit /= 2;
    /* On CPU devices POCL vectorises the work-item loop over dimension 0,
     * but not over vector types (uint4), and the loop wants enough
     * work-items: the widest unit of at most 4 bytes that leaves 32 or
     * more work-items in a row of 64 bytes or more measured best
     * (docs/design.md, "Plans", has the figures). */
    if (cpu) {
        if (unit > 4)
            unit = 4;
        while (unit > 1 && block >= 64 && block / unit < 32)
            unit /= 2;
    }
    memset(plan, 0, sizeof *plan);
    plan->unit = unit;
    plan->lean = cpu;
    plan->outer = outer;
    plan->n = p->index_count;
    plan->inner = (int64_t)(block / unit);
    plan->axis_size = p->axis_size;
    plan->index_count = p->index_count;
    plan->data_units =
        (int64_t)((uint64_t)p->data_count * p->elem_size / unit);
    plan->out_units = (int64_t)((uint64_t)p->out_count * p->elem_size / unit);
    clg_plan_offsets(plan, dev);
}

static void gather_footprint(const clg_plan *plan, const clg_box *b,
                             int64_t *first, int64_t *end)
{
    int64_t s = plan->axis_size, in = plan->inner;
    *first = b->o0 * s * in + b->c0;
    *end = ((b->o1 - 1) * s + (s - 1)) * in + b->c1;
}

int clg_gather_span(const clg_plan *plan, const clg_param_values *prm)
{
    int span = 1;
    if (!plan->lean || plan->inner < 2 || plan->unit > 8)
        return 1;
    while (span < 16 && (size_t)(2 * span) * plan->unit <= prm->unit &&
           plan->inner % (2 * span) == 0)
        span *= 2;
    return span;
}

/* The NDRange of a launch of an entry of `dims` dimensions: (c, j, o),
 * c in spans of `span` units; or (j, o). */
static void gather_geometry(const clg_device_facts *dev,
                            const clg_param_values *prm, const clg_box *box,
                            int span, unsigned dims, clg_geometry *g)
{
    size_t origin[3] = {(size_t)box->c0 / (size_t)span, (size_t)box->j0,
                        (size_t)box->o0};
    size_t size[3] = {(size_t)(box->c1 - box->c0) / (size_t)span,
                      (size_t)(box->j1 - box->j0),
                      (size_t)(box->o1 - box->o0)};
    clg_geometry_make_wg(dev, prm->wg, dims, origin + (3 - dims),
                         size + (3 - dims), g);
}

/* The trusted bodies read positions that clg_normalize_indices wrote into
 * a temporary, in an earlier launch of the same call. They need the lean
 * conditions, positions that fit an int, a units dimension 0 that fills its
 * work-groups exactly, and an output of at least prm->norm KiB, enough to
 * pay for the extra launch (docs/design.md, "Kernels"). */
static int gather_normed(const clg_problem *p, const clg_plan *plan,
                         const clg_param_values *prm, const clg_geometry *g,
                         int lean)
{
    int rows = plan->inner > 1;
    return lean && prm->norm > 0 && p->axis_size <= INT32_MAX &&
           (rows || g->global[0] == (size_t)plan->n) &&
           (uint64_t)p->out_count * p->elem_size >= (uint64_t)prm->norm * 1024;
}

/* Rows of 1 KiB or more, whole tensors, on a CPU device whose compiler
 * takes clang's built-ins (POCL, Intel's CPU runtime): the lean body moves 64-byte spans and
 * prefetches each span's line of the row two indices ahead, instead of
 * the normalising pass and the trusted body, which read no row ahead
 * (docs/decisions.md). Narrower rows lost by it. */
static int gather_prefetches_rows(int builtins, const clg_plan *plan,
                                  int whole)
{
    return whole && plan->lean && plan->inner > 1 &&
           (uint64_t)plan->inner * plan->unit >= 1024 && builtins;
}

/* Rows of one unit (the last axis) of 1 KiB or more, whole tensors, on a
 * CPU plan, after the normalising pass: clg_gather_units_spans moves
 * spans of up to 64 bytes of an output row, one vector store each, and,
 * where the compiler takes clang's built-ins, prefetches the data row
 * `prefetch` rows ahead (1 when 0), instead of a work-item per unit
 * (docs/decisions.md, "gather-last-axis: spans of a row"). The span, or 1
 * where the body does not apply. */
static int gather_units_span(const clg_plan *plan)
{
    int span = plan->unit >= 4 ? 64 / (int)plan->unit : 16;
    if (!plan->lean || plan->inner != 1 || plan->unit > 8 ||
        (uint64_t)plan->n * plan->unit < 1024 || plan->n % span != 0)
        return 1;
    return span;
}

/* The cache the units spans body's non-temporal stores are weighed
 * against (clg_gather_nt): the device's, at most 64 MiB. On a host whose
 * last-level cache (480 MiB) is shared with other machines, its plain
 * stores won at 32 MiB of output and lost at 64 (docs/decisions.md,
 * "gather-last-axis: spans of a row"). */
static uint64_t gather_units_spans_cache(uint64_t cache_bytes)
{
    const uint64_t cap = (uint64_t)64 << 20;
    return cache_bytes < cap ? cache_bytes : cap;
}

int clg_gather_nt(int builtins, unsigned nt, int single, size_t span_bytes,
                  size_t out_align, uint64_t out_bytes, uint64_t cache_bytes)
{
    if (!builtins || nt == 0 || nt == 2)
        return 0;
    if (single)
        return nt == 1;
    return out_align >= span_bytes &&
           (nt == 1 || (cache_bytes > 0 && out_bytes > cache_bytes / 2));
}

/* The entry points of a launch, by rows (inner > 1) or units, and body:
 * general, lean, trusted (normed). */
static const clg_entry gather_entries[2][3] = {
    {CLG_ENTRY_GATHER_UNITS, CLG_ENTRY_GATHER_UNITS_LEAN,
     CLG_ENTRY_GATHER_UNITS_NORMED},
    {CLG_ENTRY_GATHER, CLG_ENTRY_GATHER_LEAN, CLG_ENTRY_GATHER_LEAN_NORMED}};

/* The arguments of a body over positions an earlier step wrote into the
 * box's temporary: this plan's own whole windows, in its units, which may
 * be narrower than the units of the call's plan. */
static void positions_pargs(const clg_plan *plan, clg_plan_args *a)
{
    clg_parg_ref(a, CLG_ARG_INDICES, CLG_RT_REF_TEMP, 0);
    clg_parg_value(a, CLG_ARG_DATA_BASE, 0);
    clg_parg_value(a, CLG_ARG_DATA_LEN, (cl_ulong)plan->data_units);
    clg_parg_value(a, CLG_ARG_INDEX_BASE, 0);
    clg_parg_value(a, CLG_ARG_INDEX_LEN, (cl_ulong)plan->index_count);
    clg_parg_value(a, CLG_ARG_OUT_BASE, 0);
    clg_parg_value(a, CLG_ARG_OUT_LEN, (cl_ulong)plan->out_units);
}

/* Rows of 512 bytes or more over positions (GatherND's slices) on CPU
 * devices, in spans of 64 bytes: clg_gather_rows, one work-item a row, in
 * groups of 64 rows, prefetching the row `prefetch` positions ahead (4
 * when 0) and storing non-temporally where the output is large, where
 * the compiler takes clang's built-ins; rows of 256 bytes lost by it on
 * POCL (docs/decisions.md, "GatherND: row slices by the row"). 0 where
 * the plan cannot take it. */
static int gather_rows_span(const clg_plan *plan, const clg_param_values *prm)
{
    clg_param_values wide = *prm;
    wide.unit = 64;
    int span = clg_gather_span(plan, &wide);
    return plan->lean && plan->inner > 1 &&
                   (uint64_t)plan->inner * plan->unit >= 512 &&
                   (size_t)span * plan->unit == 64
               ? span
               : 0;
}

static clg_status gather_rows_step(const clg_plan_env *env,
                                   const clg_problem *p, const clg_plan *plan,
                                   int span, clg_call_plan *cp)
{
    unsigned ahead = env->prm.prefetch ? env->prm.prefetch : 4;
    clg_variant v = clg_plan_variant(CLG_ENTRY_GATHER_ROWS, p, plan, 1);
    v.value[CLG_OPT_SPAN] = (unsigned)span;
    v.value[CLG_OPT_PREFETCH] = env->builtins != 0;
    /* Non-temporal stores by the other span bodies' rule; from a quarter
     * of the cache on they neither won nor lost (docs/decisions.md,
     * "GatherND: non-temporal stores from the rows body"). */
    v.value[CLG_OPT_NT] = clg_gather_nt(env->builtins, env->prm.nt, 0, 64,
                                        env->out_align,
                                        (uint64_t)plan->out_units * plan->unit,
                                        env->dev->cache_bytes);
    clg_plan_args a;
    clg_plan_args_init(&a);
    clg_base_pargs(plan, &a);
    clg_parg_value(&a, CLG_ARG_PREFETCH, ahead);
    positions_pargs(plan, &a);
    clg_geometry g;
    size_t origin[3] = {0, 0, 0};
    size_t size[3] = {(size_t)plan->n, (size_t)plan->outer, 1};
    clg_geometry_make_wg(env->dev, 64, 2, origin, size, &g);
    return clg_call_plan_step(env, cp, &v, &a, &g);
}

/* The lean bodies need what their row of the entry table says (whole
 * tensors) and, for rows, a dimension 0 that fills its work-groups
 * exactly; only they take spans, prefetching and non-temporal stores
 * (docs/design.md, "Kernels"). `positions`: the indices are positions an
 * earlier step of the box wrote into its temporary (GatherND's per-tuple
 * pass), read as they are, never normalised again, over whole tensors. */
static clg_status gather_steps_as(const clg_plan_env *env,
                                  const clg_problem *p, const clg_plan *plan,
                                  const clg_box *box, int whole,
                                  int64_t out_len, clg_call_plan *cp,
                                  int positions)
{
    const clg_device_facts *dev = env->dev;
    int rows = plan->inner > 1;
    const clg_entry *entries = gather_entries[rows];
    unsigned dims = clg_entries[entries[0]].dims;
    clg_param_values prm = env->prm;
    clg_geometry g;
    clg_status st = CLG_STATUS_OK;
    if (gather_prefetches_rows(env->builtins, plan, whole)) {
        prm.unit = prm.unit > 64 ? prm.unit : 64;
        prm.prefetch = prm.prefetch ? prm.prefetch : 2;
        prm.norm = 0;
    }
    clg_variant v = clg_plan_variant(entries[0], p, plan, whole);
    int span = whole ? clg_gather_span(plan, &prm) : 1;
    gather_geometry(dev, &prm, box, span, dims, &g);
    int lean = plan->lean && clg_entry_fits(entries[1], &v) &&
               (!rows ||
                g.global[0] * (size_t)span == (size_t)(box->c1 - box->c0));
    if (!lean && span > 1) {
        span = 1;
        gather_geometry(dev, &prm, box, span, dims, &g);
    }
    int normed = !positions && gather_normed(p, plan, &prm, &g, lean);
    /* Positions of one unit each (GatherND's scalar slices) are already
     * in range (INT_MIN under fill): the trusted units body, which a CPU
     * compiler vectorises, where dimension 0 fills its work-groups
     * exactly (docs/decisions.md, "GatherND: scalar slices by the trusted
     * body"). */
    int trusted = positions && !rows && lean &&
                  clg_entry_fits(entries[2], &v) &&
                  g.global[0] == (size_t)plan->n;
    v.entry = entries[normed || trusted ? 2 : lean ? 1 : 0];
    if (normed && !rows) {
        int us = gather_units_span(plan);
        clg_geometry gs;
        clg_box sb = *box;
        sb.j0 /= us;
        sb.j1 /= us;
        gather_geometry(dev, &prm, &sb, 1, dims, &gs);
        if (us > 1 && gs.global[0] * (size_t)us == (size_t)plan->n) {
            v.entry = CLG_ENTRY_GATHER_UNITS_SPANS;
            span = us;
            g = gs;
            prm.prefetch = prm.prefetch || !env->builtins ? prm.prefetch : 1;
        }
    }
    v.value[CLG_OPT_SPAN] = (unsigned)span;
    v.value[CLG_OPT_PREFETCH] = lean && prm.prefetch > 0 && !trusted &&
                                (!normed ||
                                 v.entry == CLG_ENTRY_GATHER_UNITS_SPANS);
    /* Non-temporal stores (clg_gather_nt); a span's needs the output's
     * alignment. */
    uint64_t out_bytes = (uint64_t)out_len * plan->unit;
    size_t span_bytes = (size_t)span * plan->unit;
    v.value[CLG_OPT_NT] =
        lean &&
        clg_gather_nt(env->builtins, prm.nt, span == 1, span_bytes, span_bytes,
                      out_bytes,
                      v.entry == CLG_ENTRY_GATHER_UNITS_SPANS
                          ? gather_units_spans_cache(dev->cache_bytes)
                          : dev->cache_bytes) &&
        (span == 1 || env->out_align >= span_bytes);
    if (normed)
        v.value[CLG_OPT_INDEX_BYTES] = 4;
    clg_plan_args a;
    clg_plan_args_init(&a);
    clg_base_pargs(plan, &a);
    clg_parg_value(&a, CLG_ARG_PREFETCH, prm.prefetch);
    if (positions)
        positions_pargs(plan, &a);
    if (normed) {
        /* The gather reads the positions the normalising pass wrote into
         * the box's temporary. */
        clg_variant nv;
        clg_plan_args na;
        clg_plan_args_init(&na);
        clg_geometry ng;
        clg_index_pass_make(dev, p, 1, &nv, &na, &ng);
        cp->box->temp_bytes = (size_t)p->index_count * sizeof(int);
        st = clg_call_plan_step(env, cp, &nv, &na, &ng);
        clg_parg_ref(&a, CLG_ARG_INDICES, CLG_RT_REF_TEMP, 0);
    }
    if (st == CLG_STATUS_OK)
        st = clg_call_plan_step(env, cp, &v, &a, &g);
    /* Fill on the trusted rows body: its rows of position -1 are zeroed
     * by a launch of their own (kernels/gather.cl). */
    if (st == CLG_STATUS_OK && normed && rows && p->oob == CLG_OOB_FILL) {
        clg_variant fv = v;
        clg_geometry gf;
        size_t origin[3] = {0, 0, 0};
        size_t size[3] = {(size_t)clg_fill_pieces(plan->inner),
                          (size_t)plan->n, (size_t)plan->outer};
        fv.entry = CLG_ENTRY_GATHER_FILL_ROWS;
        fv.value[CLG_OPT_SPAN] = 1;
        fv.value[CLG_OPT_NT] = 0;
        clg_geometry_make(dev, clg_entries[fv.entry].dims, origin, size, &gf);
        st = clg_call_plan_step(env, cp, &fv, &a, &gf);
    }
    return st;
}

static clg_status gather_steps(const clg_plan_env *env, const clg_problem *p,
                               const clg_plan *plan, const clg_box *box,
                               int whole, int64_t out_len, clg_call_plan *cp)
{
    return gather_steps_as(env, p, plan, box, whole, out_len, cp, 0);
}

clg_status clg_gather_steps_positions(const clg_plan_env *env,
                                      const clg_problem *p,
                                      const clg_plan *plan, clg_call_plan *cp)
{
    int span = gather_rows_span(plan, &env->prm);
    if (span > 0)
        return gather_rows_step(env, p, plan, span, cp);
    clg_box box = {0, plan->outer, 0, plan->n, 0, plan->inner};
    return gather_steps_as(env, p, plan, &box, 1, plan->out_units, cp, 1);
}

const clg_routine clg_gather_routine = {gather_plan, gather_footprint,
                                        gather_steps};

/* Gather's row (docs/design.md, "Adding an operator"). */
const clg_op_desc clg_gather_desc = {
    .attributes = clg_axis_rule,
    .infer = clg_gather_infer,
    .components = clg_one_component,
    .ref_index = clg_gather_ref_index,
    .ref_data = clg_gather_ref_data,
    .index_window = CLG_WINDOW_POSITIONS,
    .in_place_align = CLG_ALIGN_ANY,
    .routine = &clg_gather_routine,
    .host = clg_gather_host,
};
