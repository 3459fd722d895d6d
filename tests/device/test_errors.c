/* SPDX-License-Identifier: Apache-2.0 */
/* Every invalid-input class on the device path (clg_gather,
 * clg_gather_elements) and on the CPU reference with the same context:
 * the exact status, a message naming the offending values, and the
 * caller's output (pre-filled with 0xAB), inputs and guard zones left
 * byte for byte as they were. The context stays usable after each error. */
#include "clg_test_cases.h"

static void check_context_still_works(clg_context *ctx)
{
    /* ONNX Gather example 1, bit for bit. */
    assert_int_equal(clg_test_run_case(ctx, &clg_test_cases[0],
                                       CLG_DTYPE_INT64),
                     1);
}

static void test_error_cases_on_device(void **state)
{
    clg_context *ctx = *state;
    for (size_t i = 0; i < clg_test_error_case_count; i++) {
        clg_test_run_error_case(ctx, &clg_test_error_cases[i],
                                CLG_TEST_ON_DEVICE);
    }
    check_context_still_works(ctx);
}

static void test_error_cases_on_reference_with_context(void **state)
{
    clg_context *ctx = *state;
    for (size_t i = 0; i < clg_test_error_case_count; i++) {
        clg_test_run_error_case(ctx, &clg_test_error_cases[i],
                                CLG_TEST_ON_REFERENCE);
    }
}

/* After each error the very next valid call succeeds and clears the
 * message. */
static void test_error_then_success_interleaved(void **state)
{
    clg_context *ctx = *state;
    for (size_t i = 0; i < clg_test_error_case_count; i += 3) {
        clg_test_run_error_case(ctx, &clg_test_error_cases[i],
                                CLG_TEST_ON_DEVICE);
        check_context_still_works(ctx);
        assert_string_equal(clg_context_last_error(ctx), "");
    }
}

static void test_null_context(void **state)
{
    (void)state;
    const float data[] = {1, 2, 3};
    const int64_t shape[] = {3};
    const int64_t idx[] = {2};
    const int64_t one[] = {1};
    float out = 42.0f;
    clg_tensor d = {CLG_DTYPE_FLOAT, 1, shape, (void *)data};
    clg_tensor q = {CLG_DTYPE_INT64, 1, one, (void *)idx};
    clg_tensor o = {CLG_DTYPE_FLOAT, 1, one, &out};
    CLG_ASSERT_STATUS(NULL, clg_gather(NULL, &d, &q, 0, &o),
                      CLG_STATUS_NULL_POINTER);
    CLG_ASSERT_STATUS(NULL, clg_gather_elements(NULL, &d, &q, 0, &o),
                      CLG_STATUS_NULL_POINTER);
    clg_cl_tensor cd = {CLG_DTYPE_FLOAT, 1, shape, NULL};
    clg_cl_tensor cq = {CLG_DTYPE_INT64, 1, one, NULL};
    clg_cl_tensor co = {CLG_DTYPE_FLOAT, 1, one, NULL};
    CLG_ASSERT_STATUS(NULL, clg_gather_cl(NULL, &cd, &cq, 0, &co),
                      CLG_STATUS_NULL_POINTER);
    CLG_ASSERT_STATUS(NULL, clg_gather_elements_cl(NULL, &cd, &cq, 0, &co),
                      CLG_STATUS_NULL_POINTER);
    const float forty_two = 42.0f;
    CLG_ASSERT_BYTES(&out, &forty_two, sizeof out, 4, "output");
    /* The reference accepts a NULL context. */
    CLG_ASSERT_OK(NULL, clg_reference_gather(NULL, &d, &q, 0, &o));
    const float three = 3.0f;
    CLG_ASSERT_BYTES(&out, &three, sizeof out, 4, "output");
}

/* An out-of-range index at every position of a larger tensor: the message
 * names exactly that position, the output stays untouched, on both ops. */
static void test_bad_index_at_every_position(void **state)
{
    clg_context *ctx = *state;
    const int64_t dshape[] = {4, 5, 6};
    const int64_t gshape[] = {3, 7}; /* Gather indices along axis 1 */
    const int64_t gout[] = {4, 3, 7, 6};
    const int64_t eshape[] = {4, 9, 6}; /* GatherElements along axis 1 */
    clg_test_tensor data, gi, go, ei, eo;
    clg_test_tensor_init(&data, CLG_DTYPE_INT16, 3, dshape, 0, 0x33);
    clg_test_tensor_init(&gi, CLG_DTYPE_INT32, 2, gshape, 0, 0);
    clg_test_tensor_init(&go, CLG_DTYPE_INT16, 4, gout, 0, 0xAB);
    clg_test_tensor_init(&ei, CLG_DTYPE_INT64, 3, eshape, 0, 0);
    clg_test_tensor_init(&eo, CLG_DTYPE_INT16, 3, eshape, 0, 0xAB);
    for (int64_t pos = 0; pos < 21; pos++) {
        int64_t v[21];
        for (int64_t k = 0; k < 21; k++) {
            v[k] = k == pos ? (pos % 2 ? 5 : -6) : k % 5 - 2;
        }
        clg_test_store_indices(&gi, v, 21);
        char frag[64];
        snprintf(frag, sizeof frag, "indices[%d][%d] = %d", (int)(pos / 7),
                 (int)(pos % 7), pos % 2 ? 5 : -6);
        clg_test_set_case("Gather, bad index at %s", frag);
        CLG_ASSERT_STATUS(ctx, clg_gather(ctx, &data.t, &gi.t, 1, &go.t),
                          CLG_STATUS_INDEX_OUT_OF_RANGE);
        CLG_ASSERT_CONTAINS(clg_context_last_error(ctx), frag);
        CLG_ASSERT_CONTAINS(clg_context_last_error(ctx), "[-5, 4]");
        CLG_ASSERT_FILLED(go.t.data, go.bytes, 0xAB, "output");
        CLG_ASSERT_GUARDS(&go, "output");
    }
    for (int64_t pos = 0; pos < 4 * 9 * 6; pos += 5) {
        int64_t v[4 * 9 * 6];
        for (int64_t k = 0; k < 4 * 9 * 6; k++) {
            v[k] = k == pos ? (pos % 2 ? INT64_MAX : -6) : k % 10 - 5;
        }
        clg_test_store_indices(&ei, v, 4 * 9 * 6);
        char frag[96];
        snprintf(frag, sizeof frag, "indices[%d][%d][%d] = %s",
                 (int)(pos / 54), (int)(pos / 6 % 9), (int)(pos % 6),
                 pos % 2 ? "9223372036854775807" : "-6");
        clg_test_set_case("GatherElements, bad index at %s", frag);
        CLG_ASSERT_STATUS(ctx,
                          clg_gather_elements(ctx, &data.t, &ei.t, -2, &eo.t),
                          CLG_STATUS_INDEX_OUT_OF_RANGE);
        CLG_ASSERT_CONTAINS(clg_context_last_error(ctx), frag);
        CLG_ASSERT_CONTAINS(clg_context_last_error(ctx), "[-5, 4]");
        CLG_ASSERT_FILLED(eo.t.data, eo.bytes, 0xAB, "output");
        CLG_ASSERT_GUARDS(&eo, "output");
    }
    CLG_ASSERT_FILLED(data.t.data, data.bytes, 0x33, "data");
    clg_test_tensor_free(&data);
    clg_test_tensor_free(&gi);
    clg_test_tensor_free(&go);
    clg_test_tensor_free(&ei);
    clg_test_tensor_free(&eo);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_error_cases_on_device),
        cmocka_unit_test(test_error_cases_on_reference_with_context),
        cmocka_unit_test(test_error_then_success_interleaved),
        cmocka_unit_test(test_null_context),
        cmocka_unit_test(test_bad_index_at_every_position),
    };
    return CLG_RUN_DEVICE_TESTS(tests);
}
