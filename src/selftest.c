/* SPDX-License-Identifier: Apache-2.0 */
/* The known-answer self-test of a kernel variant (docs/guide.md,
 * "Known-answer self-test"). The first time a call needs an entry point
 * of a program (one file, one set of build options) in a context, before
 * that kernel answers it, the entry point runs a small fixed case, and its
 * output is compared byte for byte with the CPU reference
 * (src/reference.c): valid negative and positive indices of the variant's
 * index width, its out-of-range values under its mode (raise: that they
 * raise), in units of the variant's width. Only the entry points calls
 * use are tested; one that passed is recorded in the disk entry of its
 * program, so a context that loads it does not test it again. A variant
 * that differs is never used.
 *
 * The test runs inside whichever call first needs the entry point,
 * deferred ones included, so it takes nothing from the epoch: an
 * UNCHECKED call on the library's own queue, over buffers of its own. */
#include "op.h"
#include "variant.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* s of every case; GatherElements cases have AXIS - 1 positions on the
 * axis (no more than s, as CLG_AHEAD needs). */
#define AXIS 8
#define MAX_VALUES 16
#define CHECK_COUNT 20 /* one 16-value vector and a tail (kernels/check.cl) */

static const int64_t valid_values[] = {-1, 2, -8, 7, 0, 3, -3, 1};
static const int64_t bad_int32[] = {8, -9, INT32_MAX, INT32_MIN};
/* 2^32 and -2^32 - 1 select 0 and -1 where a kernel truncates to int. */
static const int64_t bad_int64[] = {
    8, -9, INT64_MAX, INT64_MIN, INT64_C(1) << 32, -(INT64_C(1) << 32) - 1};

/* One case's index values, valid and (with_bad) out of range ones
 * interleaved, so that a short tensor holds both. */
typedef struct st_case {
    int64_t values[MAX_VALUES];
    size_t count;
    int with_bad;
} st_case;

/* The program under test and where its failure is written. */
typedef struct st_run {
    clg_context *ctx;
    const clg_variant *v; /* the variant under test: the program's options */
    const char *const *files;
    const char *options;
    char *msg;
    size_t cap;
} st_run;

/* A launch of the test: its entry point, arguments and NDRange. */
typedef struct st_launch {
    clg_entry entry;
    clg_args a;
    clg_geometry g;
} st_launch;

static void make_case(size_t index_size, int with_bad, st_case *c)
{
    const int64_t *bad = index_size == 4 ? bad_int32 : bad_int64;
    size_t nbad = !with_bad ? 0 : index_size == 4 ? 4 : 6;
    c->count = 0;
    c->with_bad = with_bad;
    for (size_t i = 0; i < 8; i++) {
        c->values[c->count++] = valid_values[i];
        if (i < nbad)
            c->values[c->count++] = bad[i];
    }
    /* Both cases of a width have the same length, so the same NDRange:
     * a device compiler that specialises a kernel per work-group size
     * (POCL) compiles it once for the test. */
    for (size_t i = 0; c->count < 8 + (index_size == 4 ? 4u : 6u); i++)
        c->values[c->count++] = valid_values[i];
}

static clg_dtype dtype_of_size(unsigned bytes)
{
    switch (bytes) {
    case 1:
        return CLG_DTYPE_UINT8;
    case 2:
        return CLG_DTYPE_UINT16;
    case 4:
        return CLG_DTYPE_UINT32;
    case 8:
        return CLG_DTYPE_UINT64;
    default:
        return CLG_DTYPE_COMPLEX128;
    }
}

/* `count` index values of `size` bytes, the case's repeated. */
static void fill_indices(void *buf, size_t size, const st_case *c,
                         size_t count)
{
    for (size_t i = 0; i < count; i++) {
        int64_t v = c->values[i % c->count];
        if (size == 4)
            ((int32_t *)buf)[i] = (int32_t)v;
        else
            ((int64_t *)buf)[i] = v;
    }
}

static void fill_pattern(unsigned char *p, size_t bytes, unsigned seed)
{
    for (size_t i = 0; i < bytes; i++)
        p[i] = (unsigned char)(i * 37u + seed);
}

/* Writes the failure of `entry` on case `c` to the run's message and
 * returns DEVICE_MISCOMPILED. */
static clg_status miscompiled(const st_run *r, clg_entry entry,
                              const st_case *c, const char *what)
{
    char values[320];
    size_t len = 0;
    for (size_t i = 0; i < c->count && len < sizeof values; i++) {
        int n = snprintf(values + len, sizeof values - len, "%s%lld",
                         i ? ", " : "", (long long)c->values[i]);
        if (n < 0)
            break;
        len += (size_t)n;
    }
    char units[32] = "";
    if (clg_entries[entry].file != CLG_FILE_CHECK)
        snprintf(units, sizeof units, ", %u-byte elements",
                 r->v->value[CLG_OPT_UNIT]);
    snprintf(r->msg, r->cap,
             "kernel %s failed its known-answer self-test on device \"%s\" "
             "and is not used: INT%u indices {%s} on an axis of %d under "
             "%s%s: %s (build options \"%s\")",
             clg_entries[entry].name, clg_context_device_name(r->ctx),
             r->v->value[CLG_OPT_INDEX_BYTES] * 8, values, AXIS,
             clg_oob_mode_name((clg_oob_mode)r->v->value[CLG_OPT_OOB]), units,
             what, r->options);
    return CLG_STATUS_DEVICE_MISCOMPILED;
}

/* Compares `bytes` of the device's output with the reference's. */
static clg_status compare(const st_run *r, clg_entry entry, const st_case *c,
                          const unsigned char *got, const unsigned char *want,
                          size_t bytes)
{
    char what[128];
    for (size_t i = 0; i < bytes; i++)
        if (got[i] != want[i]) {
            snprintf(what, sizeof what,
                     "output byte %zu is 0x%02x where the reference has "
                     "0x%02x",
                     i, got[i], want[i]);
            return miscompiled(r, entry, c, what);
        }
    return CLG_STATUS_OK;
}

/* Runs `n` launches in order, then reads `bytes` of `out` to `host` and
 * the error flag to *raised. */
static clg_status run_launches(const st_run *r, const st_launch *l, size_t n,
                               cl_mem out, void *host, size_t bytes,
                               cl_mem err, int *raised)
{
    clg_rt_call c;
    cl_int flag[2] = {0, 0};
    clg_status st = clg_rt_call_open(r->ctx, clg_rt_host_queue(r->ctx), 0,
                                     NULL, CLG_RT_CALL_UNCHECKED, &c);
    for (size_t i = 0; i < n && st == CLG_STATUS_OK; i++) {
        cl_kernel k = NULL;
        st = clg_rt_kernel(r->ctx, r->files, 2, r->options,
                           clg_entries[l[i].entry].name, &k, NULL);
        if (st == CLG_STATUS_OK)
            st = clg_entry_launch(&c, l[i].entry, k, &l[i].a, &l[i].g);
    }
    if (st == CLG_STATUS_OK)
        st = clg_rt_call_sync(&c);
    clg_rt_call_close(&c, st != CLG_STATUS_OK);
    if (st == CLG_STATUS_OK && bytes)
        st = clg_rt_read(r->ctx, out, 0, host, bytes);
    if (st == CLG_STATUS_OK)
        st = clg_rt_read(r->ctx, err, 0, flag, sizeof flag);
    *raised = flag[0] != 0;
    return st;
}

/* The positions the reference selects for the case's values, as
 * clg_normalize_indices writes them (-1: none, under fill): a Gather of
 * 1 .. AXIS, less one. */
static clg_status reference_positions(const st_run *r, const void *idx,
                                      size_t count, int32_t *pos)
{
    int32_t iota[AXIS];
    int64_t dshape[1] = {AXIS}, ishape[1] = {(int64_t)count};
    clg_call_options o = {(clg_oob_mode)r->v->value[CLG_OPT_OOB]};
    unsigned isz = r->v->value[CLG_OPT_INDEX_BYTES];
    for (int i = 0; i < AXIS; i++)
        iota[i] = i + 1;
    clg_tensor d = {CLG_DTYPE_INT32, 1, dshape, iota};
    clg_tensor x = {isz == 4 ? CLG_DTYPE_INT32 : CLG_DTYPE_INT64, 1, ishape,
                    (void *)idx};
    clg_tensor y = {CLG_DTYPE_INT32, 1, ishape, pos};
    clg_status st = clg_reference_gather_ex(r->ctx, &d, &x, 0, &y, &o);
    for (size_t i = 0; st == CLG_STATUS_OK && i < count; i++)
        pos[i] -= 1;
    return st;
}

/* The expected outcome of a case: raise with out-of-range values raises
 * (its output unspecified); every other case matches `want`. */
static clg_status verdict(const st_run *r, clg_entry entry, const st_case *c,
                          int raised, const void *got, const void *want,
                          size_t bytes)
{
    int raise = r->v->value[CLG_OPT_OOB] == CLG_OOB_RAISE && c->with_bad;
    if (raise != raised)
        return miscompiled(r, entry, c,
                           raise ? "the error flag was not raised"
                                 : "the error flag was raised");
    return raise ? CLG_STATUS_OK : compare(r, entry, c, got, want, bytes);
}

/* The buffers of a pass over indices (check.cl's, gather_nd.cl's
 * per-tuple one): the indices, a clear error flag and the pass's output
 * filled from `got`, as launch l's INDICES, ERR and NORMED arguments. */
static clg_status pass_buffers(const st_run *r, const void *idx,
                               size_t idx_bytes, const void *got,
                               size_t got_bytes, st_launch *l, cl_mem *ib,
                               cl_mem *eb, cl_mem *nb)
{
    const cl_int flag[2] = {0, 0};
    clg_status st = clg_rt_copy_buffer(r->ctx, idx, idx_bytes, ib);
    if (st == CLG_STATUS_OK)
        st = clg_rt_copy_buffer(r->ctx, flag, sizeof flag, eb);
    if (st == CLG_STATUS_OK)
        st = clg_rt_copy_buffer(r->ctx, got, got_bytes, nb);
    l->a.at[CLG_ARG_INDICES] = CLG_RT_BUFFER(*ib);
    l->a.at[CLG_ARG_ERR] = CLG_RT_BUFFER(*eb);
    l->a.at[CLG_ARG_NORMED] = CLG_RT_BUFFER(*nb);
    return st;
}

/* check.cl: the check kernel raises on a case with one bad value (in its
 * vector part at `bad_at` 5, in its tail at 18) and not on valid values;
 * the normalising pass writes the reference's positions. */
static clg_status test_check(const st_run *r, clg_entry entry,
                             const st_case *c, size_t bad_at)
{
    const clg_device_facts *dev = clg_rt_facts(r->ctx);
    unsigned isz = r->v->value[CLG_OPT_INDEX_BYTES];
    int check = entry == CLG_ENTRY_CHECK_INDICES ||
                entry == CLG_ENTRY_CHECK_INDICES_VECTORS;
    int64_t idx[CHECK_COUNT];
    int32_t pos[CHECK_COUNT], got[CHECK_COUNT];
    cl_mem ib = NULL, eb = NULL, nb = NULL;
    st_launch l = {entry, {{{0}}}, {0}};
    cl_ulong count = CHECK_COUNT, s = AXIS;
    size_t size = check ? 2 : CHECK_COUNT, origin = 0;
    int raised = 0;
    st_case one = *c;
    if (check && c->with_bad) {
        /* Valid values and one bad one (INT_MIN or LONG_MIN in the
         * vector part, s in the tail), which the message names. */
        st_case bad = {{c->values[bad_at < 16 ? 7 : 1]}, 1, 1};
        make_case(isz, 0, &one);
        fill_indices(idx, isz, &one, CHECK_COUNT);
        fill_indices((char *)idx + isz * bad_at, isz, &bad, 1);
        one = bad;
    } else {
        fill_indices(idx, isz, &one, CHECK_COUNT);
    }
    memset(got, 0xa5, sizeof got);
    clg_status st = pass_buffers(r, idx, CHECK_COUNT * isz, got, sizeof got,
                                 &l, &ib, &eb, &nb);
    if (st != CLG_STATUS_OK)
        goto cleanup;
    l.a.at[CLG_ARG_COUNT] = CLG_RT_SCALAR(count);
    l.a.at[CLG_ARG_AXIS_SIZE] = CLG_RT_SCALAR(s);
    clg_geometry_make_wg(dev, 64, 1, &origin, &size, &l.g);
    st = run_launches(r, &l, 1, nb, got, check ? 0 : sizeof got, eb, &raised);
    if (st != CLG_STATUS_OK)
        goto cleanup;
    if (check || (r->v->value[CLG_OPT_OOB] == CLG_OOB_RAISE && c->with_bad))
        st = verdict(r, entry, &one, raised, NULL, NULL, 0);
    else if ((st = reference_positions(r, idx, CHECK_COUNT, pos)) ==
             CLG_STATUS_OK)
        st = verdict(r, entry, c, raised, got, pos, sizeof pos);
cleanup:
    clg_rt_release(&ib);
    clg_rt_release(&eb);
    clg_rt_release(&nb);
    return st;
}

/* The tensors of an operator case on the host and the device. */
typedef struct st_tensors {
    clg_problem p;
    unsigned char *data, *want, *got;
    void *idx;
    size_t data_bytes, out_bytes;
    cl_mem bd, bi, bo, be;
} st_tensors;

static void tensors_free(st_tensors *t)
{
    free(t->data);
    free(t->want);
    free(t->got);
    free(t->idx);
    clg_rt_release(&t->bd);
    clg_rt_release(&t->bi);
    clg_rt_release(&t->bo);
    clg_rt_release(&t->be);
}

/* Validates the case's problem, fills its tensors, runs the reference
 * (not for raise with out-of-range values, which it refuses) and makes the
 * device buffers; `positions`: the device's indices are the normalised
 * positions (the trusted bodies'). */
static clg_status tensors_make(const st_run *r, clg_op op, const st_case *c,
                               size_t rank, const int64_t *dshape,
                               size_t index_rank, const int64_t *ishape,
                               size_t axis, int positions, st_tensors *t)
{
    unsigned isz = r->v->value[CLG_OPT_INDEX_BYTES];
    clg_dtype dt = dtype_of_size(r->v->value[CLG_OPT_UNIT]);
    clg_dtype it = isz == 4 ? CLG_DTYPE_INT32 : CLG_DTYPE_INT64;
    cl_int flag[2] = {0, 0};
    clg_call call = {.size = sizeof call, .op = op};
    clg_call_set_attribute(&call, (int64_t)axis); /* axis or batch_dims */
    call.options.oob = (clg_oob_mode)r->v->value[CLG_OPT_OOB];
    clg_status st = clg_validate(r->ctx, &call, dt, rank, dshape, it,
                                 index_rank, ishape, &t->p);
    if (st != CLG_STATUS_OK)
        return st;
    t->p.oob = call.options.oob;
    t->data_bytes = (size_t)t->p.data_count * t->p.elem_size;
    t->out_bytes = (size_t)t->p.out_count * t->p.elem_size;
    size_t n = (size_t)t->p.index_count;
    t->data = malloc(t->data_bytes);
    t->want = calloc(1, t->out_bytes);
    t->got = malloc(t->out_bytes);
    t->idx = malloc(n * 8);
    if (!t->data || !t->want || !t->got || !t->idx)
        return clg_fail(r->ctx, CLG_STATUS_OUT_OF_MEMORY,
                        "out of host memory for a kernel self-test");
    fill_pattern(t->data, t->data_bytes, 11);
    fill_pattern(t->got, t->out_bytes, 0xa5);
    fill_indices(t->idx, isz, c, n);
    clg_tensor d = {dt, rank, dshape, t->data};
    clg_tensor x = {it, index_rank, ishape, t->idx};
    clg_tensor y = {dt, t->p.out_rank, t->p.out_shape, t->want};
    if (call.options.oob != CLG_OOB_RAISE || !c->with_bad)
        st = clg_reference_of(r->ctx, &call, &d, &x, &y);
    if (st == CLG_STATUS_OK && positions) {
        /* The trusted bodies read int positions (raise: valid only). */
        int32_t *pos = malloc(n * sizeof *pos);
        if (!pos)
            return clg_fail(r->ctx, CLG_STATUS_OUT_OF_MEMORY,
                            "out of host memory for a kernel self-test");
        st = reference_positions(r, t->idx, n, pos);
        if (st == CLG_STATUS_OK)
            st = clg_rt_copy_buffer(r->ctx, pos, n * sizeof *pos, &t->bi);
        free(pos);
    } else if (st == CLG_STATUS_OK) {
        st = clg_rt_copy_buffer(r->ctx, t->idx, n * isz, &t->bi);
    }
    if (st == CLG_STATUS_OK)
        st = clg_rt_copy_buffer(r->ctx, t->data, t->data_bytes, &t->bd);
    if (st == CLG_STATUS_OK)
        st = clg_rt_copy_buffer(r->ctx, t->got, t->out_bytes, &t->bo);
    if (st == CLG_STATUS_OK)
        st = clg_rt_copy_buffer(r->ctx, flag, sizeof flag, &t->be);
    return st;
}

/* The arguments every operator entry point takes, over whole tensors. */
static void base_args(const st_tensors *t, const clg_plan *plan,
                      clg_base_scalars *sc, clg_args *a)
{
    clg_rt_call none = {0};
    clg_windows w = {0};
    w.data = t->bd;
    w.indices = t->bi;
    w.output = t->bo;
    w.data_len = plan->data_units;
    w.index_len = plan->index_count;
    w.out_len = plan->out_units;
    none.err = t->be;
    w.call = &none;
    clg_base_args(plan, &w, sc, a);
    /* clg_base_args points at w's handles: point at the tensors'. */
    a->at[CLG_ARG_DATA] = CLG_RT_BUFFER(t->bd);
    a->at[CLG_ARG_INDICES] = CLG_RT_BUFFER(t->bi);
    a->at[CLG_ARG_OUT] = CLG_RT_BUFFER(t->bo);
    a->at[CLG_ARG_ERR] = CLG_RT_BUFFER(t->be);
}

/* The kernel that runs beside `e` in its cases with the program's
 * options, whose kernel answers no call without `e`: the pack kernel with
 * the packed body, which reads what it wrote; the fill kernel with the
 * trusted rows body under fill, where the program takes it, which zeroes
 * the rows the body leaves. CLG_ENTRY_COUNT: none. */
static clg_entry helper_of(const clg_variant *v, clg_entry e)
{
    if (e == CLG_ENTRY_ELEMENTS_PACKED)
        return CLG_ENTRY_PACK_STRIPS;
    if (e == CLG_ENTRY_GATHER_LEAN_NORMED &&
        v->value[CLG_OPT_OOB] == CLG_OOB_FILL &&
        clg_entry_fits(CLG_ENTRY_GATHER_FILL_ROWS, v))
        return CLG_ENTRY_GATHER_FILL_ROWS;
    return CLG_ENTRY_COUNT;
}

/* The entry point whose cases test `e`: the pack and fill kernels are
 * tested within the cases of the body they serve (helper_of), every
 * other entry point within its own. */
static clg_entry host_of(clg_entry e)
{
    return e == CLG_ENTRY_PACK_STRIPS        ? CLG_ENTRY_ELEMENTS_PACKED
           : e == CLG_ENTRY_GATHER_FILL_ROWS ? CLG_ENTRY_GATHER_LEAN_NORMED
                                             : e;
}

/* gather.cl: data [2, AXIS, inner] in elements of the unit's size, one
 * element a unit, indices [count]: rows (inner 2 * CLG_SPAN) for the
 * entries of three dimensions and clg_gather_rows (one work-item a row),
 * units (inner 1) for the other entries of two (clg_gather_units_spans:
 * a work-item a span of the indices, repeated to whole spans). The
 * trusted bodies read the reference's positions; under fill the rows body
 * leaves rows of none to clg_gather_fill_rows, which runs after it when it
 * is in the program (else the case has valid values only). */
static clg_status test_gather(const st_run *r, clg_entry entry,
                              const st_case *c)
{
    const clg_device_facts *dev = clg_rt_facts(r->ctx);
    unsigned span = r->v->value[CLG_OPT_SPAN];
    unsigned dims = clg_entries[entry].dims;
    int rows = dims == 3 || entry == CLG_ENTRY_GATHER_ROWS;
    int spans = entry == CLG_ENTRY_GATHER_UNITS_SPANS;
    int normed = entry == CLG_ENTRY_GATHER_LEAN_NORMED ||
                 entry == CLG_ENTRY_GATHER_UNITS_NORMED || spans;
    int fill = r->v->value[CLG_OPT_OOB] == CLG_OOB_FILL;
    int fill_rows = helper_of(r->v, entry) == CLG_ENTRY_GATHER_FILL_ROWS;
    int64_t inner = rows ? 2 * (int64_t)span : 1;
    st_tensors t = {0};
    st_launch l[2];
    clg_plan plan = {0};
    clg_base_scalars sc;
    cl_ulong ahead = 2;
    int raised = 0;
    st_case cs;
    /* The trusted bodies raise nothing, and under fill without the fill
     * kernel leave rows of none as they are. */
    unsigned mode = r->v->value[CLG_OPT_OOB];
    int some_none = mode == CLG_OOB_RAISE || mode == CLG_OOB_FILL;
    make_case(r->v->value[CLG_OPT_INDEX_BYTES],
              c->with_bad &&
                  !(normed && some_none && (!fill || (rows && !fill_rows))),
              &cs);
    if (c->with_bad && !cs.with_bad)
        return CLG_STATUS_OK; /* the valid case covers it */
    /* The units spans body moves whole spans: the case's values repeated
     * to a multiple of the span. */
    size_t count = spans ? (cs.count + span - 1) / span * span : cs.count;
    int64_t dshape[3] = {2, AXIS, inner}, ishape[1] = {(int64_t)count};
    clg_status st = tensors_make(r, CLG_OP_GATHER, &cs, 3, dshape, 1, ishape,
                                 1, normed, &t);
    if (st != CLG_STATUS_OK)
        goto cleanup;
    plan.unit = r->v->value[CLG_OPT_UNIT];
    plan.outer = 2;
    plan.n = (int64_t)count;
    plan.inner = inner;
    plan.axis_size = AXIS;
    plan.data_units = t.p.data_count;
    plan.index_count = t.p.index_count;
    plan.out_units = t.p.out_count;
    memset(l, 0, sizeof l);
    base_args(&t, &plan, &sc, &l[0].a);
    l[0].a.at[CLG_ARG_PREFETCH] = CLG_RT_SCALAR(ahead);
    l[0].entry = entry;
    size_t origin[3] = {0, 0, 0};
    size_t size[3] = {(size_t)inner / span, count, 2};
    if (spans)
        size[1] = count / span;
    clg_geometry_make_wg(dev, 64, dims, origin, size + (3 - dims), &l[0].g);
    l[1] = l[0];
    l[1].entry = CLG_ENTRY_GATHER_FILL_ROWS;
    size_t fill_size[3] = {(size_t)clg_fill_pieces(inner), count, 2};
    clg_geometry_make_wg(dev, 64, 3, origin, fill_size, &l[1].g);
    st = run_launches(r, l, fill_rows ? 2 : 1, t.bo, t.got, t.out_bytes, t.be,
                      &raised);
    if (st == CLG_STATUS_OK)
        st = verdict(r, entry, &cs, raised, t.got, t.want, t.out_bytes);
cleanup:
    tensors_free(&t);
    return st;
}

/* gather_nd.cl: data [2, AXIS, AXIS, 2] with batch_dims 1, indices
 * [2, count / 2, 2]: tuples of two components, each batch position its
 * own, slices of two units. */
static clg_status test_gather_nd(const st_run *r, clg_entry entry,
                                 const st_case *c)
{
    const clg_device_facts *dev = clg_rt_facts(r->ctx);
    st_tensors t = {0};
    st_launch l;
    clg_plan plan = {0};
    clg_base_scalars sc;
    cl_mem geom = NULL;
    int raised = 0;
    int64_t tuples = (int64_t)c->count / 2;
    int64_t dshape[4] = {2, AXIS, AXIS, 2}, ishape[3] = {2, tuples, 2};
    cl_ulong g[5] = {2, AXIS, AXIS, AXIS, 1};
    cl_ulong batch = AXIS * AXIS * 2;
    clg_status st = tensors_make(r, CLG_OP_GATHER_ND, c, 4, dshape, 3, ishape,
                                 1, 0, &t);
    if (st == CLG_STATUS_OK)
        st = clg_rt_const_buffer(r->ctx, g, sizeof g, &geom);
    if (st != CLG_STATUS_OK)
        goto cleanup;
    plan.unit = r->v->value[CLG_OPT_UNIT];
    plan.outer = 2;
    plan.n = tuples;
    plan.inner = 2;
    plan.axis_size = AXIS;
    plan.data_units = t.p.data_count;
    plan.index_count = t.p.index_count;
    plan.out_units = t.p.out_count;
    memset(&l, 0, sizeof l);
    base_args(&t, &plan, &sc, &l.a);
    l.a.at[CLG_ARG_BATCH_STRIDE] = CLG_RT_SCALAR(batch);
    l.a.at[CLG_ARG_TUPLE_GEOM] = CLG_RT_BUFFER(geom);
    l.entry = entry;
    size_t origin[3] = {0, 0, 0}, size[3] = {2, (size_t)tuples, 2};
    clg_geometry_make_wg(dev, 64, 3, origin, size, &l.g);
    st = run_launches(r, &l, 1, t.bo, t.got, t.out_bytes, t.be, &raised);
    if (st == CLG_STATUS_OK)
        st = verdict(r, entry, c, raised, t.got, t.want, t.out_bytes);
cleanup:
    clg_rt_release(&geom);
    tensors_free(&t);
    return st;
}

/* gather_nd.cl's per-tuple pass: indices [2, count / 2, k] of data [2,
 * AXIS, ..., AXIS] (k dims of AXIS after the batch dim) with batch_dims 1,
 * k = CLG_TUPLE, or 2 read from the tuple list under CLG_TUPLE 0; the
 * positions are the reference's GatherND of o * AXIS^k + (the tuple's
 * position) + 1, less one, INT_MIN where fill selects none. */
static clg_status test_gather_nd_positions(const st_run *r, clg_entry entry,
                                           const st_case *c)
{
    const clg_device_facts *dev = clg_rt_facts(r->ctx);
    unsigned isz = r->v->value[CLG_OPT_INDEX_BYTES];
    const size_t k = r->v->value[CLG_OPT_TUPLE] ? r->v->value[CLG_OPT_TUPLE]
                                                : 2;
    enum { TUPLES = MAX_VALUES / 2, K_MAX = CLG_ND_SCALAR_COMPONENTS };
    enum { BLOCK_MAX = AXIS * AXIS * AXIS };
    _Static_assert(K_MAX == 3, "BLOCK_MAX is AXIS^K_MAX");
    int64_t idx[2 * TUPLES * K_MAX];
    int32_t iota[2 * BLOCK_MAX], want[2 * TUPLES], got[2 * TUPLES];
    int64_t dshape[1 + K_MAX], ishape[3] = {2, TUPLES, (int64_t)k};
    int64_t oshape[2] = {2, TUPLES};
    cl_ulong g[1 + 2 * K_MAX] = {k};
    cl_ulong dims[K_MAX] = {0};
    cl_ulong count = 2 * TUPLES, n = TUPLES, block = 1;
    cl_mem ib = NULL, eb = NULL, nb = NULL, geom = NULL;
    st_launch l = {entry, {{{0}}}, {0}};
    size_t size[2] = {TUPLES, 2}, origin[2] = {0, 0};
    int raised = 0;
    clg_status st = CLG_STATUS_OK;
    dshape[0] = 2;
    for (size_t i = k; i-- > 0;) {
        dshape[1 + i] = AXIS;
        g[1 + 2 * i] = dims[i] = AXIS;
        g[2 + 2 * i] = block;
        block *= AXIS;
    }
    fill_indices(idx, isz, c, 2 * TUPLES * k);
    memset(got, 0xa5, sizeof got);
    if (r->v->value[CLG_OPT_OOB] != CLG_OOB_RAISE || !c->with_bad) {
        clg_call call = {.size = sizeof call,
                         .op = CLG_OP_GATHER_ND,
                         .batch_dims = 1};
        call.options.oob = (clg_oob_mode)r->v->value[CLG_OPT_OOB];
        for (int i = 0; i < 2 * (int)block; i++)
            iota[i] = i + 1;
        clg_tensor d = {CLG_DTYPE_INT32, 1 + k, dshape, iota};
        clg_tensor x = {isz == 4 ? CLG_DTYPE_INT32 : CLG_DTYPE_INT64, 3,
                        ishape, idx};
        clg_tensor y = {CLG_DTYPE_INT32, 2, oshape, want};
        st = clg_reference_of(r->ctx, &call, &d, &x, &y);
        for (size_t i = 0; i < 2 * TUPLES; i++)
            want[i] = want[i] ? want[i] - 1 : INT32_MIN;
    }
    if (st == CLG_STATUS_OK)
        st = pass_buffers(r, idx, isz * 2 * TUPLES * k, got, sizeof got, &l,
                          &ib, &eb, &nb);
    if (st == CLG_STATUS_OK)
        st = clg_rt_const_buffer(r->ctx, g, sizeof g, &geom);
    if (st != CLG_STATUS_OK)
        goto cleanup;
    l.a.at[CLG_ARG_COUNT] = CLG_RT_SCALAR(count);
    l.a.at[CLG_ARG_N] = CLG_RT_SCALAR(n);
    l.a.at[CLG_ARG_AXIS_STRIDE] = CLG_RT_SCALAR(block);
    l.a.at[CLG_ARG_TUPLE_GEOM] = CLG_RT_BUFFER(geom);
    static const clg_arg dim_args[K_MAX] = {CLG_ARG_DIM0, CLG_ARG_DIM1,
                                            CLG_ARG_DIM2};
    for (size_t i = 0; i < K_MAX; i++)
        l.a.at[dim_args[i]] = CLG_RT_SCALAR(dims[i]);
    clg_geometry_make_wg(dev, 64, 2, origin, size, &l.g);
    st = run_launches(r, &l, 1, nb, got, sizeof got, eb, &raised);
    if (st == CLG_STATUS_OK)
        st = verdict(r, entry, c, raised, got, want, sizeof got);
cleanup:
    clg_rt_release(&ib);
    clg_rt_release(&eb);
    clg_rt_release(&nb);
    clg_rt_release(&geom);
    return st;
}

/* The off-axis dims of a GatherElements case by CLG_OUTER_DIMS and
 * CLG_INNER_DIMS (0 none, 1 one stride, 2 a ragged list): data and
 * indices extents. */
static const int64_t part_data[3][2] = {{0, 0}, {4, 0}, {2, 3}};
static const int64_t part_index[3][2] = {{0, 0}, {4, 0}, {2, 2}};
static const size_t part_rank[3] = {0, 1, 2};

/* The (extent, stride) list of a ragged part, as the kernels read it. */
static clg_status geom_list(const st_run *r, size_t dims,
                            const int64_t *extent, const int64_t *stride,
                            cl_mem *out)
{
    cl_ulong g[1 + 2 * CLG_MAX_RANK];
    g[0] = dims;
    for (size_t k = 0; k < dims; k++) {
        g[1 + 2 * k] = (cl_ulong)extent[k];
        g[2 + 2 * k] = (cl_ulong)stride[k];
    }
    return dims > 1
               ? clg_rt_const_buffer(r->ctx, g,
                                     (1 + 2 * dims) * sizeof(cl_ulong), out)
               : CLG_STATUS_OK;
}

/* gather_elements.cl: data [outer part, AXIS, inner part], indices
 * [outer part, AXIS - 1, inner part] as the routine plans them; strips of
 * 2 (the packed body: packed first by clg_pack_strips). */
static clg_status test_elements(const st_run *r, clg_entry entry,
                                const st_case *c)
{
    const clg_device_facts *dev = clg_rt_facts(r->ctx);
    unsigned od = r->v->value[CLG_OPT_OUTER_DIMS];
    unsigned id = r->v->value[CLG_OPT_INNER_DIMS];
    int64_t dshape[5], ishape[5];
    size_t rank = 0, axis = part_rank[od];
    st_tensors t = {0};
    st_launch l[2];
    clg_plan plan;
    clg_base_scalars sc;
    cl_mem pack = NULL, og = NULL, ig = NULL;
    cl_ulong ax, os, is, width, strips, ahead = 2, z0 = 0;
    int raised = 0;
    for (size_t k = 0; k < part_rank[od]; k++, rank++) {
        dshape[rank] = part_data[od][k];
        ishape[rank] = part_index[od][k];
    }
    dshape[rank] = AXIS;
    ishape[rank++] = AXIS - 1;
    for (size_t k = 0; k < part_rank[id]; k++, rank++) {
        dshape[rank] = part_data[id][k];
        ishape[rank] = part_index[id][k];
    }
    clg_status st = tensors_make(r, CLG_OP_GATHER_ELEMENTS, c, rank, dshape,
                                 rank, ishape, axis, 0, &t);
    if (st != CLG_STATUS_OK)
        goto cleanup;
    clg_gather_elements_routine.plan(&t.p, dev, CLG_MAX_ELEMENT_SIZE, &plan);
    width = plan.inner > 1 ? 2 : 1;
    strips = ((cl_ulong)plan.inner + width - 1) / width;
    ax = (cl_ulong)plan.axis_stride;
    os = plan.outer_dims == 1 ? (cl_ulong)plan.outer_stride[0] : 0;
    is = plan.inner_dims == 1 ? (cl_ulong)plan.inner_stride[0] : 0;
    if ((st = geom_list(r, plan.outer_dims, plan.outer_extent,
                        plan.outer_stride, &og)) != CLG_STATUS_OK ||
        (st = geom_list(r, plan.inner_dims, plan.inner_extent,
                        plan.inner_stride, &ig)) != CLG_STATUS_OK)
        goto cleanup;
    memset(l, 0, sizeof l);
    clg_args *a = &l[0].a;
    base_args(&t, &plan, &sc, a);
    a->at[CLG_ARG_AXIS_STRIDE] = CLG_RT_SCALAR(ax);
    a->at[CLG_ARG_OUTER_STRIDE] = CLG_RT_SCALAR(os);
    a->at[CLG_ARG_INNER_STRIDE] = CLG_RT_SCALAR(is);
    a->at[CLG_ARG_OUTER_GEOM] = CLG_RT_BUFFER(og);
    a->at[CLG_ARG_INNER_GEOM] = CLG_RT_BUFFER(ig);
    a->at[CLG_ARG_STRIP_WIDTH] = CLG_RT_SCALAR(width);
    a->at[CLG_ARG_STRIPS] = CLG_RT_SCALAR(strips);
    a->at[CLG_ARG_PREFETCH] = CLG_RT_SCALAR(ahead);
    a->at[CLG_ARG_Z0] = CLG_RT_SCALAR(z0);
    size_t origin[3] = {0, 0, 0};
    size_t outer = (size_t)plan.outer, n = (size_t)plan.n;
    size_t size[3] = {(size_t)plan.inner, n, outer};
    size_t lanes = (n + 15) / 16 * outer;
    size_t launches = 1;
    if (entry == CLG_ENTRY_ELEMENTS_STRIPS ||
        entry == CLG_ENTRY_ELEMENTS_PACKED) {
        size[0] = (size_t)width;
        size[2] = outer * (size_t)strips;
    }
    if (entry == CLG_ENTRY_ELEMENTS_PACKED) {
        /* The pack kernel copies every strip into `pack`, which the
         * packed body then reads as its data. */
        size_t bytes = size[2] * AXIS * (size_t)width * t.p.elem_size;
        unsigned char *zero = calloc(1, bytes);
        st = zero ? clg_rt_copy_buffer(r->ctx, zero, bytes, &pack)
                  : clg_fail(r->ctx, CLG_STATUS_OUT_OF_MEMORY,
                             "out of host memory for a kernel self-test");
        free(zero);
        if (st != CLG_STATUS_OK)
            goto cleanup;
        l[1] = l[0];
        l[1].entry = entry;
        l[1].a.at[CLG_ARG_DATA] = CLG_RT_BUFFER(pack);
        size_t psize[3] = {(size_t)width, AXIS, size[2]};
        clg_geometry_make_wg(dev, 64, 3, origin, psize, &l[0].g);
        clg_geometry_make_wg(dev, 64, 3, origin, size, &l[1].g);
        l[0].a.at[CLG_ARG_PACK] = CLG_RT_BUFFER(pack);
        l[0].entry = CLG_ENTRY_PACK_STRIPS;
        launches = 2;
    } else {
        l[0].entry = entry;
        unsigned dims = clg_entries[entry].dims;
        clg_geometry_make_wg(dev, 64, dims, origin,
                             dims == 1 ? &lanes : size + (3 - dims), &l[0].g);
    }
    st = run_launches(r, l, launches, t.bo, t.got, t.out_bytes, t.be, &raised);
    if (st == CLG_STATUS_OK)
        st = verdict(r, entry, c, raised, t.got, t.want, t.out_bytes);
cleanup:
    clg_rt_release(&pack);
    clg_rt_release(&og);
    clg_rt_release(&ig);
    tensors_free(&t);
    return st;
}

/* Runs the cases of entry point `e` with the program's options; OK,
 * DEVICE_MISCOMPILED with its message in msg, or the failure that kept a
 * case from running. The units body of GatherElements has cases without
 * inner dims only (its table row allows them, as the lean and lanes rows
 * do not): no plan launches it with any, since a plan drops inner extents
 * of 1 and takes it only for an inner extent of 1, and with them it runs
 * none. */
static clg_status selftest_run(const st_run *r, clg_entry e)
{
    clg_status st = CLG_STATUS_OK;
    if (e == CLG_ENTRY_ELEMENTS_UNITS && r->v->value[CLG_OPT_INNER_DIMS] != 0)
        return st;
    for (int bad = 0; bad < 2 && st == CLG_STATUS_OK; bad++) {
        st_case c;
        make_case(r->v->value[CLG_OPT_INDEX_BYTES], bad, &c);
        switch (clg_entries[e].file) {
        case CLG_FILE_CHECK:
            st = test_check(r, e, &c, 5);
            if (st == CLG_STATUS_OK && bad && e != CLG_ENTRY_NORMALIZE_INDICES)
                st = test_check(r, e, &c, 18);
            break;
        case CLG_FILE_GATHER:
            st = test_gather(r, e, &c);
            break;
        case CLG_FILE_GATHER_ND:
            st = e == CLG_ENTRY_GATHER_ND_POSITIONS
                     ? test_gather_nd_positions(r, e, &c)
                     : test_gather_nd(r, e, &c);
            break;
        default:
            st = test_elements(r, e, &c);
            break;
        }
    }
    return st;
}

clg_status clg_variant_verify(clg_context *ctx, const clg_variant *v,
                              const char *const *files, const char *options)
{
    char msg[900];
    const char *name = clg_entries[v->entry].name;
    clg_rt_verdict verdict = clg_rt_program_test_begin(ctx, files, 2, options,
                                                       name, msg, sizeof msg);
    if (verdict == CLG_RT_UNTESTED) {
        /* The entry point's cases, and the verdict for every kernel that
         * ran in them. */
        clg_entry host = host_of(v->entry), helper = helper_of(v, host);
        const char *names[3] = {name, NULL, NULL};
        size_t n = 1;
        if (host != v->entry)
            names[n++] = clg_entries[host].name;
        if (helper != CLG_ENTRY_COUNT && helper != v->entry)
            names[n++] = clg_entries[helper].name;
        st_run r = {ctx, v, files, options, msg, sizeof msg};
        clg_status st = clg_entry_fits(host, v)
                            ? selftest_run(&r, host)
                            : clg_fail(ctx, CLG_STATUS_BUILD_FAILED,
                                       "internal error: no case tests %s",
                                       name);
        verdict = st == CLG_STATUS_OK                   ? CLG_RT_PASSED
                  : st == CLG_STATUS_DEVICE_MISCOMPILED ? CLG_RT_FAILED
                                                        : CLG_RT_UNTESTED;
        clg_rt_program_test_end(ctx, files, 2, options, names, n, verdict,
                                msg);
        if (verdict == CLG_RT_UNTESTED)
            return clg_prefix_error(ctx, st, "kernel self-test: ");
    }
    if (verdict == CLG_RT_FAILED)
        return clg_fail(ctx, CLG_STATUS_DEVICE_MISCOMPILED, "%s", msg);
    return CLG_STATUS_OK;
}
