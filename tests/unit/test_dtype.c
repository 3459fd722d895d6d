/* SPDX-License-Identifier: Apache-2.0 */
/* Data types: ONNX numbering, element sizes and names. No device needed. */
#include "clg_test.h"

static const struct {
    clg_dtype dtype;
    int onnx_number; /* TensorProto.DataType */
    size_t size;
    const char *name;
} dtypes[] = {
    {CLG_DTYPE_FLOAT, 1, 4, "FLOAT"},
    {CLG_DTYPE_UINT8, 2, 1, "UINT8"},
    {CLG_DTYPE_INT8, 3, 1, "INT8"},
    {CLG_DTYPE_UINT16, 4, 2, "UINT16"},
    {CLG_DTYPE_INT16, 5, 2, "INT16"},
    {CLG_DTYPE_INT32, 6, 4, "INT32"},
    {CLG_DTYPE_INT64, 7, 8, "INT64"},
    {CLG_DTYPE_STRING, 8, sizeof(clg_string), "STRING"},
    {CLG_DTYPE_BOOL, 9, 1, "BOOL"},
    {CLG_DTYPE_FLOAT16, 10, 2, "FLOAT16"},
    {CLG_DTYPE_DOUBLE, 11, 8, "DOUBLE"},
    {CLG_DTYPE_UINT32, 12, 4, "UINT32"},
    {CLG_DTYPE_UINT64, 13, 8, "UINT64"},
    {CLG_DTYPE_COMPLEX64, 14, 8, "COMPLEX64"},
    {CLG_DTYPE_COMPLEX128, 15, 16, "COMPLEX128"},
    {CLG_DTYPE_BFLOAT16, 16, 2, "BFLOAT16"},
};

static void test_dtype_numbers_follow_onnx(void **state)
{
    (void)state;
    assert_int_equal(CLG_DTYPE_UNDEFINED, 0);
    for (size_t i = 0; i < CLG_TEST_ARRAY_LEN(dtypes); i++) {
        assert_int_equal((int)dtypes[i].dtype, dtypes[i].onnx_number);
    }
}

static void test_dtype_size_and_name(void **state)
{
    (void)state;
    assert_int_equal(CLG_TEST_ARRAY_LEN(dtypes), 16);
    for (size_t i = 0; i < CLG_TEST_ARRAY_LEN(dtypes); i++) {
        clg_test_set_case("dtype %s", dtypes[i].name);
        assert_int_equal(clg_dtype_size(dtypes[i].dtype), dtypes[i].size);
        const char *name = clg_dtype_name(dtypes[i].dtype);
        assert_non_null(name);
        assert_string_equal(name, dtypes[i].name);
        /* The test helpers' own table agrees. */
        assert_int_equal(clg_test_dtype_size(dtypes[i].dtype), dtypes[i].size);
    }
}

static void test_string_descriptor_is_16_bytes_on_64_bit(void **state)
{
    (void)state;
    if (sizeof(void *) == 8) {
        assert_int_equal(sizeof(clg_string), 16);
        assert_int_equal(clg_dtype_size(CLG_DTYPE_STRING), 16);
    } else {
        assert_int_equal(clg_dtype_size(CLG_DTYPE_STRING), sizeof(clg_string));
    }
}

static void test_dtype_invalid_values(void **state)
{
    (void)state;
    const int invalid[] = {0, 17, 18, 99, 255, 1000, -1, -16};
    for (size_t i = 0; i < CLG_TEST_ARRAY_LEN(invalid); i++) {
        clg_dtype dt = (clg_dtype)invalid[i];
        assert_int_equal(clg_dtype_size(dt), 0);
        const char *name = clg_dtype_name(dt);
        assert_non_null(name);
        assert_string_equal(name, "UNDEFINED");
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dtype_numbers_follow_onnx),
        cmocka_unit_test(test_dtype_size_and_name),
        cmocka_unit_test(test_string_descriptor_is_16_bytes_on_64_bit),
        cmocka_unit_test(test_dtype_invalid_values),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
