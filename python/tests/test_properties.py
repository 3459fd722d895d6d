# SPDX-License-Identifier: Apache-2.0
"""Property tests: any shape, dtype, axis and index tensor Hypothesis draws
gives, on every device and on the library's CPU reference, the bytes that
numpy.take / numpy.take_along_axis give; out-of-range indices raise
IndexOutOfRangeError and leave `out` as it was."""

import numpy as np
from hypothesis import assume, given, note, settings
from hypothesis import strategies as st

import clgather
from conftest import EXAMPLES

try:
    import ml_dtypes
    BFLOAT16 = [np.dtype(ml_dtypes.bfloat16)]
except ImportError:
    BFLOAT16 = []

DTYPES = [np.dtype(t) for t in (
    np.bool_, np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32,
    np.int64, np.uint64, np.float16, np.float32, np.float64, np.complex64,
    np.complex128, "S1", "S3", "S8", "S16", ">f4", ">i8")] + BFLOAT16

# Bit patterns a byte-mover must keep, per float width: -0.0, the smallest
# and largest subnormal, a quiet NaN with a payload, a signalling NaN, a
# negative NaN, infinity.
SPECIALS = {
    2: [0x8000, 0x0001, 0x03FF, 0x7E01, 0x7C01, 0xFE00, 0x7C00],
    4: [0x80000000, 0x00000001, 0x007FFFFF, 0x7FC00001, 0x7F800001,
        0xFFC00000, 0x7F800000],
    8: [0x8000000000000000, 0x1, 0x000FFFFFFFFFFFFF, 0x7FF8000000000001,
        0x7FF0000000000001, 0xFFF8000000000000, 0x7FF0000000000000],
}
BF16_SPECIALS = [0x8000, 0x0001, 0x007F, 0x7FC1, 0x7F81, 0xFFC0, 0x7F80]


@st.composite
def data_arrays(draw, shape, dtype=None):
    """An array of `shape` with random bytes, float special values mixed
    in, sometimes in Fortran order (not C-contiguous)."""
    dtype = dtype or draw(st.sampled_from(DTYPES))
    count = int(np.prod(shape))
    raw = draw(st.binary(min_size=count * dtype.itemsize,
                         max_size=count * dtype.itemsize))
    data = np.frombuffer(raw, dtype=dtype).copy().reshape(shape)
    if dtype.kind == "b":  # NumPy itself keeps only bytes 0 and 1 as bools
        data.view(np.uint8)[...] &= 1
    if dtype.kind in "fc" or dtype in BFLOAT16:
        width = dtype.itemsize // 2 if dtype.kind == "c" else dtype.itemsize
        specials = BF16_SPECIALS if dtype in BFLOAT16 else SPECIALS[width]
        bits = data.reshape(-1).view(np.dtype("u%d" % width).newbyteorder(
            dtype.byteorder if dtype.byteorder in "<>" else "="))
        spots = draw(st.lists(st.integers(0, max(bits.size - 1, 0)),
                              max_size=min(bits.size, 8)))
        for spot in spots:
            bits[spot] = draw(st.sampled_from(specials))
    if draw(st.booleans()):
        data = np.asfortranarray(data)
    return data


def index_values(draw, shape, size, dtype):
    if size == 0:
        return np.zeros(shape, dtype)
    low = 0 if np.dtype(dtype).kind == "u" else -size
    values = draw(st.lists(st.integers(low, size - 1),
                           min_size=int(np.prod(shape)),
                           max_size=int(np.prod(shape))))
    return np.array(values, dtype=dtype).reshape(shape)


INDEX_DTYPES = st.sampled_from([np.int64, np.int32, np.int32, np.int64,
                                np.int16, np.uint8])


@st.composite
def gather_cases(draw):
    shape = tuple(draw(st.lists(st.integers(0, 5), min_size=1, max_size=4)))
    axis = draw(st.integers(-len(shape), len(shape) - 1))
    size = shape[axis]
    idx_shape = tuple(draw(st.lists(st.integers(0, 4), max_size=3)))
    if size == 0:
        assume(0 in idx_shape)
    idx = index_values(draw, idx_shape, size, draw(INDEX_DTYPES))
    return draw(data_arrays(shape)), idx, axis


@st.composite
def gather_elements_cases(draw):
    shape = tuple(draw(st.lists(st.integers(0, 5), min_size=1, max_size=4)))
    axis = draw(st.integers(-len(shape), len(shape) - 1))
    idx_shape = tuple(draw(st.integers(0, 4)) if d == axis % len(shape)
                      else draw(st.integers(0, n)) for d, n in
                      enumerate(shape))
    size = shape[axis]
    if size == 0:
        assume(0 in idx_shape)
    idx = index_values(draw, idx_shape, size, draw(INDEX_DTYPES))
    return draw(data_arrays(shape)), idx, axis


def expected_gather(data, idx, axis):
    return np.asarray(np.take(data, idx, axis=axis), dtype=data.dtype)


def expected_gather_elements(data, idx, axis):
    # take_along_axis broadcasts; GatherElements reads the corner of data
    # that indices' non-axis dimensions cover.
    corner = tuple(slice(None) if d == axis % data.ndim else slice(0, n)
                   for d, n in enumerate(idx.shape))
    return np.take_along_axis(data[corner], idx.astype(np.int64), axis)


def assert_bits(got, want):
    assert isinstance(got, np.ndarray)
    assert got.dtype == want.dtype
    assert got.shape == want.shape
    assert np.ascontiguousarray(got).tobytes() == \
        np.ascontiguousarray(want).tobytes()


def check_all(contexts, op, data, idx, axis, want):
    note("data %s %s, indices %s %s, axis %d" % (
        data.dtype, data.shape, idx.dtype, idx.shape, axis))
    assert_bits(getattr(clgather.reference, op)(data, idx, axis), want)
    for device, ctx in contexts:
        note("device %s %s" % (device.spec, device.name))
        assert_bits(getattr(ctx, op)(data, idx, axis), want)


@given(gather_cases())
def test_gather_matches_numpy_take(contexts, case):
    data, idx, axis = case
    check_all(contexts, "gather", data, idx, axis,
              expected_gather(data, idx, axis))


@given(gather_elements_cases())
def test_gather_elements_matches_take_along_axis(contexts, case):
    data, idx, axis = case
    check_all(contexts, "gather_elements", data, idx, axis,
              expected_gather_elements(data, idx, axis))


def _out_of_range(draw, idx, size):
    """idx with one value outside [-size, size-1], and that value."""
    limit = np.iinfo(idx.dtype)
    bad = draw(st.one_of(st.integers(size, size + 3),
                         st.integers(-size - 3, -size - 1),
                         st.sampled_from([int(limit.min), int(limit.max)])))
    bad = min(max(bad, int(limit.min)), int(limit.max))
    idx = idx.copy()
    idx.reshape(-1)[draw(st.integers(0, idx.size - 1))] = bad
    return idx


@st.composite
def bad_cases(draw, cases):
    data, idx, axis = draw(cases)
    assume(idx.size > 0 and idx.dtype.kind == "i")
    return data, _out_of_range(draw, idx, data.shape[axis]), axis


def check_raises(contexts, op, data, idx, axis, shape):
    fns = [getattr(clgather.reference, op)]
    fns += [getattr(ctx, op) for _, ctx in contexts]
    for fn in fns:
        count = int(np.prod(shape))
        out = np.frombuffer(b"\x5a" * (count * data.dtype.itemsize),
                            data.dtype).reshape(shape).copy()
        before = out.tobytes()
        try:
            fn(data, idx, axis, out=out)
        except clgather.IndexOutOfRangeError as e:
            assert "out of range" in str(e)
        else:
            raise AssertionError("%s: no IndexOutOfRangeError" % fn)
        assert out.tobytes() == before


@given(bad_cases(gather_cases()))
def test_gather_out_of_range_raises(contexts, case):
    data, idx, axis = case
    ax = axis % data.ndim
    shape = data.shape[:ax] + idx.shape + data.shape[ax + 1:]
    check_raises(contexts, "gather", data, idx, axis, shape)


@given(bad_cases(gather_elements_cases()))
def test_gather_elements_out_of_range_raises(contexts, case):
    data, idx, axis = case
    check_raises(contexts, "gather_elements", data, idx, axis, idx.shape)


@st.composite
def large_cases(draw):
    """Tensors of up to 2 MiB, with seeded NumPy random contents: large
    enough for the CPU plans' index pass and packed strips."""
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    dtype = draw(st.sampled_from([np.dtype(t) for t in
                                  ("u1", "f2", "f4", "f8", "c16")]))
    rows = draw(st.integers(1, 512))
    cols = draw(st.integers(1, 256))
    data = rng.integers(0, 256, rows * cols * dtype.itemsize,
                        dtype=np.uint8).view(dtype).reshape(rows, cols)
    axis = draw(st.integers(-2, 1))
    size = data.shape[axis]
    count = draw(st.integers(1, 512))
    shape = (count,) if draw(st.booleans()) else (rows, count) \
        if axis % 2 == 1 else (count, cols)
    idx = rng.integers(-size, size, shape, dtype=draw(INDEX_DTYPES.filter(
        lambda t: np.dtype(t).kind == "i" and np.dtype(t).itemsize >= 4)))
    return data, idx, axis


@settings(max_examples=max(EXAMPLES // 10, 10))
@given(large_cases())
def test_large_tensors(contexts, case):
    data, idx, axis = case
    if idx.ndim == 2:
        check_all(contexts, "gather_elements", data, idx, axis,
                  expected_gather_elements(data, idx, axis))
    check_all(contexts, "gather", data, idx, axis,
              expected_gather(data, idx, axis))
