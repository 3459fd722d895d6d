/* SPDX-License-Identifier: Apache-2.0 */
/* A context's call state released by clg_context_destroy (docs/design.md,
 * "Enqueue and deferred errors"): the pending records once their commands
 * have ended, the kept events, the pools of error slots, chunks and
 * scratch sets, and the sink slot. */
#include "calls.h"

#include <stdlib.h>

static void free_chunk_list(clg_slot_chunk *k)
{
    while (k) {
        clg_slot_chunk *next = k->next;
        clg_rt_free_chunk(k);
        k = next;
    }
}

void clg_calls_release(clg_context *ctx)
{
    clg_epoch *e = &ctx->epoch;
    cl_int *status = calloc(e->rec_count ? e->rec_count : 1, sizeof *status);
    int *gate = calloc(e->rec_count ? e->rec_count : 1, sizeof *gate);
    const char *call = "";
    if (status && gate)
        clg_rt_wait_records(e, status, gate, &call);
    free(status);
    free(gate);
    clg_rt_free_records(ctx, e->recs, e->rec_count, 0);
    for (size_t i = 0; i < ctx->parked_count; i++)
        clReleaseEvent(ctx->parked[i]);
    free(ctx->parked);
    ctx->parked = NULL;
    ctx->parked_count = ctx->parked_capacity = 0;
    free_chunk_list(e->chunks);
    e->chunks = NULL;
    clg_rt_retire_epoch(ctx, e, 0);
    free_chunk_list(ctx->free_chunks);
    free_chunk_list(ctx->lost_chunks);
    clg_rt_free_slot_list(ctx->free_slots);
    clg_rt_free_slot_list(ctx->lost_slots);
    clg_rt_free_scratch_list(ctx->free_scratch);
    clg_rt_free_scratch_list(ctx->lost_scratch);
    if (ctx->sink)
        clReleaseMemObject(ctx->sink);
    ctx->free_chunks = ctx->lost_chunks = NULL;
    ctx->free_slots = ctx->lost_slots = NULL;
    ctx->free_scratch = ctx->lost_scratch = NULL;
    ctx->sink = NULL;
}
