/* SPDX-License-Identifier: Apache-2.0 */
/* The collect behind every finish (docs/design.md, "Enqueue and deferred
 * errors" and "Error slots"): the deferred calls' records are taken out of
 * the epoch, their commands waited for, their error slots read, and the
 * records handed out. A collect may take only some calls (one queue's, or
 * those of listed events): a chunk is read whole only when none of its
 * live slots belongs to a call left pending, so that no chunk is read or
 * cleared while another caller's kernel may still write it; the slots of
 * the calls taken from a shared chunk are read one by one, and the chunk
 * leaves the epoch when it is full and all its calls are collected. Also
 * clg_rt_read, a checked read on the library's own queue. */
#include "calls.h"

#include <stdlib.h>
#include <string.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

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
        clg_rt_release_events(ctx, &ev, 1, *status < 0);
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
            err = clg_rt_write_zeros(ctx, ctx->own_queue, k->parent,
                                     k->used * ctx->slot_stride, host, 0, NULL,
                                     &clg_rt_chunk_names, call);
        }
    }
    return err;
}

/* Waits for every command of every record of an epoch and reads the
 * execution status of each (the first negative one is the record's: it
 * did not complete, e.g. an event of its wait list failed), and which of
 * its wait list's events failed. Returns the wait's code, CL_SUCCESS also
 * when only some commands failed. */
cl_int clg_rt_wait_records(const clg_epoch *e, cl_int *status, int *gate,
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
        err = clg_rt_wait_all((cl_uint)(n - i < 65536 ? n - i : 65536),
                              evs + i, &failed);
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
                      : clg_rt_exec_status(ev, failed, &s);
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
void clg_rt_retire_epoch(clg_context *ctx, clg_epoch *e, int lost)
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
        clg_rt_free_chunk(extra);
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
 * clg_rt_release_events). */
static void release_record_events(clg_context *ctx, clg_deferred_rec *rec,
                                  int failed)
{
    clg_rt_release_events(ctx, rec->more, rec->nmore, failed);
    free(rec->more);
    if (rec->ev)
        clg_rt_release_events(ctx, &rec->ev, 1, failed);
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
void clg_rt_free_records(clg_context *ctx, clg_deferred_rec *recs, size_t n,
                         int failed)
{
    for (size_t r = 0; r < n; r++) {
        free(recs[r].info);
        if (recs[r].keep)
            clReleaseMemObject(recs[r].keep);
        release_record_events(ctx, &recs[r], failed);
    }
}

/* Command events a record holds (those clg_rt_wait_records waits for). */
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
            err = clg_rt_write_zeros(ctx, ctx->own_queue, s->buf,
                                     sizeof clg_rt_zero_slot, clg_rt_zero_slot,
                                     0, NULL, &clg_rt_slot_names, call);
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
    clg_rt_retire_epoch(ctx, &e, 0);
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
    else if ((err = clg_rt_wait_records(&e, status, gate, &call)) !=
             CL_SUCCESS)
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
        clg_rt_free_records(ctx, e.recs, e.rec_count, 1);
    /* A chunk is reused only once it was read and cleared: a failed wait
     * leaves chunks the device may still write, a failed read or clear
     * leaves raised slots that would blame a later call. */
    clg_rt_retire_epoch(ctx, &e, st != CLG_STATUS_OK);
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
