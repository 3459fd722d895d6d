/* SPDX-License-Identifier: Apache-2.0 */
/* A call: one operator call's commands on one queue (docs/design.md,
 * "Enqueue and deferred errors"; OpenCL 1.2 API sections 5.9 and 5.10).
 * clg_rt_call_open checks the caller's queue and wait list and takes the
 * call's error slot (host/error_slots.c); every command's event is kept
 * until the call has waited for it (a blocking call: clg_rt_call_wait,
 * which reads and clears the slot) or has recorded it in the epoch (a
 * deferred call: clg_rt_call_defer; the next collect, host/collect.c,
 * reads it); clg_rt_call_close gives back what the call holds. */
#include "calls.h"

#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ checks */

static clg_status check_queue(clg_context *ctx, cl_command_queue q,
                              int *out_of_order)
{
    cl_context qctx = NULL;
    cl_device_id qdev = NULL;
    cl_command_queue_properties props = 0;
    cl_int err;
    if ((err = clGetCommandQueueInfo(q, CL_QUEUE_CONTEXT, sizeof qctx, &qctx,
                                     NULL)) != CL_SUCCESS ||
        (err = clGetCommandQueueInfo(q, CL_QUEUE_DEVICE, sizeof qdev, &qdev,
                                     NULL)) != CL_SUCCESS ||
        (err = clGetCommandQueueInfo(q, CL_QUEUE_PROPERTIES, sizeof props,
                                     &props, NULL)) != CL_SUCCESS)
        /* Only CL_INVALID_COMMAND_QUEUE says what the caller passed;
         * anything else (CL_OUT_OF_RESOURCES, ...) is the runtime's. */
        return err == CL_INVALID_COMMAND_QUEUE
                   ? clg_fail(ctx, CLG_STATUS_INVALID_ARGUMENT,
                              "queue is not a command queue "
                              "(clGetCommandQueueInfo: %s)",
                              clg_cl_error_name(err))
                   : clg_fail_cl(ctx, err, "clGetCommandQueueInfo(queue)");
    if (qctx != ctx->cl_ctx)
        return clg_fail(ctx, CLG_STATUS_INVALID_ARGUMENT,
                        "queue belongs to another cl_context than the "
                        "clgather context's");
    if (qdev != ctx->device)
        return clg_fail(ctx, CLG_STATUS_INVALID_ARGUMENT,
                        "queue is on another device than the clgather "
                        "context's");
    *out_of_order = (props & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE) != 0;
    return CLG_STATUS_OK;
}

static clg_status check_wait_list(clg_context *ctx, cl_uint n,
                                  const cl_event *list)
{
    if (n > 0 && !list)
        return clg_fail(ctx, CLG_STATUS_INVALID_ARGUMENT,
                        "event_wait_list is NULL but num_events_in_wait_list "
                        "is %u",
                        (unsigned)n);
    if (n == 0 && list)
        return clg_fail(ctx, CLG_STATUS_INVALID_ARGUMENT,
                        "event_wait_list is not NULL but "
                        "num_events_in_wait_list is 0");
    for (cl_uint i = 0; i < n; i++) {
        cl_context owner = NULL;
        cl_int err, status = CL_COMPLETE;
        if (!list[i])
            return clg_fail(ctx, CLG_STATUS_INVALID_ARGUMENT,
                            "event_wait_list[%u] is NULL", (unsigned)i);
        err = clGetEventInfo(list[i], CL_EVENT_CONTEXT, sizeof owner, &owner,
                             NULL);
        if (err != CL_SUCCESS && err != CL_INVALID_EVENT)
            return clg_fail_cl(ctx, err, "clGetEventInfo(event_wait_list)");
        if (err != CL_SUCCESS || owner != ctx->cl_ctx)
            return clg_fail(ctx, CLG_STATUS_INVALID_ARGUMENT,
                            "event_wait_list[%u] is not an event of the "
                            "clgather context's cl_context",
                            (unsigned)i);
        /* A command behind an event that has already failed may never be
         * started nor terminated by the runtime (POCL 3.1 leaves it
         * queued): refused here instead of hanging the finish. */
        err = clGetEventInfo(list[i], CL_EVENT_COMMAND_EXECUTION_STATUS,
                             sizeof status, &status, NULL);
        if (err != CL_SUCCESS)
            return clg_fail_cl(ctx, err,
                               "clGetEventInfo(event_wait_list, "
                               "CL_EVENT_COMMAND_EXECUTION_STATUS)");
        if (status < 0)
            return clg_fail_exec(ctx, status,
                                 "event_wait_list[%u] has already failed "
                                 "(its execution status is %d, an error): "
                                 "nothing was enqueued",
                                 (unsigned)i, (int)status);
    }
    return CLG_STATUS_OK;
}

/* ------------------------------------------------------------ calls */

cl_command_queue clg_rt_host_queue(clg_context *ctx)
{
    return ctx->own_queue;
}

clg_status clg_rt_call_open(clg_context *ctx, cl_command_queue queue,
                            cl_uint num_wait, const cl_event *wait,
                            clg_rt_call_kind kind, clg_rt_call *c)
{
    int out_of_order = ctx->queue_out_of_order;
    clg_status st;
    memset(c, 0, sizeof *c);
    c->ctx = ctx;
    if (queue == ctx->own_queue)
        out_of_order = 0;
    else if (queue && queue != ctx->queue &&
             (st = check_queue(ctx, queue, &out_of_order)) != CLG_STATUS_OK)
        return st;
    if ((st = check_wait_list(ctx, num_wait, wait)) != CLG_STATUS_OK)
        return st;
    c->queue = queue ? queue : ctx->queue;
    c->kind = kind;
    c->chain = out_of_order;
    c->num_wait = num_wait;
    c->wait = wait;
    if (kind == CLG_RT_CALL_UNCHECKED) {
        c->err = ctx->sink;
        return CLG_STATUS_OK;
    }
    pthread_mutex_lock(&ctx->epoch_lock);
    if (kind == CLG_RT_CALL_DEFERRED &&
        ctx->epoch.rec_count >= CLG_MAX_PENDING)
        st = clg_fail(ctx, CLG_STATUS_PENDING_LIMIT,
                      "%zu operations are pending since the last "
                      "clg_context_finish, the most a context holds; "
                      "nothing was enqueued",
                      ctx->epoch.rec_count);
    else
        st = kind == CLG_RT_CALL_DEFERRED ? clg_rt_deferred_slot(ctx, &c->slot)
                                          : clg_rt_private_slot(ctx, &c->slot);
    if (st == CLG_STATUS_OK && kind == CLG_RT_CALL_DEFERRED)
        c->locked = 1; /* until clg_rt_call_defer or close */
    else
        pthread_mutex_unlock(&ctx->epoch_lock);
    if (st == CLG_STATUS_OK)
        c->err = c->slot->buf;
    return st;
}

static clg_rt_cmd *cmds_of(clg_rt_call *c)
{
    return c->cmds ? c->cmds : c->inline_cmds;
}

cl_event *clg_rt_call_next(clg_rt_call *c, cl_uint *num_wait,
                           const cl_event **wait, cl_event *ev)
{
    if (c->enqueued == 0) {
        *num_wait = c->num_wait;
        *wait = c->num_wait ? c->wait : NULL;
    } else if (c->chain && c->last) {
        *num_wait = 1;
        *wait = &c->last;
    } else {
        *num_wait = 0;
        *wait = NULL;
    }
    *ev = NULL;
    return ev;
}

clg_status clg_rt_call_enqueued(clg_rt_call *c, cl_event ev, const char *what)
{
    c->enqueued++;
    if (!ev)
        return CLG_STATUS_OK;
    if (c->ncmds == CLG_RT_INLINE_CMDS && !c->cmds) {
        clg_rt_cmd *grown = malloc(4 * CLG_RT_INLINE_CMDS * sizeof *grown);
        if (grown) {
            memcpy(grown, c->inline_cmds, sizeof c->inline_cmds);
            c->cmds = grown;
            c->cmd_cap = 4 * CLG_RT_INLINE_CMDS;
        }
    } else if (c->cmds && c->ncmds == c->cmd_cap) {
        clg_rt_cmd *grown = realloc(c->cmds, 2 * c->cmd_cap * sizeof *grown);
        if (grown) {
            c->cmds = grown;
            c->cmd_cap *= 2;
        }
    }
    int full = c->cmds ? c->ncmds == c->cmd_cap
                       : c->ncmds == CLG_RT_INLINE_CMDS;
    if (full) {
        /* Out of host memory keeping the event: the call fails, and its
         * close waits for the whole queue instead (wait_commands). */
        clReleaseEvent(ev);
        c->untracked = 1;
        return clg_fail(c->ctx, CLG_STATUS_OUT_OF_MEMORY,
                        "out of host memory keeping the event of %s", what);
    }
    cmds_of(c)[c->ncmds++] = (clg_rt_cmd){ev, what};
    c->last = ev;
    return CLG_STATUS_OK;
}

/* Waits for the call's commands; returns the OpenCL code, and sets
 * *failed when the wait reported a failed event. */
static cl_int wait_commands(clg_rt_call *c, int *failed)
{
    clg_rt_cmd *cmd = cmds_of(c);
    cl_event evs[64];
    cl_int err = CL_SUCCESS;
    if (c->enqueued == 0)
        return CL_SUCCESS;
    if (c->untracked && (err = clFinish(c->queue)) != CL_SUCCESS)
        return err;
    for (size_t i = 0; i < c->ncmds && err == CL_SUCCESS; i += 64) {
        cl_uint n = 0;
        for (size_t j = i; j < c->ncmds && n < 64; j++)
            evs[n++] = cmd[j].ev;
        err = clg_rt_wait_all(n, evs, failed);
    }
    return err;
}

/* Releases the events of the commands before the last (all waited for). */
static void drop_waited(clg_rt_call *c)
{
    clg_rt_cmd *cmd = cmds_of(c);
    if (c->ncmds < 2)
        return;
    for (size_t i = 0; i + 1 < c->ncmds; i++)
        clReleaseEvent(cmd[i].ev);
    cmd[0] = cmd[c->ncmds - 1];
    c->ncmds = 1;
}

clg_status clg_rt_call_sync(clg_rt_call *c)
{
    clg_rt_cmd *cmd = cmds_of(c);
    int failed = 0;
    cl_int err = wait_commands(c, &failed);
    if (err != CL_SUCCESS)
        return clg_fail_cl(c->ctx, err,
                           c->ncmds ? "clWaitForEvents" : "clFinish");
    for (size_t i = 0; i < c->ncmds; i++) {
        cl_int status = CL_COMPLETE;
        err = clg_rt_exec_status(cmd[i].ev, failed, &status);
        if (err != CL_SUCCESS)
            return clg_fail_cl(c->ctx, err,
                               "clGetEventInfo("
                               "CL_EVENT_COMMAND_EXECUTION_STATUS)");
        if (status < 0)
            return clg_fail_exec(
                c->ctx, status,
                "the command %s (%zu of the %zu this call waited for) did "
                "not complete: its execution status is %d, an error (an "
                "earlier command on the same queue, or an event it "
                "waited for, failed); the result was not delivered",
                cmd[i].what, i + 1, c->ncmds, (int)status);
    }
    drop_waited(c);
    return CLG_STATUS_OK;
}

/* Clears a raised slot after the call's commands, and waits for it. */
static cl_int clear_slot(clg_rt_call *c, const char **call)
{
    cl_uint nw;
    const cl_event *w;
    cl_event ev;
    clg_rt_call_next(c, &nw, &w, &ev);
    return clg_rt_write_zeros(c->ctx, c->queue, c->err,
                              sizeof clg_rt_zero_slot, clg_rt_zero_slot, nw, w,
                              &clg_rt_slot_names, call);
}

clg_status clg_rt_call_wait(clg_rt_call *c, int *raised)
{
    cl_int flag[2] = {0, 0};
    cl_uint nw;
    const cl_event *w;
    cl_event ev;
    cl_int err;
    clg_status st;
    *raised = 0;
    if (c->kind != CLG_RT_CALL_BLOCKING)
        return clg_rt_call_sync(c);
    cl_event *evp = clg_rt_call_next(c, &nw, &w, &ev);
    err = clEnqueueReadBuffer(c->queue, c->err, CL_TRUE, 0, sizeof flag[0],
                              flag, nw, w, evp);
    if (err != CL_SUCCESS)
        return clg_fail_cl(c->ctx, err, "clEnqueueReadBuffer(error slot)");
    /* The read may return while its command was terminated: the flag is
     * trusted only once every command of the call is known to have run. */
    if ((st = clg_rt_call_enqueued(c, ev,
                                   "clEnqueueReadBuffer(error slot)")) !=
            CLG_STATUS_OK ||
        (st = clg_rt_call_sync(c)) != CLG_STATUS_OK)
        return st;
    const char *call = NULL;
    if (flag[0] != 0 && (err = clear_slot(c, &call)) != CL_SUCCESS)
        return clg_fail_cl(c->ctx, err, call);
    *raised = flag[0] != 0;
    return CLG_STATUS_OK;
}

/* Appends a record to the epoch; epoch_lock held. */
static clg_status add_record(clg_context *ctx, const clg_deferred_rec *r)
{
    clg_epoch *e = &ctx->epoch;
    if (e->rec_count == e->rec_capacity) {
        size_t cap = e->rec_capacity ? 2 * e->rec_capacity : 64;
        clg_deferred_rec *grown = realloc(e->recs, cap * sizeof *grown);
        if (!grown)
            return clg_fail(ctx, CLG_STATUS_OUT_OF_MEMORY,
                            "out of host memory recording a deferred call");
        e->recs = grown;
        e->rec_capacity = cap;
    }
    e->recs[e->rec_count++] = *r;
    return CLG_STATUS_OK;
}

/* Releases the events a call still holds and its command array. */
static void release_commands(clg_rt_call *c)
{
    clg_rt_cmd *cmd = cmds_of(c);
    int failed = 0;
    for (size_t i = 0; i < c->ncmds && !failed; i++)
        failed = clg_rt_any_failed(&cmd[i].ev, 1);
    for (size_t i = 0; i < c->ncmds; i++)
        clg_rt_release_events(c->ctx, &cmd[i].ev, 1, failed);
    free(c->cmds);
    c->cmds = NULL;
    c->ncmds = c->cmd_cap = 0;
    c->last = NULL;
}

/* Records the call in the epoch (epoch_lock held): its info, its kept
 * buffer, and every event it depends on until the collect: the wait
 * list's (retained) and each of its commands' (moved from the call; the
 * last one is the record's `ev`). `info` may be NULL (nothing to
 * report). */
static clg_status record_call(clg_rt_call *c, const void *info, size_t size,
                              cl_mem keep)
{
    clg_deferred_rec r = {NULL, NULL, c->slot, c->queue, NULL, NULL, 0, 0};
    clg_rt_cmd *cmd = cmds_of(c);
    clg_status st;
    if (!info && !c->ncmds) {
        /* No kernel wrote the slot and no collect will look for it. */
        if (c->slot && c->slot->chunk)
            c->slot->chunk->live--;
        return CLG_STATUS_OK;
    }
    size_t gates = c->ncmds ? c->num_wait : 0,
           more = gates + (c->ncmds ? c->ncmds - 1 : 0);
    if (info && !(r.info = malloc(size)))
        return clg_fail(c->ctx, CLG_STATUS_OUT_OF_MEMORY,
                        "out of host memory recording a deferred call");
    if (more && !(r.more = malloc(more * sizeof *r.more))) {
        free(r.info);
        return clg_fail(c->ctx, CLG_STATUS_OUT_OF_MEMORY,
                        "out of host memory recording a deferred call");
    }
    if (info)
        memcpy(r.info, info, size);
    if ((st = add_record(c->ctx, &r)) != CLG_STATUS_OK) {
        free(r.info);
        free(r.more);
        return st;
    }
    if (info) /* the number clg_rt_sequence announced is now taken */
        atomic_fetch_add(&c->ctx->sequence, 1);
    clg_deferred_rec *rec = &c->ctx->epoch.recs[c->ctx->epoch.rec_count - 1];
    for (size_t i = 0; i < gates; i++)
        if (clRetainEvent(c->wait[i]) == CL_SUCCESS)
            rec->more[rec->ngates++] = c->wait[i];
    rec->nmore = rec->ngates;
    for (size_t i = 0; i + 1 < c->ncmds; i++)
        rec->more[rec->nmore++] = cmd[i].ev;
    if (c->ncmds)
        rec->ev = cmd[c->ncmds - 1].ev;
    c->ctx->epoch.event_count += c->ncmds;
    free(c->cmds);
    c->cmds = NULL;
    c->ncmds = c->cmd_cap = 0;
    c->last = NULL;
    if (keep && clRetainMemObject(keep) == CL_SUCCESS)
        rec->keep = keep;
    return CLG_STATUS_OK;
}

/* A call that enqueued nothing still hands out an event: a marker after
 * its wait list. */
static clg_status mark(clg_rt_call *c)
{
    cl_event ev = NULL;
    cl_int err = clEnqueueMarkerWithWaitList(c->queue, c->num_wait,
                                             c->num_wait ? c->wait : NULL,
                                             &ev);
    if (err != CL_SUCCESS)
        return clg_fail_cl(c->ctx, err, "clEnqueueMarkerWithWaitList");
    return clg_rt_call_enqueued(c, ev, "clEnqueueMarkerWithWaitList");
}

clg_status clg_rt_call_defer(clg_rt_call *c, const void *info,
                             size_t info_size, cl_mem keep, cl_event *event)
{
    clg_status st = event && !c->last ? mark(c) : CLG_STATUS_OK;
    cl_event last = c->last;
    if (st == CLG_STATUS_OK && event && clRetainEvent(last) != CL_SUCCESS)
        st = clg_fail(c->ctx, CLG_STATUS_OPENCL_ERROR,
                      "clRetainEvent failed on the operation's event");
    if (st == CLG_STATUS_OK &&
        (st = record_call(c, info, info_size, keep)) != CLG_STATUS_OK && event)
        clReleaseEvent(last);
    if (st == CLG_STATUS_OK && event)
        *event = last; /* a reference of the caller's own */
    if (st == CLG_STATUS_OK) {
        if (c->locked)
            pthread_mutex_unlock(&c->ctx->epoch_lock);
        c->locked = 0;
        c->slot = NULL; /* the epoch's now */
    }
    return st;
}

/* A private slot back to the pool, or to the lost list when the call's
 * commands could not be waited for; clears a slot a failed call may have
 * raised. Returns 0 when lost. */
static int give_slot(clg_rt_call *c, int failed)
{
    clg_context *ctx = c->ctx;
    const char *call = NULL; /* the failure goes unreported: lost */
    int ignored = 0;
    int lost = failed && wait_commands(c, &ignored) != CL_SUCCESS;
    if (!lost && failed && c->enqueued)
        lost = clear_slot(c, &call) != CL_SUCCESS;
    pthread_mutex_lock(&ctx->epoch_lock);
    clg_rt_slot **to = lost ? &ctx->lost_slots : &ctx->free_slots;
    c->slot->next = *to;
    *to = c->slot;
    pthread_mutex_unlock(&ctx->epoch_lock);
    return !lost;
}

int clg_rt_call_close(clg_rt_call *c, int failed)
{
    int drained = 1, ignored = 0;
    if (!c->ctx)
        return 1;
    if (c->locked) {
        /* A deferred call that failed before it was recorded: its slot
         * stays in the epoch's chunk, unreported; its commands (and the
         * events they need) go to the next collect, which waits for
         * them. */
        if (record_call(c, NULL, 0, NULL) != CLG_STATUS_OK)
            drained = wait_commands(c, &ignored) == CL_SUCCESS;
        pthread_mutex_unlock(&c->ctx->epoch_lock);
        c->locked = 0;
    } else if (c->slot && c->kind == CLG_RT_CALL_BLOCKING) {
        drained = give_slot(c, failed);
    } else if (failed && c->kind != CLG_RT_CALL_DEFERRED) {
        drained = wait_commands(c, &ignored) == CL_SUCCESS;
    }
    release_commands(c);
    clg_rt_scratch_give(c->ctx, c->temps, !drained);
    memset(c, 0, sizeof *c);
    return drained;
}

uint64_t clg_rt_sequence(const clg_rt_call *c)
{
    return atomic_load(&c->ctx->sequence) + 1;
}
