#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Runs clgather's device checks on a machine that has an OpenCL driver but
# none of the project's Debian packages (e.g. a machine with an NVIDIA GPU):
# the test suite (unit, device, cli, conformance, large) and the benchmark,
# from a build made elsewhere with `bash bench/gpu_check.sh --prepare`.
#
#   here:   bash bench/gpu_check.sh --prepare     # builds build-gpu/
#   there:  OUT=/some/dir bash bench/gpu_check.sh # runs, writes logs to $OUT
#
# --prepare copies into build-gpu/carry/ the shared libraries the binaries
# need (OpenCL ICD loader, cmocka, protobuf-c) and ONNX's Gather node tests.
# On the GPU machine the ICD loader is pointed at NVIDIA's OpenCL driver
# (libnvidia-opencl.so.1) through OCL_ICD_VENDORS; the build's absolute
# paths are made valid by linking /work/main to this checkout.
set -uo pipefail
cd "$(dirname "$0")/.."
build=build-gpu

if [ "${1:-}" = "--prepare" ]; then
  set -e
  cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build "$build" -j"$(nproc)" >/dev/null
  mkdir -p "$build/carry/lib" "$build/carry/testdata"
  for so in libOpenCL.so.1 libcmocka.so.0 libprotobuf-c.so.1; do
    cp -L "$(ldconfig -p | awk -v n="$so" '$1 == n {print $NF; exit}')" \
      "$build/carry/lib/$so"
  done
  cp -r /usr/share/libonnx-testdata/data/node/test_gather_* \
    "$build/carry/testdata/"
  rm -rf "$build/carry/testdata/"test_gathernd_*
  du -sh "$build"
  exit 0
fi

out="${OUT:-$PWD/gpu-out}"
mkdir -p "$out"
here="$PWD"
export LD_LIBRARY_PATH="$here/$build/carry/lib:${LD_LIBRARY_PATH:-}"
if [ "$here" != /work/main ] && [ ! -e /work/main ]; then
  mkdir -p /work && ln -s "$here" /work/main
fi
if [ ! -d /usr/share/libonnx-testdata/data/node ]; then
  mkdir -p /usr/share/libonnx-testdata/data
  ln -s "$here/$build/carry/testdata" /usr/share/libonnx-testdata/data/node
fi
# NVIDIA's driver may be missing from the loader's list (on some machines
# /etc/OpenCL/vendors names POCL only): list it first, beside the others.
if [ -z "${OCL_ICD_VENDORS:-}" ]; then
  nv=$(find /usr/local/nvidia /usr/lib /usr/lib64 /usr/lib/x86_64-linux-gnu \
    -name 'libnvidia-opencl.so*' 2>/dev/null | sort | head -n 1)
  if [ -n "$nv" ]; then
    rm -rf /tmp/clgather-icd && mkdir -p /tmp/clgather-icd
    echo "$nv" >/tmp/clgather-icd/0-nvidia.icd
    cp /etc/OpenCL/vendors/*.icd /tmp/clgather-icd/ 2>/dev/null || true
    export OCL_ICD_VENDORS=/tmp/clgather-icd
  fi
  echo "NVIDIA OpenCL driver: ${nv:-not found}" | tee "$out/driver.txt"
fi
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv \
  >>"$out/driver.txt" 2>&1

cli="/work/main/$build/cli/clgather"
"$cli" devices 2>&1 | tee "$out/devices.txt"
(cd /work/main && ctest --test-dir "$build" --output-on-failure \
  -E large_split 2>&1) | tee "$out/ctest.txt" | tail -n 25
"$cli" bench --linearity --json "$out/bench.json" 2>"$out/bench.err" |
  tee "$out/bench.txt"
# Large tensors: as they are (no split on a big GPU), then with 1 GiB
# buffers so the copy path cuts them into pieces and windows.
/work/main/$build/tests/large/large_split >"$out/large.txt" 2>&1
echo "large_split: exit $?" | tee -a "$out/large.txt"
CLGATHER_MAX_ALLOC=1073741824 /work/main/$build/tests/large/large_split \
  >"$out/large_split_1g.txt" 2>&1
echo "large_split (1 GiB buffers): exit $?" | tee -a "$out/large_split_1g.txt"
