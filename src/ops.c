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

static const char *const tensor_names[3] = {"data", "indices", "output"};

/* Every tensor of the call must fit one device allocation. */
static clg_status check_fits(clg_context *ctx, const clg_problem *p)
{
    for (int i = 0; i < 3; i++) {
        uint64_t bytes = tensor_bytes(p, i);
        if (bytes > ctx->max_alloc)
            return clg_fail(ctx, CLG_STATUS_TENSOR_TOO_LARGE,
                            "%s is %llu bytes, above the device's "
                            "CL_DEVICE_MAX_MEM_ALLOC_SIZE of %llu bytes (%s)",
                            tensor_names[i], (unsigned long long)bytes,
                            (unsigned long long)ctx->max_alloc,
                            ctx->device_name);
    }
    return CLG_STATUS_OK;
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
    cl_int err = clGetMemObjectInfo(buf, CL_MEM_SIZE, sizeof size, &size, NULL);
    if (err != CL_SUCCESS)
        return clg_fail_cl(ctx, err, "clGetMemObjectInfo(CL_MEM_SIZE)");
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
    if (p.out_count == 0 || p.data_count == 0) {
        /* Nothing to launch; index values are still checked. */
        if ((st = check_device_indices(ctx, &p, indices->buffer)) ==
            CLG_STATUS_OK)
            clg_clear_error(ctx);
        return st;
    }
    clg_plan_make(&p, 16, ctx->type == CLG_DEVICE_TYPE_CPU, &plan);
    if ((st = clg_runtime_run(ctx, &p, &plan, data->buffer, indices->buffer,
                              output->buffer, &raised)) != CLG_STATUS_OK)
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

/* In place: the caller's memory becomes the buffers. Indices are checked
 * first, so the kernel never runs unless every value is valid. */
static clg_status run_in_place(clg_context *ctx, const clg_problem *p,
                               const clg_tensor *data,
                               const clg_tensor *indices,
                               const clg_tensor *output)
{
    clg_status st = CLG_STATUS_OK;
    cl_int err;
    cl_mem buf[3] = {NULL, NULL, NULL};
    void *ptr[3] = {data->data, indices->data, output->data};
    const cl_mem_flags flags[3] = {CL_MEM_READ_ONLY | CL_MEM_USE_HOST_PTR,
                                   CL_MEM_READ_ONLY | CL_MEM_USE_HOST_PTR,
                                   CL_MEM_WRITE_ONLY | CL_MEM_USE_HOST_PTR};
    clg_plan plan;
    int raised = 0;
    void *mapped = NULL;

    if (p->index_count <= CLG_HOST_CHECK_LIMIT &&
        (st = clg_check_indices_host(ctx, p, indices->data)) != CLG_STATUS_OK)
        return st;
    for (int i = 0; i < 3; i++) {
        buf[i] = clCreateBuffer(ctx->cl_ctx, flags[i],
                                (size_t)tensor_bytes(p, i), ptr[i], &err);
        if (!buf[i]) {
            st = clg_fail_cl(ctx, err, "clCreateBuffer(CL_MEM_USE_HOST_PTR)");
            goto cleanup;
        }
    }
    if (p->index_count > CLG_HOST_CHECK_LIMIT) {
        if ((st = clg_runtime_check(ctx, p, buf[1], &raised)) != CLG_STATUS_OK)
            goto cleanup;
        if (raised) {
            st = clg_check_indices_host(ctx, p, indices->data);
            goto cleanup;
        }
    }
    size_t align = address_alignment(data->data);
    if (address_alignment(output->data) < align)
        align = address_alignment(output->data);
    clg_plan_make(p, align, ctx->type == CLG_DEVICE_TYPE_CPU, &plan);
    if ((st = clg_runtime_run(ctx, p, &plan, buf[0], buf[1], buf[2],
                              &raised)) != CLG_STATUS_OK)
        goto cleanup;
    if (raised) { /* unreachable after the check; kept as a guard */
        st = clg_check_indices_host(ctx, p, indices->data);
        goto cleanup;
    }
    /* Map/unmap makes the result visible in the caller's memory on
     * implementations that keep a device copy of USE_HOST_PTR buffers. */
    mapped = clEnqueueMapBuffer(ctx->queue, buf[2], CL_TRUE, CL_MAP_READ, 0,
                                (size_t)tensor_bytes(p, 2), 0, NULL, NULL, &err);
    if (!mapped) {
        st = clg_fail_cl(ctx, err, "clEnqueueMapBuffer(output)");
        goto cleanup;
    }
    err = clEnqueueUnmapMemObject(ctx->queue, buf[2], mapped, 0, NULL, NULL);
    if (err == CL_SUCCESS)
        err = clFinish(ctx->queue);
    if (err != CL_SUCCESS)
        st = clg_fail_cl(ctx, err, "clEnqueueUnmapMemObject(output)");
cleanup:
    for (int i = 0; i < 3; i++)
        if (buf[i])
            clReleaseMemObject(buf[i]);
    return st;
}

/* Copies: upload to scratch buffers, run, download only on success. */
static clg_status run_copied(clg_context *ctx, const clg_problem *p,
                             const clg_tensor *data, const clg_tensor *indices,
                             const clg_tensor *output)
{
    clg_status st;
    cl_int err;
    cl_mem buf[3] = {NULL, NULL, NULL};
    clg_plan plan;
    int raised = 0;
    for (int i = 0; i < 3; i++)
        if ((st = clg_runtime_scratch(ctx, i, (size_t)tensor_bytes(p, i),
                                      &buf[i])) != CLG_STATUS_OK)
            return st;
    err = clEnqueueWriteBuffer(ctx->queue, buf[0], CL_FALSE, 0,
                               (size_t)tensor_bytes(p, 0), data->data, 0, NULL,
                               NULL);
    if (err == CL_SUCCESS)
        err = clEnqueueWriteBuffer(ctx->queue, buf[1], CL_FALSE, 0,
                                   (size_t)tensor_bytes(p, 1), indices->data, 0,
                                   NULL, NULL);
    if (err != CL_SUCCESS) {
        st = clg_fail_cl(ctx, err, "clEnqueueWriteBuffer(data, indices)");
        clFinish(ctx->queue);
        return st;
    }
    clg_plan_make(p, 16, ctx->type == CLG_DEVICE_TYPE_CPU, &plan);
    st = clg_runtime_run(ctx, p, &plan, buf[0], buf[1], buf[2], &raised);
    if (st != CLG_STATUS_OK) {
        clFinish(ctx->queue); /* the uploads read caller memory */
        return st;
    }
    if (raised)
        return clg_check_indices_host(ctx, p, indices->data);
    err = clEnqueueReadBuffer(ctx->queue, buf[2], CL_TRUE, 0,
                              (size_t)tensor_bytes(p, 2), output->data, 0, NULL,
                              NULL);
    if (err != CL_SUCCESS)
        return clg_fail_cl(ctx, err, "clEnqueueReadBuffer(output)");
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
    if (!data || !indices || !output)
        return clg_fail(ctx, CLG_STATUS_NULL_POINTER, "%s is NULL",
                        !data ? "data" : !indices ? "indices" : "output");
    if ((st = clg_validate(ctx, op, data->dtype, data->rank, data->shape,
                           indices->dtype, indices->rank, indices->shape, axis,
                           &p)) != CLG_STATUS_OK ||
        (st = clg_validate_output(ctx, &p, output->dtype, output->rank,
                                  output->shape)) != CLG_STATUS_OK ||
        (st = clg_validate_pointer(ctx, "data->data", data->data,
                                   p.data_count)) != CLG_STATUS_OK ||
        (st = clg_validate_pointer(ctx, "indices->data", indices->data,
                                   p.index_count)) != CLG_STATUS_OK ||
        (st = clg_validate_pointer(ctx, "output->data", output->data,
                                   p.out_count)) != CLG_STATUS_OK)
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
    if ((st = check_fits(ctx, &p)) != CLG_STATUS_OK)
        return st;
    /* In place needs element-aligned caller memory (GatherElements moves
     * whole elements; indices are read as int32/int64). */
    size_t need = op == CLG_OP_GATHER ? 1 : p.elem_size;
    int in_place = ctx->host_unified &&
                   address_alignment(data->data) >= (need > 16 ? 16 : need) &&
                   address_alignment(output->data) >= (need > 16 ? 16 : need) &&
                   address_alignment(indices->data) >= p.index_size;
    st = in_place ? run_in_place(ctx, &p, data, indices, output)
                  : run_copied(ctx, &p, data, indices, output);
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
