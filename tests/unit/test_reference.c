/* SPDX-License-Identifier: Apache-2.0 */
/* The CPU reference (clg_reference_gather / clg_reference_gather_elements)
 * with a NULL context: ONNX examples, cases that broke other engines, and
 * every invalid-input class. No device needed. */
#include "clg_test_cases.h"

#include <inttypes.h>
#include <threads.h>

static void test_reference_literal_cases(void **state)
{
    (void)state;
    size_t runs = 0;
    for (size_t i = 0; i < clg_test_case_count; i++) {
        runs += (size_t)clg_test_run_case(NULL, &clg_test_cases[i],
                                          CLG_DTYPE_INT64);
        runs += (size_t)clg_test_run_case(NULL, &clg_test_cases[i],
                                          CLG_DTYPE_INT32);
    }
    /* Every literal case fits INT32 indices. */
    assert_int_equal(runs, 2 * clg_test_case_count);
}

static void test_reference_error_cases(void **state)
{
    (void)state;
    for (size_t i = 0; i < clg_test_error_case_count; i++) {
        clg_test_run_error_case(NULL, &clg_test_error_cases[i],
                                CLG_TEST_ON_REFERENCE);
    }
}

/* A success after a failure: the output is right; the thread's message is
 * only ever about the last failure. */
static void test_reference_recovers_after_error(void **state)
{
    (void)state;
    const float data[] = {1, 2, 3, 4, 5};
    const int64_t dshape[] = {5};
    const int64_t bad[] = {5};
    const int64_t good[] = {-5};
    const int64_t ishape[] = {1};
    float out = 42.0f;
    clg_tensor d = {CLG_DTYPE_FLOAT, 1, dshape, (void *)data};
    clg_tensor ib = {CLG_DTYPE_INT64, 1, ishape, (void *)bad};
    clg_tensor ig = {CLG_DTYPE_INT64, 1, ishape, (void *)good};
    clg_tensor o = {CLG_DTYPE_FLOAT, 1, ishape, &out};
    CLG_ASSERT_STATUS(NULL, clg_reference_gather(NULL, &d, &ib, 0, &o),
                      CLG_STATUS_INDEX_OUT_OF_RANGE);
    CLG_ASSERT_CONTAINS(clg_context_last_error(NULL), "indices[0] = 5");
    CLG_ASSERT_CONTAINS(clg_context_last_error(NULL), "[-5, 4]");
    const float forty_two = 42.0f;
    CLG_ASSERT_BYTES(&out, &forty_two, sizeof out, 4, "output after error");
    CLG_ASSERT_OK(NULL, clg_reference_gather(NULL, &d, &ig, 0, &o));
    const float one = 1.0f;
    CLG_ASSERT_BYTES(&out, &one, sizeof out, 4, "output");
    CLG_ASSERT_STATUS(NULL,
                      clg_reference_gather_elements(NULL, &d, &ib, -1, &o),
                      CLG_STATUS_INDEX_OUT_OF_RANGE);
    CLG_ASSERT_CONTAINS(clg_context_last_error(NULL), "indices[0] = 5");
    CLG_ASSERT_BYTES(&out, &one, sizeof out, 4, "output after error");
    /* An output rank above CLG_MAX_RANK is named, not printed as []. */
    int64_t deep[CLG_MAX_RANK + 1];
    for (size_t k = 0; k < CLG_MAX_RANK + 1; k++)
        deep[k] = 1;
    clg_tensor od = {CLG_DTYPE_FLOAT, CLG_MAX_RANK + 1, deep, &out};
    CLG_ASSERT_STATUS(NULL, clg_reference_gather(NULL, &d, &ig, 0, &od),
                      CLG_STATUS_SHAPE_MISMATCH);
    assert_string_equal(clg_context_last_error(NULL),
                        "output has rank 33, above CLG_MAX_RANK (32); the "
                        "Gather output shape is [1]");
}

/* STRING: descriptors are copied, so outputs point at the input's bytes,
 * NUL bytes included. */
static void test_reference_string_with_nul_bytes(void **state)
{
    (void)state;
    static const char pool[] = "a\0b\0\0cd\0";
    const clg_string data[4] = {
        {pool, 3},     /* "a\0b" */
        {pool + 3, 2}, /* "\0\0" */
        {pool + 5, 3}, /* "cd\0" */
        {pool + 8, 0}, /* "" */
    };
    const int64_t dshape[] = {2, 2};
    const int64_t idx[] = {1, -2, -1, 0};
    const int64_t ishape[] = {2, 2};
    clg_string out[4];
    memset(out, 0xAB, sizeof out);
    clg_tensor d = {CLG_DTYPE_STRING, 2, dshape, (void *)data};
    clg_tensor q = {CLG_DTYPE_INT64, 2, ishape, (void *)idx};
    clg_tensor o = {CLG_DTYPE_STRING, 2, ishape, out};

    /* GatherElements axis 1: out[i][j] = data[i][norm(idx[i][j])]. */
    CLG_ASSERT_OK(NULL, clg_reference_gather_elements(NULL, &d, &q, 1, &o));
    /* out[0][0] = data[0][1], out[0][1] = data[0][0],
     * out[1][0] = data[1][1], out[1][1] = data[1][0]. */
    const clg_string want[4] = {data[1], data[0], data[3], data[2]};
    for (size_t i = 0; i < 4; i++) {
        assert_ptr_equal(out[i].data, want[i].data);
        assert_int_equal(out[i].length, want[i].length);
        assert_memory_equal(out[i].data, want[i].data, want[i].length);
    }
    assert_memory_equal(out[0].data, "\0\0", 2);
    assert_memory_equal(out[1].data, "a\0b", 3);
    assert_memory_equal(out[3].data, "cd\0", 3);

    clg_string out3[8];
    const int64_t oshape[] = {2, 2, 2};
    clg_tensor o3 = {CLG_DTYPE_STRING, 3, oshape, out3};
    CLG_ASSERT_OK(NULL, clg_reference_gather(NULL, &d, &q, 1, &o3));
    const clg_string want3[8] = {data[1], data[0], data[1], data[0],
                                 data[3], data[2], data[3], data[2]};
    CLG_ASSERT_BYTES(out3, want3, sizeof out3, sizeof(clg_string),
                     "STRING Gather axis 1");
}

/* Empty tensors may have NULL data pointers. */
static void test_reference_empty_tensors_with_null_pointers(void **state)
{
    (void)state;
    const int64_t dshape[] = {1, 4, 0};
    const int64_t oshape[] = {4, 0};
    const int64_t zero = 0;
    clg_tensor d = {CLG_DTYPE_FLOAT, 3, dshape, NULL};
    clg_tensor q = {CLG_DTYPE_INT64, 0, NULL, (void *)&zero};
    clg_tensor o = {CLG_DTYPE_FLOAT, 2, oshape, NULL};
    CLG_ASSERT_OK(NULL, clg_reference_gather(NULL, &d, &q, 0, &o));

    const float data[] = {1, 2, 3};
    const int64_t d1[] = {3};
    const int64_t e[] = {0};
    clg_tensor d3 = {CLG_DTYPE_FLOAT, 1, d1, (void *)data};
    clg_tensor qe = {CLG_DTYPE_INT32, 1, e, NULL};
    clg_tensor oe = {CLG_DTYPE_FLOAT, 1, e, NULL};
    CLG_ASSERT_OK(NULL, clg_reference_gather(NULL, &d3, &qe, 0, &oe));
    CLG_ASSERT_OK(NULL, clg_reference_gather_elements(NULL, &d3, &qe, 0, &oe));
}

/* Empty tensors whose other dimensions multiply past INT64_MAX: data
 * [0, 2^32, 2^32] has no element, but its row-major strides (2^64 for dim 0)
 * and the product of its last two dimensions do not fit int64_t. Once a
 * signed overflow in the reference's strides (UBSan's report under
 * ci/sanitize.sh); the result is an empty output and OK, for both index
 * types and both operators. */
static void test_reference_empty_tensors_with_huge_dims(void **state)
{
    (void)state;
    const int64_t big = INT64_C(1) << 32;
    const int64_t dshape[] = {0, big, big};
    const int64_t oshape[] = {0, big};
    const int64_t zero64 = 0;
    const int32_t zero32 = 0;
    clg_tensor d = {CLG_DTYPE_FLOAT, 3, dshape, NULL};
    clg_tensor o = {CLG_DTYPE_FLOAT, 2, oshape, NULL};
    clg_tensor q64 = {CLG_DTYPE_INT64, 0, NULL, (void *)&zero64};
    clg_tensor q32 = {CLG_DTYPE_INT32, 0, NULL, (void *)&zero32};
    CLG_ASSERT_OK(NULL, clg_reference_gather(NULL, &d, &q64, 1, &o));
    CLG_ASSERT_OK(NULL, clg_reference_gather(NULL, &d, &q32, 1, &o));

    /* Indices of the same empty shape, whose strides overflow too:
     * GatherElements on either axis gives an empty [0, 2^32, 2^32]. */
    clg_tensor qe = {CLG_DTYPE_INT64, 3, dshape, NULL};
    clg_tensor oe = {CLG_DTYPE_FLOAT, 3, dshape, NULL};
    CLG_ASSERT_OK(NULL, clg_reference_gather_elements(NULL, &d, &qe, 1, &oe));
    CLG_ASSERT_OK(NULL, clg_reference_gather_elements(NULL, &d, &qe, 0, &oe));

    /* Gather with empty indices of the same shape: output
     * [0, 2^32, 2^32] + [2^32] on axis 0 is [0, 2^32, 2^32, 2^32, 2^32]. */
    const int64_t oshape2[] = {0, big, big, big, big};
    clg_tensor o2 = {CLG_DTYPE_FLOAT, 5, oshape2, NULL};
    CLG_ASSERT_OK(NULL, clg_reference_gather(NULL, &d, &qe, 0, &o2));
}

/* Without a context the message belongs to the calling thread. */
static int fail_in_thread(void *arg)
{
    char *copy = arg;
    const float data[] = {1, 2};
    const int64_t dshape[] = {2};
    const int64_t bad[] = {-77};
    const int64_t one[] = {1};
    float out = 0;
    clg_tensor d = {CLG_DTYPE_FLOAT, 1, dshape, (void *)data};
    clg_tensor q = {CLG_DTYPE_INT64, 1, one, (void *)bad};
    clg_tensor o = {CLG_DTYPE_FLOAT, 1, one, &out};
    clg_status st = clg_reference_gather(NULL, &d, &q, 0, &o);
    snprintf(copy, 512, "%s|%s", clg_status_name(st),
             clg_context_last_error(NULL));
    return 0;
}

static void test_reference_message_is_per_thread(void **state)
{
    (void)state;
    const float data[] = {1, 2, 3};
    const int64_t dshape[] = {3};
    const int64_t bad[] = {55};
    const int64_t one[] = {1};
    float out = 0;
    clg_tensor d = {CLG_DTYPE_FLOAT, 1, dshape, (void *)data};
    clg_tensor q = {CLG_DTYPE_INT64, 1, one, (void *)bad};
    clg_tensor o = {CLG_DTYPE_FLOAT, 1, one, &out};
    CLG_ASSERT_STATUS(NULL, clg_reference_gather(NULL, &d, &q, 0, &o),
                      CLG_STATUS_INDEX_OUT_OF_RANGE);
    CLG_ASSERT_CONTAINS(clg_context_last_error(NULL), "indices[0] = 55");

    char other[512] = {0};
    thrd_t t;
    assert_int_equal(thrd_create(&t, fail_in_thread, other), thrd_success);
    assert_int_equal(thrd_join(t, NULL), thrd_success);
    CLG_ASSERT_CONTAINS(other, "INDEX_OUT_OF_RANGE|");
    CLG_ASSERT_CONTAINS(other, "indices[0] = -77");
    CLG_ASSERT_CONTAINS(other, "[-2, 1]");
    /* This thread's message is still its own. */
    CLG_ASSERT_CONTAINS(clg_context_last_error(NULL), "indices[0] = 55");
    CLG_ASSERT_CONTAINS(clg_context_last_error(NULL), "[-3, 2]");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reference_literal_cases),
        cmocka_unit_test(test_reference_error_cases),
        cmocka_unit_test(test_reference_recovers_after_error),
        cmocka_unit_test(test_reference_string_with_nul_bytes),
        cmocka_unit_test(test_reference_empty_tensors_with_null_pointers),
        cmocka_unit_test(test_reference_empty_tensors_with_huge_dims),
        cmocka_unit_test(test_reference_message_is_per_thread),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
