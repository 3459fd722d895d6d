/* SPDX-License-Identifier: Apache-2.0 */
/* Index check before a launch that writes the caller's memory in place:
 * one work-item per 16 index values; raises *err when any value is
 * outside [-s, s-1]. Takes CLG_INDEX_BYTES and CLG_OOB (the check kernel is
 * launched under raise only). */
#if defined(CLG_UNIT) || defined(CLG_WIDE) || defined(CLG_WINDOWS) ||        \
    defined(CLG_OUTER_DIMS) || defined(CLG_INNER_DIMS) || defined(CLG_AHEAD)
#error "check.cl takes CLG_INDEX_BYTES and CLG_OOB only"
#endif

/* A work-group of l work-items checks l * CLG_CHECK_SPAN consecutive
 * values, in CLG_CHECK_SPAN stripes of l: work-item j reads the j-th
 * value of each stripe, so that neighbouring work-items read neighbouring
 * values and the CPU compilers' vectors across work-items load whole
 * lines (docs/decisions.md, "The check kernel: stripes across the
 * work-group"). The range test is a running maximum of v + s, unsigned
 * in the index's own width: v is in [-s, s-1] exactly where v + s < 2s
 * (s <= CLG_INDEX_MAX, so 2s fits; nothing is widened, see
 * clg_normalize). One conditional store per work-item; the last group
 * takes the tail. Needs uniform work-groups and no global offset, which
 * the host's geometry gives (clg_index_pass_make). */
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
    if (axis_size > (ulong)CLG_INDEX_MAX)
        return; /* every value of the index type is in range */
    const clg_index_bits s = (clg_index_bits)axis_size;
    const clg_index_bits two_s = (clg_index_bits)(2 * axis_size);
    const uint l = (uint)get_local_size(0);
    const ulong base = (ulong)get_group_id(0) * l * CLG_CHECK_SPAN;
    __global const clg_index *v = indices + base;
    const uint lid = (uint)get_local_id(0);
    clg_index_bits m = 0;
    if (base + (ulong)l * CLG_CHECK_SPAN <= count) {
        for (uint k = 0; k < CLG_CHECK_SPAN; k++)
            m = max(m, (clg_index_bits)v[lid + k * l] + s);
    } else {
        for (uint j = lid; base + j < count; j += l)
            m = max(m, (clg_index_bits)v[j] + s);
    }
    if (m >= two_s)
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
