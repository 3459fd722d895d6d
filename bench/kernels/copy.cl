/* SPDX-License-Identifier: Apache-2.0 */
/* The benchmark's copy kernel (bench_baseline.c): one unit of
 * CLG_BENCH_UNIT bytes per work-item, with non-temporal stores when
 * CLG_BENCH_NT is 1; and its read kernel, the limit of a pass that only
 * reads, as the index check does. */
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

/* One unit per work-item, read as 32-bit words in a plain loop, as the
 * index check reads
 * (docs/decisions.md, "The check kernel: a loop of scalar tests"),
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
