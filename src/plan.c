/* SPDX-License-Identifier: Apache-2.0 */
/* Plan helpers shared by both operators (docs/design.md, "Plans"):
 * coalescing, offset width, work-group shapes. */
#include "op.h"

size_t clg_coalesce(int64_t *e, int64_t *st, size_t n)
{
    size_t m = 0;
    for (size_t k = 0; k < n; k++) {
        if (e[k] == 1)
            continue;
        e[m] = e[k];
        st[m] = st[k];
        m++;
    }
    if (m == 0)
        return 0;
    size_t out = 0;
    for (size_t k = 1; k < m; k++) {
        if (st[out] == e[k] * st[k]) {
            e[out] *= e[k];
            st[out] = st[k];
        } else {
            out++;
            e[out] = e[k];
            st[out] = st[k];
        }
    }
    return out + 1;
}

void clg_plan_offsets(clg_plan *plan, const clg_device_facts *dev)
{
    uint64_t biggest = (uint64_t)plan->data_units;
    if ((uint64_t)plan->out_units > biggest)
        biggest = (uint64_t)plan->out_units;
    if ((uint64_t)plan->index_count > biggest)
        biggest = (uint64_t)plan->index_count;
    /* On CPUs 64-bit offsets are native and measured faster (32-bit ones
     * cost a zero-extension per address; docs/design.md, "Plans", has the
     * figures), so the narrow variant is for GPUs only. */
    plan->wide_offsets = dev->plan_type != CLG_DEVICE_TYPE_GPU ||
                         biggest >= ((uint64_t)1 << 31);
}

clg_variant clg_plan_variant(clg_entry entry, const clg_problem *p,
                             const clg_plan *plan, int whole)
{
    clg_variant v = {entry, {0}};
    v.value[CLG_OPT_INDEX_BYTES] = (unsigned)p->index_size;
    v.value[CLG_OPT_OOB] = (unsigned)p->oob;
    v.value[CLG_OPT_UNIT] = (unsigned)plan->unit;
    v.value[CLG_OPT_WIDE] = (unsigned)plan->wide_offsets;
    v.value[CLG_OPT_WINDOWS] = !whole;
    if (clg_entries[entry].file == CLG_FILE_GATHER)
        v.value[CLG_OPT_SPAN] = 1;
    return v;
}

void clg_base_args(const clg_plan *plan, const clg_windows *w,
                   clg_base_scalars *sc, clg_args *a)
{
    static const clg_arg window_args[6] = {
        CLG_ARG_DATA_BASE, CLG_ARG_DATA_LEN, CLG_ARG_INDEX_BASE,
        CLG_ARG_INDEX_LEN, CLG_ARG_OUT_BASE, CLG_ARG_OUT_LEN};
    const int64_t win[6] = {w->data_base, w->data_len, w->index_base,
                            w->index_len, w->out_base, w->out_len};
    sc->n = (cl_ulong)plan->n;
    sc->axis_size = (cl_ulong)plan->axis_size;
    sc->inner = (cl_ulong)plan->inner;
    a->at[CLG_ARG_DATA] = clg_rt_mem_arg(&w->data, w->data_svm);
    a->at[CLG_ARG_INDICES] = clg_rt_mem_arg(&w->indices, w->indices_svm);
    a->at[CLG_ARG_OUT] = clg_rt_mem_arg(&w->output, w->output_svm);
    a->at[CLG_ARG_ERR] = CLG_RT_BUFFER(w->call->err);
    a->at[CLG_ARG_N] = CLG_RT_SCALAR(sc->n);
    a->at[CLG_ARG_AXIS_SIZE] = CLG_RT_SCALAR(sc->axis_size);
    a->at[CLG_ARG_INNER] = CLG_RT_SCALAR(sc->inner);
    for (int i = 0; i < 6; i++) {
        sc->win[i] = (cl_ulong)win[i];
        a->at[window_args[i]] = CLG_RT_SCALAR(sc->win[i]);
    }
}

/* Dims 0 and 1 take a group of about `target` work-items; dim 2 gets 1. */
static void pick_local(const clg_device_facts *dev, size_t target,
                       const size_t size[3], size_t local[3])
{
    if (target == 0)
        target = 1;
    if (target > dev->max_wg_size)
        target = dev->max_wg_size;
    size_t lx = size[0] < target ? size[0] : target;
    if (lx > dev->max_item_sizes[0])
        lx = dev->max_item_sizes[0];
    if (lx == 0)
        lx = 1;
    size_t ly = target / lx;
    if (ly > size[1])
        ly = size[1];
    if (ly > dev->max_item_sizes[1])
        ly = dev->max_item_sizes[1];
    if (ly == 0)
        ly = 1;
    /* Prefer a divisor of the rows (no padded work-items) when one is at
     * least half as large: 4 rows of 768 beat 5 with padding on POCL. */
    for (size_t d = ly; d > 1 && 2 * d >= ly; d--)
        if (size[1] % d == 0) {
            ly = d;
            break;
        }
    local[0] = lx;
    local[1] = ly;
    local[2] = 1;
}

void clg_geometry_make_wg(const clg_device_facts *dev, size_t wg,
                          unsigned dims, const size_t *origin,
                          const size_t *size, clg_geometry *g)
{
    size_t s[3] = {size[0], dims > 1 ? size[1] : 1, dims > 2 ? size[2] : 1};
    g->dims = dims;
    pick_local(dev, wg, s, g->local);
    for (int d = 0; d < 3; d++) {
        g->origin[d] = (unsigned)d < dims ? origin[d] : 0;
        g->global[d] = (s[d] + g->local[d] - 1) / g->local[d] * g->local[d];
    }
}

/* GPUs want about 256 work-items a group; POCL's CPU device runs a
 * work-group as loops on one thread, so bigger groups cut per-group
 * overhead (the routines take theirs from the device parameters). */
void clg_geometry_make(const clg_device_facts *dev, unsigned dims,
                       const size_t *origin, const size_t *size,
                       clg_geometry *g)
{
    size_t wg = dev->plan_type == CLG_DEVICE_TYPE_GPU ? 256 : 4096;
    clg_geometry_make_wg(dev, wg, dims, origin, size, g);
}
