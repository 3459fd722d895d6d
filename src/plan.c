/* Device plans (DESIGN section 3): Gather folded to [outer, s, inner] with
 * the widest unit that divides the contiguous inner block; GatherElements
 * with its off-axis dimensions coalesced. */
#include "internal.h"

#include <string.h>

/* Coalesces a run of dims (extent e[k], data stride st[k], outermost
 * first): drops extent-1 dims and merges a dim into its inner neighbour
 * when the neighbour is full (stride[k] == e[k+1] * stride[k+1]). Returns
 * the number of dims left. */
static size_t coalesce(int64_t *e, int64_t *st, size_t n)
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

void clg_plan_make(const clg_problem *p, size_t align, int cpu,
                   clg_plan *plan)
{
    memset(plan, 0, sizeof *plan);
    plan->op = p->op;
    plan->axis_size = p->axis_size;
    plan->index_count = p->index_count;

    int64_t outer = 1, inner = 1;
    for (size_t d = 0; d < p->axis; d++)
        outer *= p->data_shape[d];
    for (size_t d = p->axis + 1; d < p->data_rank; d++)
        inner *= p->data_shape[d];

    if (p->op == CLG_OP_GATHER) {
        /* The widest unit that divides the inner block in bytes and the
         * alignment of both base addresses. */
        uint64_t block = (uint64_t)inner * p->elem_size;
        size_t unit = 16;
        while (unit > 1 && (block % unit != 0 || align % unit != 0))
            unit /= 2;
        /* On CPU devices POCL vectorises the work-item loop over dimension
         * 0, but not over vector types (uint4), and the loop wants enough
         * work-items: the widest unit of at most 4 bytes that leaves a row
         * of 64 or more work-items (rows of 64 bytes or more) measured best (embedding rows of 3 KiB:
         * 4-byte units 1.8 ms, 8-byte 2.2 ms; 128-byte rows: 2-byte units
         * 2.4 ms, 8-byte 3.8 ms). */
        if (cpu) {
            if (unit > 4)
                unit = 4;
            while (unit > 1 && block >= 64 && block / unit < 64)
                unit /= 2;
        }
        plan->unit = unit;
        plan->outer = outer;
        plan->n = p->index_count;
        plan->inner = (int64_t)(block / unit);
        plan->data_units = (int64_t)((uint64_t)p->data_count * p->elem_size / unit);
        plan->out_units = (int64_t)((uint64_t)p->out_count * p->elem_size / unit);
    } else {
        int64_t dstride[CLG_MAX_RANK] = {0};
        int64_t s = 1;
        for (size_t d = p->data_rank; d-- > 0;) {
            dstride[d] = s;
            s *= p->data_shape[d];
        }
        plan->unit = p->elem_size;
        plan->axis_stride = dstride[p->axis];
        size_t no = p->axis, ni = p->data_rank - p->axis - 1;
        int64_t oo = 1, ii = 1;
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
        plan->outer_dims = coalesce(plan->outer_extent, plan->outer_stride, no);
        plan->inner_dims = coalesce(plan->inner_extent, plan->inner_stride, ni);
        plan->outer = oo;
        plan->n = p->index_shape[p->axis];
        plan->inner = ii;
        plan->data_units = p->data_count;
        plan->out_units = p->out_count;
        /* Strips of 1 KiB of columns: with the axis not innermost, each
         * work-item reads a random row, so a row's cache lines (and its
         * page's TLB entry) are reused only if every output row of a strip
         * is produced while the strip (s rows x 1 KiB) is cached. 1 KiB
         * measured best on POCL (64 B: 98 ms, 256 B: 70, 1 KiB: 66, 4 KiB:
         * 83 for the elements-axis0 workload). */
        int64_t width = (int64_t)(1024 / p->elem_size);
        if (cpu && width > 1 && ii > width && plan->n > 1)
            plan->strip_width = width;
    }
    /* 32-bit offsets only where every offset provably fits. */
    uint64_t biggest = (uint64_t)plan->data_units;
    if ((uint64_t)plan->out_units > biggest)
        biggest = (uint64_t)plan->out_units;
    if ((uint64_t)plan->index_count > biggest)
        biggest = (uint64_t)plan->index_count;
    /* On CPUs 64-bit offsets are native and measured faster (32-bit ones
     * cost a zero-extension per address: 12.6 vs 10.3 ms on the last-axis
     * Gather on POCL), so the narrow variant is for GPUs only. */
    plan->wide_offsets = cpu || biggest >= ((uint64_t)1 << 31);
}
