/* SPDX-License-Identifier: Apache-2.0 */
/* Tensors inside one larger cl_mem, as a runtime with a memory planner
 * keeps them: an embedding table, token ids and the gathered rows lie at
 * byte offsets in one arena buffer, and one clg_run_cl gathers between
 * them through clg_call's data_offset, indices_offset and output_offset
 * (after CLBlast's x_offset; no sub-buffer of the caller's). The token ids
 * sit at an offset that is not a multiple of the device's base address
 * alignment, which clgather handles with a device-side copy.
 *
 *   arena  one buffer of 4096 bytes
 *   table  [5, 4] float  at byte 256
 *   tokens [3]    int64  at byte 1032
 *   rows   [3, 4] float  at byte 2048
 *
 * Exits 0 when the rows equal the CPU reference, 77 when there is no
 * OpenCL device, 1 otherwise. */
#include <clgather/clgather.h>

#include <stdio.h>
#include <string.h>

enum { TABLE_AT = 256, TOKENS_AT = 1032, ROWS_AT = 2048, ARENA = 4096 };

int main(void)
{
    static const float table[20] = {0,  1,  2,  3,  10, 11, 12, 13, 20, 21,
                                    22, 23, 30, 31, 32, 33, 40, 41, 42, 43};
    static const int64_t tokens[3] = {3, 0, -1};
    static const int64_t table_shape[2] = {5, 4}, tokens_shape[1] = {3};
    static const int64_t rows_shape[2] = {3, 4};
    unsigned char bytes[ARENA] = {0};
    float rows[12], want[12];
    clg_context *ctx = NULL;
    cl_mem arena = NULL;
    int rc = 1;
    clg_status st = clg_context_create(&ctx, NULL);
    if (st != CLG_STATUS_OK) {
        fprintf(stderr, "%s\n", clg_context_last_error(NULL));
        return st == CLG_STATUS_DEVICE_NOT_FOUND ? 77 : 1;
    }
    memcpy(bytes + TABLE_AT, table, sizeof table);
    memcpy(bytes + TOKENS_AT, tokens, sizeof tokens);
    cl_int err = CL_SUCCESS;
    arena = clCreateBuffer(clg_context_cl_context(ctx),
                           CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, ARENA,
                           bytes, &err);
    if (!arena)
        goto done;
    clg_cl_tensor t_table = {CLG_DTYPE_FLOAT, 2, table_shape, arena};
    clg_cl_tensor t_tokens = {CLG_DTYPE_INT64, 1, tokens_shape, arena};
    clg_cl_tensor t_rows = {CLG_DTYPE_FLOAT, 2, rows_shape, arena};
    clg_call call = {.size = sizeof call,
                     .op = CLG_OP_GATHER,
                     .axis = 0,
                     .data_offset = TABLE_AT,
                     .indices_offset = TOKENS_AT,
                     .output_offset = ROWS_AT};
    if ((st = clg_run_cl(ctx, &call, &t_table, &t_tokens, &t_rows)) !=
        CLG_STATUS_OK) {
        fprintf(stderr, "clg_run_cl: %s\n", clg_context_last_error(ctx));
        goto done;
    }
    if (clEnqueueReadBuffer(clg_context_cl_queue(ctx), arena, CL_TRUE, ROWS_AT,
                            sizeof rows, rows, 0, NULL, NULL) != CL_SUCCESS)
        goto done;
    /* The reference on host memory (no offsets there). */
    clg_tensor h_table = {CLG_DTYPE_FLOAT, 2, table_shape, (void *)table};
    clg_tensor h_tokens = {CLG_DTYPE_INT64, 1, tokens_shape, (void *)tokens};
    clg_tensor h_want = {CLG_DTYPE_FLOAT, 2, rows_shape, want};
    call.data_offset = call.indices_offset = call.output_offset = 0;
    if (clg_reference(ctx, &call, &h_table, &h_tokens, &h_want) !=
        CLG_STATUS_OK)
        goto done;
    for (int r = 0; r < 3; r++)
        printf("row %d: %g %g %g %g\n", r, rows[4 * r], rows[4 * r + 1],
               rows[4 * r + 2], rows[4 * r + 3]);
    rc = memcmp(rows, want, sizeof rows) == 0 ? 0 : 1;
    printf("arena == reference: %s\n", rc == 0 ? "yes" : "no");
done:
    if (arena)
        clReleaseMemObject(arena);
    clg_context_destroy(ctx);
    return rc;
}
