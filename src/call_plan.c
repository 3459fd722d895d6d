/* SPDX-License-Identifier: Apache-2.0 */
/* Building a call's plan as data and compiling it (docs/design.md,
 * "Plans"): its kernels with their symbolic arguments, boxes of steps and
 * small buffers; host/execute.c runs it. */
#include "op.h"

#include <stdlib.h>
#include <string.h>

clg_status clg_call_plan_init(clg_context *ctx, clg_call_plan *cp,
                              size_t nboxes)
{
    clg_rt_plan *rt = &cp->rt;
    rt->nkernels = rt->nconsts = rt->nsteps = rt->nboxes = 0;
    rt->steps = NULL;
    rt->boxes = NULL;
    rt->step_cap = CLG_RT_BOX_STEPS;
    rt->box_cap = 1;
    cp->box = NULL;
    if (nboxes <= 1)
        return CLG_STATUS_OK;
    rt->boxes = malloc(nboxes * sizeof *rt->boxes);
    rt->steps = malloc(nboxes * CLG_RT_BOX_STEPS * sizeof *rt->steps);
    if (!rt->boxes || !rt->steps) {
        clg_rt_plan_free(rt);
        return clg_fail(ctx, CLG_STATUS_OUT_OF_MEMORY,
                        "out of host memory planning %zu pieces", nboxes);
    }
    rt->box_cap = nboxes;
    rt->step_cap = nboxes * CLG_RT_BOX_STEPS;
    return CLG_STATUS_OK;
}

clg_rt_box *clg_call_plan_box(clg_call_plan *cp)
{
    clg_rt_plan *rt = &cp->rt;
    clg_rt_box *b = rt->boxes ? &rt->boxes[rt->nboxes] : &rt->inline_box;
    memset(b, 0, sizeof *b);
    b->step0 = rt->nsteps;
    rt->nboxes++;
    cp->box = b;
    return b;
}

static int same_pargs(const clg_rt_parg *a, const clg_rt_parg *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (a[i].ref != b[i].ref || a[i].value != b[i].value)
            return 0;
    return 1;
}

static int same_args(const clg_rt_kernel_use *a, const clg_rt_kernel_use *b)
{
    return a->nargs == b->nargs && a->nfields == b->nfields &&
           same_pargs(a->args, b->args, a->nargs) &&
           same_pargs(a->fields, b->fields, a->nfields);
}

/* Copies the arguments `ids` (ending with CLG_ARG_END) from `a` to
 * out[0 .. cap-1]; *n gets their number. The shape (CLG_ARG_SHAPE) stands
 * for its fields, which host/execute.c packs at each launch. 0 when one is
 * not set or they do not fit. */
static int copy_pargs(const clg_plan_args *a, const clg_arg *ids,
                      clg_rt_parg *out, size_t cap, size_t *n)
{
    size_t k = 0;
    for (; ids[k] != CLG_ARG_END; k++) {
        if (k == cap)
            return 0;
        if (ids[k] == CLG_ARG_SHAPE)
            out[k] = (clg_rt_parg){CLG_RT_REF_FIELDS, 0};
        else if (a->set >> ids[k] & 1u)
            out[k] = a->at[ids[k]];
        else
            return 0;
    }
    *n = k;
    return 1;
}

clg_status clg_call_plan_kernel(const clg_plan_env *env, clg_call_plan *cp,
                                const clg_variant *v, const clg_plan_args *a,
                                unsigned *k)
{
    clg_rt_plan *rt = &cp->rt;
    const clg_entry_info *e = &clg_entries[v->entry];
    const clg_arg *shape = clg_entry_shape(v->entry);
    if (rt->nkernels == CLG_RT_PLAN_KERNELS)
        return clg_fail(env->ctx, CLG_STATUS_BUILD_FAILED,
                        "internal error: a plan has more than %d kernels",
                        CLG_RT_PLAN_KERNELS);
    /* Written in the next free place, kept unless an equal one exists. */
    clg_rt_kernel_use *ku = &rt->kernels[rt->nkernels];
    ku->nfields = 0;
    if (!copy_pargs(a, e->args, ku->args, CLG_RT_PLAN_ARGS, &ku->nargs) ||
        (shape &&
         !copy_pargs(a, shape, ku->fields, CLG_RT_PLAN_FIELDS, &ku->nfields)))
        return clg_fail(env->ctx, CLG_STATUS_BUILD_FAILED,
                        "internal error: an argument of kernel %s is not set",
                        e->name);
    ku->kernel = NULL;
    for (size_t i = 0; i < rt->nkernels; i++)
        if (memcmp(&cp->variant[i], v, sizeof *v) == 0 &&
            same_args(&rt->kernels[i], ku)) {
            *k = (unsigned)i;
            return CLG_STATUS_OK;
        }
    cp->variant[rt->nkernels] = *v;
    *k = (unsigned)rt->nkernels++;
    return CLG_STATUS_OK;
}

clg_status clg_call_plan_step(const clg_plan_env *env, clg_call_plan *cp,
                              const clg_variant *v, const clg_plan_args *a,
                              const clg_geometry *g)
{
    clg_rt_plan *rt = &cp->rt;
    unsigned k;
    clg_status st = clg_call_plan_kernel(env, cp, v, a, &k);
    if (st != CLG_STATUS_OK)
        return st;
    if (rt->nsteps == rt->step_cap || cp->box->nsteps == CLG_RT_BOX_STEPS)
        return clg_fail(env->ctx, CLG_STATUS_BUILD_FAILED,
                        "internal error: a box has more than %d launches",
                        CLG_RT_BOX_STEPS);
    clg_rt_step *steps = rt->steps ? rt->steps : rt->inline_steps;
    steps[rt->nsteps++] = (clg_rt_step){k, *g};
    cp->box->nsteps++;
    return CLG_STATUS_OK;
}

clg_status clg_call_plan_const(const clg_plan_env *env, clg_call_plan *cp,
                               const cl_ulong *vals, size_t n, cl_ulong *which)
{
    clg_rt_plan *rt = &cp->rt;
    for (size_t i = 0; i < rt->nconsts; i++)
        if (rt->const_len[i] == n &&
            memcmp(rt->consts[i], vals, n * sizeof *vals) == 0) {
            *which = i;
            return CLG_STATUS_OK;
        }
    if (rt->nconsts == CLG_RT_PLAN_CONSTS || n > 1 + 2 * CLG_MAX_RANK)
        return clg_fail(env->ctx, CLG_STATUS_BUILD_FAILED,
                        "internal error: a plan's small buffers do not fit");
    memcpy(rt->consts[rt->nconsts], vals, n * sizeof *vals);
    rt->const_len[rt->nconsts] = n;
    *which = rt->nconsts++;
    return CLG_STATUS_OK;
}

clg_status clg_call_plan_compile(clg_context *ctx, clg_call_plan *cp)
{
    clg_status st = CLG_STATUS_OK;
    for (size_t k = 0; k < cp->rt.nkernels && st == CLG_STATUS_OK; k++)
        st = clg_variant_kernel(ctx, &cp->variant[k],
                                &cp->rt.kernels[k].kernel);
    return st;
}

void clg_base_pargs(const clg_plan *plan, clg_plan_args *a)
{
    static const clg_arg window_args[6] = {
        CLG_ARG_DATA_BASE, CLG_ARG_DATA_LEN, CLG_ARG_INDEX_BASE,
        CLG_ARG_INDEX_LEN, CLG_ARG_OUT_BASE, CLG_ARG_OUT_LEN};
    clg_parg_ref(a, CLG_ARG_DATA, CLG_RT_REF_DATA, 0);
    clg_parg_ref(a, CLG_ARG_INDICES, CLG_RT_REF_INDICES, 0);
    clg_parg_ref(a, CLG_ARG_OUT, CLG_RT_REF_OUTPUT, 0);
    clg_parg_ref(a, CLG_ARG_ERR, CLG_RT_REF_ERR, 0);
    clg_parg_value(a, CLG_ARG_N, (cl_ulong)plan->n);
    clg_parg_value(a, CLG_ARG_AXIS_SIZE, (cl_ulong)plan->axis_size);
    clg_parg_value(a, CLG_ARG_INNER, (cl_ulong)plan->inner);
    for (int i = 0; i < 6; i++)
        clg_parg_ref(a, window_args[i], CLG_RT_REF_WINDOW, (cl_ulong)i);
}
