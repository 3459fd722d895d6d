/* SPDX-License-Identifier: Apache-2.0 */
/* The paths every operator shares (docs/design.md, "Layers", "Plans",
 * "Enqueue and deferred errors" and "Large tensors"): validate -> plan ->
 * compile -> run, on device buffers and on host memory.
 *
 * Each path builds its call's plan as data, compiles it, and hands it to
 * the runtime, which runs it (host/execute.c):
 *  - clg_dispatch_enqueue: plan_cl's one box in a deferred call on the
 *    caller's queue; index errors surface from clg_context_finish;
 *  - clg_dispatch_cl: the same box in a blocking call on the context's
 *    queue that reads its own error slot;
 *  - clg_dispatch_host: host memory (plan_host). On devices that share
 *    host memory (POCL's CPU device) the caller's buffers are used in
 *    place and the index values are checked before any kernel may write
 *    the caller's output; elsewhere data and indices are uploaded to
 *    scratch buffers and the output is downloaded only when the device
 *    raised no error. Either way the caller's output is untouched on an
 *    index error.
 */
#include "op.h"

#include <stdint.h>
#include <stdlib.h>

static clg_status need_ctx(const clg_context *ctx)
{
    if (!ctx)
        return clg_fail(NULL, CLG_STATUS_NULL_POINTER, "ctx is NULL");
    return clg_rt_check_process(ctx);
}

static uint64_t index_bytes(const clg_problem *p)
{
    return (uint64_t)p->index_count * p->index_size;
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

/* The alignment of a tensor at byte `offset` of a buffer aligned to
 * `align` (a power of two): its view (src/views.c) starts there. */
static size_t offset_alignment(size_t align, uint64_t offset)
{
    while (align > 1 && offset % align != 0)
        align /= 2;
    return align;
}

/* The plan of one problem on device buffers (one box over the whole
 * tensors): the operator's kernel, or, when the output or the data is
 * empty, only the check of the index values. Buffers (NULL in a warm-up)
 * are asked only for their alignment. */
static clg_status plan_cl(const clg_routine *r, clg_context *ctx,
                          const clg_problem *p, cl_mem data, cl_mem output,
                          const clg_call *call, clg_call_plan *cp)
{
    clg_plan_env env = {.ctx = ctx, .dev = clg_rt_facts(ctx)};
    clg_plan plan;
    clg_status st = clg_call_plan_init(ctx, cp, 1);
    clg_rt_box *b = clg_call_plan_box(cp);
    /* Tuples are checked by the operator's own kernel (one range per
     * component), which a box of empty slices launches for that alone. */
    int tuples = clg_op_desc_of(p->op)->tuples;
    if ((p->out_count == 0 || p->data_count == 0) &&
        (!tuples || p->index_count == 0 || p->oob != CLG_OOB_RAISE)) {
        if (p->index_count == 0 || p->oob != CLG_OOB_RAISE)
            return st;
        clg_plan_args a;
        clg_plan_args_init(&a);
        clg_variant v;
        clg_geometry g;
        clg_index_pass_make(env.dev, p, 0, &v, &a, &g);
        b->index_len = p->index_count;
        return clg_call_plan_step(&env, cp, &v, &a, &g);
    }
    if ((st = clg_param_values_get(ctx, &env.prm)) != CLG_STATUS_OK)
        return st;
    env.builtins = clg_params_entry_of(ctx)->builtins;
    /* The plan may move a Gather row in units wider than its element,
     * which needs both buffers aligned to them: a buffer over caller
     * memory (CL_MEM_USE_HOST_PTR) need not be. A warm-up, which may have
     * no buffers, plans for aligned ones. */
    size_t in_align =
        offset_alignment(data ? clg_rt_mem_alignment(ctx, data, NULL) : 4096,
                         call->data_offset);
    env.out_align =
        offset_alignment(output ? clg_rt_mem_alignment(ctx, output, NULL)
                                : 4096,
                         call->output_offset);
    size_t align = in_align < env.out_align ? in_align : env.out_align;
    if (align > CLG_MAX_ELEMENT_SIZE)
        align = CLG_MAX_ELEMENT_SIZE;
    r->plan(p, env.dev, align, &plan);
    clg_box box = {0, plan.outer, 0, plan.n, 0, plan.inner};
    b->end = plan.data_units;
    b->index_len = p->index_count;
    b->out_len = plan.out_units;
    return r->launch(&env, p, &plan, &box, 1, plan.out_units, cp);
}

/* The compiled plan of a device-buffer call; freed by the caller. */
static clg_status compile_cl(const clg_call *call, clg_context *ctx,
                             const clg_problem *p, const clg_cl_tensor *data,
                             const clg_cl_tensor *output, clg_call_plan *cp)
{
    const clg_routine *r = clg_op_desc_of(call->op)->routine;
    clg_status st = plan_cl(r, ctx, p, data->buffer, output->buffer, call, cp);
    return st == CLG_STATUS_OK ? clg_call_plan_compile(ctx, cp) : st;
}

clg_status clg_dispatch_enqueue(clg_context *ctx, cl_command_queue queue,
                                const clg_call *call,
                                const clg_cl_tensor *data,
                                const clg_cl_tensor *indices,
                                const clg_cl_tensor *output, cl_uint num_wait,
                                const cl_event *wait, cl_event *event)
{
    clg_deferred_info info;
    clg_call_plan cp;
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
        (st = compile_cl(call, ctx, &info.p, data, output, &cp)) !=
            CLG_STATUS_OK ||
        (st = clg_rt_call_open(ctx, queue, num_wait, wait,
                               CLG_RT_CALL_DEFERRED, &c)) != CLG_STATUS_OK)
        return st;
    info.sequence = clg_rt_sequence(&c);
    const clg_cl_tensor *const t[CLG_VIEW_COUNT] = {data, indices, output};
    clg_cl_views v;
    st = clg_views_open(&c, call, &info.p, t, &v);
    if (st == CLG_STATUS_OK)
        st = clg_rt_run_box(&c, &cp.rt, &cp.rt.inline_box, v.t[0].buffer,
                            v.t[1].buffer, v.t[2].buffer);
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
    clg_problem p;
    clg_call_plan cp;
    clg_rt_call c;
    clg_status st;
    int raised = 0;
    if ((st = need_ctx(ctx)) != CLG_STATUS_OK ||
        (st = check_cl_call(ctx, call, data, indices, output, &p)) !=
            CLG_STATUS_OK ||
        (st = clg_validate_options(ctx, &call->options, &p)) !=
            CLG_STATUS_OK ||
        (st = compile_cl(call, ctx, &p, data, output, &cp)) != CLG_STATUS_OK ||
        (st = clg_rt_call_open(ctx, NULL, 0, NULL,
                               p.oob == CLG_OOB_RAISE ? CLG_RT_CALL_BLOCKING
                                                      : CLG_RT_CALL_UNCHECKED,
                               &c)) != CLG_STATUS_OK)
        return st;
    const clg_cl_tensor *const t[CLG_VIEW_COUNT] = {data, indices, output};
    clg_cl_views v;
    st = clg_views_open(&c, call, &p, t, &v);
    if (st == CLG_STATUS_OK)
        st = clg_rt_run_box(&c, &cp.rt, &cp.rt.inline_box, v.t[0].buffer,
                            v.t[1].buffer, v.t[2].buffer);
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

/* Largest power of two (<= `cap`) dividing an address. */
static size_t address_alignment(const void *ptr, size_t cap)
{
    uintptr_t a = (uintptr_t)ptr | cap;
    return (size_t)(a & (~a + 1));
}

/* The plan of a host-memory call, validated and not empty: in place or
 * through copies, its pieces and windows and each box's launches, from
 * the device facts and parameters read once (docs/design.md, "Plans").
 * *host_check: the call scans its indices on the host before it runs.
 * Pointers are read only for their alignment (a warm-up's output may be
 * NULL). */
static clg_status plan_host(const clg_routine *r, clg_context *ctx,
                            const clg_param_values *prm, const clg_problem *p,
                            const clg_tensor *data, const clg_tensor *indices,
                            const clg_tensor *output, clg_call_plan *cp,
                            int *host_check)
{
    clg_plan_env env = {.ctx = ctx, .dev = clg_rt_facts(ctx)};
    const clg_device_facts *dev = env.dev;
    const clg_params_entry *row = clg_params_entry_of(ctx);
    clg_rt_plan *rt = &cp->rt;
    /* Nothing to free yet, whichever way this returns. */
    rt->steps = NULL;
    rt->boxes = NULL;
    char *out = output ? (char *)output->data : NULL;
    clg_plan plan;
    clg_pieces pc;
    clg_status st = CLG_STATUS_OK;
    if (prm)
        env.prm = *prm;
    else if ((st = clg_param_values_get(ctx, &env.prm)) != CLG_STATUS_OK)
        return st;
    env.builtins = row->builtins;
    /* In place needs caller memory aligned as the operator's kernels read
     * it (its row says; indices are read as int32/int64). */
    size_t need = clg_op_desc_of(p->op)->in_place_align == CLG_ALIGN_ELEMENT
                      ? p->elem_size
                      : 1;
    if (need > CLG_MAX_ELEMENT_SIZE)
        need = CLG_MAX_ELEMENT_SIZE;
    const size_t cap = CLG_MAX_ELEMENT_SIZE;
    int in_place = dev->host_unified &&
                   address_alignment(data->data, cap) >= need &&
                   address_alignment(out, cap) >= need &&
                   address_alignment(indices->data, cap) >= p->index_size;
    /* In place, the kernels take the caller's memory as SVM pointers
     * where the device can; else wrapped in buffers, and then a small
     * output may go to a scratch buffer and back with one blocking read
     * instead of a map and an unmap where it is: which is cheaper depends
     * on the runtime (the `small` parameter; docs/design.md, "Host memory
     * and device buffers"). */
    int svm = in_place && dev->host_svm;
    rt->out_copy = in_place && !svm &&
                   out_bytes(p) <= (uint64_t)env.prm.small * 1024;
    rt->io = !in_place ? CLG_RT_IO_COPY : svm ? CLG_RT_IO_SVM : CLG_RT_IO_WRAP;
    size_t align = CLG_MAX_ELEMENT_SIZE;
    if (in_place) {
        align = address_alignment(data->data, cap);
        if (address_alignment(out, cap) < align)
            align = address_alignment(out, cap);
    }
    /* A staging buffer is 64-byte aligned, so a plan made for the caller's
     * output alignment holds for it too. */
    r->plan(p, dev, align, &plan);
    clg_pieces_cut(p, &plan, dev->max_alloc, &pc);
    rt->whole = pc.count == 1 && plan.data_units <= pc.units;
    /* The output the kernels of a whole call write: the caller's, or a
     * scratch buffer on the device's base alignment. */
    env.out_align = in_place && !rt->out_copy ? address_alignment(out, 4096)
                    : dev->base_align
                        ? address_alignment((const void *)dev->base_align,
                                            4096)
                        : 1;
    /* Under raise every index is checked before the first launch in place
     * or split (the copy path of a single launch reads its error slot
     * instead); the launches then take the clip bodies, which leave a
     * valid index as it is and check nothing more, so that a value the
     * caller changes during the call still stays inside the data. Modes
     * other than raise resolve every value in the kernels, which then
     * never raise (docs/design.md, "Out-of-range modes"). */
    int checks_first = (in_place || !rt->whole) && p->oob == CLG_OOB_RAISE;
    clg_problem launched = *p;
    if (checks_first)
        launched.oob = CLG_OOB_CLIP;
    rt->checked = checks_first || p->oob != CLG_OOB_RAISE;
    rt->map_wait = row->map_wait;
    rt->data = (char *)data->data;
    rt->indices = (char *)indices->data;
    rt->output = out;
    rt->unit = plan.unit;
    rt->index_size = p->index_size;
    rt->window_units = pc.units;
    rt->index_bytes = index_bytes(p);
    rt->out_bytes = out_bytes(p);
    if ((st = clg_call_plan_init(ctx, cp, (size_t)pc.count)) != CLG_STATUS_OK)
        return st;
    rt->precheck = checks_first &&
                   clg_check_indices_on_device(ctx, p, in_place);
    *host_check = checks_first && !rt->precheck;
    if (rt->precheck) {
        clg_plan_args a;
        clg_plan_args_init(&a);
        clg_variant v;
        clg_index_pass_make(dev, p, 0, &v, &a, &rt->precheck_g);
        st = clg_call_plan_kernel(&env, cp, &v, &a, &rt->precheck_kernel);
    }
    for (int64_t k = 0; k < pc.count && st == CLG_STATUS_OK; k++) {
        clg_box box;
        clg_windows w;
        int64_t f0, f1;
        clg_piece_at(r, p, &plan, &pc, k, &box, &w, &f0, &f1);
        clg_rt_box *b = clg_call_plan_box(cp);
        b->out_base = w.out_base;
        b->out_len = w.out_len;
        b->index_base = w.index_base;
        b->index_len = w.index_len;
        b->first = f0;
        b->end = f1;
        int whole = box.o0 == 0 && box.o1 == plan.outer && box.j0 == 0 &&
                    box.j1 == plan.n && box.c0 == 0 && box.c1 == plan.inner &&
                    f0 == 0 && f1 == plan.data_units && f1 - f0 <= pc.units &&
                    w.index_base == 0 && w.index_len == plan.index_count &&
                    w.out_base == 0 && w.out_len == plan.out_units;
        st = r->launch(&env, &launched, &plan, &box, whole, w.out_len, cp);
    }
    return st;
}

/* Runs a compiled host-memory plan; where a check raised, names the bad
 * index from the caller's indices. */
static clg_status run_host(clg_context *ctx, const clg_problem *p,
                           clg_call_plan *cp, const void *indices)
{
    clg_rt_raised raised;
    clg_status st;
    while ((st = clg_rt_execute(ctx, &cp->rt, &raised)) == CLG_STATUS_OK &&
           raised == CLG_RT_RAISED_PRECHECK) {
        /* The check kernel raised: the host scan names the bad index;
         * where it finds none, the call goes on without the check. */
        if ((st = clg_check_indices_host(ctx, p, indices)) != CLG_STATUS_OK)
            return st;
        cp->rt.precheck = 0;
    }
    if (st == CLG_STATUS_OK && raised == CLG_RT_RAISED_SLOT)
        st = flag_raised(ctx, clg_check_indices_host(ctx, p, indices),
                         "every index is valid (were the indices modified "
                         "during the call?)");
    return st;
}

/* Host memory, validated and not empty: the plan, the host check of the
 * indices where it runs on the host, the compile and the run; `warm`: a
 * warm-up, which only compiles (output may be NULL). */
static clg_status host_launch(const clg_routine *r, clg_context *ctx,
                              const clg_param_values *prm,
                              const clg_problem *p, const clg_tensor *data,
                              const clg_tensor *indices,
                              const clg_tensor *output, int warm)
{
    clg_call_plan cp;
    int host_check = 0;
    clg_status st = plan_host(r, ctx, prm, p, data, indices, output, &cp,
                              &host_check);
    /* Every index is checked before a kernel may write the caller's
     * memory, and before any kernel is built. */
    if (st == CLG_STATUS_OK && !warm && host_check)
        st = clg_check_indices_host(ctx, p, indices->data);
    if (st == CLG_STATUS_OK)
        st = clg_call_plan_compile(ctx, &cp);
    if (st == CLG_STATUS_OK && !warm)
        st = run_host(ctx, p, &cp, indices->data);
    clg_rt_plan_free(&cp.rt);
    return st;
}

/* A tiny call goes to its row's host loop: at most the `host` parameter's
 * bytes of output and indices, and not under validation mode, whose
 * comparison needs the device's result (docs/design.md, "Host memory and
 * device buffers"). */
static int on_host(unsigned validation, const clg_param_values *prm,
                   const clg_problem *p)
{
    uint64_t moved = (uint64_t)p->out_count * p->elem_size +
                     (uint64_t)p->index_count * p->index_size;
    return validation == 0 && prm && prm->host > 0 && moved <= prm->host;
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
    /* The context, read once: validation mode and the parameters (NULL
     * where CLGATHER_PARAMS is malformed: the plan reports it). */
    unsigned validation = clg_rt_validation(ctx);
    clg_param_values values;
    const clg_param_values *prm =
        clg_param_values_get(ctx, &values) == CLG_STATUS_OK ? &values : NULL;
    if (on_host(validation, prm, &p))
        return run_on_host(ctx, &p, data, indices, output);
    void *ref = NULL;
    if ((st = clg_validate_reserve(ctx, validation, &p, &ref)) !=
        CLG_STATUS_OK)
        return st;
    if (p.out_count == 0 || p.data_count == 0)
        /* Empty output (or no data to read, which makes every index
         * invalid): no kernel; under raise index values are still
         * checked (the other modes refused an empty axis above). */
        st = p.oob == CLG_OOB_RAISE
                 ? clg_check_indices_host(ctx, &p, indices->data)
                 : CLG_STATUS_OK;
    else
        st = host_launch(r, ctx, prm, &p, data, indices, output, 0);
    if (st == CLG_STATUS_OK && validation != 0)
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
        st = host_launch(r, ctx, NULL, &p, data, indices, output, 1);
    if (st == CLG_STATUS_OK)
        clg_clear_error(ctx);
    return st;
}

clg_status clg_dispatch_warm_up_cl(clg_context *ctx, const clg_call *call,
                                   const clg_cl_tensor *data,
                                   const clg_cl_tensor *indices,
                                   const clg_cl_tensor *output)
{
    clg_problem p;
    clg_call_plan cp;
    clg_desc dd, id, od;
    clg_cl_tensor none = {0};
    clg_status st = warm_up_problem(ctx, call, cl_desc(data, &dd),
                                    cl_desc(indices, &id),
                                    cl_desc(output, &od), &p);
    if (st == CLG_STATUS_OK)
        st = clg_views_check_offsets(ctx, call, &p);
    if (st == CLG_STATUS_OK)
        st = compile_cl(call, ctx, &p, data, output ? output : &none, &cp);
    if (st == CLG_STATUS_OK)
        clg_clear_error(ctx);
    return st;
}
