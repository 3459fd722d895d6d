/*
 * `clgather bench`: bandwidth of Gather and GatherElements on one device,
 * measured beside the same device's plain copy kernel (docs/design.md,
 * section "Measuring speed").
 *
 * For each workload (the names and shapes are a contract, see `workloads`)
 * and each --scale:
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
 * --scale F multiplies one dimension per workload (see `workloads`) so that
 * all traffic grows by F. When a tensor is larger than the context's
 * largest buffer, the device-buffer figures are skipped with a note (that
 * API takes one buffer per tensor) and the host-memory ones, which the
 * library splits, are still measured and checked.
 */
#include "bench.h"

#include <errno.h>
#include <getopt.h>
#include <math.h> /* INFINITY, isfinite: macros only, no libm */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <clgather/clgather.h>

#include "cli.h"
#include "io_tensor.h"

#define BENCH_DEFAULT_SEED UINT64_C(0x636c676174686572) /* "clgather" */
#define BENCH_DEFAULT_REPEAT 5
#define BENCH_MAX_SCALES 8
#define BENCH_MICRO_MIN_ROUNDS 100
#define BENCH_PAGE 4096

/* ------------------------------------------------------------ workloads */

typedef enum bench_op { BENCH_GATHER, BENCH_GATHER_ELEMENTS } bench_op;

typedef struct bench_workload {
    const char *name;
    bench_op op;
    clg_dtype data_dtype;
    size_t data_rank;
    int64_t data_shape[3];
    clg_dtype index_dtype;
    size_t index_rank;
    int64_t index_shape[2];
    int64_t axis;
    int scale_data_dim;  /* data dimension --scale multiplies, or -1 */
    int scale_index_dim; /* indices dimension --scale multiplies, or -1 */
    int micro;           /* also measure call_us and launch_us */
} bench_workload;

/* The workload table; names and shapes are a contract (bench/peers.py
 * reads them back from the JSON).
 *
 * --scale F multiplies one dimension so that every tensor's memory traffic,
 * not only `bytes`, grows by F; the linearity check then measures the
 * library rather than the caches:
 *   - embedding, gather-middle-axis, small: the number of indices (rows
 *     gathered); each gathered row is read whole, the data tensor stays;
 *   - gather-last-axis: data dim 0 (the rows; the output follows). Scaling
 *     the 1024 indices instead would not scale the data traffic: with 256
 *     random columns of a 4 KiB row nearly every cache line of the row is
 *     still read;
 *   - elements-last-axis: dim 0 of data and indices, for the same reason;
 *   - elements-axis0: dim 1 (the columns) of data and indices: scaling the
 *     rows gathered along axis 0 would leave the 64 MiB data tensor to be
 *     streamed whole at every scale. */
static const bench_workload workloads[] = {
    {"embedding", BENCH_GATHER, CLG_DTYPE_FLOAT, 2, {50257, 768, 0},
     CLG_DTYPE_INT64, 2, {8, 1024}, 0, -1, 0, 0},
    {"gather-last-axis", BENCH_GATHER, CLG_DTYPE_FLOAT, 2, {16384, 1024, 0},
     CLG_DTYPE_INT64, 1, {1024, 0}, -1, 0, -1, 0},
    {"gather-middle-axis", BENCH_GATHER, CLG_DTYPE_FLOAT16, 3,
     {64, 4096, 64}, CLG_DTYPE_INT32, 1, {2048, 0}, 1, -1, 0, 0},
    {"elements-last-axis", BENCH_GATHER_ELEMENTS, CLG_DTYPE_FLOAT, 2,
     {16384, 1024, 0}, CLG_DTYPE_INT64, 2, {16384, 1024}, -1, 0, 0, 0},
    {"elements-axis0", BENCH_GATHER_ELEMENTS, CLG_DTYPE_FLOAT, 2,
     {4096, 4096, 0}, CLG_DTYPE_INT32, 2, {4096, 4096}, 0, 1, 1, 0},
    {"small", BENCH_GATHER, CLG_DTYPE_FLOAT, 2, {64, 64, 0}, CLG_DTYPE_INT64,
     1, {16, 0}, 0, -1, 0, 1},
};
#define BENCH_WORKLOAD_COUNT (sizeof workloads / sizeof workloads[0])

/* ------------------------------------------------------------ results */

typedef struct bench_result {
    const bench_workload *w;
    double scale;
    int64_t data_shape[3];  /* after --scale */
    int64_t index_shape[2]; /* after --scale */
    int64_t out_shape[CLG_MAX_RANK];
    size_t out_rank;
    uint64_t data_bytes;  /* whole data tensor (allocated, not all read) */
    uint64_t index_bytes;
    uint64_t out_bytes;
    uint64_t bytes;       /* out (data read) + indices + out (written) */
    uint64_t copy_bytes;  /* moved by one copy-kernel run */
    double kernel_s, e2e_s, copy_s, call_s, launch_s; /* best, seconds */
    int measured;         /* the host-memory figures (and the copy) */
    int has_kernel;       /* the device-buffer figures */
    int has_micro;        /* call_us, launch_us */
    char skipped[320];    /* why nothing was measured; "" when measured */
    char note[320];       /* why the device-buffer figures are missing */
} bench_result;

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

/* ------------------------------------------------------------ helpers */

static double now_s(void)
{
    return clg_cli_now(); /* CLOCK_MONOTONIC */
}

static uint64_t splitmix64(uint64_t *state)
{
    uint64_t z = (*state += UINT64_C(0x9E3779B97F4A7C15));
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

/* round(dim * scale), at least 1 (no libm needed: scale > 0). */
static int64_t scaled_dim(int64_t dim, double scale)
{
    double d = (double)dim * scale + 0.5;
    return d < 1 ? 1 : (int64_t)d;
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

static void progress_clear(void)
{
    if (stderr_is_tty)
        fprintf(stderr, "\r%78s\r", "");
}

static const char *op_name(bench_op op)
{
    return op == BENCH_GATHER ? "Gather" : "GatherElements";
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

typedef struct bench_cl {
    cl_context context; /* borrowed from the clg_context */
    cl_device_id device;
    cl_command_queue queue;
    cl_program program;
    cl_kernel copy;
    cl_kernel empty;
    size_t copy_local; /* work-group size of the copy kernel */
} bench_cl;

static void bench_cl_release(bench_cl *b)
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

static int bench_cl_init(bench_cl *b, const clg_context *ctx)
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

typedef struct bench_options {
    const char *device;
    int repeat;
    uint64_t seed;
    double scales[BENCH_MAX_SCALES];
    size_t scale_count;
    int selected[BENCH_WORKLOAD_COUNT];
    const char *json_path;
} bench_options;

static void fill_inputs(const bench_workload *w, size_t wi, uint64_t seed,
                        const clg_tensor *data, const clg_tensor *indices,
                        uint64_t data_bytes, int64_t index_count)
{
    uint64_t state = seed ^ (UINT64_C(0xD1B54A32D192ED03) * (wi + 1));
    int64_t s = data->shape[w->axis < 0 ? (int64_t)w->data_rank + w->axis
                                        : w->axis];
    unsigned char *d = data->data;
    uint64_t i = 0;
    for (; i + 8 <= data_bytes; i += 8) {
        uint64_t v = splitmix64(&state);
        memcpy(d + i, &v, 8);
    }
    if (i < data_bytes) {
        uint64_t v = splitmix64(&state);
        memcpy(d + i, &v, (size_t)(data_bytes - i));
    }
    for (int64_t k = 0; k < index_count; k++) {
        int64_t v = (int64_t)(splitmix64(&state) % (uint64_t)(2 * s)) - s;
        if (indices->dtype == CLG_DTYPE_INT64)
            ((int64_t *)indices->data)[k] = v;
        else
            ((int32_t *)indices->data)[k] = (int32_t)v;
    }
}

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
    progress_clear();
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
    progress_clear();
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
static int run_workload(clg_context *ctx, const bench_cl *b,
                        const bench_options *opt, size_t wi, double scale,
                        size_t pos, size_t total, bench_result *r)
{
    const bench_workload *w = &workloads[wi];
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
            scaled_dim(w->data_shape[w->scale_data_dim], scale);
    if (w->scale_index_dim >= 0)
        r->index_shape[w->scale_index_dim] =
            scaled_dim(w->index_shape[w->scale_index_dim], scale);

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
    fill_inputs(w, wi, opt->seed, &data, &indices, r->data_bytes,
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

/* ------------------------------------------------------------ reporting */

static void print_header(const clg_context *ctx, const bench_options *opt)
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

static void print_table(const bench_result *res, size_t n)
{
    printf("%-20s %5s %9s %10s %10s %7s %7s %5s %5s %8s %8s\n", "workload",
           "scale", "MB", "kernel_ms", "e2e_ms", "GB/s", "copy", "eff",
           "e2e", "call_us", "launch");
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

static void print_linearity(const bench_result *res, size_t n)
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
               (!has_k || within_25pct(k)) && within_25pct(e) ? ""
                                                               : "  MISS");
    }
    printf("(copy: the copy kernel's own ratio, the machine's linearity at "
           "these sizes)\n");
}

static void print_targets(const clg_context *ctx, const bench_result *res,
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
                   r->w->name, r->scale, r->call_s * 1e6, r->launch_s * 1e6,
                   q, q <= 1.5 ? "ok" : "MISS");
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

static int write_json(const char *path, const clg_context *ctx,
                      const bench_options *opt, const bench_result *res,
                      size_t n)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "clgather bench: cannot write %s: %s\n", path,
                strerror(errno));
        return CLG_EXIT_ERROR;
    }
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
    for (size_t i = 0; i < n; i++) {
        const bench_result *r = &res[i];
        const bench_workload *w = r->w;
        int m = r->measured, k = m && r->has_kernel;
        fprintf(f, "%s\n    {\"name\": ", i ? "," : "");
        json_string(f, w->name);
        fputs(", \"kernel_ms\": ", f);
        json_number(f, k, r->kernel_s * 1e3);
        fputs(", \"end_to_end_ms\": ", f);
        json_number(f, m, r->e2e_s * 1e3);
        fprintf(f, ", \"bytes\": %llu, \"gbps\": ",
                (unsigned long long)r->bytes);
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
        fprintf(f, ",\n     \"scale\": %.6g, \"op\": \"%s\", \"axis\": %lld, "
                   "\"data_dtype\": \"%s\", \"data_shape\": ",
                r->scale, op_name(w->op), (long long)w->axis,
                clg_dtype_name(w->data_dtype));
        json_shape(f, r->data_shape, w->data_rank);
        fprintf(f, ", \"indices_dtype\": \"%s\", \"indices_shape\": ",
                clg_dtype_name(w->index_dtype));
        json_shape(f, r->index_shape, w->index_rank);
        fputs(", \"output_shape\": ", f);
        json_shape(f, r->out_shape, r->out_rank);
        fprintf(f, ", \"copy_bytes\": %llu, \"skipped\": ",
                (unsigned long long)r->copy_bytes);
        if (m)
            fputs("null", f);
        else
            json_string(f, r->skipped);
        fputs(", \"note\": ", f);
        if (m && r->note[0])
            json_string(f, r->note);
        else
            fputs("null", f);
        fputs("}", f);
    }
    fputs("\n  ],\n  \"linearity\": [", f);
    int first = 1;
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
    if (fclose(f) != 0) {
        fprintf(stderr, "clgather bench: cannot write %s: %s\n", path,
                strerror(errno));
        return CLG_EXIT_ERROR;
    }
    return CLG_EXIT_OK;
}

/* ------------------------------------------------------------ command line */

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
        const bench_workload *w = &workloads[i];
        char ds[64], is[64];
        printf("%-20s %-15s %-8s %-18s %-6s %-14s %lld\n", w->name,
               op_name(w->op), clg_dtype_name(w->data_dtype),
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
                   strcmp(workloads[i].name, optarg) != 0)
                i++;
            if (i == BENCH_WORKLOAD_COUNT) {
                fprintf(stderr, "clgather bench: unknown workload '%s'; "
                                "known:", optarg);
                for (i = 0; i < BENCH_WORKLOAD_COUNT; i++)
                    fprintf(stderr, " %s", workloads[i].name);
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
    stderr_is_tty = isatty(STDERR_FILENO);
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
    print_header(ctx, &opt);
    fflush(stdout);
    for (size_t i = 0; i < BENCH_WORKLOAD_COUNT; i++) {
        if (!opt.selected[i])
            continue;
        for (size_t k = 0; k < opt.scale_count; k++) {
            rc = run_workload(ctx, &b, &opt, i, opt.scales[k], n + 1, total,
                              &res[n]);
            n++;
            if (rc != CLG_EXIT_OK)
                goto cleanup;
        }
    }
    progress_clear();
    print_table(res, n);
    if (opt.scale_count > 1)
        print_linearity(res, n);
    print_targets(ctx, res, n);
    if (opt.json_path)
        rc = write_json(opt.json_path, ctx, &opt, res, n);

cleanup:
    progress_clear();
    free(res);
    bench_cl_release(&b);
    clg_context_destroy(ctx);
    return rc;
}
