/* SPDX-License-Identifier: Apache-2.0 */
/* The enqueue API (clg_enqueue_gather, clg_enqueue_gather_elements,
 * clg_context_finish) inside an OpenCL pipeline: calls that return before
 * the device may start (a user event holds the wait list), chains through
 * events, in-order and out-of-order queues, deferred index errors with
 * their position and value, errors returned before anything is enqueued,
 * and validation mode (clg_context_set_validate, CLGATHER_VALIDATE, the
 * test-only hook that makes a device result wrong on purpose). */
#define _POSIX_C_SOURCE 200809L
#include "clg_test.h"

#include <unistd.h>

#include "clg_test_cache.h" /* kernels built; CLG_RT_TEST_CORRUPT */

/* Any call that waits for the device inside would hang on a user event;
 * the alarm turns a hang into a failure. */
#define HANG_LIMIT_S 300

static int event_status(cl_event e)
{
    cl_int status = 0;
    assert_int_equal(clGetEventInfo(e, CL_EVENT_COMMAND_EXECUTION_STATUS,
                                    sizeof status, &status, NULL),
                     CL_SUCCESS);
    return status;
}

/* data [4, 3] = 0 .. 11; Gather rows {2, -1} -> g [2, 3]; GatherElements
 * of g on axis 0 with ge_idx -> out [2, 3]. */
static const float chain_data[12] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11};
static const int64_t chain_dshape[2] = {4, 3};
static const int64_t chain_gidx[2] = {2, -1};
static const int64_t chain_gishape[1] = {2};
static const int64_t chain_gshape[2] = {2, 3};
static const int32_t chain_geidx[6] = {1, 0, -1, 0, -2, 1};
static const float chain_want_g[6] = {6, 7, 8, 9, 10, 11};
static const float chain_want[6] = {9, 7, 11, 6, 7, 11};

typedef struct chain {
    cl_mem d, gi, g, gei, out;
    clg_cl_tensor td, tgi, tg, tgei, tout;
} chain;

static void chain_make(clg_context *ctx, chain *c)
{
    c->d = clg_test_buffer(ctx, chain_data, sizeof chain_data);
    c->gi = clg_test_buffer(ctx, chain_gidx, sizeof chain_gidx);
    c->g = clg_test_buffer(ctx, NULL, sizeof chain_want_g);
    c->gei = clg_test_buffer(ctx, chain_geidx, sizeof chain_geidx);
    c->out = clg_test_buffer(ctx, NULL, sizeof chain_want);
    c->td = (clg_cl_tensor){CLG_DTYPE_FLOAT, 2, chain_dshape, c->d};
    c->tgi = (clg_cl_tensor){CLG_DTYPE_INT64, 1, chain_gishape, c->gi};
    c->tg = (clg_cl_tensor){CLG_DTYPE_FLOAT, 2, chain_gshape, c->g};
    c->tgei = (clg_cl_tensor){CLG_DTYPE_INT32, 2, chain_gshape, c->gei};
    c->tout = (clg_cl_tensor){CLG_DTYPE_FLOAT, 2, chain_gshape, c->out};
}

static void chain_free(chain *c)
{
    clReleaseMemObject(c->d);
    clReleaseMemObject(c->gi);
    clReleaseMemObject(c->g);
    clReleaseMemObject(c->gei);
    clReleaseMemObject(c->out);
}

/* Enqueues Gather then GatherElements on `q` after `first`, each waiting
 * on the one before; returns the last event. */
static cl_event chain_enqueue(clg_context *ctx, cl_command_queue q,
                              const chain *c, cl_event first)
{
    cl_event e1 = NULL, e2 = NULL;
    CLG_ASSERT_OK(ctx, clg_enqueue_gather(ctx, q, &c->td, &c->tgi, 0, &c->tg,
                                          first ? 1 : 0, first ? &first : NULL,
                                          &e1));
    assert_non_null(e1);
    CLG_ASSERT_OK(ctx, clg_enqueue_gather_elements(ctx, q, &c->tg, &c->tgei, 0,
                                                   &c->tout, 1, &e1, &e2));
    assert_non_null(e2);
    clReleaseEvent(e1);
    return e2;
}

/* Reads the chain's output after `last` and compares it with the expected
 * values and with the CPU reference of the two ops. */
static void chain_check(cl_command_queue q, const chain *c, cl_event last)
{
    float got[6], mid[6], ref_g[6], ref[6];
    assert_int_equal(clEnqueueReadBuffer(q, c->out, CL_TRUE, 0, sizeof got,
                                         got, 1, &last, NULL),
                     CL_SUCCESS);
    assert_int_equal(clEnqueueReadBuffer(q, c->g, CL_TRUE, 0, sizeof mid, mid,
                                         0, NULL, NULL),
                     CL_SUCCESS);
    clg_tensor hd = {CLG_DTYPE_FLOAT, 2, chain_dshape, (void *)chain_data};
    clg_tensor hgi = {CLG_DTYPE_INT64, 1, chain_gishape, (void *)chain_gidx};
    clg_tensor hg = {CLG_DTYPE_FLOAT, 2, chain_gshape, ref_g};
    clg_tensor hgei = {CLG_DTYPE_INT32, 2, chain_gshape, (void *)chain_geidx};
    clg_tensor hout = {CLG_DTYPE_FLOAT, 2, chain_gshape, ref};
    CLG_ASSERT_OK(NULL, clg_reference_gather(NULL, &hd, &hgi, 0, &hg));
    CLG_ASSERT_OK(NULL,
                  clg_reference_gather_elements(NULL, &hg, &hgei, 0, &hout));
    CLG_ASSERT_BYTES(ref_g, chain_want_g, sizeof ref_g, 4, "reference Gather");
    CLG_ASSERT_BYTES(ref, chain_want, sizeof ref, 4, "reference chain");
    CLG_ASSERT_BYTES(mid, chain_want_g, sizeof mid, 4, "device Gather");
    CLG_ASSERT_BYTES(got, chain_want, sizeof got, 4, "device chain");
}

/* The two calls return while their wait list still holds: a user event
 * that only completes afterwards. */
static void test_user_event_holds_the_chain(void **state)
{
    clg_context *ctx = *state;
    cl_int err = CL_SUCCESS;
    chain c;
    chain_make(ctx, &c);
    cl_event gate = clCreateUserEvent(clg_context_cl_context(ctx), &err);
    assert_int_equal(err, CL_SUCCESS);
    alarm(HANG_LIMIT_S);
    cl_event last = chain_enqueue(ctx, NULL, &c, gate);
    /* Both calls returned; the device cannot have run them yet. */
    assert_int_not_equal(event_status(last), CL_COMPLETE);
    assert_int_equal(clSetUserEventStatus(gate, CL_COMPLETE), CL_SUCCESS);
    chain_check(clg_context_cl_queue(ctx), &c, last);
    alarm(0);
    assert_int_equal(event_status(last), CL_COMPLETE);
    CLG_ASSERT_OK(ctx, clg_context_finish(ctx));
    assert_string_equal(clg_context_last_error(ctx), "");
    clReleaseEvent(last);
    clReleaseEvent(gate);
    chain_free(&c);
}

/* An out-of-range index surfaces from the next finish, naming the
 * operation, the position and the value; the finish after is clean. */
static void test_deferred_index_error(void **state)
{
    clg_context *ctx = *state;
    chain c;
    chain_make(ctx, &c);
    const int64_t bad[2] = {1, 7};
    const int32_t bad_ge[6] = {1, 0, 0, 0, 5, 1};
    cl_mem bi = clg_test_buffer(ctx, bad, sizeof bad);
    cl_mem bgei = clg_test_buffer(ctx, bad_ge, sizeof bad_ge);
    clg_cl_tensor tbi = {CLG_DTYPE_INT64, 1, chain_gishape, bi};
    clg_cl_tensor tbgei = {CLG_DTYPE_INT32, 2, chain_gshape, bgei};
    cl_event last = chain_enqueue(ctx, NULL, &c, NULL);
    clReleaseEvent(last);
    /* Returns OK: the values are the device's to check. */
    CLG_ASSERT_OK(ctx, clg_enqueue_gather(ctx, NULL, &c.td, &tbi, 0, &c.tg, 0,
                                          NULL, NULL));
    CLG_ASSERT_OK(ctx, clg_enqueue_gather_elements(ctx, NULL, &c.tg, &tbgei, 0,
                                                   &c.tout, 0, NULL, NULL));
    CLG_ASSERT_STATUS(ctx, clg_context_finish(ctx),
                      CLG_STATUS_INDEX_OUT_OF_RANGE);
    const char *msg = clg_context_last_error(ctx);
    CLG_ASSERT_CONTAINS(msg, "Gather #");
    CLG_ASSERT_CONTAINS(msg, "(data FLOAT[4, 3], indices INT64[2], axis 0)");
    CLG_ASSERT_CONTAINS(msg, "indices[1] = 7 is out of range [-4, 3]");
    /* The first error in enqueue order: the GatherElements one is later. */
    assert_null(strstr(msg, "GatherElements"));
    CLG_ASSERT_OK(ctx, clg_context_finish(ctx));
    assert_string_equal(clg_context_last_error(ctx), "");

    /* GatherElements alone, named with its position as a multi-index. */
    CLG_ASSERT_OK(ctx, clg_enqueue_gather_elements(ctx, NULL, &c.tg, &tbgei, 0,
                                                   &c.tout, 0, NULL, NULL));
    CLG_ASSERT_STATUS(ctx, clg_context_finish(ctx),
                      CLG_STATUS_INDEX_OUT_OF_RANGE);
    CLG_ASSERT_CONTAINS(clg_context_last_error(ctx), "GatherElements #");
    CLG_ASSERT_CONTAINS(clg_context_last_error(ctx),
                        "indices[1][1] = 5 is out of range [-2, 1]");

    /* The indices overwritten after the enqueue: said so, not a value. */
    CLG_ASSERT_OK(ctx, clg_enqueue_gather(ctx, NULL, &c.td, &tbi, 0, &c.tg, 0,
                                          NULL, NULL));
    assert_int_equal(clEnqueueWriteBuffer(clg_context_cl_queue(ctx), bi,
                                          CL_TRUE, 0, sizeof chain_gidx,
                                          chain_gidx, 0, NULL, NULL),
                     CL_SUCCESS);
    CLG_ASSERT_STATUS(ctx, clg_context_finish(ctx),
                      CLG_STATUS_INDEX_OUT_OF_RANGE);
    CLG_ASSERT_CONTAINS(clg_context_last_error(ctx), "no longer holds one");
    clReleaseMemObject(bi);
    clReleaseMemObject(bgei);
    chain_free(&c);
}

/* Each check made before anything is enqueued returns its status at once,
 * leaves *event alone, and leaves nothing for the finish. */
static void test_errors_before_enqueue(void **state)
{
    clg_context *ctx = *state;
    chain c;
    chain_make(ctx, &c);
    cl_int err = CL_SUCCESS;
    cl_event sentinel = (cl_event)&c, ev = sentinel;
    cl_context other =
        clCreateContext(NULL, 1, (cl_device_id[]){clg_context_cl_device(ctx)},
                        NULL, NULL, &err);
    assert_int_equal(err, CL_SUCCESS);
    cl_command_queue foreign_q =
        clCreateCommandQueue(other, clg_context_cl_device(ctx), 0, &err);
    cl_event foreign_ev = clCreateUserEvent(other, &err);
    cl_mem foreign_buf = clCreateBuffer(other, CL_MEM_READ_WRITE, 64, NULL,
                                        &err);
    clg_cl_tensor foreign_d = c.td;
    foreign_d.buffer = foreign_buf;
    clg_cl_tensor wrong_out = c.tg;
    wrong_out.shape = chain_dshape;
    cl_event null_ev = NULL;
    struct {
        clg_status st;
        const char *frag;
    } want[] = {
        {CLG_STATUS_SHAPE_MISMATCH, "output"},
        {CLG_STATUS_INVALID_ARGUMENT, "event_wait_list is NULL"},
        {CLG_STATUS_INVALID_ARGUMENT, "num_events_in_wait_list is 0"},
        {CLG_STATUS_INVALID_ARGUMENT, "event_wait_list[0] is NULL"},
        {CLG_STATUS_INVALID_ARGUMENT, "event_wait_list[0] is not an event"},
        {CLG_STATUS_INVALID_ARGUMENT, "queue belongs to another cl_context"},
        {CLG_STATUS_INVALID_ARGUMENT, "data buffer belongs to another"},
        {CLG_STATUS_INVALID_ARGUMENT, "must not alias"},
        {CLG_STATUS_NULL_POINTER, "ctx is NULL"},
    };
    clg_status got[] = {
        clg_enqueue_gather(ctx, NULL, &c.td, &c.tgi, 0, &wrong_out, 0, NULL,
                           &ev),
        clg_enqueue_gather(ctx, NULL, &c.td, &c.tgi, 0, &c.tg, 1, NULL, &ev),
        clg_enqueue_gather(ctx, NULL, &c.td, &c.tgi, 0, &c.tg, 0, &foreign_ev,
                           &ev),
        clg_enqueue_gather(ctx, NULL, &c.td, &c.tgi, 0, &c.tg, 1, &null_ev,
                           &ev),
        clg_enqueue_gather(ctx, NULL, &c.td, &c.tgi, 0, &c.tg, 1, &foreign_ev,
                           &ev),
        clg_enqueue_gather(ctx, foreign_q, &c.td, &c.tgi, 0, &c.tg, 0, NULL,
                           &ev),
        clg_enqueue_gather(ctx, NULL, &foreign_d, &c.tgi, 0, &c.tg, 0, NULL,
                           &ev),
        clg_enqueue_gather_elements(ctx, NULL, &c.tg, &c.tgei, 0, &c.tg, 0,
                                    NULL, &ev),
        clg_enqueue_gather(NULL, NULL, &c.td, &c.tgi, 0, &c.tg, 0, NULL, &ev),
    };
    for (size_t i = 0; i < CLG_TEST_ARRAY_LEN(want); i++) {
        clg_test_set_case("immediate error %zu (%s)", i, want[i].frag);
        CLG_ASSERT_STATUS(i + 1 < CLG_TEST_ARRAY_LEN(want) ? ctx : NULL,
                          got[i], want[i].st);
        assert_ptr_equal(ev, sentinel);
    }
    CLG_ASSERT_CONTAINS(clg_context_last_error(NULL), "ctx is NULL");
    /* The messages, each checked on a call of its own. */
    for (size_t i = 0; i + 1 < CLG_TEST_ARRAY_LEN(want); i++) {
        clg_status again =
            i == 0   ? clg_enqueue_gather(ctx, NULL, &c.td, &c.tgi, 0,
                                          &wrong_out, 0, NULL, &ev)
            : i == 1 ? clg_enqueue_gather(ctx, NULL, &c.td, &c.tgi, 0, &c.tg,
                                          1, NULL, &ev)
            : i == 2 ? clg_enqueue_gather(ctx, NULL, &c.td, &c.tgi, 0, &c.tg,
                                          0, &foreign_ev, &ev)
            : i == 3 ? clg_enqueue_gather(ctx, NULL, &c.td, &c.tgi, 0, &c.tg,
                                          1, &null_ev, &ev)
            : i == 4 ? clg_enqueue_gather(ctx, NULL, &c.td, &c.tgi, 0, &c.tg,
                                          1, &foreign_ev, &ev)
            : i == 5 ? clg_enqueue_gather(ctx, foreign_q, &c.td, &c.tgi, 0,
                                          &c.tg, 0, NULL, &ev)
            : i == 6 ? clg_enqueue_gather(ctx, NULL, &foreign_d, &c.tgi, 0,
                                          &c.tg, 0, NULL, &ev)
                     : clg_enqueue_gather_elements(ctx, NULL, &c.tg, &c.tgei,
                                                   0, &c.tg, 0, NULL, &ev);
        assert_int_equal(again, want[i].st);
        CLG_ASSERT_CONTAINS(clg_context_last_error(ctx), want[i].frag);
    }
    CLG_ASSERT_OK(ctx, clg_context_finish(ctx));
    CLG_ASSERT_STATUS(NULL, clg_context_finish(NULL), CLG_STATUS_NULL_POINTER);
    clReleaseMemObject(foreign_buf);
    clReleaseEvent(foreign_ev);
    clReleaseCommandQueue(foreign_q);
    clReleaseContext(other);
    chain_free(&c);
}

/* Out-of-order queues: the returned events are the only ordering, on a
 * queue passed to the call and on a context made over such a queue. */
static void test_out_of_order_queue(void **state)
{
    clg_context *ctx = *state;
    cl_device_id dev = clg_context_cl_device(ctx);
    if (!clg_test_has_out_of_order(ctx)) {
        /* POCL has them, and CI runs on POCL: the check must run there. */
        assert_null(strstr(clg_context_device_version(ctx), "PoCL"));
        print_message("the device has no out-of-order queues\n");
        return;
    }
    cl_int err = CL_SUCCESS;
    cl_command_queue ooo =
        clCreateCommandQueue(clg_context_cl_context(ctx), dev,
                             CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, &err);
    assert_int_equal(err, CL_SUCCESS);
    for (int round = 0; round < 20; round++) {
        chain c;
        chain_make(ctx, &c);
        cl_event last = chain_enqueue(ctx, ooo, &c, NULL);
        chain_check(ooo, &c, last);
        clReleaseEvent(last);
        chain_free(&c);
    }
    CLG_ASSERT_OK(ctx, clg_context_finish(ctx));

    /* A context over the out-of-order queue: enqueue with its own queue,
     * the blocking device-buffer call and the host-memory call. */
    clg_context *octx = NULL;
    CLG_ASSERT_OK(NULL, clg_context_create_from_cl(&octx,
                                                   clg_context_cl_context(ctx),
                                                   dev, ooo));
    chain c;
    chain_make(octx, &c);
    cl_event last = chain_enqueue(octx, NULL, &c, NULL);
    chain_check(ooo, &c, last);
    clReleaseEvent(last);
    CLG_ASSERT_OK(octx, clg_gather_cl(octx, &c.td, &c.tgi, 0, &c.tg));
    float host_out[6] = {0};
    clg_tensor hd = {CLG_DTYPE_FLOAT, 2, chain_dshape, (void *)chain_data};
    clg_tensor hgi = {CLG_DTYPE_INT64, 1, chain_gishape, (void *)chain_gidx};
    clg_tensor hout = {CLG_DTYPE_FLOAT, 2, chain_gshape, host_out};
    CLG_ASSERT_OK(octx, clg_gather(octx, &hd, &hgi, 0, &hout));
    CLG_ASSERT_BYTES(host_out, chain_want_g, sizeof host_out, 4,
                     "host memory on an out-of-order queue");
    CLG_ASSERT_OK(octx, clg_context_finish(octx));
    chain_free(&c);
    clg_context_destroy(octx);
    clReleaseCommandQueue(ooo);
}

/* An operation behind a wait-list event that fails never runs: the finish
 * says so, naming it; the finish waits only for clgather's operations, not
 * for the caller's own commands on the same queue. */
static void test_failed_dependency_and_foreign_commands(void **state)
{
    clg_context *ctx = *state;
    cl_int err = CL_SUCCESS;
    chain c;
    chain_make(ctx, &c);
    cl_event gate = clCreateUserEvent(clg_context_cl_context(ctx), &err);
    CLG_ASSERT_OK(ctx, clg_enqueue_gather(ctx, NULL, &c.td, &c.tgi, 0, &c.tg,
                                          1, &gate, NULL));
    assert_int_equal(clSetUserEventStatus(gate, -1234), CL_SUCCESS);
    CLG_ASSERT_STATUS(ctx, clg_context_finish(ctx), CLG_STATUS_OPENCL_ERROR);
    CLG_ASSERT_CONTAINS(clg_context_last_error(ctx), "Gather #");
    CLG_ASSERT_CONTAINS(clg_context_last_error(ctx),
                        "the operation did not run: event_wait_list[0] "
                        "failed with execution status -1234 and its command "
                        "ended with execution status");
    /* An execution status is not an API error code: the raw code says
     * which kind of failure it was, the status has its own query, with
     * the value the event was given. */
    assert_int_equal(clg_context_last_cl_error(ctx),
                     CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
    assert_int_equal(clg_context_last_exec_status(ctx), -1234);
    CLG_ASSERT_OK(ctx, clg_context_finish(ctx));
    clReleaseEvent(gate);

    /* The caller's read behind its own gate stays pending over a finish. */
    gate = clCreateUserEvent(clg_context_cl_context(ctx), &err);
    float host[6];
    cl_event read = NULL;
    CLG_ASSERT_OK(ctx, clg_enqueue_gather(ctx, NULL, &c.td, &c.tgi, 0, &c.tg,
                                          0, NULL, NULL));
    cl_command_queue q = clg_context_cl_queue(ctx);
    assert_int_equal(clEnqueueReadBuffer(q, c.g, CL_FALSE, 0, sizeof host,
                                         host, 1, &gate, &read),
                     CL_SUCCESS);
    alarm(HANG_LIMIT_S);
    CLG_ASSERT_OK(ctx, clg_context_finish(ctx));
    alarm(0);
    assert_int_not_equal(event_status(read), CL_COMPLETE);
    assert_int_equal(clSetUserEventStatus(gate, CL_COMPLETE), CL_SUCCESS);
    assert_int_equal(clWaitForEvents(1, &read), CL_SUCCESS);
    CLG_ASSERT_BYTES(host, chain_want_g, sizeof host, 4, "after the gate");

    /* An event that is also in the wait list is refused. */
    cl_event list[1] = {read};
    CLG_ASSERT_STATUS(ctx,
                      clg_enqueue_gather(ctx, NULL, &c.td, &c.tgi, 0, &c.tg, 1,
                                         list, &list[0]),
                      CLG_STATUS_INVALID_ARGUMENT);
    CLG_ASSERT_CONTAINS(clg_context_last_error(ctx), "event_wait_list");
    assert_ptr_equal(list[0], read);
    clReleaseEvent(read);
    clReleaseEvent(gate);
    chain_free(&c);
}

/* Calls that launch nothing still hand out an event after their wait
 * list; with no data to read, every index is a deferred error. */
static void test_empty_tensors(void **state)
{
    clg_context *ctx = *state;
    cl_int err = CL_SUCCESS;
    chain c;
    chain_make(ctx, &c);
    const int64_t none[1] = {0};
    clg_cl_tensor no_idx = {CLG_DTYPE_INT64, 1, none, c.gi};
    const int64_t empty_out_shape[2] = {0, 3};
    clg_cl_tensor empty_out = {CLG_DTYPE_FLOAT, 2, empty_out_shape, c.g};
    cl_event gate = clCreateUserEvent(clg_context_cl_context(ctx), &err);
    cl_event ev = NULL;
    CLG_ASSERT_OK(ctx, clg_enqueue_gather(ctx, NULL, &c.td, &no_idx, 0,
                                          &empty_out, 1, &gate, &ev));
    assert_non_null(ev);
    assert_int_not_equal(event_status(ev), CL_COMPLETE);
    clSetUserEventStatus(gate, CL_COMPLETE);
    assert_int_equal(clWaitForEvents(1, &ev), CL_SUCCESS);
    clReleaseEvent(ev);
    CLG_ASSERT_OK(ctx, clg_context_finish(ctx));

    /* data [0, 3]: no row to read, so index 0 is out of range. */
    const int64_t zero_rows[2] = {0, 3};
    clg_cl_tensor empty_data = {CLG_DTYPE_FLOAT, 2, zero_rows, c.d};
    const int64_t out_shape[2] = {2, 3};
    clg_cl_tensor out = {CLG_DTYPE_FLOAT, 2, out_shape, c.out};
    CLG_ASSERT_OK(ctx, clg_enqueue_gather(ctx, NULL, &empty_data, &c.tgi, 0,
                                          &out, 0, NULL, NULL));
    CLG_ASSERT_STATUS(ctx, clg_context_finish(ctx),
                      CLG_STATUS_INDEX_OUT_OF_RANGE);
    CLG_ASSERT_CONTAINS(clg_context_last_error(ctx),
                        "indices[0] = 2 is out of range: axis 0 of data has "
                        "size 0");
    clReleaseEvent(gate);
    chain_free(&c);
}

/* Validation mode: the hook makes the device's output wrong; validation
 * catches it with DEVICE_MISMATCH, and without validation it goes by. */
static void test_validation_mode(void **state)
{
    clg_context *ctx = *state;
    float out[6];
    clg_tensor hd = {CLG_DTYPE_FLOAT, 2, chain_dshape, (void *)chain_data};
    clg_tensor hgi = {CLG_DTYPE_INT64, 1, chain_gishape, (void *)chain_gidx};
    clg_tensor hout = {CLG_DTYPE_FLOAT, 2, chain_gshape, out};
    clg_tensor hg = {CLG_DTYPE_FLOAT, 2, chain_gshape, (void *)chain_want_g};
    clg_tensor hgei = {CLG_DTYPE_INT32, 2, chain_gshape, (void *)chain_geidx};
    assert_int_equal(clg_context_validates(ctx), 0);
    CLG_ASSERT_OK(ctx, clg_context_set_validate(ctx, 1));
    assert_int_equal(clg_context_validates(ctx), 1);
    CLG_ASSERT_OK(ctx, clg_gather(ctx, &hd, &hgi, 0, &hout));
    CLG_ASSERT_BYTES(out, chain_want_g, sizeof out, 4, "validated Gather");
    CLG_ASSERT_OK(ctx, clg_gather_elements(ctx, &hg, &hgei, 0, &hout));
    CLG_ASSERT_BYTES(out, chain_want, sizeof out, 4, "validated GE");

    atomic_fetch_or(&ctx->validation, CLG_RT_TEST_CORRUPT);
    CLG_ASSERT_STATUS(ctx, clg_gather(ctx, &hd, &hgi, 0, &hout),
                      CLG_STATUS_DEVICE_MISMATCH);
    /* 6.0f is 00 00 c0 40; the hook flips the lowest bit of byte 0. */
    CLG_ASSERT_CONTAINS(clg_context_last_error(ctx),
                        "Gather: the device result differs from the "
                        "reference at output[0][0]: device bytes 01 00 c0 "
                        "40, reference bytes 00 00 c0 40");
    CLG_ASSERT_OK(ctx, clg_context_set_validate(ctx, 0));
    CLG_ASSERT_OK(ctx, clg_gather(ctx, &hd, &hgi, 0, &hout));
    assert_int_not_equal(memcmp(out, chain_want_g, sizeof out), 0);
    atomic_fetch_and(&ctx->validation, ~CLG_RT_TEST_CORRUPT);
    CLG_ASSERT_OK(ctx, clg_gather(ctx, &hd, &hgi, 0, &hout));
    CLG_ASSERT_BYTES(out, chain_want_g, sizeof out, 4, "hook off");

    /* The reference's allocation fails: OUT_OF_MEMORY, and the output is
     * untouched, as on any error. */
    CLG_ASSERT_OK(ctx, clg_context_set_validate(ctx, 1));
    atomic_fetch_or(&ctx->validation, CLG_RT_TEST_NO_MEMORY);
    memset(out, 0xA5, sizeof out);
    CLG_ASSERT_STATUS(ctx, clg_gather(ctx, &hd, &hgi, 0, &hout),
                      CLG_STATUS_OUT_OF_MEMORY);
    CLG_ASSERT_CONTAINS(clg_context_last_error(ctx), "validating an output");
    CLG_ASSERT_FILLED(out, sizeof out, 0xA5, "output after OUT_OF_MEMORY");
    atomic_fetch_and(&ctx->validation, ~CLG_RT_TEST_NO_MEMORY);
    CLG_ASSERT_OK(ctx, clg_context_set_validate(ctx, 0));
    CLG_ASSERT_STATUS(NULL, clg_context_set_validate(NULL, 1),
                      CLG_STATUS_NULL_POINTER);
    assert_int_equal(clg_context_validates(NULL), 0);
}

/* CLGATHER_VALIDATE starts a context in validation mode; other values
 * than 0 and 1 are refused. */
static void test_validate_environment(void **state)
{
    (void)state;
    clg_context *v = NULL;
    setenv("CLGATHER_VALIDATE", "1", 1);
    CLG_ASSERT_OK(NULL, clg_context_create(&v, NULL));
    assert_int_equal(clg_context_validates(v), 1);
    clg_context_destroy(v);
    v = NULL;
    setenv("CLGATHER_VALIDATE", "yes", 1);
    CLG_ASSERT_STATUS(NULL, clg_context_create(&v, NULL),
                      CLG_STATUS_INVALID_ARGUMENT);
    assert_null(v);
    CLG_ASSERT_CONTAINS(clg_context_last_error(NULL), "CLGATHER_VALIDATE");
    setenv("CLGATHER_VALIDATE", "0", 1);
    CLG_ASSERT_OK(NULL, clg_context_create(&v, NULL));
    assert_int_equal(clg_context_validates(v), 0);
    clg_context_destroy(v);
    unsetenv("CLGATHER_VALIDATE");
}

/* Bytes of a host tensor. */
static size_t tensor_bytes(const clg_tensor *t)
{
    return (size_t)clg_test_count(t->shape, t->rank) *
           clg_test_dtype_size(t->dtype);
}

/* One Gather of 1 MiB or more of output through all three paths: host
 * memory, blocking device buffers, enqueue and finish. Outputs equal the
 * reference's bit for bit; a bad index at position `bad_at` (when >= 0)
 * fails each path with its position and value, and leaves the host
 * output untouched. */
static void gather_three_ways(clg_context *ctx, const clg_tensor *data,
                              clg_tensor *indices, int64_t axis,
                              const clg_tensor *out, int64_t bad_at,
                              int64_t bad_value, const char *frag)
{
    size_t dbytes = tensor_bytes(data), ibytes = tensor_bytes(indices),
           obytes = tensor_bytes(out);
    void *want = malloc(obytes), *got = malloc(obytes);
    assert_non_null(want);
    assert_non_null(got);
    clg_tensor ref = *out;
    ref.data = want;
    CLG_ASSERT_OK(NULL, clg_reference_gather(NULL, data, indices, axis, &ref));
    if (bad_at >= 0) {
        if (indices->dtype == CLG_DTYPE_INT32)
            ((int32_t *)indices->data)[bad_at] = (int32_t)bad_value;
        else
            ((int64_t *)indices->data)[bad_at] = bad_value;
    }
    clg_status want_st = bad_at >= 0 ? CLG_STATUS_INDEX_OUT_OF_RANGE
                                     : CLG_STATUS_OK;
    memset(got, 0x5a, obytes);
    clg_tensor host_out = *out;
    host_out.data = got;
    CLG_ASSERT_STATUS(ctx, clg_gather(ctx, data, indices, axis, &host_out),
                      want_st);
    if (bad_at >= 0) {
        CLG_ASSERT_CONTAINS(clg_context_last_error(ctx), frag);
        CLG_ASSERT_FILLED(got, obytes, 0x5a, "host output");
    } else {
        CLG_ASSERT_BYTES(got, want, obytes, 4, "host memory");
    }
    cl_mem bd = clg_test_buffer(ctx, data->data, dbytes);
    cl_mem bi = clg_test_buffer(ctx, indices->data, ibytes);
    cl_mem bo = clg_test_buffer(ctx, NULL, obytes);
    clg_cl_tensor td = {data->dtype, data->rank, data->shape, bd};
    clg_cl_tensor ti = {indices->dtype, indices->rank, indices->shape, bi};
    clg_cl_tensor to = {out->dtype, out->rank, out->shape, bo};
    for (int enqueue = 0; enqueue < 2; enqueue++) {
        clg_status st = enqueue ? clg_enqueue_gather(ctx, NULL, &td, &ti, axis,
                                                     &to, 0, NULL, NULL)
                                : clg_gather_cl(ctx, &td, &ti, axis, &to);
        if (enqueue) {
            CLG_ASSERT_OK(ctx, st);
            st = clg_context_finish(ctx);
        }
        CLG_ASSERT_STATUS(ctx, st, want_st);
        if (bad_at >= 0) {
            CLG_ASSERT_CONTAINS(clg_context_last_error(ctx), frag);
            continue;
        }
        memset(got, 0, obytes);
        assert_int_equal(clEnqueueReadBuffer(clg_context_cl_queue(ctx), bo,
                                             CL_TRUE, 0, obytes, got, 0, NULL,
                                             NULL),
                         CL_SUCCESS);
        CLG_ASSERT_BYTES(got, want, obytes, 4,
                         enqueue ? "enqueue" : "device buffers");
    }
    clReleaseMemObject(bd);
    clReleaseMemObject(bi);
    clReleaseMemObject(bo);
    free(want);
    free(got);
}

/* Outputs of 1 MiB or more take the trusted bodies on CPU devices: a pass
 * normalises the indices, then a body that checks nothing reads them
 * (docs/design.md, "Kernels"). The rows are 512 bytes: rows of 1 KiB or
 * more take the prefetching lean body where the compiler has clang's
 * built-ins. On the last axis, 1024 indices (rows of 4 KiB, whole spans)
 * take the units spans body, 1016 the units body. The bodies, with
 * good indices and with one bad, on every path (under CLG_TEST_QUICK=1
 * smaller, with norm=1, and the bad index in one body only: the random
 * test's norm=1 settings give both bad ones). */
static void test_trusted_gather_bodies(void **state)
{
    clg_context *ctx = *state;
    enum { COLS = 128, N = 1024, N_ODD = 1016 };
    /* CLG_TEST_QUICK=1: 64 and 10 KiB outputs, with norm=1 so that they
     * still take the trusted bodies. */
    const int quick = clg_test_quick();
    const int64_t ROWS = quick ? 16 : 256, R_N = quick ? 20 : 2100;
    clg_params saved, quick_params;
    CLG_ASSERT_OK(ctx, clg_context_get_params(ctx, &saved));
    quick_params = saved;
    quick_params.norm = 1;
    if (quick)
        CLG_ASSERT_OK(ctx, clg_context_set_params(ctx, &quick_params));
    float *data = malloc(sizeof(float) * (size_t)(ROWS * COLS));
    int64_t *idx64 = malloc(sizeof(int64_t) * N);
    int32_t *idx32 = malloc(sizeof(int32_t) * (size_t)R_N);
    assert_non_null(data);
    assert_non_null(idx64);
    assert_non_null(idx32);
    for (size_t i = 0; i < (size_t)ROWS * COLS; i++)
        data[i] = (float)i * 0.5f;
    for (int64_t j = 0; j < N; j++) /* every column, negatives for half */
        idx64[j] = (j * 7) % COLS - (j % 2 ? COLS : 0);
    for (int64_t j = 0; j < R_N; j++)
        idx32[j] = (int32_t)((j * 5) % ROWS) - (j % 3 ? 0 : ROWS);
    const int64_t dshape[2] = {ROWS, COLS}, ushape[1] = {N},
                  uout[2] = {ROWS, N}, rshape[1] = {R_N},
                  rout[2] = {R_N, COLS}, oshape[1] = {N_ODD},
                  oout[2] = {ROWS, N_ODD};
    clg_tensor D = {CLG_DTYPE_FLOAT, 2, dshape, data};
    clg_tensor IU = {CLG_DTYPE_INT64, 1, ushape, idx64};
    clg_tensor OU = {CLG_DTYPE_FLOAT, 2, uout, NULL};
    clg_tensor IR = {CLG_DTYPE_INT32, 1, rshape, idx32};
    clg_tensor OR = {CLG_DTYPE_FLOAT, 2, rout, NULL};
    clg_tensor IO = {CLG_DTYPE_INT64, 1, oshape, idx64};
    clg_tensor OO = {CLG_DTYPE_FLOAT, 2, oout, NULL};
    gather_three_ways(ctx, &D, &IU, -1, &OU, -1, 0, NULL);
    /* Under norm=1: its output is just under 1 MiB. */
    CLG_ASSERT_OK(ctx, clg_context_set_params(ctx, &quick_params));
    gather_three_ways(ctx, &D, &IO, -1, &OO, -1, 0, NULL);
    if (!quick)
        CLG_ASSERT_OK(ctx, clg_context_set_params(ctx, &saved));
    gather_three_ways(ctx, &D, &IR, 0, &OR, -1, 0, NULL);
    if (ctx->facts.plan_type == CLG_DEVICE_TYPE_CPU) {
        assert_true(clg_test_kernels_named(ctx, "clg_gather_units_spans") >=
                    1);
        assert_true(clg_test_kernels_named(ctx, "clg_gather_units_normed") >=
                    1);
        assert_true(clg_test_kernels_named(ctx, "clg_gather_lean_normed") >=
                    1);
        assert_true(clg_test_kernels_named(ctx, "clg_normalize_indices") >= 2);
    }
    gather_three_ways(ctx, &D, &IU, -1, &OU, 700, -129,
                      "indices[700] = -129 is out of range [-128, 127]");
    if (!quick)
        gather_three_ways(ctx, &D, &IR, 0, &OR, 299, 256,
                          "indices[299] = 256 is out of range [-256, 255]");
    CLG_ASSERT_OK(ctx, clg_context_set_params(ctx, &saved));
    free(data);
    free(idx64);
    free(idx32);
}

/* A kernel keeps its scalar arguments between launches and the library
 * sets only those that changed; buffers are set every time. Calls that
 * alternate two shapes, and repeat one shape into another output buffer,
 * all enqueued before one finish, each deliver their own result: data A
 * [6, 4] = 0 .. 23 and B [3, 4] = 100 .. 111, Gather on axis 0, then
 * GatherElements on axis 1 the same way. */
static void test_arguments_between_calls(void **state)
{
    clg_context *ctx = *state;
    cl_command_queue q = clg_context_cl_queue(ctx);
    float ha[24], hb[12];
    for (int i = 0; i < 24; i++)
        ha[i] = (float)i;
    for (int i = 0; i < 12; i++)
        hb[i] = (float)(100 + i);
    const int64_t sa[2] = {6, 4}, sb[2] = {3, 4}, s1[1] = {2}, s2[1] = {3},
                  o1[2] = {2, 4}, o2[2] = {3, 4};
    const int64_t i1[2] = {5, 0}, i2[3] = {1, -2, 0};
    const int32_t e1[8] = {3, 0, 1, 2, 0, 0, 3, -1},
                  e2[12] = {1, 1, 0, 0, 2, 3, 2, 3, -4, 0, 1, 3};
    static const float want_g1[8] = {20, 21, 22, 23, 0, 1, 2, 3};
    static const float want_g2[12] = {104, 105, 106, 107, 104, 105,
                                      106, 107, 100, 101, 102, 103};
    static const float want_e1[8] = {3, 0, 1, 2, 4, 4, 7, 7};
    static const float want_e2[12] = {101, 101, 100, 100, 106, 107,
                                      106, 107, 108, 108, 109, 111};
    cl_mem a = clg_test_buffer(ctx, ha, sizeof ha);
    cl_mem b = clg_test_buffer(ctx, hb, sizeof hb);
    cl_mem bi1 = clg_test_buffer(ctx, i1, sizeof i1);
    cl_mem bi2 = clg_test_buffer(ctx, i2, sizeof i2);
    cl_mem be1 = clg_test_buffer(ctx, e1, sizeof e1);
    cl_mem be2 = clg_test_buffer(ctx, e2, sizeof e2);
    cl_mem out[8];
    for (int i = 0; i < 8; i++)
        out[i] = clg_test_buffer(ctx, NULL, 12 * sizeof(float));
    clg_cl_tensor ta = {CLG_DTYPE_FLOAT, 2, sa, a},
                  tb = {CLG_DTYPE_FLOAT, 2, sb, b},
                  ti1 = {CLG_DTYPE_INT64, 1, s1, bi1},
                  ti2 = {CLG_DTYPE_INT64, 1, s2, bi2},
                  te1 = {CLG_DTYPE_INT32, 2, o1, be1},
                  te2 = {CLG_DTYPE_INT32, 2, o2, be2};
    /* Gather A, B, A, A (another output), then GatherElements the same. */
    const clg_cl_tensor *data[8] = {&ta, &tb, &ta, &ta, &ta, &tb, &ta, &ta};
    const clg_cl_tensor *idx[8] = {&ti1, &ti2, &ti1, &ti1,
                                   &te1, &te2, &te1, &te1};
    const float *want[8] = {want_g1, want_g2, want_g1, want_g1,
                            want_e1, want_e2, want_e1, want_e1};
    for (int i = 0; i < 8; i++) {
        const int64_t *oshape = data[i] == &ta ? o1 : o2;
        clg_cl_tensor to = {CLG_DTYPE_FLOAT, 2, oshape, out[i]};
        CLG_ASSERT_OK(ctx,
                      i < 4 ? clg_enqueue_gather(ctx, NULL, data[i], idx[i], 0,
                                                 &to, 0, NULL, NULL)
                            : clg_enqueue_gather_elements(ctx, NULL, data[i],
                                                          idx[i], 1, &to, 0,
                                                          NULL, NULL));
    }
    CLG_ASSERT_OK(ctx, clg_context_finish(ctx));
    for (int i = 0; i < 8; i++) {
        size_t n = data[i] == &ta ? 8 : 12;
        float got[12], ref[12];
        const int64_t *oshape = data[i] == &ta ? o1 : o2;
        clg_tensor hd = {CLG_DTYPE_FLOAT, 2, data[i]->shape,
                         data[i] == &ta ? (void *)ha : (void *)hb};
        clg_tensor hi = {idx[i]->dtype, idx[i]->rank, idx[i]->shape,
                         i < 4 ? (data[i] == &ta ? (void *)i1 : (void *)i2)
                               : (data[i] == &ta ? (void *)e1 : (void *)e2)};
        clg_tensor ho = {CLG_DTYPE_FLOAT, 2, oshape, ref};
        assert_int_equal(clEnqueueReadBuffer(q, out[i], CL_TRUE, 0,
                                             n * sizeof(float), got, 0, NULL,
                                             NULL),
                         CL_SUCCESS);
        CLG_ASSERT_OK(NULL, i < 4
                                ? clg_reference_gather(NULL, &hd, &hi, 0, &ho)
                                : clg_reference_gather_elements(NULL, &hd, &hi,
                                                                1, &ho));
        CLG_ASSERT_BYTES(ref, want[i], n * sizeof(float), 4, "reference");
        CLG_ASSERT_BYTES(got, want[i], n * sizeof(float), 4, "device");
    }
    for (int i = 0; i < 8; i++)
        clReleaseMemObject(out[i]);
    clReleaseMemObject(a);
    clReleaseMemObject(b);
    clReleaseMemObject(bi1);
    clReleaseMemObject(bi2);
    clReleaseMemObject(be1);
    clReleaseMemObject(be2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_user_event_holds_the_chain),
        cmocka_unit_test(test_deferred_index_error),
        cmocka_unit_test(test_errors_before_enqueue),
        cmocka_unit_test(test_out_of_order_queue),
        cmocka_unit_test(test_empty_tensors),
        cmocka_unit_test(test_failed_dependency_and_foreign_commands),
        cmocka_unit_test(test_validation_mode),
        cmocka_unit_test(test_validate_environment),
        cmocka_unit_test(test_trusted_gather_bodies),
        cmocka_unit_test(test_arguments_between_calls),
    };
    return CLG_RUN_DEVICE_TESTS(tests);
}
