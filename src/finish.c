/* SPDX-License-Identifier: Apache-2.0 */
/* clg_context_finish and its forms for one queue or a list of events:
 * waits for the deferred calls and reports the first one whose kernels
 * met a bad index (docs/design.md, "Enqueue and deferred
 * errors"). The device records that a call failed, in the call's error
 * slot; the position and value are then found by reading that call's
 * indices buffer back (retained until now) and scanning it on the host,
 * which names the first bad position in index order, as the blocking
 * calls do. A call whose commands did not complete (a failed event in its
 * wait list) is reported as such: its output was never written. */
#include "op.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

/* The packed layout: the sequence, the problem's fields before its
 * shapes, those after them, then each shape's used dimensions. */
#define HEAD_END offsetof(clg_problem, data_shape)
#define TAIL_START offsetof(clg_problem, axis)
#define TAIL_SIZE (sizeof(clg_problem) - TAIL_START)

size_t clg_info_pack(const clg_deferred_info *info, void *buf)
{
    const clg_problem *p = &info->p;
    unsigned char *b = buf;
    size_t at = 0;
    memcpy(b + at, &info->sequence, sizeof info->sequence);
    at += sizeof info->sequence;
    memcpy(b + at, p, HEAD_END);
    at += HEAD_END;
    memcpy(b + at, (const unsigned char *)p + TAIL_START, TAIL_SIZE);
    at += TAIL_SIZE;
    memcpy(b + at, p->data_shape, p->data_rank * sizeof(int64_t));
    at += p->data_rank * sizeof(int64_t);
    memcpy(b + at, p->index_shape, p->index_rank * sizeof(int64_t));
    at += p->index_rank * sizeof(int64_t);
    memcpy(b + at, p->out_shape, p->out_rank * sizeof(int64_t));
    at += p->out_rank * sizeof(int64_t);
    return at;
}

void clg_info_unpack(const void *buf, clg_deferred_info *info)
{
    clg_problem *p = &info->p;
    const unsigned char *b = buf;
    size_t at = 0;
    memset(info, 0, sizeof *info);
    memcpy(&info->sequence, b + at, sizeof info->sequence);
    at += sizeof info->sequence;
    memcpy(p, b + at, HEAD_END);
    at += HEAD_END;
    memcpy((unsigned char *)p + TAIL_START, b + at, TAIL_SIZE);
    at += TAIL_SIZE;
    memcpy(p->data_shape, b + at, p->data_rank * sizeof(int64_t));
    at += p->data_rank * sizeof(int64_t);
    memcpy(p->index_shape, b + at, p->index_rank * sizeof(int64_t));
    at += p->index_rank * sizeof(int64_t);
    memcpy(p->out_shape, b + at, p->out_rank * sizeof(int64_t));
}

/* "Gather #12 (data FLOAT[3, 4], indices INT64[2], axis 0): ", the
 * attribute named as the operator's row names it (GatherND: batch_dims,
 * which p->axis holds). */
static void describe(char *buf, size_t cap, const clg_deferred_info *info)
{
    const clg_problem *p = &info->p;
    char dshape[CLG_MAX_RANK * 24 + 4] = "",
                                    ishape[CLG_MAX_RANK * 24 + 4] = "";
    clg_format_shape(dshape, sizeof dshape, p->data_shape, p->data_rank);
    clg_format_shape(ishape, sizeof ishape, p->index_shape, p->index_rank);
    snprintf(buf, cap, "%s #%llu (data %s%s, indices %s%s, %s %zu): ",
             clg_op_name(p->op), (unsigned long long)info->sequence,
             clg_dtype_name(p->dtype), dshape, clg_dtype_name(p->index_dtype),
             ishape, clg_op_attribute(p->op), p->axis);
}

/* The error of one raised call, its message prefixed by the call. When the
 * read-back fails its OpenCL code is kept (clg_context_last_cl_error). */
static clg_status report(clg_context *ctx, const clg_deferred_info *info,
                         cl_mem indices)
{
    char prefix[2 * CLG_MAX_RANK * 24 + 128];
    describe(prefix, sizeof prefix, info);
    clg_status st = clg_check_indices_readback(ctx, &info->p, indices);
    if (st == CLG_STATUS_OK)
        return clg_fail(ctx, CLG_STATUS_INDEX_OUT_OF_RANGE,
                        "%sthe device met an index outside [-%lld, %lld], "
                        "but the indices buffer no longer holds one (it was "
                        "written after the operation was enqueued)",
                        prefix, (long long)info->p.axis_size,
                        (long long)info->p.axis_size - 1);
    return clg_prefix_error(ctx, st, prefix);
}

/* A call whose commands did not complete (a negative execution status:
 * an event of its wait list failed, an earlier command on its in-order
 * queue did, or the device), and how many later ones did not either. */
static clg_status report_not_run(clg_context *ctx, const clg_rt_deferred *d,
                                 size_t later)
{
    char prefix[2 * CLG_MAX_RANK * 24 + 128], why[96] = "", more[96] = "";
    clg_deferred_info info;
    clg_info_unpack(d->info, &info);
    describe(prefix, sizeof prefix, &info);
    /* The status reported is the failed event's own when one of the
     * wait list failed (the value its owner gave it), else the command's. */
    cl_int status = d->status;
    if (d->failed_gate >= 0 && d->gate_status < 0) {
        snprintf(why, sizeof why,
                 ": event_wait_list[%d] failed with execution status %d and",
                 d->failed_gate, (int)d->gate_status);
        status = d->gate_status;
    }
    if (later > 0)
        snprintf(more, sizeof more,
                 "; %zu later operation%s did not run either", later,
                 later == 1 ? "" : "s");
    return clg_fail_exec(ctx, status,
                         "%sthe operation did not run%s its command ended "
                         "with execution status %d, an error; its output "
                         "was not written%s",
                         prefix, why[0] ? why : ":", (int)d->status, more);
}

/* Collects the operations `sel` selects (NULL: all) and reports the
 * first error among them. */
static clg_status finish_some(clg_context *ctx, const clg_rt_select *sel)
{
    clg_rt_deferred *list = NULL;
    size_t n = 0;
    clg_status st = clg_rt_collect_some(ctx, sel, &list, &n);
    /* An operation that did not run comes first: its output was never
     * written, which no index error of another one can say. */
    size_t first = n, later = 0;
    for (size_t i = 0; st == CLG_STATUS_OK && i < n; i++)
        if (list[i].info && list[i].status < 0) {
            later += first < n;
            if (first == n)
                first = i;
        }
    if (first < n)
        st = report_not_run(ctx, &list[first], later);
    for (size_t i = 0; st == CLG_STATUS_OK && i < n; i++)
        if (list[i].info && list[i].raised) {
            clg_deferred_info info;
            clg_info_unpack(list[i].info, &info);
            st = report(ctx, &info, list[i].keep);
        }
    clg_rt_deferred_free(list, n);
    if (st == CLG_STATUS_OK)
        clg_clear_error(ctx);
    return st;
}

clg_status clg_context_finish(clg_context *ctx)
{
    if (!ctx)
        return clg_fail(NULL, CLG_STATUS_NULL_POINTER, "ctx is NULL");
    return finish_some(ctx, NULL);
}

clg_status clg_context_finish_queue(clg_context *ctx, cl_command_queue queue)
{
    clg_rt_select sel = {queue, 0, 0, NULL};
    if (!ctx)
        return clg_fail(NULL, CLG_STATUS_NULL_POINTER, "ctx is NULL");
    return finish_some(ctx, &sel);
}

clg_status clg_context_finish_events(clg_context *ctx, cl_uint num_events,
                                     const cl_event *events)
{
    clg_rt_select sel = {NULL, 1, num_events, events};
    if (!ctx)
        return clg_fail(NULL, CLG_STATUS_NULL_POINTER, "ctx is NULL");
    if (num_events > 0 && !events)
        return clg_fail(ctx, CLG_STATUS_NULL_POINTER,
                        "events is NULL but num_events is %u",
                        (unsigned)num_events);
    for (cl_uint i = 0; i < num_events; i++)
        if (!events[i])
            return clg_fail(ctx, CLG_STATUS_INVALID_ARGUMENT,
                            "events[%u] is NULL", (unsigned)i);
    return finish_some(ctx, &sel);
}
