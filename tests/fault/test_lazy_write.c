/* SPDX-License-Identifier: Apache-2.0 */
/* Error slots under lazy blocking writes (docs/design.md, "Enqueue and
 * deferred errors"). A raised error slot is cleared with a write before it
 * is handed to the next call, which may run on another queue. OpenCL lets
 * a blocking write return before its command runs (cl_lazy_write.h makes
 * every one do so, as Intel's CPU runtime does), so the clear must be
 * waited for: else it lands after the next call's kernel raised the slot,
 * and a call with an out-of-range index returns OK.
 *
 * Each round: a call that raises, on one path, then a call that raises on
 * another (the host-memory calls run on the library's own queue, the
 * device-buffer and enqueue calls on the context's), then a valid call,
 * which must be OK with the right output. */
#include "clg_test.h"

#include "cl_lazy_write.h"

#include <inttypes.h>

#define N 70001 /* index values: over the host check's limit */
#define S 5     /* axis size */
#define ROUNDS 4

typedef enum path { HOST, BUFFERS, ENQUEUE, PATH_COUNT } path;
static const char *const path_names[PATH_COUNT] = {"host memory",
                                                   "device buffers",
                                                   "enqueue and finish"};

static float data[S] = {1.5f, -2.0f, 3.25f, 4.0f, -5.5f};
static int64_t idx[N];
static float out[N], want[N];

/* Gather over `idx` on path p; the status of the call (of the finish for
 * ENQUEUE); `out` holds the output when it is OK. */
static clg_status call(clg_context *ctx, path p)
{
    const int64_t ds[1] = {S}, is[1] = {N};
    if (p == HOST) {
        clg_tensor D = {CLG_DTYPE_FLOAT, 1, ds, data};
        clg_tensor I = {CLG_DTYPE_INT64, 1, is, idx};
        clg_tensor O = {CLG_DTYPE_FLOAT, 1, is, out};
        return clg_gather(ctx, &D, &I, 0, &O);
    }
    cl_mem d = clg_test_buffer(ctx, data, sizeof data);
    cl_mem i = clg_test_buffer(ctx, idx, sizeof idx);
    cl_mem o = clg_test_buffer(ctx, NULL, sizeof out);
    clg_cl_tensor D = {CLG_DTYPE_FLOAT, 1, ds, d};
    clg_cl_tensor I = {CLG_DTYPE_INT64, 1, is, i};
    clg_cl_tensor O = {CLG_DTYPE_FLOAT, 1, is, o};
    clg_status st;
    if (p == BUFFERS) {
        st = clg_gather_cl(ctx, &D, &I, 0, &O);
    } else {
        st = clg_enqueue_gather(ctx, NULL, &D, &I, 0, &O, 0, NULL, NULL);
        if (st == CLG_STATUS_OK)
            st = clg_context_finish(ctx);
    }
    if (st == CLG_STATUS_OK)
        assert_int_equal(clEnqueueReadBuffer(clg_context_cl_queue(ctx), o,
                                             CL_TRUE, 0, sizeof out, out, 0,
                                             NULL, NULL),
                         CL_SUCCESS);
    clReleaseMemObject(d);
    clReleaseMemObject(i);
    clReleaseMemObject(o);
    return st;
}

/* Valid indices, with a bad one (-s-1) at `bad` unless it is negative. */
static void set_indices(int round, int64_t bad)
{
    for (int64_t k = 0; k < N; k++) {
        idx[k] = (k * 3 + round) % (2 * S) - S; /* -s .. s-1 */
        want[k] = data[idx[k] < 0 ? idx[k] + S : idx[k]];
    }
    if (bad >= 0)
        idx[bad] = -S - 1;
}

static void expect_raise(clg_context *ctx, path p, int64_t bad)
{
    char frag[64];
    clg_test_set_case("%s, -s-1 at %" PRId64, path_names[p], bad);
    CLG_ASSERT_STATUS(ctx, call(ctx, p), CLG_STATUS_INDEX_OUT_OF_RANGE);
    snprintf(frag, sizeof frag, "[%" PRId64 "] = %d", bad, -S - 1);
    CLG_ASSERT_CONTAINS(clg_context_last_error(ctx), frag);
}

static void test_raise_after_raise(void **state)
{
    clg_context *ctx = *state;
    size_t pairs = 0;
    cl_lazy_write_set(1);
    for (int r = 0; r < ROUNDS; r++) {
        for (int a = 0; a < PATH_COUNT; a++) {
            for (int b = 0; b < PATH_COUNT; b++) {
                int64_t first = (r * 7 + a) % N, second = N - 1 - b * r;
                set_indices(r, first);
                expect_raise(ctx, (path)a, first);
                set_indices(r, second);
                expect_raise(ctx, (path)b, second);
                set_indices(r, -1);
                clg_test_set_case("%s, valid, after two raises",
                                  path_names[b]);
                memset(out, 0, sizeof out);
                CLG_ASSERT_OK(ctx, call(ctx, (path)b));
                CLG_ASSERT_BYTES(out, want, sizeof out, sizeof(float),
                                 "output after two raises");
                pairs++;
            }
        }
    }
    unsigned long lazy = cl_lazy_write_deferred();
    cl_lazy_write_set(0);
    print_message("%zu raise-after-raise pairs, %lu blocking writes made "
                  "lazy\n",
                  pairs, lazy);
    /* Every raise is cleared with a blocking write: the shim deferred
     * them all, so the test ran what it is about. */
    assert_true(lazy >= 2 * pairs);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_raise_after_raise),
    };
    return CLG_RUN_DEVICE_TESTS(tests);
}
