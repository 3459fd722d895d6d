#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# clgather's main job on a fresh Debian machine, saying what it does at
# each step: installs the packages the library, the tool and this job need
# (ci/install-deps.sh; the test toolchains are ci/test.sh's), configures
# and builds the library and the tool into build/, then lists the OpenCL
# devices, runs ONNX's own Gather, GatherElements and GatherND node tests
# (Debian's libonnx-testdata) on the default device (CLGATHER_DEVICE,
# else the first GPU, else POCL's CPU device) and shows `clgather run
# --check` on one of them. Exits non-zero if anything fails.
set -euo pipefail
cd "$(dirname "$0")/.."

build_dir="${CLG_BUILD_DIR:-build}"
jobs="$(nproc 2>/dev/null || echo 2)"
log="$build_dir/quickstart.log"

# Runs a step's command with its output in $log; on failure shows the
# end of the log.
quiet() {
  if ! "$@" >>"$log" 2>&1; then
    echo "quickstart: failed: $*; the end of $log:" >&2
    tail -n 30 "$log" >&2
    exit 1
  fi
}

echo "quickstart: [1/4] installing missing Debian packages (ci/install-deps.sh)"
bash ci/install-deps.sh
mkdir -p "$build_dir"
: >"$log"
echo "quickstart: [2/4] configuring into $build_dir/ (cmake; log: $log)"
quiet cmake -S . -B "$build_dir" -DCMAKE_BUILD_TYPE=Release \
  -DCLGATHER_BUILD_CLI=ON -DCLGATHER_WERROR=ON
echo "quickstart: [3/4] building the library and the tool (jobs: $jobs)"
quiet cmake --build "$build_dir" --parallel "$jobs" \
  --target clgather clgather_cli
clgather="$build_dir/cli/clgather"
node=/usr/share/libonnx-testdata/data/node
echo "quickstart: [4/4] running $clgather on ONNX's node tests"
echo

echo "\$ clgather devices"
"$clgather" devices 2>&1
echo
echo "\$ clgather onnx-test $node/test_gather*"
"$clgather" onnx-test "$node"/test_gather* 2>&1
echo
set0="$node/test_gather_elements_negative_indices/test_data_set_0"
echo "\$ clgather run gather-elements --data $set0/input_0.pb --indices $set0/input_1.pb --axis 0 --check"
"$clgather" run gather-elements --data "$set0/input_0.pb" \
  --indices "$set0/input_1.pb" --axis 0 --check 2>&1
