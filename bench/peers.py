#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Compare clgather with its CPU and OpenCL peers on the bench workloads.

One run does, on this machine and in this order:

1. ``clgather bench --json FILE`` on the default device (CLGATHER_DEVICE,
   else the first GPU, else the first device), or on each ``--device SPEC``
   in turn (e.g. POCL's and Intel's CPU runtimes on the same cores), whose
   tables are shown as is;
2. for every workload it measured, with the shapes, dtypes and axis read
   back from that JSON (so the two sides cannot drift apart) and inputs
   drawn the same way (index values uniform in [-s, s-1]):
   - NumPy: ``numpy.take`` (Gather), ``numpy.take_along_axis``
     (GatherElements) or advanced indexing ``data[idx[..., 0], ...,
     idx[..., k-1]]`` (GatherND; per batch position into a preallocated
     output when batch_dims > 0), the faster of "returns a new array" and,
     for take, "writes into a preallocated out=";
   - ONNX Runtime: a one-node model (opset 13) on the CPU execution
     provider with default session options (so its default thread count),
     inputs and a preallocated output bound with I/O binding;
   - the optional peers, each where it imports (else skipped with a line
     saying why; requirements.txt lists them): OpenVINO (CPU plugin, a
     one-op model), PyTorch CPU (index_select / gather with out=, or
     advanced indexing, the faster), JAX CPU (jitted take,
     take_along_axis, advanced indexing), and on the device under test
     (matched by the name clgather bench reports) tinygrad's OpenCL
     backend (TinyJit; a call over 2 s is not repeated) and PyOpenCL's
     pyopencl.array.take (Gather only, the slice as one struct element);
   each under the same cache conditions as clgather bench (CACHE: one
   warm-up call, then --repeat calls back to back, the best kept), and
   every output compared bit for bit with NumPy's (a float output that
   is not bit-exact, e.g. NaN payloads quieted, is timed and checked again
   on the integer view of the same bytes, and the report says so); the
   CPU peers run once, whatever the number of devices, the OpenCL peers
   once per device;
   with --rounds N, steps 1 and 2 run N times in turn (every device, then
   the peers, then every device again...), and each figure is the best of
   its rounds: on a shared machine a burst of load then costs one side one
   round, instead of deciding a ratio;
3. prints the peers' versions, threads and notes, the load average, and
   per device, each peer's time divided by clgather's, for both of
   clgather's paths: the device-buffer call (kernel_ms) and the
   host-memory call (end_to_end_ms, transfers and the index check
   included; which path ran it); a ratio above 1 means clgather was
   faster, and a second table names the strongest (fastest) peer per
   workload, against which the targets are judged; with several
   devices, also their times side by side and each one's time divided by
   the first's; writes peers.md (tables + machine),
   peers.json, peers.png (bar chart of the ratios and of clgather's
   efficiencies) and bench.txt (clgather bench's own table) to --out-dir;
   with --readme FILE, also replaces the part of FILE between the lines
   README_BEGIN and README_END with the machine, the strongest-peer
   tables, the verdicts and the chart (the full tables stay in peers.md).

Setup (not part of CI), from a clone:
    cmake -S . -B build -DCMAKE_BUILD_TYPE=Release && cmake --build build
    python3 -m venv .venv && .venv/bin/pip install -r bench/requirements.txt
    .venv/bin/python bench/peers.py --clgather build/cli/clgather \
        --repeat 10 --rounds 3 --readme docs/benchmarks.md
"""

import argparse
import json
import os
import platform
import shlex
import subprocess
import sys
import tempfile
import textwrap
import time

try:
    import numpy as np
except ImportError:
    sys.exit("peers.py needs NumPy, ONNX and ONNX Runtime: python3 -m venv "
             ".venv && .venv/bin/pip install -r bench/requirements.txt")

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

DTYPES = {"FLOAT": np.float32, "FLOAT16": np.float16, "DOUBLE": np.float64,
          "INT32": np.int32, "INT64": np.int64, "INT8": np.int8,
          "UINT8": np.uint8, "INT16": np.int16, "UINT16": np.uint16}

# The speed targets (docs/design.md, "Measuring speed") that this script can
# judge: every peer ratio on every large workload, through each path.
LARGE_EXCLUDED = {"small"}
KERNEL_RATIO_TARGET = 1.2
# End to end (host memory) 1.2, except elements-last-axis (ONNX Runtime
# checks nothing up front) and the GatherND workloads: 1.0.
E2E_RATIO_TARGET = {"elements-last-axis": 1.0, "nd-positions": 1.0,
                    "nd-rows": 1.0, "nd-scalars": 1.0}
E2E_RATIO_DEFAULT = 1.2
# clgather bench's efficiency targets on CPU devices (bench/bench_report.c).
EFFICIENCY_TARGET_CPU = {"embedding": 0.8, "gather-last-axis": 0.6,
                         "gather-middle-axis": 0.8, "elements-last-axis": 0.7,
                         "elements-axis0": 0.3, "nd-positions": 0.6,
                         "nd-rows": 0.6, "nd-scalars": 0.3}

# How the caches stand when each figure is taken: clgather bench writes the
# same words into its JSON ("cache"), and both sides must agree.
CACHE = "warm, back-to-back repeats"

README_BEGIN = "<!-- results: bench/peers.py --readme writes from here -->"
README_END = "<!-- results: to here -->"


def machine_info():
    """CPU model, cores, memory and software versions of this machine."""
    info = {"cpu": platform.processor() or platform.machine(),
            "logical_cpus": os.cpu_count(),
            "usable_cpus": len(os.sched_getaffinity(0)),
            "memory_gib": None,
            "os": platform.platform(),
            "python": platform.python_version()}
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    info["cpu"] = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemTotal:"):
                    info["memory_gib"] = round(int(line.split()[1]) / 2**20, 1)
                    break
    except OSError:
        pass
    return info


def find_clgather(path):
    if path:
        if not os.path.isfile(path) or not os.access(path, os.X_OK):
            sys.exit(f"peers.py: --clgather {path}: not an executable file")
        return path
    for cand in ("build/cli/clgather", "build-bench/cli/clgather"):
        full = os.path.join(REPO, cand)
        if os.access(full, os.X_OK):
            return full
    sys.exit("peers.py: no clgather executable found under build/cli/; "
             "build it (cmake -S . -B build && cmake --build build) or pass "
             "--clgather PATH")


def run_clgather(exe, args, device):
    """Runs clgather bench on `device` (None: the default one), shows its
    output; returns the parsed JSON and the table it printed."""
    with tempfile.TemporaryDirectory() as tmp:
        json_path = os.path.join(tmp, "bench.json")
        # The first-call table is not among the peers' figures.
        cmd = [exe, "bench", "--no-first-call", "--json", json_path,
               "--repeat", str(args.repeat)]
        if device is not None:
            cmd += ["--device", device]
        for name in args.workload or []:
            cmd += ["--workload", name]
        if args.seed is not None:
            cmd += ["--seed", str(args.seed)]
        if args.oob is not None:
            cmd += ["--oob", args.oob]
        print("$ " + " ".join(cmd), flush=True)
        proc = subprocess.run(cmd, stdout=subprocess.PIPE, text=True)
        print(proc.stdout, end="", flush=True)
        if proc.returncode != 0:
            sys.exit(f"peers.py: clgather bench failed with exit status "
                     f"{proc.returncode}")
        with open(json_path) as f:
            return json.load(f), proc.stdout


def make_inputs(w, rng):
    dtype = DTYPES[w["data_dtype"]]
    shape = tuple(w["data_shape"])
    nbytes = int(np.prod(shape)) * np.dtype(dtype).itemsize
    # Random bytes, like clgather bench (NaN payloads included): both peers
    # only move them.
    data = rng.integers(0, 256, size=nbytes, dtype=np.uint8).view(dtype)
    data = data.reshape(shape)
    axis = w["axis"] % len(shape)
    ishape = tuple(w["indices_shape"])
    if w["op"] == "GatherND":
        # axis is batch_dims; component c of a tuple along data dim
        # batch_dims + c, as clgather bench draws them.
        s = np.array(shape[axis:axis + ishape[-1]], dtype=np.int64)
        u = rng.random(size=ishape)
        idx = (np.floor(u * 2 * s) - s).astype(DTYPES[w["indices_dtype"]])
        return data, idx, axis
    s = shape[axis]
    idx = rng.integers(-s, s, size=ishape, dtype=DTYPES[w["indices_dtype"]])
    return data, idx, axis


def best_time(fn, repeat):
    """CACHE: one warm-up call, then `repeat` calls back to back."""
    fn()  # warm-up
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def gather_nd_numpy(data, idx, b, out=None):
    """GatherND by NumPy's advanced indexing, per batch position when
    batch_dims b > 0 (into `out`, preallocated)."""
    k = idx.shape[-1]
    if b == 0:
        return data[tuple(idx[..., c] for c in range(k))]
    batch = int(np.prod(idx.shape[:b]))
    d = data.reshape((batch,) + data.shape[b:])
    i = idx.reshape((batch,) + idx.shape[b:])
    o = out.reshape((batch,) + out.shape[b:])
    for p in range(batch):
        o[p] = d[p][tuple(i[p][..., c] for c in range(k))]
    return out


def time_numpy(w, data, idx, axis, repeat):
    if w["op"] == "GatherND":
        out = np.empty(tuple(w["output_shape"]), dtype=data.dtype)
        t = best_time(lambda: gather_nd_numpy(data, idx, axis, out), repeat)
        return t, gather_nd_numpy(data, idx, axis, out).copy()
    if w["op"] == "Gather":
        out = np.empty(tuple(w["output_shape"]), dtype=data.dtype)
        t_new = best_time(lambda: np.take(data, idx, axis=axis), repeat)
        t_out = best_time(lambda: np.take(data, idx, axis=axis, out=out),
                          repeat)
        return min(t_new, t_out), np.take(data, idx, axis=axis)
    t = best_time(lambda: np.take_along_axis(data, idx, axis=axis), repeat)
    return t, np.take_along_axis(data, idx, axis=axis)


def ort_model(w, data, idx, axis):
    from onnx import TensorProto, helper
    onnx_type = {np.dtype(np.float32): TensorProto.FLOAT,
                 np.dtype(np.float16): TensorProto.FLOAT16,
                 np.dtype(np.float64): TensorProto.DOUBLE,
                 np.dtype(np.int32): TensorProto.INT32,
                 np.dtype(np.int64): TensorProto.INT64,
                 np.dtype(np.int8): TensorProto.INT8,
                 np.dtype(np.uint8): TensorProto.UINT8,
                 np.dtype(np.int16): TensorProto.INT16,
                 np.dtype(np.uint16): TensorProto.UINT16}
    attr = ({"batch_dims": w["axis"]} if w["op"] == "GatherND"
            else {"axis": w["axis"]})
    node = helper.make_node(w["op"], ["data", "indices"], ["output"], **attr)
    graph = helper.make_graph(
        [node], "clgather_peer_" + w["name"].replace("-", "_"),
        [helper.make_tensor_value_info("data", onnx_type[data.dtype],
                                       list(data.shape)),
         helper.make_tensor_value_info("indices", onnx_type[idx.dtype],
                                       list(idx.shape))],
        [helper.make_tensor_value_info("output", onnx_type[data.dtype],
                                       list(w["output_shape"]))])
    opset = [helper.make_opsetid("", 13)]
    model = helper.make_model(graph, opset_imports=opset)
    model.ir_version = helper.find_min_ir_version_for(opset)
    return model.SerializeToString()


def time_ort(w, data, idx, axis, repeat):
    import onnxruntime as ort
    sess = ort.InferenceSession(ort_model(w, data, idx, axis),
                                sess_options=ort.SessionOptions(),
                                providers=["CPUExecutionProvider"])
    out = np.empty(tuple(w["output_shape"]), dtype=data.dtype)
    binding = sess.io_binding()
    binding.bind_ortvalue_input("data", ort.OrtValue.ortvalue_from_numpy(data))
    binding.bind_ortvalue_input("indices",
                                ort.OrtValue.ortvalue_from_numpy(idx))
    binding.bind_ortvalue_output("output",
                                 ort.OrtValue.ortvalue_from_numpy(out))
    t = best_time(lambda: sess.run_with_iobinding(binding), repeat)
    return t, out


def bits(a):
    return a.view(np.dtype(f"u{a.dtype.itemsize}"))


# The optional peers: each is measured where its package imports, else
# skipped with a line saying why. A peer's prepare() gets the bench's own
# tensors and returns (call, result): call() runs the operation once and
# returns when its output is complete; result() gives that output as a
# NumPy array. It raises PeerSkip where the peer has no form of the
# workload's operation.
class PeerSkip(Exception):
    pass


def pkg_version(name):
    from importlib import metadata
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return "?"


def normalized(idx, w, shape, axis):
    """The indices moved into [0, s): for peers that take no negative
    index (done once, outside the timing)."""
    if w["op"] == "GatherND":
        s = np.array(shape[axis:axis + idx.shape[-1]], dtype=idx.dtype)
        return np.where(idx < 0, idx + s, idx)
    s = idx.dtype.type(shape[axis])
    return np.where(idx < 0, idx + s, idx)


class OpenVINOPeer:
    key, label, opencl = "openvino", "OpenVINO", False

    def load(self, device):
        import openvino as ov
        self.ov = ov
        self.core = ov.Core()
        self.version = ov.get_version().split("-")[0]
        self.threads = self.core.get_property("CPU", "INFERENCE_NUM_THREADS")
        self.threads = self.threads or f"default ({os.cpu_count()} CPUs)"
        self.how = ("CPU plugin, a one-op model (opset 8 Gather, opset 6 "
                    "GatherElements, opset 8 GatherND), f32 inference "
                    "precision, tensors shared with NumPy")

    def prepare(self, w, data, idx, axis):
        ov = self.ov
        from openvino import opset8 as ops
        d = ops.parameter(list(data.shape), ov.Type(data.dtype), name="data")
        i = ops.parameter(list(idx.shape), ov.Type(idx.dtype), name="indices")
        if w["op"] == "Gather":
            node = ops.gather(d, i, ops.constant(np.int64(axis)))
        elif w["op"] == "GatherElements":
            node = ops.gather_elements(d, i, axis)
        else:
            node = ops.gather_nd(d, i, batch_dims=axis)
        model = ov.Model([node], [d, i], "clgather_peer")
        compiled = self.core.compile_model(
            model, "CPU", {"INFERENCE_PRECISION_HINT": "f32"})
        req = compiled.create_infer_request()
        out = np.empty(tuple(w["output_shape"]), dtype=data.dtype)
        # The tensors share the arrays' memory: keep them alive with the
        # call.
        keep = [ov.Tensor(a, shared_memory=True) for a in (data, idx, out)]
        req.set_input_tensor(0, keep[0])
        req.set_input_tensor(1, keep[1])
        req.set_output_tensor(0, keep[2])

        def call():
            req.infer()
            return keep, out
        return call, lambda: (call(), out.copy())[1]


class TorchPeer:
    key, label, opencl = "torch", "PyTorch", False

    def load(self, device):
        import torch
        self.torch = torch
        self.version = torch.__version__
        self.threads = torch.get_num_threads()
        self.how = ("CPU; index_select (Gather) and gather (GatherElements) "
                    "with out= on indices moved into [0, s) beforehand, or "
                    "advanced indexing on the indices as drawn, the faster; "
                    "GatherND by advanced indexing")

    def prepare(self, w, data, idx, axis):
        torch = self.torch
        if data.dtype == np.uint16:
            raise PeerSkip("no uint16 tensors")
        d = torch.from_numpy(data)
        oshape = tuple(w["output_shape"])
        out = torch.empty(oshape, dtype=d.dtype)
        if w["op"] == "GatherND":
            k = idx.shape[-1]
            i = torch.from_numpy(idx)
            bshape = idx.shape[:axis]
            # batch positions as broadcast aranges, built once
            pre = tuple(torch.arange(n).reshape((-1,) + (1,) * (
                len(idx.shape) - 2 - j)) for j, n in enumerate(bshape))
            comps = tuple(i[..., c] for c in range(k))
            key = pre + comps
            return (lambda: d[key]), (lambda: d[key].numpy())
        n = normalized(idx, w, data.shape, axis)
        if w["op"] == "Gather":
            nf = torch.from_numpy(np.ascontiguousarray(n.reshape(-1)))
            flat = out.view(data.shape[:axis] + (nf.shape[0],) +
                            data.shape[axis + 1:])
            sel = (lambda: torch.index_select(d, axis, nf, out=flat))
            i = torch.from_numpy(idx)
            key = (slice(None),) * axis + (i,)
            adv = (lambda: d[key])
        else:
            nt = torch.from_numpy(n.astype(np.int64, copy=False))
            sel = (lambda: torch.gather(d, axis, nt, out=out))
            adv = None
        t_sel = best_time(sel, 2)
        if adv is not None and best_time(adv, 2) < t_sel:
            self.chosen = "advanced indexing"
            return adv, (lambda: d[key].numpy())
        self.chosen = "index_select" if w["op"] == "Gather" else "gather"
        return sel, (lambda: (sel(), out.numpy().copy())[1])


class JAXPeer:
    key, label, opencl = "jax", "JAX", False

    def load(self, device):
        import jax
        jax.config.update("jax_platforms", "cpu")
        jax.config.update("jax_enable_x64", True)  # int64 indices stay int64
        import jax.numpy as jnp
        self.jax, self.jnp = jax, jnp
        self.version = jax.__version__
        self.threads = f"XLA CPU default ({os.cpu_count()} CPUs)"
        self.how = ("CPU, jitted take (Gather), take_along_axis "
                    "(GatherElements), advanced indexing (GatherND), on "
                    "arrays put on the device beforehand")

    def prepare(self, w, data, idx, axis):
        jax, jnp = self.jax, self.jnp
        d = jax.device_put(data)
        i = jax.device_put(idx)
        if w["op"] == "Gather":
            f = jax.jit(lambda d, i: jnp.take(d, i, axis=axis))
        elif w["op"] == "GatherElements":
            f = jax.jit(lambda d, i: jnp.take_along_axis(d, i, axis=axis))
        else:
            k = idx.shape[-1]

            def nd(d, i):
                g = lambda d, i: d[tuple(i[..., c] for c in range(k))]
                for _ in range(axis):
                    g = jax.vmap(g)
                return g(d, i)
            f = jax.jit(nd)
        return ((lambda: f(d, i).block_until_ready()),
                (lambda: np.asarray(f(d, i))))


def opencl_device_index(names, device_name):
    if device_name not in names:
        raise PeerSkip(f"no OpenCL device named {device_name!r} "
                       f"(found {names})")
    return names.index(device_name)


class PyOpenCLPeer:
    key, label, opencl = "pyopencl", "PyOpenCL take", True
    MAX_CALLS = 64

    def load(self, device):
        import pyopencl as cl
        import pyopencl.array as cla
        import pyopencl.tools as clt
        self.cl, self.cla, self.clt = cl, cla, clt
        devs = [d for p in cl.get_platforms() for d in p.get_devices()]
        self.dev = devs[opencl_device_index([d.name for d in devs], device)]
        self.ctx = cl.Context([self.dev])
        self.queue = cl.CommandQueue(self.ctx)
        self.version = pkg_version("pyopencl")
        self.threads = f"{self.dev.max_compute_units} compute units"
        self.how = (f"pyopencl.array.take on {self.dev.platform.name}, "
                    "device buffers; Gather only, the gathered slice as "
                    "one struct element, one take per position before the "
                    f"axis (at most {self.MAX_CALLS}), indices moved into "
                    "[0, s) beforehand")
        self.rows = {}

    def row_dtype(self, nbytes):
        if nbytes not in self.rows:
            name = f"clg_row{nbytes}"
            dt, _ = self.clt.match_dtype_to_c_struct(
                self.dev, name, np.dtype([("b", np.uint8, (nbytes,))]))
            self.rows[nbytes] = self.clt.get_or_register_dtype(name, dt)
        return self.rows[nbytes]

    def prepare(self, w, data, idx, axis):
        if w["op"] != "Gather":
            raise PeerSkip("take is Gather on a 1-D array")
        lead = int(np.prod(data.shape[:axis]))
        if lead > self.MAX_CALLS:
            raise PeerSkip(f"{lead} takes (one per position before the "
                           "axis)")
        cla, q = self.cla, self.queue
        row = self.row_dtype(int(np.prod(data.shape[axis + 1:])) *
                             data.itemsize)
        s = data.shape[axis]
        n = np.ascontiguousarray(normalized(idx, w, data.shape, axis)
                                 .reshape(-1))
        d = cla.to_device(q, np.ascontiguousarray(data).view(np.uint8)
                          .reshape(lead * s, -1).view(row).reshape(lead, s))
        i = cla.to_device(q, n)
        out = cla.empty(q, (lead, n.shape[0]), row)
        views = [(d[b], out[b]) for b in range(lead)]

        def call():
            for src, dst in views:
                cla.take(src, i, out=dst)
            q.finish()

        def result():
            call()
            return (out.get().view(np.uint8).view(data.dtype)
                    .reshape(tuple(w["output_shape"])))
        return call, result


class TinygradPeer:
    key, label, opencl = "tinygrad", "tinygrad", True
    # A call slower than this is not repeated (tinygrad indexes through
    # an arange compare, whose cost grows with the gathered axis).
    SLOW_S = 2.0

    def load(self, device):
        import ctypes
        import tinygrad
        from tinygrad.runtime import ops_cl
        from tinygrad.runtime.autogen import opencl as tcl
        # tinygrad takes the devices of the first platform: list every
        # platform's, so that "CL:n" is the device under test.
        num = ctypes.c_uint32()
        ops_cl.check(tcl.clGetPlatformIDs(0, None, num))
        plats = (tcl.cl_platform_id * num.value)()
        ops_cl.check(tcl.clGetPlatformIDs(num.value, plats, None))
        ids, names = [], []
        for p in plats:
            nd = ctypes.c_uint32()
            if tcl.clGetDeviceIDs(p, tcl.CL_DEVICE_TYPE_ALL, 0, None, nd):
                continue
            arr = (tcl.cl_device_id * nd.value)()
            ops_cl.check(tcl.clGetDeviceIDs(p, tcl.CL_DEVICE_TYPE_ALL, nd,
                                            arr, None))
            for dev in arr:
                buf = ctypes.create_string_buffer(256)
                tcl.clGetDeviceInfo(dev, tcl.CL_DEVICE_NAME, 256, buf, None)
                ids.append(dev)
                names.append(buf.value.decode())
        index = opencl_device_index(names, device)
        if ops_cl.CLDevice.device_ids is None:
            ops_cl.CLDevice.device_ids = (tcl.cl_device_id * len(ids))(*ids)
        self.tinygrad, self.dev = tinygrad, f"CL:{index}"
        from tinygrad import Device
        self.Device = Device
        Device[self.dev]  # opens it: fails here if the runtime refuses
        cu = ctypes.c_uint32()
        tcl.clGetDeviceInfo(ids[index], tcl.CL_DEVICE_MAX_COMPUTE_UNITS, 4,
                            ctypes.byref(cu), None)
        self.version = pkg_version("tinygrad")
        self.threads = f"{cu.value} compute units"
        self.how = ("OpenCL backend on the device under test, TinyJit of "
                    "data[indices] (Gather, GatherND) and gather "
                    "(GatherElements), device buffers")
        self.slow = {}

    def prepare(self, w, data, idx, axis):
        from tinygrad import Tensor, TinyJit
        if w["name"] in self.slow:
            raise PeerSkip(self.slow[w["name"]])
        dev = self.dev
        d = Tensor(data, device=dev).realize()
        if w["op"] == "GatherElements":
            i = Tensor(normalized(idx, w, data.shape, axis),
                       device=dev).realize()
            f = TinyJit(lambda d, i: d.gather(axis, i).realize())
        elif w["op"] == "Gather":
            i = Tensor(idx, device=dev).realize()
            key = (slice(None),) * axis
            f = TinyJit(lambda d, i: d[key + (i,)].realize())
        else:
            if axis:
                raise PeerSkip("batch_dims > 0")
            i = Tensor(idx, device=dev).realize()
            k = idx.shape[-1]
            f = TinyJit(lambda d, i: d[tuple(i[..., c] for c in range(k))]
                        .realize())
        sync = self.Device[dev].synchronize
        state = {}

        def call():
            state["out"] = f(d, i)
            sync()
        # TinyJit captures on its second call and replays from the third.
        for n in range(2):
            t0 = time.perf_counter()
            call()
            t = time.perf_counter() - t0
            if n == 1 and t > self.SLOW_S:  # the first one compiles
                self.slow[w["name"]] = (f"one call took {t:.1f} s "
                                        f"(> {self.SLOW_S} s): not timed")
                raise PeerSkip(self.slow[w["name"]])
        return call, lambda: (call(), state["out"].numpy())[1]


OPTIONAL_PEERS = [OpenVINOPeer, TorchPeer, JAXPeer, TinygradPeer,
                  PyOpenCLPeer]
PEER_LABELS = {"numpy": "NumPy", "onnxruntime": "ONNX Runtime"}
PEER_LABELS.update({p.key: p.label for p in OPTIONAL_PEERS})


def load_peers(device_names):
    """The optional peers that load: {key: {device index or None: peer}};
    and {key: why skipped}. OpenCL peers load once per device under test
    (by its name, as clgather bench reported it)."""
    loaded, skipped = {}, {}
    # The OpenCL peers first: once OpenVINO is loaded, Intel's CPU runtime
    # no longer shows in the platform list (each ships its own TBB).
    for cls in sorted(OPTIONAL_PEERS, key=lambda c: not c.opencl):
        targets = list(enumerate(device_names)) if cls.opencl else [(None,
                                                                     None)]
        for d, name in targets:
            peer = cls()
            try:
                peer.load(name)
            except ImportError as e:
                skipped[cls.key] = f"not importable ({e})"
                break
            except Exception as e:  # noqa: BLE001 - any failure: a skip
                where = f" on {name}" if name else ""
                skipped.setdefault(cls.key, "")
                skipped[cls.key] += (f"cannot run{where}: "
                                     f"{type(e).__name__}: "
                                     f"{str(e).splitlines()[0][:200]}; ")
                continue
            loaded.setdefault(cls.key, {})[d] = peer
    return loaded, skipped


def int_view(a):
    return a.view(np.dtype(f"i{a.dtype.itemsize}"))


def time_peer(peer, w, data, idx, axis, ref, repeat, notes):
    """One optional peer's best time on w (s), or None; checked bit for
    bit against `ref` (NumPy's output). Where a float output is not
    bit-exact (NaN payloads quieted, subnormals flushed...), the peer is
    timed again on the integer view of the same bytes, and notes say
    which values changed."""
    tag = f"{peer.label}, {w['name']}"
    try:
        call, result = peer.prepare(w, data, idx, axis)
        t = best_time(call, repeat)
        out = result()
    except PeerSkip as e:
        notes.add(f"{tag}: not measured: {e}")
        return None
    except Exception as e:  # noqa: BLE001 - a failing peer is skipped
        notes.add(f"{tag}: failed: {type(e).__name__}: "
                  f"{str(e).splitlines()[0][:200] if str(e) else ''}")
        return None
    chosen = getattr(peer, "chosen", None)
    if chosen:
        notes.add(f"{tag}: {chosen} was the faster")
        peer.chosen = None
    if out.shape == ref.shape and np.array_equal(bits(out), bits(ref)):
        return t
    if out.shape == ref.shape and data.dtype.kind == "f":
        differ = bits(out) != bits(ref)
        kinds = []
        if np.isnan(ref[differ]).any():
            kinds.append("NaN payloads quieted or changed")
        zero = ref[differ] == 0
        if zero.any():
            kinds.append("signs of zero changed")
        sub = (~np.isnan(ref[differ]) & (ref[differ] != 0) &
               (np.abs(ref[differ]) < np.finfo(ref.dtype).tiny))
        if sub.any():
            kinds.append("subnormals flushed to zero"
                         if (out[differ][sub] == 0).all()
                         else "subnormals changed")
        if len(kinds) == 0 or (np.isnan(ref[differ]) | zero | sub).sum() \
                != differ.sum():
            kinds.append("other values changed")
        notes.add(f"{tag}: not bit-exact on {data.dtype} "
                  f"({', '.join(kinds)}): timed and checked on the "
                  f"{int_view(data).dtype} view of the same bytes")
        t = time_peer(peer, w, int_view(data), idx, axis, int_view(ref),
                      repeat, notes)
        return t
    notes.add(f"{tag}: output differs from NumPy's: not counted")
    return None


def fmt(v, spec):
    return "-" if v is None else format(v, spec)


def fmt_ms(v):
    """Milliseconds: three decimals, three significant digits below 1."""
    if v is None:
        return "-"
    return format(v, ".3g") if v < 1 else format(v, ".3f")


def ratio(peer_ms, clgather_ms):
    return None if clgather_ms is None else peer_ms / clgather_ms


def render_table(rows):
    head = ["workload", "MB", "clgather kernel ms", "clgather e2e ms",
            "check ms", "numpy ms", "onnxruntime ms", "numpy / kernel",
            "numpy / e2e", "onnxruntime / kernel", "onnxruntime / e2e",
            "efficiency", "e2e efficiency"]
    lines = ["| " + " | ".join(head) + " |",
             "|" + "|".join(["---"] + ["---:"] * (len(head) - 1)) + "|"]
    for r in rows:
        lines.append("| " + " | ".join([
            r["name"], fmt(r["bytes"] / 1e6, ".1f"),
            fmt(r["clgather_kernel_ms"], ".3f"), fmt(r["clgather_ms"], ".3f"),
            fmt(r["check_ms"], ".3f"), fmt(r["numpy_ms"], ".3f"),
            fmt(r["onnxruntime_ms"], ".3f"),
            fmt(r["numpy_kernel_ratio"], ".2f"), fmt(r["numpy_ratio"], ".2f"),
            fmt(r["onnxruntime_kernel_ratio"], ".2f"),
            fmt(r["onnxruntime_ratio"], ".2f"), fmt(r["efficiency"], ".2f"),
            fmt(r["end_to_end_efficiency"], ".2f")]) + " |")
    return "\n".join(lines)


def plot(rows, title, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = [r["name"] for r in rows]
    x = np.arange(len(rows))
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(14, 5))
    bars = (("numpy_kernel_ratio", "NumPy / kernel"),
            ("numpy_ratio", "NumPy / e2e"),
            ("onnxruntime_kernel_ratio", "ONNX Runtime / kernel"),
            ("onnxruntime_ratio", "ONNX Runtime / e2e"),
            ("strongest_kernel_ratio", "strongest peer / kernel"),
            ("strongest_ratio", "strongest peer / e2e"))
    for i, (key, label) in enumerate(bars):
        vals = [r[key] or 0 for r in rows]
        b = ax1.bar(x + (i - 2.5) * 0.14, vals, 0.14, label=label)
        ax1.bar_label(b, fmt="%.2f", fontsize=6)
    ax1.axhline(1.0, color="black", linewidth=0.8)
    ax1.axhline(KERNEL_RATIO_TARGET, color="grey", linestyle="--",
                linewidth=0.8)
    ax1.set_yscale("log")
    ax1.set_ylabel("peer time / clgather time\n(> 1: clgather faster)")
    ax1.set_xticks(x, names, rotation=25, ha="right")
    ax1.legend(fontsize=7)
    ax1.set_title("Time ratio to clgather (kernel: device buffers; "
                  "e2e: host memory)", fontsize=9)
    for off, key, label in ((-0.2, "efficiency", "efficiency (kernel)"),
                            (0.2, "end_to_end_efficiency",
                             "end-to-end efficiency")):
        vals = [r[key] or 0 for r in rows]
        b = ax2.bar(x + off, vals, 0.4, label=label)
        ax2.bar_label(b, fmt="%.2f", fontsize=7)
    targets = [EFFICIENCY_TARGET_CPU.get(n) for n in names]
    ax2.scatter([i for i, t in enumerate(targets) if t is not None],
                [t for t in targets if t is not None], marker="_", s=900,
                color="black", label="target (CPU)", zorder=3)
    ax2.set_ylabel("GB/s / fastest copy kernel's GB/s")
    ax2.set_xticks(x, names, rotation=25, ha="right")
    ax2.legend(fontsize=8)
    ax2.set_title("clgather efficiency against the copy baseline",
                  fontsize=9)
    fig.suptitle("\n".join(textwrap.wrap(title, 160)), fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def measure_peers(w, rng, repeat, peers, notes):
    """The peers' times on workload w, ms: {(peer key, device index or
    None for a CPU peer): ms}."""
    data, idx, axis = make_inputs(w, rng)
    t_np, out_np = time_numpy(w, data, idx, axis, repeat)
    t_ort, out_ort = time_ort(w, data, idx, axis, repeat)
    if not np.array_equal(bits(out_np), bits(out_ort)):
        sys.exit(f"peers.py: {w['name']}: NumPy and ONNX Runtime "
                 "outputs differ")
    del out_ort
    times = {("numpy", None): t_np * 1e3, ("onnxruntime", None): t_ort * 1e3}
    for key, by_device in peers.items():
        for d, peer in by_device.items():
            print(f"peers: {w['name']}: {peer.label}"
                  + (f" on device #{d + 1}" if d is not None else "")
                  + " ...", file=sys.stderr, flush=True)
            t = time_peer(peer, w, data, idx, axis, out_np, repeat, notes)
            if t is not None:
                times[(key, d)] = t * 1e3
    return times


def make_row(w, peers):
    """One row: clgather's workload w beside the peers ({key: ms}), both
    ratios each, and the strongest (fastest) peer."""
    e2e, kernel = w["end_to_end_ms"], w.get("kernel_ms")
    np_ms, ort_ms = peers["numpy"], peers["onnxruntime"]
    strongest = min(peers, key=peers.get)
    return {
        "name": w["name"], "bytes": w["bytes"], "clgather_ms": e2e,
        "clgather_kernel_ms": kernel, "check_ms": w.get("check_ms"),
        "check_pass": w.get("check_pass"),
        "host_memory_path": w.get("host_memory_path"),
        "numpy_ms": np_ms, "numpy_ratio": ratio(np_ms, e2e),
        "numpy_kernel_ratio": ratio(np_ms, kernel),
        "onnxruntime_ms": ort_ms, "onnxruntime_ratio": ratio(ort_ms, e2e),
        "onnxruntime_kernel_ratio": ratio(ort_ms, kernel),
        "peers_ms": dict(peers),
        "peers_ratio": {k: ratio(v, e2e) for k, v in peers.items()},
        "peers_kernel_ratio": {k: ratio(v, kernel) for k, v in peers.items()},
        "strongest": strongest, "strongest_ms": peers[strongest],
        "strongest_ratio": ratio(peers[strongest], e2e),
        "strongest_kernel_ratio": ratio(peers[strongest], kernel),
        "efficiency": w["efficiency"],
        "end_to_end_efficiency": w["end_to_end_efficiency"],
        "copy_gbps": w.get("copy_gbps"), "copy_variant": w.get("copy_variant"),
        "host_copy_gbps": w.get("host_copy_gbps")}


def render_strongest(rows):
    """Every peer's time, the strongest one and clgather against it."""
    keys = [k for k in PEER_LABELS if any(k in r["peers_ms"] for r in rows)]
    head = (["workload", "clgather kernel ms", "clgather e2e ms",
             "host-memory path"] + [PEER_LABELS[k] + " ms" for k in keys] +
            ["strongest peer", "strongest / kernel", "strongest / e2e"])
    lines = ["| " + " | ".join(head) + " |",
             "|" + "|".join(["---"] + ["---:"] * 2 + ["---"] +
                            ["---:"] * len(keys) + ["---", "---:", "---:"])
             + "|"]
    for r in rows:
        lines.append("| " + " | ".join(
            [r["name"], fmt_ms(r["clgather_kernel_ms"]),
             fmt_ms(r["clgather_ms"]), r["host_memory_path"] or "-"] +
            [fmt_ms(r["peers_ms"].get(k)) for k in keys] +
            [PEER_LABELS[r["strongest"]],
             fmt(r["strongest_kernel_ratio"], ".2f"),
             fmt(r["strongest_ratio"], ".2f")]) + " |")
    return "\n".join(lines)


def best_of_rounds(rounds):
    """One device's bench JSON from its rounds: each workload's record from
    the round of its fastest kernel, with the end-to-end figures (time,
    index check, efficiency) of the round of its fastest end-to-end call."""
    best = dict(rounds[0])
    best["workloads"] = []
    for i, w in enumerate(rounds[0]["workloads"]):
        ws = [b["workloads"][i] for b in rounds]
        if any(o["name"] != w["name"] for o in ws):
            sys.exit("peers.py: clgather bench ran other workloads in "
                     "another round")
        if w.get("skipped") or any(o.get("end_to_end_ms") is None
                                   for o in ws):
            best["workloads"].append(w)
            continue
        kernel = min(ws, key=lambda o: (o.get("kernel_ms") is None,
                                        o.get("kernel_ms") or 0.0))
        e2e = min(ws, key=lambda o: o["end_to_end_ms"])
        merged = dict(kernel)
        for key in ("end_to_end_ms", "end_to_end_efficiency", "check_ms",
                    "check_pass", "host_copy_gbps"):
            if key in e2e:
                merged[key] = e2e[key]
        best["workloads"].append(merged)
    return best


def judge(rows):
    """The peer-ratio targets: one line, met or what missed."""
    missed = []
    judged = 0
    for r in rows:
        if r["name"] in LARGE_EXCLUDED:
            continue
        judged += 1
        e2e_target = E2E_RATIO_TARGET.get(r["name"], E2E_RATIO_DEFAULT)
        # Against the strongest peer: the others' ratios are higher.
        peer = PEER_LABELS[r["strongest"]]
        k, e = r["strongest_kernel_ratio"], r["strongest_ratio"]
        if k is not None and k < KERNEL_RATIO_TARGET:
            missed.append(f"{r['name']} vs {peer} kernel {k:.2f} "
                          f"(< {KERNEL_RATIO_TARGET})")
        if e < e2e_target:
            missed.append(f"{r['name']} vs {peer} e2e {e:.2f} "
                          f"(< {e2e_target})")
    if missed:
        return "Targets missed: " + "; ".join(missed)
    if judged == 0:
        return "Targets: no large workload was measured, nothing to judge."
    return ("Targets met: the strongest peer's ratio >= 1.2 on every large "
            "workload "
            "through both paths (e2e >= 1.0 on elements-last-axis and the "
            "GatherND workloads).")


SHAPE_KEYS = ("op", "axis", "data_dtype", "data_shape", "indices_dtype",
              "indices_shape", "output_shape")


def device_label(b):
    """A device as clgather bench named it: name, vendor, version."""
    return (f"{b['device']} ({b.get('device_vendor')}; "
            f"{b.get('device_version')})")


def render_devices(benches, rows_by_device):
    """With several devices: each workload's times on each, and each one's
    time divided by the first device's (> 1: slower than the first);
    devices are numbered, a legend first."""
    names = [f"#{i + 1}" for i in range(len(benches))]
    legend = [f"- {n}: {device_label(b)}" for n, b in zip(names, benches)]
    head = ["workload"]
    for n in names:
        head += [f"{n} kernel ms", f"{n} e2e ms"]
    for n in names[1:]:
        head += [f"{n} / {names[0]} kernel", f"{n} / {names[0]} e2e"]
    head += ["numpy ms", "onnxruntime ms"]
    lines = ["| " + " | ".join(head) + " |",
             "|" + "|".join(["---"] + ["---:"] * (len(head) - 1)) + "|"]
    for i, first in enumerate(rows_by_device[0]):
        rows = [r[i] for r in rows_by_device]
        cells = [first["name"]]
        for r in rows:
            cells += [fmt(r["clgather_kernel_ms"], ".3f"),
                      fmt(r["clgather_ms"], ".3f")]
        for r in rows[1:]:
            cells += [fmt(ratio(r["clgather_kernel_ms"] or 0,
                                first["clgather_kernel_ms"]), ".2f")
                      if r["clgather_kernel_ms"] is not None else "-",
                      fmt(ratio(r["clgather_ms"], first["clgather_ms"]),
                          ".2f")]
        cells += [fmt(first["numpy_ms"], ".3f"),
                  fmt(first["onnxruntime_ms"], ".3f")]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(legend + [""] + lines)


def update_readme(path, machine, table, png, verdict, repeat, devices,
                  rounds):
    """Replaces the lines between README_BEGIN and README_END of path."""
    with open(path) as f:
        text = f.read()
    if README_BEGIN not in text or README_END not in text:
        sys.exit(f"peers.py: {path} has no lines {README_BEGIN!r} ... "
                 f"{README_END!r} to replace")
    head, rest = text.split(README_BEGIN, 1)
    _, tail = rest.split(README_END, 1)
    here = os.path.dirname(os.path.abspath(path))
    image = os.path.relpath(png, here)
    # The raw bench output and the full tables stay in their files beside
    # the chart; the page keeps the strongest-peer tables and links them.
    raw = os.path.relpath(os.path.join(os.path.dirname(png), "bench.txt"),
                          here)
    full = os.path.relpath(os.path.join(os.path.dirname(png), "peers.md"),
                           here)
    flags = "".join(f" --device {shlex.quote(d)}" for d in devices or [])
    flags += f" --rounds {rounds}" if rounds > 1 else ""
    body = (f"{README_BEGIN}\nOne run of `bench/peers.py --repeat {repeat}"
            f"{flags}`; "
            f"clgather, its copy baseline and the peers all measured "
            f"{CACHE}.\n\nMachine: {machine}\n\n"
            f"The raw output of `clgather bench`: "
            f"[{os.path.basename(raw)}]({raw}); every peer's ratios, "
            f"versions, threads and notes: [peers.md]({full}).\n\n"
            f"{table}\n\n"
            f"{verdict}\n\n![ratios and efficiencies]({image})\n"
            f"{README_END}")
    with open(path + ".tmp", "w") as f:
        f.write(head + body + tail)
    os.replace(path + ".tmp", path)


def parse_args():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--clgather", help="path of the clgather executable "
                    "(default: build/cli/clgather under the repository)")
    ap.add_argument("--device", action="append",
                    help="run clgather bench on this device (clgather's "
                    "--device SPEC; repeatable: each in turn, side by side, "
                    "e.g. --device Portable --device 'Intel(R) OpenCL'; "
                    "default: the default device)")
    ap.add_argument("--repeat", type=int, default=5,
                    help="timed calls per figure, best kept (default 5)")
    ap.add_argument("--rounds", type=int, default=1,
                    help="run every device and the peers this many times, "
                    "in turn, and keep each figure's best (default 1)")
    ap.add_argument("--workload", action="append",
                    help="only this workload (repeatable)")
    ap.add_argument("--seed", type=int, default=None,
                    help="seed for clgather bench and for the peers' inputs")
    ap.add_argument("--oob", choices=["raise", "wrap", "clip", "fill"],
                    default=None,
                    help="clgather's out-of-range mode (clgather bench "
                    "--oob; default raise). The inputs are in range, so "
                    "every mode gives the same output: it measures what the "
                    "mode costs. ONNX Runtime CPU always checks.")
    ap.add_argument("--out-dir", default=os.path.join(REPO, "bench",
                                                      "results"),
                    help="where peers.md, peers.json, peers.png and "
                    "bench.txt go (default bench/results)")
    ap.add_argument("--readme", help="also rewrite this file's results "
                    "section (docs/benchmarks.md) between its marker lines")
    return ap.parse_args()


def main():
    args = parse_args()
    if args.readme and args.workload:
        sys.exit("peers.py: --readme rewrites the published results, which "
                 "cover every workload; drop --workload")
    if args.readme:
        # The file links to the chart: both must travel with the clone.
        repo = os.path.realpath(REPO) + os.sep
        for path, what in ((args.readme, "--readme"),
                           (args.out_dir, "--out-dir")):
            if not os.path.realpath(path).startswith(repo):
                sys.exit("peers.py: with --readme, %s must be inside the "
                         "repository (%s), so that the file's link to the "
                         "chart holds in a clone" % (what, REPO))
    if args.repeat < 1:
        sys.exit("peers.py: --repeat takes a number >= 1")
    if args.rounds < 1:
        sys.exit("peers.py: --rounds takes a number >= 1")
    import onnx
    import onnxruntime

    exe = find_clgather(args.clgather)
    info = machine_info()
    info["loadavg_start"] = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    info.update({"numpy": np.__version__, "onnxruntime": onnxruntime.__version__,
                 "onnx": onnx.__version__})
    devices = args.device or [None]
    rounds, bench_tables, peer_ms = [[] for _ in devices], [], {}
    peers, skipped, notes = {}, {}, set()
    for r in range(args.rounds):
        if args.rounds > 1:
            print(f"round {r + 1} of {args.rounds}", flush=True)
        for d, device in enumerate(devices):
            bench, bench_table = run_clgather(exe, args, device)
            if bench.get("cache") != CACHE:
                sys.exit(f"peers.py: clgather bench measured with cache "
                         f"{bench.get('cache')!r}, the peers with {CACHE!r}")
            rounds[d].append(bench)
            bench_tables.append(bench_table)
        bench = rounds[0][-1]
        seed = bench.get("seed", 0) if args.seed is None else args.seed
        rng = np.random.default_rng(seed)  # the same inputs every round
        # Every device measured the same workloads (same shapes, same
        # seed): the peers run once per workload and round, then each
        # device gets its rows.
        measured = [w for w in bench["workloads"]
                    if not w.get("skipped") and
                    w.get("end_to_end_ms") is not None]
        for w in bench["workloads"]:
            if w not in measured and r == 0:
                print(f"{w['name']}: skipped by clgather bench: "
                      f"{w['skipped']}")
        for b in (rs[-1] for rs in rounds[1:]):
            ws = {o["name"]: o for o in b["workloads"]}
            for w in measured:
                o = ws.get(w["name"])
                if (o is None or o.get("skipped") or
                        o.get("end_to_end_ms") is None or
                        any(o.get(k) != w.get(k) for k in SHAPE_KEYS)):
                    sys.exit(f"peers.py: {w['name']} was not measured the "
                             f"same way on {b['device']!r} and "
                             f"{bench['device']!r}")
        if r == 0:
            peers, skipped = load_peers([rs[-1]["device"] for rs in rounds])
            for key, why in skipped.items():
                print(f"{PEER_LABELS[key]}: skipped: {why.rstrip('; ')}")
        for w in measured:
            print(f"peers: {w['name']} ...", file=sys.stderr, flush=True)
            times = measure_peers(w, rng, args.repeat, peers, notes)
            best = peer_ms.setdefault(w["name"], {})
            for k, t in times.items():
                best[k] = min(best.get(k, float("inf")), t)
    benches = [best_of_rounds(rs) for rs in rounds]
    bench, bench_table = benches[0], "\n".join(bench_tables)
    info["device"] = ", ".join(b["device"] for b in benches)
    info["device_version"] = ", ".join(str(b.get("device_version"))
                                       for b in benches)
    by_name = [{w["name"]: w for w in b["workloads"]} for b in benches]
    measured = [w for w in bench["workloads"] if w["name"] in peer_ms]
    rows_by_device = [[] for _ in benches]
    for w in measured:
        for d, (rows, ws) in enumerate(zip(rows_by_device, by_name)):
            mine = {k: t for (k, dev), t in peer_ms[w["name"]].items()
                    if dev is None or dev == d}
            rows.append(make_row(ws[w["name"]], mine))
    rows = rows_by_device[0]

    machine = (f"{info['cpu']}, {info['usable_cpus']} usable of "
               f"{info['logical_cpus']} logical CPUs, {info['memory_gib']} GiB; "
               f"clgather device: {info['device']}; NumPy {info['numpy']}, "
               f"ONNX Runtime {info['onnxruntime']} (CPU provider, default "
               f"threads); best of {args.repeat}"
               + (f" in each of {args.rounds} alternating rounds"
                  if args.rounds > 1 else "") + f"; cache: {CACHE}"
               + "; clgather's device buffers: " + ", ".join(
                   sorted({b.get("device_buffers") or "runtime"
                           for b in benches})))
    tables, verdicts, readme_tables = [], [], []
    for b, rs in zip(benches, rows_by_device):
        title = (f"clgather on {device_label(b)}:\n\n"
                 if len(benches) > 1 else "")
        readme_tables.append(title + render_strongest(rs))
        tables.append(title + render_table(rs) + "\n\nThe strongest peer "
                      "(every peer's time; ratio > 1: clgather faster):\n\n"
                      + render_strongest(rs))
        verdicts.append((f"{device_label(b)}: " if len(benches) > 1 else "") +
                        judge(rs))
    if len(benches) > 1:
        tables.append("Side by side (> 1: slower than the first device):"
                      "\n\n" + render_devices(benches, rows_by_device))
    peer_lines = ["Peers:", "- NumPy %s: take / take_along_axis / "
                  "advanced indexing, 1 thread" % np.__version__,
                  "- ONNX Runtime %s: CPU provider, a one-node opset-13 "
                  "model, I/O binding, default threads (%d CPUs)"
                  % (onnxruntime.__version__, os.cpu_count())]
    for key, by_device in peers.items():
        for d, peer in by_device.items():
            where = f" (device #{d + 1})" if len(benches) > 1 and \
                d is not None else ""
            peer_lines.append(f"- {peer.label} {peer.version}{where}: "
                              f"{peer.how}; threads: {peer.threads}")
            info.setdefault("peers", []).append(
                {"peer": key, "device": d, "version": peer.version,
                 "threads": str(peer.threads), "how": peer.how})
    for key, why in skipped.items():
        peer_lines.append(f"- {PEER_LABELS[key]}: skipped: "
                          f"{why.rstrip('; ')}")
    peer_lines += [f"- {n}" for n in sorted(notes)]
    info["skipped"], info["notes"] = skipped, sorted(notes)
    info["loadavg_end"] = os.getloadavg()
    tables.insert(0, "\n".join(peer_lines) +
                  "\n\nLoad average (1, 5, 15 min) at the start: %s, at "
                  "the end: %s" % (info["loadavg_start"],
                                   ", ".join(f"{x:.2f}"
                                             for x in info["loadavg_end"])))
    table, verdict = "\n\n".join(tables), "\n\n".join(verdicts)
    print()
    print("Machine: " + machine)
    print("Ratios: peer time / clgather time, through the device-buffer "
          "path (kernel) and on host memory (e2e); > 1: clgather faster")
    print(table)
    print(verdict)

    os.makedirs(args.out_dir, exist_ok=True)
    png = os.path.join(args.out_dir, "peers.png")
    plot(rows, "clgather vs peers - " + machine, png)
    with open(os.path.join(args.out_dir, "bench.txt"), "w") as f:
        f.write(bench_table)
    with open(os.path.join(args.out_dir, "peers.md"), "w") as f:
        f.write(f"Machine: {machine}\n\n{table}\n\n{verdict}\n")
    with open(os.path.join(args.out_dir, "peers.json"), "w") as f:
        json.dump({"machine": info, "repeat": args.repeat,
                   "rounds": args.rounds, "cache": CACHE,
                   "rows": rows, "clgather": bench,
                   "devices": [{"clgather": b, "rows": rs} for b, rs in
                               zip(benches, rows_by_device)]}, f, indent=1)
    print(f"\nWrote {png}, peers.md, peers.json and bench.txt")
    if args.readme:
        update_readme(args.readme, machine, "\n\n".join(readme_tables),
                      png, verdict, args.repeat,
                      args.device, args.rounds)
        print(f"Rewrote the results section of {args.readme}")


if __name__ == "__main__":
    main()
