/* SPDX-License-Identifier: Apache-2.0 */
/* The executor of a call's plan (docs/design.md, "Plans"): it runs the
 * data the operator layer built and compiled, and knows no operator.
 *
 * Host memory (clg_rt_execute): in place (the caller's memory wrapped in
 * buffers, or as SVM pointers), or through the scratch set's buffers,
 * filled by uploads and read back by a download; a split call's output
 * goes to a staging copy first (docs/design.md, "Errors"). Each box runs
 * its launches once per data window of its footprint; the indices window
 * is kept while it stays. */
#include "calls.h"

#include <stdlib.h>
#include <string.h>

/* After this many launches the queue is finished, which bounds what is
 * queued (buffers wrapping caller memory stay alive until their commands
 * finish). */
#define CLG_LAUNCHES_PER_FINISH 256

void clg_rt_plan_free(clg_rt_plan *plan)
{
    free(plan->steps);
    free(plan->boxes);
    plan->steps = NULL;
    plan->boxes = NULL;
    plan->nsteps = plan->step_cap = plan->nboxes = plan->box_cap = 0;
}

/* The buffers and window of one launch. */
typedef struct exec_window {
    cl_mem data, indices, output;
    const void *data_svm, *indices_svm, *output_svm;
    cl_ulong win[6]; /* CLG_RT_REF_WINDOW's bounds */
    cl_ulong z0;     /* CLG_RT_REF_PASS */
    cl_mem temp;
    const cl_mem *consts;
} exec_window;

static const clg_rt_step *plan_steps(const clg_rt_plan *plan)
{
    return plan->steps ? plan->steps : plan->inline_steps;
}

static const clg_rt_box *plan_boxes(const clg_rt_plan *plan)
{
    return plan->boxes ? plan->boxes : &plan->inline_box;
}

static const cl_mem no_buffer = NULL;

/* The value of scalar argument or field `a` in window `w`. */
static cl_ulong scalar_of(const clg_rt_parg *a, const exec_window *w)
{
    return a->ref == CLG_RT_REF_WINDOW ? w->win[a->value]
           : a->ref == CLG_RT_REF_PASS ? w->z0
                                       : a->value;
}

/* The runtime arguments of kernel `ku` for window `w` of call `c`; its
 * struct of fields, if any, is packed into `fields`. */
static void resolve_args(const clg_rt_kernel_use *ku, clg_rt_call *c,
                         const exec_window *w, clg_rt_arg *out,
                         cl_ulong *fields)
{
    for (size_t i = 0; i < ku->nargs; i++) {
        const clg_rt_parg *a = &ku->args[i];
        switch (a->ref) {
        case CLG_RT_REF_VALUE:
            out[i] = CLG_RT_SCALAR(a->value);
            break;
        case CLG_RT_REF_FIELDS:
            for (size_t k = 0; k < ku->nfields; k++)
                fields[k] = scalar_of(&ku->fields[k], w);
            out[i] = (clg_rt_arg){ku->nfields * sizeof *fields, fields, 1};
            break;
        case CLG_RT_REF_DATA:
            out[i] = clg_rt_mem_arg(&w->data, w->data_svm);
            break;
        case CLG_RT_REF_INDICES:
            out[i] = clg_rt_mem_arg(&w->indices, w->indices_svm);
            break;
        case CLG_RT_REF_OUTPUT:
            out[i] = clg_rt_mem_arg(&w->output, w->output_svm);
            break;
        case CLG_RT_REF_ERR:
            out[i] = CLG_RT_BUFFER(c->err);
            break;
        case CLG_RT_REF_TEMP:
            out[i] = CLG_RT_BUFFER(w->temp);
            break;
        case CLG_RT_REF_CONST:
            out[i] = CLG_RT_BUFFER(w->consts[a->value]);
            break;
        case CLG_RT_REF_WINDOW:
            out[i] = CLG_RT_SCALAR(w->win[a->value]);
            break;
        case CLG_RT_REF_PASS:
            out[i] = CLG_RT_SCALAR(w->z0);
            break;
        case CLG_RT_REF_NULL:
            out[i] = CLG_RT_BUFFER(no_buffer);
            break;
        }
    }
}

static clg_status launch_step(clg_rt_call *c, const clg_rt_plan *plan,
                              const clg_rt_step *s, const exec_window *w,
                              const clg_geometry *g)
{
    const clg_rt_kernel_use *ku = &plan->kernels[s->kernel];
    clg_rt_arg args[CLG_RT_PLAN_ARGS];
    cl_ulong fields[CLG_RT_PLAN_FIELDS];
    resolve_args(ku, c, w, args, fields);
    return clg_rt_launch(c, ku->kernel, args, ku->nargs, g);
}

/* Box b's launches over window w (its temporary taken and released around
 * them; OpenCL defers the release until the launches are done). */
static clg_status run_steps(clg_rt_call *c, const clg_rt_plan *plan,
                            const clg_rt_box *b, exec_window *w)
{
    const clg_rt_step *steps = plan_steps(plan) + b->step0;
    clg_status st = CLG_STATUS_OK;
    w->temp = NULL;
    if (b->nsteps == 0)
        return st;
    if (b->temp_bytes > 0 &&
        (st = clg_rt_call_temp(c, b->temp_bytes, &w->temp)) != CLG_STATUS_OK)
        return st;
    if (b->pass_total <= 0) {
        for (size_t i = 0; i < b->nsteps && st == CLG_STATUS_OK; i++)
            st = launch_step(c, plan, &steps[i], w, &steps[i].g);
    } else {
        for (int64_t z0 = 0; z0 < b->pass_total && st == CLG_STATUS_OK;
             z0 += b->pass_chunk) {
            int64_t count = b->pass_total - z0 < b->pass_chunk
                                ? b->pass_total - z0
                                : b->pass_chunk;
            w->z0 = (cl_ulong)z0;
            for (size_t i = 0; i < b->nsteps && st == CLG_STATUS_OK; i++) {
                clg_geometry g = steps[i].g;
                g.origin[2] = (size_t)z0;
                g.global[2] = (size_t)count;
                st = launch_step(c, plan, &steps[i], w, &g);
            }
        }
    }
    if (b->temp_bytes > 0)
        clg_rt_release(&w->temp);
    return st;
}

/* The plan's small buffers, made once per call. */
static clg_status make_consts(clg_context *ctx, const clg_rt_plan *plan,
                              cl_mem *consts)
{
    clg_status st = CLG_STATUS_OK;
    for (size_t k = 0; k < plan->nconsts && st == CLG_STATUS_OK; k++)
        st = clg_rt_const_buffer(ctx, plan->consts[k],
                                 plan->const_len[k] * sizeof(cl_ulong),
                                 &consts[k]);
    return st;
}

static void release_consts(const clg_rt_plan *plan, cl_mem *consts)
{
    for (size_t k = 0; k < plan->nconsts; k++)
        clg_rt_release(&consts[k]);
}

clg_status clg_rt_run_box(clg_rt_call *c, const clg_rt_plan *plan,
                          const clg_rt_box *box, cl_mem data, cl_mem indices,
                          cl_mem output)
{
    cl_mem consts[CLG_RT_PLAN_CONSTS] = {NULL, NULL};
    exec_window w = {.data = data,
                     .indices = indices,
                     .output = output,
                     .win = {0, (cl_ulong)box->end, (cl_ulong)box->index_base,
                             (cl_ulong)box->index_len, (cl_ulong)box->out_base,
                             (cl_ulong)box->out_len},
                     .consts = consts};
    clg_status st = CLG_STATUS_OK;
    if (box->nsteps > 0 && plan->nconsts > 0)
        st = make_consts(c->ctx, plan, consts);
    if (st == CLG_STATUS_OK)
        st = run_steps(c, plan, box, &w);
    release_consts(plan, consts);
    return st;
}

/* ------------------------------------------------------------ host memory */

/* One host-memory call being run. */
typedef struct host_run {
    clg_context *ctx;
    const clg_rt_plan *plan;
    char *output;  /* where the pieces write: the caller's, or staging */
    int launches;  /* window launches so far */
    int undrained; /* a failure left commands that could not be waited for */
    clg_rt_call call;
    clg_rt_scratch *scratch; /* copy path */
    cl_mem consts[CLG_RT_PLAN_CONSTS];
} host_run;

/* 1 when the buffer of `slot` wraps the caller's memory. */
static int wraps(const host_run *hr, clg_scratch_slot slot)
{
    return hr->plan->io >= CLG_RT_IO_WRAP &&
           !(slot == CLG_SCRATCH_OUTPUT && hr->plan->out_copy);
}

/* The buffer of `slot` over caller bytes [host, host + bytes), or on a
 * device that takes SVM pointers, those bytes themselves (*svm = host and
 * *out NULL). */
static clg_status io_buffer(host_run *hr, clg_scratch_slot slot, void *host,
                            size_t bytes, cl_mem *out, const void **svm)
{
    clg_status st;
    *out = NULL;
    *svm = NULL;
    if (wraps(hr, slot) && hr->plan->io == CLG_RT_IO_SVM) {
        *svm = host;
        return CLG_STATUS_OK;
    }
    if (wraps(hr, slot))
        return clg_rt_wrap(hr->ctx, host, bytes, slot == CLG_SCRATCH_OUTPUT,
                           out);
    if ((st = clg_rt_scratch_buffer(hr->ctx, hr->scratch, slot, bytes, out)) !=
        CLG_STATUS_OK)
        return st;
    if (slot != CLG_SCRATCH_OUTPUT)
        return clg_rt_upload(&hr->call, *out, host, bytes);
    return CLG_STATUS_OK;
}

static void io_release(host_run *hr, clg_scratch_slot slot, cl_mem *buf)
{
    if (wraps(hr, slot))
        clg_rt_release(buf);
    *buf = NULL;
}

/* Launches over each data window of box b's footprint. */
static clg_status run_windows(host_run *hr, const clg_rt_box *b,
                              exec_window *w)
{
    const clg_rt_plan *plan = hr->plan;
    clg_status st = CLG_STATUS_OK;
    for (int64_t w0 = b->first; w0 < b->end && st == CLG_STATUS_OK;
         w0 += plan->window_units) {
        int64_t len = b->end - w0 < plan->window_units ? b->end - w0
                                                       : plan->window_units;
        w->win[0] = (cl_ulong)w0;
        w->win[1] = (cl_ulong)len;
        st = io_buffer(hr, CLG_SCRATCH_DATA,
                       plan->data + (size_t)w0 * plan->unit,
                       (size_t)len * plan->unit, &w->data, &w->data_svm);
        if (st == CLG_STATUS_OK)
            st = run_steps(&hr->call, plan, b, w);
        io_release(hr, CLG_SCRATCH_DATA, &w->data);
        if (st == CLG_STATUS_OK &&
            ++hr->launches % CLG_LAUNCHES_PER_FINISH == 0)
            st = clg_rt_call_sync(&hr->call);
    }
    return st;
}

/* After a piece's launches: its output reaches the caller's memory (a
 * download on the copy path of a split call; a map/unmap of a wrapped
 * output; nothing for SVM, whose writes the call's wait makes visible). */
static clg_status commit_piece(host_run *hr, const clg_rt_box *b,
                               const exec_window *w)
{
    const clg_rt_plan *plan = hr->plan;
    size_t bytes = (size_t)b->out_len * plan->unit;
    char *dst = hr->output + (size_t)b->out_base * plan->unit;
    if (wraps(hr, CLG_SCRATCH_OUTPUT))
        return plan->io == CLG_RT_IO_SVM
                   ? CLG_STATUS_OK
                   : clg_rt_publish(&hr->call, w->output, bytes,
                                    plan->map_wait);
    if (!plan->whole)
        return clg_rt_download(&hr->call, w->output, dst, bytes, 0);
    return CLG_STATUS_OK;
}

/* Every box in turn; the indices window is kept while it stays. */
static clg_status run_pieces(host_run *hr)
{
    const clg_rt_plan *plan = hr->plan;
    const clg_rt_box *boxes = plan_boxes(plan);
    clg_status st = CLG_STATUS_OK;
    exec_window w = {.consts = hr->consts};
    int64_t index_base = -1, index_len = -1;
    for (size_t k = 0; k < plan->nboxes && st == CLG_STATUS_OK; k++) {
        const clg_rt_box *b = &boxes[k];
        w.win[2] = (cl_ulong)b->index_base;
        w.win[3] = (cl_ulong)b->index_len;
        w.win[4] = (cl_ulong)b->out_base;
        w.win[5] = (cl_ulong)b->out_len;
        st = io_buffer(hr, CLG_SCRATCH_OUTPUT,
                       hr->output + (size_t)b->out_base * plan->unit,
                       (size_t)b->out_len * plan->unit, &w.output,
                       &w.output_svm);
        if (st == CLG_STATUS_OK &&
            (b->index_base != index_base || b->index_len != index_len)) {
            io_release(hr, CLG_SCRATCH_INDICES, &w.indices);
            st = io_buffer(hr, CLG_SCRATCH_INDICES,
                           plan->indices +
                               (size_t)b->index_base * plan->index_size,
                           (size_t)b->index_len * plan->index_size, &w.indices,
                           &w.indices_svm);
            index_base = b->index_base;
            index_len = b->index_len;
        }
        if (st == CLG_STATUS_OK)
            st = run_windows(hr, b, &w);
        if (st == CLG_STATUS_OK)
            st = commit_piece(hr, b, &w);
        io_release(hr, CLG_SCRATCH_OUTPUT, &w.output);
    }
    io_release(hr, CLG_SCRATCH_INDICES, &w.indices);
    return st;
}

/* A whole result from the scratch output, with a blocking read (which
 * waits for the launch). */
static clg_status download_whole(host_run *hr)
{
    cl_mem out = NULL;
    size_t bytes = (size_t)hr->plan->out_bytes;
    clg_status st = clg_rt_scratch_buffer(hr->ctx, hr->scratch,
                                          CLG_SCRATCH_OUTPUT, bytes, &out);
    return st != CLG_STATUS_OK
               ? st
               : clg_rt_download(&hr->call, out, hr->output, bytes, 1);
}

/* After every launch succeeded: in place, every index was checked before
 * the launch, so the kernels cannot have raised the error slot and nothing
 * reads it: read a small whole output back, or wait. On the copy path read
 * the slot and download a whole result. */
static clg_status finish_host(host_run *hr, clg_rt_raised *raised)
{
    const clg_rt_plan *plan = hr->plan;
    int flag = 0;
    clg_status st;
    if (plan->out_copy && plan->whole)
        return (st = download_whole(hr)) != CLG_STATUS_OK
                   ? st
                   : clg_rt_call_sync(&hr->call);
    if ((st = clg_rt_call_wait(&hr->call, &flag)) != CLG_STATUS_OK ||
        plan->io != CLG_RT_IO_COPY)
        return st;
    if (flag) {
        *raised = CLG_RT_RAISED_SLOT;
        return CLG_STATUS_OK;
    }
    if (!plan->whole || (st = download_whole(hr)) != CLG_STATUS_OK)
        return st;
    /* The blocking read may return while its command was terminated. */
    return clg_rt_call_sync(&hr->call);
}

/* The check kernel over the caller's indices, wrapped in place, in a
 * blocking call of its own before any launch may write the output. */
static clg_status precheck(clg_context *ctx, const clg_rt_plan *plan,
                           clg_rt_raised *raised)
{
    clg_rt_call c;
    cl_mem buf = NULL;
    int flag = 0;
    clg_status st = clg_rt_wrap(ctx, plan->indices, (size_t)plan->index_bytes,
                                0, &buf);
    if (st != CLG_STATUS_OK)
        return st;
    st = clg_rt_call_open(ctx, clg_rt_host_queue(ctx), 0, NULL,
                          CLG_RT_CALL_BLOCKING, &c);
    if (st == CLG_STATUS_OK) {
        const clg_rt_step s = {plan->precheck_kernel, plan->precheck_g};
        exec_window w = {.indices = buf};
        st = launch_step(&c, plan, &s, &w, &s.g);
        if (st == CLG_STATUS_OK)
            st = clg_rt_call_wait(&c, &flag);
    }
    clg_rt_call_close(&c, st != CLG_STATUS_OK);
    clg_rt_release(&buf);
    if (st == CLG_STATUS_OK && flag)
        *raised = CLG_RT_RAISED_PRECHECK;
    return st;
}

/* Opens the call, launches and finishes; hr->output is where the pieces
 * write. */
static clg_status run_launches(host_run *hr, clg_rt_raised *raised)
{
    clg_context *ctx = hr->ctx;
    const clg_rt_plan *plan = hr->plan;
    clg_status st;
    if ((plan->io == CLG_RT_IO_COPY || plan->out_copy) &&
        (st = clg_rt_scratch_take(ctx, &hr->scratch)) != CLG_STATUS_OK)
        return st;
    /* Only the copy path of a single launch under raise reads its slot. */
    st = clg_rt_call_open(ctx, clg_rt_host_queue(ctx), 0, NULL,
                          plan->checked ? CLG_RT_CALL_UNCHECKED
                                        : CLG_RT_CALL_BLOCKING,
                          &hr->call);
    if (st == CLG_STATUS_OK)
        st = make_consts(ctx, plan, hr->consts);
    if (st == CLG_STATUS_OK && (st = run_pieces(hr)) == CLG_STATUS_OK)
        st = finish_host(hr, raised);
    release_consts(plan, hr->consts);
    /* After a failure nothing enqueued (copies from the caller's inputs,
     * launches, downloads into the output or the staging copy) may still
     * run when the call returns. */
    if (!clg_rt_call_close(&hr->call, st != CLG_STATUS_OK))
        hr->undrained = 1;
    clg_rt_scratch_give(ctx, hr->scratch, hr->undrained);
    hr->scratch = NULL;
    return st;
}

/* A split call writes its pieces into a staging copy of the output, which
 * reaches the caller's memory only once every piece has succeeded: a
 * failure midway leaves the caller's output untouched (docs/design.md,
 * "Errors"). */
static clg_status run_staged(host_run *hr, clg_rt_raised *raised)
{
    size_t bytes = (size_t)hr->plan->out_bytes;
    char *staging = aligned_alloc(64, (bytes + 63) / 64 * 64);
    if (!staging)
        return clg_fail(hr->ctx, CLG_STATUS_OUT_OF_MEMORY,
                        "out of host memory staging a split output of %zu "
                        "bytes",
                        bytes);
    hr->output = staging;
    clg_status st = run_launches(hr, raised);
    if (st == CLG_STATUS_OK && *raised == CLG_RT_RAISED_NONE)
        memcpy(hr->plan->output, staging, bytes);
    /* A queue that could not be drained may still write the staging copy:
     * it is left allocated rather than freed under the device. */
    if (!hr->undrained)
        free(staging);
    return st;
}

clg_status clg_rt_execute(clg_context *ctx, const clg_rt_plan *plan,
                          clg_rt_raised *raised)
{
    host_run hr = {.ctx = ctx, .plan = plan, .output = plan->output};
    clg_status st;
    *raised = CLG_RT_RAISED_NONE;
    if (plan->precheck &&
        ((st = precheck(ctx, plan, raised)) != CLG_STATUS_OK ||
         *raised != CLG_RT_RAISED_NONE))
        return st;
    return plan->whole ? run_launches(&hr, raised) : run_staged(&hr, raised);
}
