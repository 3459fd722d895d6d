/*
 * `clgather bench`: the measurement. The copy kernel the figures are set
 * beside, the timing, and the run of one workload at one scale.
 *
 * For each workload (the names and shapes are a contract, see
 * bench_workloads.c) and each --scale:
 *   - the inputs are made once: data bytes and index values from
 *     splitmix64 seeded with the printed seed and the workload's position in
 *     the table; index values uniform in [-s, s-1], s = data.shape[axis];
 *   - the CPU reference computes the expected output once;
 *   - then, after one warm-up of each, `repeat` rounds each time, in this
 *     order, so that a noisy moment hits all three alike:
 *       copy    the copy kernel below over `copy_bytes` (enqueue + clFinish);
 *       kernel  clg_gather_cl / clg_gather_elements_cl on device buffers
 *               uploaded once (the call returns when the result is there);
 *       e2e     clg_gather / clg_gather_elements on host memory (4096-byte
 *               aligned, so devices sharing host memory use it in place);
 *     and each figure is the best (minimum) of its rounds;
 *   - for workloads marked `micro` (`small`), max(100, 20 x repeat) rounds
 *     of: a trivial kernel (global size 1) enqueued + clFinish (launch_us),
 *     then one host-memory call (call_us); both the best (minimum) of their
 *     rounds, like every other figure here;
 *   - finally the result of the last kernel-path call and of the last
 *     host-memory call are compared bit for bit with the CPU reference;
 *     a difference ends the run with exit status 1.
 *
 * bytes = data bytes read + indices bytes read + output bytes written,
 * where the data bytes read are counted as the output bytes (each output
 * element reads one data element, for both operators).
 * The copy kernel moves one 16-byte unit (uint4) per work-item from one
 * buffer to another, in work-groups of the size the library uses (4096 on
 * CPUs, 256 on GPUs, at most the kernel's limit); it reads copy_bytes/2 and
 * writes copy_bytes/2, with copy_bytes = bytes rounded down to whole 32-byte
 * pairs (at least one pair; each buffer at most the context's largest
 * buffer). So GB/s and copy GB/s count the same bytes.
 * GB/s are 1e9 bytes per second.
 *
 * --scale F multiplies one dimension per workload (see bench_workloads.c)
 * so that all traffic grows by F. When a tensor is larger than the
 * context's largest buffer, the device-buffer figures are skipped with a
 * note (that API takes one buffer per tensor) and the host-memory ones,
 * which the library splits, are still measured and checked.
 */
#include <math.h> /* INFINITY: a macro only, no libm */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <clgather/clgather.h>

#include "bench_internal.h"
#include "cli.h"

#define BENCH_MICRO_MIN_ROUNDS 100
#define BENCH_PAGE 4096

static double now_s(void)
{
    return clg_cli_now(); /* CLOCK_MONOTONIC */
}

static void *page_alloc(uint64_t bytes)
{
    void *p = NULL;
    size_t n = (size_t)((bytes + BENCH_PAGE - 1) / BENCH_PAGE * BENCH_PAGE);
    if (n == 0)
        n = BENCH_PAGE;
    if (posix_memalign(&p, BENCH_PAGE, n) != 0)
        return NULL;
    return p;
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

static const char bench_kernel_source[] =
    "__kernel void clg_bench_copy(__global const uint4 *restrict src,\n"
    "                             __global uint4 *restrict dst, ulong n)\n"
    "{\n"
    "    size_t i = get_global_id(0);\n"
    "    if (i < n)\n"
    "        dst[i] = src[i];\n"
    "}\n"
    "__kernel void clg_bench_empty(void)\n"
    "{\n"
    "}\n";

void bench_cl_release(bench_cl *b)
{
    if (b->copy)
        clReleaseKernel(b->copy);
    if (b->empty)
        clReleaseKernel(b->empty);
    if (b->program)
        clReleaseProgram(b->program);
    memset(b, 0, sizeof *b);
}

static int cl_failed(cl_int err, const char *what)
{
    fprintf(stderr, "clgather bench: %s failed: %s (%d)\n", what,
            clg_cl_error_name(err), (int)err);
    return CLG_EXIT_ERROR;
}

int bench_cl_init(bench_cl *b, const clg_context *ctx)
{
    cl_int err;
    const char *src = bench_kernel_source;
    size_t max_wg = 0;
    b->context = clg_context_cl_context(ctx);
    b->device = clg_context_cl_device(ctx);
    b->queue = clg_context_cl_queue(ctx);
    b->program = clCreateProgramWithSource(b->context, 1, &src, NULL, &err);
    if (!b->program)
        return cl_failed(err, "clCreateProgramWithSource(bench kernels)");
    err = clBuildProgram(b->program, 1, &b->device, "", NULL, NULL);
    if (err != CL_SUCCESS) {
        char log[4096] = "";
        clGetProgramBuildInfo(b->program, b->device, CL_PROGRAM_BUILD_LOG,
                              sizeof log - 1, log, NULL);
        fprintf(stderr, "clgather bench: building the copy kernel failed: "
                        "%s\n%s\n", clg_cl_error_name(err), log);
        return CLG_EXIT_ERROR;
    }
    b->copy = clCreateKernel(b->program, "clg_bench_copy", &err);
    if (!b->copy)
        return cl_failed(err, "clCreateKernel(clg_bench_copy)");
    b->empty = clCreateKernel(b->program, "clg_bench_empty", &err);
    if (!b->empty)
        return cl_failed(err, "clCreateKernel(clg_bench_empty)");
    /* The same work-group sizes the library picks: about 256 on GPUs,
     * large groups on CPUs (POCL runs a group as loops on one thread). */
    err = clGetKernelWorkGroupInfo(b->copy, b->device,
                                   CL_KERNEL_WORK_GROUP_SIZE, sizeof max_wg,
                                   &max_wg, NULL);
    if (err != CL_SUCCESS)
        return cl_failed(err, "clGetKernelWorkGroupInfo");
    b->copy_local = clg_context_device_type(ctx) == CLG_DEVICE_TYPE_GPU
                        ? 256
                        : 4096;
    if (b->copy_local > max_wg)
        b->copy_local = max_wg;
    if (b->copy_local == 0)
        b->copy_local = 1;
    return CLG_EXIT_OK;
}

/* Runs the copy kernel once over `units` 16-byte units; seconds to *t. */
static cl_int time_copy(const bench_cl *b, cl_mem src, cl_mem dst,
                        uint64_t units, double *t)
{
    cl_ulong n = (cl_ulong)units;
    size_t local = b->copy_local;
    size_t global = (size_t)((units + local - 1) / local * local);
    cl_int err = clSetKernelArg(b->copy, 0, sizeof src, &src);
    if (err == CL_SUCCESS)
        err = clSetKernelArg(b->copy, 1, sizeof dst, &dst);
    if (err == CL_SUCCESS)
        err = clSetKernelArg(b->copy, 2, sizeof n, &n);
    if (err != CL_SUCCESS)
        return err;
    double t0 = now_s();
    err = clEnqueueNDRangeKernel(b->queue, b->copy, 1, NULL, &global, &local,
                                 0, NULL, NULL);
    if (err == CL_SUCCESS)
        err = clFinish(b->queue);
    *t = now_s() - t0;
    return err;
}

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
    return CLG_EXIT_ERROR;
}

/* Calls the operator on device buffers or on host memory. */
static clg_status call_cl(clg_context *ctx, const bench_workload *w,
                          const clg_cl_tensor *data,
                          const clg_cl_tensor *indices,
                          const clg_cl_tensor *output)
{
    return w->op == BENCH_GATHER
               ? clg_gather_cl(ctx, data, indices, w->axis, output)
               : clg_gather_elements_cl(ctx, data, indices, w->axis, output);
}

static clg_status call_host(clg_context *ctx, const bench_workload *w,
                            const clg_tensor *data, const clg_tensor *indices,
                            const clg_tensor *output)
{
    return w->op == BENCH_GATHER
               ? clg_gather(ctx, data, indices, w->axis, output)
               : clg_gather_elements(ctx, data, indices, w->axis, output);
}

/* A failure that means "this size does not fit", not a broken device. */
static int does_not_fit(const clg_context *ctx, clg_status st)
{
    return st == CLG_STATUS_TENSOR_TOO_LARGE ||
           st == CLG_STATUS_OUT_OF_MEMORY ||
           (st == CLG_STATUS_OPENCL_ERROR &&
            is_allocation_error(clg_context_last_cl_error(ctx)));
}

/* Measures one workload at one scale into *r. Returns an exit status.
 * What does not fit is not an error: r->skipped says why nothing was
 * measured, r->note why the device-buffer figures were not (a tensor
 * larger than one buffer: the host-memory API splits it, the device-buffer
 * API cannot). */
int bench_run_workload(clg_context *ctx, const bench_cl *b,
                       const bench_options *opt, size_t wi, double scale,
                       size_t pos, size_t total, bench_result *r)
{
    const bench_workload *w = &bench_workloads[wi];
    int rc = CLG_EXIT_OK;
    clg_status st;
    cl_int err = CL_SUCCESS;
    void *host[4] = {NULL, NULL, NULL, NULL}; /* data, indices, out, ref */
    cl_mem dev[3] = {NULL, NULL, NULL};       /* data, indices, out */
    cl_mem copy_buf[2] = {NULL, NULL};
    const uint64_t max_alloc = clg_context_max_alloc_size(ctx);
    const size_t elem = clg_dtype_size(w->data_dtype);
    const size_t index_size = clg_dtype_size(w->index_dtype);
    int64_t data_count = 1, index_count = 1, out_count = 1;
    uint64_t copy_units;
    int micro_rounds;
    const char *names[3] = {"data", "indices", "output"};
    uint64_t sizes[3];

    memset(r, 0, sizeof *r);
    r->w = w;
    r->scale = scale;
    memcpy(r->data_shape, w->data_shape, sizeof r->data_shape);
    memcpy(r->index_shape, w->index_shape, sizeof r->index_shape);
    if (w->scale_data_dim >= 0)
        r->data_shape[w->scale_data_dim] =
            bench_scaled_dim(w->data_shape[w->scale_data_dim], scale);
    if (w->scale_index_dim >= 0)
        r->index_shape[w->scale_index_dim] =
            bench_scaled_dim(w->index_shape[w->scale_index_dim], scale);

    clg_tensor data = {w->data_dtype, w->data_rank, r->data_shape, NULL};
    clg_tensor indices = {w->index_dtype, w->index_rank, r->index_shape, NULL};
    st = w->op == BENCH_GATHER
             ? clg_gather_output_shape(&data, &indices, w->axis, r->out_shape,
                                       CLG_MAX_RANK, &r->out_rank)
             : clg_gather_elements_output_shape(&data, &indices, w->axis,
                                                r->out_shape, CLG_MAX_RANK,
                                                &r->out_rank);
    if (st != CLG_STATUS_OK)
        return library_failed(ctx, st, r, "output shape");
    for (size_t i = 0; i < w->data_rank; i++)
        data_count *= r->data_shape[i];
    for (size_t i = 0; i < w->index_rank; i++)
        index_count *= r->index_shape[i];
    for (size_t i = 0; i < r->out_rank; i++)
        out_count *= r->out_shape[i];
    r->data_bytes = (uint64_t)data_count * elem;
    r->index_bytes = (uint64_t)index_count * index_size;
    r->out_bytes = (uint64_t)out_count * elem;
    r->bytes = r->out_bytes + r->index_bytes + r->out_bytes;
    copy_units = r->bytes / 32;
    if (copy_units * 16 > max_alloc)
        copy_units = max_alloc / 16;
    if (copy_units == 0)
        copy_units = 1;
    r->copy_bytes = copy_units * 32;
    sizes[0] = r->data_bytes;
    sizes[1] = r->index_bytes;
    sizes[2] = r->out_bytes;
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

    progress(1, "[%zu/%zu] %s x%g: preparing inputs", pos, total, w->name,
             scale);
    host[0] = page_alloc(r->data_bytes);
    host[1] = page_alloc(r->index_bytes);
    host[2] = page_alloc(r->out_bytes);
    host[3] = page_alloc(r->out_bytes);
    if (!host[0] || !host[1] || !host[2] || !host[3]) {
        snprintf(r->skipped, sizeof r->skipped,
                 "host memory for %.0f MiB of tensors could not be allocated",
                 (double)(r->data_bytes + r->index_bytes + 2 * r->out_bytes) /
                     1048576.0);
        goto cleanup;
    }
    data.data = host[0];
    indices.data = host[1];
    clg_tensor output = {w->data_dtype, r->out_rank, r->out_shape, host[2]};
    clg_tensor expected = {w->data_dtype, r->out_rank, r->out_shape, host[3]};
    bench_fill_inputs(w, wi, opt->seed, &data, &indices, r->data_bytes,
                index_count);
    memset(host[2], 0, (size_t)r->out_bytes); /* touch every page once */
    st = w->op == BENCH_GATHER
             ? clg_reference_gather(ctx, &data, &indices, w->axis, &expected)
             : clg_reference_gather_elements(ctx, &data, &indices, w->axis,
                                              &expected);
    if (st != CLG_STATUS_OK) {
        rc = library_failed(ctx, st, r, "CPU reference");
        goto cleanup;
    }

    /* Copy-kernel buffers, filled so that every page exists before timing
     * (an untouched source could read one shared zero page on a CPU device
     * and look faster than memory). */
    {
        const cl_uint pattern = 0x5a5aa5a5u;
        const char *what = "clCreateBuffer(copy)";
        for (int i = 0; i < 2 && err == CL_SUCCESS; i++)
            copy_buf[i] = clCreateBuffer(b->context, CL_MEM_READ_WRITE,
                                         (size_t)(copy_units * 16), NULL,
                                         &err);
        if (err == CL_SUCCESS)
            what = "clEnqueueFillBuffer(copy)";
        for (int i = 0; i < 2 && err == CL_SUCCESS; i++)
            err = clEnqueueFillBuffer(b->queue, copy_buf[i], &pattern,
                                      sizeof pattern, 0,
                                      (size_t)(copy_units * 16), 0, NULL,
                                      NULL);
        if (err == CL_SUCCESS)
            err = clFinish(b->queue);
        if (err != CL_SUCCESS) {
            if (is_allocation_error(err))
                snprintf(r->skipped, sizeof r->skipped,
                         "the device could not allocate the copy buffers "
                         "(%s: %s)", what, clg_cl_error_name(err));
            else
                rc = cl_failed(err, what);
            goto cleanup;
        }
    }

    /* Device-resident operator tensors, uploaded once. */
    for (int i = 0; i < 3 && r->has_kernel && err == CL_SUCCESS; i++)
        dev[i] = clCreateBuffer(b->context,
                                i < 2 ? CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR
                                      : CL_MEM_READ_WRITE,
                                (size_t)sizes[i], i < 2 ? host[i] : NULL,
                                &err);
    if (r->has_kernel && err != CL_SUCCESS) {
        if (!is_allocation_error(err)) {
            rc = cl_failed(err, "clCreateBuffer(operator tensors)");
            goto cleanup;
        }
        snprintf(r->note, sizeof r->note,
                 "device-buffer figures skipped: the device could not "
                 "allocate the tensors (%s)", clg_cl_error_name(err));
        r->has_kernel = 0;
        err = CL_SUCCESS;
    }
    clg_cl_tensor ddata = {w->data_dtype, w->data_rank, r->data_shape,
                           dev[0]};
    clg_cl_tensor dindices = {w->index_dtype, w->index_rank, r->index_shape,
                              dev[1]};
    clg_cl_tensor doutput = {w->data_dtype, r->out_rank, r->out_shape, dev[2]};

    r->kernel_s = r->e2e_s = r->copy_s = INFINITY;
    for (int round = -1; round < opt->repeat; round++) {
        double t, t0;
        /* round -1 is the warm-up: every path once, nothing kept. */
        progress(0, "[%zu/%zu] %s x%g: %s %d/%d", pos, total,
                 w->name, scale, round < 0 ? "warm-up" : "round",
                 round < 0 ? 0 : round + 1, opt->repeat);
        if ((err = time_copy(b, copy_buf[0], copy_buf[1], copy_units, &t)) !=
            CL_SUCCESS) {
            rc = cl_failed(err, "the copy kernel");
            goto cleanup;
        }
        if (round >= 0 && t < r->copy_s)
            r->copy_s = t;

        if (r->has_kernel) {
            t0 = now_s();
            st = call_cl(ctx, w, &ddata, &dindices, &doutput);
            t = now_s() - t0;
            if (st != CLG_STATUS_OK && does_not_fit(ctx, st)) {
                snprintf(r->note, sizeof r->note,
                         "device-buffer figures skipped: %s",
                         clg_context_last_error(ctx));
                r->has_kernel = 0;
            } else if (st != CLG_STATUS_OK) {
                rc = library_failed(ctx, st, r, "device-buffer call");
                goto cleanup;
            } else if (round >= 0 && t < r->kernel_s) {
                r->kernel_s = t;
            }
        }

        t0 = now_s();
        st = call_host(ctx, w, &data, &indices, &output);
        t = now_s() - t0;
        if (st != CLG_STATUS_OK && does_not_fit(ctx, st)) {
            snprintf(r->skipped, sizeof r->skipped, "host-memory call: %s",
                     clg_context_last_error(ctx));
            goto cleanup;
        }
        if (st != CLG_STATUS_OK) {
            rc = library_failed(ctx, st, r, "host-memory call");
            goto cleanup;
        }
        if (round >= 0 && t < r->e2e_s)
            r->e2e_s = t;
    }

    micro_rounds = w->micro ? (opt->repeat * 20 > BENCH_MICRO_MIN_ROUNDS
                                   ? opt->repeat * 20
                                   : BENCH_MICRO_MIN_ROUNDS)
                            : 0;
    if (micro_rounds > 0) {
        r->has_micro = 1;
        r->call_s = r->launch_s = INFINITY;
        progress(1, "[%zu/%zu] %s x%g: %d launches and calls", pos, total,
                 w->name, scale, micro_rounds);
        for (int round = -1; round < micro_rounds; round++) {
            double t, t0;
            if ((err = time_launch(b, &t)) != CL_SUCCESS) {
                rc = cl_failed(err, "the empty kernel");
                goto cleanup;
            }
            if (round >= 0 && t < r->launch_s)
                r->launch_s = t;
            t0 = now_s();
            st = call_host(ctx, w, &data, &indices, &output);
            t = now_s() - t0;
            if (st != CLG_STATUS_OK) {
                rc = library_failed(ctx, st, r, "host-memory call");
                goto cleanup;
            }
            if (round >= 0 && t < r->call_s)
                r->call_s = t;
        }
    }

    /* A fast wrong answer is worthless: both paths against the reference.
     * The host output buffer is reused to read the device result back. */
    progress(0, "[%zu/%zu] %s x%g: checking", pos, total, w->name, scale);
    if (!check_equal(r, "host-memory call", host[2], host[3], elem)) {
        rc = CLG_EXIT_DIFFER;
        goto cleanup;
    }
    if (r->has_kernel) {
        err = clEnqueueReadBuffer(b->queue, dev[2], CL_TRUE, 0,
                                  (size_t)r->out_bytes, host[2], 0, NULL,
                                  NULL);
        if (err != CL_SUCCESS) {
            rc = cl_failed(err, "clEnqueueReadBuffer(output)");
            goto cleanup;
        }
        if (!check_equal(r, "device-buffer call", host[2], host[3], elem)) {
            rc = CLG_EXIT_DIFFER;
            goto cleanup;
        }
    }
    r->measured = 1;

cleanup:
    for (int i = 0; i < 3; i++)
        if (dev[i])
            clReleaseMemObject(dev[i]);
    for (int i = 0; i < 2; i++)
        if (copy_buf[i])
            clReleaseMemObject(copy_buf[i]);
    for (int i = 0; i < 4; i++)
        free(host[i]);
    return rc;
}
