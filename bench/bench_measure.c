/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `clgather bench`: the measurement. The timing and the run of one
 * workload at one scale, the check pass (the library's clg_check_indices)
 * included; the copy kernels and the host copy are in bench_baseline.c.
 *
 * For each workload (the names and shapes are a contract, see
 * bench_workloads.c) and each --scale:
 *   - the inputs are made once: data bytes and index values from
 *     splitmix64 seeded with the printed seed and the workload's position in
 *     the table; index values uniform in [-s, s-1], s = data.shape[axis];
 *   - the CPU reference computes the expected output once;
 *   - then each figure in turn is taken as one warm-up call and `repeat`
 *     calls back to back, the best (minimum) kept, so that every figure,
 *     and bench/peers.py's, is taken with the caches as the same call
 *     just left them (BENCH_CACHE_CONDITIONS):
 *       copy      every copy-kernel variant over `copy_bytes` (enqueue +
 *                 clFinish), each checked once against its source; the
 *                 fastest variant is the copy figure;
 *       host copy memcpy of the same bytes on the host's threads;
 *       check     the index check the host-memory call runs before a
 *                 kernel may write the caller's memory (where it runs
 *                 one, see check_kind);
 *       kernel    clg_run_cl (clg_gather_cl, ...) on device buffers
 *                 uploaded once (the call returns when the result is there);
 *       e2e       clg_run (clg_gather, ...) on host memory (4096-byte
 *                 aligned, so devices sharing host memory use it in place);
 *   - for workloads marked `micro` (`small`), max(100, 20 x repeat) calls
 *     of a trivial kernel (global size 1) enqueued + clFinish (launch_us),
 *     then as many host-memory calls (call_us), each series back to back;
 *     then, on device buffers, as many clg_enqueue_* calls each timed
 *     alone, host time only, a finish after each untimed (enqueue_us);
 *     then `repeat` series of BENCH_PIPELINE clg_enqueue_* calls and one
 *     clg_context_finish (pipelined_us, per operation), and the same for
 *     the trivial kernel with one clFinish (launch_pipelined_us) and for
 *     a trivial kernel with the Gather kernels' arguments, as 14
 *     (args_pipelined_us) and as the library passes them, four buffers
 *     and one struct of the ten scalars (shape_pipelined_us);
 *   - finally the result of the last kernel-path call and of the last
 *     host-memory call are compared bit for bit with the CPU reference;
 *     a difference ends the run with exit status 1.
 *
 * bytes = data bytes read + indices bytes read + output bytes written,
 * where the data bytes read are counted as the output bytes (each output
 * element reads one data element, for both operators).
 * A copy reads copy_bytes/2 and writes copy_bytes/2, with copy_bytes =
 * bytes rounded down to whole 128-byte pairs of 64-byte units (at least
 * one; each buffer at most the context's largest buffer), in work-groups
 * of the size the library uses (4096 on CPUs, 256 on GPUs, at most the
 * kernel's limit). So GB/s and copy GB/s count the same bytes.
 * GB/s are 1e9 bytes per second.
 *
 * --scale F multiplies one dimension per workload (see bench_workloads.c)
 * so that all traffic grows by F. When a tensor is larger than the
 * context's largest buffer, the device-buffer figures are skipped with a
 * note (that API takes one buffer per tensor) and the host-memory ones,
 * which the library splits, are still measured and checked.
 */
#define _DEFAULT_SOURCE /* madvise, MADV_HUGEPAGE */
#include <math.h>       /* INFINITY: a macro only, no libm */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <clgather/clgather.h>

#include "bench_internal.h"
#include "cli.h"

#define BENCH_MICRO_MIN_ROUNDS 100
/* Per-call figures stop above this many bytes of tensors: a pipelined
 * series keeps BENCH_PIPELINE operations in flight, each with its own
 * temporaries, and the figures are about launch cost, not bandwidth. */
#define BENCH_MICRO_MAX_BYTES ((uint64_t)1 << 20)

#define BENCH_PAGE 4096

static double now_s(void)
{
    return clg_cli_now(); /* CLOCK_MONOTONIC */
}

/* Host memory as NumPy allocates its arrays on Linux: from 4 MiB on,
 * advised to use transparent huge pages before its first touch (here
 * also aligned to them), so that the host-memory calls read and write the
 * kind of memory the peers get from NumPy (docs/benchmarks.md, "Method").
 * Random reads over tens of MB wait on page walks without them. */
#define BENCH_HUGE_MIN ((uint64_t)4 << 20)
#define BENCH_HUGE_PAGE ((size_t)2 << 20)

static void *page_alloc(uint64_t bytes)
{
    void *p = NULL;
    size_t align = bytes >= BENCH_HUGE_MIN ? BENCH_HUGE_PAGE : BENCH_PAGE;
    size_t n = (size_t)((bytes + align - 1) / align * align);
    if (n == 0)
        n = BENCH_PAGE;
    if (posix_memalign(&p, align, n) != 0)
        return NULL;
#ifdef MADV_HUGEPAGE
    if (align == BENCH_HUGE_PAGE)
        (void)madvise(p, n, MADV_HUGEPAGE); /* a hint: may be refused */
#endif
    return p;
}

/* Host memory the kernel says is available (MemAvailable), else the free
 * pages, else no limit. */
static uint64_t host_bytes_available(void)
{
    FILE *f = fopen("/proc/meminfo", "r");
    char line[128];
    unsigned long long kib = 0;
    int found = 0;
    while (f && !found && fgets(line, sizeof line, f))
        found = sscanf(line, "MemAvailable: %llu kB", &kib) == 1;
    if (f)
        fclose(f);
    if (found)
        return (uint64_t)kib * 1024;
    long pages = sysconf(_SC_AVPHYS_PAGES), size = sysconf(_SC_PAGESIZE);
    return pages > 0 && size > 0 ? (uint64_t)pages * (uint64_t)size
                                 : UINT64_MAX;
}

static int stderr_is_tty = 0;

void bench_progress_init(void)
{
    stderr_is_tty = isatty(STDERR_FILENO);
}

/* One progress line on stderr: rewritten in place on a terminal, one line
 * per call otherwise (only when `milestone` is set, to keep logs short). */
static void progress(int milestone, const char *fmt, ...)
{
    char line[160];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    if (stderr_is_tty)
        fprintf(stderr, "\r%-78.78s", line);
    else if (milestone)
        fprintf(stderr, "%s\n", line);
    fflush(stderr);
}

void bench_progress_clear(void)
{
    if (stderr_is_tty)
        fprintf(stderr, "\r%78s\r", "");
}

/* ------------------------------------------------------------ OpenCL side */

static cl_int time_launch(const bench_cl *b, double *t)
{
    size_t one = 1;
    double t0 = now_s();
    cl_int err = clEnqueueNDRangeKernel(b->queue, b->empty, 1, NULL, &one,
                                        &one, 0, NULL, NULL);
    if (err == CL_SUCCESS)
        err = clFinish(b->queue);
    *t = now_s() - t0;
    return err;
}

static int is_allocation_error(cl_int err)
{
    return err == CL_MEM_OBJECT_ALLOCATION_FAILURE ||
           err == CL_OUT_OF_RESOURCES || err == CL_OUT_OF_HOST_MEMORY ||
           err == CL_INVALID_BUFFER_SIZE;
}

/* ------------------------------------------------------------ one run */

/* Bitwise comparison; prints the first differing element. 1 when equal. */
static int check_equal(const bench_result *r, const char *path,
                       const void *got, const void *want, size_t elem)
{
    if (memcmp(got, want, (size_t)r->out_bytes) == 0)
        return 1;
    const unsigned char *g = got, *e = want;
    size_t k = 0;
    while (memcmp(g + k * elem, e + k * elem, elem) == 0)
        k++;
    uint64_t gv = 0, ev = 0;
    memcpy(&gv, g + k * elem, elem < 8 ? elem : 8);
    memcpy(&ev, e + k * elem, elem < 8 ? elem : 8);
    bench_progress_clear();
    fprintf(stderr,
            "clgather bench: %s (scale %g): WRONG RESULT from the %s: output "
            "element %zu is 0x%0*llx, the CPU reference says 0x%0*llx\n",
            r->w->name, r->scale, path, k, (int)(2 * elem),
            (unsigned long long)gv, (int)(2 * elem), (unsigned long long)ev);
    return 0;
}

static int library_failed(const clg_context *ctx, clg_status st,
                          const bench_result *r, const char *what)
{
    char msg[1024];
    bench_progress_clear();
    fprintf(stderr, "clgather bench: %s (scale %g): %s: %s\n", r->w->name,
            r->scale, what, clg_cli_describe(msg, sizeof msg, ctx, st));
    return clg_cli_exit_for_status(st) == CLG_EXIT_RUNTIME ? CLG_EXIT_RUNTIME
                                                           : CLG_EXIT_ERROR;
}

clg_status bench_call_cl(clg_context *ctx, const bench_workload *w,
                         const clg_cl_tensor *data,
                         const clg_cl_tensor *indices,
                         const clg_cl_tensor *output, clg_oob_mode oob)
{
    clg_call call = bench_call_of(w, oob);
    return clg_run_cl(ctx, &call, data, indices, output);
}

clg_status bench_call_reference(clg_context *ctx, const bench_workload *w,
                                const clg_tensor *data,
                                const clg_tensor *indices,
                                const clg_tensor *output, clg_oob_mode oob)
{
    clg_call call = bench_call_of(w, oob);
    return clg_reference(ctx, &call, data, indices, output);
}

static clg_status call_host(clg_context *ctx, const bench_workload *w,
                            const clg_tensor *data, const clg_tensor *indices,
                            const clg_tensor *output, clg_oob_mode oob)
{
    clg_call call = bench_call_of(w, oob);
    return clg_run(ctx, &call, data, indices, output);
}

/* A failure that means "this size does not fit", not a broken device. */
static int does_not_fit(const clg_context *ctx, clg_status st)
{
    return st == CLG_STATUS_TENSOR_TOO_LARGE ||
           st == CLG_STATUS_OUT_OF_MEMORY ||
           (st == CLG_STATUS_OPENCL_ERROR &&
            is_allocation_error(clg_context_last_cl_error(ctx)));
}

/* The slots of bench_run.held: the host memory under each device buffer. */
enum {
    HELD_DATA,
    HELD_INDICES,
    HELD_OUTPUT,
    HELD_COPY_SRC,
    HELD_COPY_DST,
    BENCH_HELD
};

/* One workload at one scale while it is measured: the host tensors (page
 * aligned, so devices sharing host memory use them in place), the copy
 * buffers (device and host), the device-resident tensors and where the
 * figures go. Every handle starts NULL; run_release frees those that are
 * not. */
typedef struct bench_run {
    clg_context *ctx;
    const bench_cl *b;
    const bench_options *opt;
    bench_result *r;
    size_t pos, total;  /* the progress line's "[pos/total]" */
    uint64_t copy_half; /* bytes of each copy buffer: copy_bytes / 2 */
    size_t variant;     /* the copy variant being timed */
    int stripes;        /* the read kernel in stripes (phase_read) */
    clg_tensor data, indices, output, expected;
    cl_mem copy_src, copy_dst;
    void *host_src, *host_dst;
    clg_cl_tensor ddata, dindices, doutput;
    /* The host memory under the buffers (--buffers host), by HELD_ slot. */
    void *held[BENCH_HELD];
    cl_mem hit;          /* the read kernel's slot */
    cl_mem read_src;     /* what it reads: read_wrap or dindices' buffer */
    cl_mem read_wrap;    /* the host indices in place, if shared */
    uint64_t read_bytes; /* the index bytes it reads: a multiple of 64 */
    cl_uint pattern;     /* a word the indices do not hold */
} bench_run;

/* 1 when the run must stop: an error, or r->skipped says why it cannot
 * go on (the run is then not measured, which is not an error). */
static int stopped(int rc, const bench_result *r)
{
    return rc != CLG_EXIT_OK || r->skipped[0] != '\0';
}

/* The device-buffer API takes one buffer per tensor: note the first
 * tensor larger than the largest buffer, if any. */
static void note_oversized(bench_result *r, uint64_t max_alloc)
{
    const char *names[3] = {"data", "indices", "output"};
    const uint64_t sizes[3] = {r->data_bytes, r->index_bytes, r->out_bytes};
    r->has_kernel = 1;
    for (int i = 0; i < 3 && r->has_kernel; i++)
        if (sizes[i] > max_alloc) {
            snprintf(r->note, sizeof r->note,
                     "device-buffer figures skipped: the %s tensor of "
                     "%.0f MiB exceeds the largest buffer, %.0f MiB",
                     names[i], (double)sizes[i] / 1048576.0,
                     (double)max_alloc / 1048576.0);
            r->has_kernel = 0;
        }
}

/* Whether every component of a GatherND tuple addresses a data dim of
 * the same size (the workload's attribute is batch_dims). */
static int one_range(const bench_result *r)
{
    const size_t b = (size_t)r->w->axis;
    const int64_t k = r->index_shape[r->w->index_rank - 1];
    for (int64_t i = 1; i < k; i++)
        if (r->data_shape[b + (size_t)i] != r->data_shape[b])
            return 0;
    return 1;
}

/* Whether the host-memory call checks its indices before its first
 * launch (clg_check_indices): under raise, in place, always (which check
 * runs is what clg_check_indices reports when timed); copied, only a call
 * split into pieces. The other modes never check. */
static bench_check_kind check_kind(const clg_context *ctx, bench_result *r,
                                   clg_oob_mode oob)
{
    if (oob != CLG_OOB_RAISE)
        return BENCH_CHECK_NONE;
    /* clg_check_indices takes one range; a GatherND tuple has one per
     * component, which is one range where every component addresses a dim
     * of the same size (the call then checks as clg_check_indices does);
     * otherwise its check stays inside end_to_end_ms, untimed alone. */
    if (r->w->op == CLG_OP_GATHER_ND && !one_range(r)) {
        if (!r->note[0])
            snprintf(r->note, sizeof r->note,
                     "check_ms not measured: the tuples' components "
                     "address dims of different sizes (a range each), a "
                     "check timed only within end_to_end_ms");
        return BENCH_CHECK_NONE;
    }
    if (clg_context_uses_host_memory(ctx))
        return BENCH_CHECK_HOST;
    return r->has_kernel ? BENCH_CHECK_NONE : BENCH_CHECK_HOST;
}

/* Sizes of the run: shapes, bytes, copy_bytes, whether the device
 * buffers can hold the tensors and which check the host call runs. */
static int run_plan(bench_run *run, size_t wi, double scale)
{
    bench_result *r = run->r;
    const uint64_t max_alloc = clg_context_max_alloc_size(run->ctx);
    clg_status st;

    memset(r, 0, sizeof *r);
    r->w = &bench_workloads[wi];
    r->scale = scale;
    st = bench_workload_size(r->w, scale, r);
    if (st == CLG_STATUS_TENSOR_TOO_LARGE) {
        /* A --scale past what a tensor can address: skipped, as one too
         * large for the host. */
        snprintf(r->skipped, sizeof r->skipped,
                 "the tensors at this scale have more elements than a "
                 "tensor may have");
        return CLG_EXIT_OK;
    }
    if (st != CLG_STATUS_OK)
        return library_failed(run->ctx, st, r, "output shape");
    run->copy_half = r->bytes / 128 * 64;
    if (run->copy_half > max_alloc)
        run->copy_half = max_alloc / 64 * 64;
    if (run->copy_half == 0)
        run->copy_half = 64;
    r->copy_bytes = 2 * run->copy_half;
    note_oversized(r, max_alloc);
    r->check_kind = check_kind(run->ctx, r, run->opt->oob);
    return CLG_EXIT_OK;
}

/* The host tensors: inputs made from the seed, the expected output from
 * the CPU reference, the output buffer touched once. */
static int run_host_inputs(bench_run *run, size_t wi)
{
    bench_result *r = run->r;
    const bench_workload *w = r->w;
    clg_status st;

    progress(1, "[%zu/%zu] %s x%g: preparing inputs", run->pos, run->total,
             w->name, r->scale);
    /* The host tensors, the copy buffers and, on a CPU device, the device
     * buffers' own memory and the library's temporaries: up to 3.5 times
     * the tensors measured (small x1e5), so 4 are asked for. Allocation
     * alone would succeed (overcommit) and the first touch would meet the
     * OOM killer. */
    uint64_t tensors = r->data_bytes + r->index_bytes + 2 * r->out_bytes;
    uint64_t avail = host_bytes_available();
    if (tensors > avail / 4) {
        snprintf(r->skipped, sizeof r->skipped,
                 "needs about %.0f MiB of host memory for %.0f MiB of "
                 "tensors; %.0f MiB are available",
                 4.0 * (double)tensors / 1048576.0,
                 (double)tensors / 1048576.0, (double)avail / 1048576.0);
        return CLG_EXIT_OK;
    }
    run->data = (clg_tensor){w->data_dtype, w->data_rank, r->data_shape,
                             page_alloc(r->data_bytes)};
    run->indices = (clg_tensor){w->index_dtype, w->index_rank, r->index_shape,
                                page_alloc(r->index_bytes)};
    run->output = (clg_tensor){w->data_dtype, r->out_rank, r->out_shape,
                               page_alloc(r->out_bytes)};
    run->expected = (clg_tensor){w->data_dtype, r->out_rank, r->out_shape,
                                 page_alloc(r->out_bytes)};
    if (!run->data.data || !run->indices.data || !run->output.data ||
        !run->expected.data) {
        snprintf(r->skipped, sizeof r->skipped,
                 "host memory for %.0f MiB of tensors could not be allocated",
                 (double)(r->data_bytes + r->index_bytes + 2 * r->out_bytes) /
                     1048576.0);
        return CLG_EXIT_OK;
    }
    bench_fill_inputs(wi, run->opt->seed, r, run->data.data,
                      run->indices.data);
    memset(run->output.data, 0, (size_t)r->out_bytes); /* every page once */
    st = bench_call_reference(run->ctx, w, &run->data, &run->indices,
                              &run->expected, run->opt->oob);
    if (st != CLG_STATUS_OK)
        return library_failed(run->ctx, st, r, "CPU reference");
    return CLG_EXIT_OK;
}

int bench_host_buffers(const bench_options *opt, const clg_context *ctx)
{
    return opt->buffers == BENCH_BUFFERS_HOST ||
           (opt->buffers == BENCH_BUFFERS_AUTO &&
            clg_context_uses_host_memory(ctx));
}

/* A device buffer of `bytes`, holding a copy of `init` when not NULL.
 * Under --buffers host its memory is page_alloc's, as NumPy's arrays
 * (touched here, so that no figure counts its first page faults), kept
 * in run->held[slot] until run_release; otherwise the runtime's. */
static cl_mem device_buffer(bench_run *run, int slot, cl_mem_flags flags,
                            uint64_t bytes, const void *init, cl_int *err)
{
    if (!bench_host_buffers(run->opt, run->ctx))
        return clCreateBuffer(run->b->context,
                              flags | (init ? CL_MEM_COPY_HOST_PTR : 0),
                              (size_t)bytes, (void *)init, err);
    run->held[slot] = page_alloc(bytes);
    if (!run->held[slot]) {
        *err = CL_OUT_OF_HOST_MEMORY;
        return NULL;
    }
    if (init)
        memcpy(run->held[slot], init, (size_t)bytes);
    else
        memset(run->held[slot], 0, (size_t)bytes);
    return clCreateBuffer(run->b->context, flags | CL_MEM_USE_HOST_PTR,
                          (size_t)bytes, run->held[slot], err);
}

/* The copy buffers, filled so that every page exists before timing (an
 * untouched source could read one shared zero page on a CPU device and
 * look faster than memory); each destination is filled with other bytes
 * before it is written, so that a copy can be checked. */
static int run_copy_buffers(bench_run *run)
{
    const bench_cl *b = run->b;
    const size_t size = (size_t)run->copy_half;
    const cl_uint pattern = 0x5a5aa5a5u;
    const char *what = "clCreateBuffer(copy)";
    cl_int err;

    run->copy_src = device_buffer(run, HELD_COPY_SRC, CL_MEM_READ_WRITE,
                                  run->copy_half, NULL, &err);
    if (err == CL_SUCCESS)
        run->copy_dst = device_buffer(run, HELD_COPY_DST, CL_MEM_READ_WRITE,
                                      run->copy_half, NULL, &err);
    if (err == CL_SUCCESS) {
        what = "clEnqueueFillBuffer(copy)";
        err = clEnqueueFillBuffer(b->queue, run->copy_src, &pattern,
                                  sizeof pattern, 0, size, 0, NULL, NULL);
    }
    if (err == CL_SUCCESS)
        err = clFinish(b->queue);
    if (err != CL_SUCCESS && !is_allocation_error(err))
        return bench_cl_failed(err, what);
    if (err == CL_SUCCESS) {
        run->host_src = page_alloc(run->copy_half);
        run->host_dst = page_alloc(run->copy_half);
        if (run->host_src && run->host_dst) {
            memset(run->host_src, 0x5a, size);
            memset(run->host_dst, 0xa5, size);
            return CLG_EXIT_OK;
        }
        what = "host memory";
    }
    snprintf(run->r->skipped, sizeof run->r->skipped,
             "the copy buffers could not be allocated (%s: %s)", what,
             err == CL_SUCCESS ? "out of memory" : clg_cl_error_name(err));
    return CLG_EXIT_OK;
}

/* The operator's tensors in device buffers, the inputs uploaded once. A
 * device that cannot allocate them loses the device-buffer figures. */
static int run_device_tensors(bench_run *run)
{
    bench_result *r = run->r;
    const bench_workload *w = r->w;
    cl_int err = CL_SUCCESS;

    run->ddata = (clg_cl_tensor){w->data_dtype, w->data_rank, r->data_shape,
                                 NULL};
    run->dindices = (clg_cl_tensor){w->index_dtype, w->index_rank,
                                    r->index_shape, NULL};
    run->doutput = (clg_cl_tensor){w->data_dtype, r->out_rank, r->out_shape,
                                   NULL};
    if (!r->has_kernel)
        return CLG_EXIT_OK;
    run->ddata.buffer = device_buffer(run, HELD_DATA, CL_MEM_READ_ONLY,
                                      r->data_bytes, run->data.data, &err);
    if (err == CL_SUCCESS)
        run->dindices.buffer = device_buffer(run, HELD_INDICES,
                                             CL_MEM_READ_ONLY, r->index_bytes,
                                             run->indices.data, &err);
    if (err == CL_SUCCESS)
        run->doutput.buffer = device_buffer(run, HELD_OUTPUT,
                                            CL_MEM_READ_WRITE, r->out_bytes,
                                            NULL, &err);
    if (err == CL_SUCCESS)
        return CLG_EXIT_OK;
    if (!is_allocation_error(err))
        return bench_cl_failed(err, "clCreateBuffer(operator tensors)");
    snprintf(r->note, sizeof r->note,
             "device-buffer figures skipped: the device could not "
             "allocate the tensors (%s)",
             clg_cl_error_name(err));
    r->has_kernel = 0;
    return CLG_EXIT_OK;
}

/* One timed call of a figure: an exit status; *t < 0 when the figure is
 * dropped (r->note or r->skipped says why), which ends its series. */
typedef int (*timed_call)(bench_run *run, double *t);

/* One warm-up call of fn, then `rounds` calls back to back; the best
 * into *best (INFINITY when none was kept). */
static int best_of(bench_run *run, const char *what, int rounds, timed_call fn,
                   double *best)
{
    const bench_result *r = run->r;
    int rc = CLG_EXIT_OK;
    *best = INFINITY;
    for (int round = -1; round < rounds; round++) {
        double t = 0;
        progress(0, "[%zu/%zu] %s x%g: %s, %s %d/%d", run->pos, run->total,
                 r->w->name, r->scale, what, round < 0 ? "warm-up" : "round",
                 round < 0 ? 0 : round + 1, rounds);
        if ((rc = fn(run, &t)) != CLG_EXIT_OK || t < 0)
            break;
        if (round >= 0 && t < *best)
            *best = t;
    }
    return rc;
}

static int timed_copy(bench_run *run, double *t)
{
    cl_int err = bench_time_copy(run->b, run->variant, run->copy_src,
                                 run->copy_dst, run->copy_half, t);
    return err == CL_SUCCESS ? CLG_EXIT_OK
                             : bench_cl_failed(err, "the copy kernel");
}

/* A copy that does not copy measures nothing: the destination of the
 * variant just timed must equal its source. */
static int copy_check(bench_run *run)
{
    const bench_cl *b = run->b;
    const size_t size = (size_t)run->copy_half;
    void *src = NULL, *dst = NULL;
    cl_int err;
    int same;

    src = clEnqueueMapBuffer(b->queue, run->copy_src, CL_TRUE, CL_MAP_READ, 0,
                             size, 0, NULL, NULL, &err);
    if (src)
        dst = clEnqueueMapBuffer(b->queue, run->copy_dst, CL_TRUE, CL_MAP_READ,
                                 0, size, 0, NULL, NULL, &err);
    same = src && dst && memcmp(src, dst, size) == 0;
    if (src)
        clEnqueueUnmapMemObject(b->queue, run->copy_src, src, 0, NULL, NULL);
    if (dst)
        clEnqueueUnmapMemObject(b->queue, run->copy_dst, dst, 0, NULL, NULL);
    if (clFinish(b->queue) != CL_SUCCESS || !src || !dst)
        return bench_cl_failed(err, "clEnqueueMapBuffer(copy)");
    if (same)
        return CLG_EXIT_OK;
    bench_progress_clear();
    fprintf(stderr,
            "clgather bench: %s (scale %g): WRONG RESULT from copy "
            "kernel %s\n",
            run->r->w->name, run->r->scale, b->copy[run->variant].name);
    return CLG_EXIT_DIFFER;
}

/* Every copy variant in turn, its destination reset first, timed and
 * checked; the fastest is the copy figure. */
static int phase_copy(bench_run *run)
{
    const bench_cl *b = run->b;
    bench_result *r = run->r;
    const cl_uint pattern = 0xa5a55a5au;
    int rc = CLG_EXIT_OK;

    r->copy_s = INFINITY;
    for (size_t v = 0; v < b->copy_count && rc == CLG_EXIT_OK; v++) {
        cl_int err = clEnqueueFillBuffer(b->queue, run->copy_dst, &pattern,
                                         sizeof pattern, 0,
                                         (size_t)run->copy_half, 0, NULL,
                                         NULL);
        if (err == CL_SUCCESS)
            err = clFinish(b->queue);
        if (err != CL_SUCCESS)
            return bench_cl_failed(err, "clEnqueueFillBuffer(copy)");
        run->variant = v;
        rc = best_of(run, b->copy[v].name, run->opt->repeat, timed_copy,
                     &r->copy_variant_s[v]);
        if (rc == CLG_EXIT_OK)
            rc = copy_check(run);
        if (r->copy_variant_s[v] < r->copy_s) {
            r->copy_s = r->copy_variant_s[v];
            r->copy_best = v;
        }
    }
    return rc;
}

/* A 32-bit word that none of the first `bytes` of `p` holds: the read
 * kernel's pattern, which no work-item then matches. */
static cl_uint absent_word(const unsigned char *p, uint64_t bytes)
{
    for (cl_uint cand = 0x9e3779b9u;; cand += 0x61c88647u) {
        int found = 0;
        for (uint64_t o = 0; o + 4 <= bytes && !found; o += 4) {
            cl_uint w;
            memcpy(&w, p + o, sizeof w);
            found = w == cand;
        }
        if (!found)
            return cand;
    }
}

static int timed_read(bench_run *run, double *t)
{
    cl_int err = bench_time_read(run->b, run->variant, run->stripes,
                                 run->read_src, run->hit, run->read_bytes,
                                 run->pattern, t);
    return err == CL_SUCCESS ? CLG_EXIT_OK
                             : bench_cl_failed(err, "the read kernel");
}

/* The slot's value, then reset to 0. */
static cl_int take_hit(const bench_cl *b, cl_mem hit, cl_int *value)
{
    const cl_int zero = 0;
    cl_int err = clEnqueueReadBuffer(b->queue, hit, CL_TRUE, 0, sizeof *value,
                                     value, 0, NULL, NULL);
    if (err == CL_SUCCESS)
        err = clEnqueueWriteBuffer(b->queue, hit, CL_TRUE, 0, sizeof zero,
                                   &zero, 0, NULL, NULL);
    return err;
}

/* Every read kernel over the index bytes, where the host-memory call runs
 * the check kernel: the same host memory, wrapped in place as the check
 * wraps it (else the device buffer). Timed with a pattern no word holds
 * (the slot must stay 0), then once with the first word's (it must be
 * raised), so that a kernel that reads nothing measures nothing. */
static int phase_read(bench_run *run)
{
    const bench_cl *b = run->b;
    bench_result *r = run->r;
    const cl_int zero = 0;
    cl_int err = CL_SUCCESS, hit = 0;
    int rc = CLG_EXIT_OK;

    r->read_s = INFINITY;
    run->hit = clCreateBuffer(b->context,
                              CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                              sizeof zero, (void *)&zero, &err);
    if (!run->hit)
        return bench_cl_failed(err, "clCreateBuffer(read slot)");
    run->read_bytes = r->index_bytes / 64 * 64;
    run->pattern = absent_word(run->indices.data, run->read_bytes);
    run->read_src = run->dindices.buffer;
    if (clg_context_uses_host_memory(run->ctx)) {
        run->read_wrap =
            clCreateBuffer(b->context, CL_MEM_READ_ONLY | CL_MEM_USE_HOST_PTR,
                           (size_t)run->read_bytes, run->indices.data, &err);
        if (!run->read_wrap)
            return bench_cl_failed(err, "clCreateBuffer(indices in place)");
        run->read_src = run->read_wrap;
    }
    for (size_t i = 0; i < 2 * b->copy_count && rc == CLG_EXIT_OK; i++) {
        const size_t v = i / 2;
        double best = INFINITY, t;
        if (!b->copy[v].read)
            continue;
        run->variant = v;
        run->stripes = (int)(i % 2);
        rc = best_of(run, "read kernel", run->opt->repeat, timed_read, &best);
        if (rc == CLG_EXIT_OK && (err = take_hit(b, run->hit, &hit)) != 0)
            rc = bench_cl_failed(err, "reading the read kernel's slot");
        if (rc == CLG_EXIT_OK && hit == 0) {
            const cl_uint first = *(const cl_uint *)run->indices.data;
            err = bench_time_read(b, v, run->stripes, run->read_src, run->hit,
                                  run->read_bytes, first, &t);
            if (err == CL_SUCCESS)
                err = take_hit(b, run->hit, &hit);
            if (err != CL_SUCCESS)
                rc = bench_cl_failed(err, "the read kernel");
            else if (hit != 1)
                hit = 2;
            else
                hit = 0;
        }
        if (rc == CLG_EXIT_OK && hit != 0) {
            bench_progress_clear();
            fprintf(stderr,
                    "clgather bench: %s (scale %g): WRONG RESULT from read "
                    "kernel %s%s\n",
                    r->w->name, r->scale, b->copy[v].name,
                    run->stripes ? "-stripes" : "");
            rc = CLG_EXIT_DIFFER;
        }
        if (best < r->read_s) {
            r->read_s = best;
            r->read_best = v;
            r->read_best_stripes = run->stripes;
        }
    }
    return rc;
}

static int timed_host_copy(bench_run *run, double *t)
{
    int e = bench_time_host_copy(run->b, run->host_dst, run->host_src,
                                 run->copy_half, t);
    if (e == 0)
        return CLG_EXIT_OK;
    fprintf(stderr, "clgather bench: starting a host copy thread failed: %s\n",
            strerror(e));
    return CLG_EXIT_ERROR;
}

/* The index check of the host-memory call: the library's own
 * (clg_check_indices), which says which check it ran. The inputs are
 * valid, so a bad index found is a bug of the bench. */
static int timed_check(bench_run *run, double *t)
{
    bench_result *r = run->r;
    const bench_workload *w = r->w;
    const size_t axis = (size_t)(w->axis < 0 ? (int64_t)w->data_rank + w->axis
                                             : w->axis);
    const clg_tensor indices = {w->index_dtype, w->index_rank, r->index_shape,
                                run->indices.data};
    clg_index_check ran = CLG_INDEX_CHECK_NONE;
    double t0 = now_s();
    clg_status st = clg_check_indices(run->ctx, &indices, axis,
                                      r->data_shape[axis], &ran);
    *t = now_s() - t0;
    r->check_kind = ran == CLG_INDEX_CHECK_DEVICE ? BENCH_CHECK_DEVICE
                                                  : BENCH_CHECK_HOST;
    if (st == CLG_STATUS_OK)
        return CLG_EXIT_OK;
    bench_progress_clear();
    fprintf(stderr,
            "clgather bench: %s (scale %g): the %s failed among valid "
            "indices: %s\n",
            w->name, r->scale, bench_check_name(r->check_kind),
            clg_context_last_error(run->ctx));
    return st == CLG_STATUS_INDEX_OUT_OF_RANGE ? CLG_EXIT_DIFFER
                                               : CLG_EXIT_ERROR;
}

/* A device-buffer call. A size the device cannot take drops the
 * device-buffer figures with a note; any other failure ends the run. */
static int timed_device(bench_run *run, double *t)
{
    bench_result *r = run->r;
    double t0 = now_s();
    clg_status st = bench_call_cl(run->ctx, r->w, &run->ddata, &run->dindices,
                                  &run->doutput, run->opt->oob);
    *t = now_s() - t0;
    if (st != CLG_STATUS_OK && does_not_fit(run->ctx, st)) {
        snprintf(r->note, sizeof r->note, "device-buffer figures skipped: %s",
                 clg_context_last_error(run->ctx));
        r->has_kernel = 0;
        *t = -1;
    } else if (st != CLG_STATUS_OK) {
        return library_failed(run->ctx, st, r, "device-buffer call");
    }
    return CLG_EXIT_OK;
}

/* A host-memory call. A size that does not fit skips the workload. */
static int timed_host(bench_run *run, double *t)
{
    bench_result *r = run->r;
    double t0 = now_s();
    clg_status st = call_host(run->ctx, r->w, &run->data, &run->indices,
                              &run->output, run->opt->oob);
    *t = now_s() - t0;
    if (st == CLG_STATUS_OK)
        r->host_path = clg_context_last_path(run->ctx);
    if (st != CLG_STATUS_OK && does_not_fit(run->ctx, st)) {
        snprintf(r->skipped, sizeof r->skipped, "host-memory call: %s",
                 clg_context_last_error(run->ctx));
        *t = -1;
    } else if (st != CLG_STATUS_OK) {
        return library_failed(run->ctx, st, r, "host-memory call");
    }
    return CLG_EXIT_OK;
}

static int timed_launch(bench_run *run, double *t)
{
    cl_int err = time_launch(run->b, t);
    return err == CL_SUCCESS ? CLG_EXIT_OK
                             : bench_cl_failed(err, "the empty kernel");
}

static clg_status enqueue_cl(clg_context *ctx, const bench_workload *w,
                             const bench_run *run)
{
    clg_call call = bench_call_of(w, run->opt->oob);
    return clg_enqueue(ctx, NULL, &call, &run->ddata, &run->dindices,
                       &run->doutput, 0, NULL, NULL);
}

/* One enqueue, host time only; the finish after it is not timed. */
static int timed_enqueue(bench_run *run, double *t)
{
    double t0 = now_s();
    clg_status st = enqueue_cl(run->ctx, run->r->w, run);
    *t = now_s() - t0;
    if (st == CLG_STATUS_OK)
        st = clg_context_finish(run->ctx);
    return st == CLG_STATUS_OK
               ? CLG_EXIT_OK
               : library_failed(run->ctx, st, run->r, "enqueue");
}

/* BENCH_PIPELINE enqueues and one finish; *t per operation. */
static int timed_pipelined(bench_run *run, double *t)
{
    clg_status st = CLG_STATUS_OK;
    double t0 = now_s();
    for (int i = 0; i < BENCH_PIPELINE && st == CLG_STATUS_OK; i++)
        st = enqueue_cl(run->ctx, run->r->w, run);
    if (st == CLG_STATUS_OK)
        st = clg_context_finish(run->ctx);
    *t = (now_s() - t0) / BENCH_PIPELINE;
    return st == CLG_STATUS_OK
               ? CLG_EXIT_OK
               : library_failed(run->ctx, st, run->r, "pipelined enqueue");
}

/* BENCH_PIPELINE launches of `k` and one clFinish; *t per launch. */
static cl_int launch_pipelined(const bench_cl *b, cl_kernel k, double *t)
{
    size_t one = 1;
    cl_int err = CL_SUCCESS;
    double t0 = now_s();
    for (int i = 0; i < BENCH_PIPELINE && err == CL_SUCCESS; i++)
        err = clEnqueueNDRangeKernel(b->queue, k, 1, NULL, &one, &one, 0, NULL,
                                     NULL);
    if (err == CL_SUCCESS)
        err = clFinish(b->queue);
    *t = (now_s() - t0) / BENCH_PIPELINE;
    return err;
}

static int timed_launch_pipelined(bench_run *run, double *t)
{
    cl_int err = launch_pipelined(run->b, run->b->empty, t);
    return err == CL_SUCCESS ? CLG_EXIT_OK
                             : bench_cl_failed(err, "the empty kernel");
}

/* An empty kernel with the Gather kernels' arguments: the operation's
 * own buffers (the output's as a stand-in for the error slot), then the
 * ten scalars as `scalars` arguments of a cl_ulong, or as one of ten. */
static cl_int args_pipelined(const bench_run *run, cl_kernel k,
                             cl_uint scalars, double *t)
{
    cl_mem bufs[4] = {run->ddata.buffer, run->dindices.buffer,
                      run->doutput.buffer, run->doutput.buffer};
    cl_ulong zero[10] = {0};
    size_t size = scalars == 1 ? sizeof zero : sizeof zero[0];
    cl_int err = CL_SUCCESS;
    for (cl_uint a = 0; a < 4 + scalars && err == CL_SUCCESS; a++)
        err = a < 4 ? clSetKernelArg(k, a, sizeof(cl_mem), &bufs[a])
                    : clSetKernelArg(k, a, size, zero);
    if (err == CL_SUCCESS)
        err = launch_pipelined(run->b, k, t);
    return err;
}

static int timed_args_pipelined(bench_run *run, double *t)
{
    cl_int err = args_pipelined(run, run->b->empty_args, 10, t);
    return err == CL_SUCCESS
               ? CLG_EXIT_OK
               : bench_cl_failed(err, "the empty kernel with arguments");
}

static int timed_shape_pipelined(bench_run *run, double *t)
{
    cl_int err = args_pipelined(run, run->b->empty_shape, 1, t);
    return err == CL_SUCCESS
               ? CLG_EXIT_OK
               : bench_cl_failed(err, "the empty kernel with a struct");
}

/* enqueue_us, pipelined_us and launch_pipelined_us, on device buffers. */
static int run_pipeline(bench_run *run, int rounds)
{
    bench_result *r = run->r;
    int rc = CLG_EXIT_OK;
    if (!r->has_kernel)
        return CLG_EXIT_OK;
    r->has_pipeline = 1;
    rc = best_of(run, "enqueue", rounds, timed_enqueue, &r->enqueue_s);
    if (!stopped(rc, r))
        rc = best_of(run, "pipelined launches", run->opt->repeat,
                     timed_launch_pipelined, &r->launch_pipelined_s);
    if (!stopped(rc, r))
        rc = best_of(run, "pipelined launches with arguments",
                     run->opt->repeat, timed_args_pipelined,
                     &r->args_pipelined_s);
    if (!stopped(rc, r))
        rc = best_of(run, "pipelined launches with a struct", run->opt->repeat,
                     timed_shape_pipelined, &r->shape_pipelined_s);
    if (!stopped(rc, r))
        rc = best_of(run, "pipelined enqueues", run->opt->repeat,
                     timed_pipelined, &r->pipelined_s);
    return rc;
}

/* Each figure in turn, each the best of its back-to-back calls: the
 * copies, the check pass, the device-buffer and the host-memory call. */
static int run_rounds(bench_run *run)
{
    bench_result *r = run->r;
    const int repeat = run->opt->repeat;
    int rc = phase_copy(run);

    if (!stopped(rc, r))
        rc = best_of(run, "host copy", repeat, timed_host_copy,
                     &r->host_copy_s);
    if (!stopped(rc, r) &&
        memcmp(run->host_dst, run->host_src, (size_t)run->copy_half) != 0) {
        fprintf(stderr, "clgather bench: the host copy did not copy\n");
        rc = CLG_EXIT_DIFFER;
    }
    r->check_s = INFINITY;
    if (!stopped(rc, r) && r->check_kind != BENCH_CHECK_NONE)
        rc = best_of(run, "check pass", repeat, timed_check, &r->check_s);
    r->read_s = INFINITY;
    if (!stopped(rc, r) && r->check_kind == BENCH_CHECK_DEVICE &&
        r->has_kernel && r->index_bytes >= 64)
        rc = phase_read(run);
    if (!stopped(rc, r) && r->has_kernel)
        rc = best_of(run, "device-buffer call", repeat, timed_device,
                     &r->kernel_s);
    if (!stopped(rc, r))
        rc = best_of(run, "host-memory call", repeat, timed_host, &r->e2e_s);
    return rc;
}

/* For `micro` workloads: launch_us (an empty kernel, enqueue + clFinish)
 * and call_us (a host-memory call), each the best of its series. */
static int run_micro(bench_run *run)
{
    bench_result *r = run->r;
    const int rounds = run->opt->repeat * 20 > BENCH_MICRO_MIN_ROUNDS
                           ? run->opt->repeat * 20
                           : BENCH_MICRO_MIN_ROUNDS;
    int rc;
    if (!r->w->micro)
        return CLG_EXIT_OK;
    if (r->data_bytes + r->index_bytes + r->out_bytes >
        BENCH_MICRO_MAX_BYTES) {
        snprintf(r->note, sizeof r->note,
                 "per-call figures are measured up to %llu KiB of tensors",
                 (unsigned long long)(BENCH_MICRO_MAX_BYTES / 1024));
        return CLG_EXIT_OK;
    }
    r->has_micro = 1;
    progress(1, "[%zu/%zu] %s x%g: %d launches, then %d calls", run->pos,
             run->total, r->w->name, r->scale, rounds, rounds);
    rc = best_of(run, "launch", rounds, timed_launch, &r->launch_s);
    if (!stopped(rc, r))
        rc = best_of(run, "call", rounds, timed_host, &r->call_s);
    if (!stopped(rc, r))
        rc = run_pipeline(run, rounds);
    return rc;
}

/* A fast wrong answer is worthless: both paths against the reference.
 * The host output buffer is reused to read the device result back. */
static int run_check(bench_run *run)
{
    bench_result *r = run->r;
    const size_t elem = clg_dtype_size(r->w->data_dtype);
    cl_int err;

    progress(0, "[%zu/%zu] %s x%g: checking", run->pos, run->total, r->w->name,
             r->scale);
    if (!check_equal(r, "host-memory call", run->output.data,
                     run->expected.data, elem))
        return CLG_EXIT_DIFFER;
    if (!r->has_kernel)
        return CLG_EXIT_OK;
    err = clEnqueueReadBuffer(run->b->queue, run->doutput.buffer, CL_TRUE, 0,
                              (size_t)r->out_bytes, run->output.data, 0, NULL,
                              NULL);
    if (err != CL_SUCCESS)
        return bench_cl_failed(err, "clEnqueueReadBuffer(output)");
    if (!check_equal(r, "device-buffer call", run->output.data,
                     run->expected.data, elem))
        return CLG_EXIT_DIFFER;
    return CLG_EXIT_OK;
}

static void release_mem(cl_mem m)
{
    if (m)
        clReleaseMemObject(m);
}

static void run_release(bench_run *run)
{
    release_mem(run->ddata.buffer);
    release_mem(run->dindices.buffer);
    release_mem(run->doutput.buffer);
    release_mem(run->copy_src);
    release_mem(run->copy_dst);
    release_mem(run->hit);
    release_mem(run->read_wrap);
    for (size_t i = 0; i < sizeof run->held / sizeof run->held[0]; i++)
        free(run->held[i]);
    free(run->host_src);
    free(run->host_dst);
    free(run->data.data);
    free(run->indices.data);
    free(run->output.data);
    free(run->expected.data);
}

/* Measures one workload at one scale into *r. Returns an exit status.
 * What does not fit is not an error: r->skipped says why nothing was
 * measured, r->note why the device-buffer figures were not (a tensor
 * larger than one buffer: the host-memory API splits it, the device-buffer
 * API cannot). Each step runs while the run has not stopped. */
int bench_run_workload(clg_context *ctx, const bench_cl *b,
                       const bench_options *opt, size_t wi, double scale,
                       size_t pos, size_t total, bench_result *r)
{
    bench_run run;
    int rc;

    memset(&run, 0, sizeof run);
    run.ctx = ctx;
    run.b = b;
    run.opt = opt;
    run.r = r;
    run.pos = pos;
    run.total = total;
    rc = run_plan(&run, wi, scale);
    if (!stopped(rc, r))
        rc = run_host_inputs(&run, wi);
    if (!stopped(rc, r))
        rc = run_copy_buffers(&run);
    if (!stopped(rc, r))
        rc = run_device_tensors(&run);
    if (!stopped(rc, r))
        rc = run_rounds(&run);
    if (!stopped(rc, r))
        rc = run_micro(&run);
    if (!stopped(rc, r))
        rc = run_check(&run);
    if (!stopped(rc, r))
        r->measured = 1;
    run_release(&run);
    return rc;
}
