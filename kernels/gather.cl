/* SPDX-License-Identifier: Apache-2.0 */
/* ONNX Gather: out[o, j, c] = data[o, norm(indices[j]), c] over the plan
 * [outer, s, inner] (inner in units of CLG_UNIT bytes); docs/design.md,
 * "Kernels". Takes CLG_INDEX_BYTES, CLG_UNIT, CLG_WIDE, CLG_WINDOWS,
 * CLG_SPAN, CLG_PREFETCH, CLG_NT (the last three used by the lean bodies
 * only; `prefetch` is their distance) and CLG_OOB (every body: the
 * position an index selects is clg_position's; under fill a value with
 * none writes zero bytes, under raise it raises *err).
 *
 * Entry points (one work-item per output unit; their rows in the entry
 * table of src/variant.h say when a plan may use each; NDRange in global
 * coordinates, the host uses global work offsets for pieces; dimensions 0
 * and 1 are padded to whole work-groups and bounds-checked):
 *   clg_gather             (c, j, o)  inner > 1
 *   clg_gather_units       (j, o)     inner == 1
 *   clg_gather_lean        (c, j, o)  CPU devices, whole tensors, dim 0
 *                                     not padded: no branches, so that
 *                                     POCL vectorises the work-item loop;
 *                                     c counts spans of CLG_SPAN units
 *   clg_gather_units_lean  (j, o)     CPU devices, whole tensors, rows of
 *                                     one unit: the fewest operations
 *   clg_gather_lean_normed (c, j, o)  the same two, trusting `indices`:
 *   clg_gather_units_normed (j, o)    normalised int positions written by
 *                                     clg_normalize_indices (check.cl);
 *                                     built with CLG_INDEX_BYTES = 4
 *   clg_gather_fill_rows   (c, j, o)  fill, after clg_gather_lean_normed:
 *                                     zeroes piece c of each row of
 *                                     position -1
 *   clg_gather_rows        (j, o)     CPU devices, whole tensors: one
 *                                     work-item moves a whole row in
 *                                     spans of CLG_SPAN units
 *   clg_gather_units_spans (c, o)     CPU devices, rows of one unit,
 *                                     trusting `indices` like the normed
 *                                     two: c counts spans of CLG_SPAN
 *                                     units of output row o
 *
 * Windows (CLG_WINDOWS = 1, launches over pieces of split tensors): each
 * buffer holds one window of its tensor, [base, base + len) in units
 * (data, output) or elements (indices). A work-item whose data source lies
 * outside the data window writes nothing (another launch covers it); every
 * access is checked against its window, so no index value can move an
 * access outside a buffer. With CLG_WINDOWS = 0 (whole tensors) only the
 * output bound is checked: a valid index cannot leave the data buffer. */
#if !defined(CLG_UNIT) || !defined(CLG_WIDE) || !defined(CLG_WINDOWS) ||     \
    !defined(CLG_SPAN) || !defined(CLG_PREFETCH) || !defined(CLG_NT)
#error "gather.cl needs CLG_UNIT, CLG_WIDE, CLG_WINDOWS, CLG_SPAN, CLG_PREFETCH and CLG_NT"
#endif
#if CLG_SPAN != 1 && CLG_SPAN != 2 && CLG_SPAN != 4 && CLG_SPAN != 8 &&       \
    CLG_SPAN != 16
#error "CLG_SPAN must be 1, 2, 4, 8 or 16"
#endif
#if CLG_SPAN > 1 && (CLG_UNIT > 8 || CLG_SPAN * CLG_UNIT > 64 || CLG_WINDOWS)
#error "CLG_SPAN > 1: scalar units, at most 64 bytes, whole tensors"
#endif
#if defined(CLG_OUTER_DIMS) || defined(CLG_INNER_DIMS) || defined(CLG_AHEAD)
#error "CLG_OUTER_DIMS, CLG_INNER_DIMS and CLG_AHEAD are GatherElements options"
#endif

/* The kernels' pointers are restrict; the inline bodies' are not, so
 * that inlining a body adds no scoped no-alias declarations, which
 * Oclgrind cannot run; the kernel's own restrict covers the inlined
 * accesses (docs/design.md, "Kernels"). The kernels take their scalars as
 * one struct (src/variant.h, CLG_GATHER_SHAPE: the same fields in the same
 * order), which CLG_GATHER_UNPACK, first in each kernel, unpacks into
 * locals of the bodies' parameter names. */
typedef struct clg_gather_shape {
    ulong n, axis_size, inner, data_base, data_len, index_base, index_len,
        out_base, out_len, prefetch;
} clg_gather_shape;
#define CLG_GATHER_BUFFERS_Q(q)                                              \
    __global const clg_unit *q data,                                         \
        __global const clg_index *q indices,                                 \
        __global clg_unit *q out, __global volatile int *q err
#define CLG_GATHER_PARAMS                                                    \
    CLG_GATHER_BUFFERS_Q(restrict), clg_gather_shape shape
#define CLG_GATHER_BODY_PARAMS                                               \
    CLG_GATHER_BUFFERS_Q(), ulong n, ulong axis_size, ulong inner,           \
        ulong data_base, ulong data_len, ulong index_base, ulong index_len,  \
        ulong out_base, ulong out_len, ulong prefetch
#define CLG_GATHER_UNPACK                                                    \
    CLG_SHAPE_BASE_UNPACK, prefetch = shape.prefetch
#define CLG_GATHER_ARGS                                                      \
    data, indices, out, err, n, axis_size, inner, data_base, data_len,       \
        index_base, index_len, out_base, out_len, prefetch

/* The general body: one output unit at (c, j, o), every bound checked. */
inline void clg_gather_move(clg_off c, clg_off j, clg_off o,
                            CLG_GATHER_BODY_PARAMS)
{
    clg_off dst = (o * (clg_off)n + j) * (clg_off)inner + c - (clg_off)out_base;
#if CLG_WINDOWS
    clg_off ij = j - (clg_off)index_base;
    if (dst >= (clg_off)out_len || ij >= (clg_off)index_len)
        return;
#else
    clg_off ij = j;
    if (dst >= (clg_off)out_len)
        return;
#endif
    ulong v = clg_position(indices[ij], axis_size);
#if CLG_OOB == 0
    if (v == axis_size) {
        *err = 1;
        return;
    }
#elif CLG_OOB == 3
    if (v == axis_size) {
        out[dst] = (clg_unit)(0);
        return;
    }
#endif
    clg_off src = ((clg_off)(o * (clg_off)axis_size) + (clg_off)v) *
                      (clg_off)inner + c - (clg_off)data_base;
#if CLG_WINDOWS
    if (src < (clg_off)data_len)
#endif
        out[dst] = data[src];
}

__kernel void clg_gather(CLG_GATHER_PARAMS)
{
    CLG_GATHER_UNPACK;
    clg_off c = (clg_off)get_global_id(0);
    clg_off j = (clg_off)get_global_id(1);
    clg_off o = (clg_off)get_global_id(2);
    if (c >= inner || j >= n)
        return;
    clg_gather_move(c, j, o, CLG_GATHER_ARGS);
}

__kernel void clg_gather_units(CLG_GATHER_PARAMS)
{
    CLG_GATHER_UNPACK;
    clg_off j = (clg_off)get_global_id(0);
    clg_off o = (clg_off)get_global_id(1);
    if (j >= n)
        return;
    clg_gather_move(0, j, o, CLG_GATHER_ARGS);
}

/* The span one work-item of clg_gather_lean moves: CLG_SPAN units. */
#if CLG_SPAN == 1
typedef clg_unit clg_span_unit;
#define clg_span_load(p, i) ((p)[i])
#define clg_span_store(p, i, v) clg_store(&(p)[i], (v))
#else
typedef CLG_CAT(CLG_UNIT_SCALAR, CLG_SPAN) clg_span_unit;
#define clg_span_load(p, i) CLG_CAT(vload, CLG_SPAN)((i), (p))
#if CLG_NT
/* One non-temporal vector store of the whole span, which assumes an
 * address aligned to it: the host sets CLG_NT with spans only where the
 * output's base is aligned to CLG_SPAN * CLG_UNIT bytes (each span starts
 * a whole number of spans into it). Unit by unit instead measured 2.6 ms
 * against 1.1 on POCL's embedding (docs/decisions.md). */
#define clg_span_store(p, i, v)                                              \
    __builtin_nontemporal_store((v), (__global clg_span_unit *)(p) + (i))
#else
#define clg_span_store(p, i, v) CLG_CAT(vstore, CLG_SPAN)((v), (i), (p))
#endif
#endif

/* The span bodies' vector hint (OpenCL C 1.2 section 6.7.2): a work-item
 * already moves a vector of CLG_SPAN units. Intel's CPU compiler then
 * keeps one work-item a vector instead of vectorising across work-items,
 * which with the 3-D NDRange and the clip arithmetic turned its
 * whole-span non-temporal stores into a slower pattern
 * (docs/decisions.md); other compilers may ignore it. */
#if CLG_SPAN > 1
#define CLG_SPAN_HINT __attribute__((vec_type_hint(clg_span_unit)))
#else
#define CLG_SPAN_HINT
#endif

/* c counts spans of CLG_SPAN units. Rows padded in dimension 1 are clamped
 * onto the last row (they write the same bytes again); a bad index reads
 * row 0 and stores 1 to err[0], a good one to err[1] (a sink), which keeps
 * the store unconditional (under fill a bad index stores zero bytes, and
 * under wrap and clip none is bad). With CLG_PREFETCH, each work-item also
 * prefetches its span of the row `prefetch` index positions ahead. Every
 * access stays inside its buffer. */
CLG_SPAN_HINT __kernel void clg_gather_lean(CLG_GATHER_PARAMS)
{
    CLG_GATHER_UNPACK;
    clg_off c = (clg_off)get_global_id(0);
    clg_off j = min((clg_off)get_global_id(1), (clg_off)n - 1);
    clg_off o = (clg_off)get_global_id(2);
    ulong v = clg_position(indices[j], axis_size);
#if CLG_OOB == 0 || CLG_OOB == 3
    int bad = v == axis_size;
#if CLG_OOB == 0
    ((__global int *)err)[bad ? 0 : 1] = 1; /* not volatile: vectorisable */
#endif
    v = bad ? 0 : v;
#endif
    clg_off in_row = (clg_off)(o * (clg_off)axis_size);
#if CLG_PREFETCH
    clg_off jp = min(j + (clg_off)prefetch, (clg_off)n - 1);
    ulong vp = clg_position(indices[jp], axis_size);
    vp = vp == axis_size ? 0 : vp;
    clg_prefetch(data + (in_row + (clg_off)vp) * (clg_off)inner +
                 c * CLG_SPAN);
#endif
    clg_span_unit u = clg_span_load(
        data + (in_row + (clg_off)v) * (clg_off)inner, c);
#if CLG_OOB == 3
    u = bad ? (clg_span_unit)(0) : u;
#endif
    clg_span_store(out + (o * (clg_off)n + j) * (clg_off)inner, c, u);
}

/* With CLG_PREFETCH, work-item j prefetches line j of the data row
 * `prefetch` outer rows ahead (clamped into the tensor). */
__kernel void clg_gather_units_lean(CLG_GATHER_PARAMS)
{
    CLG_GATHER_UNPACK;
    clg_off j = (clg_off)get_global_id(0);
    clg_off o = (clg_off)get_global_id(1);
    clg_off dst = o * (clg_off)n + j;
    if (j >= n || dst >= (clg_off)out_len)
        return;
#if CLG_PREFETCH
    clg_off line = min(j * (64 / CLG_UNIT), (clg_off)axis_size - 1);
    clg_prefetch(data + min((o + (clg_off)prefetch) * (clg_off)axis_size +
                                line,
                            (clg_off)data_len - 1));
#endif
    ulong v = clg_position(indices[j], axis_size);
#if CLG_OOB == 0
    if (v == axis_size) {
        *err = 1;
        return;
    }
#elif CLG_OOB == 3
    if (v == axis_size) {
        clg_store(&out[dst], (clg_unit)(0));
        return;
    }
#endif
    clg_store(&out[dst], data[o * (clg_off)axis_size + (clg_off)v]);
}

/* The trusted bodies. `indices` holds positions in [0, s) that
 * clg_normalize_indices wrote (or, for clg_gather_units_normed, GatherND's
 * clg_gather_nd_positions: INT_MIN under fill, read as -1 is), so no
 * work-item checks or normalises.
 * Dimension 0 fills its work-groups exactly and is used unclamped: POCL
 * then vectorises the work-item loop with contiguous index loads and
 * output stores (a clamp or a branch there makes it scatter, or stay
 * scalar: docs/decisions.md). Padded rows (dimension 1)
 * are clamped onto the last one and write the same bytes again. Under
 * fill a position of -1 (none) reads row 0: the units body stores zero
 * bytes instead; the rows body copies row 0, and clg_gather_fill_rows,
 * launched after it, zeroes those rows (zeroing a span here makes POCL
 * vectorise over rows, with gathers and scatters: docs/decisions.md). */
CLG_SPAN_HINT __kernel void clg_gather_lean_normed(CLG_GATHER_PARAMS)
{
    CLG_GATHER_UNPACK;
    clg_off c = (clg_off)get_global_id(0);
    clg_off j = min((clg_off)get_global_id(1), (clg_off)n - 1);
    clg_off o = (clg_off)get_global_id(2);
#if CLG_OOB == 3
    clg_off row = (clg_off)(o * (clg_off)axis_size) +
                  (clg_off)max(indices[j], (clg_index)0);
#else
    clg_off row = (clg_off)(o * (clg_off)axis_size) + (clg_off)indices[j];
#endif
    clg_span_unit u = clg_span_load(data + row * (clg_off)inner, c);
    clg_span_store(out + (o * (clg_off)n + j) * (clg_off)inner, c, u);
}

/* The trusted units body by spans: rows of one unit (the last axis) on
 * CPU plans, after clg_normalize_indices, n a multiple of CLG_SPAN and
 * dimension 0 launched exactly. Work-item (c, o) moves output units
 * [c * CLG_SPAN, (c + 1) * CLG_SPAN) of row o, each read from data row o
 * (a row of a few KiB stays in L1 while its work-items run), as one
 * vector store, non-temporal with CLG_NT (the host checks the output's
 * alignment to the span); with CLG_PREFETCH it also prefetches line c of
 * data row o + `prefetch` (clamped into the tensor). Under fill a position
 * of -1 reads row 0 and stores zero bytes. Padded rows (dimension 1) are
 * clamped onto the last one and write the same bytes again. */
CLG_SPAN_HINT __kernel void clg_gather_units_spans(CLG_GATHER_PARAMS)
{
    CLG_GATHER_UNPACK;
    clg_off c = (clg_off)get_global_id(0);
    clg_off o = min((clg_off)get_global_id(1), (clg_off)(out_len / n) - 1);
    __global const clg_unit *row = data + o * (clg_off)axis_size;
    __global const clg_index *pos = indices + c * CLG_SPAN;
#if CLG_PREFETCH
    clg_off line = min(c * (64 / CLG_UNIT), (clg_off)axis_size - 1);
    clg_prefetch(data + min((o + (clg_off)prefetch) * (clg_off)axis_size +
                                line,
                            (clg_off)data_len - 1));
#endif
    clg_unit lane[CLG_SPAN];
    for (int k = 0; k < CLG_SPAN; k++) {
#if CLG_OOB == 3
        clg_index p = pos[k];
        clg_unit u = row[max(p, (clg_index)0)];
        lane[k] = p < 0 ? (clg_unit)(0) : u;
#else
        lane[k] = row[pos[k]];
#endif
    }
    clg_span_unit u = clg_span_load(lane, 0);
    clg_span_store(out + o * (clg_off)n, c, u);
}

/* Fill, after clg_gather_lean_normed: work-item (c, j, o) zeroes piece c
 * of output row (o, j) when position j is -1 (none), and does nothing
 * otherwise, so its cost is the rows it zeroes. Pieces of ceil(inner /
 * global size 0) units, which the host keeps at CLG_FILL_PIECE units or
 * fewer (src/op.h): Mesa's llvmpipe (Rusticl) ends a work-item's loop
 * after 65535 iterations, so one work-item per row left longer rows
 * partly unzeroed (docs/design.md, "Kernels"). */
__kernel void clg_gather_fill_rows(CLG_GATHER_PARAMS)
{
    CLG_GATHER_UNPACK;
    clg_off pieces = (clg_off)get_global_size(0);
    clg_off per = ((clg_off)inner + pieces - 1) / pieces;
    clg_off c0 = (clg_off)get_global_id(0) * per;
    clg_off j = (clg_off)get_global_id(1);
    clg_off o = (clg_off)get_global_id(2);
    clg_off dst = (o * (clg_off)n + j) * (clg_off)inner;
    if (j >= n || c0 >= (clg_off)inner || dst >= (clg_off)out_len ||
        indices[j] >= 0)
        return;
    clg_off end = min(c0 + per, (clg_off)inner);
    for (clg_off c = c0; c < end; c++)
        out[dst + c] = (clg_unit)(0);
}

__kernel void clg_gather_units_normed(CLG_GATHER_PARAMS)
{
    CLG_GATHER_UNPACK;
    clg_off j = (clg_off)get_global_id(0);
    clg_off o = min((clg_off)get_global_id(1),
                    (clg_off)(out_len / n) - 1);
#if CLG_OOB == 3
    int bad = indices[j] < 0;
    clg_unit u = data[o * (clg_off)axis_size + (clg_off)(bad ? 0 : indices[j])];
    clg_store(&out[o * (clg_off)n + j], bad ? (clg_unit)(0) : u);
#else
    clg_store(&out[o * (clg_off)n + j],
              data[o * (clg_off)axis_size + (clg_off)indices[j]]);
#endif
}

/* One work-item per row (j, o), dimension 0 padded: it moves the row's
 * `inner` units in spans of CLG_SPAN units (inner a whole number of
 * spans), and with CLG_PREFETCH prefetches, span by span, the row
 * `prefetch` index positions ahead (clamped into the indices). A loop over
 * one contiguous row instead of one work-item per span: the compilers
 * vectorise across work-items no further than the span, and each row's
 * source and destination stream (docs/decisions.md, "GatherND: row
 * slices by the row"). Under raise a bad index raises *err and writes
 * nothing; under fill its row is zero bytes. */
CLG_SPAN_HINT __kernel void clg_gather_rows(CLG_GATHER_PARAMS)
{
    CLG_GATHER_UNPACK;
    clg_off j = (clg_off)get_global_id(0);
    clg_off o = (clg_off)get_global_id(1);
    if (j >= (clg_off)n)
        return;
    clg_off spans = (clg_off)inner / CLG_SPAN;
    __global clg_unit *dst = out + (o * (clg_off)n + j) * (clg_off)inner;
    ulong v = clg_position(indices[j], axis_size);
    if (v == axis_size) {
#if CLG_OOB == 0
        *err = 1;
#elif CLG_OOB == 3
        for (clg_off c = 0; c < spans; c++)
            clg_span_store(dst, c, (clg_span_unit)(0));
#endif
        return;
    }
    clg_off in_row = (clg_off)(o * (clg_off)axis_size);
    __global const clg_unit *src = data + (in_row + (clg_off)v) *
                                              (clg_off)inner;
#if CLG_PREFETCH
    clg_off jp = min(j + (clg_off)prefetch, (clg_off)n - 1);
    ulong vp = clg_position(indices[jp], axis_size);
    vp = vp == axis_size ? 0 : vp;
    __global const clg_unit *ahead = data + (in_row + (clg_off)vp) *
                                                (clg_off)inner;
#else
    (void)prefetch;
#endif
    for (clg_off c = 0; c < spans; c++) {
#if CLG_PREFETCH
        clg_prefetch(ahead + c * CLG_SPAN);
#endif
        clg_span_store(dst, c, clg_span_load(src, c));
    }
}
