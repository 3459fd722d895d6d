/* SPDX-License-Identifier: Apache-2.0 */
/* The lazy-write shim (cl_lazy_write.h). */
#define _GNU_SOURCE
#include "cl_lazy_write.h"
#include "cl_next.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <clgather/clgather.h> /* <CL/cl.h> at OpenCL 1.2 */

#define MAX_PENDING 64

/* A blocking write made lazy: its real command waits for `gate`. */
typedef struct pending {
    cl_event gate, write;
    cl_command_queue queue;
    void *copy;
} pending;

static int lazy;
static pending pend[MAX_PENDING];
static size_t npend;
static unsigned long deferred;
static cl_event last_kernel; /* retained */

static void *next(const char *name)
{
    return cl_next("cl_lazy_write", name);
}

/* The ICD loader's function `name`, as real_name, of type name##_fn. */
#define REAL(name)                                                            \
    static name##_fn *real_##name;                                            \
    if (!real_##name)                                                         \
    *(void **)&real_##name = next(#name)

typedef cl_int clWaitForEvents_fn(cl_uint, const cl_event *);
typedef cl_int clEnqueueWriteBuffer_fn(cl_command_queue, cl_mem, cl_bool,
                                       size_t, size_t, const void *, cl_uint,
                                       const cl_event *, cl_event *);
typedef cl_int clEnqueueReadBuffer_fn(cl_command_queue, cl_mem, cl_bool,
                                      size_t, size_t, void *, cl_uint,
                                      const cl_event *, cl_event *);
typedef cl_int clEnqueueNDRangeKernel_fn(cl_command_queue, cl_kernel, cl_uint,
                                         const size_t *, const size_t *,
                                         const size_t *, cl_uint,
                                         const cl_event *, cl_event *);
typedef cl_int clFinish_fn(cl_command_queue);

static cl_int real_wait(cl_uint n, const cl_event *l)
{
    REAL(clWaitForEvents);
    return real_clWaitForEvents(n, l);
}

/* Runs pending write i: after the last kernel enqueued on another queue,
 * as late as the specification allows the write to land. */
static void flush_one(size_t i)
{
    pending p = pend[i];
    pend[i] = pend[--npend];
    if (last_kernel) {
        cl_command_queue kq = NULL;
        clGetEventInfo(last_kernel, CL_EVENT_COMMAND_QUEUE, sizeof kq, &kq,
                       NULL);
        if (kq != p.queue)
            real_wait(1, &last_kernel);
    }
    clSetUserEventStatus(p.gate, CL_COMPLETE);
    real_wait(1, &p.write);
    clReleaseEvent(p.gate);
    clReleaseEvent(p.write);
    free(p.copy);
}

static void flush_all(void)
{
    while (npend)
        flush_one(npend - 1);
}

void cl_lazy_write_set(int on)
{
    flush_all();
    lazy = on;
    deferred = 0;
}

unsigned long cl_lazy_write_deferred(void)
{
    return deferred;
}

cl_int clEnqueueWriteBuffer(cl_command_queue q, cl_mem m, cl_bool b, size_t o,
                            size_t s, const void *h, cl_uint n,
                            const cl_event *w, cl_event *e)
{
    REAL(clEnqueueWriteBuffer);
    if (!lazy || !b || npend == MAX_PENDING || n + 1 > 64)
        return real_clEnqueueWriteBuffer(q, m, b, o, s, h, n, w, e);
    cl_context c = NULL;
    cl_int err = clGetCommandQueueInfo(q, CL_QUEUE_CONTEXT, sizeof c, &c,
                                       NULL);
    pending p = {NULL, NULL, q, malloc(s ? s : 1)};
    if (err != CL_SUCCESS || !p.copy)
        abort();
    memcpy(p.copy, h, s);
    if (!(p.gate = clCreateUserEvent(c, &err)))
        abort();
    cl_event list[64];
    if (n)
        memcpy(list, w, n * sizeof *w);
    list[n] = p.gate;
    err = real_clEnqueueWriteBuffer(q, m, CL_FALSE, o, s, p.copy, n + 1, list,
                                    &p.write);
    if (err != CL_SUCCESS) {
        clSetUserEventStatus(p.gate, CL_COMPLETE);
        clReleaseEvent(p.gate);
        free(p.copy);
        return err;
    }
    if (e) {
        clRetainEvent(p.write);
        *e = p.write;
    }
    pend[npend++] = p;
    deferred++;
    return CL_SUCCESS;
}

cl_int clEnqueueNDRangeKernel(cl_command_queue q, cl_kernel k, cl_uint dims,
                              const size_t *off, const size_t *global,
                              const size_t *local, cl_uint n,
                              const cl_event *w, cl_event *e)
{
    REAL(clEnqueueNDRangeKernel);
    cl_event ev = NULL;
    cl_int err = real_clEnqueueNDRangeKernel(q, k, dims, off, global, local, n,
                                             w, &ev);
    if (err != CL_SUCCESS)
        return err;
    if (last_kernel)
        clReleaseEvent(last_kernel);
    last_kernel = ev;
    if (e) {
        clRetainEvent(ev);
        *e = ev;
    }
    return CL_SUCCESS;
}

/* A blocking read is where a lost clear shows: pending writes land first,
 * after the kernels before the read. */
cl_int clEnqueueReadBuffer(cl_command_queue q, cl_mem m, cl_bool b, size_t o,
                           size_t s, void *h, cl_uint n, const cl_event *w,
                           cl_event *e)
{
    REAL(clEnqueueReadBuffer);
    if (b)
        flush_all();
    return real_clEnqueueReadBuffer(q, m, b, o, s, h, n, w, e);
}

/* Waiting for a pending write's event (or for its queue) runs it. */
cl_int clWaitForEvents(cl_uint n, const cl_event *l)
{
    for (size_t i = npend; i-- > 0;)
        for (cl_uint j = 0; j < n; j++)
            if (i < npend && l[j] == pend[i].write) {
                flush_one(i);
                break;
            }
    return real_wait(n, l);
}

cl_int clFinish(cl_command_queue q)
{
    REAL(clFinish);
    for (size_t i = npend; i-- > 0;)
        if (i < npend && pend[i].queue == q)
            flush_one(i);
    return real_clFinish(q);
}
