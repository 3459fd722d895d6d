/* ONNX Gather: out[o, j, c] = data[o, norm(indices[j]), c] over the plan
 * [outer, s, inner] (inner in units of CLG_UNIT bytes).
 *
 * NDRange: CLG_INNER_X = 1: (c, j, o); CLG_INNER_X = 0 (inner == 1): (j, o),
 * in global coordinates (the host uses global work offsets for pieces).
 *
 * Windows (CLG_WINDOWS = 1, launches over pieces of split tensors): each
 * buffer holds one window of its tensor, [base, base + len) in units (data,
 * output) or elements (indices). A work-item whose data source lies outside
 * the data window writes nothing (another launch covers it); every access
 * is checked against its window, so no index value can move an access
 * outside a buffer. With CLG_WINDOWS = 0 (whole tensors) only the output
 * bound is checked: a valid index cannot leave the data buffer. Dimensions 0 and 1 are padded
 * to whole work-groups and bounds-checked.
 *
 * CLG_FAST (CPU devices, whole-tensor launches): with CLG_INNER_X and dim 0
 * not padded, the same result without branches, so that POCL vectorises
 * the work-item loop; without CLG_INNER_X (rows of one unit, where the
 * reads are scattered and vector gathers lose on the CPUs measured), a
 * scalar body with the fewest operations. Padded rows are clamped onto the last row (they
 * write the same bytes again); a bad index reads row 0 and stores 1 to
 * err[0], a good one to err[1] (a sink), which keeps the store
 * unconditional. Every access stays inside its buffer. */

__kernel void clg_gather(__global const clg_unit *restrict data,
                         __global const clg_index *restrict indices,
                         __global clg_unit *restrict out,
                         __global volatile int *restrict err,
                         ulong n, ulong axis_size, ulong inner,
                         ulong data_base, ulong data_len,
                         ulong index_base, ulong index_len,
                         ulong out_base, ulong out_len)
{
#if CLG_FAST && !CLG_INNER_X
    /* Rows of one unit: (j, o), the fewest operations per work-item. */
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
#elif CLG_FAST
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
#else
#if CLG_INNER_X
    clg_off c = (clg_off)get_global_id(0);
    clg_off j = (clg_off)get_global_id(1);
    clg_off o = (clg_off)get_global_id(2);
    if (c >= inner || j >= n)
        return;
#else
    clg_off c = 0;
    clg_off j = (clg_off)get_global_id(0);
    clg_off o = (clg_off)get_global_id(1);
    if (j >= n)
        return;
#endif
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
#endif
}
