/* ONNX Gather: out[o, j, c] = data[o, norm(indices[j]), c] over the plan
 * [outer, s, inner] (inner in units of CLG_UNIT bytes); docs/design.md,
 * "Kernels". Takes CLG_INDEX_BYTES, CLG_UNIT, CLG_WIDE, CLG_WINDOWS.
 *
 * Entry points (one work-item per output unit; NDRange in global
 * coordinates, the host uses global work offsets for pieces; dimensions 0
 * and 1 are padded to whole work-groups and bounds-checked):
 *   clg_gather             (c, j, o)  inner > 1
 *   clg_gather_units       (j, o)     inner == 1
 *   clg_gather_lean        (c, j, o)  CPU devices, whole tensors, dim 0
 *                                     not padded: no branches, so that
 *                                     POCL vectorises the work-item loop
 *   clg_gather_units_lean  (j, o)     CPU devices, whole tensors, rows of
 *                                     one unit: the fewest operations
 *
 * Windows (CLG_WINDOWS = 1, launches over pieces of split tensors): each
 * buffer holds one window of its tensor, [base, base + len) in units
 * (data, output) or elements (indices). A work-item whose data source lies
 * outside the data window writes nothing (another launch covers it); every
 * access is checked against its window, so no index value can move an
 * access outside a buffer. With CLG_WINDOWS = 0 (whole tensors) only the
 * output bound is checked: a valid index cannot leave the data buffer. */
#if !defined(CLG_UNIT) || !defined(CLG_WIDE) || !defined(CLG_WINDOWS)
#error "gather.cl needs CLG_UNIT, CLG_WIDE and CLG_WINDOWS"
#endif
#if defined(CLG_OUTER_DIMS) || defined(CLG_INNER_DIMS)
#error "CLG_OUTER_DIMS and CLG_INNER_DIMS are GatherElements options"
#endif

#define CLG_GATHER_PARAMS                                                    \
    __global const clg_unit *restrict data,                                  \
        __global const clg_index *restrict indices,                          \
        __global clg_unit *restrict out, __global volatile int *restrict err, \
        ulong n, ulong axis_size, ulong inner, ulong data_base,              \
        ulong data_len, ulong index_base, ulong index_len, ulong out_base,   \
        ulong out_len
#define CLG_GATHER_ARGS                                                      \
    data, indices, out, err, n, axis_size, inner, data_base, data_len,       \
        index_base, index_len, out_base, out_len

/* The general body: one output unit at (c, j, o), every bound checked. */
inline void clg_gather_move(clg_off c, clg_off j, clg_off o, CLG_GATHER_PARAMS)
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
    ulong v = clg_normalize((long)indices[ij], axis_size);
    if (v == axis_size) {
        *err = 1;
        return;
    }
    clg_off src = ((clg_off)(o * (clg_off)axis_size) + (clg_off)v) *
                      (clg_off)inner + c - (clg_off)data_base;
#if CLG_WINDOWS
    if (src < (clg_off)data_len)
#endif
        out[dst] = data[src];
}

__kernel void clg_gather(CLG_GATHER_PARAMS)
{
    clg_off c = (clg_off)get_global_id(0);
    clg_off j = (clg_off)get_global_id(1);
    clg_off o = (clg_off)get_global_id(2);
    if (c >= inner || j >= n)
        return;
    clg_gather_move(c, j, o, CLG_GATHER_ARGS);
}

__kernel void clg_gather_units(CLG_GATHER_PARAMS)
{
    clg_off j = (clg_off)get_global_id(0);
    clg_off o = (clg_off)get_global_id(1);
    if (j >= n)
        return;
    clg_gather_move(0, j, o, CLG_GATHER_ARGS);
}

#if !CLG_WINDOWS
/* Rows padded in dimension 1 are clamped onto the last row (they write the
 * same bytes again); a bad index reads row 0 and stores 1 to err[0], a good
 * one to err[1] (a sink), which keeps the store unconditional. Every
 * access stays inside its buffer. */
__kernel void clg_gather_lean(CLG_GATHER_PARAMS)
{
    clg_off c = (clg_off)get_global_id(0);
    clg_off j = min((clg_off)get_global_id(1), (clg_off)n - 1);
    clg_off o = (clg_off)get_global_id(2);
    ulong v = clg_normalize((long)indices[j], axis_size);
    int bad = v == axis_size;
    ((__global int *)err)[bad ? 0 : 1] = 1; /* not volatile: vectorisable */
    v = bad ? 0 : v;
    out[(o * (clg_off)n + j) * (clg_off)inner + c] =
        data[((clg_off)(o * (clg_off)axis_size) + (clg_off)v) *
                 (clg_off)inner + c];
}

__kernel void clg_gather_units_lean(CLG_GATHER_PARAMS)
{
    clg_off j = (clg_off)get_global_id(0);
    clg_off o = (clg_off)get_global_id(1);
    clg_off dst = o * (clg_off)n + j;
    if (j >= n || dst >= (clg_off)out_len)
        return;
    ulong v = clg_normalize((long)indices[j], axis_size);
    if (v == axis_size) {
        *err = 1;
        return;
    }
    out[dst] = data[o * (clg_off)axis_size + (clg_off)v];
}
#endif
