#!/usr/bin/env bash
# clgather's main job on a fresh Debian machine: installs what is missing,
# builds, lists the OpenCL devices, runs ONNX's own Gather and
# GatherElements node tests (Debian's libonnx-testdata) on the default
# device (CLGATHER_DEVICE, else the first GPU, else POCL's CPU device) and
# shows `clgather run --check` on one of them. Exits non-zero if anything
# fails.
set -euo pipefail
cd "$(dirname "$0")/.."

bash ci/install-deps.sh >/dev/null
bash ci/build.sh >/dev/null
clgather=build/cli/clgather
node=/usr/share/libonnx-testdata/data/node

echo "\$ clgather devices"
"$clgather" devices 2>&1
echo
echo "\$ clgather onnx-test $node/test_gather*  (GatherND excluded)"
tests=()
for d in "$node"/test_gather_*; do
  case "$d" in *gathernd*) ;; *) tests+=("$d") ;; esac
done
"$clgather" onnx-test "${tests[@]}" 2>&1
echo
set0="$node/test_gather_elements_negative_indices/test_data_set_0"
echo "\$ clgather run gather-elements --data input_0.pb --indices input_1.pb --axis 0 --check"
"$clgather" run gather-elements --data "$set0/input_0.pb" \
  --indices "$set0/input_1.pb" --axis 0 --check 2>&1
