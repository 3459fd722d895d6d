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

#include "context.h" /* the program cache, to count the variants built */

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

/* The kernel variants the cases above built, and under
 * CLGATHER_TEST_PLAN=gpu that they are the GPU's: 32-bit offsets among
 * them, no CPU-only entry point. */
static void test_variants_built(void **state)
{
    clg_context *ctx = *state;
    size_t kernels = 0, narrow = 0, cpu_only = 0;
    for (size_t i = 0; i < ctx->program_count; i++) {
        const clg_cached_program *p = ctx->programs[i];
        kernels += p->kernel_count;
        narrow += strstr(p->key, "-DCLG_WIDE=0") != NULL;
        for (size_t k = 0; k < p->kernel_count; k++)
            cpu_only += strstr(p->kernels[k].name, "_lean") ||
                        strstr(p->kernels[k].name, "_strips");
    }
    const char *plan = getenv("CLGATHER_TEST_PLAN");
    int gpu_plan = plan && !strcmp(plan, "gpu");
    print_message("%s plan: %zu programs built (%zu with 32-bit offsets), "
                  "%zu kernels (%zu CPU-only)\n",
                  gpu_plan ? "GPU" : "device", ctx->program_count, narrow,
                  kernels, cpu_only);
    assert_true(ctx->program_count >= 20);
    if (gpu_plan || clg_context_device_type(ctx) == CLG_DEVICE_TYPE_GPU) {
        assert_true(narrow >= 10);
        assert_int_equal(cpu_only, 0);
    } else {
        assert_int_equal(narrow, 0);
        assert_true(cpu_only > 0);
    }
}

int main(void)
{
    seed = clg_test_seed(DEFAULT_SEED);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_device_matches_reference),
        cmocka_unit_test(test_variants_built),
    };
    return CLG_RUN_DEVICE_TESTS(tests);
}
