/* Status table, version and the per-context / per-thread last error. */
#include "internal.h"

#include <stdio.h>
#include <string.h>

unsigned clg_version(void) { return CLG_VERSION_NUMBER; }

const char *clg_version_string(void) { return CLG_VERSION_STRING; }

const char *clg_status_name(clg_status status)
{
    switch (status) {
#define CLG_NAME_CASE_(name, value, message) \
    case CLG_STATUS_##name:                  \
        return #name;
        CLG_STATUS_TABLE(CLG_NAME_CASE_)
#undef CLG_NAME_CASE_
    }
    return "UNKNOWN_STATUS";
}

const char *clg_status_message(clg_status status)
{
    switch (status) {
#define CLG_MESSAGE_CASE_(name, value, message) \
    case CLG_STATUS_##name:                     \
        return message;
        CLG_STATUS_TABLE(CLG_MESSAGE_CASE_)
#undef CLG_MESSAGE_CASE_
    }
    return "unknown status value";
}

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
    snprintf(error_buffer(ctx), CLG_ERROR_CAPACITY, "%s failed: %s (%d)",
             call, clg_cl_error_name(code), (int)code);
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
