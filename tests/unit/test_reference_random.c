/* SPDX-License-Identifier: Apache-2.0 */
/* Randomized comparison of the CPU reference with the test's own oracle
 * (full multi-index formulas), bit for bit, with a fixed printed seed
 * (CLG_TEST_SEED overrides it). No device needed; the device test
 * (tests/device/test_random.c) runs the same kind of cases on OpenCL. */
#include "clg_test_random.h"

#include <inttypes.h>

#define CASES 2048
#define DEFAULT_SEED UINT64_C(0x5eed0001c1a7e5)

static uint64_t seed;

static void test_reference_matches_oracle(void **state)
{
    (void)state;
    clg_test_rng rng = {seed};
    size_t errors = 0, scalars = 0, empties = 0;
    for (size_t i = 0; i < CASES; i++) {
        clg_test_spec spec;
        clg_test_random_spec(&rng, i, &spec);
        clg_test_random_case rc;
        clg_test_random_case_make(&rng, &spec, &rc);
        clg_test_set_case("random case %zu (CLG_TEST_SEED=%" PRIu64 "): %s", i,
                          seed, rc.desc);
        clg_test_check_random(NULL, 0, &rc);
        errors += rc.expect != CLG_STATUS_OK;
        scalars += spec.op == CLG_OP_GATHER && spec.idx_rank == 0;
        empties += rc.out_bytes == 0;
        clg_test_random_case_free(&rc);
    }
    print_message("%d cases: %zu with out-of-range indices, %zu with scalar "
                  "indices, %zu with empty outputs\n",
                  CASES, errors, scalars, empties);
    /* The generator reaches every kind of case it promises. */
    assert_true(errors > 0);
    assert_true(scalars > 0);
    assert_true(empties > 0);
}

int main(void)
{
    seed = clg_test_seed(DEFAULT_SEED);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reference_matches_oracle),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
