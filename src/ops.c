/* Operator layer: validate -> infer shape -> plan -> dispatch.
 *
 * The device-buffer entry points (clg_gather_cl, clg_gather_elements_cl)
 * are the core; the host-memory ones wrap them:
 *  - on devices that share host memory (POCL's CPU device) the caller's
 *    buffers are used in place (CL_MEM_USE_HOST_PTR) and the index values
 *    are checked before the kernel may write the caller's output;
 *  - elsewhere data and indices are uploaded to scratch buffers and the
 *    output is downloaded only when the device raised no error.
 * Either way the caller's output is untouched on every error. */
#include "internal.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Up to this many index values are checked on the host before an in-place
 * launch; more are checked by the clg_check_indices kernel. */
#define CLG_HOST_CHECK_LIMIT 65536

static clg_status need_ctx(const clg_context *ctx)
{
    if (!ctx)
        return clg_fail(NULL, CLG_STATUS_NULL_POINTER, "ctx is NULL");
    return CLG_STATUS_OK;
}

static uint64_t tensor_bytes(const clg_problem *p, int which)
{
    switch (which) {
    case 0: return (uint64_t)p->data_count * p->elem_size;
    case 1: return (uint64_t)p->index_count * p->index_size;
    default: return (uint64_t)p->out_count * p->elem_size;
    }
}

/* Reads device indices back and checks them on the host: OK when all are
 * valid, else INDEX_OUT_OF_RANGE naming the first bad one. Used where no
 * kernel runs (empty output) and after the device raised its flag. */
static clg_status check_device_indices(clg_context *ctx, const clg_problem *p,
                                       cl_mem idx)
{
    size_t bytes = (size_t)tensor_bytes(p, 1);
    void *host = NULL;
    clg_status st;
    if (bytes == 0)
        return CLG_STATUS_OK;
    host = malloc(bytes);
    if (!host)
        return clg_fail(ctx, CLG_STATUS_OUT_OF_MEMORY,
                        "out of host memory reading back %zu bytes of indices",
                        bytes);
    cl_int err = clEnqueueReadBuffer(ctx->queue, idx, CL_TRUE, 0, bytes, host,
                                     0, NULL, NULL);
    st = err != CL_SUCCESS ? clg_fail_cl(ctx, err, "clEnqueueReadBuffer(indices)")
                           : clg_check_indices_host(ctx, p, host);
    free(host);
    return st;
}

/* ------------------------------------------------------------ device buffers */

static clg_status check_buffer(clg_context *ctx, const char *what, cl_mem buf,
                               uint64_t bytes)
{
    size_t size = 0;
    if (bytes == 0)
        return CLG_STATUS_OK;
    if (!buf)
        return clg_fail(ctx, CLG_STATUS_NULL_POINTER,
                        "%s buffer is NULL for a tensor of %llu bytes", what,
                        (unsigned long long)bytes);
    cl_context owner = NULL;
    cl_int err = clGetMemObjectInfo(buf, CL_MEM_SIZE, sizeof size, &size, NULL);
    if (err == CL_SUCCESS)
        err = clGetMemObjectInfo(buf, CL_MEM_CONTEXT, sizeof owner, &owner,
                                 NULL);
    if (err != CL_SUCCESS)
        return clg_fail_cl(ctx, err, "clGetMemObjectInfo");
    if (owner != ctx->cl_ctx)
        return clg_fail(ctx, CLG_STATUS_INVALID_ARGUMENT,
                        "%s buffer belongs to another cl_context than the "
                        "clgather context's", what);
    if ((uint64_t)size < bytes)
        return clg_fail(ctx, CLG_STATUS_INVALID_ARGUMENT,
                        "%s buffer holds %zu bytes; the tensor needs %llu",
                        what, size, (unsigned long long)bytes);
    return CLG_STATUS_OK;
}

static clg_status op_cl(clg_context *ctx, clg_op op, const clg_cl_tensor *data,
                        const clg_cl_tensor *indices, int64_t axis,
                        const clg_cl_tensor *output)
{
    clg_problem p;
    clg_plan plan;
    clg_status st;
    int raised = 0;
    if ((st = need_ctx(ctx)) != CLG_STATUS_OK)
        return st;
    if (!data || !indices || !output)
        return clg_fail(ctx, CLG_STATUS_NULL_POINTER, "%s is NULL",
                        !data ? "data" : !indices ? "indices" : "output");
    if ((st = clg_validate(ctx, op, data->dtype, data->rank, data->shape,
                           indices->dtype, indices->rank, indices->shape, axis,
                           &p)) != CLG_STATUS_OK ||
        (st = clg_validate_output(ctx, &p, output->dtype, output->rank,
                                  output->shape)) != CLG_STATUS_OK ||
        (st = check_buffer(ctx, "data", data->buffer, tensor_bytes(&p, 0))) !=
            CLG_STATUS_OK ||
        (st = check_buffer(ctx, "indices", indices->buffer,
                           tensor_bytes(&p, 1))) != CLG_STATUS_OK ||
        (st = check_buffer(ctx, "output", output->buffer,
                           tensor_bytes(&p, 2))) != CLG_STATUS_OK)
        return st;
    if (p.out_count > 0 && (output->buffer == data->buffer ||
                            output->buffer == indices->buffer))
        return clg_fail(ctx, CLG_STATUS_INVALID_ARGUMENT,
                        "the output buffer is also the %s buffer; the output "
                        "must not alias an input",
                        output->buffer == data->buffer ? "data" : "indices");
    if (p.out_count == 0 || p.data_count == 0) {
        /* Nothing to launch; index values are still checked. */
        if ((st = check_device_indices(ctx, &p, indices->buffer)) ==
            CLG_STATUS_OK)
            clg_clear_error(ctx);
        return st;
    }
    clg_plan_make(&p, 16, ctx->type == CLG_DEVICE_TYPE_CPU, &plan);
    clg_box box = {0, plan.outer, 0, plan.n, 0, plan.inner};
    clg_windows w = {data->buffer,    indices->buffer, output->buffer,
                     0,               plan.data_units, 0,
                     p.index_count,   0,               plan.out_units};
    if ((st = clg_runtime_flag_reset(ctx)) != CLG_STATUS_OK ||
        (st = clg_runtime_launch(ctx, &p, &plan, &box, &w)) != CLG_STATUS_OK ||
        (st = clg_runtime_flag_read(ctx, &raised)) != CLG_STATUS_OK)
        return st;
    if (raised) {
        st = check_device_indices(ctx, &p, indices->buffer);
        return st != CLG_STATUS_OK
                   ? st
                   : clg_fail(ctx, CLG_STATUS_OPENCL_ERROR,
                              "the device raised its index error flag but "
                              "every index read back is valid");
    }
    clg_clear_error(ctx);
    return CLG_STATUS_OK;
}

clg_status clg_gather_cl(clg_context *ctx, const clg_cl_tensor *data,
                         const clg_cl_tensor *indices, int64_t axis,
                         const clg_cl_tensor *output)
{
    return op_cl(ctx, CLG_OP_GATHER, data, indices, axis, output);
}

clg_status clg_gather_elements_cl(clg_context *ctx, const clg_cl_tensor *data,
                                  const clg_cl_tensor *indices, int64_t axis,
                                  const clg_cl_tensor *output)
{
    return op_cl(ctx, CLG_OP_GATHER_ELEMENTS, data, indices, axis, output);
}

/* ------------------------------------------------------------ host memory */

/* Largest power of two (<= 16) dividing an address. */
static size_t address_alignment(const void *ptr)
{
    uintptr_t a = (uintptr_t)ptr | 16;
    return (size_t)(a & (~a + 1));
}

/* Offsets (in data elements) of the coalesced GatherElements outer and
 * inner positions, as the kernel computes them. */
static int64_t dims_offset(size_t dims, const int64_t *extent,
                           const int64_t *stride, int64_t pos)
{
    int64_t off = 0;
    for (size_t k = dims; k-- > 0;) {
        off += (pos % extent[k]) * stride[k];
        pos /= extent[k];
    }
    return off;
}

/* How the output is cut so that every buffer fits one allocation:
 *   ROWS:    [o0, o1) x all j x all c   (several outer rows)
 *   INDICES: one o x [j0, j1) x all c   (a run of index positions)
 *   COLUMNS: one o x one j x [c0, c1)   (part of one inner block)
 * Each piece is contiguous in the output (and, for GatherElements, in the
 * indices). The data a piece reads is cut into windows of at most `units`
 * units; a launch per window writes the elements whose source lies in it. */
typedef enum { PIECE_ROWS, PIECE_INDICES, PIECE_COLUMNS } piece_kind;

typedef struct pieces {
    piece_kind kind;
    int64_t per;    /* rows, index positions or units per piece */
    int64_t count;  /* number of pieces */
    int64_t units;  /* units per data window and output piece */
} pieces;

static int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

static void cut_pieces(const clg_problem *p, const clg_plan *plan,
                       uint64_t max_bytes, pieces *pc)
{
    int64_t units = (int64_t)(max_bytes / plan->unit);
    int64_t idx_cap = (int64_t)(max_bytes / p->index_size);
    int64_t row = plan->n * plan->inner;
    int gather = p->op == CLG_OP_GATHER;
    if (units < 1)
        units = 1;
    if (idx_cap < 1)
        idx_cap = 1;
    pc->units = units;
    /* GatherElements indices share output positions: cap both alike. */
    int64_t out_cap = gather ? units : (units < idx_cap ? units : idx_cap);
    if (row <= out_cap && (!gather || plan->n <= idx_cap)) {
        pc->kind = PIECE_ROWS;
        pc->per = out_cap / row;
        if (pc->per > plan->outer)
            pc->per = plan->outer;
        pc->count = ceil_div(plan->outer, pc->per);
    } else if (plan->inner <= out_cap) {
        pc->kind = PIECE_INDICES;
        pc->per = out_cap / plan->inner;
        if (gather && pc->per > idx_cap)
            pc->per = idx_cap;
        pc->count = plan->outer * ceil_div(plan->n, pc->per);
    } else {
        pc->kind = PIECE_COLUMNS;
        pc->per = out_cap;
        pc->count = plan->outer * plan->n * ceil_div(plan->inner, pc->per);
    }
}

/* The box, output/index windows and data footprint of piece k. */
static void piece_at(const clg_problem *p, const clg_plan *plan,
                     const pieces *pc, int64_t k, clg_box *box,
                     clg_windows *w, int64_t *foot_first, int64_t *foot_end)
{
    clg_box b = {0, plan->outer, 0, plan->n, 0, plan->inner};
    if (pc->kind == PIECE_ROWS) {
        b.o0 = k * pc->per;
        b.o1 = b.o0 + pc->per < plan->outer ? b.o0 + pc->per : plan->outer;
    } else if (pc->kind == PIECE_INDICES) {
        int64_t per_row = ceil_div(plan->n, pc->per);
        b.o0 = k / per_row;
        b.o1 = b.o0 + 1;
        b.j0 = (k % per_row) * pc->per;
        b.j1 = b.j0 + pc->per < plan->n ? b.j0 + pc->per : plan->n;
    } else {
        int64_t per_block = ceil_div(plan->inner, pc->per);
        int64_t t = k / per_block;
        b.o0 = t / plan->n;
        b.o1 = b.o0 + 1;
        b.j0 = t % plan->n;
        b.j1 = b.j0 + 1;
        b.c0 = (k % per_block) * pc->per;
        b.c1 = b.c0 + pc->per < plan->inner ? b.c0 + pc->per : plan->inner;
    }
    int64_t first = (b.o0 * plan->n + b.j0) * plan->inner + b.c0;
    int64_t last = ((b.o1 - 1) * plan->n + (b.j1 - 1)) * plan->inner + b.c1 - 1;
    w->out_base = first;
    w->out_len = last - first + 1;
    if (p->op == CLG_OP_GATHER) {
        w->index_base = b.j0;
        w->index_len = b.j1 - b.j0;
        int64_t s = plan->axis_size, in = plan->inner;
        *foot_first = b.o0 * s * in + b.c0;
        *foot_end = ((b.o1 - 1) * s + (s - 1)) * in + b.c1;
    } else {
        w->index_base = w->out_base;
        w->index_len = w->out_len;
        *foot_first = dims_offset(plan->outer_dims, plan->outer_extent,
                                  plan->outer_stride, b.o0) +
                      dims_offset(plan->inner_dims, plan->inner_extent,
                                  plan->inner_stride, b.c0);
        *foot_end = dims_offset(plan->outer_dims, plan->outer_extent,
                                plan->outer_stride, b.o1 - 1) +
                    (plan->axis_size - 1) * plan->axis_stride +
                    dims_offset(plan->inner_dims, plan->inner_extent,
                                plan->inner_stride, b.c1 - 1) +
                    1;
    }
    *box = b;
}

/* Where the buffers of a launch come from: the caller's memory in place
 * (CL_MEM_USE_HOST_PTR, released after use) or the context's scratch
 * buffers filled by explicit copies. */
typedef struct host_io {
    clg_context *ctx;
    int in_place;
} host_io;

static clg_status io_buffer(host_io *io, int slot, void *host, size_t bytes,
                            int upload, cl_mem *out)
{
    clg_context *ctx = io->ctx;
    cl_int err;
    clg_status st;
    if (io->in_place) {
        cl_mem_flags flags = CL_MEM_USE_HOST_PTR |
                             (slot == 2 ? CL_MEM_WRITE_ONLY : CL_MEM_READ_ONLY);
        *out = clCreateBuffer(ctx->cl_ctx, flags, bytes, host, &err);
        return *out ? CLG_STATUS_OK
                    : clg_fail_cl(ctx, err, "clCreateBuffer(CL_MEM_USE_HOST_PTR)");
    }
    if ((st = clg_runtime_scratch(ctx, slot, bytes, out)) != CLG_STATUS_OK)
        return st;
    if (upload) {
        err = clEnqueueWriteBuffer(ctx->queue, *out, CL_FALSE, 0, bytes, host,
                                   0, NULL, NULL);
        if (err != CL_SUCCESS)
            return clg_fail_cl(ctx, err, "clEnqueueWriteBuffer");
    }
    return CLG_STATUS_OK;
}

static void io_release(host_io *io, cl_mem *buf)
{
    if (io->in_place && *buf)
        clReleaseMemObject(*buf);
    *buf = NULL;
}

/* Checks every index before a kernel may write the caller's memory. */
static clg_status prevalidate(clg_context *ctx, const clg_problem *p,
                              const clg_tensor *indices, int in_place)
{
    uint64_t bytes = tensor_bytes(p, 1);
    if (!in_place || p->index_count <= CLG_HOST_CHECK_LIMIT ||
        bytes > ctx->max_alloc)
        return clg_check_indices_host(ctx, p, indices->data);
    /* Large indices: the device checks them in place, in parallel. */
    cl_int err;
    int raised = 0;
    cl_mem buf = clCreateBuffer(ctx->cl_ctx,
                                CL_MEM_READ_ONLY | CL_MEM_USE_HOST_PTR,
                                (size_t)bytes, indices->data, &err);
    if (!buf)
        return clg_fail_cl(ctx, err, "clCreateBuffer(CL_MEM_USE_HOST_PTR)");
    clg_status st = clg_runtime_check(ctx, p, buf, &raised);
    clReleaseMemObject(buf);
    if (st == CLG_STATUS_OK && raised)
        st = clg_check_indices_host(ctx, p, indices->data);
    return st;
}

static clg_status run_host(clg_context *ctx, const clg_problem *p,
                           const clg_tensor *data, const clg_tensor *indices,
                           const clg_tensor *output, int in_place)
{
    clg_status st = CLG_STATUS_OK;
    host_io io = {ctx, in_place};
    clg_windows w = {0};
    clg_plan plan;
    pieces pc;
    int raised = 0, enqueued = 0;
    int64_t cur_index_base = -1, cur_index_len = -1;
    char *dbase = (char *)data->data, *ibase = (char *)indices->data,
         *obase = (char *)output->data;

    size_t align = 16;
    if (in_place) {
        align = address_alignment(data->data);
        if (address_alignment(output->data) < align)
            align = address_alignment(output->data);
    }
    clg_plan_make(p, align, ctx->type == CLG_DEVICE_TYPE_CPU, &plan);
    cut_pieces(p, &plan, ctx->max_alloc, &pc);
    if (pc.kind != PIECE_ROWS)
        plan.strip_width = 0; /* strips walk whole rows only */
    int whole = pc.count == 1 && plan.data_units <= pc.units;
    /* The copy path of a single launch checks the flag before downloading;
     * everything else checks the indices before any launch. */
    if ((in_place || !whole) &&
        (st = prevalidate(ctx, p, indices, in_place)) != CLG_STATUS_OK)
        return st;
    if ((st = clg_runtime_flag_reset(ctx)) != CLG_STATUS_OK)
        return st;
    for (int64_t k = 0; k < pc.count && st == CLG_STATUS_OK; k++) {
        clg_box box;
        int64_t f0, f1;
        piece_at(p, &plan, &pc, k, &box, &w, &f0, &f1);
        if ((st = io_buffer(&io, 2, obase + (size_t)w.out_base * plan.unit,
                            (size_t)w.out_len * plan.unit, 0, &w.output)) !=
            CLG_STATUS_OK)
            break;
        if (w.index_base != cur_index_base || w.index_len != cur_index_len) {
            io_release(&io, &w.indices);
            if ((st = io_buffer(&io, 1,
                                ibase + (size_t)w.index_base * p->index_size,
                                (size_t)w.index_len * p->index_size, 1,
                                &w.indices)) != CLG_STATUS_OK)
                break;
            cur_index_base = w.index_base;
            cur_index_len = w.index_len;
        }
        for (int64_t w0 = f0; w0 < f1 && st == CLG_STATUS_OK; w0 += pc.units) {
            w.data_base = w0;
            w.data_len = f1 - w0 < pc.units ? f1 - w0 : pc.units;
            st = io_buffer(&io, 0, dbase + (size_t)w0 * plan.unit,
                           (size_t)w.data_len * plan.unit, 1, &w.data);
            if (st == CLG_STATUS_OK)
                st = clg_runtime_launch(ctx, p, &plan, &box, &w);
            io_release(&io, &w.data);
            /* Bound what is queued (buffers wrapping caller memory stay
             * alive until their commands finish). */
            if (st == CLG_STATUS_OK && ++enqueued % 256 == 0) {
                cl_int err = clFinish(ctx->queue);
                if (err != CL_SUCCESS)
                    st = clg_fail_cl(ctx, err, "clFinish");
            }
        }
        if (st == CLG_STATUS_OK && !in_place && !whole) {
            cl_int err = clEnqueueReadBuffer(
                ctx->queue, w.output, CL_FALSE, 0, (size_t)w.out_len * plan.unit,
                obase + (size_t)w.out_base * plan.unit, 0, NULL, NULL);
            if (err != CL_SUCCESS)
                st = clg_fail_cl(ctx, err, "clEnqueueReadBuffer(output)");
        }
        if (st == CLG_STATUS_OK && in_place) {
            /* Map/unmap makes the result visible in the caller's memory on
             * implementations that keep a device copy of USE_HOST_PTR
             * buffers; a no-op where the memory is truly shared. */
            cl_int err;
            void *m = clEnqueueMapBuffer(ctx->queue, w.output, CL_FALSE,
                                         CL_MAP_READ, 0,
                                         (size_t)w.out_len * plan.unit, 0,
                                         NULL, NULL, &err);
            if (!m)
                st = clg_fail_cl(ctx, err, "clEnqueueMapBuffer(output)");
            else if ((err = clEnqueueUnmapMemObject(ctx->queue, w.output, m, 0,
                                                    NULL, NULL)) != CL_SUCCESS)
                st = clg_fail_cl(ctx, err, "clEnqueueUnmapMemObject(output)");
        }
        io_release(&io, &w.output);
    }
    io_release(&io, &w.indices);
    if (st != CLG_STATUS_OK) {
        if (enqueued)
            clFinish(ctx->queue); /* nothing may still touch caller memory */
        return st;
    }
    if (in_place) {
        /* Every index was checked before the launch, so the kernels cannot
         * have raised the flag: waiting is enough, and saves a read
         * command per call (it counts for small tensors). */
        cl_int err = clFinish(ctx->queue);
        ctx->flag_dirty = 0;
        return err == CL_SUCCESS ? CLG_STATUS_OK
                                 : clg_fail_cl(ctx, err, "clFinish");
    }
    if ((st = clg_runtime_flag_read(ctx, &raised)) != CLG_STATUS_OK)
        return st;
    if (raised) {
        st = clg_check_indices_host(ctx, p, indices->data);
        return st != CLG_STATUS_OK
                   ? st
                   : clg_fail(ctx, CLG_STATUS_OPENCL_ERROR,
                              "the device raised its index error flag but "
                              "every index is valid (were the indices "
                              "modified during the call?)");
    }
    if (!in_place && whole) {
        cl_int err = clEnqueueReadBuffer(ctx->queue, ctx->scratch[2], CL_TRUE,
                                         0, (size_t)tensor_bytes(p, 2),
                                         output->data, 0, NULL, NULL);
        if (err != CL_SUCCESS)
            return clg_fail_cl(ctx, err, "clEnqueueReadBuffer(output)");
    }
    return CLG_STATUS_OK;
}

static clg_status op_host(clg_context *ctx, clg_op op, const clg_tensor *data,
                          const clg_tensor *indices, int64_t axis,
                          const clg_tensor *output)
{
    clg_problem p;
    clg_status st;
    if ((st = need_ctx(ctx)) != CLG_STATUS_OK)
        return st;
    if ((st = clg_validate_host(ctx, op, data, indices, axis, output, &p)) !=
        CLG_STATUS_OK)
        return st;
    if (p.out_count == 0 || p.data_count == 0) {
        /* Empty output (or no data to read, which makes every index
         * invalid): no kernel; index values are still checked. */
        if ((st = clg_check_indices_host(ctx, &p, indices->data)) !=
            CLG_STATUS_OK)
            return st;
        clg_clear_error(ctx);
        return CLG_STATUS_OK;
    }
    /* In place needs element-aligned caller memory (GatherElements moves
     * whole elements; indices are read as int32/int64). */
    size_t need = op == CLG_OP_GATHER ? 1 : p.elem_size;
    int in_place = ctx->host_unified &&
                   address_alignment(data->data) >= (need > 16 ? 16 : need) &&
                   address_alignment(output->data) >= (need > 16 ? 16 : need) &&
                   address_alignment(indices->data) >= p.index_size;
    st = run_host(ctx, &p, data, indices, output, in_place);
    if (st == CLG_STATUS_OK)
        clg_clear_error(ctx);
    return st;
}

clg_status clg_gather(clg_context *ctx, const clg_tensor *data,
                      const clg_tensor *indices, int64_t axis,
                      const clg_tensor *output)
{
    return op_host(ctx, CLG_OP_GATHER, data, indices, axis, output);
}

clg_status clg_gather_elements(clg_context *ctx, const clg_tensor *data,
                               const clg_tensor *indices, int64_t axis,
                               const clg_tensor *output)
{
    return op_host(ctx, CLG_OP_GATHER_ELEMENTS, data, indices, axis, output);
}
