/* SPDX-License-Identifier: Apache-2.0 */
/* Kernel launches (OpenCL 1.2 API sections 5.7.2 and 5.8). A cl_kernel's
 * arguments are state shared by every thread that uses the kernel, so
 * setting them and enqueueing the kernel is one step under launch_lock
 * (docs/design.md, "Threads"). */
#include "context.h"

#include <stdio.h>
#include <string.h>

/* The memo of `k`'s scalar arguments, taken over from the oldest kernel
 * when `k` has none yet. Under launch_lock. */
static struct clg_arg_memo *arg_memo(clg_context *ctx, cl_kernel k)
{
    for (size_t i = 0; i < CLG_ARG_MEMO_KERNELS; i++)
        if (ctx->arg_memo[i].kernel == k)
            return &ctx->arg_memo[i];
    struct clg_arg_memo *m = &ctx->arg_memo[ctx->arg_memo_next];
    ctx->arg_memo_next = (ctx->arg_memo_next + 1) % CLG_ARG_MEMO_KERNELS;
    m->kernel = k;
    m->known = 0;
    return m;
}

_Static_assert(CLG_RT_PLAN_FIELDS * sizeof(cl_ulong) <= CLG_ARG_MEMO_BLOCK,
               "a shape struct fits the memo's block");

/* 1 when the kernel of memo `m` already holds the bytes of argument i. */
static int memo_holds(const struct clg_arg_memo *m, size_t i,
                      const clg_rt_arg *a)
{
    uint64_t bits = 0;
    if (!a->scalar || i >= CLG_ARG_MEMO_ARGS || !(m->known >> i & 1u))
        return 0;
    if (a->size > sizeof bits)
        return m->block_arg == i && m->block_size == a->size &&
               memcmp(m->block, a->value, a->size) == 0;
    memcpy(&bits, a->value, a->size);
    return m->value[i] == bits;
}

/* Remembers that the kernel of `m` now holds argument i: a scalar's bytes
 * in value[i]; a larger value's in the block, which holds one argument's
 * (the one it held before is forgotten). */
static void memo_keep(struct clg_arg_memo *m, size_t i, const clg_rt_arg *a)
{
    uint64_t bits = 0;
    if (!a->scalar || i >= CLG_ARG_MEMO_ARGS || a->size > sizeof m->block)
        return;
    if (a->size <= sizeof bits) {
        memcpy(&bits, a->value, a->size);
        m->value[i] = bits;
    } else {
        if (m->block_arg != i)
            m->known &= ~(1u << m->block_arg);
        memcpy(m->block, a->value, a->size);
        m->block_arg = i;
        m->block_size = a->size;
    }
    m->known |= 1u << i;
}

/* Sets args[0 .. count-1] in order, stopping at the first failure. A
 * kernel keeps its arguments between launches (OpenCL 1.2, 5.7.2), so a
 * scalar or shape struct it already holds is not set again: repeated
 * calls on one shape set only their buffers. Buffers are always set: a
 * released cl_mem's handle may come back as a new buffer's
 * (docs/design.md, "Cost per call"). */
static clg_status set_args(clg_context *ctx, cl_kernel k,
                           const clg_rt_arg *args, size_t count)
{
    struct clg_arg_memo *m = arg_memo(ctx, k);
    for (size_t i = 0; i < count; i++) {
        if (memo_holds(m, i, &args[i]))
            continue;
        cl_int err = args[i].size == 0
                         ? clg_rt_set_svm_arg(k, (cl_uint)i, args[i].value)
                         : clSetKernelArg(k, (cl_uint)i, args[i].size,
                                          args[i].value);
        if (err != CL_SUCCESS) {
            char call[48];
            m->known = 0;
            snprintf(call, sizeof call, "%s(%zu)",
                     args[i].size == 0 ? "clSetKernelArgSVMPointer"
                                       : "clSetKernelArg",
                     i);
            return clg_fail_cl(ctx, err, call);
        }
        memo_keep(m, i, &args[i]);
    }
    return CLG_STATUS_OK;
}

clg_rt_arg clg_rt_mem_arg(const cl_mem *buf, const void *svm)
{
    return svm ? (clg_rt_arg){0, svm, 0}
               : (clg_rt_arg){sizeof(cl_mem), buf, 0};
}

/* Enqueues the range in launches that respect the device's grid limit:
 * 65535 work-groups in dimensions 1 and 2 on GPUs; elsewhere one launch. */
static clg_status enqueue_range(clg_rt_call *c, cl_kernel kernel,
                                const clg_geometry *g)
{
    size_t origin[3] = {0, 0, 0}, global[3] = {1, 1, 1}, local[3] = {1, 1, 1};
    size_t cap[3];
    for (unsigned d = 0; d < g->dims && d < 3; d++) {
        origin[d] = g->origin[d];
        global[d] = g->global[d];
        local[d] = g->local[d];
    }
    for (int d = 0; d < 3; d++)
        cap[d] = c->ctx->facts.plan_type == CLG_DEVICE_TYPE_GPU && d > 0
                     ? 65535 * local[d]
                     : global[d];
    for (size_t z = 0; z < global[2]; z += cap[2])
        for (size_t y = 0; y < global[1]; y += cap[1]) {
            size_t offset[3] = {origin[0], origin[1] + y, origin[2] + z};
            size_t count[3] = {global[0],
                               global[1] - y < cap[1] ? global[1] - y : cap[1],
                               global[2] - z < cap[2] ? global[2] - z
                                                      : cap[2]};
            cl_uint nw;
            const cl_event *w;
            cl_event ev;
            cl_event *evp = clg_rt_call_next(c, &nw, &w, &ev);
            cl_int err = clEnqueueNDRangeKernel(c->queue, kernel, g->dims,
                                                offset, count, local, nw, w,
                                                evp);
            if (err != CL_SUCCESS)
                return clg_fail_cl(c->ctx, err, "clEnqueueNDRangeKernel");
            clg_status st = clg_rt_call_enqueued(c, ev,
                                                 "clEnqueueNDRangeKernel");
            if (st != CLG_STATUS_OK)
                return st;
        }
    return CLG_STATUS_OK;
}

clg_status clg_rt_launch(clg_rt_call *c, cl_kernel kernel,
                         const clg_rt_arg *args, size_t nargs,
                         const clg_geometry *g)
{
    clg_context *ctx = c->ctx;
    pthread_mutex_lock(&ctx->launch_lock);
    clg_status st = set_args(ctx, kernel, args, nargs);
    if (st == CLG_STATUS_OK)
        st = enqueue_range(c, kernel, g);
    pthread_mutex_unlock(&ctx->launch_lock);
    return st;
}
