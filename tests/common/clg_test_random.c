/* SPDX-License-Identifier: Apache-2.0 */
/* Randomized cases; see clg_test_random.h. */
#include "clg_test_random.h"

#include <inttypes.h>
#include <stdlib.h>

/* Largest dimension drawn for each data rank, so that data and output stay
 * below 4096 elements. */
static const int64_t max_dim[CLG_TEST_RANDOM_MAX_RANK + 1] = {0, 48, 24, 9, 6,
                                                              4, 3,  3,  2};

static int64_t rng_range(clg_test_rng *rng, int64_t lo, int64_t hi)
{
    return clg_test_rng_range(rng, lo, hi);
}

static size_t misalign_for(clg_test_rng *rng, size_t elem)
{
    if (rng_range(rng, 0, 5) != 0) {
        return 0;
    }
    if (elem <= 1) {
        return (size_t)(2 * rng_range(rng, 0, 3) + 1); /* odd: 1, 3, 5, 7 */
    }
    return elem * (size_t)rng_range(rng, 1, 3);
}

/* Where each tensor of the spec starts: misaligned now and then. */
static void draw_misalign(clg_test_rng *rng, clg_test_spec *spec)
{
    size_t elem = clg_test_dtype_size(spec->dtype);
    spec->data_misalign = misalign_for(rng, elem);
    spec->out_misalign = misalign_for(rng, elem);
    spec->idx_misalign = misalign_for(rng,
                                      clg_test_dtype_size(spec->idx_dtype));
}

void clg_test_random_spec(clg_test_rng *rng, size_t i, clg_test_spec *spec)
{
    memset(spec, 0, sizeof *spec);
    spec->op = (clg_op)(i % 2);
    spec->dtype = clg_test_all_dtypes[(i / 2) % 16];
    spec->idx_dtype = (i / 32) % 2 ? CLG_DTYPE_INT32 : CLG_DTYPE_INT64;
    size_t r = 1 + (i / 64) % 8;
    spec->rank = r;
    for (size_t d = 0; d < r; d++) {
        spec->shape[d] = rng_range(rng, 1, max_dim[r]);
    }
    if (rng_range(rng, 0, 11) == 0) {
        spec->shape[rng_range(rng, 0, (int64_t)r - 1)] = 0;
    }
    spec->axis = rng_range(rng, -(int64_t)r, (int64_t)r - 1);
    size_t a = (size_t)(spec->axis < 0 ? spec->axis + (int64_t)r : spec->axis);
    int64_t s = spec->shape[a];

    if (spec->op == CLG_OP_GATHER) {
        size_t q = rng_range(rng, 0, 4) == 0 ? 0
                                             : (size_t)rng_range(rng, 1, 3);
        spec->idx_rank = q;
        for (size_t j = 0; j < q; j++) {
            spec->idx_shape[j] = rng_range(rng, 1, 4);
        }
        if (q > 0 && rng_range(rng, 0, 15) == 0) {
            spec->idx_shape[rng_range(rng, 0, (int64_t)q - 1)] = 0;
        }
        int64_t others = 1;
        for (size_t d = 0; d < r; d++) {
            others *= d == a ? 1 : spec->shape[d];
        }
        for (size_t j = 0; j < q; j++) {
            if (others * clg_test_count(spec->idx_shape, q) >= 4096) {
                spec->idx_shape[j] = 1;
            }
        }
        if (s == 0 && clg_test_count(spec->idx_shape, q) > 0) {
            /* Every index would be out of range; keep indices empty. */
            if (q == 0) {
                spec->idx_rank = q = 1;
            }
            spec->idx_shape[0] = 0;
        }
    } else {
        spec->idx_rank = r;
        for (size_t d = 0; d < r; d++) {
            if (d == a) {
                /* Free: may be larger or smaller than data's. */
                spec->idx_shape[d] = rng_range(rng, 1, max_dim[r] + 2);
            } else if (rng_range(rng, 0, 9) < 5) {
                spec->idx_shape[d] = spec->shape[d];
            } else {
                spec->idx_shape[d] = rng_range(rng, spec->shape[d] > 0 ? 1 : 0,
                                               spec->shape[d]);
            }
        }
        if (rng_range(rng, 0, 15) == 0) {
            spec->idx_shape[rng_range(rng, 0, (int64_t)r - 1)] = 0;
        }
        if (s == 0 && clg_test_count(spec->idx_shape, r) > 0) {
            spec->idx_shape[a] = 0;
        }
    }

    draw_misalign(rng, spec);

    /* Plant bad indices, also where the output is empty: every index
     * value is checked ("it is an error if any of the index values are
     * out of bounds"), whatever the other dims. */
    int64_t nidx = clg_test_count(spec->idx_shape, spec->idx_rank);
    if (nidx > 0 && rng_range(rng, 0, 15) == 0) {
        spec->bad = (int)rng_range(rng, 1, 2);
    }
}

void clg_test_nd_triple(size_t t, size_t *r, size_t *b, size_t *k)
{
    for (size_t rr = 1;; rr++) {
        for (size_t bb = 0; bb < rr; bb++) {
            for (size_t kk = 1; kk <= rr - bb; kk++) {
                if (t-- == 0) {
                    *r = rr;
                    *b = bb;
                    *k = kk;
                    return;
                }
            }
        }
    }
}

void clg_test_random_nd_spec(clg_test_rng *rng, size_t i, clg_test_spec *spec)
{
    memset(spec, 0, sizeof *spec);
    spec->op = CLG_OP_GATHER_ND;
    spec->dtype = clg_test_all_dtypes[i % 16];
    spec->idx_dtype = (i / 16) % 2 ? CLG_DTYPE_INT32 : CLG_DTYPE_INT64;
    spec->oob = (clg_oob_mode)((i / 32) % 4);
    size_t r, b, k;
    clg_test_nd_triple(i % CLG_TEST_ND_TRIPLES, &r, &b, &k);
    spec->rank = r;
    spec->axis = (int64_t)b;
    for (size_t d = 0; d < r; d++) {
        spec->shape[d] = rng_range(rng, 1, max_dim[r]);
    }
    if (rng_range(rng, 0, 11) == 0) {
        spec->shape[rng_range(rng, 0, (int64_t)r - 1)] = 0;
    }
    /* indices: the batch dims, m tuple dims, k */
    size_t m = (size_t)rng_range(rng, 0, 2);
    for (size_t d = 0; d < b; d++) {
        spec->idx_shape[d] = spec->shape[d];
    }
    for (size_t d = b; d < b + m; d++) {
        spec->idx_shape[d] = rng_range(rng, 1, 4);
    }
    if (m > 0 && rng_range(rng, 0, 15) == 0) {
        spec->idx_shape[b + (size_t)rng_range(rng, 0, (int64_t)m - 1)] = 0;
    }
    int64_t tuples = clg_test_count(spec->idx_shape, b + m);
    int64_t slice = clg_test_count(spec->shape + b + k, r - b - k);
    for (size_t d = b; d < b + m; d++) {
        if (tuples * slice >= 4096) {
            tuples /= spec->idx_shape[d];
            spec->idx_shape[d] = 1;
        }
    }
    if (tuples > 0 && clg_test_count(spec->shape + b, k) == 0) {
        /* A component's dim is 0: every value would be out of range;
         * keep the tuples empty. */
        if (m == 0) {
            m = 1;
        }
        spec->idx_shape[b] = 0;
    }
    spec->idx_rank = b + m + 1;
    spec->idx_shape[b + m] = (int64_t)k;

    draw_misalign(rng, spec);
    /* Bad components: under raise now and then (also where the output is
     * empty: every value is checked), under the other modes often, so
     * that wrap, clip and fill resolve them. */
    int64_t nidx = clg_test_count(spec->idx_shape, spec->idx_rank);
    if (nidx > 0 && spec->oob == CLG_OOB_RAISE
            ? rng_range(rng, 0, 7) == 0
            : nidx > 0 && rng_range(rng, 0, 1) == 0) {
        spec->bad = (int)rng_range(rng, 1, 3);
    }
}

/* ------------------------------------------------------------ contents */

static const uint32_t special_f32[] = {
    0x7fc01234u, /* quiet NaN with payload */
    0xffa00001u, /* signalling NaN, negative */
    0x7f800001u, /* signalling NaN, smallest payload */
    0x80000000u, /* -0.0 */
    0x00000001u, /* smallest subnormal */
    0x807fffffu, /* largest negative subnormal */
    0x7f800000u, /* +inf */
    0xff800000u, /* -inf */
};
static const uint64_t special_f64[] = {
    UINT64_C(0x7ff8000000001234), UINT64_C(0xfff0000000000001),
    UINT64_C(0x7ff0000000000001), UINT64_C(0x8000000000000000),
    UINT64_C(0x0000000000000001), UINT64_C(0x800fffffffffffff),
    UINT64_C(0x7ff0000000000000),
};
static const uint16_t special_f16[] = {0x7e01, 0xfc01, 0x7c01, 0x8000,
                                       0x0001, 0x83ff, 0x7c00};
static const uint16_t special_bf16[] = {0x7fc1, 0xff81, 0x7f81, 0x8000,
                                        0x0001, 0x807f, 0x7f80};

static void sprinkle_specials(clg_test_rng *rng, clg_dtype dtype,
                              unsigned char *p, size_t count)
{
    size_t elem = clg_test_dtype_size(dtype);
    size_t comp = dtype == CLG_DTYPE_COMPLEX64    ? 4
                  : dtype == CLG_DTYPE_COMPLEX128 ? 8
                                                  : elem;
    size_t ncomp = count * (elem / comp);
    for (size_t c = 0; c < ncomp; c++) {
        if (rng_range(rng, 0, 3) != 0) {
            continue;
        }
        unsigned char *q = p + c * comp;
        if (comp == 4) {
            uint32_t v = special_f32[rng_range(
                rng, 0, (int64_t)CLG_TEST_ARRAY_LEN(special_f32) - 1)];
            memcpy(q, &v, 4);
        } else if (comp == 8) {
            uint64_t v = special_f64[rng_range(
                rng, 0, (int64_t)CLG_TEST_ARRAY_LEN(special_f64) - 1)];
            memcpy(q, &v, 8);
        } else if (dtype == CLG_DTYPE_FLOAT16) {
            uint16_t v = special_f16[rng_range(
                rng, 0, (int64_t)CLG_TEST_ARRAY_LEN(special_f16) - 1)];
            memcpy(q, &v, 2);
        } else {
            uint16_t v = special_bf16[rng_range(
                rng, 0, (int64_t)CLG_TEST_ARRAY_LEN(special_bf16) - 1)];
            memcpy(q, &v, 2);
        }
    }
}

#define STRING_POOL_SIZE 256

static int64_t bad_value(clg_test_rng *rng, clg_dtype idx_dtype, int64_t s)
{
    int64_t v;
    switch (rng_range(rng, 0, 6)) {
    case 0:
        v = s;
        break;
    case 1:
        v = -s - 1;
        break;
    case 2:
        v = s + rng_range(rng, 0, 1000);
        break;
    case 3:
        v = -s - 1 - rng_range(rng, 0, 1000);
        break;
    case 4:
        v = idx_dtype == CLG_DTYPE_INT32 ? INT32_MIN : INT64_MIN;
        break;
    case 5:
        v = idx_dtype == CLG_DTYPE_INT32 ? INT32_MAX : INT64_MAX;
        break;
    default:
        v = idx_dtype == CLG_DTYPE_INT32 ? INT32_MIN + 1 : INT64_C(2147483648);
        break;
    }
    return v;
}

void clg_test_random_case_make(clg_test_rng *rng, const clg_test_spec *spec,
                               clg_test_random_case *rc)
{
    memset(rc, 0, sizeof *rc);
    rc->spec = *spec;
    size_t r = spec->rank;
    size_t a = (size_t)(spec->axis < 0 ? spec->axis + (int64_t)r : spec->axis);
    int64_t s = spec->shape[a];

    /* data */
    clg_test_tensor_init(&rc->data, spec->dtype, r, spec->shape,
                         spec->data_misalign, 0);
    int64_t ndata = clg_test_count(spec->shape, r);
    if (spec->dtype == CLG_DTYPE_STRING) {
        rc->string_pool = malloc(STRING_POOL_SIZE);
        assert_non_null(rc->string_pool);
        clg_test_rng_bytes(rng, rc->string_pool, STRING_POOL_SIZE);
        for (size_t k = 0; k < STRING_POOL_SIZE; k++) {
            if (rng_range(rng, 0, 3) == 0) {
                rc->string_pool[k] = '\0';
            }
        }
        for (int64_t k = 0; k < ndata; k++) {
            int64_t off = rng_range(rng, 0, STRING_POOL_SIZE);
            int64_t len = rng_range(rng, 0, STRING_POOL_SIZE - off);
            clg_string str = {rc->string_pool + off, (size_t)len};
            memcpy((unsigned char *)rc->data.t.data + k * (int64_t)sizeof str,
                   &str, sizeof str);
        }
    } else {
        clg_test_rng_bytes(rng, rc->data.t.data, rc->data.bytes);
        if (clg_test_dtype_is_float(spec->dtype)) {
            sprinkle_specials(rng, spec->dtype, rc->data.t.data,
                              (size_t)ndata);
        }
    }

    /* indices */
    clg_test_tensor_init(&rc->indices, spec->idx_dtype, spec->idx_rank,
                         spec->idx_shape, spec->idx_misalign, 0);
    int64_t nidx = clg_test_count(spec->idx_shape, spec->idx_rank);
    int64_t *values = malloc(sizeof(int64_t) * (size_t)(nidx + 1));
    assert_non_null(values);
    if (spec->op == CLG_OP_GATHER_ND) {
        /* Component c of a tuple: a position along data dim b + c. */
        int64_t k = spec->idx_shape[spec->idx_rank - 1];
        for (int64_t j = 0; j < nidx; j++) {
            int64_t sc = spec->shape[a + (size_t)(j % k)];
            values[j] = sc > 0 ? rng_range(rng, -sc, sc - 1) : 0;
        }
        for (int b = 0; b < spec->bad && nidx > 0; b++) {
            int64_t j = rng_range(rng, 0, nidx - 1);
            values[j] = bad_value(rng, spec->idx_dtype,
                                  spec->shape[a + (size_t)(j % k)]);
        }
    } else {
        for (int64_t k = 0; k < nidx; k++) {
            values[k] = s > 0 ? rng_range(rng, -s, s - 1) : 0;
        }
        for (int b = 0; b < spec->bad && nidx > 0; b++) {
            /* Two draws, in a fixed order (one expression would leave it
             * to the compiler, and gcc and clang differ). */
            int64_t bad = bad_value(rng, spec->idx_dtype, s);
            values[rng_range(rng, 0, nidx - 1)] = bad;
        }
    }
    clg_test_store_indices(&rc->indices, values, (size_t)nidx);
    free(values);

    /* copies to check that inputs are never written */
    rc->data_copy = malloc(rc->data.bytes + 1);
    rc->idx_copy = malloc(rc->indices.bytes + 1);
    assert_non_null(rc->data_copy);
    assert_non_null(rc->idx_copy);
    memcpy(rc->data_copy, rc->data.t.data, rc->data.bytes);
    memcpy(rc->idx_copy, rc->indices.t.data, rc->indices.bytes);

    /* expected */
    rc->out_rank = clg_test_output_shape(spec->op, &rc->data.t, &rc->indices.t,
                                         spec->axis, rc->out_shape);
    rc->out_bytes = (size_t)clg_test_count(rc->out_shape, rc->out_rank) *
                    clg_test_dtype_size(spec->dtype);
    rc->expected = malloc(rc->out_bytes + 1);
    assert_non_null(rc->expected);
    rc->expect = clg_test_oracle_mode(spec->op, &rc->data.t, &rc->indices.t,
                                      spec->axis, spec->oob, rc->expected,
                                      &rc->bad);

    char ds[256], is[256], os[256];
    snprintf(rc->desc, sizeof rc->desc,
             "%s %s data %s %s %" PRId64 ", %s indices %s -> %s; offsets "
             "data %zu indices %zu output %zu; %d bad index value(s), "
             "mode %s",
             clg_op_name(spec->op), clg_dtype_name(spec->dtype),
             clg_test_shape_str(spec->shape, r, ds, sizeof ds),
             clg_op_attribute(spec->op), spec->axis,
             clg_dtype_name(spec->idx_dtype),
             clg_test_shape_str(spec->idx_shape, spec->idx_rank, is,
                                sizeof is),
             clg_test_shape_str(rc->out_shape, rc->out_rank, os, sizeof os),
             spec->data_misalign, spec->idx_misalign, spec->out_misalign,
             spec->bad, clg_oob_mode_name(spec->oob));
}

void clg_test_random_case_free(clg_test_random_case *rc)
{
    clg_test_tensor_free(&rc->data);
    clg_test_tensor_free(&rc->indices);
    free(rc->expected);
    free(rc->data_copy);
    free(rc->idx_copy);
    free(rc->string_pool);
    memset(rc, 0, sizeof *rc);
}

/* ------------------------------------------------------------ checking */

static void check_one(clg_context *ctx, int reference,
                      clg_test_random_case *rc)
{
    const clg_test_spec *spec = &rc->spec;
    unsigned char fill = reference ? 0xCD : 0xAB;
    clg_test_tensor out;
    clg_test_tensor_init(&out, spec->dtype, rc->out_rank, rc->out_shape,
                         spec->out_misalign, fill);
    clg_status st = clg_test_call_mode(spec->op, ctx, reference, &rc->data.t,
                                       &rc->indices.t, spec->axis, spec->oob,
                                       &out.t);
    CLG_ASSERT_STATUS(ctx, st, rc->expect);
    size_t elem = clg_test_dtype_size(spec->dtype);
    if (rc->expect == CLG_STATUS_OK) {
        CLG_ASSERT_BYTES(out.t.data, rc->expected, rc->out_bytes, elem,
                         reference ? "reference vs oracle"
                                   : "device vs oracle");
    } else {
        CLG_ASSERT_FILLED(out.t.data, out.bytes, fill,
                          "output after INDEX_OUT_OF_RANGE");
    }
    if (rc->expect != CLG_STATUS_OK && spec->oob == CLG_OOB_RAISE) {
        const char *message = clg_context_last_error(ctx);
        char frag[sizeof rc->bad.position + 64];
        if (spec->idx_rank > 0) {
            snprintf(frag, sizeof frag, "%s = %" PRId64, rc->bad.position,
                     rc->bad.value);
        } else {
            snprintf(frag, sizeof frag, "= %" PRId64, rc->bad.value);
        }
        CLG_ASSERT_CONTAINS(message, frag);
        snprintf(frag, sizeof frag, "[%" PRId64 ", %" PRId64 "]", rc->bad.lo,
                 rc->bad.hi);
        CLG_ASSERT_CONTAINS(message, frag);
        if (spec->op == CLG_OP_GATHER_ND) {
            snprintf(frag, sizeof frag, "for data dim %zu of size %" PRId64,
                     rc->bad.dim, rc->bad.hi + 1);
            CLG_ASSERT_CONTAINS(message, frag);
        }
    }
    CLG_ASSERT_GUARDS(&out, reference ? "reference output" : "device output");
    CLG_ASSERT_BYTES(rc->data.t.data, rc->data_copy, rc->data.bytes, 1,
                     "data after the call");
    CLG_ASSERT_BYTES(rc->indices.t.data, rc->idx_copy, rc->indices.bytes, 1,
                     "indices after the call");
    CLG_ASSERT_GUARDS(&rc->data, "data");
    CLG_ASSERT_GUARDS(&rc->indices, "indices");
    clg_test_tensor_free(&out);
}

void clg_test_check_random(clg_context *ctx, int device,
                           clg_test_random_case *rc)
{
    check_one(ctx, 1, rc);
    if (device) {
        check_one(ctx, 0, rc);
    }
}
