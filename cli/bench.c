/*
 * `clgather bench`: bandwidth of Gather and GatherElements on one device,
 * measured beside the same device's plain copy kernel (docs/design.md,
 * section "Measuring speed"; the method is described at the top of
 * bench_measure.c). This file holds the options and the command; see
 * bench_internal.h for the other parts.
 */
#include "bench.h"

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
            "Measure Gather and GatherElements bandwidth beside the device's "
            "copy kernel.\n"
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
            "  -l, --list           list the workloads and exit\n"
            "  -h, --help           show this help\n"
            "\n"
            "Exit status: 0 done, 1 a result differed from the CPU "
            "reference, 3 usage or\n"
            "device problems. Missed speed targets do not change the exit "
            "status.\n",
            BENCH_DEFAULT_REPEAT, (unsigned long long)BENCH_DEFAULT_SEED);
}

static void list_workloads(void)
{
    printf("%-20s %-15s %-8s %-18s %-6s %-14s %s\n", "name", "op", "data",
           "shape", "index", "shape", "axis");
    for (size_t i = 0; i < BENCH_WORKLOAD_COUNT; i++) {
        const bench_workload *w = &bench_workloads[i];
        char ds[64], is[64];
        printf("%-20s %-15s %-8s %-18s %-6s %-14s %lld\n", w->name,
               bench_op_name(w->op), clg_dtype_name(w->data_dtype),
               clg_io_format_shape(ds, sizeof ds, w->data_shape,
                                   w->data_rank),
               clg_dtype_name(w->index_dtype),
               clg_io_format_shape(is, sizeof is, w->index_shape,
                                   w->index_rank),
               (long long)w->axis);
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
            fprintf(stderr, "clgather bench: --scale: '%s' is not a list of "
                            "positive numbers\n", text);
            return -1;
        }
        if (opt->scale_count == BENCH_MAX_SCALES) {
            fprintf(stderr, "clgather bench: at most %d scales\n",
                    BENCH_MAX_SCALES);
            return -1;
        }
        opt->scales[opt->scale_count++] = v;
        p = *end == ',' ? end + 1 : end;
    }
    return 0;
}

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
        {"list", no_argument, NULL, 'l'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0}};
    int c, any_selected = 0;
    int64_t v;
    memset(opt, 0, sizeof *opt);
    opt->repeat = BENCH_DEFAULT_REPEAT;
    opt->seed = BENCH_DEFAULT_SEED;
    while ((c = getopt_long(argc, argv, "d:w:r:s:j:lh", options, NULL)) !=
           -1) {
        switch (c) {
        case 'd':
            opt->device = optarg;
            break;
        case 'w': {
            size_t i = 0;
            while (i < BENCH_WORKLOAD_COUNT &&
                   strcmp(bench_workloads[i].name, optarg) != 0)
                i++;
            if (i == BENCH_WORKLOAD_COUNT) {
                fprintf(stderr, "clgather bench: unknown workload '%s'; "
                                "known:", optarg);
                for (i = 0; i < BENCH_WORKLOAD_COUNT; i++)
                    fprintf(stderr, " %s", bench_workloads[i].name);
                fprintf(stderr, "\n");
                return -1;
            }
            opt->selected[i] = 1;
            any_selected = 1;
            break;
        }
        case 'r':
            if (clg_cli_parse_int64(optarg, &v) != 0 || v < 1 || v > 100000) {
                fprintf(stderr, "clgather bench: --repeat: '%s' is not a "
                                "number in [1, 100000]\n", optarg);
                return -1;
            }
            opt->repeat = (int)v;
            break;
        case 's':
            if (parse_scales(optarg, opt) != 0)
                return -1;
            break;
        case 'L':
            if (parse_scales("0.25,1,4", opt) != 0)
                return -1;
            break;
        case 'S': {
            char *end = NULL;
            errno = 0;
            unsigned long long s = strtoull(optarg, &end, 0);
            if (errno != 0 || end == optarg || *end != '\0') {
                fprintf(stderr, "clgather bench: --seed: '%s' is not a "
                                "number\n", optarg);
                return -1;
            }
            opt->seed = (uint64_t)s;
            break;
        }
        case 'j':
            opt->json_path = optarg;
            break;
        case 'l':
            return 1;
        case 'h':
            return 2;
        default:
            return -1;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "clgather bench: unexpected argument '%s'\n",
                argv[optind]);
        return -1;
    }
    if (!any_selected)
        for (size_t i = 0; i < BENCH_WORKLOAD_COUNT; i++)
            opt->selected[i] = 1;
    if (opt->scale_count == 0)
        opt->scales[opt->scale_count++] = 1.0;
    return 0;
}

int clg_cli_bench(int argc, char **argv)
{
    bench_options opt;
    clg_context *ctx = NULL;
    bench_cl b;
    bench_result *res = NULL;
    size_t n = 0, total = 0;
    int rc;
    clg_status st;

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
    if (rc != 0) {
        fprintf(stderr, "Try 'clgather bench --help'.\n");
        return CLG_EXIT_ERROR;
    }
    bench_progress_init();
    if (opt.json_path) {
        /* Fail now, not after minutes of measuring, if it cannot be
         * written; write_json rewrites it at the end. */
        FILE *probe = fopen(opt.json_path, "w");
        if (!probe) {
            fprintf(stderr, "clgather bench: cannot write %s: %s\n",
                    opt.json_path, strerror(errno));
            return CLG_EXIT_ERROR;
        }
        fclose(probe);
    }

    st = clg_context_create(&ctx, opt.device);
    if (st != CLG_STATUS_OK) {
        char msg[1024];
        fprintf(stderr, "clgather bench: %s\n",
                clg_cli_describe(msg, sizeof msg, NULL, st));
        return CLG_EXIT_ERROR;
    }
    if ((rc = bench_cl_init(&b, ctx)) != CLG_EXIT_OK)
        goto cleanup;

    for (size_t i = 0; i < BENCH_WORKLOAD_COUNT; i++)
        total += opt.selected[i] ? opt.scale_count : 0;
    res = calloc(total, sizeof *res);
    if (!res) {
        fprintf(stderr, "clgather bench: out of memory\n");
        rc = CLG_EXIT_ERROR;
        goto cleanup;
    }
    bench_print_header(ctx, &opt);
    fflush(stdout);
    for (size_t i = 0; i < BENCH_WORKLOAD_COUNT; i++) {
        if (!opt.selected[i])
            continue;
        for (size_t k = 0; k < opt.scale_count; k++) {
            rc = bench_run_workload(ctx, &b, &opt, i, opt.scales[k], n + 1,
                                    total, &res[n]);
            n++;
            if (rc != CLG_EXIT_OK)
                goto cleanup;
        }
    }
    bench_progress_clear();
    bench_print_table(res, n);
    if (opt.scale_count > 1)
        bench_print_linearity(res, n);
    bench_print_targets(ctx, res, n);
    if (opt.json_path)
        rc = bench_write_json(opt.json_path, ctx, &opt, res, n);

cleanup:
    bench_progress_clear();
    free(res);
    bench_cl_release(&b);
    clg_context_destroy(ctx);
    return rc;
}
