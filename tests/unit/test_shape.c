/* SPDX-License-Identifier: Apache-2.0 */
/* clg_shape_count and the output-shape helpers. No device needed. */
#include "clg_test.h"

#define I64(...) ((const int64_t[]){__VA_ARGS__})
#define NI(...) (sizeof(I64(__VA_ARGS__)) / sizeof(int64_t))

static clg_tensor tensor(clg_dtype dtype, size_t rank, const int64_t *shape)
{
    clg_tensor t = {dtype, rank, shape, NULL};
    return t;
}
#define T(dtype, ...) tensor((dtype), NI(__VA_ARGS__), I64(__VA_ARGS__))

/* ------------------------------------------------------------ shape count */

static void test_shape_count_values(void **state)
{
    (void)state;
    int64_t n = -1;
    CLG_ASSERT_OK(NULL, clg_shape_count(NULL, 0, &n));
    assert_int_equal(n, 1);
    n = -1;
    CLG_ASSERT_OK(NULL, clg_shape_count(I64(7), 0, &n)); /* rank 0: 1 */
    assert_int_equal(n, 1);
    CLG_ASSERT_OK(NULL, clg_shape_count(I64(2, 3, 4), 3, &n));
    assert_int_equal(n, 24);
    CLG_ASSERT_OK(NULL, clg_shape_count(I64(0, 5), 2, &n));
    assert_int_equal(n, 0);
    CLG_ASSERT_OK(NULL, clg_shape_count(I64(5, 0), 2, &n));
    assert_int_equal(n, 0);
    CLG_ASSERT_OK(NULL, clg_shape_count(I64(0, INT64_MAX, INT64_MAX), 3, &n));
    assert_int_equal(n, 0);
    CLG_ASSERT_OK(NULL, clg_shape_count(I64(INT64_MAX, 1), 2, &n));
    assert_int_equal(n, INT64_MAX);
    /* More than 2^31 and 2^32 elements: 64-bit counts. */
    CLG_ASSERT_OK(NULL, clg_shape_count(I64(INT64_C(1) << 31, 2), 2, &n));
    assert_int_equal(n, INT64_C(1) << 32);
    CLG_ASSERT_OK(NULL,
                  clg_shape_count(I64(INT64_C(1) << 31, INT64_C(1) << 31), 2,
                                  &n));
    assert_int_equal(n, INT64_C(1) << 62);
    int64_t ones[CLG_MAX_RANK];
    for (size_t i = 0; i < CLG_MAX_RANK; i++) {
        ones[i] = i == 3 ? 9 : 1;
    }
    CLG_ASSERT_OK(NULL, clg_shape_count(ones, CLG_MAX_RANK, &n));
    assert_int_equal(n, 9);
}

static void test_shape_count_errors(void **state)
{
    (void)state;
    int64_t n = 0;
    CLG_ASSERT_STATUS(NULL, clg_shape_count(I64(2, 3), 2, NULL),
                      CLG_STATUS_NULL_POINTER);
    CLG_ASSERT_STATUS(NULL, clg_shape_count(NULL, 2, &n),
                      CLG_STATUS_NULL_POINTER);
    int64_t ones[CLG_MAX_RANK + 1];
    for (size_t i = 0; i < CLG_MAX_RANK + 1; i++) {
        ones[i] = 1;
    }
    CLG_ASSERT_STATUS(NULL, clg_shape_count(ones, CLG_MAX_RANK + 1, &n),
                      CLG_STATUS_INVALID_RANK);
    CLG_ASSERT_STATUS(NULL, clg_shape_count(I64(2, -1), 2, &n),
                      CLG_STATUS_INVALID_SHAPE);
    CLG_ASSERT_STATUS(NULL, clg_shape_count(I64(0, -1), 2, &n),
                      CLG_STATUS_INVALID_SHAPE);
    CLG_ASSERT_STATUS(NULL, clg_shape_count(I64(INT64_MIN), 1, &n),
                      CLG_STATUS_INVALID_SHAPE);
    CLG_ASSERT_STATUS(NULL, clg_shape_count(I64(INT64_C(1) << 62, 4), 2, &n),
                      CLG_STATUS_TENSOR_TOO_LARGE);
    CLG_ASSERT_STATUS(NULL, clg_shape_count(I64(INT64_MAX, 2), 2, &n),
                      CLG_STATUS_TENSOR_TOO_LARGE);
    CLG_ASSERT_STATUS(NULL,
                      clg_shape_count(I64(INT64_C(1) << 32, INT64_C(1) << 32),
                                      2, &n),
                      CLG_STATUS_TENSOR_TOO_LARGE);
}

/* ------------------------------------------------------------ Gather */

static void expect_gather_shape(clg_tensor data, clg_tensor indices,
                                int64_t axis, const int64_t *want,
                                size_t want_rank)
{
    int64_t shape[CLG_MAX_RANK];
    for (size_t i = 0; i < CLG_MAX_RANK; i++) {
        shape[i] = -77;
    }
    size_t rank = 12345;
    CLG_ASSERT_OK(NULL, clg_gather_output_shape(&data, &indices, axis, shape,
                                                CLG_MAX_RANK, &rank));
    CLG_ASSERT_SHAPE(shape, rank, want, want_rank);
    /* Nothing past the output rank is written. */
    for (size_t i = rank; i < CLG_MAX_RANK; i++) {
        assert_int_equal(shape[i], -77);
    }
}

static void test_gather_output_shape(void **state)
{
    (void)state;
    /* ONNX examples. */
    expect_gather_shape(T(CLG_DTYPE_FLOAT, 3, 2), T(CLG_DTYPE_INT64, 2, 2), 0,
                        I64(2, 2, 2), 3);
    expect_gather_shape(T(CLG_DTYPE_FLOAT, 3, 3), T(CLG_DTYPE_INT64, 1, 2), 1,
                        I64(3, 1, 2), 3);
    /* Rank q + r - 1 for q = 0, 1, 2. */
    clg_tensor scalar = {CLG_DTYPE_INT64, 0, NULL, NULL};
    expect_gather_shape(T(CLG_DTYPE_FLOAT, 3, 4), scalar, 0, I64(4), 1);
    expect_gather_shape(T(CLG_DTYPE_FLOAT, 3, 4), scalar, 1, I64(3), 1);
    expect_gather_shape(T(CLG_DTYPE_FLOAT, 3, 4), T(CLG_DTYPE_INT32, 1), 0,
                        I64(1, 4), 2);
    expect_gather_shape(T(CLG_DTYPE_FLOAT, 3, 4), T(CLG_DTYPE_INT32, 2, 1), 0,
                        I64(2, 1, 4), 3);
    expect_gather_shape(T(CLG_DTYPE_INT64, 8, 2, 8, 1), T(CLG_DTYPE_INT64, 1),
                        0, I64(1, 2, 8, 1), 4);
    expect_gather_shape(T(CLG_DTYPE_FLOAT, 1, 1, 3, 1, 1), scalar, 0,
                        I64(1, 3, 1, 1), 4);
    /* A rank-1 data tensor with a scalar index gives a scalar. */
    expect_gather_shape(T(CLG_DTYPE_FLOAT, 5), scalar, 0, NULL, 0);
    expect_gather_shape(T(CLG_DTYPE_FLOAT, 5), scalar, -1, NULL, 0);
    /* Negative axes count from the back. */
    expect_gather_shape(T(CLG_DTYPE_FLOAT, 2, 3, 4), T(CLG_DTYPE_INT64, 5, 6),
                        -1, I64(2, 3, 5, 6), 4);
    expect_gather_shape(T(CLG_DTYPE_FLOAT, 2, 3, 4), T(CLG_DTYPE_INT64, 5, 6),
                        -2, I64(2, 5, 6, 4), 4);
    expect_gather_shape(T(CLG_DTYPE_FLOAT, 2, 3, 4), T(CLG_DTYPE_INT64, 5, 6),
                        -3, I64(5, 6, 3, 4), 4);
    /* Zero-size dimensions are valid. */
    expect_gather_shape(T(CLG_DTYPE_FLOAT, 1, 4, 0), scalar, 0, I64(4, 0), 2);
    expect_gather_shape(T(CLG_DTYPE_FLOAT, 3), T(CLG_DTYPE_INT64, 0), 0,
                        I64(0), 1);
    expect_gather_shape(T(CLG_DTYPE_FLOAT, 0, 3), T(CLG_DTYPE_INT64, 0), 0,
                        I64(0, 3), 2);
    /* Every dtype, STRING included. */
    for (size_t i = 0; i < 16; i++) {
        expect_gather_shape(T(clg_test_all_dtypes[i], 2, 3),
                            T(CLG_DTYPE_INT32, 4), 1, I64(2, 4), 2);
    }
}

static void test_gather_output_shape_rank_limits(void **state)
{
    (void)state;
    int64_t data_shape[CLG_MAX_RANK], idx_shape[CLG_MAX_RANK];
    for (size_t i = 0; i < CLG_MAX_RANK; i++) {
        data_shape[i] = 1;
        idx_shape[i] = 1;
    }
    int64_t want[CLG_MAX_RANK];
    for (size_t i = 0; i < CLG_MAX_RANK; i++) {
        want[i] = 1;
    }
    /* q + r - 1 = 32 is the largest accepted output rank. */
    expect_gather_shape(tensor(CLG_DTYPE_FLOAT, 16, data_shape),
                        tensor(CLG_DTYPE_INT64, 17, idx_shape), 0, want,
                        CLG_MAX_RANK);
    expect_gather_shape(tensor(CLG_DTYPE_FLOAT, CLG_MAX_RANK, data_shape),
                        tensor(CLG_DTYPE_INT64, 1, idx_shape), -1, want,
                        CLG_MAX_RANK);
    int64_t shape[CLG_MAX_RANK];
    size_t rank = 0;
    clg_tensor d = tensor(CLG_DTYPE_FLOAT, 17, data_shape);
    clg_tensor q = tensor(CLG_DTYPE_INT64, 17, idx_shape);
    CLG_ASSERT_STATUS(NULL,
                      clg_gather_output_shape(&d, &q, 0, shape, CLG_MAX_RANK,
                                              &rank),
                      CLG_STATUS_INVALID_RANK);
    CLG_ASSERT_CONTAINS(clg_context_last_error(NULL), "33");
}

static void test_gather_output_shape_capacity(void **state)
{
    (void)state;
    clg_tensor d = T(CLG_DTYPE_FLOAT, 2, 3, 4);
    clg_tensor q = T(CLG_DTYPE_INT64, 5, 6);
    int64_t shape[4] = {-1, -1, -1, -1};
    size_t rank = 0;
    /* Exactly enough room. */
    CLG_ASSERT_OK(NULL, clg_gather_output_shape(&d, &q, 1, shape, 4, &rank));
    CLG_ASSERT_SHAPE(shape, rank, I64(2, 5, 6, 4), 4);
    /* One short. */
    int64_t small[3] = {-1, -1, -1};
    CLG_ASSERT_STATUS(NULL,
                      clg_gather_output_shape(&d, &q, 1, small, 3, &rank),
                      CLG_STATUS_INVALID_ARGUMENT);
    CLG_ASSERT_CONTAINS(clg_context_last_error(NULL), "4");
    /* NULL pointers. */
    CLG_ASSERT_STATUS(NULL, clg_gather_output_shape(&d, &q, 1, shape, 4, NULL),
                      CLG_STATUS_NULL_POINTER);
    CLG_ASSERT_STATUS(NULL, clg_gather_output_shape(&d, &q, 1, NULL, 4, &rank),
                      CLG_STATUS_NULL_POINTER);
    CLG_ASSERT_STATUS(NULL,
                      clg_gather_output_shape(NULL, &q, 1, shape, 4, &rank),
                      CLG_STATUS_NULL_POINTER);
    CLG_ASSERT_STATUS(NULL,
                      clg_gather_output_shape(&d, NULL, 1, shape, 4, &rank),
                      CLG_STATUS_NULL_POINTER);
}

static void test_gather_output_shape_too_large(void **state)
{
    (void)state;
    int64_t shape[CLG_MAX_RANK];
    size_t rank = 0;
    /* The output has 2^40 * 2^40 elements: more than int64 holds. */
    clg_tensor d = T(CLG_DTYPE_FLOAT, INT64_C(1) << 40, 4);
    clg_tensor q = T(CLG_DTYPE_INT64, INT64_C(1) << 40);
    CLG_ASSERT_STATUS(NULL,
                      clg_gather_output_shape(&d, &q, 1, shape, CLG_MAX_RANK,
                                              &rank),
                      CLG_STATUS_TENSOR_TOO_LARGE);
    /* The data tensor itself overflows. */
    clg_tensor big = T(CLG_DTYPE_FLOAT, INT64_C(1) << 62, 8);
    clg_tensor one = T(CLG_DTYPE_INT64, 1);
    CLG_ASSERT_STATUS(NULL,
                      clg_gather_output_shape(&big, &one, 0, shape,
                                              CLG_MAX_RANK, &rank),
                      CLG_STATUS_TENSOR_TOO_LARGE);
    /* Each count fits int64, the data's bytes would not: the message
     * names the tensor, its count and the limit. */
    clg_tensor wide = T(CLG_DTYPE_UINT8, INT64_C(1) << 29, INT64_C(1) << 29);
    clg_tensor four = T(CLG_DTYPE_INT64, 4);
    CLG_ASSERT_STATUS(NULL,
                      clg_gather_output_shape(&wide, &four, 1, shape,
                                              CLG_MAX_RANK, &rank),
                      CLG_STATUS_OK);
    clg_tensor wider = T(CLG_DTYPE_UINT8, INT64_C(1) << 31, INT64_C(1) << 30);
    CLG_ASSERT_STATUS(NULL,
                      clg_gather_output_shape(&wider, &four, 1, shape,
                                              CLG_MAX_RANK, &rank),
                      CLG_STATUS_TENSOR_TOO_LARGE);
    assert_string_equal(clg_context_last_error(NULL),
                        "data has 2305843009213693952 elements, more than "
                        "the 576460752303423487 a tensor may have "
                        "(INT64_MAX / 16 bytes, the largest element)");
}

/* ------------------------------------------------------------ GatherElements */

static void expect_ge_shape(clg_tensor data, clg_tensor indices, int64_t axis,
                            const int64_t *want, size_t want_rank)
{
    int64_t shape[CLG_MAX_RANK];
    size_t rank = 12345;
    CLG_ASSERT_OK(NULL, clg_gather_elements_output_shape(&data, &indices, axis,
                                                         shape, CLG_MAX_RANK,
                                                         &rank));
    CLG_ASSERT_SHAPE(shape, rank, want, want_rank);
}

static void test_gather_elements_output_shape(void **state)
{
    (void)state;
    expect_ge_shape(T(CLG_DTYPE_FLOAT, 2, 2), T(CLG_DTYPE_INT64, 2, 2), 1,
                    I64(2, 2), 2);
    expect_ge_shape(T(CLG_DTYPE_FLOAT, 3, 3), T(CLG_DTYPE_INT64, 2, 3), 0,
                    I64(2, 3), 2);
    expect_ge_shape(T(CLG_DTYPE_FLOAT, 3, 3), T(CLG_DTYPE_INT64, 2, 3), -2,
                    I64(2, 3), 2);
    /* Smaller non-axis dims; the axis dim is free (larger here). */
    expect_ge_shape(T(CLG_DTYPE_INT32, 2, 3), T(CLG_DTYPE_INT64, 1, 2), 1,
                    I64(1, 2), 2);
    expect_ge_shape(T(CLG_DTYPE_FLOAT, 2, 2), T(CLG_DTYPE_INT32, 2, 5), 1,
                    I64(2, 5), 2);
    expect_ge_shape(T(CLG_DTYPE_FLOAT, 2, 2), T(CLG_DTYPE_INT32, 9, 1), -2,
                    I64(9, 1), 2);
    expect_ge_shape(T(CLG_DTYPE_FLOAT, 4), T(CLG_DTYPE_INT32, 0), 0, I64(0),
                    1);
    expect_ge_shape(T(CLG_DTYPE_FLOAT, 4, 0), T(CLG_DTYPE_INT32, 7, 0), 0,
                    I64(7, 0), 2);
}

static void test_gather_elements_output_shape_errors(void **state)
{
    (void)state;
    int64_t shape[CLG_MAX_RANK];
    size_t rank = 0;
    clg_tensor d = T(CLG_DTYPE_FLOAT, 13, 17);
    clg_tensor q = T(CLG_DTYPE_INT64, 2, 19);
    CLG_ASSERT_STATUS(NULL,
                      clg_gather_elements_output_shape(&d, &q, 0, shape,
                                                       CLG_MAX_RANK, &rank),
                      CLG_STATUS_SHAPE_MISMATCH);
    CLG_ASSERT_CONTAINS(clg_context_last_error(NULL), "19");
    CLG_ASSERT_CONTAINS(clg_context_last_error(NULL), "17");
    /* The same indices are fine along axis 1. */
    CLG_ASSERT_OK(NULL, clg_gather_elements_output_shape(&d, &q, 1, shape,
                                                         CLG_MAX_RANK, &rank));
    CLG_ASSERT_SHAPE(shape, rank, I64(2, 19), 2);

    clg_tensor q3 = T(CLG_DTYPE_INT64, 2, 3, 1);
    CLG_ASSERT_STATUS(NULL,
                      clg_gather_elements_output_shape(&d, &q3, 0, shape,
                                                       CLG_MAX_RANK, &rank),
                      CLG_STATUS_RANK_MISMATCH);
    clg_tensor q0 = {CLG_DTYPE_INT64, 0, NULL, NULL};
    CLG_ASSERT_STATUS(NULL,
                      clg_gather_elements_output_shape(&d, &q0, 0, shape,
                                                       CLG_MAX_RANK, &rank),
                      CLG_STATUS_RANK_MISMATCH);
    clg_tensor q2 = T(CLG_DTYPE_INT64, 2, 3);
    CLG_ASSERT_STATUS(NULL,
                      clg_gather_elements_output_shape(&d, &q2, 0, shape, 1,
                                                       &rank),
                      CLG_STATUS_INVALID_ARGUMENT);
    CLG_ASSERT_STATUS(NULL,
                      clg_gather_elements_output_shape(&d, &q2, 2, shape,
                                                       CLG_MAX_RANK, &rank),
                      CLG_STATUS_INVALID_AXIS);
    CLG_ASSERT_STATUS(NULL,
                      clg_gather_elements_output_shape(&d, &q2, -3, shape,
                                                       CLG_MAX_RANK, &rank),
                      CLG_STATUS_INVALID_AXIS);
    clg_tensor qf = T(CLG_DTYPE_UINT32, 2, 3);
    CLG_ASSERT_STATUS(NULL,
                      clg_gather_elements_output_shape(&d, &qf, 0, shape,
                                                       CLG_MAX_RANK, &rank),
                      CLG_STATUS_UNSUPPORTED_DTYPE);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shape_count_values),
        cmocka_unit_test(test_shape_count_errors),
        cmocka_unit_test(test_gather_output_shape),
        cmocka_unit_test(test_gather_output_shape_rank_limits),
        cmocka_unit_test(test_gather_output_shape_capacity),
        cmocka_unit_test(test_gather_output_shape_too_large),
        cmocka_unit_test(test_gather_elements_output_shape),
        cmocka_unit_test(test_gather_elements_output_shape_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
