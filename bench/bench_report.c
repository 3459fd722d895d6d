/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `clgather bench`: the report. The results table, the linearity table,
 * the targets and the JSON file.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <clgather/clgather.h>

#include "bench_internal.h"
#include "cli.h"
#include "io_tensor.h"
#include "json_out.h"

static double result_gbps(const bench_result *r)
{
    return (double)r->bytes / r->kernel_s * 1e-9;
}

static double result_copy_gbps(const bench_result *r)
{
    return (double)r->copy_bytes / r->copy_s * 1e-9;
}

static double result_efficiency(const bench_result *r)
{
    return result_gbps(r) / result_copy_gbps(r);
}

static double result_e2e_efficiency(const bench_result *r)
{
    return (double)r->bytes / r->e2e_s * 1e-9 / result_copy_gbps(r);
}

/* Whether the host-memory call launched kernels: one on the calling
 * thread (the host parameter) moves no bytes through the device, so its
 * bytes against the copy kernel's say nothing. */
static int has_e2e_efficiency(const bench_result *r)
{
    return r->measured && r->host_path != CLG_PATH_HOST;
}

static double result_host_copy_gbps(const bench_result *r)
{
    return (double)r->copy_bytes / r->host_copy_s * 1e-9;
}

void bench_print_header(const clg_context *ctx, const bench_cl *b,
                        const bench_options *opt)
{
    printf("clgather bench: device \"%s\" (%s; %s) on %s %s, host memory "
           "%s\n",
           clg_context_device_name(ctx), clg_context_device_vendor(ctx),
           clg_context_device_version(ctx), clg_context_platform_name(ctx),
           clg_context_driver_version(ctx),
           clg_context_uses_svm(ctx) ? "shared (used in place, SVM pointers)"
           : clg_context_uses_host_memory(ctx) ? "shared (used in place)"
                                               : "separate (copied)");
    printf("seed 0x%016llx; cache: %s (each figure: a warm-up call, then "
           "%d call%s in a row, the best kept); GB = 1e9 bytes\n",
           (unsigned long long)opt->seed, BENCH_CACHE_CONDITIONS, opt->repeat,
           opt->repeat == 1 ? "" : "s");
    printf("out-of-range mode: %s; device buffers: %s\n",
           clg_oob_mode_name(opt->oob),
           bench_host_buffers(opt, ctx)
               ? "host memory allocated as NumPy's arrays "
                 "(CL_MEM_USE_HOST_PTR)"
               : "the runtime's (clCreateBuffer)");
    const char *env = clg_context_params_env(ctx);
    printf("device parameters: %s", b->params);
    if (env)
        printf(" (with CLGATHER_PARAMS=%s)", env);
    printf("\n");
    printf("copy kernels:");
    for (size_t i = 0; i < b->copy_count; i++)
        printf(" %s", b->copy[i].name);
    if (b->copy_unavailable[0])
        printf(" (refused by the device compiler: %s)", b->copy_unavailable);
    printf("; host copy: memcpy on %d thread%s\n\n", b->host_threads,
           b->host_threads == 1 ? "" : "s");
}

static void print_row(const bench_result *r, const bench_cl *b)
{
    if (r->has_kernel)
        printf("%10.3f ", r->kernel_s * 1e3);
    else
        printf("%10s ", "-");
    printf("%10.3f ", r->e2e_s * 1e3);
    if (r->check_kind != BENCH_CHECK_NONE)
        printf("%9.3f ", r->check_s * 1e3);
    else
        printf("%9s ", "-");
    if (r->has_kernel)
        printf("%7.2f ", result_gbps(r));
    else
        printf("%7s ", "-");
    printf("%7.2f %-15s %7.2f ", result_copy_gbps(r),
           b->copy[r->copy_best].name, result_host_copy_gbps(r));
    if (r->has_kernel)
        printf("%5.2f ", result_efficiency(r));
    else
        printf("%5s ", "-");
    if (has_e2e_efficiency(r))
        printf("%5.2f", result_e2e_efficiency(r));
    else
        printf("%5s", "-");
    if (r->has_micro)
        printf(" %8.1f %8.1f\n", r->call_s * 1e6, r->launch_s * 1e6);
    else
        printf(" %8s %8s\n", "-", "-");
}

/* Column width of copy variant v in the copy table. */
static int variant_width(const bench_cl *b, size_t v)
{
    size_t len = strlen(b->copy[v].name);
    return len < 6 ? 6 : (int)len;
}

/* Every copy variant's GB/s beside each other, the fastest marked. */
static void print_copy_variants(const bench_result *res, size_t n,
                                const bench_cl *b)
{
    printf("\nCopy kernels, GB/s (* the fastest, the copy figure above):\n");
    printf("%-20s %5s", "workload", "scale");
    for (size_t v = 0; v < b->copy_count; v++)
        printf(" %*s ", variant_width(b, v), b->copy[v].name);
    printf("\n");
    for (size_t i = 0; i < n; i++) {
        const bench_result *r = &res[i];
        if (!r->measured)
            continue;
        printf("%-20s %5g", r->w->name, r->scale);
        for (size_t v = 0; v < b->copy_count; v++)
            printf(" %*.2f%s", variant_width(b, v),
                   (double)r->copy_bytes / r->copy_variant_s[v] * 1e-9,
                   v == r->copy_best ? "*" : " ");
        printf("\n");
    }
}

/* The per-call cost of the micro workloads, in microseconds. */
static void print_per_call(const bench_result *res, size_t n)
{
    int header = 0;
    for (size_t i = 0; i < n; i++) {
        const bench_result *r = &res[i];
        if (!r->measured || !r->has_pipeline)
            continue;
        if (!header++)
            printf("\nPer-call cost, us (enqueue: one clg_enqueue_* call's "
                   "host time; pipelined: per\noperation of %d enqueues "
                   "and one finish; launch_pipelined: the same for an empty "
                   "kernel; args_pipelined: for an empty kernel with the "
                   "Gather kernels' arguments as 14;\nshape_pipelined: as "
                   "4 buffers and one struct, as the library passes "
                   "them):\n"
                   "%-20s %5s %8s %8s %8s %10s %17s %15s %16s\n",
                   BENCH_PIPELINE, "workload", "scale", "call", "launch",
                   "enqueue", "pipelined", "launch_pipelined",
                   "args_pipelined", "shape_pipelined");
        printf("%-20s %5g %8.1f %8.1f %8.1f %10.2f %17.2f %15.2f %16.2f\n",
               r->w->name, r->scale, r->call_s * 1e6, r->launch_s * 1e6,
               r->enqueue_s * 1e6, r->pipelined_s * 1e6,
               r->launch_pipelined_s * 1e6, r->args_pipelined_s * 1e6,
               r->shape_pipelined_s * 1e6);
    }
}

void bench_print_table(const bench_result *res, size_t n, const bench_cl *b)
{
    printf("%-20s %5s %9s %10s %10s %9s %7s %7s %-15s %7s %5s %5s %8s %8s\n",
           "workload", "scale", "MB", "kernel_ms", "e2e_ms", "check_ms",
           "GB/s", "copy", "copy_kernel", "host", "eff", "e2e", "call_us",
           "launch");
    for (size_t i = 0; i < n; i++) {
        const bench_result *r = &res[i];
        printf("%-20s %5g %9.1f ", r->w->name, r->scale,
               (double)r->bytes * 1e-6);
        if (r->measured)
            print_row(r, b);
        else
            printf("skipped: %s\n", r->skipped);
    }
    for (size_t i = 0; i < n; i++)
        if (res[i].measured && res[i].note[0])
            printf("  %s x%g: %s\n", res[i].w->name, res[i].scale,
                   res[i].note);
    printf("\nMB: bytes moved (data read + indices read + output written); "
           "GB/s: by the kernel time;\n"
           "check_ms: the index check the host-memory call runs before its "
           "first launch (part of e2e_ms);\n"
           "copy: the fastest copy kernel's GB/s over the same bytes "
           "(copy_kernel: which); host: memcpy\n"
           "of the same bytes on the host's threads; eff = GB/s / copy; "
           "e2e = bytes / e2e time / copy.\n");
    print_copy_variants(res, n, b);
    print_per_call(res, n);
}

/* The reference row of a linearity comparison: scale 1 if measured, else
 * the first measured scale of the same workload. */
static const bench_result *linearity_reference(const bench_result *res,
                                               size_t n,
                                               const bench_workload *w)
{
    const bench_result *first = NULL;
    for (size_t i = 0; i < n; i++) {
        if (res[i].w != w || !res[i].measured)
            continue;
        if (res[i].scale == 1.0)
            return &res[i];
        if (!first)
            first = &res[i];
    }
    return first;
}

static double linearity_ratio(double t, double t_ref, const bench_result *r,
                              const bench_result *ref)
{
    return (t / t_ref) / ((double)r->bytes / (double)ref->bytes);
}

static double copy_linearity_ratio(const bench_result *r,
                                   const bench_result *ref)
{
    return (r->copy_s / ref->copy_s) /
           ((double)r->copy_bytes / (double)ref->copy_bytes);
}

static int within_25pct(double ratio)
{
    return ratio >= 0.75 && ratio <= 1.25;
}

/* The linearity verdict of row r against ref: 1 ok, 0 missed, -1 none
 * (a micro workload: launch-bound by design, its time does not grow
 * with its bytes). */
static int linearity_verdict(const bench_result *r, const bench_result *ref)
{
    if (r->w->micro)
        return -1;
    if (r->has_kernel && ref->has_kernel &&
        !within_25pct(linearity_ratio(r->kernel_s, ref->kernel_s, r, ref)))
        return 0;
    return within_25pct(linearity_ratio(r->e2e_s, ref->e2e_s, r, ref));
}

/* "%8.3f %+5.0f%%" of one path: ns per byte and its deviation from
 * proportional ("ref" on the reference row). */
static void print_per_byte(int present, double t, uint64_t bytes, double ratio,
                           int is_ref)
{
    if (!present) {
        printf(" %9s %5s", "-", "");
        return;
    }
    printf(" %9.4f", t * 1e9 / (double)bytes);
    if (is_ref)
        printf(" %5s", "ref");
    else
        printf(" %+4.0f%%", (ratio - 1) * 100);
}

void bench_print_linearity(const bench_result *res, size_t n)
{
    static const char *verdicts[3] = {"n/a", "MISS", "ok"};
    printf("\nLinearity: ns per byte moved, and its deviation from "
           "proportional against the reference\nscale (scale 1; target: "
           "within 25%%; copy: the copy kernel's, the machine's own):\n");
    printf("%-20s %5s %9s %9s %5s %9s %5s %9s %5s %s\n", "workload", "scale",
           "MB", "kernel", "dev", "e2e", "dev", "copy", "dev", "verdict");
    for (size_t i = 0; i < n; i++) {
        const bench_result *r = &res[i];
        const bench_result *ref = linearity_reference(res, n, r->w);
        if (!r->measured || !ref)
            continue;
        const int is_ref = ref == r;
        printf("%-20s %5g %9.1f", r->w->name, r->scale,
               (double)r->bytes * 1e-6);
        print_per_byte(r->has_kernel && ref->has_kernel, r->kernel_s, r->bytes,
                       linearity_ratio(r->kernel_s, ref->kernel_s, r, ref),
                       is_ref);
        print_per_byte(1, r->e2e_s, r->bytes,
                       linearity_ratio(r->e2e_s, ref->e2e_s, r, ref), is_ref);
        print_per_byte(1, r->copy_s, r->copy_bytes,
                       copy_linearity_ratio(r, ref), is_ref);
        printf(" %s\n", is_ref ? "" : verdicts[linearity_verdict(r, ref) + 1]);
    }
    printf("(n/a: a launch-bound workload, whose time does not grow with its "
           "bytes)\n");
}

/* The efficiency targets against the copy limit (docs/design.md,
 * "Measuring speed"), per workload: on CPU devices, and on GPUs. */
static const struct {
    const char *name;
    double cpu, gpu;
} efficiency_targets[] = {
    {"embedding", 0.8, 0.85},
    {"gather-last-axis", 0.6, 0.85},
    {"gather-middle-axis", 0.8, 0.85},
    {"elements-last-axis", 0.7, 0.85},
    {"elements-axis0", 0.3, 0.6},
    /* GatherND: slices of 256 bytes or more are row-like, at least 0.6 of
     * the copy; single elements at random, as elements-axis0's, meet the
     * element-gather ceiling of GatherElements off the last axis. */
    {"nd-positions", 0.6, 0.85},
    {"nd-rows", 0.6, 0.85},
    {"nd-scalars", 0.3, 0.6},
};

static double efficiency_target(const char *name, int gpu)
{
    for (size_t i = 0;
         i < sizeof efficiency_targets / sizeof efficiency_targets[0]; i++)
        if (!strcmp(efficiency_targets[i].name, name))
            return gpu ? efficiency_targets[i].gpu : efficiency_targets[i].cpu;
    return 0.8;
}

/* Whether r has the read kernel's time over its indices. */
static int has_read(const bench_result *r)
{
    return r->measured && r->check_kind == BENCH_CHECK_DEVICE &&
           r->read_s > 0 && isfinite(r->read_s);
}

/* One large workload's line: efficiency against its target, the
 * end-to-end efficiency, and what the check pass costs of the call. */
static void print_target(const bench_result *r, int shared, int gpu)
{
    const double e = result_efficiency(r), ee = result_e2e_efficiency(r);
    const double target = efficiency_target(r->w->name, gpu);
    printf("  %-20s x%-4g efficiency >= %.2f: ", r->w->name, r->scale, target);
    if (r->has_kernel)
        printf("%.2f %s", e, e >= target ? "ok  " : "MISS");
    else
        printf("n/a ");
    if (shared && !has_e2e_efficiency(r))
        printf("; end_to_end_efficiency: n/a (on the calling thread: the "
               "host parameter)");
    else if (shared)
        printf("; end_to_end_efficiency >= 0.7: %.2f %s", ee,
               ee >= 0.7 ? "ok  " : "MISS");
    if (r->check_kind != BENCH_CHECK_NONE)
        printf("; check pass %.0f%% of e2e", 100 * r->check_s / r->e2e_s);
    if (has_read(r)) {
        const double q = r->check_s / r->read_s;
        printf("; check <= 1.3 x read kernel: %.3f / %.3f ms = %.2f %s",
               r->check_s * 1e3, r->read_s * 1e3, q, q <= 1.3 ? "ok" : "MISS");
    }
    printf("\n");
}

void bench_print_targets(const clg_context *ctx, const bench_result *res,
                         size_t n)
{
    const int shared = clg_context_uses_host_memory(ctx);
    const int gpu = clg_context_device_type(ctx) == CLG_DEVICE_TYPE_GPU;
    printf("\nTargets:\n");
    for (size_t i = 0; i < n; i++) {
        const bench_result *r = &res[i];
        if (!r->measured)
            continue;
        if (!r->has_micro) {
            print_target(r, shared, gpu);
            continue;
        }
        double q = r->call_s / r->launch_s;
        printf("  %-20s x%-4g call_us <= 1.5 x launch_us: %.1f / %.1f = "
               "%.2f %s%s\n",
               r->w->name, r->scale, r->call_s * 1e6, r->launch_s * 1e6, q,
               q <= 1.5 ? "ok" : "MISS",
               r->host_path == CLG_PATH_HOST
                   ? " (on the calling thread: the host parameter)"
                   : "");
        if (!r->has_pipeline)
            continue;
        q = r->pipelined_s / r->launch_pipelined_s;
        printf("  %-20s x%-4g pipelined_us <= 1.5 x launch_pipelined_us: "
               "%.2f / %.2f = %.2f %s\n",
               r->w->name, r->scale, r->pipelined_s * 1e6,
               r->launch_pipelined_s * 1e6, q, q <= 1.5 ? "ok" : "MISS");
    }
}

/* The variants the device compiler refused, as a list (b->copy_unavailable
 * holds them as "a, b"). */
static void json_refused(clg_json *j, const bench_cl *b)
{
    const char *names[16];
    char text[sizeof b->copy_unavailable], *save = NULL, *name;
    size_t n = 0;
    snprintf(text, sizeof text, "%s", b->copy_unavailable);
    for (name = strtok_r(text, ", ", &save); name != NULL && n < 16;
         name = strtok_r(NULL, ", ", &save))
        names[n++] = name;
    clg_json_strings(j, "copy_variants_refused", names, n);
}

static void json_device(clg_json *j, const clg_context *ctx, const bench_cl *b,
                        const bench_options *opt)
{
    const char *names[sizeof b->copy / sizeof b->copy[0]];
    clg_cli_json_head(j, "bench");
    clg_json_string(j, "device", clg_context_device_name(ctx));
    clg_json_string(j, "device_vendor", clg_context_device_vendor(ctx));
    clg_json_string(j, "device_version", clg_context_device_version(ctx));
    clg_json_string(j, "platform", clg_context_platform_name(ctx));
    clg_json_string(j, "platform_version", clg_context_platform_version(ctx));
    clg_json_string(j, "driver_version", clg_context_driver_version(ctx));
    clg_json_bool(j, "host_unified_memory", clg_context_uses_host_memory(ctx));
    clg_json_bool(j, "svm", clg_context_uses_svm(ctx));
    clg_json_uint(j, "max_alloc_bytes", clg_context_max_alloc_size(ctx));
    clg_json_uint(j, "seed", opt->seed);
    clg_json_int(j, "repeat", opt->repeat);
    clg_json_string(j, "statistic", "min");
    clg_json_string(j, "cache", BENCH_CACHE_CONDITIONS);
    clg_json_int(j, "host_copy_threads", b->host_threads);
    clg_json_string(j, "oob", clg_oob_mode_name(opt->oob));
    clg_json_string(j, "device_buffers",
                    bench_host_buffers(opt, ctx) ? "host" : "runtime");
    for (size_t v = 0; v < b->copy_count; v++)
        names[v] = b->copy[v].name;
    clg_json_strings(j, "copy_variants", names, b->copy_count);
    json_refused(j, b);
    clg_json_string(j, "params", b->params);
    clg_json_string(j, "params_env", clg_context_params_env(ctx));
}

/* The baselines of one result: the copy variants, the host copy and the
 * check pass. */
static void json_baselines(clg_json *j, const bench_result *r,
                           const bench_cl *b)
{
    int m = r->measured, c = m && r->check_kind != BENCH_CHECK_NONE;
    clg_json_string(j, "copy_variant", m ? b->copy[r->copy_best].name : NULL);
    clg_json_begin_object(j, "copy_variants_gbps");
    for (size_t v = 0; v < b->copy_count; v++)
        clg_json_number(j, b->copy[v].name, m,
                        (double)r->copy_bytes / r->copy_variant_s[v] * 1e-9);
    clg_json_end_object(j);
    clg_json_number(j, "host_copy_gbps", m, m ? result_host_copy_gbps(r) : 0);
    clg_json_number(j, "check_ms", c, r->check_s * 1e3);
    clg_json_string(j, "check_pass",
                    c ? bench_check_name(r->check_kind) : NULL);
    char read_name[32];
    if (has_read(r))
        snprintf(read_name, sizeof read_name, "%s%s",
                 b->copy[r->read_best].name,
                 r->read_best_stripes ? "-stripes" : "");
    clg_json_number(j, "read_ms", has_read(r), r->read_s * 1e3);
    clg_json_string(j, "read_variant", has_read(r) ? read_name : NULL);
}

/* The figures of one result; null where not measured. */
static void json_figures(clg_json *j, const bench_result *r)
{
    int m = r->measured, k = m && r->has_kernel;
    int micro = m && r->has_micro, pipe = m && r->has_pipeline;
    clg_json_number(j, "kernel_ms", k, r->kernel_s * 1e3);
    clg_json_number(j, "end_to_end_ms", m, r->e2e_s * 1e3);
    clg_json_uint(j, "bytes", r->bytes);
    clg_json_number(j, "gbps", k, k ? result_gbps(r) : 0);
    clg_json_number(j, "copy_gbps", m, m ? result_copy_gbps(r) : 0);
    clg_json_number(j, "efficiency", k, k ? result_efficiency(r) : 0);
    clg_json_number(j, "end_to_end_efficiency", has_e2e_efficiency(r),
                    has_e2e_efficiency(r) ? result_e2e_efficiency(r) : 0);
    clg_json_number(j, "call_us", micro, r->call_s * 1e6);
    clg_json_string(j, "host_memory_path",
                    !m                              ? NULL
                    : r->host_path == CLG_PATH_HOST ? "host"
                                                    : "device");
    clg_json_number(j, "launch_us", micro, r->launch_s * 1e6);
    clg_json_number(j, "enqueue_us", pipe, r->enqueue_s * 1e6);
    clg_json_number(j, "pipelined_us", pipe, r->pipelined_s * 1e6);
    clg_json_number(j, "launch_pipelined_us", pipe,
                    r->launch_pipelined_s * 1e6);
    clg_json_number(j, "args_pipelined_us", pipe, r->args_pipelined_s * 1e6);
    clg_json_number(j, "shape_pipelined_us", pipe, r->shape_pipelined_s * 1e6);
}

/* What was run (operator, shapes, copy bytes) and why not, if not. */
static void json_setup(clg_json *j, const bench_result *r)
{
    const bench_workload *w = r->w;
    clg_json_number(j, "scale", 1, r->scale);
    clg_json_string(j, "op", clg_op_name(w->op));
    clg_json_int(j, "axis", w->axis);
    clg_json_string(j, "attribute", clg_op_attribute(w->op));
    clg_json_string(j, "data_dtype", clg_dtype_name(w->data_dtype));
    clg_json_shape(j, "data_shape", r->data_shape, w->data_rank);
    clg_json_string(j, "indices_dtype", clg_dtype_name(w->index_dtype));
    clg_json_shape(j, "indices_shape", r->index_shape, w->index_rank);
    clg_json_shape(j, "output_shape", r->out_shape, r->out_rank);
    clg_json_uint(j, "copy_bytes", r->copy_bytes);
    clg_json_string(j, "skipped", r->measured ? NULL : r->skipped);
    clg_json_string(j, "note", r->measured && r->note[0] ? r->note : NULL);
}

static void json_workloads(clg_json *j, const bench_result *res, size_t n,
                           const bench_cl *b)
{
    clg_json_begin_array(j, "workloads");
    for (size_t i = 0; i < n; i++) {
        clg_json_begin_object(j, NULL);
        clg_json_string(j, "name", res[i].w->name);
        json_figures(j, &res[i]);
        json_baselines(j, &res[i], b);
        json_setup(j, &res[i]);
        clg_json_end_object(j);
    }
    clg_json_end_array(j);
}

/* One linearity row, as bench_print_linearity computes it. */
static void json_linearity_row(clg_json *j, const bench_result *r,
                               const bench_result *ref)
{
    const int k = r->has_kernel && ref->has_kernel;
    const double kr = linearity_ratio(r->kernel_s, ref->kernel_s, r, ref);
    const double er = linearity_ratio(r->e2e_s, ref->e2e_s, r, ref);
    const int verdict = linearity_verdict(r, ref);
    clg_json_begin_object(j, NULL);
    clg_json_string(j, "name", r->w->name);
    clg_json_number(j, "scale", 1, r->scale);
    clg_json_number(j, "reference_scale", 1, ref->scale);
    clg_json_number(j, "bytes_ratio", 1,
                    (double)r->bytes / (double)ref->bytes);
    clg_json_number(j, "kernel_ns_per_byte", r->has_kernel,
                    r->kernel_s * 1e9 / (double)r->bytes);
    clg_json_number(j, "end_to_end_ns_per_byte", 1,
                    r->e2e_s * 1e9 / (double)r->bytes);
    clg_json_number(j, "copy_ns_per_byte", 1,
                    r->copy_s * 1e9 / (double)r->copy_bytes);
    clg_json_number(j, "kernel_ratio", k, kr);
    clg_json_number(j, "kernel_deviation", k, kr - 1);
    clg_json_number(j, "end_to_end_ratio", 1, er);
    clg_json_number(j, "end_to_end_deviation", 1, er - 1);
    clg_json_number(j, "copy_ratio", 1, copy_linearity_ratio(r, ref));
    if (verdict < 0)
        clg_json_null(j, "within_25pct");
    else
        clg_json_bool(j, "within_25pct", verdict);
    clg_json_end_object(j);
}

/* Every scale of a workload measured at several, the reference scale's
 * row included (deviations 0). */
static void json_linearity(clg_json *j, const bench_result *res, size_t n)
{
    clg_json_begin_array(j, "linearity");
    for (size_t i = 0; i < n; i++) {
        const bench_result *r = &res[i];
        const bench_result *ref = linearity_reference(res, n, r->w);
        int several = 0;
        for (size_t k = 0; k < n; k++)
            several |= k != i && res[k].w == r->w && res[k].measured;
        if (!r->measured || !ref || !several)
            continue;
        json_linearity_row(j, r, ref);
    }
    clg_json_end_array(j);
}

/* The report is put together in memory and written with
 * clg_io_write_file, which replaces the file atomically: a failed write
 * leaves an older report as it was. */
int bench_write_json(const char *path, const clg_context *ctx,
                     const bench_cl *b, const bench_options *opt,
                     const bench_result *res, size_t n)
{
    char *text = NULL;
    size_t size = 0;
    clg_io_error err;
    FILE *f = open_memstream(&text, &size);
    int rc = CLG_EXIT_OK;
    clg_json j;

    if (!f) {
        fprintf(stderr, "clgather bench: %s: out of memory\n", path);
        return CLG_EXIT_ERROR;
    }
    clg_json_init(&j, f);
    json_device(&j, ctx, b, opt);
    json_workloads(&j, res, n, b);
    json_linearity(&j, res, n);
    clg_json_end_object(&j);
    clg_json_finish(&j);
    if (fclose(f) != 0 || text == NULL) {
        fprintf(stderr, "clgather bench: %s: out of memory\n", path);
        rc = CLG_EXIT_ERROR;
    } else if (clg_io_write_file(path, text, size, &err) != CLG_IO_OK) {
        fprintf(stderr, "clgather bench: %s\n", err.message);
        rc = CLG_EXIT_ERROR;
    }
    free(text);
    return rc;
}
