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

/* ------------------------------------------------------------ offsets */

/* Where one case's tensors lie in one shared buffer (clg_call's
 * data_offset, indices_offset, output_offset): the gaps between them and
 * the bytes after the output hold 0xAB and must keep it. */
typedef struct arena_layout {
    uint64_t off[3]; /* data, indices, output */
    size_t size;
} arena_layout;

/* Offsets on 4096 bytes (a sub-buffer on every device), or off them by
 * `skew` elements (a device-side copy where that breaks the device's base
 * address alignment); kind 0: all on 4096, 1: all skewed, 2: mixed. */
static void arena_place(const clg_test_random_case *rc, int kind,
                        arena_layout *a)
{
    const size_t bytes[3] = {rc->data.bytes, rc->indices.bytes, rc->out_bytes};
    const size_t unit[3] = {clg_test_dtype_size(rc->spec.dtype),
                            clg_test_dtype_size(rc->spec.idx_dtype),
                            clg_test_dtype_size(rc->spec.dtype)};
    size_t at = 0;
    for (int k = 0; k < 3; k++) {
        at = (at + 4095) / 4096 * 4096 + 4096;
        int skew = kind == 1 || (kind == 2 && k != 1);
        a->off[k] = at + (skew ? 3 * unit[k] : 0);
        at = (size_t)a->off[k] + bytes[k];
    }
    a->size = at + TAIL;
}

/* Runs a random case on tensors inside one buffer, blocking (clg_run_cl)
 * or enqueued (clg_enqueue, then clg_context_finish), and checks the
 * result, the message of an index error, and every byte around. */
static void check_cl_arena(clg_context *ctx, clg_test_random_case *rc,
                           int kind, int enqueue)
{
    cl_context cl = clg_context_cl_context(ctx);
    cl_command_queue q = clg_context_cl_queue(ctx);
    const clg_test_spec *spec = &rc->spec;
    arena_layout a;
    arena_place(rc, kind, &a);
    unsigned char *host = malloc(a.size);
    assert_non_null(host);
    memset(host, 0xAB, a.size);
    memcpy(host + a.off[0], rc->data.t.data, rc->data.bytes);
    memcpy(host + a.off[1], rc->indices.t.data, rc->indices.bytes);
    cl_mem m = make_buffer(cl, host, a.size);
    unsigned char *want = malloc(a.size);
    assert_non_null(want);
    memcpy(want, host, a.size);

    clg_cl_tensor cd = {spec->dtype, spec->rank, spec->shape, m};
    clg_cl_tensor ci = {spec->idx_dtype, spec->idx_rank, spec->idx_shape, m};
    clg_cl_tensor co = {spec->dtype, rc->out_rank, rc->out_shape, m};
    clg_call call = {.size = sizeof call,
                     .op = spec->op,
                     .axis = spec->axis,
                     .data_offset = a.off[0],
                     .indices_offset = a.off[1],
                     .output_offset = a.off[2]};
    clg_status st;
    if (enqueue) {
        st = clg_enqueue(ctx, NULL, &call, &cd, &ci, &co, 0, NULL, NULL);
        if (st == CLG_STATUS_OK)
            st = clg_context_finish(ctx);
    } else {
        st = clg_run_cl(ctx, &call, &cd, &ci, &co);
    }
    CLG_ASSERT_STATUS(ctx, st, rc->expect);
    read_buffer(q, m, host, a.size);
    size_t elem = clg_test_dtype_size(spec->dtype);
    if (rc->expect == CLG_STATUS_OK) {
        CLG_ASSERT_BYTES(host + a.off[2], rc->expected, rc->out_bytes, elem,
                         "output at its offset vs oracle");
        memcpy(want + a.off[2], rc->expected, rc->out_bytes);
    } else {
        char frag[sizeof rc->bad.position + 64];
        snprintf(frag, sizeof frag, "%s = %" PRId64,
                 spec->idx_rank > 0 ? rc->bad.position : "", rc->bad.value);
        CLG_ASSERT_CONTAINS(clg_context_last_error(ctx), frag);
        /* The output's bytes are unspecified after an index error. */
        memcpy(want + a.off[2], host + a.off[2], rc->out_bytes);
    }
    /* Inputs, gaps and the tail as they were. */
    CLG_ASSERT_BYTES(host, want, a.size, 1, "the shared buffer");
    free(want);
    free(host);
    clReleaseMemObject(m);
}

static void test_buffers_at_offsets(void **state)
{
    clg_context *ctx = *state;
    clg_test_rng rng = {seed ^ 0x0ff5e7};
    size_t errors = 0;
    for (size_t n = 0; n < 96; n++) {
        clg_test_spec spec;
        clg_test_random_spec(&rng, n * 11, &spec);
        clg_test_random_case rc;
        clg_test_random_case_make(&rng, &spec, &rc);
        int kind = (int)(n % 3), enqueue = (int)(n / 3 % 2);
        clg_test_set_case("offset case %zu (layout %d, %s; "
                          "CLG_TEST_SEED=%" PRIu64 "): %s",
                          n, kind, enqueue ? "enqueued" : "blocking", seed,
                          rc.desc);
        check_cl_arena(ctx, &rc, kind, enqueue);
        errors += rc.expect != CLG_STATUS_OK;
        clg_test_random_case_free(&rc);
    }
    assert_true(errors > 0);
}

/* The offsets' rules: element alignment, room in the buffer, no overlap
 * of the output with an input, none on host memory. */
static void test_buffers_offset_errors(void **state)
{
    clg_context *ctx = *state;
    cl_context cl = clg_context_cl_context(ctx);
    /* The buffer is made with its contents: Oclgrind 21.10 reports reads
     * through a sub-buffer of bytes written into its parent by
     * clEnqueueWriteBuffer as uninitialised. */
    unsigned char fill[512];
    memset(fill, 0, sizeof fill);
    const float data[] = {1, 2, 3, 4, 5, 6};
    const int64_t idx[] = {2, -3}, bad[] = {1, 3};
    memcpy(fill, data, sizeof data);
    memcpy(fill + 96, idx, sizeof idx);
    const int64_t dshape[] = {2, 3}, ishape[] = {2}, oshape[] = {2, 2};
    cl_mem m = make_buffer(cl, fill, sizeof fill);
    clg_cl_tensor cd = {CLG_DTYPE_FLOAT, 2, dshape, m};
    clg_cl_tensor ci = {CLG_DTYPE_INT64, 1, ishape, m};
    clg_cl_tensor co = {CLG_DTYPE_FLOAT, 2, oshape, m};
    clg_call call = {.size = sizeof call, .op = CLG_OP_GATHER, .axis = 1};
    call.data_offset = 0;
    call.indices_offset = 100; /* not a multiple of 8 */
    call.output_offset = 256;
    CLG_ASSERT_STATUS(ctx, clg_run_cl(ctx, &call, &cd, &ci, &co),
                      CLG_STATUS_INVALID_ARGUMENT);
    CLG_ASSERT_CONTAINS(clg_context_last_error(ctx),
                        "call->indices_offset = 100 is not a multiple of the "
                        "indices element size (8 bytes)");
    CLG_ASSERT_STATUS(ctx, clg_warm_up_cl(ctx, &call, &cd, &ci, &co),
                      CLG_STATUS_INVALID_ARGUMENT);
    call.indices_offset = 96;
    call.output_offset = 500; /* 16 bytes do not fit in 12 */
    CLG_ASSERT_STATUS(ctx, clg_run_cl(ctx, &call, &cd, &ci, &co),
                      CLG_STATUS_INVALID_ARGUMENT);
    CLG_ASSERT_CONTAINS(clg_context_last_error(ctx),
                        "output buffer holds 512 bytes; the tensor needs 16 "
                        "at offset 500");
    call.output_offset = 104; /* [104, 120) overlaps the indices' [96, 112) */
    CLG_ASSERT_STATUS(ctx, clg_run_cl(ctx, &call, &cd, &ci, &co),
                      CLG_STATUS_INVALID_ARGUMENT);
    CLG_ASSERT_CONTAINS(clg_context_last_error(ctx),
                        "the output's bytes [104, 120) overlap the indices' "
                        "[96, 112)");
    call.output_offset = 8; /* [8, 24) overlaps the data's [0, 24) */
    CLG_ASSERT_STATUS(ctx, clg_run_cl(ctx, &call, &cd, &ci, &co),
                      CLG_STATUS_INVALID_ARGUMENT);
    CLG_ASSERT_CONTAINS(clg_context_last_error(ctx), "overlap the data's");
    /* Adjacent ranges are apart: data [0, 24), indices [96, 112), output
     * [112, 128). */
    call.output_offset = 112;
    cl_command_queue q = clg_context_cl_queue(ctx);
    CLG_ASSERT_OK(ctx, clg_run_cl(ctx, &call, &cd, &ci, &co));
    float out[4];
    assert_int_equal(clEnqueueReadBuffer(q, m, CL_TRUE, 112, sizeof out, out,
                                         0, NULL, NULL),
                     CL_SUCCESS);
    const float want[] = {3, 1, 6, 4};
    CLG_ASSERT_BYTES(out, want, sizeof want, 4, "output at offset 112");
    /* An index error names the position within the tensor, not the
     * buffer. */
    memcpy(fill + 96, bad, sizeof bad);
    cl_mem m2 = make_buffer(cl, fill, sizeof fill);
    cd.buffer = ci.buffer = co.buffer = m2;
    CLG_ASSERT_STATUS(ctx, clg_run_cl(ctx, &call, &cd, &ci, &co),
                      CLG_STATUS_INDEX_OUT_OF_RANGE);
    CLG_ASSERT_CONTAINS(clg_context_last_error(ctx), "indices[1] = 3");
    /* Host-memory calls take no offsets. */
    float hd[6] = {0}, ho[4];
    int64_t hi[2] = {0, 1};
    clg_tensor td = {CLG_DTYPE_FLOAT, 2, dshape, hd};
    clg_tensor ti = {CLG_DTYPE_INT64, 1, ishape, hi};
    clg_tensor to = {CLG_DTYPE_FLOAT, 2, oshape, ho};
    clg_call host = {.size = sizeof host,
                     .op = CLG_OP_GATHER,
                     .axis = 1,
                     .output_offset = 16};
    CLG_ASSERT_STATUS(ctx, clg_run(ctx, &host, &td, &ti, &to),
                      CLG_STATUS_INVALID_ARGUMENT);
    CLG_ASSERT_CONTAINS(clg_context_last_error(ctx),
                        "call->output_offset = 16 on a host-memory call");
    CLG_ASSERT_STATUS(ctx, clg_reference(ctx, &host, &td, &ti, &to),
                      CLG_STATUS_INVALID_ARGUMENT);
    CLG_ASSERT_STATUS(ctx, clg_warm_up(ctx, &host, &td, &ti, &to),
                      CLG_STATUS_INVALID_ARGUMENT);
    clReleaseMemObject(m);
    clReleaseMemObject(m2);
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
        cmocka_unit_test(test_buffers_at_offsets),
        cmocka_unit_test(test_buffers_offset_errors),
        cmocka_unit_test(test_buffers_on_wrapped_context),
    };
    return CLG_RUN_DEVICE_TESTS(tests);
}
