/* SPDX-License-Identifier: Apache-2.0 */
/* Device tensors at the call's byte offsets (clg_call's data_offset,
 * indices_offset and output_offset; docs/design.md, "Host memory and
 * device buffers"): each tensor reaches the kernels at offset 0 of a
 * buffer of its own, a sub-buffer where the offset is a multiple of the
 * device's base address alignment, else a temporary filled (inputs) or
 * emptied (output) by a device-side copy in the call. A tensor that
 * shares its cl_mem with another of the call is always viewed, since
 * OpenCL leaves a buffer and its sub-buffer used by one command
 * undefined. */
#include "op.h"

static const char *const role_names[CLG_VIEW_COUNT] = {"data", "indices",
                                                       "output"};

static uint64_t offset_of(const clg_call *call, int k)
{
    return k == 0   ? call->data_offset
           : k == 1 ? call->indices_offset
                    : call->output_offset;
}

static uint64_t bytes_of(const clg_problem *p, int k)
{
    return k == 1 ? (uint64_t)p->index_count * p->index_size
                  : (uint64_t)(k == 0 ? p->data_count : p->out_count) *
                        p->elem_size;
}

clg_status clg_views_check_offsets(clg_context *ctx, const clg_call *call,
                                   const clg_problem *p)
{
    for (int k = 0; k < CLG_VIEW_COUNT; k++) {
        uint64_t off = offset_of(call, k);
        size_t unit = k == 1 ? p->index_size : p->elem_size;
        if (off % unit != 0)
            return clg_fail(ctx, CLG_STATUS_INVALID_ARGUMENT,
                            "call->%s_offset = %llu is not a multiple of "
                            "the %s element size (%zu bytes)",
                            role_names[k], (unsigned long long)off,
                            role_names[k], unit);
    }
    return CLG_STATUS_OK;
}

clg_status clg_views_check(clg_context *ctx, const clg_call *call,
                           const clg_problem *p,
                           const clg_cl_tensor *const t[CLG_VIEW_COUNT])
{
    clg_status st = clg_views_check_offsets(ctx, call, p);
    for (int k = 0; k < CLG_VIEW_COUNT && st == CLG_STATUS_OK; k++)
        st = clg_rt_check_buffer(ctx, role_names[k], t[k]->buffer,
                                 offset_of(call, k), bytes_of(p, k));
    if (st != CLG_STATUS_OK || bytes_of(p, 2) == 0)
        return st;
    /* The output's bytes may share a buffer with an input's only where
     * the two ranges are apart. */
    uint64_t o0 = call->output_offset, o1 = o0 + bytes_of(p, 2);
    for (int k = 0; k < 2; k++) {
        uint64_t i0 = offset_of(call, k), i1 = i0 + bytes_of(p, k);
        if (t[k]->buffer != t[2]->buffer || i1 == i0 || i0 >= o1 || o0 >= i1)
            continue;
        if (i0 == 0 && o0 == 0)
            return clg_fail(ctx, CLG_STATUS_INVALID_ARGUMENT,
                            "the output buffer is also the %s buffer; the "
                            "output must not alias an input",
                            role_names[k]);
        return clg_fail(ctx, CLG_STATUS_INVALID_ARGUMENT,
                        "the output's bytes [%llu, %llu) overlap the "
                        "%s [%llu, %llu) in the same buffer; the output "
                        "must not alias an input",
                        (unsigned long long)o0, (unsigned long long)o1,
                        k == 0 ? "data's" : "indices'", (unsigned long long)i0,
                        (unsigned long long)i1);
    }
    return CLG_STATUS_OK;
}

/* 1 when tensor k is seen through a view: at an offset, or sharing its
 * buffer with the output (or, the output, with an input). */
static int needs_view(const clg_call *call, const clg_problem *p,
                      const clg_cl_tensor *const t[CLG_VIEW_COUNT], int k)
{
    if (bytes_of(p, k) == 0)
        return 0;
    if (offset_of(call, k) != 0)
        return 1;
    if (k == 2)
        return (bytes_of(p, 0) > 0 && t[0]->buffer == t[2]->buffer) ||
               (bytes_of(p, 1) > 0 && t[1]->buffer == t[2]->buffer);
    return bytes_of(p, 2) > 0 && t[k]->buffer == t[2]->buffer;
}

clg_status clg_views_open(clg_rt_call *c, const clg_call *call,
                          const clg_problem *p,
                          const clg_cl_tensor *const t[CLG_VIEW_COUNT],
                          clg_cl_views *v)
{
    clg_status st = CLG_STATUS_OK;
    size_t base = clg_rt_facts(c->ctx)->base_align;
    *v = (clg_cl_views){0};
    for (int k = 0; k < CLG_VIEW_COUNT; k++) {
        v->t[k] = *t[k];
        v->parent[k] = t[k]->buffer;
        v->offset[k] = offset_of(call, k);
        v->bytes[k] = (size_t)bytes_of(p, k);
    }
    for (int k = 0; k < CLG_VIEW_COUNT && st == CLG_STATUS_OK; k++) {
        if (!needs_view(call, p, t, k))
            continue;
        if (base > 0 && v->offset[k] % base == 0)
            st = clg_rt_sub_buffer(c->ctx, v->parent[k], v->offset[k],
                                   v->bytes[k], &v->made[k]);
        else {
            v->copied[k] = 1;
            st = clg_rt_new_buffer(c->ctx, v->bytes[k], &v->made[k]);
            if (st == CLG_STATUS_OK && k != 2)
                st = clg_rt_copy(c, v->parent[k], v->offset[k], v->made[k], 0,
                                 v->bytes[k]);
        }
        v->t[k].buffer = v->made[k];
    }
    return st;
}

clg_status clg_views_commit(clg_rt_call *c, const clg_cl_views *v)
{
    if (!v->copied[2])
        return CLG_STATUS_OK;
    return clg_rt_copy(c, v->made[2], 0, v->parent[2], v->offset[2],
                       v->bytes[2]);
}

void clg_views_close(clg_cl_views *v)
{
    for (int k = 0; k < CLG_VIEW_COUNT; k++)
        clg_rt_release(&v->made[k]);
}
