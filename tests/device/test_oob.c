/* SPDX-License-Identifier: Apache-2.0 */
/* The out-of-range modes (docs/design.md, "Out-of-range modes"): random
 * cases over every mode x path (host memory, device buffers, enqueue, host
 * memory split into pieces under CLGATHER_MAX_ALLOC=1024, validation mode)
 * x element width (1, 2, 4, 8, 16 bytes and STRING) x index type, with
 * index values far out of range on both sides (|v| up to 3s, and the
 * extremes of the index type), each compared bit for bit with the CPU
 * reference, and the reference with this file's oracle, written from the
 * formulas alone. Then the same under CLGATHER_PARAMS settings that reach
 * the lean, trusted (normalised) and packed bodies (with pack=2 where the
 * row has the clang built-ins), and the contract for
 * an axis of size 0. The seed is fixed and printed (CLG_TEST_SEED). */
#define _POSIX_C_SOURCE 200809L /* setenv, unsetenv */
#include "clg_test.h"
#include "clg_test_cache.h" /* the program cache: which kernels ran */

#include <inttypes.h>

#define DEFAULT_SEED UINT64_C(0x00b0e5eed20)

/* The modes, and the data dtypes: one per element width, and STRING. */
static const clg_oob_mode modes[] = {CLG_OOB_RAISE, CLG_OOB_WRAP, CLG_OOB_CLIP,
                                     CLG_OOB_FILL};
static const clg_dtype widths[] = {CLG_DTYPE_UINT8,      CLG_DTYPE_FLOAT16,
                                   CLG_DTYPE_FLOAT,      CLG_DTYPE_DOUBLE,
                                   CLG_DTYPE_COMPLEX128, CLG_DTYPE_STRING};
static const clg_dtype index_types[] = {CLG_DTYPE_INT32, CLG_DTYPE_INT64};

/* Results per mode, printed at the end of each group. */
static size_t cases_run[4], bad_values[4], calls_compared[4];

typedef struct fixture {
    clg_context *ctx;   /* the device's context */
    clg_context *split; /* the same device under CLGATHER_MAX_ALLOC=1024 */
    uint64_t seed;
} fixture;

/* ------------------------------------------------------------ the oracle */

/* Gather over [outer, s, inner] and GatherElements by coordinates; 0 when
 * raise meets a value out of range (out untouched), else 1. */
static int oracle(clg_op op, const clg_tensor *data, const clg_tensor *idx,
                  size_t axis, clg_oob_mode mode, unsigned char *out)
{
    size_t es = clg_test_dtype_size(data->dtype);
    int64_t s = data->shape[axis];
    int64_t n = clg_test_count(idx->shape, idx->rank);
    for (int64_t j = 0; mode == CLG_OOB_RAISE && j < n; j++)
        if (clg_test_oob_position(clg_test_index_at(idx, j), s, mode) < 0)
            return 0;
    const unsigned char *src = data->data;
    if (op == CLG_OP_GATHER) {
        int64_t outer = clg_test_count(data->shape, axis);
        int64_t inner = clg_test_count(data->shape + axis + 1,
                                       data->rank - axis - 1);
        size_t block = (size_t)inner * es;
        for (int64_t o = 0; o < outer; o++)
            for (int64_t j = 0; j < n; j++) {
                int64_t p = clg_test_oob_position(clg_test_index_at(idx, j), s,
                                                  mode);
                unsigned char *d = out + (size_t)(o * n + j) * block;
                if (p < 0)
                    memset(d, 0, block);
                else
                    memcpy(d, src + (size_t)(o * s + p) * block, block);
            }
        return 1;
    }
    for (int64_t e = 0; e < n; e++) {
        int64_t rest = e, off = 0, stride = 1;
        int64_t coord[CLG_MAX_RANK];
        for (size_t d = idx->rank; d-- > 0;) {
            coord[d] = rest % idx->shape[d];
            rest /= idx->shape[d];
        }
        int64_t p = clg_test_oob_position(clg_test_index_at(idx, e), s, mode);
        coord[axis] = p;
        for (size_t d = data->rank; d-- > 0;) {
            off += coord[d] * stride;
            stride *= data->shape[d];
        }
        if (p < 0)
            memset(out + (size_t)e * es, 0, es);
        else
            memcpy(out + (size_t)e * es, src + (size_t)off * es, es);
    }
    return 1;
}

/* ------------------------------------------------------------ cases */

typedef struct oob_case {
    clg_op op;
    clg_oob_mode mode;
    int64_t axis; /* as passed (may be negative) */
    size_t axis_n;
    clg_test_tensor data, idx, out;
    int64_t out_shape[CLG_MAX_RANK];
    size_t out_rank, out_bytes, es;
    int expect_ok;
    unsigned char *want;
    char desc[256];
} oob_case;

/* A pool for STRING descriptors to point into. */
static const char string_pool[] = "alpha\0beta gamma delta epsilon zeta eta";

/* One index value: in range, up to 3s out on either side, or an extreme
 * of the index type. */
static int64_t random_index(clg_test_rng *rng, int64_t s, clg_dtype type,
                            int in_range_only)
{
    int64_t lo = type == CLG_DTYPE_INT32 ? INT32_MIN : INT64_MIN;
    int64_t hi = type == CLG_DTYPE_INT32 ? INT32_MAX : INT64_MAX;
    int64_t k = in_range_only ? 0 : clg_test_rng_range(rng, 0, 9);
    if (k < 5)
        return clg_test_rng_range(rng, -s, s - 1);
    if (k < 9)
        return clg_test_rng_range(rng, -3 * s, 3 * s);
    int64_t extremes[4] = {lo, hi, lo + 1, hi - 1};
    return extremes[clg_test_rng_range(rng, 0, 3)];
}

static void case_make(clg_test_rng *rng, clg_op op, clg_oob_mode mode,
                      clg_dtype dtype, clg_dtype itype, oob_case *c)
{
    memset(c, 0, sizeof *c);
    c->op = op;
    c->mode = mode;
    size_t rank = (size_t)clg_test_rng_range(rng, 1, 3);
    int64_t shape[CLG_MAX_RANK], ishape[CLG_MAX_RANK];
    size_t irank;
    c->axis_n = (size_t)clg_test_rng_range(rng, 0, (int64_t)rank - 1);
    c->axis = clg_test_rng_range(rng, 0, 1)
                  ? (int64_t)c->axis_n
                  : (int64_t)c->axis_n - (int64_t)rank;
    for (size_t d = 0; d < rank; d++)
        shape[d] = clg_test_rng_range(rng, 1, d + 1 == rank ? 24 : 6);
    if (op == CLG_OP_GATHER) {
        irank = (size_t)clg_test_rng_range(rng, 0, 2);
        for (size_t d = 0; d < irank; d++)
            ishape[d] = clg_test_rng_range(rng, 1, 8);
    } else {
        irank = rank;
        for (size_t d = 0; d < rank; d++)
            ishape[d] = d == c->axis_n ? clg_test_rng_range(rng, 1, 8)
                                       : clg_test_rng_range(rng, 1, shape[d]);
    }
    clg_test_tensor_init(&c->data, dtype, rank, shape, 0, 0);
    clg_test_tensor_init(&c->idx, itype, irank, ishape, 0, 0);
    c->es = clg_test_dtype_size(dtype);
    if (dtype == CLG_DTYPE_STRING) {
        clg_string *str = c->data.t.data;
        for (size_t i = 0; i < c->data.bytes / sizeof *str; i++)
            str[i] = (clg_string){string_pool + clg_test_rng_range(rng, 0, 30),
                                  (size_t)clg_test_rng_range(rng, 1, 8)};
    } else {
        clg_test_rng_bytes(rng, c->data.t.data, c->data.bytes);
    }
    int64_t n = clg_test_count(ishape, irank), s = shape[c->axis_n];
    int64_t *values = malloc((size_t)n * sizeof *values);
    assert_non_null(values);
    int in_range_only = mode == CLG_OOB_RAISE && clg_test_rng_range(rng, 0, 1);
    for (int64_t i = 0; i < n; i++) {
        values[i] = random_index(rng, s, itype, in_range_only);
        bad_values[mode] += values[i] < -s || values[i] >= s;
    }
    clg_test_store_indices(&c->idx, values, (size_t)n);
    free(values);
    c->out_rank = clg_test_output_shape(op, &c->data.t, &c->idx.t, c->axis,
                                        c->out_shape);
    clg_test_tensor_init(&c->out, dtype, c->out_rank, c->out_shape, 0, 0xEE);
    c->out_bytes = c->out.bytes;
    c->want = malloc(c->out_bytes + 1);
    assert_non_null(c->want);
    c->expect_ok = oracle(op, &c->data.t, &c->idx.t, c->axis_n, mode, c->want);
    char ds[128], is[128];
    snprintf(c->desc, sizeof c->desc,
             "%s %s data %s %s, indices %s %s, "
             "axis %lld",
             clg_oob_mode_name(mode), clg_op_name(op), clg_dtype_name(dtype),
             clg_test_shape_str(shape, rank, ds, sizeof ds),
             clg_dtype_name(itype),
             clg_test_shape_str(ishape, irank, is, sizeof is),
             (long long)c->axis);
}

static void case_free(oob_case *c)
{
    clg_test_tensor_free(&c->data);
    clg_test_tensor_free(&c->idx);
    clg_test_tensor_free(&c->out);
    free(c->want);
}

/* ------------------------------------------------------------ paths */

static clg_status host_call(clg_context *ctx, const oob_case *c, int ref,
                            const clg_tensor *out)
{
    clg_call_options o = {.oob = c->mode};
    if (ref)
        return c->op == CLG_OP_GATHER
                   ? clg_reference_gather_ex(ctx, &c->data.t, &c->idx.t,
                                             c->axis, out, &o)
                   : clg_reference_gather_elements_ex(ctx, &c->data.t,
                                                      &c->idx.t, c->axis, out,
                                                      &o);
    return c->op == CLG_OP_GATHER
               ? clg_gather_ex(ctx, &c->data.t, &c->idx.t, c->axis, out, &o)
               : clg_gather_elements_ex(ctx, &c->data.t, &c->idx.t, c->axis,
                                        out, &o);
}

/* The host-memory path of `ctx`: the result is the oracle's, or under
 * raise with a bad value INDEX_OUT_OF_RANGE with the output untouched. */
static void check_host(clg_context *ctx, oob_case *c, int ref)
{
    memset(c->out.t.data, 0xEE, c->out_bytes);
    clg_status st = host_call(ctx, c, ref, &c->out.t);
    if (c->expect_ok) {
        CLG_ASSERT_STATUS(ctx, st, CLG_STATUS_OK);
        CLG_ASSERT_BYTES(c->out.t.data, c->want, c->out_bytes, c->es,
                         ref ? "reference" : "host");
    } else {
        CLG_ASSERT_STATUS(ctx, st, CLG_STATUS_INDEX_OUT_OF_RANGE);
        CLG_ASSERT_FILLED(c->out.t.data, c->out_bytes, 0xEE, "output");
    }
    CLG_ASSERT_GUARDS(&c->out, "output");
    calls_compared[c->mode]++;
}

/* Device buffers, blocking (enqueue 0) or enqueued and finished. */
static void check_device(clg_context *ctx, oob_case *c, int enqueue)
{
    clg_call_options o = {.oob = c->mode};
    clg_cl_tensor d = {c->data.t.dtype, c->data.t.rank, c->data.t.shape,
                       clg_test_buffer(ctx, c->data.t.data, c->data.bytes)};
    clg_cl_tensor i = {c->idx.t.dtype, c->idx.t.rank, c->idx.t.shape,
                       clg_test_buffer(ctx, c->idx.t.data, c->idx.bytes)};
    clg_cl_tensor out = {c->out.t.dtype, c->out_rank, c->out_shape,
                         clg_test_buffer(ctx, NULL, c->out_bytes)};
    clg_status st;
    if (enqueue) {
        st = c->op == CLG_OP_GATHER
                 ? clg_enqueue_gather_ex(ctx, NULL, &d, &i, c->axis, &out, 0,
                                         NULL, NULL, &o)
                 : clg_enqueue_gather_elements_ex(ctx, NULL, &d, &i, c->axis,
                                                  &out, 0, NULL, NULL, &o);
        CLG_ASSERT_OK(ctx, st);
        st = clg_context_finish(ctx);
    } else {
        st = c->op == CLG_OP_GATHER
                 ? clg_gather_cl_ex(ctx, &d, &i, c->axis, &out, &o)
                 : clg_gather_elements_cl_ex(ctx, &d, &i, c->axis, &out, &o);
    }
    if (c->expect_ok) {
        CLG_ASSERT_STATUS(ctx, st, CLG_STATUS_OK);
        if (c->out_bytes > 0) {
            assert_int_equal(clEnqueueReadBuffer(clg_context_cl_queue(ctx),
                                                 out.buffer, CL_TRUE, 0,
                                                 c->out_bytes, c->out.t.data,
                                                 0, NULL, NULL),
                             CL_SUCCESS);
            CLG_ASSERT_BYTES(c->out.t.data, c->want, c->out_bytes, c->es,
                             enqueue ? "enqueue" : "device buffers");
        }
    } else {
        CLG_ASSERT_STATUS(ctx, st, CLG_STATUS_INDEX_OUT_OF_RANGE);
    }
    clReleaseMemObject(d.buffer);
    clReleaseMemObject(i.buffer);
    clReleaseMemObject(out.buffer);
    calls_compared[c->mode]++;
}

/* Every path of one case; validation mode on the split context. */
static void check_case(fixture *f, oob_case *c)
{
    check_host(NULL, c, 1);
    check_host(f->ctx, c, 0);
    check_device(f->ctx, c, 0);
    check_device(f->ctx, c, 1);
    CLG_ASSERT_OK(f->split, clg_context_set_validate(f->split, 1));
    check_host(f->split, c, 0);
    CLG_ASSERT_OK(f->split, clg_context_set_validate(f->split, 0));
}

/* `per` cases for each mode x op x width x index type. */
static void run_cases(fixture *f, clg_test_rng *rng, int per)
{
    for (size_t m = 0; m < CLG_TEST_ARRAY_LEN(modes); m++)
        for (int op = 0; op < 2; op++)
            for (size_t w = 0; w < CLG_TEST_ARRAY_LEN(widths); w++)
                for (size_t t = 0; t < CLG_TEST_ARRAY_LEN(index_types); t++)
                    for (int k = 0; k < per; k++) {
                        oob_case c;
                        case_make(rng, (clg_op)op, modes[m], widths[w],
                                  index_types[t], &c);
                        clg_test_set_case("CLG_TEST_SEED=%" PRIu64 ": %s",
                                          f->seed, c.desc);
                        check_case(f, &c);
                        cases_run[modes[m]]++;
                        case_free(&c);
                    }
}

static void print_counts(const char *what)
{
    for (size_t m = 0; m < 4; m++)
        print_message("%s: mode %s: %zu cases, %zu out-of-range values, "
                      "%zu calls compared\n",
                      what, clg_oob_mode_name((clg_oob_mode)m), cases_run[m],
                      bad_values[m], calls_compared[m]);
}

static void test_modes_match_oracle(void **state)
{
    fixture *f = *state;
    clg_test_rng rng = {f->seed};
    memset(cases_run, 0, sizeof cases_run);
    memset(bad_values, 0, sizeof bad_values);
    memset(calls_compared, 0, sizeof calls_compared);
    run_cases(f, &rng, clg_test_quick() ? 1 : 4);
    print_counts("default parameters");
    for (size_t m = 0; m < 4; m++) {
        assert_true(cases_run[m] > 0);
        assert_true(bad_values[m] > 0);
    }
}

/* Parameters that send small cases through the lean, trusted and packed
 * bodies (norm=1: the normalising pass from 1 KiB of output). */
static void test_modes_under_parameters(void **state)
{
    fixture *f = *state;
    static const char *const settings[] = {"norm=1",
                                           "strip=8,chunk=3,pack=1,norm=1",
                                           "strip=4,pack=0,wg=7"};
    clg_params saved;
    CLG_ASSERT_OK(f->ctx, clg_context_get_params(f->ctx, &saved));
    for (size_t i = 0; i < CLG_TEST_ARRAY_LEN(settings); i++) {
        clg_params prm = saved;
        CLG_ASSERT_OK(f->ctx,
                      clg_context_parse_params(f->ctx, settings[i], &prm));
        CLG_ASSERT_OK(f->ctx, clg_context_set_params(f->ctx, &prm));
        clg_test_rng rng = {f->seed + 1 + i};
        run_cases(f, &rng, 1);
        print_counts(settings[i]);
    }
    /* pack=2 (Intel's row): the packed gather prefetching its rows, where
     * the row has the clang built-ins it needs. */
    if (clg_context_params_entry(f->ctx)->builtins) {
        clg_params prm = saved;
        CLG_ASSERT_OK(f->ctx,
                      clg_context_parse_params(f->ctx,
                                               "strip=8,chunk=3,pack=2",
                                               &prm));
        CLG_ASSERT_OK(f->ctx, clg_context_set_params(f->ctx, &prm));
        clg_test_rng rng = {f->seed + 1 + CLG_TEST_ARRAY_LEN(settings)};
        run_cases(f, &rng, 1);
        print_counts("strip=8,chunk=3,pack=2");
    }
    CLG_ASSERT_OK(f->ctx, clg_context_set_params(f->ctx, &saved));
    if (f->ctx->facts.plan_type == CLG_DEVICE_TYPE_CPU)
        assert_true(clg_test_kernels_named(f->ctx,
                                           "clg_gather_elements_packed") >= 1);
    /* On CPU plans fill reached the trusted rows body, whose zeroed rows
     * are their own launch. */
    if (f->ctx->facts.plan_type == CLG_DEVICE_TYPE_CPU)
        assert_true(clg_test_kernels_named(f->ctx, "clg_gather_fill_rows") >=
                    1);
}

/* Under raise, a host-memory call that checks every index before its
 * first launch (here one split into pieces) then launches the clip bodies:
 * every gather kernel it built has CLG_OOB=2, none the raise bodies, and
 * the output is the reference's. A bad index is still named, with the
 * output untouched. */
static void test_raise_checks_once(void **state)
{
    (void)state;
    clg_context *ctx = NULL;
    CLG_ASSERT_OK(NULL, clg_test_context_with_env(&ctx, "CLGATHER_MAX_ALLOC",
                                                  "1024"));
    int64_t dshape[2] = {64, 16}, gshape[1] = {40}, eshape[2] = {40, 16};
    int64_t values[40 * 16];
    for (int k = 0; k < 40 * 16; k++)
        values[k] = (k * 13) % 64 - (k % 3 ? 0 : 64); /* in [-64, 63] */
    clg_test_tensor d, i, o, r;
    clg_test_tensor_init(&d, CLG_DTYPE_FLOAT, 2, dshape, 0, 0);
    for (size_t k = 0; k < d.bytes; k++)
        ((unsigned char *)d.t.data)[k] = (unsigned char)(k * 29 + 3);
    for (int op = 0; op < 2; op++) {
        clg_op which = op ? CLG_OP_GATHER_ELEMENTS : CLG_OP_GATHER;
        clg_test_tensor_init(&i, CLG_DTYPE_INT64, op ? 2 : 1,
                             op ? eshape : gshape, 0, 0);
        clg_test_tensor_init(&o, CLG_DTYPE_FLOAT, 2, eshape, 0, 0xEE);
        clg_test_tensor_init(&r, CLG_DTYPE_FLOAT, 2, eshape, 0, 0);
        clg_test_store_indices(&i, values, op ? 40 * 16 : 40);
        clg_test_set_case("%s, raise, split",
                          op ? "GatherElements" : "Gather");
        CLG_ASSERT_OK(ctx, clg_test_call(which, ctx, 0, &d.t, &i.t, 0, &o.t));
        CLG_ASSERT_OK(NULL,
                      clg_test_call(which, NULL, 1, &d.t, &i.t, 0, &r.t));
        CLG_ASSERT_BYTES(o.t.data, r.t.data, o.bytes, 4, "output");
        /* A bad index: named, and the output as it was. */
        memset(o.t.data, 0xEE, o.bytes);
        int64_t bad = 64;
        clg_test_store_indices(&i, &bad, 1);
        CLG_ASSERT_STATUS(ctx,
                          clg_test_call(which, ctx, 0, &d.t, &i.t, 0, &o.t),
                          CLG_STATUS_INDEX_OUT_OF_RANGE);
        CLG_ASSERT_CONTAINS(clg_context_last_error(ctx), "64");
        CLG_ASSERT_FILLED(o.t.data, o.bytes, 0xEE, "output after the error");
        clg_test_tensor_free(&i);
        clg_test_tensor_free(&o);
        clg_test_tensor_free(&r);
    }
    assert_true(clg_test_kernels_built_with(ctx, "clg_gather",
                                            "-DCLG_OOB=2") >= 2);
    assert_int_equal(clg_test_kernels_built_with(ctx, "clg_gather",
                                                 "-DCLG_OOB=0"),
                     0);
    clg_test_tensor_free(&d);
    clg_context_destroy(ctx);
}

/* An axis of size 0: under raise the first value is named; every other
 * mode refuses a non-empty output at once, on every path, and accepts an
 * empty one. An unknown mode is INVALID_ARGUMENT. */
static void test_empty_axis_and_bad_mode(void **state)
{
    fixture *f = *state;
    int64_t dshape[2] = {3, 0}, ishape[1] = {2}, oshape[2] = {3, 2};
    int64_t values[2] = {0, -1};
    clg_test_tensor d, i, o;
    clg_test_tensor_init(&d, CLG_DTYPE_FLOAT, 2, dshape, 0, 0);
    clg_test_tensor_init(&i, CLG_DTYPE_INT64, 1, ishape, 0, 0);
    clg_test_tensor_init(&o, CLG_DTYPE_FLOAT, 2, oshape, 0, 0xEE);
    clg_test_store_indices(&i, values, 2);
    for (size_t m = 0; m < 4; m++) {
        clg_call_options opt = {.oob = modes[m]};
        CLG_ASSERT_STATUS(f->ctx,
                          clg_gather_ex(f->ctx, &d.t, &i.t, 1, &o.t, &opt),
                          CLG_STATUS_INDEX_OUT_OF_RANGE);
        CLG_ASSERT_CONTAINS(clg_context_last_error(f->ctx), "size 0");
        CLG_ASSERT_STATUS(NULL,
                          clg_reference_gather_ex(NULL, &d.t, &i.t, 1, &o.t,
                                                  &opt),
                          CLG_STATUS_INDEX_OUT_OF_RANGE);
        CLG_ASSERT_FILLED(o.t.data, o.bytes, 0xEE, "output");
        clg_cl_tensor cd = {CLG_DTYPE_FLOAT, 2, dshape,
                            clg_test_buffer(f->ctx, NULL, 4)};
        clg_cl_tensor ci = {CLG_DTYPE_INT64, 1, ishape,
                            clg_test_buffer(f->ctx, i.t.data, i.bytes)};
        clg_cl_tensor co = {CLG_DTYPE_FLOAT, 2, oshape,
                            clg_test_buffer(f->ctx, NULL, o.bytes)};
        clg_status st = clg_enqueue_gather_ex(f->ctx, NULL, &cd, &ci, 1, &co,
                                              0, NULL, NULL, &opt);
        if (modes[m] == CLG_OOB_RAISE) {
            CLG_ASSERT_OK(f->ctx, st);
            st = clg_context_finish(f->ctx);
        }
        CLG_ASSERT_STATUS(f->ctx, st, CLG_STATUS_INDEX_OUT_OF_RANGE);
        CLG_ASSERT_OK(f->ctx, clg_context_finish(f->ctx));
        CLG_ASSERT_STATUS(f->ctx,
                          clg_gather_cl_ex(f->ctx, &cd, &ci, 1, &co, &opt),
                          CLG_STATUS_INDEX_OUT_OF_RANGE);
        clReleaseMemObject(cd.buffer);
        clReleaseMemObject(ci.buffer);
        clReleaseMemObject(co.buffer);
    }
    /* Data [0, 0] on axis 1: the output [0, 2] is empty, so no mode but
     * raise (which still checks the values) has anything to refuse. */
    int64_t d2[2] = {0, 0}, o2[2] = {0, 2};
    clg_test_tensor dd, oo;
    clg_test_tensor_init(&dd, CLG_DTYPE_FLOAT, 2, d2, 0, 0);
    clg_test_tensor_init(&oo, CLG_DTYPE_FLOAT, 2, o2, 0, 0);
    for (size_t m = 0; m < 4; m++) {
        clg_call_options opt = {.oob = modes[m]};
        CLG_ASSERT_STATUS(f->ctx,
                          clg_gather_ex(f->ctx, &dd.t, &i.t, 1, &oo.t, &opt),
                          modes[m] == CLG_OOB_RAISE
                              ? CLG_STATUS_INDEX_OUT_OF_RANGE
                              : CLG_STATUS_OK);
    }
    clg_call_options bad = {.oob = (clg_oob_mode)4};
    CLG_ASSERT_STATUS(f->ctx, clg_gather_ex(f->ctx, &d.t, &i.t, 1, &o.t, &bad),
                      CLG_STATUS_INVALID_ARGUMENT);
    CLG_ASSERT_CONTAINS(clg_context_last_error(f->ctx), "options->oob = 4");
    /* NULL options: the plain call. */
    CLG_ASSERT_STATUS(f->ctx, clg_gather_ex(f->ctx, &d.t, &i.t, 1, &o.t, NULL),
                      CLG_STATUS_INDEX_OUT_OF_RANGE);
    CLG_ASSERT_CONTAINS(clg_context_last_error(f->ctx), "indices[0] = 0");
    clg_test_tensor_free(&d);
    clg_test_tensor_free(&i);
    clg_test_tensor_free(&o);
    clg_test_tensor_free(&dd);
    clg_test_tensor_free(&oo);
}

/* Negative INT32 indices, written out: every mode, both ops, host memory
 * and device buffers, against values computed here. A device compiler
 * that tests the sign of an index after widening it to 64 bits can get it
 * wrong (Mesa's Rusticl 22.3 takes `(long)v < 0` as false for every
 * negative int): fill then gives zeros with status OK, raise a false
 * error. 24 indices per row, so that the 16-lane bodies run too. */
#define NEG_S 8
#define NEG_ROWS 4
#define NEG_N 24
static int32_t neg_expected(int64_t v, clg_oob_mode mode, const int32_t *row)
{
    int64_t s = NEG_S, p;
    if (mode == CLG_OOB_WRAP)
        p = ((v % s) + s) % s;
    else if (mode == CLG_OOB_CLIP)
        p = v < -s ? 0 : v >= s ? s - 1 : v < 0 ? v + s : v;
    else if (v < -s || v >= s)
        return 0; /* fill; raise has no such value here */
    else
        p = v < 0 ? v + s : v;
    return row[0] + (int32_t)p;
}

static void test_negative_int32_every_mode(void **state)
{
    fixture *f = *state;
    /* In range (raise too), then out of range on the negative side. */
    static const int64_t in_range[NEG_N] = {-1, -2, -8, -5, 0,  7,  -1, -3,
                                            -7, -4, -6, -1, -8, 3,  -2, -1,
                                            -5, -1, 6,  -3, -8, -1, 2,  -7};
    static const int64_t outside[NEG_N] = {-1, -9,  -8, -17,   -2147483647 - 1,
                                           7,  -16, -3, -1000, -4,
                                           9,  -1,  -8, -10,   -2,
                                           -1, -5,  -1, 6,     -24,
                                           -8, -9,  2,  -7};
    int64_t dshape[2] = {NEG_ROWS, NEG_S}, gshape[1] = {NEG_N};
    int64_t eshape[2] = {NEG_ROWS, NEG_N}, goshape[2] = {NEG_ROWS, NEG_N};
    clg_test_tensor d;
    clg_test_tensor_init(&d, CLG_DTYPE_INT32, 2, dshape, 0, 0);
    int32_t *dv = d.t.data;
    for (int r = 0; r < NEG_ROWS; r++)
        for (int c = 0; c < NEG_S; c++)
            dv[r * NEG_S + c] = 100 * (r + 1) + c; /* never 0 */
    cl_command_queue q = clg_context_cl_queue(f->ctx);
    for (size_t m = 0; m < 4; m++)
        for (int set = 0; set < 2; set++)
            for (int op = 0; op < 2; op++)
                for (int dev = 0; dev < 2; dev++) {
                    const int64_t *vals = set ? outside : in_range;
                    int raise_bad = modes[m] == CLG_OOB_RAISE && set;
                    clg_call_options opt = {.oob = modes[m]};
                    clg_test_tensor i, o;
                    clg_test_tensor_init(&i, CLG_DTYPE_INT32, op ? 2 : 1,
                                         op ? eshape : gshape, 0, 0);
                    /* GatherElements: the same values on every row. */
                    int32_t *iv = i.t.data;
                    for (int r = 0; r < (op ? NEG_ROWS : 1); r++)
                        for (int j = 0; j < NEG_N; j++)
                            iv[r * NEG_N + j] = (int32_t)vals[j];
                    clg_test_tensor_init(&o, CLG_DTYPE_INT32, 2, goshape, 0,
                                         0xEE);
                    clg_status st;
                    if (!dev) {
                        st = op ? clg_gather_elements_ex(f->ctx, &d.t, &i.t, 1,
                                                         &o.t, &opt)
                                : clg_gather_ex(f->ctx, &d.t, &i.t, 1, &o.t,
                                                &opt);
                    } else {
                        clg_cl_tensor cd = {CLG_DTYPE_INT32, 2, dshape,
                                            clg_test_buffer(f->ctx, d.t.data,
                                                            d.bytes)};
                        clg_cl_tensor ci = {CLG_DTYPE_INT32, i.t.rank,
                                            i.t.shape,
                                            clg_test_buffer(f->ctx, i.t.data,
                                                            i.bytes)};
                        clg_cl_tensor co = {CLG_DTYPE_INT32, 2, goshape,
                                            clg_test_buffer(f->ctx, o.t.data,
                                                            o.bytes)};
                        st = op ? clg_gather_elements_cl_ex(f->ctx, &cd, &ci,
                                                            1, &co, &opt)
                                : clg_gather_cl_ex(f->ctx, &cd, &ci, 1, &co,
                                                   &opt);
                        assert_int_equal(clEnqueueReadBuffer(q, co.buffer,
                                                             CL_TRUE, 0,
                                                             o.bytes, o.t.data,
                                                             0, NULL, NULL),
                                         CL_SUCCESS);
                        clReleaseMemObject(cd.buffer);
                        clReleaseMemObject(ci.buffer);
                        clReleaseMemObject(co.buffer);
                    }
                    if (raise_bad) {
                        CLG_ASSERT_STATUS(f->ctx, st,
                                          CLG_STATUS_INDEX_OUT_OF_RANGE);
                        CLG_ASSERT_CONTAINS(clg_context_last_error(f->ctx),
                                            "] = -9 is out of range [-8, 7]");
                    } else {
                        CLG_ASSERT_OK(f->ctx, st);
                        int32_t want[NEG_ROWS * NEG_N];
                        for (int r = 0; r < NEG_ROWS; r++)
                            for (int j = 0; j < NEG_N; j++)
                                want[r * NEG_N + j] =
                                    neg_expected(vals[j], modes[m],
                                                 &dv[r * NEG_S]);
                        CLG_ASSERT_BYTES(o.t.data, want, sizeof want, 4,
                                         op ? "GatherElements output"
                                            : "Gather output");
                    }
                    clg_test_tensor_free(&i);
                    clg_test_tensor_free(&o);
                }
    clg_test_tensor_free(&d);
}

/* Fill on rows longer than 65535 units: a bad index zeroes its whole row
 * (Gather's rows of 512 KiB and 1 MiB here take the trusted rows body
 * and its zeroing launch on CPU plans; GatherND's, after its per-tuple
 * pass, Gather's lean body, checked here as well). Mesa's
 * llvmpipe (Rusticl) ends any loop of a work-item after 65535
 * iterations, so a work-item that zeroed a whole row left all but the
 * first 65535 units of it as row 0's bytes. */
static void test_fill_long_rows(void **state)
{
    fixture *f = *state;
    static const int64_t widths_units[] = {131072, 262144};
    for (size_t w = 0; w < CLG_TEST_ARRAY_LEN(widths_units); w++) {
        const int64_t inner = widths_units[w];
        int64_t dshape[2] = {2, inner}, gshape[1] = {3}, ndshape[2] = {3, 1};
        int64_t oshape[2] = {3, inner};
        clg_test_tensor d, gi, ni, o;
        clg_test_tensor_init(&d, CLG_DTYPE_FLOAT, 2, dshape, 0, 0);
        float *dv = d.t.data;
        for (int64_t e = 0; e < 2 * inner; e++)
            dv[e] = (float)(e % 1000 + 1); /* never 0 */
        clg_test_tensor_init(&gi, CLG_DTYPE_INT64, 1, gshape, 0, 0);
        clg_test_tensor_init(&ni, CLG_DTYPE_INT64, 2, ndshape, 0, 0);
        const int64_t vals[3] = {5, 1, -3};
        memcpy(gi.t.data, vals, sizeof vals);
        memcpy(ni.t.data, vals, sizeof vals);
        clg_call_options opt = {.oob = CLG_OOB_FILL};
        for (int op = 0; op < 2; op++) {
            clg_test_tensor_init(&o, CLG_DTYPE_FLOAT, 2, oshape, 0, 0x5a);
            if (op == 0)
                CLG_ASSERT_OK(f->ctx, clg_gather_ex(f->ctx, &d.t, &gi.t, 0,
                                                    &o.t, &opt));
            else
                CLG_ASSERT_OK(f->ctx, clg_gather_nd_ex(f->ctx, &d.t, &ni.t, 0,
                                                       &o.t, &opt));
            const float *ov = o.t.data;
            for (int64_t r = 0; r < 3; r++) {
                int64_t first_wrong = -1;
                for (int64_t c = 0; c < inner && first_wrong < 0; c++) {
                    float want = r == 1 ? dv[inner + c] : 0.0f;
                    if (memcmp(&ov[r * inner + c], &want, sizeof want) != 0)
                        first_wrong = c;
                }
                if (first_wrong >= 0)
                    fail_msg("%s fill, rows of %" PRId64 " floats: output "
                             "row %" PRId64 " differs from unit %" PRId64,
                             op ? "GatherND" : "Gather", inner, r,
                             first_wrong);
            }
            CLG_ASSERT_GUARDS(&o, "output");
            clg_test_tensor_free(&o);
        }
        clg_test_tensor_free(&d);
        clg_test_tensor_free(&gi);
        clg_test_tensor_free(&ni);
    }
    if (f->ctx->facts.plan_type == CLG_DEVICE_TYPE_CPU)
        assert_true(clg_test_kernels_named(f->ctx, "clg_gather_fill_rows") >=
                    1);
}

/* The mode words, both ways. */
static void test_mode_words(void **state)
{
    (void)state;
    clg_oob_mode m = CLG_OOB_RAISE;
    const char *words[4] = {"raise", "wrap", "clip", "fill"};
    for (int k = 0; k < 4; k++) {
        assert_string_equal(clg_oob_mode_name((clg_oob_mode)k), words[k]);
        CLG_ASSERT_OK(NULL, clg_oob_mode_parse(words[k], &m));
        assert_int_equal(m, k);
    }
    assert_string_equal(clg_oob_mode_name((clg_oob_mode)7), "unknown");
    CLG_ASSERT_STATUS(NULL, clg_oob_mode_parse("Clip", &m),
                      CLG_STATUS_INVALID_ARGUMENT);
    assert_int_equal(m, CLG_OOB_FILL);
    CLG_ASSERT_STATUS(NULL, clg_oob_mode_parse(NULL, &m),
                      CLG_STATUS_NULL_POINTER);
}

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    assert_non_null(f);
    if (clg_test_device_setup((void **)&f->ctx) != 0) {
        free(f);
        return -1;
    }
    clg_status st = clg_test_context_with_env(&f->split, "CLGATHER_MAX_ALLOC",
                                              "1024");
    if (st != CLG_STATUS_OK) {
        clg_test_device_teardown((void **)&f->ctx);
        free(f);
        return -1;
    }
    f->seed = clg_test_seed(DEFAULT_SEED);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    clg_context_destroy(f->split);
    clg_test_device_teardown((void **)&f->ctx);
    free(f);
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mode_words),
        cmocka_unit_test(test_empty_axis_and_bad_mode),
        cmocka_unit_test(test_negative_int32_every_mode),
        cmocka_unit_test(test_modes_match_oracle),
        cmocka_unit_test(test_modes_under_parameters),
        cmocka_unit_test(test_raise_checks_once),
        cmocka_unit_test(test_fill_long_rows),
    };
    return cmocka_run_group_tests_name("oob", tests, setup, teardown);
}
