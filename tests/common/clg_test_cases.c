/* SPDX-License-Identifier: Apache-2.0 */
/* Literal cases and error cases shared by unit and device tests; see
 * clg_test_cases.h. Every expected output below is written by hand from
 * the ONNX formulas, never computed by the code under test. */
#include "clg_test_cases.h"

#include <inttypes.h>
#include <stdlib.h>

#define I64(...) ((const int64_t[]){__VA_ARGS__})
#define NI(...) (sizeof(I64(__VA_ARGS__)) / sizeof(int64_t))
#define F32(...) ((const float[]){__VA_ARGS__})
#define U32(...) ((const uint32_t[]){__VA_ARGS__})
#define DSHAPE(...) .rank = NI(__VA_ARGS__), .shape = I64(__VA_ARGS__)
#define ISHAPE(...) .idx_rank = NI(__VA_ARGS__), .idx_shape = I64(__VA_ARGS__)
#define OSHAPE(...) .out_rank = NI(__VA_ARGS__), .out_shape = I64(__VA_ARGS__)
#define IDX(...) .idx = I64(__VA_ARGS__)

/* INT64 values of the rank-4 case: wide, distinct, some negative. */
#define W(x) ((int64_t)(x)*INT64_C(0x0100000001) - 5)
#define R16(b)                                                                \
    W(b + 0), W(b + 1), W(b + 2), W(b + 3), W(b + 4), W(b + 5), W(b + 6),     \
        W(b + 7), W(b + 8), W(b + 9), W(b + 10), W(b + 11), W(b + 12),        \
        W(b + 13), W(b + 14), W(b + 15)

/* STRING elements with NUL bytes inside; outputs point at the same bytes. */
static const char string_pool[] = "ab\0c"
                                  "\0\0"
                                  "xyz\0"
                                  "q";
#define STR(off, len)                                                         \
    {                                                                         \
        string_pool + (off), (len)                                            \
    }

/* The tables keep one case per row, aligned by hand. */
/* clang-format off */
const clg_test_case clg_test_cases[] = {
    /* ---- ONNX Gather page, example 1 */
    {.name = "gather_onnx_example_1", .op = CLG_OP_GATHER,
     .dtype = CLG_DTYPE_FLOAT, DSHAPE(3, 2),
     .data = F32(1.0f, 1.2f, 2.3f, 3.4f, 4.5f, 5.7f), ISHAPE(2, 2),
     IDX(0, 1, 1, 2), .axis = 0, OSHAPE(2, 2, 2),
     .out = F32(1.0f, 1.2f, 2.3f, 3.4f, 2.3f, 3.4f, 4.5f, 5.7f)},
    /* ---- ONNX Gather page, example 2 */
    {.name = "gather_onnx_example_2", .op = CLG_OP_GATHER,
     .dtype = CLG_DTYPE_FLOAT, DSHAPE(3, 3),
     .data = F32(1.0f, 1.2f, 1.9f, 2.3f, 3.4f, 3.9f, 4.5f, 5.7f, 5.9f),
     ISHAPE(1, 2), IDX(0, 2), .axis = 1, OSHAPE(3, 1, 2),
     .out = F32(1.0f, 1.9f, 2.3f, 3.9f, 4.5f, 5.9f)},
    /* ---- ONNX GatherElements page, example 1 (axis 1) */
    {.name = "gather_elements_onnx_example_1",
     .op = CLG_OP_GATHER_ELEMENTS, .dtype = CLG_DTYPE_FLOAT, DSHAPE(2, 2),
     .data = F32(1, 2, 3, 4), ISHAPE(2, 2), IDX(0, 0, 1, 0), .axis = 1,
     OSHAPE(2, 2), .out = F32(1, 1, 4, 3)},
    /* ---- ONNX GatherElements page, example 2 (axis 0) */
    {.name = "gather_elements_onnx_example_2",
     .op = CLG_OP_GATHER_ELEMENTS, .dtype = CLG_DTYPE_FLOAT, DSHAPE(3, 3),
     .data = F32(1, 2, 3, 4, 5, 6, 7, 8, 9), ISHAPE(2, 3),
     IDX(1, 2, 0, 2, 0, 0), .axis = 0, OSHAPE(2, 3),
     .out = F32(4, 8, 3, 7, 2, 3)},
    /* ---- ONNX test_cc_gather_elements_negative_indices */
    {.name = "gather_elements_onnx_negative_indices",
     .op = CLG_OP_GATHER_ELEMENTS, .dtype = CLG_DTYPE_FLOAT, DSHAPE(3, 3),
     .data = F32(1, 2, 3, 4, 5, 6, 7, 8, 9), ISHAPE(2, 3),
     IDX(-1, -2, 0, -2, 0, 0), .axis = 0, OSHAPE(2, 3),
     .out = F32(7, 5, 3, 4, 2, 3)},
    /* ---- cases that broke other engines */
    {.name = "gather_elements_negative_axis_minus_2",
     .op = CLG_OP_GATHER_ELEMENTS, .dtype = CLG_DTYPE_FLOAT, DSHAPE(3, 3),
     .data = F32(1, 2, 3, 4, 5, 6, 7, 8, 9), ISHAPE(2, 3),
     IDX(-1, -2, 0, -2, 0, 0), .axis = -2, OSHAPE(2, 3),
     .out = F32(7, 5, 3, 4, 2, 3)},
    {.name = "gather_negative_indices", .op = CLG_OP_GATHER,
     .dtype = CLG_DTYPE_FLOAT, DSHAPE(5), .data = F32(1, 2, 3, 4, 5),
     ISHAPE(3), IDX(-1, -3, 0), .axis = 0, OSHAPE(3), .out = F32(5, 3, 1)},
    {.name = "gather_negative_indices_down_to_minus_s", .op = CLG_OP_GATHER,
     .dtype = CLG_DTYPE_FLOAT, DSHAPE(10),
     .data = F32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9), ISHAPE(3), IDX(0, -9, -10),
     .axis = 0, OSHAPE(3), .out = F32(0, 1, 0)},
    {.name = "gather_elements_all_minus_one_axis_1",
     .op = CLG_OP_GATHER_ELEMENTS, .dtype = CLG_DTYPE_FLOAT, DSHAPE(3, 4),
     .data = F32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11), ISHAPE(3, 4),
     IDX(-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1), .axis = 1,
     OSHAPE(3, 4), .out = F32(3, 3, 3, 3, 7, 7, 7, 7, 11, 11, 11, 11)},
    {.name = "gather_scalar_index_drops_axis", .op = CLG_OP_GATHER,
     .dtype = CLG_DTYPE_FLOAT, DSHAPE(3, 4),
     .data = F32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11), .idx_rank = 0,
     IDX(1), .axis = 0, OSHAPE(4), .out = F32(4, 5, 6, 7)},
    {.name = "gather_rank1_index_keeps_axis", .op = CLG_OP_GATHER,
     .dtype = CLG_DTYPE_FLOAT, DSHAPE(3, 4),
     .data = F32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11), ISHAPE(1), IDX(1),
     .axis = 0, OSHAPE(1, 4), .out = F32(4, 5, 6, 7)},
    {.name = "gather_rank2_index", .op = CLG_OP_GATHER,
     .dtype = CLG_DTYPE_FLOAT, DSHAPE(3, 4),
     .data = F32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11), ISHAPE(2, 1),
     IDX(2, 0), .axis = 0, OSHAPE(2, 1, 4),
     .out = F32(8, 9, 10, 11, 0, 1, 2, 3)},
    {.name = "gather_int64_rank4_index_minus_1_is_rank4",
     .op = CLG_OP_GATHER, .dtype = CLG_DTYPE_INT64, DSHAPE(8, 2, 8, 1),
     .data = I64(R16(0), R16(16), R16(32), R16(48), R16(64), R16(80),
                 R16(96), R16(112)),
     ISHAPE(1), IDX(-1), .axis = 0, OSHAPE(1, 2, 8, 1), .out = I64(R16(112))},
    {.name = "gather_rank5_scalar_index", .op = CLG_OP_GATHER,
     .dtype = CLG_DTYPE_FLOAT, DSHAPE(1, 1, 3, 1, 1), .data = F32(1, 2, 3),
     .idx_rank = 0, IDX(0), .axis = 0, OSHAPE(1, 3, 1, 1),
     .out = F32(1, 2, 3)},
    {.name = "gather_elements_smaller_indices", .op = CLG_OP_GATHER_ELEMENTS,
     .dtype = CLG_DTYPE_INT32, DSHAPE(2, 3),
     .data = ((const int32_t[]){10, 11, 12, 13, 14, 15}), ISHAPE(1, 2),
     IDX(2, 0), .axis = 1, OSHAPE(1, 2),
     .out = ((const int32_t[]){12, 10})},
    {.name = "gather_empty_data_dim", .op = CLG_OP_GATHER,
     .dtype = CLG_DTYPE_FLOAT, DSHAPE(1, 4, 0), .data = NULL, .idx_rank = 0,
     IDX(0), .axis = 0, OSHAPE(4, 0), .out = NULL},
    {.name = "gather_empty_indices", .op = CLG_OP_GATHER,
     .dtype = CLG_DTYPE_FLOAT, DSHAPE(3), .data = F32(1, 2, 3), ISHAPE(0),
     .idx = NULL, .axis = 0, OSHAPE(0), .out = NULL},
    /* ---- more shapes */
    {.name = "gather_negative_axis_last", .op = CLG_OP_GATHER,
     .dtype = CLG_DTYPE_FLOAT, DSHAPE(2, 3), .data = F32(0, 1, 2, 3, 4, 5),
     ISHAPE(2), IDX(2, -3), .axis = -1, OSHAPE(2, 2), .out = F32(2, 0, 5, 3)},
    {.name = "gather_elements_axis_dim_larger_than_data",
     .op = CLG_OP_GATHER_ELEMENTS, .dtype = CLG_DTYPE_FLOAT, DSHAPE(2, 2),
     .data = F32(1, 2, 3, 4), ISHAPE(2, 5),
     IDX(0, 1, 1, 0, -1, 1, 0, 0, 1, -2), .axis = 1, OSHAPE(2, 5),
     .out = F32(1, 2, 2, 1, 2, 4, 3, 3, 4, 3)},
    {.name = "gather_elements_3d_axis_1", .op = CLG_OP_GATHER_ELEMENTS,
     .dtype = CLG_DTYPE_INT16, DSHAPE(2, 3, 2),
     .data = ((const int16_t[]){0, 1, 10, 11, 20, 21, 100, 101, 110, 111, 120,
                                121}),
     ISHAPE(2, 2, 2), IDX(2, 0, -1, 1, 0, 2, 1, -3), .axis = 1,
     OSHAPE(2, 2, 2), .out = ((const int16_t[]){20, 1, 20, 11, 100, 121, 110,
                                                101})},
    {.name = "gather_uint8_axis_1", .op = CLG_OP_GATHER,
     .dtype = CLG_DTYPE_UINT8, DSHAPE(2, 5),
     .data = ((const uint8_t[]){1, 2, 3, 4, 5, 251, 252, 253, 254, 255}),
     ISHAPE(3), IDX(4, 0, -2), .axis = 1, OSHAPE(2, 3),
     .out = ((const uint8_t[]){5, 1, 4, 255, 251, 254})},
    {.name = "gather_string_with_nul_bytes", .op = CLG_OP_GATHER,
     .dtype = CLG_DTYPE_STRING, DSHAPE(5),
     .data = ((const clg_string[]){STR(0, 4), STR(4, 2), STR(6, 4),
                                   STR(10, 0), STR(10, 1)}),
     ISHAPE(5), IDX(4, -5, 2, 1, -2), .axis = 0, OSHAPE(5),
     .out = ((const clg_string[]){STR(10, 1), STR(0, 4), STR(6, 4), STR(4, 2),
                                  STR(10, 0)})},
    {.name = "gather_elements_string_2d", .op = CLG_OP_GATHER_ELEMENTS,
     .dtype = CLG_DTYPE_STRING, DSHAPE(2, 2),
     .data = ((const clg_string[]){STR(0, 4), STR(4, 2), STR(6, 4),
                                   STR(10, 1)}),
     ISHAPE(2, 2), IDX(1, 0, 0, -1), .axis = 0, OSHAPE(2, 2),
     .out = ((const clg_string[]){STR(6, 4), STR(4, 2), STR(0, 4),
                                  STR(10, 1)})},
    /* ---- bit patterns that must survive: NaN payloads (quiet and
     * signalling), -0.0, subnormals, infinities */
    {.name = "gather_float_special_bits", .op = CLG_OP_GATHER,
     .dtype = CLG_DTYPE_FLOAT, DSHAPE(6),
     .data = U32(0x7fc01234u, 0xffa00001u, 0x80000000u, 0x00000001u,
                 0x807fffffu, 0xff800000u),
     ISHAPE(7), IDX(1, 0, 4, 3, 2, -1, -6), .axis = 0, OSHAPE(7),
     .out = U32(0xffa00001u, 0x7fc01234u, 0x807fffffu, 0x00000001u,
                0x80000000u, 0xff800000u, 0x7fc01234u)},
    {.name = "gather_elements_double_special_bits",
     .op = CLG_OP_GATHER_ELEMENTS, .dtype = CLG_DTYPE_DOUBLE, DSHAPE(4),
     .data = ((const uint64_t[]){UINT64_C(0x8000000000000000),
                                 UINT64_C(0x7ff8000000001234),
                                 UINT64_C(0x0000000000000001),
                                 UINT64_C(0xfff0000000000001)}),
     ISHAPE(5), IDX(3, 2, 1, 0, -3), .axis = 0, OSHAPE(5),
     .out = ((const uint64_t[]){UINT64_C(0xfff0000000000001),
                                UINT64_C(0x0000000000000001),
                                UINT64_C(0x7ff8000000001234),
                                UINT64_C(0x8000000000000000),
                                UINT64_C(0x7ff8000000001234)})},
    {.name = "gather_float16_special_bits", .op = CLG_OP_GATHER,
     .dtype = CLG_DTYPE_FLOAT16, DSHAPE(5),
     .data = ((const uint16_t[]){0x7e01, 0xfc01, 0x8000, 0x0001, 0x03ff}),
     ISHAPE(5), IDX(4, 3, 2, 1, 0), .axis = 0, OSHAPE(5),
     .out = ((const uint16_t[]){0x03ff, 0x0001, 0x8000, 0xfc01, 0x7e01})},
};
/* clang-format on */
const size_t clg_test_case_count = CLG_TEST_ARRAY_LEN(clg_test_cases);

/* ------------------------------------------------------------ error cases */

#define OUT(dt, ...)                                                          \
    .out_dtype = (dt), .out_rank = NI(__VA_ARGS__),                           \
    .out_shape = I64(__VA_ARGS__)
#define MSG(...) .msg = {__VA_ARGS__, NULL}
#define ONES17 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1
#define ONES33 ONES17, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1

/* An out-of-range value at position [1] of [0, X, 1] over data [5]. */
#define EXTREME(op_, label, value, text)                                      \
    {                                                                         \
        .name = label, .op = (op_), .dtype = CLG_DTYPE_FLOAT, DSHAPE(5),      \
        .idx_dtype = CLG_DTYPE_INT64, ISHAPE(3), IDX(0, value, 1), .axis = 0, \
        OUT(CLG_DTYPE_FLOAT, 3), .status = CLG_STATUS_INDEX_OUT_OF_RANGE,     \
        MSG("indices[1] = " text, "[-5, 4]")                                  \
    }

/* The same call damaged in one way. */
#define NULLCASE(op_, label, mut, what)                                       \
    {                                                                         \
        .name = label, .op = (op_), .dtype = CLG_DTYPE_FLOAT, DSHAPE(12),     \
        .idx_dtype = CLG_DTYPE_INT64, ISHAPE(12),                             \
        IDX(0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2), .axis = 0,                   \
        OUT(CLG_DTYPE_FLOAT, 12), .mutation = (mut),                          \
        .status = CLG_STATUS_NULL_POINTER,                                    \
        .shape_level = (mut) <= CLG_MUT_INDICES_SHAPE_NULL &&                 \
                       (mut) != CLG_MUT_OUTPUT_NULL,                          \
        MSG(what)                                                             \
    }

/* clang-format off */
const clg_test_error_case clg_test_error_cases[] = {
    /* ---- index values outside [-s, s-1] */
    {.name = "gather_index_12_of_size_12", .op = CLG_OP_GATHER,
     .dtype = CLG_DTYPE_FLOAT, DSHAPE(12), .idx_dtype = CLG_DTYPE_INT64,
     ISHAPE(6), IDX(0, 3, 6, 9, 12, 1), .axis = 0, OUT(CLG_DTYPE_FLOAT, 6),
     .status = CLG_STATUS_INDEX_OUT_OF_RANGE,
     MSG("indices[4] = 12", "[-12, 11]")},
    {.name = "gather_index_minus_13_of_size_12", .op = CLG_OP_GATHER,
     .dtype = CLG_DTYPE_FLOAT, DSHAPE(12), .idx_dtype = CLG_DTYPE_INT64,
     ISHAPE(2), IDX(0, -13), .axis = 0, OUT(CLG_DTYPE_FLOAT, 2),
     .status = CLG_STATUS_INDEX_OUT_OF_RANGE,
     MSG("indices[1] = -13", "[-12, 11]")},
    {.name = "gather_elements_index_4_of_size_4",
     .op = CLG_OP_GATHER_ELEMENTS, .dtype = CLG_DTYPE_FLOAT, DSHAPE(4),
     .idx_dtype = CLG_DTYPE_INT64, ISHAPE(4), IDX(0, 1, 2, 4), .axis = 0,
     OUT(CLG_DTYPE_FLOAT, 4), .status = CLG_STATUS_INDEX_OUT_OF_RANGE,
     MSG("indices[3] = 4", "[-4, 3]")},
    {.name = "gather_elements_design_message", .op = CLG_OP_GATHER_ELEMENTS,
     .dtype = CLG_DTYPE_FLOAT, DSHAPE(2, 3), .idx_dtype = CLG_DTYPE_INT64,
     ISHAPE(2, 3), IDX(0, 1, 2, 2, 1, 5), .axis = 1,
     OUT(CLG_DTYPE_FLOAT, 2, 3), .status = CLG_STATUS_INDEX_OUT_OF_RANGE,
     MSG("indices[1][2] = 5 is out of range [-3, 2] for axis 1 of size 3")},
    {.name = "gather_2d_indices_first_bad_reported", .op = CLG_OP_GATHER,
     .dtype = CLG_DTYPE_FLOAT, DSHAPE(3, 4), .idx_dtype = CLG_DTYPE_INT64,
     ISHAPE(2, 2), IDX(0, 1, 4, -5), .axis = 1, OUT(CLG_DTYPE_FLOAT, 3, 2, 2),
     .status = CLG_STATUS_INDEX_OUT_OF_RANGE,
     MSG("indices[1][0] = 4", "[-4, 3]")},
    {.name = "gather_scalar_index_out_of_range", .op = CLG_OP_GATHER,
     .dtype = CLG_DTYPE_FLOAT, DSHAPE(3, 4), .idx_dtype = CLG_DTYPE_INT64,
     .idx_rank = 0, IDX(3), .axis = 0, OUT(CLG_DTYPE_FLOAT, 4),
     .status = CLG_STATUS_INDEX_OUT_OF_RANGE, MSG("= 3", "[-3, 2]")},
    {.name = "gather_axis_of_size_0_nonempty_output", .op = CLG_OP_GATHER,
     .dtype = CLG_DTYPE_FLOAT, DSHAPE(0, 3), .idx_dtype = CLG_DTYPE_INT64,
     ISHAPE(1), IDX(0), .axis = 0, OUT(CLG_DTYPE_FLOAT, 1, 3),
     .status = CLG_STATUS_INDEX_OUT_OF_RANGE, MSG("indices[0] = 0")},
    /* Index values are checked even when the output is empty. */
    {.name = "gather_bad_index_empty_output", .op = CLG_OP_GATHER,
     .dtype = CLG_DTYPE_FLOAT, DSHAPE(3, 0), .idx_dtype = CLG_DTYPE_INT64,
     ISHAPE(2), IDX(1, 7), .axis = 0, OUT(CLG_DTYPE_FLOAT, 2, 0),
     .status = CLG_STATUS_INDEX_OUT_OF_RANGE,
     MSG("indices[1] = 7", "[-3, 2]")},
    EXTREME(CLG_OP_GATHER, "gather_index_int64_min", INT64_MIN,
            "-9223372036854775808"),
    EXTREME(CLG_OP_GATHER, "gather_index_int64_max", INT64_MAX,
            "9223372036854775807"),
    EXTREME(CLG_OP_GATHER, "gather_index_int32_min", INT32_MIN,
            "-2147483648"),
    EXTREME(CLG_OP_GATHER, "gather_index_int32_max", INT32_MAX,
            "2147483647"),
    EXTREME(CLG_OP_GATHER, "gather_index_2_pow_31", INT64_C(2147483648),
            "2147483648"),
    EXTREME(CLG_OP_GATHER, "gather_index_minus_2_pow_31_minus_1",
            INT64_C(-2147483649), "-2147483649"),
    EXTREME(CLG_OP_GATHER, "gather_index_2_pow_32_plus_1",
            INT64_C(4294967297), "4294967297"),
    EXTREME(CLG_OP_GATHER_ELEMENTS, "gather_elements_index_int64_min",
            INT64_MIN, "-9223372036854775808"),
    EXTREME(CLG_OP_GATHER_ELEMENTS, "gather_elements_index_int64_max",
            INT64_MAX, "9223372036854775807"),
    EXTREME(CLG_OP_GATHER_ELEMENTS, "gather_elements_index_int32_min",
            INT32_MIN, "-2147483648"),
    EXTREME(CLG_OP_GATHER_ELEMENTS, "gather_elements_index_int32_max",
            INT32_MAX, "2147483647"),
    EXTREME(CLG_OP_GATHER_ELEMENTS, "gather_elements_index_2_pow_31",
            INT64_C(2147483648), "2147483648"),
    EXTREME(CLG_OP_GATHER_ELEMENTS,
            "gather_elements_index_minus_2_pow_31_minus_1",
            INT64_C(-2147483649), "-2147483649"),
    EXTREME(CLG_OP_GATHER_ELEMENTS, "gather_elements_index_2_pow_32_plus_1",
            INT64_C(4294967297), "4294967297"),
    /* ---- axis outside [-r, r-1] */
    {.name = "gather_axis_2_of_rank_2", .op = CLG_OP_GATHER,
     .dtype = CLG_DTYPE_FLOAT, DSHAPE(2, 3), .idx_dtype = CLG_DTYPE_INT64,
     ISHAPE(1), IDX(0), .axis = 2, OUT(CLG_DTYPE_FLOAT, 2, 1),
     .status = CLG_STATUS_INVALID_AXIS, .shape_level = 1,
     MSG("axis", "2", "[-2, 1]")},
    {.name = "gather_axis_minus_3_of_rank_2", .op = CLG_OP_GATHER,
     .dtype = CLG_DTYPE_FLOAT, DSHAPE(2, 3), .idx_dtype = CLG_DTYPE_INT64,
     ISHAPE(1), IDX(0), .axis = -3, OUT(CLG_DTYPE_FLOAT, 1, 3),
     .status = CLG_STATUS_INVALID_AXIS, .shape_level = 1,
     MSG("axis", "-3", "[-2, 1]")},
    {.name = "gather_axis_int64_max", .op = CLG_OP_GATHER,
     .dtype = CLG_DTYPE_FLOAT, DSHAPE(2, 3), .idx_dtype = CLG_DTYPE_INT64,
     ISHAPE(1), IDX(0), .axis = INT64_MAX, OUT(CLG_DTYPE_FLOAT, 1, 3),
     .status = CLG_STATUS_INVALID_AXIS, .shape_level = 1,
     MSG("axis", "9223372036854775807")},
    {.name = "gather_axis_int64_min", .op = CLG_OP_GATHER,
     .dtype = CLG_DTYPE_FLOAT, DSHAPE(2, 3), .idx_dtype = CLG_DTYPE_INT64,
     ISHAPE(1), IDX(0), .axis = INT64_MIN, OUT(CLG_DTYPE_FLOAT, 1, 3),
     .status = CLG_STATUS_INVALID_AXIS, .shape_level = 1,
     MSG("axis", "-9223372036854775808")},
    {.name = "gather_elements_axis_2_of_rank_2",
     .op = CLG_OP_GATHER_ELEMENTS, .dtype = CLG_DTYPE_FLOAT, DSHAPE(2, 3),
     .idx_dtype = CLG_DTYPE_INT64, ISHAPE(1, 1), IDX(0), .axis = 2,
     OUT(CLG_DTYPE_FLOAT, 1, 1), .status = CLG_STATUS_INVALID_AXIS,
     .shape_level = 1, MSG("axis", "2", "[-2, 1]")},
    {.name = "gather_elements_axis_minus_3_of_rank_2",
     .op = CLG_OP_GATHER_ELEMENTS, .dtype = CLG_DTYPE_FLOAT, DSHAPE(2, 3),
     .idx_dtype = CLG_DTYPE_INT64, ISHAPE(1, 1), IDX(0), .axis = -3,
     OUT(CLG_DTYPE_FLOAT, 1, 1), .status = CLG_STATUS_INVALID_AXIS,
     .shape_level = 1, MSG("axis", "-3", "[-2, 1]")},
    {.name = "gather_elements_axis_int64_min", .op = CLG_OP_GATHER_ELEMENTS,
     .dtype = CLG_DTYPE_FLOAT, DSHAPE(2, 3), .idx_dtype = CLG_DTYPE_INT64,
     ISHAPE(1, 1), IDX(0), .axis = INT64_MIN, OUT(CLG_DTYPE_FLOAT, 1, 1),
     .status = CLG_STATUS_INVALID_AXIS, .shape_level = 1,
     MSG("axis", "-9223372036854775808")},
    /* ---- ranks */
    {.name = "gather_data_rank_0", .op = CLG_OP_GATHER,
     .dtype = CLG_DTYPE_FLOAT, .rank = 0, .shape = NULL,
     .idx_dtype = CLG_DTYPE_INT64, ISHAPE(1), IDX(0), .axis = 0,
     OUT(CLG_DTYPE_FLOAT, 1), .status = CLG_STATUS_INVALID_RANK,
     .shape_level = 1, MSG("data")},
    {.name = "gather_elements_data_rank_0", .op = CLG_OP_GATHER_ELEMENTS,
     .dtype = CLG_DTYPE_FLOAT, .rank = 0, .shape = NULL,
     .idx_dtype = CLG_DTYPE_INT64, .idx_rank = 0, IDX(0), .axis = 0,
     .out_dtype = CLG_DTYPE_FLOAT, .out_rank = 0,
     .status = CLG_STATUS_INVALID_RANK, .shape_level = 1, MSG("data")},
    {.name = "gather_data_rank_33", .op = CLG_OP_GATHER,
     .dtype = CLG_DTYPE_FLOAT, DSHAPE(ONES33), .idx_dtype = CLG_DTYPE_INT64,
     ISHAPE(1), IDX(0), .axis = 0, OUT(CLG_DTYPE_FLOAT, 1),
     .status = CLG_STATUS_INVALID_RANK, .shape_level = 1, MSG("33")},
    {.name = "gather_indices_rank_33", .op = CLG_OP_GATHER,
     .dtype = CLG_DTYPE_FLOAT, DSHAPE(2), .idx_dtype = CLG_DTYPE_INT64,
     ISHAPE(ONES33), IDX(0), .axis = 0, OUT(CLG_DTYPE_FLOAT, 1),
     .status = CLG_STATUS_INVALID_RANK, .shape_level = 1, MSG("33")},
    {.name = "gather_output_rank_33", .op = CLG_OP_GATHER,
     .dtype = CLG_DTYPE_FLOAT, DSHAPE(ONES17), .idx_dtype = CLG_DTYPE_INT64,
     ISHAPE(ONES17), IDX(0), .axis = 0, OUT(CLG_DTYPE_FLOAT, 1),
     .status = CLG_STATUS_INVALID_RANK, .shape_level = 1, MSG("33")},
    {.name = "gather_elements_rank_mismatch", .op = CLG_OP_GATHER_ELEMENTS,
     .dtype = CLG_DTYPE_FLOAT, DSHAPE(2, 2, 2, 2),
     .idx_dtype = CLG_DTYPE_INT64, ISHAPE(1, 1, 1, 1, 1, 1, 1), IDX(0),
     .axis = 0, OUT(CLG_DTYPE_FLOAT, 1, 1, 1, 1, 1, 1, 1),
     .status = CLG_STATUS_RANK_MISMATCH, .shape_level = 1, MSG("4", "7")},
    /* ---- shapes */
    {.name = "gather_elements_nonaxis_dim_larger_axis_0",
     .op = CLG_OP_GATHER_ELEMENTS, .dtype = CLG_DTYPE_FLOAT,
     DSHAPE(13, 17), .idx_dtype = CLG_DTYPE_INT64, ISHAPE(2, 19), .idx = NULL,
     .axis = 0, OUT(CLG_DTYPE_FLOAT, 2, 19),
     .status = CLG_STATUS_SHAPE_MISMATCH, .shape_level = 1,
     MSG("19", "17")},
    {.name = "gather_elements_nonaxis_dim_larger_axis_1",
     .op = CLG_OP_GATHER_ELEMENTS, .dtype = CLG_DTYPE_FLOAT,
     DSHAPE(13, 17), .idx_dtype = CLG_DTYPE_INT64, ISHAPE(14, 3), .idx = NULL,
     .axis = 1, OUT(CLG_DTYPE_FLOAT, 14, 3),
     .status = CLG_STATUS_SHAPE_MISMATCH, .shape_level = 1,
     MSG("14", "13")},
    {.name = "gather_negative_data_dim", .op = CLG_OP_GATHER,
     .dtype = CLG_DTYPE_FLOAT, DSHAPE(3, -5), .idx_dtype = CLG_DTYPE_INT64,
     ISHAPE(1), IDX(0), .axis = 0, OUT(CLG_DTYPE_FLOAT, 1, 5),
     .status = CLG_STATUS_INVALID_SHAPE, .shape_level = 1, MSG("-5")},
    {.name = "gather_negative_indices_dim", .op = CLG_OP_GATHER,
     .dtype = CLG_DTYPE_FLOAT, DSHAPE(3), .idx_dtype = CLG_DTYPE_INT64,
     ISHAPE(-7), .idx = NULL, .axis = 0, OUT(CLG_DTYPE_FLOAT, 7),
     .status = CLG_STATUS_INVALID_SHAPE, .shape_level = 1, MSG("-7")},
    {.name = "gather_elements_negative_data_dim",
     .op = CLG_OP_GATHER_ELEMENTS, .dtype = CLG_DTYPE_FLOAT, DSHAPE(-5, 3),
     .idx_dtype = CLG_DTYPE_INT64, ISHAPE(1, 1), IDX(0), .axis = 1,
     OUT(CLG_DTYPE_FLOAT, 1, 1), .status = CLG_STATUS_INVALID_SHAPE,
     .shape_level = 1, MSG("-5")},
    /* ---- dtypes */
    {.name = "gather_data_dtype_undefined", .op = CLG_OP_GATHER,
     .dtype = CLG_DTYPE_UNDEFINED, DSHAPE(3), .idx_dtype = CLG_DTYPE_INT64,
     ISHAPE(1), IDX(0), .axis = 0, OUT(CLG_DTYPE_UNDEFINED, 1),
     .status = CLG_STATUS_UNSUPPORTED_DTYPE, .shape_level = 1,
     MSG("data", "UNDEFINED|0")},
    {.name = "gather_data_dtype_99", .op = CLG_OP_GATHER,
     .dtype = (clg_dtype)99, DSHAPE(3), .idx_dtype = CLG_DTYPE_INT64,
     ISHAPE(1), IDX(0), .axis = 0, OUT((clg_dtype)99, 1),
     .status = CLG_STATUS_UNSUPPORTED_DTYPE, .shape_level = 1,
     MSG("data", "99")},
    {.name = "gather_data_dtype_17", .op = CLG_OP_GATHER,
     .dtype = (clg_dtype)17, DSHAPE(3), .idx_dtype = CLG_DTYPE_INT64,
     ISHAPE(1), IDX(0), .axis = 0, OUT((clg_dtype)17, 1),
     .status = CLG_STATUS_UNSUPPORTED_DTYPE, .shape_level = 1,
     MSG("data", "17")},
    {.name = "gather_indices_float", .op = CLG_OP_GATHER,
     .dtype = CLG_DTYPE_FLOAT, DSHAPE(3), .idx_dtype = CLG_DTYPE_FLOAT,
     ISHAPE(1), IDX(0), .axis = 0, OUT(CLG_DTYPE_FLOAT, 1),
     .status = CLG_STATUS_UNSUPPORTED_DTYPE, .shape_level = 1,
     MSG("indices", "FLOAT|1")},
    {.name = "gather_indices_int16", .op = CLG_OP_GATHER,
     .dtype = CLG_DTYPE_FLOAT, DSHAPE(3), .idx_dtype = CLG_DTYPE_INT16,
     ISHAPE(1), IDX(0), .axis = 0, OUT(CLG_DTYPE_FLOAT, 1),
     .status = CLG_STATUS_UNSUPPORTED_DTYPE, .shape_level = 1,
     MSG("indices", "INT16|5")},
    {.name = "gather_indices_uint64", .op = CLG_OP_GATHER,
     .dtype = CLG_DTYPE_FLOAT, DSHAPE(3), .idx_dtype = CLG_DTYPE_UINT64,
     ISHAPE(1), IDX(0), .axis = 0, OUT(CLG_DTYPE_FLOAT, 1),
     .status = CLG_STATUS_UNSUPPORTED_DTYPE, .shape_level = 1,
     MSG("indices", "UINT64|13")},
    {.name = "gather_elements_data_dtype_99", .op = CLG_OP_GATHER_ELEMENTS,
     .dtype = (clg_dtype)99, DSHAPE(3), .idx_dtype = CLG_DTYPE_INT64,
     ISHAPE(1), IDX(0), .axis = 0, OUT((clg_dtype)99, 1),
     .status = CLG_STATUS_UNSUPPORTED_DTYPE, .shape_level = 1,
     MSG("data", "99")},
    {.name = "gather_elements_indices_float", .op = CLG_OP_GATHER_ELEMENTS,
     .dtype = CLG_DTYPE_FLOAT, DSHAPE(3), .idx_dtype = CLG_DTYPE_FLOAT,
     ISHAPE(1), IDX(0), .axis = 0, OUT(CLG_DTYPE_FLOAT, 1),
     .status = CLG_STATUS_UNSUPPORTED_DTYPE, .shape_level = 1,
     MSG("indices", "FLOAT|1")},
    /* ---- output descriptor differs from the expected one */
    {.name = "gather_output_wrong_shape", .op = CLG_OP_GATHER,
     .dtype = CLG_DTYPE_FLOAT, DSHAPE(3, 4), .idx_dtype = CLG_DTYPE_INT64,
     ISHAPE(2), IDX(0, 1), .axis = 0, OUT(CLG_DTYPE_FLOAT, 4, 2),
     .status = CLG_STATUS_SHAPE_MISMATCH, MSG("output")},
    {.name = "gather_output_wrong_rank", .op = CLG_OP_GATHER,
     .dtype = CLG_DTYPE_FLOAT, DSHAPE(3, 4), .idx_dtype = CLG_DTYPE_INT64,
     ISHAPE(2), IDX(0, 1), .axis = 0, OUT(CLG_DTYPE_FLOAT, 2, 4, 1),
     .status = CLG_STATUS_SHAPE_MISMATCH, MSG("output")},
    {.name = "gather_output_rank_for_scalar_index", .op = CLG_OP_GATHER,
     .dtype = CLG_DTYPE_FLOAT, DSHAPE(3, 4), .idx_dtype = CLG_DTYPE_INT64,
     .idx_rank = 0, IDX(1), .axis = 0, OUT(CLG_DTYPE_FLOAT, 1, 4),
     .status = CLG_STATUS_SHAPE_MISMATCH, MSG("output")},
    {.name = "gather_output_wrong_dtype", .op = CLG_OP_GATHER,
     .dtype = CLG_DTYPE_FLOAT, DSHAPE(3, 4), .idx_dtype = CLG_DTYPE_INT64,
     ISHAPE(2), IDX(0, 1), .axis = 0, OUT(CLG_DTYPE_INT32, 2, 4),
     .status = CLG_STATUS_UNSUPPORTED_DTYPE, MSG("output")},
    {.name = "gather_elements_output_wrong_shape",
     .op = CLG_OP_GATHER_ELEMENTS, .dtype = CLG_DTYPE_FLOAT, DSHAPE(2, 3),
     .idx_dtype = CLG_DTYPE_INT64, ISHAPE(2, 2), IDX(0, 1, 1, 0), .axis = 0,
     OUT(CLG_DTYPE_FLOAT, 2, 3), .status = CLG_STATUS_SHAPE_MISMATCH,
     MSG("output")},
    {.name = "gather_elements_output_wrong_dtype",
     .op = CLG_OP_GATHER_ELEMENTS, .dtype = CLG_DTYPE_FLOAT, DSHAPE(2, 3),
     .idx_dtype = CLG_DTYPE_INT64, ISHAPE(2, 2), IDX(0, 1, 1, 0), .axis = 0,
     OUT(CLG_DTYPE_DOUBLE, 2, 2), .status = CLG_STATUS_UNSUPPORTED_DTYPE,
     MSG("output")},
    /* ---- NULL pointers */
    NULLCASE(CLG_OP_GATHER, "gather_null_data", CLG_MUT_DATA_NULL, "data"),
    NULLCASE(CLG_OP_GATHER, "gather_null_indices", CLG_MUT_INDICES_NULL,
             "indices"),
    NULLCASE(CLG_OP_GATHER, "gather_null_output", CLG_MUT_OUTPUT_NULL,
             "output"),
    NULLCASE(CLG_OP_GATHER, "gather_null_data_shape",
             CLG_MUT_DATA_SHAPE_NULL, "data"),
    NULLCASE(CLG_OP_GATHER, "gather_null_indices_shape",
             CLG_MUT_INDICES_SHAPE_NULL, "indices"),
    NULLCASE(CLG_OP_GATHER, "gather_null_output_shape",
             CLG_MUT_OUTPUT_SHAPE_NULL, "output"),
    NULLCASE(CLG_OP_GATHER, "gather_null_data_pointer",
             CLG_MUT_DATA_PTR_NULL, "data"),
    NULLCASE(CLG_OP_GATHER, "gather_null_indices_pointer",
             CLG_MUT_INDICES_PTR_NULL, "indices"),
    NULLCASE(CLG_OP_GATHER, "gather_null_output_pointer",
             CLG_MUT_OUTPUT_PTR_NULL, "output"),
    NULLCASE(CLG_OP_GATHER_ELEMENTS, "gather_elements_null_data",
             CLG_MUT_DATA_NULL, "data"),
    NULLCASE(CLG_OP_GATHER_ELEMENTS, "gather_elements_null_indices",
             CLG_MUT_INDICES_NULL, "indices"),
    NULLCASE(CLG_OP_GATHER_ELEMENTS, "gather_elements_null_output",
             CLG_MUT_OUTPUT_NULL, "output"),
    NULLCASE(CLG_OP_GATHER_ELEMENTS, "gather_elements_null_data_shape",
             CLG_MUT_DATA_SHAPE_NULL, "data"),
    NULLCASE(CLG_OP_GATHER_ELEMENTS, "gather_elements_null_indices_shape",
             CLG_MUT_INDICES_SHAPE_NULL, "indices"),
    NULLCASE(CLG_OP_GATHER_ELEMENTS, "gather_elements_null_data_pointer",
             CLG_MUT_DATA_PTR_NULL, "data"),
    NULLCASE(CLG_OP_GATHER_ELEMENTS, "gather_elements_null_indices_pointer",
             CLG_MUT_INDICES_PTR_NULL, "indices"),
    NULLCASE(CLG_OP_GATHER_ELEMENTS, "gather_elements_null_output_pointer",
             CLG_MUT_OUTPUT_PTR_NULL, "output"),
};
/* clang-format on */
const size_t clg_test_error_case_count =
    CLG_TEST_ARRAY_LEN(clg_test_error_cases);

/* ------------------------------------------------------------ runners */

static int fits_int32(const int64_t *v, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (v[i] < INT32_MIN || v[i] > INT32_MAX) {
            return 0;
        }
    }
    return 1;
}

static const char *dtype_label(clg_dtype dt)
{
    return clg_dtype_name(dt);
}

/* Runs one library path of a literal case and checks it bit for bit. */
static void run_case_path(clg_context *ctx, int reference,
                          const clg_test_case *c, const clg_tensor *data,
                          const clg_tensor *indices, const void *oracle_out,
                          size_t out_bytes, size_t misalign)
{
    clg_test_tensor out;
    clg_test_tensor_init(&out, c->dtype, c->out_rank, c->out_shape, misalign,
                         0xAB);
    clg_status st = clg_test_call(c->op, ctx, reference, data, indices,
                                  c->axis, &out.t);
    CLG_ASSERT_OK(ctx, st);
    if (ctx != NULL) {
        /* "" after a success. */
        assert_string_equal(clg_context_last_error(ctx), "");
    }
    assert_int_equal(out.bytes, out_bytes);
    const char *what = reference ? "reference output vs literal"
                                 : "device output vs literal";
    CLG_ASSERT_BYTES(out.t.data, c->out, out_bytes,
                     clg_test_dtype_size(c->dtype), what);
    what = reference ? "reference output vs oracle"
                     : "device output vs oracle";
    CLG_ASSERT_BYTES(out.t.data, oracle_out, out_bytes,
                     clg_test_dtype_size(c->dtype), what);
    CLG_ASSERT_GUARDS(&out, reference ? "reference output" : "device output");
    clg_test_tensor_free(&out);
}

int clg_test_run_case(clg_context *ctx, const clg_test_case *c,
                      clg_dtype idx_dtype)
{
    int64_t nidx = clg_test_count(c->idx_shape, c->idx_rank);
    if (idx_dtype == CLG_DTYPE_INT32 && !fits_int32(c->idx, (size_t)nidx)) {
        return 0;
    }
    clg_test_set_case("%s %s, %s indices, axis %" PRId64, c->name,
                      clg_op_name(c->op), dtype_label(idx_dtype), c->axis);

    clg_test_tensor data, indices;
    clg_test_tensor_init(&data, c->dtype, c->rank, c->shape, 0, 0);
    if (data.bytes > 0) {
        memcpy(data.t.data, c->data, data.bytes);
    }
    clg_test_tensor_init(&indices, idx_dtype, c->idx_rank, c->idx_shape, 0, 0);
    if (nidx > 0) {
        clg_test_store_indices(&indices, c->idx, (size_t)nidx);
    }

    /* The literal's shape is the one the formulas give... */
    int64_t oshape[2 * CLG_MAX_RANK];
    size_t orank = clg_test_output_shape(c->op, &data.t, &indices.t, c->axis,
                                         oshape);
    CLG_ASSERT_SHAPE(oshape, orank, c->out_shape, c->out_rank);
    /* ...and the one the library's helper gives. */
    int64_t lshape[CLG_MAX_RANK];
    size_t lrank = 99;
    clg_status st =
        c->op == CLG_OP_GATHER
            ? clg_gather_output_shape(&data.t, &indices.t, c->axis, lshape,
                                      CLG_MAX_RANK, &lrank)
            : clg_gather_elements_output_shape(&data.t, &indices.t, c->axis,
                                               lshape, CLG_MAX_RANK, &lrank);
    CLG_ASSERT_OK(NULL, st);
    CLG_ASSERT_SHAPE(lshape, lrank, c->out_shape, c->out_rank);

    /* The oracle agrees with the literal (checks the test's own code). */
    size_t elem = clg_test_dtype_size(c->dtype);
    size_t out_bytes = (size_t)clg_test_count(c->out_shape, c->out_rank) *
                       elem;
    unsigned char *oracle_out = malloc(out_bytes + 1);
    assert_non_null(oracle_out);
    st = clg_test_oracle(c->op, &data.t, &indices.t, c->axis, oracle_out,
                         NULL);
    assert_int_equal(st, CLG_STATUS_OK);
    CLG_ASSERT_BYTES(oracle_out, c->out, out_bytes, elem, "oracle vs literal");

    /* CPU reference (with ctx, possibly NULL), then the device. Aligned and
     * misaligned outputs (by one element) take the same path. */
    run_case_path(ctx, 1, c, &data.t, &indices.t, oracle_out, out_bytes, 0);
    if (ctx != NULL) {
        run_case_path(ctx, 0, c, &data.t, &indices.t, oracle_out, out_bytes,
                      0);
        run_case_path(ctx, 0, c, &data.t, &indices.t, oracle_out, out_bytes,
                      elem);
    }

    /* Inputs are never written. */
    if (data.bytes > 0) {
        CLG_ASSERT_BYTES(data.t.data, c->data, data.bytes, elem,
                         "data after the call");
    }
    CLG_ASSERT_GUARDS(&data, "data");
    CLG_ASSERT_GUARDS(&indices, "indices");
    for (int64_t i = 0; i < nidx; i++) {
        assert_int_equal(clg_test_index_at(&indices.t, i),
                         idx_dtype == CLG_DTYPE_INT32 ? (int32_t)c->idx[i]
                                                      : c->idx[i]);
    }
    free(oracle_out);
    clg_test_tensor_free(&data);
    clg_test_tensor_free(&indices);
    return 1;
}

void clg_test_check_fragments(const char *message, const char *const *msg,
                              const char *file, int line)
{
    for (size_t i = 0; msg[i] != NULL; i++) {
        /* "a|b": either alternative. */
        char alt[256];
        snprintf(alt, sizeof alt, "%s", msg[i]);
        int found = 0;
        char *save = alt;
        while (save != NULL && !found) {
            char *bar = strchr(save, '|');
            if (bar != NULL) {
                *bar = '\0';
            }
            found = message != NULL && strstr(message, save) != NULL;
            save = bar != NULL ? bar + 1 : NULL;
        }
        if (!found) {
            clg_test_check_contains(message, msg[i], file, line);
        }
    }
}

static void run_error_case_as(clg_context *ctx, const clg_test_error_case *c,
                              clg_test_path path, clg_dtype idx_dtype)
{
    clg_test_set_case("error case %s (%s, %s indices) on the %s", c->name,
                      clg_op_name(c->op), dtype_label(idx_dtype),
                      path == CLG_TEST_ON_DEVICE ? "device" : "reference");
    clg_test_tensor data, indices, out;
    clg_test_tensor_init(&data, c->dtype, c->rank, c->shape, 0, 0x11);
    clg_test_tensor_init(&indices, idx_dtype, c->idx_rank, c->idx_shape, 0, 0);
    int64_t nidx = clg_test_count(c->idx_shape, c->idx_rank);
    if (c->idx != NULL && nidx > 0) {
        clg_test_store_indices(&indices, c->idx, (size_t)nidx);
    }
    clg_test_tensor_init(&out, c->out_dtype, c->out_rank, c->out_shape, 0,
                         0xAB);
    unsigned char *idx_copy = malloc(indices.bytes + 1);
    assert_non_null(idx_copy);
    memcpy(idx_copy, indices.t.data, indices.bytes);

    clg_tensor d = data.t, i = indices.t, o = out.t;
    const clg_tensor *dp = &d, *ip = &i, *op = &o;
    switch (c->mutation) {
    case CLG_MUT_NONE:
        break;
    case CLG_MUT_DATA_NULL:
        dp = NULL;
        break;
    case CLG_MUT_INDICES_NULL:
        ip = NULL;
        break;
    case CLG_MUT_OUTPUT_NULL:
        op = NULL;
        break;
    case CLG_MUT_DATA_SHAPE_NULL:
        d.shape = NULL;
        break;
    case CLG_MUT_INDICES_SHAPE_NULL:
        i.shape = NULL;
        break;
    case CLG_MUT_OUTPUT_SHAPE_NULL:
        o.shape = NULL;
        break;
    case CLG_MUT_DATA_PTR_NULL:
        d.data = NULL;
        break;
    case CLG_MUT_INDICES_PTR_NULL:
        i.data = NULL;
        break;
    case CLG_MUT_OUTPUT_PTR_NULL:
        o.data = NULL;
        break;
    }
    if (c->shape_level) {
        int64_t shape[CLG_MAX_RANK];
        size_t rank = 12345;
        clg_status hs =
            c->op == CLG_OP_GATHER
                ? clg_gather_output_shape(dp, ip, c->axis, shape, CLG_MAX_RANK,
                                          &rank)
                : clg_gather_elements_output_shape(dp, ip, c->axis, shape,
                                                   CLG_MAX_RANK, &rank);
        CLG_ASSERT_STATUS(NULL, hs, c->status);
    }

    clg_status st = clg_test_call(c->op, ctx, path == CLG_TEST_ON_REFERENCE,
                                  dp, ip, c->axis, op);
    CLG_ASSERT_STATUS(ctx, st, c->status);
    const char *message = clg_context_last_error(ctx);
    assert_non_null(message);
    clg_test_check_fragments(message, c->msg, __FILE__, __LINE__);

    /* The caller's memory is exactly as it was. */
    CLG_ASSERT_FILLED(out.t.data, out.bytes, 0xAB, "output after an error");
    CLG_ASSERT_GUARDS(&out, "output");
    CLG_ASSERT_FILLED(data.t.data, data.bytes, 0x11, "data after an error");
    CLG_ASSERT_GUARDS(&data, "data");
    CLG_ASSERT_BYTES(indices.t.data, idx_copy, indices.bytes, 1,
                     "indices after an error");
    CLG_ASSERT_GUARDS(&indices, "indices");

    free(idx_copy);
    clg_test_tensor_free(&data);
    clg_test_tensor_free(&indices);
    clg_test_tensor_free(&out);
}

void clg_test_run_error_case(clg_context *ctx, const clg_test_error_case *c,
                             clg_test_path path)
{
    run_error_case_as(ctx, c, path, c->idx_dtype);
    int64_t nidx = clg_test_count(c->idx_shape, c->idx_rank);
    /* Out-of-range cases also run with INT32 indices when they fit. */
    if (c->idx_dtype == CLG_DTYPE_INT64 && c->idx != NULL &&
        c->status == CLG_STATUS_INDEX_OUT_OF_RANGE &&
        fits_int32(c->idx, (size_t)nidx)) {
        run_error_case_as(ctx, c, path, CLG_DTYPE_INT32);
    }
}
