/* SPDX-License-Identifier: Apache-2.0 */
/* The OpenCL runtime's interface to the operator layer (docs/design.md,
 * "Layers"). Not installed.
 *
 * host/ owns every OpenCL object and knows no operator: it describes the
 * device, makes and moves buffers, builds and caches programs, launches a
 * kernel it is handed with the arguments and geometry it is handed inside
 * a call that orders its commands, keeps the calls' error slots and waits
 * for them. src/ calls only what is declared here (and the public header),
 * and makes no OpenCL call itself. Every function here may be called by
 * several threads on one context at once.
 *
 * Every function that can fail records its message for the calling thread
 * and context (see clg_fail) and returns its status; OpenCL failures return
 * OPENCL_ERROR with the raw cl_int kept and the failing call named. */
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

/* Writes the calling thread's last error for ctx (ctx NULL: for calls made
 * without a context) and returns `status`. */
clg_status clg_fail(clg_context *ctx, clg_status status, const char *fmt, ...)
    CLG_PRINTF(3, 4);
/* Records an OpenCL failure: keeps the raw code, names the call; returns
 * OPENCL_ERROR. */
clg_status clg_fail_cl(clg_context *ctx, cl_int code, const char *call);
/* Records a command that did not complete: the message, its execution
 * status `exec_status` (< 0; clg_context_last_exec_status) and, as the raw
 * code, CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST (what clWaitForEvents
 * answers for such a command); returns OPENCL_ERROR. */
clg_status clg_fail_exec(clg_context *ctx, cl_int exec_status, const char *fmt,
                         ...) CLG_PRINTF(3, 4);
/* Clears the last error of ctx (or of the thread when ctx is NULL). */
void clg_clear_error(clg_context *ctx);
/* Records where the calling thread's host-memory call on ctx ran
 * (clg_context_last_path). */
void clg_set_last_path(clg_context *ctx, clg_path path);
/* Sets the calling thread's raw OpenCL code for ctx (after clg_fail). */
void clg_set_cl_error(clg_context *ctx, cl_int code);
/* Puts `prefix` before the calling thread's last error message for ctx,
 * keeping its raw OpenCL code; returns `status`. */
clg_status clg_prefix_error(clg_context *ctx, clg_status status,
                            const char *prefix);

/* ---------------------------------------------------------------- device */

/* What plans are made from. `plan_type` and `host_unified` are the device's
 * own, except under the test-only CLGATHER_TEST_PLAN=gpu, which makes any
 * device plan as a GPU does (GPU kernels and work-groups, copies instead of
 * host memory used in place) so that POCL compiles and checks them, and
 * CLGATHER_TEST_PLAN=cpu, which makes plan_type CPU (the CPU kernels on a
 * GPU-like device such as Oclgrind's). */
typedef struct clg_device_facts {
    clg_device_type plan_type;
    int host_unified; /* host memory may be used in place */
    /* Host memory in place goes to kernels as SVM pointers, not wrapped
     * in buffers: the device shares the host's address space at fine
     * grain (host/svm.c) and CLGATHER_SVM is not 0. Implies host_unified. */
    int host_svm;
    uint64_t max_alloc; /* bytes, CLGATHER_MAX_ALLOC applied */
    size_t max_wg_size; /* CL_DEVICE_MAX_WORK_GROUP_SIZE */
    size_t max_item_sizes[3];
    /* CL_DEVICE_GLOBAL_MEM_CACHE_SIZE, bytes, or on a CPU device sharing
     * host memory the host's largest cache where Linux names a larger one
     * (POCL reports the last-level cache, Intel's CPU runtime one core's
     * L2); 0 where neither says. */
    uint64_t cache_bytes;
    /* CL_DEVICE_MEM_BASE_ADDR_ALIGN in bytes: every buffer that does not
     * use a host pointer starts on it; 0 where the device does not say. */
    size_t base_align;
} clg_device_facts;

const clg_device_facts *clg_rt_facts(const clg_context *ctx);

/* Every field of the device parameters (CLG_PARAM_TABLE), by name and in
 * id order: clg_params's members first, then the fields reachable only by
 * name. */
#define CLG_PARAM_MEMBER_(ID, id, name, ...) unsigned name;
typedef struct clg_param_values {
    CLG_PARAM_TABLE(CLG_PARAM_MEMBER_)
} clg_param_values;
#undef CLG_PARAM_MEMBER_

/* A context's device parameters, kept by host/ for src/params.c, which
 * resolves them: `state` 0 until first used, then 1. */
typedef struct clg_rt_params {
    int state;
    clg_param_values value;
    clg_status status; /* OK, or INVALID_ARGUMENT for a bad CLGATHER_PARAMS */
    char message[640];
} clg_rt_params;

/* Locks ctx's parameters and returns them; clg_rt_params_unlock ends. */
clg_rt_params *clg_rt_params_lock(clg_context *ctx);
void clg_rt_params_unlock(clg_context *ctx);

/* CLGATHER_PARAMS as read when ctx was created; "" when unset. */
const char *clg_rt_env_params(const clg_context *ctx);

/* OK when ctx was created in this process; in a child forked after its
 * creation INVALID_ARGUMENT, with a message saying so (docs/guide.md,
 * "Processes and fork"): its OpenCL objects and locks are the parent's,
 * and a call would hang on POCL. Costs nothing until a fork. */
clg_status clg_rt_check_process(const clg_context *ctx);

/* The context's id, unique in the process (never reused, unlike its
 * address): a key for caches of what never changes in a context. */
uint64_t clg_rt_id(const clg_context *ctx);

/* ---------------------------------------------------------------- calls */

/* One operator call's commands (host/call.c; docs/design.md, "Enqueue
 * and deferred errors"). A call enqueues everything on one queue, in
 * order: its first command waits on the caller's wait list, and on an
 * out-of-order queue each later one waits on the event of the one before.
 * The call's kernels report bad indices in its error slot (`err`, passed
 * as their `err` argument).
 *
 * A blocking call: clg_rt_call_open(BLOCKING) ... clg_rt_call_wait ...
 * clg_rt_call_close. A deferred call: clg_rt_call_open(DEFERRED) ...
 * clg_rt_call_defer, which hands its slot to the next clg_rt_collect;
 * between the two the context's deferred state is locked, so a deferred
 * call enqueues nothing that waits for the device. */

/* How a call's error slot is used:
 *  - BLOCKING: read by clg_rt_call_wait before the call returns;
 *  - DEFERRED: read by the next clg_rt_collect (clg_context_finish);
 *  - UNCHECKED: never read: the caller checked every index value before
 *    enqueueing, so no kernel can raise it (a shared sink). */
typedef enum clg_rt_call_kind {
    CLG_RT_CALL_BLOCKING,
    CLG_RT_CALL_DEFERRED,
    CLG_RT_CALL_UNCHECKED
} clg_rt_call_kind;

typedef struct clg_rt_slot clg_rt_slot;
typedef struct clg_rt_scratch clg_rt_scratch; /* below, "buffers" */
/* One enqueued command: its event (owned) and the API call that made it
 * (a static string, for messages). */
typedef struct clg_rt_cmd {
    cl_event ev;
    const char *what;
} clg_rt_cmd;
#define CLG_RT_INLINE_CMDS 4
typedef struct clg_rt_call {
    clg_context *ctx;
    cl_command_queue queue;
    clg_rt_call_kind kind;
    int chain;        /* out-of-order queue: each command waits on the last */
    int locked;       /* a deferred call holds the epoch lock */
    cl_uint num_wait; /* the caller's wait list, for the first command */
    const cl_event *wait;
    /* Every command's event since the last wait, kept until the commands
     * are waited for and their execution status checked (a deferred call:
     * until the collect), so that no runtime propagates a failure through
     * a released event (docs/design.md, "Enqueue and deferred errors").
     * The first CLG_RT_INLINE_CMDS live in `inline_cmds`, more in `cmds`
     * (owned; then every one is there). */
    clg_rt_cmd inline_cmds[CLG_RT_INLINE_CMDS];
    clg_rt_cmd *cmds;
    size_t ncmds, cmd_cap;
    int untracked;     /* an event could not be kept: wait with clFinish */
    cl_event last;     /* the last command's event (one of the above) */
    uint64_t enqueued; /* commands enqueued so far */
    cl_mem err;        /* the error slot's buffer */
    clg_rt_slot *slot;
    clg_rt_scratch *temps; /* clg_rt_call_temp's set, given back at close */
} clg_rt_call;

/* The library's own in-order queue, for host-memory calls: never behind a
 * caller's commands, so never stopped by a caller's failed event
 * (docs/design.md, "Enqueue and deferred errors"). */
cl_command_queue clg_rt_host_queue(clg_context *ctx);

/* Opens a call on `queue` (NULL: the context's queue) after the caller's
 * wait list. Checks that the queue belongs to the context's cl_context
 * and device, and the wait list (NULL with a count, a list without one, a
 * NULL or foreign event): INVALID_ARGUMENT; an event of the wait list that
 * has already failed (a negative execution status): OPENCL_ERROR naming
 * it (clg_fail_exec). Every command's event is kept (see
 * clg_rt_call); clg_rt_call_defer hands the last one out on request. */
clg_status clg_rt_call_open(clg_context *ctx, cl_command_queue queue,
                            cl_uint num_wait, const cl_event *wait,
                            clg_rt_call_kind kind, clg_rt_call *c);

/* For the next command of `c` (host/ only): its wait list, and where it
 * returns its event (`ev`); after the enqueue succeeded,
 * clg_rt_call_enqueued records the event with the call that made it
 * (`what`, static). */
cl_event *clg_rt_call_next(clg_rt_call *c, cl_uint *num_wait,
                           const cl_event **wait, cl_event *ev);
clg_status clg_rt_call_enqueued(clg_rt_call *c, cl_event ev, const char *what);

/* Waits until every command of `c` so far has completed, then checks the
 * execution status of each: one that did not complete (a negative status)
 * fails with OPENCL_ERROR naming the command and its status
 * (clg_fail_exec). Every blocking call goes through it before it delivers
 * a result. */
clg_status clg_rt_call_sync(clg_rt_call *c);

/* Ends a blocking call's commands: waits for them, checks their execution
 * status (as clg_rt_call_sync), reads the error slot (*raised: a kernel
 * met a bad index) and clears it. */
clg_status clg_rt_call_wait(clg_rt_call *c, int *raised);

/* Ends a deferred call: its slot, `info` (info_size bytes, copied; NULL:
 * nothing to report) and `keep` (retained until the collect; may be NULL)
 * go to the next clg_rt_collect; *event (when event is not NULL) gets an
 * event that completes with the call's last command, owned by the caller.
 * Unlocks. */
clg_status clg_rt_call_defer(clg_rt_call *c, const void *info,
                             size_t info_size, cl_mem keep, cl_event *event);

/* Releases what a call holds. After a failure (`failed`) with commands
 * enqueued: a blocking or unchecked call waits for them (its slot is not
 * reused when even that fails); a deferred one hands its slot to the next
 * collect with nothing to report. Unlocks a deferred call. Returns 0 when
 * commands of the call may still run (a failed wait: their buffers must
 * not be reused), else 1. Safe on a call that failed to open. */
int clg_rt_call_close(clg_rt_call *c, int failed);

/* The number, from 1, that deferred call `c` (open, not yet deferred)
 * gets when clg_rt_call_defer records it with an info: the context's
 * accepted operations are numbered without gaps, a refused enqueue takes
 * none. The epoch lock the call holds keeps it from changing meanwhile. */
uint64_t clg_rt_sequence(const clg_rt_call *c);

/* What a collect hands back for each deferred call, in enqueue order. */
typedef struct clg_rt_deferred {
    void *info; /* as given to clg_rt_call_defer; NULL: nothing */
    cl_mem keep;
    int raised;
    cl_int status;      /* < 0: a command of the call did not complete */
    int failed_gate;    /* the first event of its wait list that failed; -1 */
    cl_int gate_status; /* that event's execution status (< 0) */
} clg_rt_deferred;

/* Waits for the commands of every deferred call not yet collected (their
 * events: not for other commands on the same queues) and reads their
 * error slots. *out (count *n) is freed with clg_rt_deferred_free. One
 * collect at a time: a collect waits for the one before. */
clg_status clg_rt_collect(clg_context *ctx, clg_rt_deferred **out, size_t *n);

/* Which deferred calls a collect takes: those enqueued on `queue` (the
 * queue as resolved at enqueue: the context's own for NULL), or, with
 * by_events, those whose event (as clg_rt_call_defer handed it out) is
 * one of events[0 .. num_events-1]. */
typedef struct clg_rt_select {
    cl_command_queue queue;
    int by_events;
    cl_uint num_events;
    const cl_event *events;
} clg_rt_select;

/* clg_rt_collect of the calls `sel` selects (NULL: all) only; the others
 * stay pending, for a later collect. */
clg_status clg_rt_collect_some(clg_context *ctx, const clg_rt_select *sel,
                               clg_rt_deferred **out, size_t *n);
void clg_rt_deferred_free(clg_rt_deferred *list, size_t n);

/* A buffer's bytes [offset, offset + bytes) read to `host`, blocking, on
 * the library's own queue (for reports after a wait). */
clg_status clg_rt_read(clg_context *ctx, cl_mem buf, uint64_t offset,
                       void *host, size_t bytes);

/* Bits of clg_rt_validation: CLGATHER_VALIDATE or clg_context_set_validate
 * (every host-memory call is compared with the reference), and the
 * test-only hooks that make a device result wrong on purpose and the
 * reference's allocation fail. */
#define CLG_RT_VALIDATE 1u
#define CLG_RT_TEST_CORRUPT 2u
#define CLG_RT_TEST_NO_MEMORY 4u /* the reference's allocation fails */
unsigned clg_rt_validation(const clg_context *ctx);

/* ---------------------------------------------------------------- buffers */

/* Wraps caller memory in place (CL_MEM_USE_HOST_PTR); `writable` selects
 * write-only (the output) over read-only (inputs). Release with
 * clg_rt_release. */
clg_status clg_rt_wrap(clg_context *ctx, void *host, size_t bytes,
                       int writable, cl_mem *out);

/* A set of the copy path's scratch buffers, one per tensor role: taken
 * from the context's pool by one call at a time and grown as needed;
 * handed back by clg_rt_scratch_give (lost = 1 after a failure the queue
 * could not drain: never reused). */
typedef enum clg_scratch_slot {
    CLG_SCRATCH_DATA = 0,
    CLG_SCRATCH_INDICES = 1,
    CLG_SCRATCH_OUTPUT = 2,
    CLG_SCRATCH_TEMP = 3, /* a blocking call's extra pass (clg_rt_call_temp) */
    CLG_SCRATCH_COUNT = 4
} clg_scratch_slot;
clg_status clg_rt_scratch_take(clg_context *ctx, clg_rt_scratch **out);
clg_status clg_rt_scratch_buffer(clg_context *ctx, clg_rt_scratch *set,
                                 clg_scratch_slot slot, size_t bytes,
                                 cl_mem *out);
void clg_rt_scratch_give(clg_context *ctx, clg_rt_scratch *set, int lost);

/* A small read-only buffer holding a copy of `bytes` at `host`. */
clg_status clg_rt_const_buffer(clg_context *ctx, const void *host,
                               size_t bytes, cl_mem *out);

/* A small read-write buffer holding a copy of `bytes` at `host`. */
clg_status clg_rt_copy_buffer(clg_context *ctx, const void *host, size_t bytes,
                              cl_mem *out);

/* Releases a buffer made by clg_rt_wrap, clg_rt_const_buffer or
 * clg_rt_copy_buffer and sets
 * *buf to NULL; NULL is accepted. OpenCL defers the release until the
 * commands using it are done. */
void clg_rt_release(cl_mem *buf);

/* Enqueues a copy host -> buffer in call `c` (non-blocking: `host` must
 * stay valid until the call's commands are done). */
clg_status clg_rt_upload(clg_rt_call *c, cl_mem buf, const void *host,
                         size_t bytes);
/* A buffer viewing bytes [offset, offset + bytes) of `buf`
 * (clCreateSubBuffer, the parent's flags): `offset` must be a multiple of
 * the device's base address alignment (clg_device_facts.base_align). */
clg_status clg_rt_sub_buffer(clg_context *ctx, cl_mem buf, uint64_t offset,
                             size_t bytes, cl_mem *out);
/* A new read-write device buffer of `bytes` (at least 1). */
clg_status clg_rt_new_buffer(clg_context *ctx, size_t bytes, cl_mem *out);
/* Enqueues a copy of `bytes` from `src` at src_offset to `dst` at
 * dst_offset in call `c` (clEnqueueCopyBuffer). */
clg_status clg_rt_copy(clg_rt_call *c, cl_mem src, uint64_t src_offset,
                       cl_mem dst, uint64_t dst_offset, size_t bytes);
/* Enqueues a copy buffer -> host in call `c`; `blocking` waits for it. */
clg_status clg_rt_download(clg_rt_call *c, cl_mem buf, void *host,
                           size_t bytes, int blocking);
/* Makes what the device wrote into a wrapped buffer visible in the
 * caller's memory (a map and unmap: a no-op where memory is truly shared,
 * a copy on implementations that keep a device copy). `map_wait`: wait
 * for the map to complete before enqueueing the unmap (the row's
 * map_wait, clgather.h). */
clg_status clg_rt_publish(clg_rt_call *c, cl_mem buf, size_t bytes,
                          int map_wait);

/* The alignment, in bytes (a power of two, at most 4096), that the
 * kernels see for the memory a launch takes: `svm`'s where it is not NULL,
 * else buf's, where the device address of a buffer is known only from its
 * host pointer (CL_MEM_USE_HOST_PTR; a sub-buffer's includes its origin,
 * OpenCL 1.2 section 5.4.5) or the device's base alignment. 1 where a
 * query fails: the answer only ever enables a faster store. */
size_t clg_rt_mem_alignment(clg_context *ctx, cl_mem buf, const void *svm);

/* Checks a caller's buffer for a tensor of `bytes` bytes at byte
 * `offset`: present when bytes > 0, of this context's cl_context, and
 * large enough. `what` names it in the message. */
clg_status clg_rt_check_buffer(clg_context *ctx, const char *what, cl_mem buf,
                               uint64_t offset, uint64_t bytes);

/* ---------------------------------------------------------------- programs */

/* The kernel `name` of the program built from the embedded kernel files
 * `files[0 .. nfiles-1]` (concatenated in order) with build `options`.
 * Programs are built on first use and cached in the context by (files,
 * options); kernels by name within their program. A failed build returns
 * BUILD_FAILED and keeps the log (clg_context_build_log). The kernel stays
 * owned by the context. *verdict (when not NULL) gets the self-test
 * verdict of entry point `name` in that program: a kernel whose entry
 * point has not PASSED is for the self-test alone. */
/* How far the known-answer self-test of one entry point of a program has
 * got (docs/design.md, "Known-answer self-test"). The runtime only keeps
 * the verdicts: the operator layer picks the cases, runs them and gives
 * them. */
typedef enum clg_rt_verdict {
    CLG_RT_UNTESTED = 0, /* not yet tested in this context, nor recorded as
                            passed in the disk entry the program came from */
    CLG_RT_PASSED = 1,   /* tested, or recorded as passed on disk */
    CLG_RT_FAILED = 2    /* its results differ from the reference */
} clg_rt_verdict;

clg_status clg_rt_kernel(clg_context *ctx, const char *const *files,
                         size_t nfiles, const char *options, const char *name,
                         cl_kernel *out, clg_rt_verdict *verdict);

/* Begins the self-test of entry point `name` of the cached program of
 * (files, options) (built by clg_rt_kernel). Returns its verdict;
 * UNTESTED: the calling thread now holds the context's test lock and must
 * run the test and call clg_rt_program_test_end once (other threads
 * asking wait for it). FAILED: msg gets the failure's message. One test
 * at a time per context; a test may run inside any call, a deferred one
 * included, so it must take none of the epoch's resources (error slots,
 * scratch, temporaries; an UNCHECKED call on clg_rt_host_queue with its
 * own buffers does). */
clg_rt_verdict clg_rt_program_test_begin(clg_context *ctx,
                                         const char *const *files,
                                         size_t nfiles, const char *options,
                                         const char *name, char *msg,
                                         size_t cap);

/* Ends that test with `verdict` for the entry points names[0 .. n-1] (the
 * one begun, and any other whose kernel ran in its cases). PASSED: each
 * is recorded as passed and, when that adds one, the program's binary is
 * stored in the disk cache (again) with every entry point that passed so
 * far: the disk entry names those, and only those, so a program loaded
 * from it is tested only for the others. FAILED: each keeps `message`,
 * is never recorded as passed, and every later clg_rt_program_test_begin
 * for it answers FAILED; the program's other entry points are unaffected.
 * UNTESTED (the test could not run) leaves them for the next request.
 * Unlocks. */
void clg_rt_program_test_end(clg_context *ctx, const char *const *files,
                             size_t nfiles, const char *options,
                             const char *const *names, size_t n,
                             clg_rt_verdict verdict, const char *message);

/* A memo of kernels by a caller's binary key (at most CLG_MEMO_KEY_MAX
 * bytes), so that a repeated call finds its kernel without formatting
 * build options: clg_rt_kernel_memo answers 1 and sets *out on a hit;
 * clg_rt_kernel_memo_store remembers a kernel clg_rt_kernel returned. */
#define CLG_MEMO_KEY_MAX 96
int clg_rt_kernel_memo(clg_context *ctx, const void *key, size_t len,
                       cl_kernel *out);
void clg_rt_kernel_memo_store(clg_context *ctx, const void *key, size_t len,
                              cl_kernel kernel);

/* ---------------------------------------------------------------- launch */

/* One kernel argument: its size and address (cl_mem handles by address).
 * Size 0 (which no argument has for clSetKernelArg) marks an SVM pointer:
 * `value` is itself the host address the kernel reads or writes (a device
 * with host_svm; set with clSetKernelArgSVMPointer). */
typedef struct clg_rt_arg {
    size_t size;
    const void *value;
    /* 1: a value passed by copy, a scalar or a struct of scalars (never
     * a cl_mem), which a launch skips setting when the kernel already
     * holds the same bytes (CLG_RT_SCALAR; docs/design.md, "Cost per
     * call"). */
    int scalar;
} clg_rt_arg;

/* The argument of scalar variable `v` (an lvalue of at most 8 bytes). */
#define CLG_RT_SCALAR(v) ((clg_rt_arg){sizeof(v), &(v), 1})
/* The argument of cl_mem variable `m`: set at every launch. */
#define CLG_RT_BUFFER(m) ((clg_rt_arg){sizeof(cl_mem), &(m), 0})

/* The argument of a tensor: its SVM address where `svm` is not NULL, else
 * the buffer *buf. */
clg_rt_arg clg_rt_mem_arg(const cl_mem *buf, const void *svm);

/* An NDRange: `dims` (1 to 3) dimensions with global work offset `origin`,
 * global size `global` (a multiple of `local` in every dimension) and
 * work-group size `local`. */
typedef struct clg_geometry {
    unsigned dims;
    size_t origin[3];
    size_t global[3];
    size_t local[3];
} clg_geometry;

/* Sets args[0 .. nargs-1] on `kernel` and enqueues it over `g` in call
 * `c` (no wait); the two are one step for other threads. Where the
 * device's grid is limited (GPUs: 65535 work-groups in dimensions 1 and 2)
 * the range is enqueued in several launches. */
clg_status clg_rt_launch(clg_rt_call *c, cl_kernel kernel,
                         const clg_rt_arg *args, size_t nargs,
                         const clg_geometry *g);

/* ---------------------------------------------------------------- temporary */

/* A device buffer of at least `bytes` bytes for an extra pass of call c
 * (the packed strips, the normalised indices), whose contents no one
 * else uses while c's commands run; release it with clg_rt_release
 * (OpenCL defers that until the commands using it are done). A blocking
 * or unchecked call, which waits for its commands before it closes, takes
 * it from a scratch set of the context's pool, given back by
 * clg_rt_call_close (as lost when commands may still run), so that later
 * calls reuse it: a new buffer per call cost Intel's CPU runtime 4-7 ms
 * of page faults on a 4 MiB pack (docs/decisions.md).
 * Later passes of the same call may take it again: the call's commands
 * run in order. A deferred call's commands outlive it, so it gets a new
 * buffer. */
clg_status clg_rt_call_temp(clg_rt_call *c, size_t bytes, cl_mem *out);

/* ---------------------------------------------------------------- plans */

/* A call's plan as data (docs/design.md, "Plans"), built by the operator
 * layer from the problem, the device facts and the parameters read once,
 * compiled there (every kernel resolved) and run here by one executor
 * (host/execute.c), which knows no operator: kernels with argument lists
 * whose buffers are symbolic, boxes of launches, their windows and the
 * call's I/O mode. */

/* What a plan argument stands for: */
typedef enum clg_rt_ref {
    CLG_RT_REF_VALUE,   /* the scalar `value`, held in the plan */
    CLG_RT_REF_DATA,    /* the window's data (buffer or SVM pointer) */
    CLG_RT_REF_INDICES, /* the window's indices */
    CLG_RT_REF_OUTPUT,  /* the window's output */
    CLG_RT_REF_ERR,     /* the call's error slot */
    CLG_RT_REF_TEMP,    /* the box's temporary (clg_rt_call_temp) */
    CLG_RT_REF_CONST,   /* the plan's small buffer number `value` */
    CLG_RT_REF_WINDOW,  /* window bound number `value` (a scalar): data
                           base, data length, index base, index length,
                           output base, output length */
    CLG_RT_REF_PASS,    /* the pass's first position (a scalar) */
    CLG_RT_REF_NULL,    /* no buffer (a NULL cl_mem) */
    CLG_RT_REF_FIELDS   /* a struct of cl_ulong fields passed by value: the
                           kernel use's `fields`, each a VALUE, WINDOW or
                           PASS (at most one such argument per kernel) */
} clg_rt_ref;

/* One argument of a plan's kernel: a cl_ulong scalar or a reference. */
typedef struct clg_rt_parg {
    clg_rt_ref ref;
    cl_ulong value;
} clg_rt_parg;

#define CLG_RT_PLAN_ARGS 12   /* arguments of one kernel, at most */
#define CLG_RT_PLAN_FIELDS 16 /* fields of its CLG_RT_REF_FIELDS struct */
#define CLG_RT_PLAN_KERNELS 4 /* distinct kernels of one plan */
#define CLG_RT_PLAN_CONSTS 2  /* small read-only buffers of one plan */
#define CLG_RT_BOX_STEPS 3    /* launches of one box, at most */

/* A kernel of the plan and its arguments in parameter order, with the
 * fields of its CLG_RT_REF_FIELDS argument where it has one; `kernel` is
 * set by the compile step, before the plan runs. */
typedef struct clg_rt_kernel_use {
    cl_kernel kernel;
    size_t nargs;
    clg_rt_parg args[CLG_RT_PLAN_ARGS];
    size_t nfields;
    clg_rt_parg fields[CLG_RT_PLAN_FIELDS];
} clg_rt_kernel_use;

/* One launch: kernel number `kernel` of the plan over `g`. */
typedef struct clg_rt_step {
    unsigned kernel;
    clg_geometry g;
} clg_rt_step;

/* A box: the launches that write one piece of the output, run once per
 * data window of [first, end) (units); its output window (units) and
 * index window (elements). With pass_total > 0 its steps run once per pass
 * of pass_chunk positions of dimension 2 (origin z0, size the pass's
 * count, CLG_RT_REF_PASS = z0). temp_bytes > 0: the box's temporary. */
typedef struct clg_rt_box {
    int64_t out_base, out_len;
    int64_t index_base, index_len;
    int64_t first, end;
    size_t step0, nsteps;
    int64_t pass_total, pass_chunk;
    size_t temp_bytes;
} clg_rt_box;

/* Where a host-memory call's tensors go (docs/design.md, "Host memory and
 * device buffers"). */
typedef enum clg_rt_io {
    CLG_RT_IO_BUFFERS, /* device buffers the caller gave (no host memory) */
    CLG_RT_IO_COPY,    /* scratch buffers: uploads, a download */
    CLG_RT_IO_WRAP,    /* caller memory wrapped in place; published */
    CLG_RT_IO_SVM      /* caller memory in place as SVM pointers */
} clg_rt_io;

/* Which check raised when clg_rt_execute returns: */
typedef enum clg_rt_raised {
    CLG_RT_RAISED_NONE = 0,
    CLG_RT_RAISED_SLOT = 1,    /* the call's error slot (the copy path) */
    CLG_RT_RAISED_PRECHECK = 2 /* the check kernel run before any launch */
} clg_rt_raised;

typedef struct clg_rt_plan {
    clg_rt_kernel_use kernels[CLG_RT_PLAN_KERNELS];
    size_t nkernels;
    cl_ulong consts[CLG_RT_PLAN_CONSTS][1 + 2 * CLG_MAX_RANK];
    size_t const_len[CLG_RT_PLAN_CONSTS]; /* cl_ulongs */
    size_t nconsts;
    /* Steps and boxes: inline for a whole call, else allocated once
     * (owned; clg_rt_plan_free). */
    clg_rt_step inline_steps[CLG_RT_BOX_STEPS];
    clg_rt_box inline_box;
    clg_rt_step *steps;
    clg_rt_box *boxes;
    size_t nsteps, step_cap, nboxes, box_cap;
    /* Host memory (clg_rt_execute): the caller's tensors, and how. */
    clg_rt_io io;
    int out_copy; /* in place, the output through a scratch buffer */
    int whole;    /* one box, one data window */
    int checked;  /* every index checked before the launches: the call's
                     slot is never read */
    int precheck; /* kernel number precheck_kernel over the wrapped indices
                     in a blocking call of its own first (1), or not (0) */
    unsigned precheck_kernel;
    clg_geometry precheck_g;
    int map_wait; /* the row's map_wait (clg_rt_publish) */
    char *data, *indices, *output;
    size_t unit, index_size; /* bytes of a data unit, of an index value */
    int64_t window_units;    /* units per data window */
    uint64_t index_bytes, out_bytes;
} clg_rt_plan;

/* Frees the lists a split plan allocated; the plan stays usable empty. */
void clg_rt_plan_free(clg_rt_plan *plan);

/* Enqueues box `box`'s launches in open call `c` over the caller's device
 * buffers (one data window, the box's own): its small buffers and
 * temporary are made and released around them. */
clg_status clg_rt_run_box(clg_rt_call *c, const clg_rt_plan *plan,
                          const clg_rt_box *box, cl_mem data, cl_mem indices,
                          cl_mem output);

/* Runs a compiled host-memory plan whole: the check kernel first where it
 * says, scratch buffers, uploads, every launch of every box and window,
 * publish or download, the wait and the close; a split call's output goes
 * through a staging copy that reaches the caller's memory only once every
 * piece succeeded. OK with *raised CLG_RT_RAISED_NONE: the result is in the
 * caller's output; OK with *raised set: a check raised and the caller's
 * output is untouched (the operator layer names the bad index); else the
 * failure. */
clg_status clg_rt_execute(clg_context *ctx, const clg_rt_plan *plan,
                          clg_rt_raised *raised);

#endif
