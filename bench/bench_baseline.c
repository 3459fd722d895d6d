/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `clgather bench`: the baselines a workload is set beside
 * (docs/design.md, section "Measuring speed").
 *
 *   copy kernels  plain copies of one buffer into another, one unit of
 *                 16, 32 or 64 bytes per work-item, each also with
 *                 non-temporal stores (`__builtin_nontemporal_store`, a
 *                 clang built-in: a variant whose build fails is left out
 *                 and named). Every variant that builds is timed in each
 *                 run; the fastest is the device's copy limit. (A 64-byte
 *                 non-temporal copy with `__builtin_prefetch` 16 units
 *                 ahead was tried too and did not beat the plain one on
 *                 POCL: within +-10% either way over six runs.)
 *   read kernels  the same units only read (no non-temporal variant),
 *                 one unit per work-item and in stripes across the
 *                 work-group (as the check kernel reads): what a pass over
 *                 the indices alone costs, set beside the check kernel.
 *   host copy     memcpy on the host, the bytes split into one contiguous
 *                 part per thread (one thread per online CPU).
 * The check pass a host-memory call runs first is the library's own
 * (clg_check_indices), timed in bench_measure.c.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <clgather/clgather.h>

#include "bench_internal.h"
#include "bench_kernels.h"
#include "cli.h"

/* The copy variants, in the order they are tried; "16B" is the portable
 * one, which every device compiler must build. */
static const struct {
    const char *name;
    unsigned unit, nontemporal;
} copy_variants[] = {
    {"16B", 16, 0},    {"32B", 32, 0},    {"64B", 64, 0},
    {"16B-nt", 16, 1}, {"32B-nt", 32, 1}, {"64B-nt", 64, 1},
};
_Static_assert(sizeof copy_variants / sizeof copy_variants[0] <=
                   BENCH_COPY_MAX,
               "BENCH_COPY_MAX holds every copy variant");

/* Builds `nsrc` sources with `options`; NULL (and *err) when it fails,
 * the build log into log when there is one. */
static cl_program build(const bench_cl *b, const char **src, cl_uint nsrc,
                        const char *options, char *log, size_t cap,
                        cl_int *err)
{
    cl_program p;
    *err = CL_INVALID_VALUE; /* a source the build does not embed */
    for (cl_uint i = 0; i < nsrc; i++)
        if (!src[i])
            return NULL;
    p = clCreateProgramWithSource(b->context, nsrc, src, NULL, err);
    if (!p)
        return NULL;
    *err = clBuildProgram(p, 1, &b->device, options, NULL, NULL);
    if (*err == CL_SUCCESS)
        return p;
    if (log && cap > 0) {
        log[0] = '\0';
        clGetProgramBuildInfo(p, b->device, CL_PROGRAM_BUILD_LOG, cap - 1, log,
                              NULL);
        log[cap - 1] = '\0';
    }
    clReleaseProgram(p);
    return NULL;
}

/* The work-group size of the device's row of the library's parameter
 * table (clg_context_params_entry: 256 on GPUs, 4096 on CPUs, where POCL
 * runs a group as loops on one thread), at most the kernel's limit. */
static cl_int pick_local(const bench_cl *b, cl_kernel k, size_t *local)
{
    size_t max_wg = 0;
    cl_int err = clGetKernelWorkGroupInfo(k, b->device,
                                          CL_KERNEL_WORK_GROUP_SIZE,
                                          sizeof max_wg, &max_wg, NULL);
    *local = b->wg;
    if (*local > max_wg)
        *local = max_wg;
    if (*local == 0)
        *local = 1;
    return err;
}

/* Builds variant v into the next slot of b->copy, or names it in
 * b->copy_unavailable when the device compiler refuses it. */
static int add_copy_variant(bench_cl *b, size_t v)
{
    bench_copy_kernel *c = &b->copy[b->copy_count];
    char options[128], log[4096];
    const char *src = bench_kernel_text("copy.cl");
    cl_int err;

    snprintf(options, sizeof options,
             "-w -DCLG_BENCH_UNIT=%u -DCLG_BENCH_NT=%u", copy_variants[v].unit,
             copy_variants[v].nontemporal);
    c->program = build(b, &src, 1, options, log, sizeof log, &err);
    if (!c->program && v == 0) {
        fprintf(stderr,
                "clgather bench: building the copy kernel failed: %s\n%s\n",
                clg_cl_error_name(err), log);
        return CLG_EXIT_RUNTIME;
    }
    if (!c->program) {
        size_t len = strlen(b->copy_unavailable);
        snprintf(b->copy_unavailable + len, sizeof b->copy_unavailable - len,
                 "%s%s", len ? ", " : "", copy_variants[v].name);
        return CLG_EXIT_OK;
    }
    c->kernel = clCreateKernel(c->program, "clg_bench_copy", &err);
    if (!c->kernel)
        return bench_cl_failed(err, "clCreateKernel(clg_bench_copy)");
    if ((err = pick_local(b, c->kernel, &c->local)) != CL_SUCCESS)
        return bench_cl_failed(err, "clGetKernelWorkGroupInfo");
    if (!copy_variants[v].nontemporal) {
        c->read = clCreateKernel(c->program, "clg_bench_read", &err);
        if (!c->read)
            return bench_cl_failed(err, "clCreateKernel(clg_bench_read)");
        c->read_stripes = clCreateKernel(c->program, "clg_bench_read_stripes",
                                         &err);
        if (!c->read_stripes)
            return bench_cl_failed(err,
                                   "clCreateKernel(clg_bench_read_stripes)");
    }
    c->name = copy_variants[v].name;
    c->unit = copy_variants[v].unit;
    b->copy_count++;
    return CLG_EXIT_OK;
}

const char *bench_kernel_text(const char *name)
{
    for (size_t i = 0; i < bench_kernel_source_count; i++)
        if (!strcmp(bench_kernel_sources[i].name, name))
            return bench_kernel_sources[i].text;
    return NULL;
}

/* The empty kernels of bench/kernels/empty.cl: one without arguments and
 * two with the Gather kernels' arguments (14 of them, and 4 buffers and a
 * struct). */
int bench_cl_init(bench_cl *b, clg_context *ctx)
{
    const char *src = bench_kernel_text("empty.cl");
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    cl_int err;
    int rc;

    b->context = clg_context_cl_context(ctx);
    b->device = clg_context_cl_device(ctx);
    b->queue = clg_context_cl_queue(ctx);
    b->wg = clg_context_params_entry(ctx)->params.wg;
    b->host_threads = cpus < 1                   ? 1
                      : cpus > BENCH_MAX_THREADS ? BENCH_MAX_THREADS
                                                 : (int)cpus;
    b->program = build(b, &src, 1, "-w", NULL, 0, &err);
    if (!b->program)
        return bench_cl_failed(err, "building the empty kernel");
    b->empty = clCreateKernel(b->program, "clg_bench_empty", &err);
    if (!b->empty)
        return bench_cl_failed(err, "clCreateKernel(clg_bench_empty)");
    b->empty_args = clCreateKernel(b->program, "clg_bench_empty_args", &err);
    if (!b->empty_args)
        return bench_cl_failed(err, "clCreateKernel(clg_bench_empty_args)");
    b->empty_shape = clCreateKernel(b->program, "clg_bench_empty_shape", &err);
    if (!b->empty_shape)
        return bench_cl_failed(err, "clCreateKernel(clg_bench_empty_shape)");
    for (size_t v = 0; v < sizeof copy_variants / sizeof copy_variants[0]; v++)
        if ((rc = add_copy_variant(b, v)) != CLG_EXIT_OK)
            return rc;
    return CLG_EXIT_OK;
}

void bench_cl_release(bench_cl *b)
{
    for (size_t i = 0; i < b->copy_count; i++) {
        if (b->copy[i].read)
            clReleaseKernel(b->copy[i].read);
        if (b->copy[i].read_stripes)
            clReleaseKernel(b->copy[i].read_stripes);
        clReleaseKernel(b->copy[i].kernel);
        clReleaseProgram(b->copy[i].program);
    }
    if (b->empty)
        clReleaseKernel(b->empty);
    if (b->empty_args)
        clReleaseKernel(b->empty_args);
    if (b->empty_shape)
        clReleaseKernel(b->empty_shape);
    if (b->program)
        clReleaseProgram(b->program);
    memset(b, 0, sizeof *b);
}

/* ------------------------------------------------------------ timing */

/* One launch of `k` over n work-items in groups of `local`, enqueue +
 * clFinish; seconds to *t. */
static cl_int time_range(const bench_cl *b, cl_kernel k, cl_ulong n,
                         size_t local, double *t)
{
    size_t global = (size_t)((n + local - 1) / local * local);
    double t0 = clg_cli_now();
    cl_int err = clEnqueueNDRangeKernel(b->queue, k, 1, NULL, &global, &local,
                                        0, NULL, NULL);
    if (err == CL_SUCCESS)
        err = clFinish(b->queue);
    *t = clg_cli_now() - t0;
    return err;
}

cl_int bench_time_copy(const bench_cl *b, size_t v, cl_mem src, cl_mem dst,
                       uint64_t half_bytes, double *t)
{
    const bench_copy_kernel *c = &b->copy[v];
    cl_ulong n = (cl_ulong)(half_bytes / c->unit);
    cl_int err = clSetKernelArg(c->kernel, 0, sizeof src, &src);
    if (err == CL_SUCCESS)
        err = clSetKernelArg(c->kernel, 1, sizeof dst, &dst);
    if (err == CL_SUCCESS)
        err = clSetKernelArg(c->kernel, 2, sizeof n, &n);
    return err == CL_SUCCESS ? time_range(b, c->kernel, n, c->local, t) : err;
}

cl_int bench_time_read(const bench_cl *b, size_t v, int stripes, cl_mem src,
                       cl_mem hit, uint64_t bytes, cl_uint pattern, double *t)
{
    const bench_copy_kernel *c = &b->copy[v];
    cl_kernel k = stripes ? c->read_stripes : c->read;
    cl_ulong n = (cl_ulong)(bytes / c->unit);
    cl_int err = clSetKernelArg(k, 0, sizeof src, &src);
    if (err == CL_SUCCESS)
        err = clSetKernelArg(k, 1, sizeof hit, &hit);
    if (err == CL_SUCCESS)
        err = clSetKernelArg(k, 2, sizeof n, &n);
    if (err == CL_SUCCESS)
        err = clSetKernelArg(k, 3, sizeof pattern, &pattern);
    return err == CL_SUCCESS ? time_range(b, k, n, c->local, t) : err;
}

typedef struct host_part {
    unsigned char *dst;
    const unsigned char *src;
    size_t bytes;
} host_part;

static void *copy_part(void *arg)
{
    host_part *p = arg;
    memcpy(p->dst, p->src, p->bytes);
    return NULL;
}

/* Thread start and join are inside the time, as the copy kernel's launch
 * is inside its own. */
int bench_time_host_copy(const bench_cl *b, void *dst, const void *src,
                         uint64_t bytes, double *t)
{
    host_part parts[BENCH_MAX_THREADS];
    pthread_t threads[BENCH_MAX_THREADS];
    const int n = b->host_threads;
    const uint64_t share = (bytes / (uint64_t)n + 63) / 64 * 64;
    int started = 0, rc = 0;

    for (int i = 0; i < n; i++) {
        uint64_t at = share * (uint64_t)i < bytes ? share * (uint64_t)i
                                                  : bytes;
        uint64_t len = bytes - at < share ? bytes - at : share;
        parts[i] = (host_part){(unsigned char *)dst + at,
                               (const unsigned char *)src + at, (size_t)len};
    }
    double t0 = clg_cli_now();
    for (int i = 1; i < n && rc == 0; i++)
        if ((rc = pthread_create(&threads[i], NULL, copy_part, &parts[i])) ==
            0)
            started = i;
    copy_part(&parts[0]);
    for (int i = 1; i <= started; i++)
        pthread_join(threads[i], NULL);
    *t = clg_cli_now() - t0;
    return rc;
}

/* ------------------------------------------------------------ check pass */

const char *bench_check_name(bench_check_kind k)
{
    return k == BENCH_CHECK_DEVICE ? "check kernel"
           : k == BENCH_CHECK_HOST ? "host scan"
                                   : "none";
}

int bench_cl_failed(cl_int err, const char *what)
{
    fprintf(stderr, "clgather bench: %s failed: %s (%d)\n", what,
            clg_cl_error_name(err), (int)err);
    return CLG_EXIT_RUNTIME;
}
