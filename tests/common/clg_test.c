/* SPDX-License-Identifier: Apache-2.0 */
/* Shared helpers for the clgather cmocka tests; see clg_test.h. */
#define _POSIX_C_SOURCE 200809L /* setenv, unsetenv, strdup */
#include "clg_test.h"

#include <inttypes.h>
#include <stdlib.h>
#include <sys/stat.h>

/* ------------------------------------------------------------ context text */

static char case_text[1024];

void clg_test_set_case(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(case_text, sizeof case_text, fmt, ap);
    va_end(ap);
}

const char *clg_test_case_text(void)
{
    return case_text;
}

static void print_case(void)
{
    if (case_text[0] != '\0') {
        print_error("  case: %s\n", case_text);
    }
}

/* ------------------------------------------------------------- assertions */

void clg_test_check_status(const clg_context *ctx, clg_status got,
                           clg_status want, const char *expr, const char *file,
                           int line)
{
    if (got == want) {
        return;
    }
    print_error("%s returned %s (%d), expected %s (%d)\n", expr,
                clg_status_name(got), (int)got, clg_status_name(want),
                (int)want);
    print_case();
    print_error("  last error: \"%s\"\n", clg_context_last_error(ctx));
    if (ctx != NULL) {
        cl_int cl = clg_context_last_cl_error(ctx);
        if (cl != CL_SUCCESS) {
            print_error("  OpenCL error: %s (%d)\n", clg_cl_error_name(cl),
                        (int)cl);
        }
        const char *log = clg_context_build_log(ctx);
        if (log != NULL && log[0] != '\0') {
            print_error("  build log:\n%s\n", log);
        }
    }
    _fail(file, line);
}

static void print_elem(const char *label, const unsigned char *p,
                       size_t elem_size)
{
    char hex[3 * 32 + 1];
    size_t n = elem_size > 32 ? 32 : elem_size;
    for (size_t i = 0; i < n; i++) {
        snprintf(hex + 3 * i, 4, "%02x ", p[i]);
    }
    hex[3 * n] = '\0';
    print_error("    %s: %s\n", label, hex);
}

void clg_test_check_bytes(const void *got, const void *want, size_t n,
                          size_t elem_size, const char *what, const char *file,
                          int line)
{
    if (n == 0 || memcmp(got, want, n) == 0) {
        return;
    }
    const unsigned char *g = got;
    const unsigned char *w = want;
    if (elem_size == 0) {
        elem_size = 1;
    }
    size_t first = 0;
    while (g[first] == w[first]) {
        first++;
    }
    size_t differing = 0;
    for (size_t e = 0; e < n / elem_size; e++) {
        if (memcmp(g + e * elem_size, w + e * elem_size, elem_size) != 0) {
            differing++;
        }
    }
    size_t elem = first / elem_size;
    print_error("%s: %zu of %zu bytes compared differ first at byte %zu "
                "(element %zu of %zu; %zu elements differ)\n",
                what, n, n, first, elem, n / elem_size, differing);
    print_case();
    print_elem("got ", g + elem * elem_size, elem_size);
    print_elem("want", w + elem * elem_size, elem_size);
    _fail(file, line);
}

void clg_test_check_contains(const char *haystack, const char *needle,
                             const char *file, int line)
{
    if (haystack != NULL && needle != NULL && strstr(haystack, needle)) {
        return;
    }
    print_error("message \"%s\" does not contain \"%s\"\n",
                haystack ? haystack : "(NULL)", needle ? needle : "(NULL)");
    print_case();
    _fail(file, line);
}

void clg_test_check_filled(const void *p, size_t n, unsigned char value,
                           const char *what, const char *file, int line)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++) {
        if (b[i] != value) {
            print_error("%s: byte %zu of %zu is 0x%02x, expected 0x%02x "
                        "(memory changed)\n",
                        what, i, n, b[i], value);
            print_case();
            _fail(file, line);
            return;
        }
    }
}

void clg_test_check_shape(const int64_t *got, size_t got_rank,
                          const int64_t *want, size_t want_rank,
                          const char *file, int line)
{
    int same = got_rank == want_rank;
    for (size_t i = 0; same && i < got_rank; i++) {
        same = got[i] == want[i];
    }
    if (same) {
        return;
    }
    char a[512], b[512];
    print_error("shape %s (rank %zu), expected %s (rank %zu)\n",
                clg_test_shape_str(got, got_rank, a, sizeof a), got_rank,
                clg_test_shape_str(want, want_rank, b, sizeof b), want_rank);
    print_case();
    _fail(file, line);
}

/* ------------------------------------------------------------ dtypes */

const clg_dtype clg_test_all_dtypes[16] = {
    CLG_DTYPE_FLOAT,   CLG_DTYPE_UINT8,     CLG_DTYPE_INT8,
    CLG_DTYPE_UINT16,  CLG_DTYPE_INT16,     CLG_DTYPE_INT32,
    CLG_DTYPE_INT64,   CLG_DTYPE_STRING,    CLG_DTYPE_BOOL,
    CLG_DTYPE_FLOAT16, CLG_DTYPE_DOUBLE,    CLG_DTYPE_UINT32,
    CLG_DTYPE_UINT64,  CLG_DTYPE_COMPLEX64, CLG_DTYPE_COMPLEX128,
    CLG_DTYPE_BFLOAT16};

size_t clg_test_dtype_size(clg_dtype dtype)
{
    switch (dtype) {
    case CLG_DTYPE_UINT8:
    case CLG_DTYPE_INT8:
    case CLG_DTYPE_BOOL:
        return 1;
    case CLG_DTYPE_UINT16:
    case CLG_DTYPE_INT16:
    case CLG_DTYPE_FLOAT16:
    case CLG_DTYPE_BFLOAT16:
        return 2;
    case CLG_DTYPE_FLOAT:
    case CLG_DTYPE_INT32:
    case CLG_DTYPE_UINT32:
        return 4;
    case CLG_DTYPE_INT64:
    case CLG_DTYPE_DOUBLE:
    case CLG_DTYPE_UINT64:
    case CLG_DTYPE_COMPLEX64:
        return 8;
    case CLG_DTYPE_COMPLEX128:
        return 16;
    case CLG_DTYPE_STRING:
        return sizeof(clg_string);
    case CLG_DTYPE_UNDEFINED:
    default:
        return 0;
    }
}

int clg_test_dtype_is_float(clg_dtype dtype)
{
    return dtype == CLG_DTYPE_FLOAT || dtype == CLG_DTYPE_DOUBLE ||
           dtype == CLG_DTYPE_FLOAT16 || dtype == CLG_DTYPE_BFLOAT16 ||
           dtype == CLG_DTYPE_COMPLEX64 || dtype == CLG_DTYPE_COMPLEX128;
}

int64_t clg_test_count(const int64_t *shape, size_t rank)
{
    int64_t n = 1;
    for (size_t i = 0; i < rank; i++) {
        n *= shape[i] < 0 ? 0 : shape[i];
    }
    return n;
}

const char *clg_test_shape_str(const int64_t *shape, size_t rank, char *buf,
                               size_t size)
{
    size_t len = 0;
    buf[0] = '\0';
    len += (size_t)snprintf(buf + len, size - len, "[");
    for (size_t i = 0; i < rank && len < size; i++) {
        len += (size_t)snprintf(buf + len, size - len, "%s%" PRId64,
                                i ? ", " : "", shape[i]);
    }
    if (len < size) {
        snprintf(buf + len, size - len, "]");
    }
    return buf;
}

/* ------------------------------------------------------------ tensors */

void clg_test_tensor_init(clg_test_tensor *tt, clg_dtype dtype, size_t rank,
                          const int64_t *shape, size_t misalign,
                          unsigned char fill)
{
    memset(tt, 0, sizeof *tt);
    assert_true(rank <= CLG_TEST_ARRAY_LEN(tt->shape));
    assert_true(misalign < CLG_TEST_GUARD);
    for (size_t i = 0; i < rank; i++) {
        tt->shape[i] = shape[i];
    }
    size_t elem = clg_test_dtype_size(dtype);
    if (elem == 0) {
        elem = 16;
    }
    int64_t count = clg_test_count(shape, rank);
    tt->bytes = (size_t)count * elem;
    tt->misalign = misalign;
    size_t total = 2 * CLG_TEST_GUARD + tt->bytes;
    total = (total + 63) / 64 * 64;
    tt->alloc = aligned_alloc(64, total);
    assert_non_null(tt->alloc);
    memset(tt->alloc, CLG_TEST_GUARD_BYTE, total);
    memset(tt->alloc + CLG_TEST_GUARD + misalign, fill, tt->bytes);
    tt->t.dtype = dtype;
    tt->t.rank = rank;
    tt->t.shape = tt->shape;
    tt->t.data = tt->alloc + CLG_TEST_GUARD + misalign;
}

void clg_test_tensor_free(clg_test_tensor *tt)
{
    free(tt->alloc);
    memset(tt, 0, sizeof *tt);
}

void clg_test_check_guards(const clg_test_tensor *tt, const char *what,
                           const char *file, int line)
{
    char label[256];
    snprintf(label, sizeof label, "%s: guard zone before the payload", what);
    clg_test_check_filled(tt->alloc, CLG_TEST_GUARD + tt->misalign,
                          CLG_TEST_GUARD_BYTE, label, file, line);
    snprintf(label, sizeof label, "%s: guard zone after the payload", what);
    clg_test_check_filled(tt->alloc + CLG_TEST_GUARD + tt->misalign +
                              tt->bytes,
                          CLG_TEST_GUARD - tt->misalign, CLG_TEST_GUARD_BYTE,
                          label, file, line);
}

void clg_test_store_indices(clg_test_tensor *tt, const int64_t *values,
                            size_t count)
{
    assert_true(count * clg_test_dtype_size(tt->t.dtype) <= tt->bytes ||
                tt->t.dtype == CLG_DTYPE_FLOAT);
    for (size_t i = 0; i < count; i++) {
        unsigned char *p = (unsigned char *)tt->t.data;
        if (tt->t.dtype == CLG_DTYPE_INT32) {
            int32_t v = (int32_t)values[i];
            memcpy(p + 4 * i, &v, 4);
        } else if (tt->t.dtype == CLG_DTYPE_INT64) {
            memcpy(p + 8 * i, &values[i], 8);
        } else if (tt->t.dtype == CLG_DTYPE_FLOAT) {
            float v = (float)values[i];
            memcpy(p + 4 * i, &v, 4);
        } else {
            size_t elem = clg_test_dtype_size(tt->t.dtype);
            if (elem == 0) {
                elem = 16;
            }
            for (size_t b = 0; b < elem; b++) {
                p[elem * i + b] = (unsigned char)(values[i] >> (8 * (b % 8)));
            }
        }
    }
}

int64_t clg_test_oob_position(int64_t v, int64_t s, clg_oob_mode mode)
{
    if (mode == CLG_OOB_WRAP)
        return ((v % s) + s) % s;
    if (mode == CLG_OOB_CLIP) {
        int64_t c = v < -s ? -s : v > s - 1 ? s - 1 : v;
        return c < 0 ? c + s : c;
    }
    if (v < -s || v > s - 1)
        return -1;
    return v < 0 ? v + s : v;
}

int64_t clg_test_index_at(const clg_tensor *t, int64_t i)
{
    const unsigned char *p = t->data;
    if (t->dtype == CLG_DTYPE_INT32) {
        int32_t v;
        memcpy(&v, p + 4 * (size_t)i, 4);
        return v;
    }
    int64_t v;
    memcpy(&v, p + 8 * (size_t)i, 8);
    return v;
}

/* ------------------------------------------------------------ oracle */

size_t clg_test_output_shape(clg_op op, const clg_tensor *data,
                             const clg_tensor *indices, int64_t attr,
                             int64_t *shape)
{
    size_t r = data->rank;
    size_t q = indices->rank;
    if (op == CLG_OP_GATHER_ELEMENTS) {
        for (size_t d = 0; d < q; d++) {
            shape[d] = indices->shape[d];
        }
        return q;
    }
    size_t n = 0;
    if (op == CLG_OP_GATHER_ND) {
        /* indices.shape[:q-1] + data.shape[b+k:] */
        size_t k = (size_t)indices->shape[q - 1];
        for (size_t d = 0; d + 1 < q; d++) {
            shape[n++] = indices->shape[d];
        }
        for (size_t d = (size_t)attr + k; d < r; d++) {
            shape[n++] = data->shape[d];
        }
        return n;
    }
    size_t a = (size_t)(attr < 0 ? attr + (int64_t)r : attr);
    for (size_t d = 0; d < a; d++) {
        shape[n++] = data->shape[d];
    }
    for (size_t d = 0; d < q; d++) {
        shape[n++] = indices->shape[d];
    }
    for (size_t d = a + 1; d < r; d++) {
        shape[n++] = data->shape[d];
    }
    return n;
}

/* Multi-index of linear position i in `shape`, as "indices[a][b]". */
static void format_position(const int64_t *shape, size_t rank, int64_t i,
                            char *buf, size_t size)
{
    int64_t mi[CLG_MAX_RANK + 8];
    for (size_t d = rank; d-- > 0;) {
        mi[d] = shape[d] > 0 ? i % shape[d] : 0;
        i = shape[d] > 0 ? i / shape[d] : 0;
    }
    size_t len = (size_t)snprintf(buf, size, "indices");
    for (size_t d = 0; d < rank && len < size; d++) {
        len += (size_t)snprintf(buf + len, size - len, "[%" PRId64 "]", mi[d]);
    }
}

/* Increments a row-major multi-index; returns 0 after the last one. */
static int next_index(int64_t *mi, const int64_t *shape, size_t rank)
{
    for (size_t d = rank; d-- > 0;) {
        if (++mi[d] < shape[d]) {
            return 1;
        }
        mi[d] = 0;
    }
    return 0;
}

/* The size of the data dim index value number i (row-major) selects on:
 * the axis, or for GatherND the dim b + c of its component c. */
static int64_t index_dim(clg_op op, const clg_tensor *data,
                         const clg_tensor *indices, size_t a, int64_t i)
{
    if (op != CLG_OP_GATHER_ND) {
        return data->shape[a];
    }
    int64_t k = indices->shape[indices->rank - 1];
    return data->shape[a + (size_t)(i % k)];
}

clg_status clg_test_oracle(clg_op op, const clg_tensor *data,
                           const clg_tensor *indices, int64_t attr, void *out,
                           clg_test_bad_index *bad)
{
    return clg_test_oracle_mode(op, data, indices, attr, CLG_OOB_RAISE, out,
                                bad);
}

clg_status clg_test_oracle_mode(clg_op op, const clg_tensor *data,
                                const clg_tensor *indices, int64_t attr,
                                clg_oob_mode mode, void *out,
                                clg_test_bad_index *bad)
{
    size_t r = data->rank;
    size_t q = indices->rank;
    /* a: the axis, or GatherND's b (its first tuple dim) */
    size_t a = (size_t)(attr < 0 ? attr + (int64_t)r : attr);
    size_t elem = clg_test_dtype_size(data->dtype);
    int64_t nidx = clg_test_count(indices->shape, q);
    int64_t oshape[2 * CLG_MAX_RANK + 8];
    size_t orank = clg_test_output_shape(op, data, indices, attr, oshape);
    int64_t nout = clg_test_count(oshape, orank);

    /* Under raise every index value is checked, in row-major order; in
     * every mode one on a dim of size 0 has nowhere to go. */
    for (int64_t i = 0; i < nidx; i++) {
        int64_t v = clg_test_index_at(indices, i);
        int64_t s = index_dim(op, data, indices, a, i);
        if (mode != CLG_OOB_RAISE) {
            if (s == 0 && nout > 0) {
                return CLG_STATUS_INDEX_OUT_OF_RANGE;
            }
            continue;
        }
        if (v < -s || v > s - 1) {
            if (bad != NULL) {
                format_position(indices->shape, q, i, bad->position,
                                sizeof bad->position);
                bad->value = v;
                bad->lo = -s;
                bad->hi = s - 1;
                bad->dim = op == CLG_OP_GATHER_ND
                               ? a + (size_t)(i % indices->shape[q - 1])
                               : a;
            }
            return CLG_STATUS_INDEX_OUT_OF_RANGE;
        }
    }

    if (nout == 0) {
        return CLG_STATUS_OK;
    }
    int64_t dstride[CLG_MAX_RANK + 8];
    int64_t st = 1;
    for (size_t d = r; d-- > 0;) {
        dstride[d] = st;
        st *= data->shape[d];
    }
    int64_t mi[2 * CLG_MAX_RANK + 8] = {0};
    unsigned char *o = out;
    const unsigned char *src = data->data;
    int64_t pos = 0;
    do {
        int64_t off = 0;
        int none = 0; /* fill: no position */
        if (op == CLG_OP_GATHER) {
            /* out[o..., i..., k...] = data[o..., norm(idx[i...]), k...] */
            int64_t ilin = 0;
            for (size_t d = 0; d < q; d++) {
                ilin = ilin * indices->shape[d] + mi[a + d];
            }
            int64_t v = clg_test_oob_position(clg_test_index_at(indices, ilin),
                                              data->shape[a], mode);
            none = v < 0;
            for (size_t d = 0; d < a; d++) {
                off += mi[d] * dstride[d];
            }
            off += v * dstride[a];
            for (size_t d = a + 1; d < r; d++) {
                off += mi[d + q - 1] * dstride[d];
            }
        } else if (op == CLG_OP_GATHER_ND) {
            /* out[i..., j..., t...] = data[i..., norm_c(idx[i..., j..., c])
             * for c < k, t...] with i the b batch dims */
            size_t k = (size_t)indices->shape[q - 1];
            int64_t tuple = 0;
            for (size_t d = 0; d + 1 < q; d++) {
                tuple = tuple * indices->shape[d] + mi[d];
            }
            for (size_t d = 0; d < a; d++) {
                off += mi[d] * dstride[d];
            }
            for (size_t c = 0; c < k; c++) {
                int64_t v = clg_test_oob_position(
                    clg_test_index_at(indices,
                                      tuple * (int64_t)k + (int64_t)c),
                    data->shape[a + c], mode);
                none |= v < 0;
                off += v * dstride[a + c];
            }
            for (size_t d = a + k; d < r; d++) {
                off += mi[q - 1 + d - a - k] * dstride[d];
            }
        } else {
            /* out[p] = data[p with p[axis] = norm(idx[p])] */
            int64_t v = clg_test_oob_position(clg_test_index_at(indices, pos),
                                              data->shape[a], mode);
            none = v < 0;
            for (size_t d = 0; d < r; d++) {
                off += (d == a ? v : mi[d]) * dstride[d];
            }
        }
        if (none) {
            memset(o + (size_t)pos * elem, 0, elem);
        } else {
            memcpy(o + (size_t)pos * elem, src + (size_t)off * elem, elem);
        }
        pos++;
    } while (next_index(mi, oshape, orank));
    assert_int_equal(pos, nout);
    return CLG_STATUS_OK;
}

clg_status clg_test_call(clg_op op, clg_context *ctx, int reference,
                         const clg_tensor *data, const clg_tensor *indices,
                         int64_t attr, const clg_tensor *output)
{
    if (reference) {
        return op == CLG_OP_GATHER
                   ? clg_reference_gather(ctx, data, indices, attr, output)
               : op == CLG_OP_GATHER_ND
                   ? clg_reference_gather_nd(ctx, data, indices, attr, output)
                   : clg_reference_gather_elements(ctx, data, indices, attr,
                                                   output);
    }
    clg_status st =
        op == CLG_OP_GATHER ? clg_gather(ctx, data, indices, attr, output)
        : op == CLG_OP_GATHER_ND
            ? clg_gather_nd(ctx, data, indices, attr, output)
            : clg_gather_elements(ctx, data, indices, attr, output);
    /* A device test's call runs on the device (clg_test_device_only). */
    if (st == CLG_STATUS_OK)
        assert_int_equal(clg_context_last_path(ctx), CLG_PATH_DEVICE);
    return st;
}

clg_status clg_test_call_mode(clg_op op, clg_context *ctx, int reference,
                              const clg_tensor *data,
                              const clg_tensor *indices, int64_t attr,
                              clg_oob_mode mode, const clg_tensor *output)
{
    if (mode == CLG_OOB_RAISE) {
        return clg_test_call(op, ctx, reference, data, indices, attr, output);
    }
    const clg_call_options o = {mode};
    if (reference) {
        return op == CLG_OP_GATHER
                   ? clg_reference_gather_ex(ctx, data, indices, attr, output,
                                             &o)
               : op == CLG_OP_GATHER_ND
                   ? clg_reference_gather_nd_ex(ctx, data, indices, attr,
                                                output, &o)
                   : clg_reference_gather_elements_ex(ctx, data, indices, attr,
                                                      output, &o);
    }
    clg_status st =
        op == CLG_OP_GATHER
            ? clg_gather_ex(ctx, data, indices, attr, output, &o)
        : op == CLG_OP_GATHER_ND
            ? clg_gather_nd_ex(ctx, data, indices, attr, output, &o)
            : clg_gather_elements_ex(ctx, data, indices, attr, output, &o);
    if (st == CLG_STATUS_OK)
        assert_int_equal(clg_context_last_path(ctx), CLG_PATH_DEVICE);
    return st;
}

/* ------------------------------------------------------------ PRNG */

uint64_t clg_test_rng_next(clg_test_rng *rng)
{
    /* splitmix64 */
    uint64_t z = (rng->state += UINT64_C(0x9E3779B97F4A7C15));
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

int64_t clg_test_rng_range(clg_test_rng *rng, int64_t lo, int64_t hi)
{
    uint64_t span = (uint64_t)hi - (uint64_t)lo + 1;
    uint64_t v = clg_test_rng_next(rng);
    if (span != 0) {
        v %= span;
    }
    return (int64_t)((uint64_t)lo + v);
}

void clg_test_rng_bytes(clg_test_rng *rng, void *p, size_t n)
{
    unsigned char *b = p;
    while (n > 0) {
        uint64_t v = clg_test_rng_next(rng);
        size_t k = n < 8 ? n : 8;
        memcpy(b, &v, k);
        b += k;
        n -= k;
    }
}

uint64_t clg_test_seed(uint64_t fallback)
{
    uint64_t seed = fallback;
    const char *env = getenv("CLG_TEST_SEED");
    if (env != NULL && env[0] != '\0') {
        char *end = NULL;
        seed = (uint64_t)strtoull(env, &end, 0);
        if (end == env || *end != '\0') {
            print_error("CLG_TEST_SEED=\"%s\" is not a number\n", env);
            exit(1);
        }
    }
    print_message("CLG_TEST_SEED=%" PRIu64 " (set CLG_TEST_SEED to rerun "
                  "with another seed)\n",
                  seed);
    fflush(stdout);
    return seed;
}

int clg_test_quick(void)
{
    const char *env = getenv("CLG_TEST_QUICK");
    if (env == NULL || env[0] == '\0' || strcmp(env, "0") == 0) {
        return 0;
    }
    if (strcmp(env, "1") != 0) {
        print_error("CLG_TEST_QUICK=\"%s\" is not \"0\" or \"1\"\n", env);
        exit(1);
    }
    return 1;
}

/* ------------------------------------------------------------ device */

void clg_test_device_only(clg_context *ctx)
{
    if (clg_context_set_param(ctx, CLG_PARAM_HOST, 0) != CLG_STATUS_OK) {
        print_error("clg_context_set_param(host, 0) failed: %s\n",
                    clg_context_last_error(ctx));
        exit(1);
    }
}

int clg_test_device_setup(void **state)
{
    clg_context *ctx = NULL;
    clg_status st = clg_context_create(&ctx, NULL);
    if (st == CLG_STATUS_DEVICE_NOT_FOUND) {
        size_t count = 0;
        clg_status ls = clg_devices_list(NULL, 0, &count);
        if (ls == CLG_STATUS_DEVICE_NOT_FOUND ||
            (ls == CLG_STATUS_OK && count == 0)) {
            print_message("SKIP: no OpenCL device: %s\n",
                          clg_context_last_error(NULL));
            fflush(stdout);
            exit(77);
        }
        print_error("clg_context_create found no device although %zu "
                    "exist (%s); check CLGATHER_DEVICE: %s\n",
                    count, clg_status_name(ls), clg_context_last_error(NULL));
        return -1;
    }
    if (st != CLG_STATUS_OK || ctx == NULL) {
        print_error("clg_context_create failed: %s: %s\n", clg_status_name(st),
                    clg_context_last_error(NULL));
        return -1;
    }
    clg_test_device_only(ctx);
    print_message("device: %s | %s | %s\n", clg_context_device_name(ctx),
                  clg_context_device_vendor(ctx),
                  clg_context_device_version(ctx));
    fflush(stdout);
    *state = ctx;
    return 0;
}

int clg_test_device_teardown(void **state)
{
    clg_context_destroy(*state);
    *state = NULL;
    return 0;
}

int clg_test_run_device_group(const char *name, const struct CMUnitTest *tests,
                              size_t count)
{
    return _cmocka_run_group_tests(name, tests, count, clg_test_device_setup,
                                   clg_test_device_teardown);
}

int clg_test_has_out_of_order(const clg_context *ctx)
{
    cl_command_queue_properties props = 0;
    assert_int_equal(clGetDeviceInfo(clg_context_cl_device(ctx),
                                     CL_DEVICE_QUEUE_PROPERTIES, sizeof props,
                                     &props, NULL),
                     CL_SUCCESS);
    return (props & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE) != 0;
}

cl_mem clg_test_buffer(clg_context *ctx, const void *host, size_t bytes)
{
    cl_int err = CL_SUCCESS;
    cl_mem m = clCreateBuffer(clg_context_cl_context(ctx),
                              CL_MEM_READ_WRITE |
                                  (host && bytes ? CL_MEM_COPY_HOST_PTR : 0),
                              bytes ? bytes : 16, bytes ? (void *)host : NULL,
                              &err);
    assert_int_equal(err, CL_SUCCESS);
    return m;
}

unsigned char *clg_test_read_file(const char *path, size_t *size)
{
    struct stat st;
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    assert_int_equal(fstat(fileno(f), &st), 0);
    unsigned char *buf = malloc((size_t)st.st_size + 1);
    assert_non_null(buf);
    assert_int_equal(fread(buf, 1, (size_t)st.st_size, f), st.st_size);
    fclose(f);
    *size = (size_t)st.st_size;
    return buf;
}

void clg_test_write_file(const char *path, const void *buf, size_t size)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(buf, 1, size, f), size);
    assert_int_equal(fclose(f), 0);
}

char *clg_test_env_save(const char *name)
{
    const char *value = getenv(name);
    char *saved = value != NULL ? strdup(value) : NULL;
    assert_true(value == NULL || saved != NULL);
    return saved;
}

void clg_test_env_restore(const char *name, char *saved)
{
    if (saved != NULL)
        assert_int_equal(setenv(name, saved, 1), 0);
    else
        assert_int_equal(unsetenv(name), 0);
    free(saved);
}

clg_status clg_test_context_with_env(clg_context **out, const char *name,
                                     const char *value)
{
    char *saved = clg_test_env_save(name);
    assert_int_equal(setenv(name, value, 1), 0);
    clg_status st = clg_context_create(out, NULL);
    clg_test_env_restore(name, saved);
    if (st == CLG_STATUS_OK && strstr(value, "host=") == NULL)
        clg_test_device_only(*out);
    return st;
}
