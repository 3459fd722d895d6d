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
     * the axis) and an int reaches every offset in a row (docs/design.md,
     * "Measured choices"). */
    if (ch->entry == CLG_ENTRY_ELEMENTS_LEAN && plan->axis_stride == 1 &&
        plan->n <= plan->axis_size && plan->axis_size <= INT32_MAX)
        ch->ahead = 2;
    /* Elements of at most 8 bytes in contiguous rows take the lanes body
     * instead, which prefetches row o + 2 (docs/design.md, "Measured
     * choices"). */
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
     * strips in place (docs/design.md, "Measured choices"); 16 rows of a
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
     * ahead (docs/design.md, "Measured choices"). */
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
         * most 64 (1,024 elements; docs/design.md, "Measured choices"). */
        size[2] = (size[1] + 15) / 16 * size[2];
        wg = wg < 64 ? wg : 64;
    }
    unsigned dims = clg_entries[ch->entry].dims;
    clg_geometry_make_wg(dev, wg, dims, origin + (3 - dims), size + (3 - dims),
                         g);
}

/* The (extent, stride) list of a ragged part in a small buffer:
 * [count, e0, st0, e1, st1, ...]. */
static clg_status geom_buffer(clg_context *ctx, size_t dims,
                              const int64_t *extent, const int64_t *stride,
                              cl_mem *out)
{
    cl_ulong g[1 + 2 * CLG_MAX_RANK];
    g[0] = dims;
    for (size_t k = 0; k < dims; k++) {
        g[1 + 2 * k] = (cl_ulong)extent[k];
        g[2 + 2 * k] = (cl_ulong)stride[k];
    }
    return clg_rt_const_buffer(ctx, g, (1 + 2 * dims) * sizeof(cl_ulong), out);
}

/* The arguments after the common ones (kernels/gather_elements.cl): their
 * values, which must outlive the launch. */
typedef struct elements_extra {
    cl_ulong axis_stride, outer_stride, inner_stride, strip_width, strips;
    cl_ulong prefetch, z0;
    cl_mem outer_geom, inner_geom;
} elements_extra;

static void elements_args(const clg_plan *plan, const clg_param_values *prm,
                          const clg_elements_choice *ch, elements_extra *x,
                          clg_args *a)
{
    x->prefetch = prm->prefetch;
    x->axis_stride = (cl_ulong)plan->axis_stride;
    x->outer_stride = plan->outer_dims == 1 ? (cl_ulong)plan->outer_stride[0]
                                            : 0;
    x->inner_stride = plan->inner_dims == 1 ? (cl_ulong)plan->inner_stride[0]
                                            : 0;
    x->strip_width = (cl_ulong)ch->strip_width;
    x->strips = (cl_ulong)ch->strips;
    a->at[CLG_ARG_AXIS_STRIDE] = CLG_RT_SCALAR(x->axis_stride);
    a->at[CLG_ARG_OUTER_STRIDE] = CLG_RT_SCALAR(x->outer_stride);
    a->at[CLG_ARG_INNER_STRIDE] = CLG_RT_SCALAR(x->inner_stride);
    a->at[CLG_ARG_OUTER_GEOM] = CLG_RT_BUFFER(x->outer_geom);
    a->at[CLG_ARG_INNER_GEOM] = CLG_RT_BUFFER(x->inner_geom);
    a->at[CLG_ARG_STRIP_WIDTH] = CLG_RT_SCALAR(x->strip_width);
    a->at[CLG_ARG_STRIPS] = CLG_RT_SCALAR(x->strips);
    a->at[CLG_ARG_PREFETCH] = CLG_RT_SCALAR(x->prefetch);
    a->at[CLG_ARG_Z0] = CLG_RT_SCALAR(x->z0);
}

/* The kernels of a launch: the walk's (k[0]), and for the packed walk
 * the pack kernel (k[1]). */
static clg_status elements_kernels(clg_context *ctx, const clg_variant *v,
                                   cl_kernel *k)
{
    clg_status st = clg_variant_kernel(ctx, v, &k[0]);
    if (st == CLG_STATUS_OK && v->entry == CLG_ENTRY_ELEMENTS_PACKED) {
        clg_variant pv = *v;
        pv.entry = CLG_ENTRY_PACK_STRIPS;
        st = clg_variant_kernel(ctx, &pv, &k[1]);
    }
    return st;
}

/* The packed walk over the whole tensors: per pass of ch->chunk strips, the
 * pack kernel (k[1]) copies them into one temporary buffer, then the
 * gather (k[0]) reads them from it (in order on the queue). `a`: the
 * gather's arguments; its data becomes the temporary, the pack kernel's
 * data stays the tensor. */
static clg_status packed_passes(clg_context *ctx, clg_rt_call *call,
                                const clg_problem *p, const clg_plan *plan,
                                const clg_param_values *prm,
                                const clg_elements_choice *ch,
                                const clg_variant *v, const cl_kernel *k,
                                clg_args *a, elements_extra *x)
{
    cl_mem pack_buf = NULL;
    cl_kernel pack = k[1], gather = k[0];
    clg_args pa = *a; /* the pack kernel's data is the gather's */
    int64_t total = plan->outer * ch->strips;
    size_t bytes = (size_t)ch->chunk * (size_t)plan->axis_size *
                   (size_t)ch->strip_width * p->elem_size;
    clg_status st = clg_rt_call_temp(call, bytes, &pack_buf);
    pa.at[CLG_ARG_PACK] = CLG_RT_BUFFER(pack_buf);
    a->at[CLG_ARG_DATA] = CLG_RT_BUFFER(pack_buf);
    for (int64_t z0 = 0; z0 < total && st == CLG_STATUS_OK; z0 += ch->chunk) {
        int64_t count = total - z0 < ch->chunk ? total - z0 : ch->chunk;
        size_t origin[3] = {0, 0, (size_t)z0};
        size_t s_pack[3] = {(size_t)ch->strip_width, (size_t)plan->axis_size,
                            (size_t)count};
        size_t s_gather[3] = {(size_t)ch->strip_width, (size_t)plan->n,
                              (size_t)count};
        clg_geometry gp, gg;
        x->z0 = (cl_ulong)z0;
        clg_geometry_make_wg(clg_rt_facts(ctx), prm->wg,
                             clg_entries[CLG_ENTRY_PACK_STRIPS].dims, origin,
                             s_pack, &gp);
        clg_geometry_make_wg(clg_rt_facts(ctx), prm->wg,
                             clg_entries[v->entry].dims, origin, s_gather,
                             &gg);
        st = clg_entry_launch(call, CLG_ENTRY_PACK_STRIPS, pack, &pa, &gp);
        if (st == CLG_STATUS_OK)
            st = clg_entry_launch(call, v->entry, gather, a, &gg);
    }
    clg_rt_release(&pack_buf);
    return st;
}

static clg_status elements_launch(clg_context *ctx, const clg_problem *p,
                                  const clg_plan *plan, const clg_box *box,
                                  const clg_windows *w)
{
    clg_geometry g;
    cl_kernel k[2] = {NULL, NULL};
    clg_base_scalars sc;
    clg_param_values prm;
    clg_elements_choice ch;
    elements_extra x = {0};
    clg_args a = {{{0}}};
    const clg_device_facts *dev = clg_rt_facts(ctx);
    int whole = clg_launch_is_whole(plan, box, w);
    clg_status st = clg_param_values_get(ctx, &prm);
    if (st != CLG_STATUS_OK)
        return st;
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
        v.value[CLG_OPT_PREFETCH] = clg_params_entry_of(ctx)->builtins &&
                                    ch.ahead > 0;
        prm.prefetch = ch.ahead;
    }
    v.value[CLG_OPT_NT] = (ch.entry == CLG_ENTRY_ELEMENTS_LEAN ||
                           ch.entry == CLG_ENTRY_ELEMENTS_PACKED) &&
                          prm.nt == 1;
    if (ch.entry == CLG_ENTRY_ELEMENTS_LANES)
        v.value[CLG_OPT_NT] =
            clg_elements_lanes_nt(clg_params_entry_of(ctx)->builtins, prm.nt,
                                  (uint64_t)w->out_len * (uint64_t)plan->unit,
                                  dev->cache_bytes);
    if ((st = elements_kernels(ctx, &v, k)) != CLG_STATUS_OK ||
        w->call->dry) /* a warm-up: the call's kernels, built */
        return st;
    if (plan->outer_dims > 1)
        st = geom_buffer(ctx, plan->outer_dims, plan->outer_extent,
                         plan->outer_stride, &x.outer_geom);
    if (st == CLG_STATUS_OK && plan->inner_dims > 1)
        st = geom_buffer(ctx, plan->inner_dims, plan->inner_extent,
                         plan->inner_stride, &x.inner_geom);
    if (st == CLG_STATUS_OK) {
        clg_base_args(plan, w, &sc, &a);
        elements_args(plan, &prm, &ch, &x, &a);
        st = ch.entry == CLG_ENTRY_ELEMENTS_PACKED
                 ? packed_passes(ctx, w->call, p, plan, &prm, &ch, &v, k, &a,
                                 &x)
                 : clg_entry_launch(w->call, v.entry, k[0], &a, &g);
    }
    /* Release is deferred by OpenCL until the enqueued kernel is done. */
    clg_rt_release(&x.outer_geom);
    clg_rt_release(&x.inner_geom);
    return st;
}

const clg_routine clg_gather_elements_routine = {elements_plan,
                                                 elements_footprint,
                                                 elements_launch};

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
