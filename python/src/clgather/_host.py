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

from . import _dlpack, _dtypes, _errors, _lib

_INT64_MIN, _INT64_MAX = -(1 << 63), (1 << 63) - 1


def _library_modes():
    """The words of the library's out-of-range modes in the order of their
    values (clg_oob_mode_name, from 0 up to its first "unknown"); only
    "raise" for a library without the modes."""
    if not _lib.HAS_OOB:
        return ("raise",)
    words = []
    for value in range(256):
        word = _lib.text(_lib.lib.clg_oob_mode_name(value))
        if word == "unknown":
            break
        words.append(word)
    return tuple(words)


# The out-of-range modes a caller may name (oob=...), as the library
# spells them: ("raise", "wrap", "clip", "fill").
OOB_MODES = _library_modes()


def call_options(oob):
    """The clg_call_options of a call (None for a library without the
    modes): oob parsed by the library (clg_oob_mode_parse).
    InvalidArgumentError, a ValueError, names the modes for any other
    value."""
    if not isinstance(oob, str) or oob not in OOB_MODES:
        _errors.raise_status(
            "INVALID_ARGUMENT",
            "oob=%r is not an out-of-range mode: one of %s" %
            (oob, ", ".join(repr(m) for m in OOB_MODES)))
    if not _lib.HAS_OOB:
        return None
    mode = ctypes.c_int()
    _errors.check(_lib.lib.clg_oob_mode_parse(oob.encode(),
                                              ctypes.byref(mode)))
    return _lib.CallOptions(mode.value)


def operator_call(name, options):
    """The library's named function `name` ("clg_gather",
    "clg_enqueue_gather", ...) with a call's options (call_options) bound:
    its _ex form, taking the plain form's arguments; the plain form for a
    library without the modes."""
    if options is None:
        return getattr(_lib.lib, name)
    function = getattr(_lib.lib, name + "_ex")
    return lambda *args: function(*args, ctypes.byref(options))


_op_codes = {}


def op_code(op):
    """The library's clg_op for an operator named as the package names it
    (its C name, "gather_elements"), parsed by the library
    (clg_op_parse)."""
    code = _op_codes.get(op)
    if code is None:
        value = ctypes.c_int()
        _errors.check(_lib.lib.clg_op_parse(op.encode(), ctypes.byref(value)))
        code = _op_codes[op] = value.value
    return code


def _call(op, attribute, options):
    """The clg_call of operator `op` with its int64 attribute (Gather's
    axis, set by clg_call_set_attribute) and options (None: the
    defaults)."""
    call = _lib.Call(ctypes.sizeof(_lib.Call), op_code(op), 0,
                     options if options is not None else _lib.CallOptions())
    _errors.check(_lib.lib.clg_call_set_attribute(ctypes.byref(call),
                                                  attribute))
    return call


def call_at(op, attribute, options, offsets):
    """The clg_call of an enqueue on device buffers (_lib.CallAt): as
    _call, with the data, indices and output byte offsets; and a pointer
    to it that the prototypes take (keep the call alive while it is
    used)."""
    call = _lib.CallAt()
    call.size = ctypes.sizeof(_lib.CallAt)
    call.op = op_code(op)
    if options is not None:
        call.options = options
    call.data_offset, call.indices_offset, call.output_offset = offsets
    # The prototypes take the binding's shorter Call: the same first bytes.
    pointer = ctypes.cast(ctypes.pointer(call), ctypes.POINTER(_lib.Call))
    _errors.check(_lib.lib.clg_call_set_attribute(pointer, attribute))
    return call, pointer


def operation(kind, op, options):
    """The library's call of `kind` for operator `op` (its C name,
    "gather") with a call's options (call_options) bound, taking the
    arguments of the named function it stands for: kind "run" as
    clg_gather (ctx, data, indices, axis, output), "reference" as
    clg_reference_gather, "enqueue" as clg_enqueue_gather (ctx, queue,
    data, indices, axis, output, num_events, wait_list, event). Through the
    generic calls (clg_run, clg_reference, clg_enqueue) on a clg_call, or,
    for a library without them, the named functions."""
    if not _lib.HAS_CALLS:
        name = {"run": "clg_%s", "reference": "clg_reference_%s",
                "enqueue": "clg_enqueue_%s"}[kind] % op
        return operator_call(name, options)
    function = getattr(_lib.lib, "clg_" + kind)
    if kind == "enqueue":
        def enqueue(ctx, queue, data, indices, axis, output, *events):
            call = _call(op, axis, options)
            return function(ctx, queue, ctypes.byref(call), data, indices,
                            output, *events)
        return enqueue

    def host(ctx, data, indices, axis, output):
        call = _call(op, axis, options)
        return function(ctx, ctypes.byref(call), data, indices, output)
    return host


def shape_function(op):
    """The output shape of operator `op` (its C name), taking the
    arguments of clg_<op>_output_shape: clg_output_shape on a clg_call, or
    the named function for a library without it."""
    if not _lib.HAS_CALLS:
        return getattr(_lib.lib, "clg_%s_output_shape" % op)

    def shape(data, indices, axis, dims, capacity, rank):
        call = _call(op, axis, None)
        return _lib.lib.clg_output_shape(ctypes.byref(call), data, indices,
                                         dims, capacity, rank)
    return shape


def attribute_name(op):
    """The name of operator `op`'s int64 attribute, as its function's
    parameter: GatherND's batch_dims, the others' axis."""
    return "batch_dims" if op == "gather_nd" else "axis"


def check_axis(axis, name="axis"):
    """The attribute (an axis, or GatherND's batch_dims, `name`) as an
    int: any integer (numpy's included), never a bool, which numpy.take
    refuses too (TypeError)."""
    if isinstance(axis, (bool, np.bool_)):
        raise TypeError("an integer is required for %s, not %s" %
                        (name, type(axis).__name__))
    try:
        axis = operator.index(axis)
    except TypeError:
        raise TypeError("an integer is required for %s, not %s" %
                        (name, type(axis).__name__)) from None
    if not _INT64_MIN <= axis <= _INT64_MAX:
        # The library's status for the attribute out of range: an axis
        # INVALID_AXIS, GatherND's batch_dims INVALID_ARGUMENT.
        _errors.raise_status(
            "INVALID_AXIS" if name == "axis" else "INVALID_ARGUMENT",
            "%s %d does not fit int64" % (name, axis))
    return axis


def c_string(value, name):
    """bytes (str encoded as UTF-8, or os-path bytes) for a C string
    argument; an embedded NUL would cut it short in C, so it is
    InvalidArgumentError (a ValueError) naming the argument."""
    data = value if isinstance(value, bytes) else value.encode()
    if b"\0" in data:
        _errors.raise_status("INVALID_ARGUMENT",
                             "%s=%r holds a NUL character" % (name, value))
    return data


def check_bool(value, name):
    """TypeError unless value is a bool (NumPy's too): a truthy word such
    as "no" must not read as True."""
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError("%s must be True or False, not %r" % (name, value))


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
    """The 'S' array that gathered descriptors point to in `data`; a
    descriptor of no bytes ({NULL, 0}, what oob="fill" writes) is the
    empty string, all NUL bytes in the 'S' array."""
    if desc.size == 0:
        return np.empty(desc.shape, data.dtype)
    pointers = desc["data"].reshape(-1)
    empty = pointers == 0
    position = (pointers - data.ctypes.data) // data.dtype.itemsize
    position[empty] = 0
    out = data.reshape(-1)[position.astype(np.intp)]
    out[empty] = b""
    return out.reshape(desc.shape)


def prepare(data, indices, axis):
    """Descriptors of the inputs: data as it is when C-contiguous (else
    one copy), indices as _dtypes.index_array makes them. A ragged nested
    list is InvalidArgumentError."""
    data = np.require(_dtypes.as_array(data, "data"), requirements="C")
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


def aligned_empty(shape, dtype):
    """An uninitialised C-contiguous array starting on a 64-byte boundary:
    the library stores large Gather outputs a cache line at a time only
    there (docs/decisions.md, "Embedding: whole-span non-temporal stores");
    NumPy aligns to 16."""
    dtype = np.dtype(dtype)
    nbytes = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
    raw = np.empty(nbytes + 64, np.uint8)
    start = -raw.ctypes.data % 64
    return raw[start:start + nbytes].view(dtype).reshape(shape)


def run(call, ctx, shape_fn, data, indices, axis, out):
    """One host-memory operator call: call(ctx, data, indices, axis,
    output) with `ctx` a clg_context pointer or None (reference), `call`
    from operation and `shape_fn` from shape_function. An ``out`` that is
    a DLPack producer is written through a NumPy array over its memory,
    and returned itself."""
    given = out
    if out is not None and _dlpack.is_producer(out):
        out = _dlpack.as_numpy(out, "out", out=True)
    data, indices, axis = prepare(data, indices, axis)
    shape = output_shape(shape_fn, data, indices, axis)
    if out is not None:
        check_out(out, data.array.dtype, shape)
    if data.code == _dtypes.STRING:
        target = np.empty(shape, data.array.dtype)
    elif out is None or not out.flags.c_contiguous:
        target = aligned_empty(shape, data.array.dtype)
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
    return given


def check_out(out, dtype, shape):
    if not isinstance(out, np.ndarray):
        raise TypeError("out must be a numpy.ndarray or an object with "
                        "__dlpack__, not %s" % type(out).__name__)
    _dtypes.refuse_masked(out, "out")
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
        _errors.raise_status("INVALID_ARGUMENT", "out is read-only")
