# SPDX-License-Identifier: Apache-2.0
"""Exceptions: one class per clg_status, all under clgather.Error.

Each class also derives from the built-in exception Python code already
catches for that kind of failure (an out-of-range index is an IndexError,
an unsupported dtype a TypeError, ...). The message is the library's own
(clg_context_last_error), naming the argument and the values involved.
"""

from . import _lib

# The library's status table (CLG_STATUS_TABLE in clgather.h), one row per
# status: name, value, class name, built-in bases. tests/test_api.py
# checks it against clg_status_name.
_STATUS_TABLE = [
    ("NULL_POINTER", 1, "NullPointerError", (ValueError,)),
    ("INVALID_ARGUMENT", 2, "InvalidArgumentError", (ValueError,)),
    ("INVALID_AXIS", 3, "InvalidAxisError", (ValueError, IndexError)),
    ("INVALID_RANK", 4, "InvalidRankError", (ValueError,)),
    ("RANK_MISMATCH", 5, "RankMismatchError", (ValueError,)),
    ("INVALID_SHAPE", 6, "InvalidShapeError", (ValueError,)),
    ("SHAPE_MISMATCH", 7, "ShapeMismatchError", (ValueError,)),
    ("UNSUPPORTED_DTYPE", 8, "UnsupportedDtypeError", (TypeError,)),
    ("INDEX_OUT_OF_RANGE", 9, "IndexOutOfRangeError", (IndexError,)),
    ("TENSOR_TOO_LARGE", 10, "TensorTooLargeError", (ValueError,)),
    ("OUT_OF_MEMORY", 11, "OutOfMemoryError", (MemoryError,)),
    ("DEVICE_NOT_FOUND", 12, "DeviceNotFoundError", (LookupError,)),
    ("OPENCL_ERROR", 13, "OpenCLError", (RuntimeError,)),
    ("BUILD_FAILED", 14, "BuildFailedError", (RuntimeError,)),
    ("DEVICE_MISMATCH", 15, "DeviceMismatchError", (RuntimeError,)),
    ("PENDING_LIMIT", 16, "PendingLimitError", (RuntimeError,)),
    ("DEVICE_MISCOMPILED", 17, "DeviceMiscompiledError", (RuntimeError,)),
]


class Error(Exception):
    """Base of every clgather error.

    Attributes: ``status`` (the clg_status value), ``status_name`` (e.g.
    "INDEX_OUT_OF_RANGE"), ``message`` (the library's message),
    ``cl_error`` and ``cl_error_name`` (the raw OpenCL code of an
    OPENCL_ERROR or BUILD_FAILED, else 0 and "CL_SUCCESS"), ``build_log``
    (the build log of a BUILD_FAILED, else "").
    """

    __module__ = "clgather"
    status = None
    status_name = None

    def __init__(self, message, cl_error=0, build_log=""):
        super().__init__(message)
        self.message = message
        self.cl_error = cl_error
        self.cl_error_name = _lib.text(_lib.lib.clg_cl_error_name(cl_error))
        self.build_log = build_log


# status value -> class
_CLASSES = {}
for _name, _value, _cls_name, _bases in _STATUS_TABLE:
    _cls = type(_cls_name, (Error,) + _bases, {
        "status": _value, "status_name": _name,
        "__doc__": _lib.text(_lib.lib.clg_status_message(_value)),
        "__module__": "clgather"})
    globals()[_cls_name] = _cls
    _CLASSES[_value] = _cls

__all__ = ["Error"] + [row[2] for row in _STATUS_TABLE]


def error_class(status):
    """The exception class of a clg_status value (Error for an unknown
    one)."""
    return _CLASSES.get(status, Error)


def make_error(status, ctx=None):
    """The exception for `status` returned by the calling thread's last
    call on `ctx` (a clg_context pointer, None for calls without one)."""
    lib = _lib.lib
    message = _lib.text(lib.clg_context_last_error(ctx))
    if not message:
        message = _lib.text(lib.clg_status_message(status))
    cl_error = lib.clg_context_last_cl_error(ctx) if ctx else 0
    build_log = _lib.text(lib.clg_context_build_log(ctx)) if ctx else ""
    return error_class(status)(message, cl_error, build_log)


def check(status, ctx=None):
    """Raises the exception of a failed call; returns on CLG_STATUS_OK."""
    if status != 0:
        raise make_error(status, ctx)


def raise_status(status_name, message):
    """Raises the class of a status for a check the binding makes before
    calling the library (a dtype NumPy has and ONNX has not, ...)."""
    for name, value, _, _ in _STATUS_TABLE:
        if name == status_name:
            raise _CLASSES[value](message)
    raise AssertionError(status_name)
