/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Literal cases shared by the unit tests (CPU reference, no device) and the
 * device tests: the examples of the ONNX Gather and GatherElements pages,
 * the inputs that broke other engines, and one case per invalid-input
 * class with the status and the message fragments it must produce.
 */
#ifndef CLG_TEST_CASES_H
#define CLG_TEST_CASES_H

#include "clg_test.h"

/* A valid call and its expected output, written out by hand. Index values
 * are listed as int64; a case runs with INT64 indices and, when every value
 * fits, with INT32 indices too. */
typedef struct clg_test_case {
    const char *name;
    clg_op op;
    clg_dtype dtype;
    size_t rank;
    const int64_t *shape;
    const void *data;
    size_t idx_rank; /* 0: a scalar index */
    const int64_t *idx_shape;
    const int64_t *idx;
    int64_t axis;
    size_t out_rank;
    const int64_t *out_shape;
    const void *out;
} clg_test_case;

extern const clg_test_case clg_test_cases[];
extern const size_t clg_test_case_count;

/* How an error case damages an otherwise well-formed call. */
typedef enum clg_test_mutation {
    CLG_MUT_NONE = 0,
    CLG_MUT_DATA_NULL,          /* data descriptor pointer NULL */
    CLG_MUT_INDICES_NULL,       /* indices descriptor pointer NULL */
    CLG_MUT_OUTPUT_NULL,        /* output descriptor pointer NULL */
    CLG_MUT_DATA_SHAPE_NULL,    /* data->shape NULL with rank > 0 */
    CLG_MUT_INDICES_SHAPE_NULL, /* indices->shape NULL with rank > 0 */
    CLG_MUT_OUTPUT_SHAPE_NULL,  /* output->shape NULL with rank > 0 */
    CLG_MUT_DATA_PTR_NULL,      /* data->data NULL, data not empty */
    CLG_MUT_INDICES_PTR_NULL,   /* indices->data NULL, indices not empty */
    CLG_MUT_OUTPUT_PTR_NULL     /* output->data NULL, output not empty */
} clg_test_mutation;

/* An invalid call. The output descriptor is given explicitly (out_dtype,
 * out_rank, out_shape) so that wrong output descriptors are cases too.
 * Data elements are filled with a byte pattern; index values as listed. */
typedef struct clg_test_error_case {
    const char *name;
    clg_op op;
    clg_dtype dtype;
    size_t rank;
    const int64_t *shape;
    clg_dtype idx_dtype;
    size_t idx_rank;
    const int64_t *idx_shape;
    const int64_t *idx; /* count(idx_shape) values, or NULL */
    int64_t axis;
    clg_dtype out_dtype;
    size_t out_rank;
    const int64_t *out_shape;
    clg_test_mutation mutation;
    clg_status status;
    /* 1 when the output-shape helpers must give the same status (the error
     * lies in data/indices shapes, dtypes, ranks or the axis). */
    int shape_level;
    /* Fragments the message must contain; NULL-terminated. A fragment of
     * the form "a|b" is satisfied by either alternative. */
    const char *msg[5];
} clg_test_error_case;

extern const clg_test_error_case clg_test_error_cases[];
extern const size_t clg_test_error_case_count;

/* Runs a literal case with the given index dtype.
 * - ctx NULL: CPU reference with a NULL context only (no device);
 * - ctx set: device, and the reference with that ctx.
 * Every output is compared bit for bit with the literal and the oracle;
 * the output guard zones must be intact. Returns 0 when the case was
 * skipped because an index does not fit INT32, else 1. */
int clg_test_run_case(clg_context *ctx, const clg_test_case *c,
                      clg_dtype idx_dtype);

/* Paths an error case runs on. */
typedef enum clg_test_path {
    CLG_TEST_ON_REFERENCE =
        0, /* clg_reference_* with the given ctx (may be NULL) */
    CLG_TEST_ON_DEVICE = 1 /* clg_gather / clg_gather_elements */
} clg_test_path;

/* Runs an error case: asserts the status, the message fragments (from
 * clg_context_last_error(ctx)) and that the pre-filled output (0xAB) and
 * its guard zones are unchanged. */
void clg_test_run_error_case(clg_context *ctx, const clg_test_error_case *c,
                             clg_test_path path);

/* Asserts that the message contains every fragment of `msg`. */
void clg_test_check_fragments(const char *message, const char *const *msg,
                              const char *file, int line);

#endif /* CLG_TEST_CASES_H */
