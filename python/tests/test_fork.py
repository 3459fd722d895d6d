# SPDX-License-Identifier: Apache-2.0
"""fork: a Context used in a forked child raises InvalidArgumentError
naming the process that made it, instead of hanging (POCL's device
threads do not survive fork); the module-level functions make the child
its own context, refused with DeviceNotFoundError on POCL and working
elsewhere; multiprocessing's 'spawn' works. Each step runs under a
limit, so a hang fails."""

import multiprocessing
import os
import signal
import time

import numpy as np
import pytest

import clgather

LIMIT_S = 60
DATA = np.arange(4, dtype=np.float32)
IDX = np.array([3, 0], np.int64)


def _wait(pid):
    """waitpid with a limit: kills a child that hangs."""
    deadline = time.monotonic() + 2 * LIMIT_S
    while time.monotonic() < deadline:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return status
        time.sleep(0.05)
    os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
    pytest.fail("the forked child hung")


def _child(ctx, spec, parent, pocl):
    """The child's checks: exit status 0 when all held, else which failed
    (printed)."""
    signal.alarm(LIMIT_S)
    try:
        ctx.gather(DATA, IDX)
        return 10
    except clgather.InvalidArgumentError as exc:
        if "created in process %d" % parent not in str(exc):
            print("child: %s" % exc)
            return 11
    try:
        out = clgather.gather(DATA, IDX, device=spec)
        if pocl:
            return 12
        if out.tolist() != [3.0, 0.0]:
            return 13
    except clgather.DeviceNotFoundError as exc:
        if not pocl or "'spawn'" not in str(exc):
            print("child: %s" % exc)
            return 14
    ctx.close()  # forgets the parent's context, returns
    return 0


def test_forked_child_raises(contexts):
    for device, ctx in contexts:
        assert ctx.gather(DATA, IDX).tolist() == [3.0, 0.0]
        # A module-level context for the device too.
        clgather.gather(DATA, IDX, device=device.spec)
        pocl = "portable computing language" in device.platform_name.lower()
        pid = os.fork()
        if pid == 0:
            code = 1
            try:
                code = _child(ctx, device.spec, os.getppid(), pocl)
            finally:
                os._exit(code)
        status = _wait(pid)
        assert os.WIFEXITED(status), "child died: signal %s" % (
            os.WTERMSIG(status) if os.WIFSIGNALED(status) else "?")
        assert os.WEXITSTATUS(status) == 0
        # The parent's context works on.
        assert ctx.gather(DATA, IDX).tolist() == [3.0, 0.0]


def test_spawn_works():
    with multiprocessing.get_context("spawn").Pool(1) as pool:
        got = pool.apply_async(clgather.gather, (DATA, IDX))
        assert got.get(LIMIT_S).tolist() == [3.0, 0.0]
