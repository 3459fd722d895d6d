/* The OpenCL runtime's interface to the operator layer (docs/design.md,
 * "Layers"). Not installed.
 *
 * host/ owns every OpenCL object and knows no operator: it describes the
 * device, makes and moves buffers, builds and caches programs, launches a
 * kernel it is handed with the arguments and geometry it is handed, keeps
 * the device error flag and waits for the queue. src/ calls only what is
 * declared here (and the public header), and makes no OpenCL call itself.
 *
 * Every function that can fail records its message in the context (see
 * clg_fail) and returns its status; OpenCL failures return OPENCL_ERROR
 * with the raw cl_int kept and the failing call named. */
#ifndef CLG_RUNTIME_H
#define CLG_RUNTIME_H

#include "clgather/clgather.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#if defined(__GNUC__)
#define CLG_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define CLG_PRINTF(f, a)
#endif

/* ---------------------------------------------------------------- errors */

/* Writes a message to the context's last error (ctx NULL: the calling
 * thread's own buffer) and returns `status`. */
clg_status clg_fail(clg_context *ctx, clg_status status, const char *fmt, ...)
    CLG_PRINTF(3, 4);
/* Records an OpenCL failure: keeps the raw code, names the call; returns
 * OPENCL_ERROR. */
clg_status clg_fail_cl(clg_context *ctx, cl_int code, const char *call);
/* Clears the last error of ctx (or of the thread when ctx is NULL). */
void clg_clear_error(clg_context *ctx);

/* ---------------------------------------------------------------- device */

/* What plans are made from. `plan_type` and `host_unified` are the device's
 * own, except under the test-only CLGATHER_TEST_PLAN=gpu, which makes any
 * device plan as a GPU does (GPU kernels and work-groups, copies instead of
 * host memory used in place) so that POCL compiles and checks them. */
typedef struct clg_device_facts {
    clg_device_type plan_type;
    int host_unified;   /* host memory may be used in place */
    uint64_t max_alloc; /* bytes, CLGATHER_MAX_ALLOC applied */
    size_t max_wg_size; /* CL_DEVICE_MAX_WORK_GROUP_SIZE */
    size_t max_item_sizes[3];
} clg_device_facts;

const clg_device_facts *clg_rt_facts(const clg_context *ctx);

/* ---------------------------------------------------------------- buffers */

/* Wraps caller memory in place (CL_MEM_USE_HOST_PTR); `writable` selects
 * write-only (the output) over read-only (inputs). Release with
 * clg_rt_release. */
clg_status clg_rt_wrap(clg_context *ctx, void *host, size_t bytes,
                       int writable, cl_mem *out);

/* The context's scratch buffers of the copy path, one per tensor role;
 * kept and grown across calls, owned by the context (never released by
 * the caller). */
typedef enum clg_scratch_slot {
    CLG_SCRATCH_DATA = 0,
    CLG_SCRATCH_INDICES = 1,
    CLG_SCRATCH_OUTPUT = 2,
    CLG_SCRATCH_COUNT = 3
} clg_scratch_slot;
clg_status clg_rt_scratch(clg_context *ctx, clg_scratch_slot slot,
                          size_t bytes, cl_mem *out);

/* A small read-only buffer holding a copy of `bytes` at `host`. */
clg_status clg_rt_const_buffer(clg_context *ctx, const void *host,
                               size_t bytes, cl_mem *out);

/* Releases a buffer made by clg_rt_wrap or clg_rt_const_buffer and sets
 * *buf to NULL; NULL is accepted. OpenCL defers the release until the
 * commands using it are done. */
void clg_rt_release(cl_mem *buf);

/* Enqueues a copy host -> buffer (non-blocking: `host` must stay valid
 * until the queue is finished). */
clg_status clg_rt_upload(clg_context *ctx, cl_mem buf, const void *host,
                         size_t bytes);
/* Enqueues a copy buffer -> host; `blocking` waits for it. */
clg_status clg_rt_download(clg_context *ctx, cl_mem buf, void *host,
                           size_t bytes, int blocking);
/* Makes what the device wrote into a wrapped buffer visible in the
 * caller's memory (a map and unmap: a no-op where memory is truly shared,
 * a copy on implementations that keep a device copy). */
clg_status clg_rt_publish(clg_context *ctx, cl_mem buf, size_t bytes);

/* Checks a caller's buffer for a tensor of `bytes` bytes: present when
 * bytes > 0, of this context's cl_context, and large enough. `what` names
 * it in the message. */
clg_status clg_rt_check_buffer(clg_context *ctx, const char *what, cl_mem buf,
                               uint64_t bytes);

/* ---------------------------------------------------------------- programs */

/* The kernel `name` of the program built from the embedded kernel files
 * `files[0 .. nfiles-1]` (concatenated in order) with build `options`.
 * Programs are built on first use and cached in the context by (files,
 * options); kernels by name within their program. A failed build returns
 * BUILD_FAILED and keeps the log (clg_context_build_log). The kernel stays
 * owned by the context. */
clg_status clg_rt_kernel(clg_context *ctx, const char *const *files,
                         size_t nfiles, const char *options, const char *name,
                         cl_kernel *out);

/* ---------------------------------------------------------------- launch */

/* One kernel argument: its size and address (cl_mem handles by address). */
typedef struct clg_rt_arg {
    size_t size;
    const void *value;
} clg_rt_arg;

/* An NDRange: `dims` (1 to 3) dimensions with global work offset `origin`,
 * global size `global` (a multiple of `local` in every dimension) and
 * work-group size `local`. */
typedef struct clg_geometry {
    unsigned dims;
    size_t origin[3];
    size_t global[3];
    size_t local[3];
} clg_geometry;

/* Sets args[0 .. nargs-1] on `kernel` and enqueues it over `g` (no wait).
 * Where the device's grid is limited (GPUs: 65535 work-groups in
 * dimensions 1 and 2) the range is enqueued in several launches. */
clg_status clg_rt_launch(clg_context *ctx, cl_kernel kernel,
                         const clg_rt_arg *args, size_t nargs,
                         const clg_geometry *g);

/* The device error flag: an int the kernels set to 1 when they meet a bad
 * index; pass clg_rt_flag_buffer as their `err` argument.
 *  - clg_rt_flag_arm: before a launch, makes sure the flag is zero (a
 *    write only when an earlier call left it unread);
 *  - clg_rt_flag_read: waits for everything enqueued, reads the flag and
 *    clears it when raised;
 *  - clg_rt_flag_assume_clear: the caller checked every index before its
 *    launches and has finished the queue, so the flag cannot be raised. */
const cl_mem *clg_rt_flag_buffer(const clg_context *ctx);
clg_status clg_rt_flag_arm(clg_context *ctx);
clg_status clg_rt_flag_read(clg_context *ctx, int *raised);
void clg_rt_flag_assume_clear(clg_context *ctx);

/* Waits for everything enqueued on the context's queue. */
clg_status clg_rt_finish(clg_context *ctx);
/* The same after an earlier failure: waits without touching the last
 * error; returns 0 when even that wait failed. */
int clg_rt_drain(clg_context *ctx);

/* ---------------------------------------------------------------- temporary */

/* A device buffer of `bytes` bytes for one call's extra pass (a packing
 * pass's scratch); not cached, so calls on other threads never share it.
 * Release with clg_rt_release (OpenCL defers it until the commands using
 * it are done). */
clg_status clg_rt_temp_buffer(clg_context *ctx, size_t bytes, cl_mem *out);

#endif
