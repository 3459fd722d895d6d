/* SPDX-License-Identifier: Apache-2.0 */
/* Memory layouts the random test reaches rarely: Gather inner blocks that
 * are multiples of 16 bytes at aligned addresses (the device may move them
 * in wide units), the same at offset addresses (odd byte offsets for 1-byte
 * dtypes, one or two elements for wider ones), and GatherElements shapes
 * with long inner runs, ragged (indices smaller than data off the axis) or
 * not, larger than the small random cases, and along the last axis with
 * rows of every length class of the lanes body. Bit-exact against the CPU
 * reference and the oracle. */
#include "clg_test_random.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_SEED UINT64_C(0x1a70075eed)

typedef struct layout {
    clg_op op;
    clg_dtype dtype;
    size_t rank;
    int64_t shape[4];
    int64_t axis;
    size_t idx_rank;
    int64_t idx_shape[4];
} layout;

#define G CLG_OP_GATHER
#define GE CLG_OP_GATHER_ELEMENTS

static const layout layouts[] = {
    /* Gather: inner block a multiple of 16 bytes */
    {G, CLG_DTYPE_FLOAT, 2, {7, 4}, 0, 1, {5}},
    {G, CLG_DTYPE_FLOAT, 3, {3, 5, 8}, 1, 2, {2, 3}},
    {G, CLG_DTYPE_UINT8, 2, {5, 32}, 0, 1, {9}},
    {G, CLG_DTYPE_UINT8, 2, {4, 48}, -2, 2, {3, 2}},
    {G, CLG_DTYPE_INT16, 3, {3, 4, 8}, 1, 1, {6}},
    {G, CLG_DTYPE_DOUBLE, 3, {6, 2, 2}, 0, 1, {4}},
    {G, CLG_DTYPE_COMPLEX128, 2, {4, 3}, 0, 0, {0}},
    {G, CLG_DTYPE_STRING, 2, {5, 2}, 0, 1, {7}},
    {G, CLG_DTYPE_BFLOAT16, 2, {9, 24}, 0, 1, {11}},
    {G, CLG_DTYPE_FLOAT, 2, {64, 256}, 0, 1, {200}},
    {G, CLG_DTYPE_UINT64, 3, {3, 17, 64}, 1, 2, {5, 5}},
    /* Gather: blocks of 24, 6, 12, 1 bytes */
    {G, CLG_DTYPE_FLOAT, 3, {2, 3, 6}, -2, 1, {5}},
    {G, CLG_DTYPE_UINT8, 2, {10, 6}, 0, 1, {13}},
    {G, CLG_DTYPE_INT8, 2, {10, 12}, 0, 2, {2, 3}},
    {G, CLG_DTYPE_UINT8, 2, {300, 100}, 1, 1, {7}},
    {G, CLG_DTYPE_BOOL, 3, {9, 3, 5}, 2, 1, {8}},
    {G, CLG_DTYPE_FLOAT16, 3, {5, 7, 3}, 0, 0, {0}},
    /* GatherElements: long inner runs, ragged and not */
    {GE, CLG_DTYPE_FLOAT, 2, {5, 600}, 0, 2, {7, 517}},
    {GE, CLG_DTYPE_UINT8, 2, {3, 1500}, 0, 2, {4, 1100}},
    {GE, CLG_DTYPE_COMPLEX128, 2, {3, 100}, 0, 2, {5, 70}},
    {GE, CLG_DTYPE_FLOAT, 3, {4, 3, 200}, 0, 3, {6, 2, 150}},
    {GE, CLG_DTYPE_INT64, 3, {2, 6, 300}, 1, 3, {2, 9, 300}},
    {GE, CLG_DTYPE_INT16, 3, {3, 4, 700}, -2, 3, {2, 3, 650}},
    {GE, CLG_DTYPE_FLOAT, 2, {600, 3}, 1, 2, {600, 5}},
    {GE, CLG_DTYPE_DOUBLE, 4, {4, 5, 6, 40}, 2, 4, {3, 5, 9, 40}},
    {GE, CLG_DTYPE_STRING, 2, {3, 90}, 0, 2, {4, 80}},
    {GE, CLG_DTYPE_UINT32, 2, {2, 2000}, 0, 2, {1, 2000}},
    {GE, CLG_DTYPE_BFLOAT16, 3, {2, 600, 2}, 1, 3, {2, 700, 1}},
    /* GatherElements along the last axis: on CPU plans the lanes body's
     * vectors of sixteen and its one-by-one tail (rows of 5, 16, 37 and
     * 100 elements, indices longer than the axis), and the lean body for
     * 16-byte elements */
    {GE, CLG_DTYPE_FLOAT, 2, {9, 37}, 1, 2, {9, 37}},
    {GE, CLG_DTYPE_UINT8, 2, {6, 16}, -1, 2, {6, 16}},
    {GE, CLG_DTYPE_INT16, 3, {2, 3, 5}, 2, 3, {2, 3, 5}},
    {GE, CLG_DTYPE_DOUBLE, 2, {7, 20}, 1, 2, {5, 100}},
    {GE, CLG_DTYPE_COMPLEX128, 2, {5, 40}, 1, 2, {5, 40}},
    /* rows whose vectors of sixteen are aligned to their size where the
     * buffers are (the lanes body's non-temporal stores) */
    {GE, CLG_DTYPE_FLOAT, 2, {8, 64}, 1, 2, {8, 64}},
    {GE, CLG_DTYPE_INT64, 2, {4, 48}, -1, 2, {4, 48}},
};

/* The first of the last-axis layouts above. */
#define LAST_AXIS_FIRST (CLG_TEST_ARRAY_LEN(layouts) - 7)

static uint64_t seed;
static int quick; /* CLG_TEST_QUICK=1 (clg_test_quick) */

/* Offsets (in elements of the data dtype, or bytes for 1-byte dtypes) of
 * data, indices (in index elements) and output. */
static const size_t offsets[][3] = {
    {0, 0, 0}, {1, 0, 0}, {0, 0, 1}, {1, 1, 1}, {3, 1, 2}, {2, 0, 3},
};

static void run_layouts(clg_context *ctx, clg_dtype idx_dtype, size_t first)
{
    clg_test_rng rng = {seed};
    for (size_t i = first; i < CLG_TEST_ARRAY_LEN(layouts); i++) {
        const layout *l = &layouts[i];
        for (size_t k = 0; k < CLG_TEST_ARRAY_LEN(offsets); k++) {
            /* CLG_TEST_QUICK=1: aligned, and one set of offsets in turn. */
            if (quick && k != 0 &&
                k != 1 + i % (CLG_TEST_ARRAY_LEN(offsets) - 1)) {
                continue;
            }
            clg_test_spec spec;
            memset(&spec, 0, sizeof spec);
            spec.op = l->op;
            spec.dtype = l->dtype;
            spec.idx_dtype = idx_dtype;
            spec.rank = l->rank;
            memcpy(spec.shape, l->shape, sizeof l->shape);
            spec.axis = l->axis;
            spec.idx_rank = l->idx_rank;
            memcpy(spec.idx_shape, l->idx_shape, sizeof l->idx_shape);
            size_t elem = clg_test_dtype_size(l->dtype);
            size_t ielem = clg_test_dtype_size(idx_dtype);
            /* 1-byte dtypes: odd byte offsets; wider: whole elements. */
            spec.data_misalign =
                elem == 1 ? (offsets[k][0] ? 2 * offsets[k][0] - 1 : 0)
                          : offsets[k][0] * elem;
            spec.idx_misalign = offsets[k][1] * ielem;
            spec.out_misalign =
                elem == 1 ? (offsets[k][2] ? 2 * offsets[k][2] - 1 : 0)
                          : offsets[k][2] * elem;
            if (spec.data_misalign >= CLG_TEST_GUARD ||
                spec.out_misalign >= CLG_TEST_GUARD) {
                continue;
            }
            clg_test_random_case rc;
            clg_test_random_case_make(&rng, &spec, &rc);
            clg_test_set_case("layout %zu offsets %zu (CLG_TEST_SEED=%" PRIu64
                              "): %s",
                              i, k, seed, rc.desc);
            assert_int_equal(rc.expect, CLG_STATUS_OK);
            clg_test_check_random(ctx, 1, &rc);
            clg_test_random_case_free(&rc);
        }
    }
}

static void test_layouts_int64(void **state)
{
    run_layouts(*state, CLG_DTYPE_INT64, 0);
}

static void test_layouts_int32(void **state)
{
    run_layouts(*state, CLG_DTYPE_INT32, 0);
}

/* The last-axis layouts with `nt=1` where the device's row has the clang
 * built-ins: the lanes body then stores its aligned vectors
 * non-temporally (it does so by itself only on outputs larger than the
 * device's cache). */
static void test_layouts_last_axis_nt(void **state)
{
    clg_context *ctx = *state;
    const clg_params_entry *e = clg_context_params_entry(ctx);
    clg_params p = e->params;
    CLG_ASSERT_OK(ctx,
                  clg_context_parse_params(ctx, e->builtins ? "nt=1" : "nt=0",
                                           &p));
    CLG_ASSERT_OK(ctx, clg_context_set_params(ctx, &p));
    run_layouts(ctx, CLG_DTYPE_INT64, LAST_AXIS_FIRST);
    run_layouts(ctx, CLG_DTYPE_INT32, LAST_AXIS_FIRST);
    CLG_ASSERT_OK(ctx, clg_context_set_params(ctx, &e->params));
}

/* Gather rows of 1 KiB, float data [rows, 256] along axis 0, where the
 * lean body moves 64-byte spans: with the device's row (the rows with
 * clang's built-ins store them non-temporally when the call moves more
 * than the cache: an output of 17 MiB does on caches up to 34 MiB) and
 * with nt=1 where the row has the built-ins. The output is host memory at 0, 4, 32 and 64 bytes past a
 * 64-byte boundary, a device buffer, and buffers over host memory
 * (CL_MEM_USE_HOST_PTR) 4 and 64 bytes past one: a whole-span store lands
 * only where the output is aligned to the span, and no plan may assume a
 * buffer aligned beyond its pointer (under the GPU plan 16-byte units
 * crashed on the unaligned one), so every one must match the values by
 * hand and the CPU reference. */
static void check_span_output(const float *got, const int64_t *idx,
                              int64_t rows, int64_t m, const float *ref)
{
    for (int64_t r = 0; r < m; r++) {
        int64_t src = idx[r] < 0 ? idx[r] + rows : idx[r];
        for (int64_t k = 0; k < 256; k++)
            if (got[r * 256 + k] != (float)(src * 256 + k))
                fail_msg("%s: output [%" PRId64 ", %" PRId64 "] is %.9g, "
                         "want %.9g",
                         clg_test_case_text(), r, k, got[r * 256 + k],
                         (double)(src * 256 + k));
    }
    CLG_ASSERT_BYTES(got, ref, (size_t)m * 256 * sizeof(float), sizeof(float),
                     "output against the CPU reference");
}

static void run_span_outputs(clg_context *ctx, const char *params)
{
    const int64_t rows = quick ? 64 : 4096, m = quick ? 96 : 17408;
    const size_t out_bytes = (size_t)m * 256 * sizeof(float);
    const int64_t dshape[2] = {rows, 256}, ishape[1] = {m},
                  oshape[2] = {m, 256};
    float *data = malloc((size_t)rows * 256 * sizeof(float));
    int64_t *idx = malloc((size_t)m * sizeof(int64_t));
    float *ref = malloc(out_bytes);
    unsigned char *space = aligned_alloc(64, out_bytes + 128);
    float *back = malloc(out_bytes);
    assert_non_null(data);
    assert_non_null(idx);
    assert_non_null(ref);
    assert_non_null(space);
    assert_non_null(back);
    for (int64_t i = 0; i < rows * 256; i++)
        data[i] = (float)i;
    for (int64_t r = 0; r < m; r++)
        idx[r] = (r * 7 + 3) % rows - (r % 5 == 0 ? rows : 0);
    clg_tensor d = {CLG_DTYPE_FLOAT, 2, dshape, data};
    clg_tensor ix = {CLG_DTYPE_INT64, 1, ishape, idx};
    clg_tensor ro = {CLG_DTYPE_FLOAT, 2, oshape, ref};
    CLG_ASSERT_OK(ctx, clg_reference_gather(ctx, &d, &ix, 0, &ro));
    static const size_t host_offsets[] = {0, 4, 32, 64};
    for (size_t i = 0; i < CLG_TEST_ARRAY_LEN(host_offsets); i++) {
        float *out = (float *)(void *)(space + host_offsets[i]);
        memset(out, 0xa5, out_bytes);
        clg_tensor o = {CLG_DTYPE_FLOAT, 2, oshape, out};
        clg_test_set_case("Gather spans, %s, host output %zu bytes past 64",
                          params, host_offsets[i]);
        CLG_ASSERT_OK(ctx, clg_gather(ctx, &d, &ix, 0, &o));
        check_span_output(out, idx, rows, m, ref);
    }
    cl_context cl = clg_context_cl_context(ctx);
    cl_command_queue q = clg_context_cl_queue(ctx);
    cl_mem db = clg_test_buffer(ctx, data, (size_t)rows * 256 * sizeof(float));
    cl_mem ib = clg_test_buffer(ctx, idx, (size_t)m * sizeof(int64_t));
    static const long wrap_offsets[] = {-1, 4, 64}; /* -1: plain buffer */
    for (size_t i = 0; i < CLG_TEST_ARRAY_LEN(wrap_offsets); i++) {
        cl_int err = CL_SUCCESS;
        cl_mem ob;
        memset(space, 0xa5, out_bytes + 128);
        if (wrap_offsets[i] < 0)
            ob = clg_test_buffer(ctx, space, out_bytes);
        else
            ob = clCreateBuffer(cl, CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR,
                                out_bytes, space + wrap_offsets[i], &err);
        assert_int_equal(err, CL_SUCCESS);
        clg_cl_tensor dc = {CLG_DTYPE_FLOAT, 2, dshape, db};
        clg_cl_tensor ic = {CLG_DTYPE_INT64, 1, ishape, ib};
        clg_cl_tensor oc = {CLG_DTYPE_FLOAT, 2, oshape, ob};
        clg_test_set_case("Gather spans, %s, %s output buffer%s %ld", params,
                          wrap_offsets[i] < 0 ? "device" : "host-pointer",
                          wrap_offsets[i] < 0 ? "" : " bytes past 64,",
                          wrap_offsets[i]);
        CLG_ASSERT_OK(ctx, clg_gather_cl(ctx, &dc, &ic, 0, &oc));
        assert_int_equal(clEnqueueReadBuffer(q, ob, CL_TRUE, 0, out_bytes,
                                             back, 0, NULL, NULL),
                         CL_SUCCESS);
        check_span_output(back, idx, rows, m, ref);
        clReleaseMemObject(ob);
    }
    clReleaseMemObject(db);
    clReleaseMemObject(ib);
    free(back);
    free(space);
    free(ref);
    free(idx);
    free(data);
}

static void test_gather_span_outputs(void **state)
{
    clg_context *ctx = *state;
    const clg_params_entry *e = clg_context_params_entry(ctx);
    clg_params p = e->params;
    run_span_outputs(ctx, "the device's row");
    if (!e->builtins)
        return; /* nt=1 needs clang's built-ins; the row's run is above */
    CLG_ASSERT_OK(ctx, clg_context_parse_params(ctx, "nt=1", &p));
    CLG_ASSERT_OK(ctx, clg_context_set_params(ctx, &p));
    run_span_outputs(ctx, "nt=1");
    CLG_ASSERT_OK(ctx, clg_context_set_params(ctx, &e->params));
}

/* GatherElements along the last axis of float data [3, 64] (on CPU plans
 * the lanes body, sixteen positions a vector) under every mode, index
 * values by hand: in range both ways, just out (-65, 64) and far out
 * (+-200, the INT64 extremes). Expected values from the formulas of the
 * header, not the reference: wrap v mod s, clip v clamped to [-s, s-1]
 * then made positive, fill 0. Oclgrind once computed the clip lanes
 * wrongly (clamp with scalar bounds on a long16); raise must fail. */
static void test_elements_lanes_modes(void **state)
{
    clg_context *ctx = *state;
    enum { R = 3, S = 64 };
    static const clg_oob_mode modes[] = {CLG_OOB_RAISE, CLG_OOB_WRAP,
                                         CLG_OOB_CLIP, CLG_OOB_FILL};
    const int64_t shape[2] = {R, S};
    float data[R * S], out[R * S];
    int64_t idx[R * S];
    for (int64_t k = 0; k < R * S; k++) {
        static const int64_t far[] = {-65,  64,        200,
                                      -200, INT64_MIN, INT64_MAX};
        data[k] = (float)(k + 1);
        idx[k] = k % 7 == 3 ? far[(k / 7) % 6] : (k * 5) % (2 * S) - S;
    }
    clg_tensor d = {CLG_DTYPE_FLOAT, 2, shape, data};
    clg_tensor i = {CLG_DTYPE_INT64, 2, shape, idx};
    clg_tensor o = {CLG_DTYPE_FLOAT, 2, shape, out};
    for (size_t m = 0; m < CLG_TEST_ARRAY_LEN(modes); m++) {
        clg_call_options opt = {.oob = modes[m]};
        clg_test_set_case("GatherElements [3, 64] last axis, mode %s",
                          clg_oob_mode_name(modes[m]));
        memset(out, 0xa5, sizeof out);
        clg_status st = clg_gather_elements_ex(ctx, &d, &i, -1, &o, &opt);
        if (modes[m] == CLG_OOB_RAISE) {
            CLG_ASSERT_STATUS(ctx, st, CLG_STATUS_INDEX_OUT_OF_RANGE);
            continue;
        }
        CLG_ASSERT_OK(ctx, st);
        for (int64_t k = 0; k < R * S; k++) {
            int64_t v = idx[k], p = clg_test_oob_position(v, S, modes[m]);
            float want = p < 0 ? 0.0f : data[(k / S) * S + p];
            if (out[k] != want)
                fail_msg("%s: output %" PRId64 " (index %" PRId64
                         ") is %.9g, want %.9g",
                         clg_test_case_text(), k, v, out[k], want);
        }
    }
}

/* A bad index at the very end of a long GatherElements run and of a wide
 * Gather block: reported, output untouched. */
static void test_layouts_with_bad_index(void **state)
{
    clg_context *ctx = *state;
    clg_test_rng rng = {seed ^ 0xbad};
    for (size_t i = 0; i < CLG_TEST_ARRAY_LEN(layouts); i++) {
        const layout *l = &layouts[i];
        clg_test_spec spec;
        memset(&spec, 0, sizeof spec);
        spec.op = l->op;
        spec.dtype = l->dtype;
        spec.idx_dtype = i % 2 ? CLG_DTYPE_INT32 : CLG_DTYPE_INT64;
        spec.rank = l->rank;
        memcpy(spec.shape, l->shape, sizeof l->shape);
        spec.axis = l->axis;
        spec.idx_rank = l->idx_rank;
        memcpy(spec.idx_shape, l->idx_shape, sizeof l->idx_shape);
        spec.bad = 1 + (int)(i % 2);
        clg_test_random_case rc;
        clg_test_random_case_make(&rng, &spec, &rc);
        clg_test_set_case("layout %zu with bad indices (CLG_TEST_SEED=%" PRIu64
                          "): %s",
                          i, seed, rc.desc);
        assert_int_equal(rc.expect, CLG_STATUS_INDEX_OUT_OF_RANGE);
        clg_test_check_random(ctx, 1, &rc);
        clg_test_random_case_free(&rc);
    }
}

/* Host-memory Gather whose output goes through the map path: 6 MiB
 * (above every row's `small`), then 4 KiB under small=0 (every output
 * mapped), page-aligned so that every device takes them in place. The
 * output is wrapped, then mapped and unmapped after the launch; Mesa's
 * Rusticl 22.3 refuses the unmap of a map that has not run yet, so its
 * row waits for the map first (clgather.h, clg_params_entry). Rows of
 * float data [1024, 256], each element row * 1000 + column, picked by a
 * fixed permutation; expected values from that formula. */
static void run_mapped_output(clg_context *ctx, int64_t n, const char *what)
{
    enum { ROWS = 1024, COLS = 256 };
    int64_t dshape[2] = {ROWS, COLS}, ishape[1] = {n}, oshape[2] = {n, COLS};
    /* Page-aligned, so that every device takes them in place. */
    float *data = aligned_alloc(4096, (size_t)ROWS * COLS * sizeof *data);
    int64_t *idx =
        aligned_alloc(4096, ((size_t)n * sizeof *idx + 4095) / 4096 * 4096);
    float *out = aligned_alloc(4096, (size_t)n * COLS * sizeof *out);
    assert_non_null(data);
    assert_non_null(idx);
    assert_non_null(out);
    for (int64_t r = 0; r < ROWS; r++)
        for (int64_t c = 0; c < COLS; c++)
            data[r * COLS + c] = (float)(r * 1000 + c);
    for (int64_t j = 0; j < n; j++)
        idx[j] = (j * 7919) % ROWS - (j % 2 ? ROWS : 0); /* half negative */
    memset(out, 0xEE, (size_t)n * COLS * sizeof *out);
    clg_tensor d = {CLG_DTYPE_FLOAT, 2, dshape, data};
    clg_tensor i = {CLG_DTYPE_INT64, 1, ishape, idx};
    clg_tensor o = {CLG_DTYPE_FLOAT, 2, oshape, out};
    CLG_ASSERT_OK(ctx, clg_gather(ctx, &d, &i, 0, &o));
    for (int64_t j = 0; j < n; j++) {
        int64_t r = (j * 7919) % ROWS;
        for (int64_t c = 0; c < COLS; c++)
            if (out[j * COLS + c] != (float)(r * 1000 + c))
                fail_msg("%s: output[%" PRId64 ", %" PRId64 "] = %g, expected "
                         "%g",
                         what, j, c, (double)out[j * COLS + c],
                         (double)(r * 1000 + c));
    }
    free(out);
    free(idx);
    free(data);
}

static void test_host_output_mapped(void **state)
{
    clg_context *ctx = *state;
    const clg_params_entry *e = clg_context_params_entry(ctx);
    clg_params p = e->params;
    run_mapped_output(ctx, 6144, "6 MiB output, the device's row");
    CLG_ASSERT_OK(ctx, clg_context_parse_params(ctx, "small=0", &p));
    CLG_ASSERT_OK(ctx, clg_context_set_params(ctx, &p));
    run_mapped_output(ctx, 4, "4 KiB output, small=0");
    run_mapped_output(ctx, 6144, "6 MiB output, small=0");
    CLG_ASSERT_OK(ctx, clg_context_set_params(ctx, &e->params));
}

int main(void)
{
    seed = clg_test_seed(DEFAULT_SEED);
    quick = clg_test_quick();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_layouts_int64),
        cmocka_unit_test(test_layouts_int32),
        cmocka_unit_test(test_layouts_last_axis_nt),
        cmocka_unit_test(test_gather_span_outputs),
        cmocka_unit_test(test_elements_lanes_modes),
        cmocka_unit_test(test_layouts_with_bad_index),
        cmocka_unit_test(test_host_output_mapped),
    };
    return CLG_RUN_DEVICE_TESTS(tests);
}
