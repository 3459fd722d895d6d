# SPDX-License-Identifier: Apache-2.0
"""The library's CPU reference, written from the ONNX formulas and
independent of the device path (clg_reference_gather,
clg_reference_gather_elements): no OpenCL device is needed."""

from . import _host, _lib

__all__ = ["gather", "gather_elements"]


def gather(data, indices, axis=0, *, out=None, oob="raise"):
    """ONNX Gather on the host; arguments as clgather.gather."""
    call = _host.operator_call("clg_reference_gather",
                               _host.call_options(oob))
    return _host.run(call, None,
                     _lib.lib.clg_gather_output_shape, data, indices, axis,
                     out)


def gather_elements(data, indices, axis=0, *, out=None, oob="raise"):
    """ONNX GatherElements on the host; arguments as
    clgather.gather_elements."""
    call = _host.operator_call("clg_reference_gather_elements",
                               _host.call_options(oob))
    return _host.run(call, None,
                     _lib.lib.clg_gather_elements_output_shape, data,
                     indices, axis, out)
