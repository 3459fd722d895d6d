/* SPDX-License-Identifier: Apache-2.0 */
/* docs/guide.md, "Program cache": a whole-device warm-up into a cache
 * folder, then a fresh context on that folder whose Gather call compiles
 * nothing. Build: see examples/CMakeLists.txt; run: ./fill_cache FOLDER
 * (CLGATHER_DEVICE picks the device). */
#include <clgather/clgather.h>

#include <stdio.h>

/* A context on the default device that keeps its programs in `folder`. */
static clg_status open_on(const char *folder, clg_context **ctx)
{
    clg_status st = clg_context_create(ctx, NULL);
    return st != CLG_STATUS_OK ? st : clg_context_set_cache_dir(*ctx, folder);
}

int main(int argc, char **argv)
{
    static float data[1000][256];
    int32_t indices[64];
    float out[64][256];
    const int64_t data_shape[] = {1000, 256}, index_shape[] = {64};
    const int64_t out_shape[] = {64, 256};
    clg_tensor d = {CLG_DTYPE_FLOAT, 2, data_shape, data};
    clg_tensor i = {CLG_DTYPE_INT32, 1, index_shape, indices};
    clg_tensor o = {CLG_DTYPE_FLOAT, 2, out_shape, out};
    clg_context *ctx = NULL;
    clg_cache_info info;
    size_t warmed = 0, skipped = 0;
    clg_status st;

    if (argc != 2) {
        fprintf(stderr, "usage: fill_cache FOLDER\n");
        return 2;
    }
    for (int k = 0; k < 64; k++)
        indices[k] = 999 - k;

    /* 1. Fill: every Gather shape class, raise mode only. */
    if ((st = open_on(argv[1], &ctx)) == CLG_STATUS_OK)
        st = clg_context_fill_cache(ctx, 1u << CLG_OP_GATHER,
                                    1u << CLG_OOB_RAISE, &warmed, &skipped);
    if (st == CLG_STATUS_OK)
        st = clg_context_cache_info(ctx, &info);
    if (st != CLG_STATUS_OK)
        goto failed;
    printf("filled: %zu warm-ups, %zu skipped, %llu programs compiled\n",
           warmed, skipped, (unsigned long long)info.misses);
    clg_context_destroy(ctx);
    ctx = NULL;

    /* 2. A fresh context (as a new process would have) on the folder. */
    if ((st = open_on(argv[1], &ctx)) != CLG_STATUS_OK ||
        (st = clg_gather(ctx, &d, &i, 0, &o)) != CLG_STATUS_OK ||
        (st = clg_context_cache_info(ctx, &info)) != CLG_STATUS_OK)
        goto failed;
    printf("fresh context: %llu compiled, %llu loaded\n",
           (unsigned long long)info.misses, (unsigned long long)info.hits);
    clg_context_destroy(ctx);
    return info.misses == 0 ? 0 : 1;

failed:
    fprintf(stderr, "%s: %s\n", clg_status_name(st),
            clg_context_last_error(ctx));
    clg_context_destroy(ctx);
    return st == CLG_STATUS_DEVICE_NOT_FOUND ? 77 : 1;
}
