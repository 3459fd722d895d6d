/* SPDX-License-Identifier: Apache-2.0 */
/* clgather inside an OpenCL pipeline: the program owns its cl_context and
 * command queue, uploads its inputs, chains a Gather (an embedding lookup)
 * into a GatherElements (a pick along each row) with events, reads the
 * result back with a clEnqueueReadBuffer that waits on the last event, and
 * waits once at the end. Nothing in between blocks. Then it shows how an
 * out-of-range index surfaces: from clg_context_finish, not from the
 * enqueue.
 *
 *   table    [5, 4] float    rows of an embedding table
 *   tokens   [3]    int64    row numbers (negative counts from the back)
 *   rows     [3, 4] float    Gather(table, tokens, axis 0)
 *   picks    [3, 2] int32    column numbers per row
 *   out      [3, 2] float    GatherElements(rows, picks, axis 1)
 *
 * Exits 0 when the result equals the CPU reference, 77 when there is no
 * OpenCL device, 1 otherwise. */
#include <clgather/clgather.h>

#include <stdio.h>
#include <string.h>

static const float table[20] = {0,  1,  2,  3,  10, 11, 12, 13, 20, 21,
                                22, 23, 30, 31, 32, 33, 40, 41, 42, 43};
static const int64_t tokens[3] = {3, 0, -1};
static const int32_t picks[6] = {0, 3, 2, 2, -1, 1};
static const int64_t table_shape[2] = {5, 4}, tokens_shape[1] = {3};
static const int64_t rows_shape[2] = {3, 4}, picks_shape[2] = {3, 2};

/* The first GPU, else the first device of any platform. */
static int pick_device(cl_platform_id *platform, cl_device_id *device)
{
    cl_platform_id ps[16];
    cl_uint np = 0;
    if (clGetPlatformIDs(16, ps, &np) != CL_SUCCESS || np == 0)
        return 0;
    if (np > 16)
        np = 16;
    const cl_device_type order[2] = {CL_DEVICE_TYPE_GPU, CL_DEVICE_TYPE_ALL};
    for (int k = 0; k < 2; k++)
        for (cl_uint p = 0; p < np; p++)
            if (clGetDeviceIDs(ps[p], order[k], 1, device, NULL) ==
                CL_SUCCESS) {
                *platform = ps[p];
                return 1;
            }
    return 0;
}

static cl_mem buffer(cl_context cl, size_t bytes, cl_int *err)
{
    return clCreateBuffer(cl, CL_MEM_READ_WRITE, bytes, NULL, err);
}

/* The pipeline: upload, Gather, GatherElements, read back; one wait. */
static int run(clg_context *ctx, cl_context cl, cl_command_queue q, float *out)
{
    cl_int err = CL_SUCCESS;
    cl_mem b_table = buffer(cl, sizeof table, &err);
    cl_mem b_tokens = buffer(cl, sizeof tokens, &err);
    cl_mem b_rows = buffer(cl, 12 * sizeof(float), &err);
    cl_mem b_picks = buffer(cl, sizeof picks, &err);
    cl_mem b_out = buffer(cl, 6 * sizeof(float), &err);
    cl_event up[3] = {NULL, NULL, NULL}, gathered = NULL, picked = NULL;
    cl_event read = NULL;
    clg_status st = CLG_STATUS_OPENCL_ERROR;
    if (err != CL_SUCCESS)
        goto done;
    clEnqueueWriteBuffer(q, b_table, CL_FALSE, 0, sizeof table, table, 0, NULL,
                         &up[0]);
    clEnqueueWriteBuffer(q, b_tokens, CL_FALSE, 0, sizeof tokens, tokens, 0,
                         NULL, &up[1]);
    clEnqueueWriteBuffer(q, b_picks, CL_FALSE, 0, sizeof picks, picks, 0, NULL,
                         &up[2]);
    clg_cl_tensor t_table = {CLG_DTYPE_FLOAT, 2, table_shape, b_table};
    clg_cl_tensor t_tokens = {CLG_DTYPE_INT64, 1, tokens_shape, b_tokens};
    clg_cl_tensor t_rows = {CLG_DTYPE_FLOAT, 2, rows_shape, b_rows};
    clg_cl_tensor t_picks = {CLG_DTYPE_INT32, 2, picks_shape, b_picks};
    clg_cl_tensor t_out = {CLG_DTYPE_FLOAT, 2, picks_shape, b_out};
    /* Gather waits for the table and the tokens; GatherElements for the
     * Gather and the picks; the read for the GatherElements. */
    st = clg_enqueue_gather(ctx, q, &t_table, &t_tokens, 0, &t_rows, 2, up,
                            &gathered);
    if (st == CLG_STATUS_OK) {
        cl_event after[2] = {gathered, up[2]};
        st = clg_enqueue_gather_elements(ctx, q, &t_rows, &t_picks, 1, &t_out,
                                         2, after, &picked);
    }
    if (st == CLG_STATUS_OK &&
        clEnqueueReadBuffer(q, b_out, CL_FALSE, 0, 6 * sizeof(float), out, 1,
                            &picked, &read) != CL_SUCCESS)
        st = CLG_STATUS_OPENCL_ERROR;
    /* The one wait; then the deferred index checks of both operations. */
    if (st == CLG_STATUS_OK && clWaitForEvents(1, &read) != CL_SUCCESS)
        st = CLG_STATUS_OPENCL_ERROR;
    if (st == CLG_STATUS_OK)
        st = clg_context_finish(ctx);
    if (st != CLG_STATUS_OK)
        fprintf(stderr, "pipeline: %s: %s\n", clg_status_name(st),
                clg_context_last_error(ctx));
done:
    for (int i = 0; i < 3; i++)
        if (up[i])
            clReleaseEvent(up[i]);
    if (gathered)
        clReleaseEvent(gathered);
    if (picked)
        clReleaseEvent(picked);
    if (read)
        clReleaseEvent(read);
    clReleaseMemObject(b_table);
    clReleaseMemObject(b_tokens);
    clReleaseMemObject(b_rows);
    clReleaseMemObject(b_picks);
    clReleaseMemObject(b_out);
    return st == CLG_STATUS_OK;
}

/* The same two operations on the CPU reference. */
static int reference(float *out)
{
    float rows[12];
    clg_tensor t_table = {CLG_DTYPE_FLOAT, 2, table_shape, (void *)table};
    clg_tensor t_tokens = {CLG_DTYPE_INT64, 1, tokens_shape, (void *)tokens};
    clg_tensor t_rows = {CLG_DTYPE_FLOAT, 2, rows_shape, rows};
    clg_tensor t_picks = {CLG_DTYPE_INT32, 2, picks_shape, (void *)picks};
    clg_tensor t_out = {CLG_DTYPE_FLOAT, 2, picks_shape, out};
    return clg_reference_gather(NULL, &t_table, &t_tokens, 0, &t_rows) ==
               CLG_STATUS_OK &&
           clg_reference_gather_elements(NULL, &t_rows, &t_picks, 1, &t_out) ==
               CLG_STATUS_OK;
}

/* A token out of range: the enqueue returns OK, the finish names it. */
static int show_deferred_error(clg_context *ctx, cl_context cl)
{
    cl_int err = CL_SUCCESS;
    const int64_t bad[3] = {3, 9, 0};
    cl_mem b_table = clCreateBuffer(cl,
                                    CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                                    sizeof table, (void *)table, &err);
    cl_mem b_bad = clCreateBuffer(cl, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                                  sizeof bad, (void *)bad, &err);
    cl_mem b_rows = buffer(cl, 12 * sizeof(float), &err);
    clg_cl_tensor t_table = {CLG_DTYPE_FLOAT, 2, table_shape, b_table};
    clg_cl_tensor t_bad = {CLG_DTYPE_INT64, 1, tokens_shape, b_bad};
    clg_cl_tensor t_rows = {CLG_DTYPE_FLOAT, 2, rows_shape, b_rows};
    clg_status enq = clg_enqueue_gather(ctx, NULL, &t_table, &t_bad, 0,
                                        &t_rows, 0, NULL, NULL);
    clg_status fin = clg_context_finish(ctx);
    printf("enqueue with token 9: %s; clg_context_finish: %s: %s\n",
           clg_status_name(enq), clg_status_name(fin),
           clg_context_last_error(ctx));
    clReleaseMemObject(b_table);
    clReleaseMemObject(b_bad);
    clReleaseMemObject(b_rows);
    return enq == CLG_STATUS_OK && fin == CLG_STATUS_INDEX_OUT_OF_RANGE;
}

int main(void)
{
    cl_platform_id platform = NULL;
    cl_device_id device = NULL;
    cl_int err = CL_SUCCESS;
    clg_context *ctx = NULL;
    float got[6], want[6];
    if (!pick_device(&platform, &device)) {
        fprintf(stderr, "pipeline: no OpenCL device\n");
        return 77;
    }
    cl_context_properties props[] = {CL_CONTEXT_PLATFORM,
                                     (cl_context_properties)platform, 0};
    cl_context cl = clCreateContext(props, 1, &device, NULL, NULL, &err);
    cl_command_queue q = cl ? clCreateCommandQueue(cl, device, 0, &err) : NULL;
    if (!q ||
        clg_context_create_from_cl(&ctx, cl, device, q) != CLG_STATUS_OK) {
        fprintf(stderr, "pipeline: cannot set up the device: %s\n",
                clg_context_last_error(NULL));
        return 1;
    }
    int ok = run(ctx, cl, q, got) && reference(want);
    ok = ok && memcmp(got, want, sizeof got) == 0;
    printf("out = [%g %g] [%g %g] [%g %g]\n", got[0], got[1], got[2], got[3],
           got[4], got[5]);
    printf("pipeline == reference: %s\n", ok ? "yes" : "no");
    ok = show_deferred_error(ctx, cl) && ok;
    clg_context_destroy(ctx);
    clReleaseCommandQueue(q);
    clReleaseContext(cl);
    return ok ? 0 : 1;
}
