#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Writes the seed corpora of tests/fuzz/corpus/ (README.md there).

Standard library only; run once by hand after changing it, never by CI:

    python3 tests/fuzz/make_seeds.py [--onnx-data DIR]

- corpus/npy/: .npy files written here byte by byte as NumPy writes them
  (format 1.0, 2.0 and 3.0, every dtype clgather reads, both byte orders,
  scalars, empty arrays, byte strings, fortran_order with one long axis);
- corpus/tensor/: the TensorProto files of ONNX's own Gather,
  GatherElements and GatherND node tests (DIR, default Debian's libonnx-testdata), and
  TensorProtos encoded here for each typed field;
- corpus/model/: those tests' model.onnx files, single-node models
  encoded here whose operands are initializers, and models nesting
  subgraphs or sequence types up to the nesting limit and past it;
- corpus/gather/: inputs of the shape and reference target, in its own
  encoding (fuzz_gather.c, decode()).
"""
import argparse
import glob
import os
import shutil
import struct

HERE = os.path.dirname(os.path.abspath(__file__))


# ---------------------------------------------------------------- .npy

def npy(descr, shape, payload, version=1, fortran=False):
    shape_text = "(" + ", ".join(str(d) for d in shape)
    shape_text += ",)" if len(shape) == 1 else ")"
    header = "{'descr': '%s', 'fortran_order': %s, 'shape': %s, }" % (
        descr, "True" if fortran else "False", shape_text)
    pre = 10 if version == 1 else 12
    total = (pre + len(header) + 1 + 63) // 64 * 64
    header = header + " " * (total - pre - len(header) - 1) + "\n"
    length = struct.pack("<H" if version == 1 else "<I", len(header))
    return (b"\x93NUMPY" + bytes([version, 0]) + length +
            header.encode("latin-1") + payload)


def npy_seeds():
    f4 = struct.pack("<6f", 0, 1.5, -2, 3.25, 1e30, -0.0)
    return {
        "f4_2x3.npy": npy("<f4", (2, 3), f4),
        "i8_4.npy": npy("<i8", (4,), struct.pack("<4q", 0, -1, 2**40, 3)),
        "i4_be_2x2.npy": npy(">i4", (2, 2), struct.pack(">4i", 1, -2, 3, 4)),
        "b1_3.npy": npy("|b1", (3,), b"\x01\x00\x01"),
        "u1_empty.npy": npy("|u1", (0,), b""),
        "i1_2x0x3.npy": npy("|i1", (2, 0, 3), b""),
        "f2_scalar.npy": npy("<f2", (), b"\x00\x3c"),
        "f8_native.npy": npy("=f8", (2,), struct.pack("<2d", 1, -1)),
        "c8_2.npy": npy("<c8", (2,), struct.pack("<4f", 1, 2, 3, 4)),
        "c16_be_1.npy": npy(">c16", (1,), struct.pack(">2d", 1, 2)),
        "u2_3.npy": npy("<u2", (3,), struct.pack("<3H", 1, 2, 65535)),
        "i2_v2.npy": npy("<i2", (2,), struct.pack("<2h", -3, 3), version=2),
        "u4_v3.npy": npy("<u4", (1, 2), struct.pack("<2I", 7, 8), version=3),
        "u8_fortran.npy": npy("<u8", (3, 1), struct.pack("<3Q", 1, 2, 3),
                              fortran=True),
        "S3_2.npy": npy("|S3", (2,), b"ab\x00xyz"),
        "S0_empty.npy": npy("|S0", (0,), b""),
        "bool_q.npy": npy("?", (2,), b"\x00\x01"),
    }


# ---------------------------------------------------------------- protobuf

def varint(v):
    v &= (1 << 64) - 1
    out = bytearray()
    while True:
        b = v & 0x7F
        v >>= 7
        out.append(b | (0x80 if v else 0))
        if not v:
            return bytes(out)


def key(field, wire):
    return varint(field << 3 | wire)


def vint(field, v):
    return key(field, 0) + varint(v)


def ldelim(field, payload):
    if isinstance(payload, str):
        payload = payload.encode()
    return key(field, 2) + varint(len(payload)) + payload


def packed(field, values, fmt=None):
    if fmt is None:
        body = b"".join(varint(v) for v in values)
    else:
        body = b"".join(struct.pack(fmt, v) for v in values)
    return ldelim(field, body)


def tensor(dtype, dims, name=None, raw=None, field=None, values=(),
           fmt=None, strings=()):
    out = b"".join(vint(1, d) for d in dims) + vint(2, dtype)
    if name is not None:
        out += ldelim(8, name)
    if raw is not None:
        out += ldelim(9, raw)
    if field is not None and values:
        out += packed(field, values, fmt)
    out += b"".join(ldelim(6, s) for s in strings)
    return out


FLOAT, UINT8, INT8, UINT16, INT16, INT32, INT64, STRING, BOOL = range(1, 10)
FLOAT16, DOUBLE, UINT32, UINT64, COMPLEX64, COMPLEX128, BFLOAT16 = \
    range(10, 17)


def tensor_seeds():
    return {
        "float_data.pb": tensor(FLOAT, [2], "f", field=4, values=[1.5, -2],
                                fmt="<f"),
        "complex64.pb": tensor(COMPLEX64, [1], field=4, values=[1, 2],
                               fmt="<f"),
        "int8_int32_data.pb": tensor(INT8, [3], field=5,
                                     values=[-128, 0, 127]),
        "bool_int32_data.pb": tensor(BOOL, [2], field=5, values=[0, 1]),
        "float16_int32_data.pb": tensor(FLOAT16, [2], field=5,
                                        values=[0x3C00, 0xFFFF]),
        "uint16_int32_data.pb": tensor(UINT16, [1, 1], field=5,
                                       values=[65535]),
        "int64_data.pb": tensor(INT64, [2, 2], field=7,
                                values=[0, -1, 2**62, -(2**63)]),
        "double_data.pb": tensor(DOUBLE, [1], field=10, values=[0.5],
                                 fmt="<d"),
        "complex128.pb": tensor(COMPLEX128, [1], field=10, values=[1, -1],
                                fmt="<d"),
        "uint32_uint64_data.pb": tensor(UINT32, [2], field=11,
                                        values=[0, 2**32 - 1]),
        "uint64_data.pb": tensor(UINT64, [1], field=11, values=[2**64 - 1]),
        "string_data.pb": tensor(STRING, [3], "s",
                                 strings=[b"", b"ab", b"c\x00"]),
        "bfloat16_raw.pb": tensor(BFLOAT16, [2], raw=b"\x80\x3f\x00\x40"),
        "int32_raw_scalar.pb": tensor(INT32, [], raw=struct.pack("<i", -5)),
        "int64_empty.pb": tensor(INT64, [0]),
        "uint8_empty_raw.pb": tensor(UINT8, [3, 0], raw=b""),
        "int16_raw.pb": tensor(INT16, [2], raw=struct.pack("<2h", 1, -1)),
    }


def value_info(name):
    return ldelim(1, name)


def model(op, inputs, output, opset, initializers=(), graph_inputs=None,
          axis=None):
    attrs = b""
    if axis is not None:
        attrs = ldelim(5, ldelim(1, "axis") + vint(3, axis) + vint(20, 2))
    node = (b"".join(ldelim(1, i) for i in inputs) + ldelim(2, output) +
            ldelim(4, op) + attrs)
    if graph_inputs is None:
        graph_inputs = inputs
    graph = (ldelim(1, node) + ldelim(2, "g") +
             b"".join(ldelim(5, t) for t in initializers) +
             b"".join(ldelim(11, value_info(i)) for i in graph_inputs) +
             ldelim(12, value_info(output)))
    return (vint(1, 8) + ldelim(8, ldelim(1, "") + vint(2, opset)) +
            ldelim(7, graph))


def nested(levels, field_at):
    """A ModelProto whose deepest message, empty, sits `levels` below it,
    each message held by its parent's field field_at(level)."""
    payload = b""
    for level in range(levels, 1, -1):
        payload = ldelim(field_at(level), payload)
    return (vint(1, 8) + ldelim(7, payload) +
            ldelim(8, ldelim(1, "") + vint(2, 13)))


def subgraph_field(level):
    # GraphProto.node (1), NodeProto.attribute (5), AttributeProto.g (6)
    return {2: 1, 0: 5, 1: 6}[level % 3]


def type_field(level):
    # GraphProto.input (11), ValueInfoProto.type (2), then
    # TypeProto.sequence_type (4) and TypeProto.Sequence.elem_type (1)
    if level < 4:
        return {2: 11, 3: 2}[level]
    return 4 if level % 2 == 0 else 1


def deep_seeds():
    # Messages nested up to CLG_ONNX_MAX_NESTING (100) levels below the
    # ModelProto are read; deeper ones are refused before protobuf-c
    # unpacks them (docs/design.md, "Tensor files"). The 3,000 subgraphs
    # (30 KB) overflowed the stack before; ci/fuzz.sh's -max_len for this
    # target keeps them whole.
    return {
        "nested_subgraphs_100.onnx": nested(100, subgraph_field),
        "nested_subgraphs_101.onnx": nested(101, subgraph_field),
        "nested_subgraphs_3000.onnx": nested(3 * 3000 + 1, subgraph_field),
        "nested_sequence_types_101.onnx": nested(101, type_field),
    }


def model_seeds():
    data = tensor(FLOAT, [3, 2], "data", raw=struct.pack("<6f", *range(6)))
    idx = tensor(INT64, [2], "idx", field=7, values=[2, -1])
    idx32 = tensor(INT32, [3, 1], "idx", field=5, values=[0, 2, -3])
    strings = tensor(STRING, [2], "data", strings=[b"x", b"yz"])
    return {
        "gather_initializers.onnx": model("Gather", ["data", "idx"], "y", 13,
                                          [data, idx], axis=0),
        "gather_mixed.onnx": model("Gather", ["x", "idx"], "y", 11, [idx],
                                   ["x", "idx"], axis=-1),
        "gather_strings.onnx": model("Gather", ["data", "idx"], "y", 1,
                                     [strings, idx]),
        "elements_initializers.onnx": model("GatherElements",
                                            ["data", "idx"], "y", 13,
                                            [data, idx32], axis=0),
        "elements_inputs.onnx": model("GatherElements", ["d", "i"], "y", 11,
                                      axis=1),
    }


# ---------------------------------------------------------------- gather

def gather_seeds():
    # Bytes as decode() in fuzz_gather.c reads them: flags (bit 0
    # GatherElements, bit 1 misaligned, bit 2 NULL for empty, bits 3.. the
    # fault), dtype, index dtype (0x00 INT64, 0x90 INT32), data rank, data
    # dims (0x00: 0, 0x10: 1, 0x80 + k: 2 + k % 4, 0xe0..: sizes that
    # stress), index rank, index dims, axis (b % 2r - r), capacity (0x00:
    # CLG_MAX_RANK), then one byte per index value.
    one_33 = bytes([0x00, 1, 0x00, 0xFF]) + bytes([0x10] * 33) + b"\x01\x10"
    return {
        "gather_f4_3x4_axis0": bytes([0x00, 1, 0x00, 2, 0x81, 0x82, 1, 0x83,
                                      0x02, 0x00, 0, 1, 2, 0x81, 0x05]),
        "gather_scalar_index": bytes([0x00, 7, 0x90, 2, 0x82, 0x81, 0, 0x03,
                                      0x00, 0x9f]),
        "gather_i32_negative": bytes([0x00, 3, 0x90, 1, 0x83, 2, 0x81, 0x80,
                                      0x00, 0x00, 0x81, 0x85, 0x9f, 0x01]),
        "elements_2x3_axis1": bytes([0x01, 6, 0x00, 2, 0x80, 0x81, 0x00,
                                     0x00, 0x83, 0x03, 0x00, 1, 2, 0, 0x81]),
        "elements_ragged": bytes([0x01, 11, 0x90, 3, 0x81, 0x82, 0x83, 0x00,
                                  0x60, 0x00, 0x70, 0x04, 0x00, 7, 0x85]),
        "elements_string_misaligned": bytes([0x03, 8, 0x00, 2, 0x82, 0x81,
                                             0x00, 0x83, 0x00, 0x02, 0x00, 3,
                                             1, 0xa0]),
        "bad_index_int64_min": bytes([0x00, 1, 0x00, 1, 0x83, 1, 0x82, 0x01,
                                      0x00, 0x01, 0xc0]),
        "empty_data": bytes([0x04, 1, 0x00, 2, 0x00, 0x81, 1, 0x82, 0x03,
                             0x00, 0, 1, 2, 0x81]),
        "fault_output_shape": bytes([0x38, 1, 0x00, 2, 0x81, 0x81, 1, 0x81,
                                     0x01, 0x00, 0x01]),
        "fault_alias_data": bytes([0x48, 1, 0x00, 2, 0x81, 0x82, 1, 0x83,
                                   0x02, 0x00, 0, 1, 2]),
        "fault_null_data": bytes([0x58, 1, 0x00, 2, 0x81, 0x82, 1, 0x83,
                                  0x02, 0x00, 0, 1, 2]),
        "capacity_short": bytes([0x00, 2, 0x00, 2, 0x81, 0x81, 2, 0x81, 0x81,
                                 0x01, 0xe1, 0x00]),
        "elements_rank_mismatch": bytes([0x01, 1, 0x00, 2, 0x81, 0x81, 0xe1,
                                         0x01, 0x00]),
        "axis_out_of_range": bytes([0x00, 1, 0x00, 1, 0x81, 1, 0x81, 0xf0,
                                    0x00]),
        "data_rank_33": one_33,
        # GatherND: flags 0xc0 (bits 3..5 the fault), dtype, index dtype,
        # data rank, data dims, index rank, batch_dims (b % min(q, r);
        # 0xf0..: values around and outside the range), index dims (below
        # 0xa0: a batch dim copies data's, the last is r - b under 0x60,
        # else 1 + byte % (r - b)), capacity and mode (bits 5, 6: raise,
        # wrap, clip, fill), then one byte per index value.
        "nd_example_int32": bytes([0xc0, 6, 0x00, 2, 0x80, 0x80, 2, 0x00,
                                   0x80, 0x00, 0x00, 0, 0, 1, 1]),
        "nd_batch_dims_1": bytes([0xc0, 1, 0x00, 3, 0x80, 0x80, 0x80, 2,
                                  0x01, 0x00, 0x60, 0x00, 1, 0x80]),
        "nd_slices_int32_wrap": bytes([0xc0, 2, 0x90, 3, 0x81, 0x82, 0x80, 3,
                                       0x00, 0x80, 0x80, 0x60, 0x20, 0xa0,
                                       0x01, 0xa1, 0x02]),
        "nd_scalars_clip": bytes([0xc0, 11, 0x00, 2, 0x81, 0x82, 2, 0x00,
                                  0x81, 0x00, 0x40, 0xa2, 0x85, 0x03, 0xa3,
                                  0xc1, 0x02]),
        "nd_fill_bad": bytes([0xc0, 10, 0x90, 3, 0x80, 0x81, 0x82, 2, 0x01,
                              0x00, 0x60, 0x60, 0xc0, 0x01, 0xa0]),
        "nd_raise_int64_min": bytes([0xc0, 1, 0x00, 2, 0x81, 0x80, 2, 0x00,
                                     0x80, 0x61, 0x00, 0x01, 0xc0]),
        "nd_batch_mismatch": bytes([0xc0, 1, 0x00, 2, 0x80, 0x81, 2, 0x01,
                                    0xa1, 0x00, 0x00, 0, 1, 2]),
        "nd_k_too_long": bytes([0xc0, 1, 0x00, 2, 0x80, 0x81, 3, 0x01,
                                0x00, 0x10, 0xa0, 0x00, 0, 1]),
        "nd_batch_dims_out_of_range": bytes([0xc0, 1, 0x00, 2, 0x80, 0x81, 2,
                                             0xf1, 0x80, 0x00, 0x00, 0, 1]),
        "nd_index_rank_0": bytes([0xc0, 1, 0x00, 2, 0x80, 0x81, 0, 0x00,
                                  0x00]),
        "nd_empty_dim_fill": bytes([0xc0, 1, 0x00, 2, 0x00, 0x81, 2, 0x00,
                                    0x80, 0x61, 0x60, 0]),
        "nd_string_misaligned": bytes([0xc2, 8, 0x90, 3, 0x81, 0x80, 0x81, 3,
                                       0x01, 0x00, 0x80, 0x61, 0x00, 1, 2,
                                       0x80, 0x81]),
        "nd_fault_output_shape": bytes([0xd0, 1, 0x00, 2, 0x80, 0x81, 2,
                                        0x00, 0x80, 0x61, 0x00, 0, 1]),
        "nd_fault_null_data": bytes([0xf0, 1, 0x00, 2, 0x80, 0x81, 2, 0x00,
                                     0x80, 0x61, 0x00, 0, 1]),
    }


# ---------------------------------------------------------------- main

def write(target, files):
    d = os.path.join(HERE, "corpus", target)
    os.makedirs(d, exist_ok=True)
    for name, data in files.items():
        with open(os.path.join(d, name), "wb") as f:
            f.write(data)
    print("%-7s %d files" % (target, len(os.listdir(d))))


def copy_onnx_tests(onnx_data):
    tests = sorted(glob.glob(os.path.join(onnx_data, "test_gather_*")) +
                   glob.glob(os.path.join(onnx_data, "test_gather_elements*")) +
                   glob.glob(os.path.join(onnx_data, "test_gathernd_*")))
    tensors, models = {}, {}
    for t in sorted(set(tests)):
        base = os.path.basename(t)[len("test_"):]
        with open(os.path.join(t, "model.onnx"), "rb") as f:
            models[base + ".onnx"] = f.read()
        for pb in sorted(glob.glob(os.path.join(t, "test_data_set_0",
                                                "*.pb"))):
            with open(pb, "rb") as f:
                tensors[base + "_" + os.path.basename(pb)] = f.read()
    return tensors, models


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--onnx-data",
                    default="/usr/share/libonnx-testdata/data/node")
    args = ap.parse_args()
    for target in ("npy", "tensor", "model", "gather"):
        shutil.rmtree(os.path.join(HERE, "corpus", target), ignore_errors=True)
    tensors, models = copy_onnx_tests(args.onnx_data)
    write("npy", npy_seeds())
    write("tensor", {**tensor_seeds(), **tensors})
    write("model", {**model_seeds(), **deep_seeds(), **models})
    write("gather", gather_seeds())


if __name__ == "__main__":
    main()
