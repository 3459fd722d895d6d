/* SPDX-License-Identifier: Apache-2.0 */
/* Randomized device-vs-reference comparison with a fixed, printed seed
 * (CLG_TEST_SEED overrides it): 2048 cases over both ops, all 16 dtypes,
 * INT32 and INT64 indices, data ranks 1 to 8, every axis (negative and
 * positive), negative index values, scalar indices, zero-size dims,
 * GatherElements indices smaller off the axis and larger or smaller on it,
 * misaligned host pointers, and planted out-of-range values. Float data
 * holds NaNs with payloads, -0.0, subnormals and infinities; STRING data
 * points into a pool with NUL bytes. Every result is compared bit for bit
 * with the CPU reference (same context) and the test's oracle. Then 512
 * more cases under each of several CLGATHER_PARAMS settings, so that the
 * small cases reach every walk of every plan (docs/design.md, "Device
 * parameters"). GatherND has cases of its own (every dtype, INT32 and
 * INT64, every batch_dims and tuple length of data ranks 1 to 5, negative
 * components, every out-of-range mode, empty tensors), compared the same
 * way, and under each setting too. Under CLG_TEST_QUICK=1 (the
 * ThreadSanitizer and Oclgrind lanes) one walk of the (op, dtype, index
 * type, rank) cycle, 512 cases, and 128 under each setting but those
 * with norm=1, taken every fifth spec of the cycle so that every op,
 * dtype, index type and rank still comes up; the norm=1 settings keep
 * their whole walk, which is what reaches both trusted Gather bodies, and
 * the GatherND cases stay as they are. */
#define _POSIX_C_SOURCE 200809L /* setenv, unsetenv */
#include "clg_test_random.h"

#include <inttypes.h>

#include "clg_test_cache.h" /* the program cache, to count the variants built */

#define CASES 2048
#define QUICK_CASES 512 /* one walk of clg_test_random_spec's cycle */
#define SETTING_CASES 512
#define QUICK_SETTING_CASES 128
#define QUICK_SETTING_STEP 5 /* odd: ops alternate; ranks reach 8 */
#define ND_CASES 512         /* four walks of dtype x index dtype x mode */
#define ND_SETTING_CASES 128
#define DEFAULT_SEED UINT64_C(0x5eed0001c1a7e5)

static uint64_t seed;
static size_t cases = CASES;
static int quick; /* CLG_TEST_QUICK=1 (clg_test_quick) */

static void test_device_matches_reference(void **state)
{
    clg_context *ctx = *state;
    clg_test_rng rng = {seed};
    size_t errors = 0, scalars = 0, empties = 0, misaligned = 0;
    size_t per_rank[CLG_TEST_RANDOM_MAX_RANK + 1] = {0};
    size_t negative_axis = 0, smaller_ge = 0;
    for (size_t i = 0; i < cases; i++) {
        clg_test_spec spec;
        clg_test_random_spec(&rng, i, &spec);
        clg_test_random_case rc;
        clg_test_random_case_make(&rng, &spec, &rc);
        clg_test_set_case("random case %zu (CLG_TEST_SEED=%" PRIu64 "): %s", i,
                          seed, rc.desc);
        clg_test_check_random(ctx, 1, &rc);

        errors += rc.expect != CLG_STATUS_OK;
        scalars += spec.op == CLG_OP_GATHER && spec.idx_rank == 0;
        empties += rc.out_bytes == 0;
        misaligned += spec.data_misalign || spec.idx_misalign ||
                      spec.out_misalign;
        per_rank[spec.rank]++;
        negative_axis += spec.axis < 0;
        if (spec.op == CLG_OP_GATHER_ELEMENTS) {
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
    print_message("%zu cases: %zu with out-of-range indices, %zu with scalar "
                  "indices, %zu with empty outputs, %zu with offset pointers, "
                  "%zu with a negative axis, %zu GatherElements with smaller "
                  "indices off the axis\n",
                  cases, errors, scalars, empties, misaligned, negative_axis,
                  smaller_ge);
    /* Coverage the generator promises. */
    assert_true(errors > 0);
    assert_true(scalars > 0);
    assert_true(empties > 0);
    assert_true(misaligned > 0);
    assert_true(negative_axis > 0);
    assert_true(smaller_ge > 0);
    for (size_t r = 1; r <= CLG_TEST_RANDOM_MAX_RANK; r++) {
        assert_int_equal(per_rank[r], cases / CLG_TEST_RANDOM_MAX_RANK);
    }
}

static void run_nd_cases(clg_context *ctx, const char *setting,
                         uint64_t stream, size_t count, size_t *errors,
                         size_t *resolved, size_t *empties)
{
    clg_test_rng rng = {seed ^ stream};
    for (size_t i = 0; i < count; i++) {
        clg_test_spec spec;
        clg_test_random_case rc;
        clg_test_random_nd_spec(&rng, i, &spec);
        clg_test_random_case_make(&rng, &spec, &rc);
        clg_test_set_case("CLGATHER_PARAMS=%s, GatherND case %zu "
                          "(CLG_TEST_SEED=%" PRIu64 "): %s",
                          setting, i, seed, rc.desc);
        clg_test_check_random(ctx, 1, &rc);
        *errors += rc.expect != CLG_STATUS_OK;
        *resolved += spec.oob != CLG_OOB_RAISE && spec.bad > 0 &&
                     rc.out_bytes > 0;
        *empties += rc.out_bytes == 0;
        clg_test_random_case_free(&rc);
    }
}

/* GatherND against the reference and the oracle: each (rank, batch_dims,
 * tuple length) triple at least 14 times, each dtype x index dtype x mode
 * four times. */
static void test_nd_device_matches_reference(void **state)
{
    clg_context *ctx = *state;
    size_t errors = 0, resolved = 0, empties = 0;
    run_nd_cases(ctx, "(the device's)", 0x9d, ND_CASES, &errors, &resolved,
                 &empties);
    print_message("%d GatherND cases: %zu raised, %zu with bad components "
                  "resolved by wrap, clip or fill, %zu with empty outputs\n",
                  ND_CASES, errors, resolved, empties);
    assert_true(ND_CASES >= 14 * CLG_TEST_ND_TRIPLES);
    assert_true(errors > 0);
    assert_true(resolved > 0);
    assert_true(empties > 0);
    assert_true(clg_test_kernels_named(ctx, "clg_gather_nd") >= 1);
}

/* The kernel variants the cases above built, and that they are the plan's
 * (the device's, or CLGATHER_TEST_PLAN's): on a GPU plan 32-bit offsets
 * among them and no CPU-only entry point, on a CPU plan the reverse. */
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
                        strstr(p->kernels[k].name, "_pack") ||
                        strstr(p->kernels[k].name, "normed") ||
                        strstr(p->kernels[k].name, "_normalize");
    }
    int gpu_plan = ctx->facts.plan_type != CLG_DEVICE_TYPE_CPU;
    print_message("%s plan: %zu programs built (%zu with 32-bit offsets), "
                  "%zu kernels (%zu CPU-only)\n",
                  gpu_plan ? "GPU" : "CPU", ctx->program_count, narrow,
                  kernels, cpu_only);
    assert_true(ctx->program_count >= 20);
    if (gpu_plan) {
        assert_true(narrow >= 10);
        assert_int_equal(cpu_only, 0);
    } else {
        assert_int_equal(narrow, 0);
        assert_true(cpu_only > 0);
    }
}

/* CLGATHER_PARAMS settings that reach every walk and body of the small
 * random cases: narrow strips (in place and packed, passes of several
 * strips or all), work-groups that pad dimension 0, wide units (spans of
 * several units in the lean Gather body), and on devices whose compiler
 * takes clang's built-ins, prefetching and non-temporal stores. */
static const char *const portable_settings[] = {
    "strip=8,chunk=3,norm=1", "strip=4,pack=0,norm=0,unit=64",
    "strip=16,chunk=0,wg=7,norm=1", "strip=12,chunk=1,wg=64"};
static const char *const builtin_settings[] = {
    "unit=64,prefetch=4,nt=1",
    "unit=16,prefetch=1,nt=0,strip=8,chunk=2,pack=2",
    "unit=8,prefetch=0,nt=1,wg=5",
};

static void run_cases_with(clg_context *ctx, const char *setting,
                           uint64_t stream)
{
    clg_test_rng rng = {seed ^ stream};
    int whole = !quick || strstr(setting, "norm=1") != NULL;
    size_t count = whole ? SETTING_CASES : QUICK_SETTING_CASES;
    size_t step = whole ? 1 : QUICK_SETTING_STEP;
    clg_params p = clg_context_params_entry(ctx)->params;
    CLG_ASSERT_OK(ctx, clg_context_parse_params(ctx, setting, &p));
    CLG_ASSERT_OK(ctx, clg_context_set_params(ctx, &p));
    for (size_t i = 0; i < count; i++) {
        clg_test_spec spec;
        clg_test_random_case rc;
        clg_test_random_spec(&rng, i * step, &spec);
        clg_test_random_case_make(&rng, &spec, &rc);
        clg_test_set_case("CLGATHER_PARAMS=%s, case %zu "
                          "(CLG_TEST_SEED=%" PRIu64 "): %s",
                          setting, i, seed, rc.desc);
        clg_test_check_random(ctx, 1, &rc);
        clg_test_random_case_free(&rc);
    }
    size_t errors = 0, resolved = 0, empties = 0;
    run_nd_cases(ctx, setting, stream ^ 0x9d, ND_SETTING_CASES, &errors,
                 &resolved, &empties);
}

/* The same comparison under each setting; where the device's entry has
 * no built-ins, a setting that asks for them is refused by name. On the
 * CPU plan, norm=1 reaches both trusted Gather bodies. */
static void test_device_parameters(void **state)
{
    clg_context *ctx = *state;
    const clg_params_entry *e = clg_context_params_entry(ctx);
    for (size_t k = 0; k < CLG_TEST_ARRAY_LEN(portable_settings); k++)
        run_cases_with(ctx, portable_settings[k], k + 1);
    for (size_t k = 0; k < CLG_TEST_ARRAY_LEN(builtin_settings); k++) {
        if (e->builtins) {
            run_cases_with(ctx, builtin_settings[k], k + 101);
            continue;
        }
        const int64_t shape[1] = {4};
        float d[4] = {0}, o[4];
        int64_t i[4] = {0, 1, 2, 3};
        clg_tensor D = {CLG_DTYPE_FLOAT, 1, shape, d};
        clg_tensor I = {CLG_DTYPE_INT64, 1, shape, i};
        clg_tensor O = {CLG_DTYPE_FLOAT, 1, shape, o};
        clg_params p = e->params;
        CLG_ASSERT_STATUS(ctx,
                          clg_context_parse_params(ctx, builtin_settings[k],
                                                   &p),
                          CLG_STATUS_INVALID_ARGUMENT);
        CLG_ASSERT_CONTAINS(clg_context_last_error(ctx), "clang's built-ins");
        p = e->params;
        p.nt = 1;
        CLG_ASSERT_STATUS(ctx, clg_context_set_params(ctx, &p),
                          CLG_STATUS_INVALID_ARGUMENT);
        CLG_ASSERT_CONTAINS(clg_context_last_error(ctx), "clang's built-ins");
        /* The refused setting left the parameters in use as they were. */
        CLG_ASSERT_OK(ctx, clg_gather(ctx, &D, &I, 0, &O));
    }
    CLG_ASSERT_OK(ctx, clg_context_set_params(ctx, &e->params));
    size_t normed = clg_test_kernels_named(ctx, "_normed");
    print_message("entry \"%s\": %zu settings with built-ins %s; %zu "
                  "trusted Gather bodies built\n",
                  e->name, CLG_TEST_ARRAY_LEN(builtin_settings),
                  e->builtins ? "run" : "refused", normed);
    size_t spans = 0; /* programs of the lean Gather body with spans */
    for (size_t i = 0; i < ctx->program_count; i++) {
        const char *span = strstr(ctx->programs[i]->key, "-DCLG_SPAN=");
        spans += span != NULL && atoi(span + strlen("-DCLG_SPAN=")) > 1;
    }
    print_message("%zu programs with spans of several units\n", spans);
    if (ctx->facts.plan_type == CLG_DEVICE_TYPE_CPU) {
        assert_true(spans >= 1);
        assert_true(clg_test_kernels_named(ctx, "clg_gather_lean_normed") >=
                    1);
        assert_true(clg_test_kernels_named(ctx, "clg_gather_units_normed") >=
                    1);
    } else {
        assert_int_equal(normed, 0);
        assert_int_equal(spans, 0);
    }
}

int main(void)
{
    seed = clg_test_seed(DEFAULT_SEED);
    quick = clg_test_quick();
    if (quick)
        cases = QUICK_CASES;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_device_matches_reference),
        cmocka_unit_test(test_nd_device_matches_reference),
        cmocka_unit_test(test_variants_built),
        cmocka_unit_test(test_device_parameters),
    };
    return CLG_RUN_DEVICE_TESTS(tests);
}
