/*
 * Internal to `clgather bench`; what it measures and why is in
 * docs/design.md, section "Measuring speed", and at the top of
 * bench_measure.c.
 *
 *   bench.c            the options and the command: parse them, run each
 *                      selected workload at each scale, report.
 *   bench_workloads.c  the workload table, input generation, --scale.
 *   bench_measure.c    the copy kernel, timing, the run of one workload.
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
#define BENCH_WORKLOAD_COUNT 6 /* entries of bench_workloads */

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

/* The table; names and shapes are a contract (see bench_workloads.c). */
extern const bench_workload bench_workloads[BENCH_WORKLOAD_COUNT];

/* "Gather" or "GatherElements". */
const char *bench_op_name(bench_op op);

/* ------------------------------------------------------------ options */

typedef struct bench_options {
    const char *device;
    int repeat;
    uint64_t seed;
    double scales[BENCH_MAX_SCALES];
    size_t scale_count;
    int selected[BENCH_WORKLOAD_COUNT];
    const char *json_path;
} bench_options;

/* ------------------------------------------------------------ results */

typedef struct bench_result {
    const bench_workload *w;
    double scale;
    int64_t data_shape[3];  /* after --scale */
    int64_t index_shape[2]; /* after --scale */
    int64_t out_shape[CLG_MAX_RANK];
    size_t out_rank;
    uint64_t data_bytes; /* whole data tensor (allocated, not all read) */
    uint64_t index_bytes;
    uint64_t out_bytes;
    uint64_t bytes;      /* out (data read) + indices + out (written) */
    uint64_t copy_bytes; /* moved by one copy-kernel run */
    double kernel_s, e2e_s, copy_s, call_s, launch_s; /* best, seconds */
    int measured;      /* the host-memory figures (and the copy) */
    int has_kernel;    /* the device-buffer figures */
    int has_micro;     /* call_us, launch_us */
    char skipped[320]; /* why nothing was measured; "" when measured */
    char note[320];    /* why the device-buffer figures are missing */
} bench_result;

/* The shapes of workload w at `scale` into r (data and indices scaled,
 * the output's from the operator) and the bytes of each tensor and of a
 * run. Returns the output-shape helper's status. */
clg_status bench_workload_size(const bench_workload *w, double scale,
                               bench_result *r);

/* Fills the host tensors of r (data: r->data_bytes, indices: as many as
 * r->index_bytes holds) for the workload at position wi of the table:
 * splitmix64 seeded from `seed` and wi; index values uniform in [-s, s-1],
 * s = data.shape[axis]. */
void bench_fill_inputs(size_t wi, uint64_t seed, const bench_result *r,
                       void *data, void *indices);

/* ------------------------------------------------------------ measuring */

/* The benchmark's own kernels (copy, empty) on the context's device. */
typedef struct bench_cl {
    cl_context context; /* borrowed from the clg_context */
    cl_device_id device;
    cl_command_queue queue;
    cl_program program;
    cl_kernel copy;
    cl_kernel empty;
    size_t copy_local; /* work-group size of the copy kernel */
} bench_cl;

/* Builds the kernels into *b (zeroed first by the caller); prints what
 * failed. Returns an exit status. */
int bench_cl_init(bench_cl *b, const clg_context *ctx);

/* Releases what bench_cl_init made and zeroes *b. */
void bench_cl_release(bench_cl *b);

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

void bench_print_header(const clg_context *ctx, const bench_options *opt);
void bench_print_table(const bench_result *res, size_t n);
void bench_print_linearity(const bench_result *res, size_t n);
void bench_print_targets(const clg_context *ctx, const bench_result *res,
                         size_t n);

/* Writes the results to path as JSON; prints why it cannot. Returns an
 * exit status. */
int bench_write_json(const char *path, const clg_context *ctx,
                     const bench_options *opt, const bench_result *res,
                     size_t n);

#endif /* CLG_CLI_BENCH_INTERNAL_H */
