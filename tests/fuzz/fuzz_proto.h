/*
 * An oracle for the TensorProto reader, written from io/onnx_io.h's rules
 * over the message protobuf-c unpacks, independently of io/onnx_io.c:
 * whether a TensorProto is one the reader must accept, and whether a tensor
 * holds exactly its values.
 */
#ifndef CLG_FUZZ_PROTO_H
#define CLG_FUZZ_PROTO_H

#include <stddef.h>

#include "io_tensor.h"
#include "onnx.pb-c.h"

/* 1 when tp is a tensor clgather reads: inline data (no external data, no
 * segment), a data_type of 1..16, at most CLG_MAX_RANK dimensions, none
 * negative, a size that fits, no typed field but the dtype's own, and
 * either raw_data of exactly the tensor's bytes (not for STRING) or one
 * value per element (two for complex) in the typed field, each of which
 * fits the dtype. Else 0, with the first rule broken in why[cap]. */
int fuzz_proto_valid(const Onnx__TensorProto *tp, char *why, size_t cap);

/* t (read from tp, which fuzz_proto_valid accepts) holds tp's dtype, its
 * dims and exactly its values. */
void fuzz_proto_check_values(const Onnx__TensorProto *tp,
                             const clg_io_tensor *t, const char *what);

#endif /* CLG_FUZZ_PROTO_H */
