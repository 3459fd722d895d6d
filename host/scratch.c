/* SPDX-License-Identifier: Apache-2.0 */
/* Scratch sets (docs/design.md, "Host memory and device buffers"): the
 * copy path's device buffers, one per tensor role, taken from the
 * context's pool by one call at a time, grown as needed and given back
 * (after a failure the queue could not drain, to the lost list: never
 * reused). */
#include "calls.h"

#include <stdlib.h>

clg_status clg_rt_scratch_take(clg_context *ctx, clg_rt_scratch **out)
{
    pthread_mutex_lock(&ctx->epoch_lock);
    clg_rt_scratch *s = ctx->free_scratch;
    if (s)
        ctx->free_scratch = s->next;
    pthread_mutex_unlock(&ctx->epoch_lock);
    if (!s && !(s = calloc(1, sizeof *s)))
        return clg_fail(ctx, CLG_STATUS_OUT_OF_MEMORY,
                        "out of host memory taking scratch buffers");
    s->next = NULL;
    *out = s;
    return CLG_STATUS_OK;
}

clg_status clg_rt_scratch_buffer(clg_context *ctx, clg_rt_scratch *set,
                                 clg_scratch_slot slot, size_t bytes,
                                 cl_mem *out)
{
    cl_int err;
    if (bytes == 0)
        bytes = 1;
    if (set->buf[slot] && set->size[slot] >= bytes) {
        *out = set->buf[slot];
        return CLG_STATUS_OK;
    }
    if (set->buf[slot]) {
        clReleaseMemObject(set->buf[slot]);
        set->buf[slot] = NULL;
        set->size[slot] = 0;
    }
    set->buf[slot] = clCreateBuffer(ctx->cl_ctx, CL_MEM_READ_WRITE, bytes,
                                    NULL, &err);
    if (!set->buf[slot])
        return clg_fail_cl(ctx, err, "clCreateBuffer(scratch)");
    set->size[slot] = bytes;
    *out = set->buf[slot];
    return CLG_STATUS_OK;
}

void clg_rt_scratch_give(clg_context *ctx, clg_rt_scratch *set, int lost)
{
    if (!set)
        return;
    pthread_mutex_lock(&ctx->epoch_lock);
    clg_rt_scratch **to = lost ? &ctx->lost_scratch : &ctx->free_scratch;
    set->next = *to;
    *to = set;
    pthread_mutex_unlock(&ctx->epoch_lock);
}

void clg_rt_free_scratch_list(clg_rt_scratch *s)
{
    while (s) {
        clg_rt_scratch *next = s->next;
        for (int i = 0; i < CLG_SCRATCH_COUNT; i++)
            if (s->buf[i])
                clReleaseMemObject(s->buf[i]);
        free(s);
        s = next;
    }
}
