/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Guard pages (docs/design.md, "Tests"): every tensor of a call sits flush
 * against an inaccessible (PROT_NONE) page, so a read or write one byte
 * outside a tensor kills the binary with SIGSEGV. Each tensor gets its own
 * mapping [guard page | payload pages | guard page] and sits either
 * trailing (its last byte is the last byte before the upper guard) or
 * leading (its first byte is the first byte after the lower guard).
 * Inputs are read-only (PROT_READ) during every call, and so is the host
 * output of every call that must fail, so a write to any of them faults
 * too.
 *
 * Gather and GatherElements run over
 *   - element sizes 1, 2, 4, 8 and 16, Gather inner blocks of 1 to 9, 12,
 *     16, 17, 33 and 64 elements of each size and one of 4097 bytes (so
 *     units of 1 to 16 bytes, and wider rows than one CPU work-group),
 *     INT32 and INT64 indices, data ranks 1 to 4 with every axis, negative ones too,
 *     scalar and rank-2 Gather indices, ragged GatherElements (indices
 *     smaller than data off the axis), wide GatherElements rows (the CPU
 *     strips), more than 65536 indices (the device index check), empty
 *     tensors and an empty axis;
 *   - index values all valid (-s and s-1 among them), or valid ones mixed
 *     with INT64_MIN, INT64_MAX, INT32_MIN, INT32_MAX, s, -s-1, 2^31 and
 *     -2^31-1 (those an index type can hold), first, last or anywhere,
 *     alone or followed by a second bad value, and all of them bad;
 *   - three paths: the host API; the device-buffer API over buffers made
 *     with CL_MEM_USE_HOST_PTR on the guarded memory; and the host API of a
 *     second context whose buffers are capped at 1 KiB
 *     (CLGATHER_MAX_ALLOC=1024), on tensors grown past the cap, so that
 *     they are cut into pieces and windows.
 *
 * GatherND runs over every (data rank 1 to 4, batch_dims, tuple length)
 * with two element sizes in turn (one on the split path and under
 * CLG_TEST_QUICK=1), 0 to 2 tuple dims, both index types, both
 * placements, the same patterns (each value bad for its own component's
 * dim), on the three paths (shapes grown past the cap on the split
 * path), and empty tensors: no tuples, an empty batch, an empty slice and
 * a component's dim of size 0.
 *
 * Every pattern with a bad value runs under raise and again under one of
 * the other out-of-range modes (wrap, clip, fill in turn from pattern to
 * pattern, on the split path from case to case; docs/design.md,
 * "Out-of-range modes"), whose kernels resolve every value and must stay
 * inside the guards just the same.
 *
 * Every call must give the status and message of clg_reference_* under
 * the same mode (which under raise must agree with the test's oracle): OK with the reference's output bit
 * for bit, or INDEX_OUT_OF_RANGE naming the first bad position with the
 * host output untouched (pre-filled with a pattern) and, on the host
 * paths, not written at all. A fault prints the case and the guard page
 * it hit before the binary dies, so reaching the end is the proof of 0
 * faults; the last test prints the number of calls made. CLG_TEST_QUICK=1
 * keeps every shape family and path but runs fewer element sizes and index
 * patterns (for ci/oclgrind.sh).
 *
 * The work comes in eight parts, each a ctest test of its own
 * (device_guard_gather, _gather_rank4, _elements, _elements_rank4,
 * _many, _split_gather, _split_elements and _nd, chosen by the environment
 * variable CLG_TEST_PART; unset: all eight in one process):
 * each part's cost is mostly POCL compiling the work-group functions its
 * shapes reach on a cold kernel cache, so that no one process holds the
 * whole of it and each stays far from its timeout on a busy machine. The
 * summary checks the paths and operators of the parts that ran.
 */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS; POSIX 2008: sigaction, setenv */
#include "clg_test.h"

#include <inttypes.h>
#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#define DEFAULT_SEED UINT64_C(0x6a12dfa6e5)
#define OUT_FILL 0xA5   /* host output before a call */
#define SLACK_FILL 0x3C /* mapped bytes around a tensor, up to its guards */
#define WANT_FILL 0xCD  /* the reference's output before its call */
#define SPLIT_CAP "1024"
#define SPLIT_CAP_BYTES 1024
#define SPLIT_MIN 1600 /* bytes of data and output on the split path */
#define MAX_DIMS 8

static uint64_t seed;
static size_t page;
static int quick; /* CLG_TEST_QUICK=1 (clg_test_quick) */

/* The parts (CLG_TEST_PART): bit i runs part_names[i]. */
enum {
    PART_GATHER = 1,
    PART_ELEMENTS = 2,
    PART_MANY = 4,
    PART_SPLIT_GATHER = 8,
    PART_SPLIT_ELEMENTS = 16,
    PART_GATHER_RANK4 = 32,
    PART_ELEMENTS_RANK4 = 64,
    PART_ND = 128,
    PART_ALL = 255
};
#define PART_COUNT 8
static const char *const part_names[PART_COUNT] = {
    "gather",         "elements",     "many",           "split_gather",
    "split_elements", "gather_rank4", "elements_rank4", "nd"};
static unsigned parts = PART_ALL;

/* ------------------------------------------------------------ faults */

typedef struct guarded {
    unsigned char *map; /* [guard | body | guard] */
    size_t map_bytes;
    unsigned char *body; /* the accessible pages */
    size_t body_bytes;
    unsigned char *ptr; /* the tensor, flush against a guard */
    size_t bytes;
} guarded;

/* What the fault handler prints: the case, and the tensors of the call
 * (a fault address is named by the guard page or tensor it lies in). */
static char fault_case[1024];
static const guarded *fault_mem[3];
static const char *const fault_names[3] = {"data", "indices", "output"};

static void say(const char *s)
{
    size_t n = strlen(s);
    while (n > 0) {
        ssize_t k = write(STDERR_FILENO, s, n);
        if (k <= 0) {
            return;
        }
        s += k;
        n -= (size_t)k;
    }
}

static void say_hex(uintptr_t v)
{
    char buf[2 + 2 * sizeof v + 1];
    size_t n = sizeof buf - 1;
    buf[n] = '\0';
    do {
        buf[--n] = "0123456789abcdef"[v & 15];
        v >>= 4;
    } while (v != 0);
    buf[--n] = 'x';
    buf[--n] = '0';
    say(buf + n);
}

static void say_where(uintptr_t a)
{
    for (int i = 0; i < 3; i++) {
        const guarded *g = fault_mem[i];
        if (g == NULL) {
            continue;
        }
        uintptr_t map = (uintptr_t)g->map, body = (uintptr_t)g->body;
        uintptr_t end = body + g->body_bytes;
        const char *where = NULL;
        if (a >= map && a < body) {
            where = " (in the guard page before ";
        } else if (a >= end && a < end + page) {
            where = " (in the guard page after ";
        } else if (a >= body && a < end) {
            where = " (in the read-only pages of ";
        }
        if (where != NULL) {
            say(where);
            say(fault_names[i]);
            say(")");
        }
    }
}

/* Async-signal-safe: write(2) and raise(3) only. SA_RESETHAND restores the default
 * action, so the faulting access runs again and the process dies of the
 * signal, as it would have without this handler. */
static void on_fault(int sig, siginfo_t *info, void *uctx)
{
    (void)uctx;
    say(sig == SIGBUS ? "\nFAULT: SIGBUS" : "\nFAULT: SIGSEGV");
    say(" at address ");
    say_hex((uintptr_t)info->si_addr);
    say_where((uintptr_t)info->si_addr);
    say("\n  case: ");
    say(fault_case);
    say("\n");
    if (info->si_code <= 0) {
        raise(sig); /* sent, not a fault: nothing would raise it again */
    }
}

/* Installed at the start of every test and after every context creation,
 * in case the OpenCL implementation installed handlers of its own. */
static void install_fault_handler(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_fault;
    sa.sa_flags = SA_SIGINFO | SA_RESETHAND;
    sigemptyset(&sa.sa_mask);
    assert_int_equal(sigaction(SIGSEGV, &sa, NULL), 0);
    assert_int_equal(sigaction(SIGBUS, &sa, NULL), 0);
}

/* ------------------------------------------------------------ guarded memory */

typedef enum placement { TRAILING = 0, LEADING = 1 } placement;
static const char *const placement_names[2] = {"trailing", "leading"};

/* A mapping with the tensor's `bytes` flush against the upper guard
 * (TRAILING) or the lower one (LEADING); the rest of the body is
 * SLACK_FILL. An empty tensor points at the upper guard page itself. */
static void guarded_init(guarded *g, size_t bytes, placement where)
{
    size_t pages = (bytes + page - 1) / page;
    g->map_bytes = (pages + 2) * page;
    g->map = mmap(NULL, g->map_bytes, PROT_READ | PROT_WRITE,
                  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    assert_true(g->map != MAP_FAILED);
    assert_int_equal(mprotect(g->map, page, PROT_NONE), 0);
    assert_int_equal(mprotect(g->map + (pages + 1) * page, page, PROT_NONE),
                     0);
    g->body = g->map + page;
    g->body_bytes = pages * page;
    g->bytes = bytes;
    g->ptr = where == TRAILING ? g->body + g->body_bytes - bytes : g->body;
    memset(g->body, SLACK_FILL, g->body_bytes);
}

static void guarded_protect(const guarded *g, int prot)
{
    if (g->body_bytes > 0) {
        assert_int_equal(mprotect(g->body, g->body_bytes, prot), 0);
    }
}

static void guarded_free(guarded *g)
{
    assert_int_equal(munmap(g->map, g->map_bytes), 0);
    memset(g, 0, sizeof *g);
}

/* The body around the tensor is as guarded_init left it. */
static void guarded_check_slack(const guarded *g, const char *what)
{
    size_t before = (size_t)(g->ptr - g->body);
    size_t after = g->body_bytes - before - g->bytes;
    char label[128];
    snprintf(label, sizeof label, "%s: mapped bytes before the tensor", what);
    CLG_ASSERT_FILLED(g->body, before, SLACK_FILL, label);
    snprintf(label, sizeof label, "%s: mapped bytes after the tensor", what);
    CLG_ASSERT_FILLED(g->ptr + g->bytes, after, SLACK_FILL, label);
}

/* ------------------------------------------------------------ cases */

/* A call's dtypes and shapes. */
typedef struct shape_case {
    clg_op op;
    clg_dtype dtype;
    size_t rank;
    int64_t shape[MAX_DIMS];
    int64_t axis; /* GatherND: batch_dims */
    size_t idx_rank;
    int64_t idx_shape[MAX_DIMS];
    const char *kind; /* which family of cases it belongs to */
} shape_case;

/* Element sizes 1, 2, 4, 8, 16. */
static const clg_dtype dtypes[5] = {CLG_DTYPE_UINT8, CLG_DTYPE_FLOAT16,
                                    CLG_DTYPE_FLOAT, CLG_DTYPE_DOUBLE,
                                    CLG_DTYPE_COMPLEX128};

static size_t axis_of(const shape_case *sc)
{
    return (size_t)(sc->axis < 0 ? sc->axis + (int64_t)sc->rank : sc->axis);
}

static size_t elem_of(const shape_case *sc)
{
    return clg_test_dtype_size(sc->dtype);
}

static size_t data_bytes_of(const shape_case *sc)
{
    return (size_t)clg_test_count(sc->shape, sc->rank) * elem_of(sc);
}

static size_t out_bytes_of(const shape_case *sc)
{
    if (sc->op == CLG_OP_GATHER_ND) {
        int64_t shape[2 * MAX_DIMS];
        clg_tensor D = {sc->dtype, sc->rank, sc->shape, NULL};
        clg_tensor I = {CLG_DTYPE_INT64, sc->idx_rank, sc->idx_shape, NULL};
        size_t rank = clg_test_output_shape(sc->op, &D, &I, sc->axis, shape);
        return (size_t)clg_test_count(shape, rank) * elem_of(sc);
    }
    int64_t n = clg_test_count(sc->idx_shape, sc->idx_rank);
    if (sc->op == CLG_OP_GATHER) {
        for (size_t d = 0; d < sc->rank; d++) {
            n *= d == axis_of(sc) ? 1 : sc->shape[d];
        }
    }
    return (size_t)n * elem_of(sc);
}

/* Data dims 1..4 (the axis 1..5); Gather indices of rank n % 3;
 * GatherElements indices ragged on every odd n (where the rank is above
 * 1). */
static void random_shape(clg_test_rng *rng, clg_op op, clg_dtype dtype,
                         size_t rank, int64_t axis, size_t n, shape_case *sc)
{
    memset(sc, 0, sizeof *sc);
    sc->op = op;
    sc->dtype = dtype;
    sc->rank = rank;
    sc->axis = axis;
    sc->kind = "rank/axis";
    size_t a = axis_of(sc);
    for (size_t d = 0; d < rank; d++) {
        sc->shape[d] = clg_test_rng_range(rng, 1, 4);
    }
    sc->shape[a] = clg_test_rng_range(rng, 1, 5);
    if (op == CLG_OP_GATHER) {
        sc->idx_rank = n % 3;
        for (size_t d = 0; d < sc->idx_rank; d++) {
            sc->idx_shape[d] = clg_test_rng_range(rng, 1, 4);
        }
        return;
    }
    sc->idx_rank = rank;
    for (size_t d = 0; d < rank; d++) {
        sc->idx_shape[d] = d == a ? clg_test_rng_range(rng, 1, 6)
                                  : clg_test_rng_range(rng, 1, sc->shape[d]);
    }
    if (n % 2 == 1 && rank > 1) {
        /* Ragged: a dimension off the axis smaller than data's (grown
         * first where it is 1). */
        int64_t off = clg_test_rng_range(rng, 1, (int64_t)rank - 1);
        size_t d = (a + (size_t)off) % rank;
        if (sc->shape[d] < 2) {
            sc->shape[d] = 2 + clg_test_rng_range(rng, 0, 2);
        }
        sc->idx_shape[d] = clg_test_rng_range(rng, 1, sc->shape[d] - 1);
    }
}

/* Grows a case until data and output hold at least SPLIT_MIN bytes (the
 * output where it can grow), so that the 1 KiB cap cuts it. */
static void grow_for_split(clg_test_rng *rng, shape_case *sc)
{
    size_t a = axis_of(sc);
    int out_fixed = sc->op == CLG_OP_GATHER && sc->idx_rank == 0 &&
                    sc->rank == 1;
    while (data_bytes_of(sc) < SPLIT_MIN ||
           (!out_fixed && out_bytes_of(sc) < SPLIT_MIN)) {
        size_t d = (size_t)clg_test_rng_range(rng, 0, (int64_t)sc->rank - 1);
        if (data_bytes_of(sc) < SPLIT_MIN) {
            sc->shape[d] += 1 + sc->shape[d] / 2;
            continue;
        }
        if (sc->op == CLG_OP_GATHER) {
            if (sc->idx_rank > 0 && (d == a || sc->rank == 1)) {
                size_t k =
                    (size_t)clg_test_rng_range(rng, 0,
                                               (int64_t)sc->idx_rank - 1);
                sc->idx_shape[k] += 1 + sc->idx_shape[k] / 2;
            } else if (d != a) {
                sc->shape[d] += 1 + sc->shape[d] / 2;
            }
            continue;
        }
        sc->idx_shape[d] += 1 + sc->idx_shape[d] / 2;
        if (d != a && sc->idx_shape[d] > sc->shape[d]) {
            sc->shape[d] = sc->idx_shape[d] + (d % 2);
        }
    }
}

/* Gather data [outer, 3, k] along axis 1 (or -2): an inner block of k
 * elements, so that every unit width and odd block sizes occur. */
static void unit_shape(clg_dtype dtype, int64_t k, int64_t outer, int64_t n,
                       int flip, shape_case *sc)
{
    memset(sc, 0, sizeof *sc);
    sc->op = CLG_OP_GATHER;
    sc->dtype = dtype;
    sc->rank = 3;
    sc->shape[0] = outer;
    sc->shape[1] = 3;
    sc->shape[2] = k;
    sc->axis = flip ? -2 : 1;
    sc->idx_rank = flip ? 2 : 1;
    sc->idx_shape[0] = flip ? 2 : n;
    sc->idx_shape[1] = flip ? (n + 1) / 2 : 0;
    sc->kind = "inner block";
}

/* GatherND: data of rank r, dims 1..4, batch_dims b, tuples of k, m tuple
 * dims of 1..4 (indices [data.shape[:b], m dims, k]). */
static void nd_shape(clg_test_rng *rng, clg_dtype dtype, size_t r, size_t b,
                     size_t k, size_t m, shape_case *sc)
{
    memset(sc, 0, sizeof *sc);
    sc->op = CLG_OP_GATHER_ND;
    sc->dtype = dtype;
    sc->rank = r;
    sc->axis = (int64_t)b;
    sc->kind = "tuples";
    for (size_t d = 0; d < r; d++) {
        sc->shape[d] = clg_test_rng_range(rng, 1, 4);
    }
    for (size_t d = 0; d < b; d++) {
        sc->idx_shape[d] = sc->shape[d];
    }
    for (size_t d = b; d < b + m; d++) {
        sc->idx_shape[d] = clg_test_rng_range(rng, 1, 4);
    }
    sc->idx_shape[b + m] = (int64_t)k;
    sc->idx_rank = b + m + 1;
}

/* Grows a GatherND case (with m >= 1 tuple dims) until data and output
 * hold at least SPLIT_MIN bytes: data dims (a batch dim in indices too),
 * then tuple dims. */
static void grow_nd_for_split(clg_test_rng *rng, shape_case *sc)
{
    size_t b = (size_t)sc->axis, m = sc->idx_rank - 1 - b;
    while (data_bytes_of(sc) < SPLIT_MIN) {
        size_t d = (size_t)clg_test_rng_range(rng, 0, (int64_t)sc->rank - 1);
        sc->shape[d] += 1 + sc->shape[d] / 2;
        if (d < b) {
            sc->idx_shape[d] = sc->shape[d];
        }
    }
    while (out_bytes_of(sc) < SPLIT_MIN) {
        size_t d = b + (size_t)clg_test_rng_range(rng, 0, (int64_t)m - 1);
        sc->idx_shape[d] += 1 + sc->idx_shape[d] / 2;
    }
}

/* ------------------------------------------------------------ index values */

/* The adversarial values an index type can hold. */
static size_t adversarial(clg_dtype idt, int64_t s, int64_t *v)
{
    size_t n = 0;
    v[n++] = INT32_MIN;
    v[n++] = INT32_MAX;
    v[n++] = s;
    v[n++] = -s - 1;
    if (idt == CLG_DTYPE_INT64) {
        v[n++] = INT64_MIN;
        v[n++] = INT64_MAX;
        v[n++] = INT64_C(1) << 31;
        v[n++] = -(INT64_C(1) << 31) - 1;
    }
    return n;
}

static const char *value_name(int64_t v, int64_t s, char *buf, size_t size)
{
    if (v == INT64_MIN) {
        return "INT64_MIN";
    }
    if (v == INT64_MAX) {
        return "INT64_MAX";
    }
    if (v == INT32_MIN) {
        return "INT32_MIN";
    }
    if (v == INT32_MAX) {
        return "INT32_MAX";
    }
    if (v == s) {
        return "s";
    }
    if (v == -s - 1) {
        return "-s-1";
    }
    if (v == INT64_C(1) << 31) {
        return "2^31";
    }
    if (v == -(INT64_C(1) << 31) - 1) {
        return "-2^31-1";
    }
    snprintf(buf, size, "%" PRId64, v);
    return buf;
}

/* Number of index patterns of a case: all valid, one per adversarial
 * value, all bad. */
static size_t pattern_count(clg_dtype idt, int64_t s)
{
    int64_t v[8];
    return adversarial(idt, s, v) + 2;
}

/* Fills n values with pattern k (see pattern_count) and describes it;
 * value i selects on a dim of size sz[i] (the axis; for GatherND its
 * component's dim), all sizes positive or all 0. `turn` rotates where
 * each bad value goes (first, last, anywhere) and whether a second one
 * follows it, from one case to the next. */
static void make_pattern(clg_test_rng *rng, clg_dtype idt, const int64_t *sz,
                         size_t k, size_t turn, int64_t *values, int64_t n,
                         char *desc, size_t size)
{
    int64_t adv[8];
    size_t na = adversarial(idt, n > 0 ? sz[0] : 0, adv);
    char b1[32], b2[32];
    int positive = n > 0 && sz[0] > 0;
    for (int64_t i = 0; i < n; i++) {
        values[i] = sz[i] > 0 ? clg_test_rng_range(rng, -sz[i], sz[i] - 1) : 0;
    }
    if (k == 0 || n == 0) {
        if (n >= 2 && positive) {
            int64_t p = clg_test_rng_range(rng, 0, n - 1);
            values[p] = -sz[p];
            p = clg_test_rng_range(rng, 0, n - 1);
            values[p] = sz[p] - 1;
        }
        snprintf(desc, size, "%s",
                 positive || n == 0 ? "all valid" : "axis of size 0");
        return;
    }
    if (k == na + 1) {
        for (int64_t i = 0; i < n; i++) {
            adversarial(idt, sz[i], adv);
            values[i] = adv[(size_t)i % na];
        }
        snprintf(desc, size, "every value bad");
        return;
    }
    size_t where = (k + turn) % 3;
    int64_t pos = where == 0   ? 0
                  : where == 1 ? n - 1
                               : clg_test_rng_range(rng, 0, n - 1);
    adversarial(idt, sz[pos], adv);
    int64_t bad = adv[k - 1];
    values[pos] = bad;
    int len = snprintf(desc, size, "%s at %" PRId64 " of %" PRId64,
                       value_name(bad, sz[pos], b1, sizeof b1), pos, n);
    if ((k + turn) % 2 == 0 && pos + 1 < n) {
        int64_t pos2 = clg_test_rng_range(rng, pos + 1, n - 1);
        adversarial(idt, sz[pos2], adv);
        values[pos2] = adv[k % na];
        snprintf(desc + len, size - (size_t)len, ", then %s at %" PRId64,
                 value_name(adv[k % na], sz[pos2], b2, sizeof b2), pos2);
    }
}

/* ------------------------------------------------------------ one call */

typedef enum path { PATH_HOST = 0, PATH_BUFFERS = 1, PATH_SPLIT = 2 } path;
static const char *const path_names[3] = {
    "host API", "device buffers (CL_MEM_USE_HOST_PTR)",
    "host API, buffers capped at " SPLIT_CAP " bytes"};

/* Calls made, by path and operator, and how many of them had to fail. */
static size_t calls[3][3], failing[3][3]; /* [path][op] */
/* The out-of-range mode of the calls being made, and calls per mode. */
static clg_oob_mode mode = CLG_OOB_RAISE;
static size_t mode_calls[4];
static size_t buffers_ok, buffers_in_place;
static size_t split_cut; /* split-path calls with a tensor over the cap */

/* A case with its tensors in guarded memory and its expected result. */
typedef struct guard_case {
    const shape_case *sc;
    clg_dtype idt;
    placement where;
    int64_t out_shape[2 * MAX_DIMS];
    size_t out_rank;
    guarded data, indices, output;
    clg_tensor D, I, O;
    const char *pattern;
    clg_status expect;
    char message[512];   /* the reference's, on error */
    unsigned char *want; /* the reference's output */
    unsigned char *fill; /* out bytes of OUT_FILL */
} guard_case;

static void describe(const guard_case *gc, path pth)
{
    const shape_case *sc = gc->sc;
    char ds[128], is[128];
    snprintf(fault_case, sizeof fault_case,
             "%s [%s], %s, %s data %s %s %" PRId64 ", %s indices %s, "
             "%s; tensors %s; --oob %s (CLG_TEST_SEED=%" PRIu64 ")",
             path_names[pth], sc->kind, clg_op_name(sc->op),
             clg_dtype_name(sc->dtype),
             clg_test_shape_str(sc->shape, sc->rank, ds, sizeof ds),
             clg_op_attribute(sc->op), sc->axis, clg_dtype_name(gc->idt),
             clg_test_shape_str(sc->idx_shape, sc->idx_rank, is, sizeof is),
             gc->pattern, placement_names[gc->where], clg_oob_mode_name(mode),
             seed);
    clg_test_set_case("%s", fault_case);
}

static clg_status call_host(clg_context *ctx, const guard_case *gc)
{
    clg_call_options o = {.oob = mode};
    return gc->sc->op == CLG_OP_GATHER
               ? clg_gather_ex(ctx, &gc->D, &gc->I, gc->sc->axis, &gc->O, &o)
           : gc->sc->op == CLG_OP_GATHER_ND
               ? clg_gather_nd_ex(ctx, &gc->D, &gc->I, gc->sc->axis, &gc->O,
                                  &o)
               : clg_gather_elements_ex(ctx, &gc->D, &gc->I, gc->sc->axis,
                                        &gc->O, &o);
}

/* The status of a call and, on error, its message: both the reference's. */
static void check_status(clg_context *ctx, const guard_case *gc, clg_status st)
{
    CLG_ASSERT_STATUS(ctx, st, gc->expect);
    if (gc->expect != CLG_STATUS_OK &&
        strcmp(clg_context_last_error(ctx), gc->message) != 0) {
        print_error("message \"%s\"\n differs from the reference's \"%s\"\n"
                    "  case: %s\n",
                    clg_context_last_error(ctx), gc->message, fault_case);
        fail();
    }
}

/* The host API: output pre-filled, and read-only when the call must fail
 * (a write to it faults). */
static void run_host(clg_context *ctx, guard_case *gc, path pth)
{
    size_t n = gc->output.bytes;
    memset(gc->output.ptr, OUT_FILL, n);
    if (gc->expect != CLG_STATUS_OK) {
        guarded_protect(&gc->output, PROT_READ);
    }
    describe(gc, pth);
    clg_status st = call_host(ctx, gc);
    check_status(ctx, gc, st);
    if (gc->expect == CLG_STATUS_OK) {
        CLG_ASSERT_BYTES(gc->output.ptr, gc->want, n, elem_of(gc->sc),
                         "output vs clg_reference");
    } else {
        CLG_ASSERT_BYTES(gc->output.ptr, gc->fill, n, 1,
                         "output after a failed call (must be untouched)");
    }
    guarded_check_slack(&gc->output, "output");
    guarded_protect(&gc->output, PROT_READ | PROT_WRITE);
    calls[pth][gc->sc->op]++;
    mode_calls[mode]++;
    failing[pth][gc->sc->op] += gc->expect != CLG_STATUS_OK;
    split_cut += pth == PATH_SPLIT &&
                 (gc->data.bytes > SPLIT_CAP_BYTES ||
                  gc->indices.bytes > SPLIT_CAP_BYTES || n > SPLIT_CAP_BYTES);
}

/* A buffer over guarded memory; NULL for an empty tensor (the API takes
 * no buffer for it, and OpenCL has no empty buffers). */
static cl_mem wrap(cl_context cl, const guarded *g, cl_mem_flags flags)
{
    if (g->bytes == 0) {
        return NULL;
    }
    cl_int err = CL_SUCCESS;
    cl_mem m = clCreateBuffer(cl, flags | CL_MEM_USE_HOST_PTR, g->bytes,
                              g->ptr, &err);
    assert_int_equal(err, CL_SUCCESS);
    assert_non_null(m);
    return m;
}

/* Maps the output (the spec's way to see a CL_MEM_USE_HOST_PTR buffer's
 * contents on the host) and compares it with the reference's. */
static void check_mapped_output(cl_command_queue q, cl_mem o,
                                const guard_case *gc)
{
    size_t n = gc->output.bytes;
    /* Before the map: did the kernel write the guarded memory itself? */
    buffers_in_place += memcmp(gc->output.ptr, gc->want, n) == 0;
    buffers_ok++;
    cl_int err = CL_SUCCESS;
    void *m = clEnqueueMapBuffer(q, o, CL_TRUE, CL_MAP_READ, 0, n, 0, NULL,
                                 NULL, &err);
    assert_int_equal(err, CL_SUCCESS);
    CLG_ASSERT_BYTES(m, gc->want, n, elem_of(gc->sc),
                     "output buffer vs clg_reference");
    assert_int_equal(clEnqueueUnmapMemObject(q, o, m, 0, NULL, NULL),
                     CL_SUCCESS);
    assert_int_equal(clFinish(q), CL_SUCCESS);
}

/* The device-buffer API over the same guarded memory. After an index
 * error the output buffer's contents are unspecified (header), so only the
 * status and message are checked; the guards hold every byte around. */
static void run_buffers(clg_context *ctx, guard_case *gc)
{
    const shape_case *sc = gc->sc;
    cl_context cl = clg_context_cl_context(ctx);
    cl_command_queue q = clg_context_cl_queue(ctx);
    memset(gc->output.ptr, OUT_FILL, gc->output.bytes);
    cl_mem d = wrap(cl, &gc->data, CL_MEM_READ_ONLY);
    cl_mem i = wrap(cl, &gc->indices, CL_MEM_READ_ONLY);
    cl_mem o = wrap(cl, &gc->output, CL_MEM_READ_WRITE);
    clg_cl_tensor cd = {sc->dtype, sc->rank, sc->shape, d};
    clg_cl_tensor ci = {gc->idt, sc->idx_rank, sc->idx_shape, i};
    clg_cl_tensor co = {sc->dtype, gc->out_rank, gc->out_shape, o};
    describe(gc, PATH_BUFFERS);
    clg_call_options opt = {.oob = mode};
    clg_status st =
        sc->op == CLG_OP_GATHER
            ? clg_gather_cl_ex(ctx, &cd, &ci, sc->axis, &co, &opt)
        : sc->op == CLG_OP_GATHER_ND
            ? clg_gather_nd_cl_ex(ctx, &cd, &ci, sc->axis, &co, &opt)
            : clg_gather_elements_cl_ex(ctx, &cd, &ci, sc->axis, &co, &opt);
    check_status(ctx, gc, st);
    if (st == CLG_STATUS_OK && o != NULL) {
        check_mapped_output(q, o, gc);
    }
    if (d != NULL) {
        clReleaseMemObject(d);
    }
    if (i != NULL) {
        clReleaseMemObject(i);
    }
    if (o != NULL) {
        clReleaseMemObject(o);
    }
    assert_int_equal(clFinish(q), CL_SUCCESS);
    guarded_check_slack(&gc->output, "output");
    calls[PATH_BUFFERS][sc->op]++;
    mode_calls[mode]++;
    failing[PATH_BUFFERS][sc->op] += gc->expect != CLG_STATUS_OK;
}

/* ------------------------------------------------------------ expectations */

/* Runs the reference (into plain memory) and, under raise, the test's
 * oracle, which must agree; the reference's result is what every path
 * must give. */
static void expect_reference(clg_context *ctx, guard_case *gc)
{
    const shape_case *sc = gc->sc;
    size_t n = gc->output.bytes;
    unsigned char *oracle = malloc(n + 1);
    assert_non_null(oracle);
    memset(gc->want, WANT_FILL, n);
    clg_tensor W = gc->O;
    W.data = gc->want;
    clg_test_set_case("reference: %s", fault_case);
    clg_call_options o = {.oob = mode};
    gc->expect =
        sc->op == CLG_OP_GATHER
            ? clg_reference_gather_ex(ctx, &gc->D, &gc->I, sc->axis, &W, &o)
        : sc->op == CLG_OP_GATHER_ND
            ? clg_reference_gather_nd_ex(ctx, &gc->D, &gc->I, sc->axis, &W, &o)
            : clg_reference_gather_elements_ex(ctx, &gc->D, &gc->I, sc->axis,
                                               &W, &o);
    snprintf(gc->message, sizeof gc->message, "%s",
             clg_context_last_error(ctx));
    if (mode != CLG_OOB_RAISE) {
        /* Checked against an oracle of every mode in test_oob.c. */
        free(oracle);
        return;
    }
    clg_test_bad_index bad;
    clg_status want = clg_test_oracle(sc->op, &gc->D, &gc->I, sc->axis, oracle,
                                      &bad);
    CLG_ASSERT_STATUS(ctx, gc->expect, want);
    if (want == CLG_STATUS_OK) {
        CLG_ASSERT_BYTES(gc->want, oracle, n, elem_of(sc),
                         "clg_reference vs the test's oracle");
    } else {
        /* The first bad position, as the oracle found it. */
        char frag[sizeof bad.position + 64];
        snprintf(frag, sizeof frag, "%s%s = %" PRId64, bad.position,
                 sc->idx_rank == 0 ? " (a scalar)" : "", bad.value);
        CLG_ASSERT_CONTAINS(gc->message, frag);
        if (bad.hi >= bad.lo) {
            snprintf(frag, sizeof frag, "[%" PRId64 ", %" PRId64 "]", bad.lo,
                     bad.hi);
            CLG_ASSERT_CONTAINS(gc->message, frag);
        }
        CLG_ASSERT_FILLED(gc->want, n, WANT_FILL, "reference output");
    }
    free(oracle);
}

/* ------------------------------------------------------------ one case */

/* Maps the three tensors of a case and fills its data. */
static void guard_case_init(guard_case *gc, clg_test_rng *rng,
                            const shape_case *sc, clg_dtype idt,
                            placement where)
{
    memset(gc, 0, sizeof *gc);
    gc->sc = sc;
    gc->idt = idt;
    gc->where = where;
    int64_t nidx = clg_test_count(sc->idx_shape, sc->idx_rank);
    clg_tensor D0 = {sc->dtype, sc->rank, sc->shape, NULL};
    clg_tensor I0 = {idt, sc->idx_rank, sc->idx_shape, NULL};
    gc->out_rank = clg_test_output_shape(sc->op, &D0, &I0, sc->axis,
                                         gc->out_shape);
    size_t out_bytes = (size_t)clg_test_count(gc->out_shape, gc->out_rank) *
                       elem_of(sc);
    guarded_init(&gc->data, data_bytes_of(sc), where);
    guarded_init(&gc->indices, (size_t)nidx * clg_test_dtype_size(idt), where);
    guarded_init(&gc->output, out_bytes, where);
    fault_mem[0] = &gc->data;
    fault_mem[1] = &gc->indices;
    fault_mem[2] = &gc->output;
    clg_test_rng_bytes(rng, gc->data.ptr, gc->data.bytes);
    guarded_protect(&gc->data, PROT_READ);
    gc->D = (clg_tensor){sc->dtype, sc->rank, sc->shape, gc->data.ptr};
    gc->I = (clg_tensor){idt, sc->idx_rank, sc->idx_shape, gc->indices.ptr};
    gc->O = (clg_tensor){sc->dtype, gc->out_rank, gc->out_shape,
                         gc->output.ptr};
    gc->want = malloc(out_bytes + 1);
    gc->fill = malloc(out_bytes + 1);
    assert_non_null(gc->want);
    assert_non_null(gc->fill);
    memset(gc->fill, OUT_FILL, out_bytes);
}

static void guard_case_free(guard_case *gc)
{
    memset(fault_mem, 0, sizeof fault_mem);
    free(gc->want);
    free(gc->fill);
    guarded_free(&gc->data);
    guarded_free(&gc->indices);
    guarded_free(&gc->output);
}

/* Runs every index pattern of a case (at most max_patterns; under
 * CLG_TEST_QUICK=1 the valid one and one bad one, in turn from case to
 * case) on the given paths; the indices are read-only but while they are
 * written. */
static void run_case(clg_context *ctx, clg_test_rng *rng, const shape_case *sc,
                     clg_dtype idt, placement where, const path *paths,
                     size_t npaths, size_t max_patterns)
{
    static size_t turn;
    guard_case gc;
    guard_case_init(&gc, rng, sc, idt, where);
    int64_t nidx = clg_test_count(sc->idx_shape, sc->idx_rank);
    int64_t *values = malloc(sizeof *values * (size_t)(nidx + 1));
    assert_non_null(values);
    int64_t s = sc->shape[axis_of(sc)];
    /* The dim each value selects on (GatherND: its component's). */
    int64_t *sz = malloc(sizeof *sz * (size_t)(nidx + 1));
    assert_non_null(sz);
    for (int64_t i = 0; i < nidx; i++) {
        sz[i] = sc->op == CLG_OP_GATHER_ND
                    ? sc->shape[axis_of(sc) +
                                (size_t)(i % sc->idx_shape[sc->idx_rank - 1])]
                    : s;
    }
    size_t np = nidx > 0 ? pattern_count(idt, s) : 1;
    char pattern[160];
    gc.pattern = pattern;
    turn++;
    for (size_t k = 0; k < np && k < max_patterns; k++) {
        if (quick && k != 0 && k != 1 + turn % (np - 1)) {
            continue;
        }
        make_pattern(rng, idt, sz, k, turn, values, nidx, pattern,
                     sizeof pattern);
        guarded_protect(&gc.indices, PROT_READ | PROT_WRITE);
        clg_test_tensor tt = {.t = gc.I, .bytes = gc.indices.bytes};
        clg_test_store_indices(&tt, values, (size_t)nidx);
        guarded_protect(&gc.indices, PROT_READ);
        /* Raise; then, when it fails, another mode in turn: from pattern
         * to pattern, or on the split path from case to case (each mode
         * is a kernel variant of its own, which POCL compiles for every
         * work-group size the pieces reach). */
        for (int again = 0; again < 2; again++) {
            size_t step = paths[0] == PATH_SPLIT ? turn : turn + k;
            mode = again ? (clg_oob_mode)(1 + step % 3) : CLG_OOB_RAISE;
            describe(&gc, paths[0]);
            expect_reference(ctx, &gc);
            for (size_t p = 0; p < npaths; p++) {
                if (paths[p] == PATH_BUFFERS) {
                    run_buffers(ctx, &gc);
                } else {
                    run_host(ctx, &gc, paths[p]);
                }
            }
            if (!again && gc.expect == CLG_STATUS_OK) {
                break;
            }
        }
        mode = CLG_OOB_RAISE;
    }
    free(values);
    free(sz);
    guard_case_free(&gc);
}

/* Every index type and placement of a shape. */
static void run_shape(clg_context *ctx, clg_test_rng *rng,
                      const shape_case *sc, const path *paths, size_t npaths,
                      size_t max_patterns)
{
    static const clg_dtype idts[2] = {CLG_DTYPE_INT32, CLG_DTYPE_INT64};
    for (int k = 0; k < 2; k++) {
        for (int w = 0; w < 2; w++) {
            run_case(ctx, rng, sc, idts[k], (placement)w, paths, npaths,
                     max_patterns);
        }
    }
}

/* ------------------------------------------------------------ families */

/* The split path runs a subset of the Gather shapes of the other two:
 * grown shapes are cut into pieces of many sizes, POCL compiles a kernel
 * once per work-group size, and so every split shape costs a few compiles
 * when the kernel cache is cold (every element size with every axis on
 * the split path doubled this binary's cold run, to about 4 minutes).
 * GatherElements keeps them all: its variants multiply the unit by the
 * offset lists of ragged shapes. */
static int split_skips(int split, clg_op op, size_t e, size_t turn)
{
    return split && op == CLG_OP_GATHER &&
           e != turn % CLG_TEST_ARRAY_LEN(dtypes);
}

/* Ranks r_lo..r_hi (of 1..4) and every axis, with every element size (on the split path,
 * Gather, and under CLG_TEST_QUICK=1: one size per axis, in turn), each
 * shape random; on the split path grown until the cap cuts it. */
static void run_rank_axis(clg_context *ctx, clg_test_rng *rng, clg_op op,
                          const path *paths, size_t npaths, int split,
                          size_t r_lo, size_t r_hi)
{
    size_t n = 0, turn = 0;
    for (size_t r = r_lo; r <= r_hi; r++) {
        for (int64_t axis = -(int64_t)r; axis < (int64_t)r; axis++) {
            for (size_t e = 0; e < CLG_TEST_ARRAY_LEN(dtypes); e++) {
                if (split_skips(split, op, e, turn) ||
                    (quick && e != turn % CLG_TEST_ARRAY_LEN(dtypes))) {
                    continue;
                }
                shape_case sc;
                random_shape(rng, op, dtypes[e], r, axis, n++, &sc);
                if (split) {
                    grow_for_split(rng, &sc);
                }
                run_shape(ctx, rng, &sc, paths, npaths, SIZE_MAX);
            }
            turn++;
        }
    }
}

/* Gather inner blocks of k elements of every size: units of 1 to 16
 * bytes, odd blocks, blocks of 64 bytes and more (narrower units on CPUs)
 * and one of 4097 bytes (rows wider than one CPU work-group). On the split
 * path every block of 1-byte elements, and blocks of 1 and 3 elements of
 * the other sizes; under CLG_TEST_QUICK=1 each block with one size, in
 * turn. */
static void run_inner_blocks(clg_context *ctx, clg_test_rng *rng,
                             const path *paths, size_t npaths, int split)
{
    static const int64_t ks[] = {1, 2, 3,  4,  5,  6,  7,
                                 8, 9, 12, 16, 17, 33, 64};
    int flip = 0;
    for (size_t e = 0; e < CLG_TEST_ARRAY_LEN(dtypes); e++) {
        for (size_t i = 0; i < CLG_TEST_ARRAY_LEN(ks); i++) {
            if ((split && e > 0 && ks[i] != 1 && ks[i] != 3) ||
                (quick && e != i % CLG_TEST_ARRAY_LEN(dtypes))) {
                continue;
            }
            int64_t row = ks[i] * (int64_t)clg_test_dtype_size(dtypes[e]);
            int64_t outer = split ? SPLIT_MIN / (3 * row) + 1 : 2;
            int64_t n = split ? SPLIT_MIN / (outer * row) + 2 : 4;
            shape_case sc;
            unit_shape(dtypes[e], ks[i], outer, n, flip ^= 1, &sc);
            run_shape(ctx, rng, &sc, paths, npaths, SIZE_MAX);
        }
    }
    shape_case wide;
    unit_shape(CLG_DTYPE_UINT8, 4097, 1, 3, 0, &wide);
    run_shape(ctx, rng, &wide, paths, npaths, SIZE_MAX);
}

/* GatherElements shapes the random ones may miss: rows wider than a CPU
 * strip (1 KiB), ragged on both sides of the axis (offset lists), and an
 * indices axis longer than data's. */
static void run_elements_special(clg_context *ctx, clg_test_rng *rng,
                                 const path *paths, size_t npaths)
{
    /* clang-format off */
    static const struct { clg_dtype dtype; size_t rank; int64_t axis;
                          int64_t shape[4], idx[4]; } cases[] = {
        {CLG_DTYPE_COMPLEX128, 2, 0, {3, 70}, {2, 70}},
        {CLG_DTYPE_UINT8, 2, -2, {2, 1100}, {3, 1030}},
        {CLG_DTYPE_FLOAT, 2, 0, {4, 300}, {5, 257}},
        {CLG_DTYPE_FLOAT16, 4, 1, {3, 4, 5, 6}, {2, 7, 4, 5}},
        {CLG_DTYPE_DOUBLE, 4, -2, {5, 3, 4, 6}, {4, 2, 9, 5}},
        {CLG_DTYPE_UINT8, 4, 0, {2, 5, 4, 7}, {3, 4, 3, 6}},
        {CLG_DTYPE_COMPLEX128, 3, 2, {4, 5, 3}, {3, 4, 8}},
    };
    /* clang-format on */
    for (size_t i = 0; i < CLG_TEST_ARRAY_LEN(cases); i++) {
        shape_case sc;
        memset(&sc, 0, sizeof sc);
        sc.op = CLG_OP_GATHER_ELEMENTS;
        sc.dtype = cases[i].dtype;
        sc.rank = sc.idx_rank = cases[i].rank;
        sc.axis = cases[i].axis;
        memcpy(sc.shape, cases[i].shape, sizeof cases[i].shape);
        memcpy(sc.idx_shape, cases[i].idx, sizeof cases[i].idx);
        sc.kind = "elements rows";
        run_shape(ctx, rng, &sc, paths, npaths, SIZE_MAX);
    }
}

/* More than 65536 indices (checked by the device, in place, on hosts that
 * share memory): valid, and bad ones first, last and anywhere. */
static void run_many_indices(clg_context *ctx, clg_test_rng *rng,
                             const path *paths, size_t npaths,
                             size_t max_patterns)
{
    shape_case g, e;
    memset(&g, 0, sizeof g);
    g.op = CLG_OP_GATHER;
    g.dtype = CLG_DTYPE_UINT8;
    g.rank = 1;
    g.shape[0] = 5;
    g.idx_rank = 1;
    g.idx_shape[0] = 70001;
    g.kind = "many indices";
    run_shape(ctx, rng, &g, paths, npaths, max_patterns);
    memset(&e, 0, sizeof e);
    e.op = CLG_OP_GATHER_ELEMENTS;
    e.dtype = CLG_DTYPE_FLOAT16;
    e.rank = e.idx_rank = 2;
    e.axis = 0;
    e.shape[0] = 3;
    e.shape[1] = 300;
    e.idx_shape[0] = 230;
    e.idx_shape[1] = 299;
    e.kind = "many indices";
    run_shape(ctx, rng, &e, paths, npaths, max_patterns);
}

/* Empty tensors (no kernel; the pointers point at a guard page) and an
 * empty axis (every index is bad). */
static void run_empty(clg_context *ctx, clg_test_rng *rng, const path *paths,
                      size_t npaths)
{
    /* clang-format off */
    static const struct { clg_op op; size_t rank, idx_rank;
                          int64_t axis, shape[2], idx[2]; } cases[] = {
        {CLG_OP_GATHER, 2, 1, 1, {3, 4}, {0}},
        {CLG_OP_GATHER, 2, 1, 1, {0, 4}, {3}},
        {CLG_OP_GATHER, 2, 1, -1, {3, 0}, {2}},
        {CLG_OP_GATHER, 1, 0, 0, {0}, {0}},
        {CLG_OP_GATHER_ELEMENTS, 2, 2, 0, {3, 4}, {0, 4}},
        {CLG_OP_GATHER_ELEMENTS, 2, 2, 1, {3, 0}, {2, 3}},
    };
    /* clang-format on */
    for (size_t i = 0; i < CLG_TEST_ARRAY_LEN(cases); i++) {
        shape_case sc;
        memset(&sc, 0, sizeof sc);
        sc.op = cases[i].op;
        sc.dtype = CLG_DTYPE_FLOAT;
        sc.rank = cases[i].rank;
        sc.idx_rank = cases[i].idx_rank;
        sc.axis = cases[i].axis;
        memcpy(sc.shape, cases[i].shape, sizeof cases[i].shape);
        memcpy(sc.idx_shape, cases[i].idx, sizeof cases[i].idx);
        sc.kind = "empty";
        run_shape(ctx, rng, &sc, paths, npaths, SIZE_MAX);
    }
}

/* GatherND: every (data rank 1..4, batch_dims b, tuple length k), each
 * with two element sizes in turn (on the split path and under
 * CLG_TEST_QUICK=1 one), 0 to 2 tuple dims (on the split path 1 or 2,
 * grown past the cap); then the empty cases. */
static void run_nd(clg_context *ctx, clg_test_rng *rng, const path *paths,
                   size_t npaths, int split)
{
    size_t turn = 0;
    for (size_t r = 1; r <= 4; r++) {
        for (size_t b = 0; b < r; b++) {
            for (size_t k = 1; k <= r - b; k++, turn++) {
                for (size_t j = 0; j < (split || quick ? 1 : 2); j++) {
                    clg_dtype dt =
                        dtypes[(turn + 2 * j) % CLG_TEST_ARRAY_LEN(dtypes)];
                    size_t m = split ? 1 + turn % 2 : (turn + j) % 3;
                    shape_case sc;
                    nd_shape(rng, dt, r, b, k, m, &sc);
                    if (split) {
                        grow_nd_for_split(rng, &sc);
                    }
                    run_shape(ctx, rng, &sc, paths, npaths, SIZE_MAX);
                }
            }
        }
    }
    /* clang-format off */
    static const struct { size_t rank, idx_rank; int64_t b, shape[2],
                          idx[3]; } cases[] = {
        {2, 2, 0, {3, 4}, {0, 1}},    /* no tuples */
        {2, 3, 1, {0, 4}, {0, 2, 1}}, /* an empty batch */
        {2, 2, 0, {3, 0}, {2, 1}},    /* empty slices */
        {2, 2, 0, {0, 4}, {2, 1}},    /* a component's dim of size 0 */
        {2, 3, 1, {2, 3}, {2, 0, 1}}, /* no tuples in each batch */
    };
    /* clang-format on */
    for (size_t i = 0; i < CLG_TEST_ARRAY_LEN(cases); i++) {
        shape_case sc;
        memset(&sc, 0, sizeof sc);
        sc.op = CLG_OP_GATHER_ND;
        sc.dtype = CLG_DTYPE_FLOAT;
        sc.rank = cases[i].rank;
        sc.idx_rank = cases[i].idx_rank;
        sc.axis = cases[i].b;
        memcpy(sc.shape, cases[i].shape, sizeof cases[i].shape);
        memcpy(sc.idx_shape, cases[i].idx, sizeof cases[i].idx);
        sc.kind = "empty";
        run_shape(ctx, rng, &sc, paths, npaths, SIZE_MAX);
    }
}

/* ------------------------------------------------------------ tests */

static const path whole_paths[2] = {PATH_HOST, PATH_BUFFERS};

/* Gather, data ranks 1 to 3 with every axis. */
static void test_gather(void **state)
{
    clg_context *ctx = *state;
    clg_test_rng rng = {seed};
    if (!(parts & PART_GATHER))
        return;
    install_fault_handler();
    run_rank_axis(ctx, &rng, CLG_OP_GATHER, whole_paths, 2, 0, 1, 3);
}

/* Gather, data rank 4 with every axis, and the inner blocks. */
static void test_gather_rank4(void **state)
{
    clg_context *ctx = *state;
    clg_test_rng rng = {seed ^ 0x4};
    if (!(parts & PART_GATHER_RANK4))
        return;
    install_fault_handler();
    run_rank_axis(ctx, &rng, CLG_OP_GATHER, whole_paths, 2, 0, 4, 4);
    run_inner_blocks(ctx, &rng, whole_paths, 2, 0);
}

/* GatherElements, data ranks 1 to 3 with every axis. */
static void test_gather_elements(void **state)
{
    clg_context *ctx = *state;
    clg_test_rng rng = {seed ^ 0xe1e};
    if (!(parts & PART_ELEMENTS))
        return;
    install_fault_handler();
    run_rank_axis(ctx, &rng, CLG_OP_GATHER_ELEMENTS, whole_paths, 2, 0, 1, 3);
}

/* GatherElements, data rank 4 with every axis, and the special rows. */
static void test_gather_elements_rank4(void **state)
{
    clg_context *ctx = *state;
    clg_test_rng rng = {seed ^ 0xe1e4};
    if (!(parts & PART_ELEMENTS_RANK4))
        return;
    install_fault_handler();
    run_rank_axis(ctx, &rng, CLG_OP_GATHER_ELEMENTS, whole_paths, 2, 0, 4, 4);
    run_elements_special(ctx, &rng, whole_paths, 2);
}

static void test_many_and_empty(void **state)
{
    clg_context *ctx = *state;
    clg_test_rng rng = {seed ^ 0xb16};
    if (!(parts & PART_MANY))
        return;
    install_fault_handler();
    run_many_indices(ctx, &rng, whole_paths, 2, SIZE_MAX);
    run_empty(ctx, &rng, whole_paths, 2);
}

/* A context created with CLGATHER_MAX_ALLOC=1024 (the environment is
 * restored after): every case here is cut into pieces and windows. */
static clg_context *split_context(void)
{
    clg_context *ctx = NULL;
    clg_status st = clg_test_context_with_env(&ctx, "CLGATHER_MAX_ALLOC",
                                              SPLIT_CAP);
    CLG_ASSERT_OK(NULL, st);
    assert_int_equal(clg_context_max_alloc_size(ctx), SPLIT_CAP_BYTES);
    install_fault_handler();
    return ctx;
}

/* The split path, Gather: every rank and axis, and the inner blocks. */
static void test_split_gather(void **state)
{
    (void)state;
    static const path split_path[1] = {PATH_SPLIT};
    if (!(parts & PART_SPLIT_GATHER))
        return;
    clg_context *ctx = split_context();
    clg_test_rng rng = {seed ^ 0x5b117};
    run_rank_axis(ctx, &rng, CLG_OP_GATHER, split_path, 1, 1, 1, 4);
    run_inner_blocks(ctx, &rng, split_path, 1, 1);
    clg_context_destroy(ctx);
}

/* The split path, GatherElements, and both operators' many indices and
 * empty tensors. */
static void test_split_elements(void **state)
{
    (void)state;
    static const path split_path[1] = {PATH_SPLIT};
    if (!(parts & PART_SPLIT_ELEMENTS))
        return;
    clg_context *ctx = split_context();
    clg_test_rng rng = {seed ^ 0x5b11e};
    run_rank_axis(ctx, &rng, CLG_OP_GATHER_ELEMENTS, split_path, 1, 1, 1, 4);
    run_elements_special(ctx, &rng, split_path, 1);
    run_many_indices(ctx, &rng, split_path, 1, 3);
    run_empty(ctx, &rng, split_path, 1);
    clg_context_destroy(ctx);
}

/* GatherND on the three paths (the split one on a context of its own). */
static void test_nd(void **state)
{
    clg_context *ctx = *state;
    static const path split_path[1] = {PATH_SPLIT};
    clg_test_rng rng = {seed ^ 0x9d};
    if (!(parts & PART_ND))
        return;
    install_fault_handler();
    run_nd(ctx, &rng, whole_paths, 2, 0);
    clg_context *split = split_context();
    run_nd(split, &rng, split_path, 1, 1);
    clg_context_destroy(split);
}

/* 1 when the parts that ran cover path p with operator op. */
static int covered(int p, int op)
{
    if (op == CLG_OP_GATHER_ND)
        return (parts & PART_ND) != 0;
    if (p == PATH_SPLIT)
        return (parts & PART_SPLIT_ELEMENTS) ||
               (op == CLG_OP_GATHER && (parts & PART_SPLIT_GATHER));
    return (parts & PART_MANY) ||
           (parts &
            (op == CLG_OP_GATHER ? PART_GATHER | PART_GATHER_RANK4
                                 : PART_ELEMENTS | PART_ELEMENTS_RANK4));
}

/* Reached only if no call faulted: prints the count and checks that every
 * path the parts ran (all three when all ran) ran both operators (the
 * gather and elements parts: one), with failing and succeeding calls. */
static void test_summary(void **state)
{
    (void)state;
    size_t total = 0, bad = 0;
    for (int p = 0; p < 3; p++) {
        for (int op = 0; op < 3; op++) {
            print_message("%s, %s: %zu calls, %zu of them failing\n",
                          path_names[p], clg_op_name((clg_op)op), calls[p][op],
                          failing[p][op]);
            if (!covered(p, op)) {
                assert_int_equal(calls[p][op], 0);
                continue;
            }
            assert_true(calls[p][op] > failing[p][op]);
            assert_true(failing[p][op] > 0);
            total += calls[p][op];
            bad += failing[p][op];
        }
    }
    print_message("split path: %zu calls had a tensor over the %d-byte "
                  "cap\n",
                  split_cut, SPLIT_CAP_BYTES);
    for (int m = 0; m < 4; m++) {
        print_message("--oob %s: %zu calls\n",
                      clg_oob_mode_name((clg_oob_mode)m), mode_calls[m]);
        assert_true(mode_calls[m] > 0);
    }
    assert_true(split_cut > 0 ||
                !(parts & (PART_SPLIT_GATHER | PART_SPLIT_ELEMENTS)));
    print_message("device buffers: the kernel wrote the guarded memory in "
                  "place in %zu of %zu successful calls\n",
                  buffers_in_place, buffers_ok);
    const char *plan = getenv("CLGATHER_TEST_PLAN");
    print_message("guard pages: %zu cases run (%zu failing), 0 faults "
                  "(%s plan%s, CLG_TEST_SEED=%" PRIu64
                  ", parts %s%s%s%s%s%s%s%s)\n",
                  total, bad, plan != NULL && plan[0] ? plan : "device",
                  quick ? ", CLG_TEST_QUICK=1" : "", seed,
                  parts & PART_GATHER ? "gather " : "",
                  parts & PART_GATHER_RANK4 ? "gather_rank4 " : "",
                  parts & PART_ELEMENTS ? "elements " : "",
                  parts & PART_ELEMENTS_RANK4 ? "elements_rank4 " : "",
                  parts & PART_MANY ? "many " : "",
                  parts & PART_SPLIT_GATHER ? "split_gather " : "",
                  parts & PART_SPLIT_ELEMENTS ? "split_elements " : "",
                  parts & PART_ND ? "nd" : "");
}

/* CLG_TEST_PART: the part to run; unset or empty: all. */
static int read_parts(void)
{
    const char *v = getenv("CLG_TEST_PART");
    if (v == NULL || v[0] == '\0')
        return 1;
    for (unsigned i = 0; i < PART_COUNT; i++)
        if (strcmp(v, part_names[i]) == 0) {
            parts = 1u << i;
            return 1;
        }
    fprintf(stderr,
            "CLG_TEST_PART=%s: not gather, gather_rank4, elements, "
            "elements_rank4, many, split_gather, split_elements or nd\n",
            v);
    return 0;
}

int main(void)
{
    seed = clg_test_seed(DEFAULT_SEED);
    quick = clg_test_quick();
    if (!read_parts())
        return 2;
    long ps = sysconf(_SC_PAGESIZE);
    assert_true(ps > 0);
    page = (size_t)ps;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gather),
        cmocka_unit_test(test_gather_rank4),
        cmocka_unit_test(test_gather_elements),
        cmocka_unit_test(test_gather_elements_rank4),
        cmocka_unit_test(test_many_and_empty),
        cmocka_unit_test(test_split_gather),
        cmocka_unit_test(test_split_elements),
        cmocka_unit_test(test_nd),
        cmocka_unit_test(test_summary),
    };
    return CLG_RUN_DEVICE_TESTS(tests);
}
