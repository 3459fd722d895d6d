/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `clgather bench`: bandwidth of Gather, GatherElements and GatherND on one
 * device, measured beside the same device's plain copy kernel
 * (docs/design.md, section "Measuring speed"; the method is described at
 * the top of bench_measure.c). This file holds the options and the command; see
 * bench_internal.h for the other parts.
 */

#include <errno.h>
#include <getopt.h>
#include <math.h> /* isfinite: a macro only, no libm */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <clgather/clgather.h>

#include "bench_internal.h"
#include "cli.h"
#include "io_tensor.h"

static void usage(FILE *out)
{
    fprintf(out,
            "Usage: clgather bench [--device SPEC] [--workload NAME]... "
            "[--repeat N]\n"
            "                      [--scale F[,F...]] [--linearity] "
            "[--seed N] [--json FILE]\n"
            "                      [--oob MODE] [--buffers KIND] "
            "[--no-first-call]\n"
            "       clgather bench --first-call [--device SPEC]\n"
            "       clgather bench --list\n"
            "Measure Gather, GatherElements and GatherND bandwidth beside the "
            "device's copy kernel.\n"
            "\n"
            "  -d, --device SPEC    device (default: $CLGATHER_DEVICE, else "
            "the first GPU,\n"
            "                       else the first device)\n"
            "  -w, --workload NAME  run this workload (repeatable; default: "
            "all)\n"
            "  -r, --repeat N       timed rounds per figure, best kept "
            "(default %d)\n"
            "  -s, --scale F,...    multiply each workload's size (every "
            "tensor's traffic) by F;\n"
            "                       several scales give a linearity table "
            "(default 1)\n"
            "      --linearity      same as --scale 0.25,1,4\n"
            "      --seed N         seed of the inputs (default %#llx)\n"
            "  -j, --json FILE      also write the results as JSON\n"
            "      --oob MODE       the calls' out-of-range mode: raise "
            "(default), wrap,\n"
            "                       clip or fill (the inputs are in range: "
            "it measures\n"
            "                       what the mode costs, e.g. raise's index "
            "check)\n"
            "      --buffers KIND   the device buffers' memory: host (host "
            "memory allocated\n"
            "                       as NumPy allocates, CL_MEM_USE_HOST_PTR; "
            "the default on\n"
            "                       devices that share host memory) or "
            "runtime (the\n"
            "                       runtime allocates; the default "
            "elsewhere)\n"
            "      --first-call     only the first-call table (printed "
            "after the others\n"
            "                       otherwise): context creation, a new "
            "context's first call\n"
            "                       with the program cache empty and "
            "filled, the warm call\n"
            "      --no-first-call  leave the first-call table out (it "
            "compiles each operator's\n"
            "                       programs from source, 5 times)\n"
            "  -l, --list           list the workloads and exit\n"
            "  -h, --help           show this help\n"
            "\n"
            "Exit status: 0 done, 1 a result differed from the CPU "
            "reference, 3 usage,\n"
            "file or configuration problems, or every workload skipped (too "
            "large for the\n"
            "host or device), 4 the OpenCL runtime or device failed (no "
            "device, an OpenCL\n"
            "call or a kernel build failed, out of memory).\n"
            "A workload that does not fit is skipped with a note; missed "
            "speed targets do not\n"
            "change the exit status.\n",
            BENCH_DEFAULT_REPEAT, (unsigned long long)BENCH_DEFAULT_SEED);
}

static void list_workloads(void)
{
    printf("%-20s %-15s %-8s %-18s %-6s %-14s %s\n", "name", "op", "data",
           "shape", "index", "shape", "attribute");
    for (size_t i = 0; i < BENCH_WORKLOAD_COUNT; i++) {
        const bench_workload *w = &bench_workloads[i];
        char ds[64], is[64];
        printf("%-20s %-15s %-8s %-18s %-6s %-14s %s %lld\n", w->name,
               clg_op_name(w->op), clg_dtype_name(w->data_dtype),
               clg_io_format_shape(ds, sizeof ds, w->data_shape, w->data_rank),
               clg_dtype_name(w->index_dtype),
               clg_io_format_shape(is, sizeof is, w->index_shape,
                                   w->index_rank),
               clg_op_attribute(w->op), (long long)w->axis);
    }
}

static int parse_scales(const char *text, bench_options *opt)
{
    const char *p = text;
    while (*p) {
        char *end = NULL;
        errno = 0;
        double v = strtod(p, &end);
        if (errno != 0 || end == p || !(v > 0) || !isfinite(v) ||
            (*end != ',' && *end != '\0')) {
            fprintf(stderr,
                    "clgather bench: --scale: '%s' is not a list of "
                    "positive numbers\n",
                    text);
            return -1;
        }
        if (opt->scale_count == BENCH_MAX_SCALES) {
            fprintf(stderr, "clgather bench: at most %d scales\n",
                    BENCH_MAX_SCALES);
            return -1;
        }
        opt->scales[opt->scale_count++] = v;
        if (*end == ',' && end[1] == '\0') {
            fprintf(stderr,
                    "clgather bench: --scale: '%s' ends with a comma\n", text);
            return -1;
        }
        p = *end == ',' ? end + 1 : end;
    }
    return 0;
}

static int parse_workload(const char *name, bench_options *opt)
{
    for (size_t i = 0; i < BENCH_WORKLOAD_COUNT; i++)
        if (strcmp(bench_workloads[i].name, name) == 0) {
            opt->selected[i] = 1;
            return 0;
        }
    fprintf(stderr, "clgather bench: unknown workload '%s'; known:", name);
    for (size_t i = 0; i < BENCH_WORKLOAD_COUNT; i++)
        fprintf(stderr, " %s", bench_workloads[i].name);
    fprintf(stderr, "\n");
    return -1;
}

static int parse_repeat(const char *text, bench_options *opt)
{
    int64_t v;
    if (clg_cli_parse_repeat("bench", text, 100000, &v) != 0)
        return -1;
    opt->repeat = (int)v;
    return 0;
}

static int parse_seed(const char *text, bench_options *opt)
{
    char *end = NULL;
    errno = 0;
    unsigned long long s = strtoull(text, &end, 0);
    if (errno != 0 || end == text || *end != '\0' || text[0] == '-' ||
        text[0] == '+' || text[0] == ' ') {
        fprintf(stderr, "clgather bench: --seed: '%s' is not a number\n",
                text);
        return -1;
    }
    opt->seed = (uint64_t)s;
    return 0;
}

/* One option c (with optarg); parse_options' return values. */
static int parse_option(int c, bench_options *opt)
{
    static const char *const single[] = {"d--device", "r--repeat",
                                         "S--seed",   "j--json",
                                         "O--oob",    "B--buffers"};
    for (size_t i = 0; i < sizeof single / sizeof single[0]; i++)
        if (c == single[i][0] &&
            clg_cli_once("bench", single[i] + 1, &opt->seen[c]) != 0)
            return -1;
    switch (c) {
    case 'd':
        opt->device = optarg;
        return 0;
    case 'w':
        return parse_workload(optarg, opt);
    case 'r':
        return parse_repeat(optarg, opt);
    case 's':
        return parse_scales(optarg, opt);
    case 'L':
        return parse_scales("0.25,1,4", opt);
    case 'S':
        return parse_seed(optarg, opt);
    case 'j':
        opt->json_path = optarg;
        return 0;
    case 'O':
        return clg_cli_parse_oob("bench", optarg, &opt->oob);
    case 'B':
        if (strcmp(optarg, "host") == 0)
            opt->buffers = BENCH_BUFFERS_HOST;
        else if (strcmp(optarg, "runtime") == 0)
            opt->buffers = BENCH_BUFFERS_RUNTIME;
        else {
            fprintf(stderr,
                    "clgather bench: --buffers: '%s' is neither host nor "
                    "runtime\n",
                    optarg);
            return -1;
        }
        return 0;
    case 'F':
        opt->first_only = 1;
        return 0;
    case 'N':
        opt->no_first = 1;
        return 0;
    case 'l':
        return 1;
    case 'h':
        return 2;
    default:
        return -1;
    }
}

/* Returns 0 to run, 1 for --list, 2 for --help, -1 on a usage error
 * (printed). */
static int parse_options(int argc, char **argv, bench_options *opt)
{
    static const struct option options[] = {
        {"device", required_argument, NULL, 'd'},
        {"workload", required_argument, NULL, 'w'},
        {"repeat", required_argument, NULL, 'r'},
        {"scale", required_argument, NULL, 's'},
        {"linearity", no_argument, NULL, 'L'},
        {"seed", required_argument, NULL, 'S'},
        {"json", required_argument, NULL, 'j'},
        {"oob", required_argument, NULL, 'O'},
        {"buffers", required_argument, NULL, 'B'},
        {"first-call", no_argument, NULL, 'F'},
        {"no-first-call", no_argument, NULL, 'N'},
        {"list", no_argument, NULL, 'l'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0}};
    int c, rc, any_selected = 0;
    memset(opt, 0, sizeof *opt);
    opt->repeat = BENCH_DEFAULT_REPEAT;
    opt->seed = BENCH_DEFAULT_SEED;
    while ((c = getopt_long(argc, argv, "d:w:r:s:j:lh", options, NULL)) != -1)
        if ((rc = parse_option(c, opt)) != 0)
            return rc;
    if (optind < argc) {
        fprintf(stderr, "clgather bench: unexpected argument '%s'\n",
                argv[optind]);
        return -1;
    }
    for (size_t i = 0; i < BENCH_WORKLOAD_COUNT; i++)
        any_selected |= opt->selected[i];
    /* --first-call measures contexts, not workloads: the options of a
     * workload run would be ignored, so they are refused, by name. */
    const struct {
        int given;
        const char *name;
    } workload_only[] = {{any_selected, "--workload"},
                         {opt->scale_count > 0, "--scale or --linearity"},
                         {opt->seen['r'], "--repeat"},
                         {opt->seen['S'], "--seed"},
                         {opt->seen['j'], "--json"},
                         {opt->seen['O'], "--oob"},
                         {opt->seen['B'], "--buffers"},
                         {opt->no_first, "--no-first-call"}};
    char refused[160] = "";
    for (size_t i = 0;
         opt->first_only && i < sizeof workload_only / sizeof workload_only[0];
         i++)
        if (workload_only[i].given) {
            size_t len = strlen(refused);
            snprintf(refused + len, sizeof refused - len, "%s%s",
                     len ? ", " : "", workload_only[i].name);
        }
    if (refused[0]) {
        fprintf(stderr,
                "clgather bench: --first-call takes --device only, not %s\n",
                refused);
        return -1;
    }
    if (!any_selected)
        for (size_t i = 0; i < BENCH_WORKLOAD_COUNT; i++)
            opt->selected[i] = 1;
    if (opt->scale_count == 0)
        opt->scales[opt->scale_count++] = 1.0;
    return 0;
}

/* Fails now, not after minutes of measuring, if the JSON file cannot be
 * written, and leaves an existing one as it is; bench_write_json replaces
 * it at the end. */
static int probe_json(const char *path)
{
    clg_io_error err;
    if (strcmp(path, "-") == 0) {
        /* the tables go to standard output already */
        fprintf(stderr, "clgather bench: --json needs a file name, not -\n");
        return clg_cli_try_help("bench");
    }
    if (clg_io_check_writable(path, &err) != CLG_IO_OK) {
        fprintf(stderr, "clgather bench: %s\n", err.message);
        return CLG_EXIT_ERROR;
    }
    return CLG_EXIT_OK;
}

/* Runs every selected workload at every scale into res (room for all);
 * *n counts those run, the failed one included. */
static int run_all(clg_context *ctx, const bench_cl *b,
                   const bench_options *opt, bench_result *res, size_t total,
                   size_t *n)
{
    for (size_t i = 0; i < BENCH_WORKLOAD_COUNT; i++) {
        if (!opt->selected[i])
            continue;
        for (size_t k = 0; k < opt->scale_count; k++) {
            int rc = bench_run_workload(ctx, b, opt, i, opt->scales[k], *n + 1,
                                        total, &res[*n]);
            (*n)++;
            if (rc != CLG_EXIT_OK)
                return rc;
        }
    }
    return CLG_EXIT_OK;
}

static int report(const clg_context *ctx, const bench_cl *b,
                  const bench_options *opt, const bench_result *res, size_t n)
{
    bench_progress_clear();
    bench_print_table(res, n, b);
    if (opt->scale_count > 1)
        bench_print_linearity(res, n);
    bench_print_targets(ctx, res, n);
    int rc = CLG_EXIT_OK;
    if (opt->json_path)
        rc = bench_write_json(opt->json_path, ctx, b, opt, res, n);
    size_t measured = 0;
    for (size_t i = 0; i < n; i++)
        measured += res[i].skipped[0] == '\0';
    if (rc == CLG_EXIT_OK && measured == 0) {
        fprintf(stderr, "clgather bench: nothing was measured: every "
                        "workload was skipped (see the table)\n");
        rc = CLG_EXIT_ERROR;
    }
    return rc;
}

/* `clgather bench`: parses the options, opens the device and measures. */
int clg_cli_bench(int argc, char **argv)
{
    bench_options opt;
    clg_context *ctx = NULL;
    bench_cl b;
    bench_result *res = NULL;
    size_t n = 0, total = 0;
    int rc;

    memset(&b, 0, sizeof b);
    rc = parse_options(argc, argv, &opt);
    if (rc == 1) {
        list_workloads();
        return CLG_EXIT_OK;
    }
    if (rc == 2) {
        usage(stdout);
        return CLG_EXIT_OK;
    }
    if (rc != 0)
        return clg_cli_try_help("bench");
    /* The environment first, before any table line is printed. */
    if (clg_cli_check_env("bench") != CLG_EXIT_OK)
        return CLG_EXIT_ERROR;
    if (opt.first_only)
        return bench_first_calls(&opt);
    bench_progress_init();
    if (opt.json_path && probe_json(opt.json_path) != CLG_EXIT_OK)
        return CLG_EXIT_ERROR;
    if ((rc = clg_cli_open_device("bench", opt.device, &ctx)) != CLG_EXIT_OK)
        return rc;
    if ((rc = bench_cl_init(&b, ctx)) != CLG_EXIT_OK ||
        (rc = clg_cli_params(ctx, "bench", b.params, sizeof b.params)) !=
            CLG_EXIT_OK)
        goto cleanup;
    for (size_t i = 0; i < BENCH_WORKLOAD_COUNT; i++)
        total += opt.selected[i] ? opt.scale_count : 0;
    res = calloc(total, sizeof *res);
    if (!res) {
        fprintf(stderr, "clgather bench: out of memory\n");
        rc = CLG_EXIT_ERROR;
        goto cleanup;
    }
    bench_print_header(ctx, &b, &opt);
    fflush(stdout);
    if ((rc = run_all(ctx, &b, &opt, res, total, &n)) == CLG_EXIT_OK)
        rc = report(ctx, &b, &opt, res, n);
    if (rc == CLG_EXIT_OK && !opt.no_first)
        rc = bench_first_calls(&opt);

cleanup:
    bench_progress_clear();
    free(res);
    bench_cl_release(&b);
    clg_context_destroy(ctx);
    return rc;
}
