/* SPDX-License-Identifier: Apache-2.0 */
/* Fault injection over every OpenCL call (docs/design.md, "Errors"): for
 * each path (host memory in place and copied, whole and split into pieces,
 * the index-check kernel, device buffers) the call is run once to count
 * its OpenCL calls, context creation included, then once per call with
 * that call made to fail. Every run must give the right status with the
 * failing call named (or OK and the right result, where the library can do
 * without the call: `can_do_without`), the output contract, and a context
 * that works after.
 * Scenarios with an out-of-range mode other than raise plant values far
 * out of range, which their kernels resolve: no error to defer, the
 * reference's output under the same mode expected. GatherND runs with
 * batch_dims 0 and tuples of one component (indices [n, 1]: rows of data)
 * on each kind of path, under each mode.
 */
#define _POSIX_C_SOURCE 200809L
#include "clg_test.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cl_fault.h"

typedef enum path {
    HOST_IN_PLACE,
    HOST_CHECK_KERNEL,
    HOST_COPY,
    HOST_SPLIT_IN_PLACE,
    HOST_SPLIT_COPY,
    DEVICE_BUFFERS,
    ENQUEUE /* clg_enqueue_*, then clg_context_finish */
} path;

/* The persistent program cache (docs/design.md, "Program cache"): off,
 * emptied before every run (each build is stored: the binary is read out
 * of the program), filled before the first (each program is loaded from
 * its binary, with the entry points its self-test passed), or filled and
 * its verdicts forgotten before every run (CACHE_UNTESTED: each program
 * is loaded from its binary and each entry point self-tested, as after a
 * build from source). */
typedef enum cache_mode {
    CACHE_OFF,
    CACHE_EMPTY,
    CACHE_FILLED,
    CACHE_UNTESTED
} cache_mode;

/* Where an ENQUEUE scenario enqueues. */
typedef enum queue_kind {
    CONTEXT_QUEUE, /* NULL */
    OWN_QUEUE,     /* an in-order queue of the test's */
    OUT_OF_ORDER   /* an out-of-order one, where the device has them */
} queue_kind;

typedef struct scenario {
    const char *name;
    path path;
    clg_op op;
    int gpu_plan;          /* CLGATHER_TEST_PLAN=gpu: the copy path on POCL */
    int split;             /* CLGATHER_MAX_ALLOC=1024 */
    int64_t rows, cols, n; /* data [rows, cols]; Gather: n indices */
    queue_kind queue;      /* ENQUEUE */
    int bad;               /* indices[3] = 1000 (raise: an error, deferred
                              on ENQUEUE); other modes also plant -1000
                              and INT64_MIN */
    const char *params;    /* CLGATHER_PARAMS, or NULL */
    cache_mode cache;
    clg_oob_mode oob; /* the calls' out-of-range mode */
} scenario;

/* A scenario with the cache off builds every program from source in each
 * of its runs: the build's calls are made to fail there. Each path, each
 * kind of program (Gather's, GatherElements' with the check kernel, the
 * normalising pass, GatherND's, the GPU plan's) and the empty enqueue
 * have such a scenario. The others load their programs from binaries
 * whose verdicts are forgotten (CACHE_UNTESTED): their launches' and
 * their self-tests' calls are the same as after a build from source, and
 * a build from source costs each of their runs a preprocessing of the
 * whole source on POCL (a third of the test's time when every scenario
 * built). */
static const scenario scenarios[] = {
    {"host, in place", HOST_IN_PLACE, CLG_OP_GATHER, 0, 0, 64, 16, 10,
     CONTEXT_QUEUE, 0, NULL, CACHE_OFF, CLG_OOB_RAISE},
    {"host, in place, check kernel", HOST_CHECK_KERNEL, CLG_OP_GATHER_ELEMENTS,
     0, 0, 300, 300, 0, CONTEXT_QUEUE, 0, NULL, CACHE_OFF, CLG_OOB_RAISE},
    {"host, copied", HOST_COPY, CLG_OP_GATHER_ELEMENTS, 1, 0, 20, 30, 0,
     CONTEXT_QUEUE, 0, NULL, CACHE_OFF, CLG_OOB_RAISE},
    /* Split with 1 KiB buffers: 2 runs of indices x 2 data windows; 2
     * pieces of rows x 2 data windows. */
    {"host, split, in place", HOST_SPLIT_IN_PLACE, CLG_OP_GATHER, 0, 1, 40, 7,
     40, CONTEXT_QUEUE, 0, NULL, CACHE_OFF, CLG_OOB_RAISE},
    {"host, split, copied", HOST_SPLIT_COPY, CLG_OP_GATHER_ELEMENTS, 1, 1, 16,
     20, 0, CONTEXT_QUEUE, 0, NULL, CACHE_OFF, CLG_OOB_RAISE},
    {"device buffers", DEVICE_BUFFERS, CLG_OP_GATHER, 0, 0, 50, 12, 33,
     CONTEXT_QUEUE, 0, NULL, CACHE_OFF, CLG_OOB_RAISE},
    /* Enqueued with a wait list (a pending user event and a marker) and
     * an event, then finished. */
    {"enqueue, context queue", ENQUEUE, CLG_OP_GATHER, 0, 0, 50, 12, 33,
     CONTEXT_QUEUE, 0, NULL, CACHE_UNTESTED, CLG_OOB_RAISE},
    {"enqueue, own queue", ENQUEUE, CLG_OP_GATHER_ELEMENTS, 0, 0, 20, 30, 0,
     OWN_QUEUE, 0, NULL, CACHE_UNTESTED, CLG_OOB_RAISE},
    {"enqueue, out-of-order queue, GPU plan", ENQUEUE, CLG_OP_GATHER, 1, 0, 50,
     12, 33, OUT_OF_ORDER, 0, NULL, CACHE_UNTESTED, CLG_OOB_RAISE},
    {"enqueue, nothing to launch (a marker)", ENQUEUE, CLG_OP_GATHER, 0, 0, 8,
     4, 0, OWN_QUEUE, 0, NULL, CACHE_OFF, CLG_OOB_RAISE},
    {"enqueue, deferred index error", ENQUEUE, CLG_OP_GATHER, 0, 0, 50, 12, 33,
     OWN_QUEUE, 1, NULL, CACHE_UNTESTED, CLG_OOB_RAISE},
    /* Outputs of 1 KiB or more with norm=1: the normalising pass, its
     * temporary and the trusted body (docs/design.md, "Kernels"). */
    {"host, in place, normalising pass", HOST_IN_PLACE, CLG_OP_GATHER, 0, 0,
     50, 12, 33, CONTEXT_QUEUE, 0, "norm=1", CACHE_OFF, CLG_OOB_RAISE},
    {"device buffers, normalising pass", DEVICE_BUFFERS, CLG_OP_GATHER, 0, 0,
     50, 12, 33, CONTEXT_QUEUE, 0, "norm=1", CACHE_UNTESTED, CLG_OOB_RAISE},
    {"enqueue, deferred index error, normalising pass", ENQUEUE, CLG_OP_GATHER,
     0, 0, 50, 12, 33, OWN_QUEUE, 1, "norm=1", CACHE_UNTESTED, CLG_OOB_RAISE},
    /* The program cache: every call's build stored, or loaded. */
    {"host, in place, program cache empty", HOST_IN_PLACE, CLG_OP_GATHER, 0, 0,
     64, 16, 10, CONTEXT_QUEUE, 0, NULL, CACHE_EMPTY, CLG_OOB_RAISE},
    {"host, in place, program cache filled", HOST_IN_PLACE, CLG_OP_GATHER, 0,
     0, 64, 16, 10, CONTEXT_QUEUE, 0, NULL, CACHE_FILLED, CLG_OOB_RAISE},
    {"device buffers, GPU plan, program cache filled", DEVICE_BUFFERS,
     CLG_OP_GATHER_ELEMENTS, 1, 0, 20, 30, 0, CONTEXT_QUEUE, 0, NULL,
     CACHE_FILLED, CLG_OOB_RAISE},
    /* The other out-of-range modes, values out of range resolved. */
    {"host, in place, fill", HOST_IN_PLACE, CLG_OP_GATHER, 0, 0, 64, 16, 10,
     CONTEXT_QUEUE, 1, NULL, CACHE_UNTESTED, CLG_OOB_FILL},
    {"host, in place, normalising pass, fill", HOST_IN_PLACE, CLG_OP_GATHER, 0,
     0, 50, 12, 33, CONTEXT_QUEUE, 1, "norm=1", CACHE_UNTESTED, CLG_OOB_FILL},
    {"host, copied, clip", HOST_COPY, CLG_OP_GATHER_ELEMENTS, 1, 0, 20, 30, 0,
     CONTEXT_QUEUE, 1, NULL, CACHE_UNTESTED, CLG_OOB_CLIP},
    {"host, split, copied, wrap", HOST_SPLIT_COPY, CLG_OP_GATHER_ELEMENTS, 1,
     1, 16, 20, 0, CONTEXT_QUEUE, 1, NULL, CACHE_UNTESTED, CLG_OOB_WRAP},
    {"device buffers, normalising pass, clip", DEVICE_BUFFERS, CLG_OP_GATHER,
     0, 0, 50, 12, 33, CONTEXT_QUEUE, 1, "norm=1", CACHE_UNTESTED,
     CLG_OOB_CLIP},
    {"enqueue, own queue, wrap", ENQUEUE, CLG_OP_GATHER_ELEMENTS, 0, 0, 20, 30,
     0, OWN_QUEUE, 1, NULL, CACHE_UNTESTED, CLG_OOB_WRAP},
    {"enqueue, GPU plan, fill", ENQUEUE, CLG_OP_GATHER, 1, 0, 50, 12, 33,
     CONTEXT_QUEUE, 1, NULL, CACHE_OFF, CLG_OOB_FILL},
    /* GatherND: its launches also make the buffer of the tuple's dims. */
    {"host, in place, GatherND", HOST_IN_PLACE, CLG_OP_GATHER_ND, 0, 0, 64, 16,
     10, CONTEXT_QUEUE, 0, NULL, CACHE_OFF, CLG_OOB_RAISE},
    {"host, copied, GatherND, fill", HOST_COPY, CLG_OP_GATHER_ND, 1, 0, 20, 30,
     12, CONTEXT_QUEUE, 1, NULL, CACHE_OFF, CLG_OOB_FILL},
    {"host, split, in place, GatherND, wrap", HOST_SPLIT_IN_PLACE,
     CLG_OP_GATHER_ND, 0, 1, 40, 7, 40, CONTEXT_QUEUE, 1, NULL, CACHE_UNTESTED,
     CLG_OOB_WRAP},
    {"device buffers, GPU plan, GatherND, clip", DEVICE_BUFFERS,
     CLG_OP_GATHER_ND, 1, 0, 50, 12, 33, CONTEXT_QUEUE, 1, NULL,
     CACHE_UNTESTED, CLG_OOB_CLIP},
    {"enqueue, deferred index error, GatherND", ENQUEUE, CLG_OP_GATHER_ND, 0,
     0, 50, 12, 33, OWN_QUEUE, 1, NULL, CACHE_UNTESTED, CLG_OOB_RAISE},
};

/* The scenario's host-memory call, or the CPU reference (ctx NULL). */
static clg_status call_host(const scenario *s, clg_context *ctx,
                            const clg_tensor *d, const clg_tensor *i,
                            const clg_tensor *o)
{
    clg_call_options opt = {.oob = s->oob};
    if (!ctx)
        return s->op == CLG_OP_GATHER
                   ? clg_reference_gather_ex(NULL, d, i, 0, o, &opt)
               : s->op == CLG_OP_GATHER_ND
                   ? clg_reference_gather_nd_ex(NULL, d, i, 0, o, &opt)
                   : clg_reference_gather_elements_ex(NULL, d, i, 0, o, &opt);
    return s->op == CLG_OP_GATHER ? clg_gather_ex(ctx, d, i, 0, o, &opt)
           : s->op == CLG_OP_GATHER_ND
               ? clg_gather_nd_ex(ctx, d, i, 0, o, &opt)
               : clg_gather_elements_ex(ctx, d, i, 0, o, &opt);
}

/* The tensors of one scenario and the expected output. */
typedef struct tensors {
    float *data, *out, *want;
    int64_t *idx;
    int64_t dshape[2], ishape[2], oshape[2];
    size_t ibytes, obytes;
    clg_tensor d, i, o;
    /* ENQUEUE: the failed enqueue's message and code, kept before the
     * finish that follows it clears them. */
    char message[1024];
    cl_int cl_error;
    int saved;
} tensors;

/* aligned_alloc with the size rounded up to a multiple of 64, as C11
 * requires of it (7.22.3.1); AddressSanitizer holds callers to that, and
 * answers NULL (or, without allocator_may_return_null, a report) for a
 * size such as 144. */
static void *alloc64(size_t bytes)
{
    return aligned_alloc(64, (bytes + 63) / 64 * 64);
}

static void tensors_make(const scenario *s, tensors *t)
{
    memset(t, 0, sizeof *t);
    t->dshape[0] = s->rows;
    t->dshape[1] = s->cols;
    /* Gather: indices [n]; GatherElements: [rows, cols]; GatherND: [n, 1]
     * (rows of data); the output [n, cols] or [rows, cols]. */
    int elements = s->op == CLG_OP_GATHER_ELEMENTS;
    size_t irank = s->op == CLG_OP_GATHER ? 1 : 2;
    t->ishape[0] = elements ? s->rows : s->n;
    t->ishape[1] = elements ? s->cols : 1;
    int64_t icount = irank == 1 ? t->ishape[0] : t->ishape[0] * t->ishape[1];
    t->oshape[0] = elements ? s->rows : s->n;
    t->oshape[1] = s->cols;
    size_t dcount = (size_t)(s->rows * s->cols);
    size_t ocount = (size_t)(t->oshape[0] * t->oshape[1]);
    t->data = alloc64(dcount * 4 + 64);
    t->out = alloc64(ocount * 4 + 64);
    t->want = malloc(ocount * 4 + 4);
    t->idx = alloc64((size_t)icount * 8 + 64);
    assert_non_null(t->data);
    assert_non_null(t->out);
    assert_non_null(t->want);
    assert_non_null(t->idx);
    for (size_t k = 0; k < dcount; k++)
        t->data[k] = (float)k + 0.5f;
    for (int64_t k = 0; k < icount; k++)
        t->idx[k] = (k * 7919) % s->rows - (k % 3 == 0 ? s->rows : 0);
    t->ibytes = (size_t)icount * 8;
    t->obytes = ocount * 4;
    t->d = (clg_tensor){CLG_DTYPE_FLOAT, 2, t->dshape, t->data};
    t->i = (clg_tensor){CLG_DTYPE_INT64, irank, t->ishape, t->idx};
    t->o = (clg_tensor){CLG_DTYPE_FLOAT, 2, t->oshape, t->want};
    if (s->bad && s->oob != CLG_OOB_RAISE) {
        t->idx[0] = -1000;
        t->idx[3] = 1000;
        t->idx[4] = INT64_MIN;
    }
    CLG_ASSERT_OK(NULL, call_host(s, NULL, &t->d, &t->i, &t->o));
    t->o.data = t->out;
    if (s->bad)
        t->idx[3] = 1000;
}

/* The status a run gives when no call fails. */
static clg_status expected(const scenario *s)
{
    return s->bad && s->oob == CLG_OOB_RAISE ? CLG_STATUS_INDEX_OUT_OF_RANGE
                                             : CLG_STATUS_OK;
}

static void tensors_free(tensors *t)
{
    free(t->data);
    free(t->out);
    free(t->want);
    free(t->idx);
}

/* The cache folder of the scenarios that use the cache. */
static char cache_dir[512];

static void set_env(const scenario *s)
{
    setenv("CLGATHER_CACHE", s->cache == CACHE_OFF ? "0" : "1", 1);
    setenv("CLGATHER_CACHE_DIR", cache_dir, 1);
    if (s->gpu_plan)
        setenv("CLGATHER_TEST_PLAN", "gpu", 1);
    else
        unsetenv("CLGATHER_TEST_PLAN");
    if (s->split)
        setenv("CLGATHER_MAX_ALLOC", "1024", 1);
    else
        unsetenv("CLGATHER_MAX_ALLOC");
    /* The scenario's parameters, and its small host-memory calls on the
     * device (the tiny-call host path off). */
    char params[256];
    snprintf(params, sizeof params, "%s%shost=0", s->params ? s->params : "",
             s->params ? "," : "");
    setenv("CLGATHER_PARAMS", params, 1);
}

/* A buffer of at least one byte (OpenCL has no empty buffers), filled
 * from `host` when given. */
static cl_mem make_buffer(clg_context *ctx, size_t bytes, void *host)
{
    cl_int err;
    cl_mem_flags flags = CL_MEM_READ_WRITE;
    if (host && bytes)
        flags |= CL_MEM_COPY_HOST_PTR;
    return clCreateBuffer(clg_context_cl_context(ctx), flags,
                          bytes ? bytes : 1, bytes ? host : NULL, &err);
}

/* The queue an ENQUEUE scenario passes: NULL, or a new one of its own. */
static cl_command_queue scenario_queue(const scenario *s, clg_context *ctx)
{
    cl_command_queue_properties props = 0;
    cl_int err;
    if (s->queue == CONTEXT_QUEUE)
        return NULL;
    if (s->queue == OUT_OF_ORDER && clg_test_has_out_of_order(ctx))
        props = CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE;
    cl_command_queue q = clCreateCommandQueue(clg_context_cl_context(ctx),
                                              clg_context_cl_device(ctx),
                                              props, &err);
    assert_non_null(q);
    return q;
}

/* The enqueue path on buffers D, I, O: the enqueue waits on a user event
 * still pending (a call that waited inside would hang here) and on a
 * marker, and hands out an event; the user event is then completed and
 * the event waited for, and the context finished. The shim counts (and
 * fails) the enqueue's and the finish's calls only. Returns the enqueue's
 * status when it failed (the finish after it must have nothing to
 * report), else the finish's. */
static clg_status run_enqueue(const scenario *s, clg_context *ctx, tensors *t,
                              const clg_cl_tensor *D, const clg_cl_tensor *I,
                              const clg_cl_tensor *O, int arm, uint64_t n)
{
    cl_int err;
    cl_command_queue q = scenario_queue(s, ctx);
    cl_command_queue io = q ? q : clg_context_cl_queue(ctx);
    cl_event wait[2] = {clCreateUserEvent(clg_context_cl_context(ctx), &err),
                        NULL};
    cl_event done = NULL;
    assert_non_null(wait[0]);
    assert_int_equal(clEnqueueMarkerWithWaitList(io, 0, NULL, &wait[1]),
                     CL_SUCCESS);
    if (arm)
        cl_fault_arm(n);
    clg_call_options opt = {.oob = s->oob};
    clg_status st = s->op == CLG_OP_GATHER
                        ? clg_enqueue_gather_ex(ctx, q, D, I, 0, O, 2, wait,
                                                &done, &opt)
                    : s->op == CLG_OP_GATHER_ND
                        ? clg_enqueue_gather_nd_ex(ctx, q, D, I, 0, O, 2, wait,
                                                   &done, &opt)
                        : clg_enqueue_gather_elements_ex(ctx, q, D, I, 0, O, 2,
                                                         wait, &done, &opt);
    if (arm)
        cl_fault_pause();
    t->saved = st != CLG_STATUS_OK;
    snprintf(t->message, sizeof t->message, "%s", clg_context_last_error(ctx));
    t->cl_error = clg_context_last_cl_error(ctx);
    assert_int_equal(clSetUserEventStatus(wait[0], CL_COMPLETE), CL_SUCCESS);
    if (st != CLG_STATUS_OK)
        assert_null(done); /* *event is set only on success */
    if (done) {
        assert_int_equal(clWaitForEvents(1, &done), CL_SUCCESS);
        clReleaseEvent(done);
    }
    if (arm)
        cl_fault_resume();
    clg_status fin = clg_context_finish(ctx);
    if (arm)
        cl_fault_pause();
    if (st != CLG_STATUS_OK) {
        clg_test_set_case("%s: the finish after a failed enqueue (%s)",
                          s->name, t->message);
        CLG_ASSERT_OK(ctx, fin);
    } else if (fin == CLG_STATUS_OK) {
        assert_int_equal(clEnqueueReadBuffer(io, O->buffer, CL_TRUE, 0,
                                             t->obytes, t->out, 0, NULL, NULL),
                         CL_SUCCESS);
    }
    clReleaseEvent(wait[0]);
    clReleaseEvent(wait[1]);
    if (q)
        clReleaseCommandQueue(q);
    return st != CLG_STATUS_OK ? st : fin;
}

/* One call of the scenario's path on ctx. Device buffers are made here,
 * and then, when `arm` is set, the shim is armed to fail call `n` of the
 * operator call itself (for ENQUEUE: of the enqueue and the finish). */
static clg_status run_op(const scenario *s, clg_context *ctx, tensors *t,
                         int arm, uint64_t n)
{
    t->saved = 0;
    if (s->path != DEVICE_BUFFERS && s->path != ENQUEUE)
        return call_host(s, ctx, &t->d, &t->i, &t->o);
    size_t dbytes = (size_t)(s->rows * s->cols) * 4;
    cl_mem bd = make_buffer(ctx, dbytes, t->data);
    cl_mem bi = make_buffer(ctx, t->ibytes, t->idx);
    cl_mem bo = make_buffer(ctx, t->obytes, NULL);
    clg_status st = CLG_STATUS_OPENCL_ERROR;
    if (bd && bi && bo) {
        clg_cl_tensor D = {CLG_DTYPE_FLOAT, 2, t->dshape, bd};
        clg_cl_tensor I = {CLG_DTYPE_INT64, t->i.rank, t->ishape, bi};
        clg_cl_tensor O = {CLG_DTYPE_FLOAT, 2, t->oshape, bo};
        if (s->path == ENQUEUE) {
            st = run_enqueue(s, ctx, t, &D, &I, &O, arm, n);
        } else {
            if (arm)
                cl_fault_arm(n);
            clg_call_options opt = {.oob = s->oob};
            st = s->op == CLG_OP_GATHER
                     ? clg_gather_cl_ex(ctx, &D, &I, 0, &O, &opt)
                 : s->op == CLG_OP_GATHER_ND
                     ? clg_gather_nd_cl_ex(ctx, &D, &I, 0, &O, &opt)
                     : clg_gather_elements_cl_ex(ctx, &D, &I, 0, &O, &opt);
            if (arm)
                cl_fault_pause();
            if (st == CLG_STATUS_OK && t->obytes)
                clEnqueueReadBuffer(clg_context_cl_queue(ctx), bo, CL_TRUE, 0,
                                    t->obytes, t->out, 0, NULL, NULL);
        }
    }
    clReleaseMemObject(bd);
    clReleaseMemObject(bi);
    clReleaseMemObject(bo);
    return st;
}

/* Every byte of the output is its old value (0xA5) or its result. */
static int old_or_result(const tensors *t)
{
    const unsigned char *o = (const unsigned char *)t->out;
    const unsigned char *w = (const unsigned char *)t->want;
    for (size_t k = 0; k < t->obytes; k++)
        if (o[k] != 0xA5 && o[k] != w[k])
            return 0;
    return 1;
}

/* The message fragments of the planted index error: "<op> #" and the
 * value at indices[3] (GatherND: its component, indices[3][0]). */
static const char *op_number(const scenario *s, char *buf, size_t size)
{
    snprintf(buf, size, "%s #", clg_op_name(s->op));
    return buf;
}

static const char *planted(const scenario *s, char *buf, size_t size)
{
    snprintf(buf, size, "indices[3]%s = 1000 is out of range",
             s->op == CLG_OP_GATHER_ND ? "[0]" : "");
    return buf;
}

/* Whether the scenario's runs load their programs from binaries. */
static int loads_binaries(const scenario *s)
{
    return s->cache == CACHE_FILLED || s->cache == CACHE_UNTESTED;
}

/* Whether a run may answer OK, with the right result, though `call`
 * failed: the queries the library has a fallback for, and the program
 * cache's calls (a binary not read out to store it; a stored one not
 * loaded, so built from source). A run that fails any other call and
 * still answers OK has swallowed the failure: a self-test that records a
 * kernel as passed without running it, for one. */
static int can_do_without(const scenario *s, const char *call)
{
    static const char *const queries[] = {"clGetDeviceInfo",
                                          "clGetPlatformInfo",
                                          "clGetEventInfo",
                                          "clGetMemObjectInfo"};
    for (size_t k = 0; k < CLG_TEST_ARRAY_LEN(queries); k++)
        if (!strcmp(call, queries[k]))
            return 1;
    if (!strcmp(call, "clGetProgramInfo"))
        return s->cache != CACHE_OFF;
    return loads_binaries(s) && (!strcmp(call, "clCreateProgramWithBinary") ||
                                 !strcmp(call, "clBuildProgram"));
}

/* Checks one run with call `n` failing (0: none). */
static void check_run(const scenario *s, tensors *t, uint64_t n,
                      clg_context *ctx, clg_status st)
{
    const char *failed = cl_fault_failed_call();
    clg_test_set_case("%s: OpenCL call %" PRIu64 " (%s) fails", s->name, n,
                      failed);
    if (st == expected(s)) {
        if (st == CLG_STATUS_OK) {
            if (n > 0 && !can_do_without(s, failed))
                fail_msg("%s failed and the call answered OK", failed);
            CLG_ASSERT_BYTES(t->out, t->want, t->obytes, 4, "output");
        } else {
            char buf[64];
            CLG_ASSERT_CONTAINS(clg_context_last_error(ctx),
                                op_number(s, buf, sizeof buf));
            CLG_ASSERT_CONTAINS(clg_context_last_error(ctx),
                                planted(s, buf, sizeof buf));
        }
        return;
    }
    const char *message = t->saved ? t->message : clg_context_last_error(ctx);
    cl_int code = t->saved ? t->cl_error : clg_context_last_cl_error(ctx);
    assert_true(*failed != '\0');
    CLG_ASSERT_CONTAINS(message, failed);
    if (st != CLG_STATUS_BUILD_FAILED)
        assert_int_equal(st, CLG_STATUS_OPENCL_ERROR);
    assert_int_equal(code, CL_OUT_OF_RESOURCES);
    if (s->path == ENQUEUE && s->bad && !t->saved &&
        !strcmp(failed, "clEnqueueReadBuffer") && !strstr(message, "slots")) {
        /* The finish failed reading the indices back, not the error
         * slots: it still names the operation. */
        char buf[64];
        CLG_ASSERT_CONTAINS(message, op_number(s, buf, sizeof buf));
    }
    if (s->path == DEVICE_BUFFERS || s->path == ENQUEUE)
        return; /* the device buffer's contents are unspecified */
    int whole = s->path != HOST_SPLIT_IN_PLACE && s->path != HOST_SPLIT_COPY;
    if (whole && cl_fault_kernel_enqueued_before())
        assert_true(old_or_result(t)); /* the documented exception */
    else
        CLG_ASSERT_FILLED(t->out, t->obytes, 0xA5, "output after a failure");
}

/* Runs the scenario with call n failing; returns the calls counted. */
static uint64_t run_once(const scenario *s, tensors *t, uint64_t n)
{
    clg_context *ctx = NULL;
    memset(t->out, 0xA5, t->obytes);
    if (s->path == DEVICE_BUFFERS || s->path == ENQUEUE) {
        CLG_ASSERT_OK(NULL, clg_context_create(&ctx, NULL));
        clg_status st = run_op(s, ctx, t, 1, n);
        check_run(s, t, n, ctx, st);
    } else {
        cl_fault_arm(n);
        clg_status st = clg_context_create(&ctx, NULL);
        if (st != CLG_STATUS_OK) {
            clg_test_set_case("%s: create, call %" PRIu64 " (%s) fails",
                              s->name, n, cl_fault_failed_call());
            assert_null(ctx);
            CLG_ASSERT_CONTAINS(clg_context_last_error(NULL),
                                cl_fault_failed_call());
            /* The raw code is kept at every failure point of the create. */
            assert_int_equal(st, CLG_STATUS_OPENCL_ERROR);
            assert_int_equal(clg_context_last_cl_error(NULL),
                             CL_OUT_OF_RESOURCES);
            uint64_t counted = cl_fault_calls();
            cl_fault_pause();
            return counted;
        }
        check_run(s, t, n, ctx, run_op(s, ctx, t, 0, 0));
    }
    uint64_t counted = cl_fault_calls();
    cl_fault_pause();
    /* The context still works. */
    memset(t->out, 0xA5, t->obytes);
    clg_test_set_case("%s: the call after call %" PRIu64 " failed", s->name,
                      n);
    int refused = t->saved;
    CLG_ASSERT_STATUS(ctx, run_op(s, ctx, t, 0, 0), expected(s));
    /* A refused enqueue takes no operation number: the operation after it
     * is #1 on this new context, else #2. */
    if (s->path == ENQUEUE && expected(s) != CLG_STATUS_OK) {
        char buf[64];
        snprintf(buf, sizeof buf, "%s #%d ", clg_op_name(s->op),
                 refused ? 1 : 2);
        CLG_ASSERT_CONTAINS(clg_context_last_error(ctx), buf);
    }
    if (expected(s) == CLG_STATUS_OK)
        CLG_ASSERT_BYTES(t->out, t->want, t->obytes, 4,
                         "output after recovery");
    clg_context_destroy(ctx);
    return counted;
}

/* Forgets the verdicts of every entry of the cache folder: each record
 * whose line "passed=<entry points>" names any is rewritten with
 * "passed=" alone (the entry's layout: docs/design.md, "Program cache";
 * the payload's checksum covers the payload alone). Returns the entries
 * rewritten. */
static int forget_verdicts(void)
{
    enum { HEADER_BYTES = 32, KEY_LEN_AT = 12, MAX_ENTRIES = 64 };
    static const char tag[] = "passed=";
    const size_t tag_len = sizeof tag - 1;
    clg_cache_entry e[MAX_ENTRIES];
    size_t count = 0;
    int rewritten = 0;
    CLG_ASSERT_OK(NULL, clg_cache_list(cache_dir, e, MAX_ENTRIES, &count));
    assert_true(count <= MAX_ENTRIES);
    for (size_t k = 0; k < count; k++) {
        char file[600], temp[620];
        size_t size = 0;
        snprintf(file, sizeof file, "%.500s/%.31s", cache_dir, e[k].file);
        unsigned char *buf = clg_test_read_file(file, &size);
        uint32_t key_len;
        assert_true(size > HEADER_BYTES);
        memcpy(&key_len, buf + KEY_LEN_AT, sizeof key_len);
        unsigned char *record = buf + HEADER_BYTES;
        const unsigned char *eol = memchr(record, '\n', key_len);
        assert_true(key_len <= size - HEADER_BYTES && eol);
        assert_int_equal(memcmp(record, tag, tag_len), 0);
        size_t names = (size_t)(eol - record) - tag_len;
        if (names > 0) {
            uint32_t shorter = key_len - (uint32_t)names;
            memcpy(buf + KEY_LEN_AT, &shorter, sizeof shorter);
            memmove(record + tag_len, eol,
                    size - (size_t)(eol - buf)); /* the names dropped */
            snprintf(temp, sizeof temp, "%s.forget", file);
            clg_test_write_file(temp, buf, size - names);
            assert_int_equal(rename(temp, file), 0);
            rewritten++;
        }
        free(buf);
    }
    return rewritten;
}

/* Before a run: CACHE_EMPTY empties the folder; CACHE_FILLED and
 * CACHE_UNTESTED fill it before the first run (`first`) with one uncounted
 * call (a run only ever rewrites its entries whole); CACHE_UNTESTED then
 * forgets the entries' verdicts before every run. */
static void prepare_cache(const scenario *s, tensors *t, int first)
{
    clg_context *ctx = NULL;
    int fills = loads_binaries(s) && first;
    if (s->cache == CACHE_EMPTY || fills)
        CLG_ASSERT_OK(NULL, clg_cache_clear(cache_dir, NULL));
    if (fills) {
        CLG_ASSERT_OK(NULL, clg_context_create(&ctx, NULL));
        memset(t->out, 0xA5, t->obytes);
        CLG_ASSERT_STATUS(ctx, run_op(s, ctx, t, 0, 0), expected(s));
        clg_cache_info info;
        CLG_ASSERT_OK(ctx, clg_context_cache_info(ctx, &info));
        assert_true(info.stores >= 1);
        clg_context_destroy(ctx);
    }
    if (s->cache == CACHE_UNTESTED)
        forget_verdicts();
}

/* The scenarios run as FAULT_PARTS ctest tests (tests/fault/CMakeLists.txt)
 * so that the sanitizer lane's slow leak-checking pass spreads them over
 * the cores: CLG_TEST_PART=p runs scenarios p, p + FAULT_PARTS, ...;
 * unset or empty, all of them. */
#define FAULT_PARTS 4

static int part_from_env(void)
{
    const char *v = getenv("CLG_TEST_PART");
    if (!v || !*v)
        return -1;
    char *end = NULL;
    long p = strtol(v, &end, 10);
    if (*end || p < 0 || p >= FAULT_PARTS) {
        fprintf(stderr, "CLG_TEST_PART=%s: not a part from 0 to %d\n", v,
                FAULT_PARTS - 1);
        exit(2);
    }
    return (int)p;
}

static void test_every_call_fails_in_turn(void **state)
{
    (void)state;
    uint64_t points = 0;
    int part = part_from_env();
    const char *tmp = getenv("TMPDIR");
    snprintf(cache_dir, sizeof cache_dir, "%s/clg-fault-cache-XXXXXX",
             tmp && *tmp ? tmp : "/tmp");
    assert_non_null(mkdtemp(cache_dir));
    for (size_t k = 0; k < CLG_TEST_ARRAY_LEN(scenarios); k++) {
        const scenario *s = &scenarios[k];
        if (part >= 0 && (int)(k % FAULT_PARTS) != part)
            continue;
        tensors t;
        set_env(s);
        tensors_make(s, &t);
        prepare_cache(s, &t, 1);
        uint64_t calls = run_once(s, &t, 0);
        assert_true(calls >= 8);
        /* Loaded without verdicts, the programs were self-tested: their
         * entries were rewritten with the entry points that passed. */
        if (s->cache == CACHE_UNTESTED)
            assert_true(forget_verdicts() >= 1);
        int stored = 0, loaded = 0;
        for (uint64_t n = 1; n <= calls; n++) {
            prepare_cache(s, &t, 0);
            run_once(s, &t, n);
            stored |= !strcmp(cl_fault_failed_call(), "clGetProgramInfo");
            loaded |= !strcmp(cl_fault_failed_call(),
                              "clCreateProgramWithBinary");
        }
        /* The cache's own calls were among those made to fail (an entry
         * is stored after a build, and rewritten after a self-test). */
        assert_int_equal(stored, s->cache == CACHE_EMPTY ||
                                     s->cache == CACHE_UNTESTED);
        assert_int_equal(loaded, loads_binaries(s));
        print_message("%s: %" PRIu64 " OpenCL calls, each made to fail\n",
                      s->name, calls);
        points += calls;
        tensors_free(&t);
    }
    unsetenv("CLGATHER_TEST_PLAN");
    unsetenv("CLGATHER_MAX_ALLOC");
    unsetenv("CLGATHER_CACHE");
    CLG_ASSERT_OK(NULL, clg_cache_clear(cache_dir, NULL));
    assert_int_equal(rmdir(cache_dir), 0);
    cache_dir[0] = '\0';
    print_message("%" PRIu64 " injection points, 0 contract violations\n",
                  points);
}

/* After a failed test, which returns before its own clean-up: the cache
 * folder, emptied and removed (best effort). */
static int remove_cache_dir(void **state)
{
    (void)state;
    if (cache_dir[0]) {
        clg_cache_clear(cache_dir, NULL);
        rmdir(cache_dir);
    }
    return 0;
}

int main(void)
{
    size_t count = 0;
    if (clg_devices_list(NULL, 0, &count) != CLG_STATUS_OK || count == 0)
        return 77; /* no OpenCL device at all */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(test_every_call_fails_in_turn,
                                  remove_cache_dir),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
