/* SPDX-License-Identifier: Apache-2.0 */
/* Error slots (docs/design.md, "Error slots"; OpenCL 1.2 API section
 * 5.2.1). Every call's kernels write one error slot: two ints, [0] raised
 * on a bad index, [1] a sink the lean bodies store to when the index is
 * good. A blocking call takes a private slot (a buffer of its own) from
 * the context's pool; a deferred call takes the next slot of the epoch's
 * current chunk, a sub-buffer, so that a collect (host/collect.c) reads up
 * to 1024 slots with one command. A raised slot is cleared with a write
 * that is waited for (clg_rt_write_zeros). */
#include "calls.h"

#include <stdlib.h>

const cl_int clg_rt_zero_slot[2] = {0, 0};

static clg_status zeroed_buffer(clg_context *ctx, size_t bytes, cl_mem *out)
{
    cl_int err = CL_SUCCESS;
    void *zeros = calloc(1, bytes);
    if (!zeros)
        return clg_fail(ctx, CLG_STATUS_OUT_OF_MEMORY,
                        "out of host memory making error slots");
    *out = clCreateBuffer(ctx->cl_ctx,
                          CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, bytes,
                          zeros, &err);
    free(zeros);
    return *out ? CLG_STATUS_OK
                : clg_fail_cl(ctx, err, "clCreateBuffer(error slots)");
}

void clg_rt_free_chunk(clg_slot_chunk *k)
{
    for (size_t i = 0; i < CLG_SLOTS_PER_CHUNK; i++)
        if (k->slots[i].buf)
            clReleaseMemObject(k->slots[i].buf);
    if (k->parent)
        clReleaseMemObject(k->parent);
    free(k);
}

static clg_status new_chunk(clg_context *ctx, clg_slot_chunk **out)
{
    clg_slot_chunk *k = calloc(1, sizeof *k);
    if (!k)
        return clg_fail(ctx, CLG_STATUS_OUT_OF_MEMORY,
                        "out of host memory making error slots");
    clg_status st = zeroed_buffer(ctx, ctx->slot_stride * CLG_SLOTS_PER_CHUNK,
                                  &k->parent);
    if (st != CLG_STATUS_OK) {
        free(k);
        return st;
    }
    for (size_t i = 0; i < CLG_SLOTS_PER_CHUNK; i++)
        k->slots[i].chunk = k;
    *out = k;
    return CLG_STATUS_OK;
}

/* Slot i of chunk k, its sub-buffer made on first use. */
static clg_status chunk_slot(clg_context *ctx, clg_slot_chunk *k, size_t i,
                             clg_rt_slot **out)
{
    cl_int err = CL_SUCCESS;
    clg_rt_slot *s = &k->slots[i];
    if (!s->buf) {
        cl_buffer_region r = {i * ctx->slot_stride, sizeof clg_rt_zero_slot};
        s->buf = clCreateSubBuffer(k->parent, CL_MEM_READ_WRITE,
                                   CL_BUFFER_CREATE_TYPE_REGION, &r, &err);
        if (!s->buf)
            return clg_fail_cl(ctx, err, "clCreateSubBuffer(error slot)");
    }
    *out = s;
    return CLG_STATUS_OK;
}

/* The epoch's next slot; epoch_lock held. */
clg_status clg_rt_deferred_slot(clg_context *ctx, clg_rt_slot **out)
{
    clg_epoch *e = &ctx->epoch;
    if (!e->chunks || e->chunks->used == CLG_SLOTS_PER_CHUNK) {
        clg_slot_chunk *k = ctx->free_chunks;
        clg_status st;
        if (k)
            ctx->free_chunks = k->next;
        else if ((st = new_chunk(ctx, &k)) != CLG_STATUS_OK)
            return st;
        k->used = k->live = 0;
        k->whole = 0;
        k->next = e->chunks;
        e->chunks = k;
    }
    clg_status st = chunk_slot(ctx, e->chunks, e->chunks->used, out);
    if (st == CLG_STATUS_OK) {
        e->chunks->used++;
        e->chunks->live++;
    }
    return st;
}

/* A private slot from the pool (epoch_lock held). */
clg_status clg_rt_private_slot(clg_context *ctx, clg_rt_slot **out)
{
    clg_rt_slot *s = ctx->free_slots;
    clg_status st;
    if (s) {
        ctx->free_slots = s->next;
        *out = s;
        return CLG_STATUS_OK;
    }
    if (!(s = calloc(1, sizeof *s)))
        return clg_fail(ctx, CLG_STATUS_OUT_OF_MEMORY,
                        "out of host memory making an error slot");
    if ((st = zeroed_buffer(ctx, sizeof clg_rt_zero_slot, &s->buf)) !=
        CLG_STATUS_OK) {
        free(s);
        return st;
    }
    *out = s;
    return CLG_STATUS_OK;
}

void clg_rt_free_slot_list(clg_rt_slot *s)
{
    while (s) {
        clg_rt_slot *next = s->next;
        clReleaseMemObject(s->buf);
        free(s);
        s = next;
    }
}

const clg_rt_clear_names clg_rt_slot_names = {
    "clEnqueueWriteBuffer(error slot)", "clWaitForEvents(error slot)",
    "clGetEventInfo(CL_EVENT_COMMAND_"
    "EXECUTION_STATUS, error slot)"};
const clg_rt_clear_names clg_rt_chunk_names = {
    "clEnqueueWriteBuffer(error slots)", "clWaitForEvents(error slots)",
    "clGetEventInfo(CL_EVENT_COMMAND_"
    "EXECUTION_STATUS, error slots)"};

/* Writes zeros over the first `bytes` of `buf` after the wait list and
 * waits until the write has run. A blocking write only promises that the
 * host bytes were taken (OpenCL 1.2, 5.2.2): Intel's CPU runtime returns
 * before the command runs, so a slot handed on to a call on another queue
 * would be cleared after that call's kernel raised it, or read as still
 * raised (docs/design.md, "Enqueue and deferred errors"). On failure
 * *call names the command, from `names`. */
cl_int clg_rt_write_zeros(clg_context *ctx, cl_command_queue q, cl_mem buf,
                          size_t bytes, const void *zeros, cl_uint nw,
                          const cl_event *w, const clg_rt_clear_names *names,
                          const char **call)
{
    cl_event ev = NULL;
    cl_int status = CL_COMPLETE;
    cl_int err = clEnqueueWriteBuffer(q, buf, CL_TRUE, 0, bytes, zeros, nw, w,
                                      &ev);
    *call = names->write;
    if (err == CL_SUCCESS && (err = clWaitForEvents(1, &ev)) != CL_SUCCESS)
        *call = names->wait;
    if (err == CL_SUCCESS &&
        (err = clGetEventInfo(ev, CL_EVENT_COMMAND_EXECUTION_STATUS,
                              sizeof status, &status, NULL)) != CL_SUCCESS)
        *call = names->status;
    if (err == CL_SUCCESS && status < 0) {
        *call = names->write;
        err = CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST;
    }
    if (ev)
        clg_rt_release_events(ctx, &ev, 1, err != CL_SUCCESS);
    return err;
}
