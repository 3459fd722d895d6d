# SPDX-License-Identifier: Apache-2.0
"""DLPack in: any object with ``__dlpack__`` in host memory (a PyTorch or
JAX CPU tensor, an array API array) as data, indices or out, through
``numpy.from_dlpack``: a NumPy array over the producer's own memory, so
that nothing is copied where the layout allows (a strided producer is
copied once into C order later, as a strided NumPy array is). An object
on another DLPack device (CUDA, ROCm, OpenCL, ...) is refused naming
that device before any memory is touched.

NumPy arrays themselves (and their subclasses) never come here: they go
through numpy.asarray as before, which keeps their byte order.
"""

import numpy as np

from . import _errors

# DLDeviceType (dlpack.h) values and names.
_DEVICE_NAMES = {
    1: "CPU", 2: "CUDA", 3: "CUDAHost", 4: "OpenCL", 7: "Vulkan",
    8: "Metal", 9: "VPI", 10: "ROCM", 11: "ROCMHost", 12: "ExtDev",
    13: "CUDAManaged", 14: "OneAPI", 15: "WebGPU", 16: "Hexagon",
    17: "MAIA",
}

# The device types whose memory is plain host memory the CPU reads and
# writes as it is: CPU, and the page-locked host memory of CUDA and ROCm.
_HOST_DEVICES = (1, 3, 11)


def is_producer(value):
    """True for an object that offers DLPack and is not a NumPy array
    (NumPy arrays, masked ones included, keep their own path)."""
    return (not isinstance(value, np.ndarray) and
            hasattr(type(value), "__dlpack__"))


def device_name(device_type):
    """A DLPack device type in words: "device kDLCUDA (device type 2)";
    "device type 99" for one this table does not know."""
    name = _DEVICE_NAMES.get(device_type)
    if name is None:
        return "device type %d" % device_type
    return "device kDL%s (device type %d)" % (name, device_type)


def _check_device(value, name):
    """InvalidArgumentError, naming the device, for a producer whose
    ``__dlpack_device__()`` is not host memory; nothing for one without
    ``__dlpack_device__`` (numpy.from_dlpack then reads the device from
    the capsule and refuses what it cannot read)."""
    query = getattr(value, "__dlpack_device__", None)
    if query is None:
        return
    device = query()
    try:
        device_type, device_id = (int(part) for part in device)
    except (TypeError, ValueError):
        _errors.raise_status(
            "INVALID_ARGUMENT", "%s: __dlpack_device__() returned %r, not "
            "(device_type, device_id)" % (name, device))
    if device_type not in _HOST_DEVICES:
        hint = ("pass a pyopencl.array.Array for device memory"
                if device_type == 4 else
                "copy it to the CPU first (e.g. tensor.cpu(), "
                "jax.device_put(x, jax.devices('cpu')[0]))")
        _errors.raise_status(
            "INVALID_ARGUMENT",
            "%s (%s) is on DLPack %s, id %d: clgather reads host "
            "memory (kDLCPU) through DLPack; %s" %
            (name, type(value).__name__, device_name(device_type),
             device_id, hint))


def as_numpy(value, name, out=False):
    """A DLPack producer as a NumPy array over its memory
    (numpy.from_dlpack). A producer refused by NumPy (a dtype DLPack
    NumPy cannot read, such as bfloat16, ...) falls back to
    numpy.asarray when it has ``__array__`` (as PyTorch and JAX arrays
    do), else is InvalidArgumentError with NumPy's reason. With out=True
    (the producer is ``out``) there is no fallback, which could write
    into a copy, and a read-only result is InvalidArgumentError."""
    _check_device(value, name)
    from_dlpack = getattr(np, "from_dlpack", None)
    if from_dlpack is None:  # NumPy < 1.22
        if hasattr(value, "__array__") and not out:
            return np.asarray(value)
        _errors.raise_status(
            "INVALID_ARGUMENT", "%s (%s) is read through DLPack, which "
            "needs NumPy >= 1.22 (numpy.from_dlpack); this is NumPy %s" %
            (name, type(value).__name__, np.__version__))
    try:
        array = from_dlpack(value)
    except (BufferError, RuntimeError, TypeError, ValueError) as error:
        reason = "numpy.from_dlpack cannot read this DLPack producer: %s" % (
            error,)
        if hasattr(value, "__array__") and not out:
            try:
                return np.asarray(value)
            except (BufferError, RuntimeError, TypeError,
                    ValueError) as second:
                # PyTorch's bfloat16, a tensor that requires grad, ...
                reason += "; nor numpy.asarray: %s" % (second,)
        _errors.raise_status(
            "INVALID_ARGUMENT", "%s (%s): %s" %
            (name, type(value).__name__, reason))
    if out and not array.flags.writeable:
        _errors.raise_status(
            "INVALID_ARGUMENT", "%s (%s) is read-only through DLPack (its "
            "producer marks it so, or speaks DLPack before 1.0, which "
            "NumPy reads as read-only); pass a writable NumPy array, e.g. "
            "tensor.numpy()" % (name, type(value).__name__))
    return array
