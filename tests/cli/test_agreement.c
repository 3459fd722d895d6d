/* SPDX-License-Identifier: Apache-2.0 */
/*
 * clg_io_agreement (io/compare.h): the verdict of a `clgather compare`
 * row, "agree" or the first difference with its position and both
 * values, for the dtypes whose bits `==` would miss (-0.0, NaN payloads,
 * strings at other addresses), a dtype or shape that differs, and a
 * buffer too small. No device needed: the rows a real device cannot be
 * made to print (it agrees) are checked here, on the text itself.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "compare.h"

static clg_tensor tensor(clg_dtype dtype, size_t rank, const int64_t *shape,
                         const void *data)
{
    clg_tensor t;
    t.dtype = dtype;
    t.rank = rank;
    t.shape = shape;
    t.data = (void *)(uintptr_t)data;
    return t;
}

/* clg_io_agreement(device, reference) must return `same`, write `text`
 * and set the position to `at`. */
static void expect_verdict(const clg_tensor *device,
                           const clg_tensor *reference, int same,
                           const char *text, int64_t at)
{
    char buf[512];
    int64_t position = 12345;
    memset(buf, 'x', sizeof buf);
    assert_int_equal(clg_io_agreement(buf, sizeof buf, device, "device",
                                      reference, "reference", &position),
                     same);
    assert_string_equal(buf, text);
    assert_int_equal(position, at);
}

static void test_float_agree_and_differ(void **state)
{
    static const int64_t shape[2] = {2, 3};
    static const float ref[6] = {1.0f, 1.9f, 2.3f, 3.9f, 4.5f, 5.9f};
    static const float dev[6] = {1.0f, 1.9f, 2.3f, 3.9f, 1.0f, 5.9f};
    clg_tensor r = tensor(CLG_DTYPE_FLOAT, 2, shape, ref);
    clg_tensor d = tensor(CLG_DTYPE_FLOAT, 2, shape, dev);
    (void)state;

    expect_verdict(&r, &r, 1, "agree", -1);
    expect_verdict(&d, &r, 0,
                   "DIFFER at out[1][1]: device=1 (0x3f800000) "
                   "reference=4.5 (0x40900000)",
                   4);
}

/* Bit for bit: -0.0 is not 0.0, NaNs with other payloads differ, the
 * same NaN agrees. */
static void test_bits_not_values(void **state)
{
    static const int64_t shape[1] = {2};
    static const uint32_t ref[2] = {0x00000000u, 0x7fc00001u};
    static const uint32_t neg_zero[2] = {0x80000000u, 0x7fc00001u};
    static const uint32_t other_nan[2] = {0x00000000u, 0x7fc00002u};
    clg_tensor r = tensor(CLG_DTYPE_FLOAT, 1, shape, ref);
    clg_tensor z = tensor(CLG_DTYPE_FLOAT, 1, shape, neg_zero);
    clg_tensor n = tensor(CLG_DTYPE_FLOAT, 1, shape, other_nan);
    (void)state;

    expect_verdict(&r, &r, 1, "agree", -1);
    expect_verdict(&z, &r, 0,
                   "DIFFER at out[0]: device=-0 (0x80000000) "
                   "reference=0 (0x00000000)",
                   0);
    expect_verdict(&n, &r, 0,
                   "DIFFER at out[1]: device=nan (0x7fc00002) "
                   "reference=nan (0x7fc00001)",
                   1);
}

static void test_integers_and_rank0(void **state)
{
    static const int64_t shape[3] = {2, 1, 2};
    static const int64_t ref[4] = {7, -8, 9, 10};
    static const int64_t dev[4] = {7, -8, 9, -10};
    static const uint8_t one = 1, two = 2;
    clg_tensor r = tensor(CLG_DTYPE_INT64, 3, shape, ref);
    clg_tensor d = tensor(CLG_DTYPE_INT64, 3, shape, dev);
    clg_tensor s1 = tensor(CLG_DTYPE_UINT8, 0, NULL, &one);
    clg_tensor s2 = tensor(CLG_DTYPE_UINT8, 0, NULL, &two);
    (void)state;

    expect_verdict(&d, &r, 0,
                   "DIFFER at out[1][0][1]: device=-10 "
                   "reference=10",
                   3);
    expect_verdict(&s2, &s1, 0, "DIFFER at out[]: device=2 reference=1", 0);
}

/* Strings compare by length and bytes, not by descriptor address. */
static void test_strings(void **state)
{
    static const int64_t shape[1] = {2};
    static const char bytes_a[] = "abxy", bytes_b[] = "abxz";
    const clg_string ref[2] = {{bytes_a, 2}, {bytes_a + 2, 2}};
    const clg_string copy[2] = {{bytes_b, 2}, {bytes_b + 2, 1}};
    const clg_string dev[2] = {{bytes_b, 2}, {bytes_b + 2, 2}};
    const clg_string same[2] = {{bytes_b, 2}, {bytes_a + 2, 2}};
    clg_tensor r = tensor(CLG_DTYPE_STRING, 1, shape, ref);
    clg_tensor c = tensor(CLG_DTYPE_STRING, 1, shape, copy);
    clg_tensor d = tensor(CLG_DTYPE_STRING, 1, shape, dev);
    clg_tensor s = tensor(CLG_DTYPE_STRING, 1, shape, same);
    (void)state;

    expect_verdict(&s, &r, 1, "agree", -1);
    expect_verdict(&c, &r, 0,
                   "DIFFER at out[1]: device=\"x\" reference=\"xy\"", 1);
    expect_verdict(&d, &r, 0,
                   "DIFFER at out[1]: device=\"xz\" reference=\"xy\"", 1);
}

static void test_dtype_and_shape(void **state)
{
    static const int64_t s23[2] = {2, 3}, s32[2] = {3, 2}, s6[1] = {6};
    static const int32_t v[6] = {1, 2, 3, 4, 5, 6};
    clg_tensor r = tensor(CLG_DTYPE_INT32, 2, s23, v);
    clg_tensor f = tensor(CLG_DTYPE_FLOAT, 2, s23, v);
    clg_tensor t = tensor(CLG_DTYPE_INT32, 2, s32, v);
    clg_tensor flat = tensor(CLG_DTYPE_INT32, 1, s6, v);
    (void)state;

    expect_verdict(&f, &r, 0, "DIFFER in dtype: device=FLOAT reference=INT32",
                   -1);
    expect_verdict(&t, &r, 0,
                   "DIFFER in shape: device=[3, 2] reference=[2, 3]", -1);
    expect_verdict(&flat, &r, 0,
                   "DIFFER in shape: device=[6] reference=[2, 3]", -1);
}

/* Empty outputs agree whatever their data pointers; other names are
 * used as given (the reference against an expected output). */
static void test_empty_and_names(void **state)
{
    static const int64_t empty[2] = {0, 3}, one[1] = {1};
    static const double e = 2.5, r = 0.5;
    clg_tensor a = tensor(CLG_DTYPE_DOUBLE, 2, empty, NULL);
    clg_tensor b = tensor(CLG_DTYPE_DOUBLE, 2, empty, &r);
    clg_tensor rv = tensor(CLG_DTYPE_DOUBLE, 1, one, &r);
    clg_tensor ev = tensor(CLG_DTYPE_DOUBLE, 1, one, &e);
    char buf[256];
    (void)state;

    expect_verdict(&a, &b, 1, "agree", -1);
    assert_int_equal(clg_io_agreement(buf, sizeof buf, &rv, "reference", &ev,
                                      "expected", NULL),
                     0);
    assert_string_equal(buf, "DIFFER at out[0]: reference=0.5 "
                             "(0x3fe0000000000000) expected=2.5 "
                             "(0x4004000000000000)");
}

/* A small buffer is cut and terminated; no buffer at all still gives
 * the verdict. */
static void test_small_buffer(void **state)
{
    static const int64_t shape[1] = {1};
    static const int32_t a = 1, b = 2;
    clg_tensor x = tensor(CLG_DTYPE_INT32, 1, shape, &a);
    clg_tensor y = tensor(CLG_DTYPE_INT32, 1, shape, &b);
    char buf[8];
    int64_t at = 7;
    (void)state;

    assert_int_equal(clg_io_agreement(buf, sizeof buf, &x, "device", &y,
                                      "reference", NULL),
                     0);
    assert_string_equal(buf, "DIFFER ");
    assert_int_equal(clg_io_agreement(NULL, 0, &x, "device", &y, "reference",
                                      &at),
                     0);
    assert_int_equal(at, 0);
    assert_int_equal(clg_io_agreement(NULL, 0, &x, "device", &x, "reference",
                                      &at),
                     1);
    assert_int_equal(at, -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_float_agree_and_differ),
        cmocka_unit_test(test_bits_not_values),
        cmocka_unit_test(test_integers_and_rank0),
        cmocka_unit_test(test_strings),
        cmocka_unit_test(test_dtype_and_shape),
        cmocka_unit_test(test_empty_and_names),
        cmocka_unit_test(test_small_buffer),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
