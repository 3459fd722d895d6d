# SPDX-License-Identifier: Apache-2.0
"""Tiny host-memory calls on the calling thread (the `host` device
parameter): NumPy's bytes, the device path's errors, and last_path."""
import numpy as np
import pytest

import clgather


def test_tiny_calls_run_on_the_host():
    data = np.arange(24, dtype=np.float32).reshape(4, 6)
    idx = np.array([3, -1, 0], dtype=np.int64)
    with clgather.Context() as ctx:
        assert ctx.last_path is None
        ctx.params = {"host": 4096}
        out = ctx.gather(data, idx, axis=1)
        assert ctx.last_path == "host"
        assert out.tobytes() == np.take(data, idx, axis=1).tobytes()
        picks = np.array([[5, 0], [1, 1], [0, 2], [4, 3]], dtype=np.int32)
        out = ctx.gather_elements(data, picks, axis=1)
        assert ctx.last_path == "host"
        assert out.tobytes() == np.take_along_axis(data, picks, 1).tobytes()
        tuples = np.array([[3, 5], [0, 0]], dtype=np.int64)
        assert ctx.gather_nd(data, tuples).tolist() == [23.0, 0.0]
        assert ctx.last_path == "host"
        with pytest.raises(clgather.IndexOutOfRangeError,
                           match=r"indices\[1\] = 6 is out of range"):
            ctx.gather(data, np.array([0, 6]), axis=1)
        assert ctx.last_path == "host"
        ctx.params = {"host": 0}
        out = ctx.gather(data, idx, axis=1)
        assert ctx.last_path == "device"
        assert out.tobytes() == np.take(data, idx, axis=1).tobytes()
