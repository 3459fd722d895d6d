/* SPDX-License-Identifier: Apache-2.0 */
/* The ONNX page examples and the inputs that broke other engines, on the
 * device: each output is compared bit for bit with the literal, the
 * test's oracle and the CPU reference (with the same context), for INT64
 * and INT32 indices, at aligned and misaligned output addresses. */
#include "clg_test_cases.h"

static void test_literal_cases_int64(void **state)
{
    clg_context *ctx = *state;
    for (size_t i = 0; i < clg_test_case_count; i++) {
        assert_int_equal(clg_test_run_case(ctx, &clg_test_cases[i],
                                           CLG_DTYPE_INT64),
                         1);
    }
}

static void test_literal_cases_int32(void **state)
{
    clg_context *ctx = *state;
    for (size_t i = 0; i < clg_test_case_count; i++) {
        assert_int_equal(clg_test_run_case(ctx, &clg_test_cases[i],
                                           CLG_DTYPE_INT32),
                         1);
    }
}

/* Each literal case once more for every data dtype: the bytes of the
 * literal's elements are spread over wider or narrower elements, so the
 * same index pattern runs through every element-width kernel. */
static void test_literal_index_patterns_every_dtype(void **state)
{
    clg_context *ctx = *state;
    for (size_t i = 0; i < clg_test_case_count; i++) {
        const clg_test_case *c = &clg_test_cases[i];
        for (size_t k = 0; k < 16; k++) {
            clg_dtype dt = clg_test_all_dtypes[k];
            size_t elem = clg_test_dtype_size(dt);
            clg_test_set_case("%s as %s", c->name, clg_dtype_name(dt));
            clg_test_tensor data, idx, out;
            clg_test_tensor_init(&data, dt, c->rank, c->shape, 0, 0);
            for (size_t b = 0; b < data.bytes; b++) {
                /* distinct bytes per element and position */
                ((unsigned char *)data.t.data)[b] =
                    (unsigned char)(b * 131u + b / elem * 7u + 1u);
            }
            if (dt == CLG_DTYPE_STRING) {
                /* descriptors into a pool with NUL bytes */
                static const char pool[64] = "a\0b";
                for (size_t e = 0; e < data.bytes / elem; e++) {
                    clg_string s = {pool + e % 60, e % 4};
                    memcpy((char *)data.t.data + e * elem, &s, sizeof s);
                }
            }
            clg_test_tensor_init(&idx, CLG_DTYPE_INT64, c->idx_rank,
                                 c->idx_shape, 0, 0);
            int64_t nidx = clg_test_count(c->idx_shape, c->idx_rank);
            if (nidx > 0) {
                clg_test_store_indices(&idx, c->idx, (size_t)nidx);
            }
            clg_test_tensor_init(&out, dt, c->out_rank, c->out_shape, 0, 0xAB);
            unsigned char *want = malloc(out.bytes + 1);
            assert_non_null(want);
            assert_int_equal(clg_test_oracle(c->op, &data.t, &idx.t, c->axis,
                                             want, NULL),
                             CLG_STATUS_OK);
            CLG_ASSERT_OK(ctx, clg_test_call(c->op, ctx, 0, &data.t, &idx.t,
                                             c->axis, &out.t));
            CLG_ASSERT_BYTES(out.t.data, want, out.bytes, elem,
                             "device vs oracle");
            CLG_ASSERT_GUARDS(&out, "output");
            memset(out.t.data, 0xCD, out.bytes);
            CLG_ASSERT_OK(ctx, clg_test_call(c->op, ctx, 1, &data.t, &idx.t,
                                             c->axis, &out.t));
            CLG_ASSERT_BYTES(out.t.data, want, out.bytes, elem,
                             "reference vs oracle");
            free(want);
            clg_test_tensor_free(&data);
            clg_test_tensor_free(&idx);
            clg_test_tensor_free(&out);
        }
    }
}

/* Empty tensors may have NULL data pointers; no kernel runs. */
static void test_empty_tensors_with_null_pointers(void **state)
{
    clg_context *ctx = *state;
    clg_test_set_case("empty tensors with NULL data pointers");
    const int64_t dshape[] = {1, 4, 0};
    const int64_t oshape[] = {4, 0};
    const int64_t zero = 0;
    clg_tensor d = {CLG_DTYPE_FLOAT, 3, dshape, NULL};
    clg_tensor q = {CLG_DTYPE_INT64, 0, NULL, (void *)&zero};
    clg_tensor o = {CLG_DTYPE_FLOAT, 2, oshape, NULL};
    CLG_ASSERT_OK(ctx, clg_gather(ctx, &d, &q, 0, &o));

    const float data[] = {1, 2, 3};
    const int64_t d1[] = {3};
    const int64_t e[] = {0};
    clg_tensor d3 = {CLG_DTYPE_FLOAT, 1, d1, (void *)data};
    clg_tensor qe = {CLG_DTYPE_INT32, 1, e, NULL};
    clg_tensor oe = {CLG_DTYPE_FLOAT, 1, e, NULL};
    CLG_ASSERT_OK(ctx, clg_gather(ctx, &d3, &qe, 0, &oe));
    CLG_ASSERT_OK(ctx, clg_gather_elements(ctx, &d3, &qe, 0, &oe));

    /* GatherElements with an empty data dim off the axis (indices may be
     * longer along the axis only), and along the axis (s = 0) with empty
     * indices. */
    const int64_t d40[] = {4, 0};
    const int64_t i70[] = {7, 0};
    const int64_t i20[] = {2, 0};
    clg_tensor de = {CLG_DTYPE_DOUBLE, 2, d40, NULL};
    clg_tensor qe2 = {CLG_DTYPE_INT64, 2, i70, NULL};
    clg_tensor oe2 = {CLG_DTYPE_DOUBLE, 2, i70, NULL};
    CLG_ASSERT_OK(ctx, clg_gather_elements(ctx, &de, &qe2, 0, &oe2));
    clg_tensor qe3 = {CLG_DTYPE_INT32, 2, i20, NULL};
    clg_tensor oe3 = {CLG_DTYPE_DOUBLE, 2, i20, NULL};
    CLG_ASSERT_OK(ctx, clg_gather_elements(ctx, &de, &qe3, -1, &oe3));
    CLG_ASSERT_OK(ctx,
                  clg_reference_gather_elements(ctx, &de, &qe3, -1, &oe3));
    /* ...but a non-axis indices dim above data's is still an error. */
    CLG_ASSERT_STATUS(ctx, clg_gather_elements(ctx, &de, &qe2, -1, &oe2),
                      CLG_STATUS_SHAPE_MISMATCH);
    CLG_ASSERT_CONTAINS(clg_context_last_error(ctx), "7");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_literal_cases_int64),
        cmocka_unit_test(test_literal_cases_int32),
        cmocka_unit_test(test_literal_index_patterns_every_dtype),
        cmocka_unit_test(test_empty_tensors_with_null_pointers),
    };
    return CLG_RUN_DEVICE_TESTS(tests);
}
