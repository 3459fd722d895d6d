/* SPDX-License-Identifier: Apache-2.0 */
/* An empty kernel, and two with the arguments of the library's Gather
 * kernels (data, indices, output, error slot and ten ulongs): as ten
 * arguments, the list they had before, and as one struct, the shape the
 * library passes (src/variant.h), which show what the arguments alone
 * cost a launch (bench_baseline.c). */
__kernel void clg_bench_empty(void)
{
}
__kernel void clg_bench_empty_args(__global const uchar *d,
    __global const long *i, __global uchar *o, __global int *e,
    ulong a0, ulong a1, ulong a2, ulong a3, ulong a4, ulong a5,
    ulong a6, ulong a7, ulong a8, ulong a9)
{
}
typedef struct clg_bench_shape {
    ulong a0, a1, a2, a3, a4, a5, a6, a7, a8, a9;
} clg_bench_shape;
__kernel void clg_bench_empty_shape(__global const uchar *d,
    __global const long *i, __global uchar *o, __global int *e,
    clg_bench_shape shape)
{
}
