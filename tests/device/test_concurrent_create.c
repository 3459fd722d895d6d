/* SPDX-License-Identifier: Apache-2.0 */
/* Contexts created from 8 threads at once, as the first OpenCL work of the
 * process, all succeed and all work (device discovery is serialised:
 * POCL's first clGetDeviceIDs answers CL_DEVICE_NOT_FOUND to most of 8
 * concurrent first calls). Its own binary, so that nothing has touched
 * OpenCL before the threads start. */
#include "clg_test.h"

#include <pthread.h>

#define THREADS 8

typedef struct worker {
    pthread_t thread;
    pthread_barrier_t *start;
    clg_status created, ran;
    char message[256];
    float out[2][2];
} worker;

static void *work(void *arg)
{
    worker *w = arg;
    clg_context *ctx = NULL;
    pthread_barrier_wait(w->start);
    w->created = clg_context_create(&ctx, NULL);
    snprintf(w->message, sizeof w->message, "%s",
             clg_context_last_error(NULL));
    if (w->created != CLG_STATUS_OK)
        return NULL;
    float data[3][2] = {{1.0f, 1.2f}, {2.3f, 3.4f}, {4.5f, 5.7f}};
    int64_t idx[2] = {2, -3};
    const int64_t ds[] = {3, 2}, is[] = {2}, os[] = {2, 2};
    clg_tensor d = {CLG_DTYPE_FLOAT, 2, ds, data};
    clg_tensor i = {CLG_DTYPE_INT64, 1, is, idx};
    clg_tensor o = {CLG_DTYPE_FLOAT, 2, os, w->out};
    w->ran = clg_gather(ctx, &d, &i, 0, &o);
    clg_context_destroy(ctx);
    return NULL;
}

static void test_eight_threads_create_at_once(void **state)
{
    (void)state;
    worker w[THREADS];
    pthread_barrier_t start;
    assert_int_equal(pthread_barrier_init(&start, NULL, THREADS), 0);
    for (int t = 0; t < THREADS; t++) {
        memset(&w[t], 0, sizeof w[t]);
        w[t].start = &start;
        assert_int_equal(pthread_create(&w[t].thread, NULL, work, &w[t]), 0);
    }
    for (int t = 0; t < THREADS; t++)
        assert_int_equal(pthread_join(w[t].thread, NULL), 0);
    pthread_barrier_destroy(&start);
    const float want[2][2] = {{4.5f, 5.7f}, {1.0f, 1.2f}};
    for (int t = 0; t < THREADS; t++) {
        clg_test_set_case("thread %d: %s", t, w[t].message);
        assert_int_equal(w[t].created, CLG_STATUS_OK);
        assert_int_equal(w[t].ran, CLG_STATUS_OK);
        CLG_ASSERT_BYTES(w[t].out, want, sizeof want, 4, "output");
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_eight_threads_create_at_once),
    };
    /* Exit 77 only when no device exists; the check comes after the test
     * so that the threads make the process's first OpenCL calls. */
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    size_t count = 0;
    if (clg_devices_list(NULL, 0, &count) != CLG_STATUS_OK || count == 0)
        return 77;
    return failed;
}
