# SPDX-License-Identifier: Apache-2.0
"""Context.close() racing other threads' calls on the same context: close
waits for the calls in flight, and every call that starts after it raises
InvalidArgumentError ("closed"); no call reaches a destroyed context.

The race runs in a child interpreter, so that a crash (a call on a freed
context) fails this test instead of killing the suite; under ASan
(LD_PRELOAD of libasan with an ASan-built library, CLGATHER_LIBRARY) the
child inherits the environment and a report fails it the same way.
"""

import os
import subprocess
import sys
import textwrap

import clgather

# Rounds per device: a fresh context each, closed while 5 threads call
# it. CLGATHER_CLOSE_RACE_ROUNDS sets another count (e.g. for an ASan run).
ROUNDS = int(os.environ.get("CLGATHER_CLOSE_RACE_ROUNDS", "25"))

CHILD = textwrap.dedent("""
    import sys, threading
    import numpy as np
    import clgather

    spec, rounds = sys.argv[1], int(sys.argv[2])
    data = np.arange(48 * 40, dtype=np.float32).reshape(48, 40)
    idx = np.array([[47, 0, -1], [5, -48, 7]], np.int64)
    idx_e = (np.arange(48 * 40).reshape(48, 40) * 7 % 40).astype(np.int32)
    want = np.take(data, idx, 0)
    want_e = np.take_along_axis(data, idx_e.astype(np.int64), 1)
    calls = {
        "gather": lambda ctx: ctx.gather(data, idx),
        "gather_elements": lambda ctx: ctx.gather_elements(data, idx_e, 1),
        "params": lambda ctx: ctx.params,
        "finish": lambda ctx: ctx.finish(),
        "facts": lambda ctx: (ctx.device_name, ctx.device_version,
                              ctx.validate, ctx.max_alloc_size),
    }
    counts = {"calls": 0, "closed": 0}
    lock = threading.Lock()
    errors = []

    def loop(ctx, name, started):
        done = 0
        try:
            while True:
                try:
                    got = calls[name](ctx)
                except clgather.InvalidArgumentError as e:
                    if "closed" not in str(e):
                        raise
                    with lock:
                        counts["closed"] += 1
                    return
                if name == "gather":
                    assert got.tobytes() == want.tobytes()
                elif name == "gather_elements":
                    assert got.tobytes() == want_e.tobytes()
                done += 1
                if done == 2:
                    started.release()
        except BaseException as e:
            errors.append("%s: %r" % (name, e))
            started.release()
        finally:
            with lock:
                counts["calls"] += done

    for _ in range(rounds):
        ctx = clgather.Context(spec)
        started = threading.Semaphore(0)
        threads = [threading.Thread(target=loop, args=(ctx, name, started))
                   for name in calls]
        for t in threads:
            t.start()
        for _ in threads:  # each thread has made two calls and goes on
            started.acquire()
        ctx.close()
        for t in threads:
            t.join()
        assert "closed" in repr(ctx)
    if errors:
        raise SystemExit("\\n".join(errors))
    print("calls %d closed %d" % (counts["calls"], counts["closed"]))
""")


def test_close_waits_for_calls_in_flight():
    for device in clgather.devices():
        child = subprocess.run(
            [sys.executable, "-c", CHILD, device.spec, str(ROUNDS)],
            capture_output=True, text=True, timeout=300)  # a hang fails
        assert child.returncode == 0, (device.spec, child.returncode,
                                       child.stdout, child.stderr[-4000:])
        words = child.stdout.split()
        assert words[0] == "calls" and words[2] == "closed"
        # Every thread of every round was stopped by the close.
        assert int(words[3]) == 5 * ROUNDS
        assert int(words[1]) >= 2 * 5 * ROUNDS
