# SPDX-License-Identifier: Apache-2.0
"""Device parameters by name: the binding asks the library for its fields
(clg_param_count, clg_param_name) and mirrors no struct."""

import ctypes

import pytest

import clgather
from clgather import _lib


def test_fields_are_the_librarys():
    lib = _lib.lib
    names = [lib.clg_param_name(i).decode()
             for i in range(lib.clg_param_count())]
    assert names == ["wg", "strip", "pack", "chunk", "unit", "prefetch",
                     "nt", "norm", "small", "host"]
    assert list(_lib.PARAM_NAMES) == names
    assert lib.clg_param_name(len(names)) is None
    # No ctypes mirror of clg_params or clg_params_entry is left.
    assert not any(isinstance(v, type) and issubclass(v, ctypes.Structure)
                   and "params" in (v.__doc__ or "")
                   for v in vars(_lib).values())
    with clgather.Context() as ctx:
        assert list(ctx.params) == names


def test_set_and_read_by_name_onto_the_row():
    with clgather.Context() as ctx:
        row = ctx.params
        ctx.params = {"small": 16, "wg": 32}
        assert ctx.params == dict(row, small=16, wg=32)
        ptr = ctx.handle
        value = ctypes.c_int64()
        assert _lib.lib.clg_context_get_param(ptr, 8, ctypes.byref(value)) == 0
        assert value.value == 16
        with pytest.raises(clgather.InvalidArgumentError,
                           match="small takes a number in"):
            ctx.params = {"small": 1025}
        assert ctx.params == dict(row, small=16, wg=32)
        ctx.params = None
        assert ctx.params == row
