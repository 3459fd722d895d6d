/* SPDX-License-Identifier: Apache-2.0 */
/* The device-buffer API (clg_gather_cl, clg_gather_elements_cl) on buffers
 * made with clCreateBuffer on clg_context_cl_context(ctx), and on a
 * context wrapped with clg_context_create_from_cl: results bit-exact
 * against the oracle and the CPU reference, nothing written past the
 * output tensor, inputs unchanged, errors as on the host API. */
#include "clg_test_cases.h"
#include "clg_test_random.h"

#include <inttypes.h>

#define DEFAULT_SEED UINT64_C(0xc1b0ffe25eed)
#define TAIL 256 /* bytes after the output tensor that must stay 0xAB */

static uint64_t seed;

static cl_mem make_buffer(cl_context cl, const void *bytes, size_t n)
{
    cl_int err = CL_SUCCESS;
    /* A zero-size buffer is not allowed; empty tensors get a small one. */
    size_t size = n > 0 ? n : 16;
    cl_mem m = clCreateBuffer(cl,
                              CL_MEM_READ_WRITE |
                                  (n > 0 ? CL_MEM_COPY_HOST_PTR : 0),
                              size, n > 0 ? (void *)bytes : NULL, &err);
    assert_int_equal(err, CL_SUCCESS);
    assert_non_null(m);
    return m;
}

static void read_buffer(cl_command_queue q, cl_mem m, void *dst, size_t n)
{
    if (n == 0) {
        return;
    }
    assert_int_equal(clEnqueueReadBuffer(q, m, CL_TRUE, 0, n, dst, 0, NULL,
                                         NULL),
                     CL_SUCCESS);
}

/* Runs a random case through the buffer API of ctx. */
static void check_cl(clg_context *ctx, clg_test_random_case *rc)
{
    cl_context cl = clg_context_cl_context(ctx);
    cl_command_queue q = clg_context_cl_queue(ctx);
    const clg_test_spec *spec = &rc->spec;
    cl_mem d = make_buffer(cl, rc->data.t.data, rc->data.bytes);
    cl_mem i = make_buffer(cl, rc->indices.t.data, rc->indices.bytes);
    size_t out_size = rc->out_bytes + TAIL;
    unsigned char *host = malloc(out_size);
    assert_non_null(host);
    memset(host, 0xAB, out_size);
    cl_mem o = make_buffer(cl, host, out_size);

    clg_cl_tensor cd = {spec->dtype, spec->rank, spec->shape, d};
    clg_cl_tensor ci = {spec->idx_dtype, spec->idx_rank, spec->idx_shape, i};
    clg_cl_tensor co = {spec->dtype, rc->out_rank, rc->out_shape, o};
    clg_status st = spec->op == CLG_OP_GATHER
                        ? clg_gather_cl(ctx, &cd, &ci, spec->axis, &co)
                        : clg_gather_elements_cl(ctx, &cd, &ci, spec->axis,
                                                 &co);
    CLG_ASSERT_STATUS(ctx, st, rc->expect);
    read_buffer(q, o, host, out_size);
    size_t elem = clg_test_dtype_size(spec->dtype);
    if (rc->expect == CLG_STATUS_OK) {
        CLG_ASSERT_BYTES(host, rc->expected, rc->out_bytes, elem,
                         "device buffer vs oracle");
    } else {
        char frag[sizeof rc->bad.position + 64];
        if (spec->idx_rank > 0) {
            snprintf(frag, sizeof frag, "%s = %" PRId64, rc->bad.position,
                     rc->bad.value);
        } else {
            snprintf(frag, sizeof frag, "= %" PRId64, rc->bad.value);
        }
        CLG_ASSERT_CONTAINS(clg_context_last_error(ctx), frag);
    }
    /* Nothing past the output tensor is ever written. */
    CLG_ASSERT_FILLED(host + rc->out_bytes, TAIL, 0xAB,
                      "output buffer past the tensor");
    /* Inputs unchanged. */
    unsigned char *back = malloc(rc->data.bytes + rc->indices.bytes + 1);
    assert_non_null(back);
    read_buffer(q, d, back, rc->data.bytes);
    CLG_ASSERT_BYTES(back, rc->data_copy, rc->data.bytes, elem,
                     "data buffer after the call");
    read_buffer(q, i, back, rc->indices.bytes);
    CLG_ASSERT_BYTES(back, rc->idx_copy, rc->indices.bytes, 1,
                     "indices buffer after the call");
    free(back);
    free(host);
    clReleaseMemObject(d);
    clReleaseMemObject(i);
    clReleaseMemObject(o);
}

static void run_random_cl(clg_context *ctx, size_t cases, uint64_t s)
{
    clg_test_rng rng = {s};
    size_t errors = 0;
    for (size_t n = 0; n < cases; n++) {
        clg_test_spec spec;
        /* Spread the draws over the whole (op, dtype, index, rank) cycle. */
        clg_test_random_spec(&rng, n * 7, &spec);
        clg_test_random_case rc;
        clg_test_random_case_make(&rng, &spec, &rc);
        clg_test_set_case("buffer case %zu (CLG_TEST_SEED=%" PRIu64 "): %s", n,
                          seed, rc.desc);
        check_cl(ctx, &rc);
        errors += rc.expect != CLG_STATUS_OK;
        clg_test_random_case_free(&rc);
    }
    assert_true(errors > 0);
}

static void test_buffers_random(void **state)
{
    run_random_cl(*state, 512, seed);
}

/* The literal cases through buffers, every one with both index types. */
static void test_buffers_literal_cases(void **state)
{
    clg_context *ctx = *state;
    clg_test_rng rng = {seed};
    for (size_t n = 0; n < clg_test_case_count; n++) {
        const clg_test_case *c = &clg_test_cases[n];
        for (int k = 0; k < 2; k++) {
            clg_test_spec spec;
            memset(&spec, 0, sizeof spec);
            spec.op = c->op;
            spec.dtype = c->dtype;
            spec.idx_dtype = k ? CLG_DTYPE_INT32 : CLG_DTYPE_INT64;
            spec.rank = c->rank;
            memcpy(spec.shape, c->shape, c->rank * sizeof(int64_t));
            spec.axis = c->axis;
            spec.idx_rank = c->idx_rank;
            if (c->idx_rank > 0) {
                memcpy(spec.idx_shape, c->idx_shape,
                       c->idx_rank * sizeof(int64_t));
            }
            clg_test_random_case rc;
            clg_test_random_case_make(&rng, &spec, &rc);
            /* Replace the random contents by the literal ones. */
            if (rc.data.bytes > 0) {
                memcpy(rc.data.t.data, c->data, rc.data.bytes);
                memcpy(rc.data_copy, c->data, rc.data.bytes);
            }
            int64_t nidx = clg_test_count(c->idx_shape, c->idx_rank);
            clg_test_store_indices(&rc.indices, c->idx, (size_t)nidx);
            memcpy(rc.idx_copy, rc.indices.t.data, rc.indices.bytes);
            if (rc.out_bytes > 0) {
                memcpy(rc.expected, c->out, rc.out_bytes);
            }
            rc.expect = CLG_STATUS_OK;
            clg_test_set_case("%s through buffers, %s indices", c->name,
                              clg_dtype_name(spec.idx_dtype));
            check_cl(ctx, &rc);
            clg_test_random_case_free(&rc);
        }
    }
}

static void test_buffers_errors(void **state)
{
    clg_context *ctx = *state;
    cl_context cl = clg_context_cl_context(ctx);
    const float data[] = {1, 2, 3, 4, 5, 6};
    const int64_t dshape[] = {2, 3};
    const int64_t idx[] = {0, 2, 3};
    const int64_t ishape[] = {3};
    const int64_t oshape[] = {2, 3};
    cl_mem d = make_buffer(cl, data, sizeof data);
    cl_mem i = make_buffer(cl, idx, sizeof idx);
    unsigned char fill[24 + TAIL];
    memset(fill, 0xAB, sizeof fill);
    cl_mem o = make_buffer(cl, fill, sizeof fill);
    clg_cl_tensor cd = {CLG_DTYPE_FLOAT, 2, dshape, d};
    clg_cl_tensor ci = {CLG_DTYPE_INT64, 1, ishape, i};
    clg_cl_tensor co = {CLG_DTYPE_FLOAT, 2, oshape, o};

    /* indices[2] = 3 is outside [-3, 2] along axis 1. */
    CLG_ASSERT_STATUS(ctx, clg_gather_cl(ctx, &cd, &ci, 1, &co),
                      CLG_STATUS_INDEX_OUT_OF_RANGE);
    CLG_ASSERT_CONTAINS(clg_context_last_error(ctx), "indices[2] = 3");
    CLG_ASSERT_CONTAINS(clg_context_last_error(ctx), "[-3, 2]");
    unsigned char back[sizeof fill];
    read_buffer(clg_context_cl_queue(ctx), o, back, sizeof back);
    CLG_ASSERT_FILLED(back + 24, TAIL, 0xAB, "output buffer past the tensor");

    /* Validation errors, as on the host API. */
    CLG_ASSERT_STATUS(ctx, clg_gather_cl(ctx, &cd, &ci, 2, &co),
                      CLG_STATUS_INVALID_AXIS);
    CLG_ASSERT_CONTAINS(clg_context_last_error(ctx), "[-2, 1]");
    CLG_ASSERT_STATUS(ctx, clg_gather_cl(ctx, &cd, &ci, -3, &co),
                      CLG_STATUS_INVALID_AXIS);
    CLG_ASSERT_STATUS(ctx, clg_gather_elements_cl(ctx, &cd, &ci, 0, &co),
                      CLG_STATUS_RANK_MISMATCH);
    clg_cl_tensor wrong = co;
    wrong.dtype = CLG_DTYPE_INT32;
    CLG_ASSERT_STATUS(ctx, clg_gather_cl(ctx, &cd, &ci, 0, &wrong),
                      CLG_STATUS_UNSUPPORTED_DTYPE);
    const int64_t wshape[] = {3, 3};
    wrong = co;
    wrong.shape = wshape;
    CLG_ASSERT_STATUS(ctx, clg_gather_cl(ctx, &cd, &ci, 1, &wrong),
                      CLG_STATUS_SHAPE_MISMATCH);
    clg_cl_tensor fidx = ci;
    fidx.dtype = CLG_DTYPE_FLOAT;
    CLG_ASSERT_STATUS(ctx, clg_gather_cl(ctx, &cd, &fidx, 1, &co),
                      CLG_STATUS_UNSUPPORTED_DTYPE);
    /* NULL descriptors and NULL buffers of non-empty tensors. */
    CLG_ASSERT_STATUS(ctx, clg_gather_cl(ctx, NULL, &ci, 1, &co),
                      CLG_STATUS_NULL_POINTER);
    CLG_ASSERT_STATUS(ctx, clg_gather_cl(ctx, &cd, NULL, 1, &co),
                      CLG_STATUS_NULL_POINTER);
    CLG_ASSERT_STATUS(ctx, clg_gather_cl(ctx, &cd, &ci, 1, NULL),
                      CLG_STATUS_NULL_POINTER);
    clg_cl_tensor nb = cd;
    nb.buffer = NULL;
    CLG_ASSERT_STATUS(ctx, clg_gather_cl(ctx, &nb, &ci, 1, &co),
                      CLG_STATUS_NULL_POINTER);
    nb = co;
    nb.buffer = NULL;
    CLG_ASSERT_STATUS(ctx, clg_gather_cl(ctx, &cd, &ci, 1, &nb),
                      CLG_STATUS_NULL_POINTER);

    /* A valid call on the same buffers afterwards. */
    const int64_t good[] = {2, -3, 1};
    assert_int_equal(clEnqueueWriteBuffer(clg_context_cl_queue(ctx), i,
                                          CL_TRUE, 0, sizeof good, good, 0,
                                          NULL, NULL),
                     CL_SUCCESS);
    CLG_ASSERT_OK(ctx, clg_gather_cl(ctx, &cd, &ci, 1, &co));
    read_buffer(clg_context_cl_queue(ctx), o, back, sizeof back);
    const float want[] = {3, 1, 2, 6, 4, 5};
    CLG_ASSERT_BYTES(back, want, sizeof want, 4, "output");
    CLG_ASSERT_FILLED(back + 24, TAIL, 0xAB, "output buffer past the tensor");
    clReleaseMemObject(d);
    clReleaseMemObject(i);
    clReleaseMemObject(o);
}

/* Buffers of a caller's own cl_context and queue, wrapped. */
static void test_buffers_on_wrapped_context(void **state)
{
    clg_context *fixture = *state;
    cl_device_id dev = clg_context_cl_device(fixture);
    cl_int err = CL_SUCCESS;
    cl_context cl = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
    assert_int_equal(err, CL_SUCCESS);
    cl_command_queue q = clCreateCommandQueue(cl, dev, 0, &err);
    assert_int_equal(err, CL_SUCCESS);
    clg_context *ctx = NULL;
    CLG_ASSERT_OK(NULL, clg_context_create_from_cl(&ctx, cl, dev, q));
    run_random_cl(ctx, 128, seed ^ 0x777);
    clg_context_destroy(ctx);
    clReleaseCommandQueue(q);
    clReleaseContext(cl);
}

int main(void)
{
    seed = clg_test_seed(DEFAULT_SEED);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_buffers_random),
        cmocka_unit_test(test_buffers_literal_cases),
        cmocka_unit_test(test_buffers_errors),
        cmocka_unit_test(test_buffers_on_wrapped_context),
    };
    return CLG_RUN_DEVICE_TESTS(tests);
}
