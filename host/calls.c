/* SPDX-License-Identifier: Apache-2.0 */
/* Calls, error slots and the deferred record (docs/design.md, "Enqueue
 * and deferred errors"; OpenCL 1.2 API sections 5.2.1, 5.9 and 5.10).
 *
 * Every call's kernels write one error slot: two ints, [0] raised on a bad
 * index, [1] a sink the lean bodies store to when the index is good. A
 * blocking call reads its own private slot (a buffer of its own) when its
 * commands are done. A deferred call takes the next slot of the epoch's
 * current chunk, a sub-buffer, so that clg_rt_collect reads up to 1024
 * slots with one command. A collect may take only some calls (one queue's,
 * or those of listed events): a chunk is read whole only when none of its
 * live slots belongs to a call left pending, so that no chunk is read or
 * cleared while another caller's kernel may still write it; the slots of
 * the calls taken from a shared chunk are read one by one, and the chunk
 * leaves the epoch when it is full and all its calls are collected. */
#include "context.h"

#include <stdlib.h>
#include <string.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

static const cl_int zero_slot[2] = {0, 0};

static void release_events(clg_context *ctx, const cl_event *evs, size_t n,
                           int failed);

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

/* ------------------------------------------------------------ slots */

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

static void free_chunk(clg_slot_chunk *k)
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
        cl_buffer_region r = {i * ctx->slot_stride, sizeof zero_slot};
        s->buf = clCreateSubBuffer(k->parent, CL_MEM_READ_WRITE,
                                   CL_BUFFER_CREATE_TYPE_REGION, &r, &err);
        if (!s->buf)
            return clg_fail_cl(ctx, err, "clCreateSubBuffer(error slot)");
    }
    *out = s;
    return CLG_STATUS_OK;
}

/* The epoch's next slot; epoch_lock held. */
static clg_status deferred_slot(clg_context *ctx, clg_rt_slot **out)
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
static clg_status private_slot(clg_context *ctx, clg_rt_slot **out)
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
    if ((st = zeroed_buffer(ctx, sizeof zero_slot, &s->buf)) !=
        CLG_STATUS_OK) {
        free(s);
        return st;
    }
    *out = s;
    return CLG_STATUS_OK;
}

static void free_slot_list(clg_rt_slot *s)
{
    while (s) {
        clg_rt_slot *next = s->next;
        clReleaseMemObject(s->buf);
        free(s);
        s = next;
    }
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
        st = kind == CLG_RT_CALL_DEFERRED ? deferred_slot(ctx, &c->slot)
                                          : private_slot(ctx, &c->slot);
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

/* Waits for every event of `evs` (n of them): one wait, and when that
 * reports a failed event, one wait per event, so that every command has
 * ended (completed or terminated) when it returns. */
static cl_int wait_all(cl_uint n, const cl_event *evs, int *failed)
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
static cl_int exec_status(cl_event ev, int failed, cl_int *status)
{
    cl_int err = clGetEventInfo(ev, CL_EVENT_COMMAND_EXECUTION_STATUS,
                                sizeof *status, status, NULL);
    if (err == CL_SUCCESS && failed && *status >= 0 &&
        clWaitForEvents(1, &ev) ==
            CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST)
        *status = CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST;
    return err;
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
        err = wait_all(n, evs, failed);
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
        err = exec_status(cmd[i].ev, failed, &status);
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

/* The commands of a clear, named for messages: of one slot, or of a
 * chunk of them. */
typedef struct clear_names {
    const char *write, *wait, *status;
} clear_names;
static const clear_names slot_names = {"clEnqueueWriteBuffer(error slot)",
                                       "clWaitForEvents(error slot)",
                                       "clGetEventInfo(CL_EVENT_COMMAND_"
                                       "EXECUTION_STATUS, error slot)"};
static const clear_names chunk_names = {"clEnqueueWriteBuffer(error slots)",
                                        "clWaitForEvents(error slots)",
                                        "clGetEventInfo(CL_EVENT_COMMAND_"
                                        "EXECUTION_STATUS, error slots)"};

/* Writes zeros over the first `bytes` of `buf` after the wait list and
 * waits until the write has run. A blocking write only promises that the
 * host bytes were taken (OpenCL 1.2, 5.2.2): Intel's CPU runtime returns
 * before the command runs, so a slot handed on to a call on another queue
 * would be cleared after that call's kernel raised it, or read as still
 * raised (docs/design.md, "Enqueue and deferred errors"). On failure
 * *call names the command, from `names`. */
static cl_int write_zeros(clg_context *ctx, cl_command_queue q, cl_mem buf,
                          size_t bytes, const void *zeros, cl_uint nw,
                          const cl_event *w, const clear_names *names,
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
        release_events(ctx, &ev, 1, err != CL_SUCCESS);
    return err;
}

/* Clears a raised slot after the call's commands, and waits for it. */
static cl_int clear_slot(clg_rt_call *c, const char **call)
{
    cl_uint nw;
    const cl_event *w;
    cl_event ev;
    clg_rt_call_next(c, &nw, &w, &ev);
    return write_zeros(c->ctx, c->queue, c->err, sizeof zero_slot, zero_slot,
                       nw, w, &slot_names, call);
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

/* Releases `n` events, or, when `failed`, keeps them in the context until
 * it is destroyed (a runtime may still propagate the failure through
 * them); released at once only when even that list cannot grow. */
static void release_events(clg_context *ctx, const cl_event *evs, size_t n,
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
static int any_failed(const cl_event *evs, size_t n)
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

/* Releases the events a call still holds and its command array. */
static void release_commands(clg_rt_call *c)
{
    clg_rt_cmd *cmd = cmds_of(c);
    int failed = 0;
    for (size_t i = 0; i < c->ncmds && !failed; i++)
        failed = any_failed(&cmd[i].ev, 1);
    for (size_t i = 0; i < c->ncmds; i++)
        release_events(c->ctx, &cmd[i].ev, 1, failed);
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

unsigned clg_rt_validation(const clg_context *ctx)
{
    return atomic_load(&((clg_context *)ctx)->validation);
}

/* ------------------------------------------------------------ collect */

/* A blocking read on the library's own queue, waited for through its
 * event, its execution status checked: a read that returns while its
 * command was terminated delivers nothing, and on Mesa's Rusticl 22.3 a
 * blocking read on a queue that other threads use may return before its
 * command has run (docs/design.md, "Threads"). Returns the OpenCL code, or
 * CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST with *status the negative
 * execution status. */
static cl_int own_read(clg_context *ctx, cl_mem buf, size_t offset,
                       size_t bytes, void *host, cl_int *status,
                       const char **call)
{
    cl_event ev = NULL;
    cl_int err = clEnqueueReadBuffer(ctx->own_queue, buf, CL_TRUE, offset,
                                     bytes, host, 0, NULL, &ev);
    *status = CL_COMPLETE;
    if (err == CL_SUCCESS) {
        /* A failed command is reported by its status below. */
        err = clWaitForEvents(1, &ev);
        if (err == CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST)
            err = CL_SUCCESS;
        else if (err != CL_SUCCESS)
            *call = "clWaitForEvents";
    }
    if (err == CL_SUCCESS &&
        (err = clGetEventInfo(ev, CL_EVENT_COMMAND_EXECUTION_STATUS,
                              sizeof *status, status, NULL)) != CL_SUCCESS)
        *call = "clGetEventInfo(CL_EVENT_COMMAND_EXECUTION_STATUS)";
    if (ev)
        release_events(ctx, &ev, 1, *status < 0);
    if (err == CL_SUCCESS && *status < 0)
        err = CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST;
    return err;
}

/* Reads the used slots of a chunk; 1 when any was raised (then clears the
 * chunk). */
static cl_int read_chunk(clg_context *ctx, clg_slot_chunk *k, cl_int *host,
                         int *any, const char **call)
{
    size_t bytes = k->used * ctx->slot_stride;
    cl_int status;
    cl_int err = own_read(ctx, k->parent, 0, bytes, host, &status, call);
    *any = 0;
    for (size_t i = 0; err == CL_SUCCESS && i < k->used; i++)
        *any |= host[i * ctx->slot_stride / sizeof(cl_int)] != 0;
    return err;
}

/* Every chunk of an epoch read into `host` (one chunk's bytes): each
 * record's raised flag, raised chunks cleared. On failure *call names the
 * command that failed. */
static cl_int read_epoch(clg_context *ctx, clg_epoch *e, int *raised,
                         cl_int *host, const char **call)
{
    cl_int err = CL_SUCCESS;
    for (clg_slot_chunk *k = e->chunks; k && err == CL_SUCCESS; k = k->next) {
        int any = 0;
        *call = "clEnqueueReadBuffer(error slots)";
        err = read_chunk(ctx, k, host, &any, call);
        for (size_t r = 0; err == CL_SUCCESS && any && r < e->rec_count; r++)
            if (e->recs[r].slot->chunk == k) {
                size_t at = (size_t)(e->recs[r].slot - k->slots);
                raised[r] = host[at * ctx->slot_stride / sizeof(cl_int)] != 0;
            }
        if (err == CL_SUCCESS && any) {
            memset(host, 0, k->used * ctx->slot_stride);
            err = write_zeros(ctx, ctx->own_queue, k->parent,
                              k->used * ctx->slot_stride, host, 0, NULL,
                              &chunk_names, call);
        }
    }
    return err;
}

/* Waits for every command of every record of an epoch and reads the
 * execution status of each (the first negative one is the record's: it
 * did not complete, e.g. an event of its wait list failed), and which of
 * its wait list's events failed. Returns the wait's code, CL_SUCCESS also
 * when only some commands failed. */
static cl_int wait_records(const clg_epoch *e, cl_int *status, int *gate,
                           const char **call)
{
    size_t n = 0;
    int failed = 0;
    cl_int err = CL_SUCCESS;
    cl_event *evs =
        malloc((e->event_count ? e->event_count : 1) * sizeof *evs);
    if (!evs)
        return CL_OUT_OF_HOST_MEMORY;
    for (size_t r = 0; r < e->rec_count; r++) {
        const clg_deferred_rec *rec = &e->recs[r];
        for (uint32_t i = rec->ngates; i < rec->nmore; i++)
            evs[n++] = rec->more[i];
        if (rec->ev)
            evs[n++] = rec->ev;
    }
    *call = "clWaitForEvents";
    for (size_t i = 0; i < n && err == CL_SUCCESS; i += 65536)
        err = wait_all((cl_uint)(n - i < 65536 ? n - i : 65536), evs + i,
                       &failed);
    free(evs);
    if (err == CL_SUCCESS)
        *call = "clGetEventInfo(CL_EVENT_COMMAND_EXECUTION_STATUS)";
    for (size_t r = 0; err == CL_SUCCESS && r < e->rec_count; r++) {
        const clg_deferred_rec *rec = &e->recs[r];
        status[r] = CL_COMPLETE;
        gate[r] = -1;
        for (uint32_t i = 0; err == CL_SUCCESS && i <= rec->nmore; i++) {
            cl_event ev = i < rec->nmore ? rec->more[i] : rec->ev;
            cl_int s = CL_COMPLETE;
            if (!ev)
                continue;
            /* A gate is the caller's event, not waited for: its own
             * status is the one to read. */
            err = i < rec->ngates
                      ? clGetEventInfo(ev, CL_EVENT_COMMAND_EXECUTION_STATUS,
                                       sizeof s, &s, NULL)
                      : exec_status(ev, failed, &s);
            if (err != CL_SUCCESS || s >= 0)
                continue;
            if (i < rec->ngates && gate[r] < 0)
                gate[r] = (int)i;
            else if (i >= rec->ngates && status[r] >= 0)
                status[r] = s;
        }
    }
    return err;
}

/* Returns an epoch's chunks to the pool (lost: to the lost list) and
 * releases its array; the records were moved out. */
static void retire_epoch(clg_context *ctx, clg_epoch *e, int lost)
{
    clg_slot_chunk *extra = NULL;
    pthread_mutex_lock(&ctx->epoch_lock);
    while (e->chunks) {
        clg_slot_chunk *k = e->chunks,
                       **to = lost ? &ctx->lost_chunks : &ctx->free_chunks;
        e->chunks = k->next;
        k->next = *to;
        *to = k;
    }
    /* The pool keeps CLG_CHUNKS_KEPT chunks for the next batch; a large
     * batch's others are freed (docs/design.md, "Enqueue and deferred
     * errors"). */
    clg_slot_chunk **at = &ctx->free_chunks;
    for (size_t kept = 0; *at && kept < CLG_CHUNKS_KEPT; kept++)
        at = &(*at)->next;
    extra = *at;
    *at = NULL;
    pthread_mutex_unlock(&ctx->epoch_lock);
    while (extra) {
        clg_slot_chunk *next = extra->next;
        free_chunk(extra);
        extra = next;
    }
    size_t count = e->rec_count;
    free(e->recs);
    memset(e, 0, sizeof *e);
#if defined(__GLIBC__)
    /* A large batch's records, events and commands were many small
     * allocations, freed now; glibc keeps freed heap pages resident until
     * trimmed. */
    if (count >= CLG_TRIM_AFTER)
        malloc_trim(0);
#else
    (void)count;
#endif
}

/* Releases a record's events (failed: kept until destroy, see
 * release_events). */
static void release_record_events(clg_context *ctx, clg_deferred_rec *rec,
                                  int failed)
{
    release_events(ctx, rec->more, rec->nmore, failed);
    free(rec->more);
    if (rec->ev)
        release_events(ctx, &rec->ev, 1, failed);
    rec->more = NULL;
    rec->ev = NULL;
    rec->nmore = rec->ngates = 0;
}

/* The records of an epoch as a collect's answer; infos and kept buffers
 * move to it. */
static clg_rt_deferred *hand_out_records(clg_context *ctx, clg_epoch *e,
                                         const int *raised,
                                         const cl_int *status, const int *gate)
{
    clg_rt_deferred *list = calloc(e->rec_count ? e->rec_count : 1,
                                   sizeof *list);
    for (size_t r = 0; list && r < e->rec_count; r++) {
        list[r].info = e->recs[r].info;
        list[r].keep = e->recs[r].keep;
        list[r].raised = raised[r];
        list[r].status = status[r];
        list[r].failed_gate = gate[r];
        list[r].gate_status = CL_COMPLETE;
        if (gate[r] >= 0 &&
            clGetEventInfo(e->recs[r].more[gate[r]],
                           CL_EVENT_COMMAND_EXECUTION_STATUS,
                           sizeof list[r].gate_status, &list[r].gate_status,
                           NULL) != CL_SUCCESS)
            list[r].gate_status = CL_COMPLETE;
        release_record_events(ctx, &e->recs[r], status[r] < 0 || gate[r] >= 0);
    }
    return list;
}

/* Frees records that were not handed out; `failed`: their events are
 * kept until destroy. */
static void free_records(clg_context *ctx, clg_deferred_rec *recs, size_t n,
                         int failed)
{
    for (size_t r = 0; r < n; r++) {
        free(recs[r].info);
        if (recs[r].keep)
            clReleaseMemObject(recs[r].keep);
        release_record_events(ctx, &recs[r], failed);
    }
}

/* Command events a record holds (those wait_records waits for). */
static size_t record_events(const clg_deferred_rec *rec)
{
    return (size_t)(rec->nmore - rec->ngates) + (rec->ev ? 1 : 0);
}

static int event_order(const void *a, const void *b)
{
    uintptr_t x = (uintptr_t) * (const cl_event *)a,
              y = (uintptr_t) * (const cl_event *)b;
    return x < y ? -1 : x > y;
}

/* 1 when the collect `sel` (NULL: all) takes record `rec`; `sorted`: the
 * selection's events in address order, when it names events. */
static int selects(const clg_rt_select *sel, const cl_event *sorted,
                   const clg_deferred_rec *rec)
{
    if (!sel)
        return 1;
    if (!sel->by_events)
        return rec->queue == sel->queue;
    /* No events named: nothing is taken (and bsearch needs a non-NULL base). */
    return rec->ev && sel->num_events > 0 &&
           bsearch(&rec->ev, sorted, sel->num_events, sizeof *sorted,
                   event_order) != NULL;
}

/* Moves the records `sel` takes out of the context's epoch into *mine, in
 * enqueue order, with every chunk none of whose live slots stays behind
 * (those are read and retired whole; the others' slots are read one by
 * one); finish_lock and epoch_lock held. */
static clg_status take_records(clg_context *ctx, const clg_rt_select *sel,
                               const cl_event *sorted, clg_epoch *mine)
{
    clg_epoch *e = &ctx->epoch;
    size_t count = 0, kept = 0;
    memset(mine, 0, sizeof *mine);
    if (!sel) { /* everything: the whole array moves */
        mine->recs = e->recs;
        mine->rec_count = e->rec_count;
        mine->rec_capacity = e->rec_capacity;
        mine->event_count = e->event_count;
        e->recs = NULL;
        e->rec_count = e->rec_capacity = e->event_count = 0;
    } else {
        for (size_t r = 0; r < e->rec_count; r++)
            count += selects(sel, sorted, &e->recs[r]);
        if (count && !(mine->recs = malloc(count * sizeof *mine->recs)))
            return CLG_STATUS_OUT_OF_MEMORY;
        for (size_t r = 0; r < e->rec_count; r++) {
            if (selects(sel, sorted, &e->recs[r])) {
                mine->recs[mine->rec_count++] = e->recs[r];
                mine->event_count += record_events(&e->recs[r]);
            } else {
                e->recs[kept++] = e->recs[r];
            }
        }
        mine->rec_capacity = mine->rec_count;
        e->rec_count = kept;
        e->event_count -= mine->event_count;
        if (kept == 0) {
            free(e->recs);
            e->recs = NULL;
            e->rec_capacity = 0;
        }
    }
    for (clg_slot_chunk *k = e->chunks; k; k = k->next)
        k->taken = 0;
    for (size_t r = 0; r < mine->rec_count; r++)
        if (mine->recs[r].slot && mine->recs[r].slot->chunk)
            mine->recs[r].slot->chunk->taken++;
    for (clg_slot_chunk **at = &e->chunks; *at;) {
        clg_slot_chunk *k = *at;
        k->whole = k->live == k->taken;
        if (k->whole) {
            *at = k->next;
            k->next = mine->chunks;
            mine->chunks = k;
        } else {
            at = &k->next;
        }
    }
    return CLG_STATUS_OK;
}

/* Reads the slot of each record of `mine` whose chunk stays in the epoch
 * (the chunks taken whole were read by read_epoch), clearing a raised
 * one. On failure *call names the command. */
static cl_int read_single_slots(clg_context *ctx, const clg_epoch *mine,
                                int *raised, const char **call)
{
    cl_int err = CL_SUCCESS;
    for (size_t r = 0; r < mine->rec_count && err == CL_SUCCESS; r++) {
        clg_rt_slot *s = mine->recs[r].slot;
        cl_int flag = 0, status;
        if (!s || !s->chunk || s->chunk->whole)
            continue;
        *call = "clEnqueueReadBuffer(error slot)";
        err = own_read(ctx, s->buf, 0, sizeof flag, &flag, &status, call);
        if (err == CL_SUCCESS && flag != 0) {
            raised[r] = 1;
            err = write_zeros(ctx, ctx->own_queue, s->buf, sizeof zero_slot,
                              zero_slot, 0, NULL, &slot_names, call);
        }
    }
    return err;
}

/* The slots of `mine` read one by one are free again: their chunks leave
 * the epoch when full (no call takes a slot from it again) and without a
 * live slot (read_single_slots cleared
 * every raised one). After a failure (`lost`) they stay live: their
 * chunks are freed only with the context. */
static void give_single_slots(clg_context *ctx, const clg_epoch *mine,
                              int lost)
{
    clg_slot_chunk *done = NULL;
    if (lost)
        return;
    pthread_mutex_lock(&ctx->epoch_lock);
    for (size_t r = 0; r < mine->rec_count; r++) {
        clg_rt_slot *s = mine->recs[r].slot;
        if (s && s->chunk && !s->chunk->whole)
            s->chunk->live--;
    }
    for (clg_slot_chunk **at = &ctx->epoch.chunks; *at;) {
        clg_slot_chunk *k = *at;
        if (k->live == 0 && k->used == CLG_SLOTS_PER_CHUNK) {
            *at = k->next;
            k->next = done;
            done = k;
        } else {
            at = &k->next;
        }
    }
    pthread_mutex_unlock(&ctx->epoch_lock);
    clg_epoch e = {0};
    e.chunks = done;
    retire_epoch(ctx, &e, 0);
}

clg_status clg_rt_collect_some(clg_context *ctx, const clg_rt_select *sel,
                               clg_rt_deferred **out, size_t *n)
{
    clg_epoch e;
    clg_status st = CLG_STATUS_OK;
    cl_int err;
    cl_event *sorted = NULL;
    clg_rt_select own;
    *out = NULL;
    *n = 0;
    if ((st = clg_rt_check_process(ctx)) != CLG_STATUS_OK)
        return st;
    if (sel && !sel->by_events && !sel->queue) {
        own = *sel;
        own.queue = ctx->queue;
        sel = &own;
    }
    if (sel && sel->by_events && sel->num_events) {
        if (!(sorted = malloc(sel->num_events * sizeof *sorted)))
            return clg_fail(ctx, CLG_STATUS_OUT_OF_MEMORY,
                            "out of host memory waiting for deferred calls");
        memcpy(sorted, sel->events, sel->num_events * sizeof *sorted);
        qsort(sorted, sel->num_events, sizeof *sorted, event_order);
    }
    pthread_mutex_lock(&ctx->finish_lock);
    pthread_mutex_lock(&ctx->epoch_lock);
    st = take_records(ctx, sel, sorted, &e);
    pthread_mutex_unlock(&ctx->epoch_lock);
    free(sorted);
    if (st != CLG_STATUS_OK) {
        pthread_mutex_unlock(&ctx->finish_lock);
        return clg_fail(ctx, st,
                        "out of host memory waiting for deferred calls");
    }
    int *raised = calloc(e.rec_count ? e.rec_count : 1, sizeof *raised);
    cl_int *status = calloc(e.rec_count ? e.rec_count : 1, sizeof *status);
    int *gate = calloc(e.rec_count ? e.rec_count : 1, sizeof *gate);
    cl_int *host = malloc(ctx->slot_stride * CLG_SLOTS_PER_CHUNK);
    const char *call = "";
    if (!status || !gate)
        st = clg_fail(ctx, CLG_STATUS_OUT_OF_MEMORY,
                      "out of host memory waiting for deferred calls");
    else if ((err = wait_records(&e, status, gate, &call)) != CL_SUCCESS)
        st = clg_fail_cl(ctx, err, call);
    else if (!raised || !host)
        st = clg_fail(ctx, CLG_STATUS_OUT_OF_MEMORY,
                      "out of host memory reading error slots");
    else if ((err = read_epoch(ctx, &e, raised, host, &call)) != CL_SUCCESS ||
             (err = read_single_slots(ctx, &e, raised, &call)) != CL_SUCCESS)
        st = clg_fail_cl(ctx, err, call);
    give_single_slots(ctx, &e, st != CLG_STATUS_OK);
    if (st == CLG_STATUS_OK &&
        !(*out = hand_out_records(ctx, &e, raised, status, gate)))
        st = clg_fail(ctx, CLG_STATUS_OUT_OF_MEMORY,
                      "out of host memory reading error slots");
    if (st == CLG_STATUS_OK)
        *n = e.rec_count;
    else
        free_records(ctx, e.recs, e.rec_count, 1);
    /* A chunk is reused only once it was read and cleared: a failed wait
     * leaves chunks the device may still write, a failed read or clear
     * leaves raised slots that would blame a later call. */
    retire_epoch(ctx, &e, st != CLG_STATUS_OK);
    free(raised);
    free(status);
    free(gate);
    free(host);
    pthread_mutex_unlock(&ctx->finish_lock);
    return st;
}

clg_status clg_rt_collect(clg_context *ctx, clg_rt_deferred **out, size_t *n)
{
    return clg_rt_collect_some(ctx, NULL, out, n);
}

void clg_rt_deferred_free(clg_rt_deferred *list, size_t n)
{
    for (size_t r = 0; list && r < n; r++) {
        free(list[r].info);
        if (list[r].keep)
            clReleaseMemObject(list[r].keep);
    }
    free(list);
}

clg_status clg_rt_read(clg_context *ctx, cl_mem buf, uint64_t offset,
                       void *host, size_t bytes)
{
    cl_int status;
    const char *call = "clEnqueueReadBuffer";
    cl_int err = own_read(ctx, buf, (size_t)offset, bytes, host, &status,
                          &call);
    if (err == CL_SUCCESS)
        return CLG_STATUS_OK;
    if (status < 0)
        return clg_fail_exec(ctx, status,
                             "the command clEnqueueReadBuffer did not "
                             "complete: its execution status is %d, an "
                             "error",
                             (int)status);
    return clg_fail_cl(ctx, err, call);
}

/* ------------------------------------------------------------ scratch */

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

static void free_scratch_list(clg_rt_scratch *s)
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

static void free_chunk_list(clg_slot_chunk *k)
{
    while (k) {
        clg_slot_chunk *next = k->next;
        free_chunk(k);
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
        wait_records(e, status, gate, &call);
    free(status);
    free(gate);
    free_records(ctx, e->recs, e->rec_count, 0);
    for (size_t i = 0; i < ctx->parked_count; i++)
        clReleaseEvent(ctx->parked[i]);
    free(ctx->parked);
    ctx->parked = NULL;
    ctx->parked_count = ctx->parked_capacity = 0;
    free_chunk_list(e->chunks);
    e->chunks = NULL;
    retire_epoch(ctx, e, 0);
    free_chunk_list(ctx->free_chunks);
    free_chunk_list(ctx->lost_chunks);
    free_slot_list(ctx->free_slots);
    free_slot_list(ctx->lost_slots);
    free_scratch_list(ctx->free_scratch);
    free_scratch_list(ctx->lost_scratch);
    if (ctx->sink)
        clReleaseMemObject(ctx->sink);
    ctx->free_chunks = ctx->lost_chunks = NULL;
    ctx->free_slots = ctx->lost_slots = NULL;
    ctx->free_scratch = ctx->lost_scratch = NULL;
    ctx->sink = NULL;
}
