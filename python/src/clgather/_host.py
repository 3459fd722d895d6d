# SPDX-License-Identifier: Apache-2.0
"""The host-memory path: NumPy arrays in, NumPy arrays out.

Builds the library's clg_tensor descriptors over the arrays' own memory
(no copy for C-contiguous arrays), asks the library for the output shape,
and calls the operator. STRING ('S' arrays) goes through the library's
clg_string descriptors: one per element, pointing into the data array;
the gathered descriptors are turned back into an 'S' array of the same
itemsize.
"""

import ctypes
import operator

import numpy as np

from . import _dtypes, _errors, _lib

_INT64_MIN, _INT64_MAX = -(1 << 63), (1 << 63) - 1

# The out-of-range modes this binding passes on, by the name a caller
# gives (oob=...). Adding a mode the library supports is one row here.
OOB_MODES = {
    "raise": None,
}


def check_oob(oob):
    if oob not in OOB_MODES:
        raise ValueError(
            "oob=%r is not supported: this clgather handles out-of-range "
            "indices with %s" % (oob, ", ".join(repr(m) for m in OOB_MODES)))


def check_axis(axis):
    axis = operator.index(axis)
    if not _INT64_MIN <= axis <= _INT64_MAX:
        _errors.raise_status("INVALID_AXIS",
                             "axis %d does not fit int64" % axis)
    return axis


def shape_array(shape):
    """The shape as an int64 C array (kept alive by the caller)."""
    return (ctypes.c_int64 * max(len(shape), 1))(*shape)


class Descriptor:
    """A clg_tensor of a shape without memory (for shape queries)."""

    def __init__(self, shape, code):
        self.shape = shape_array(shape)
        self.tensor = _lib.Tensor(code, len(shape), self.shape, None)


class HostTensor:
    """A clg_tensor over a C-contiguous NumPy array, with what must stay
    alive while the library reads it."""

    def __init__(self, array, code):
        self.array = array
        self.code = code
        self.shape = shape_array(array.shape)
        self.strings = None
        memory = array
        if code == _dtypes.STRING:
            memory = self.strings = string_descriptors(array)
        self.tensor = _lib.Tensor(code, array.ndim, self.shape,
                                  memory.ctypes.data if memory.size else None)


_STRING_DTYPE = np.dtype([("data", np.uintp), ("length", np.uintp)])
assert _STRING_DTYPE.itemsize == ctypes.sizeof(_lib.String)


def string_descriptors(array):
    """One clg_string per element of an 'S' array, each its whole itemsize
    (NUL bytes included, so that the bytes come back unchanged)."""
    desc = np.empty(array.shape, _STRING_DTYPE)
    size = array.dtype.itemsize
    if array.size:
        desc["data"] = (array.ctypes.data +
                        np.arange(array.size, dtype=np.uintp).reshape(
                            array.shape) * size)
        desc["length"] = size
    return desc


def strings_back(desc, data):
    """The 'S' array that gathered descriptors point to in `data`."""
    if desc.size == 0:
        return np.empty(desc.shape, data.dtype)
    position = (desc["data"].reshape(-1) - data.ctypes.data) // \
        data.dtype.itemsize
    return data.reshape(-1)[position.astype(np.intp)].reshape(desc.shape)


def prepare(data, indices, axis):
    """Descriptors of the inputs: data as it is when C-contiguous (else
    one copy), indices as _dtypes.index_array makes them."""
    data = np.require(np.asarray(data), requirements="C")
    code = _dtypes.clg_dtype(data.dtype)
    idx = _dtypes.index_array(indices)
    return (HostTensor(data, code),
            HostTensor(idx, _dtypes.index_code(idx)), check_axis(axis))


def output_shape(shape_fn, data, indices, axis):
    """The output shape the library gives (validating shapes and axis)."""
    shape = (ctypes.c_int64 * _lib.MAX_RANK)()
    rank = ctypes.c_size_t()
    _errors.check(shape_fn(ctypes.byref(data.tensor),
                           ctypes.byref(indices.tensor), axis, shape,
                           _lib.MAX_RANK, ctypes.byref(rank)))
    return tuple(shape[:rank.value])


def run(call, ctx, shape_fn, data, indices, axis, out):
    """One host-memory operator call: call(ctx, data, indices, axis,
    output) with `ctx` a clg_context pointer or None (reference)."""
    data, indices, axis = prepare(data, indices, axis)
    shape = output_shape(shape_fn, data, indices, axis)
    if out is not None:
        check_out(out, data.array.dtype, shape)
    if data.code == _dtypes.STRING or out is None or \
            not out.flags.c_contiguous:
        target = np.empty(shape, data.array.dtype)
    else:
        target = out
    output = HostTensor(target, data.code)
    memory = output.strings if output.strings is not None else target
    _errors.check(call(ctx, ctypes.byref(data.tensor),
                       ctypes.byref(indices.tensor), axis,
                       ctypes.byref(output.tensor)), ctx)
    if output.strings is not None:
        target = strings_back(memory, data.array)
    if out is None:
        return target
    if target is not out:
        out[...] = target
    return out


def check_out(out, dtype, shape):
    if not isinstance(out, np.ndarray):
        raise TypeError("out must be a numpy.ndarray, not %s" %
                        type(out).__name__)
    if out.dtype != dtype:
        _errors.raise_status(
            "UNSUPPORTED_DTYPE",
            "out has dtype %s; the output's dtype is data's, %s" %
            (out.dtype, dtype))
    if out.shape != shape:
        _errors.raise_status(
            "SHAPE_MISMATCH",
            "out has shape %s; the output's shape is %s" % (out.shape, shape))
    if not out.flags.writeable:
        raise ValueError("out is read-only")
