/* SPDX-License-Identifier: Apache-2.0 */
/* The benchmark's copy kernel (bench_baseline.c): one unit of
 * CLG_BENCH_UNIT bytes per work-item, with non-temporal stores when
 * CLG_BENCH_NT is 1; and its read kernels, two layouts of a pass that
 * only reads, as the index check does. */
#if CLG_BENCH_UNIT == 16
typedef uint4 clg_unit;
#elif CLG_BENCH_UNIT == 32
typedef uint8 clg_unit;
#elif CLG_BENCH_UNIT == 64
typedef uint16 clg_unit;
#else
#error "CLG_BENCH_UNIT must be 16, 32 or 64"
#endif
__kernel void clg_bench_copy(__global const clg_unit *restrict src,
                             __global clg_unit *restrict dst, ulong n)
{
    size_t i = get_global_id(0);
    if (i >= n)
        return;
#if CLG_BENCH_NT
    __builtin_nontemporal_store(src[i], &dst[i]);
#else
    dst[i] = src[i];
#endif
}

/* One unit per work-item, read as 32-bit words in a plain loop
 * (docs/decisions.md, "The check kernel: stripes across the work-group"),
 * and compared with `pattern`: *hit is raised where a word equals it, so
 * that no load can be dropped. */
__kernel void clg_bench_read(__global const uint *restrict src,
                             __global int *restrict hit, ulong n,
                             uint pattern)
{
    size_t i = get_global_id(0);
    if (i >= n)
        return;
    __global const uint *w = src + i * (CLG_BENCH_UNIT / 4);
    int found = 0;
    for (int k = 0; k < CLG_BENCH_UNIT / 4; k++)
        found |= w[k] == pattern;
    if (found)
        *hit = 1;
}

/* The same words read in stripes: a work-group of l work-items reads
 * l units' words, CLG_BENCH_UNIT / 4 stripes of l words, work-item j the
 * j-th word of each, as the check kernel reads its values (neighbouring
 * work-items, neighbouring words). n units in all, as above. */
__kernel void clg_bench_read_stripes(__global const uint *restrict src,
                                     __global int *restrict hit, ulong n,
                                     uint pattern)
{
    const uint l = (uint)get_local_size(0);
    const ulong base = (ulong)get_group_id(0) * l * (CLG_BENCH_UNIT / 4);
    const ulong words = n * (CLG_BENCH_UNIT / 4);
    __global const uint *w = src + base;
    const uint j = (uint)get_local_id(0);
    int found = 0;
    if (base + (ulong)l * (CLG_BENCH_UNIT / 4) <= words) {
        for (uint k = 0; k < CLG_BENCH_UNIT / 4; k++)
            found |= w[j + k * l] == pattern;
    } else {
        for (uint k = j; base + k < words; k += l)
            found |= w[k] == pattern;
    }
    if (found)
        *hit = 1;
}
