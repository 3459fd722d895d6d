/* SPDX-License-Identifier: Apache-2.0 */
/* GatherND's CPU reference (clg_reference_gather_nd) with a NULL context:
 * the ONNX page's examples (batch_dims 0 and 1), negative components,
 * every out-of-range mode, empty tensors, STRING data, output shapes and
 * every refusal with its message. No device needed. */
#include "clg_test.h"

#include <string.h>

#define I64(...) ((const int64_t[]){__VA_ARGS__})
#define NOF(a) (sizeof(a) / sizeof((a)[0]))

/* Runs GatherND on int32 data with int64 indices, then again with the same
 * indices as int32, under `mode`; checks the output shape and values. */
static void check_nd(const int32_t *data, size_t dr, const int64_t *dshape,
                     const int64_t *idx, size_t ir, const int64_t *ishape,
                     int64_t b, clg_oob_mode mode, const int32_t *want,
                     size_t or, const int64_t *oshape)
{
    int64_t dn = 1, in = 1, on = 1;
    for (size_t d = 0; d < dr; d++)
        dn *= dshape[d];
    for (size_t d = 0; d < ir; d++)
        in *= ishape[d];
    for (size_t d = 0; d < or ; d++)
        on *= oshape[d];
    (void)dn;
    int32_t idx32[64], out[64];
    assert_true(in <= 64 && on <= 64);
    for (int64_t i = 0; i < in; i++)
        idx32[i] = (int32_t)idx[i];
    clg_tensor d = {CLG_DTYPE_INT32, dr, dshape, (void *)data};
    clg_tensor t = {CLG_DTYPE_INT32, or, oshape, NULL};
    int64_t shape[CLG_MAX_RANK];
    size_t rank = 99;
    for (int w = 0; w < 2; w++) {
        clg_tensor q = {w ? CLG_DTYPE_INT32 : CLG_DTYPE_INT64, ir, ishape,
                        w ? (void *)idx32 : (void *)idx};
        CLG_ASSERT_OK(NULL, clg_gather_nd_output_shape(&d, &q, b, shape,
                                                       CLG_MAX_RANK, &rank));
        CLG_ASSERT_SHAPE(shape, rank, oshape, or);
        memset(out, 0xA5, sizeof out);
        clg_tensor o = {CLG_DTYPE_INT32, or, oshape, out};
        clg_call_options opt = {mode};
        CLG_ASSERT_OK(NULL,
                      clg_reference_gather_nd_ex(NULL, &d, &q, b, &o, &opt));
        CLG_ASSERT_BYTES(out, want, (size_t)on * 4, 4, "GatherND output");
    }
    (void)t;
}

/* The ONNX page's examples 1 to 5 (the first three are also the node
 * tests test_gathernd_example_int32, _float32 and _int32_batch_dim1). */
static void test_nd_onnx_examples(void **state)
{
    (void)state;
    const int32_t d2[] = {0, 1, 2, 3};
    const int32_t d3[] = {0, 1, 2, 3, 4, 5, 6, 7};
    /* 1: batch_dims 0, indices [[0,0],[1,1]] -> [0,3] */
    check_nd(d2, 2, I64(2, 2), I64(0, 0, 1, 1), 2, I64(2, 2), 0, CLG_OOB_RAISE,
             (const int32_t[]){0, 3}, 1, I64(2));
    /* 2: indices [[1],[0]] -> [[2,3],[0,1]] */
    check_nd(d2, 2, I64(2, 2), I64(1, 0), 2, I64(2, 1), 0, CLG_OOB_RAISE,
             (const int32_t[]){2, 3, 0, 1}, 2, I64(2, 2));
    /* 3: indices [[0,1],[1,0]] -> [[2,3],[4,5]] */
    check_nd(d3, 3, I64(2, 2, 2), I64(0, 1, 1, 0), 2, I64(2, 2), 0,
             CLG_OOB_RAISE, (const int32_t[]){2, 3, 4, 5}, 2, I64(2, 2));
    /* 4: indices [[[0,1]],[[1,0]]] -> [[[2,3]],[[4,5]]] */
    check_nd(d3, 3, I64(2, 2, 2), I64(0, 1, 1, 0), 3, I64(2, 1, 2), 0,
             CLG_OOB_RAISE, (const int32_t[]){2, 3, 4, 5}, 3, I64(2, 1, 2));
    /* 5: batch_dims 1, indices [[1],[0]] -> [[2,3],[4,5]] */
    check_nd(d3, 3, I64(2, 2, 2), I64(1, 0), 2, I64(2, 1), 1, CLG_OOB_RAISE,
             (const int32_t[]){2, 3, 4, 5}, 2, I64(2, 2));
    /* batch_dims 2, k = r - b = 1: scalar slices, one per batch pair:
     * out[i][j] = data[i][j][idx[i][j][0]]. */
    check_nd(d3, 3, I64(2, 2, 2), I64(1, 0, 0, 1), 3, I64(2, 2, 1), 2,
             CLG_OOB_RAISE, (const int32_t[]){1, 2, 4, 7}, 2, I64(2, 2));
}

/* A negative component counts from the end of its own dim. */
static void test_nd_negative_components(void **state)
{
    (void)state;
    const int32_t d[] = {10, 11, 12, 13, 14, 15}; /* [2, 3] */
    /* (-1, -3) -> [1][0]; (-2, -1) -> [0][2]; (1, -2) -> [1][1] */
    check_nd(d, 2, I64(2, 3), I64(-1, -3, -2, -1, 1, -2), 2, I64(3, 2), 0,
             CLG_OOB_RAISE, (const int32_t[]){13, 12, 14}, 1, I64(3));
    /* slices: (-1) -> row 1, (-2) -> row 0 */
    check_nd(d, 2, I64(2, 3), I64(-1, -2), 2, I64(2, 1), 0, CLG_OOB_RAISE,
             (const int32_t[]){13, 14, 15, 10, 11, 12}, 2, I64(2, 3));
}

/* Each mode per component; fill zeroes the whole slice of a tuple with
 * any component out of range. */
static void test_nd_modes(void **state)
{
    (void)state;
    const int32_t d[] = {10, 11, 12, 13, 14, 15}; /* [2, 3] */
    const int64_t *idx = I64(2, 5, -3, -4, 0, 1, 1, 7);
    /* wrap: (0, 2) (1, 2) (0, 1) (1, 1) */
    check_nd(d, 2, I64(2, 3), idx, 2, I64(4, 2), 0, CLG_OOB_WRAP,
             (const int32_t[]){12, 15, 11, 14}, 1, I64(4));
    /* clip: (1, 2) (0, 0) (0, 1) (1, 2) */
    check_nd(d, 2, I64(2, 3), idx, 2, I64(4, 2), 0, CLG_OOB_CLIP,
             (const int32_t[]){15, 10, 11, 15}, 1, I64(4));
    /* fill: only (0, 1) is in range */
    check_nd(d, 2, I64(2, 3), idx, 2, I64(4, 2), 0, CLG_OOB_FILL,
             (const int32_t[]){0, 0, 11, 0}, 1, I64(4));
    /* fill of slices: [2, 2, 3] data, k = 2; (1, 2) has its second
     * component out of range: its whole row of 3 is zero. */
    const int32_t d3[] = {10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21};
    check_nd(d3, 3, I64(2, 2, 3), I64(1, 2, 0, 1), 2, I64(2, 2), 0,
             CLG_OOB_FILL, (const int32_t[]){0, 0, 0, 13, 14, 15}, 2,
             I64(2, 3));
    check_nd(d3, 3, I64(2, 2, 3), I64(1, 2, 0, 1), 2, I64(2, 2), 0,
             CLG_OOB_WRAP, (const int32_t[]){16, 17, 18, 13, 14, 15}, 2,
             I64(2, 3));
    /* batch_dims 1 with wrap: out[i] = data[i][wrap(idx[i])] */
    check_nd(d3, 3, I64(2, 2, 3), I64(3, -3), 2, I64(2, 1), 1, CLG_OOB_WRAP,
             (const int32_t[]){13, 14, 15, 19, 20, 21}, 2, I64(2, 3));
}

/* Raise names the tuple's position, the component, its value, its dim
 * and range, and leaves the output as it was. */
static void test_nd_raise_messages(void **state)
{
    (void)state;
    int32_t data[12] = {0};
    int64_t idx[6] = {0, 0, 0, 1, 0, 5};
    int32_t out[2] = {42, 43};
    clg_tensor d = {CLG_DTYPE_INT32, 3, I64(2, 2, 3), data};
    clg_tensor q = {CLG_DTYPE_INT64, 3, I64(2, 1, 3), idx};
    clg_tensor o = {CLG_DTYPE_INT32, 2, I64(2, 1), out};
    CLG_ASSERT_STATUS(NULL, clg_reference_gather_nd(NULL, &d, &q, 0, &o),
                      CLG_STATUS_INDEX_OUT_OF_RANGE);
    assert_string_equal(clg_context_last_error(NULL),
                        "indices[1][0][2] = 5 is out of range [-3, 2] for "
                        "data dim 2 of size 3");
    assert_int_equal(out[0], 42);
    assert_int_equal(out[1], 43);
    /* batch_dims 1: component 0 addresses data dim 1. */
    int64_t idx2[2] = {-3, 0};
    clg_tensor q2 = {CLG_DTYPE_INT64, 2, I64(2, 1), idx2};
    clg_tensor o2 = {CLG_DTYPE_INT32, 2, I64(2, 3), out};
    int32_t out6[6];
    o2.data = out6;
    CLG_ASSERT_STATUS(NULL, clg_reference_gather_nd(NULL, &d, &q2, 1, &o2),
                      CLG_STATUS_INDEX_OUT_OF_RANGE);
    assert_string_equal(clg_context_last_error(NULL),
                        "indices[0][0] = -3 is out of range [-2, 1] for "
                        "data dim 1 of size 2");
}

/* Every refusal of the shape and attribute rules, with its message. */
static void test_nd_refusals(void **state)
{
    (void)state;
    int64_t shape[CLG_MAX_RANK];
    size_t rank = 0;
    clg_tensor d = {CLG_DTYPE_FLOAT, 3, I64(2, 3, 4), NULL};
    clg_tensor q0 = {CLG_DTYPE_INT64, 0, NULL, NULL};
    CLG_ASSERT_STATUS(NULL,
                      clg_gather_nd_output_shape(&d, &q0, 0, shape,
                                                 CLG_MAX_RANK, &rank),
                      CLG_STATUS_INVALID_RANK);
    assert_string_equal(clg_context_last_error(NULL),
                        "indices has rank 0; GatherND needs indices of rank "
                        ">= 1 (the last dim holds the index tuples)");
    clg_tensor q = {CLG_DTYPE_INT64, 2, I64(2, 1), NULL};
    CLG_ASSERT_STATUS(NULL,
                      clg_gather_nd_output_shape(&d, &q, 2, shape,
                                                 CLG_MAX_RANK, &rank),
                      CLG_STATUS_INVALID_ARGUMENT);
    assert_string_equal(clg_context_last_error(NULL),
                        "batch_dims = 2 is out of range [0, 1] for data of "
                        "rank 3 and indices of rank 2 (GatherND needs 0 <= "
                        "batch_dims < min(q, r))");
    CLG_ASSERT_STATUS(NULL,
                      clg_gather_nd_output_shape(&d, &q, -1, shape,
                                                 CLG_MAX_RANK, &rank),
                      CLG_STATUS_INVALID_ARGUMENT);
    clg_tensor qb = {CLG_DTYPE_INT64, 3, I64(2, 2, 1), NULL};
    CLG_ASSERT_STATUS(NULL,
                      clg_gather_nd_output_shape(&d, &qb, 2, shape,
                                                 CLG_MAX_RANK, &rank),
                      CLG_STATUS_SHAPE_MISMATCH);
    assert_string_equal(clg_context_last_error(NULL),
                        "data.shape[1] = 3 differs from indices.shape[1] = "
                        "2: GatherND needs the first batch_dims = 2 dims of "
                        "data [2, 3, 4] and indices [2, 2, 1] equal (no "
                        "broadcast)");
    /* A batch dim of 1 is not broadcast either. */
    clg_tensor q1 = {CLG_DTYPE_INT64, 2, I64(1, 1), NULL};
    CLG_ASSERT_STATUS(NULL,
                      clg_gather_nd_output_shape(&d, &q1, 1, shape,
                                                 CLG_MAX_RANK, &rank),
                      CLG_STATUS_SHAPE_MISMATCH);
    clg_tensor qk = {CLG_DTYPE_INT64, 2, I64(2, 3), NULL};
    CLG_ASSERT_STATUS(NULL,
                      clg_gather_nd_output_shape(&d, &qk, 1, shape,
                                                 CLG_MAX_RANK, &rank),
                      CLG_STATUS_SHAPE_MISMATCH);
    assert_string_equal(clg_context_last_error(NULL),
                        "indices.shape[1] = 3 is out of range [1, 2]: "
                        "GatherND's tuples of indices [2, 3] address at most "
                        "the 2 dims of data [2, 3, 4] after batch_dims = 1");
    clg_tensor qz = {CLG_DTYPE_INT64, 2, I64(2, 0), NULL};
    CLG_ASSERT_STATUS(NULL,
                      clg_gather_nd_output_shape(&d, &qz, 0, shape,
                                                 CLG_MAX_RANK, &rank),
                      CLG_STATUS_SHAPE_MISMATCH);
    /* Shapes: [5, 7, 2] with b = 0 -> [5, 7, 4]; b = 1, k = 2 on
     * [2, 3, 4] with indices [2, 6, 2] -> [2, 6]. */
    clg_tensor qs = {CLG_DTYPE_INT32, 3, I64(5, 7, 2), NULL};
    CLG_ASSERT_OK(NULL, clg_gather_nd_output_shape(&d, &qs, 0, shape,
                                                   CLG_MAX_RANK, &rank));
    CLG_ASSERT_SHAPE(shape, rank, I64(5, 7, 4), 3);
    clg_tensor qt = {CLG_DTYPE_INT32, 3, I64(2, 6, 2), NULL};
    CLG_ASSERT_OK(NULL, clg_gather_nd_output_shape(&d, &qt, 1, shape,
                                                   CLG_MAX_RANK, &rank));
    CLG_ASSERT_SHAPE(shape, rank, I64(2, 6), 2);
    /* The generic call reads batch_dims only with the full size. */
    clg_call c = {.size = sizeof c, .op = CLG_OP_GATHER_ND, .batch_dims = 1};
    CLG_ASSERT_OK(NULL,
                  clg_output_shape(&c, &d, &qt, shape, CLG_MAX_RANK, &rank));
    CLG_ASSERT_SHAPE(shape, rank, I64(2, 6), 2);
    c.size = (uint32_t)CLG_CALL_SIZE_1;
    CLG_ASSERT_OK(NULL,
                  clg_output_shape(&c, &d, &qs, shape, CLG_MAX_RANK, &rank));
    CLG_ASSERT_SHAPE(shape, rank, I64(5, 7, 4), 3);
    c = (clg_call){.size = sizeof c, .op = CLG_OP_GATHER_ND};
    CLG_ASSERT_OK(NULL, clg_call_set_attribute(&c, 2));
    assert_int_equal(c.batch_dims, 2);
    assert_int_equal(c.axis, 0);
}

/* Empty tensors: no element written; a tuple dim of size 0 with a
 * non-empty output is out of range under every mode. */
static void test_nd_empty(void **state)
{
    (void)state;
    const float data[] = {1, 2, 3, 4, 5, 6};
    clg_tensor d = {CLG_DTYPE_FLOAT, 2, I64(2, 3), (void *)data};
    clg_tensor q = {CLG_DTYPE_INT64, 2, I64(0, 2), NULL};
    clg_tensor o = {CLG_DTYPE_FLOAT, 1, I64(0), NULL};
    CLG_ASSERT_OK(NULL, clg_reference_gather_nd(NULL, &d, &q, 0, &o));
    /* An empty slice: data [2, 0] */
    const int64_t one[] = {1};
    clg_tensor de = {CLG_DTYPE_FLOAT, 2, I64(2, 0), NULL};
    clg_tensor q1 = {CLG_DTYPE_INT64, 2, I64(1, 1), (void *)one};
    clg_tensor oe = {CLG_DTYPE_FLOAT, 2, I64(1, 0), NULL};
    CLG_ASSERT_OK(NULL, clg_reference_gather_nd(NULL, &de, &q1, 0, &oe));
    /* Under raise the values are still checked. */
    const int64_t two[] = {2};
    clg_tensor q2 = {CLG_DTYPE_INT64, 2, I64(1, 1), (void *)two};
    CLG_ASSERT_STATUS(NULL, clg_reference_gather_nd(NULL, &de, &q2, 0, &oe),
                      CLG_STATUS_INDEX_OUT_OF_RANGE);
    assert_string_equal(clg_context_last_error(NULL),
                        "indices[0][0] = 2 is out of range [-2, 1] for data "
                        "dim 0 of size 2");
    /* A tuple dim of size 0: data [3, 0, 2], indices [1, 2] */
    float out[2] = {7, 7};
    const int64_t zz[] = {0, 0};
    clg_tensor d0 = {CLG_DTYPE_FLOAT, 3, I64(3, 0, 2), NULL};
    clg_tensor qz = {CLG_DTYPE_INT64, 2, I64(1, 2), (void *)zz};
    clg_tensor oz = {CLG_DTYPE_FLOAT, 2, I64(1, 2), out};
    CLG_ASSERT_STATUS(NULL, clg_reference_gather_nd(NULL, &d0, &qz, 0, &oz),
                      CLG_STATUS_INDEX_OUT_OF_RANGE);
    assert_string_equal(clg_context_last_error(NULL),
                        "indices[0][1] = 0 is out of range: data dim 1 has "
                        "size 0, so no index is valid");
    clg_call_options wrap = {CLG_OOB_WRAP};
    CLG_ASSERT_STATUS(NULL,
                      clg_reference_gather_nd_ex(NULL, &d0, &qz, 0, &oz,
                                                 &wrap),
                      CLG_STATUS_INDEX_OUT_OF_RANGE);
    assert_string_equal(clg_context_last_error(NULL),
                        "data dim 1 has size 0, so no index tuple is valid: "
                        "GatherND cannot resolve 2 index values under mode "
                        "wrap");
    assert_true(out[0] == 7 && out[1] == 7);
}

/* STRING descriptors and every element width move whole. */
static void test_nd_dtypes(void **state)
{
    (void)state;
    static const char pool[] = "ab\0cd";
    const clg_string s[4] = {{pool, 1},
                             {pool + 1, 2},
                             {pool + 3, 2},
                             {NULL, 0}};
    const int64_t idx[] = {1, 0, 0, 1};
    clg_string out[2];
    clg_tensor d = {CLG_DTYPE_STRING, 2, I64(2, 2), (void *)s};
    clg_tensor q = {CLG_DTYPE_INT64, 2, I64(2, 2), (void *)idx};
    clg_tensor o = {CLG_DTYPE_STRING, 1, I64(2), out};
    CLG_ASSERT_OK(NULL, clg_reference_gather_nd(NULL, &d, &q, 0, &o));
    assert_ptr_equal(out[0].data, s[2].data);
    assert_int_equal(out[0].length, 2);
    assert_ptr_equal(out[1].data, s[1].data);
    clg_call_options fill = {CLG_OOB_FILL};
    const int64_t bad[] = {2, 0, 0, 1};
    clg_tensor qb = {CLG_DTYPE_INT64, 2, I64(2, 2), (void *)bad};
    CLG_ASSERT_OK(NULL,
                  clg_reference_gather_nd_ex(NULL, &d, &qb, 0, &o, &fill));
    assert_null(out[0].data);
    assert_int_equal(out[0].length, 0);
    /* Every ONNX dtype: element e of [2, 2] data holds bytes e. */
    for (int t = 1; t <= 16; t++) {
        size_t es = clg_dtype_size((clg_dtype)t);
        unsigned char data[4 * 16], got[2 * 16], want[2 * 16];
        for (size_t e = 0; e < 4; e++)
            memset(data + e * es, (int)(0x40 + e), es);
        clg_tensor dt = {(clg_dtype)t, 2, I64(2, 2), data};
        clg_tensor ot = {(clg_dtype)t, 1, I64(2), got};
        CLG_ASSERT_OK(NULL, clg_reference_gather_nd(NULL, &dt, &q, 0, &ot));
        memcpy(want, data + 2 * es, es);
        memcpy(want + es, data + 1 * es, es);
        CLG_ASSERT_BYTES(got, want, 2 * es, es, clg_dtype_name((clg_dtype)t));
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_nd_onnx_examples),
        cmocka_unit_test(test_nd_negative_components),
        cmocka_unit_test(test_nd_modes),
        cmocka_unit_test(test_nd_raise_messages),
        cmocka_unit_test(test_nd_refusals),
        cmocka_unit_test(test_nd_empty),
        cmocka_unit_test(test_nd_dtypes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
