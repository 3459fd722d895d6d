/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Shared helpers for the clgather cmocka tests.
 *
 * - Assertions that, on failure, print the status name, the context's last
 *   error message and its build log (CLG_ASSERT_OK / CLG_ASSERT_STATUS),
 *   byte-exact comparisons with a hex dump of the first difference
 *   (CLG_ASSERT_BYTES) and message checks (CLG_ASSERT_CONTAINS).
 * - Owned host tensors with guard zones before and after the payload, so a
 *   write outside a buffer is caught.
 * - A naive oracle written from the ONNX formulas with full multi-indices
 *   (independent of both the library's plan and its reference).
 * - A small PRNG (splitmix64) and the seed policy (CLG_TEST_SEED).
 * - The device group fixture: creates one context per binary; exits 77
 *   only when no OpenCL device exists at all.
 */
#ifndef CLG_TEST_H
#define CLG_TEST_H

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <clgather/clgather.h>

#define CLG_TEST_ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* ------------------------------------------------------------ context text */

/* A one-line description of what the test is doing now (case number, seed,
 * shapes); printed by every failing assertion below. printf-style. */
void clg_test_set_case(const char *fmt, ...) CMOCKA_PRINTF_ATTRIBUTE(1, 2);
const char *clg_test_case_text(void);

/* ------------------------------------------------------------- assertions */

/* Fails the test unless got == want; on failure prints both status names,
 * clg_context_last_error(ctx) and, for a non-NULL ctx, the build log. */
void clg_test_check_status(const clg_context *ctx, clg_status got,
                           clg_status want, const char *expr, const char *file,
                           int line);
#define CLG_ASSERT_STATUS(ctx, expr, want)                                    \
    clg_test_check_status((ctx), (expr), (want), #expr, __FILE__, __LINE__)
#define CLG_ASSERT_OK(ctx, expr) CLG_ASSERT_STATUS(ctx, expr, CLG_STATUS_OK)

/* Fails unless the n bytes at got and want are identical (memcmp); prints
 * the first differing byte and the elements around it. */
void clg_test_check_bytes(const void *got, const void *want, size_t n,
                          size_t elem_size, const char *what, const char *file,
                          int line);
#define CLG_ASSERT_BYTES(got, want, n, elem_size, what)                       \
    clg_test_check_bytes((got), (want), (n), (elem_size), (what), __FILE__,   \
                         __LINE__)

/* Fails unless `needle` occurs in `haystack` (both non-NULL). */
void clg_test_check_contains(const char *haystack, const char *needle,
                             const char *file, int line);
#define CLG_ASSERT_CONTAINS(haystack, needle)                                 \
    clg_test_check_contains((haystack), (needle), __FILE__, __LINE__)

/* Fails unless every byte of [p, p+n) equals `value`. */
void clg_test_check_filled(const void *p, size_t n, unsigned char value,
                           const char *what, const char *file, int line);
#define CLG_ASSERT_FILLED(p, n, value, what)                                  \
    clg_test_check_filled((p), (n), (value), (what), __FILE__, __LINE__)

/* Fails unless the two shapes are equal (rank and dimensions). */
void clg_test_check_shape(const int64_t *got, size_t got_rank,
                          const int64_t *want, size_t want_rank,
                          const char *file, int line);
#define CLG_ASSERT_SHAPE(got, got_rank, want, want_rank)                      \
    clg_test_check_shape((got), (got_rank), (want), (want_rank), __FILE__,    \
                         __LINE__)

/* ------------------------------------------------------------ dtypes */

/* Element size in bytes, from the test's own table (not the library's):
 * 0 for values that are not ONNX data types. */
size_t clg_test_dtype_size(clg_dtype dtype);
/* 1 for FLOAT, DOUBLE, FLOAT16, BFLOAT16, COMPLEX64, COMPLEX128. */
int clg_test_dtype_is_float(clg_dtype dtype);
extern const clg_dtype clg_test_all_dtypes[16];

/* Number of elements of a shape (1 for rank 0); negative dims count as 0. */
int64_t clg_test_count(const int64_t *shape, size_t rank);

/* "[2, 3, 4]" into buf. */
const char *clg_test_shape_str(const int64_t *shape, size_t rank, char *buf,
                               size_t size);

/* ------------------------------------------------------------ tensors */

/* Bytes kept before and after every payload, filled with this value. */
#define CLG_TEST_GUARD 64
#define CLG_TEST_GUARD_BYTE 0x5A

/* A host tensor that owns its shape and its memory. The payload sits at
 * `misalign` bytes past a 64-byte aligned address, between guard zones. */
typedef struct clg_test_tensor {
    clg_tensor t;
    int64_t shape[CLG_MAX_RANK + 8];
    unsigned char *alloc;
    size_t bytes; /* payload bytes */
    size_t misalign;
} clg_test_tensor;

/* Allocates count(shape) * size(dtype) bytes (dims < 0 count as 0, unknown
 * dtypes as 16 bytes), fills the payload with `fill`, the guards with
 * CLG_TEST_GUARD_BYTE. rank may exceed CLG_MAX_RANK by up to 8 (for
 * invalid-rank tests). */
void clg_test_tensor_init(clg_test_tensor *tt, clg_dtype dtype, size_t rank,
                          const int64_t *shape, size_t misalign,
                          unsigned char fill);
void clg_test_tensor_free(clg_test_tensor *tt);
/* Fails unless both guard zones are intact. */
void clg_test_check_guards(const clg_test_tensor *tt, const char *what,
                           const char *file, int line);
#define CLG_ASSERT_GUARDS(tt, what)                                           \
    clg_test_check_guards((tt), (what), __FILE__, __LINE__)

/* Stores int64 values into an INT32 or INT64 tensor (truncating to int32
 * for INT32; callers check the range), or as floats for a FLOAT tensor. */
void clg_test_store_indices(clg_test_tensor *tt, const int64_t *values,
                            size_t count);
/* Reads element i of an INT32 or INT64 tensor. */
int64_t clg_test_index_at(const clg_tensor *t, int64_t i);

/* ------------------------------------------------------------ oracle */

/* The operators are the library's clg_op (CLG_OP_TABLE). */

/* The position index value v selects on an axis of size s > 0 under an
 * out-of-range mode, or -1 for none, straight from the formulas of the
 * header: raise and fill accept [-s, s-1] only; wrap is v mod s into
 * [0, s-1]; clip clamps into [-s, s-1], then adds s to a negative. */
int64_t clg_test_oob_position(int64_t v, int64_t s, clg_oob_mode mode);

/* Where the oracle found the first out-of-range index (row-major order;
 * for GatherND the position of the component, its last subscript). */
typedef struct clg_test_bad_index {
    char position[8 + 24 * (CLG_MAX_RANK +
                            1)]; /* "indices[1][2]"; "indices" for a scalar */
    int64_t value;
    int64_t lo, hi; /* the valid range [-s, s-1] */
    size_t dim;     /* the data dim it selects on */
} clg_test_bad_index;

/* In what follows `attr` is the operator's int64 attribute (CLG_OP_TABLE):
 * the axis of Gather and GatherElements, batch_dims of GatherND. */

/* Output shape of an op on valid inputs (attr in range). Returns the
 * rank. */
size_t clg_test_output_shape(clg_op op, const clg_tensor *data,
                             const clg_tensor *indices, int64_t attr,
                             int64_t *shape);

/* Naive op on inputs whose shapes, dtypes and attr are valid: returns OK
 * and writes the output (count(output) * size bytes into out), or returns
 * INDEX_OUT_OF_RANGE, fills *bad and writes nothing. Under raise. */
clg_status clg_test_oracle(clg_op op, const clg_tensor *data,
                           const clg_tensor *indices, int64_t attr, void *out,
                           clg_test_bad_index *bad);

/* The same under an out-of-range mode: wrap and clip resolve each value
 * (each tuple component for GatherND) with clg_test_oob_position, fill
 * writes zero bytes for an element (GatherND: a whole slice) whose value
 * (any of whose components) is out of range. With an index axis (GatherND:
 * a tuple component's dim) of size 0 and a non-empty output, every mode
 * gives INDEX_OUT_OF_RANGE; *bad is then filled under raise only. */
clg_status clg_test_oracle_mode(clg_op op, const clg_tensor *data,
                                const clg_tensor *indices, int64_t attr,
                                clg_oob_mode mode, void *out,
                                clg_test_bad_index *bad);

/* Calls the library: device (ctx non-NULL, reference 0; a successful
 * call must have run on the device, clg_test_device_only), reference. */
clg_status clg_test_call(clg_op op, clg_context *ctx, int reference,
                         const clg_tensor *data, const clg_tensor *indices,
                         int64_t attr, const clg_tensor *output);

/* The same through the _ex functions with options.oob = mode (under raise
 * exactly clg_test_call). */
clg_status clg_test_call_mode(clg_op op, clg_context *ctx, int reference,
                              const clg_tensor *data,
                              const clg_tensor *indices, int64_t attr,
                              clg_oob_mode mode, const clg_tensor *output);

/* ------------------------------------------------------------ PRNG */

typedef struct clg_test_rng {
    uint64_t state;
} clg_test_rng;

uint64_t clg_test_rng_next(clg_test_rng *rng);
/* Uniform in [lo, hi] (inclusive), lo <= hi. */
int64_t clg_test_rng_range(clg_test_rng *rng, int64_t lo, int64_t hi);
void clg_test_rng_bytes(clg_test_rng *rng, void *p, size_t n);

/* The seed: CLG_TEST_SEED from the environment (decimal or 0x hex) if set,
 * else `fallback`. Printed as "CLG_TEST_SEED=<n>" so a run can be redone. */
uint64_t clg_test_seed(uint64_t fallback);

/* 1 under CLG_TEST_QUICK=1: the longest device tests run fewer cases,
 * index patterns and element sizes per shape (the same entry points and
 * paths), for runs under a checking simulator that executes every
 * work-item (ci/oclgrind.sh) or under ThreadSanitizer (ci/tsan.sh); 0 when
 * unset, empty or "0". Exits on another value. */
int clg_test_quick(void);

/* ------------------------------------------------------------ device */

/* 1 when ctx's device offers out-of-order command queues
 * (CL_DEVICE_QUEUE_PROPERTIES); fails the test when it cannot say. */
int clg_test_has_out_of_order(const clg_context *ctx);

/* A read-write buffer of ctx's cl_context holding `bytes` bytes (16 when
 * 0: OpenCL has no empty buffers), filled from `host` when given; fails
 * the test when it cannot be made. */
cl_mem clg_test_buffer(clg_context *ctx, const void *host, size_t bytes);

/* ------------------------------------------------------------ files */

/* The whole file at `path` (malloc'd, one byte more than its *size);
 * fails the test when it cannot be read. */
unsigned char *clg_test_read_file(const char *path, size_t *size);

/* Writes `size` bytes of buf as the whole file at `path` (created or
 * truncated); fails the test when it cannot. */
void clg_test_write_file(const char *path, const void *buf, size_t size);

/* ------------------------------------------------------------ environment */

/* The value of environment variable `name` (malloc'd), NULL when unset:
 * what clg_test_env_restore puts back. */
char *clg_test_env_save(const char *name);

/* Sets `name` back to `saved` (unsets it for NULL) and frees saved;
 * fails the test when it cannot. */
void clg_test_env_restore(const char *name, char *saved);

/* clg_context_create(out, NULL) with environment variable name=value for
 * the creation only (a context reads the environment when it is
 * created), the variable restored after; the status of the creation. */
clg_status clg_test_context_with_env(clg_context **out, const char *name,
                                     const char *value);

/* Turns the tiny-call host path off on ctx (the `host` parameter 0), so
 * that a device test's small calls run the kernels; the device setup and
 * clg_test_context_with_env do it for the contexts they make. */
void clg_test_device_only(clg_context *ctx);

/* Group fixture: creates one context with clg_context_create(&ctx, NULL)
 * (so CLGATHER_DEVICE is honoured) and stores it in *state. Exits 77 when
 * no OpenCL device exists at all; any other failure (including a
 * CLGATHER_DEVICE that matches none of the existing devices) fails. */
int clg_test_device_setup(void **state);
int clg_test_device_teardown(void **state);

/* Runs a device test group with the fixture above. */
int clg_test_run_device_group(const char *name, const struct CMUnitTest *tests,
                              size_t count);
#define CLG_RUN_DEVICE_TESTS(tests)                                           \
    clg_test_run_device_group(#tests, (tests), CLG_TEST_ARRAY_LEN(tests))

#endif /* CLG_TEST_H */
