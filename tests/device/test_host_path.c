/* SPDX-License-Identifier: Apache-2.0 */
/* The tiny-call host path (the `host` device parameter): host-memory calls
 * that move at most `host` bytes of output and indices run on the calling
 * thread, bit-identical to the CPU reference in every out-of-range mode
 * and with the same statuses and messages; clg_context_last_path says
 * where each ran; validation mode, `host` 0, larger calls and device
 * buffers take the device. */
#include "clg_test_random.h"

#include <inttypes.h>

#define DEFAULT_SEED UINT64_C(0x7105a7b0571e)

static uint64_t seed;

/* Runs the call of `rc` (its op and axis, mode `oob`) on ctx's host-memory
 * path and on the reference, and compares status, message and bytes. */
static void same_as_reference(clg_context *ctx, clg_test_random_case *rc,
                              clg_oob_mode oob, clg_path want)
{
    const clg_test_spec *spec = &rc->spec;
    size_t bytes = rc->out_bytes ? rc->out_bytes : 1;
    unsigned char *a = malloc(bytes), *b = malloc(bytes);
    assert_non_null(a);
    assert_non_null(b);
    memset(a, 0xAB, bytes);
    memset(b, 0xAB, bytes);
    clg_tensor oa = {spec->dtype, rc->out_rank, rc->out_shape, a};
    clg_tensor ob = oa;
    ob.data = b;
    clg_call call = {.size = sizeof call, .op = spec->op, .axis = spec->axis};
    call.options.oob = oob;
    clg_status sr = clg_reference(NULL, &call, &rc->data.t, &rc->indices.t,
                                  &ob);
    char ref_msg[1024];
    snprintf(ref_msg, sizeof ref_msg, "%s", clg_context_last_error(NULL));
    clg_status sh = clg_run(ctx, &call, &rc->data.t, &rc->indices.t, &oa);
    CLG_ASSERT_STATUS(ctx, sh, sr);
    if (sr == CLG_STATUS_OK) {
        assert_int_equal(clg_context_last_path(ctx), want);
        CLG_ASSERT_BYTES(a, b, rc->out_bytes, clg_test_dtype_size(spec->dtype),
                         "host path vs reference");
    } else {
        assert_string_equal(clg_context_last_error(ctx), ref_msg);
        CLG_ASSERT_FILLED(a, rc->out_bytes, 0xAB, "output after an error");
    }
    /* The inputs are as they were. */
    CLG_ASSERT_BYTES(rc->data.t.data, rc->data_copy, rc->data.bytes, 1,
                     "data");
    CLG_ASSERT_BYTES(rc->indices.t.data, rc->idx_copy, rc->indices.bytes, 1,
                     "indices");
    free(a);
    free(b);
}

/* Random Gather and GatherElements cases (every dtype, rank, index type,
 * misaligned tensors, planted bad values) in every mode, on the host. */
static void test_random_cases_on_the_host(void **state)
{
    clg_context *ctx = *state;
    CLG_ASSERT_OK(ctx, clg_context_set_param(ctx, CLG_PARAM_HOST, 16777216));
    clg_test_rng rng = {seed};
    size_t errors = 0;
    for (size_t n = 0; n < 512; n++) {
        clg_test_spec spec;
        clg_test_random_spec(&rng, n, &spec);
        clg_test_random_case rc;
        clg_test_random_case_make(&rng, &spec, &rc);
        clg_oob_mode oob = (clg_oob_mode)(n % 4);
        clg_test_set_case("host case %zu, %s (CLG_TEST_SEED=%" PRIu64 "): %s",
                          n, clg_oob_mode_name(oob), seed, rc.desc);
        same_as_reference(ctx, &rc, oob, CLG_PATH_HOST);
        errors += oob == CLG_OOB_RAISE && rc.expect != CLG_STATUS_OK;
        clg_test_random_case_free(&rc);
    }
    assert_true(errors > 0);
}

/* GatherND on the host: ONNX's examples 1 to 5 and batch_dims, a negative
 * component, each mode on an out-of-range one. */
static void test_gather_nd_on_the_host(void **state)
{
    clg_context *ctx = *state;
    CLG_ASSERT_OK(ctx, clg_context_set_param(ctx, CLG_PARAM_HOST, 16777216));
    /* data [2, 2, 2] = 0..7, batch_dims 1, indices [2, 1, 2]. */
    const int32_t data[8] = {0, 1, 2, 3, 4, 5, 6, 7};
    const int64_t dshape[3] = {2, 2, 2}, ishape[3] = {2, 1, 2};
    const int64_t oshape[2] = {2, 1};
    clg_tensor d = {CLG_DTYPE_INT32, 3, dshape, (void *)data};
    struct {
        clg_oob_mode oob;
        int64_t idx[4];
        int32_t want[2];
        clg_status st;
    } cases[] = {
        {CLG_OOB_RAISE, {1, 0, 0, 1}, {2, 5}, CLG_STATUS_OK},
        {CLG_OOB_RAISE, {-1, -2, 0, -1}, {2, 5}, CLG_STATUS_OK},
        {CLG_OOB_RAISE, {1, 0, 0, 2}, {0, 0}, CLG_STATUS_INDEX_OUT_OF_RANGE},
        {CLG_OOB_WRAP, {3, 0, 0, 3}, {2, 5}, CLG_STATUS_OK},
        {CLG_OOB_CLIP, {5, -9, 0, 7}, {2, 5}, CLG_STATUS_OK},
        {CLG_OOB_FILL, {1, 0, 0, 2}, {2, 0}, CLG_STATUS_OK},
    };
    for (size_t k = 0; k < CLG_TEST_ARRAY_LEN(cases); k++) {
        int32_t out[2] = {-1, -1};
        clg_tensor i = {CLG_DTYPE_INT64, 3, ishape, cases[k].idx};
        clg_tensor o = {CLG_DTYPE_INT32, 2, oshape, out};
        clg_call call = {.size = sizeof call,
                         .op = CLG_OP_GATHER_ND,
                         .batch_dims = 1};
        call.options.oob = cases[k].oob;
        clg_test_set_case("GatherND case %zu (%s)", k,
                          clg_oob_mode_name(cases[k].oob));
        CLG_ASSERT_STATUS(ctx, clg_run(ctx, &call, &d, &i, &o), cases[k].st);
        if (cases[k].st == CLG_STATUS_OK) {
            assert_int_equal(clg_context_last_path(ctx), CLG_PATH_HOST);
            assert_int_equal(out[0], cases[k].want[0]);
            assert_int_equal(out[1], cases[k].want[1]);
        } else {
            CLG_ASSERT_CONTAINS(clg_context_last_error(ctx),
                                "indices[1][0][1] = 2 is out of range "
                                "[-2, 1] for data dim 2 of size 2");
            assert_int_equal(out[0], -1);
        }
    }
}

/* Which path a call takes: the threshold in bytes of output and indices,
 * 0 never, validation mode and device buffers always the device. */
static void test_which_path(void **state)
{
    clg_context *ctx = *state;
    const float data[6] = {1, 2, 3, 4, 5, 6};
    const int64_t idx[2] = {2, 0};
    float out[4];
    const int64_t dshape[2] = {2, 3}, ishape[1] = {2}, oshape[2] = {2, 2};
    clg_tensor d = {CLG_DTYPE_FLOAT, 2, dshape, (void *)data};
    clg_tensor i = {CLG_DTYPE_INT64, 1, ishape, (void *)idx};
    clg_tensor o = {CLG_DTYPE_FLOAT, 2, oshape, out};
    /* 16 bytes of output and 16 of indices. */
    CLG_ASSERT_OK(ctx, clg_context_set_param(ctx, CLG_PARAM_HOST, 32));
    CLG_ASSERT_OK(ctx, clg_gather(ctx, &d, &i, 1, &o));
    assert_int_equal(clg_context_last_path(ctx), CLG_PATH_HOST);
    const float want[4] = {3, 1, 6, 4};
    CLG_ASSERT_BYTES(out, want, sizeof want, 4, "host path");
    CLG_ASSERT_OK(ctx, clg_context_set_param(ctx, CLG_PARAM_HOST, 31));
    memset(out, 0, sizeof out);
    CLG_ASSERT_OK(ctx, clg_gather(ctx, &d, &i, 1, &o));
    assert_int_equal(clg_context_last_path(ctx), CLG_PATH_DEVICE);
    CLG_ASSERT_BYTES(out, want, sizeof want, 4, "device path");
    CLG_ASSERT_OK(ctx, clg_context_set_param(ctx, CLG_PARAM_HOST, 0));
    CLG_ASSERT_OK(ctx, clg_gather(ctx, &d, &i, 1, &o));
    assert_int_equal(clg_context_last_path(ctx), CLG_PATH_DEVICE);
    /* Validation mode compares the device with the reference. */
    CLG_ASSERT_OK(ctx, clg_context_set_param(ctx, CLG_PARAM_HOST, 4096));
    CLG_ASSERT_OK(ctx, clg_context_set_validate(ctx, 1));
    CLG_ASSERT_OK(ctx, clg_gather(ctx, &d, &i, 1, &o));
    assert_int_equal(clg_context_last_path(ctx), CLG_PATH_DEVICE);
    CLG_ASSERT_OK(ctx, clg_context_set_validate(ctx, 0));
    /* An empty call under host: its indices are still checked. */
    const int64_t eshape[2] = {0, 3}, eoshape[2] = {0, 2};
    clg_tensor e = {CLG_DTYPE_FLOAT, 2, eshape, NULL};
    clg_tensor eo = {CLG_DTYPE_FLOAT, 2, eoshape, NULL};
    const int64_t bad[2] = {2, 3};
    clg_tensor bi = {CLG_DTYPE_INT64, 1, ishape, (void *)bad};
    CLG_ASSERT_STATUS(ctx, clg_gather(ctx, &e, &bi, 1, &eo),
                      CLG_STATUS_INDEX_OUT_OF_RANGE);
    CLG_ASSERT_CONTAINS(clg_context_last_error(ctx), "indices[1] = 3");
    CLG_ASSERT_OK(ctx, clg_gather(ctx, &e, &i, 1, &eo));
    assert_int_equal(clg_context_last_path(ctx), CLG_PATH_HOST);
    /* A failed call leaves the path as it was. */
    CLG_ASSERT_STATUS(ctx, clg_gather(ctx, &d, &bi, 1, &o),
                      CLG_STATUS_INDEX_OUT_OF_RANGE);
    assert_int_equal(clg_context_last_path(ctx), CLG_PATH_HOST);
    /* Device buffers always launch: the host-memory path is not touched. */
    cl_mem bd = clg_test_buffer(ctx, data, sizeof data);
    cl_mem bx = clg_test_buffer(ctx, idx, sizeof idx);
    cl_mem bo = clg_test_buffer(ctx, NULL, sizeof out);
    clg_cl_tensor cd = {CLG_DTYPE_FLOAT, 2, dshape, bd};
    clg_cl_tensor ci = {CLG_DTYPE_INT64, 1, ishape, bx};
    clg_cl_tensor co = {CLG_DTYPE_FLOAT, 2, oshape, bo};
    CLG_ASSERT_OK(ctx, clg_gather_cl(ctx, &cd, &ci, 1, &co));
    assert_int_equal(clg_context_last_path(ctx), CLG_PATH_HOST);
    clReleaseMemObject(bd);
    clReleaseMemObject(bx);
    clReleaseMemObject(bo);
    assert_int_equal(clg_context_last_path(NULL), CLG_PATH_NONE);
    CLG_ASSERT_OK(ctx, clg_context_set_param(ctx, CLG_PARAM_HOST, 0));
}

int main(void)
{
    seed = clg_test_seed(DEFAULT_SEED);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_random_cases_on_the_host),
        cmocka_unit_test(test_gather_nd_on_the_host),
        cmocka_unit_test(test_which_path),
    };
    return CLG_RUN_DEVICE_TESTS(tests);
}
