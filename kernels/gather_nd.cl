/* SPDX-License-Identifier: Apache-2.0 */
/* ONNX GatherND over the plan [outer, n, inner]: outer the batch
 * positions, n the index tuples of one batch position, inner the slice in
 * units of CLG_UNIT bytes (up to 16, dividing the slice):
 *   out[o, j, c] = data[o * batch + sum_i pos_i(indices[o, j, i]) * st_i
 *                       * inner + c]
 * where tuple_geom = [k, s_0, st_0, ..., s_{k-1}, st_{k-1}] gives each
 * component's data dim size s_i and its stride st_i in slices, and
 * `batch` the units of one batch position (docs/design.md, "Kernels").
 * Takes CLG_INDEX_BYTES, CLG_UNIT, CLG_WIDE, CLG_WINDOWS and CLG_OOB: each
 * component's position is clg_position's against its own dim; under raise
 * a tuple with a component out of range raises *err, under fill its whole
 * slice is zero bytes. CLG_PREFETCH and CLG_NT are 0.
 *
 * Entry points (NDRange in global coordinates, dimensions 0 and 1 padded
 * and bounds-checked):
 *   clg_gather_nd  (c, j, o)  one work-item per output unit; the
 *                             work-items with c = 0 also check their
 *                             tuple where the slice is empty (inner 0,
 *                             launched with one c), so that raise finds a
 *                             bad tuple whatever the output's size.
 *   clg_gather_nd_positions (j, o)  the per-tuple pass (CPU plans, whole
 *                             tensors): one work-item per tuple o * n + j
 *                             of the whole indices computes and checks
 *                             its slice's position
 *                             once, o * axis_stride + sum_i pos_i * st_i
 *                             in data viewed as [outer * block, slice],
 *                             as an int into `normed`; a tuple with no
 *                             position writes o * axis_stride under raise
 *                             (and raises *err), INT_MIN under fill (out of
 *                             range for any int axis, so that Gather's
 *                             fill zeroes its slice). Gather's routine then
 *                             moves the slices (src/gather_nd.c).
 *                             CLG_TUPLE = k (1 to 3) takes the tuple's k
 *                             components' dims as the scalars dim0, ...
 *                             (strides: the products of the dims after
 *                             each), so that a CPU compiler vectorises
 *                             the work-items; 0 reads k, the dims and
 *                             strides from tuple_geom.
 *
 * Windows (CLG_WINDOWS = 1): as gather.cl's; the indices window holds
 * whole tuples. */
#if !defined(CLG_UNIT) || !defined(CLG_WIDE) || !defined(CLG_WINDOWS) ||     \
    !defined(CLG_PREFETCH) || !defined(CLG_NT)
#error "gather_nd.cl needs CLG_UNIT, CLG_WIDE, CLG_WINDOWS, CLG_PREFETCH and CLG_NT"
#endif
#if CLG_PREFETCH || CLG_NT
#error "gather_nd.cl neither prefetches nor stores non-temporally"
#endif
#if !defined(CLG_TUPLE) || CLG_TUPLE < 0 || CLG_TUPLE > 3
#error "gather_nd.cl needs CLG_TUPLE: 0, or the tuple's components 1 to 3"
#endif
#if defined(CLG_SPAN) || defined(CLG_OUTER_DIMS) ||                          \
    defined(CLG_INNER_DIMS) || defined(CLG_AHEAD)
#error "CLG_SPAN, CLG_OUTER_DIMS, CLG_INNER_DIMS and CLG_AHEAD are not GatherND options"
#endif

/* The kernel's scalars, as one struct (src/variant.h, CLG_ND_SHAPE: the
 * same fields in the same order), which CLG_ND_UNPACK, first in the
 * kernel, unpacks into locals of the fields' names. */
typedef struct clg_nd_shape {
    ulong n, axis_size, inner, data_base, data_len, index_base, index_len,
        out_base, out_len, batch_stride;
} clg_nd_shape;
#define CLG_ND_UNPACK                                                        \
    CLG_SHAPE_BASE_UNPACK, batch_stride = shape.batch_stride

__kernel void clg_gather_nd(__global const clg_unit *restrict data,
                            __global const clg_index *restrict indices,
                            __global clg_unit *restrict out,
                            __global volatile int *restrict err,
                            __global const ulong *restrict tuple_geom,
                            clg_nd_shape shape)
{
    CLG_ND_UNPACK;
    clg_off c = (clg_off)get_global_id(0);
    clg_off j = (clg_off)get_global_id(1);
    clg_off o = (clg_off)get_global_id(2);
    (void)axis_size;
    if (j >= n || (c >= inner && c != 0))
        return;
    clg_off k = (clg_off)tuple_geom[0];
    clg_off t = (o * (clg_off)n + j) * k;
#if CLG_WINDOWS
    t -= (clg_off)index_base;
    if (t >= (clg_off)index_len || (clg_off)index_len - t < k)
        return;
#else
    (void)index_base;
    (void)index_len;
#endif
    clg_off off = 0;
    int none = 0;
    for (clg_off i = 0; i < k; i++) {
        ulong s = tuple_geom[1 + 2 * i];
        ulong v = clg_position(indices[t + i], s);
        none |= v == s;
        off += (clg_off)(v == s ? 0 : v) * (clg_off)tuple_geom[2 + 2 * i];
    }
#if CLG_OOB == 0
    if (none) {
        *err = 1;
        return;
    }
#endif
    if (c >= inner)
        return; /* an empty slice: the tuple is checked */
    clg_off dst = (o * (clg_off)n + j) * (clg_off)inner + c - (clg_off)out_base;
    if (dst >= (clg_off)out_len)
        return;
#if CLG_OOB == 3
    if (none) {
        out[dst] = (clg_unit)(0);
        return;
    }
#endif
    clg_off src = o * (clg_off)batch_stride + off * (clg_off)inner + c -
                  (clg_off)data_base;
#if CLG_WINDOWS
    if (src < (clg_off)data_len)
#else
    (void)data_len;
#endif
        out[dst] = data[src];
}

/* clg_position for the pass. Under wrap, a value already in [-s, s - 1]
 * skips the division: exact for s <= 2^62, where neither v + s nor 2s
 * wraps. POCL's and Intel's pass then ran without a 64-bit division per
 * component; in Gather's and GatherElements' bodies the branch measured
 * slower on Intel's runtime (docs/decisions.md, "GatherND: the Gather
 * after the pass trusts its positions"). */
inline ulong clg_nd_position(clg_index v, ulong s)
{
#if CLG_OOB == 1 && !defined(CLG_TEST_MISCOMPILE) /* that one's -1: as ever */
    ulong u = (ulong)(long)v + s;
    if (s <= (ulong)1 << 62 && u < 2 * s)
        return u >= s ? u - s : u;
#endif
    return clg_position(v, s);
}

/* Component i of the pass's tuple, of dim `dim` and stride `stride` (in
 * slices): its position, its "none", its share of the offset (unsigned:
 * the offset of a tuple with a component out of range is not stored). */
#define CLG_ND_COMPONENT(i, dim, stride)                                     \
    {                                                                        \
        ulong v_ = clg_nd_position(indices[t + (i)], (dim));                    \
        none |= v_ == (dim);                                                 \
        off += v_ * (stride);                                                \
    }

__kernel void clg_gather_nd_positions(__global const clg_index *restrict indices,
                                      __global volatile int *restrict err,
                                      __global int *restrict normed,
                                      ulong count, ulong n, ulong axis_stride,
                                      __global const ulong *restrict tuple_geom,
                                      ulong dim0, ulong dim1, ulong dim2)
{
    clg_off j = (clg_off)get_global_id(0);
    clg_off o = (clg_off)get_global_id(1);
    clg_off tuple = o * (clg_off)n + j;
    if (j >= (clg_off)n || tuple >= (clg_off)count)
        return; /* dimensions 0 and 1 are padded */
    ulong off = 0;
    int none = 0;
#if CLG_TUPLE == 0
    clg_off k = (clg_off)tuple_geom[0];
    clg_off t = tuple * k;
    for (clg_off i = 0; i < k; i++)
        CLG_ND_COMPONENT(i, tuple_geom[1 + 2 * i], tuple_geom[2 + 2 * i])
    (void)dim0;
    (void)dim1;
    (void)dim2;
#else
    /* A component's stride: the product of the dims after it. */
    clg_off t = tuple * CLG_TUPLE;
    (void)tuple_geom;
#if CLG_TUPLE == 1
    CLG_ND_COMPONENT(0, dim0, 1)
    (void)dim1;
    (void)dim2;
#elif CLG_TUPLE == 2
    CLG_ND_COMPONENT(0, dim0, dim1)
    CLG_ND_COMPONENT(1, dim1, 1)
    (void)dim2;
#else
    CLG_ND_COMPONENT(0, dim0, dim1 * dim2)
    CLG_ND_COMPONENT(1, dim1, dim2)
    CLG_ND_COMPONENT(2, dim2, 1)
#endif
#endif
    ulong first = (ulong)o * axis_stride;
#if CLG_OOB == 0
    /* err[1] is the slot's sink: an unconditional, non-volatile store
     * keeps the pass vectorisable, as in clg_gather_lean. */
    ((__global int *)err)[none ? 0 : 1] = 1;
    normed[tuple] = (int)(none ? first : first + off);
#elif CLG_OOB == 3
    normed[tuple] = none ? INT_MIN : (int)(first + off);
#else
    normed[tuple] = (int)(first + off); /* wrap and clip: never none */
#endif
}
