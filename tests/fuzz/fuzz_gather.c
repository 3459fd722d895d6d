/* SPDX-License-Identifier: Apache-2.0 */
/* libFuzzer target: the output-shape functions and the CPU reference of
 * the three operators (clg_gather_output_shape,
 * clg_gather_elements_output_shape, clg_gather_nd_output_shape,
 * clg_reference_gather_ex, clg_reference_gather_elements_ex,
 * clg_reference_gather_nd_ex) under every out-of-range mode, no device.
 *
 * The input chooses the operator, dtypes, ranks, shapes, axis (GatherND:
 * batch_dims, and with the last index dim the tuple length), index
 * values, the output-shape capacity, the out-of-range mode (raise, wrap,
 * clip, fill) and at most one fault in the call (a
 * wrong output dtype, shape or rank, an output aliasing an input, a NULL
 * pointer). Every tensor, and every shape array, gets a heap allocation of
 * exactly its size, so that ASan catches any access outside it; calls of
 * more than 256 KiB in all are skipped. The harness decides on its own what
 * the status must be (its own shape rules and index scan) and checks:
 *   - an error is one of those the harness found, and leaves the output,
 *     the shape array and the inputs untouched;
 *   - under raise a bad index is never accepted: the first one in
 *     row-major order (GatherND: the first component outside its own
 *     dim's range) gives INDEX_OUT_OF_RANGE, and the message names its
 *     position and value; under the other modes only an empty axis (a
 *     tuple component's empty dim) with a non-empty output is refused
 *     (INDEX_OUT_OF_RANGE, "size 0");
 *   - otherwise the status is OK and the output equals the formula of
 *     docs/design.md ("Semantics", "Out-of-range modes"), evaluated here
 *     element by element. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <clgather/clgather.h>

#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_CALL_BYTES ((size_t)256 << 10)
#define RANKS (CLG_MAX_RANK + 1) /* one past the limit, to be refused */

/* Faults a call may carry (at most one). */
enum fault {
    FAULT_NONE,
    FAULT_OUTPUT_DTYPE,  /* output dtype differs from data's */
    FAULT_OUTPUT_SHAPE,  /* one output dimension one larger */
    FAULT_OUTPUT_RANK,   /* one more output dimension, of size 1 */
    FAULT_ALIAS_DATA,    /* output memory is the data's */
    FAULT_ALIAS_INDICES, /* output memory is the indices' */
    FAULT_NULL_DATA      /* the first non-empty tensor's data is NULL */
};

typedef struct spec {
    int elements; /* GatherElements */
    int nd;       /* GatherND (axis: batch_dims); neither: Gather */
    clg_dtype dtype, index_dtype;
    size_t data_rank, index_rank; /* up to RANKS */
    int64_t data_shape[RANKS], index_shape[RANKS];
    int64_t axis;
    size_t capacity; /* of the output-shape array */
    clg_oob_mode oob;
    enum fault fault;
    int misalign;   /* buffers at an odd address */
    int null_empty; /* empty tensors and shapes as NULL, else malloc(0) */
    const uint8_t *values; /* the rest of the input: index values */
    size_t n_values;
} spec;

/* What the harness expects of a call's descriptors. */
typedef struct expect {
    unsigned errors; /* bit per clg_status the descriptors deserve */
    size_t elem, index_size;
    size_t out_rank;
    int64_t out_shape[CLG_MAX_RANK];
    int64_t data_count, index_count, out_count;
} expect;

#define BIT(st) (1u << CLG_STATUS_##st)

/* ---------------------------------------------------------------- input */

typedef struct reader {
    const uint8_t *p;
    size_t n, at;
} reader;

static uint8_t next(reader *r)
{
    return r->at < r->n ? r->p[r->at++] : 0;
}

/* Mostly 0, 1 and 2..5; 32 values that stress sizes. */
static int64_t dim_of(uint8_t b)
{
    /* clang-format off */
    static const int64_t big[32] = {
        -1, -2, INT64_MIN, INT64_MAX,
        1LL << 32, 1LL << 31, (1LL << 31) - 1, 1LL << 62,
        1LL << 40, 1LL << 20, 65536, 65535,
        4096, 1000, 256, 255,
        17, 16, 9, 8,
        INT64_MAX / 2, INT64_MAX / 3, 3037000500LL, 1LL << 21,
        7, 10, 12, 32,
        64, 100, 128, 1023};
    /* clang-format on */
    if (b < 0x10)
        return 0;
    if (b < 0x80)
        return 1;
    if (b < 0xE0)
        return 2 + b % 4;
    return big[b - 0xE0];
}

/* Mostly 0..4; sometimes 18..33 (33: above CLG_MAX_RANK). */
static size_t rank_of(uint8_t b)
{
    return b < 0xF0 ? b % 5 : (size_t)(b & 15) + 18;
}

static int64_t axis_of(uint8_t b, size_t rank)
{
    int64_t r = (int64_t)rank;
    /* clang-format off */
    const int64_t odd[16] = {
        r, -r - 1, INT64_MIN, INT64_MAX,
        RANKS, -RANKS, 1LL << 32, -(1LL << 32),
        r + 1, -r - 2, 0, -1,
        CLG_MAX_RANK, -CLG_MAX_RANK, 1, 2};
    /* clang-format on */
    if (b >= 0xF0)
        return odd[b & 15];
    return r > 0 ? (int64_t)(b % (2 * rank)) - r : 0;
}

static clg_dtype dtype_of(reader *r)
{
    uint8_t b = next(r);
    if (b % 18 == 17)
        return (clg_dtype)(17 + next(r)); /* not a dtype */
    return (clg_dtype)(b % 18);           /* 0 is UNDEFINED */
}

static clg_dtype index_dtype_of(uint8_t b)
{
    static const clg_dtype other[8] = {CLG_DTYPE_UNDEFINED, CLG_DTYPE_FLOAT,
                                       CLG_DTYPE_INT16,     CLG_DTYPE_UINT32,
                                       CLG_DTYPE_UINT64,    CLG_DTYPE_INT8,
                                       CLG_DTYPE_DOUBLE,    (clg_dtype)99};
    if (b < 0x80)
        return CLG_DTYPE_INT64;
    return b < 0xF8 ? CLG_DTYPE_INT32 : other[b & 7];
}

/* GatherElements indices mostly follow the data's shape: the same
 * dimension, or one less (ragged), else any. */
static int64_t index_dim_of(uint8_t b, const spec *s, size_t d)
{
    int64_t dd = d < s->data_rank ? s->data_shape[d] : 1;
    if (!s->elements || b >= 0x80)
        return dim_of(b);
    if (b < 0x60)
        return dd;
    return dd > 0 ? dd - 1 : 0;
}

/* GatherND's batch_dims: mostly in [0, min(q, r) - 1]; sometimes one of
 * 16 values around and far outside it. */
static int64_t batch_dims_of(uint8_t b, size_t q, size_t r)
{
    int64_t top = (int64_t)(q < r ? q : r) - 1;
    /* clang-format off */
    const int64_t odd[16] = {
        -1, top + 1, (int64_t)r, (int64_t)q,
        INT64_MIN, INT64_MAX, 1LL << 32, -(1LL << 32),
        RANKS, CLG_MAX_RANK, 0, 1,
        2, top, -2, 3};
    /* clang-format on */
    if (b >= 0xF0)
        return odd[b & 15];
    return top >= 0 ? (int64_t)(b % (top + 1)) : 0;
}

/* GatherND indices mostly follow the rules: the batch dims data's, the
 * last dim (the tuple length k) in [1, r - b], r - b most often; else
 * any. */
static int64_t nd_index_dim_of(uint8_t b, const spec *s, size_t d)
{
    int64_t r = (int64_t)s->data_rank, q = (int64_t)s->index_rank;
    int64_t bd = s->axis >= 0 && s->axis < r ? s->axis : 0;
    if ((int64_t)d < bd && b < 0xA0)
        return s->data_shape[d];
    if ((int64_t)d == q - 1 && r - bd >= 1 && b < 0xA0)
        return b < 0x60 ? r - bd : 1 + (int64_t)b % (r - bd);
    return dim_of(b);
}

static void decode(const uint8_t *data, size_t size, spec *s)
{
    reader r = {data, size, 0};
    uint8_t b;
    memset(s, 0, sizeof *s);
    b = next(&r);
    s->elements = b & 1;
    /* bits 6 and 7 of a non-GatherElements call: GatherND, its fault in
     * bits 3 to 5 */
    s->nd = !s->elements && (b & 0xC0) == 0xC0;
    s->misalign = (b >> 1) & 1;
    s->null_empty = (b >> 2) & 1;
    if (s->nd)
        s->fault = (enum fault)(((b >> 3) & 7) % 7);
    else
        s->fault = (b >> 3) % 12 < 6 ? FAULT_NONE
                                     : (enum fault)((b >> 3) % 12 - 5);
    s->dtype = dtype_of(&r);
    s->index_dtype = index_dtype_of(next(&r));
    s->data_rank = rank_of(next(&r));
    for (size_t d = 0; d < s->data_rank; d++)
        s->data_shape[d] = dim_of(next(&r));
    b = next(&r);
    if (s->nd) {
        /* index rank, batch_dims, then the index dims */
        s->index_rank = rank_of(b);
        s->axis = batch_dims_of(next(&r), s->index_rank, s->data_rank);
        for (size_t d = 0; d < s->index_rank; d++)
            s->index_shape[d] = nd_index_dim_of(next(&r), s, d);
        b = next(&r);
        s->capacity = b < 0xE0 ? CLG_MAX_RANK : (size_t)(b & 31);
        s->oob = (clg_oob_mode)((b >> 5) & 3);
        s->values = data + r.at;
        s->n_values = size - r.at;
        return;
    }
    s->index_rank = s->elements && b < 0xE0 ? s->data_rank : rank_of(b);
    for (size_t d = 0; d < s->index_rank; d++)
        s->index_shape[d] = index_dim_of(next(&r), s, d);
    s->axis = axis_of(next(&r), s->data_rank);
    b = next(&r);
    s->capacity = b < 0xE0 ? CLG_MAX_RANK : (size_t)(b & 31);
    s->oob = (clg_oob_mode)((b >> 5) & 3);
    s->values = data + r.at;
    s->n_values = size - r.at;
}

/* Index k: from the input's remaining bytes, cycled with a round count so
 * that long index tensors do not repeat; valid, just out of range,
 * extreme, or raw. Arithmetic in uint64_t: s may be near INT64_MAX. */
static int64_t index_value(const spec *s, int64_t k, int64_t axis_size)
{
    uint64_t n = s->n_values, sz = (uint64_t)axis_size;
    uint8_t b = n ? s->values[(uint64_t)k % n] : 0;
    uint64_t round = n ? (uint64_t)k / n : (uint64_t)k;
    uint64_t pick = b + round;
    const int64_t extreme[8] = {INT64_MIN, INT64_MAX,   INT32_MIN,
                                INT32_MAX, 1LL << 31,   -(1LL << 31) - 1,
                                1LL << 32, -(1LL << 32)};
    switch (b >> 5) {
    case 4:
        return sz ? (int64_t)(0 - 1 - pick % sz) : -1;
    case 5: {
        const uint64_t near[4] = {sz, 0 - sz - 1, sz + 1, 0 - sz - 2};
        return (int64_t)near[b & 3];
    }
    case 6:
        return extreme[b & 7];
    case 7:
        return (int64_t)(int8_t)b;
    default:
        return sz ? (int64_t)(pick % sz) : 0;
    }
}

/* ---------------------------------------------------------------- expectation */

/* Bytes per element, from onnx.proto's list (STRING: a clg_string). */
static size_t elem_size(clg_dtype t)
{
    static const size_t size[17] = {0, 4, 1, 1, 2, 2, 4,  8, 16,
                                    1, 2, 8, 4, 8, 8, 16, 2};
    return (unsigned)t <= 16 ? size[t] : 0;
}

/* The element count of a shape; -1 for a negative dimension, -2 for more
 * than INT64_MAX elements. */
static int64_t count_of(const int64_t *shape, size_t rank)
{
    int64_t n = 1;
    for (size_t d = 0; d < rank; d++)
        if (shape[d] < 0)
            return -1;
    for (size_t d = 0; d < rank; d++)
        if (shape[d] == 0)
            return 0;
    for (size_t d = 0; d < rank; d++) {
        if (n > INT64_MAX / shape[d])
            return -2;
        n *= shape[d];
    }
    return n;
}

static unsigned shape_errors(const int64_t *shape, size_t rank, int64_t *count)
{
    if (rank > CLG_MAX_RANK)
        return BIT(INVALID_RANK);
    *count = count_of(shape, rank);
    return *count == -1   ? BIT(INVALID_SHAPE)
           : *count == -2 ? BIT(TENSOR_TOO_LARGE)
                          : 0;
}

static size_t norm_axis(const spec *s)
{
    return (size_t)(s->axis < 0 ? s->axis + (int64_t)s->data_rank : s->axis);
}

/* The size of the data dim index value k selects on: the axis, or for
 * GatherND the dim b + c of its component c (valid descriptors). */
static int64_t index_dim(const spec *s, int64_t k)
{
    if (!s->nd)
        return s->data_shape[norm_axis(s)];
    int64_t tk = s->index_shape[s->index_rank - 1];
    return s->data_shape[(size_t)s->axis + (size_t)(k % tk)];
}

/* The least of the dims the index values select on (0: no position to
 * resolve a value onto). */
static int64_t least_index_dim(const spec *s)
{
    if (!s->nd)
        return s->data_shape[norm_axis(s)];
    int64_t least = INT64_MAX, tk = s->index_shape[s->index_rank - 1];
    for (int64_t c = 0; c < tk; c++)
        if (index_dim(s, c) < least)
            least = index_dim(s, c);
    return least;
}

/* The operator's own rules and the output shape. */
static unsigned output_errors(const spec *s, expect *e)
{
    size_t axis = norm_axis(s), k = 0;
    if (s->nd) {
        /* b in range (expect_of): batch dims equal, 1 <= K <= r - b,
         * output indices.shape[:q-1] + data.shape[b+K:] */
        size_t b = (size_t)s->axis, q = s->index_rank, r = s->data_rank;
        int64_t tk = s->index_shape[q - 1];
        for (size_t d = 0; d < b; d++)
            if (s->data_shape[d] != s->index_shape[d])
                return BIT(SHAPE_MISMATCH);
        if (tk < 1 || tk > (int64_t)(r - b))
            return BIT(SHAPE_MISMATCH);
        if (q - 1 + r - b - (size_t)tk > CLG_MAX_RANK)
            return BIT(INVALID_RANK);
        for (size_t d = 0; d + 1 < q; d++)
            e->out_shape[k++] = s->index_shape[d];
        for (size_t d = b + (size_t)tk; d < r; d++)
            e->out_shape[k++] = s->data_shape[d];
    } else if (s->elements) {
        if (s->index_rank != s->data_rank)
            return BIT(RANK_MISMATCH);
        for (size_t d = 0; d < s->data_rank; d++)
            if (d != axis && s->index_shape[d] > s->data_shape[d])
                return BIT(SHAPE_MISMATCH);
        for (size_t d = 0; d < s->index_rank; d++)
            e->out_shape[k++] = s->index_shape[d];
    } else {
        if (s->index_rank + s->data_rank - 1 > CLG_MAX_RANK)
            return BIT(INVALID_RANK);
        for (size_t d = 0; d < axis; d++)
            e->out_shape[k++] = s->data_shape[d];
        for (size_t d = 0; d < s->index_rank; d++)
            e->out_shape[k++] = s->index_shape[d];
        for (size_t d = axis + 1; d < s->data_rank; d++)
            e->out_shape[k++] = s->data_shape[d];
    }
    e->out_rank = k;
    e->out_count = count_of(e->out_shape, k);
    /* Byte sizes must fit: at most INT64_MAX / 16 elements a tensor. */
    if (e->out_count < 0 || e->out_count > INT64_MAX / 16 ||
        e->data_count > INT64_MAX / 16 || e->index_count > INT64_MAX / 16)
        return BIT(TENSOR_TOO_LARGE);
    return 0;
}

static void expect_of(const spec *s, expect *e)
{
    int64_t r = (int64_t)s->data_rank;
    unsigned err = 0;
    memset(e, 0, sizeof *e);
    e->elem = elem_size(s->dtype);
    e->index_size = s->index_dtype == CLG_DTYPE_INT32   ? 4
                    : s->index_dtype == CLG_DTYPE_INT64 ? 8
                                                        : 0;
    if (e->elem == 0 || e->index_size == 0)
        err |= BIT(UNSUPPORTED_DTYPE);
    if (s->data_rank == 0)
        err |= BIT(INVALID_RANK);
    err |= shape_errors(s->data_shape, s->data_rank, &e->data_count);
    err |= shape_errors(s->index_shape, s->index_rank, &e->index_count);
    if (s->nd) {
        /* indices of rank >= 1; batch_dims in [0, min(q, r) - 1] */
        int64_t q = (int64_t)s->index_rank;
        if (q == 0)
            err |= BIT(INVALID_RANK);
        else if (s->axis < 0 || s->axis > (q < r ? q : r) - 1)
            err |= BIT(INVALID_ARGUMENT);
    } else if (s->axis < -r || s->axis > r - 1) {
        err |= BIT(INVALID_AXIS);
    }
    if (err == 0)
        err = output_errors(s, e);
    e->errors = err;
}

/* ---------------------------------------------------------------- buffers */

/* A tensor's memory: exactly n bytes from p (at an odd address when the
 * input asks), or NULL for an empty tensor when it asks for that. */
typedef struct buf {
    unsigned char *base, *p;
    size_t n;
} buf;

static buf buf_make(size_t n, const spec *s, size_t which)
{
    buf b = {NULL, NULL, n};
    size_t off = s->misalign && n > 0 ? 2 * which + 1 : 0;
    if (n == 0 && s->null_empty)
        return b;
    b.base = malloc(n + off);
    FUZZ_CHECK(b.base != NULL, "cannot allocate %zu bytes", n + off);
    b.p = b.base + off;
    return b;
}

/* A shape array of exactly `rank` entries. */
static int64_t *shape_copy(const int64_t *shape, size_t rank, size_t extra,
                           const spec *s)
{
    int64_t *c;
    if (rank + extra == 0 && s->null_empty)
        return NULL;
    c = malloc((rank + extra) * sizeof *c);
    FUZZ_CHECK(c != NULL, "cannot allocate a shape");
    if (rank > 0)
        memcpy(c, shape, rank * sizeof *c);
    return c;
}

static unsigned char data_byte(size_t i)
{
    return (unsigned char)((i * 31 + 11) ^ (i >> 7));
}

static unsigned char out_byte(size_t i)
{
    return (unsigned char)(0xA5 ^ (i * 7));
}

static int holds(const buf *b, unsigned char (*pattern)(size_t))
{
    for (size_t i = 0; i < b->n; i++)
        if (b->p[i] != pattern(i))
            return 0;
    return 1;
}

static int64_t load_index(const buf *ix, size_t size, int64_t k)
{
    if (size == 4) {
        int32_t v;
        memcpy(&v, ix->p + (size_t)k * 4, 4);
        return v;
    }
    int64_t v;
    memcpy(&v, ix->p + (size_t)k * 8, 8);
    return v;
}

static void fill(const spec *s, const expect *e, buf *d, buf *ix, buf *out)
{
    for (size_t i = 0; i < d->n; i++)
        d->p[i] = data_byte(i);
    for (size_t i = 0; i < out->n; i++)
        out->p[i] = out_byte(i);
    for (int64_t k = 0; k < e->index_count; k++) {
        int64_t v = index_value(s, k, index_dim(s, k));
        if (e->index_size == 4) {
            int32_t w = (int32_t)v; /* wraps: the scan reads it back */
            memcpy(ix->p + (size_t)k * 4, &w, 4);
        } else {
            memcpy(ix->p + (size_t)k * 8, &v, 8);
        }
    }
}

/* ---------------------------------------------------------------- oracle */

/* The first index outside [-s, s-1] (s its index_dim) in row-major
 * order, or -1. */
static int64_t first_bad(const spec *sp, const buf *ix, const expect *e,
                         int64_t *value)
{
    for (int64_t k = 0; k < e->index_count; k++) {
        int64_t v = load_index(ix, e->index_size, k);
        int64_t s = index_dim(sp, k);
        if (v < -s || v >= s) {
            *value = v;
            return k;
        }
    }
    return -1;
}

/* "indices[1][2] = 5 " (or "indices (a scalar) = 5 "): how the message
 * names the bad index at row-major position `pos` (clgather.h,
 * clg_context_last_error). */
static void bad_index_text(const spec *s, int64_t pos, int64_t value,
                           char *text, size_t cap)
{
    int64_t at[RANKS];
    size_t len = (size_t)snprintf(text, cap, "indices");
    for (size_t d = s->index_rank; d-- > 0;) {
        at[d] = pos % s->index_shape[d];
        pos /= s->index_shape[d];
    }
    if (s->index_rank == 0)
        len += (size_t)snprintf(text + len, cap - len, " (a scalar)");
    for (size_t d = 0; d < s->index_rank; d++)
        len += (size_t)snprintf(text + len, cap - len, "[%lld]",
                                (long long)at[d]);
    snprintf(text + len, cap - len, " = %lld ", (long long)value);
}

/* The position value v selects on an axis of size s > 0 under the mode,
 * -1 for none (fill): wrap v mod s into [0, s-1]; clip into [-s, s-1],
 * then norm; raise and fill norm(v) where v is in range. */
static int64_t position(int64_t v, int64_t s, clg_oob_mode mode)
{
    if (mode == CLG_OOB_WRAP)
        return ((v % s) + s) % s;
    if (mode == CLG_OOB_CLIP)
        v = v < -s ? -s : v > s - 1 ? s - 1 : v;
    if (v < -s || v > s - 1)
        return -1;
    return v < 0 ? v + s : v;
}

/* GatherND's output element from its multi-index o: the tuple at
 * o[:q-1], its components resolved by the mode onto data dims b + c, the
 * batch dims and the slice position from o; zero bytes when a component
 * has no position. */
static void formula_nd_element(const spec *s, const expect *e, const buf *d,
                               const buf *ix, const int64_t *o,
                               unsigned char *dst)
{
    size_t b = (size_t)s->axis, q = s->index_rank, r = s->data_rank;
    size_t tk = (size_t)s->index_shape[q - 1];
    int64_t at[CLG_MAX_RANK], tuple = 0, off = 0;
    for (size_t j = 0; j + 1 < q; j++)
        tuple = tuple * s->index_shape[j] + o[j];
    for (size_t j = 0; j < b; j++)
        at[j] = o[j];
    for (size_t c = 0; c < tk; c++) {
        int64_t v = position(load_index(ix, e->index_size,
                                        tuple * (int64_t)tk + (int64_t)c),
                             s->data_shape[b + c], s->oob);
        if (v < 0) {
            memset(dst, 0, e->elem);
            return;
        }
        at[b + c] = v;
    }
    for (size_t j = b + tk; j < r; j++)
        at[j] = o[q - 1 + j - b - tk];
    for (size_t j = 0; j < r; j++)
        off = off * s->data_shape[j] + at[j];
    memcpy(dst, d->p + (size_t)off * e->elem, e->elem);
}

/* The output by the formulas, element by element from its multi-index:
 *   Gather:         out[o..., i..., k...] = data[o..., norm(idx[i...]), k...]
 *   GatherElements: out[p] = data[p with p[axis] = norm(idx[p])]
 *   GatherND:       out[i..., j..., t...] =
 *                       data[i..., norm_c(idx[i..., j..., c])..., t...]
 * with norm replaced by the mode's position, and zero bytes for none. */
static void formula(const spec *s, const expect *e, const buf *d,
                    const buf *ix, unsigned char *out)
{
    size_t axis = norm_axis(s), q = s->index_rank;
    int64_t size = s->data_shape[axis];
    int64_t o[CLG_MAX_RANK], at[CLG_MAX_RANK];
    for (int64_t k = 0; k < e->out_count; k++) {
        int64_t rest = k, pos = 0, off = 0, v;
        for (size_t j = e->out_rank; j-- > 0;) {
            o[j] = rest % e->out_shape[j];
            rest /= e->out_shape[j];
        }
        if (s->nd) {
            formula_nd_element(s, e, d, ix, o, out + (size_t)k * e->elem);
            continue;
        }
        if (s->elements) {
            pos = k;
            memcpy(at, o, s->data_rank * sizeof *at);
        } else {
            for (size_t j = 0; j < q; j++)
                pos = pos * s->index_shape[j] + o[axis + j];
            for (size_t j = 0; j < axis; j++)
                at[j] = o[j];
            for (size_t j = axis + 1; j < s->data_rank; j++)
                at[j] = o[j + q - 1];
        }
        v = position(load_index(ix, e->index_size, pos), size, s->oob);
        if (v < 0) {
            memset(out + (size_t)k * e->elem, 0, e->elem);
            continue;
        }
        at[axis] = v;
        for (size_t j = 0; j < s->data_rank; j++)
            off = off * s->data_shape[j] + at[j];
        memcpy(out + (size_t)k * e->elem, d->p + (size_t)off * e->elem,
               e->elem);
    }
}

/* ---------------------------------------------------------------- calls */

static clg_status output_shape(const spec *s, const clg_tensor *d,
                               const clg_tensor *ix, int64_t *shape,
                               size_t *rank)
{
    return s->nd ? clg_gather_nd_output_shape(d, ix, s->axis, shape,
                                              s->capacity, rank)
           : s->elements
               ? clg_gather_elements_output_shape(d, ix, s->axis, shape,
                                                  s->capacity, rank)
               : clg_gather_output_shape(d, ix, s->axis, shape, s->capacity,
                                         rank);
}

static clg_status reference(const spec *s, const clg_tensor *d,
                            const clg_tensor *ix, const clg_tensor *out)
{
    clg_call_options o = {.oob = s->oob};
    return s->nd ? clg_reference_gather_nd_ex(NULL, d, ix, s->axis, out, &o)
           : s->elements
               ? clg_reference_gather_elements_ex(NULL, d, ix, s->axis, out,
                                                  &o)
               : clg_reference_gather_ex(NULL, d, ix, s->axis, out, &o);
}

static int allowed(unsigned set, clg_status st)
{
    return (unsigned)st < 32 && (set & (1u << st)) != 0;
}

static void check_failed(clg_status st)
{
    const char *msg = clg_context_last_error(NULL);
    FUZZ_CHECK(msg != NULL && msg[0] != '\0', "%s without a message",
               clg_status_name(st));
}

/* The output-shape function: a status the harness expects, the shape array
 * (exactly `capacity` entries) and *rank written only on success. */
static void check_output_shape(const spec *s, const expect *e,
                               const clg_tensor *d, const clg_tensor *ix)
{
    int64_t *shape = shape_copy(NULL, 0, s->capacity, s);
    size_t rank = 12345;
    unsigned want = e->errors;
    clg_status st;
    for (size_t i = 0; i < s->capacity; i++)
        shape[i] = -7;
    if (want != 0 && s->capacity < CLG_MAX_RANK)
        want |= BIT(INVALID_ARGUMENT); /* the order of checks is free */
    if (want == 0)
        want = s->capacity < e->out_rank ? BIT(INVALID_ARGUMENT) : BIT(OK);
    st = output_shape(s, d, ix, shape, &rank);
    FUZZ_CHECK(allowed(want, st), "output shape: %s (%s), expected set 0x%x",
               clg_status_name(st), clg_context_last_error(NULL), want);
    for (size_t i = st == CLG_STATUS_OK ? e->out_rank : 0; i < s->capacity;
         i++)
        FUZZ_CHECK(shape[i] == -7, "output shape: entry %zu written", i);
    if (st == CLG_STATUS_OK) {
        FUZZ_CHECK(rank == e->out_rank, "output rank %zu, expected %zu", rank,
                   e->out_rank);
        for (size_t i = 0; i < rank; i++)
            FUZZ_CHECK(shape[i] == e->out_shape[i], "output dimension %zu", i);
    } else {
        FUZZ_CHECK(rank == 12345, "output shape: rank written on error");
        check_failed(st);
    }
    free(shape);
}

/* Descriptors the harness refuses: the reference must refuse them too,
 * before reading anything (empty exact-size buffers) or writing its
 * output. */
static void check_refused(const spec *s, const expect *e, clg_tensor *d,
                          clg_tensor *ix)
{
    int64_t four = 4;
    size_t elem = e->elem ? e->elem : 1;
    buf in = buf_make(0, s, 0), idx = buf_make(0, s, 1);
    buf out = buf_make(4 * elem, s, 2);
    clg_tensor o = {s->dtype, 1, &four, out.p};
    clg_status st;
    for (size_t i = 0; i < out.n; i++)
        out.p[i] = out_byte(i);
    d->data = in.p;
    ix->data = idx.p;
    st = reference(s, d, ix, &o);
    FUZZ_CHECK(allowed(e->errors, st), "reference: %s (%s), expected set 0x%x",
               clg_status_name(st), clg_context_last_error(NULL), e->errors);
    check_failed(st);
    FUZZ_CHECK(holds(&out, out_byte), "reference: output written on %s",
               clg_status_name(st));
    free(in.base);
    free(idx.base);
    free(out.base);
}

/* The call's fault (spec.fault) on the output descriptor `o` or the data
 * pointers; the status it must give, or OK when the call has none. */
static clg_status apply_fault(const spec *s, const expect *e, clg_tensor *d,
                              clg_tensor *ix, clg_tensor *o, int64_t *oshape)
{
    size_t j = e->out_rank > 0 ? (size_t)s->axis % e->out_rank : 0;
    switch (s->fault) {
    case FAULT_OUTPUT_DTYPE:
        o->dtype = s->dtype == CLG_DTYPE_FLOAT ? CLG_DTYPE_INT32
                                               : CLG_DTYPE_FLOAT;
        return CLG_STATUS_UNSUPPORTED_DTYPE;
    case FAULT_OUTPUT_SHAPE:
        if (e->out_rank > 0) {
            oshape[j] = oshape[j] == INT64_MAX ? 0 : oshape[j] + 1;
            return CLG_STATUS_SHAPE_MISMATCH;
        }
        /* A scalar output has no dimension to change: add one. */
        /* fall through */
    case FAULT_OUTPUT_RANK:
        oshape[o->rank++] = 1;
        return CLG_STATUS_SHAPE_MISMATCH;
    case FAULT_ALIAS_DATA:
    case FAULT_ALIAS_INDICES: {
        clg_tensor *in = s->fault == FAULT_ALIAS_DATA ? d : ix;
        size_t in_bytes = s->fault == FAULT_ALIAS_DATA
                              ? (size_t)e->data_count * e->elem
                              : (size_t)e->index_count * e->index_size;
        if (in_bytes == 0 || e->out_count == 0)
            return CLG_STATUS_OK;
        o->data = in->data;
        return CLG_STATUS_INVALID_ARGUMENT;
    }
    case FAULT_NULL_DATA: {
        clg_tensor *t = e->data_count > 0    ? d
                        : e->index_count > 0 ? ix
                        : e->out_count > 0   ? o
                                             : NULL;
        if (t == NULL)
            return CLG_STATUS_OK;
        t->data = NULL;
        return CLG_STATUS_NULL_POINTER;
    }
    default:
        return CLG_STATUS_OK;
    }
}

/* The reference's result against the harness's: status, message, output
 * (untouched on error, the formula's on success) and inputs untouched. */
static void check_result(const spec *s, const expect *e, clg_status st,
                         clg_status want, const buf *bufs, const void *saved)
{
    const buf *d = &bufs[0], *ix = &bufs[1], *out = &bufs[2];
    const char *msg = clg_context_last_error(NULL);
    FUZZ_CHECK(st == want, "reference: %s (%s), expected %s",
               clg_status_name(st), msg, clg_status_name(want));
    FUZZ_CHECK(holds(d, data_byte), "reference: data written");
    FUZZ_CHECK(ix->n == 0 || memcmp(ix->p, saved, ix->n) == 0,
               "reference: indices written");
    if (st != CLG_STATUS_OK) {
        check_failed(st);
        FUZZ_CHECK(holds(out, out_byte), "reference: output written on %s",
                   clg_status_name(st));
        return;
    }
    FUZZ_CHECK(msg[0] == '\0', "message '%s' after success", msg);
    if (out->n > 0) {
        unsigned char *want_out = malloc(out->n);
        FUZZ_CHECK(want_out != NULL, "out of memory");
        formula(s, e, d, ix, want_out);
        FUZZ_CHECK(memcmp(out->p, want_out, out->n) == 0,
                   "reference: the output differs from the formula");
        free(want_out);
    }
}

/* Descriptors the harness accepts: a call on exact-size buffers. */
static void check_call(const spec *s, const expect *e, clg_tensor *d,
                       clg_tensor *ix)
{
    size_t nd = (size_t)e->data_count * e->elem;
    size_t ni = (size_t)e->index_count * e->index_size;
    size_t no = (size_t)e->out_count * e->elem;
    int shape_fault = s->fault == FAULT_OUTPUT_SHAPE ||
                      s->fault == FAULT_OUTPUT_RANK;
    char text[1024] = "";
    int64_t bad_value = 0, bad;
    if (nd > MAX_CALL_BYTES || ni > MAX_CALL_BYTES || no > MAX_CALL_BYTES ||
        nd + ni + no > MAX_CALL_BYTES)
        return;
    buf bufs[3] = {buf_make(nd, s, 0), buf_make(ni, s, 1), buf_make(no, s, 2)};
    int64_t *oshape = shape_copy(e->out_shape, e->out_rank, shape_fault, s);
    void *saved = malloc(ni + 1);
    FUZZ_CHECK(saved != NULL, "out of memory");
    clg_tensor o = {s->dtype, e->out_rank, oshape, bufs[2].p};
    fill(s, e, &bufs[0], &bufs[1], &bufs[2]);
    if (ni > 0)
        memcpy(saved, bufs[1].p, ni);
    d->data = bufs[0].p;
    ix->data = bufs[1].p;
    clg_status want = apply_fault(s, e, d, ix, &o, oshape);
    bad = first_bad(s, &bufs[1], e, &bad_value);
    if (want == CLG_STATUS_OK && bad >= 0 && s->oob == CLG_OOB_RAISE) {
        want = CLG_STATUS_INDEX_OUT_OF_RANGE;
        bad_index_text(s, bad, bad_value, text, sizeof text);
    } else if (want == CLG_STATUS_OK && e->out_count > 0 &&
               least_index_dim(s) == 0) {
        /* No position to resolve onto, in any mode. */
        want = CLG_STATUS_INDEX_OUT_OF_RANGE;
        snprintf(text, sizeof text, "has size 0");
    }
    clg_status st = reference(s, d, ix, &o);
    check_result(s, e, st, want, bufs, saved);
    if (text[0] != '\0')
        FUZZ_CHECK(strstr(clg_context_last_error(NULL), text) != NULL,
                   "message '%s' does not name '%s'",
                   clg_context_last_error(NULL), text);
    for (int i = 0; i < 3; i++)
        free(bufs[i].base);
    free(oshape);
    free(saved);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    spec s;
    expect e;
    decode(data, size, &s);
    expect_of(&s, &e);
    int64_t *dshape = shape_copy(s.data_shape, s.data_rank, 0, &s);
    int64_t *ishape = shape_copy(s.index_shape, s.index_rank, 0, &s);
    clg_tensor d = {s.dtype, s.data_rank, dshape, NULL};
    clg_tensor ix = {s.index_dtype, s.index_rank, ishape, NULL};
    check_output_shape(&s, &e, &d, &ix);
    if (e.errors != 0)
        check_refused(&s, &e, &d, &ix);
    else
        check_call(&s, &e, &d, &ix);
    free(dshape);
    free(ishape);
    return 0;
}
