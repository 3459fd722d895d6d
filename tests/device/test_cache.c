/* SPDX-License-Identifier: Apache-2.0 */
/* Programs are built per variant on first use and kept in the context:
 * many alternating calls of different variants (op x element width x
 * index type x alignment) on one context, two contexts used in turn, and
 * contexts created and destroyed repeatedly all give bit-exact results. */
#include "clg_test_random.h"

#include <inttypes.h>

#define DEFAULT_SEED UINT64_C(0xcace5eed)

static uint64_t seed;

/* One small case of variant v: op, dtype (all widths) and index type
 * rotate with v; the shape makes the Gather inner block 16-byte friendly
 * (last dim 16, not 5) in alternate runs of 24 calls. */
static void run_variant(clg_context *ctx, clg_test_rng *rng, size_t v)
{
    static const clg_dtype widths[] = {CLG_DTYPE_UINT8,      CLG_DTYPE_FLOAT16,
                                       CLG_DTYPE_FLOAT,      CLG_DTYPE_DOUBLE,
                                       CLG_DTYPE_COMPLEX128, CLG_DTYPE_STRING};
    clg_test_spec spec;
    memset(&spec, 0, sizeof spec);
    spec.op = (clg_op)(v % 2);
    spec.dtype = widths[(v / 2) % CLG_TEST_ARRAY_LEN(widths)];
    spec.idx_dtype = (v / 12) % 2 ? CLG_DTYPE_INT32 : CLG_DTYPE_INT64;
    spec.rank = 3;
    spec.shape[0] = 3;
    spec.shape[1] = 4;
    spec.shape[2] = (v / 24) % 2 ? 16 : 5;
    spec.axis = (int64_t)(v % 3) - 1; /* -1, 0, 1 */
    if (spec.op == CLG_OP_GATHER) {
        spec.idx_rank = 2;
        spec.idx_shape[0] = 2;
        spec.idx_shape[1] = 3;
    } else {
        spec.idx_rank = 3;
        spec.idx_shape[0] = 2;
        spec.idx_shape[1] = 3;
        spec.idx_shape[2] = spec.shape[2];
        size_t a = (size_t)(spec.axis < 0 ? spec.axis + 3 : spec.axis);
        spec.idx_shape[a] = 6;
    }
    clg_test_random_case rc;
    clg_test_random_case_make(rng, &spec, &rc);
    clg_test_set_case("variant call %zu (CLG_TEST_SEED=%" PRIu64 "): %s", v,
                      seed, rc.desc);
    clg_test_check_random(ctx, 1, &rc);
    clg_test_random_case_free(&rc);
}

static void test_many_alternating_variants(void **state)
{
    clg_context *ctx = *state;
    clg_test_rng rng = {seed};
    for (size_t v = 0; v < 240; v++) {
        run_variant(ctx, &rng, v);
    }
    assert_string_equal(clg_context_last_error(ctx), "");
}

static void test_two_contexts_in_turn(void **state)
{
    clg_context *first = *state;
    clg_context *second = NULL;
    CLG_ASSERT_OK(NULL, clg_context_create(&second, NULL));
    clg_test_rng rng = {seed ^ 2};
    for (size_t v = 0; v < 96; v++) {
        run_variant(v % 2 ? second : first, &rng, v / 2);
    }
    clg_context_destroy(second);
    /* The first is unaffected by the other's destruction. */
    run_variant(first, &rng, 7);
}

static void test_create_destroy_repeatedly(void **state)
{
    (void)state;
    clg_test_rng rng = {seed ^ 3};
    for (size_t k = 0; k < 8; k++) {
        clg_context *ctx = NULL;
        CLG_ASSERT_OK(NULL, clg_context_create(&ctx, NULL));
        run_variant(ctx, &rng, k * 5);
        run_variant(ctx, &rng, k * 5 + 1);
        clg_context_destroy(ctx);
    }
}

int main(void)
{
    seed = clg_test_seed(DEFAULT_SEED);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_many_alternating_variants),
        cmocka_unit_test(test_two_contexts_in_turn),
        cmocka_unit_test(test_create_destroy_repeatedly),
    };
    return CLG_RUN_DEVICE_TESTS(tests);
}
