#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Runs every --json document of the clgather tool and validates it against
its schema in docs/schemas/ with the maintained validator jsonschema
(Debian: python3-jsonschema): devices; run (checked, repeated, GatherND,
rejected, written to a file); compare (a node test, files, a folder that
cannot be opened); onnx-test (device, reference, a missing folder); cache
(off, empty, --fill, listed, --clear); bench (its report file). Each
document must also be the whole of standard output and say its schema.

    validate_json.py TOOL SCHEMA_DIR [--only NAME]... [--document FILE NAME]

--document validates one file against schema NAME and runs nothing (to
check a schema by hand). Exits 0 when every document matches, 1 when one
does not (each mismatch printed with its path in the document), 77 when no
OpenCL device is there.
"""
import json
import os
import struct
import subprocess
import sys
import tempfile

import jsonschema

SCHEMA_VERSION = 2


def npy(path, dtype, shape, values):
    """A C-order little-endian .npy of `values` ('<f4' or '<i4'/'<i8')."""
    header = "{'descr': '%s', 'fortran_order': False, 'shape': (%s), }" % (
        dtype, "".join("%d, " % d for d in shape) if len(shape) != 1 else "%d," % shape[0])
    header += " " * (63 - (10 + len(header)) % 64) + "\n"
    fmt = {"<f4": "f", "<i4": "i", "<i8": "q"}[dtype]
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)))
        f.write(header.encode("latin1"))
        f.write(struct.pack("<%d%s" % (len(values), fmt), *values))


def node_test(folder, gather_dir):
    """ONNX's own Gather node test when installed (libonnx-testdata)."""
    return gather_dir if os.path.isdir(gather_dir) else None


class Checker:
    def __init__(self, tool, schema_dir):
        self.tool = tool
        self.schemas = {}
        for name in sorted(os.listdir(schema_dir)):
            if name.endswith(".schema.json"):
                with open(os.path.join(schema_dir, name)) as f:
                    schema = json.load(f)
                jsonschema.Draft202012Validator.check_schema(schema)
                self.schemas[name[: -len(".schema.json")]] = schema
        self.failures = 0
        self.checked = {}

    def validate(self, what, name, doc):
        schema = self.schemas.get(name)
        if schema is None:
            print("FAIL %s: no schema %s.schema.json" % (what, name))
            self.failures += 1
            return
        errors = sorted(
            jsonschema.Draft202012Validator(schema).iter_errors(doc),
            key=lambda e: list(e.absolute_path))
        if errors:
            self.failures += 1
            for e in errors[:10]:
                path = "/".join(str(p) for p in e.absolute_path) or "(top)"
                print("FAIL %s: %s: %s" % (what, path, e.message[:300]))
            return
        self.checked[name] = self.checked.get(name, 0) + 1
        print("ok   %s (%s)" % (what, name))

    def run(self, args, status, env=None, file=None):
        """Runs the tool; its stdout (or `file`) must be one document of
        schema clgather-<command> with the given exit status."""
        command = args[0]
        what = "clgather " + " ".join(args)
        full_env = dict(os.environ)
        full_env.update(env or {})
        p = subprocess.run([self.tool] + args, capture_output=True,
                           text=True, env=full_env, timeout=600)
        if p.returncode != status:
            print("FAIL %s: exit status %d, not %d\n%s" %
                  (what, p.returncode, status, p.stderr[-2000:]))
            self.failures += 1
            return None
        text = p.stdout
        if file is not None:
            with open(file) as f:
                text = f.read()
        try:
            doc = json.loads(text)
        except ValueError as e:
            print("FAIL %s: not one JSON document: %s" % (what, e))
            self.failures += 1
            return None
        name = "clgather-" + command
        if doc.get("schema") != {"name": name, "version": SCHEMA_VERSION}:
            print("FAIL %s: schema %r" % (what, doc.get("schema")))
            self.failures += 1
        self.validate(what, name, doc)
        return doc


def run_all(c, work):
    data = os.path.join(work, "data.npy")
    idx = os.path.join(work, "indices.npy")
    bad = os.path.join(work, "bad.npy")
    nd_idx = os.path.join(work, "nd.npy")
    npy(data, "<f4", (2, 3), [1, 2, 3, 4, 5, 6])
    npy(idx, "<i8", (2,), [1, 0])
    npy(bad, "<i8", (2,), [1, 7])
    npy(nd_idx, "<i4", (2, 1), [1, 0])
    out = os.path.join(work, "out.npy")
    cache = os.path.join(work, "cache")
    gather0 = node_test(work, "/usr/share/libonnx-testdata/data/node/test_gather_0")

    c.run(["devices", "--json"], 0)
    c.run(["run", "gather", "--data", data, "--indices", idx, "--json"], 0)
    c.run(["run", "gather", "--data", data, "--indices", idx, "--check",
           "--repeat", "2", "--output", out, "--json"], 0)
    c.run(["run", "gather-elements", "--data", data, "--indices", data,
           "--json"], 2)
    c.run(["run", "gather-nd", "--data", data, "--indices", nd_idx,
           "--batch-dims", "0", "--check", "--json"], 0)
    c.run(["run", "gather", "--data", data, "--indices", bad, "--json"], 2)
    c.run(["run", "gather", "--data", data, "--indices", bad, "--oob", "clip",
           "--check", "--json"], 0)
    c.run(["compare", "--json", "--data", data, "--indices", idx,
           "--repeat", "2"], 0)
    c.run(["compare", "--json", os.path.join(work, "no-such-folder")], 3)
    if gather0:
        c.run(["compare", "--json", gather0], 0)
        c.run(["onnx-test", "--json", gather0], 0)
        c.run(["onnx-test", "--json", "--reference", gather0], 0)
    c.run(["onnx-test", "--json", os.path.join(work, "no-such-folder")], 3)
    c.run(["cache", "--json"], 0, env={"CLGATHER_CACHE": "0"})
    c.run(["cache", "--json", "--dir", cache], 0)
    c.run(["cache", "--fill", "--op", "gather", "--oob", "raise", "--dir",
           cache, "--json"], 0)
    c.run(["cache", "--json", "--dir", cache], 0)
    c.run(["cache", "--clear", "--json", "--dir", cache], 0)
    report = os.path.join(work, "bench.json")
    c.run(["bench", "--workload", "small", "--repeat", "1", "--json",
           report], 0, file=report)


def have_device(tool):
    p = subprocess.run([tool, "devices"], capture_output=True, text=True)
    return p.returncode == 0


def main(argv):
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    c = Checker(argv[1], argv[2])
    if len(argv) == 6 and argv[3] == "--document":
        with open(argv[4]) as f:
            c.validate(argv[4], argv[5], json.load(f))
        return 1 if c.failures else 0
    if not have_device(argv[1]):
        print("validate_json: no OpenCL device; skipped")
        return 77
    with tempfile.TemporaryDirectory(prefix="clgather-schemas.") as work:
        run_all(c, work)
    unused = sorted(set(c.schemas) - set(c.checked))
    if unused:
        print("FAIL no document checked against: " + ", ".join(unused))
        c.failures += 1
    print("validate_json: %d documents match their schemas, %d failures" %
          (sum(c.checked.values()), c.failures))
    return 1 if c.failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
