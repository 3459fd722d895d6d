# Before/after of GatherND's per-tuple pass in one run: clgather bench on
# the GatherND workloads with CLGATHER_PARAMS=norm=0 (clg_gather_nd alone)
# and unset (the pass), alternating; run from the repository root with
# OCL_ICD_VENDORS naming a folder with POCL's and Intel's runtimes.
import json, os, subprocess, sys
exe = "build/cli/clgather"
env0 = dict(os.environ)
devs = ["Portable", "Intel(R) OpenCL"]
cfgs = [("today (norm=0)", "norm=0"), ("per-tuple pass", "")]
best = {}
rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 3
for r in range(rounds):
    for d in devs:
        for name, prm in cfgs:
            env = dict(env0, CLGATHER_PARAMS=prm)
            j = "ab-bench.json"
            out = subprocess.run(["nice", "-n", "10", exe, "bench", "--device", d, "-r", "5", "--json", j,
                                  "-w", "nd-positions", "-w", "nd-rows", "-w", "nd-scalars"],
                                 env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            if out.returncode:
                print(out.stdout); sys.exit(1)
            for w in json.load(open(j))["workloads"]:
                key = (d, w["name"], name)
                b = best.setdefault(key, {"kernel_ms": 1e9, "end_to_end_ms": 1e9, "copy_gbps": 0})
                for f in ("kernel_ms", "end_to_end_ms"):
                    b[f] = min(b[f], w[f])
                b["copy_gbps"] = max(b["copy_gbps"], w["copy_gbps"])
                b["bytes"] = w["bytes"]
        print(f"round {r+1} {d} done", flush=True)
print("| device | workload | today kernel ms | today e2e ms | pass kernel ms | pass e2e ms | kernel today/pass | e2e today/pass | pass efficiency |")
print("|---|---|---:|---:|---:|---:|---:|---:|---:|")
for d in devs:
    for wl in ("nd-positions", "nd-rows", "nd-scalars"):
        t, p = best[(d, wl, cfgs[0][0])], best[(d, wl, cfgs[1][0])]
        eff = p["bytes"] / (p["kernel_ms"] / 1e3) / 1e9 / max(t["copy_gbps"], p["copy_gbps"])
        print(f"| {'POCL' if d == 'Portable' else 'Intel'} | {wl} | {t['kernel_ms']:.3f} | {t['end_to_end_ms']:.3f} | {p['kernel_ms']:.3f} | {p['end_to_end_ms']:.3f} | {t['kernel_ms']/p['kernel_ms']:.2f} | {t['end_to_end_ms']/p['end_to_end_ms']:.2f} | {eff:.2f} |")
