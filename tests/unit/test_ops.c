/* SPDX-License-Identifier: Apache-2.0 */
/* The operator table (CLG_OP_TABLE): names, words, parsing, opsets; a
 * call as data (clg_call: its size rule and its checks); the generic calls
 * against the named functions they stand for, on the output shape and the
 * CPU reference. No device needed. */
#include "clg_test.h"

#include <string.h>

#define I64(...) ((const int64_t[]){__VA_ARGS__})

static void test_op_names(void **state)
{
    (void)state;
    assert_int_equal(clg_op_count(), 3);
    assert_int_equal(CLG_OP_GATHER_ND, 2);
    assert_string_equal(clg_op_name(CLG_OP_GATHER_ND), "GatherND");
    assert_string_equal(clg_op_word(CLG_OP_GATHER_ND), "gather-nd");
    assert_int_equal(clg_op_first_opset(CLG_OP_GATHER_ND), 11);
    assert_int_equal(CLG_OP_GATHER, 0);
    assert_int_equal(CLG_OP_GATHER_ELEMENTS, 1);
    assert_string_equal(clg_op_name(CLG_OP_GATHER), "Gather");
    assert_string_equal(clg_op_name(CLG_OP_GATHER_ELEMENTS), "GatherElements");
    assert_string_equal(clg_op_name((clg_op)3), "unknown");
    assert_string_equal(clg_op_name((clg_op)-1), "unknown");
    assert_string_equal(clg_op_word(CLG_OP_GATHER), "gather");
    assert_string_equal(clg_op_word(CLG_OP_GATHER_ELEMENTS),
                        "gather-elements");
    assert_string_equal(clg_op_word((clg_op)7), "unknown");
    assert_int_equal(clg_op_first_opset(CLG_OP_GATHER), 1);
    assert_int_equal(clg_op_first_opset(CLG_OP_GATHER_ELEMENTS), 11);
    assert_int_equal(clg_op_first_opset((clg_op)3), 0);
    /* The version an opset selects: Gather 1, 11, 13; GatherElements 11,
     * 13. */
    assert_int_equal(clg_op_version(CLG_OP_GATHER, 0), 0);
    assert_int_equal(clg_op_version(CLG_OP_GATHER, 1), 1);
    assert_int_equal(clg_op_version(CLG_OP_GATHER, 10), 1);
    assert_int_equal(clg_op_version(CLG_OP_GATHER, 11), 11);
    assert_int_equal(clg_op_version(CLG_OP_GATHER, 12), 11);
    assert_int_equal(clg_op_version(CLG_OP_GATHER, 13), 13);
    assert_int_equal(clg_op_version(CLG_OP_GATHER, 21), 13);
    assert_int_equal(clg_op_version(CLG_OP_GATHER_ELEMENTS, 10), 0);
    assert_int_equal(clg_op_version(CLG_OP_GATHER_ELEMENTS, 11), 11);
    assert_int_equal(clg_op_version(CLG_OP_GATHER_ELEMENTS, 12), 11);
    assert_int_equal(clg_op_version(CLG_OP_GATHER_ELEMENTS, 18), 13);
    assert_int_equal(clg_op_version(CLG_OP_GATHER_ND, 10), 0);
    assert_int_equal(clg_op_version(CLG_OP_GATHER_ND, 11), 11);
    assert_int_equal(clg_op_version(CLG_OP_GATHER_ND, 12), 12);
    assert_int_equal(clg_op_version(CLG_OP_GATHER_ND, 18), 13);
    assert_int_equal(clg_op_version((clg_op)3, 13), 0);
    assert_string_equal(clg_op_attribute(CLG_OP_GATHER), "axis");
    assert_string_equal(clg_op_attribute(CLG_OP_GATHER_ELEMENTS), "axis");
    assert_string_equal(clg_op_attribute(CLG_OP_GATHER_ND), "batch_dims");
    assert_string_equal(clg_op_attribute((clg_op)3), "unknown");
}

static void test_op_parse(void **state)
{
    (void)state;
    static const struct {
        const char *text;
        clg_op op;
    } ok[] = {
        {"Gather", CLG_OP_GATHER},
        {"gather", CLG_OP_GATHER},
        {"GatherElements", CLG_OP_GATHER_ELEMENTS},
        {"gather-elements", CLG_OP_GATHER_ELEMENTS},
        {"gather_elements", CLG_OP_GATHER_ELEMENTS},
    };
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        clg_op op = (clg_op)99;
        CLG_ASSERT_OK(NULL, clg_op_parse(ok[i].text, &op));
        assert_int_equal(op, ok[i].op);
    }
    /* Every row parses back from its name and its word. */
    for (int i = 0; i < clg_op_count(); i++) {
        clg_op op = (clg_op)99;
        CLG_ASSERT_OK(NULL, clg_op_parse(clg_op_name((clg_op)i), &op));
        assert_int_equal(op, i);
        op = (clg_op)99;
        CLG_ASSERT_OK(NULL, clg_op_parse(clg_op_word((clg_op)i), &op));
        assert_int_equal(op, i);
    }
    clg_op op = CLG_OP_GATHER_ELEMENTS;
    CLG_ASSERT_STATUS(NULL, clg_op_parse("GatherNd", &op),
                      CLG_STATUS_INVALID_ARGUMENT);
    assert_int_equal(op, CLG_OP_GATHER_ELEMENTS); /* unchanged */
    assert_string_equal(clg_context_last_error(NULL),
                        "\"GatherNd\" is not an operator: Gather (gather) 0, "
                        "GatherElements (gather-elements) 1, GatherND "
                        "(gather-nd) 2");
    CLG_ASSERT_STATUS(NULL, clg_op_parse("gatherelements", &op),
                      CLG_STATUS_INVALID_ARGUMENT);
    CLG_ASSERT_STATUS(NULL, clg_op_parse("", &op),
                      CLG_STATUS_INVALID_ARGUMENT);
    CLG_ASSERT_STATUS(NULL, clg_op_parse(NULL, &op), CLG_STATUS_NULL_POINTER);
    CLG_ASSERT_STATUS(NULL, clg_op_parse("gather", NULL),
                      CLG_STATUS_NULL_POINTER);
}

/* clg_output_shape's rank for `call` on data [2, 3] and indices [4]:
 * 2 for Gather, a RANK_MISMATCH for GatherElements. */
static clg_status shape_of(const clg_call *call, size_t *rank)
{
    clg_tensor d = {CLG_DTYPE_FLOAT, 2, I64(2, 3), NULL};
    clg_tensor q = {CLG_DTYPE_INT64, 1, I64(4), NULL};
    int64_t shape[CLG_MAX_RANK];
    return clg_output_shape(call, &d, &q, shape, CLG_MAX_RANK, rank);
}

static void test_call_size(void **state)
{
    (void)state;
    size_t rank = 0;
    assert_int_equal(CLG_CALL_SIZE_1,
                     offsetof(clg_call, options) + sizeof(clg_call_options));
    /* Zero-initialised: Gather on axis 0 with the default options. */
    clg_call zero;
    memset(&zero, 0, sizeof zero);
    CLG_ASSERT_OK(NULL, shape_of(&zero, &rank));
    assert_int_equal(rank, 2);
    clg_call c = {.size = sizeof c, .op = CLG_OP_GATHER, .axis = 1};
    CLG_ASSERT_OK(NULL, shape_of(&c, &rank));
    c.size = (uint32_t)CLG_CALL_SIZE_1;
    CLG_ASSERT_OK(NULL, shape_of(&c, &rank));
    c.size = (uint32_t)CLG_CALL_SIZE_1 - 1;
    CLG_ASSERT_STATUS(NULL, shape_of(&c, &rank), CLG_STATUS_INVALID_ARGUMENT);
    assert_non_null(strstr(clg_context_last_error(NULL), "call->size = "));
    c.size = 4;
    CLG_ASSERT_STATUS(NULL, shape_of(&c, &rank), CLG_STATUS_INVALID_ARGUMENT);
    /* Past a page: refused before any byte past the struct is read (the
     * struct here has none of them). */
    c.size = CLG_CALL_SIZE_MAX + 1;
    CLG_ASSERT_STATUS(NULL, shape_of(&c, &rank), CLG_STATUS_INVALID_ARGUMENT);
    assert_string_equal(clg_context_last_error(NULL),
                        "call->size = 4097 is over CLG_CALL_SIZE_MAX (4096 "
                        "bytes): no clg_call layout is that large (is size "
                        "set?)");
    c.size = UINT32_MAX;
    CLG_ASSERT_STATUS(NULL, shape_of(&c, &rank), CLG_STATUS_INVALID_ARGUMENT);

    /* A newer caller's struct: bytes this library does not know must be
     * zero. */
    struct {
        clg_call call;
        int64_t later[2];
    } newer;
    memset(&newer, 0, sizeof newer);
    newer.call.size = (uint32_t)sizeof newer;
    newer.call.op = CLG_OP_GATHER;
    newer.call.axis = -1;
    CLG_ASSERT_OK(NULL, shape_of(&newer.call, &rank));
    newer.later[1] = 5;
    CLG_ASSERT_STATUS(NULL, shape_of(&newer.call, &rank),
                      CLG_STATUS_INVALID_ARGUMENT);
    assert_non_null(strstr(clg_context_last_error(NULL), "is not zero"));

    /* An operator outside the table. */
    clg_call bad = {.size = sizeof bad, .op = (clg_op)3};
    CLG_ASSERT_STATUS(NULL, shape_of(&bad, &rank),
                      CLG_STATUS_INVALID_ARGUMENT);
    assert_string_equal(clg_context_last_error(NULL),
                        "call->op = 3 is not an operator of CLG_OP_TABLE "
                        "(Gather (gather) 0, GatherElements "
                        "(gather-elements) 1, GatherND (gather-nd) 2)");
    CLG_ASSERT_STATUS(NULL, shape_of(NULL, &rank), CLG_STATUS_NULL_POINTER);
    assert_string_equal(clg_context_last_error(NULL), "call is NULL");
}

static void test_call_set_attribute(void **state)
{
    (void)state;
    clg_call c = {.size = sizeof c, .op = CLG_OP_GATHER_ELEMENTS, .axis = 5};
    c.options.oob = CLG_OOB_WRAP;
    CLG_ASSERT_OK(NULL, clg_call_set_attribute(&c, -2));
    assert_int_equal(c.axis, -2);
    assert_int_equal(c.op, CLG_OP_GATHER_ELEMENTS);
    assert_int_equal(c.options.oob, CLG_OOB_WRAP);
    assert_int_equal(c.size, sizeof c);
    c.op = CLG_OP_GATHER;
    CLG_ASSERT_OK(NULL, clg_call_set_attribute(&c, 1));
    assert_int_equal(c.axis, 1);
    c.op = CLG_OP_GATHER_ND;
    CLG_ASSERT_OK(NULL, clg_call_set_attribute(&c, 1));
    assert_int_equal(c.batch_dims, 1);
    assert_int_equal(c.axis, 1);
    /* A first-layout struct has no batch_dims to write. */
    c.size = (uint32_t)CLG_CALL_SIZE_1;
    CLG_ASSERT_STATUS(NULL, clg_call_set_attribute(&c, 2),
                      CLG_STATUS_INVALID_ARGUMENT);
    assert_string_equal(clg_context_last_error(NULL),
                        "call->size = 20 does not reach call->batch_dims "
                        "(bytes 24 to 32); set call->size = sizeof(clg_call)");
    assert_int_equal(c.batch_dims, 1);
    c.size = sizeof c;
    c.op = (clg_op)3;
    CLG_ASSERT_STATUS(NULL, clg_call_set_attribute(&c, 7),
                      CLG_STATUS_INVALID_ARGUMENT);
    assert_int_equal(c.axis, 1);
    CLG_ASSERT_STATUS(NULL, clg_call_set_attribute(NULL, 7),
                      CLG_STATUS_NULL_POINTER);
}

static void test_generic_output_shape(void **state)
{
    (void)state;
    clg_tensor d = {CLG_DTYPE_FLOAT, 3, I64(2, 3, 4), NULL};
    clg_tensor q = {CLG_DTYPE_INT32, 2, I64(5, 6), NULL};
    int64_t a[CLG_MAX_RANK], b[CLG_MAX_RANK];
    size_t ra = 0, rb = 0;
    clg_call c = {.size = sizeof c, .op = CLG_OP_GATHER, .axis = 1};
    CLG_ASSERT_OK(NULL, clg_output_shape(&c, &d, &q, a, CLG_MAX_RANK, &ra));
    CLG_ASSERT_OK(NULL,
                  clg_gather_output_shape(&d, &q, 1, b, CLG_MAX_RANK, &rb));
    assert_int_equal(ra, 4);
    assert_int_equal(rb, 4);
    assert_memory_equal(a, I64(2, 5, 6, 4), 4 * sizeof(int64_t));
    assert_memory_equal(b, I64(2, 5, 6, 4), 4 * sizeof(int64_t));

    clg_tensor qe = {CLG_DTYPE_INT64, 3, I64(2, 7, 4), NULL};
    c.op = CLG_OP_GATHER_ELEMENTS;
    CLG_ASSERT_OK(NULL, clg_output_shape(&c, &d, &qe, a, CLG_MAX_RANK, &ra));
    assert_int_equal(ra, 3);
    assert_memory_equal(a, I64(2, 7, 4), 3 * sizeof(int64_t));
    /* GatherElements' own rules, through the generic call. */
    CLG_ASSERT_STATUS(NULL, clg_output_shape(&c, &d, &q, a, CLG_MAX_RANK, &ra),
                      CLG_STATUS_RANK_MISMATCH);
    assert_string_equal(clg_context_last_error(NULL),
                        "indices rank 2 differs from data rank 3; "
                        "GatherElements needs equal ranks");
    c.axis = 3;
    CLG_ASSERT_STATUS(NULL,
                      clg_output_shape(&c, &d, &qe, a, CLG_MAX_RANK, &ra),
                      CLG_STATUS_INVALID_AXIS);
}

static void test_generic_reference(void **state)
{
    (void)state;
    /* ONNX's GatherElements example 1 and Gather's example 2. */
    float data[4] = {1, 2, 3, 4};
    int64_t idx[4] = {0, 0, 1, 0};
    float got[4] = {0}, named[4] = {0};
    clg_tensor d = {CLG_DTYPE_FLOAT, 2, I64(2, 2), data};
    clg_tensor q = {CLG_DTYPE_INT64, 2, I64(2, 2), idx};
    clg_tensor o = {CLG_DTYPE_FLOAT, 2, I64(2, 2), got};
    clg_tensor on = {CLG_DTYPE_FLOAT, 2, I64(2, 2), named};
    clg_call c = {.size = sizeof c, .op = CLG_OP_GATHER_ELEMENTS, .axis = 1};
    CLG_ASSERT_OK(NULL, clg_reference(NULL, &c, &d, &q, &o));
    CLG_ASSERT_OK(NULL, clg_reference_gather_elements(NULL, &d, &q, 1, &on));
    assert_memory_equal(got, ((const float[]){1, 1, 4, 3}), sizeof got);
    assert_memory_equal(named, got, sizeof got);

    float g[3][2] = {{1.0f, 1.2f}, {2.3f, 3.4f}, {4.5f, 5.7f}};
    int64_t gi[4] = {0, 1, 1, 2};
    float out[3][2][2];
    clg_tensor gd = {CLG_DTYPE_FLOAT, 2, I64(3, 2), g};
    clg_tensor gq = {CLG_DTYPE_INT64, 2, I64(2, 2), gi};
    clg_tensor go = {CLG_DTYPE_FLOAT, 3, I64(3, 2, 2), out};
    c.op = CLG_OP_GATHER;
    c.axis = 1;
    /* Index 2 is out of range for axis 1 of size 2: raise refuses, clip
     * takes position 1. */
    CLG_ASSERT_STATUS(NULL, clg_reference(NULL, &c, &gd, &gq, &go),
                      CLG_STATUS_INDEX_OUT_OF_RANGE);
    assert_string_equal(clg_context_last_error(NULL),
                        "indices[1][1] = 2 is out of range [-2, 1] for axis "
                        "1 of size 2");
    c.options.oob = CLG_OOB_CLIP;
    CLG_ASSERT_OK(NULL, clg_reference(NULL, &c, &gd, &gq, &go));
    const float want[3][2][2] = {{{1.0f, 1.2f}, {1.2f, 1.2f}},
                                 {{2.3f, 3.4f}, {3.4f, 3.4f}},
                                 {{4.5f, 5.7f}, {5.7f, 5.7f}}};
    assert_memory_equal(out, want, sizeof out);
    c.options.oob = (clg_oob_mode)9;
    CLG_ASSERT_STATUS(NULL, clg_reference(NULL, &c, &gd, &gq, &go),
                      CLG_STATUS_INVALID_ARGUMENT);
    CLG_ASSERT_STATUS(NULL, clg_reference(NULL, NULL, &gd, &gq, &go),
                      CLG_STATUS_NULL_POINTER);
}

/* The calls that need a context refuse a NULL one as the named functions
 * do. */
static void test_generic_null_context(void **state)
{
    (void)state;
    clg_call c = {.size = sizeof c, .op = CLG_OP_GATHER};
    clg_tensor t = {CLG_DTYPE_FLOAT, 1, I64(1), NULL};
    CLG_ASSERT_STATUS(NULL, clg_run(NULL, &c, &t, &t, &t),
                      CLG_STATUS_NULL_POINTER);
    assert_string_equal(clg_context_last_error(NULL), "ctx is NULL");
    CLG_ASSERT_STATUS(NULL, clg_warm_up(NULL, &c, &t, &t, &t),
                      CLG_STATUS_NULL_POINTER);
    CLG_ASSERT_STATUS(NULL, clg_run_cl(NULL, &c, NULL, NULL, NULL),
                      CLG_STATUS_NULL_POINTER);
    CLG_ASSERT_STATUS(NULL, clg_warm_up_cl(NULL, &c, NULL, NULL, NULL),
                      CLG_STATUS_NULL_POINTER);
    CLG_ASSERT_STATUS(NULL,
                      clg_enqueue(NULL, NULL, &c, NULL, NULL, NULL, 0, NULL,
                                  NULL),
                      CLG_STATUS_NULL_POINTER);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_op_names),
        cmocka_unit_test(test_op_parse),
        cmocka_unit_test(test_call_size),
        cmocka_unit_test(test_call_set_attribute),
        cmocka_unit_test(test_generic_output_shape),
        cmocka_unit_test(test_generic_reference),
        cmocka_unit_test(test_generic_null_context),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
