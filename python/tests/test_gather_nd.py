# SPDX-License-Identifier: Apache-2.0
"""clgather.gather_nd and clgather.reference.gather_nd against ONNX's
examples and NumPy advanced indexing per batch position."""

import numpy as np
import pytest

import clgather


def oracle(data, indices, batch_dims=0):
    """GatherND by NumPy advanced indexing, one batch position at a time."""
    b = batch_dims
    batch = data.shape[:b]
    k = indices.shape[-1]
    out = np.empty(indices.shape[:-1] + data.shape[b + k:], data.dtype)
    for i in np.ndindex(*batch):
        idx = indices[i].reshape(-1, k)
        rows = data[i][tuple(idx.T)]
        out[i] = rows.reshape(indices.shape[b:-1] + data.shape[b + k:])
    return out


DATA = np.arange(8, dtype=np.int32).reshape(2, 2, 2)


@pytest.mark.parametrize("run", [clgather.reference.gather_nd,
                                 clgather.gather_nd])
def test_onnx_examples(run):
    assert run(DATA[0], np.array([[0, 0], [1, 1]])).tolist() == [0, 3]
    assert run(DATA, np.array([[[0, 1]], [[1, 0]]])).tolist() == \
        [[[2, 3]], [[4, 5]]]
    assert run(DATA, np.array([[1], [0]]), 1).tolist() == [[2, 3], [4, 5]]
    assert run(DATA, np.array([[1], [0]]), batch_dims=1).tolist() == \
        [[2, 3], [4, 5]]


@pytest.mark.parametrize("run", [clgather.reference.gather_nd,
                                 clgather.gather_nd])
@pytest.mark.parametrize("dtype", [np.uint8, np.float16, np.float32,
                                   np.float64, np.complex128])
def test_random_against_numpy(run, dtype):
    rng = np.random.default_rng(38)
    for b in range(3):
        for k in range(1, 4 - b):
            shape = (2, 3, 4)[: b] + tuple(rng.integers(1, 5, 3 - b))
            data = rng.integers(0, 100, shape).astype(dtype)
            ishape = shape[:b] + (5, k)
            idx = np.stack([rng.integers(-shape[b + c], shape[b + c], ishape[:-1])
                            for c in range(k)], axis=-1)
            for itype in (np.int32, np.int64):
                got = run(data, idx.astype(itype), b)
                want = oracle(data, idx, b)
                assert got.shape == want.shape
                assert got.tobytes() == want.tobytes()


def test_modes_and_errors():
    data = np.arange(10, 16, dtype=np.int32).reshape(2, 3)
    idx = np.array([[2, 5], [-3, -4], [0, 1]])
    assert clgather.gather_nd(data, idx, oob="wrap").tolist() == [12, 15, 11]
    assert clgather.gather_nd(data, idx, oob="clip").tolist() == [15, 10, 11]
    assert clgather.gather_nd(data, idx, oob="fill").tolist() == [0, 0, 11]
    with pytest.raises(clgather.IndexOutOfRangeError,
                       match=r"indices\[0\]\[0\] = 2 is out of range "
                             r"\[-2, 1\] for data dim 0 of size 2"):
        clgather.gather_nd(data, idx)
    with pytest.raises(clgather.InvalidArgumentError):
        clgather.gather_nd(data, np.array([[1], [0]]), batch_dims=2)


@pytest.mark.parametrize("run", [clgather.reference.gather_nd,
                                 clgather.gather_nd])
def test_batch_dims_is_an_integer(run):
    # numpy.take's rule, as for the axis: a bool is refused, by its name
    for value in (True, np.bool_(False), np.array(True), 1.0, "1"):
        with pytest.raises(TypeError,
                           match="an integer is required for batch_dims"):
            run(DATA, np.array([[0, 1]]), value)
    assert run(DATA, np.array([[1], [0]]), np.int64(1)).tolist() == [
        [2, 3], [4, 5]]


@pytest.mark.parametrize("run", [clgather.reference.gather_nd,
                                 clgather.gather_nd])
def test_batch_dims_past_int64_names_batch_dims(run):
    # As the library's own refusal of a batch_dims out of range
    # (INVALID_ARGUMENT naming batch_dims), never an axis error
    for value in (2**63, -2**63 - 1, 2**70):
        with pytest.raises(clgather.InvalidArgumentError,
                           match=r"^batch_dims %d does not fit int64$" %
                                 value) as info:
            run(DATA, np.array([[0, 1]]), value)
        assert not isinstance(info.value, clgather.InvalidAxisError)
