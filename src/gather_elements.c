/* SPDX-License-Identifier: Apache-2.0 */
/* ONNX GatherElements (opsets 11, 13): plan, kernel choice and launch
 * (docs/design.md, "Kernels"), and its row of the operator descriptors;
 * its shape rules are in src/shape.c, its reference rule in
 * src/reference.c. */
#include "op.h"
#include "variant.h"

#include <string.h>

/* Output/indices [outer, n, inner] in elements, with the off-axis dims
 * coalesced into (extent, data stride) lists. */
static void elements_plan(const clg_problem *p, const clg_device_facts *dev,
                          size_t align, clg_plan *plan)
{
    int64_t dstride[CLG_MAX_RANK] = {0};
    int64_t s = 1, oo = 1, ii = 1;
    (void)align; /* whole elements: the unit is the element */
    for (size_t d = p->data_rank; d-- > 0;) {
        dstride[d] = s;
        s *= p->data_shape[d];
    }
    memset(plan, 0, sizeof *plan);
    size_t no = p->axis, ni = p->data_rank - p->axis - 1;
    for (size_t d = 0; d < no; d++) {
        plan->outer_extent[d] = p->index_shape[d];
        plan->outer_stride[d] = dstride[d];
        oo *= p->index_shape[d];
    }
    for (size_t d = 0; d < ni; d++) {
        plan->inner_extent[d] = p->index_shape[p->axis + 1 + d];
        plan->inner_stride[d] = dstride[p->axis + 1 + d];
        ii *= p->index_shape[p->axis + 1 + d];
    }
    plan->outer_dims = clg_coalesce(plan->outer_extent, plan->outer_stride,
                                    no);
    plan->inner_dims = clg_coalesce(plan->inner_extent, plan->inner_stride,
                                    ni);
    plan->unit = p->elem_size;
    plan->lean = dev->plan_type == CLG_DEVICE_TYPE_CPU;
    plan->axis_stride = dstride[p->axis];
    plan->axis_size = p->axis_size;
    plan->outer = oo;
    plan->n = p->index_shape[p->axis];
    plan->inner = ii;
    plan->index_count = p->index_count;
    plan->data_units = p->data_count;
    plan->out_units = p->out_count;
    clg_plan_offsets(plan, dev);
}

/* Data offset of coalesced outer or inner position `pos`, as the kernel
 * computes it. */
static int64_t dims_offset(size_t dims, const int64_t *extent,
                           const int64_t *stride, int64_t pos)
{
    int64_t off = 0;
    for (size_t k = dims; k-- > 0;) {
        off += (pos % extent[k]) * stride[k];
        pos /= extent[k];
    }
    return off;
}

static void elements_footprint(const clg_plan *plan, const clg_box *b,
                               int64_t *first, int64_t *end)
{
    *first = dims_offset(plan->outer_dims, plan->outer_extent,
                         plan->outer_stride, b->o0) +
             dims_offset(plan->inner_dims, plan->inner_extent,
                         plan->inner_stride, b->c0);
    *end = dims_offset(plan->outer_dims, plan->outer_extent,
                       plan->outer_stride, b->o1 - 1) +
           (plan->axis_size - 1) * plan->axis_stride +
           dims_offset(plan->inner_dims, plan->inner_extent,
                       plan->inner_stride, b->c1 - 1) +
           1;
}

/* The variant of a launch of `entry`. */
static clg_variant elements_variant(const clg_problem *p, const clg_plan *plan,
                                    clg_entry entry, int whole)
{
    clg_variant v = clg_plan_variant(entry, p, plan, whole);
    v.value[CLG_OPT_OUTER_DIMS] = plan->outer_dims > 1
                                      ? 2u
                                      : (unsigned)plan->outer_dims;
    v.value[CLG_OPT_INNER_DIMS] = plan->inner_dims > 1
                                      ? 2u
                                      : (unsigned)plan->inner_dims;
    return v;
}

void clg_elements_choose(const clg_problem *p, const clg_plan *plan,
                         const clg_param_values *prm, const clg_box *b,
                         int whole, uint64_t max_alloc,
                         clg_elements_choice *ch)
{
    int64_t width = (int64_t)(prm->strip / p->elem_size);
    int full_rows = b->j0 == 0 && b->j1 == plan->n && b->c0 == 0 &&
                    b->c1 == plan->inner;
    /* Whether a body may take this plan is its row of the entry table. */
    clg_variant v = elements_variant(p, plan, CLG_ENTRY_ELEMENTS, whole);
    memset(ch, 0, sizeof *ch);
    ch->entry = plan->inner > 1 ? CLG_ENTRY_ELEMENTS
                                : CLG_ENTRY_ELEMENTS_UNITS;
    if (ch->entry == CLG_ENTRY_ELEMENTS_UNITS && plan->lean &&
        clg_entry_fits(CLG_ENTRY_ELEMENTS_LEAN, &v))
        ch->entry = CLG_ENTRY_ELEMENTS_LEAN;
    /* The lean body reads row o + 2 ahead where that row holds every
     * element its work-items read (rows contiguous, indices no longer than
     * the axis) and an int reaches every offset in a row (docs/decisions.md). */
    if (ch->entry == CLG_ENTRY_ELEMENTS_LEAN && plan->axis_stride == 1 &&
        plan->n <= plan->axis_size && plan->axis_size <= INT32_MAX)
        ch->ahead = 2;
    /* Elements of at most 8 bytes in contiguous rows take the lanes body
     * instead, which prefetches row o + 2 (docs/decisions.md). */
    if (ch->entry == CLG_ENTRY_ELEMENTS_LEAN && plan->axis_stride == 1 &&
        plan->axis_size <= INT32_MAX &&
        clg_entry_fits(CLG_ENTRY_ELEMENTS_LANES, &v)) {
        ch->entry = CLG_ENTRY_ELEMENTS_LANES;
        ch->ahead = 2;
    }
    /* Strips: the axis not innermost, rows wider than a strip. */
    if (width < 1 || plan->inner <= width || plan->n < 2 || !full_rows)
        return;
    ch->entry = CLG_ENTRY_ELEMENTS_STRIPS;
    ch->strip_width = width;
    ch->strips = (plan->inner + width - 1) / width;
    uint64_t strip_bytes = (uint64_t)plan->axis_size * (uint64_t)width *
                           p->elem_size;
    /* Packed: a strip width in [width / 2, width] that divides the row, so
     * that the packed kernels need no bound on x, rows contiguous in data
     * (inner stride 1), which the pack kernel reads without a stride, and
     * at most INT_MAX elements a strip, which the gather addresses with an
     * int (kernels/gather_elements.cl). And the gather reads at least a
     * quarter of the strip's rows (4n >= s): the pack reads and writes all
     * s of them, and the packed walk measured about 4x faster a row than
     * strips in place (docs/decisions.md); 16 rows of a
     * 2^21-row axis took 135 ms packed against 0.12 in place. */
    int64_t even = width;
    while (even > 1 && 2 * even > width && plan->inner % even != 0)
        even--;
    if (!prm->pack || !clg_entry_fits(CLG_ENTRY_PACK_STRIPS, &v) ||
        plan->inner_dims != 1 || plan->inner_stride[0] != 1 ||
        !clg_entry_fits(CLG_ENTRY_ELEMENTS_PACKED, &v) ||
        plan->inner % even != 0 || 2 * even < width ||
        strip_bytes > max_alloc || 4 * plan->n < plan->axis_size ||
        (uint64_t)plan->axis_size * (uint64_t)even > INT32_MAX)
        return;
    ch->entry = CLG_ENTRY_ELEMENTS_PACKED;
    /* pack=2: the gather prefetches its indices and output this many rows
     * ahead (docs/decisions.md). */
    ch->ahead = prm->pack == 2 ? CLG_PACKED_AHEAD : 0;
    ch->strip_width = even;
    ch->strips = plan->inner / even;
    strip_bytes = (uint64_t)plan->axis_size * (uint64_t)even * p->elem_size;
    int64_t total = plan->outer * ch->strips;
    ch->chunk = prm->chunk && (int64_t)prm->chunk < total ? prm->chunk : total;
    if ((uint64_t)ch->chunk > max_alloc / strip_bytes)
        ch->chunk = (int64_t)(max_alloc / strip_bytes);
}

int clg_elements_lanes_nt(int builtins, unsigned nt, uint64_t out_bytes,
                          uint64_t cache_bytes)
{
    return builtins && (nt == 1 || (nt >= 2 && cache_bytes > 0 &&
                                    out_bytes > cache_bytes));
}

/* The NDRange of the chosen entry over box b (packed: of its first
 * pass). */
static void elements_geometry(const clg_device_facts *dev,
                              const clg_param_values *prm,
                              const clg_elements_choice *ch, const clg_box *b,
                              clg_geometry *g)
{
    size_t origin[3] = {(size_t)b->c0, (size_t)b->j0, (size_t)b->o0};
    size_t size[3] = {(size_t)(b->c1 - b->c0), (size_t)(b->j1 - b->j0),
                      (size_t)(b->o1 - b->o0)};
    if (ch->entry == CLG_ENTRY_ELEMENTS_STRIPS ||
        ch->entry == CLG_ENTRY_ELEMENTS_PACKED) {
        origin[0] = 0;
        size[0] = (size_t)ch->strip_width;
        origin[2] *= (size_t)ch->strips;
        size[2] *= (size_t)ch->strips;
        if (ch->entry == CLG_ENTRY_ELEMENTS_PACKED)
            size[2] = (size_t)ch->chunk;
    }
    size_t wg = prm->wg;
    if (ch->entry == CLG_ENTRY_ELEMENTS_LANES) {
        /* Rows of ceil(n / 16) work-items, flattened, in groups of at
         * most 64 (1,024 elements; docs/decisions.md). */
        size[2] = (size[1] + 15) / 16 * size[2];
        wg = wg < 64 ? wg : 64;
    }
    unsigned dims = clg_entries[ch->entry].dims;
    clg_geometry_make_wg(dev, wg, dims, origin + (3 - dims), size + (3 - dims),
                         g);
}

/* The (extent, stride) list of a ragged part in a small buffer of the
 * plan: [count, e0, st0, e1, st1, ...]; the argument refers to it. */
static clg_status geom_const(const clg_plan_env *env, clg_call_plan *cp,
                             size_t dims, const int64_t *extent,
                             const int64_t *stride, clg_plan_args *a,
                             clg_arg id)
{
    cl_ulong g[1 + 2 * CLG_MAX_RANK];
    cl_ulong which = 0;
    g[0] = dims;
    for (size_t k = 0; k < dims; k++) {
        g[1 + 2 * k] = (cl_ulong)extent[k];
        g[2 + 2 * k] = (cl_ulong)stride[k];
    }
    clg_status st = clg_call_plan_const(env, cp, g, 1 + 2 * dims, &which);
    clg_parg_ref(a, id, CLG_RT_REF_CONST, which);
    return st;
}

/* The arguments after the common ones (kernels/gather_elements.cl); the
 * ragged parts' lists go to small buffers of the plan. */
static clg_status elements_args(const clg_plan_env *env, clg_call_plan *cp,
                                const clg_plan *plan, cl_ulong prefetch,
                                const clg_elements_choice *ch,
                                clg_plan_args *a)
{
    clg_status st = CLG_STATUS_OK;
    clg_parg_value(a, CLG_ARG_AXIS_STRIDE, (cl_ulong)plan->axis_stride);
    clg_parg_value(a, CLG_ARG_OUTER_STRIDE,
                   plan->outer_dims == 1 ? (cl_ulong)plan->outer_stride[0]
                                         : 0);
    clg_parg_value(a, CLG_ARG_INNER_STRIDE,
                   plan->inner_dims == 1 ? (cl_ulong)plan->inner_stride[0]
                                         : 0);
    clg_parg_ref(a, CLG_ARG_OUTER_GEOM, CLG_RT_REF_NULL, 0);
    clg_parg_ref(a, CLG_ARG_INNER_GEOM, CLG_RT_REF_NULL, 0);
    clg_parg_value(a, CLG_ARG_STRIP_WIDTH, (cl_ulong)ch->strip_width);
    clg_parg_value(a, CLG_ARG_STRIPS, (cl_ulong)ch->strips);
    clg_parg_value(a, CLG_ARG_PREFETCH, prefetch);
    clg_parg_value(a, CLG_ARG_Z0, 0);
    if (plan->outer_dims > 1)
        st = geom_const(env, cp, plan->outer_dims, plan->outer_extent,
                        plan->outer_stride, a, CLG_ARG_OUTER_GEOM);
    if (st == CLG_STATUS_OK && plan->inner_dims > 1)
        st = geom_const(env, cp, plan->inner_dims, plan->inner_extent,
                        plan->inner_stride, a, CLG_ARG_INNER_GEOM);
    return st;
}

/* The packed walk over the whole tensors: per pass of ch->chunk strips, the
 * pack kernel copies them into the box's temporary, then the gather reads
 * them from it (in order on the queue). `a`: the gather's arguments; its
 * data becomes the temporary, the pack kernel's data stays the tensor. */
static clg_status packed_steps(const clg_plan_env *env, clg_call_plan *cp,
                               const clg_problem *p, const clg_plan *plan,
                               const clg_elements_choice *ch,
                               const clg_variant *v, clg_plan_args *a)
{
    clg_plan_args pa = *a; /* the pack kernel's data is the gather's */
    clg_variant pv = *v;
    int64_t total = plan->outer * ch->strips;
    size_t origin[3] = {0, 0, 0};
    size_t s_pack[3] = {(size_t)ch->strip_width, (size_t)plan->axis_size,
                        (size_t)ch->chunk};
    size_t s_gather[3] = {(size_t)ch->strip_width, (size_t)plan->n,
                          (size_t)ch->chunk};
    clg_geometry gp, gg;
    pv.entry = CLG_ENTRY_PACK_STRIPS;
    clg_parg_ref(&pa, CLG_ARG_PACK, CLG_RT_REF_TEMP, 0);
    clg_parg_ref(&pa, CLG_ARG_Z0, CLG_RT_REF_PASS, 0);
    clg_parg_ref(a, CLG_ARG_DATA, CLG_RT_REF_TEMP, 0);
    clg_parg_ref(a, CLG_ARG_Z0, CLG_RT_REF_PASS, 0);
    /* Each pass's geometry is this one's with dimension 2 at its
     * positions [z0, z0 + count) (host/execute.c). */
    clg_geometry_make_wg(env->dev, env->prm.wg,
                         clg_entries[CLG_ENTRY_PACK_STRIPS].dims, origin,
                         s_pack, &gp);
    clg_geometry_make_wg(env->dev, env->prm.wg, clg_entries[v->entry].dims,
                         origin, s_gather, &gg);
    cp->box->pass_total = total;
    cp->box->pass_chunk = ch->chunk;
    cp->box->temp_bytes = (size_t)ch->chunk * (size_t)plan->axis_size *
                          (size_t)ch->strip_width * p->elem_size;
    clg_status st = clg_call_plan_step(env, cp, &pv, &pa, &gp);
    return st == CLG_STATUS_OK ? clg_call_plan_step(env, cp, v, a, &gg) : st;
}

static clg_status elements_steps(const clg_plan_env *env, const clg_problem *p,
                                 const clg_plan *plan, const clg_box *box,
                                 int whole, int64_t out_len, clg_call_plan *cp)
{
    clg_geometry g;
    clg_param_values prm = env->prm;
    clg_elements_choice ch;
    clg_plan_args a;
    clg_plan_args_init(&a);
    const clg_device_facts *dev = env->dev;
    clg_elements_choose(p, plan, &prm, box, whole, dev->max_alloc, &ch);
    elements_geometry(dev, &prm, &ch, box, &g);
    /* The packed kernels take no padded x, the lean kernel no padded a. */
    if (ch.entry == CLG_ENTRY_ELEMENTS_PACKED &&
        g.global[0] != (size_t)ch.strip_width) {
        ch.entry = CLG_ENTRY_ELEMENTS_STRIPS;
        elements_geometry(dev, &prm, &ch, box, &g);
    }
    if (ch.entry == CLG_ENTRY_ELEMENTS_LEAN &&
        g.global[0] != (size_t)plan->n) {
        ch.entry = CLG_ENTRY_ELEMENTS_UNITS;
        ch.ahead = 0;
        elements_geometry(dev, &prm, &ch, box, &g);
    }
    clg_variant v = elements_variant(p, plan, ch.entry, whole);
    v.value[CLG_OPT_PREFETCH] = ch.entry == CLG_ENTRY_ELEMENTS_LEAN &&
                                prm.prefetch > 0;
    v.value[CLG_OPT_AHEAD] = ch.entry == CLG_ENTRY_ELEMENTS_LEAN ? ch.ahead
                                                                 : 0;
    if (ch.entry == CLG_ENTRY_ELEMENTS_LANES ||
        ch.entry == CLG_ENTRY_ELEMENTS_PACKED) {
        /* They prefetch ch.ahead rows ahead where the compiler takes
         * clang's built-ins, whatever `prefetch` says (that field is the
         * lean bodies' distance in positions). */
        v.value[CLG_OPT_PREFETCH] = env->builtins && ch.ahead > 0;
        prm.prefetch = ch.ahead;
    }
    v.value[CLG_OPT_NT] = (ch.entry == CLG_ENTRY_ELEMENTS_LEAN ||
                           ch.entry == CLG_ENTRY_ELEMENTS_PACKED) &&
                          prm.nt == 1;
    if (ch.entry == CLG_ENTRY_ELEMENTS_LANES)
        v.value[CLG_OPT_NT] =
            clg_elements_lanes_nt(env->builtins, prm.nt,
                                  (uint64_t)out_len * (uint64_t)plan->unit,
                                  dev->cache_bytes);
    clg_base_pargs(plan, &a);
    clg_status st = elements_args(env, cp, plan, prm.prefetch, &ch, &a);
    if (st != CLG_STATUS_OK)
        return st;
    return ch.entry == CLG_ENTRY_ELEMENTS_PACKED
               ? packed_steps(env, cp, p, plan, &ch, &v, &a)
               : clg_call_plan_step(env, cp, &v, &a, &g);
}

const clg_routine clg_gather_elements_routine = {elements_plan,
                                                 elements_footprint,
                                                 elements_steps};

/* GatherElements' row (docs/design.md, "Adding an operator"). */
const clg_op_desc clg_gather_elements_desc = {
    .attributes = clg_axis_rule,
    .infer = clg_gather_elements_infer,
    .components = clg_one_component,
    .ref_index = clg_gather_elements_ref_index,
    .ref_data = clg_gather_elements_ref_data,
    .index_window = CLG_WINDOW_OUTPUT,
    .in_place_align = CLG_ALIGN_ELEMENT,
    .routine = &clg_gather_elements_routine,
    .host = clg_gather_elements_host,
};
