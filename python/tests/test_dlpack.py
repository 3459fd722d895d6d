# SPDX-License-Identifier: Apache-2.0
"""DLPack in and out: objects that offer only ``__dlpack__`` and
``__dlpack_device__`` (as an array API array, a PyTorch or a JAX CPU
tensor does) as data, indices and out, read in place, bit for bit equal
to numpy.take / numpy.take_along_axis; an object on another DLPack
device refused naming it; results that numpy.from_dlpack reads back."""

import numpy as np
import pytest

import clgather
from clgather import _host


class Producer:
    """Only the DLPack protocol, over a NumPy array: no __array__, no
    buffer protocol, no shape or dtype, so that nothing but DLPack can
    read it."""

    def __init__(self, array):
        self._array = array

    def __dlpack__(self, **kwargs):
        return self._array.__dlpack__(**kwargs)

    def __dlpack_device__(self):
        return self._array.__dlpack_device__()


class LegacyProducer(Producer):
    """A producer of DLPack before 1.0: __dlpack__(stream=None) only, whose
    unversioned capsule NumPy reads as read-only."""

    def __dlpack__(self, stream=None):
        return self._array.__dlpack__()


class OnDevice(Producer):
    """A producer that says it lives on another DLPack device."""

    def __init__(self, array, device):
        super().__init__(array)
        self._device = device

    def __dlpack_device__(self):
        return self._device


def test_a_dlpack_only_object_was_unreadable_before():
    # What the binding used to see of such an object: a 0-d object array.
    assert np.asarray(Producer(np.zeros(3))).dtype == object


# Every dtype DLPack and NumPy share (no 'S' and no bfloat16 in DLPack's
# NumPy reader), with bit patterns a float compare would not tell apart.
_DTYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16",
           "uint32", "uint64", "float16", "float32", "float64", "complex64",
           "complex128"]


def _data(dtype, shape):
    dtype = np.dtype(dtype)
    raw = np.arange(np.prod(shape) * dtype.itemsize, dtype=np.uint8)
    raw = (raw * 37 + 11).astype(np.uint8)
    if dtype == np.bool_:
        return (raw[:np.prod(shape)] % 2).astype(bool).reshape(shape)
    data = raw.view(dtype).reshape(shape).copy()
    if dtype.kind in "fc":
        # -0.0, the smallest subnormal and a NaN with a payload.
        bits = data.reshape(-1).view(
            "u%d" % (dtype.itemsize // (2 if dtype.kind == "c" else 1)))
        top = 1 << (8 * bits.itemsize - 1)
        bits[:3] = [top, 1, top - 1]
    return data


@pytest.mark.parametrize("dtype", _DTYPES)
def test_gather_from_dlpack_producers(dtype, contexts):
    data = _data(dtype, (5, 3, 4))
    indices = np.array([[4, 0], [-1, 2]], np.int64)
    want = np.take(data, indices, axis=0)
    assert want.shape == (2, 2, 3, 4)
    for _, ctx in contexts:
        got = ctx.gather(Producer(data), Producer(indices), axis=0)
        assert isinstance(got, np.ndarray)
        assert got.dtype == data.dtype and got.shape == want.shape
        assert got.tobytes() == want.tobytes()
    got = clgather.reference.gather(Producer(data), Producer(indices), 0)
    assert got.tobytes() == want.tobytes()


@pytest.mark.parametrize("dtype", _DTYPES)
def test_gather_elements_from_dlpack_producers(dtype, contexts):
    data = _data(dtype, (3, 4))
    indices = np.array([[3, 0], [-1, 1], [2, -4]], np.int32)
    want = np.take_along_axis(data, indices.astype(np.int64), axis=1)
    assert want.shape == (3, 2)
    for _, ctx in contexts:
        got = ctx.gather_elements(Producer(data), Producer(indices), axis=1)
        assert got.dtype == data.dtype and got.shape == (3, 2)
        assert got.tobytes() == want.tobytes()


def test_concrete_values():
    data = np.array([[1.5, -2.0, 3.25], [4.0, 5.5, -6.0]], np.float32)
    got = clgather.gather(Producer(data), Producer(np.array([2, 0, -1])),
                          axis=1)
    assert got.tolist() == [[3.25, 1.5, 3.25], [-6.0, 4.0, -6.0]]
    got = clgather.gather_elements(Producer(data), Producer(
        np.array([[1, 1, 0], [0, 1, 0]], np.int32)), axis=0)
    assert got.tolist() == [[4.0, 5.5, 3.25], [1.5, 5.5, 3.25]]


def test_read_in_place():
    # The library reads the producer's own memory: the descriptor points
    # at the NumPy array behind it, for data and for int32/int64 indices.
    data = np.arange(24, dtype=np.float64).reshape(4, 6)
    indices = np.array([3, 1], np.int32)
    d, i, axis = _host.prepare(Producer(data), Producer(indices), 1)
    assert d.tensor.data == data.ctypes.data
    assert i.tensor.data == indices.ctypes.data
    assert axis == 1
    # A strided producer is copied once into C order, as a strided NumPy
    # array is, and gives the same bytes.
    view = data[:, ::2]
    d, _, _ = _host.prepare(Producer(view), [0], 0)
    assert d.tensor.data != data.ctypes.data
    assert clgather.gather(Producer(view), [2, 0], axis=1).tobytes() == \
        np.take(view, [2, 0], axis=1).tobytes()


def test_out_is_a_dlpack_producer(contexts):
    data = np.arange(12, dtype=np.int16).reshape(3, 4)
    for _, ctx in contexts:
        target = np.full((3, 2), -7, np.int16)
        out = Producer(target)
        got = ctx.gather(data, np.array([3, 0]), axis=1, out=out)
        assert got is out  # out itself, as for a NumPy out
        assert target.tolist() == [[3, 0], [7, 4], [11, 8]]
    # A refused call leaves it as it was.
    target = np.full((3, 2), -7, np.int16)
    with pytest.raises(clgather.IndexOutOfRangeError):
        clgather.gather(data, [4, 0], axis=1, out=Producer(target))
    assert (target == -7).all()
    # An out that DLPack gives read-only is refused, saying why.
    with pytest.raises(clgather.InvalidArgumentError,
                       match=r"out \(LegacyProducer\) is read-only through "
                       r"DLPack"):
        clgather.gather(data, [3, 0], axis=1,
                        out=LegacyProducer(np.zeros((3, 2), np.int16)))
    with pytest.raises(clgather.ShapeMismatchError):
        clgather.gather(data, [3, 0], axis=1,
                        out=Producer(np.zeros((3, 3), np.int16)))


def test_legacy_producer_as_input():
    data = np.array([10, 20, 30], np.uint8)
    got = clgather.gather(LegacyProducer(data), LegacyProducer(
        np.array([2, 2, 0], np.int64)))
    assert got.tolist() == [30, 30, 10]


@pytest.mark.parametrize("device,words", [
    ((2, 0), r"on DLPack device kDLCUDA \(device type 2\), id 0"),
    ((10, 1), r"on DLPack device kDLROCM \(device type 10\), id 1"),
    ((4, 0), r"on DLPack device kDLOpenCL \(device type 4\), id 0: .*"
     r"pyopencl\.array"),
    ((13, 0), r"on DLPack device kDLCUDAManaged \(device type 13\)"),
    ((99, 3), r"on DLPack device type 99, id 3"),
])
def test_non_cpu_device_refused(device, words):
    data = np.arange(6, dtype=np.float32).reshape(2, 3)
    target = np.zeros((2, 2), np.float32)
    with pytest.raises(clgather.InvalidArgumentError,
                       match=r"data \(OnDevice\) is " + words):
        clgather.gather(OnDevice(data, device), [0, 1], axis=1)
    with pytest.raises(clgather.InvalidArgumentError,
                       match=r"indices \(OnDevice\) is " + words):
        clgather.gather(data, OnDevice(np.array([0]), device), axis=1)
    with pytest.raises(clgather.InvalidArgumentError,
                       match=r"out \(OnDevice\) is " + words):
        clgather.gather(data, [2, 0], axis=1, out=OnDevice(target, device))
    assert not target.any()
    with pytest.raises(clgather.InvalidArgumentError,
                       match=r"data \(OnDevice\) is " + words):
        clgather.reference.gather_elements(OnDevice(data, device),
                                           np.zeros((2, 3), np.int64))


class ArrayToo:
    """DLPack that refuses this dtype, and __array__, as a PyTorch tensor
    of a dtype NumPy's DLPack reader lacks."""

    def __init__(self, array):
        self._array = array

    def __dlpack__(self, **kwargs):
        raise BufferError("no DLPack for this dtype")

    def __dlpack_device__(self):
        return (1, 0)

    def __array__(self, dtype=None, copy=None):
        return self._array


class Unreadable(Producer):
    def __array__(self, dtype=None, copy=None):
        raise TypeError("no bfloat16 here")


def test_what_numpy_cannot_read_through_dlpack():
    # Without __array__: refused with NumPy's reason.
    with pytest.raises(clgather.InvalidArgumentError,
                       match=r"data \(Producer\): numpy.from_dlpack cannot "
                       r"read this DLPack producer: DLPack only supports"):
        clgather.gather(Producer(np.array([b"ab", b"cd"])), [1])
    # With __array__: read through it, as before DLPack.
    data = np.array([b"ab", b"c\0d"], "S3")
    assert clgather.gather(ArrayToo(data), [1, 0]).tolist() == [b"c\0d",
                                                                b"ab"]
    # An __array__ that cannot give NumPy an array either (PyTorch's
    # bfloat16): both reasons, as clgather's own error.
    with pytest.raises(clgather.InvalidArgumentError,
                       match=r"DLPack only supports.*; nor numpy.asarray: "
                       r"no bfloat16 here"):
        clgather.gather(Unreadable(np.array([b"ab", b"cd"])), [1])
    # Not for out, which a copy would leave unwritten.
    target = np.zeros(2, "S3")
    with pytest.raises(clgather.InvalidArgumentError,
                       match=r"out \(ArrayToo\): numpy.from_dlpack cannot"):
        clgather.gather(data, [1, 0], out=ArrayToo(target))


def test_host_memory_of_cuda_is_read():
    # kDLCUDAHost: page-locked host memory, read as CPU memory.
    data = np.array([1, 2, 3], np.int32)
    assert clgather.gather(OnDevice(data, (3, 0)), [2]).tolist() == [3]


def test_dlpack_indices_keep_their_dtype_rules():
    data = np.arange(4.0)
    # uint8 is widened as for a NumPy array; float and uint64 are refused
    # naming the dtype, as for a NumPy array.
    assert clgather.gather(data, Producer(np.array([3, 1], np.uint8))
                           ).tolist() == [3.0, 1.0]
    with pytest.raises(clgather.UnsupportedDtypeError,
                       match="indices dtype float32"):
        clgather.gather(data, Producer(np.array([1.0], np.float32)))
    with pytest.raises(clgather.UnsupportedDtypeError,
                       match="indices dtype uint64"):
        clgather.gather(data, Producer(np.array([1], np.uint64)))


def test_result_goes_out_through_dlpack():
    data = np.arange(40, dtype=np.float32).reshape(8, 5)
    got = clgather.gather(Producer(data), [7, 0, 3])
    assert got.__dlpack_device__() == (1, 0)
    back = np.from_dlpack(got)  # what torch.from_dlpack reads too
    assert np.shares_memory(back, got)
    assert back.tobytes() == np.take(data, [7, 0, 3], axis=0).tobytes()
    # A result of GatherElements too, and through a DLPack-only wrapper.
    got = clgather.gather_elements(data, np.zeros((1, 5), np.int64))
    back = np.from_dlpack(Producer(got))
    assert back.tolist() == [[0.0, 1.0, 2.0, 3.0, 4.0]]
