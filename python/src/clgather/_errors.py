# SPDX-License-Identifier: Apache-2.0
"""Exceptions: one class per clg_status, all under clgather.Error.

Each class also derives from the built-in exception Python code already
catches for that kind of failure (an out-of-range index is an IndexError,
an unsupported dtype a TypeError, ...). The message is the library's own
(clg_context_last_error), naming the argument and the values involved.
"""

from . import _lib

# The built-in exception each status's class also derives from, so that
# Python code that already catches those catches clgather's too: a choice
# of the binding's, by status name. A status the library has and this
# does not name (one added later) is a RuntimeError.
_BUILTIN_BASES = {
    "NULL_POINTER": (ValueError,),
    "INVALID_ARGUMENT": (ValueError,),
    "INVALID_AXIS": (ValueError, IndexError),
    "INVALID_RANK": (ValueError,),
    "RANK_MISMATCH": (ValueError,),
    "INVALID_SHAPE": (ValueError,),
    "SHAPE_MISMATCH": (ValueError,),
    "UNSUPPORTED_DTYPE": (TypeError,),
    "INDEX_OUT_OF_RANGE": (IndexError,),
    "TENSOR_TOO_LARGE": (ValueError,),
    "OUT_OF_MEMORY": (MemoryError,),
    "DEVICE_NOT_FOUND": (LookupError,),
}

# Words of a status name that CamelCase would not spell as Python does.
_WORDS = {"OPENCL": "OpenCL"}


def _class_name(status_name):
    """The exception class of a status: its name in CamelCase, with
    "Error" appended unless it ends so ("INDEX_OUT_OF_RANGE":
    "IndexOutOfRangeError", "OPENCL_ERROR": "OpenCLError")."""
    words = [_WORDS.get(w, w.capitalize()) for w in status_name.split("_")]
    if words[-1] != "Error":
        words.append("Error")
    return "".join(words)


def _status_table():
    """The library's statuses (CLG_STATUS_TABLE, asked of the library
    loaded: clg_status_count, clg_status_name) but OK, one row each:
    name, value, class name, built-in bases."""
    lib = _lib.lib
    if hasattr(lib, "clg_status_count"):
        count = lib.clg_status_count()
    else:  # a library without the call: its names up to the first unknown
        count = 1
        while _lib.text(lib.clg_status_name(count)) != "UNKNOWN_STATUS":
            count += 1
    rows = []
    for value in range(1, count):
        name = _lib.text(lib.clg_status_name(value))
        rows.append((name, value, _class_name(name),
                     _BUILTIN_BASES.get(name, (RuntimeError,))))
    return rows


# The library's status table, one row per status but OK: name, value,
# class name, built-in bases. tests/test_api.py checks it against
# clg_status_name, tests/test_header.py against the header.
_STATUS_TABLE = _status_table()


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
