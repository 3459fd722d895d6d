/* SPDX-License-Identifier: Apache-2.0 */
/* An empty kernel, and one with the argument list of the library's
 * Gather kernels (data, indices, output, error slot, ten ulongs), which
 * shows what the arguments alone cost a launch (bench_baseline.c). */
__kernel void clg_bench_empty(void)
{
}
__kernel void clg_bench_empty_args(__global const uchar *d,
    __global const long *i, __global uchar *o, __global int *e,
    ulong a0, ulong a1, ulong a2, ulong a3, ulong a4, ulong a5,
    ulong a6, ulong a7, ulong a8, ulong a9)
{
}
