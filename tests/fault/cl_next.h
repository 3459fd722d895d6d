/* SPDX-License-Identifier: Apache-2.0 */
/* The ICD loader's own definition of an OpenCL function, for the shims
 * (cl_fault.h, cl_lazy_write.h) whose binaries define it themselves. */
#ifndef CLG_CL_NEXT_H
#define CLG_CL_NEXT_H

/* The ICD loader's (libOpenCL.so.1, opened by name: a binary that defines
 * every OpenCL function clgather calls may not keep it as a dependency)
 * function `name`; prints `who` and aborts when there is none. */
void *cl_next(const char *who, const char *name);

#endif
