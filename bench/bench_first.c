/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `clgather bench`'s first-call table (docs/design.md, "Program cache"):
 * what a new process pays before its first result, per operator, in one
 * run, as medians of BENCH_FIRST_ROUNDS rounds. First the process's first
 * context is timed (the OpenCL platform starting, unless the bandwidth
 * table ran before); then each round, in a private program cache folder
 * (the user's is never touched):
 *   context_ms     clg_context_create;
 *   empty_ms       the first call of a new context, the folder emptied
 *                  (its programs compiled from source; a device compiler's
 *                  own cache, such as POCL's, is warm after the first
 *                  round);
 *   filled_ms      the first call of another new context, the folder
 *                  filled by the call before (its programs loaded from
 *                  their binaries);
 *   warm_ms        the next call on that context.
 * The outputs of the two first calls are compared byte for byte.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <clgather/clgather.h>

#include "bench_internal.h"
#include "cli.h"

#define BENCH_FIRST_ROUNDS 5

/* One operator's first-call problem: small, so that the figures are the
 * build (or load) and not the work. */
typedef struct first_case {
    clg_op op;
    int64_t data_shape[2], index_shape[2];
    size_t index_rank;
    int64_t axis;
} first_case;

static const first_case first_cases[] = {
    {CLG_OP_GATHER, {1000, 64}, {500, 0}, 1, 0},
    {CLG_OP_GATHER_ELEMENTS, {256, 256}, {256, 256}, 2, 1},
    /* GatherND with batch_dims 0: 500 tuples of one component (data dim
     * 0), rows of 64 (the axis field picks that dim's range). */
    {CLG_OP_GATHER_ND, {1000, 64}, {500, 1}, 2, 0},
};

/* The tensors of a case: data, indices (valid), two outputs. */
typedef struct first_tensors {
    float *data, *out[2];
    int64_t *idx;
    int64_t out_shape[2];
    clg_tensor d, i, o[2];
} first_tensors;

static int tensors_make(const first_case *c, first_tensors *t)
{
    size_t dn = (size_t)(c->data_shape[0] * c->data_shape[1]);
    size_t in = (size_t)c->index_shape[0] *
                (size_t)(c->index_rank == 2 ? c->index_shape[1] : 1);
    int64_t s = c->data_shape[c->axis];
    clg_call call = {.size = sizeof call, .op = c->op, .axis = c->axis};
    clg_tensor dd = {CLG_DTYPE_FLOAT, 2, c->data_shape, NULL};
    clg_tensor id = {CLG_DTYPE_INT64, c->index_rank, c->index_shape, NULL};
    size_t rank = 0;
    /* Every case's output is 2-D. */
    if (clg_output_shape(&call, &dd, &id, t->out_shape, 2, &rank) !=
            CLG_STATUS_OK ||
        rank != 2)
        return -1;
    size_t on = (size_t)(t->out_shape[0] * t->out_shape[1]);
    t->data = malloc(dn * sizeof(float));
    t->idx = malloc(in * sizeof(int64_t));
    t->out[0] = malloc(on * sizeof(float));
    t->out[1] = malloc(on * sizeof(float));
    if (!t->data || !t->idx || !t->out[0] || !t->out[1])
        return -1;
    for (size_t k = 0; k < dn; k++)
        t->data[k] = (float)k * 0.5f;
    for (size_t k = 0; k < in; k++)
        t->idx[k] = (int64_t)((k * 7919) % (size_t)s) - (k % 3 ? 0 : s);
    t->d = (clg_tensor){CLG_DTYPE_FLOAT, 2, c->data_shape, t->data};
    t->i = (clg_tensor){CLG_DTYPE_INT64, c->index_rank, c->index_shape,
                        t->idx};
    for (int k = 0; k < 2; k++)
        t->o[k] = (clg_tensor){CLG_DTYPE_FLOAT, 2, t->out_shape, t->out[k]};
    return 0;
}

static void tensors_free(first_tensors *t)
{
    free(t->data);
    free(t->idx);
    free(t->out[0]);
    free(t->out[1]);
}

static clg_status call(clg_context *ctx, const first_case *c, first_tensors *t,
                       int k)
{
    clg_call cl = {.size = sizeof cl, .op = c->op, .axis = c->axis};
    return clg_run(ctx, &cl, &t->d, &t->i, &t->o[k]);
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, size_t n)
{
    qsort(v, n, sizeof *v, by_value);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* A new context on `dir` and its first call into output k; the times in
 * *context_ms and *call_ms (NULL: not timed). */
static int first_call(const bench_options *opt, const char *dir,
                      const first_case *c, first_tensors *t, int k,
                      double *context_ms, double *call_ms, clg_context **keep)
{
    clg_context *ctx = NULL;
    char msg[1200];
    double t0 = clg_cli_now();
    clg_status st = clg_context_create(&ctx, opt->device);
    double t1 = clg_cli_now();
    if (st == CLG_STATUS_OK)
        st = clg_context_set_cache_dir(ctx, dir);
    double t2 = clg_cli_now();
    if (st == CLG_STATUS_OK)
        st = call(ctx, c, t, k);
    double t3 = clg_cli_now();
    if (st != CLG_STATUS_OK) {
        fprintf(stderr, "clgather bench: first call of %s: %s\n",
                clg_op_name(c->op),
                clg_cli_describe(msg, sizeof msg, ctx, st));
        clg_context_destroy(ctx);
        return clg_cli_exit_for_status(st) == CLG_EXIT_RUNTIME
                   ? CLG_EXIT_RUNTIME
                   : CLG_EXIT_ERROR;
    }
    if (context_ms)
        *context_ms = (t1 - t0) * 1e3;
    *call_ms = (t3 - t2) * 1e3;
    if (keep)
        *keep = ctx;
    else
        clg_context_destroy(ctx);
    return CLG_EXIT_OK;
}

/* One case's rounds; prints its row. Returns an exit status. */
static int run_case(const bench_options *opt, const char *dir,
                    const first_case *c)
{
    double ctx_ms[BENCH_FIRST_ROUNDS], empty[BENCH_FIRST_ROUNDS];
    double filled[BENCH_FIRST_ROUNDS], warm[BENCH_FIRST_ROUNDS];
    first_tensors t;
    int rc = CLG_EXIT_OK;
    memset(&t, 0, sizeof t);
    if (tensors_make(c, &t) != 0) {
        fprintf(stderr, "clgather bench: out of memory\n");
        tensors_free(&t);
        return CLG_EXIT_ERROR;
    }
    size_t bytes = (size_t)(t.out_shape[0] * t.out_shape[1]) * sizeof(float);
    for (int r = 0; r < BENCH_FIRST_ROUNDS && rc == CLG_EXIT_OK; r++) {
        clg_context *ctx = NULL;
        double t0;
        clg_cache_clear(dir, NULL);
        rc = first_call(opt, dir, c, &t, 0, &ctx_ms[r], &empty[r], NULL);
        if (rc == CLG_EXIT_OK)
            rc = first_call(opt, dir, c, &t, 1, NULL, &filled[r], &ctx);
        if (rc != CLG_EXIT_OK)
            break;
        t0 = clg_cli_now();
        clg_status st = call(ctx, c, &t, 1);
        warm[r] = (clg_cli_now() - t0) * 1e3;
        clg_context_destroy(ctx);
        if (st != CLG_STATUS_OK || memcmp(t.out[0], t.out[1], bytes) != 0) {
            fprintf(stderr,
                    "clgather bench: %s: the call with programs loaded from "
                    "the cache gave other bytes than the one that built "
                    "them\n",
                    clg_op_name(c->op));
            rc = CLG_EXIT_DIFFER;
        }
    }
    if (rc == CLG_EXIT_OK) {
        double e = median(empty, BENCH_FIRST_ROUNDS);
        double f = median(filled, BENCH_FIRST_ROUNDS);
        printf("%-15s %10.2f %14.2f %15.2f %13.3f %12.3f\n",
               clg_op_name(c->op), median(ctx_ms, BENCH_FIRST_ROUNDS), e, f,
               e > 0 ? f / e : 0, median(warm, BENCH_FIRST_ROUNDS));
    }
    tensors_free(&t);
    return rc;
}

int bench_first_calls(const bench_options *opt)
{
    char dir[512];
    const char *tmp = getenv("TMPDIR");
    int rc = CLG_EXIT_OK;
    snprintf(dir, sizeof dir, "%s/clgather-bench-cache-XXXXXX",
             tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir)) {
        fprintf(stderr, "clgather bench: cannot make a folder in %s\n",
                tmp && *tmp ? tmp : "/tmp");
        return CLG_EXIT_ERROR;
    }
    clg_context *ctx = NULL;
    char params[512];
    double t0 = clg_cli_now();
    rc = clg_cli_open_device("bench", opt->device, &ctx);
    double first_ms = (clg_cli_now() - t0) * 1e3;
    /* CLGATHER_PARAMS against the device's row, before any line. */
    if (rc == CLG_EXIT_OK)
        rc = clg_cli_params(ctx, "bench", params, sizeof params);
    clg_context_destroy(ctx);
    if (rc != CLG_EXIT_OK) {
        rmdir(dir);
        return rc;
    }
    printf("\nfirst calls (each a new context; program cache in a private "
           "folder; median of %d rounds;\nempty: programs compiled from "
           "source, filled: loaded from their binaries; ms); the process's "
           "first\ncontext took %.2f ms\n",
           BENCH_FIRST_ROUNDS, first_ms);
    printf("%-15s %10s %14s %15s %13s %12s\n", "op", "context_ms",
           "first_empty_ms", "first_filled_ms", "filled/empty",
           "warm_call_ms");
    for (size_t k = 0;
         k < sizeof first_cases / sizeof first_cases[0] && rc == CLG_EXIT_OK;
         k++)
        rc = run_case(opt, dir, &first_cases[k]);
    fflush(stdout);
    clg_cache_clear(dir, NULL);
    rmdir(dir);
    return rc;
}
