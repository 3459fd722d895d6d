# SPDX-License-Identifier: Apache-2.0
"""NumPy dtypes and the library's clg_dtype (ONNX TensorProto numbers).

Gather only moves bytes, so a dtype is named by its kind and width; the
byte order does not matter (a big-endian array comes back big-endian, its
bytes unchanged).
"""

import numpy as np

from . import _dlpack, _errors, _lib


def _library_dtypes():
    """{name: (number, size, kind)} of the element types of the library
    loaded (CLG_DTYPE_TABLE: clg_dtype_count, clg_dtype_name,
    clg_dtype_size, clg_dtype_kind). A library without the count and kind
    calls has its sizes asked, and the kinds read from the header's
    table."""
    lib = _lib.lib
    rows = {}
    if hasattr(lib, "clg_dtype_count") and hasattr(lib, "clg_dtype_kind"):
        for number in range(1, lib.clg_dtype_count()):
            size = lib.clg_dtype_size(number)
            if size:
                rows[_lib.text(lib.clg_dtype_name(number))] = (
                    number, size, chr(lib.clg_dtype_kind(number)))
    else:
        for name, number, _, kind in _lib.API["tables"]["CLG_DTYPE_TABLE"]:
            size = lib.clg_dtype_size(number)
            if size:
                rows[name] = (number, size, kind)
    return rows


DTYPES = _library_dtypes()
# The clg_dtype of each type by its name, as module constants: FLOAT,
# INT64, STRING, BFLOAT16, ...
globals().update({name: row[0] for name, row in DTYPES.items()})
STRING, INT32, INT64 = (DTYPES[name][0] for name in
                        ("STRING", "INT32", "INT64"))

# (NumPy kind, itemsize) -> clg_dtype: the table's kinds are NumPy's
# letters where NumPy has one ('b', 'i', 'u', 'f', 'c'). Kind 'S' (bytes)
# is STRING for any itemsize; 'B' (bfloat16) is ml_dtypes' bfloat16.
_BY_KIND = {(kind, size): number for number, size, kind in DTYPES.values()
            if kind in "biufc"}
_BY_LETTER = {kind: number for number, size, kind in DTYPES.values()
              if kind in "SB"}

try:
    import ml_dtypes
    _BFLOAT16 = np.dtype(ml_dtypes.bfloat16)
except ImportError:  # bfloat16 needs ml_dtypes
    _BFLOAT16 = None


def clg_dtype(dtype):
    """The clg_dtype of a NumPy dtype; UnsupportedDtypeError for one ONNX
    does not have."""
    dtype = np.dtype(dtype)
    if dtype.kind == "S":
        code = _BY_LETTER.get("S")
    elif _BFLOAT16 is not None and dtype == _BFLOAT16:
        code = _BY_LETTER.get("B")
    else:
        code = _BY_KIND.get((dtype.kind, dtype.itemsize))
    if code is None:
        _errors.raise_status(
            "UNSUPPORTED_DTYPE",
            "data dtype %s is not an ONNX tensor type (bool, int8-64, "
            "uint8-64, float16/32/64, complex64/128, bytes 'S', bfloat16 "
            "through ml_dtypes)" % dtype)
    return code


def as_array(value, name):
    """numpy.asarray(value); a ragged nested list is InvalidArgumentError
    naming the argument, instead of NumPy's bare ValueError. A masked
    array is a TypeError: numpy.asarray would drop its mask, and the
    masked elements' values would be used. An object with ``__dlpack__``
    (other than a NumPy array) is read through DLPack (_dlpack.as_numpy):
    a NumPy array over its memory, or InvalidArgumentError naming its
    device when that is not host memory."""
    refuse_masked(value, name)
    if _dlpack.is_producer(value):
        return _dlpack.as_numpy(value, name)
    try:
        return np.asarray(value)
    except ValueError as error:
        _errors.raise_status(
            "INVALID_ARGUMENT",
            "%s is not a rectangular array (%s)" % (name, error))


def refuse_masked(value, name):
    """TypeError for a numpy.ma.MaskedArray: the library reads and writes
    plain memory, so a mask would be lost silently."""
    if isinstance(value, np.ma.MaskedArray):
        raise TypeError(
            "%s is a numpy.ma.MaskedArray: clgather has no masks and would "
            "use the masked values; pass %s.filled(fill_value) or %s.data"
            % (name, name, name))


def index_array(indices):
    """The indices as a C-contiguous native int32 or int64 array: int32
    and int64 arrays as they are (copied once when not C-contiguous or not
    native byte order), the other integer types widened to int64. An
    empty list (or nested empty lists) is an empty int64 array, as
    numpy.take takes it, although NumPy makes it float64. A ragged nested
    list is InvalidArgumentError, a ValueError."""
    # A DLPack producer has a dtype of its own, as an ndarray has.
    converted = not (isinstance(indices, np.ndarray) or
                     _dlpack.is_producer(indices))
    indices = as_array(indices, "indices")
    if converted and indices.size == 0 and indices.dtype.kind == "f":
        indices = indices.astype(np.int64)
    kind, size = indices.dtype.kind, indices.dtype.itemsize
    if converted and (kind in "Of" or (kind == "u" and size == 8)):
        # NumPy makes Python ints past int64 uint64, float64 or object:
        # name the values, not a dtype the caller never wrote.
        _errors.raise_status(
            "UNSUPPORTED_DTYPE",
            "indices hold an integer outside the int64 range (or a value "
            "that is not an integer): indices must fit int64")
    if kind not in "iu" or (kind == "u" and size == 8):
        _errors.raise_status(
            "UNSUPPORTED_DTYPE",
            "indices dtype %s: indices must be integers that fit int64 "
            "(int32 and int64 are used as they are)" % indices.dtype)
    if kind == "i" and size in (4, 8):
        return np.require(indices, indices.dtype.newbyteorder("="), "C")
    return np.require(indices.astype(np.int64), requirements="C")


def index_code(indices):
    """The clg_dtype of an index array made by index_array."""
    return INT32 if indices.dtype.itemsize == 4 else INT64
