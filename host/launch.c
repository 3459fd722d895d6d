/* Kernel launches, the device error flag, and waiting for the queue
 * (OpenCL 1.2 API sections 5.8 and 5.10). */
#include "context.h"

#include <stdio.h>

static const cl_int zero_flag = 0;

/* Sets args[0 .. count-1] in order, stopping at the first failure. */
static clg_status set_args(clg_context *ctx, cl_kernel k,
                           const clg_rt_arg *args, size_t count)
{
    for (size_t i = 0; i < count; i++) {
        cl_int err = clSetKernelArg(k, (cl_uint)i, args[i].size,
                                    args[i].value);
        if (err != CL_SUCCESS) {
            char call[48];
            snprintf(call, sizeof call, "clSetKernelArg(%zu)", i);
            return clg_fail_cl(ctx, err, call);
        }
    }
    return CLG_STATUS_OK;
}

clg_status clg_rt_launch(clg_context *ctx, cl_kernel kernel,
                         const clg_rt_arg *args, size_t nargs,
                         const clg_geometry *g)
{
    size_t origin[3] = {0, 0, 0}, global[3] = {1, 1, 1}, local[3] = {1, 1, 1};
    size_t cap[3];
    clg_status st = set_args(ctx, kernel, args, nargs);
    if (st != CLG_STATUS_OK)
        return st;
    for (unsigned d = 0; d < g->dims && d < 3; d++) {
        origin[d] = g->origin[d];
        global[d] = g->global[d];
        local[d] = g->local[d];
    }
    /* The portable grid limit: 65535 work-groups in dimensions 1 and 2 on
     * GPUs; elsewhere one launch. */
    for (int d = 0; d < 3; d++)
        cap[d] = ctx->facts.plan_type == CLG_DEVICE_TYPE_GPU && d > 0
                     ? 65535 * local[d]
                     : global[d];
    for (size_t z = 0; z < global[2]; z += cap[2])
        for (size_t y = 0; y < global[1]; y += cap[1]) {
            size_t offset[3] = {origin[0], origin[1] + y, origin[2] + z};
            size_t count[3] = {global[0],
                               global[1] - y < cap[1] ? global[1] - y : cap[1],
                               global[2] - z < cap[2] ? global[2] - z
                                                      : cap[2]};
            cl_int err = clEnqueueNDRangeKernel(ctx->queue, kernel, g->dims,
                                                offset, count, local, 0, NULL,
                                                NULL);
            if (err != CL_SUCCESS)
                return clg_fail_cl(ctx, err, "clEnqueueNDRangeKernel");
        }
    return CLG_STATUS_OK;
}

const cl_mem *clg_rt_flag_buffer(const clg_context *ctx)
{
    return &ctx->flag;
}

clg_status clg_rt_flag_arm(clg_context *ctx)
{
    /* The flag is zero unless a kernel raised it, and a raised flag is
     * cleared when read; only a call that failed between its launch and
     * its read leaves it in doubt. So most calls enqueue no write here. */
    if (ctx->flag_dirty) {
        cl_int err = clEnqueueWriteBuffer(ctx->queue, ctx->flag, CL_TRUE, 0,
                                          sizeof zero_flag, &zero_flag, 0,
                                          NULL, NULL);
        if (err != CL_SUCCESS)
            return clg_fail_cl(ctx, err, "clEnqueueWriteBuffer(error flag)");
    }
    ctx->flag_dirty = 1;
    return CLG_STATUS_OK;
}

clg_status clg_rt_flag_read(clg_context *ctx, int *raised)
{
    cl_int flag = 0;
    cl_int err = clEnqueueReadBuffer(ctx->queue, ctx->flag, CL_TRUE, 0,
                                     sizeof flag, &flag, 0, NULL, NULL);
    if (err != CL_SUCCESS)
        return clg_fail_cl(ctx, err, "clEnqueueReadBuffer(error flag)");
    *raised = flag != 0;
    if (flag != 0) {
        err = clEnqueueWriteBuffer(ctx->queue, ctx->flag, CL_TRUE, 0,
                                   sizeof zero_flag, &zero_flag, 0, NULL,
                                   NULL);
        if (err != CL_SUCCESS)
            return clg_fail_cl(ctx, err, "clEnqueueWriteBuffer(error flag)");
    }
    ctx->flag_dirty = 0;
    return CLG_STATUS_OK;
}

void clg_rt_flag_assume_clear(clg_context *ctx)
{
    ctx->flag_dirty = 0;
}

clg_status clg_rt_finish(clg_context *ctx)
{
    cl_int err = clFinish(ctx->queue);
    return err == CL_SUCCESS ? CLG_STATUS_OK
                             : clg_fail_cl(ctx, err, "clFinish");
}

int clg_rt_drain(clg_context *ctx)
{
    return clFinish(ctx->queue) == CL_SUCCESS;
}
