/* Shared definitions for the clgather kernels (OpenCL C 1.2).
 *
 * Build options (host/runtime.c picks them per variant):
 *   -DCLG_UNIT=1|2|4|8|16   bytes one work-item moves
 *   -DCLG_INDEX=int|long    index type (ONNX INT32 / INT64)
 *   -DCLG_WIDE=0|1          1: 64-bit offsets; 0: every offset < 2^31
 *   -DCLG_FAST=0|1          lean bodies for whole-tensor launches on CPU devices
 *   -DCLG_WINDOWS=0|1       1: buffers hold windows of split tensors
 *
 * Every work-item checks its own index against [-s, s-1]; a bad one writes
 * nothing and raises *err, which the host reads back. No work-item ever
 * touches memory outside its buffers, whatever the index values. */

#if CLG_UNIT == 1
typedef uchar clg_unit;
#elif CLG_UNIT == 2
typedef ushort clg_unit;
#elif CLG_UNIT == 4
typedef uint clg_unit;
#elif CLG_UNIT == 8
typedef ulong clg_unit;
#elif CLG_UNIT == 16
typedef uint4 clg_unit;
#else
#error "CLG_UNIT must be 1, 2, 4, 8 or 16"
#endif

typedef CLG_INDEX clg_index;

#if CLG_WIDE
typedef ulong clg_off;
#else
typedef uint clg_off;
#endif

/* norm(v) = v < 0 ? v + s : v; returns s (an invalid position) when v is
 * outside [-s, s-1]. Computed in 64 bits so that INT64_MIN cannot wrap. */
inline ulong clg_normalize(long v, ulong s)
{
    ulong n = (ulong)(v < 0 ? v + (long)s : v);
    return n < s ? n : s;
}

/* Pre-validation (used when the output is the caller's memory in place):
 * one work-item per index value. */
__kernel void clg_check_indices(__global const clg_index *restrict indices,
                                __global int *restrict err,
                                ulong count, ulong axis_size)
{
    size_t i = get_global_id(0);
    if (i >= count)
        return;
    if (clg_normalize((long)indices[i], axis_size) == axis_size)
        *err = 1;
}
