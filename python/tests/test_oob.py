# SPDX-License-Identifier: Apache-2.0
"""Property tests of the out-of-range modes (oob="wrap", "clip", "fill"):
with index values far outside [-s, s-1] on both sides (|v| up to 3s and
the index type's and int64's extremes), every device and the library's
CPU reference give, bit for bit, what an oracle written here from the
header's formulas (CLG_OOB_TABLE) gives:

- wrap: numpy.take(mode="wrap") (numpy.take_along_axis on v mod s for
  GatherElements);
- clip: v clamped to [-s, s-1], then a negative value plus s; this is
  not numpy's mode="clip", which clamps to [0, s-1] and so differs for
  negative values;
- fill: in-range values as ONNX, and all zero bytes (the empty string for
  bytes) in the output an out-of-range value selects: for Gather its
  whole inner block.
"""

import numpy as np
from hypothesis import given, note, settings
from hypothesis import strategies as st

import clgather
from conftest import EXAMPLES
from test_properties import assert_bits, data_arrays

MODES = ("wrap", "clip", "fill")
# Examples per mode and operator: half the other properties' count (six
# properties; together about 20 s on POCL on two cores).
OOB_EXAMPLES = max(EXAMPLES // 2, 10)
INT64 = np.iinfo(np.int64)
INDEX_DTYPES = st.sampled_from([np.int64, np.int32, np.int16, np.uint8])
# Dimensions 1-5: an empty output has nothing out of range to resolve
# (test_properties.py draws empty tensors, test_api.py empty outputs and
# empty axes under every mode).
DIMS = st.integers(1, 5)


def far_index_values(draw, shape, size, dtype):
    """Values in [-3 size, 3 size] and, one time in four, an extreme of
    the index type or of int64 (clamped to the type)."""
    info = np.iinfo(dtype)
    extremes = sorted({min(max(v, int(info.min)), int(info.max)) for v in
                       (int(info.min), int(info.max), int(INT64.min),
                        int(INT64.max), 3 * size + 1, -3 * size - 1)})
    near = st.integers(-3 * size, 3 * size)
    count = int(np.prod(shape))
    values = draw(st.lists(st.one_of(near, near, near,
                                     st.sampled_from(extremes)),
                           min_size=count, max_size=count))
    values = [min(max(v, int(info.min)), int(info.max)) for v in values]
    return np.array(values, dtype=dtype).reshape(shape)


@st.composite
def oob_gather_cases(draw):
    shape = tuple(draw(st.lists(DIMS, min_size=1, max_size=4)))
    axis = draw(st.integers(-len(shape), len(shape) - 1))
    size = shape[axis]
    idx_shape = tuple(draw(st.lists(DIMS, max_size=3)))
    idx = far_index_values(draw, idx_shape, size, draw(INDEX_DTYPES))
    return draw(data_arrays(shape)), idx, axis, draw(st.booleans())


@st.composite
def oob_gather_elements_cases(draw):
    shape = tuple(draw(st.lists(DIMS, min_size=1, max_size=4)))
    axis = draw(st.integers(-len(shape), len(shape) - 1))
    idx_shape = tuple(draw(DIMS) if d == axis % len(shape)
                      else draw(st.integers(1, n)) for d, n in
                      enumerate(shape))
    size = shape[axis]
    idx = far_index_values(draw, idx_shape, size, draw(INDEX_DTYPES))
    return draw(data_arrays(shape)), idx, axis, draw(st.booleans())


# ------------------------------------------------------------ the oracle


def clip_positions(v, size):
    """CLIP: clamp to [-s, s-1], then a negative value plus s."""
    c = np.clip(v.astype(np.int64), -size, size - 1)
    return np.where(c < 0, c + size, c)


def fill_positions(v, size):
    """FILL: (position, in range) per value; out-of-range values get
    position 0, their output zeroed afterwards."""
    v = v.astype(np.int64)
    valid = (v >= -size) & (v <= size - 1)
    inside = np.where(valid, v, 0)
    return np.where(inside < 0, inside + size, inside), valid


def wrap_for_numpy(v, size):
    """The indices numpy.take(mode="wrap") is given: as they are up to
    |v| = 3 s; beyond, first reduced with Python's %, the same floor
    modulo (NumPy folds by repeated subtraction, which does not end in
    reasonable time at int64's extremes)."""
    return np.array([int(x) if abs(int(x)) <= 3 * size else int(x) % size
                     for x in v.reshape(-1)], np.int64).reshape(v.shape)


def zero_where(out, mask):
    """out with every element where mask (broadcast to out) is True set
    to zero bytes, the other bytes unchanged."""
    out = np.ascontiguousarray(out)
    if out.size == 0:
        return out
    rows = np.frombuffer(bytearray(out.tobytes()), np.uint8).reshape(
        out.size, out.dtype.itemsize)
    rows[np.broadcast_to(mask, out.shape).reshape(-1)] = 0
    return np.frombuffer(rows.tobytes(), out.dtype).reshape(out.shape)


def oracle_gather(data, idx, axis, mode):
    ax = axis % data.ndim
    size = data.shape[ax]
    shape = data.shape[:ax] + idx.shape + data.shape[ax + 1:]
    if int(np.prod(shape)) == 0:
        return np.empty(shape, data.dtype)
    if mode == "wrap":
        out = np.take(data, wrap_for_numpy(idx, size), axis=ax, mode="wrap")
    elif mode == "clip":
        out = np.take(data, clip_positions(idx, size), axis=ax)
    else:
        positions, valid = fill_positions(idx, size)
        out = np.take(data, positions, axis=ax)
        out = zero_where(out, (~valid).reshape(
            (1,) * ax + idx.shape + (1,) * (data.ndim - ax - 1)))
    return np.asarray(out, dtype=data.dtype).reshape(shape)


def oracle_gather_elements(data, idx, axis, mode):
    ax = axis % data.ndim
    size = data.shape[ax]
    if idx.size == 0:
        return np.empty(idx.shape, data.dtype)
    # GatherElements reads the corner of data that indices' non-axis
    # dimensions cover; take_along_axis would broadcast instead.
    corner = data[tuple(slice(None) if d == ax else slice(0, n)
                        for d, n in enumerate(idx.shape))]
    if mode == "wrap":
        positions = np.mod(idx.astype(np.int64), size)
    elif mode == "clip":
        positions = clip_positions(idx, size)
    else:
        positions, valid = fill_positions(idx, size)
    out = np.take_along_axis(corner, positions, ax)
    if mode == "fill":
        out = zero_where(out, ~valid)
    return out


def test_oracle_on_known_values():
    # The oracle itself, against values worked out by hand (s = 3).
    data = np.array([10, 11, 12], np.int32)
    idx = np.array([-9, -4, -3, -1, 0, 2, 3, 5, 9, INT64.min, INT64.max])
    assert oracle_gather(data, idx, 0, "wrap").tolist() == [
        10, 12, 10, 12, 10, 12, 10, 12, 10, 11, 11]
    assert oracle_gather(data, idx, 0, "clip").tolist() == [
        10, 10, 10, 12, 10, 12, 12, 12, 12, 10, 12]
    assert oracle_gather(data, idx, 0, "fill").tolist() == [
        0, 0, 10, 12, 10, 12, 0, 0, 0, 0, 0]
    for mode in MODES:
        assert oracle_gather_elements(data, idx, 0, mode).tolist() == \
            oracle_gather(data, idx, 0, mode).tolist()
    # numpy's own clip differs for negative values: -1 is 0 there.
    assert np.take(data, [-1], mode="clip").tolist() == [10]
    assert oracle_gather(data, np.array([-1]), 0, "clip").tolist() == [12]
    strings = np.array([b"ab", b"c"])
    assert oracle_gather(strings, np.array([[1, 7]]), 0, "fill").tobytes() \
        == b"c\0" + b"\0\0"


# ------------------------------------------------------------ properties


def check_mode(contexts, op, data, idx, axis, use_out, mode, want):
    note("%s oob=%s: data %s %s, indices %s %s, axis %d, out=%s" % (
        op, mode, data.dtype, data.shape, idx.dtype, idx.shape, axis,
        use_out))
    calls = [("reference", getattr(clgather.reference, op))]
    calls += [(d.spec, getattr(ctx, op)) for d, ctx in contexts]
    for where, call in calls:
        note(where)
        if use_out:  # every byte must be written: start from 0x5a
            out = np.frombuffer(b"\x5a" * (want.size * want.itemsize),
                                want.dtype).reshape(want.shape).copy()
            assert call(data, idx, axis, out=out, oob=mode) is out
            assert_bits(out, want)
        else:
            assert_bits(call(data, idx, axis, oob=mode), want)


def _gather_property(mode):
    @settings(max_examples=OOB_EXAMPLES)
    @given(oob_gather_cases())
    def test(contexts, case):
        data, idx, axis, use_out = case
        check_mode(contexts, "gather", data, idx, axis, use_out, mode,
                   oracle_gather(data, idx, axis, mode))
    return test


def _gather_elements_property(mode):
    @settings(max_examples=OOB_EXAMPLES)
    @given(oob_gather_elements_cases())
    def test(contexts, case):
        data, idx, axis, use_out = case
        check_mode(contexts, "gather_elements", data, idx, axis, use_out,
                   mode, oracle_gather_elements(data, idx, axis, mode))
    return test


test_gather_oob_wrap = _gather_property("wrap")
test_gather_oob_clip = _gather_property("clip")
test_gather_oob_fill = _gather_property("fill")
test_gather_elements_oob_wrap = _gather_elements_property("wrap")
test_gather_elements_oob_clip = _gather_elements_property("clip")
test_gather_elements_oob_fill = _gather_elements_property("fill")
