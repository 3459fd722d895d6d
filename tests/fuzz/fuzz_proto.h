/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Oracles for the ONNX readers, written from io/onnx_io.h's rules
 * independently of io/onnx_io.c: over the message protobuf-c unpacks,
 * whether a TensorProto is one the reader must accept and whether a tensor
 * holds exactly its values; over the bytes, whether a file nests too deep.
 */
#ifndef CLG_FUZZ_PROTO_H
#define CLG_FUZZ_PROTO_H

#include <stddef.h>
#include <stdint.h>

#include "io_tensor.h"
#include "onnx.pb-c.h"
#include "onnx_io.h"

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

/* 1 when a message of bytes[0 .. size), read as a `top`, sits more than
 * CLG_ONNX_MAX_NESTING levels below it, reached before the first wire
 * error in the order of the bytes: the files the readers must refuse as
 * nested too deep. A recursive walk, stopped at the limit; the readers'
 * is a loop with a stack of its own. */
int fuzz_proto_too_deep(const ProtobufCMessageDescriptor *top,
                        const uint8_t *bytes, size_t size);

#endif /* CLG_FUZZ_PROTO_H */
