/* SPDX-License-Identifier: Apache-2.0 */
/* The paths both operators share (docs/design.md, "Layers", "Enqueue and
 * deferred errors" and "Large tensors"): validate -> plan -> launch, on
 * device buffers and on host memory.
 *
 * enqueue_problem is the one implementation; the three entry points differ
 * only in the call around it:
 *  - clg_dispatch_enqueue: a deferred call on the caller's queue; index
 *    errors surface from clg_context_finish;
 *  - clg_dispatch_cl: a blocking call on the context's queue that reads
 *    its own error slot;
 *  - clg_dispatch_host: host memory. On devices that share host memory
 *    (POCL's CPU device) the caller's buffers are used in place and the
 *    index values are checked before any kernel may write the caller's
 *    output; elsewhere data and indices are uploaded to scratch buffers
 *    and the output is downloaded only when the device raised no error.
 *    Either way the caller's output is untouched on an index error.
 */
#include "op.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* After this many launches the queue is finished, which bounds what is
 * queued (buffers wrapping caller memory stay alive until their commands
 * finish). */
#define CLG_LAUNCHES_PER_FINISH 256

static clg_status need_ctx(const clg_context *ctx)
{
    if (!ctx)
        return clg_fail(NULL, CLG_STATUS_NULL_POINTER, "ctx is NULL");
    return clg_rt_check_process(ctx);
}

static uint64_t out_bytes(const clg_problem *p)
{
    return (uint64_t)p->out_count * p->elem_size;
}

/* After the device raised its flag: `found` is the status of the index
 * scan that names the bad index; OK there means the flag lied. */
static clg_status flag_raised(clg_context *ctx, clg_status found,
                              const char *what)
{
    if (found != CLG_STATUS_OK)
        return found;
    return clg_fail(ctx, CLG_STATUS_OPENCL_ERROR,
                    "the device raised its index error flag but %s", what);
}

/* ------------------------------------------------------------ device buffers */

/* The descriptor of a device tensor, NULL for a NULL tensor. */
static const clg_desc *cl_desc(const clg_cl_tensor *t, clg_desc *d)
{
    if (!t)
        return NULL;
    *d = (clg_desc){t->dtype, t->rank, t->shape};
    return d;
}

/* Descriptors, buffer sizes and contexts at the call's offsets, and no
 * output aliasing (src/views.c). */
static clg_status check_cl_call(clg_context *ctx, const clg_call *call,
                                const clg_cl_tensor *data,
                                const clg_cl_tensor *indices,
                                const clg_cl_tensor *output, clg_problem *p)
{
    clg_desc dd, id, od;
    clg_status st = clg_validate_call(ctx, call, cl_desc(data, &dd),
                                      cl_desc(indices, &id),
                                      cl_desc(output, &od), p);
    const clg_cl_tensor *const t[CLG_VIEW_COUNT] = {data, indices, output};
    return st != CLG_STATUS_OK ? st : clg_views_check(ctx, call, p, t);
}

/* Enqueues one problem on device buffers in call `c`: the operator's
 * kernel over the whole tensors, or, when the output or the data is empty,
 * only the check of the index values. */
static clg_status enqueue_problem(const clg_routine *r, clg_rt_call *c,
                                  const clg_problem *p,
                                  const clg_cl_tensor *data,
                                  const clg_cl_tensor *indices,
                                  const clg_cl_tensor *output)
{
    clg_plan plan;
    /* Tuples are checked by the operator's own kernel (one range per
     * component), which a box of empty slices launches for that alone. */
    int tuples = clg_op_desc_of(p->op)->tuples;
    if ((p->out_count == 0 || p->data_count == 0) &&
        (!tuples || p->index_count == 0 || p->oob != CLG_OOB_RAISE))
        return p->index_count == 0 || p->oob != CLG_OOB_RAISE
                   ? CLG_STATUS_OK
                   : clg_index_pass(c, p,
                                    clg_rt_mem_arg(&indices->buffer, NULL),
                                    NULL);
    /* The plan may move a Gather row in units wider than its element,
     * which needs both buffers aligned to them: a buffer over caller
     * memory (CL_MEM_USE_HOST_PTR) need not be. A warm-up, which may have
     * no buffers, plans for aligned ones. */
    size_t align = CLG_MAX_ELEMENT_SIZE;
    const cl_mem bufs[2] = {data->buffer, output->buffer};
    for (int k = 0; k < 2; k++) {
        size_t a = bufs[k] ? clg_rt_mem_alignment(c->ctx, bufs[k], NULL)
                           : CLG_MAX_ELEMENT_SIZE;
        if (a < align)
            align = a;
    }
    r->plan(p, clg_rt_facts(c->ctx), align, &plan);
    clg_box box = {0, plan.outer, 0, plan.n, 0, plan.inner};
    clg_windows w = {.data = data->buffer,
                     .indices = indices->buffer,
                     .output = output->buffer,
                     .data_len = plan.data_units,
                     .index_len = p->index_count,
                     .out_len = plan.out_units,
                     .call = c};
    return r->launch(c->ctx, p, &plan, &box, &w);
}

clg_status clg_dispatch_enqueue(clg_context *ctx, cl_command_queue queue,
                                const clg_call *call,
                                const clg_cl_tensor *data,
                                const clg_cl_tensor *indices,
                                const clg_cl_tensor *output, cl_uint num_wait,
                                const cl_event *wait, cl_event *event)
{
    const clg_routine *r = clg_op_desc_of(call->op)->routine;
    clg_deferred_info info;
    clg_rt_call c;
    clg_status st;
    /* OpenCL forbids an event that is also in the wait list. */
    for (cl_uint i = 0; ctx && event && wait && i < num_wait; i++)
        if (&wait[i] == event)
            return clg_fail(ctx, CLG_STATUS_INVALID_ARGUMENT,
                            "event points into event_wait_list (at [%u])",
                            (unsigned)i);
    if ((st = need_ctx(ctx)) != CLG_STATUS_OK ||
        (st = check_cl_call(ctx, call, data, indices, output, &info.p)) !=
            CLG_STATUS_OK ||
        (st = clg_validate_options(ctx, &call->options, &info.p)) !=
            CLG_STATUS_OK ||
        (st = clg_rt_call_open(ctx, queue, num_wait, wait,
                               CLG_RT_CALL_DEFERRED, &c)) != CLG_STATUS_OK)
        return st;
    info.sequence = clg_rt_sequence(&c);
    const clg_cl_tensor *const t[CLG_VIEW_COUNT] = {data, indices, output};
    clg_cl_views v;
    st = clg_views_open(&c, call, &info.p, t, &v);
    if (st == CLG_STATUS_OK)
        st = enqueue_problem(r, &c, &info.p, &v.t[0], &v.t[1], &v.t[2]);
    if (st == CLG_STATUS_OK)
        st = clg_views_commit(&c, &v);
    clg_deferred_info packed;
    if (st == CLG_STATUS_OK)
        st = clg_rt_call_defer(&c, &packed, clg_info_pack(&info, &packed),
                               v.t[1].buffer, event);
    clg_rt_call_close(&c, st != CLG_STATUS_OK);
    clg_views_close(&v);
    if (st == CLG_STATUS_OK)
        clg_clear_error(ctx);
    return st;
}

clg_status clg_dispatch_cl(clg_context *ctx, const clg_call *call,
                           const clg_cl_tensor *data,
                           const clg_cl_tensor *indices,
                           const clg_cl_tensor *output)
{
    const clg_routine *r = clg_op_desc_of(call->op)->routine;
    clg_problem p;
    clg_rt_call c;
    clg_status st;
    int raised = 0;
    if ((st = need_ctx(ctx)) != CLG_STATUS_OK ||
        (st = check_cl_call(ctx, call, data, indices, output, &p)) !=
            CLG_STATUS_OK ||
        (st = clg_validate_options(ctx, &call->options, &p)) !=
            CLG_STATUS_OK ||
        (st = clg_rt_call_open(ctx, NULL, 0, NULL,
                               p.oob == CLG_OOB_RAISE ? CLG_RT_CALL_BLOCKING
                                                      : CLG_RT_CALL_UNCHECKED,
                               &c)) != CLG_STATUS_OK)
        return st;
    const clg_cl_tensor *const t[CLG_VIEW_COUNT] = {data, indices, output};
    clg_cl_views v;
    st = clg_views_open(&c, call, &p, t, &v);
    if (st == CLG_STATUS_OK)
        st = enqueue_problem(r, &c, &p, &v.t[0], &v.t[1], &v.t[2]);
    if (st == CLG_STATUS_OK)
        st = clg_views_commit(&c, &v);
    if (st == CLG_STATUS_OK)
        st = clg_rt_call_wait(&c, &raised);
    clg_rt_call_close(&c, st != CLG_STATUS_OK);
    if (st == CLG_STATUS_OK && raised)
        st = flag_raised(ctx,
                         clg_check_indices_readback(ctx, &p, v.t[1].buffer),
                         "every index read back is valid");
    clg_views_close(&v);
    if (st == CLG_STATUS_OK)
        clg_clear_error(ctx);
    return st;
}

/* ------------------------------------------------------------ host memory */

/* One host-memory call: where its buffers come from (the caller's memory
 * in place, or a scratch set filled by copies), its call, plan and
 * pieces. */
typedef struct host_call {
    const clg_routine *r;
    clg_context *ctx;
    const clg_problem *p;
    char *data, *indices, *output; /* caller memory */
    int in_place;
    int svm;       /* in place, as SVM pointers rather than wrapped */
    int out_copy;  /* in place, but the output through a scratch buffer */
    int whole;     /* one piece, one data window */
    int launches;  /* enqueued so far */
    int undrained; /* a failure left commands that could not be waited for */
    clg_rt_call call;
    clg_rt_scratch *scratch; /* copy path */
    clg_plan plan;
    clg_pieces pc;
} host_call;

/* Largest power of two (<= CLG_MAX_ELEMENT_SIZE) dividing an address. */
static size_t address_alignment(const void *ptr)
{
    uintptr_t a = (uintptr_t)ptr | CLG_MAX_ELEMENT_SIZE;
    return (size_t)(a & (~a + 1));
}

/* 1 when the buffer of `slot` wraps the caller's memory. */
static int wraps(const host_call *hc, clg_scratch_slot slot)
{
    return hc->in_place && !(slot == CLG_SCRATCH_OUTPUT && hc->out_copy);
}

/* The buffer of `slot` over caller bytes [host, host + bytes), or on a
 * device that takes SVM pointers, those bytes themselves (*svm = host and
 * *out NULL). */
static clg_status io_buffer(host_call *hc, clg_scratch_slot slot, void *host,
                            size_t bytes, cl_mem *out, const void **svm)
{
    clg_status st;
    *out = NULL;
    *svm = NULL;
    if (hc->call.dry) /* a warm-up: no buffers */
        return CLG_STATUS_OK;
    if (wraps(hc, slot) && hc->svm) {
        *svm = host;
        return CLG_STATUS_OK;
    }
    if (wraps(hc, slot))
        return clg_rt_wrap(hc->ctx, host, bytes, slot == CLG_SCRATCH_OUTPUT,
                           out);
    if ((st = clg_rt_scratch_buffer(hc->ctx, hc->scratch, slot, bytes, out)) !=
        CLG_STATUS_OK)
        return st;
    if (slot != CLG_SCRATCH_OUTPUT)
        return clg_rt_upload(&hc->call, *out, host, bytes);
    return CLG_STATUS_OK;
}

static void io_release(host_call *hc, clg_scratch_slot slot, cl_mem *buf)
{
    if (wraps(hc, slot))
        clg_rt_release(buf);
    *buf = NULL;
}

/* 1 when the indices are checked by the check kernel, in place and in
 * parallel, rather than on the host. */
static int device_checks(const host_call *hc)
{
    return clg_check_indices_on_device(hc->ctx, hc->p, hc->in_place);
}

/* Whether the call checks every index before its first launch (raise, in
 * place or split; the copy path of a single launch reads its error slot
 * instead). Modes other than raise resolve every value in the kernels,
 * which then never raise: nothing to check (docs/design.md, "Out-of-range
 * modes"). */
static int checks_first(const host_call *hc)
{
    return (hc->in_place || !hc->whole) && hc->p->oob == CLG_OOB_RAISE;
}

/* Checks every index before a kernel may write the caller's memory. */
static clg_status prevalidate(host_call *hc)
{
    clg_index_check ran;
    return clg_check_indices_first(hc->ctx, hc->p, hc->indices, hc->in_place,
                                   &ran);
}

/* Launches over each data window of piece `box`'s footprint [f0, f1). */
static clg_status run_windows(host_call *hc, const clg_box *box,
                              clg_windows *w, int64_t f0, int64_t f1)
{
    clg_status st = CLG_STATUS_OK;
    size_t unit = hc->plan.unit;
    /* Once every index is checked, the launches take the clip bodies: they
     * leave a valid index as it is and check nothing more, and a value the
     * caller changes during the call still stays inside the data. */
    clg_problem launched = *hc->p;
    if (checks_first(hc))
        launched.oob = CLG_OOB_CLIP;
    for (int64_t w0 = f0; w0 < f1 && st == CLG_STATUS_OK; w0 += hc->pc.units) {
        w->data_base = w0;
        w->data_len = f1 - w0 < hc->pc.units ? f1 - w0 : hc->pc.units;
        st = io_buffer(hc, CLG_SCRATCH_DATA, hc->data + (size_t)w0 * unit,
                       (size_t)w->data_len * unit, &w->data, &w->data_svm);
        if (st == CLG_STATUS_OK)
            st = hc->r->launch(hc->ctx, &launched, &hc->plan, box, w);
        io_release(hc, CLG_SCRATCH_DATA, &w->data);
        if (st == CLG_STATUS_OK && !hc->call.dry &&
            ++hc->launches % CLG_LAUNCHES_PER_FINISH == 0)
            st = clg_rt_call_sync(&hc->call);
    }
    return st;
}

/* After a piece's launches: its output reaches the caller's memory (a
 * download on the copy path of a split call; a map/unmap of a wrapped
 * output; nothing for SVM, whose writes the call's wait makes visible). */
static clg_status commit_piece(host_call *hc, const clg_windows *w)
{
    size_t bytes = (size_t)w->out_len * hc->plan.unit;
    char *dst = hc->output + (size_t)w->out_base * hc->plan.unit;
    if (hc->call.dry)
        return CLG_STATUS_OK;
    if (wraps(hc, CLG_SCRATCH_OUTPUT))
        return hc->svm
                   ? CLG_STATUS_OK
                   : clg_rt_publish(&hc->call, w->output, bytes,
                                    clg_params_entry_of(hc->ctx)->map_wait);
    if (!hc->whole)
        return clg_rt_download(&hc->call, w->output, dst, bytes, 0);
    return CLG_STATUS_OK;
}

/* Every piece in turn; the indices window is kept while it stays. */
static clg_status run_pieces(host_call *hc)
{
    clg_status st = CLG_STATUS_OK;
    clg_windows w = {.call = &hc->call};
    int64_t index_base = -1, index_len = -1;
    size_t unit = hc->plan.unit, isize = hc->p->index_size;
    for (int64_t k = 0; k < hc->pc.count && st == CLG_STATUS_OK; k++) {
        clg_box box;
        int64_t f0, f1;
        clg_piece_at(hc->r, hc->p, &hc->plan, &hc->pc, k, &box, &w, &f0, &f1);
        st = io_buffer(hc, CLG_SCRATCH_OUTPUT,
                       hc->output + (size_t)w.out_base * unit,
                       (size_t)w.out_len * unit, &w.output, &w.output_svm);
        if (st == CLG_STATUS_OK &&
            (w.index_base != index_base || w.index_len != index_len)) {
            io_release(hc, CLG_SCRATCH_INDICES, &w.indices);
            st = io_buffer(hc, CLG_SCRATCH_INDICES,
                           hc->indices + (size_t)w.index_base * isize,
                           (size_t)w.index_len * isize, &w.indices,
                           &w.indices_svm);
            index_base = w.index_base;
            index_len = w.index_len;
        }
        if (st == CLG_STATUS_OK)
            st = run_windows(hc, &box, &w, f0, f1);
        if (st == CLG_STATUS_OK)
            st = commit_piece(hc, &w);
        io_release(hc, CLG_SCRATCH_OUTPUT, &w.output);
    }
    io_release(hc, CLG_SCRATCH_INDICES, &w.indices);
    return st;
}

/* A whole result from the scratch output, with a blocking read (which
 * waits for the launch). */
static clg_status download_whole(host_call *hc)
{
    cl_mem out = NULL;
    size_t bytes = (size_t)out_bytes(hc->p);
    clg_status st = clg_rt_scratch_buffer(hc->ctx, hc->scratch,
                                          CLG_SCRATCH_OUTPUT, bytes, &out);
    return st != CLG_STATUS_OK
               ? st
               : clg_rt_download(&hc->call, out, hc->output, bytes, 1);
}

/* After every launch succeeded: in place, every index was checked before
 * the launch, so the kernels cannot have raised the error slot and nothing
 * reads it: read a small whole output back, or wait. On the copy path read
 * the slot and download a whole result. */
static clg_status finish_host(host_call *hc)
{
    clg_context *ctx = hc->ctx;
    int raised = 0;
    clg_status st;
    if (hc->out_copy && hc->whole)
        return (st = download_whole(hc)) != CLG_STATUS_OK
                   ? st
                   : clg_rt_call_sync(&hc->call);
    if ((st = clg_rt_call_wait(&hc->call, &raised)) != CLG_STATUS_OK ||
        hc->in_place)
        return st;
    if (raised)
        return flag_raised(ctx,
                           clg_check_indices_host(ctx, hc->p, hc->indices),
                           "every index is valid (were the indices modified "
                           "during the call?)");
    if (!hc->whole || (st = download_whole(hc)) != CLG_STATUS_OK)
        return st;
    /* The blocking read may return while its command was terminated. */
    return clg_rt_call_sync(&hc->call);
}

/* Checks, opens the call, launches and finishes; hc->output is where the
 * pieces write. */
static clg_status run_launches(host_call *hc)
{
    clg_context *ctx = hc->ctx;
    clg_status st;
    if (checks_first(hc) && (st = prevalidate(hc)) != CLG_STATUS_OK)
        return st;
    if ((!hc->in_place || hc->out_copy) &&
        (st = clg_rt_scratch_take(ctx, &hc->scratch)) != CLG_STATUS_OK)
        return st;
    /* Only the copy path of a single launch under raise reads its slot. */
    st = clg_rt_call_open(ctx, clg_rt_host_queue(ctx), 0, NULL,
                          checks_first(hc) || hc->p->oob != CLG_OOB_RAISE
                              ? CLG_RT_CALL_UNCHECKED
                              : CLG_RT_CALL_BLOCKING,
                          &hc->call);
    if (st == CLG_STATUS_OK && (st = run_pieces(hc)) == CLG_STATUS_OK)
        st = finish_host(hc);
    /* After a failure nothing enqueued (copies from the caller's inputs,
     * launches, downloads into the output or the staging copy) may still
     * run when the call returns. */
    if (!clg_rt_call_close(&hc->call, st != CLG_STATUS_OK))
        hc->undrained = 1;
    clg_rt_scratch_give(ctx, hc->scratch, hc->undrained);
    hc->scratch = NULL;
    return st;
}

/* A split call writes its pieces into a staging copy of the output, which
 * reaches the caller's memory only once every piece has succeeded: a
 * failure midway leaves the caller's output untouched (docs/design.md,
 * "Errors"). */
static clg_status run_staged(host_call *hc)
{
    size_t bytes = (size_t)out_bytes(hc->p);
    char *caller = hc->output;
    char *staging = aligned_alloc(64, (bytes + 63) / 64 * 64);
    if (!staging)
        return clg_fail(hc->ctx, CLG_STATUS_OUT_OF_MEMORY,
                        "out of host memory staging a split output of %zu "
                        "bytes",
                        bytes);
    hc->output = staging;
    clg_status st = run_launches(hc);
    if (st == CLG_STATUS_OK)
        memcpy(caller, staging, bytes);
    hc->output = caller;
    /* A queue that could not be drained may still write the staging copy:
     * it is left allocated rather than freed under the device. */
    if (!hc->undrained)
        free(staging);
    return st;
}

/* A warm-up: every kernel the call would launch, built in the order the
 * call would build them; nothing is enqueued (docs/design.md, "Program
 * cache"). */
static clg_status run_dry(host_call *hc)
{
    clg_status st = CLG_STATUS_OK;
    hc->call = (clg_rt_call){.ctx = hc->ctx, .dry = 1};
    if (checks_first(hc) && device_checks(hc))
        st = clg_index_pass(&hc->call, hc->p, clg_rt_mem_arg(NULL, NULL),
                            NULL);
    return st == CLG_STATUS_OK ? run_pieces(hc) : st;
}

static clg_status run_host(host_call *hc)
{
    const clg_device_facts *dev = clg_rt_facts(hc->ctx);
    size_t align = CLG_MAX_ELEMENT_SIZE;
    if (hc->in_place) {
        align = address_alignment(hc->data);
        if (address_alignment(hc->output) < align)
            align = address_alignment(hc->output);
    }
    /* A staging buffer is 64-byte aligned, so a plan made for the caller's
     * output alignment holds for it too. */
    hc->r->plan(hc->p, dev, align, &hc->plan);
    clg_pieces_cut(hc->p, &hc->plan, dev->max_alloc, &hc->pc);
    hc->whole = hc->pc.count == 1 && hc->plan.data_units <= hc->pc.units;
    if (hc->call.dry)
        return run_dry(hc);
    return hc->whole ? run_launches(hc) : run_staged(hc);
}

/* Host memory, validated and not empty: in place or through copies;
 * `dry`: a warm-up (output may be NULL). */
static clg_status host_launch(const clg_routine *r, clg_context *ctx,
                              const clg_problem *p, const clg_tensor *data,
                              const clg_tensor *indices,
                              const clg_tensor *output, int dry)
{
    /* In place needs caller memory aligned as the operator's kernels read
     * it (its row says; indices are read as int32/int64). */
    size_t need = clg_op_desc_of(p->op)->in_place_align == CLG_ALIGN_ELEMENT
                      ? p->elem_size
                      : 1;
    if (need > CLG_MAX_ELEMENT_SIZE)
        need = CLG_MAX_ELEMENT_SIZE;
    host_call hc = {.r = r,
                    .ctx = ctx,
                    .p = p,
                    .data = (char *)data->data,
                    .indices = (char *)indices->data,
                    .output = output ? (char *)output->data : NULL,
                    .call = {.dry = dry}};
    clg_param_values prm;
    clg_status st = clg_param_values_get(ctx, &prm);
    if (st != CLG_STATUS_OK)
        return st;
    hc.in_place = clg_rt_facts(ctx)->host_unified &&
                  address_alignment(data->data) >= need &&
                  address_alignment(hc.output) >= need &&
                  address_alignment(indices->data) >= p->index_size;
    /* In place, the kernels take the caller's memory as SVM pointers
     * where the device can; else wrapped in buffers, and then a small
     * output may go to a scratch buffer and back with one blocking read
     * instead of a map and an unmap where it is: which is cheaper depends
     * on the runtime (the `small` parameter; docs/design.md, "Host memory
     * and device buffers"). */
    hc.svm = hc.in_place && clg_rt_facts(ctx)->host_svm;
    hc.out_copy = hc.in_place && !hc.svm &&
                  out_bytes(p) <= (uint64_t)prm.small * 1024;
    return run_host(&hc);
}

/* A tiny call goes to its row's host loop: at most the `host` parameter's
 * bytes of output and indices, and not under validation mode, whose
 * comparison needs the device's result (docs/design.md, "Host memory and
 * device buffers"). */
static int on_host(clg_context *ctx, const clg_problem *p)
{
    clg_param_values prm;
    uint64_t moved = (uint64_t)p->out_count * p->elem_size +
                     (uint64_t)p->index_count * p->index_size;
    return clg_rt_validation(ctx) == 0 &&
           clg_param_values_get(ctx, &prm) == CLG_STATUS_OK && prm.host > 0 &&
           moved <= prm.host;
}

static clg_status run_on_host(clg_context *ctx, const clg_problem *p,
                              const clg_tensor *data,
                              const clg_tensor *indices,
                              const clg_tensor *output)
{
    clg_status st = p->oob == CLG_OOB_RAISE
                        ? clg_check_indices_host(ctx, p, indices->data)
                        : CLG_STATUS_OK;
    if (st != CLG_STATUS_OK)
        return st;
    if (p->out_count > 0 && p->data_count > 0)
        clg_op_desc_of(p->op)->host(p, data->data, indices->data,
                                    output->data);
    clg_clear_error(ctx);
    clg_set_last_path(ctx, CLG_PATH_HOST);
    return CLG_STATUS_OK;
}

clg_status clg_dispatch_host(clg_context *ctx, const clg_call *call,
                             const clg_tensor *data, const clg_tensor *indices,
                             const clg_tensor *output)
{
    const clg_routine *r = clg_op_desc_of(call->op)->routine;
    clg_problem p;
    clg_status st;
    if ((st = need_ctx(ctx)) != CLG_STATUS_OK ||
        (st = clg_validate_host(ctx, call, data, indices, output, &p)) !=
            CLG_STATUS_OK ||
        (st = clg_validate_options(ctx, &call->options, &p)) != CLG_STATUS_OK)
        return st;
    if (on_host(ctx, &p))
        return run_on_host(ctx, &p, data, indices, output);
    void *ref = NULL;
    if ((st = clg_validate_reserve(ctx, &p, &ref)) != CLG_STATUS_OK)
        return st;
    if (p.out_count == 0 || p.data_count == 0)
        /* Empty output (or no data to read, which makes every index
         * invalid): no kernel; under raise index values are still
         * checked (the other modes refused an empty axis above). */
        st = p.oob == CLG_OOB_RAISE
                 ? clg_check_indices_host(ctx, &p, indices->data)
                 : CLG_STATUS_OK;
    else
        st = host_launch(r, ctx, &p, data, indices, output, 0);
    if (st == CLG_STATUS_OK && clg_rt_validation(ctx) != 0)
        st = clg_validate_result(ctx, call, &p, data, indices, output, ref);
    free(ref);
    if (st == CLG_STATUS_OK) {
        clg_clear_error(ctx);
        clg_set_last_path(ctx, CLG_PATH_DEVICE);
    }
    return st;
}

/* ------------------------------------------------------------ warm-up */

/* The descriptor of a host tensor, NULL for a NULL tensor. */
static const clg_desc *host_desc(const clg_tensor *t, clg_desc *d)
{
    if (!t)
        return NULL;
    *d = (clg_desc){t->dtype, t->rank, t->shape};
    return d;
}

/* The problem of a warm-up: its descriptors (output optional) checked as
 * the call checks them. */
static clg_status warm_up_problem(clg_context *ctx, const clg_call *call,
                                  const clg_desc *data,
                                  const clg_desc *indices,
                                  const clg_desc *output, clg_problem *p)
{
    clg_status st = need_ctx(ctx);
    if (st != CLG_STATUS_OK)
        return st;
    if (!data || !indices)
        return clg_fail(ctx, CLG_STATUS_NULL_POINTER, "%s is NULL",
                        !data ? "data" : "indices");
    st = clg_validate(ctx, call, data->dtype, data->rank, data->shape,
                      indices->dtype, indices->rank, indices->shape, p);
    if (st == CLG_STATUS_OK && output)
        st = clg_validate_output(ctx, p, output->dtype, output->rank,
                                 output->shape);
    if (st == CLG_STATUS_OK)
        st = clg_validate_options(ctx, &call->options, p);
    return st;
}

clg_status clg_dispatch_warm_up_host(clg_context *ctx, const clg_call *call,
                                     const clg_tensor *data,
                                     const clg_tensor *indices,
                                     const clg_tensor *output)
{
    const clg_routine *r = clg_op_desc_of(call->op)->routine;
    clg_problem p;
    clg_desc dd, id, od;
    clg_status st = warm_up_problem(ctx, call, host_desc(data, &dd),
                                    host_desc(indices, &id),
                                    host_desc(output, &od), &p);
    /* An empty call launches nothing: its indices are checked on the
     * host. */
    if (st == CLG_STATUS_OK && p.out_count > 0 && p.data_count > 0)
        st = host_launch(r, ctx, &p, data, indices, output, 1);
    if (st == CLG_STATUS_OK)
        clg_clear_error(ctx);
    return st;
}

clg_status clg_dispatch_warm_up_cl(clg_context *ctx, const clg_call *call,
                                   const clg_cl_tensor *data,
                                   const clg_cl_tensor *indices,
                                   const clg_cl_tensor *output)
{
    const clg_routine *r = clg_op_desc_of(call->op)->routine;
    clg_problem p;
    clg_desc dd, id, od;
    clg_cl_tensor none = {0};
    clg_status st = warm_up_problem(ctx, call, cl_desc(data, &dd),
                                    cl_desc(indices, &id),
                                    cl_desc(output, &od), &p);
    if (st == CLG_STATUS_OK)
        st = clg_views_check_offsets(ctx, call, &p);
    if (st == CLG_STATUS_OK) {
        clg_rt_call c = {.ctx = ctx, .dry = 1};
        st = enqueue_problem(r, &c, &p, data, indices,
                             output ? output : &none);
    }
    if (st == CLG_STATUS_OK)
        clg_clear_error(ctx);
    return st;
}
