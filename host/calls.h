/* SPDX-License-Identifier: Apache-2.0 */
/* What the files of calls share, inside host/ only (docs/design.md,
 * "Enqueue and deferred errors"): call.c (a call's commands, its wait
 * and its record), events.c (the commands' events), error_slots.c (the
 * slots and their clear), collect.c (the finish's collect), scratch.c
 * (the copy path's scratch sets) and calls_release.c (all of it at
 * destroy). The operator layer reaches calls through host/runtime.h. */
#ifndef CLG_CALLS_H
#define CLG_CALLS_H

#include "context.h"

/* ------------------------------------------- events (host/events.c) */

/* Waits for every event of `evs`; *failed set when one failed. */
cl_int clg_rt_wait_all(cl_uint n, const cl_event *evs, int *failed);
/* The execution status of a command waited for. */
cl_int clg_rt_exec_status(cl_event ev, int failed, cl_int *status);
/* Releases `n` events, or keeps them until destroy when `failed`. */
void clg_rt_release_events(clg_context *ctx, const cl_event *evs, size_t n,
                           int failed);
/* 1 when any of the events ended with a negative execution status. */
int clg_rt_any_failed(const cl_event *evs, size_t n);

/* ------------------------------ error slots (host/error_slots.c) */

/* A slot's zeros, the bytes of a clear. */
extern const cl_int clg_rt_zero_slot[2];
/* The epoch's next slot; epoch_lock held. */
clg_status clg_rt_deferred_slot(clg_context *ctx, clg_rt_slot **out);
/* A private slot from the pool; epoch_lock held. */
clg_status clg_rt_private_slot(clg_context *ctx, clg_rt_slot **out);
void clg_rt_free_chunk(clg_slot_chunk *k);
void clg_rt_free_slot_list(clg_rt_slot *s);

/* The commands of a clear, named for messages: of one slot, or of a
 * chunk of them. */
typedef struct clg_rt_clear_names {
    const char *write, *wait, *status;
} clg_rt_clear_names;
extern const clg_rt_clear_names clg_rt_slot_names;
extern const clg_rt_clear_names clg_rt_chunk_names;
/* Writes zeros over the first `bytes` of `buf` after the wait list and
 * waits until the write has run; on failure *call names the command. */
cl_int clg_rt_write_zeros(clg_context *ctx, cl_command_queue q, cl_mem buf,
                          size_t bytes, const void *zeros, cl_uint nw,
                          const cl_event *w, const clg_rt_clear_names *names,
                          const char **call);

/* ------------------------------------------ collect (host/collect.c) */

/* Waits for every command of every record of an epoch and reads each
 * record's execution status and failed wait-list event. */
cl_int clg_rt_wait_records(const clg_epoch *e, cl_int *status, int *gate,
                           const char **call);
/* Returns an epoch's chunks to the pool (lost: to the lost list). */
void clg_rt_retire_epoch(clg_context *ctx, clg_epoch *e, int lost);
/* Frees records that were not handed out. */
void clg_rt_free_records(clg_context *ctx, clg_deferred_rec *recs, size_t n,
                         int failed);

/* ------------------------------------------ scratch (host/scratch.c) */

void clg_rt_free_scratch_list(clg_rt_scratch *s);

#endif
