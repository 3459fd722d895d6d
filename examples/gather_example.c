/* SPDX-License-Identifier: Apache-2.0 */
/* The README's example: ONNX Gather example 1 on the default device,
 * checked against the CPU reference. Build: see examples/CMakeLists.txt;
 * run: ./gather_example (CLGATHER_DEVICE picks the device). */
#include <clgather/clgather.h>

#include <stdio.h>
#include <string.h>

int main(void)
{
    float data[3][2] = {{1.0f, 1.2f}, {2.3f, 3.4f}, {4.5f, 5.7f}};
    int64_t indices[2][2] = {{0, 1}, {1, 2}};
    const int64_t data_shape[] = {3, 2}, index_shape[] = {2, 2};
    clg_tensor d = {CLG_DTYPE_FLOAT, 2, data_shape, data};
    clg_tensor i = {CLG_DTYPE_INT64, 2, index_shape, indices};

    int64_t out_shape[CLG_MAX_RANK];
    size_t out_rank = 0;
    float out[2][2][2], ref[2][2][2];
    clg_context *ctx = NULL;
    int rc = 1;

    clg_status st = clg_gather_output_shape(&d, &i, 0, out_shape, CLG_MAX_RANK,
                                            &out_rank);
    if (st != CLG_STATUS_OK) { /* [2, 2, 2] */
        fprintf(stderr, "%s\n", clg_context_last_error(NULL));
        return 1;
    }
    clg_tensor o = {CLG_DTYPE_FLOAT, out_rank, out_shape, out};
    clg_tensor r = {CLG_DTYPE_FLOAT, out_rank, out_shape, ref};

    if ((st = clg_context_create(&ctx, NULL)) != CLG_STATUS_OK) {
        fprintf(stderr, "no device: %s\n", clg_context_last_error(NULL));
        return st == CLG_STATUS_DEVICE_NOT_FOUND ? 77 : 1;
    }
    if ((st = clg_gather(ctx, &d, &i, 0, &o)) != CLG_STATUS_OK ||
        (st = clg_reference_gather(ctx, &d, &i, 0, &r)) != CLG_STATUS_OK) {
        fprintf(stderr, "%s: %s\n", clg_status_name(st),
                clg_context_last_error(ctx));
        goto cleanup;
    }
    printf("device: %s\n", clg_context_device_name(ctx));
    for (int a = 0; a < 2; a++)
        for (int b = 0; b < 2; b++)
            printf("output[%d][%d] = [%g, %g]\n", a, b, out[a][b][0],
                   out[a][b][1]);
    printf("device == reference: %s\n",
           memcmp(out, ref, sizeof out) == 0 ? "yes" : "NO");
    rc = memcmp(out, ref, sizeof out) != 0;

    /* An index outside [-3, 2] is an error that names it. */
    indices[1][1] = 3;
    st = clg_gather(ctx, &d, &i, 0, &o);
    printf("%s: %s\n", clg_status_name(st), clg_context_last_error(ctx));
    if (st != CLG_STATUS_INDEX_OUT_OF_RANGE)
        rc = 1;
cleanup:
    clg_context_destroy(ctx);
    return rc;
}
