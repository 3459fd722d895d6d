/* SPDX-License-Identifier: Apache-2.0 */
/* ONNX GatherElements: out[p] = data[p with p[axis] = norm(indices[p])];
 * docs/design.md, "Kernels". Takes CLG_INDEX_BYTES, CLG_UNIT, CLG_WIDE,
 * CLG_WINDOWS, CLG_OUTER_DIMS, CLG_INNER_DIMS, CLG_PREFETCH, CLG_NT and
 * CLG_AHEAD (these three in the lean body; CLG_NT also in the packed one)
 * and CLG_OOB (every body, as in gather.cl).
 *
 * Output and indices are [outer, n, inner]; the data offset of position
 * (o, a, c) is  outer_off(o) + norm(idx) * axis_stride + inner_off(c).
 * CLG_OUTER_DIMS / CLG_INNER_DIMS: 0 (absent), 1 (one stride), 2 (ragged:
 * a list of (extent, stride) pairs in a geometry buffer).
 *
 * Entry points (one work-item per output element but the lanes body's; their rows in the entry
 * table of src/variant.h say when a plan may use each):
 *   clg_gather_elements         (c, a, o)   inner > 1
 *   clg_gather_elements_units   (a, o)      inner == 1
 *   clg_gather_elements_strips  (x, a, o * strips + strip), with
 *                               c = strip * strip_width + x, so that
 *                               consecutive work-groups walk every output
 *                               row of one strip of columns while that
 *                               strip of data is in cache (GPUs, and CPU
 *                               launches that cannot pack)
 *   clg_pack_strips, clg_gather_elements_packed
 *                               CPU devices: a strip packed contiguously,
 *                               then gathered from (see below)
 *   clg_gather_elements_lean    (a, o)      CPU devices, whole tensors,
 *                               inner == 1, at most one outer stride,
 *                               dimension 0 filling its work-groups
 *                               exactly (see below)
 *   clg_gather_elements_lanes   (o * ceil(n / 16) + a / 16)  as the lean
 *                               body, 16 consecutive elements of a row
 *                               per work-item, elements of at most 8
 *                               bytes (see below)
 *
 * Windows (CLG_WINDOWS): as in gather.cl; indices share the output's
 * positions. */
#if !defined(CLG_UNIT) || !defined(CLG_WIDE) || !defined(CLG_WINDOWS) ||     \
    !defined(CLG_OUTER_DIMS) || !defined(CLG_INNER_DIMS) ||                  \
    !defined(CLG_PREFETCH) || !defined(CLG_NT) || !defined(CLG_AHEAD)
#error "gather_elements.cl needs CLG_UNIT, CLG_WIDE, CLG_WINDOWS, CLG_OUTER_DIMS, CLG_INNER_DIMS, CLG_PREFETCH, CLG_NT and CLG_AHEAD"
#endif
#if CLG_AHEAD != 0 && CLG_AHEAD != 2
#error "CLG_AHEAD must be 0 or 2"
#endif
#ifdef CLG_SPAN
#error "CLG_SPAN is a Gather option"
#endif
#if CLG_OUTER_DIMS < 0 || CLG_OUTER_DIMS > 2 || CLG_INNER_DIMS < 0 ||        \
    CLG_INNER_DIMS > 2
#error "CLG_OUTER_DIMS and CLG_INNER_DIMS must be 0, 1 or 2"
#endif

#if CLG_OUTER_DIMS == 2 || CLG_INNER_DIMS == 2
/* geom: [count, e0, st0, e1, st1, ...]; the last pair is the innermost. */
inline clg_off clg_ragged_offset(__global const ulong *geom, clg_off pos)
{
    clg_off off = 0;
    for (ulong k = geom[0]; k > 0; k--) {
        clg_off e = (clg_off)geom[2 * k - 1];
        clg_off q = pos / e;
        off += (pos - q * e) * (clg_off)geom[2 * k];
        pos = q;
    }
    return off;
}
#endif

/* The kernels' pointers are restrict; the inline bodies' are not, so
 * that inlining a body adds no scoped no-alias declarations, which
 * Oclgrind cannot run; the kernel's own restrict covers the inlined
 * accesses (docs/design.md, "Kernels"). The kernels take their scalars as
 * one struct (src/variant.h, CLG_ELEMENTS_SHAPE: the same fields in the
 * same order), which CLG_ELEMENTS_UNPACK, first in each kernel, unpacks
 * into locals of the bodies' parameter names. */
typedef struct clg_elements_shape {
    ulong n, axis_size, inner, data_base, data_len, index_base, index_len,
        out_base, out_len, axis_stride, outer_stride, inner_stride,
        strip_width, strips, prefetch, z0;
} clg_elements_shape;
#define CLG_ELEMENTS_BUFFERS_Q(q)                                            \
    __global const clg_unit *q data,                                         \
        __global const clg_index *q indices,                                 \
        __global clg_unit *q out, __global volatile int *q err
#define CLG_ELEMENTS_PARAMS                                                  \
    CLG_ELEMENTS_BUFFERS_Q(restrict),                                        \
        __global const ulong *restrict outer_geom,                           \
        __global const ulong *restrict inner_geom, clg_elements_shape shape
#define CLG_ELEMENTS_BODY_PARAMS                                             \
    CLG_ELEMENTS_BUFFERS_Q(), ulong n, ulong axis_size, ulong inner,         \
        ulong data_base, ulong data_len, ulong index_base, ulong index_len,  \
        ulong out_base, ulong out_len, ulong axis_stride,                    \
        ulong outer_stride, ulong inner_stride,                              \
        __global const ulong *outer_geom, __global const ulong *inner_geom,  \
        ulong strip_width, ulong strips, ulong prefetch
#define CLG_ELEMENTS_UNPACK                                                  \
    CLG_SHAPE_BASE_UNPACK, axis_stride = shape.axis_stride,                  \
                outer_stride = shape.outer_stride,                           \
                inner_stride = shape.inner_stride,                           \
                strip_width = shape.strip_width, strips = shape.strips,      \
                prefetch = shape.prefetch, z0 = shape.z0
#define CLG_ELEMENTS_ARGS                                                    \
    data, indices, out, err, n, axis_size, inner, data_base, data_len,       \
        index_base, index_len, out_base, out_len, axis_stride, outer_stride, \
        inner_stride, outer_geom, inner_geom, strip_width, strips, prefetch

/* For the bodies that read data whatever the index (packed, lean, lanes):
 * the position index value v selects on an axis of s elements, and 0 where
 * it selects none (raise, fill), with *bad set there. Under raise it also
 * sets the error slot: a plain store, not volatile, so that the compilers
 * can vectorise the work-item loop around it. CLG_FILLED(bad, u) is the
 * element such a body stores: zero where *bad under fill, else u. */
inline ulong clg_read_position(clg_index v, ulong s, __global int *err, int *bad)
{
    ulong p = clg_position(v, s);
#if CLG_OOB == 0 || CLG_OOB == 3
    *bad = p == s;
#if CLG_OOB == 0
    if (*bad)
        err[0] = 1;
#endif
    return *bad ? 0 : p;
#else
    *bad = 0;
    return p;
#endif
}
#if CLG_INDEX_BYTES == 4
/* clg_read_position for an int index value on an axis of s <= INT_MAX
 * elements, in 32-bit arithmetic (the same result): a vectorised body
 * keeps its lanes 32 bits wide (docs/decisions.md). */
inline int clg_read_position_int(int v, int s, __global int *err, int *bad)
{
#if CLG_OOB == 1
    int r = v % s; /* truncates toward zero: r in (-s, s) */
    *bad = 0;
    return r < 0 ? r + s : r;
#elif CLG_OOB == 2
    int t = v < -s ? -s : v >= s ? s - 1 : v;
    *bad = 0;
    return t < 0 ? t + s : t;
#else
    int p = v < 0 ? v + s : v; /* no overflow: v + s only for v < 0 */
    *bad = (uint)p >= (uint)s;
#if CLG_OOB == 0
    if (*bad)
        err[0] = 1;
#endif
    return *bad ? 0 : p;
#endif
}
#endif
#if CLG_OOB == 3
#define CLG_FILLED(bad, u) ((bad) ? (clg_unit)(0) : (u))
#else
#define CLG_FILLED(bad, u) (u)
#endif

/* The general body: one output element at (c, a, o), every bound checked. */
inline void clg_gather_elements_move(clg_off c, clg_off a, clg_off o,
                                     CLG_ELEMENTS_BODY_PARAMS)
{
    clg_off pos = (o * (clg_off)n + a) * (clg_off)inner + c;
    clg_off dst = pos - (clg_off)out_base;
#if CLG_WINDOWS
    clg_off ip = pos - (clg_off)index_base;
    if (dst >= (clg_off)out_len || ip >= (clg_off)index_len)
        return;
#else
    clg_off ip = pos;
    if (dst >= (clg_off)out_len)
        return;
#endif
    ulong v = clg_position(indices[ip], axis_size);
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
    clg_off src = (clg_off)v * (clg_off)axis_stride;
#if CLG_OUTER_DIMS == 1
    src += o * (clg_off)outer_stride;
#elif CLG_OUTER_DIMS == 2
    src += clg_ragged_offset(outer_geom, o);
#endif
#if CLG_INNER_DIMS == 1
    src += c * (clg_off)inner_stride;
#elif CLG_INNER_DIMS == 2
    src += clg_ragged_offset(inner_geom, c);
#endif
    src -= (clg_off)data_base;
#if CLG_WINDOWS
    if (src < (clg_off)data_len)
#endif
        out[dst] = data[src];
}

__kernel void clg_gather_elements(CLG_ELEMENTS_PARAMS)
{
    CLG_ELEMENTS_UNPACK;
    clg_off c = (clg_off)get_global_id(0);
    clg_off a = (clg_off)get_global_id(1);
    clg_off o = (clg_off)get_global_id(2);
    if (c >= inner || a >= n)
        return;
    clg_gather_elements_move(c, a, o, CLG_ELEMENTS_ARGS);
}

__kernel void clg_gather_elements_units(CLG_ELEMENTS_PARAMS)
{
    CLG_ELEMENTS_UNPACK;
    clg_off a = (clg_off)get_global_id(0);
    clg_off o = (clg_off)get_global_id(1);
    if (a >= n)
        return;
    clg_gather_elements_move(0, a, o, CLG_ELEMENTS_ARGS);
}

__kernel void clg_gather_elements_strips(CLG_ELEMENTS_PARAMS)
{
    CLG_ELEMENTS_UNPACK;
    clg_off z = (clg_off)get_global_id(2);
    clg_off o = z / (clg_off)strips;
    clg_off c = (z - o * (clg_off)strips) * (clg_off)strip_width +
                (clg_off)get_global_id(0);
    clg_off a = (clg_off)get_global_id(1);
    if (c >= inner || a >= n)
        return;
    clg_gather_elements_move(c, a, o, CLG_ELEMENTS_ARGS);
}

/* Packed strips (docs/design.md, "Kernels"): a pass covers strips
 * z0 .. z0 + count - 1 (z = o * strips + strip). clg_pack_strips copies
 * each strip's s rows of strip_width elements into pack[z - z0][r][x]; then
 * clg_gather_elements_packed gathers from there while it is cached. One
 * work-item per element written, both NDRanges (x, r or a, z). Whole
 * tensors only, strip_width divides inner, and the inner stride is 1 (a
 * row of a strip is contiguous in data, so clg_pack_strips takes no inner
 * stride): with no bound on x and no stride to multiply it by, POCL and
 * Intel's compiler both vectorise the work-item loop over x with
 * contiguous loads and stores (rows padded in dimension 1 are clamped
 * onto the last row). */
__kernel void clg_pack_strips(__global const clg_unit *restrict data,
                              __global clg_unit *restrict pack,
                              clg_elements_shape shape)
{
    CLG_ELEMENTS_UNPACK;
    clg_off x = (clg_off)get_global_id(0);
    clg_off r = min((clg_off)get_global_id(1), (clg_off)axis_size - 1);
    clg_off z = (clg_off)get_global_id(2);
    clg_off o = z / (clg_off)strips;
    clg_off c = (z - o * (clg_off)strips) * (clg_off)strip_width + x;
    pack[((z - (clg_off)z0) * (clg_off)axis_size + r) * (clg_off)strip_width +
         x] = data[o * (clg_off)outer_stride + r * (clg_off)axis_stride + c];
}

/* `data` is the pack buffer of the pass that starts at strip z0.
 * CLG_PREFETCH=1: the work-item also prefetches its element of indices and
 * of the output `prefetch` rows ahead (clamped to the last row): a row of
 * a strip is a short run at a long stride, which the hardware prefetcher
 * does not follow (docs/decisions.md). */
__kernel void clg_gather_elements_packed(CLG_ELEMENTS_PARAMS)
{
    CLG_ELEMENTS_UNPACK;
    clg_off x = (clg_off)get_global_id(0);
    clg_off a = min((clg_off)get_global_id(1), (clg_off)n - 1);
    clg_off z = (clg_off)get_global_id(2);
    clg_off o = z / (clg_off)strips;
    clg_off c = (z - o * (clg_off)strips) * (clg_off)strip_width + x;
    clg_off pos = (o * (clg_off)n + a) * (clg_off)inner + c;
#if CLG_PREFETCH
    clg_off ahead =
        pos + (min(a + (clg_off)prefetch, (clg_off)n - 1) - a) * (clg_off)inner;
    clg_prefetch(indices + ahead);
    clg_prefetch(out + ahead);
#endif
    int bad;
    /* The host launches it only where a strip has at most INT_MAX
     * elements: an int offset into the strip lets the compilers use
     * 32-bit-indexed vector gathers (docs/decisions.md). */
#if CLG_INDEX_BYTES == 4
    int v = clg_read_position_int(indices[pos], (int)axis_size,
                                  (__global int *)err, &bad);
#else
    ulong v = clg_read_position(indices[pos], axis_size,
                                (__global int *)err, &bad);
#endif
    __global const clg_unit *strip_base =
        data + (z - (clg_off)z0) * (clg_off)axis_size * (clg_off)strip_width;
    clg_unit u = strip_base[(int)v * (int)strip_width + (int)get_global_id(0)];
    clg_store(&out[pos], CLG_FILLED(bad, u));
}

/* No branch on the work-item's position and no clamp on dimension 0 (the
 * host launches it only when dimension 0 is exactly n), and the error
 * store is the only conditional: POCL then vectorises the work-item loop
 * with contiguous index loads and output stores (docs/decisions.md).
 * Padded outer rows are clamped onto the last one and write the same
 * bytes again; a bad index reads the row's first element.
 * CLG_AHEAD=2 (rows contiguous: axis_stride 1; n <= axis_size <= INT_MAX):
 * work-item a also reads element a of data row o + 2 (clamped to the last
 * row), a contiguous load the hardware prefetcher follows, so that row o +
 * 2 is in cache when its own work-items gather from it in random order;
 * and the gather takes an int offset into the row, which lets the
 * compilers use 32-bit-indexed vector gathers. The read-ahead value is
 * kept by a select on a = n, which never holds (a < n) but which no
 * compiler can rule out. */
__kernel void clg_gather_elements_lean(CLG_ELEMENTS_PARAMS)
{
    CLG_ELEMENTS_UNPACK;
    clg_off a = (clg_off)get_global_id(0);
    clg_off o = min((clg_off)get_global_id(1), (clg_off)(out_len / n) - 1);
    clg_off pos = o * (clg_off)n + a;
    int bad;
    ulong v = clg_read_position(indices[pos], axis_size,
                                (__global int *)err, &bad);
#if CLG_PREFETCH
    /* Line a of the data row `prefetch` outer rows ahead, in the tensor. */
    clg_off line = min(a * (64 / CLG_UNIT), (clg_off)axis_size - 1);
    clg_prefetch(data + min((o + (clg_off)prefetch) * (clg_off)outer_stride +
                                line * (clg_off)axis_stride,
                            (clg_off)data_len - 1));
#endif
#if CLG_AHEAD
    clg_off ahead = min(o + CLG_AHEAD, (clg_off)(out_len / n) - 1);
    clg_unit t = data[ahead * (clg_off)outer_stride + a];
    clg_unit u = (data + o * (clg_off)outer_stride)[(int)v];
    u = a == (clg_off)n ? t : u;
#else
    clg_unit u = data[o * (clg_off)outer_stride +
                      (clg_off)v * (clg_off)axis_stride];
#endif
    clg_store(&out[pos], CLG_FILLED(bad, u));
}

/* The lanes body: work-item t = o * groups + g, with groups = ceil(n /
 * 16), moves elements 16g to 16g + 15 of output row o as vectors: one
 * vload16 of their indices, their positions and checks in vector
 * arithmetic, one conditional error store for the sixteen, sixteen loads
 * of data at int offsets and one vstore16. The compilers keep these
 * vectors as written (POCL's work-item loop stays scalar around them) and
 * gather with 32-bit offsets. The NDRange is one-dimensional so that a
 * work-group spans rows whatever their width: Intel's CPU runtime ran
 * two-dimensional groups of several rows 1.5-3x slower, and POCL one-row
 * groups of narrow rows slower (docs/decisions.md). The
 * host launches it only where rows are contiguous in data (axis_stride 1),
 * the axis is at most INT_MAX long and elements are at most 8 bytes (with
 * 16-byte ones every work-item takes the loop below). The last work-item
 * of a row takes its remaining elements one by one, a work-item past the
 * row does nothing, and so do those past the last row (padding). A bad
 * index reads the row's first element.
 * CLG_PREFETCH=1: before it gathers, the work-item prefetches the lines of
 * its own elements in data row o + `prefetch` (clamped to the last row
 * and the row's end), so that when the work-items of that row gather from
 * it in random order its lines are in cache; with 4-byte elements the
 * work-items of a row prefetch each line of the row once. */
#define CLG_LANES 16
#if CLG_UNIT <= 8
#define CLG_UNIT16 CLG_CAT(CLG_UNIT_SCALAR, 16)
typedef CLG_UNIT16 clg_unit16;

#if CLG_INDEX_BYTES == 4
typedef int16 clg_index16;
#else
typedef long16 clg_index16;
#endif

/* The positions clg_position gives, sixteen at a time; *bad: -1 in the
 * lanes whose value selects none (raise, fill). As in clg_position, the
 * sign of an index is tested in its own width (x < 0) and the range as
 * unsigned, never by comparing its widened value. */
inline long16 clg_positions16(clg_index16 x, long s, long16 *bad)
{
    long16 v = convert_long16(x);
    long16 neg = convert_long16(x < 0); /* -1 where the index is negative */
#if CLG_OOB == 1
    long16 r = v % s; /* r < 0 exactly where v < 0 and r != 0 */
    *bad = (long16)(0);
    return r + (neg & (r != (long16)(0)) & (long16)(s));
#elif CLG_OOB == 2
    long16 n = v + (neg & (long16)(s));
    long16 out = as_ulong16(n) >= (ulong16)((ulong)s);
    *bad = (long16)(0);
    /* Outside [-s, s-1]: 0 below, s - 1 above. */
    return select(n, ~neg & (long16)(s - 1), out);
#else
    long16 n = v + (neg & (long16)(s));
    *bad = as_ulong16(n) >= (ulong16)((ulong)s);
    return select(n, (long16)(0), *bad);
#endif
}

#define CLG_ROW16(r, w)                                                      \
    ((clg_unit16)((r)[(w).s0], (r)[(w).s1], (r)[(w).s2], (r)[(w).s3],       \
                  (r)[(w).s4], (r)[(w).s5], (r)[(w).s6], (r)[(w).s7],       \
                  (r)[(w).s8], (r)[(w).s9], (r)[(w).sa], (r)[(w).sb],       \
                  (r)[(w).sc], (r)[(w).sd], (r)[(w).se], (r)[(w).sf]))
#endif

__kernel void clg_gather_elements_lanes(CLG_ELEMENTS_PARAMS)
{
    CLG_ELEMENTS_UNPACK;
    clg_off groups = ((clg_off)n + CLG_LANES - 1) / CLG_LANES;
    clg_off t = (clg_off)get_global_id(0);
    clg_off o = t / groups;
    clg_off a = (t - o * groups) * CLG_LANES;
    if (o >= (clg_off)(out_len / n))
        return; /* padding */
    clg_off pos = o * (clg_off)n;
    __global const clg_unit *row = data + o * (clg_off)outer_stride;
#if CLG_PREFETCH
    clg_off ahead = min(o + (clg_off)prefetch, (clg_off)(out_len / n) - 1);
    for (clg_off k = 0; k < CLG_LANES * CLG_UNIT; k += 64)
        clg_prefetch(data + min(ahead * (clg_off)outer_stride +
                                    min(a + k / CLG_UNIT,
                                        (clg_off)axis_size - 1),
                                (clg_off)data_len - 1));
#endif
#if CLG_UNIT <= 8 /* the host keeps 16-byte elements off this body */
    if (a + CLG_LANES <= (clg_off)n) {
        long16 bad;
        clg_index16 v = vload16(0, indices + pos + a);
        int16 w = convert_int16(clg_positions16(v, (long)axis_size, &bad));
#if CLG_OOB == 0
        if (any(bad))
            ((__global int *)err)[0] = 1;
#endif
        clg_unit16 u = CLG_ROW16(row, w);
#if CLG_OOB == 3
        u = select(u, (clg_unit16)(0), CLG_CAT(convert_, CLG_UNIT16)(bad));
#endif
#if CLG_NT
        /* A vector store bypassing the caches needs the vector's alignment;
         * rows that do not give it store as below. */
        if (((ulong)(out + pos + a) & (sizeof(clg_unit16) - 1)) == 0) {
            __builtin_nontemporal_store(u,
                                        (__global clg_unit16 *)(out + pos + a));
            return;
        }
#endif
        vstore16(u, 0, out + pos + a);
        return;
    }
#endif
    for (clg_off end = min(a + CLG_LANES, (clg_off)n); a < end; a++) {
        int bad;
        ulong v = clg_read_position(indices[pos + a], axis_size,
                                    (__global int *)err, &bad);
        out[pos + a] = CLG_FILLED(bad, row[(int)v]);
    }
}
