/* SPDX-License-Identifier: Apache-2.0 */
/* GatherND on the device (docs/design.md, "Adding an operator"): random
 * cases over every element width (1, 2, 4, 8, 16 bytes and STRING), INT32
 * and INT64 indices, every batch_dims b and tuple length k, negative
 * components, every out-of-range mode and empty tensors, each run on host
 * memory, on host memory split into pieces (CLGATHER_MAX_ALLOC=1024), on
 * device buffers and enqueued, and compared bit for bit with the CPU
 * reference (the status and message too, under raise); then the ONNX
 * page's examples. The seed is fixed and printed (CLG_TEST_SEED). */
#define _POSIX_C_SOURCE 200809L
#include "clg_test.h"
#include "clg_test_cache.h" /* the program cache: which kernels ran */

#include <inttypes.h>

#define DEFAULT_SEED UINT64_C(0x6a7d0e5eed)

static const clg_dtype widths[] = {CLG_DTYPE_UINT8,      CLG_DTYPE_FLOAT16,
                                   CLG_DTYPE_FLOAT,      CLG_DTYPE_DOUBLE,
                                   CLG_DTYPE_COMPLEX128, CLG_DTYPE_STRING};
static const clg_oob_mode modes[] = {CLG_OOB_RAISE, CLG_OOB_WRAP, CLG_OOB_CLIP,
                                     CLG_OOB_FILL};

typedef struct fixture {
    clg_context *ctx;
    clg_context *split;  /* CLGATHER_MAX_ALLOC=1024: pieces (NULL: none) */
    clg_context *tuples; /* CLGATHER_PARAMS=norm=1: the per-tuple pass */
    uint64_t seed;
} fixture;

static int setup(void **state)
{
    static fixture f;
    if (clg_test_device_setup(state) != 0)
        return -1;
    f.ctx = *state;
    if (clg_test_context_with_env(&f.split, "CLGATHER_MAX_ALLOC", "1024") !=
        CLG_STATUS_OK)
        return -1;
    if (clg_test_context_with_env(&f.tuples, "CLGATHER_PARAMS", "norm=1") !=
        CLG_STATUS_OK)
        return -1;
    f.seed = clg_test_seed(DEFAULT_SEED);
    *state = &f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    clg_context_destroy(f->split);
    clg_context_destroy(f->tuples);
    *state = f->ctx;
    return clg_test_device_teardown(state);
}

/* One random case: shapes, values and mode. */
typedef struct nd_case {
    clg_dtype dtype, itype;
    clg_oob_mode mode;
    int64_t b;
    size_t r, q;
    int64_t dshape[6], ishape[6];
} nd_case;

static void make_shapes(clg_test_rng *rng, nd_case *c, int empty)
{
    c->r = (size_t)clg_test_rng_range(rng, 1, 4);
    size_t extra = (size_t)clg_test_rng_range(rng, 0, 2);
    c->b = clg_test_rng_range(rng, 0, (int64_t)c->r - 1);
    if ((size_t)c->b > extra + (size_t)c->b) /* b < q always holds */
        c->b = 0;
    int64_t k = clg_test_rng_range(rng, 1, (int64_t)c->r - c->b);
    for (size_t d = 0; d < c->r; d++)
        c->dshape[d] = clg_test_rng_range(rng, 1, 5);
    c->q = (size_t)c->b + extra + 1;
    for (size_t d = 0; d < (size_t)c->b; d++)
        c->ishape[d] = c->dshape[d];
    for (size_t d = (size_t)c->b; d + 1 < c->q; d++)
        c->ishape[d] = clg_test_rng_range(rng, 1, 6);
    c->ishape[c->q - 1] = k;
    if (empty) { /* a zero dim: in the slice, the tuples or the batch */
        int where = (int)clg_test_rng_range(rng, 0, 2);
        if (where == 0 && c->b + k < (int64_t)c->r)
            c->dshape[c->r - 1] = 0;
        else if (where == 1 && c->q > (size_t)c->b + 1)
            c->ishape[c->b] = 0;
        else {
            c->dshape[0] = 0;
            if (c->b > 0)
                c->ishape[0] = 0;
        }
    }
}

/* Index values: in range (negative half the time), and under `bad` a
 * few far outside, INT extremes included. */
static void make_indices(clg_test_rng *rng, const nd_case *c, int bad,
                         void *buf, int64_t count)
{
    int64_t k = c->ishape[c->q - 1];
    for (int64_t i = 0; i < count; i++) {
        int64_t s = c->dshape[c->b + i % k];
        int64_t v = s > 0 ? clg_test_rng_range(rng, -s, s - 1) : 0;
        if (bad && clg_test_rng_range(rng, 0, 7) == 0) {
            int64_t pick = clg_test_rng_range(rng, 0, 3);
            v = pick == 0   ? s + clg_test_rng_range(rng, 0, 2 * s)
                : pick == 1 ? -s - 1 - clg_test_rng_range(rng, 0, 2 * s)
                : pick == 2
                    ? (c->itype == CLG_DTYPE_INT32 ? INT32_MIN : INT64_MIN)
                    : (c->itype == CLG_DTYPE_INT32 ? INT32_MAX : INT64_MAX);
        }
        if (c->itype == CLG_DTYPE_INT32)
            ((int32_t *)buf)[i] = (int32_t)v;
        else
            ((int64_t *)buf)[i] = v;
    }
}

static size_t g_cases, g_raised, g_compared;

/* Runs one case on every path and compares each with the reference. */
static void run_case(fixture *f, clg_test_rng *rng, const nd_case *c, int bad)
{
    size_t es = clg_test_dtype_size(c->dtype);
    size_t isz = c->itype == CLG_DTYPE_INT32 ? 4 : 8;
    int64_t dn = clg_test_count(c->dshape, c->r);
    int64_t in = clg_test_count(c->ishape, c->q);
    clg_tensor d = {c->dtype, c->r, c->dshape, NULL};
    clg_tensor x = {c->itype, c->q, c->ishape, NULL};
    int64_t oshape[CLG_MAX_RANK];
    size_t orank = 0;
    CLG_ASSERT_OK(NULL, clg_gather_nd_output_shape(&d, &x, c->b, oshape,
                                                   CLG_MAX_RANK, &orank));
    int64_t on = clg_test_count(oshape, orank);
    unsigned char *data = malloc((size_t)dn * es + 16);
    void *idx = malloc((size_t)in * isz + 16);
    unsigned char *want = malloc((size_t)on * es + 16);
    unsigned char *got = malloc((size_t)on * es + 16);
    assert_true(data && idx && want && got);
    if (c->dtype == CLG_DTYPE_STRING) {
        clg_string *sd = (clg_string *)data;
        static const char pool[] = "0123456789abcdef";
        for (int64_t i = 0; i < dn; i++)
            sd[i] = (clg_string){pool + i % 16, (size_t)(i % 7)};
    } else {
        clg_test_rng_bytes(rng, data, (size_t)dn * es);
    }
    make_indices(rng, c, bad, idx, in);
    d.data = data;
    x.data = idx;
    clg_tensor ow = {c->dtype, orank, oshape, want};
    clg_tensor og = {c->dtype, orank, oshape, got};
    clg_call_options opt = {c->mode};
    memset(want, 0x5a, (size_t)on * es);
    clg_status ref = clg_reference_gather_nd_ex(NULL, &d, &x, c->b, &ow, &opt);
    char ref_msg[1024];
    snprintf(ref_msg, sizeof ref_msg, "%s", clg_context_last_error(NULL));
    g_cases++;
    if (ref != CLG_STATUS_OK)
        g_raised++;
    /* Host memory, whole and split. */
    clg_context *ctxs[2] = {f->ctx, f->split};
    for (int s = 0; s < (f->split ? 2 : 1); s++) {
        memset(got, 0xa5, (size_t)on * es);
        clg_status st = clg_gather_nd_ex(ctxs[s], &d, &x, c->b, &og, &opt);
        CLG_ASSERT_STATUS(ctxs[s], st, ref);
        if (ref == CLG_STATUS_OK)
            CLG_ASSERT_BYTES(got, want, (size_t)on * es, es,
                             s ? "GatherND host memory, split"
                               : "GatherND host memory");
        else
            assert_string_equal(clg_context_last_error(ctxs[s]), ref_msg);
        g_compared++;
    }
    /* Host memory at odd addresses: the plan's unit falls to 1 byte. */
    if (ref == CLG_STATUS_OK && c->dtype != CLG_DTYPE_STRING && on > 0) {
        unsigned char *od = malloc((size_t)dn * es + 1);
        unsigned char *oo = malloc((size_t)on * es + 1);
        assert_true(od && oo);
        memcpy(od + 1, data, (size_t)dn * es);
        memset(oo, 0xa5, (size_t)on * es + 1);
        clg_tensor du = {c->dtype, c->r, c->dshape, od + 1};
        clg_tensor ou = {c->dtype, orank, oshape, oo + 1};
        CLG_ASSERT_OK(f->ctx,
                      clg_gather_nd_ex(f->ctx, &du, &x, c->b, &ou, &opt));
        CLG_ASSERT_BYTES(oo + 1, want, (size_t)on * es, es,
                         "GatherND host memory, unaligned");
        assert_int_equal(oo[0], 0xa5);
        free(od);
        free(oo);
        g_compared++;
    }
    if (c->dtype == CLG_DTYPE_STRING)
        goto done; /* descriptors hold host pointers */
    /* Device buffers and the enqueue path. */
    cl_mem bd = clg_test_buffer(f->ctx, data, (size_t)dn * es);
    cl_mem bi = clg_test_buffer(f->ctx, idx, (size_t)in * isz);
    for (int e = 0; e < 2; e++) {
        memset(got, 0xa5, (size_t)on * es);
        cl_mem bo = clg_test_buffer(f->ctx, got, (size_t)on * es);
        clg_cl_tensor cd = {c->dtype, c->r, c->dshape, bd};
        clg_cl_tensor cx = {c->itype, c->q, c->ishape, bi};
        clg_cl_tensor co = {c->dtype, orank, oshape, bo};
        clg_status st;
        if (e == 0) {
            st = clg_gather_nd_cl_ex(f->ctx, &cd, &cx, c->b, &co, &opt);
        } else {
            st = clg_enqueue_gather_nd_ex(f->ctx, NULL, &cd, &cx, c->b, &co, 0,
                                          NULL, NULL, &opt);
            if (st == CLG_STATUS_OK)
                st = clg_context_finish(f->ctx);
        }
        CLG_ASSERT_STATUS(f->ctx, st, ref);
        if (ref == CLG_STATUS_OK) {
            if (on > 0)
                assert_int_equal(clEnqueueReadBuffer(
                                     clg_context_cl_queue(f->ctx), bo, CL_TRUE,
                                     0, (size_t)on * es, got, 0, NULL, NULL),
                                 CL_SUCCESS);
            CLG_ASSERT_BYTES(got, want, (size_t)on * es, es,
                             e ? "GatherND enqueued" : "GatherND buffers");
        } else {
            /* Immediate (the descriptors, the options) or deferred to the
             * finish, which names the call before the message. */
            const char *m = clg_context_last_error(f->ctx);
            size_t lm = strlen(m), lr = strlen(ref_msg);
            if (strcmp(m, ref_msg) != 0) {
                assert_true(e == 1 && lm > lr);
                assert_memory_equal(m, "GatherND #", 10);
                CLG_ASSERT_CONTAINS(m, ", batch_dims ");
                assert_string_equal(m + lm - lr, ref_msg);
            }
        }
        g_compared++;
        clReleaseMemObject(bo);
    }
    clReleaseMemObject(bd);
    clReleaseMemObject(bi);
done:
    free(data);
    free(idx);
    free(want);
    free(got);
}

static void test_nd_random(void **state)
{
    fixture *f = *state;
    clg_test_rng rng = {f->seed};
    int quick = clg_test_quick();
    for (size_t w = 0; w < CLG_TEST_ARRAY_LEN(widths); w++)
        for (int it = 0; it < 2; it++)
            for (size_t m = 0; m < CLG_TEST_ARRAY_LEN(modes); m++)
                for (int i = 0; i < (quick ? 2 : 8); i++) {
                    nd_case c = {0};
                    c.dtype = widths[w];
                    c.itype = it ? CLG_DTYPE_INT64 : CLG_DTYPE_INT32;
                    c.mode = modes[m];
                    make_shapes(&rng, &c, i == 3);
                    /* raise: half the cases hold bad values */
                    run_case(f, &rng, &c, c.mode != CLG_OOB_RAISE || (i & 1));
                }
    print_message("GatherND: %zu cases (%zu refused by raise or an empty "
                  "dim), %zu device calls compared with the reference\n",
                  g_cases, g_raised, g_compared);
    assert_true(g_cases > 0 && g_raised > 0);
}

/* Every b and k on one shape: data [2, 3, 4, 5], indices with the batch
 * dims, three tuples, k components; all four paths. */
static void test_nd_every_b_and_k(void **state)
{
    fixture *f = *state;
    clg_test_rng rng = {f->seed ^ 0x5eed};
    for (int64_t b = 0; b < 4; b++)
        for (int64_t k = 1; k <= 4 - b; k++)
            for (int it = 0; it < 2; it++) {
                nd_case c = {0};
                c.dtype = CLG_DTYPE_FLOAT;
                c.itype = it ? CLG_DTYPE_INT64 : CLG_DTYPE_INT32;
                c.mode = CLG_OOB_RAISE;
                c.b = b;
                c.r = 4;
                const int64_t ds[4] = {2, 3, 4, 5};
                memcpy(c.dshape, ds, sizeof ds);
                c.q = (size_t)b + 2;
                for (int64_t d = 0; d < b; d++)
                    c.ishape[d] = ds[d];
                c.ishape[b] = 3;
                c.ishape[b + 1] = k;
                run_case(f, &rng, &c, 0);
            }
}

/* Pieces: tensors past CLGATHER_MAX_ALLOC=1024 on the split context,
 * rows of tuples (b 1, k 1, slices of 80 bytes) and windows of tuples
 * (b 0, k 2, 6400 bytes of indices), under every mode; under
 * CLG_TEST_QUICK=1 each shape under two of the modes, so that the two
 * shapes together take every mode, and 20 tuples where 50 (2560 bytes of
 * indices, still three windows; each piece is a launch: under Oclgrind
 * the whole test took 87 s, then 50 s with the modes shared). */
static void test_nd_pieces(void **state)
{
    fixture *f = *state;
    clg_test_rng rng = {f->seed ^ 0x9ece};
    int quick = clg_test_quick();
    for (size_t m = 0; m < CLG_TEST_ARRAY_LEN(modes); m++)
        for (int shape = 0; shape < 2; shape++) {
            if (quick && (int)(m / 2) != shape)
                continue;
            nd_case c = {0};
            c.dtype = CLG_DTYPE_FLOAT;
            c.itype = CLG_DTYPE_INT64;
            c.mode = modes[m];
            c.r = 3;
            c.dshape[0] = 4;
            c.dshape[1] = 30;
            c.dshape[2] = 20;
            c.b = shape == 0 ? 1 : 0;
            c.q = 3;
            c.ishape[0] = shape == 0 ? 4 : 8;
            c.ishape[1] = quick ? 20 : 50;
            c.ishape[2] = shape == 0 ? 1 : 2;
            run_case(f, &rng, &c, c.mode != CLG_OOB_RAISE);
        }
}

/* One shape of the per-tuple pass's tests in one width: both index
 * types (under CLG_TEST_QUICK=1 the one `quick_itype` picks: 0 int32, 1
 * int64; -1 both), every mode, out-of-range components under the modes that
 * resolve them, and under raise where `raise_bad`. */
static void run_tuple_cases(fixture *g, clg_test_rng *rng, clg_dtype dtype,
                            size_t r, const int64_t *ds, size_t q,
                            const int64_t *is, size_t b, int raise_bad,
                            int quick_itype)
{
    int quick = clg_test_quick();
    for (int it = 0; it < 2; it++)
        for (size_t m = 0; m < CLG_TEST_ARRAY_LEN(modes); m++) {
            if (quick && quick_itype >= 0 && it != quick_itype)
                continue;
            nd_case c = {0};
            c.dtype = dtype;
            c.itype = it ? CLG_DTYPE_INT64 : CLG_DTYPE_INT32;
            c.mode = modes[m];
            c.b = (int64_t)b;
            c.r = r;
            c.q = q;
            memcpy(c.dshape, ds, r * sizeof *ds);
            memcpy(c.ishape, is, q * sizeof *is);
            run_case(g, rng, &c, c.mode != CLG_OOB_RAISE || raise_bad);
        }
}

/* The per-tuple pass (docs/design.md, "Kernels") on a context whose
 * `norm` is 1 KiB, so that these outputs of 1 KiB or more take it on CPU
 * plans: slices of 64 elements with batch_dims 1 (those of 512 bytes or
 * more by the rows body), rows with k 1, scalar slices with k 2 (1024
 * tuples, whole work-groups), 3 (batch_dims 1; 3 x 1500 tuples, more than
 * one group of 4096 holds, so that the pass's dimension 1 is padded) and 4
 * (k from the tuple list),
 * every width,
 * both index types, every mode, out-of-range components under the modes
 * that resolve them and half the raise cases. Under CLG_TEST_QUICK=1
 * without the split context (its pieces of 1 KiB made 57,000 launches
 * here, ten minutes under Oclgrind, and test_nd_pieces covers pieces),
 * and each width of shapes 0 to 2 with one index type, in turn from
 * width to width and from shape to shape (shapes 3 and 4, in one width,
 * with both). */
static void test_nd_tuple_pass(void **state)
{
    fixture *f = *state;
    fixture g = *f;
    clg_test_rng rng = {f->seed ^ 0x7a55};
    g.ctx = f->tuples;
    if (clg_test_quick())
        g.split = NULL; /* pieces: test_nd_pieces */
    static const int64_t ds[5][4] = {{3, 7, 5, 64},
                                     {50, 30, 0, 0},
                                     {40, 50, 0, 0},
                                     {3, 6, 7, 8},
                                     {5, 6, 7, 8}};
    static const int64_t is[5][3] = {
        {3, 20, 2}, {60, 1, 0}, {1024, 2, 0}, {3, 1500, 3}, {1200, 4, 0}};
    static const size_t r[5] = {4, 2, 2, 4, 4}, q[5] = {3, 2, 2, 3, 2};
    static const size_t b[5] = {1, 0, 0, 1, 0};
    for (int shape = 0; shape < 5; shape++)
        for (size_t w = 0; w < CLG_TEST_ARRAY_LEN(widths); w++) {
            /* k 3 and 4: the pass's own forms; under CLG_TEST_QUICK=1
             * (Oclgrind) in one width, the others' bodies being Gather's,
             * which the other shapes run in every width. */
            if (clg_test_quick() && shape >= 3 && widths[w] != CLG_DTYPE_FLOAT)
                continue;
            /* Under CLG_TEST_QUICK=1 the shapes in every width take one
             * index type per width; those in one width take both, since
             * no other call builds their pass with the other type. */
            run_tuple_cases(&g, &rng, widths[w], r[shape], ds[shape], q[shape],
                            is[shape], b[shape], (int)(w & 1),
                            shape >= 3 ? -1 : (int)((w + (size_t)shape) & 1));
        }
    if (f->tuples->facts.plan_type == CLG_DEVICE_TYPE_CPU) {
        assert_true(clg_test_kernels_named(f->tuples, "clg_gather_nd_"
                                                      "positions") >= 1);
        /* The Gather after the pass: the rows body under clip's
         * arithmetic for raise, wrap and clip (the pass left every
         * position in range), and under fill's. */
        assert_true(clg_test_kernels_built_with(f->tuples, "clg_gather_rows",
                                                "-DCLG_OOB=2") >= 1);
        assert_true(clg_test_kernels_built_with(f->tuples, "clg_gather_rows",
                                                "-DCLG_OOB=3") >= 1);
        for (int mode = 0; mode < 2; mode++) {
            char option[16];
            snprintf(option, sizeof option, "-DCLG_OOB=%d", mode);
            assert_int_equal(clg_test_kernels_built_with(f->tuples,
                                                         "clg_gather_rows",
                                                         option),
                             0);
        }
        /* Scalar slices: the trusted units body over the positions where
         * the tuples fill their work-groups exactly (1024 of them), the
         * checking one where the last group is padded (3 x 1500). */
        assert_true(clg_test_kernels_built_with(f->tuples,
                                                "clg_gather_units_normed",
                                                "-DCLG_OOB=2") >= 1);
        assert_true(clg_test_kernels_built_with(f->tuples,
                                                "clg_gather_units_normed",
                                                "-DCLG_OOB=3") >= 1);
        assert_true(clg_test_kernels_named(f->tuples,
                                           "clg_gather_units_lean") >= 1);
    }
}

/* The per-tuple pass's bodies with `nt=1` where the device's row has
 * clang's built-ins: the rows body (slices of 64 elements of 8 and 16
 * bytes) and the trusted units body (scalar slices, 1024 tuples) then
 * store non-temporally where the output is aligned to 64 bytes (the
 * device buffers), which by themselves they do only on outputs larger
 * than half the device's cache. Every width, both index types, every
 * mode, out-of-range components under the modes that resolve them.
 * Under CLG_TEST_QUICK=1 each width with one index type, in turn; and
 * where the row has no built-ins (`nt=0`: these are test_nd_tuple_pass's
 * calls), one width with both. */
static void test_nd_tuple_pass_nt(void **state)
{
    fixture *f = *state;
    fixture g = *f;
    clg_test_rng rng = {f->seed ^ 0x4e75};
    g.ctx = f->tuples;
    g.split = NULL;
    const clg_params_entry *e = clg_context_params_entry(f->tuples);
    clg_params prm = e->params;
    CLG_ASSERT_OK(f->tuples,
                  clg_context_parse_params(f->tuples,
                                           e->builtins ? "norm=1,nt=1"
                                                       : "norm=1,nt=0",
                                           &prm));
    CLG_ASSERT_OK(f->tuples, clg_context_set_params(f->tuples, &prm));
    static const int64_t ds[2][3] = {{3, 7, 64}, {40, 50, 0}};
    static const int64_t is[2][3] = {{3, 20, 1}, {1024, 2, 0}};
    static const size_t r[2] = {3, 2}, q[2] = {3, 2}, b[2] = {1, 0};
    int one_width = clg_test_quick() && !e->builtins;
    for (int shape = 0; shape < 2; shape++)
        for (size_t w = 0; w < CLG_TEST_ARRAY_LEN(widths); w++) {
            if (one_width && widths[w] != CLG_DTYPE_FLOAT)
                continue;
            run_tuple_cases(&g, &rng, widths[w], r[shape], ds[shape], q[shape],
                            is[shape], b[shape], 0,
                            one_width ? -1 : (int)((w + (size_t)shape) & 1));
        }
    CLG_ASSERT_OK(f->tuples, clg_context_set_params(f->tuples, &e->params));
    if (e->builtins && f->tuples->facts.plan_type == CLG_DEVICE_TYPE_CPU) {
        assert_true(clg_test_kernels_built_with(f->tuples, "clg_gather_rows",
                                                "-DCLG_NT=1") >= 1);
        assert_true(clg_test_kernels_built_with(f->tuples,
                                                "clg_gather_units_normed",
                                                "-DCLG_NT=1") >= 1);
    }
}

/* The index check of a host-memory call under raise with more than
 * 65536 index values (docs/design.md, "Host memory and device buffers"):
 * tuples whose components address dims of one size (data [300, 300]) go
 * through the check kernel on a context that uses host memory, tuples
 * over dims of different sizes ([300, 301]) through the host scan; each
 * valid call matches the reference, and one bad component, at the last
 * tuple or the first, fails with the reference's message and leaves the
 * output untouched. */
static void test_nd_index_check(void **state)
{
    fixture *f = *state;
    clg_test_rng rng = {f->seed ^ 0xc4ec};
    enum { TUPLES = 40000 }; /* 80000 values */
    for (int dims = 0; dims < 2; dims++) {
        clg_context *ctx = NULL; /* a new one: its programs are this test's */
        CLG_ASSERT_OK(NULL, clg_context_create(&ctx, NULL));
        clg_test_device_only(ctx);
        const int64_t ds[2] = {300, dims ? 301 : 300};
        const int64_t is[2] = {TUPLES, 2};
        const int64_t os[1] = {TUPLES};
        float *data = malloc(sizeof(float) * 300 * 301);
        int64_t *idx = malloc(sizeof(int64_t) * 2 * TUPLES);
        float *got = malloc(sizeof(float) * TUPLES);
        float *want = malloc(sizeof(float) * TUPLES);
        assert_true(data && idx && got && want);
        clg_test_rng_bytes(&rng, data, sizeof(float) * 300 * 301);
        for (int64_t t = 0; t < 2 * TUPLES; t++)
            idx[t] = clg_test_rng_range(&rng, -ds[t % 2], ds[t % 2] - 1);
        clg_tensor d = {CLG_DTYPE_FLOAT, 2, ds, data};
        clg_tensor x = {CLG_DTYPE_INT64, 2, is, idx};
        clg_tensor og = {CLG_DTYPE_FLOAT, 1, os, got};
        clg_tensor ow = {CLG_DTYPE_FLOAT, 1, os, want};
        CLG_ASSERT_OK(NULL, clg_reference_gather_nd(NULL, &d, &x, 0, &ow));
        memset(got, 0xa5, sizeof(float) * TUPLES);
        CLG_ASSERT_OK(ctx, clg_gather_nd(ctx, &d, &x, 0, &og));
        CLG_ASSERT_BYTES(got, want, sizeof(float) * TUPLES, 4,
                         "GatherND, 80000 index values");
        if (clg_context_uses_host_memory(ctx))
            assert_int_equal(clg_test_kernels_named(ctx, "clg_check_indices") >
                                 0,
                             dims == 0);
        /* One bad component: the last value, then the first. */
        for (int at = 0; at < 2; at++) {
            int64_t pos = at ? 0 : 2 * TUPLES - 1, keep = idx[pos];
            idx[pos] = ds[pos % 2];
            CLG_ASSERT_STATUS(NULL,
                              clg_reference_gather_nd(NULL, &d, &x, 0, &ow),
                              CLG_STATUS_INDEX_OUT_OF_RANGE);
            char msg[256];
            snprintf(msg, sizeof msg, "%s", clg_context_last_error(NULL));
            memset(got, 0xa5, sizeof(float) * TUPLES);
            CLG_ASSERT_STATUS(ctx, clg_gather_nd(ctx, &d, &x, 0, &og),
                              CLG_STATUS_INDEX_OUT_OF_RANGE);
            assert_string_equal(clg_context_last_error(ctx), msg);
            for (int64_t t = 0; t < TUPLES; t++)
                assert_int_equal(((const unsigned char *)got)[4 * t], 0xa5);
            idx[pos] = keep;
        }
        clg_context_destroy(ctx);
        free(data);
        free(idx);
        free(got);
        free(want);
    }
}

/* The ONNX page's examples on the device: 1 (int32 node test), 4
 * (float32 node test) and 5 (batch_dims 1). */
static void test_nd_onnx_examples(void **state)
{
    fixture *f = *state;
    const float d3[] = {0, 1, 2, 3, 4, 5, 6, 7};
    const int32_t d2[] = {0, 1, 2, 3};
    float out[4];
    int32_t out2[2];
    clg_tensor d = {CLG_DTYPE_FLOAT, 3, (const int64_t[]){2, 2, 2},
                    (void *)d3};
    clg_tensor x4 = {CLG_DTYPE_INT64, 3, (const int64_t[]){2, 1, 2},
                     (void *)(const int64_t[]){0, 1, 1, 0}};
    clg_tensor o4 = {CLG_DTYPE_FLOAT, 3, (const int64_t[]){2, 1, 2}, out};
    CLG_ASSERT_OK(f->ctx, clg_gather_nd(f->ctx, &d, &x4, 0, &o4));
    const float w4[] = {2, 3, 4, 5};
    CLG_ASSERT_BYTES(out, w4, sizeof out, 4, "example 4");
    clg_tensor x5 = {CLG_DTYPE_INT64, 2, (const int64_t[]){2, 1},
                     (void *)(const int64_t[]){1, 0}};
    clg_tensor o5 = {CLG_DTYPE_FLOAT, 2, (const int64_t[]){2, 2}, out};
    memset(out, 0, sizeof out);
    CLG_ASSERT_OK(f->ctx, clg_gather_nd(f->ctx, &d, &x5, 1, &o5));
    CLG_ASSERT_BYTES(out, w4, sizeof out, 4, "example 5");
    clg_tensor dd = {CLG_DTYPE_INT32, 2, (const int64_t[]){2, 2}, (void *)d2};
    clg_tensor x1 = {CLG_DTYPE_INT64, 2, (const int64_t[]){2, 2},
                     (void *)(const int64_t[]){0, 0, 1, 1}};
    clg_tensor o1 = {CLG_DTYPE_INT32, 1, (const int64_t[]){2}, out2};
    CLG_ASSERT_OK(f->ctx, clg_gather_nd(f->ctx, &dd, &x1, 0, &o1));
    assert_int_equal(out2[0], 0);
    assert_int_equal(out2[1], 3);
    /* The issue's message, from the device path. */
    int32_t big[12] = {0}, o[2] = {0};
    clg_tensor db = {CLG_DTYPE_INT32, 3, (const int64_t[]){2, 2, 3}, big};
    clg_tensor xb = {CLG_DTYPE_INT64, 3, (const int64_t[]){2, 1, 3},
                     (void *)(const int64_t[]){0, 0, 0, 1, 0, 5}};
    clg_tensor ob = {CLG_DTYPE_INT32, 2, (const int64_t[]){2, 1}, o};
    CLG_ASSERT_STATUS(f->ctx, clg_gather_nd(f->ctx, &db, &xb, 0, &ob),
                      CLG_STATUS_INDEX_OUT_OF_RANGE);
    assert_string_equal(clg_context_last_error(f->ctx),
                        "indices[1][0][2] = 5 is out of range [-3, 2] for "
                        "data dim 2 of size 3");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_nd_onnx_examples),
        cmocka_unit_test(test_nd_every_b_and_k),
        cmocka_unit_test(test_nd_pieces),
        cmocka_unit_test(test_nd_random),
        cmocka_unit_test(test_nd_tuple_pass),
        cmocka_unit_test(test_nd_tuple_pass_nt),
        cmocka_unit_test(test_nd_index_check),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
