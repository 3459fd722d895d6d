# SPDX-License-Identifier: Apache-2.0
"""The library's CPU reference, written from the ONNX formulas and
independent of the device path (clg_reference on a clg_call, or
clg_reference_gather and friends): no OpenCL device is needed."""

from . import _host

__all__ = ["gather", "gather_elements", "gather_nd"]


def gather(data, indices, axis=0, *, out=None, oob="raise"):
    """ONNX Gather on the host; arguments as clgather.gather."""
    call = _host.operation("reference", "gather", _host.call_options(oob))
    return _host.run(call, None, _host.shape_function("gather"), data,
                     indices, axis, out)


def gather_elements(data, indices, axis=0, *, out=None, oob="raise"):
    """ONNX GatherElements on the host; arguments as
    clgather.gather_elements."""
    call = _host.operation("reference", "gather_elements",
                           _host.call_options(oob))
    return _host.run(call, None, _host.shape_function("gather_elements"),
                     data, indices, axis, out)


def gather_nd(data, indices, batch_dims=0, *, out=None, oob="raise"):
    """ONNX GatherND on the host; arguments as clgather.gather_nd."""
    call = _host.operation("reference", "gather_nd", _host.call_options(oob))
    return _host.run(call, None, _host.shape_function("gather_nd"), data,
                     indices, _host.check_axis(batch_dims, "batch_dims"), out)
