/* SPDX-License-Identifier: Apache-2.0 */
/* Events of a call's commands (docs/design.md, "Enqueue and deferred
 * errors"; OpenCL 1.2 API section 5.9): waits that end every command
 * waited for, the execution status of a command, and the events of
 * commands that did not run, kept (parked) in the context until it is
 * destroyed. */
#include "calls.h"

#include <stdlib.h>
#include <string.h>

/* Waits for every event of `evs` (n of them): one wait, and when that
 * reports a failed event, one wait per event, so that every command has
 * ended (completed or terminated) when it returns. */
cl_int clg_rt_wait_all(cl_uint n, const cl_event *evs, int *failed)
{
    if (n == 0)
        return CL_SUCCESS;
    cl_int err = clWaitForEvents(n, evs);
    if (err != CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST)
        return err;
    *failed = 1;
    for (cl_uint i = 0; i < n; i++) {
        err = clWaitForEvents(1, &evs[i]);
        if (err != CL_SUCCESS &&
            err != CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST)
            return err;
    }
    return CL_SUCCESS;
}

/* The execution status of a command waited for. When the wait reported a
 * failed event (`failed`), a command whose status is not negative is
 * waited for alone, and a failed wait counts as its status: Intel's CPU
 * runtime reports CL_COMPLETE for a command it terminated (its wait list
 * failed) yet fails the wait for it, and the wait is what the
 * specification defines (docs/design.md, "Enqueue and deferred errors"). */
cl_int clg_rt_exec_status(cl_event ev, int failed, cl_int *status)
{
    cl_int err = clGetEventInfo(ev, CL_EVENT_COMMAND_EXECUTION_STATUS,
                                sizeof *status, status, NULL);
    if (err == CL_SUCCESS && failed && *status >= 0 &&
        clWaitForEvents(1, &ev) ==
            CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST)
        *status = CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST;
    return err;
}

/* Releases `n` events, or, when `failed`, keeps them in the context until
 * it is destroyed (a runtime may still propagate the failure through
 * them); released at once only when even that list cannot grow. */
void clg_rt_release_events(clg_context *ctx, const cl_event *evs, size_t n,
                           int failed)
{
    size_t kept = 0;
    if (failed && n) {
        pthread_mutex_lock(&ctx->park_lock);
        if (ctx->parked_count + n > ctx->parked_capacity) {
            size_t cap = 2 * (ctx->parked_count + n) + 16;
            cl_event *grown = realloc(ctx->parked, cap * sizeof *grown);
            if (grown) {
                ctx->parked = grown;
                ctx->parked_capacity = cap;
            }
        }
        if (ctx->parked_count + n <= ctx->parked_capacity) {
            memcpy(ctx->parked + ctx->parked_count, evs, n * sizeof *evs);
            ctx->parked_count += n;
            kept = n;
        }
        pthread_mutex_unlock(&ctx->park_lock);
    }
    for (size_t i = kept; i < n; i++)
        clReleaseEvent(evs[i]);
}

/* 1 when any of the events ended with a negative execution status (or
 * cannot say). */
int clg_rt_any_failed(const cl_event *evs, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        cl_int status = CL_COMPLETE;
        if (clGetEventInfo(evs[i], CL_EVENT_COMMAND_EXECUTION_STATUS,
                           sizeof status, &status, NULL) != CL_SUCCESS ||
            status < 0)
            return 1;
    }
    return 0;
}
