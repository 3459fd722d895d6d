/* Randomized device-vs-reference comparison with a fixed, printed seed
 * (CLG_TEST_SEED overrides it): 2048 cases over both ops, all 16 dtypes,
 * INT32 and INT64 indices, data ranks 1 to 8, every axis (negative and
 * positive), negative index values, scalar indices, zero-size dims,
 * GatherElements indices smaller off the axis and larger or smaller on it,
 * misaligned host pointers, and planted out-of-range values. Float data
 * holds NaNs with payloads, -0.0, subnormals and infinities; STRING data
 * points into a pool with NUL bytes. Every result is compared bit for bit
 * with the CPU reference (same context) and the test's oracle. */
#include "clg_test_random.h"

#include <inttypes.h>

#define CASES 2048
#define DEFAULT_SEED UINT64_C(0x5eed0001c1a7e5)

static uint64_t seed;

static void test_device_matches_reference(void **state)
{
    clg_context *ctx = *state;
    clg_test_rng rng = {seed};
    size_t errors = 0, scalars = 0, empties = 0, misaligned = 0;
    size_t per_rank[CLG_TEST_RANDOM_MAX_RANK + 1] = {0};
    size_t negative_axis = 0, smaller_ge = 0;
    for (size_t i = 0; i < CASES; i++) {
        clg_test_spec spec;
        clg_test_random_spec(&rng, i, &spec);
        clg_test_random_case rc;
        clg_test_random_case_make(&rng, &spec, &rc);
        clg_test_set_case("random case %zu (CLG_TEST_SEED=%" PRIu64 "): %s", i,
                          seed, rc.desc);
        clg_test_check_random(ctx, 1, &rc);

        errors += rc.expect != CLG_STATUS_OK;
        scalars += spec.op == CLG_TEST_GATHER && spec.idx_rank == 0;
        empties += rc.out_bytes == 0;
        misaligned += spec.data_misalign || spec.idx_misalign ||
                      spec.out_misalign;
        per_rank[spec.rank]++;
        negative_axis += spec.axis < 0;
        if (spec.op == CLG_TEST_GATHER_ELEMENTS) {
            for (size_t d = 0; d < spec.rank; d++) {
                size_t a = (size_t)(spec.axis < 0
                                        ? spec.axis + (int64_t)spec.rank
                                        : spec.axis);
                if (d != a && spec.idx_shape[d] < spec.shape[d]) {
                    smaller_ge++;
                    break;
                }
            }
        }
        clg_test_random_case_free(&rc);
    }
    print_message("%d cases: %zu with out-of-range indices, %zu with scalar "
                  "indices, %zu with empty outputs, %zu with offset pointers, "
                  "%zu with a negative axis, %zu GatherElements with smaller "
                  "indices off the axis\n",
                  CASES, errors, scalars, empties, misaligned, negative_axis,
                  smaller_ge);
    /* Coverage the generator promises. */
    assert_true(errors > 0);
    assert_true(scalars > 0);
    assert_true(empties > 0);
    assert_true(misaligned > 0);
    assert_true(negative_axis > 0);
    assert_true(smaller_ge > 0);
    for (size_t r = 1; r <= CLG_TEST_RANDOM_MAX_RANK; r++) {
        assert_int_equal(per_rank[r], CASES / CLG_TEST_RANDOM_MAX_RANK);
    }
}

int main(void)
{
    seed = clg_test_seed(DEFAULT_SEED);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_device_matches_reference),
    };
    return CLG_RUN_DEVICE_TESTS(tests);
}
