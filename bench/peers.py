#!/usr/bin/env python3
"""Compare clgather with NumPy and ONNX Runtime (CPU) on the bench workloads.

One run does, on this machine and in this order:

1. ``clgather bench --json FILE`` on the default device (CLGATHER_DEVICE,
   else the first GPU, else the first device), whose table is shown as is;
2. for every workload it measured, with the shapes, dtypes and axis read
   back from that JSON (so the two sides cannot drift apart) and inputs
   drawn the same way (index values uniform in [-s, s-1]):
   - NumPy: ``numpy.take`` (Gather) or ``numpy.take_along_axis``
     (GatherElements), the faster of "returns a new array" and, for take,
     "writes into a preallocated out=";
   - ONNX Runtime: a one-node model (opset 13) on the CPU execution
     provider with default session options (so its default thread count),
     inputs and a preallocated output bound with I/O binding;
   each the best of --repeat timed calls after one warm-up, and the NumPy
   and ONNX Runtime outputs compared bit for bit;
3. prints each peer's time divided by clgather's end-to-end time (host
   memory in and out, transfers included): a ratio above 1 means clgather
   was faster; writes peers.md (table + machine), peers.json, peers.png
   (bar chart of the ratios and of clgather's efficiencies) and bench.txt
   (clgather bench's own table) to --out-dir.

Setup (not part of CI):
    python3 -m venv .venv && .venv/bin/pip install -r bench/requirements.txt
    .venv/bin/python bench/peers.py --clgather build/cli/clgather
"""

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import textwrap
import time

import numpy as np

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

DTYPES = {"FLOAT": np.float32, "FLOAT16": np.float16, "DOUBLE": np.float64,
          "INT32": np.int32, "INT64": np.int64, "INT8": np.int8,
          "UINT8": np.uint8, "INT16": np.int16, "UINT16": np.uint16}

# The speed targets (docs/design.md, "Measuring speed") that this script can judge.
LARGE_EXCLUDED = {"small"}


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
        return path
    for cand in ("build/cli/clgather", "build-bench/cli/clgather"):
        full = os.path.join(REPO, cand)
        if os.access(full, os.X_OK):
            return full
    sys.exit("peers.py: no clgather executable found under build/cli/; "
             "build it (cmake -S . -B build && cmake --build build) or pass "
             "--clgather PATH")


def run_clgather(exe, args):
    """Runs clgather bench, shows its output; returns the parsed JSON and
    the table it printed."""
    with tempfile.TemporaryDirectory() as tmp:
        json_path = os.path.join(tmp, "bench.json")
        cmd = [exe, "bench", "--json", json_path, "--repeat", str(args.repeat)]
        for name in args.workload or []:
            cmd += ["--workload", name]
        if args.seed is not None:
            cmd += ["--seed", str(args.seed)]
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
    s = shape[axis]
    idx = rng.integers(-s, s, size=tuple(w["indices_shape"]),
                       dtype=DTYPES[w["indices_dtype"]])
    return data, idx, axis


def best_time(fn, repeat):
    fn()  # warm-up
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def time_numpy(w, data, idx, axis, repeat):
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
    node = helper.make_node(w["op"], ["data", "indices"], ["output"],
                            axis=w["axis"])
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


def fmt(v, spec):
    return "-" if v is None else format(v, spec)


def render_table(rows):
    head = ["workload", "MB", "clgather e2e ms", "numpy ms", "numpy ratio",
            "onnxruntime ms", "onnxruntime ratio", "efficiency",
            "e2e efficiency"]
    lines = ["| " + " | ".join(head) + " |",
             "|" + "|".join(["---"] + ["---:"] * (len(head) - 1)) + "|"]
    for r in rows:
        lines.append("| " + " | ".join([
            r["name"], fmt(r["bytes"] / 1e6, ".1f"),
            fmt(r["clgather_ms"], ".3f"), fmt(r["numpy_ms"], ".3f"),
            fmt(r["numpy_ratio"], ".2f"), fmt(r["onnxruntime_ms"], ".3f"),
            fmt(r["onnxruntime_ratio"], ".2f"), fmt(r["efficiency"], ".2f"),
            fmt(r["end_to_end_efficiency"], ".2f")]) + " |")
    return "\n".join(lines)


def plot(rows, title, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = [r["name"] for r in rows]
    x = np.arange(len(rows))
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(13, 4.8))
    for off, key, label in ((-0.2, "numpy_ratio", "NumPy"),
                            (0.2, "onnxruntime_ratio", "ONNX Runtime CPU")):
        vals = [r[key] or 0 for r in rows]
        bars = ax1.bar(x + off, vals, 0.4, label=label)
        ax1.bar_label(bars, fmt="%.2f", fontsize=7)
    ax1.axhline(1.0, color="black", linewidth=0.8)
    ax1.set_yscale("log")
    ax1.set_ylabel("peer time / clgather end-to-end time\n(> 1: clgather faster)")
    ax1.set_xticks(x, names, rotation=25, ha="right")
    ax1.legend(fontsize=8)
    ax1.set_title("Time ratio to clgather")
    for off, key, label in ((-0.2, "efficiency", "efficiency (kernel)"),
                            (0.2, "end_to_end_efficiency",
                             "end-to-end efficiency")):
        vals = [r[key] or 0 for r in rows]
        bars = ax2.bar(x + off, vals, 0.4, label=label)
        ax2.bar_label(bars, fmt="%.2f", fontsize=7)
    ax2.axhline(0.8, color="C0", linestyle="--", linewidth=0.8)
    ax2.axhline(0.7, color="C1", linestyle=":", linewidth=0.8)
    ax2.set_ylabel("GB/s / copy-kernel GB/s")
    ax2.set_xticks(x, names, rotation=25, ha="right")
    ax2.legend(fontsize=8)
    ax2.set_title("clgather efficiency (targets 0.8 / 0.7)")
    fig.suptitle("\n".join(textwrap.wrap(title, 150)), fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--clgather", help="path of the clgather executable "
                    "(default: build/cli/clgather under the repository)")
    ap.add_argument("--repeat", type=int, default=5,
                    help="timed calls per figure, best kept (default 5)")
    ap.add_argument("--workload", action="append",
                    help="only this workload (repeatable)")
    ap.add_argument("--seed", type=int, default=None,
                    help="seed for clgather bench and for the peers' inputs")
    ap.add_argument("--out-dir", default=os.path.join(REPO, "bench",
                                                      "results"),
                    help="where peers.md, peers.json and peers.png go "
                    "(default bench/results)")
    args = ap.parse_args()

    import onnx
    import onnxruntime

    exe = find_clgather(args.clgather)
    info = machine_info()
    info.update({"numpy": np.__version__, "onnxruntime": onnxruntime.__version__,
                 "onnx": onnx.__version__})
    bench, bench_table = run_clgather(exe, args)
    info["device"] = bench["device"]
    info["device_version"] = bench.get("device_version")
    seed = bench.get("seed", 0) if args.seed is None else args.seed
    rng = np.random.default_rng(seed)

    rows = []
    for w in bench["workloads"]:
        if w.get("skipped") or w.get("end_to_end_ms") is None:
            print(f"{w['name']}: skipped by clgather bench: {w['skipped']}")
            continue
        print(f"peers: {w['name']} ...", file=sys.stderr, flush=True)
        data, idx, axis = make_inputs(w, rng)
        t_np, out_np = time_numpy(w, data, idx, axis, args.repeat)
        t_ort, out_ort = time_ort(w, data, idx, axis, args.repeat)
        if not np.array_equal(bits(out_np), bits(out_ort)):
            sys.exit(f"peers.py: {w['name']}: NumPy and ONNX Runtime "
                     "outputs differ")
        e2e = w["end_to_end_ms"]
        rows.append({
            "name": w["name"], "bytes": w["bytes"], "clgather_ms": e2e,
            "clgather_kernel_ms": w["kernel_ms"],
            "numpy_ms": t_np * 1e3, "numpy_ratio": t_np * 1e3 / e2e,
            "onnxruntime_ms": t_ort * 1e3,
            "onnxruntime_ratio": t_ort * 1e3 / e2e,
            "efficiency": w["efficiency"],
            "end_to_end_efficiency": w["end_to_end_efficiency"]})
        del data, idx, out_np, out_ort

    machine = (f"{info['cpu']}, {info['usable_cpus']} usable of "
               f"{info['logical_cpus']} logical CPUs, {info['memory_gib']} GiB; "
               f"clgather device: {info['device']}; NumPy {info['numpy']}, "
               f"ONNX Runtime {info['onnxruntime']} (CPU provider, default "
               f"threads); best of {args.repeat}")
    table = render_table(rows)
    print()
    print("Machine: " + machine)
    print("Ratios: peer time / clgather end-to-end time (> 1: clgather "
          "faster)")
    print(table)
    behind = [(r["name"], peer, r[peer + "_ratio"]) for r in rows
              for peer in ("numpy", "onnxruntime")
              if r["name"] not in LARGE_EXCLUDED and r[peer + "_ratio"] <= 1]
    if behind:
        print("Target missed (ratio > 1 on every large workload): " +
              ", ".join(f"{n} vs {p} {v:.2f}" for n, p, v in behind))
    else:
        print("Target met: clgather ahead of every peer on every large "
              "workload.")

    os.makedirs(args.out_dir, exist_ok=True)
    png = os.path.join(args.out_dir, "peers.png")
    plot(rows, "clgather vs peers - " + machine, png)
    with open(os.path.join(args.out_dir, "bench.txt"), "w") as f:
        f.write(bench_table)
    with open(os.path.join(args.out_dir, "peers.md"), "w") as f:
        f.write(f"Machine: {machine}\n\n{table}\n")
    with open(os.path.join(args.out_dir, "peers.json"), "w") as f:
        json.dump({"machine": info, "repeat": args.repeat, "rows": rows,
                   "clgather": bench}, f, indent=1)
    print(f"\nWrote {png}, peers.md, peers.json and bench.txt")


if __name__ == "__main__":
    main()
