/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Preloaded into the clgather tool by the tests (LD_PRELOAD) to stand for
 * an OpenCL runtime that fails, without a faulty device: its
 * clEnqueueNDRangeKernel takes the place of the ICD loader's and, by the
 * environment variable CLG_TEST_NDRANGE,
 *   "fail": returns CL_INVALID_VALUE and enqueues nothing;
 *   "skip": enqueues a marker instead of the kernel (the kernel never
 *           runs, so an output stays as it was);
 *   else:   forwards the call to the loader's.
 */
#define _GNU_SOURCE
#define CL_TARGET_OPENCL_VERSION 120
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#include <CL/cl.h>

typedef cl_int (*ndrange_fn)(cl_command_queue, cl_kernel, cl_uint,
                             const size_t *, const size_t *, const size_t *,
                             cl_uint, const cl_event *, cl_event *);

CL_API_ENTRY cl_int CL_API_CALL
clEnqueueNDRangeKernel(cl_command_queue queue, cl_kernel kernel, cl_uint dims,
                       const size_t *offset, const size_t *global,
                       const size_t *local, cl_uint num_events,
                       const cl_event *wait_list, cl_event *event)
{
    const char *mode = getenv("CLG_TEST_NDRANGE");
    if (mode != NULL && strcmp(mode, "fail") == 0)
        return CL_INVALID_VALUE;
    if (mode != NULL && strcmp(mode, "skip") == 0)
        return clEnqueueMarkerWithWaitList(queue, num_events, wait_list,
                                           event);
    ndrange_fn next = (ndrange_fn)dlsym(RTLD_NEXT, "clEnqueueNDRangeKernel");
    if (next == NULL)
        abort();
    return next(queue, kernel, dims, offset, global, local, num_events,
                wait_list, event);
}
