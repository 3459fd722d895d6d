# SPDX-License-Identifier: Apache-2.0
"""The C library through ctypes: loading, structures and prototypes.

Mirrors include/clgather/clgather.h and nothing else: every operation is
the library's. The structures follow the header's layouts field for field.
"""

import ctypes
import os

try:
    from ._build_config import LIBRARY as _BUILT_FOR
except ImportError:  # a source tree that CMake has not configured
    _BUILT_FOR = None

# --------------------------------------------------------------- loading


def _library_path():
    """The library to load: $CLGATHER_LIBRARY, else the one recorded at
    build time (an installed clgather found through pkg-config), else the
    one installed beside this file."""
    env = os.environ.get("CLGATHER_LIBRARY")
    if env:
        return env
    if _BUILT_FOR:
        return _BUILT_FOR
    here = os.path.dirname(os.path.abspath(__file__))
    for name in ("libclgather.so", "libclgather.dylib", "clgather.dll"):
        path = os.path.join(here, name)
        if os.path.exists(path):
            return path
    raise ImportError(
        "clgather: no libclgather beside %s; reinstall the package "
        "(pip install ./python) or set CLGATHER_LIBRARY to the library's path"
        % here)


LIBRARY_PATH = _library_path()
lib = ctypes.CDLL(LIBRARY_PATH)

# --------------------------------------------------------------- types

c_status = ctypes.c_int
c_dtype = ctypes.c_int
c_cl_int = ctypes.c_int32
c_cl_uint = ctypes.c_uint32
c_handle = ctypes.c_void_p  # cl_context, cl_device_id, cl_mem, ...

MAX_RANK = 32  # CLG_MAX_RANK


class Tensor(ctypes.Structure):
    """clg_tensor."""
    _fields_ = [("dtype", c_dtype), ("rank", ctypes.c_size_t),
                ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("data", ctypes.c_void_p)]


class ClTensor(ctypes.Structure):
    """clg_cl_tensor."""
    _fields_ = [("dtype", c_dtype), ("rank", ctypes.c_size_t),
                ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("buffer", c_handle)]


class String(ctypes.Structure):
    """clg_string."""
    _fields_ = [("data", ctypes.c_void_p), ("length", ctypes.c_size_t)]


class DeviceInfo(ctypes.Structure):
    """clg_device_info."""
    _fields_ = [("platform_index", ctypes.c_uint32),
                ("device_index", ctypes.c_uint32), ("type", ctypes.c_int),
                ("is_default", ctypes.c_int),
                ("platform_name", ctypes.c_char * 128),
                ("name", ctypes.c_char * 128),
                ("vendor", ctypes.c_char * 128),
                ("version", ctypes.c_char * 128),
                ("global_mem_size", ctypes.c_uint64),
                ("max_alloc_size", ctypes.c_uint64),
                ("host_unified_memory", ctypes.c_int)]


CACHE_PATH_MAX = 4096  # CLG_CACHE_PATH_MAX


class CacheInfo(ctypes.Structure):
    """clg_cache_info, followed by spare room: the library writes the whole
    structure, and a layout that grew must not write past ours."""
    _fields_ = [("enabled", ctypes.c_int),
                ("directory", ctypes.c_char * CACHE_PATH_MAX),
                ("max_bytes", ctypes.c_uint64), ("hits", ctypes.c_uint64),
                ("misses", ctypes.c_uint64), ("stores", ctypes.c_uint64),
                ("rejected", ctypes.c_uint64),
                ("_spare", ctypes.c_char * 4096)]


class CallOptions(ctypes.Structure):
    """clg_call_options (an enum is an int in the C ABIs clgather
    supports)."""
    _fields_ = [("oob", ctypes.c_int)]


class Call(ctypes.Structure):
    """clg_call with batch_dims, appended to its first layout. The library
    reads `size` bytes (set to ctypes.sizeof(Call)), so fields it appended
    later keep their defaults, and a library older than batch_dims takes
    its zero bytes."""
    _fields_ = [("size", ctypes.c_uint32), ("op", ctypes.c_int),
                ("axis", ctypes.c_int64), ("options", CallOptions),
                ("batch_dims", ctypes.c_int64)]


P = ctypes.POINTER
c_ctx = ctypes.c_void_p  # clg_context *
T = P(Tensor)
CT = P(ClTensor)

# --------------------------------------------------------------- prototypes

_PROTOTYPES = {
    "clg_version": (ctypes.c_uint, []),
    "clg_version_string": (ctypes.c_char_p, []),
    "clg_status_name": (ctypes.c_char_p, [c_status]),
    "clg_status_message": (ctypes.c_char_p, [c_status]),
    "clg_dtype_size": (ctypes.c_size_t, [c_dtype]),
    "clg_dtype_name": (ctypes.c_char_p, [c_dtype]),
    "clg_devices_list": (c_status, [P(DeviceInfo), ctypes.c_size_t,
                                    P(ctypes.c_size_t)]),
    "clg_context_create": (c_status, [P(c_ctx), ctypes.c_char_p]),
    "clg_context_create_from_cl": (c_status, [P(c_ctx), c_handle, c_handle,
                                              c_handle]),
    "clg_context_destroy": (None, [c_ctx]),
    "clg_context_device_name": (ctypes.c_char_p, [c_ctx]),
    "clg_context_device_vendor": (ctypes.c_char_p, [c_ctx]),
    "clg_context_device_version": (ctypes.c_char_p, [c_ctx]),
    "clg_context_device_type": (ctypes.c_int, [c_ctx]),
    "clg_context_uses_host_memory": (ctypes.c_int, [c_ctx]),
    "clg_context_uses_svm": (ctypes.c_int, [c_ctx]),
    "clg_context_max_alloc_size": (ctypes.c_uint64, [c_ctx]),
    "clg_context_cl_context": (c_handle, [c_ctx]),
    "clg_context_cl_device": (c_handle, [c_ctx]),
    "clg_context_cl_queue": (c_handle, [c_ctx]),
    "clg_context_set_validate": (c_status, [c_ctx, ctypes.c_int]),
    "clg_context_validates": (ctypes.c_int, [c_ctx]),
    # The device parameters by name (clg_param is an int): the fields are
    # the library's, asked for (param_names), never mirrored.
    "clg_param_count": (ctypes.c_int, []),
    "clg_param_name": (ctypes.c_char_p, [ctypes.c_int]),
    "clg_context_get_param": (c_status, [c_ctx, ctypes.c_int,
                                         P(ctypes.c_int64)]),
    "clg_context_set_params_text": (c_status, [c_ctx, ctypes.c_char_p]),
    "clg_context_params_env": (ctypes.c_char_p, [c_ctx]),
    "clg_gather_output_shape": (c_status, [T, T, ctypes.c_int64,
                                           P(ctypes.c_int64), ctypes.c_size_t,
                                           P(ctypes.c_size_t)]),
    "clg_gather_elements_output_shape": (c_status, [T, T, ctypes.c_int64,
                                                    P(ctypes.c_int64),
                                                    ctypes.c_size_t,
                                                    P(ctypes.c_size_t)]),
    "clg_gather": (c_status, [c_ctx, T, T, ctypes.c_int64, T]),
    "clg_gather_elements": (c_status, [c_ctx, T, T, ctypes.c_int64, T]),
    "clg_reference_gather": (c_status, [c_ctx, T, T, ctypes.c_int64, T]),
    "clg_reference_gather_elements": (c_status, [c_ctx, T, T, ctypes.c_int64,
                                                 T]),
    "clg_enqueue_gather": (c_status, [c_ctx, c_handle, CT, CT, ctypes.c_int64,
                                      CT, c_cl_uint, P(c_handle),
                                      P(c_handle)]),
    "clg_enqueue_gather_elements": (c_status, [c_ctx, c_handle, CT, CT,
                                               ctypes.c_int64, CT, c_cl_uint,
                                               P(c_handle), P(c_handle)]),
    "clg_context_finish": (c_status, [c_ctx]),
    "clg_context_finish_queue": (c_status, [c_ctx, c_handle]),
    "clg_context_finish_events": (c_status, [c_ctx, c_cl_uint, P(c_handle)]),
    "clg_context_last_error": (ctypes.c_char_p, [c_ctx]),
    "clg_context_last_cl_error": (c_cl_int, [c_ctx]),
    "clg_cl_error_name": (ctypes.c_char_p, [c_cl_int]),
    "clg_context_build_log": (ctypes.c_char_p, [c_ctx]),
}

# Functions of libraries that have a persistent program cache; bound when
# the library loaded has them (HAS_CACHE).
_CACHE_PROTOTYPES = {
    "clg_context_cache_info": (c_status, [c_ctx, P(CacheInfo)]),
    "clg_context_cache_refusal": (ctypes.c_char_p, [c_ctx]),
    "clg_context_set_cache_dir": (c_status, [c_ctx, ctypes.c_char_p]),
    "clg_context_set_cache_max": (c_status, [c_ctx, ctypes.c_uint64]),
}
HAS_CACHE = all(hasattr(lib, name) for name in _CACHE_PROTOTYPES)
if HAS_CACHE:
    _PROTOTYPES.update(_CACHE_PROTOTYPES)

# Functions of libraries that have the out-of-range modes (clg_oob_mode,
# the _ex operators with clg_call_options); bound when the library loaded
# has them (HAS_OOB). Without them every call is the plain one (raise).
OPT = P(CallOptions)
_OOB_PROTOTYPES = {
    "clg_oob_mode_name": (ctypes.c_char_p, [ctypes.c_int]),
    "clg_oob_mode_parse": (c_status, [ctypes.c_char_p, P(ctypes.c_int)]),
    "clg_gather_ex": (c_status, [c_ctx, T, T, ctypes.c_int64, T, OPT]),
    "clg_gather_elements_ex": (c_status, [c_ctx, T, T, ctypes.c_int64, T,
                                          OPT]),
    "clg_reference_gather_ex": (c_status, [c_ctx, T, T, ctypes.c_int64, T,
                                           OPT]),
    "clg_reference_gather_elements_ex": (c_status, [c_ctx, T, T,
                                                    ctypes.c_int64, T, OPT]),
    "clg_enqueue_gather_ex": (c_status, [c_ctx, c_handle, CT, CT,
                                         ctypes.c_int64, CT, c_cl_uint,
                                         P(c_handle), P(c_handle), OPT]),
    "clg_enqueue_gather_elements_ex": (c_status, [c_ctx, c_handle, CT, CT,
                                                  ctypes.c_int64, CT,
                                                  c_cl_uint, P(c_handle),
                                                  P(c_handle), OPT]),
}
HAS_OOB = all(hasattr(lib, name) for name in _OOB_PROTOTYPES)
if HAS_OOB:
    _PROTOTYPES.update(_OOB_PROTOTYPES)

# Functions of libraries that have the operator table and the generic
# calls (clg_op, clg_call); bound when the library loaded has them
# (HAS_CALLS). The operators are the library's, asked for (operators()),
# never mirrored; without them the named functions serve.
_CALL_PROTOTYPES = {
    "clg_op_count": (ctypes.c_int, []),
    "clg_op_name": (ctypes.c_char_p, [ctypes.c_int]),
    "clg_op_parse": (c_status, [ctypes.c_char_p, P(ctypes.c_int)]),
    "clg_call_set_attribute": (c_status, [P(Call), ctypes.c_int64]),
    "clg_output_shape": (c_status, [P(Call), T, T, P(ctypes.c_int64),
                                    ctypes.c_size_t, P(ctypes.c_size_t)]),
    "clg_run": (c_status, [c_ctx, P(Call), T, T, T]),
    "clg_reference": (c_status, [c_ctx, P(Call), T, T, T]),
    "clg_enqueue": (c_status, [c_ctx, c_handle, P(Call), CT, CT, CT,
                               c_cl_uint, P(c_handle), P(c_handle)]),
}
HAS_CALLS = HAS_OOB and all(hasattr(lib, name) for name in _CALL_PROTOTYPES)
if HAS_CALLS:
    _PROTOTYPES.update(_CALL_PROTOTYPES)

for _name, (_restype, _argtypes) in _PROTOTYPES.items():
    _fn = getattr(lib, _name)
    _fn.restype = _restype
    _fn.argtypes = _argtypes


def text(raw):
    """A static or library-owned C string as str (None as "")."""
    return raw.decode("utf-8", "replace") if raw else ""


def operators():
    """The operators of the library loaded, as its table has them
    (clg_op_count, clg_op_name): {ONNX op_type: clg_op value}; empty for a
    library without the table."""
    if not HAS_CALLS:
        return {}
    return {text(lib.clg_op_name(i)): i for i in range(lib.clg_op_count())}


def param_names():
    """The device parameter fields of the library loaded, in id order
    (clg_param_count, clg_param_name): a tuple of str."""
    return tuple(text(lib.clg_param_name(i))
                 for i in range(lib.clg_param_count()))


PARAM_NAMES = param_names()


VERSION = text(lib.clg_version_string())
