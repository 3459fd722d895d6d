/* SPDX-License-Identifier: Apache-2.0 */
/* Device buffers for the extra passes of a plan (docs/design.md,
 * "Kernels"): from the call's scratch set, or new for a deferred call. */
#include "context.h"

clg_status clg_rt_call_temp(clg_rt_call *c, size_t bytes, cl_mem *out)
{
    cl_int err;
    clg_status st;
    *out = NULL;
    if (c->kind == CLG_RT_CALL_DEFERRED) {
        *out = clCreateBuffer(c->ctx->cl_ctx, CL_MEM_READ_WRITE,
                              bytes ? bytes : 1, NULL, &err);
        return *out ? CLG_STATUS_OK
                    : clg_fail_cl(c->ctx, err, "clCreateBuffer(temporary)");
    }
    if (!c->temps &&
        (st = clg_rt_scratch_take(c->ctx, &c->temps)) != CLG_STATUS_OK)
        return st;
    cl_mem buf = NULL;
    if ((st = clg_rt_scratch_buffer(c->ctx, c->temps, CLG_SCRATCH_TEMP, bytes,
                                    &buf)) != CLG_STATUS_OK)
        return st;
    /* The caller's reference, released by clg_rt_release; the set keeps
     * its own. */
    if ((err = clRetainMemObject(buf)) != CL_SUCCESS)
        return clg_fail_cl(c->ctx, err, "clRetainMemObject(temporary)");
    *out = buf;
    return CLG_STATUS_OK;
}
