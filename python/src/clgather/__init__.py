# SPDX-License-Identifier: Apache-2.0
"""clgather: the ONNX operators Gather and GatherElements on OpenCL devices,
from NumPy, DLPack (PyTorch, JAX, array API CPU arrays) and PyOpenCL,
bit-exact.

    >>> import numpy as np, clgather
    >>> clgather.gather(np.arange(6.0).reshape(2, 3), [2, 0], axis=1)
    array([[2., 0.],
           [5., 3.]])

The binding is a thin layer over the C library (libclgather, through
ctypes); see docs/python.md in the repository.
"""

from . import _lib, reference
from ._context import (Context, Device, devices, gather, gather_elements,
                       gather_nd)
from ._errors import *  # noqa: F401,F403 (one class per status)
from ._errors import __all__ as _error_names
from ._host import OOB_MODES
from ._pyopencl import finish

__version__ = _lib.VERSION
library_path = _lib.LIBRARY_PATH

__all__ = ["Context", "Device", "devices", "gather", "gather_elements",
           "gather_nd",
           "reference", "finish", "OOB_MODES", "library_path"]
__all__ += list(_error_names)
