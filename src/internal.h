/* Internal declarations shared by src/ and host/. Not installed. */
#ifndef CLG_INTERNAL_H
#define CLG_INTERNAL_H

#include "clgather/clgather.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#if defined(__GNUC__)
#define CLG_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define CLG_PRINTF(f, a)
#endif

#define CLG_ERROR_CAPACITY 1024

/* ---------------------------------------------------------------- errors */

/* Where a failing call writes its message: a context, or (ctx NULL) the
 * calling thread's own buffer. */
clg_status clg_fail(clg_context *ctx, clg_status status, const char *fmt, ...)
    CLG_PRINTF(3, 4);
/* Records an OpenCL failure: keeps the raw code, names the call. */
clg_status clg_fail_cl(clg_context *ctx, cl_int code, const char *call);
/* Clears the last error of ctx (or of the thread when ctx is NULL). */
void clg_clear_error(clg_context *ctx);

/* ---------------------------------------------------------------- shapes */

/* Appends "[a, b, c]" for a shape to buf (size cap), always terminated. */
void clg_format_shape(char *buf, size_t cap, const int64_t *shape, size_t rank);

/* Which operator a validation or plan is for. */
typedef enum clg_op { CLG_OP_GATHER = 0, CLG_OP_GATHER_ELEMENTS = 1 } clg_op;

/* Everything validation learns about one call, independent of any plan:
 * the normalised axis, element counts and the output shape. */
typedef struct clg_problem {
    clg_op op;
    clg_dtype dtype;          /* data (and output) dtype */
    clg_dtype index_dtype;    /* INT32 or INT64 */
    size_t elem_size;         /* bytes per data element */
    size_t index_size;        /* 4 or 8 */
    size_t data_rank, index_rank, out_rank;
    int64_t data_shape[CLG_MAX_RANK];
    int64_t index_shape[CLG_MAX_RANK];
    int64_t out_shape[CLG_MAX_RANK];
    size_t axis;              /* normalised, in [0, data_rank) */
    int64_t axis_size;        /* s = data.shape[axis] */
    int64_t data_count, index_count, out_count;
} clg_problem;

/* Validates the descriptors of one call (not the index values, not data
 * pointers) and fills *p. Shapes are read from `data_shape`/`index_shape`
 * with their ranks and dtypes, so host and device tensors share it. */
clg_status clg_validate(clg_context *ctx, clg_op op, clg_dtype data_dtype,
                        size_t data_rank, const int64_t *data_shape,
                        clg_dtype index_dtype, size_t index_rank,
                        const int64_t *index_shape, int64_t axis,
                        clg_problem *p);

/* Checks an output descriptor against the validated problem. */
clg_status clg_validate_output(clg_context *ctx, const clg_problem *p,
                               clg_dtype dtype, size_t rank,
                               const int64_t *shape);

/* All the checks of a host-memory call (clg_gather and friends, and the
 * reference): descriptors present, clg_validate, the output descriptor and
 * the data pointers. Fills *p. */
clg_status clg_validate_host(clg_context *ctx, clg_op op,
                             const clg_tensor *data, const clg_tensor *indices,
                             int64_t axis, const clg_tensor *output,
                             clg_problem *p);

/* Checks that a host tensor's data pointer is present when it has
 * elements. `what` names the argument in the message. */
clg_status clg_validate_pointer(clg_context *ctx, const char *what,
                                const void *ptr, int64_t count);

/* Scans index values for the first one outside [-s, s-1]. Returns the
 * position (element offset) or -1 when all are valid; *value gets the bad
 * value. */
int64_t clg_find_bad_index(const void *indices, clg_dtype index_dtype,
                           int64_t count, int64_t axis_size, int64_t *value);

/* Fails with INDEX_OUT_OF_RANGE, naming position `pos` of the indices as a
 * multi-index, its value and the valid range. */
clg_status clg_fail_index(clg_context *ctx, const clg_problem *p, int64_t pos,
                          int64_t value);

/* Scans host indices and fails on the first bad one; OK when all valid. */
clg_status clg_check_indices_host(clg_context *ctx, const clg_problem *p,
                                  const void *indices);

/* ---------------------------------------------------------------- plan */

/* How the device computes one problem. Gather: data [outer, s, inner],
 * output [outer, n, inner], all in units of `unit` bytes. GatherElements:
 * output/indices [outer, n, inner] with data offsets
 *   outer part + index * axis_stride + inner part
 * where each part is either one stride (simple) or a list of coalesced
 * (extent, stride) dims (ragged: indices smaller than data off the axis). */
typedef struct clg_plan {
    clg_op op;
    size_t unit;            /* bytes one work-item moves: 1, 2, 4, 8, 16 */
    int wide_offsets;       /* 1: 64-bit offsets in the kernel */
    int64_t outer, n, inner;
    int64_t axis_size;
    /* GatherElements only, in elements */
    int64_t axis_stride;
    size_t outer_dims, inner_dims; /* 0 or 1: simple; more: ragged */
    int64_t outer_extent[CLG_MAX_RANK], outer_stride[CLG_MAX_RANK];
    int64_t inner_extent[CLG_MAX_RANK], inner_stride[CLG_MAX_RANK];
    int64_t data_units, index_count, out_units;
    /* GatherElements on CPU devices: columns per strip (0: no strips). */
    int64_t strip_width;
} clg_plan;

/* Builds the device plan. `align` is the alignment (bytes, power of two)
 * shared by the data and output addresses the device will see; `cpu` asks
 * for the cache-blocked GatherElements walk. */
void clg_plan_make(const clg_problem *p, size_t align, int cpu,
                   clg_plan *plan);

/* ---------------------------------------------------------------- runtime */

/* The -D options that select a kernel variant (kernels/common.cl). */
typedef struct clg_variant_key {
    clg_op op;
    unsigned unit;        /* CLG_UNIT */
    unsigned wide_index;  /* CLG_INDEX: 0 int, 1 long */
    unsigned wide;        /* CLG_WIDE */
    unsigned inner_x;     /* CLG_INNER_X */
    unsigned outer_dims;  /* CLG_OUTER_DIMS (GatherElements) */
    unsigned inner_dims;  /* CLG_INNER_DIMS (GatherElements) */
    unsigned strip;       /* CLG_STRIP (GatherElements) */
    unsigned fast;        /* CLG_FAST (Gather) */
    unsigned windows;     /* CLG_WINDOWS */
} clg_variant_key;

/* A built program variant and its kernels, cached in the context. */
typedef struct clg_variant {
    uint32_t key;            /* clg_variant_key packed */
    cl_program program;
    cl_kernel kernel;        /* the op kernel */
    cl_kernel check_kernel;  /* clg_check_indices, created on first use */
} clg_variant;

struct clg_context {
    cl_platform_id platform;
    cl_device_id device;
    cl_context cl_ctx;
    cl_command_queue queue;
    clg_device_type type;
    int host_unified;
    cl_ulong max_alloc;
    cl_ulong global_mem;
    size_t max_wg_size;
    size_t max_item_sizes[3];
    char device_name[256];
    char device_vendor[256];
    char device_version[256];

    clg_variant *variants;
    size_t variant_count, variant_capacity;

    cl_mem flag;             /* device error flag: [0] flag, [1] a sink */
    int flag_dirty;          /* a launch happened since the flag was read */
    cl_mem scratch[3];       /* copy path: data, indices, output */
    size_t scratch_size[3];

    char last_error[CLG_ERROR_CAPACITY];
    cl_int last_cl_error;
    char *build_log;
};

/* Returns the variant for `key` (building it on first use), or fails with
 * BUILD_FAILED keeping the log. */
clg_status clg_runtime_variant(clg_context *ctx, const clg_variant_key *key,
                               clg_variant **out);

/* Chooses the device `spec` names (DESIGN section 2: type, "P:D", name
 * substring, CLGATHER_DEVICE, default); host/devices.c. On failure writes
 * the reason to msg. */
clg_status clg_devices_select(const char *spec, cl_platform_id *platform,
                              cl_device_id *device, char *msg, size_t cap);

/* Fills the device-facing fields of ctx from ctx->device. */
clg_status clg_runtime_query_device(clg_context *ctx);

/* A box of plan coordinates [o0, o1) x [j0, j1) x [c0, c1) (j: the index
 * position for Gather, the axis position for GatherElements; c in units). */
typedef struct clg_box {
    int64_t o0, o1, j0, j1, c0, c1;
} clg_box;

/* The buffers of one launch, each holding a window of its tensor:
 * [base, base + len) in units (data, output) or elements (indices). */
typedef struct clg_windows {
    cl_mem data, indices, output;
    int64_t data_base, data_len;
    int64_t index_base, index_len;
    int64_t out_base, out_len;
} clg_windows;

/* Enqueues the plan's kernel over `box` with buffers `w` (no wait). */
clg_status clg_runtime_launch(clg_context *ctx, const clg_problem *p,
                              const clg_plan *plan, const clg_box *box,
                              const clg_windows *w);

/* Before a launch: makes sure the device error flag is zero (a write only
 * when an earlier call left it unread). After: reads it back (blocking:
 * waits for everything enqueued before) and clears it when raised. */
clg_status clg_runtime_flag_reset(clg_context *ctx);
clg_status clg_runtime_flag_read(clg_context *ctx, int *raised);

/* Runs the index check kernel over device indices; *flag_raised = 1 when
 * any value is outside [-s, s-1]. */
clg_status clg_runtime_check(clg_context *ctx, const clg_problem *p,
                             cl_mem indices, int *flag_raised);

/* Returns a scratch buffer of at least `size` bytes (copy path). */
clg_status clg_runtime_scratch(clg_context *ctx, int slot, size_t size,
                               cl_mem *out);

#endif
