/* Buffers: caller memory wrapped in place, the copy path's scratch
 * buffers, transfers, and checks of the caller's buffers (OpenCL 1.2 API
 * sections 5.2 and 5.4). */
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

clg_status clg_rt_scratch(clg_context *ctx, clg_scratch_slot slot,
                          size_t bytes, cl_mem *out)
{
    cl_int err;
    if (bytes == 0)
        bytes = 1;
    if (ctx->scratch[slot] && ctx->scratch_size[slot] >= bytes) {
        *out = ctx->scratch[slot];
        return CLG_STATUS_OK;
    }
    if (ctx->scratch[slot]) {
        clReleaseMemObject(ctx->scratch[slot]);
        ctx->scratch[slot] = NULL;
        ctx->scratch_size[slot] = 0;
    }
    ctx->scratch[slot] = clCreateBuffer(ctx->cl_ctx, CL_MEM_READ_WRITE, bytes,
                                        NULL, &err);
    if (!ctx->scratch[slot])
        return clg_fail_cl(ctx, err, "clCreateBuffer(scratch)");
    ctx->scratch_size[slot] = bytes;
    *out = ctx->scratch[slot];
    return CLG_STATUS_OK;
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

void clg_rt_release(cl_mem *buf)
{
    if (*buf)
        clReleaseMemObject(*buf);
    *buf = NULL;
}

clg_status clg_rt_upload(clg_context *ctx, cl_mem buf, const void *host,
                         size_t bytes)
{
    cl_int err = clEnqueueWriteBuffer(ctx->queue, buf, CL_FALSE, 0, bytes,
                                      host, 0, NULL, NULL);
    return err == CL_SUCCESS ? CLG_STATUS_OK
                             : clg_fail_cl(ctx, err, "clEnqueueWriteBuffer");
}

clg_status clg_rt_download(clg_context *ctx, cl_mem buf, void *host,
                           size_t bytes, int blocking)
{
    cl_int err = clEnqueueReadBuffer(ctx->queue, buf,
                                     blocking ? CL_TRUE : CL_FALSE, 0, bytes,
                                     host, 0, NULL, NULL);
    return err == CL_SUCCESS ? CLG_STATUS_OK
                             : clg_fail_cl(ctx, err, "clEnqueueReadBuffer");
}

clg_status clg_rt_publish(clg_context *ctx, cl_mem buf, size_t bytes)
{
    cl_int err;
    void *m = clEnqueueMapBuffer(ctx->queue, buf, CL_FALSE, CL_MAP_READ, 0,
                                 bytes, 0, NULL, NULL, &err);
    if (!m)
        return clg_fail_cl(ctx, err, "clEnqueueMapBuffer(output)");
    err = clEnqueueUnmapMemObject(ctx->queue, buf, m, 0, NULL, NULL);
    /* A buffer left mapped is never freed by some implementations (POCL
     * 3.1): one more try after a failure such as CL_OUT_OF_HOST_MEMORY,
     * and the first failure is the one reported. */
    if (err != CL_SUCCESS)
        clEnqueueUnmapMemObject(ctx->queue, buf, m, 0, NULL, NULL);
    return err == CL_SUCCESS
               ? CLG_STATUS_OK
               : clg_fail_cl(ctx, err, "clEnqueueUnmapMemObject(output)");
}

clg_status clg_rt_check_buffer(clg_context *ctx, const char *what, cl_mem buf,
                               uint64_t bytes)
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
    if ((uint64_t)size < bytes)
        return clg_fail(ctx, CLG_STATUS_INVALID_ARGUMENT,
                        "%s buffer holds %zu bytes; the tensor needs %llu",
                        what, size, (unsigned long long)bytes);
    return CLG_STATUS_OK;
}
