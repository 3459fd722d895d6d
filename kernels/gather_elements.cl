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
 * Entry points (one work-item per output element; their rows in the entry
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
 * accesses (docs/design.md, "Kernels"). */
#define CLG_ELEMENTS_PARAMS_Q(q)                                             \
    __global const clg_unit *q data,                                         \
        __global const clg_index *q indices,                                 \
        __global clg_unit *q out, __global volatile int *q err,              \
        ulong n, ulong axis_size, ulong inner, ulong data_base,              \
        ulong data_len, ulong index_base, ulong index_len, ulong out_base,   \
        ulong out_len, ulong axis_stride, ulong outer_stride,                \
        ulong inner_stride, __global const ulong *q outer_geom,              \
        __global const ulong *q inner_geom, ulong strip_width,               \
        ulong strips, ulong prefetch
#define CLG_ELEMENTS_PARAMS CLG_ELEMENTS_PARAMS_Q(restrict)
#define CLG_ELEMENTS_BODY_PARAMS CLG_ELEMENTS_PARAMS_Q()
#define CLG_ELEMENTS_ARGS                                                    \
    data, indices, out, err, n, axis_size, inner, data_base, data_len,       \
        index_base, index_len, out_base, out_len, axis_stride, outer_stride, \
        inner_stride, outer_geom, inner_geom, strip_width, strips, prefetch

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
    ulong v = clg_position((long)indices[ip], axis_size);
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
    clg_off c = (clg_off)get_global_id(0);
    clg_off a = (clg_off)get_global_id(1);
    clg_off o = (clg_off)get_global_id(2);
    if (c >= inner || a >= n)
        return;
    clg_gather_elements_move(c, a, o, CLG_ELEMENTS_ARGS);
}

__kernel void clg_gather_elements_units(CLG_ELEMENTS_PARAMS)
{
    clg_off a = (clg_off)get_global_id(0);
    clg_off o = (clg_off)get_global_id(1);
    if (a >= n)
        return;
    clg_gather_elements_move(0, a, o, CLG_ELEMENTS_ARGS);
}

__kernel void clg_gather_elements_strips(CLG_ELEMENTS_PARAMS)
{
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
                              ulong axis_size, ulong inner, ulong axis_stride,
                              ulong outer_stride, ulong strip_width,
                              ulong strips, ulong z0)
{
    clg_off x = (clg_off)get_global_id(0);
    clg_off r = min((clg_off)get_global_id(1), (clg_off)axis_size - 1);
    clg_off z = (clg_off)get_global_id(2);
    clg_off o = z / (clg_off)strips;
    clg_off c = (z - o * (clg_off)strips) * (clg_off)strip_width + x;
    pack[((z - (clg_off)z0) * (clg_off)axis_size + r) * (clg_off)strip_width +
         x] = data[o * (clg_off)outer_stride + r * (clg_off)axis_stride + c];
}

/* `data` is the pack buffer of the pass that starts at strip z0. */
__kernel void clg_gather_elements_packed(CLG_ELEMENTS_PARAMS, ulong z0)
{
    clg_off x = (clg_off)get_global_id(0);
    clg_off a = min((clg_off)get_global_id(1), (clg_off)n - 1);
    clg_off z = (clg_off)get_global_id(2);
    clg_off o = z / (clg_off)strips;
    clg_off c = (z - o * (clg_off)strips) * (clg_off)strip_width + x;
    clg_off pos = (o * (clg_off)n + a) * (clg_off)inner + c;
    ulong v = clg_position((long)indices[pos], axis_size);
#if CLG_OOB == 0 || CLG_OOB == 3
    int bad = v == axis_size;
#if CLG_OOB == 0
    if (bad)
        ((__global int *)err)[0] = 1;
#endif
    v = bad ? 0 : v;
#endif
    clg_unit u = data[((z - (clg_off)z0) * (clg_off)axis_size + (clg_off)v) *
                          (clg_off)strip_width + x];
#if CLG_OOB == 3
    u = bad ? (clg_unit)(0) : u;
#endif
    clg_store(&out[pos], u);
}

/* No branch on the work-item's position and no clamp on dimension 0 (the
 * host launches it only when dimension 0 is exactly n), and the error
 * store is the only conditional: POCL then vectorises the work-item loop
 * with contiguous index loads and output stores (docs/design.md,
 * "Measured choices"). Padded outer rows are clamped onto the last one
 * and write the same bytes again; a bad index reads the row's first
 * element.
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
    clg_off a = (clg_off)get_global_id(0);
    clg_off o = min((clg_off)get_global_id(1), (clg_off)(out_len / n) - 1);
    clg_off pos = o * (clg_off)n + a;
    ulong v = clg_position((long)indices[pos], axis_size);
#if CLG_OOB == 0 || CLG_OOB == 3
    int bad = v == axis_size;
#if CLG_OOB == 0
    if (bad)
        ((__global int *)err)[0] = 1; /* not volatile: vectorisable */
#endif
    v = bad ? 0 : v;
#endif
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
#if CLG_OOB == 3
    u = bad ? (clg_unit)(0) : u;
#endif
    clg_store(&out[pos], u);
}
