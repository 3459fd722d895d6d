/* SPDX-License-Identifier: Apache-2.0 */
/* Index check before a launch that writes the caller's memory in place:
 * one work-item per 16 index values; raises *err when any value is
 * outside [-s, s-1]. Takes CLG_INDEX_BYTES and CLG_OOB (the check kernel is
 * launched under raise only). */
#if defined(CLG_UNIT) || defined(CLG_WIDE) || defined(CLG_WINDOWS) ||        \
    defined(CLG_OUTER_DIMS) || defined(CLG_INNER_DIMS) || defined(CLG_AHEAD)
#error "check.cl takes CLG_INDEX_BYTES and CLG_OOB only"
#endif

/* Each work-item checks CLG_CHECK_SPAN consecutive values in a plain loop
 * with one range test per value and one conditional store: the CPU
 * compilers vectorise the loop across work-items; 16-wide vector compares
 * ran twelve times slower on int32 on POCL
 * (docs/decisions.md, "The check kernel: a loop of scalar tests").
 * v is in [-s, s-1] exactly where v + s, unsigned in the index's own
 * width, is below 2s (s <= CLG_INDEX_MAX, so 2s fits; nothing is widened,
 * see clg_normalize). The last work-item takes the tail. */
#define CLG_CHECK_SPAN 16
#if CLG_INDEX_BYTES == 4
typedef uint clg_index_bits;
#define CLG_INDEX_MAX INT_MAX
#else
typedef ulong clg_index_bits;
#define CLG_INDEX_MAX LONG_MAX
#endif

__kernel void clg_check_indices(__global const clg_index *restrict indices,
                                __global int *restrict err,
                                ulong count, ulong axis_size)
{
    ulong i = (ulong)get_global_id(0);
    ulong first = i * CLG_CHECK_SPAN;
    if (first >= count)
        return;
    if (axis_size > (ulong)CLG_INDEX_MAX)
        return; /* every value of the index type is in range */
    const clg_index_bits s = (clg_index_bits)axis_size;
    const clg_index_bits two_s = (clg_index_bits)(2 * axis_size);
    __global const clg_index *v = indices + first;
    int bad = 0;
    if (count - first >= CLG_CHECK_SPAN) {
        for (int k = 0; k < CLG_CHECK_SPAN; k++)
            bad |= (clg_index_bits)v[k] + s >= two_s;
    } else {
        for (ulong k = 0; k < count - first; k++)
            bad |= (clg_index_bits)v[k] + s >= two_s;
    }
    if (bad)
        *err = 1;
}

/* The index check that also normalises, before the trusted Gather bodies
 * (docs/design.md, "Kernels"): normed[i] = the position indices[i]
 * selects under CLG_OOB, as an int (the host uses it only when
 * s <= INT_MAX). A value with none: under raise 0, which also raises
 * *err; under fill -1, which the trusted bodies write as zero bytes.
 * One work-item per index value. */
__kernel void clg_normalize_indices(__global const clg_index *restrict indices,
                                    __global int *restrict err,
                                    __global int *restrict normed,
                                    ulong count, ulong axis_size)
{
    size_t i = get_global_id(0);
    if (i >= count)
        return;
#if CLG_OOB == 0
    ulong v = clg_normalize(indices[i], axis_size);
    if (v == axis_size) {
        *err = 1;
        v = 0;
    }
    normed[i] = (int)v;
#else
    ulong v = clg_position(indices[i], axis_size);
    normed[i] = v == axis_size ? -1 : (int)v;
#endif
}
