/* The last error: per context, or per thread for calls made without one;
 * the raw cl_int of an OpenCL failure; the build log of a failed build
 * (docs/design.md, "Errors"). */
#include "context.h"

#include <stdio.h>

/* Messages of calls made without a context, one buffer per thread. */
static _Thread_local char thread_error[CLG_ERROR_CAPACITY];

static char *error_buffer(clg_context *ctx)
{
    return ctx ? ctx->last_error : thread_error;
}

clg_status clg_fail(clg_context *ctx, clg_status status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(error_buffer(ctx), CLG_ERROR_CAPACITY, fmt, ap);
    va_end(ap);
    if (ctx)
        ctx->last_cl_error = CL_SUCCESS;
    return status;
}

clg_status clg_fail_cl(clg_context *ctx, cl_int code, const char *call)
{
    snprintf(error_buffer(ctx), CLG_ERROR_CAPACITY, "%s failed: %s (%d)", call,
             clg_cl_error_name(code), (int)code);
    if (ctx)
        ctx->last_cl_error = code;
    return CLG_STATUS_OPENCL_ERROR;
}

void clg_clear_error(clg_context *ctx)
{
    error_buffer(ctx)[0] = '\0';
    if (ctx)
        ctx->last_cl_error = CL_SUCCESS;
}

const char *clg_context_last_error(const clg_context *ctx)
{
    return ctx ? ctx->last_error : thread_error;
}

cl_int clg_context_last_cl_error(const clg_context *ctx)
{
    return ctx ? ctx->last_cl_error : CL_SUCCESS;
}

const char *clg_context_build_log(const clg_context *ctx)
{
    return (ctx && ctx->build_log) ? ctx->build_log : "";
}
