/* ONNX Gather: out[o, j, c] = data[o, norm(indices[j]), c] over the plan
 * [outer, s, inner] (inner in units of CLG_UNIT bytes).
 *
 * NDRange: CLG_INNER_X = 1: (c, j, o); CLG_INNER_X = 0 (inner == 1): (j, o).
 * The host pads dimension 0 and 1 to whole work-groups, so both are
 * bounds-checked; one work-item per output unit. */

__kernel void clg_gather(__global const clg_unit *restrict data,
                         __global const clg_index *restrict indices,
                         __global clg_unit *restrict out,
                         __global volatile int *restrict err,
                         ulong n, ulong axis_size, ulong inner)
{
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
    ulong v = clg_normalize((long)indices[j], axis_size);
    if (v == axis_size) {
        *err = 1;
        return;
    }
    clg_off src = ((clg_off)(o * (clg_off)axis_size) + (clg_off)v) *
                      (clg_off)inner + c;
    clg_off dst = (o * (clg_off)n + j) * (clg_off)inner + c;
    out[dst] = data[src];
}
