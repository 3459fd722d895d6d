/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Randomized cases: a spec (op, dtypes, shapes, attribute, mode, pointer
 * offsets),
 * drawn from a seeded PRNG or written by hand, is turned into tensors with
 * random contents; the oracle (clg_test.h) gives the expected output or the
 * expected INDEX_OUT_OF_RANGE, and clg_test_check_random() runs the library
 * and compares bit for bit.
 */
#ifndef CLG_TEST_RANDOM_H
#define CLG_TEST_RANDOM_H

#include "clg_test.h"

#define CLG_TEST_RANDOM_MAX_RANK 8

typedef struct clg_test_spec {
    clg_op op;
    clg_dtype dtype;
    clg_dtype idx_dtype;
    size_t rank;
    int64_t shape[CLG_TEST_RANDOM_MAX_RANK];
    int64_t axis;    /* the attribute: GatherND's batch_dims */
    size_t idx_rank; /* Gather: 0 (scalar) .. 3; GatherElements: rank;
                        GatherND: batch_dims + 1 .. batch_dims + 3 */
    int64_t idx_shape[CLG_TEST_RANDOM_MAX_RANK];
    /* Byte offsets of the payloads from a 64-byte boundary. */
    size_t data_misalign, idx_misalign, out_misalign;
    /* Number of out-of-range index values to plant (0 to 3). */
    int bad;
    clg_oob_mode oob; /* the call's mode (clg_test_random_spec: raise) */
} clg_test_spec;

typedef struct clg_test_random_case {
    clg_test_spec spec;
    clg_test_tensor data, indices;
    int64_t out_shape[2 * CLG_TEST_RANDOM_MAX_RANK];
    size_t out_rank;
    size_t out_bytes;
    clg_status expect;       /* OK or INDEX_OUT_OF_RANGE (from the oracle) */
    unsigned char *expected; /* out_bytes bytes when expect is OK */
    clg_test_bad_index bad;  /* when expect is INDEX_OUT_OF_RANGE */
    unsigned char *data_copy, *idx_copy;
    char *string_pool; /* STRING elements point in here */
    char desc[768];
} clg_test_random_case;

/* Draws spec number i. Every 512 consecutive i cover each combination of
 * op (2) x dtype (16) x index dtype (2) x data rank 1..8 once; axis, shapes,
 * scalar indices, zero-size dims, offsets and planted bad indices are
 * random. Output and data hold fewer than 4096 elements. */
void clg_test_random_spec(clg_test_rng *rng, size_t i, clg_test_spec *spec);

/* The number of (data rank r, batch_dims b, tuple length k) triples that
 * clg_test_random_nd_spec walks: r in 1..5, b in 0..r-1, k in 1..r-b. */
#define CLG_TEST_ND_TRIPLES 35

/* Draws GatherND spec number i: every 128 consecutive i cover each
 * combination of dtype (16) x index dtype (2) x mode (4) once, and every
 * CLG_TEST_ND_TRIPLES consecutive i each triple (r, b, k) once (`axis`
 * holds b). Shapes are random with 0 to 2 tuple dims; zero-size dims
 * (data, batch or tuple dims; an empty tuple dim wherever a component's
 * dim is 0), offsets and planted bad components (often under the modes
 * other than raise) are random. Output and data hold fewer than 4096
 * elements. */
void clg_test_random_nd_spec(clg_test_rng *rng, size_t i, clg_test_spec *spec);

/* The triple (r, b, k) number t (< CLG_TEST_ND_TRIPLES) of the walk. */
void clg_test_nd_triple(size_t t, size_t *r, size_t *b, size_t *k);

/* Makes tensors for a spec: random bytes; float dtypes get NaNs with
 * payloads (quiet and signalling), -0.0, subnormals and infinities mixed
 * in; STRING elements point into a pool that holds NUL bytes. Index values
 * are drawn from [-s, s-1] and `spec->bad` of them replaced by values
 * outside it. Runs the oracle. */
void clg_test_random_case_make(clg_test_rng *rng, const clg_test_spec *spec,
                               clg_test_random_case *rc);
void clg_test_random_case_free(clg_test_random_case *rc);

/* Runs the case on the reference (ctx may be NULL) and, when `device`,
 * on the device (host-memory API), under the spec's mode, and checks:
 * status equals the oracle's;
 * on success outputs equal the oracle's bit for bit; on error the message
 * names the first bad position, its value and the range, and outputs are
 * untouched; guard zones and inputs are unchanged. */
void clg_test_check_random(clg_context *ctx, int device,
                           clg_test_random_case *rc);

#endif /* CLG_TEST_RANDOM_H */
