/* SPDX-License-Identifier: Apache-2.0 */
/* Per-call device buffers for the extra passes of a plan (docs/design.md,
 * "Kernels"): made for one call, released by the caller with
 * clg_rt_release. Nothing is kept in the context. */
#include "context.h"

clg_status clg_rt_temp_buffer(clg_context *ctx, size_t bytes, cl_mem *out)
{
    cl_int err;
    *out = clCreateBuffer(ctx->cl_ctx, CL_MEM_READ_WRITE, bytes ? bytes : 1,
                          NULL, &err);
    return *out ? CLG_STATUS_OK
                : clg_fail_cl(ctx, err, "clCreateBuffer(temporary)");
}
