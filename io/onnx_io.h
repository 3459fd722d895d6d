/* SPDX-License-Identifier: Apache-2.0 */
/*
 * clgather I/O: ONNX TensorProto (.pb) files and single-node Gather /
 * GatherElements models (model.onnx), read with protobuf-c from the C that
 * protoc-c generates at build time out of the onnx.proto installed by
 * Debian's libonnx-dev.
 *
 * TensorProto reading honours dims, data_type, raw_data (little endian) and
 * every typed field: float_data (FLOAT, COMPLEX64), int32_data (INT32 and,
 * packed one per entry, INT16, INT8, UINT16, UINT8, BOOL, FLOAT16 and
 * BFLOAT16 bit patterns), int64_data (INT64), double_data (DOUBLE,
 * COMPLEX128), uint64_data (UINT32, UINT64) and string_data (STRING).
 * External data, segments and data types clgather does not know are
 * CLG_IO_UNSUPPORTED, with a message naming the file and the field.
 *
 * Every reader below first checks how deeply the file's messages nest and
 * refuses, as CLG_IO_UNSUPPORTED, a file nesting deeper than
 * CLG_ONNX_MAX_NESTING: protobuf-c unpacks nested messages by recursion,
 * with no limit of its own (docs/design.md, "Tensor files").
 */
#ifndef CLG_CLI_ONNX_IO_H
#define CLG_CLI_ONNX_IO_H

#include <stddef.h>
#include <stdint.h>

#include "io_tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

/** How many levels of messages a file may nest below its top message:
 *  Google protobuf's default recursion limit, so that every file ONNX's
 *  own tools read is read here too. A model nesting subgraphs
 *  (Graph -> Node -> Attribute -> Graph) takes three levels per subgraph. */
#define CLG_ONNX_MAX_NESTING 100

/** A clg_io_read_bound for protobuf messages (TensorProto .pb files,
 *  model.onnx): walks the top-level fields as they arrive and stops the
 *  read at once at a key or a length that protobuf-c refuses (the decoder
 *  then says the file is malformed), so that a stream of random bytes is
 *  refused within its first fields. A message has no end of its own: a
 *  well-formed one is read to the end of the file. */
size_t clg_onnx_read_bound(const unsigned char *bytes, size_t len,
                           size_t *state);

/** Reads a serialized TensorProto file into *out (freed first). */
clg_io_status clg_onnx_read_tensor(const char *path, clg_io_tensor *out,
                                   clg_io_error *err);

/** Decodes TensorProto bytes held in memory; `name` names them in
 *  messages. */
clg_io_status clg_onnx_decode_tensor(const void *bytes, size_t size,
                                     const char *name, clg_io_tensor *out,
                                     clg_io_error *err);

/** Encodes a tensor as a TensorProto named `tensor_name` (may be NULL):
 *  raw_data (little endian) for every dtype but STRING, which goes to
 *  string_data. *bytes is malloc'd, freed by the caller. */
clg_io_status clg_onnx_encode_tensor(const clg_tensor *t,
                                     const char *tensor_name,
                                     unsigned char **bytes, size_t *size,
                                     clg_io_error *err);

/** Writes a tensor as a TensorProto file. */
clg_io_status clg_onnx_write_tensor(const char *path, const clg_tensor *t,
                                    const char *tensor_name,
                                    clg_io_error *err);

/** Where one operand of the node comes from. */
typedef struct clg_onnx_operand {
    char name[256];      /* the node's input name */
    int input_index;     /* >= 0: from input_<input_index>.pb;
                                -1: an initializer, held in `value` */
    clg_io_tensor value; /* the initializer when input_index is -1 */
    /* What the graph input declares (input_index >= 0): its elem_type
     * (TensorProto.DataType; 0 when the model leaves it out) and its
     * shape, declared_rank dimensions (-1: no shape declared), each a
     * dim_value or -1 for a dim_param or a dimension left unknown. */
    int32_t declared_type;
    int declared_rank;
    int64_t declared_shape[CLG_MAX_RANK];
} clg_onnx_operand;

/** A model reduced to what clgather runs: one node of the default domain
 *  whose op_type is an operator of clgather's table (CLG_OP_TABLE). */
typedef struct clg_onnx_model {
    clg_op op;
    const char *op_type;      /* clg_op_name(op) (static) */
    int64_t opset;            /* opset_import version of "" / "ai.onnx" */
    int op_version;           /* operator version that opset selects
                                (clg_op_version) */
    int64_t axis;             /* the operator's int64 attribute
                                (clg_op_attribute: axis), 0 when absent */
    size_t input_count;       /* graph inputs that are not initializers,
                                matched to input_0.pb, input_1.pb, ... */
    clg_onnx_operand data;    /* node input 0 */
    clg_onnx_operand indices; /* node input 1 */
    char output_name[256];    /* node output 0 (the graph output) */
} clg_onnx_model;

/** Zeroes a model (safe to free). */
void clg_onnx_model_init(clg_onnx_model *m);

/** Releases what a model owns and re-initialises it. Accepts NULL. */
void clg_onnx_model_free(clg_onnx_model *m);

/** Reads model.onnx: exactly one node of the default domain, an operator
 *  of CLG_OP_TABLE at an opset that has it (clg_op_first_opset: Gather
 *  1, GatherElements 11), two inputs, one output, at most the operator's
 *  integer attribute (clg_op_attribute: `axis`). Anything else is
 *  CLG_IO_UNSUPPORTED (or FORMAT_ERROR for a malformed file) with a
 *  message naming the file. *m is freed first. */
clg_io_status clg_onnx_read_model(const char *path, clg_onnx_model *m,
                                  clg_io_error *err);

/** Same, from bytes held in memory; `name` names them in messages. */
clg_io_status clg_onnx_decode_model(const void *bytes, size_t size,
                                    const char *name, clg_onnx_model *m,
                                    clg_io_error *err);

/** Checks a runtime input read from `file` (e.g. "input_0.pb") against
 *  what the model declares for the operand it feeds: the same elem_type
 *  and, where the model declares a shape, the same rank and every
 *  dim_value, as ONNX Runtime checks a session's inputs. CLG_IO_OK, or
 *  CLG_IO_FORMAT_ERROR with a message naming the file, the input and both
 *  types or shapes. */
clg_io_status clg_onnx_check_input(const clg_onnx_operand *op,
                                   const clg_io_tensor *t, const char *file,
                                   clg_io_error *err);

/** 1 when the file at path is a model whose graph holds a node of
 *  an operator outside CLG_OP_TABLE (another operator's node test, its
 *  function expanded into several nodes included, which `clgather
 *  onnx-test` skips), with what it is into `what`: "the node is 'Relu',
 *  not Gather, GatherElements or GatherND", or, for a graph of several
 *  nodes, "the graph has 2 nodes (Gather, Relu), not one Gather,
 *  GatherElements or GatherND node" (the operators named from the table); 0 otherwise: a graph of
 *  the table's operators alone (whatever else is wrong with it), or a
 *  file that cannot be read or decoded. */
int clg_onnx_model_other_operator(const char *path, char *what, size_t cap);

#ifdef __cplusplus
}
#endif

#endif /* CLG_CLI_ONNX_IO_H */
