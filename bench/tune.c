/* SPDX-License-Identifier: Apache-2.0 */
/*
 * clgather tune: searches the device parameters (docs/design.md, "Device
 * parameters") on the current device over the benchmark's large
 * workloads, checks every candidate bit for bit against the CPU
 * reference, and prints the best entry in the table's own syntax
 * (src/params.c) and as a CLGATHER_PARAMS value.
 *
 * The search is coordinate-wise: starting from the device's entry, each
 * field of the library's table (clg_param_count, by name) in turn takes
 * each of its candidate values (clg_param_candidates, those the device
 * takes: clg_context_param_bounds) with the others fixed, and keeps the
 * value with the lowest sum over the workloads of their best device-buffer
 * call times, when it beats the value kept by more than TUNE_MARGIN (so
 * that noise does not move a field the workloads do not exercise).
 * Candidates are set on the context with clg_context_set_params_text,
 * validated as CLGATHER_PARAMS is.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <clgather/clgather.h>

#include "bench_internal.h"
#include "cli.h"

/* One workload's tensors on the device and its reference output. */
typedef struct tune_case {
    const bench_workload *w;
    bench_result r;
    cl_mem data, indices, output;
    void *expected, *got;
} tune_case;

/* The most fields the tuner searches (the library's clg_param_count). */
#define TUNE_FIELDS_MAX 64
/* A candidate replaces the value kept when its sum is this much lower. */
#define TUNE_MARGIN 0.02

typedef struct tune_run {
    clg_context *ctx;
    tune_case cases[BENCH_WORKLOAD_COUNT];
    size_t count;
    int repeat;
    int fields; /* clg_param_count() */
} tune_run;

static void usage(FILE *out)
{
    fprintf(out,
            "Usage: clgather tune [--device SPEC] [--scale F] [--repeat N]\n"
            "Search the device parameters (work-group size, strips, units, "
            "prefetching,\n"
            "non-temporal stores, the Gather normalising pass) on the "
            "benchmark workloads,\n"
            "check every candidate against\n"
            "the CPU reference, and print the best entry of the parameter "
            "table.\n"
            "\n"
            "  -d, --device SPEC  device (default: $CLGATHER_DEVICE, else "
            "the first GPU,\n"
            "                     else the first device)\n"
            "  -s, --scale F      workload size factor in (0, 4] (default "
            "0.5)\n"
            "  -r, --repeat N     timed calls per candidate and workload, "
            "best kept (default 3)\n"
            "  -h, --help         show this help\n"
            "Every field of the library's parameter table is searched, "
            "over its candidates;\n"
            "a value replaces the one kept only when it is more than 2%% "
            "faster.\n"
            "CLGATHER_PARAMS is ignored: the search starts from the "
            "device's entry.\n"
            "Exit status: 0, 1 when a candidate's output differed, 3 a "
            "usage or\n"
            "configuration error, or the library refused a candidate, 4 the "
            "OpenCL runtime\n"
            "or device failed (no device, an OpenCL call or a kernel build "
            "failed).\n");
}

static clg_status call_cl(tune_run *t, const tune_case *c)
{
    const bench_workload *w = c->w;
    clg_cl_tensor d = {w->data_dtype, w->data_rank, c->r.data_shape, c->data};
    clg_cl_tensor i = {w->index_dtype, w->index_rank, c->r.index_shape,
                       c->indices};
    clg_cl_tensor o = {w->data_dtype, c->r.out_rank, c->r.out_shape,
                       c->output};
    return bench_call_cl(t->ctx, w, &d, &i, &o, CLG_OOB_RAISE);
}

static cl_mem make_buffer(clg_context *ctx, const void *host, uint64_t bytes)
{
    cl_int err;
    return clCreateBuffer(clg_context_cl_context(ctx),
                          CL_MEM_READ_WRITE |
                              (host ? CL_MEM_COPY_HOST_PTR : 0),
                          bytes ? (size_t)bytes : 1, (void *)host, &err);
}

/* Inputs, device buffers and the reference output of workload wi. */
static int case_init(tune_run *t, size_t wi, double scale, tune_case *c)
{
    void *data = NULL, *indices = NULL;
    int ok = 0;
    c->w = &bench_workloads[wi];
    if (bench_workload_size(c->w, scale, &c->r) != CLG_STATUS_OK)
        return 0;
    c->r.w = c->w;
    data = malloc(c->r.data_bytes);
    indices = malloc(c->r.index_bytes);
    c->expected = malloc(c->r.out_bytes);
    c->got = malloc(c->r.out_bytes);
    if (data && indices && c->expected && c->got) {
        bench_fill_inputs(wi, BENCH_DEFAULT_SEED, &c->r, data, indices);
        clg_tensor d = {c->w->data_dtype, c->w->data_rank, c->r.data_shape,
                        data};
        clg_tensor i = {c->w->index_dtype, c->w->index_rank, c->r.index_shape,
                        indices};
        clg_tensor o = {c->w->data_dtype, c->r.out_rank, c->r.out_shape,
                        c->expected};
        clg_status st = bench_call_reference(t->ctx, c->w, &d, &i, &o,
                                             CLG_OOB_RAISE);
        c->data = make_buffer(t->ctx, data, c->r.data_bytes);
        c->indices = make_buffer(t->ctx, indices, c->r.index_bytes);
        c->output = make_buffer(t->ctx, NULL, c->r.out_bytes);
        ok = st == CLG_STATUS_OK && c->data && c->indices && c->output;
    }
    free(data);
    free(indices);
    return ok;
}

static void case_release(tune_case *c)
{
    if (c->data)
        clReleaseMemObject(c->data);
    if (c->indices)
        clReleaseMemObject(c->indices);
    if (c->output)
        clReleaseMemObject(c->output);
    free(c->expected);
    free(c->got);
    memset(c, 0, sizeof *c);
}

/* The best call time of one case under the context's parameters, or a
 * negative value when a call failed (-1) or its output differed (-2). */
static double time_case(tune_run *t, tune_case *c)
{
    double best = -1;
    clg_status st = call_cl(t, c); /* warm-up: builds the variants */
    for (int k = 0; k < t->repeat && st == CLG_STATUS_OK; k++) {
        double t0 = clg_cli_now();
        st = call_cl(t, c);
        double dt = clg_cli_now() - t0;
        if (best < 0 || dt < best)
            best = dt;
    }
    if (st != CLG_STATUS_OK)
        return -1;
    cl_int err = clEnqueueReadBuffer(clg_context_cl_queue(t->ctx), c->output,
                                     CL_TRUE, 0, (size_t)c->r.out_bytes,
                                     c->got, 0, NULL, NULL);
    if (err != CL_SUCCESS ||
        memcmp(c->got, c->expected, (size_t)c->r.out_bytes) != 0)
        return -2;
    return best;
}

/* Every field's value, by name, as "wg=4096,...", CLGATHER_PARAMS's
 * syntax. */
static void format_values(const tune_run *t, const int64_t *v, char *text,
                          size_t cap)
{
    size_t len = 0;
    text[0] = '\0';
    for (int f = 0; f < t->fields && len < cap; f++) {
        int n = snprintf(text + len, cap - len, "%s%s=%lld", f ? "," : "",
                         clg_param_name((clg_param)f), (long long)v[f]);
        if (n < 0)
            break;
        len += (size_t)n;
    }
}

/* The sum of the cases' best times under parameters v (a value per
 * field); negative as time_case when a case failed or differed
 * (printed). */
static double time_params(tune_run *t, const int64_t *v)
{
    char text[1024];
    double sum = 0;
    format_values(t, v, text, sizeof text);
    if (clg_context_set_params_text(t->ctx, text) != CLG_STATUS_OK) {
        fprintf(stderr, "clgather tune: %s\n", clg_context_last_error(t->ctx));
        return -1;
    }
    for (size_t k = 0; k < t->count; k++) {
        double s = time_case(t, &t->cases[k]);
        if (s < 0) {
            fprintf(stderr, "clgather tune: %s with %s: %s\n",
                    t->cases[k].w->name, text,
                    s == -1 ? clg_context_last_error(t->ctx)
                            : "output differs from the CPU reference");
            return s;
        }
        sum += s;
    }
    fprintf(stderr, "  %-60s %9.3f ms\n", text, sum * 1e3);
    return sum;
}

/* Coordinate search from best[] (in: the entry, out: the best found),
 * over every field's candidates that the device takes. Returns 0, -2 when
 * a candidate differed from the reference, -3 when one failed. */
static int search(tune_run *t, int64_t *best)
{
    int differed = 0, failed = 0;
    double best_s = time_params(t, best);
    if (best_s < 0)
        return (int)best_s;
    for (int f = 0; f < t->fields; f++) {
        const int64_t *values;
        size_t count;
        int64_t lo, hi;
        if (clg_param_candidates((clg_param)f, &values, &count) !=
                CLG_STATUS_OK ||
            clg_context_param_bounds(t->ctx, (clg_param)f, &lo, &hi) !=
                CLG_STATUS_OK)
            return -3;
        for (size_t k = 0; k < count; k++) {
            int64_t cand[TUNE_FIELDS_MAX];
            if (values[k] == best[f] || values[k] < lo || values[k] > hi)
                continue;
            memcpy(cand, best, sizeof cand);
            cand[f] = values[k];
            double s = time_params(t, cand);
            differed |= s == -2;
            failed |= s == -1;
            if (s >= 0 && s < best_s * (1 - TUNE_MARGIN)) {
                best_s = s;
                memcpy(best, cand, sizeof cand);
            }
        }
    }
    return differed ? -2 : failed ? -3 : 0;
}

/* The entry: each field's value for the row's column of the library's
 * table (CLG_PARAM_TABLE's `rows`, docs/design.md, "Device parameters"),
 * the row's own where it differs, then the whole as CLGATHER_PARAMS. */
static void print_entry(const tune_run *t, const clg_params_entry *e,
                        const int64_t *row, const int64_t *best)
{
    char text[1024];
    printf("row \"%s\" (CLG_DEVICE_TYPE_%s, match \"%s\", built-ins %d), "
           "its value of each field:\n",
           e->name, clg_cli_device_type_name(e->type), e->match, e->builtins);
    for (int f = 0; f < t->fields; f++) {
        printf("    %-9s %lld", clg_param_name((clg_param)f),
               (long long)best[f]);
        if (best[f] != row[f])
            printf("  (the row: %lld)", (long long)row[f]);
        putchar('\n');
    }
    format_values(t, best, text, sizeof text);
    printf("CLGATHER_PARAMS=%s\n", text);
}

static int parse_args(int argc, char **argv, const char **device,
                      double *scale, int *repeat)
{
    static const struct option options[] = {
        {"device", required_argument, NULL, 'd'},
        {"scale", required_argument, NULL, 's'},
        {"repeat", required_argument, NULL, 'r'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0}};
    int c;
    char *end;
    while ((c = getopt_long(argc, argv, "d:s:r:h", options, NULL)) != -1) {
        if (c == 'd') {
            *device = optarg;
        } else if (c == 's') {
            *scale = strtod(optarg, &end);
            if (*end || !(*scale > 0 && *scale <= 4))
                return fprintf(stderr,
                               "clgather tune: --scale: '%s' is not "
                               "a number in (0, 4]\n",
                               optarg),
                       -1;
        } else if (c == 'r') {
            long v = strtol(optarg, &end, 10);
            if (*end || v < 1 || v > 100)
                return fprintf(stderr,
                               "clgather tune: --repeat: '%s' is not "
                               "a number in [1, 100]\n",
                               optarg),
                       -1;
            *repeat = (int)v;
        } else if (c == 'h') {
            usage(stdout);
            return 1;
        } else {
            return -1; /* getopt named the option */
        }
    }
    if (optind < argc)
        return fprintf(stderr, "clgather tune: unexpected '%s'\n",
                       argv[optind]),
               -1;
    return 0;
}

int clg_cli_tune(int argc, char **argv)
{
    const char *device = NULL;
    double scale = 0.5;
    tune_run t = {NULL, {{0}}, 0, 3, 0};
    char line[800];
    clg_status st;
    int rc = parse_args(argc, argv, &device, &scale, &t.repeat);
    if (rc)
        return rc > 0 ? CLG_EXIT_OK : clg_cli_try_help("tune");
    if (clg_cli_check_env("tune") != CLG_EXIT_OK)
        return CLG_EXIT_ERROR;
    if ((rc = clg_cli_open_device("tune", device, &t.ctx)) != CLG_EXIT_OK)
        return rc;
    const char *given = clg_context_params_env(t.ctx);
    if (given)
        fprintf(stderr,
                "clgather tune: CLGATHER_PARAMS=\"%s\" is ignored: the "
                "search starts from the device's entry\n",
                given);
    const clg_params_entry *e = clg_context_params_entry(t.ctx);
    int64_t row[TUNE_FIELDS_MAX] = {0}, best[TUNE_FIELDS_MAX] = {0};
    t.fields = clg_param_count();
    st = t.fields <= TUNE_FIELDS_MAX ? clg_context_set_params_text(t.ctx, "")
                                     : CLG_STATUS_INVALID_ARGUMENT;
    for (int f = 0; f < t.fields && st == CLG_STATUS_OK; f++)
        st = clg_context_get_param(t.ctx, (clg_param)f, &row[f]);
    if (st != CLG_STATUS_OK) {
        fprintf(stderr, "clgather tune: the device's entry: %s\n",
                t.fields <= TUNE_FIELDS_MAX ? clg_context_last_error(t.ctx)
                                            : "too many fields");
        clg_context_destroy(t.ctx);
        return CLG_EXIT_ERROR;
    }
    memcpy(best, row, sizeof best);
    for (size_t wi = 0; wi < BENCH_WORKLOAD_COUNT; wi++)
        if (!bench_workloads[wi].micro) {
            if (case_init(&t, wi, scale, &t.cases[t.count]))
                t.count++;
            else
                case_release(&t.cases[t.count]);
        }
    fprintf(stderr,
            "clgather tune: %s, entry \"%s\", %zu workloads at "
            "scale %g, best of %d calls\n",
            clg_cli_device_line(line, sizeof line, t.ctx), e->name, t.count,
            scale, t.repeat);
    rc = t.count ? search(&t, best) : -1;
    if (rc != -1)
        print_entry(&t, e, row, best);
    for (size_t k = 0; k < t.count; k++)
        case_release(&t.cases[k]);
    clg_context_destroy(t.ctx);
    return rc == 0 ? CLG_EXIT_OK : rc == -2 ? CLG_EXIT_DIFFER : CLG_EXIT_ERROR;
}
