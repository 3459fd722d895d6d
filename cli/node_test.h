/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Internal to the `clgather` executable: ONNX backend node-test
 * directories (model.onnx + test_data_set_N/input_N.pb, output_0.pb), read
 * the same way by `clgather onnx-test` and `clgather compare`, and the one
 * operator call a command makes, on a device or on the CPU reference.
 */
#ifndef CLG_CLI_NODE_TEST_H
#define CLG_CLI_NODE_TEST_H

#include <stddef.h>
#include <stdint.h>

#include <clgather/clgather.h>

#include "io_tensor.h"
#include "onnx_io.h"

/* Longest path a node test may have, terminating NUL included: a path
 * that does not fit is an error, never cut short (it could name another
 * file). */
#define CLG_NODE_PATH_CAP 4096

/* One operator call: the operator, its attribute and its operands
 * (borrowed views). */
typedef struct clg_cli_call {
    clg_op op;
    int64_t axis; /* the operator's int64 attribute (clg_op_attribute) */
    clg_tensor data, indices;
    clg_oob_mode oob; /* out-of-range mode (--oob; raise by default) */
} clg_cli_call;

/* The output shape of the call (clg_output_shape), at most CLG_MAX_RANK
 * dimensions. */
clg_status clg_cli_call_output_shape(const clg_cli_call *call, int64_t *shape,
                                     size_t *rank);

/* The output shape of the call, as clg_cli_call_output_shape, once the
 * index values are known to be worth an output that size. Gather's output
 * is a product of its inputs' sizes: a 13-byte file claiming data
 * [0, 100000000] and four indices asks for 1.6 GB, although no index can
 * be valid. When the output would hold more elements than the indices,
 * the CPU reference first runs the same indices against the same axis
 * size on a reduced call: data's other dimensions set to 1 (same memory,
 * fewer elements read), so that its output is no larger than the indices.
 * When that call refuses an index (INDEX_OUT_OF_RANGE), every conforming
 * implementation refuses the full call the same way, with the same
 * message: *call becomes the reduced call (its data shape in
 * data_shape[CLG_MAX_RANK], which must outlive it) and shape and rank are
 * its output's, so that the command runs and reports the refusal without
 * allocating the full output (docs/design.md, "Tensor files"). Returns the
 * status of clg_cli_call_output_shape on the call as given. */
clg_status clg_cli_call_prepare(clg_cli_call *call, int64_t *data_shape,
                                int64_t *shape, size_t *rank);

/* The host-memory call on ctx's device, or the CPU reference (ctx may then
 * be NULL), into out, under the call's out-of-range mode. */
clg_status clg_cli_call_device(clg_context *ctx, const clg_cli_call *call,
                               const clg_tensor *out);
clg_status clg_cli_call_reference(clg_context *ctx, const clg_cli_call *call,
                                  const clg_tensor *out);

/* A node-test directory once opened: its path as given less trailing
 * slashes, its model, and its test_data_set_* folders in numeric order. */
typedef struct clg_node_dir {
    char path[CLG_NODE_PATH_CAP];
    clg_onnx_model model;
    char **sets; /* malloc'd names ("test_data_set_0"), nsets of them */
    size_t nsets;
    /* When opening failed because model.onnx holds a node of another
     * operator (another operator's test): 1, and what the graph is
     * (clg_onnx_model_other_operator). */
    int other_operator;
    char other_what[512];
} clg_node_dir;

/* Opens `arg`: checks it is a directory, reads its model.onnx, lists its
 * data sets (at least one). Returns CLG_EXIT_OK, or CLG_EXIT_ERROR with
 * the reason in msg ("no such directory", "not a directory", the model
 * reader's message, "no test_data_set_* directories", ...), and
 * d->other_operator set when the model is another operator's; d->path is
 * then "" when arg itself does not fit. Free d with clg_node_dir_free
 * either way. */
int clg_node_dir_open(const char *arg, clg_node_dir *d, char *msg, size_t cap);
void clg_node_dir_free(clg_node_dir *d);

/* One data set: its input_<k>.pb and, when present, its output_0.pb. */
typedef struct clg_node_set {
    clg_io_tensor *inputs; /* the model's input_count of them */
    size_t input_count;
    clg_io_tensor expected;
    int have_expected; /* output_0.pb was there */
} clg_node_set;

void clg_node_set_init(clg_node_set *s);
void clg_node_set_free(clg_node_set *s);

/* Reads data set `set` of d into s (freed first). Returns CLG_EXIT_OK, or
 * CLG_EXIT_ERROR with the reader's message in msg. */
int clg_node_set_read(const clg_node_dir *d, const char *set, clg_node_set *s,
                      char *msg, size_t cap);

/* The model's call on the set: its operands from the set's inputs or the
 * model's initializers. */
clg_cli_call clg_node_set_call(const clg_onnx_model *m, const clg_node_set *s);

#endif /* CLG_CLI_NODE_TEST_H */
