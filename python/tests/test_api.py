# SPDX-License-Identifier: Apache-2.0
"""The binding's API: examples with known answers, errors, Context,
dtypes, out=, copies."""

import ctypes
import os
import re
import threading

import numpy as np
import pytest

import clgather
from clgather import _context, _errors, _host, _lib

DATA = np.arange(12, dtype=np.float32).reshape(3, 4)


def test_readme_example():
    data = np.array([[1.0, 1.2], [2.3, 3.4], [4.5, 5.7]], dtype=np.float32)
    out = clgather.gather(data, [[0, 1], [1, 2]], axis=0)
    assert out.shape == (2, 2, 2)
    assert out.tobytes() == data[[[0, 1], [1, 2]]].tobytes()
    assert clgather.gather_elements([[1, 2], [3, 4]], [[0, 0], [1, 0]],
                                    axis=1).tolist() == [[1, 1], [4, 3]]


def test_module_functions_and_reference_agree_with_spec_examples():
    # ONNX Gather, example 2 (axis 1); GatherElements, example 1.
    data = np.array([[1.0, 1.2, 1.9], [2.3, 3.4, 3.9], [4.5, 5.7, 5.9]],
                    dtype=np.float32)
    want = data[:, [0, 2]][:, None, :].tobytes()
    for fn in (clgather.gather, clgather.reference.gather):
        got = fn(data, np.array([[0, 2]]), axis=1)
        assert got.shape == (3, 1, 2) and got.tobytes() == want
    for fn in (clgather.gather_elements, clgather.reference.gather_elements):
        got = fn(np.array([[1, 2], [3, 4]], np.int32),
                 np.array([[0, 0], [1, 0]], np.int64), axis=1)
        assert got.tolist() == [[1, 1], [4, 3]] and got.dtype == np.int32


def test_status_table_matches_library():
    names = [row[0] for row in _errors._STATUS_TABLE]
    for name, value, cls_name, _ in _errors._STATUS_TABLE:
        assert _lib.text(_lib.lib.clg_status_name(value)) == name
        cls = getattr(clgather, cls_name)
        assert cls.status == value and cls.status_name == name
        assert issubclass(cls, clgather.Error)
    after = len(names) + 1
    assert _lib.text(_lib.lib.clg_status_name(after)) == "UNKNOWN_STATUS"


@pytest.mark.parametrize("call, cls, builtin, words", [
    (lambda: clgather.gather(DATA, [3], axis=0),
     clgather.IndexOutOfRangeError, IndexError,
     "indices[0] = 3 is out of range [-3, 2] for axis 0 of size 3"),
    (lambda: clgather.gather(DATA, [0], axis=2), clgather.InvalidAxisError,
     ValueError, "axis"),
    (lambda: clgather.gather(np.float32(1), [0]), clgather.InvalidRankError,
     ValueError, "rank"),
    (lambda: clgather.gather_elements(DATA, [0, 1]),
     clgather.RankMismatchError, ValueError, "rank"),
    (lambda: clgather.gather_elements(DATA, np.zeros((1, 5), np.int64)),
     clgather.ShapeMismatchError, ValueError, "5"),
    (lambda: clgather.gather(DATA, [[0, 1], [2]]),
     clgather.InvalidArgumentError, ValueError, "not a rectangular array"),
    (lambda: clgather.gather([[1, 2], [3]], [0]),
     clgather.InvalidArgumentError, ValueError, "data is not a rectangular"),
    (lambda: clgather.gather(DATA, [0.5]), clgather.UnsupportedDtypeError,
     TypeError, "not an integer"),
    (lambda: clgather.gather(DATA, np.array([0.5])),
     clgather.UnsupportedDtypeError, TypeError, "float64"),
    (lambda: clgather.gather(np.zeros(3, np.float128), [0]),
     clgather.UnsupportedDtypeError, TypeError, "float128"),
    (lambda: clgather.gather(np.zeros(3, object), [0]),
     clgather.UnsupportedDtypeError, TypeError, "object"),
    (lambda: clgather.Context("no such device"),
     clgather.DeviceNotFoundError, LookupError, "no such device"),
    (lambda: clgather.reference.gather(DATA, [-4]),
     clgather.IndexOutOfRangeError, IndexError, "indices[0] = -4"),
])
def test_errors_follow_the_status(call, cls, builtin, words):
    with pytest.raises(cls) as info:
        call()
    assert isinstance(info.value, builtin)
    assert isinstance(info.value, clgather.Error)
    assert words in str(info.value)
    assert info.value.message == str(info.value)


def test_axis_must_be_an_integer():
    # numpy.take's rule: integers of any kind, never a bool or a float
    for axis in (True, np.bool_(False), 1.0, "1", None):
        for fn in (clgather.gather, clgather.reference.gather):
            with pytest.raises(TypeError):
                fn(DATA, [0], axis=axis)
        with pytest.raises(TypeError):
            clgather.gather_elements(DATA, [[0]], axis=axis)
    for axis in (np.int8(-1), np.uint64(1), 1):
        assert clgather.gather(DATA, [0], axis=axis).tolist() == \
            np.take(DATA, [0], axis=int(axis)).tolist()


def test_oob_modes_are_the_librarys():
    assert clgather.OOB_MODES == ("raise", "wrap", "clip", "fill")
    for value, word in enumerate(clgather.OOB_MODES):
        assert _lib.text(_lib.lib.clg_oob_mode_name(value)) == word
    assert _lib.text(_lib.lib.clg_oob_mode_name(4)) == "unknown"
    assert ctypes.sizeof(_lib.CallOptions) == ctypes.sizeof(ctypes.c_int)


def test_operators_are_the_librarys():
    # The binding asks the library for its operator table and its call
    # layout; it mirrors neither.
    assert _lib.HAS_CALLS
    assert _lib.operators() == {"Gather": 0, "GatherElements": 1,
                                "GatherND": 2}
    assert _host.op_code("gather") == 0
    assert _host.op_code("gather_elements") == 1
    assert _host.op_code("gather_nd") == 2
    assert ctypes.sizeof(_lib.Call) == 32
    with pytest.raises(clgather.InvalidArgumentError):
        _host.op_code("gather_nds")
    # Each generic call answers as the named function it stands for.
    idx = np.array([[0, 2], [1, 0]], np.int64)
    want = np.take_along_axis(DATA[:2], idx, axis=1)
    assert clgather.reference.gather_elements(DATA[:2], idx, 1).tolist() \
        == want.tolist()
    assert clgather.gather_elements(DATA[:2], idx, 1).tolist() == \
        want.tolist()


# Index values around and far outside [-3, 2] on axis 0 of DATA (3 rows),
# and the row each mode selects (None: fill's zero row).
OOB_INDICES = [-9, -4, -3, -1, 0, 2, 3, 5, 9, -2**63, 2**63 - 1]
OOB_ROWS = {
    "wrap": [0, 2, 0, 2, 0, 2, 0, 2, 0, 1, 1],
    "clip": [0, 0, 0, 2, 0, 2, 2, 2, 2, 0, 2],
    "fill": [None, None, 0, 2, 0, 2, None, None, None, None, None],
}


@pytest.mark.parametrize("mode", sorted(OOB_ROWS))
def test_oob_modes_on_every_host_path(contexts, mode):
    want = np.array([np.zeros(4, np.float32) if r is None else DATA[r]
                     for r in OOB_ROWS[mode]])
    idx = np.array(OOB_INDICES, np.int64)
    idx_e = np.tile(idx[:, None], (1, 4))  # GatherElements down axis 0
    with clgather.Context(contexts[0][0].spec, validate=True) as checked:
        calls = [clgather.gather, clgather.reference.gather, checked.gather]
        calls += [ctx.gather for _, ctx in contexts]
        for call in calls:
            assert call(DATA, idx, oob=mode).tobytes() == want.tobytes()
            out = np.full(want.shape, np.nan, np.float32)
            assert call(DATA, idx, oob=mode, out=out) is out
            assert out.tobytes() == want.tobytes()
        calls = [clgather.gather_elements, clgather.reference.gather_elements,
                 checked.gather_elements]
        calls += [ctx.gather_elements for _, ctx in contexts]
        for call in calls:
            assert call(DATA, idx_e, oob=mode).tobytes() == want.tobytes()


def test_oob_fill_gives_empty_strings():
    data = np.array([b"ab", b"c\0", b"\0d"])
    for call in (clgather.gather, clgather.reference.gather):
        got = call(data, [2, 3, -1, -4, 0], oob="fill")
        assert got.dtype == data.dtype
        assert got.tobytes() == b"\0d" + b"\0\0" + b"\0d" + b"\0\0" + b"ab"
    got = clgather.gather_elements(data[None], [[-5, 1, 7]], axis=1,
                                   oob="fill")
    assert got.tobytes() == b"\0\0" + b"c\0" + b"\0\0"


@pytest.mark.parametrize("mode", ["raise", "wrap", "clip", "fill"])
def test_oob_empty_axis_fails_in_every_mode(mode):
    data = np.zeros((0, 2), np.float32)
    for call in (clgather.gather, clgather.reference.gather):
        with pytest.raises(clgather.IndexOutOfRangeError):
            call(data, [0], oob=mode)
        assert call(data, np.zeros(0, np.int64), oob=mode).shape == (0, 2)
    # An empty output from another empty dimension: values out of range
    # select nothing; raise refuses them, the other modes do not.
    data = np.zeros((0, 3), np.float32)
    for call in (clgather.gather, clgather.reference.gather):
        if mode == "raise":
            with pytest.raises(clgather.IndexOutOfRangeError):
                call(data, [7, -9], axis=1, oob=mode)
        else:
            assert call(data, [7, -9], axis=1, oob=mode).shape == (0, 2)


def test_oob_refuses_other_values():
    for mode in ("nonsense", "WRAP", "raise\0", "", None, 1, b"wrap"):
        for call in (clgather.gather, clgather.reference.gather_elements,
                     _context.default_context(None).gather_elements):
            with pytest.raises(clgather.InvalidArgumentError,
                               match=r"oob=%s is not an out-of-range mode: "
                               r"one of 'raise', 'wrap', 'clip', 'fill'" %
                               re.escape(repr(mode))):
                call(DATA, [[1]], oob=mode)


def test_out_is_written_in_place_and_kept_on_error():
    out = np.full((2, 4), -1.0, np.float32)
    assert clgather.gather(DATA, [2, 0], out=out) is out
    assert out.tobytes() == DATA[[2, 0]].tobytes()
    out[...] = 7
    with pytest.raises(clgather.IndexOutOfRangeError):
        clgather.gather(DATA, [2, 5], out=out)
    assert (out == 7).all()
    # Not C-contiguous: gathered once into a temporary, then copied in.
    wide = np.zeros((4, 4), np.float32)
    assert clgather.gather(DATA, [1, 2], out=wide.T[:, :2].T) is not None
    assert wide.T[:, :2].T.tobytes() == DATA[[1, 2]].tobytes()
    with pytest.raises(clgather.ShapeMismatchError):
        clgather.gather(DATA, [1], out=np.zeros((2, 4), np.float32))
    with pytest.raises(clgather.UnsupportedDtypeError):
        clgather.gather(DATA, [1], out=np.zeros((1, 4), np.float64))
    with pytest.raises(clgather.InvalidArgumentError, match="overlap"):
        clgather.gather(DATA.reshape(-1), np.zeros(12, np.int64),
                        out=DATA.reshape(-1))
    frozen = np.zeros((1, 4), np.float32)
    frozen.flags.writeable = False
    with pytest.raises(clgather.InvalidArgumentError, match="read-only"):
        clgather.gather(DATA, [1], out=frozen)
    assert not frozen.any()
    with pytest.raises(TypeError, match="numpy.ndarray"):
        clgather.gather(DATA, [1], out=[0.0] * 4)
    # The PyOpenCL-only arguments on NumPy arrays.
    with pytest.raises(TypeError, match="events applies to PyOpenCL"):
        clgather.gather(DATA, [1], events=[])
    with pytest.raises(TypeError, match="sync=False applies to PyOpenCL"):
        clgather.gather(DATA, [1], sync=False)
    assert clgather.gather(DATA, [1], sync=True).tobytes() == \
        DATA[[1]].tobytes()
    assert clgather.gather(DATA, [1], sync=np.bool_(True)).tobytes() == \
        DATA[[1]].tobytes()
    # sync is a bool: a truthy word or number is not True.
    for sync in ("no", 1, None):
        with pytest.raises(TypeError, match="sync must be True or False"):
            clgather.gather(DATA, [1], sync=sync)


def test_masked_arrays_are_refused():
    # numpy.asarray would drop the mask and the masked values would be
    # gathered as if valid: refused for data, indices and out.
    masked = np.ma.masked_array(DATA, mask=np.zeros(DATA.shape, bool))
    with pytest.raises(TypeError, match="data is a numpy.ma.MaskedArray"):
        clgather.gather(masked, [1])
    with pytest.raises(TypeError, match="data is a numpy.ma.MaskedArray"):
        clgather.reference.gather(masked, [1])
    with pytest.raises(TypeError,
                       match="indices is a numpy.ma.MaskedArray"):
        clgather.gather_elements(DATA, np.ma.masked_array([[0]], mask=[[1]]))
    out = np.ma.masked_array(np.zeros((1,) + DATA.shape[1:], DATA.dtype))
    with pytest.raises(TypeError, match="out is a numpy.ma.MaskedArray"):
        clgather.gather(DATA, [1], out=out)
    assert not out.data.any()
    # The plain arrays behind them are taken as usual.
    assert clgather.gather(masked.data, [1]).tobytes() == DATA[[1]].tobytes()


def test_inputs_are_used_in_place_or_copied_once():
    fortran = np.asfortranarray(DATA)
    assert clgather.gather(fortran, [0, 2], axis=1).tobytes() == \
        DATA[:, [0, 2]].tobytes()
    strided = np.arange(24, dtype=np.int16)[::2].reshape(3, 4)
    assert clgather.gather(strided, [1]).tolist() == [[8, 10, 12, 14]]
    big_endian = DATA.astype(">f4")
    got = clgather.gather(big_endian, [2, 1])
    assert got.dtype == np.dtype(">f4")
    assert got.tobytes() == big_endian[[2, 1]].tobytes()
    idx = np.array([[0, 1, 2, 0]], dtype=">i8")
    assert clgather.gather_elements(DATA, idx).tolist() == [[0, 5, 10, 3]]
    for dtype in (np.int8, np.uint8, np.int16, np.uint16, np.uint32):
        assert clgather.gather(DATA, np.array([2], dtype)).tolist() == [
            [8, 9, 10, 11]]
    with pytest.raises(clgather.UnsupportedDtypeError, match="uint64"):
        clgather.gather(DATA, np.array([2], np.uint64))
    # Python ints past int64 are named as values, not as NumPy's uint64
    for value in (2**63, [1, 2**64 - 1], [2**70]):
        with pytest.raises(clgather.UnsupportedDtypeError,
                           match="outside the int64 range"):
            clgather.gather(DATA, value)


def test_strings_keep_their_bytes_and_width():
    data = np.array([b"ab\x00c", b"", b"xyz\x00", b"\x00\x00\x00\x01"], "S4")
    got = clgather.gather(data, [3, -4, 2, 1])
    assert got.dtype == np.dtype("S4")
    assert got.tobytes() == b"\x00\x00\x00\x01ab\x00cxyz\x00\x00\x00\x00\x00"
    got = clgather.gather_elements(data.reshape(2, 2), [[1, 0]], axis=1)
    assert got.tolist() == [[b"", b"ab\x00c"]]
    empty = clgather.gather(np.zeros((0, 3), "S5"), np.zeros(0, np.int64),
                            axis=0)
    assert empty.dtype == np.dtype("S5") and empty.shape == (0, 3)
    out = np.zeros(2, "S4")
    assert clgather.gather(data, [0, 0], out=out) is out
    assert out.tolist() == [b"ab\x00c"] * 2
    with pytest.raises(clgather.ShapeMismatchError):
        clgather.gather(data, [0], out=out)


def test_bfloat16():
    ml_dtypes = pytest.importorskip("ml_dtypes")
    bits = np.array([0x8000, 0x0001, 0x7FC1, 0x3F80], np.uint16)
    data = bits.view(ml_dtypes.bfloat16)
    got = clgather.gather(data, [2, 0, 1, 3])
    assert got.dtype == np.dtype(ml_dtypes.bfloat16)
    assert got.view(np.uint16).tolist() == [0x7FC1, 0x8000, 0x0001, 0x3F80]


def test_scalar_and_empty_indices():
    got = clgather.gather(DATA, np.int64(-1))
    assert got.shape == (4,) and got.tolist() == [8, 9, 10, 11]
    got = clgather.gather(DATA, np.zeros((2, 0), np.int32), axis=1)
    assert got.shape == (3, 2, 0)
    # an empty list, as numpy.take accepts it; an empty float array is
    # refused, as numpy.take refuses it
    for indices, axis in (([], 0), ([[], []], 1)):
        want = np.take(DATA, indices, axis)
        got = clgather.gather(DATA, indices, axis=axis)
        assert got.shape == want.shape and got.dtype == want.dtype
        got = clgather.reference.gather(DATA, indices, axis=axis)
        assert got.shape == want.shape
    with pytest.raises(clgather.UnsupportedDtypeError):
        clgather.gather(DATA, np.array([]))


def test_devices():
    devices = clgather.devices()
    assert devices, "CI has POCL: at least one device"
    assert sum(d.is_default for d in devices) == 1
    for d in devices:
        assert d.spec == "%d:%d" % (d.platform_index, d.device_index)
        assert d.type in ("cpu", "gpu", "accelerator", "other")
        assert d.name and d.version.startswith("OpenCL")
        with clgather.Context(d.spec) as ctx:
            assert ctx.device_name == d.name
            assert ctx.device_version == d.version
            # SVM pointers only on a device that uses host memory
            assert ctx.uses_svm in (False, ctx.uses_host_memory)
            if not d.host_unified_memory:
                assert ctx.uses_svm is False
        # a Device stands for its spec, in a Context and in the module's
        # functions (one context per device, however many Device objects)
        with clgather.Context(d) as ctx:
            assert ctx.device_name == d.name
        got = clgather.gather(DATA, [1], device=d)
        assert got.tolist() == [[4, 5, 6, 7]]
        again = clgather.devices()[devices.index(d)]
        assert _context.default_context(again) is \
            _context.default_context(d.spec)


def test_context_manager_and_close():
    with clgather.Context("cpu") as ctx:
        assert ctx.device_type == "cpu"
        assert ctx.max_alloc_size > 0
        assert ctx.cl_context and ctx.cl_queue and ctx.cl_device
        assert ctx.gather(DATA, [1]).tolist() == [[4, 5, 6, 7]]
        assert clgather.gather(DATA, [2], device=ctx).tolist() == [
            [8, 9, 10, 11]]
    with pytest.raises(clgather.InvalidArgumentError, match="closed"):
        ctx.gather(DATA, [1])
    ctx.close()  # idempotent
    assert "closed" in repr(ctx)


def test_validation_mode():
    with clgather.Context(validate=True) as ctx:
        assert ctx.validate is True
        assert ctx.gather(DATA, [0]).tolist() == [[0, 1, 2, 3]]
        ctx.validate = False
        assert ctx.validate is False
        # strings are refused: bool("0") is True
        for bad in ("0", "false", "1", 2, None):
            with pytest.raises(clgather.InvalidArgumentError):
                ctx.validate = bad
        assert ctx.validate is False
        ctx.validate = np.True_
        assert ctx.validate is True
    with pytest.raises(clgather.InvalidArgumentError, match="validate='no'"):
        clgather.Context(validate="no")


FIELDS = ["wg", "strip", "pack", "chunk", "unit", "prefetch", "nt", "norm",
          "small", "host"]


def test_parameters():
    with clgather.Context() as ctx:
        row = ctx.params
    assert list(row) == FIELDS and row["wg"] in (256, 4096)
    with clgather.Context(params="wg=64,strip=512") as ctx:
        assert ctx.params == dict(row, wg=64, strip=512)
        assert ctx.gather_elements(DATA, [[2, 1, 0, 0]]).tolist() == [
            [8, 5, 2, 3]]
        ctx.params = {"unit": 8, "chunk": 2}  # onto the row, not the last
        assert ctx.params == dict(row, unit=8, chunk=2)
        with pytest.raises(clgather.InvalidArgumentError,
                           match="nosuchfield"):
            ctx.params = "wg=32,nosuchfield=1"
        with pytest.raises(clgather.InvalidArgumentError, match="wg"):
            ctx.params = {"wg": 0}
        with pytest.raises(TypeError, match="mapping"):
            ctx.params = 64
        # A mapping holds fields and integers: nothing in a key or a value
        # can carry further items ("2,wg=1" once set wg too).
        for bad in ({"chunk": "1,strip=0"}, {"chunk": 1.0},
                    {"chunk": True}, {"chunk": None}):
            with pytest.raises(TypeError, match="chunk"):
                ctx.params = bad
        class Sneaky(str):  # equal to "chunk", written out as two items
            def __eq__(self, other):
                return other == "chunk" or str.__eq__(self, other)

            def __hash__(self):
                return hash("chunk")

            def __str__(self):
                return "chunk=1,strip"

        for bad in ({"chunk=1,strip": 0}, {"nosuchfield": 1}, {1: 1},
                    {Sneaky("x"): 0}):
            with pytest.raises(clgather.InvalidArgumentError,
                               match="is not a field"):
                ctx.params = bad
        with pytest.raises(clgather.InvalidArgumentError, match="NUL"):
            ctx.params = "strip=0\0,wg=1"
        assert ctx.params == dict(row, unit=8, chunk=2)  # left unchanged
        ctx.params = {"chunk": np.int64(3), "unit": 8}
        assert ctx.params == dict(row, unit=8, chunk=3)
        ctx.params = {"unit": 8, "chunk": 2}
        assert ctx.gather(DATA, [2, 0]).tolist() == [[8, 9, 10, 11],
                                                     [0, 1, 2, 3]]
        ctx.params = ""
        assert ctx.params == row
    with pytest.raises(clgather.InvalidArgumentError, match="nosuchfield"):
        clgather.Context(params="nosuchfield=1")


def test_c_strings_hold_no_nul():
    # C would read "pocl\0garbage" as "pocl", and "\0x" as the default.
    with pytest.raises(TypeError, match="bytes"):
        clgather.Context(b"cpu")
    for spec in ("pocl\0garbage", "cpu\0", "\0anything"):
        with pytest.raises(clgather.InvalidArgumentError, match="NUL"):
            clgather.Context(spec)
        with pytest.raises(clgather.InvalidArgumentError, match="NUL"):
            clgather.gather(DATA, [0], device=spec)


def test_parameters_and_the_environment(monkeypatch):
    """CLGATHER_PARAMS is read when a context is created; params replace
    it; None goes back to it."""
    with clgather.Context() as ctx:
        row = ctx.params
    monkeypatch.setenv("CLGATHER_PARAMS", "wg=32")
    env = clgather.Context()
    given = clgather.Context(params="strip=8")
    monkeypatch.setenv("CLGATHER_PARAMS", "nosuchfield=1")
    broken = clgather.Context()
    monkeypatch.delenv("CLGATHER_PARAMS")
    try:
        assert env.params == dict(row, wg=32)
        assert given.params == dict(row, strip=8)
        given.params = None
        assert given.params == dict(row, wg=32)
        # A malformed variable fails every call that launches a kernel.
        for call in (lambda: broken.params, lambda: broken.gather(DATA, [0])):
            with pytest.raises(clgather.InvalidArgumentError,
                               match="CLGATHER_PARAMS.*nosuchfield"):
                call()
        assert broken.gather(DATA, np.zeros(0, np.int64)).shape == (0, 4)
        with pytest.raises(clgather.InvalidArgumentError,
                           match="nosuchfield"):
            broken.params = None  # the variable, as read at creation
        broken.params = "wg=16"
        assert broken.params == dict(row, wg=16)
        assert broken.gather(DATA, [-1]).tolist() == [[8, 9, 10, 11]]
    finally:
        for ctx in (env, given, broken):
            ctx.close()


def test_threads_share_a_context():
    rng = np.random.default_rng(7)
    data = rng.standard_normal((64, 33))
    errors = []

    def work(seed):
        r = np.random.default_rng(seed)
        try:
            for _ in range(20):
                idx = r.integers(-64, 64, (5, 3))
                got = clgather.gather(data, idx)
                assert got.tobytes() == np.take(data, idx, 0).tobytes()
        except Exception as e:  # reported below, in the main thread
            errors.append(e)

    threads = [threading.Thread(target=work, args=(s,)) for s in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []


def test_library_version():
    assert clgather.__version__ == _lib.text(
        _lib.lib.clg_version_string())
    assert ctypes.sizeof(_lib.String) == 2 * ctypes.sizeof(ctypes.c_void_p)


def test_library_source():
    """CLGATHER_LIBRARY when set; else the bundled library, or the one
    pkg-config found at build time when CI says where it expects it."""
    expected = os.environ.get("CLGATHER_EXPECT_LIBRARY")
    if os.environ.get("CLGATHER_LIBRARY"):
        assert clgather.library_path == os.environ["CLGATHER_LIBRARY"]
    elif expected:
        assert clgather.library_path.startswith(expected + os.sep)
    else:
        assert os.path.dirname(clgather.library_path) == os.path.dirname(
            clgather.__file__)


def test_program_cache(tmp_path):
    data = np.arange(40, dtype=np.uint16).reshape(5, 8)
    if not _lib.HAS_CACHE:
        with pytest.raises(NotImplementedError, match="no persistent"):
            clgather.Context(cache_dir=str(tmp_path))
        return
    # host=0: these tiny calls launch (and so compile) rather than run on
    # the calling thread.
    with clgather.Context(cache_dir=str(tmp_path), params="host=0") as ctx:
        assert ctx.gather(data, [4, 0]).tobytes() == data[[4, 0]].tobytes()
        first = ctx.cache_info()
    assert first["enabled"] and first["directory"] == str(tmp_path)
    assert first["misses"] >= 1 and first["stores"] >= 1
    assert first["hits"] == 0
    with clgather.Context(cache_dir=str(tmp_path), params="host=0") as ctx:
        assert ctx.gather(data, [1, 2]).tobytes() == data[[1, 2]].tobytes()
        again = ctx.cache_info()
        assert again["hits"] >= 1 and again["misses"] == 0
        ctx.set_cache_dir(False)
        assert ctx.cache_info()["enabled"] is False
        # "" is no folder (the library refuses it too): False says off.
        with pytest.raises(clgather.InvalidArgumentError, match="empty"):
            ctx.set_cache_dir("")
        assert ctx.cache_info()["enabled"] is False
    with pytest.raises(clgather.InvalidArgumentError, match="empty"):
        clgather.Context(cache_dir="")
    # A folder others may write is passed over, and the context says why.
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o777)
    with clgather.Context(cache_dir=str(shared), params="host=0") as ctx:
        assert ctx.gather(data, [3]).tobytes() == data[[3]].tobytes()
        info = ctx.cache_info()
    assert info["refusal"] == "not used: folder writable by group or others"
    assert info["stores"] == 0 and info["hits"] == 0
    assert os.listdir(shared) == []
    with pytest.raises(clgather.InvalidArgumentError, match="NUL"):
        clgather.Context(cache_dir=str(tmp_path) + "\0/elsewhere")


def test_parameters_stay_with_their_context_across_threads(monkeypatch):
    """Contexts with their own parameters, one with a malformed
    CLGATHER_PARAMS, one whose parameters change all along, and a plain
    one, called from threads at once: each call uses its own context's
    parameters, and the environment changed after creation reaches none."""
    with clgather.Context() as ctx:
        row = ctx.params
    monkeypatch.setenv("CLGATHER_PARAMS", "nosuchfield=1")
    bad = clgather.Context()
    fixed = clgather.Context(params="wg=32")
    monkeypatch.setenv("CLGATHER_PARAMS", "wg=16")
    plain_env = clgather.Context()
    monkeypatch.delenv("CLGATHER_PARAMS")
    plain = clgather.Context()
    flipping = clgather.Context(params={"wg": 64})
    # Set while the threads run: read by no existing context.
    monkeypatch.setenv("CLGATHER_PARAMS", "nosuchfield=2")
    data = np.random.default_rng(5).standard_normal((40, 9))
    failures = []
    local = threading.local()

    def rng_local():
        if not hasattr(local, "rng"):
            local.rng = np.random.default_rng(threading.get_ident())
        return local.rng

    def expect_ok(ctx, params):
        idx = rng_local().integers(-40, 40, 7)
        got = ctx.gather(data, idx)
        if got.tobytes() != np.take(data, idx, 0).tobytes():
            failures.append("wrong result under %r" % params)
        if ctx.params != params:
            failures.append("params %r, not %r" % (ctx.params, params))

    def loop(body):
        try:
            for step in range(150):
                body(step)
        # pytest.raises fails with a BaseException; reported below.
        except BaseException as e:
            failures.append(repr(e))

    def bad_body(step):
        with pytest.raises(clgather.InvalidArgumentError,
                           match="nosuchfield=1"):
            bad.gather(data, [step % 40])

    def flip_body(step):
        params = {"wg": 64} if step % 2 else {"wg": 8, "strip": 512}
        flipping.params = params
        expect_ok(flipping, dict(row, **params))

    bodies = [bad_body, flip_body,
              lambda step: expect_ok(fixed, dict(row, wg=32)),
              lambda step: expect_ok(plain_env, dict(row, wg=16)),
              lambda step: expect_ok(plain, row),
              lambda step: expect_ok(plain, row)]
    threads = [threading.Thread(target=loop, args=(b,)) for b in bodies]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for ctx in (bad, fixed, plain_env, plain, flipping):
        ctx.close()
    assert failures == []
