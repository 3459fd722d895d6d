# SPDX-License-Identifier: Apache-2.0
"""The C library through ctypes: loading, structures and prototypes,
generated from the public header, include/clgather/clgather.h.

Nothing here copies the header: at build time python/CMakeLists.txt reads
it through the C preprocessor (_cheader) into the module _api (its
functions, structs, enums and integer macros), and this module makes the
ctypes structures and prototypes from that. The library's tables (its
statuses, data types, operators, out-of-range modes and device
parameters) are asked of the library loaded, by its introspection calls.
docs/python.md, "How the binding follows the header".
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

# --------------------------------------------------------------- the header


def _header_api():
    """The header as data: the module _api written at build time, else
    (a source tree that CMake has not configured) the header of the
    source tree read now, through the C compiler."""
    try:
        from ._api import API
        return API
    except ImportError:
        pass
    here = os.path.dirname(os.path.abspath(__file__))
    header = os.path.join(here, "..", "..", "..", "include", "clgather",
                          "clgather.h")
    if not os.path.exists(header):
        raise ImportError(
            "clgather: the package has no _api module (generated from "
            "clgather.h at build time); reinstall it (pip install ./python)")
    from . import _cheader
    return _cheader.parse(header)


API = _header_api()
DEFINES = API["defines"]
MAX_RANK = DEFINES["CLG_MAX_RANK"]
CACHE_PATH_MAX = DEFINES["CLG_CACHE_PATH_MAX"]


def enum(name):
    """The enumerators of the header's enum `name` without their common
    prefix: enum("clg_device_type") is {"OTHER": 0, "CPU": 1, ...}."""
    rows = API["enums"][name]
    prefix = os.path.commonprefix([row[0] for row in rows])
    prefix = prefix[:prefix.rfind("_") + 1]
    return {row[0][len(prefix):]: row[1] for row in rows}


# --------------------------------------------------------------- types

# The C integer types of the header, as ctypes has them. An enum is an int
# in the C ABIs clgather supports (each enum's values fit one).
_SCALARS = {
    "void": None, "char": ctypes.c_char, "signed char": ctypes.c_byte,
    "unsigned char": ctypes.c_ubyte, "short": ctypes.c_short,
    "unsigned short": ctypes.c_ushort, "int": ctypes.c_int,
    "unsigned int": ctypes.c_uint, "long": ctypes.c_long,
    "unsigned long": ctypes.c_ulong, "long long": ctypes.c_longlong,
    "unsigned long long": ctypes.c_ulonglong, "float": ctypes.c_float,
    "double": ctypes.c_double, "size_t": ctypes.c_size_t,
    "int8_t": ctypes.c_int8, "uint8_t": ctypes.c_uint8,
    "int16_t": ctypes.c_int16, "uint16_t": ctypes.c_uint16,
    "int32_t": ctypes.c_int32, "uint32_t": ctypes.c_uint32,
    "int64_t": ctypes.c_int64, "uint64_t": ctypes.c_uint64,
    "intptr_t": ctypes.c_ssize_t, "uintptr_t": ctypes.c_size_t,
}

# clg_<name> struct -> its ctypes.Structure, made from the header's
# fields in ctype below (in a dict, not as module names: the binding uses
# few of them by name).
STRUCTS = {}
# clg_<name> struct -> the structure the binding passes for it where it
# differs from the header's whole one (Call, below).
PASSED = {}


def ctype(spec):
    """The ctypes type of a type as _cheader names it: "int64_t*",
    "struct clg_tensor*", "enum clg_dtype", "opaque clg_context**",
    "handle" (an OpenCL object: cl_mem, cl_event, ...). A char pointer is
    c_char_p (bytes in, bytes out), any other pointer to void, to an opaque
    struct or an OpenCL object is c_void_p."""
    base = spec.rstrip("*")
    stars = len(spec) - len(base)
    if base == "handle" or base.startswith("opaque "):
        if base != "handle":
            stars -= 1  # clg_context * is the handle
        result = ctypes.c_void_p
    elif base.startswith("enum "):
        result = ctypes.c_int
    elif base.startswith("struct "):
        name = base.split()[1]
        result = PASSED.get(name) or _struct(name)
    elif base in ("char", "void") and stars:
        result = ctypes.c_char_p if base == "char" else ctypes.c_void_p
        stars -= 1
    else:
        result = _SCALARS[base]
    for _ in range(stars):
        result = ctypes.POINTER(result)
    return result


def _struct(name):
    """The ctypes.Structure of header struct `name`, made on first use."""
    if name not in STRUCTS:
        fields = []
        for field, spec, _, length in API["structs"][name]:
            member = ctype(spec)
            fields.append((field, member if length is None
                           else member * length))
        STRUCTS[name] = type(name, (ctypes.Structure,),
                             {"_fields_": fields, "__doc__": name,
                              "__module__": __name__})
    return STRUCTS[name]


for _name in API["structs"]:
    _struct(_name)

Tensor = STRUCTS["clg_tensor"]
ClTensor = STRUCTS["clg_cl_tensor"]
String = STRUCTS["clg_string"]
DeviceInfo = STRUCTS["clg_device_info"]
CallOptions = STRUCTS["clg_call_options"]


def prefix(struct, last):
    """A structure of the fields of `struct` up to and including `last`,
    at the same offsets."""
    names = [field[0] for field in struct._fields_]
    return type(struct.__name__, (ctypes.Structure,), {
        "_fields_": struct._fields_[:names.index(last) + 1],
        "__doc__": "%s through %s" % (struct.__name__, last),
        "__module__": __name__})


# The clg_call the binding passes: the header's fields through the last
# one it sets (batch_dims). The library reads `size` bytes (the binding
# sets ctypes.sizeof(Call)), so the fields after it keep their defaults
# (the device tensors' byte offsets: 0, where the binding puts PyOpenCL
# arrays), and a library older than a field takes its zero bytes.
CALL_LAST_FIELD = "batch_dims"
Call = PASSED["clg_call"] = prefix(STRUCTS["clg_call"], CALL_LAST_FIELD)

c_handle = ctypes.c_void_p  # cl_context, cl_device_id, cl_mem, ...
c_ctx = ctypes.c_void_p  # clg_context *

# --------------------------------------------------------------- prototypes

# Functions of the header that the binding leaves unbound on purpose:
# name -> why (none: it binds every one; the test that compares the
# binding with the header reads this).
NOT_BOUND = {}

# Every function of the header that the library loaded exports gets its
# prototype; those it lacks (an older library, through CLGATHER_LIBRARY)
# are listed here and left out.
MISSING = []
for _name, (_ret, _params) in API["functions"].items():
    if _name in NOT_BOUND:
        continue
    if not hasattr(lib, _name):
        MISSING.append(_name)
        continue
    _fn = getattr(lib, _name)
    _fn.restype = ctype(_ret[0])
    _fn.argtypes = [ctype(p[0]) for p in _params]


def _has(*names):
    return all(hasattr(lib, name) for name in names)


# A library with the persistent program cache.
HAS_CACHE = _has("clg_context_cache_info", "clg_context_cache_refusal",
                 "clg_context_set_cache_dir", "clg_context_set_cache_max")
# A library with the out-of-range modes (clg_oob_mode, the _ex operators
# with clg_call_options). Without them every call is the plain one
# (raise).
HAS_OOB = _has("clg_oob_mode_name", "clg_oob_mode_parse", "clg_gather_ex",
               "clg_gather_elements_ex", "clg_reference_gather_ex",
               "clg_reference_gather_elements_ex", "clg_enqueue_gather_ex",
               "clg_enqueue_gather_elements_ex")
# A library with the operator table and the generic calls (clg_op,
# clg_call). The operators are the library's, asked for (operators()),
# never mirrored; without them the named functions serve.
HAS_CALLS = HAS_OOB and _has(
    "clg_op_count", "clg_op_name", "clg_op_parse", "clg_call_set_attribute",
    "clg_output_shape", "clg_run", "clg_reference", "clg_enqueue")


def type_size(name):
    """sizeof of a public type in the library loaded (clg_type_size), or
    None for a library without the call or that does not know it."""
    if not hasattr(lib, "clg_type_size"):
        return None
    return lib.clg_type_size(name.encode()) or None


# The clg_call of an enqueue on PyOpenCL arrays: through the device
# tensors' byte offsets, where the library loaded has them (its clg_call
# reaches output_offset); None where it has not, and then an array at an
# offset is copied to offset 0 first.
_FULL_CALL = STRUCTS["clg_call"]
CallAt = (prefix(_FULL_CALL, "output_offset")
          if "output_offset" in [f[0] for f in _FULL_CALL._fields_] and
          HAS_CALLS and (type_size("clg_call") or 0) >=
          _FULL_CALL.output_offset.offset + 8 else None)

_CACHE_INFO = STRUCTS["clg_cache_info"]
# The bytes the library writes into a clg_cache_info: its own size, which
# a newer library's may exceed (4 KiB more than the header's for a library
# that cannot say).
_CACHE_INFO_BYTES = type_size("clg_cache_info") or \
    ctypes.sizeof(_CACHE_INFO) + 4096


class CacheInfo(_CACHE_INFO):
    """clg_cache_info, followed by room for what a newer library appended
    to it."""
    _fields_ = [("_spare", ctypes.c_char * max(
        1, _CACHE_INFO_BYTES - ctypes.sizeof(_CACHE_INFO)))]


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
