/* SPDX-License-Identifier: Apache-2.0 */
/* The OpenCL fault-injection shim (cl_fault.h). */
#define _GNU_SOURCE
#include "cl_fault.h"
#include "cl_next.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <clgather/clgather.h> /* <CL/cl.h> at OpenCL 1.2 */

static uint64_t calls, fail_at;
static int counting;
static const char *failed = "";
static int kernel_enqueued, kernel_before_failure;

void cl_fault_arm(uint64_t n)
{
    calls = 0;
    counting = 1;
    fail_at = n;
    failed = "";
    kernel_enqueued = 0;
    kernel_before_failure = 0;
}

void cl_fault_pause(void)
{
    counting = 0;
}
void cl_fault_resume(void)
{
    counting = 1;
}
uint64_t cl_fault_calls(void)
{
    return calls;
}
const char *cl_fault_failed_call(void)
{
    return failed;
}
int cl_fault_kernel_enqueued_before(void)
{
    return kernel_before_failure;
}

/* 1 when this call is the one to fail. */
static int fault(const char *name)
{
    if (!counting || ++calls != fail_at)
        return 0;
    failed = name;
    kernel_before_failure = kernel_enqueued;
    return 1;
}

static void *next(const char *name)
{
    return cl_next("cl_fault", name);
}

/* A call returning cl_int: fails with CL_OUT_OF_RESOURCES or forwards. */
#define FORWARD_INT(name, params, args)                                       \
    cl_int name params                                                        \
    {                                                                         \
        static cl_int(*real) params;                                          \
        if (fault(#name))                                                     \
            return CL_OUT_OF_RESOURCES;                                       \
        if (!real)                                                            \
            *(void **)&real = next(#name);                                    \
        return real args;                                                     \
    }

/* A call returning an object and an errcode_ret: fails with NULL. */
#define FORWARD_OBJ(type, name, params, args)                                 \
    type name params                                                          \
    {                                                                         \
        static type(*real) params;                                            \
        if (fault(#name)) {                                                   \
            if (errcode_ret)                                                  \
                *errcode_ret = CL_OUT_OF_RESOURCES;                           \
            return NULL;                                                      \
        }                                                                     \
        if (!real)                                                            \
            *(void **)&real = next(#name);                                    \
        return real args;                                                     \
    }

/* Releases and retains: counted for nothing, forwarded always. */
#define FORWARD_KEEP(name, type)                                              \
    cl_int name(type obj)                                                     \
    {                                                                         \
        static cl_int (*real)(type);                                          \
        if (!real)                                                            \
            *(void **)&real = next(#name);                                    \
        return real(obj);                                                     \
    }

FORWARD_INT(clGetPlatformIDs, (cl_uint n, cl_platform_id *p, cl_uint *np),
            (n, p, np))
FORWARD_INT(clGetPlatformInfo,
            (cl_platform_id p, cl_platform_info w, size_t s, void *v,
             size_t *r),
            (p, w, s, v, r))
FORWARD_INT(clGetDeviceIDs,
            (cl_platform_id p, cl_device_type t, cl_uint n, cl_device_id *d,
             cl_uint *nd),
            (p, t, n, d, nd))
FORWARD_INT(clGetDeviceInfo,
            (cl_device_id d, cl_device_info w, size_t s, void *v, size_t *r),
            (d, w, s, v, r))
FORWARD_OBJ(cl_context, clCreateContext,
            (const cl_context_properties *p, cl_uint n, const cl_device_id *d,
             void(CL_CALLBACK *cb)(const char *, const void *, size_t, void *),
             void *u, cl_int *errcode_ret),
            (p, n, d, cb, u, errcode_ret))
FORWARD_OBJ(cl_command_queue, clCreateCommandQueue,
            (cl_context c, cl_device_id d, cl_command_queue_properties p,
             cl_int *errcode_ret),
            (c, d, p, errcode_ret))
FORWARD_INT(clGetCommandQueueInfo,
            (cl_command_queue q, cl_command_queue_info w, size_t s, void *v,
             size_t *r),
            (q, w, s, v, r))
FORWARD_OBJ(cl_mem, clCreateBuffer,
            (cl_context c, cl_mem_flags f, size_t s, void *h,
             cl_int *errcode_ret),
            (c, f, s, h, errcode_ret))
FORWARD_INT(clGetMemObjectInfo,
            (cl_mem m, cl_mem_info w, size_t s, void *v, size_t *r),
            (m, w, s, v, r))
FORWARD_INT(clEnqueueWriteBuffer,
            (cl_command_queue q, cl_mem m, cl_bool b, size_t o, size_t s,
             const void *h, cl_uint n, const cl_event *w, cl_event *e),
            (q, m, b, o, s, h, n, w, e))
FORWARD_INT(clEnqueueReadBuffer,
            (cl_command_queue q, cl_mem m, cl_bool b, size_t o, size_t s,
             void *h, cl_uint n, const cl_event *w, cl_event *e),
            (q, m, b, o, s, h, n, w, e))
FORWARD_OBJ(void *, clEnqueueMapBuffer,
            (cl_command_queue q, cl_mem m, cl_bool b, cl_map_flags f, size_t o,
             size_t s, cl_uint n, const cl_event *w, cl_event *e,
             cl_int *errcode_ret),
            (q, m, b, f, o, s, n, w, e, errcode_ret))
FORWARD_INT(clEnqueueUnmapMemObject,
            (cl_command_queue q, cl_mem m, void *p, cl_uint n,
             const cl_event *w, cl_event *e),
            (q, m, p, n, w, e))
FORWARD_OBJ(cl_program, clCreateProgramWithSource,
            (cl_context c, cl_uint n, const char **s, const size_t *l,
             cl_int *errcode_ret),
            (c, n, s, l, errcode_ret))
FORWARD_INT(clBuildProgram,
            (cl_program p, cl_uint n, const cl_device_id *d, const char *o,
             void(CL_CALLBACK *cb)(cl_program, void *), void *u),
            (p, n, d, o, cb, u))
/* The program cache: a build's binary is read out, a stored one loaded. */
FORWARD_INT(clGetProgramInfo,
            (cl_program p, cl_program_info w, size_t s, void *v, size_t *r),
            (p, w, s, v, r))
FORWARD_OBJ(cl_program, clCreateProgramWithBinary,
            (cl_context c, cl_uint n, const cl_device_id *d, const size_t *l,
             const unsigned char **b, cl_int *status, cl_int *errcode_ret),
            (c, n, d, l, b, status, errcode_ret))
FORWARD_INT(clGetProgramBuildInfo,
            (cl_program p, cl_device_id d, cl_program_build_info w, size_t s,
             void *v, size_t *r),
            (p, d, w, s, v, r))
FORWARD_OBJ(cl_kernel, clCreateKernel,
            (cl_program p, const char *name, cl_int *errcode_ret),
            (p, name, errcode_ret))
FORWARD_INT(clSetKernelArg, (cl_kernel k, cl_uint i, size_t s, const void *v),
            (k, i, s, v))
FORWARD_INT(clFinish, (cl_command_queue q), (q))
/* The enqueue path: deferred calls' error slots are sub-buffers, wait
 * lists are checked, events waited for and markers enqueued. */
FORWARD_OBJ(cl_mem, clCreateSubBuffer,
            (cl_mem b, cl_mem_flags f, cl_buffer_create_type t,
             const void *info, cl_int *errcode_ret),
            (b, f, t, info, errcode_ret))
FORWARD_INT(clGetEventInfo,
            (cl_event e, cl_event_info w, size_t s, void *v, size_t *r),
            (e, w, s, v, r))
FORWARD_INT(clWaitForEvents, (cl_uint n, const cl_event *l), (n, l))
FORWARD_INT(clEnqueueMarkerWithWaitList,
            (cl_command_queue q, cl_uint n, const cl_event *w, cl_event *e),
            (q, n, w, e))

cl_int clEnqueueNDRangeKernel(cl_command_queue q, cl_kernel k, cl_uint dims,
                              const size_t *off, const size_t *global,
                              const size_t *local, cl_uint n,
                              const cl_event *w, cl_event *e)
{
    static cl_int (*real)(cl_command_queue, cl_kernel, cl_uint, const size_t *,
                          const size_t *, const size_t *, cl_uint,
                          const cl_event *, cl_event *);
    if (fault("clEnqueueNDRangeKernel"))
        return CL_OUT_OF_RESOURCES;
    if (!real)
        *(void **)&real = next("clEnqueueNDRangeKernel");
    cl_int err = real(q, k, dims, off, global, local, n, w, e);
    if (err == CL_SUCCESS)
        kernel_enqueued = 1;
    return err;
}

FORWARD_KEEP(clReleaseMemObject, cl_mem)
FORWARD_KEEP(clReleaseKernel, cl_kernel)
FORWARD_KEEP(clReleaseProgram, cl_program)
FORWARD_KEEP(clReleaseCommandQueue, cl_command_queue)
FORWARD_KEEP(clReleaseContext, cl_context)
FORWARD_KEEP(clRetainCommandQueue, cl_command_queue)
FORWARD_KEEP(clRetainContext, cl_context)
FORWARD_KEEP(clRetainMemObject, cl_mem)
FORWARD_KEEP(clReleaseEvent, cl_event)
