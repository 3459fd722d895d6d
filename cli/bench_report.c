/*
 * `clgather bench`: the report. The results table, the linearity table,
 * the targets and the JSON file.
 */
#include <math.h> /* isfinite: a macro only, no libm */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <clgather/clgather.h>

#include "bench_internal.h"
#include "cli.h"
#include "io_tensor.h"

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

void bench_print_header(const clg_context *ctx, const bench_options *opt)
{
    printf("clgather bench: device \"%s\" (%s; %s), host memory %s\n",
           clg_context_device_name(ctx), clg_context_device_vendor(ctx),
           clg_context_device_version(ctx),
           clg_context_uses_host_memory(ctx) ? "shared (used in place)"
                                             : "separate (copied)");
    printf("seed 0x%016llx; best of %d rounds after a warm-up; GB = 1e9 "
           "bytes\n\n",
           (unsigned long long)opt->seed, opt->repeat);
}

void bench_print_table(const bench_result *res, size_t n)
{
    printf("%-20s %5s %9s %10s %10s %7s %7s %5s %5s %8s %8s\n", "workload",
           "scale", "MB", "kernel_ms", "e2e_ms", "GB/s", "copy", "eff", "e2e",
           "call_us", "launch");
    for (size_t i = 0; i < n; i++) {
        const bench_result *r = &res[i];
        printf("%-20s %5g %9.1f ", r->w->name, r->scale,
               (double)r->bytes * 1e-6);
        if (!r->measured) {
            printf("skipped: %s\n", r->skipped);
            continue;
        }
        if (r->has_kernel)
            printf("%10.3f ", r->kernel_s * 1e3);
        else
            printf("%10s ", "-");
        printf("%10.3f ", r->e2e_s * 1e3);
        if (r->has_kernel)
            printf("%7.2f ", result_gbps(r));
        else
            printf("%7s ", "-");
        printf("%7.2f ", result_copy_gbps(r));
        if (r->has_kernel)
            printf("%5.2f ", result_efficiency(r));
        else
            printf("%5s ", "-");
        printf("%5.2f", result_e2e_efficiency(r));
        if (r->has_micro)
            printf(" %8.1f %8.1f\n", r->call_s * 1e6, r->launch_s * 1e6);
        else
            printf(" %8s %8s\n", "-", "-");
    }
    for (size_t i = 0; i < n; i++)
        if (res[i].measured && res[i].note[0])
            printf("  %s x%g: %s\n", res[i].w->name, res[i].scale,
                   res[i].note);
    printf("\nMB: bytes moved (data read + indices read + output written); "
           "GB/s: by the kernel time;\ncopy: the copy kernel's GB/s in the "
           "same run; eff = GB/s / copy; e2e = bytes / e2e time / copy.\n");
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

void bench_print_linearity(const bench_result *res, size_t n)
{
    printf("\nLinearity: time per byte relative to the reference scale "
           "(target: within 25%%, 0.75..1.25)\n");
    printf("%-20s %5s %5s %10s %8s %10s %8s\n", "workload", "scale", "ref",
           "bytes", "kernel", "end-to-end", "copy");
    for (size_t i = 0; i < n; i++) {
        const bench_result *r = &res[i];
        const bench_result *ref = linearity_reference(res, n, r->w);
        if (!r->measured || !ref || ref == r)
            continue;
        int has_k = r->has_kernel && ref->has_kernel;
        double k = linearity_ratio(r->kernel_s, ref->kernel_s, r, ref);
        double e = linearity_ratio(r->e2e_s, ref->e2e_s, r, ref);
        printf("%-20s %5g %5g %9.3fx ", r->w->name, r->scale, ref->scale,
               (double)r->bytes / (double)ref->bytes);
        if (has_k)
            printf("%8.2f ", k);
        else
            printf("%8s ", "-");
        printf("%10.2f %8.2f%s\n", e, copy_linearity_ratio(r, ref),
               (!has_k || within_25pct(k)) && within_25pct(e) ? "" : "  MISS");
    }
    printf("(copy: the copy kernel's own ratio, the machine's linearity at "
           "these sizes)\n");
}

void bench_print_targets(const clg_context *ctx, const bench_result *res,
                         size_t n)
{
    int shared = clg_context_uses_host_memory(ctx);
    printf("\nTargets:\n");
    for (size_t i = 0; i < n; i++) {
        const bench_result *r = &res[i];
        if (!r->measured)
            continue;
        if (r->has_micro) {
            double q = r->call_s / r->launch_s;
            printf("  %-20s x%-4g call_us <= 1.5 x launch_us: %.1f / %.1f = "
                   "%.2f %s\n",
                   r->w->name, r->scale, r->call_s * 1e6, r->launch_s * 1e6, q,
                   q <= 1.5 ? "ok" : "MISS");
            continue;
        }
        double e = result_efficiency(r), ee = result_e2e_efficiency(r);
        printf("  %-20s x%-4g efficiency >= 0.8: ", r->w->name, r->scale);
        if (r->has_kernel)
            printf("%.2f %s", e, e >= 0.8 ? "ok  " : "MISS");
        else
            printf("n/a ");
        if (shared)
            printf("; end_to_end_efficiency >= 0.7: %.2f %s", ee,
                   ee >= 0.7 ? "ok" : "MISS");
        printf("\n");
    }
}

static void json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c < 0x20)
            fprintf(f, "\\u%04x", c);
        else
            fputc(c, f);
    }
    fputc('"', f);
}

static void json_number(FILE *f, int present, double v)
{
    if (present && isfinite(v))
        fprintf(f, "%.6g", v);
    else
        fputs("null", f);
}

static void json_shape(FILE *f, const int64_t *shape, size_t rank)
{
    fputc('[', f);
    for (size_t i = 0; i < rank; i++)
        fprintf(f, "%s%lld", i ? ", " : "", (long long)shape[i]);
    fputc(']', f);
}

static void json_device(FILE *f, const clg_context *ctx,
                        const bench_options *opt)
{
    fputs("{\n  \"device\": ", f);
    json_string(f, clg_context_device_name(ctx));
    fputs(",\n  \"device_vendor\": ", f);
    json_string(f, clg_context_device_vendor(ctx));
    fputs(",\n  \"device_version\": ", f);
    json_string(f, clg_context_device_version(ctx));
    fprintf(f,
            ",\n  \"host_unified_memory\": %s,\n  \"max_alloc_bytes\": %llu,"
            "\n  \"seed\": %llu,\n  \"repeat\": %d,\n  \"statistic\": "
            "\"min\",\n  \"workloads\": [",
            clg_context_uses_host_memory(ctx) ? "true" : "false",
            (unsigned long long)clg_context_max_alloc_size(ctx),
            (unsigned long long)opt->seed, opt->repeat);
}

/* The figures of one result; null where not measured. */
static void json_figures(FILE *f, const bench_result *r)
{
    int m = r->measured, k = m && r->has_kernel;
    fputs(", \"kernel_ms\": ", f);
    json_number(f, k, r->kernel_s * 1e3);
    fputs(", \"end_to_end_ms\": ", f);
    json_number(f, m, r->e2e_s * 1e3);
    fprintf(f, ", \"bytes\": %llu, \"gbps\": ", (unsigned long long)r->bytes);
    json_number(f, k, k ? result_gbps(r) : 0);
    fputs(", \"copy_gbps\": ", f);
    json_number(f, m, m ? result_copy_gbps(r) : 0);
    fputs(", \"efficiency\": ", f);
    json_number(f, k, k ? result_efficiency(r) : 0);
    fputs(", \"end_to_end_efficiency\": ", f);
    json_number(f, m, m ? result_e2e_efficiency(r) : 0);
    fputs(", \"call_us\": ", f);
    json_number(f, m && r->has_micro, r->call_s * 1e6);
    fputs(", \"launch_us\": ", f);
    json_number(f, m && r->has_micro, r->launch_s * 1e6);
}

/* What was run (operator, shapes, copy bytes) and why not, if not. */
static void json_setup(FILE *f, const bench_result *r)
{
    const bench_workload *w = r->w;
    fprintf(f,
            ",\n     \"scale\": %.6g, \"op\": \"%s\", \"axis\": %lld, "
            "\"data_dtype\": \"%s\", \"data_shape\": ",
            r->scale, bench_op_name(w->op), (long long)w->axis,
            clg_dtype_name(w->data_dtype));
    json_shape(f, r->data_shape, w->data_rank);
    fprintf(f, ", \"indices_dtype\": \"%s\", \"indices_shape\": ",
            clg_dtype_name(w->index_dtype));
    json_shape(f, r->index_shape, w->index_rank);
    fputs(", \"output_shape\": ", f);
    json_shape(f, r->out_shape, r->out_rank);
    fprintf(f, ", \"copy_bytes\": %llu, \"skipped\": ",
            (unsigned long long)r->copy_bytes);
    if (r->measured)
        fputs("null", f);
    else
        json_string(f, r->skipped);
    fputs(", \"note\": ", f);
    if (r->measured && r->note[0])
        json_string(f, r->note);
    else
        fputs("null", f);
}

static void json_workloads(FILE *f, const bench_result *res, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        fprintf(f, "%s\n    {\"name\": ", i ? "," : "");
        json_string(f, res[i].w->name);
        json_figures(f, &res[i]);
        json_setup(f, &res[i]);
        fputs("}", f);
    }
}

/* The linearity rows, as print_linearity computes them. */
static void json_linearity(FILE *f, const bench_result *res, size_t n)
{
    int first = 1;
    fputs("\n  ],\n  \"linearity\": [", f);
    for (size_t i = 0; i < n; i++) {
        const bench_result *r = &res[i];
        const bench_result *ref = linearity_reference(res, n, r->w);
        if (!r->measured || !ref || ref == r)
            continue;
        fprintf(f, "%s\n    {\"name\": ", first ? "" : ",");
        first = 0;
        json_string(f, r->w->name);
        fprintf(f,
                ", \"scale\": %.6g, \"reference_scale\": %.6g, "
                "\"bytes_ratio\": %.6g, \"kernel_ratio\": ",
                r->scale, ref->scale, (double)r->bytes / (double)ref->bytes);
        json_number(f, r->has_kernel && ref->has_kernel,
                    linearity_ratio(r->kernel_s, ref->kernel_s, r, ref));
        fprintf(f, ", \"end_to_end_ratio\": %.6g, \"copy_ratio\": %.6g}",
                linearity_ratio(r->e2e_s, ref->e2e_s, r, ref),
                copy_linearity_ratio(r, ref));
    }
    fputs(first ? "]\n}\n" : "\n  ]\n}\n", f);
}

/* The report is put together in memory and written with
 * clg_io_write_file, which replaces the file atomically: a failed write
 * leaves an older report as it was. */
int bench_write_json(const char *path, const clg_context *ctx,
                     const bench_options *opt, const bench_result *res,
                     size_t n)
{
    char *text = NULL;
    size_t size = 0;
    clg_io_error err;
    FILE *f = open_memstream(&text, &size);
    int rc = CLG_EXIT_OK;

    if (!f) {
        fprintf(stderr, "clgather bench: %s: out of memory\n", path);
        return CLG_EXIT_ERROR;
    }
    json_device(f, ctx, opt);
    json_workloads(f, res, n);
    json_linearity(f, res, n);
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
