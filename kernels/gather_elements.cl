/* ONNX GatherElements: out[p] = data[p with p[axis] = norm(indices[p])];
 * docs/design.md, "Kernels". Takes CLG_INDEX_BYTES, CLG_UNIT, CLG_WIDE,
 * CLG_WINDOWS, CLG_OUTER_DIMS, CLG_INNER_DIMS.
 *
 * Output and indices are [outer, n, inner]; the data offset of position
 * (o, a, c) is  outer_off(o) + norm(idx) * axis_stride + inner_off(c).
 * CLG_OUTER_DIMS / CLG_INNER_DIMS: 0 (absent), 1 (one stride), 2 (ragged:
 * a list of (extent, stride) pairs in a geometry buffer).
 *
 * Entry points (one work-item per output element):
 *   clg_gather_elements         (c, a, o)   inner > 1
 *   clg_gather_elements_units   (a, o)      inner == 1
 *   clg_gather_elements_strips  (x, a, o * strips + strip), with
 *                               c = strip * strip_width + x: CPU devices,
 *                               so that consecutive work-groups walk every
 *                               output row of one strip of columns while
 *                               that strip of data is in cache
 *   clg_gather_elements_lean    (a, o)      CPU devices, whole tensors,
 *                               inner == 1, at most one outer stride
 *
 * Windows (CLG_WINDOWS): as in gather.cl; indices share the output's
 * positions. */
#if !defined(CLG_UNIT) || !defined(CLG_WIDE) || !defined(CLG_WINDOWS) ||     \
    !defined(CLG_OUTER_DIMS) || !defined(CLG_INNER_DIMS)
#error "gather_elements.cl needs CLG_UNIT, CLG_WIDE, CLG_WINDOWS, CLG_OUTER_DIMS and CLG_INNER_DIMS"
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

#define CLG_ELEMENTS_PARAMS                                                  \
    __global const clg_unit *restrict data,                                  \
        __global const clg_index *restrict indices,                          \
        __global clg_unit *restrict out, __global volatile int *restrict err, \
        ulong n, ulong axis_size, ulong inner, ulong data_base,              \
        ulong data_len, ulong index_base, ulong index_len, ulong out_base,   \
        ulong out_len, ulong axis_stride, ulong outer_stride,                \
        ulong inner_stride, __global const ulong *restrict outer_geom,       \
        __global const ulong *restrict inner_geom, ulong strip_width,        \
        ulong strips
#define CLG_ELEMENTS_ARGS                                                    \
    data, indices, out, err, n, axis_size, inner, data_base, data_len,       \
        index_base, index_len, out_base, out_len, axis_stride, outer_stride, \
        inner_stride, outer_geom, inner_geom, strip_width, strips

/* The general body: one output element at (c, a, o), every bound checked. */
inline void clg_gather_elements_move(clg_off c, clg_off a, clg_off o,
                                     CLG_ELEMENTS_PARAMS)
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
    ulong v = clg_normalize((long)indices[ip], axis_size);
    if (v == axis_size) {
        *err = 1;
        return;
    }
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

#if !CLG_WINDOWS && CLG_OUTER_DIMS <= 1 && CLG_INNER_DIMS == 0
__kernel void clg_gather_elements_lean(CLG_ELEMENTS_PARAMS)
{
    clg_off a = (clg_off)get_global_id(0);
    clg_off o = (clg_off)get_global_id(1);
    clg_off pos = o * (clg_off)n + a;
    if (a >= n || pos >= (clg_off)out_len)
        return;
    ulong v = clg_normalize((long)indices[pos], axis_size);
    if (v == axis_size) {
        *err = 1;
        return;
    }
    out[pos] = data[o * (clg_off)outer_stride + (clg_off)v * (clg_off)axis_stride];
}
#endif
