# SPDX-License-Identifier: Apache-2.0
"""fork: a Context used in a forked child raises InvalidArgumentError
naming the process that made it, instead of hanging (POCL's device
threads do not survive fork); the module-level functions make the child
its own context, refused with DeviceNotFoundError on POCL and working
elsewhere; multiprocessing's 'spawn' works; close() in a child returns
at once whatever the parent's threads were doing at the fork. Each step
runs under a limit, so a hang fails."""

import multiprocessing
import os
import signal
import subprocess
import sys
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


# The parent keeps a thread inside a call on ctx while it forks, one of
# three ways; the child's close() (and a with block's exit) must return at
# once, its calls raise instead of hanging, and the parent's context work
# on. Run in a process of its own (its threads and fork stay out of
# pytest's), itself under a limit.
_CHILD_CLOSE = r"""
import os, signal, sys, threading, time
import numpy as np
import clgather

how = sys.argv[1]
ctx = clgather.Context()
d = np.zeros(1000, np.float32)
i = np.zeros(1, np.int64)
stop, inside = threading.Event(), threading.Event()

def loop():  # calls back to back: one is nearly always in flight
    while not stop.is_set():
        ctx.gather(d, i)
        inside.set()

def hold():  # inside a call for as long as the fork takes
    with ctx._hold():
        inside.set()
        stop.wait()

def lock():  # the guard's own lock taken, as a call's start or end takes it
    with ctx._guard.cond:
        inside.set()
        stop.wait()

thread = threading.Thread(target={"loop": loop, "hold": hold,
                                  "lock": lock}[how], daemon=True)
thread.start()
assert inside.wait(30)
time.sleep(0.2)
parent = os.getpid()
pid = os.fork()
if pid == 0:
    signal.alarm(%(limit)d)
    code = 0
    try:
        try:
            ctx.gather(d, i)
            code = 10
        except clgather.InvalidArgumentError as exc:
            if "created in process %%d" %% parent not in str(exc):
                code = 11
        ctx.close()
        with ctx:
            pass
        try:
            ctx.gather(d, i)
            code = code or 12
        except clgather.InvalidArgumentError as exc:
            if "closed" not in str(exc):
                code = code or 13
    finally:
        os._exit(code)
deadline = time.monotonic() + %(limit)d + 5
while True:
    done, status = os.waitpid(pid, os.WNOHANG)
    if done:
        break
    if time.monotonic() > deadline:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        sys.exit("the child's close() hung")
    time.sleep(0.05)
if not os.WIFEXITED(status) or os.WEXITSTATUS(status) != 0:
    sys.exit("child: status %%d" %% status)
stop.set()
thread.join(30)
assert ctx.gather(np.arange(4, dtype=np.float32), [3, 0]).tolist() == [3, 0]
ctx.close()
print("parent and child done")
"""


@pytest.mark.parametrize("how", ["loop", "hold", "lock"])
def test_close_in_a_child_while_a_parent_thread_calls(how):
    script = _CHILD_CLOSE % {"limit": LIMIT_S // 2}
    done = subprocess.run([sys.executable, "-c", script, how],
                          capture_output=True, text=True, timeout=LIMIT_S)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout == "parent and child done\n"
