/* SPDX-License-Identifier: Apache-2.0 */
/* Each caller gets its own deferred errors (clg_context_finish_queue,
 * clg_context_finish_events): two threads share one context, each
 * enqueueing on a queue of its own. Thread A enqueues a Gather with a bad
 * index on qa and does not finish yet; thread B enqueues a good one on qb
 * and finishes its own queue (or its own event): OK, with its result,
 * while A's operation is still pending (held by a user event, so a finish
 * that waited for it would hang: the alarm turns that into a failure).
 * A's own finish then reports A's operation, and a finish of everything
 * afterwards reports nothing again. Then many rounds of both threads at
 * once, across error-slot chunks, each thread getting exactly its own
 * errors, and the argument checks. */
#define _POSIX_C_SOURCE 200809L
#include "clg_test.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define HANG_LIMIT_S 300

/* A's operation: data FLOAT[5, 2], indices {1, 12345} (bad) on axis 0.
 * B's: data FLOAT[4, 3], indices {2, -1} (good) -> rows 2 and 3. */
static const float a_data[10] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9};
static const int64_t a_dshape[2] = {5, 2};
static const int64_t a_idx[2] = {1, 12345};
static const int64_t a_ishape[1] = {2};
static const int64_t a_oshape[2] = {2, 2};
static const float b_data[12] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11};
static const int64_t b_dshape[2] = {4, 3};
static const int64_t b_idx[2] = {2, -1};
static const int64_t b_ishape[1] = {2};
static const int64_t b_oshape[2] = {2, 3};
static const float b_want[6] = {6, 7, 8, 9, 10, 11};

#define A_MESSAGE                                                             \
    "(data FLOAT[5, 2], indices INT64[2], axis 0): indices[1] = 12345 is "    \
    "out of range [-5, 4] for axis 0 of size 5"

typedef struct side {
    cl_mem d, i, o;
    clg_cl_tensor td, ti, to;
    cl_command_queue q;
} side;

static cl_command_queue new_queue(clg_context *ctx)
{
    cl_int err = CL_SUCCESS;
    cl_command_queue q = clCreateCommandQueue(clg_context_cl_context(ctx),
                                              clg_context_cl_device(ctx), 0,
                                              &err);
    assert_int_equal(err, CL_SUCCESS);
    return q;
}

static void side_make(clg_context *ctx, side *s, int is_a)
{
    s->d = is_a ? clg_test_buffer(ctx, a_data, sizeof a_data)
                : clg_test_buffer(ctx, b_data, sizeof b_data);
    s->i = is_a ? clg_test_buffer(ctx, a_idx, sizeof a_idx)
                : clg_test_buffer(ctx, b_idx, sizeof b_idx);
    s->o = clg_test_buffer(ctx, NULL,
                           is_a ? 4 * sizeof(float) : sizeof b_want);
    s->td = (clg_cl_tensor){CLG_DTYPE_FLOAT, 2, is_a ? a_dshape : b_dshape,
                            s->d};
    s->ti = (clg_cl_tensor){CLG_DTYPE_INT64, 1, is_a ? a_ishape : b_ishape,
                            s->i};
    s->to = (clg_cl_tensor){CLG_DTYPE_FLOAT, 2, is_a ? a_oshape : b_oshape,
                            s->o};
    s->q = new_queue(ctx);
}

static void side_free(side *s)
{
    clReleaseMemObject(s->d);
    clReleaseMemObject(s->i);
    clReleaseMemObject(s->o);
    clReleaseCommandQueue(s->q);
}

/* What a thread saw; checked by the main thread (cmocka asserts only
 * there). */
typedef struct seen {
    clg_status enqueue, finish;
    char message[512];
    float out[6];
    cl_int read;
} seen;

typedef struct scene {
    clg_context *ctx;
    side a, b;
    cl_event gate; /* holds A's operation */
    cl_event a_ev, b_ev;
    int by_events;
    seen sa, sb;
} scene;

static void *a_enqueue(void *arg)
{
    scene *s = arg;
    s->sa.enqueue = clg_enqueue_gather(s->ctx, s->a.q, &s->a.td, &s->a.ti, 0,
                                       &s->a.to, 1, &s->gate, &s->a_ev);
    return NULL;
}

static void *a_finish(void *arg)
{
    scene *s = arg;
    s->sa.finish = s->by_events
                       ? clg_context_finish_events(s->ctx, 1, &s->a_ev)
                       : clg_context_finish_queue(s->ctx, s->a.q);
    snprintf(s->sa.message, sizeof s->sa.message, "%s",
             clg_context_last_error(s->ctx));
    return NULL;
}

static void *b_all(void *arg)
{
    scene *s = arg;
    s->sb.enqueue = clg_enqueue_gather(s->ctx, s->b.q, &s->b.td, &s->b.ti, 0,
                                       &s->b.to, 0, NULL, &s->b_ev);
    if (s->sb.enqueue != CLG_STATUS_OK)
        return NULL;
    s->sb.finish = s->by_events
                       ? clg_context_finish_events(s->ctx, 1, &s->b_ev)
                       : clg_context_finish_queue(s->ctx, s->b.q);
    snprintf(s->sb.message, sizeof s->sb.message, "%s",
             clg_context_last_error(s->ctx));
    s->sb.read = clEnqueueReadBuffer(s->b.q, s->b.o, CL_TRUE, 0, sizeof b_want,
                                     s->sb.out, 0, NULL, NULL);
    return NULL;
}

static void run_thread(void *(*fn)(void *), scene *s)
{
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, fn, s), 0);
    assert_int_equal(pthread_join(t, NULL), 0);
}

static void cross_thread(int by_events)
{
    scene s;
    cl_int err = CL_SUCCESS;
    memset(&s, 0, sizeof s);
    s.by_events = by_events;
    CLG_ASSERT_OK(NULL, clg_context_create(&s.ctx, NULL));
    side_make(s.ctx, &s.a, 1);
    side_make(s.ctx, &s.b, 0);
    s.gate = clCreateUserEvent(clg_context_cl_context(s.ctx), &err);
    assert_int_equal(err, CL_SUCCESS);
    alarm(HANG_LIMIT_S);

    run_thread(a_enqueue, &s); /* operation #1, held by the gate */
    CLG_ASSERT_OK(s.ctx, s.sa.enqueue);
    run_thread(b_all, &s); /* operation #2 and B's own finish */
    CLG_ASSERT_OK(s.ctx, s.sb.enqueue);
    assert_int_equal(s.sb.finish, CLG_STATUS_OK);
    assert_string_equal(s.sb.message, "");
    assert_int_equal(s.sb.read, CL_SUCCESS);
    CLG_ASSERT_BYTES(s.sb.out, b_want, sizeof b_want, 4, "B's output");
    /* A's operation was neither waited for nor taken. */
    cl_int a_status = CL_COMPLETE;
    assert_int_equal(clGetEventInfo(s.a_ev, CL_EVENT_COMMAND_EXECUTION_STATUS,
                                    sizeof a_status, &a_status, NULL),
                     CL_SUCCESS);
    assert_true(a_status > CL_COMPLETE);

    assert_int_equal(clSetUserEventStatus(s.gate, CL_COMPLETE), CL_SUCCESS);
    run_thread(a_finish, &s);
    assert_int_equal(s.sa.finish, CLG_STATUS_INDEX_OUT_OF_RANGE);
    CLG_ASSERT_CONTAINS(s.sa.message, "Gather #1 " A_MESSAGE);
    /* Reported once: neither a finish of everything nor A's again. */
    CLG_ASSERT_OK(s.ctx, clg_context_finish(s.ctx));
    CLG_ASSERT_OK(s.ctx, clg_context_finish_queue(s.ctx, s.a.q));
    CLG_ASSERT_OK(s.ctx, clg_context_finish_events(s.ctx, 1, &s.a_ev));
    alarm(0);

    clReleaseEvent(s.a_ev);
    clReleaseEvent(s.b_ev);
    clReleaseEvent(s.gate);
    side_free(&s.a);
    side_free(&s.b);
    clg_context_destroy(s.ctx);
}

static void test_finish_queue_cross_thread(void **state)
{
    (void)state;
    cross_thread(0);
}

static void test_finish_events_cross_thread(void **state)
{
    (void)state;
    cross_thread(1);
}

/* One thread: a finish of another queue leaves the error where it is, and
 * clg_context_finish still reports everything pending; NULL is the
 * context's queue. */
static void test_other_queues_keep_their_errors(void **state)
{
    clg_context *ctx = NULL;
    side a, b;
    cl_event ev = NULL;
    (void)state;
    CLG_ASSERT_OK(NULL, clg_context_create(&ctx, NULL));
    side_make(ctx, &a, 1);
    side_make(ctx, &b, 0);
    alarm(HANG_LIMIT_S);
    CLG_ASSERT_OK(ctx, clg_enqueue_gather(ctx, a.q, &a.td, &a.ti, 0, &a.to, 0,
                                          NULL, &ev));
    CLG_ASSERT_OK(ctx, clg_enqueue_gather(ctx, b.q, &b.td, &b.ti, 0, &b.to, 0,
                                          NULL, NULL));
    CLG_ASSERT_OK(ctx, clg_context_finish_queue(ctx, b.q));
    CLG_ASSERT_OK(ctx, clg_context_finish_queue(ctx, NULL));
    CLG_ASSERT_OK(ctx, clg_context_finish_events(ctx, 0, NULL));
    CLG_ASSERT_STATUS(ctx, clg_context_finish(ctx),
                      CLG_STATUS_INDEX_OUT_OF_RANGE);
    CLG_ASSERT_CONTAINS(clg_context_last_error(ctx), "Gather #1 " A_MESSAGE);
    CLG_ASSERT_OK(ctx, clg_context_finish_events(ctx, 1, &ev));
    clReleaseEvent(ev);

    /* The context's own queue, as NULL at both ends. */
    CLG_ASSERT_OK(ctx, clg_enqueue_gather(ctx, NULL, &a.td, &a.ti, 0, &a.to, 0,
                                          NULL, NULL));
    CLG_ASSERT_OK(ctx, clg_context_finish_queue(ctx, a.q));
    CLG_ASSERT_STATUS(ctx, clg_context_finish_queue(ctx, NULL),
                      CLG_STATUS_INDEX_OUT_OF_RANGE);
    CLG_ASSERT_CONTAINS(clg_context_last_error(ctx), "Gather #3 " A_MESSAGE);
    CLG_ASSERT_OK(ctx, clg_context_finish(ctx));
    alarm(0);
    side_free(&a);
    side_free(&b);
    clg_context_destroy(ctx);
}

/* Both threads at once, many rounds: each round a thread enqueues
 * `PER_ROUND` operations on its own queue and finishes that queue; A's
 * operation number BAD_AT of each round has the bad index. Rounds cross
 * the 1,024-slot chunks of error slots, read slot by slot while the other
 * thread's operations share a chunk, and whole when not. */
#define ROUNDS 12
#define PER_ROUND 300
#define BAD_AT 137

typedef struct worker {
    clg_context *ctx;
    side s;
    cl_mem bad; /* A: indices {1, 12345} */
    int is_a;
    int wrong; /* rounds whose finish was not the expected one */
    clg_status first_wrong;
    char wrong_message[512];
} worker;

static void *work(void *arg)
{
    worker *w = arg;
    clg_cl_tensor tbad = w->s.ti;
    tbad.buffer = w->bad;
    for (int r = 0; r < ROUNDS; r++) {
        clg_status st = CLG_STATUS_OK;
        for (int i = 0; i < PER_ROUND && st == CLG_STATUS_OK; i++)
            st = clg_enqueue_gather(w->ctx, w->s.q, &w->s.td,
                                    w->is_a && i == BAD_AT ? &tbad : &w->s.ti,
                                    0, &w->s.to, 0, NULL, NULL);
        if (st == CLG_STATUS_OK)
            st = clg_context_finish_queue(w->ctx, w->s.q);
        const char *msg = clg_context_last_error(w->ctx);
        int ok = w->is_a ? st == CLG_STATUS_INDEX_OUT_OF_RANGE &&
                               strstr(msg, A_MESSAGE) != NULL
                         : st == CLG_STATUS_OK && msg[0] == '\0';
        if (!ok && w->wrong++ == 0) {
            w->first_wrong = st;
            snprintf(w->wrong_message, sizeof w->wrong_message, "%s", msg);
        }
    }
    return NULL;
}

static void test_threads_get_their_own_errors(void **state)
{
    clg_context *ctx = NULL;
    worker w[2];
    pthread_t t[2];
    (void)state;
    CLG_ASSERT_OK(NULL, clg_context_create(&ctx, NULL));
    alarm(HANG_LIMIT_S);
    memset(w, 0, sizeof w);
    for (int k = 0; k < 2; k++) {
        w[k].ctx = ctx;
        w[k].is_a = k == 0;
        /* Both sides valid: A's data and indices {1, 4}; its bad buffer
         * {1, 12345}. */
        side_make(ctx, &w[k].s, 0);
        if (k == 0) {
            const int64_t good[2] = {1, 4};
            clReleaseMemObject(w[k].s.d);
            clReleaseMemObject(w[k].s.i);
            clReleaseMemObject(w[k].s.o);
            w[k].s.d = clg_test_buffer(ctx, a_data, sizeof a_data);
            w[k].s.i = clg_test_buffer(ctx, good, sizeof good);
            w[k].s.o = clg_test_buffer(ctx, NULL, 4 * sizeof(float));
            w[k].s.td = (clg_cl_tensor){CLG_DTYPE_FLOAT, 2, a_dshape,
                                        w[k].s.d};
            w[k].s.ti = (clg_cl_tensor){CLG_DTYPE_INT64, 1, a_ishape,
                                        w[k].s.i};
            w[k].s.to = (clg_cl_tensor){CLG_DTYPE_FLOAT, 2, a_oshape,
                                        w[k].s.o};
            w[k].bad = clg_test_buffer(ctx, a_idx, sizeof a_idx);
        }
    }
    for (int k = 0; k < 2; k++)
        assert_int_equal(pthread_create(&t[k], NULL, work, &w[k]), 0);
    for (int k = 0; k < 2; k++)
        assert_int_equal(pthread_join(t[k], NULL), 0);
    for (int k = 0; k < 2; k++) {
        if (w[k].wrong)
            print_error("thread %c: %d of %d rounds wrong; first: %s: %s\n",
                        k ? 'B' : 'A', w[k].wrong, ROUNDS,
                        clg_status_name(w[k].first_wrong), w[k].wrong_message);
        assert_int_equal(w[k].wrong, 0);
    }
    /* Nothing left behind, and the slots A raised were cleared. */
    CLG_ASSERT_OK(ctx, clg_context_finish(ctx));
    CLG_ASSERT_OK(ctx,
                  clg_enqueue_gather(ctx, w[1].s.q, &w[1].s.td, &w[1].s.ti, 0,
                                     &w[1].s.to, 0, NULL, NULL));
    CLG_ASSERT_OK(ctx, clg_context_finish(ctx));
    alarm(0);
    clReleaseMemObject(w[0].bad);
    for (int k = 0; k < 2; k++)
        side_free(&w[k].s);
    clg_context_destroy(ctx);
}

static void test_arguments(void **state)
{
    clg_context *ctx = *state;
    cl_event none = NULL;
    CLG_ASSERT_STATUS(NULL, clg_context_finish_queue(NULL, NULL),
                      CLG_STATUS_NULL_POINTER);
    CLG_ASSERT_STATUS(NULL, clg_context_finish_events(NULL, 0, NULL),
                      CLG_STATUS_NULL_POINTER);
    CLG_ASSERT_STATUS(ctx, clg_context_finish_events(ctx, 1, NULL),
                      CLG_STATUS_NULL_POINTER);
    CLG_ASSERT_CONTAINS(clg_context_last_error(ctx),
                        "events is NULL but num_events is 1");
    CLG_ASSERT_STATUS(ctx, clg_context_finish_events(ctx, 1, &none),
                      CLG_STATUS_INVALID_ARGUMENT);
    CLG_ASSERT_CONTAINS(clg_context_last_error(ctx), "events[0] is NULL");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_finish_queue_cross_thread),
        cmocka_unit_test(test_finish_events_cross_thread),
        cmocka_unit_test(test_other_queues_keep_their_errors),
        cmocka_unit_test(test_threads_get_their_own_errors),
        cmocka_unit_test(test_arguments),
    };
    return CLG_RUN_DEVICE_TESTS(tests);
}
