/* SPDX-License-Identifier: Apache-2.0 */
/* Kernel sources embedded at build time by cmake/embed_kernels.cmake. */
#ifndef CLG_KERNELS_EMBEDDED_H
#define CLG_KERNELS_EMBEDDED_H

#include <stddef.h>

typedef struct clg_kernel_source {
    const char *name; /* file name, e.g. "gather.cl" */
    const char *text; /* NUL-terminated OpenCL C */
} clg_kernel_source;

/* In kernels/ order: common.cl first. */
extern const clg_kernel_source clg_kernel_sources[];
extern const size_t clg_kernel_source_count;

#endif
