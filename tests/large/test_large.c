/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Tensors with more than 2^31 elements whose data exceeds one device
 * allocation (CL_DEVICE_MAX_MEM_ALLOC_SIZE, 1 GiB on POCL): the host-memory
 * API must cut them into pieces and windows and still be bit-exact.
 *
 * Data bytes follow a position-dependent pattern, so a window or piece
 * placed at the wrong offset shows up as a wrong value. Small outputs are
 * compared whole with the CPU reference; the 3 GiB outputs are checked
 * row by row and at sampled positions (first, last, around 2^31, piece
 * borders, random) against the formula. Gather, GatherElements and
 * GatherND (batch dims, scalar slices addressing past 2^31 under clip,
 * row slices of a 2.5 GiB output under fill).
 */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include "clg_test.h"

#define GIB ((int64_t)1 << 30)

static uint8_t pattern(uint64_t i)
{
    return (uint8_t)(i ^ (i >> 9) ^ (i >> 19) ^ (i >> 29) ^ (i >> 33));
}

static uint8_t *pattern_alloc(int64_t count)
{
    uint8_t *p = malloc((size_t)count);
    assert_non_null(p);
    for (int64_t i = 0; i < count; i++)
        p[i] = pattern((uint64_t)i);
    return p;
}

static int64_t norm(int64_t v, int64_t s)
{
    return v < 0 ? v + s : v;
}

/* The point of these tests: the data does not fit one device buffer. */
static void assert_exceeds_one_buffer(clg_context *ctx, int64_t bytes)
{
    clg_test_set_case("data of %lld bytes against buffers of %llu bytes",
                      (long long)bytes,
                      (unsigned long long)clg_context_max_alloc_size(ctx));
    assert_true((uint64_t)bytes > clg_context_max_alloc_size(ctx));
}

/* Gather axis 1 on data [2, 2^30 + 5] (2^31 + 10 elements): tiny output,
 * data read through several windows. */
static void test_gather_data_over_2g(void **state)
{
    clg_context *ctx = *state;
    const int64_t s = GIB + 5;
    int64_t dshape[2] = {2, s}, ishape[1] = {6}, oshape[2] = {2, 6};
    int64_t idx[6] = {0, -1, GIB, 12345, -s, s - 1};
    assert_exceeds_one_buffer(ctx, 2 * s);
    uint8_t *data = pattern_alloc(2 * s);
    uint8_t out[12], ref[12], want[12];
    clg_tensor D = {CLG_DTYPE_UINT8, 2, dshape, data};
    clg_tensor I = {CLG_DTYPE_INT64, 1, ishape, idx};
    clg_tensor O = {CLG_DTYPE_UINT8, 2, oshape, out};
    clg_tensor R = {CLG_DTYPE_UINT8, 2, oshape, ref};
    for (int o = 0; o < 2; o++)
        for (int j = 0; j < 6; j++)
            want[o * 6 + j] = pattern((uint64_t)(o * s + norm(idx[j], s)));
    memset(out, 0xEE, sizeof out);
    CLG_ASSERT_OK(ctx, clg_gather(ctx, &D, &I, 1, &O));
    CLG_ASSERT_OK(ctx, clg_reference_gather(ctx, &D, &I, 1, &R));
    CLG_ASSERT_BYTES(out, want, sizeof out, 1, "device vs formula");
    CLG_ASSERT_BYTES(ref, want, sizeof ref, 1, "reference vs formula");
    free(data);
}

/* Gather axis 0 on data [3, 2^30] with indices [2, -3, 1]: a 3 GiB output
 * of 3 * 2^30 elements, cut into pieces, each reading data windows. */
static void test_gather_output_over_2g(void **state)
{
    clg_context *ctx = *state;
    int64_t dshape[2] = {3, GIB}, ishape[1] = {3}, oshape[2] = {3, GIB};
    int32_t idx[3] = {2, -3, 1};
    assert_exceeds_one_buffer(ctx, 3 * GIB);
    uint8_t *data = pattern_alloc(3 * GIB);
    uint8_t *out = malloc((size_t)(3 * GIB));
    assert_non_null(out);
    clg_tensor D = {CLG_DTYPE_UINT8, 2, dshape, data};
    clg_tensor I = {CLG_DTYPE_INT32, 1, ishape, idx};
    clg_tensor O = {CLG_DTYPE_UINT8, 2, oshape, out};
    CLG_ASSERT_OK(ctx, clg_gather(ctx, &D, &I, 0, &O));

    /* Whole rows are copies of data rows: compare them in full. */
    for (int j = 0; j < 3; j++) {
        int64_t row = norm(idx[j], 3);
        clg_test_set_case("output row %d = data row %lld", j, (long long)row);
        CLG_ASSERT_BYTES(out + j * GIB, data + row * GIB, (size_t)GIB, 1,
                         "output row");
    }
    /* And sampled positions (the ends, the 1 GiB piece borders, around
     * 2^31), against the formula. */
    int64_t total = 3 * GIB;
    int64_t sample[16] = {0,
                          1,
                          GIB - 1,
                          GIB,
                          GIB + 1,
                          2 * GIB - 1,
                          2 * GIB,
                          2 * GIB + 1,
                          ((int64_t)1 << 31) - 2,
                          ((int64_t)1 << 31) + 2,
                          total - 2,
                          total - 1};
    clg_test_rng rng = {clg_test_seed(0x1a2e)};
    for (int k = 12; k < 16; k++)
        sample[k] = clg_test_rng_range(&rng, 0, total - 1);
    for (int k = 0; k < 16; k++) {
        int64_t p = sample[k], j = p / GIB, c = p % GIB;
        uint8_t want = pattern((uint64_t)(norm(idx[j], 3) * GIB + c));
        clg_test_set_case("output flat position %lld", (long long)p);
        assert_int_equal(out[p], want);
    }
    free(out);
    free(data);
}

/* GatherElements rank 1 on data [2^31 + 64]: random and extreme valid
 * indices, compared whole with the reference. */
static void test_gather_elements_data_over_2g(void **state)
{
    clg_context *ctx = *state;
    const int64_t s = ((int64_t)1 << 31) + 64;
    enum { N = 4096 };
    int64_t dshape[1] = {s}, ishape[1] = {N};
    int64_t *idx = malloc(N * sizeof *idx);
    uint8_t out[N], ref[N], want[N];
    assert_exceeds_one_buffer(ctx, s);
    uint8_t *data = pattern_alloc(s);
    clg_test_rng rng = {clg_test_seed(0x9e37)};
    for (int i = 0; i < N; i++)
        idx[i] = clg_test_rng_range(&rng, -s, s - 1);
    int64_t extremes[8] = {
        0, -1, s - 1, -s, (int64_t)1 << 31, -((int64_t)1 << 31), GIB, -GIB};
    memcpy(idx, extremes, sizeof extremes);
    for (int i = 0; i < N; i++)
        want[i] = pattern((uint64_t)norm(idx[i], s));
    clg_tensor D = {CLG_DTYPE_UINT8, 1, dshape, data};
    clg_tensor I = {CLG_DTYPE_INT64, 1, ishape, idx};
    clg_tensor O = {CLG_DTYPE_UINT8, 1, ishape, out};
    clg_tensor R = {CLG_DTYPE_UINT8, 1, ishape, ref};
    CLG_ASSERT_OK(ctx, clg_gather_elements(ctx, &D, &I, 0, &O));
    CLG_ASSERT_OK(ctx, clg_reference_gather_elements(ctx, &D, &I, 0, &R));
    CLG_ASSERT_BYTES(out, want, N, 1, "device vs formula");
    CLG_ASSERT_BYTES(ref, want, N, 1, "reference vs formula");

    /* One bad index in the middle: the error names it, output untouched. */
    idx[2345] = s;
    memset(out, 0xA5, sizeof out);
    CLG_ASSERT_STATUS(ctx, clg_gather_elements(ctx, &D, &I, 0, &O),
                      CLG_STATUS_INDEX_OUT_OF_RANGE);
    CLG_ASSERT_CONTAINS(clg_context_last_error(ctx),
                        "indices[2345] = 2147483712 is out of range "
                        "[-2147483712, 2147483711] for axis 0 of size "
                        "2147483712");
    CLG_ASSERT_FILLED(out, sizeof out, 0xA5, "output after the error");
    free(data);
    free(idx);
}

/* GatherElements axis 0 on data [3, 2^30 + 7] (over 2^31 elements) with
 * indices [2, 3000], smaller than data off the axis: each output element
 * reads a row chosen by its index, through windows of the data. */
static void test_gather_elements_axis0_over_2g(void **state)
{
    clg_context *ctx = *state;
    const int64_t w = GIB + 7;
    enum { C = 3000 };
    int64_t dshape[2] = {3, w}, ishape[2] = {2, C};
    int32_t *idx = malloc(2 * C * sizeof *idx);
    uint8_t *out = malloc(2 * C), *ref = malloc(2 * C), *want = malloc(2 * C);
    assert_exceeds_one_buffer(ctx, 3 * w);
    uint8_t *data = pattern_alloc(3 * w);
    clg_test_rng rng = {clg_test_seed(0x51de)};
    for (int i = 0; i < 2 * C; i++)
        idx[i] = (int32_t)clg_test_rng_range(&rng, -3, 2);
    for (int r = 0; r < 2; r++)
        for (int c = 0; c < C; c++)
            want[r * C + c] =
                pattern((uint64_t)(norm(idx[r * C + c], 3) * w + c));
    clg_tensor D = {CLG_DTYPE_UINT8, 2, dshape, data};
    clg_tensor I = {CLG_DTYPE_INT32, 2, ishape, idx};
    clg_tensor O = {CLG_DTYPE_UINT8, 2, ishape, out};
    clg_tensor R = {CLG_DTYPE_UINT8, 2, ishape, ref};
    CLG_ASSERT_OK(ctx, clg_gather_elements(ctx, &D, &I, -2, &O));
    CLG_ASSERT_OK(ctx, clg_reference_gather_elements(ctx, &D, &I, -2, &R));
    CLG_ASSERT_BYTES(out, want, 2 * C, 1, "device vs formula");
    CLG_ASSERT_BYTES(ref, want, 2 * C, 1, "reference vs formula");
    free(data);
    free(idx);
    free(out);
    free(ref);
    free(want);
}

/* GatherND, batch_dims 1, on data [2, 2^30 + 5] (2^31 + 10 elements) with
 * indices int64 [2, 3, 1]: each batch's tuples pick scalars of its own
 * row, the second row past 2^31; then one component out of range names
 * its tuple, its component and its data dim. */
static void gather_nd_batch_over_2g(clg_context *ctx, uint8_t *data)
{
    const int64_t s = GIB + 5;
    int64_t dshape[2] = {2, s}, ishape[3] = {2, 3, 1}, oshape[2] = {2, 3};
    int64_t idx[6] = {0, -1, GIB, 12345, -s, s - 1};
    uint8_t out[6], ref[6], want[6];
    clg_tensor D = {CLG_DTYPE_UINT8, 2, dshape, data};
    clg_tensor I = {CLG_DTYPE_INT64, 3, ishape, idx};
    clg_tensor O = {CLG_DTYPE_UINT8, 2, oshape, out};
    clg_tensor R = {CLG_DTYPE_UINT8, 2, oshape, ref};
    for (int b = 0; b < 2; b++)
        for (int j = 0; j < 3; j++)
            want[b * 3 + j] =
                pattern((uint64_t)(b * s + norm(idx[b * 3 + j], s)));
    memset(out, 0xEE, sizeof out);
    CLG_ASSERT_OK(ctx, clg_gather_nd(ctx, &D, &I, 1, &O));
    CLG_ASSERT_OK(ctx, clg_reference_gather_nd(ctx, &D, &I, 1, &R));
    CLG_ASSERT_BYTES(out, want, sizeof out, 1, "device vs formula");
    CLG_ASSERT_BYTES(ref, want, sizeof ref, 1, "reference vs formula");

    idx[4] = s;
    memset(out, 0xA5, sizeof out);
    CLG_ASSERT_STATUS(ctx, clg_gather_nd(ctx, &D, &I, 1, &O),
                      CLG_STATUS_INDEX_OUT_OF_RANGE);
    CLG_ASSERT_CONTAINS(clg_context_last_error(ctx),
                        "indices[1][1][0] = 1073741829 is out of range "
                        "[-1073741829, 1073741828] for data dim 1 of size "
                        "1073741829");
    CLG_ASSERT_FILLED(out, sizeof out, 0xA5, "output after the error");
}

/* GatherND, batch_dims 0, tuples of 2 (scalar slices) on data [2, 2^30 +
 * 5] with 4096 int32 tuples: random components, extremes, and some out of
 * range, under clip (each component clamped into its own dim); the flat
 * offsets reach past 2^31. Compared whole with the reference and the
 * formula. */
static void gather_nd_scalars_over_2g(clg_context *ctx, uint8_t *data)
{
    const int64_t s = GIB + 5;
    enum { N = 4096 };
    int64_t dshape[2] = {2, s}, ishape[2] = {N, 2}, oshape[1] = {N};
    int32_t *idx = malloc(2 * N * sizeof *idx);
    uint8_t out[N], ref[N], want[N];
    assert_non_null(idx);
    clg_test_rng rng = {clg_test_seed(0x9d2e)};
    for (int i = 0; i < N; i++) {
        idx[2 * i] = (int32_t)clg_test_rng_range(&rng, -3, 2);
        idx[2 * i + 1] = (int32_t)clg_test_rng_range(&rng, -s - 9, s + 8);
    }
    const int32_t extremes[12] = {1,  (int32_t)(s - 1), -1, -1, 1, INT32_MAX,
                                  -2, INT32_MIN,        5,  0,  1, (int32_t)s};
    memcpy(idx, extremes, sizeof extremes);
    for (int i = 0; i < N; i++) {
        int64_t r = clg_test_oob_position(idx[2 * i], 2, CLG_OOB_CLIP);
        int64_t c = clg_test_oob_position(idx[2 * i + 1], s, CLG_OOB_CLIP);
        want[i] = pattern((uint64_t)(r * s + c));
    }
    assert_int_equal(want[0], pattern((uint64_t)(2 * s - 1)));
    clg_tensor D = {CLG_DTYPE_UINT8, 2, dshape, data};
    clg_tensor I = {CLG_DTYPE_INT32, 2, ishape, idx};
    clg_tensor O = {CLG_DTYPE_UINT8, 1, oshape, out};
    clg_tensor R = {CLG_DTYPE_UINT8, 1, oshape, ref};
    const clg_call_options clip = {CLG_OOB_CLIP};
    CLG_ASSERT_OK(ctx, clg_gather_nd_ex(ctx, &D, &I, 0, &O, &clip));
    CLG_ASSERT_OK(ctx, clg_reference_gather_nd_ex(ctx, &D, &I, 0, &R, &clip));
    CLG_ASSERT_BYTES(out, want, N, 1, "device vs formula");
    CLG_ASSERT_BYTES(ref, want, N, 1, "reference vs formula");
    free(idx);
}

/* Both GatherND data cases above on one data tensor. */
static void test_gather_nd_data_over_2g(void **state)
{
    clg_context *ctx = *state;
    assert_exceeds_one_buffer(ctx, 2 * (GIB + 5));
    uint8_t *data = pattern_alloc(2 * (GIB + 5));
    gather_nd_batch_over_2g(ctx, data);
    gather_nd_scalars_over_2g(ctx, data);
    free(data);
}

/* GatherND, batch_dims 0, tuples of 1 on data [3, 2^29] (1.5 GiB) with
 * indices [[2], [7], [-3], [1], [-1]] under fill: an output of 5 * 2^29
 * elements (past 2^31) of row slices, cut into pieces; row 1 (7 out of
 * range) all zero bytes, the others copies of data rows 2, 0, 1 and 2. */
static void test_gather_nd_output_over_2g(void **state)
{
    clg_context *ctx = *state;
    const int64_t w = GIB / 2, n = 5;
    int64_t dshape[2] = {3, w}, ishape[2] = {n, 1}, oshape[2] = {n, w};
    int64_t idx[5] = {2, 7, -3, 1, -1};
    assert_exceeds_one_buffer(ctx, 3 * w);
    assert_true(n * w > ((int64_t)1 << 31));
    uint8_t *data = pattern_alloc(3 * w);
    uint8_t *out = malloc((size_t)(n * w));
    assert_non_null(out);
    memset(out, 0xEE, (size_t)(n * w));
    clg_tensor D = {CLG_DTYPE_UINT8, 2, dshape, data};
    clg_tensor I = {CLG_DTYPE_INT64, 2, ishape, idx};
    clg_tensor O = {CLG_DTYPE_UINT8, 2, oshape, out};
    const clg_call_options fill = {CLG_OOB_FILL};
    CLG_ASSERT_OK(ctx, clg_gather_nd_ex(ctx, &D, &I, 0, &O, &fill));
    for (int64_t j = 0; j < n; j++) {
        clg_test_set_case("output row %lld (index %lld)", (long long)j,
                          (long long)idx[j]);
        if (j == 1)
            CLG_ASSERT_FILLED(out + w, (size_t)w, 0, "output row 1 (filled)");
        else
            CLG_ASSERT_BYTES(out + j * w, data + norm(idx[j], 3) * w,
                             (size_t)w, 1, "output row");
    }
    /* Sampled positions around the 1 GiB piece borders and 2^31. */
    const int64_t sample[8] = {0,           w - 1,   GIB - 1,   GIB,
                               2 * GIB - 1, 2 * GIB, INT32_MAX, n * w - 1};
    for (int k = 0; k < 8; k++) {
        int64_t p = sample[k], j = p / w, c = p % w;
        uint8_t want = j == 1 ? 0
                              : pattern((uint64_t)(norm(idx[j], 3) * w + c));
        clg_test_set_case("output flat position %lld", (long long)p);
        assert_int_equal(out[p], want);
    }
    free(out);
    free(data);
}

int main(void)
{
    /* POCL sizes CL_DEVICE_MAX_MEM_ALLOC_SIZE from the free memory (1 to
     * 4 GiB seen on one machine), and a GPU's is larger still: cap one
     * buffer at 1 GiB (unless the caller chose a cap) so that the data
     * always exceeds it. */
    setenv("CLGATHER_MAX_ALLOC", "1073741824", 0);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gather_data_over_2g),
        cmocka_unit_test(test_gather_output_over_2g),
        cmocka_unit_test(test_gather_elements_data_over_2g),
        cmocka_unit_test(test_gather_elements_axis0_over_2g),
        cmocka_unit_test(test_gather_nd_data_over_2g),
        cmocka_unit_test(test_gather_nd_output_over_2g),
    };
    return CLG_RUN_DEVICE_TESTS(tests);
}
