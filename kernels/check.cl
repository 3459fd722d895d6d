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

/* s and 2s in the index's own width; 0 where s exceeds CLG_INDEX_MAX, so
 * that every value of the index type is in range and nothing is checked. */
inline int clg_check_range(ulong axis_size, clg_index_bits *s,
                           clg_index_bits *two_s)
{
    *s = (clg_index_bits)axis_size;
    *two_s = (clg_index_bits)(2 * axis_size);
    return axis_size <= (ulong)CLG_INDEX_MAX;
}

__kernel void clg_check_indices(__global const clg_index *restrict indices,
                                __global int *restrict err,
                                ulong count, ulong axis_size)
{
    clg_index_bits s, two_s;
    if (!clg_check_range(axis_size, &s, &two_s))
        return;
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

/* The same check on CPUs: work-item i reads values 16i to 16i + 15 with one
 * vload16, compares each half's v + s with 2s and tests the OR of the two
 * masks with any(); the last work-item takes the tail one by one and those
 * past it do nothing. Whole-vector loads of consecutive values need no
 * gathers, which the stripes above compile to on CPUs: POCL and Intel's
 * CPU runtime on an AVX2 CPU (AMD EPYC, Zen 3) ran them at 3 times the
 * bench's read kernel and this body at its speed (docs/decisions.md, "The
 * check kernel: vectors on CPUs"). Compares, not a vector max(): Oclgrind
 * 21.10's uninitialised-value check reports a max() of loaded vectors as
 * control flow on uninitialised values, and crashes on a scalar fold of
 * the last two lanes (a shuffle with an undefined lane). */
#if CLG_INDEX_BYTES == 4
#define CLG_INDEX_BITS16 uint16
#define CLG_INDEX_BITS8 uint8
#else
#define CLG_INDEX_BITS16 ulong16
#define CLG_INDEX_BITS8 ulong8
#endif

__kernel void clg_check_indices_vectors(__global const clg_index *restrict
                                            indices,
                                        __global int *restrict err,
                                        ulong count, ulong axis_size)
{
    /* No early return: after one, Rusticl warns on stderr about every
     * later kernel argument read as read inside control flow. No
     * count - i either where i may pass count: compiled to a saturating
     * subtraction, which Oclgrind 21.10 does not know. */
    clg_index_bits s, two_s;
    const int checked = clg_check_range(axis_size, &s, &two_s);
    const ulong i = (ulong)get_global_id(0) * CLG_CHECK_SPAN;
    __global const clg_index *v = indices + i;
    int bad;
    if (i + CLG_CHECK_SPAN <= count) {
        CLG_INDEX_BITS16 x = CLG_CAT(as_, CLG_INDEX_BITS16)(vload16(0, v)) + s;
        bad = any((x.lo >= (CLG_INDEX_BITS8)(two_s)) |
                  (x.hi >= (CLG_INDEX_BITS8)(two_s)));
    } else {
        clg_index_bits m = 0;
        for (ulong j = i; j < count; j++)
            m = max(m, (clg_index_bits)v[j - i] + s);
        bad = m >= two_s;
    }
    if (checked && bad)
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
