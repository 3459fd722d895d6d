/* SPDX-License-Identifier: Apache-2.0 */
/* Randomized comparison of the CPU reference with the test's own oracle
 * (full multi-index formulas), bit for bit, with a fixed printed seed
 * (CLG_TEST_SEED overrides it), for Gather and GatherElements, then for
 * GatherND under every out-of-range mode. No device needed; the device
 * test (tests/device/test_random.c) runs the same kind of cases on
 * OpenCL. */
#include "clg_test_random.h"

#include <inttypes.h>

#define CASES 2048
#define ND_CASES 1280 /* ten walks of dtype x index dtype x mode */
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

static void test_reference_matches_oracle_nd(void **state)
{
    (void)state;
    clg_test_rng rng = {seed ^ UINT64_C(0x9d)};
    size_t errors = 0, empties = 0, resolved = 0, negative = 0;
    size_t per_triple[CLG_TEST_ND_TRIPLES] = {0}, per_mode[4] = {0};
    for (size_t i = 0; i < ND_CASES; i++) {
        clg_test_spec spec;
        clg_test_random_nd_spec(&rng, i, &spec);
        clg_test_random_case rc;
        clg_test_random_case_make(&rng, &spec, &rc);
        clg_test_set_case("GatherND random case %zu (CLG_TEST_SEED=%" PRIu64
                          "): %s",
                          i, seed, rc.desc);
        clg_test_check_random(NULL, 0, &rc);
        errors += rc.expect != CLG_STATUS_OK;
        empties += rc.out_bytes == 0;
        resolved += spec.oob != CLG_OOB_RAISE && spec.bad > 0 &&
                    rc.out_bytes > 0;
        int64_t n = clg_test_count(spec.idx_shape, spec.idx_rank);
        for (int64_t j = 0; j < n; j++) {
            if (clg_test_index_at(&rc.indices.t, j) < 0) {
                negative++;
                break;
            }
        }
        per_triple[i % CLG_TEST_ND_TRIPLES]++;
        per_mode[spec.oob]++;
        clg_test_random_case_free(&rc);
    }
    print_message("%d GatherND cases: %zu with out-of-range components "
                  "under raise, %zu resolved by wrap, clip or fill, %zu "
                  "with negative components, %zu with empty outputs\n",
                  ND_CASES, errors, resolved, negative, empties);
    assert_true(errors > 0);
    assert_true(resolved > 0);
    assert_true(negative > 0);
    assert_true(empties > 0);
    for (size_t t = 0; t < CLG_TEST_ND_TRIPLES; t++) {
        assert_true(per_triple[t] >= ND_CASES / CLG_TEST_ND_TRIPLES);
    }
    for (size_t m = 0; m < 4; m++) {
        assert_int_equal(per_mode[m], ND_CASES / 4);
    }
}

/* The oracle itself on a GatherND case worked by hand: data [2, 3, 2]
 * int32 (value 10 * i + j * 2 + t), batch_dims 1, indices [2, 2, 1] with
 * values {{2}, {-1}} and {{-4}, {3}} (two out of range for dim 1 of size
 * 3): raise names indices[1][0][0] = -4; wrap, clip and fill give the
 * slices worked out below. */
static void test_oracle_nd_by_hand(void **state)
{
    (void)state;
    int32_t data[12];
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 3; j++)
            for (int t = 0; t < 2; t++)
                data[i * 6 + j * 2 + t] = 10 * i + 2 * j + t;
    const int64_t dshape[3] = {2, 3, 2}, ishape[3] = {2, 2, 1};
    int64_t idx[4] = {2, -1, -4, 3};
    clg_tensor D = {CLG_DTYPE_INT32, 3, dshape, data};
    clg_tensor I = {CLG_DTYPE_INT64, 3, ishape, idx};
    int64_t oshape[8];
    assert_int_equal(clg_test_output_shape(CLG_OP_GATHER_ND, &D, &I, 1,
                                           oshape),
                     3);
    assert_int_equal(oshape[0], 2);
    assert_int_equal(oshape[1], 2);
    assert_int_equal(oshape[2], 2);
    int32_t out[8];
    clg_test_bad_index bad;
    assert_int_equal(clg_test_oracle(CLG_OP_GATHER_ND, &D, &I, 1, out, &bad),
                     CLG_STATUS_INDEX_OUT_OF_RANGE);
    assert_string_equal(bad.position, "indices[1][0][0]");
    assert_int_equal(bad.value, -4);
    assert_int_equal(bad.lo, -3);
    assert_int_equal(bad.hi, 2);
    assert_int_equal(bad.dim, 1);
    /* batch 0: rows 2 and 2 (-1); batch 1: -4 and 3 resolved */
    static const int32_t want[3][8] = {
        {4, 5, 4, 5, 14, 15, 10, 11}, /* wrap: -4 -> 2, 3 -> 0 */
        {4, 5, 4, 5, 10, 11, 14, 15}, /* clip: -4 -> -3 = 0, 3 -> 2 */
        {4, 5, 4, 5, 0, 0, 0, 0},     /* fill: zero slices */
    };
    const clg_oob_mode modes[3] = {CLG_OOB_WRAP, CLG_OOB_CLIP, CLG_OOB_FILL};
    for (size_t m = 0; m < 3; m++) {
        memset(out, 0x7f, sizeof out);
        assert_int_equal(clg_test_oracle_mode(CLG_OP_GATHER_ND, &D, &I, 1,
                                              modes[m], out, NULL),
                         CLG_STATUS_OK);
        assert_memory_equal(out, want[m], sizeof out);
    }
}

int main(void)
{
    seed = clg_test_seed(DEFAULT_SEED);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reference_matches_oracle),
        cmocka_unit_test(test_reference_matches_oracle_nd),
        cmocka_unit_test(test_oracle_nd_by_hand),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
