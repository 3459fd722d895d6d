/* SPDX-License-Identifier: Apache-2.0 */
/* Execution faults (docs/design.md, "Enqueue and deferred errors"): the
 * OpenCL calls all succeed, but commands the runtime accepted do not run,
 * because a user event of the caller's ("the gate") is set to a negative
 * status. For every kernel plan (one launch; the packed strips of
 * GatherElements, several commands per operation; the normalising pass;
 * the GPU plan; a context whose buffers are cut into pieces; GatherND,
 * whose launch also makes the buffer of the tuple's dims), on the
 * context's queue, an in-order queue and an out-of-order one, each
 * injection point is run under an alarm:
 *   - BEFORE: the gate fails before the enqueue: refused with
 *     OPENCL_ERROR naming the event, nothing written;
 *   - AFTER: the gate fails after the enqueue, a second operation follows
 *     on the same queue without the gate: the finish names the first
 *     operation that did not run and counts the later ones, exactly those
 *     whose output stayed unwritten;
 *   - BLOCKING_CL: as AFTER, with a blocking device-buffer call from
 *     another thread waiting meanwhile on the context's queue: OK with
 *     the right output, or OPENCL_ERROR naming an execution status;
 *   - BLOCKING_HOST: as AFTER, with a blocking host-memory call from
 *     another thread (split into pieces in the pieces context): never
 *     stopped by the gate, OK with the right output;
 *   - COMPLETE: the gate completes: everything OK and right.
 * A wrong OK, a hang (the alarm), an abort or a leak (the sanitizer lane)
 * fails the test. The figure printed at the end is scenarios x injection
 * points. */
#define _POSIX_C_SOURCE 200809L
#include "clg_test.h"

#include "clg_test_cache.h" /* the kernels a plan built */

#include <pthread.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

/* Any wait that does not end within this many seconds is a hang. */
#define HANG_LIMIT_S 120

typedef enum point {
    BEFORE,
    AFTER,
    BLOCKING_CL,
    BLOCKING_HOST,
    COMPLETE,
    POINT_COUNT
} point;

static const char *const point_names[POINT_COUNT] = {
    "gate failed before the enqueue", "gate failed after the enqueue",
    "gate failed, a blocking device-buffer call waiting",
    "gate failed, a blocking host-memory call running", "gate completed"};

typedef enum queue_kind {
    CONTEXT_QUEUE,
    IN_ORDER,
    OUT_OF_ORDER,
    QUEUE_COUNT
} queue_kind;

static const char *const queue_names[QUEUE_COUNT] = {"context queue",
                                                     "in-order queue",
                                                     "out-of-order queue"};

/* One kernel plan: the environment of its context and the operation. */
typedef struct plan {
    const char *name;
    const char *test_plan; /* CLGATHER_TEST_PLAN, or NULL */
    const char *params;    /* CLGATHER_PARAMS, or NULL */
    const char *max_alloc; /* CLGATHER_MAX_ALLOC, or NULL */
    clg_op op;
    int64_t rows, cols, n; /* data [rows, cols]; n index rows */
    int64_t host_rows;     /* rows of the blocking host call's data */
    const char *kernel;    /* part of a kernel name the plan must build */
} plan;

static const plan plans[] = {
    {"Gather, one launch", NULL, NULL, NULL, CLG_OP_GATHER, 50, 12, 33, 50,
     "clg_gather"},
    /* [40, 1024] on axis 0: packed strips, 4 passes of pack + gather. */
    {"GatherElements, packed strips", NULL, NULL, NULL, CLG_OP_GATHER_ELEMENTS,
     40, 1024, 40, 40, "clg_pack_strips"},
    /* norm=1: outputs of 1 KiB or more take the normalising pass. */
    {"Gather, normalising pass", NULL, "norm=1", NULL, CLG_OP_GATHER, 50, 12,
     33, 50, "_normed"},
    {"GatherElements, GPU plan", "gpu", NULL, NULL, CLG_OP_GATHER_ELEMENTS, 20,
     30, 20, 20, "clg_gather_elements"},
    /* Buffers of 1 KiB: the host call (64 x 12 floats) runs in pieces. */
    {"Gather, pieces", NULL, NULL, "1024", CLG_OP_GATHER, 20, 12, 16, 64,
     "clg_gather"},
    /* indices [n, 1]: rows of data, batch_dims 0. */
    {"GatherND, one launch", NULL, NULL, NULL, CLG_OP_GATHER_ND, 50, 12, 33,
     50, "clg_gather_nd"},
};

/* Counts of the whole run. */
static unsigned runs, refused, not_run_reports, blocking_ok, blocking_not_run;

static void on_alarm(int sig)
{
    (void)sig;
    static const char msg[] = "test_exec_fault: a wait did not end within the "
                              "hang limit\n";
    ssize_t w = write(2, msg, sizeof msg - 1);
    (void)w;
    _exit(1);
}

/* The host tensors of one operation and their expected output. */
typedef struct tensors {
    clg_op op;
    int64_t dshape[2], ishape[2], oshape[2];
    size_t irank, orank;
    float *data, *want;
    int64_t *idx;
    size_t dbytes, ibytes, obytes;
} tensors;

static void tensors_make(tensors *t, clg_op op, int64_t rows, int64_t cols,
                         int64_t n)
{
    memset(t, 0, sizeof *t);
    t->op = op;
    t->dshape[0] = rows;
    t->dshape[1] = cols;
    /* indices: Gather [n], GatherElements [n, cols], GatherND [n, 1] */
    int64_t icols = op == CLG_OP_GATHER_ND ? 1 : cols;
    int64_t icount = op == CLG_OP_GATHER ? n : n * icols;
    t->ishape[0] = n;
    t->ishape[1] = icols;
    t->irank = op == CLG_OP_GATHER ? 1 : 2;
    t->oshape[0] = n;
    t->oshape[1] = cols;
    t->orank = 2;
    t->dbytes = (size_t)(rows * cols) * sizeof(float);
    t->ibytes = (size_t)icount * sizeof(int64_t);
    t->obytes = (size_t)(n * cols) * sizeof(float);
    t->data = malloc(t->dbytes);
    t->idx = malloc(t->ibytes);
    t->want = malloc(t->obytes);
    assert_non_null(t->data);
    assert_non_null(t->idx);
    assert_non_null(t->want);
    for (int64_t i = 0; i < rows * cols; i++)
        t->data[i] = (float)i + 0.5f;
    for (int64_t i = 0; i < icount; i++)
        t->idx[i] = (i * 7 + 3) % rows - (i % 3 == 0 ? rows : 0);
    clg_tensor hd = {CLG_DTYPE_FLOAT, 2, t->dshape, t->data};
    clg_tensor hi = {CLG_DTYPE_INT64, t->irank, t->ishape, t->idx};
    clg_tensor ho = {CLG_DTYPE_FLOAT, t->orank, t->oshape, t->want};
    CLG_ASSERT_OK(NULL, clg_test_call(op, NULL, 1, &hd, &hi, 0, &ho));
}

static void tensors_free(tensors *t)
{
    free(t->data);
    free(t->idx);
    free(t->want);
}

/* Device buffers of one operation; the output filled with 0xEE. */
typedef struct bufs {
    cl_mem d, i, o;
    clg_cl_tensor td, ti, to;
} bufs;

static void bufs_make(clg_context *ctx, const tensors *t, bufs *b)
{
    unsigned char *fill = malloc(t->obytes);
    assert_non_null(fill);
    memset(fill, 0xEE, t->obytes);
    b->d = clg_test_buffer(ctx, t->data, t->dbytes);
    b->i = clg_test_buffer(ctx, t->idx, t->ibytes);
    b->o = clg_test_buffer(ctx, fill, t->obytes);
    free(fill);
    b->td = (clg_cl_tensor){CLG_DTYPE_FLOAT, 2, t->dshape, b->d};
    b->ti = (clg_cl_tensor){CLG_DTYPE_INT64, t->irank, t->ishape, b->i};
    b->to = (clg_cl_tensor){CLG_DTYPE_FLOAT, t->orank, t->oshape, b->o};
}

static void bufs_free(bufs *b)
{
    clReleaseMemObject(b->d);
    clReleaseMemObject(b->i);
    clReleaseMemObject(b->o);
}

/* 1: the output holds the expected result; 0: it is untouched (all 0xEE);
 * anything else fails the test. */
static int output_state(const tensors *t, const bufs *b, cl_command_queue q)
{
    unsigned char *got = malloc(t->obytes);
    assert_non_null(got);
    assert_int_equal(clEnqueueReadBuffer(q, b->o, CL_TRUE, 0, t->obytes, got,
                                         0, NULL, NULL),
                     CL_SUCCESS);
    int done = memcmp(got, t->want, t->obytes) == 0;
    if (!done)
        CLG_ASSERT_FILLED(got, t->obytes, 0xEE, "an output not written");
    free(got);
    return done;
}

static clg_status enqueue(clg_context *ctx, cl_command_queue q,
                          const tensors *t, const bufs *b, cl_uint nw,
                          const cl_event *w, cl_event *ev)
{
    return t->op == CLG_OP_GATHER ? clg_enqueue_gather(ctx, q, &b->td, &b->ti,
                                                       0, &b->to, nw, w, ev)
           : t->op == CLG_OP_GATHER_ND
               ? clg_enqueue_gather_nd(ctx, q, &b->td, &b->ti, 0, &b->to, nw,
                                       w, ev)
               : clg_enqueue_gather_elements(ctx, q, &b->td, &b->ti, 0, &b->to,
                                             nw, w, ev);
}

/* A blocking call on another thread. */
typedef struct blocker {
    clg_context *ctx;
    const tensors *t;
    int host; /* host memory (else device buffers) */
    bufs b;
    float *out;
    clg_status st;
    cl_int cl_error, exec_status;
    char message[1024];
} blocker;

static void *blocker_run(void *arg)
{
    blocker *k = arg;
    const tensors *t = k->t;
    if (k->host) {
        clg_tensor hd = {CLG_DTYPE_FLOAT, 2, t->dshape, t->data};
        clg_tensor hi = {CLG_DTYPE_INT64, t->irank, t->ishape, t->idx};
        clg_tensor ho = {CLG_DTYPE_FLOAT, t->orank, t->oshape, k->out};
        k->st = clg_test_call(t->op, k->ctx, 0, &hd, &hi, 0, &ho);
    } else {
        k->st = t->op == CLG_OP_GATHER
                    ? clg_gather_cl(k->ctx, &k->b.td, &k->b.ti, 0, &k->b.to)
                : t->op == CLG_OP_GATHER_ND
                    ? clg_gather_nd_cl(k->ctx, &k->b.td, &k->b.ti, 0, &k->b.to)
                    : clg_gather_elements_cl(k->ctx, &k->b.td, &k->b.ti, 0,
                                             &k->b.to);
    }
    k->cl_error = clg_context_last_cl_error(k->ctx);
    k->exec_status = clg_context_last_exec_status(k->ctx);
    snprintf(k->message, sizeof k->message, "%s",
             clg_context_last_error(k->ctx));
    return NULL;
}

/* A status that says a command did not run: the raw code names the kind,
 * the execution status is negative. */
static void assert_not_run(clg_status st, cl_int cl_error, cl_int exec_status,
                           const char *message, const char *needle)
{
    assert_int_equal(st, CLG_STATUS_OPENCL_ERROR);
    assert_int_equal(cl_error, CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
    assert_true(exec_status < 0);
    CLG_ASSERT_CONTAINS(message, "execution status");
    CLG_ASSERT_CONTAINS(message, needle);
}

/* Operations enqueued so far on the context (their numbers, #N). */
static uint64_t op_count;

static void run_point(clg_context *ctx, const plan *pl, queue_kind qk,
                      cl_command_queue q, point pt)
{
    cl_int err = CL_SUCCESS;
    cl_command_queue rq = clg_context_cl_queue(ctx);
    tensors t, th;
    bufs b1, b2;
    clg_test_set_case("%s, %s, %s", pl->name, queue_names[qk],
                      point_names[pt]);
    /* Unbuffered, so that an abort in the runtime names its case. */
    fprintf(stderr, "%s\n", clg_test_case_text());
    tensors_make(&t, pl->op, pl->rows, pl->cols, pl->n);
    tensors_make(&th, pl->op, pl->host_rows, pl->cols, pl->n);
    bufs_make(ctx, &t, &b1);
    bufs_make(ctx, &t, &b2);
    cl_event gate = clCreateUserEvent(clg_context_cl_context(ctx), &err);
    assert_int_equal(err, CL_SUCCESS);
    alarm(HANG_LIMIT_S);
    runs++;

    if (pt == BEFORE) {
        assert_int_equal(clSetUserEventStatus(gate, -7), CL_SUCCESS);
        clg_status st = enqueue(ctx, q, &t, &b1, 1, &gate, NULL);
        assert_not_run(st, clg_context_last_cl_error(ctx),
                       clg_context_last_exec_status(ctx),
                       clg_context_last_error(ctx),
                       "event_wait_list[0] has already failed (its "
                       "execution status is -7");
        assert_int_equal(clg_context_last_exec_status(ctx), -7);
        /* A refused enqueue takes no operation number. */
        CLG_ASSERT_OK(ctx, enqueue(ctx, q, &t, &b2, 0, NULL, NULL));
        op_count++;
        CLG_ASSERT_OK(ctx, clg_context_finish(ctx));
        assert_int_equal(output_state(&t, &b1, rq), 0);
        assert_int_equal(output_state(&t, &b2, rq), 1);
        refused++;
        goto cleanup;
    }

    cl_event e1 = NULL;
    CLG_ASSERT_OK(ctx, enqueue(ctx, q, &t, &b1, 1, &gate, &e1));
    uint64_t first = ++op_count;
    /* The second operation follows on the same queue, without the gate:
     * on an in-order queue it runs after the first or not at all. */
    CLG_ASSERT_OK(ctx, enqueue(ctx, q, &t, &b2, 0, NULL, NULL));
    op_count++;

    blocker k = {.ctx = ctx, .t = &th, .host = pt == BLOCKING_HOST};
    pthread_t thread;
    if (pt == BLOCKING_CL || pt == BLOCKING_HOST) {
        k.t = pt == BLOCKING_CL ? &t : &th;
        if (pt == BLOCKING_CL)
            bufs_make(ctx, &t, &k.b);
        k.out = malloc(k.t->obytes);
        assert_non_null(k.out);
        memset(k.out, 0xEE, k.t->obytes);
        assert_int_equal(pthread_create(&thread, NULL, blocker_run, &k), 0);
        /* Let the call enqueue its commands before the gate fails. */
        nanosleep(&(struct timespec){0, 50 * 1000 * 1000}, NULL);
    }
    assert_int_equal(clSetUserEventStatus(gate,
                                          pt == COMPLETE ? CL_COMPLETE : -7),
                     CL_SUCCESS);
    if (pt == BLOCKING_CL || pt == BLOCKING_HOST) {
        assert_int_equal(pthread_join(thread, NULL), 0);
        if (pt == BLOCKING_HOST) {
            /* Host-memory calls run on the library's own queue. */
            if (k.st != CLG_STATUS_OK)
                fail_msg("host call: %s: %s", clg_status_name(k.st),
                         k.message);
            CLG_ASSERT_BYTES(k.out, th.want, th.obytes, 4, "host call");
            blocking_ok++;
        } else if (k.st == CLG_STATUS_OK) {
            assert_int_equal(output_state(&t, &k.b, rq), 1);
            blocking_ok++;
        } else {
            /* Behind the gate on the context's queue: poisoned, and says
             * so (docs/design.md, "Enqueue and deferred errors"). */
            assert_not_run(k.st, k.cl_error, k.exec_status, k.message,
                           "did not complete");
            blocking_not_run++;
        }
        if (pt == BLOCKING_CL)
            bufs_free(&k.b);
        free(k.out);
    }

    clg_status st = clg_context_finish(ctx);
    int done1 = output_state(&t, &b1, rq), done2 = output_state(&t, &b2, rq);
    if (pt == COMPLETE) {
        CLG_ASSERT_OK(ctx, st);
        assert_int_equal(done1, 1);
        assert_int_equal(done2, 1);
    } else {
        char name[64], count[64];
        snprintf(name, sizeof name, " #%llu ", (unsigned long long)first);
        assert_int_equal(done1, 0);
        assert_not_run(st, clg_context_last_cl_error(ctx),
                       clg_context_last_exec_status(ctx),
                       clg_context_last_error(ctx), name);
        CLG_ASSERT_CONTAINS(clg_context_last_error(ctx),
                            "event_wait_list[0] failed with execution "
                            "status -7");
        assert_int_equal(clg_context_last_exec_status(ctx), -7);
        /* The count of later operations that did not run is exactly the
         * outputs left unwritten. */
        if (!done2) {
            snprintf(count, sizeof count,
                     "1 later operation did not run either");
            CLG_ASSERT_CONTAINS(clg_context_last_error(ctx), count);
        } else if (strstr(clg_context_last_error(ctx), "did not run either")) {
            fail_msg("counts a later operation that ran: %s",
                     clg_context_last_error(ctx));
        }
        if (qk == OUT_OF_ORDER)
            assert_int_equal(done2, 1); /* it did not depend on the gate */
        not_run_reports++;
    }
    assert_int_equal(clWaitForEvents(1, &e1),
                     pt == COMPLETE
                         ? CL_SUCCESS
                         : CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
    clReleaseEvent(e1);
    /* The context works after. */
    CLG_ASSERT_OK(ctx, enqueue(ctx, q, &t, &b2, 0, NULL, NULL));
    op_count++;
    CLG_ASSERT_OK(ctx, clg_context_finish(ctx));
    assert_int_equal(output_state(&t, &b2, rq), 1);
cleanup:
    alarm(0);
    clReleaseEvent(gate);
    bufs_free(&b1);
    bufs_free(&b2);
    tensors_free(&t);
    tensors_free(&th);
}

static void set_env(const char *name, const char *value)
{
    if (value)
        setenv(name, value, 1);
    else
        unsetenv(name);
}

static void test_execution_faults(void **state)
{
    (void)state;
    unsigned scenarios = 0;
    signal(SIGALRM, on_alarm);
    for (size_t p = 0; p < CLG_TEST_ARRAY_LEN(plans); p++) {
        const plan *pl = &plans[p];
        clg_context *ctx = NULL;
        set_env("CLGATHER_TEST_PLAN", pl->test_plan);
        set_env("CLGATHER_PARAMS", pl->params);
        set_env("CLGATHER_MAX_ALLOC", pl->max_alloc);
        CLG_ASSERT_OK(NULL, clg_context_create(&ctx, NULL));
        clg_test_device_only(ctx);
        op_count = 0;
        cl_int err = CL_SUCCESS;
        cl_context cctx = clg_context_cl_context(ctx);
        cl_device_id dev = clg_context_cl_device(ctx);
        for (int qk = 0; qk < QUEUE_COUNT; qk++) {
            cl_command_queue q = NULL;
            if (qk == OUT_OF_ORDER && !clg_test_has_out_of_order(ctx))
                fail_msg("the device offers no out-of-order queue");
            if (qk != CONTEXT_QUEUE) {
                q = clCreateCommandQueue(
                    cctx, dev,
                    qk == OUT_OF_ORDER ? CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE
                                       : 0,
                    &err);
                assert_int_equal(err, CL_SUCCESS);
            }
            for (int pt = 0; pt < POINT_COUNT; pt++)
                run_point(ctx, pl, (queue_kind)qk, q, (point)pt);
            scenarios++;
            if (q)
                clReleaseCommandQueue(q);
        }
        /* The plan's commands are the ones that were made to fail. */
        clg_test_set_case("%s: kernels built", pl->name);
        assert_true(clg_test_kernels_named(ctx, pl->kernel) >= 1);
        alarm(HANG_LIMIT_S);
        clg_context_destroy(ctx);
        alarm(0);
    }
    unsetenv("CLGATHER_TEST_PLAN");
    unsetenv("CLGATHER_PARAMS");
    unsetenv("CLGATHER_MAX_ALLOC");
    printf("execution faults: %u scenarios (plans x queues) x %d injection "
           "points = %u runs: %u refused at enqueue, %u finishes naming an "
           "operation that did not run, blocking calls from another thread "
           "%u OK with the right output and %u reporting an execution "
           "status; 0 wrong OKs, 0 hangs\n",
           scenarios, (int)POINT_COUNT, runs, refused, not_run_reports,
           blocking_ok, blocking_not_run);
    assert_int_equal(runs, scenarios * POINT_COUNT);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_execution_faults),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
