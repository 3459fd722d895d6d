/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Internal to `clgather bench`; what it measures and why is in
 * docs/design.md, section "Measuring speed", and at the top of
 * bench_measure.c.
 *
 *   bench.c            the options and the command: parse them, run each
 *                      selected workload at each scale, report.
 *   bench_workloads.c  the workload table, input generation, --scale.
 *   bench_baseline.c   the copy kernels and the host copy the workloads
 *                      are set beside.
 *   bench_measure.c    timing and the run of one workload.
 *   bench_report.c     the tables, linearity, targets and the JSON file.
 */
#ifndef CLG_CLI_BENCH_INTERNAL_H
#define CLG_CLI_BENCH_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include <clgather/clgather.h>

#define BENCH_DEFAULT_SEED UINT64_C(0x636c676174686572) /* "clgather" */
#define BENCH_DEFAULT_REPEAT 5
#define BENCH_MAX_SCALES 8
#define BENCH_WORKLOAD_COUNT 9 /* entries of bench_workloads */
#define BENCH_COPY_MAX 8       /* copy-kernel variants */
#define BENCH_MAX_THREADS 64   /* threads of the host copy */
/* How the caches stand when each figure is taken: the same for every
 * figure and for bench/peers.py (docs/design.md, "Measuring speed"). */
#define BENCH_CACHE_CONDITIONS "warm, back-to-back repeats"

/* ------------------------------------------------------------ workloads */

typedef struct bench_workload {
    const char *name;
    clg_op op; /* its axis is the operator's attribute (clg_op_attribute) */
    clg_dtype data_dtype;
    size_t data_rank;
    int64_t data_shape[3];
    clg_dtype index_dtype;
    size_t index_rank;
    int64_t index_shape[3];
    int64_t
        axis; /* the operator's attribute: axis, or GatherND's batch_dims */
    int scale_data_dim;  /* data dimension --scale multiplies, or -1 */
    int scale_index_dim; /* indices dimension --scale multiplies, or -1 */
    int micro;           /* also measure call_us and launch_us */
} bench_workload;

/* The table; names and shapes are a contract (see bench_workloads.c). */
extern const bench_workload bench_workloads[BENCH_WORKLOAD_COUNT];

/* The library's call of a workload (its operator and axis) under an
 * out-of-range mode. */
clg_call bench_call_of(const bench_workload *w, clg_oob_mode oob);

/* ------------------------------------------------------------ options */

/* Where the device buffers' memory comes from (--buffers): host memory
 * allocated as NumPy allocates its arrays and wrapped with
 * CL_MEM_USE_HOST_PTR, or the runtime's own (clCreateBuffer without a
 * host pointer); AUTO is the first on devices that share host memory
 * (docs/benchmarks.md, "Method"). */
enum { BENCH_BUFFERS_AUTO, BENCH_BUFFERS_HOST, BENCH_BUFFERS_RUNTIME };

typedef struct bench_options {
    const char *device;
    int repeat;
    uint64_t seed;
    double scales[BENCH_MAX_SCALES];
    size_t scale_count;
    int selected[BENCH_WORKLOAD_COUNT];
    const char *json_path;
    clg_oob_mode oob; /* --oob: the operator calls' out-of-range mode */
    int first_only;   /* --first-call: the first-call table alone */
    int no_first;     /* --no-first-call: the table left out */
    int buffers;      /* --buffers: BENCH_BUFFERS_* */
    int seen[128];    /* single-value options met, by their short name */
} bench_options;

/* 1 when --buffers resolves to host memory on `ctx`, 0 for the
 * runtime's. */
int bench_host_buffers(const bench_options *opt, const clg_context *ctx);

/* The first-call table (bench/bench_first.c): context creation, the first
 * call of a new context with the program cache empty and filled, and the
 * warm call, per operator. Returns an exit status. */
int bench_first_calls(const bench_options *opt);

/* ------------------------------------------------------------ results */

/* The index check a host-memory call runs before its first launch
 * (docs/design.md, "Host memory and device buffers"): none (a single
 * launch that reads the device's flag before downloading), the host scan,
 * or the check kernel over the indices in place. */
typedef enum bench_check_kind {
    BENCH_CHECK_NONE,
    BENCH_CHECK_HOST,
    BENCH_CHECK_DEVICE
} bench_check_kind;

/* "none", "host scan", "check kernel". */
const char *bench_check_name(bench_check_kind k);

typedef struct bench_result {
    const bench_workload *w;
    double scale;
    int64_t data_shape[3];  /* after --scale */
    int64_t index_shape[3]; /* after --scale */
    int64_t out_shape[CLG_MAX_RANK];
    size_t out_rank;
    uint64_t data_bytes; /* whole data tensor (allocated, not all read) */
    uint64_t index_bytes;
    uint64_t out_bytes;
    uint64_t bytes;      /* out (data read) + indices + out (written) */
    uint64_t copy_bytes; /* moved by one copy: half read, half written */
    /* Best times, seconds: the operator's two paths, the fastest copy
     * kernel, the host copy, the check pass, and the micro figures. */
    double kernel_s, e2e_s, copy_s, host_copy_s, check_s, call_s, launch_s;
    /* Per-call cost (micro workloads): one enqueue's host time, and the
     * time per operation of BENCH_PIPELINE enqueues then one finish, for
     * clg_enqueue_* and for the empty kernel, without arguments, with the
     * Gather kernels' arguments as 14 (args) and as the library passes
     * them, four buffers and one shape struct (shape). */
    double enqueue_s, pipelined_s, launch_pipelined_s, args_pipelined_s;
    double shape_pipelined_s;
    double copy_variant_s[BENCH_COPY_MAX]; /* each copy variant's best */
    /* The read kernel over the index bytes, where the check kernel runs:
     * the fastest variant's best (INFINITY when not measured). */
    double read_s;
    size_t read_best;
    int read_best_stripes;       /* the best was clg_bench_read_stripes */
    size_t copy_best;            /* index of the fastest copy variant */
    bench_check_kind check_kind; /* the check pass the e2e call runs */
    int measured;                /* the host-memory figures (and the copy) */
    int has_kernel;              /* the device-buffer figures */
    int has_micro;               /* call_us, launch_us */
    int has_pipeline;            /* enqueue_us, pipelined_us, ... */
    clg_path host_path;          /* where the host-memory calls ran (the `host`
                           parameter: tiny ones on the calling thread) */
    char skipped[320]; /* why nothing was measured; "" when measured */
    char
        note[320]; /* why some figures are missing (device-buffer, per-call) */
} bench_result;

/* The shapes of workload w at `scale` into r (data and indices scaled,
 * the output's from the operator) and the bytes of each tensor and of a
 * run. Returns the output-shape helper's status. */
clg_status bench_workload_size(const bench_workload *w, double scale,
                               bench_result *r);

/* Fills the host tensors of r (data: r->data_bytes, indices: as many as
 * r->index_bytes holds) for the workload at position wi of the table:
 * splitmix64 seeded from `seed` and wi; index values uniform in [-s, s-1],
 * s = data.shape[axis]; for GatherND component c of each tuple uniform in
 * [-s_c, s_c - 1], s_c = data.shape[batch_dims + c]. */
/* The workload's operator on device buffers (clg_gather_cl_ex or
 * clg_gather_elements_cl_ex), or on the CPU reference, under out-of-range
 * mode `oob`. */
clg_status bench_call_cl(clg_context *ctx, const bench_workload *w,
                         const clg_cl_tensor *data,
                         const clg_cl_tensor *indices,
                         const clg_cl_tensor *output, clg_oob_mode oob);
clg_status bench_call_reference(clg_context *ctx, const bench_workload *w,
                                const clg_tensor *data,
                                const clg_tensor *indices,
                                const clg_tensor *output, clg_oob_mode oob);

void bench_fill_inputs(size_t wi, uint64_t seed, const bench_result *r,
                       void *data, void *indices);

/* ------------------------------------------------------------ measuring */

/* One variant of the copy kernel (bench_baseline.c). */
typedef struct bench_copy_kernel {
    const char *name; /* "16B", "64B-nt", ... */
    unsigned unit;    /* bytes per work-item */
    cl_program program;
    cl_kernel kernel;
    cl_kernel read; /* the read kernel; NULL for the non-temporal ones */
    cl_kernel read_stripes; /* the same, in stripes across the group */
    size_t local;           /* work-group size */
} bench_copy_kernel;

/* The benchmark's own kernels (copy variants, empty) on the
 * context's device. */
typedef struct bench_cl {
    cl_context context; /* borrowed from the clg_context */
    cl_device_id device;
    cl_command_queue queue;
    unsigned wg;      /* the library's work-group size for the device's row */
    int host_threads; /* threads of the host copy: the online CPUs */
    cl_program program;
    cl_kernel empty;
    cl_kernel empty_args;  /* the Gather kernels' arguments, as 14 */
    cl_kernel empty_shape; /* the same, as 4 buffers and one struct */
    bench_copy_kernel copy[BENCH_COPY_MAX]; /* those that built */
    size_t copy_count;
    char copy_unavailable[160]; /* variants the compiler refused, "a, b" */
    char params[256]; /* the device parameters in use (clg_cli_params) */
} bench_cl;

/* Builds the kernels into *b (zeroed first by the caller); prints what
 * failed. A copy variant the device compiler refuses is left out and
 * named in b->copy_unavailable; the portable one must build. Returns an
 * exit status. */
/* Operations per pipelined series (pipelined_us). */
#define BENCH_PIPELINE 1000

int bench_cl_init(bench_cl *b, clg_context *ctx);

/* Prints "clgather bench: WHAT failed: CL_NAME (code)"; returns
 * CLG_EXIT_ERROR. */
int bench_cl_failed(cl_int err, const char *what);

/* Releases what bench_cl_init made and zeroes *b. */
void bench_cl_release(bench_cl *b);

/* Runs copy variant v once from src to dst over half_bytes (a multiple
 * of 64), enqueue + clFinish; seconds to *t. */
cl_int bench_time_copy(const bench_cl *b, size_t v, cl_mem src, cl_mem dst,
                       uint64_t half_bytes, double *t);

/* Runs a read kernel of copy variant v (whose `read` is not NULL) once
 * over the first `bytes` of src (a multiple of its unit), raising *hit
 * where a 32-bit word equals `pattern`: clg_bench_read, or with `stripes`
 * clg_bench_read_stripes; enqueue + clFinish, seconds to *t. */
cl_int bench_time_read(const bench_cl *b, size_t v, int stripes, cl_mem src,
                       cl_mem hit, uint64_t bytes, cl_uint pattern, double *t);

/* memcpy of `bytes` on b->host_threads threads, one contiguous part each;
 * seconds to *t (thread start and join included). 0, or pthread's error. */
int bench_time_host_copy(const bench_cl *b, void *dst, const void *src,
                         uint64_t bytes, double *t);

/* Progress lines go to stderr, rewritten in place when it is a terminal. */
void bench_progress_init(void);
void bench_progress_clear(void);

/* Measures workload wi of the table at one scale into *r (the pos-th run
 * of total, for the progress line). Returns an exit status; what does not
 * fit is not an error, r->skipped and r->note say why. */
int bench_run_workload(clg_context *ctx, const bench_cl *b,
                       const bench_options *opt, size_t wi, double scale,
                       size_t pos, size_t total, bench_result *r);

/* ------------------------------------------------------------ reporting */

/* The device, the seed, the cache conditions, the copy variants built
 * and the host copy's threads. */
void bench_print_header(const clg_context *ctx, const bench_cl *b,
                        const bench_options *opt);
/* The results table, then every copy variant's GB/s per workload. */
void bench_print_table(const bench_result *res, size_t n, const bench_cl *b);
/* Per workload and scale: ns per byte of each path and its deviation
 * from proportional against the reference scale, with a verdict. */
void bench_print_linearity(const bench_result *res, size_t n);
void bench_print_targets(const clg_context *ctx, const bench_result *res,
                         size_t n);

/* Writes the results to path as JSON; prints why it cannot. Returns an
 * exit status. */
int bench_write_json(const char *path, const clg_context *ctx,
                     const bench_cl *b, const bench_options *opt,
                     const bench_result *res, size_t n);

#endif /* CLG_CLI_BENCH_INTERNAL_H */
