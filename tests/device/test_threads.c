/* SPDX-License-Identifier: Apache-2.0 */
/* One clg_context shared by threads (clgather.h, "Threading";
 * docs/design.md, "Threads"):
 *  - 8 threads make 256 random calls each (2,048 in all) on the group's
 *    context, drawn by the random spec generator (clg_test_random.h) from
 *    per-thread seeds derived from CLG_TEST_SEED, over both ops, all 16
 *    dtypes, both index types and data ranks 1 to 8, through the three
 *    paths in turn: host memory (clg_gather), blocking device buffers
 *    (clg_gather_cl, buffers made per call) and enqueue (clg_enqueue_*
 *    with a wait list and an event, on the context's queue, a queue of the
 *    thread's own or an out-of-order one). Every result is compared bit
 *    for bit with the test's oracle; an index error must name the first
 *    bad position, its value and the range in the calling thread's
 *    clg_context_last_error, and a success must leave it "".
 *    Among them, every fifth call of a thread is a GatherND case
 *    (clg_test_random_nd_spec: 512 in all, every dtype, index type,
 *    out-of-range mode, batch_dims and tuple length), through the same
 *    three paths with its mode (the _ex functions).
 *    clg_context_finish is not per thread: it reports the first deferred
 *    error of every thread's enqueues. So cases with planted bad indices
 *    take a blocking path, and every thread finishes every 32 enqueues,
 *    expecting OK whatever the others do (their blocking index errors
 *    never reach a finish);
 *  - a deferred error enqueued by one thread among the good enqueues of
 *    eight surfaces once, from one finish in another thread;
 *  - messages are per thread: threads failing and succeeding at once each
 *    read their own;
 *  - 8 threads hitting a fresh context at once, each needing the same
 *    programs first (GatherND's among them): every result right, and the
 *    cache holds each program once, the same set a single thread builds.
 * cmocka's assertions are not thread-safe: the threads count and describe
 * their failures, and the main thread asserts on them. */
#include "clg_test_random.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>

#include "context.h" /* the program cache, for the first-use test */

#define THREADS 8
#define CALLS_PER_THREAD 256
#define ND_CALLS_PER_THREAD 64 /* one in five calls */
#define FINISH_EVERY 32
#define DEFAULT_SEED UINT64_C(0x7ead5eed0009)

static uint64_t seed;

typedef enum path { PATH_HOST, PATH_CL, PATH_ENQUEUE, PATH_COUNT } path;
static const char *const path_names[PATH_COUNT] = {"host memory",
                                                   "device buffers, blocking",
                                                   "enqueue"};

/* What a thread did and what went wrong, read by the main thread after
 * the join. */
typedef struct worker {
    pthread_t thread;
    int index;
    clg_context *ctx;
    pthread_barrier_t *barrier;
    uint64_t seed;
    cl_command_queue io;    /* in order, the thread's own: writes, reads */
    cl_command_queue queue; /* where it enqueues: NULL, io or out of order */
    size_t calls[PATH_COUNT][3], index_errors[PATH_COUNT][3]; /* by op */
    size_t finishes;
    size_t failures;
    char first[2048];
} worker;

static void failure(worker *w, const char *fmt, ...)
    CMOCKA_PRINTF_ATTRIBUTE(2, 3);
static void failure(worker *w, const char *fmt, ...)
{
    if (w->failures++ == 0) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(w->first, sizeof w->first, fmt, ap);
        va_end(ap);
    }
}

/* Asserts, in the main thread, that no thread met a failure. */
static void assert_no_failures(const worker *w, size_t n)
{
    size_t total = 0;
    for (size_t t = 0; t < n; t++) {
        if (w[t].failures)
            print_error("thread %zu: %zu failure(s), the first: %s\n", t,
                        w[t].failures, w[t].first);
        total += w[t].failures;
    }
    assert_int_equal(total, 0);
}

/* ------------------------------------------------------------ checks */

static size_t first_difference(const unsigned char *a, const unsigned char *b,
                               size_t n)
{
    size_t k = 0;
    while (k < n && a[k] == b[k])
        k++;
    return k;
}

/* Status, output and the calling thread's message against the oracle. */
static void check_result(worker *w, const clg_test_random_case *rc,
                         size_t case_no, path p, clg_status st,
                         const void *out)
{
    const char *message = clg_context_last_error(w->ctx);
    const char *where = path_names[p];
    if (st != rc->expect) {
        /* A failed build's log says why (the compiler's words). */
        const char *log = st == CLG_STATUS_BUILD_FAILED
                              ? clg_context_build_log(w->ctx)
                              : "";
        failure(w,
                "case %zu (%s): status %s, expected %s (\"%s\"): %s%s%.300s",
                case_no, where, clg_status_name(st),
                clg_status_name(rc->expect), message, rc->desc,
                log[0] ? "; build log: " : "", log);
        return;
    }
    if (st == CLG_STATUS_OK) {
        size_t k = first_difference(out, rc->expected, rc->out_bytes);
        if (k < rc->out_bytes)
            failure(w,
                    "case %zu (%s): output byte %zu is 0x%02x, the oracle's "
                    "0x%02x: %s",
                    case_no, where, k, ((const unsigned char *)out)[k],
                    rc->expected[k], rc->desc);
        else if (message[0] != '\0')
            failure(w,
                    "case %zu (%s): OK but this thread's last error is "
                    "\"%s\": %s",
                    case_no, where, message, rc->desc);
        return;
    }
    char frag[sizeof rc->bad.position + 64], range[64];
    if (rc->spec.idx_rank > 0)
        snprintf(frag, sizeof frag, "%s = %" PRId64, rc->bad.position,
                 rc->bad.value);
    else
        snprintf(frag, sizeof frag, "= %" PRId64, rc->bad.value);
    snprintf(range, sizeof range, "[%" PRId64 ", %" PRId64 "]", rc->bad.lo,
             rc->bad.hi);
    if (!strstr(message, frag) || !strstr(message, range))
        failure(w,
                "case %zu (%s): message \"%s\" does not name \"%s\" and "
                "\"%s\": %s",
                case_no, where, message, frag, range, rc->desc);
}

static int all_bytes(const unsigned char *p, size_t n, unsigned char v)
{
    for (size_t k = 0; k < n; k++)
        if (p[k] != v)
            return 0;
    return 1;
}

static int guards_intact(const clg_test_tensor *tt)
{
    return all_bytes(tt->alloc, CLG_TEST_GUARD + tt->misalign,
                     CLG_TEST_GUARD_BYTE) &&
           all_bytes(tt->alloc + CLG_TEST_GUARD + tt->misalign + tt->bytes,
                     CLG_TEST_GUARD - tt->misalign, CLG_TEST_GUARD_BYTE);
}

/* Inputs unchanged and their guards intact, after any path. */
static void check_inputs(worker *w, const clg_test_random_case *rc,
                         size_t case_no)
{
    if (memcmp(rc->data.t.data, rc->data_copy, rc->data.bytes) != 0 ||
        memcmp(rc->indices.t.data, rc->idx_copy, rc->indices.bytes) != 0 ||
        !guards_intact(&rc->data) || !guards_intact(&rc->indices))
        failure(w, "case %zu: an input or its guard zone changed: %s", case_no,
                rc->desc);
}

/* ------------------------------------------------------------ the paths */

static void run_host(worker *w, const clg_test_random_case *rc, size_t case_no)
{
    const clg_test_spec *s = &rc->spec;
    clg_test_tensor out;
    clg_test_tensor_init(&out, s->dtype, rc->out_rank, rc->out_shape,
                         s->out_misalign, 0xAB);
    clg_status st = clg_test_call_mode(s->op, w->ctx, 0, &rc->data.t,
                                       &rc->indices.t, s->axis, s->oob,
                                       &out.t);
    check_result(w, rc, case_no, PATH_HOST, st, out.t.data);
    if (st != CLG_STATUS_OK && !all_bytes(out.t.data, out.bytes, 0xAB))
        failure(w, "case %zu (host memory): output written on error: %s",
                case_no, rc->desc);
    if (!guards_intact(&out))
        failure(w, "case %zu (host memory): output guard zone written: %s",
                case_no, rc->desc);
    clg_test_tensor_free(&out);
}

/* A device buffer of at least one byte (OpenCL has no empty buffers),
 * filled from `host` when given. */
static cl_mem make_buffer(worker *w, size_t bytes, const void *host)
{
    cl_int err = CL_SUCCESS;
    cl_mem_flags flags = CL_MEM_READ_WRITE;
    if (host && bytes > 0)
        flags |= CL_MEM_COPY_HOST_PTR;
    cl_mem m = clCreateBuffer(clg_context_cl_context(w->ctx), flags,
                              bytes ? bytes : 1, bytes ? (void *)host : NULL,
                              &err);
    if (!m)
        failure(w, "clCreateBuffer(%zu bytes): %s", bytes,
                clg_cl_error_name(err));
    return m;
}

typedef struct buffers {
    cl_mem data, indices, output;
    clg_cl_tensor d, i, o;
} buffers;

static int buffers_make(worker *w, const clg_test_random_case *rc, int fill,
                        buffers *b)
{
    const clg_test_spec *s = &rc->spec;
    memset(b, 0, sizeof *b);
    b->data = make_buffer(w, rc->data.bytes, fill ? rc->data.t.data : NULL);
    b->indices = make_buffer(w, rc->indices.bytes,
                             fill ? rc->indices.t.data : NULL);
    b->output = make_buffer(w, rc->out_bytes, NULL);
    b->d = (clg_cl_tensor){s->dtype, s->rank, rc->data.t.shape, b->data};
    b->i = (clg_cl_tensor){s->idx_dtype, s->idx_rank, rc->indices.t.shape,
                           b->indices};
    b->o = (clg_cl_tensor){s->dtype, rc->out_rank, rc->out_shape, b->output};
    return b->data && b->indices && b->output;
}

static void buffers_free(buffers *b)
{
    if (b->data)
        clReleaseMemObject(b->data);
    if (b->indices)
        clReleaseMemObject(b->indices);
    if (b->output)
        clReleaseMemObject(b->output);
}

/* Reads the output buffer on the thread's own queue (else the context's)
 * and waits for the read's event: on Mesa's Rusticl 22.3 a blocking read
 * may return before its command has run when another thread flushes the
 * queue meanwhile, as a finish in another thread does when it waits for
 * enqueues whose wait lists name this queue's writes (docs/design.md,
 * "Threads"). */
static int read_output(worker *w, const buffers *b, size_t bytes, void *host)
{
    cl_command_queue q = w->io ? w->io : clg_context_cl_queue(w->ctx);
    cl_event ev = NULL;
    cl_int err = bytes == 0 ? CL_SUCCESS
                            : clEnqueueReadBuffer(q, b->output, CL_TRUE, 0,
                                                  bytes, host, 0, NULL, &ev);
    if (err != CL_SUCCESS)
        failure(w, "clEnqueueReadBuffer(output): %s", clg_cl_error_name(err));
    else if (ev && (err = clWaitForEvents(1, &ev)) != CL_SUCCESS)
        failure(w, "clWaitForEvents(output read): %s", clg_cl_error_name(err));
    if (ev)
        clReleaseEvent(ev);
    return err == CL_SUCCESS;
}

static void run_cl(worker *w, const clg_test_random_case *rc, size_t case_no)
{
    const clg_test_spec *s = &rc->spec;
    buffers b;
    unsigned char *out = malloc(rc->out_bytes + 1);
    if (out && buffers_make(w, rc, 1, &b)) {
        const clg_call_options o = {s->oob};
        clg_status st =
            s->op == CLG_OP_GATHER
                ? clg_gather_cl(w->ctx, &b.d, &b.i, s->axis, &b.o)
            : s->op == CLG_OP_GATHER_ND
                ? clg_gather_nd_cl_ex(w->ctx, &b.d, &b.i, s->axis, &b.o, &o)
                : clg_gather_elements_cl(w->ctx, &b.d, &b.i, s->axis, &b.o);
        if (st != CLG_STATUS_OK || read_output(w, &b, rc->out_bytes, out))
            check_result(w, rc, case_no, PATH_CL, st, out);
    } else if (!out) {
        failure(w, "out of host memory");
    }
    buffers_free(&b);
    free(out);
}

/* Non-blocking writes of the inputs on the thread's queue; their events go
 * to the enqueue's wait list (so on another queue, or on an out-of-order
 * one, they are its only ordering), and the queue is flushed. Returns the
 * number of events. */
static cl_uint write_inputs(worker *w, const clg_test_random_case *rc,
                            const buffers *b, cl_event ev[2])
{
    cl_uint n = 0;
    const void *src[2] = {rc->data.t.data, rc->indices.t.data};
    cl_mem dst[2] = {b->data, b->indices};
    size_t bytes[2] = {rc->data.bytes, rc->indices.bytes};
    for (int k = 0; k < 2; k++) {
        if (bytes[k] == 0)
            continue;
        cl_int err = clEnqueueWriteBuffer(w->io, dst[k], CL_FALSE, 0, bytes[k],
                                          src[k], 0, NULL, &ev[n]);
        if (err != CL_SUCCESS)
            failure(w, "clEnqueueWriteBuffer: %s", clg_cl_error_name(err));
        else
            n++;
    }
    /* Events of one queue in the wait list of a command of another need
     * their queue flushed first (OpenCL 1.2, section 5.13): Mesa's Rusticl
     * submits nothing before a flush, and an operation waiting on the
     * writes would then wait forever. */
    cl_int err = n ? clFlush(w->io) : CL_SUCCESS;
    if (err != CL_SUCCESS)
        failure(w, "clFlush: %s", clg_cl_error_name(err));
    return n;
}

static void run_enqueue(worker *w, const clg_test_random_case *rc,
                        size_t case_no)
{
    const clg_test_spec *s = &rc->spec;
    buffers b;
    cl_event wait[2], done = NULL;
    cl_uint nwait = 0;
    unsigned char *out = malloc(rc->out_bytes + 1);
    if (out && buffers_make(w, rc, 0, &b)) {
        nwait = write_inputs(w, rc, &b, wait);
        const clg_call_options o = {s->oob};
        clg_status st =
            s->op == CLG_OP_GATHER
                ? clg_enqueue_gather(w->ctx, w->queue, &b.d, &b.i, s->axis,
                                     &b.o, nwait, nwait ? wait : NULL, &done)
            : s->op == CLG_OP_GATHER_ND
                ? clg_enqueue_gather_nd_ex(w->ctx, w->queue, &b.d, &b.i,
                                           s->axis, &b.o, nwait,
                                           nwait ? wait : NULL, &done, &o)
                : clg_enqueue_gather_elements(w->ctx, w->queue, &b.d, &b.i,
                                              s->axis, &b.o, nwait,
                                              nwait ? wait : NULL, &done);
        cl_int err = st == CLG_STATUS_OK ? clWaitForEvents(1, &done)
                                         : CL_SUCCESS;
        if (err != CL_SUCCESS)
            failure(w, "case %zu: clWaitForEvents: %s", case_no,
                    clg_cl_error_name(err));
        else if (st != CLG_STATUS_OK || read_output(w, &b, rc->out_bytes, out))
            check_result(w, rc, case_no, PATH_ENQUEUE, st, out);
        if (done)
            clReleaseEvent(done);
        /* The writes are done once the operation is; wait anyway before
         * the host memory goes, whatever happened. */
        if (nwait)
            clWaitForEvents(nwait, wait);
        for (cl_uint k = 0; k < nwait; k++)
            clReleaseEvent(wait[k]);
    } else if (!out) {
        failure(w, "out of host memory");
    }
    buffers_free(&b);
    free(out);
}

/* Finishes the context from this thread: every thread's enqueued cases are
 * good, so OK, whatever the others are doing. */
static void finish_ok(worker *w, size_t case_no)
{
    clg_status st = clg_context_finish(w->ctx);
    w->finishes++;
    if (st != CLG_STATUS_OK)
        failure(w,
                "clg_context_finish after case %zu: %s (\"%s\"), expected "
                "OK",
                case_no, clg_status_name(st), clg_context_last_error(w->ctx));
    else if (clg_context_last_error(w->ctx)[0] != '\0')
        failure(w,
                "clg_context_finish OK but this thread's last error is "
                "\"%s\"",
                clg_context_last_error(w->ctx));
}

/* ------------------------------------------------------------ random */

static void *random_worker(void *arg)
{
    worker *w = arg;
    clg_test_rng rng = {w->seed}, nd_rng = {w->seed ^ UINT64_C(0x9d)};
    size_t enqueued = 0, i = 0, nd = 0;
    pthread_barrier_wait(w->barrier);
    for (size_t j = 0; j < CALLS_PER_THREAD + ND_CALLS_PER_THREAD; j++) {
        /* Spec numbers t*256 .. t*256+255: the 8 threads together cover
         * each op x dtype x index dtype x rank combination 4 times; GatherND
         * spec numbers t*64 .. t*64+63 (case numbers from 4096 on), each
         * dtype x index dtype x mode 4 times. */
        int is_nd = j % 5 == 4;
        size_t case_no =
            is_nd ? 4096 + (size_t)w->index * ND_CALLS_PER_THREAD + nd++
                  : (size_t)w->index * CALLS_PER_THREAD + i++;
        clg_test_spec spec;
        clg_test_random_case rc;
        if (is_nd) {
            clg_test_random_nd_spec(&nd_rng, case_no - 4096, &spec);
            clg_test_random_case_make(&nd_rng, &spec, &rc);
        } else {
            clg_test_random_spec(&rng, case_no, &spec);
            clg_test_random_case_make(&rng, &spec, &rc);
        }
        path p = (path)(case_no % PATH_COUNT);
        if (p == PATH_ENQUEUE && rc.expect != CLG_STATUS_OK)
            p = case_no % 2 ? PATH_HOST : PATH_CL; /* see the top */
        if (p == PATH_HOST)
            run_host(w, &rc, case_no);
        else if (p == PATH_CL)
            run_cl(w, &rc, case_no);
        else
            run_enqueue(w, &rc, case_no);
        check_inputs(w, &rc, case_no);
        w->calls[p][spec.op]++;
        w->index_errors[p][spec.op] += rc.expect != CLG_STATUS_OK;
        if (p == PATH_ENQUEUE && ++enqueued % FINISH_EVERY == 0)
            finish_ok(w, case_no);
        clg_test_random_case_free(&rc);
    }
    finish_ok(w, CALLS_PER_THREAD);
    return NULL;
}

static cl_command_queue new_queue(clg_context *ctx,
                                  cl_command_queue_properties props)
{
    cl_int err = CL_SUCCESS;
    cl_command_queue q = clCreateCommandQueue(clg_context_cl_context(ctx),
                                              clg_context_cl_device(ctx),
                                              props, &err);
    if (!q)
        print_error("clCreateCommandQueue: %s\n", clg_cl_error_name(err));
    assert_non_null(q);
    return q;
}

/* Threads 0 and 4 enqueue on the context's queue (NULL), 3 and 7 on an
 * out-of-order queue of their own where the device has them, the others on
 * their own in-order queue. */
static void workers_start(worker *w, size_t n, clg_context *ctx,
                          pthread_barrier_t *barrier, void *(*fn)(void *),
                          int with_queues)
{
    clg_test_rng seeder = {seed};
    int ooo = clg_test_has_out_of_order(ctx);
    for (size_t t = 0; t < n; t++) {
        memset(&w[t], 0, sizeof w[t]);
        w[t].index = (int)t;
        w[t].ctx = ctx;
        w[t].barrier = barrier;
        w[t].seed = clg_test_rng_next(&seeder);
        if (with_queues) {
            w[t].io = new_queue(ctx, 0);
            w[t].queue = t % 4 == 0 ? NULL : w[t].io;
            if (t % 4 == 3 && ooo)
                w[t].queue = new_queue(ctx,
                                       CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
        }
    }
    for (size_t t = 0; t < n; t++)
        assert_int_equal(pthread_create(&w[t].thread, NULL, fn, &w[t]), 0);
}

static void workers_join(worker *w, size_t n)
{
    for (size_t t = 0; t < n; t++) {
        assert_int_equal(pthread_join(w[t].thread, NULL), 0);
        if (w[t].queue && w[t].queue != w[t].io)
            clReleaseCommandQueue(w[t].queue);
        if (w[t].io)
            clReleaseCommandQueue(w[t].io);
    }
}

static void test_threads_share_context(void **state)
{
    clg_context *ctx = *state;
    worker w[THREADS];
    pthread_barrier_t barrier;
    assert_int_equal(pthread_barrier_init(&barrier, NULL, THREADS), 0);
    workers_start(w, THREADS, ctx, &barrier, random_worker, 1);
    workers_join(w, THREADS);
    pthread_barrier_destroy(&barrier);

    size_t calls[PATH_COUNT][3] = {{0}}, errors[PATH_COUNT][3] = {{0}};
    size_t total = 0, finishes = 0, mismatches = 0;
    for (size_t t = 0; t < THREADS; t++) {
        for (int p = 0; p < PATH_COUNT; p++)
            for (int op = 0; op < 3; op++) {
                calls[p][op] += w[t].calls[p][op];
                errors[p][op] += w[t].index_errors[p][op];
                total += w[t].calls[p][op];
            }
        finishes += w[t].finishes;
        mismatches += w[t].failures;
    }
    print_message("%d threads on one context (out-of-order queues: %s), "
                  "%zu calls, %zu finishes:\n",
                  THREADS, clg_test_has_out_of_order(ctx) ? "yes" : "no",
                  total, finishes);
    for (int p = 0; p < PATH_COUNT; p++)
        print_message("  %-25s Gather %4zu (%3zu index errors), "
                      "GatherElements %4zu (%3zu), GatherND %4zu (%3zu)\n",
                      path_names[p], calls[p][0], errors[p][0], calls[p][1],
                      errors[p][1], calls[p][2], errors[p][2]);
    print_message("  mismatches: %zu\n", mismatches);
    assert_no_failures(w, THREADS);
    assert_int_equal(mismatches, 0);
    assert_true(total >= 2000 + 500);
    for (int p = 0; p < PATH_COUNT; p++) {
        for (int op = 0; op < 2; op++)
            assert_true(calls[p][op] >= 200);
        assert_true(calls[p][CLG_OP_GATHER_ND] >= 100);
    }
    /* Index errors reached both blocking paths, never the enqueue one. */
    assert_true(errors[PATH_HOST][0] + errors[PATH_HOST][1] > 0);
    assert_true(errors[PATH_CL][0] + errors[PATH_CL][1] > 0);
    assert_true(errors[PATH_HOST][2] + errors[PATH_CL][2] > 0);
    assert_int_equal(errors[PATH_ENQUEUE][0] + errors[PATH_ENQUEUE][1] +
                         errors[PATH_ENQUEUE][2],
                     0);
    CLG_ASSERT_OK(ctx, clg_context_finish(ctx));
}

/* ------------------------------------------------------------ deferred */

/* data float32[4, 3] = 0 .. 11, indices int64[3]; thread 5 plants 99 at
 * indices[2]. */
#define BAD_THREAD 5
static const int64_t small_dshape[2] = {4, 3}, small_ishape[1] = {3},
                     small_oshape[2] = {3, 3};

static void *deferred_worker(void *arg)
{
    worker *w = arg;
    float data[12], out[9];
    for (int k = 0; k < 12; k++)
        data[k] = (float)k + 0.25f;
    for (int round = 0; round < 8; round++) {
        int64_t idx[3] = {w->index % 4, -1, round % 4};
        if (w->index == BAD_THREAD && round == 4)
            idx[2] = 99;
        buffers b;
        cl_mem m[3] = {
            make_buffer(w, sizeof data, data),
            make_buffer(w, sizeof idx, idx),
            make_buffer(w, sizeof out, NULL),
        };
        b.data = m[0], b.indices = m[1], b.output = m[2];
        if (!m[0] || !m[1] || !m[2]) {
            buffers_free(&b);
            continue;
        }
        clg_cl_tensor d = {CLG_DTYPE_FLOAT, 2, small_dshape, m[0]};
        clg_cl_tensor i = {CLG_DTYPE_INT64, 1, small_ishape, m[1]};
        clg_cl_tensor o = {CLG_DTYPE_FLOAT, 2, small_oshape, m[2]};
        cl_event ev = NULL;
        clg_status st = clg_enqueue_gather(w->ctx, w->queue, &d, &i, 0, &o, 0,
                                           NULL, &ev);
        if (st != CLG_STATUS_OK)
            failure(w, "round %d: clg_enqueue_gather: %s (\"%s\")", round,
                    clg_status_name(st), clg_context_last_error(w->ctx));
        if (ev && clWaitForEvents(1, &ev) != CL_SUCCESS)
            failure(w, "round %d: clWaitForEvents failed", round);
        if (ev)
            clReleaseEvent(ev);
        int good = !(w->index == BAD_THREAD && round == 4);
        if (st == CLG_STATUS_OK && good &&
            read_output(w, &b, sizeof out, out)) {
            for (int r = 0; r < 3; r++)
                for (int c = 0; c < 3; c++) {
                    int64_t row = idx[r] < 0 ? idx[r] + 4 : idx[r];
                    if (out[r * 3 + c] != data[row * 3 + c])
                        failure(w, "round %d: output[%d][%d] = %g, not %g",
                                round, r, c, (double)out[r * 3 + c],
                                (double)data[row * 3 + c]);
                }
        }
        if (clg_context_last_error(w->ctx)[0] != '\0')
            failure(w, "round %d: this thread's last error is \"%s\"", round,
                    clg_context_last_error(w->ctx));
        buffers_free(&b);
    }
    pthread_barrier_wait(w->barrier); /* every enqueue done */
    pthread_barrier_wait(w->barrier); /* the main thread finished */
    if (clg_context_last_error(w->ctx)[0] != '\0')
        failure(w,
                "after another thread's finish failed, this thread's last "
                "error is \"%s\"",
                clg_context_last_error(w->ctx));
    return NULL;
}

static void test_deferred_error_across_threads(void **state)
{
    clg_context *ctx = *state;
    worker w[THREADS];
    pthread_barrier_t barrier;
    CLG_ASSERT_OK(ctx, clg_context_finish(ctx));
    assert_int_equal(pthread_barrier_init(&barrier, NULL, THREADS + 1), 0);
    workers_start(w, THREADS, ctx, &barrier, deferred_worker, 1);
    pthread_barrier_wait(&barrier);
    clg_status st = clg_context_finish(ctx);
    const char *message = clg_context_last_error(ctx);
    print_message("finish after %d threads x 8 enqueues, one bad: %s \"%s\"\n",
                  THREADS, clg_status_name(st), message);
    pthread_barrier_wait(&barrier);
    workers_join(w, THREADS);
    pthread_barrier_destroy(&barrier);
    assert_int_equal(st, CLG_STATUS_INDEX_OUT_OF_RANGE);
    CLG_ASSERT_CONTAINS(message, "Gather #");
    CLG_ASSERT_CONTAINS(message, "indices[2] = 99");
    CLG_ASSERT_CONTAINS(message, "[-4, 3]");
    assert_no_failures(w, THREADS);
    /* Reported once. */
    CLG_ASSERT_OK(ctx, clg_context_finish(ctx));
    assert_string_equal(clg_context_last_error(ctx), "");
}

/* ------------------------------------------------------------ messages */

#define MESSAGE_ROUNDS 64

/* Odd threads fail (value 100 + thread at indices[1]), even ones succeed,
 * all at once, and each reads its own message after every call. */
static void *message_worker(void *arg)
{
    worker *w = arg;
    float data[12], out[9];
    for (int k = 0; k < 12; k++)
        data[k] = (float)k;
    int fails = w->index % 2;
    int64_t idx[3] = {0, fails ? 100 + w->index : 1, 2};
    char want[64];
    snprintf(want, sizeof want, "indices[1] = %d ", 100 + w->index);
    clg_tensor d = {CLG_DTYPE_FLOAT, 2, small_dshape, data};
    clg_tensor i = {CLG_DTYPE_INT64, 1, small_ishape, idx};
    clg_tensor o = {CLG_DTYPE_FLOAT, 2, small_oshape, out};
    pthread_barrier_wait(w->barrier);
    for (int round = 0; round < MESSAGE_ROUNDS; round++) {
        clg_status st = clg_gather(w->ctx, &d, &i, 0, &o);
        const char *message = clg_context_last_error(w->ctx);
        if (fails &&
            (st != CLG_STATUS_INDEX_OUT_OF_RANGE || !strstr(message, want)))
            failure(w,
                    "round %d: %s \"%s\", expected INDEX_OUT_OF_RANGE "
                    "naming \"%s\"",
                    round, clg_status_name(st), message, want);
        if (!fails && (st != CLG_STATUS_OK || message[0] != '\0'))
            failure(w, "round %d: %s \"%s\", expected OK and \"\"", round,
                    clg_status_name(st), message);
    }
    pthread_barrier_wait(w->barrier); /* all threads' last calls done */
    const char *message = clg_context_last_error(w->ctx);
    if (fails ? !strstr(message, want) : message[0] != '\0')
        failure(w, "after every thread's last call: \"%s\"", message);
    return NULL;
}

static void test_last_error_per_thread(void **state)
{
    clg_context *ctx = *state;
    worker w[THREADS];
    pthread_barrier_t barrier;
    CLG_ASSERT_OK(ctx, clg_context_finish(ctx)); /* "" on this thread */
    assert_int_equal(pthread_barrier_init(&barrier, NULL, THREADS), 0);
    workers_start(w, THREADS, ctx, &barrier, message_worker, 0);
    workers_join(w, THREADS);
    pthread_barrier_destroy(&barrier);
    assert_no_failures(w, THREADS);
    /* The main thread's own message was left by its own last call. */
    assert_string_equal(clg_context_last_error(ctx), "");
    print_message("%d threads x %d calls, half failing: every thread read "
                  "its own message\n",
                  THREADS, MESSAGE_ROUNDS);
}

/* ------------------------------------------------------------ first use */

/* The cases every thread runs on the fresh context, the same for all:
 * spec numbers 0 .. 63 (both ops x 16 dtypes x both index types, rank 1),
 * then GatherND's 0 .. 31 (16 dtypes x both index types, raise), from one
 * seed. */
#define FIRST_USE_CASES 96
#define FIRST_USE_GATHER 64

typedef struct first_use {
    worker w;
    clg_test_random_case *cases;
} first_use;

static void run_first_use_case(worker *w, clg_test_random_case *rc, size_t k)
{
    if (k % 2)
        run_host(w, rc, k);
    else
        run_cl(w, rc, k);
    check_inputs(w, rc, k);
    w->calls[k % 2 ? PATH_HOST : PATH_CL][rc->spec.op]++;
}

/* Each thread runs every case, starting at its own: all of them need the
 * same programs first, in different orders. */
static void *first_use_worker(void *arg)
{
    first_use *f = arg;
    pthread_barrier_wait(f->w.barrier);
    for (size_t j = 0; j < FIRST_USE_CASES; j++) {
        size_t k = (j + (size_t)f->w.index * 8) % FIRST_USE_CASES;
        run_first_use_case(&f->w, &f->cases[k], k);
    }
    return NULL;
}

static void make_first_use_cases(clg_test_random_case *cases)
{
    clg_test_rng rng = {seed ^ UINT64_C(0xf125f05e)};
    for (size_t k = 0; k < FIRST_USE_CASES; k++) {
        clg_test_spec spec;
        if (k < FIRST_USE_GATHER)
            clg_test_random_spec(&rng, k, &spec);
        else
            clg_test_random_nd_spec(&rng, k - FIRST_USE_GATHER, &spec);
        clg_test_random_case_make(&rng, &spec, &cases[k]);
    }
}

/* 1 when two cached programs have the same key. */
static int duplicate_programs(const clg_context *ctx)
{
    for (size_t a = 0; a < ctx->program_count; a++)
        for (size_t b = a + 1; b < ctx->program_count; b++)
            if (!strcmp(ctx->programs[a]->key, ctx->programs[b]->key))
                return 1;
    return 0;
}

static void test_concurrent_first_use(void **state)
{
    (void)state;
    clg_test_random_case *cases = calloc(FIRST_USE_CASES, sizeof *cases);
    assert_non_null(cases);
    make_first_use_cases(cases);

    /* One thread on a fresh context: the programs these cases need. */
    clg_context *alone = NULL;
    CLG_ASSERT_OK(NULL, clg_context_create(&alone, NULL));
    first_use single = {.cases = cases};
    single.w.ctx = alone;
    for (size_t k = 0; k < FIRST_USE_CASES; k++)
        run_first_use_case(&single.w, &cases[k], k);
    size_t programs_alone = alone->program_count;
    clg_context_destroy(alone);
    assert_no_failures(&single.w, 1);

    /* 8 threads on another fresh context, all starting at once. */
    clg_context *ctx = NULL;
    CLG_ASSERT_OK(NULL, clg_context_create(&ctx, NULL));
    first_use f[THREADS];
    worker w[THREADS];
    pthread_barrier_t barrier;
    assert_int_equal(pthread_barrier_init(&barrier, NULL, THREADS), 0);
    for (size_t t = 0; t < THREADS; t++) {
        memset(&f[t], 0, sizeof f[t]);
        f[t].w.index = (int)t;
        f[t].w.ctx = ctx;
        f[t].w.barrier = &barrier;
        f[t].cases = cases;
    }
    for (size_t t = 0; t < THREADS; t++)
        assert_int_equal(pthread_create(&f[t].w.thread, NULL, first_use_worker,
                                        &f[t]),
                         0);
    for (size_t t = 0; t < THREADS; t++) {
        assert_int_equal(pthread_join(f[t].w.thread, NULL), 0);
        w[t] = f[t].w;
    }
    pthread_barrier_destroy(&barrier);
    size_t programs = ctx->program_count;
    int duplicates = duplicate_programs(ctx);
    clg_context_destroy(ctx);
    for (size_t k = 0; k < FIRST_USE_CASES; k++)
        clg_test_random_case_free(&cases[k]);
    free(cases);

    print_message("first use by %d threads at once: %d calls, %zu programs "
                  "built (one thread alone: %zu)\n",
                  THREADS, THREADS * FIRST_USE_CASES, programs,
                  programs_alone);
    assert_no_failures(w, THREADS);
    assert_false(duplicates);
    assert_int_equal(programs, programs_alone);
    assert_true(programs >= 8);
}

int main(void)
{
    seed = clg_test_seed(DEFAULT_SEED);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_concurrent_first_use),
        cmocka_unit_test(test_threads_share_context),
        cmocka_unit_test(test_deferred_error_across_threads),
        cmocka_unit_test(test_last_error_per_thread),
    };
    return CLG_RUN_DEVICE_TESTS(tests);
}
