/* SPDX-License-Identifier: Apache-2.0 */
/* The benchmark's own kernels (bench/kernels/), embedded at build time by
 * cmake/embed_kernels.cmake as the library's are. */
#ifndef CLG_BENCH_KERNELS_H
#define CLG_BENCH_KERNELS_H

#include <stddef.h>

typedef struct bench_kernel_source {
    const char *name; /* file name, e.g. "copy.cl" */
    const char *text; /* NUL-terminated OpenCL C */
} bench_kernel_source;

extern const bench_kernel_source bench_kernel_sources[];
extern const size_t bench_kernel_source_count;

/* The text of bench/kernels/<name>; NULL when there is no such file. */
const char *bench_kernel_text(const char *name);

#endif
