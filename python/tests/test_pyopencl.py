# SPDX-License-Identifier: Apache-2.0
"""PyOpenCL arrays: the device-buffer path on the arrays' own context and
queue, PyOpenCL arrays out, events in and out, deferred errors."""

import numpy as np
import pytest

import clgather

cl = pytest.importorskip("pyopencl")
cl_array = pytest.importorskip("pyopencl.array")


def _devices():
    """Every device PyOpenCL's ICD loader offers; POCL must be one."""
    devices = [d for p in cl.get_platforms() for d in p.get_devices()]
    if not any("portable computing language" in d.platform.name.lower()
               for d in devices):
        raise RuntimeError("POCL is not among PyOpenCL's platforms: %s" %
                           cl.get_platforms())
    return devices


@pytest.fixture(scope="module", params=_devices(),
                ids=lambda d: "%s:%s" % (d.platform.name, d.name))
def queue(request):
    # The test keeps the context object alive beside its queue: Intel's
    # CPU runtime fails clRetainContext on a context that only a queue
    # still holds (PyOpenCL's queue.context retains it).
    context = cl.Context([request.param])
    yield cl.CommandQueue(context)
    del context


def test_pipeline_stays_on_the_device(queue):
    rng = np.random.default_rng(1)
    host = rng.standard_normal((50, 40)).astype(np.float32)
    host.view(np.uint32)[0, :3] = [0x80000000, 0x7FC00001, 0x00000001]
    idx = rng.integers(-50, 50, (7,), dtype=np.int64)
    idx_e = rng.integers(-40, 40, (50, 9)).astype(np.int32)
    data = cl_array.to_device(queue, host)
    out = clgather.gather(data, cl_array.to_device(queue, idx), axis=0)
    assert isinstance(out, cl_array.Array)
    assert out.queue is queue and out.context == queue.context
    assert out.shape == (7, 40) and out.dtype == np.float32
    assert isinstance(out.base_data, cl.Buffer)
    # The next operator consumes the first one's output, on the device,
    # after its event, without waiting on the host (sync=False).
    out2 = clgather.gather_elements(
        out, cl_array.to_device(queue, idx_e[:7]), axis=1, sync=False,
        events=out.events)
    assert any(isinstance(e, cl.Event) for e in out2.events)
    clgather.finish(queue)
    want = np.take_along_axis(np.take(host, idx, 0), idx_e[:7].astype(
        np.int64), 1)
    assert out.get().tobytes() == np.take(host, idx, 0).tobytes()
    assert out2.get().tobytes() == want.tobytes()


def test_out_array_and_offsets(queue):
    host = np.arange(30, dtype=np.complex128).reshape(6, 5)
    data = cl_array.to_device(queue, host)
    out = cl_array.empty(queue, (6, 2), np.complex128)
    got = clgather.gather(data, cl_array.to_device(
        queue, np.array([4, 0], np.int32)), axis=1, out=out)
    assert got is out
    assert out.get().tobytes() == host[:, [4, 0]].tobytes()
    # A view at an offset of its buffer is copied once on the device.
    tail = data[2:]
    assert tail.offset != 0
    got = clgather.gather(tail, cl_array.to_device(
        queue, np.array([3, -1], np.int64)))
    assert got.get().tobytes() == host[2:][[3, -1]].tobytes()


def test_views_at_offsets_are_used_in_place(queue):
    # data, indices and out as views into the middle of their buffers,
    # out one of a larger array whose other elements stay as they were.
    host = np.arange(60, dtype=np.float32).reshape(12, 5)
    data = cl_array.to_device(queue, host)[3:9]
    idx = cl_array.to_device(queue, np.array([9, 9, 5, -6, 0], np.int64))[2:]
    big = cl_array.to_device(queue, np.full((7, 5), -1, np.float32))
    out = big[2:5]
    assert data.offset and idx.offset and out.offset
    got = clgather.gather(data, idx, out=out)
    assert got is out
    want = np.full((7, 5), -1, np.float32)
    want[2:5] = host[3:9][[5, -6, 0]]
    assert big.get().tobytes() == want.tobytes()
    # An index error names the position within the view.
    bad = cl_array.to_device(queue, np.array([0, 0, 1, 6], np.int64))[2:]
    with pytest.raises(clgather.IndexOutOfRangeError,
                       match=r"indices\[1\] = 6 is out of range"):
        clgather.gather(data, bad)


def test_user_event_orders_the_call(queue):
    host = np.arange(8, dtype=np.int16)
    data = cl_array.to_device(queue, host)
    idx = cl_array.to_device(queue, np.array([7, 0, 3], np.int64))
    gate = cl.UserEvent(queue.context)
    out = clgather.gather(data, idx, events=[gate], sync=False)
    gate.set_status(cl.command_execution_status.COMPLETE)
    assert out.get().tolist() == [7, 0, 3]
    clgather.finish(queue)


def test_index_errors(queue):
    data = cl_array.to_device(queue, np.zeros((3, 4), np.float64))
    bad = cl_array.to_device(queue, np.array([0, 3], np.int64))
    with pytest.raises(clgather.IndexOutOfRangeError,
                       match=r"indices\[1\] = 3 is out of range \[-3, 2\]"):
        clgather.gather(data, bad)
    ctx = clgather.Context.from_pyopencl(queue)
    with ctx:
        clgather.gather(data, bad, device=ctx, sync=False)
        with pytest.raises(clgather.IndexOutOfRangeError, match="Gather #1"):
            ctx.finish()
        ctx.finish()  # reported once
    clgather.gather(data, bad, sync=False)
    with pytest.raises(clgather.IndexOutOfRangeError):
        clgather.finish(queue)


@pytest.mark.parametrize("mode", ["wrap", "clip", "fill"])
def test_oob_modes_on_the_device(queue, mode):
    # Values far out of range on both sides and the int64 extremes, each
    # mode's result equal, bit for bit, to the reference's under the same
    # mode (whose own oracle is tests/test_oob.py's); sync=False defers
    # no error, as no value is an error under these modes.
    rng = np.random.default_rng(20)
    host = rng.integers(0, 2**63, (6, 5), dtype=np.uint64).view(np.float64)
    idx = rng.integers(-18, 18, (4, 7), dtype=np.int64)
    idx[0, :2] = [-2**63, 2**63 - 1]
    idx_e = rng.integers(-15, 15, (6, 9), dtype=np.int32)
    idx_e[0, :2] = [-2**31, 2**31 - 1]
    data = cl_array.to_device(queue, host)
    out = clgather.gather(data, cl_array.to_device(queue, idx), axis=0,
                          oob=mode, sync=False)
    out_e = clgather.gather_elements(data, cl_array.to_device(queue, idx_e),
                                     axis=1, oob=mode)
    clgather.finish(queue)
    want = clgather.reference.gather(host, idx, axis=0, oob=mode)
    want_e = clgather.reference.gather_elements(host, idx_e, axis=1,
                                                oob=mode)
    assert out.get().tobytes() == want.tobytes()
    assert out_e.get().tobytes() == want_e.tobytes()
    if mode == "wrap":
        assert want.tobytes() == np.take(host, idx % 6, axis=0).tobytes()
    with pytest.raises(clgather.IndexOutOfRangeError):
        clgather.gather(cl_array.to_device(queue, np.zeros((0, 2))),
                        cl_array.to_device(queue, np.zeros(1, np.int64)),
                        oob=mode)


def test_refusals(queue):
    data = cl_array.to_device(queue, np.zeros((3, 4), np.float32))
    idx = cl_array.to_device(queue, np.array([0], np.int64))
    with pytest.raises(TypeError, match="both live on the device"):
        clgather.gather(data, np.array([0]))
    with pytest.raises(clgather.InvalidArgumentError, match="own queue"):
        clgather.gather(data, idx, device="cpu")
    with pytest.raises(clgather.UnsupportedDtypeError, match="int32 or"):
        clgather.gather(data, cl_array.to_device(
            queue, np.array([0], np.int16)))
    with pytest.raises(clgather.UnsupportedDtypeError, match="host memory"):
        clgather.gather(cl_array.to_device(queue, np.zeros(3, "S2")), idx)
    with pytest.raises(clgather.InvalidArgumentError,
                       match="oob='nonsense' is not an out-of-range mode"):
        clgather.gather(data, idx, oob="nonsense")
    with pytest.raises(TypeError, match="PyOpenCL arrays only"):
        clgather.gather(np.zeros(3), [0], events=[])


def _queue_behind_a_gate(queue):
    """A second in-order queue on queue's context whose commands wait for
    a user event (a barrier behind it), and that user event."""
    second = cl.CommandQueue(queue.context, queue.device)
    gate = cl.UserEvent(queue.context)
    cl.enqueue_barrier(second, wait_for=[gate])
    return second, gate


@pytest.mark.parametrize("mode", ["clip", "raise"])
def test_indices_at_an_offset_on_a_second_queue(queue, mode):
    # The indices are a view at an offset, living on a second queue held
    # behind a user event: their copy from offset 0 runs on that queue
    # once the event is set, and the gather, on the data's queue, waits
    # for the copy, not only for the view's own events.
    # Each round's indices differ, so that memory a copy may reuse from
    # an earlier round cannot hold the right values by chance.
    host = np.arange(0, 100, 10, dtype=np.int32)
    data = cl_array.to_device(queue, host)
    for shift in range(5):
        base_host = np.array([7] + [(shift + k) % 10 for k in range(1, 5)],
                             np.int64)
        base = cl_array.to_device(queue, base_host).with_queue(None)
        second, gate = _queue_behind_a_gate(queue)
        indices = base.with_queue(second)[1:]
        assert indices.offset != 0
        out = clgather.gather(data, indices, oob=mode, sync=False)
        gate.set_status(cl.command_execution_status.COMPLETE)
        got = out.get()
        clgather.finish(queue)  # no deferred error under raise either
        want = np.take(host, base_host[1:], 0)
        if shift == 0:
            assert want.tolist() == [10, 20, 30, 40]
        assert got.tolist() == want.tolist()
        second.finish()


@pytest.mark.parametrize("order", ["in-order", "out-of-order"])
def test_copies_of_pool_arrays_outlive_the_call(queue, order):
    # Indices at an offset from a pyopencl.tools.MemoryPool on a second
    # queue (in order or not): their copy is made there at once, while the
    # gather waits on the data's queue, held behind a user event. The next
    # allocation from the pool, of the copy's size, is filled with 99
    # before the event is set: the gather still reads the copied indices
    # (a copy taken from the pool went back to it when the call returned
    # and was handed to that allocation: [90, 90, 90, 90] under clip).
    flags = (cl.command_queue_properties.OUT_OF_ORDER_EXEC_MODE_ENABLE
             if order == "out-of-order" else 0)
    host = np.arange(0, 100, 10, dtype=np.int32)
    for round_ in range(3):
        first, gate = _queue_behind_a_gate(queue)
        data = cl_array.to_device(queue, host).with_queue(first)
        second = cl.CommandQueue(queue.context, queue.device, flags)
        pool = cl.tools.MemoryPool(cl.tools.ImmediateAllocator(second))
        base = cl_array.to_device(second, np.array([7, 1, 2, 3, 4],
                                                   np.int64), allocator=pool)
        indices = base[1:]
        assert indices.offset != 0
        out = clgather.gather(data, indices, oob="clip", sync=False)
        cl_array.empty(second, 4, np.int64, allocator=pool).fill(99)
        second.finish()
        gate.set_status(cl.command_execution_status.COMPLETE)
        assert out.get().tolist() == [10, 20, 30, 40], round_
        clgather.finish(first)
        del base
        pool.free_held()


def test_data_at_an_offset_on_an_out_of_order_queue(queue):
    # The copy of data at an offset and the gather are two commands of an
    # out-of-order queue: the gather waits for the copy's event. The data
    # is large and the indices read its end, the copy's last bytes.
    if not (queue.device.queue_properties &
            cl.command_queue_properties.OUT_OF_ORDER_EXEC_MODE_ENABLE):
        raise AssertionError("%s has no out-of-order queues" %
                             queue.device.name)
    ooo = cl.CommandQueue(
        queue.context, queue.device,
        cl.command_queue_properties.OUT_OF_ORDER_EXEC_MODE_ENABLE)
    n = 1 << 22
    host = np.arange(n, dtype=np.int32) * 3 + 1
    idx_host = np.array([n - 2, n - 3, -1, 0, n // 2], np.int64)
    base = cl_array.to_device(ooo, host)
    indices = cl_array.to_device(ooo, idx_host)
    for start in (1, 7, 100):
        data = base[start:]
        assert data.offset != 0
        out = clgather.gather(data, indices, oob="clip")
        assert out.get().tolist() == np.take(
            host[start:], np.clip(idx_host, -(n - start), n - start - 1),
            0).tolist()
        out_e = clgather.gather_elements(data, indices, oob="wrap")
        assert out_e.get().tolist() == np.take(
            host[start:], idx_host % (n - start), 0).tolist()
    ooo.finish()


def test_events_must_be_pyopencl_events(queue):
    data = cl_array.to_device(queue, np.arange(4, dtype=np.float32))
    idx = cl_array.to_device(queue, np.array([3, 0], np.int64))
    gate = cl.UserEvent(queue.context)
    gate.set_status(cl.command_execution_status.COMPLETE)
    for events, words in (([1, 2], r"events\[0\] must be a pyopencl\.Event"
                           r", not int"),
                          ([gate, "e"], r"events\[1\] .* not str"),
                          (gate, "a list of pyopencl.Event"),
                          (3, "a list of pyopencl.Event")):
        with pytest.raises(TypeError, match=words):
            clgather.gather(data, idx, events=events)
    assert clgather.gather(data, idx, events=(gate,)).get().tolist() == [
        3, 0]
    assert clgather.gather(data, idx, events=[]).get().tolist() == [3, 0]


# ------------------------------------------------- PyOpenCL's conventions
# queue= and wait_for= as pyopencl.array.take(a, indices, out=None,
# queue=None, wait_for=None) takes them; events= is wait_for's alias.


def test_queue_of_the_callers(queue):
    # Arrays without a queue of their own, run on a queue the caller made
    # (as pyopencl.array.take does): the result lives on that queue.
    host = np.arange(24, dtype=np.float32).reshape(4, 6) * 1.5
    data = cl_array.to_device(queue, host).with_queue(None)
    idx = cl_array.to_device(queue, np.array([[5, 0], [-1, 2]],
                                             np.int64)).with_queue(None)
    mine = cl.CommandQueue(queue.context, queue.device)
    out = clgather.gather(data, idx, axis=1, queue=mine)
    assert out.queue is mine
    assert out.get().tobytes() == np.take(
        host, [[5, 0], [-1, 2]], axis=1).tobytes()
    # Without queue=, such arrays say what to do.
    with pytest.raises(clgather.InvalidArgumentError,
                       match=r"data has no queue: .* or pass queue="):
        clgather.gather(data, idx)
    # queue= over the data's own queue, on a Context's method too, with
    # GatherElements, and an array at an offset copied on that queue.
    elements = cl_array.to_device(queue, np.array(
        [[0, 5, 1], [2, 2, 2], [-1, 0, 3], [4, 4, 0]], np.int32))
    ctx = clgather.Context.from_pyopencl(queue)
    with ctx:
        got = ctx.gather_elements(cl_array.to_device(queue, host),
                                  elements, axis=1, queue=mine)
        assert got.queue is mine
        want = np.take_along_axis(host, elements.get().astype(np.int64), 1)
        assert got.get().tobytes() == want.tobytes()
        tail = cl_array.to_device(queue, host)[1:]
        assert tail.offset != 0
        got = ctx.gather(tail, cl_array.to_device(
            queue, np.array([2, 0], np.int32)), queue=mine)
        assert got.get().tobytes() == host[1:][[2, 0]].tobytes()
    with pytest.raises(TypeError, match="queue must be a "
                       "pyopencl.CommandQueue, not Context"):
        clgather.gather(data, idx, queue=queue.context)
    # A queue of another cl_context than the arrays'.
    other = cl.Context([queue.device])
    with pytest.raises(clgather.InvalidArgumentError,
                       match="another cl_context"):
        clgather.gather(data, idx, queue=cl.CommandQueue(other))
    mine.finish()


def test_wait_for_a_user_event(queue):
    host = np.array([1.25, -0.0, 3.5, 7.0], np.float64)
    data = cl_array.to_device(queue, host)
    idx = cl_array.to_device(queue, np.array([3, 1, -4], np.int32))
    gate = cl.UserEvent(queue.context)
    out = clgather.gather(data, idx, wait_for=[gate], sync=False)
    call = out.events[-1]
    # Nothing the gate holds back can have run.
    assert call.command_execution_status != \
        cl.command_execution_status.COMPLETE
    gate.set_status(cl.command_execution_status.COMPLETE)
    got = out.get()
    clgather.finish(queue)
    assert got.tobytes() == np.take(host, [3, 1, -4]).tobytes()
    assert call.command_execution_status == \
        cl.command_execution_status.COMPLETE
    # events= is the same argument: a tuple of events here.
    gate = cl.UserEvent(queue.context)
    out = clgather.gather_elements(data, idx[:2], events=(gate,),
                                   sync=False)
    gate.set_status(cl.command_execution_status.COMPLETE)
    assert out.get().tolist() == [7.0, -0.0]
    clgather.finish(queue)


def test_a_failed_wait_for_event_is_named_by_its_position(queue):
    # The arrays carry events of their own (their uploads); the message
    # counts the caller's wait_for= list.
    data = cl_array.to_device(queue, np.arange(4, dtype=np.int32))
    idx = cl_array.to_device(queue, np.array([3, 0], np.int64))
    ok, bad = cl.UserEvent(queue.context), cl.UserEvent(queue.context)
    clgather.gather(data, idx, wait_for=[ok, bad], sync=False)
    ok.set_status(cl.command_execution_status.COMPLETE)
    bad.set_status(-5)
    with pytest.raises(clgather.OpenCLError,
                       match=r"event_wait_list\[1\]"):
        clgather.finish(queue)


def test_wait_for_and_events_are_one_argument(queue):
    data = cl_array.to_device(queue, np.arange(4, dtype=np.int32))
    idx = cl_array.to_device(queue, np.array([3, 0], np.int64))
    gate = cl.UserEvent(queue.context)
    gate.set_status(cl.command_execution_status.COMPLETE)
    for call in (clgather.gather, clgather.gather_elements,
                 clgather.Context.from_pyopencl(queue).gather):
        with pytest.raises(TypeError, match=r"give wait_for= or events= "
                           r"\(its alias\), not both"):
            call(data, idx, wait_for=[gate], events=[gate])
        with pytest.raises(TypeError, match="not both"):
            call(data, idx, wait_for=[], events=[])
    # A wrong wait_for= names the keyword given.
    with pytest.raises(TypeError, match=r"wait_for\[1\] must be a "
                       r"pyopencl\.Event, not int"):
        clgather.gather(data, idx, wait_for=[gate, 5])
    with pytest.raises(TypeError, match="wait_for must be a list of "
                       "pyopencl.Event, not UserEvent"):
        clgather.gather(data, idx, wait_for=gate)
    assert clgather.gather(data, idx, wait_for=[gate]).get().tolist() == [
        3, 0]
    # On NumPy arrays none of them applies; both at once are refused first.
    with pytest.raises(TypeError, match="wait_for applies to PyOpenCL"):
        clgather.gather(np.zeros(3), [0], wait_for=[])
    with pytest.raises(TypeError, match="queue applies to PyOpenCL"):
        clgather.gather(np.zeros(3), [0], queue=queue)
    with pytest.raises(TypeError, match="not both"):
        clgather.gather(np.zeros(3), [0], wait_for=[], events=[])


def test_from_pyopencl_context_and_queue(queue):
    host = np.arange(10, dtype=np.uint16) * 3
    # A queue: its own objects, given back as they are.
    with clgather.Context.from_pyopencl(queue, validate=False) as ctx:
        assert ctx.pyopencl_queue is queue
        assert ctx.pyopencl_device == queue.device
        assert ctx.pyopencl_context == queue.context
        assert ctx.cl_queue == queue.int_ptr
        assert ctx.cl_device == queue.device.int_ptr
    # A context of one device: a queue of clgather's own on it.
    context = queue.context
    with clgather.Context.from_pyopencl(context) as ctx:
        assert ctx.pyopencl_context is context
        assert ctx.pyopencl_device == queue.device
        mine = ctx.pyopencl_queue
        assert isinstance(mine, cl.CommandQueue) and mine != queue
        assert mine.device == queue.device and mine.context == context
        assert ctx.cl_queue == mine.int_ptr
        data = cl_array.to_device(mine, host)
        got = ctx.gather(data, cl_array.to_device(
            mine, np.array([9, 0, -2], np.int64)))
        assert got.get().tolist() == [27, 0, 24]
    with pytest.raises(clgather.InvalidArgumentError, match="closed"):
        ctx.pyopencl_device
    with pytest.raises(TypeError, match="from_pyopencl takes a "
                       "pyopencl.CommandQueue or a pyopencl.Context, not "
                       "Device"):
        clgather.Context.from_pyopencl(queue.device)


def test_pyopencl_objects_of_a_context_by_spec(contexts):
    # Each context made from a device spec gives PyOpenCL objects over its
    # own handles: the device is one of PyOpenCL's, found by handle (no
    # name to match), and its queue runs PyOpenCL arrays for clgather.
    pyopencl_devices = [d for p in cl.get_platforms()
                        for d in p.get_devices()]
    for device, ctx in contexts:
        mine = ctx.pyopencl_device
        assert mine in pyopencl_devices
        assert mine.int_ptr == ctx.cl_device
        assert mine.name == device.name
        assert mine.platform.name == device.platform_name
        assert ctx.pyopencl_context.int_ptr == ctx.cl_context
        assert ctx.pyopencl_queue.int_ptr == ctx.cl_queue
        assert ctx.pyopencl_device is mine  # made once, then kept
        host = np.array([[1, 2], [3, 4], [5, 6]], np.int8)
        data = cl_array.to_device(ctx.pyopencl_queue, host)
        got = ctx.gather(data, cl_array.to_device(
            ctx.pyopencl_queue, np.array([2, 0], np.int32)))
        assert got.get().tolist() == [[5, 6], [1, 2]]
