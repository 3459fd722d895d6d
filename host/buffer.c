/* SPDX-License-Identifier: Apache-2.0 */
/* Buffers: caller memory wrapped in place, transfers inside a call, and
 * checks of the caller's buffers (OpenCL 1.2 API sections 5.2 and 5.4).
 * The copy path's scratch sets are in host/scratch.c. */
#include "context.h"

clg_status clg_rt_wrap(clg_context *ctx, void *host, size_t bytes,
                       int writable, cl_mem *out)
{
    cl_int err;
    cl_mem_flags flags = CL_MEM_USE_HOST_PTR |
                         (writable ? CL_MEM_WRITE_ONLY : CL_MEM_READ_ONLY);
    *out = clCreateBuffer(ctx->cl_ctx, flags, bytes, host, &err);
    return *out ? CLG_STATUS_OK
                : clg_fail_cl(ctx, err, "clCreateBuffer(CL_MEM_USE_HOST_PTR)");
}

clg_status clg_rt_const_buffer(clg_context *ctx, const void *host,
                               size_t bytes, cl_mem *out)
{
    cl_int err;
    *out = clCreateBuffer(ctx->cl_ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                          bytes, (void *)host, &err);
    return *out
               ? CLG_STATUS_OK
               : clg_fail_cl(ctx, err, "clCreateBuffer(CL_MEM_COPY_HOST_PTR)");
}

clg_status clg_rt_copy_buffer(clg_context *ctx, const void *host, size_t bytes,
                              cl_mem *out)
{
    cl_int err;
    *out = clCreateBuffer(ctx->cl_ctx,
                          CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, bytes,
                          (void *)host, &err);
    return *out
               ? CLG_STATUS_OK
               : clg_fail_cl(ctx, err, "clCreateBuffer(CL_MEM_COPY_HOST_PTR)");
}

void clg_rt_release(cl_mem *buf)
{
    if (*buf)
        clReleaseMemObject(*buf);
    *buf = NULL;
}

clg_status clg_rt_sub_buffer(clg_context *ctx, cl_mem buf, uint64_t offset,
                             size_t bytes, cl_mem *out)
{
    cl_int err;
    cl_buffer_region region = {(size_t)offset, bytes};
    *out = clCreateSubBuffer(buf, 0, CL_BUFFER_CREATE_TYPE_REGION, &region,
                             &err);
    return *out ? CLG_STATUS_OK : clg_fail_cl(ctx, err, "clCreateSubBuffer");
}

clg_status clg_rt_new_buffer(clg_context *ctx, size_t bytes, cl_mem *out)
{
    cl_int err;
    *out = clCreateBuffer(ctx->cl_ctx, CL_MEM_READ_WRITE, bytes ? bytes : 1,
                          NULL, &err);
    return *out ? CLG_STATUS_OK : clg_fail_cl(ctx, err, "clCreateBuffer");
}

clg_status clg_rt_copy(clg_rt_call *c, cl_mem src, uint64_t src_offset,
                       cl_mem dst, uint64_t dst_offset, size_t bytes)
{
    cl_uint nw;
    const cl_event *w;
    cl_event ev;
    cl_event *evp = clg_rt_call_next(c, &nw, &w, &ev);
    cl_int err = clEnqueueCopyBuffer(c->queue, src, dst, (size_t)src_offset,
                                     (size_t)dst_offset, bytes, nw, w, evp);
    if (err != CL_SUCCESS)
        return clg_fail_cl(c->ctx, err, "clEnqueueCopyBuffer");
    return clg_rt_call_enqueued(c, ev, "clEnqueueCopyBuffer");
}

clg_status clg_rt_upload(clg_rt_call *c, cl_mem buf, const void *host,
                         size_t bytes)
{
    cl_uint nw;
    const cl_event *w;
    cl_event ev;
    cl_event *evp = clg_rt_call_next(c, &nw, &w, &ev);
    cl_int err = clEnqueueWriteBuffer(c->queue, buf, CL_FALSE, 0, bytes, host,
                                      nw, w, evp);
    if (err != CL_SUCCESS)
        return clg_fail_cl(c->ctx, err, "clEnqueueWriteBuffer");
    return clg_rt_call_enqueued(c, ev, "clEnqueueWriteBuffer");
}

clg_status clg_rt_download(clg_rt_call *c, cl_mem buf, void *host,
                           size_t bytes, int blocking)
{
    cl_uint nw;
    const cl_event *w;
    cl_event ev;
    cl_event *evp = clg_rt_call_next(c, &nw, &w, &ev);
    cl_int err = clEnqueueReadBuffer(c->queue, buf,
                                     blocking ? CL_TRUE : CL_FALSE, 0, bytes,
                                     host, nw, w, evp);
    if (err != CL_SUCCESS)
        return clg_fail_cl(c->ctx, err, "clEnqueueReadBuffer");
    return clg_rt_call_enqueued(c, ev, "clEnqueueReadBuffer");
}

clg_status clg_rt_publish(clg_rt_call *c, cl_mem buf, size_t bytes,
                          int map_wait)
{
    cl_int err;
    cl_uint nw;
    const cl_event *w;
    cl_event ev;
    cl_event *evp = clg_rt_call_next(c, &nw, &w, &ev);
    void *m = clEnqueueMapBuffer(c->queue, buf, CL_FALSE, CL_MAP_READ, 0,
                                 bytes, nw, w, evp, &err);
    if (!m)
        return clg_fail_cl(c->ctx, err, "clEnqueueMapBuffer(output)");
    clg_status st = clg_rt_call_enqueued(c, ev, "clEnqueueMapBuffer(output)");
    if (st != CLG_STATUS_OK) {
        /* The map's event is gone: unmap after the whole queue. */
        clFinish(c->queue);
        clEnqueueUnmapMemObject(c->queue, buf, m, 0, NULL, NULL);
        return st;
    }
    /* With map_wait the unmap is enqueued once the map has run: OpenCL 1.2
     * lets an unmap name the pointer of a map still queued, but Mesa's
     * Rusticl 22.3 refuses it (CL_INVALID_VALUE) until the map's event has
     * completed. A failed map is reported by the call's wait, which checks
     * every command's status. */
    if (map_wait)
        clWaitForEvents(1, &ev);
    evp = clg_rt_call_next(c, &nw, &w, &ev);
    err = clEnqueueUnmapMemObject(c->queue, buf, m, nw, w, evp);
    /* A buffer left mapped is never freed by some implementations (POCL
     * 3.1): one more try after a failure such as CL_OUT_OF_HOST_MEMORY,
     * and the first failure is the one reported. */
    if (err != CL_SUCCESS) {
        clEnqueueUnmapMemObject(c->queue, buf, m, nw, w, NULL);
        return clg_fail_cl(c->ctx, err, "clEnqueueUnmapMemObject(output)");
    }
    return clg_rt_call_enqueued(c, ev, "clEnqueueUnmapMemObject(output)");
}

/* Largest power of two dividing `a`, at most 4096. */
static size_t alignment_of(uintptr_t a)
{
    a |= 4096;
    return (size_t)(a & (~a + 1));
}

size_t clg_rt_mem_alignment(clg_context *ctx, cl_mem buf, const void *svm)
{
    cl_mem_flags flags = 0;
    void *host = NULL;
    if (svm)
        return alignment_of((uintptr_t)svm);
    if (!buf || clGetMemObjectInfo(buf, CL_MEM_FLAGS, sizeof flags, &flags,
                                   NULL) != CL_SUCCESS)
        return 1;
    if (!(flags & CL_MEM_USE_HOST_PTR)) {
        size_t base = clg_rt_facts(ctx)->base_align;
        return base > 0 ? alignment_of(base) : 1;
    }
    if (clGetMemObjectInfo(buf, CL_MEM_HOST_PTR, sizeof host, &host, NULL) !=
            CL_SUCCESS ||
        !host)
        return 1;
    return alignment_of((uintptr_t)host);
}

clg_status clg_rt_check_buffer(clg_context *ctx, const char *what, cl_mem buf,
                               uint64_t offset, uint64_t bytes)
{
    size_t size = 0;
    cl_context owner = NULL;
    if (bytes == 0)
        return CLG_STATUS_OK;
    if (!buf)
        return clg_fail(ctx, CLG_STATUS_NULL_POINTER,
                        "%s buffer is NULL for a tensor of %llu bytes", what,
                        (unsigned long long)bytes);
    cl_int err = clGetMemObjectInfo(buf, CL_MEM_SIZE, sizeof size, &size,
                                    NULL);
    if (err == CL_SUCCESS)
        err = clGetMemObjectInfo(buf, CL_MEM_CONTEXT, sizeof owner, &owner,
                                 NULL);
    if (err != CL_SUCCESS)
        return clg_fail_cl(ctx, err, "clGetMemObjectInfo");
    if (owner != ctx->cl_ctx)
        return clg_fail(ctx, CLG_STATUS_INVALID_ARGUMENT,
                        "%s buffer belongs to another cl_context than the "
                        "clgather context's",
                        what);
    if (offset == 0 && (uint64_t)size < bytes)
        return clg_fail(ctx, CLG_STATUS_INVALID_ARGUMENT,
                        "%s buffer holds %zu bytes; the tensor needs %llu",
                        what, size, (unsigned long long)bytes);
    if (offset > (uint64_t)size || (uint64_t)size - offset < bytes)
        return clg_fail(ctx, CLG_STATUS_INVALID_ARGUMENT,
                        "%s buffer holds %zu bytes; the tensor needs %llu "
                        "at offset %llu",
                        what, size, (unsigned long long)bytes,
                        (unsigned long long)offset);
    return CLG_STATUS_OK;
}
