# SPDX-License-Identifier: Apache-2.0
"""Each caller gets its own deferred errors: a sync=True call reports its
own operation only, and clgather.finish(queue) / Context.finish(queue)
that queue's only, so threads sharing one context never take each other's
errors (clg_context_finish_events, clg_context_finish_queue)."""

import threading

import numpy as np
import pytest

import clgather

cl = pytest.importorskip("pyopencl")
cl_array = pytest.importorskip("pyopencl.array")

LIMIT_S = 120  # every thread is joined with a limit: a hang fails


def _devices():
    return [d for p in cl.get_platforms() for d in p.get_devices()]


@pytest.fixture(scope="module", params=_devices(),
                ids=lambda d: "%s:%s" % (d.platform.name, d.name))
def cl_context(request):
    context = cl.Context([request.param])
    yield context
    del context


def _in_thread(fn):
    """Runs fn in a thread of its own: (result, exception)."""
    got = {}

    def run():
        try:
            got["result"] = fn()
        except BaseException as exc:  # handed to the test's thread
            got["error"] = exc
    t = threading.Thread(target=run)
    t.start()
    t.join(LIMIT_S)
    assert not t.is_alive(), "the call hung"
    return got.get("result"), got.get("error")


def test_sync_call_and_finish_report_only_their_own(cl_context):
    qa = cl.CommandQueue(cl_context)
    qb = cl.CommandQueue(cl_context)
    data_a = cl_array.to_device(qa, np.arange(10, dtype=np.float32))
    bad = cl_array.to_device(qa, np.array([1, 12345], np.int64))
    data_b = cl_array.to_device(qb, np.arange(12, dtype=np.float32))
    idx_b = cl_array.to_device(qb, np.array([11, -12, 3], np.int64))
    gate = cl.UserEvent(cl_context)
    # A: a deferred Gather with index 12345 on qa, held by the gate.
    out_a, err = _in_thread(lambda: clgather.gather(
        data_a, bad, sync=False, events=[gate]))
    assert err is None
    # B: a sync=True call on qb gets its result; A's operation is still
    # pending (a finish of everything would wait for the gate).
    out_b, err = _in_thread(lambda: clgather.gather(data_b, idx_b).get())
    assert err is None, err
    assert out_b.tolist() == [11.0, 0.0, 3.0]
    gate.set_status(cl.command_execution_status.COMPLETE)
    # A's own finish raises A's error, once.
    _, err = _in_thread(lambda: clgather.finish(qa))
    assert isinstance(err, clgather.IndexOutOfRangeError), err
    assert "indices[1] = 12345 is out of range [-10, 9]" in str(err)
    _, err = _in_thread(lambda: clgather.finish(qa))
    assert err is None
    clgather.finish(qb)
    del out_a


def test_context_finish_by_queue(cl_context):
    qa = cl.CommandQueue(cl_context)
    qb = cl.CommandQueue(cl_context)
    ctx = clgather.Context.from_pyopencl(qa)
    try:
        data_a = cl_array.to_device(qa, np.arange(5, dtype=np.int32))
        bad = cl_array.to_device(qa, np.array([7], np.int64))
        data_b = cl_array.to_device(qb, np.arange(5, dtype=np.int32))
        good = cl_array.to_device(qb, np.array([4], np.int64))
        ctx.gather(data_a, bad, sync=False)
        out_b = ctx.gather(data_b, good, sync=False)
        ctx.finish(qb)  # B's queue only: A's error stays pending
        assert out_b.get().tolist() == [4]
        with pytest.raises(clgather.IndexOutOfRangeError,
                           match=r"indices\[0\] = 7 is out of range"):
            ctx.finish()
        ctx.finish()
    finally:
        ctx.close()
