#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The Intel CPU runtime lane: the same tests as POCL's, on Intel's OpenCL
# runtime for CPUs (a second production compiler on the same cores).
# Installs it privately (ci/install-intel.sh), then, with OCL_ICD_VENDORS
# naming Intel's runtime and POCL and CLGATHER_DEVICE naming Intel's
# platform, runs
#   1. ctest -L 'device|conformance|cli' (the device's own plan: CPU);
#   2. ctest -L device with CLGATHER_TEST_PLAN=gpu (every GPU variant
#      compiled by Intel's compiler);
#   3. ctest -L device with CLGATHER_SVM=0 (the runtime takes host memory
#      as SVM pointers, so pass 1 runs that way; this pass runs the
#      wrapped buffers and their map on it too).
# Fails when a test fails or is skipped, and when Intel's device is not
# the one used: `clgather devices` must mark it as the default, and every
# device test binary must print it as its device.
#
# Uses the build in $CLG_BUILD_DIR (default build/; ci/build.sh makes it
# when missing). Intel's runtime compiles each kernel variant in 0.7 to
# 4 s on first use; clgather's disk cache of program binaries keeps them
# for the next run.
set -euo pipefail
cd "$(dirname "$0")/.."
src="$PWD"

start=$SECONDS
lane=intel
build_dir="${CLG_BUILD_DIR:-build}"
jobs="$(nproc 2>/dev/null || getconf _NPROCESSORS_ONLN 2>/dev/null || echo 2)"
device='Intel(R) OpenCL'

fail() {
  echo "ci/intel.sh: $*" >&2
  exit 1
}

# ctest_failure and lane_verdict (functions only; nothing runs).
# shellcheck source=ci/sanitizer_build.sh
. "$src/ci/sanitizer_build.sh"
# lane_check_default, lane_run_pass.
# shellcheck source=ci/device_lane.sh
. "$src/ci/device_lane.sh"

[ -x "$build_dir/cli/clgather" ] || bash ci/build.sh
vendors="$(bash ci/install-intel.sh | tail -n 1)"
export OCL_ICD_VENDORS="$vendors" CLGATHER_DEVICE="$device"
unset CLGATHER_TEST_PLAN CLGATHER_PARAMS CLGATHER_MAX_ALLOC CLGATHER_VALIDATE

logs="$build_dir/intel-logs"
mkdir -p "$logs"
failures=()
lane_check_default "$device"

echo "--- Intel CPU runtime: ctest -L 'device|conformance|cli'"
pass1_start=$SECONDS
lane_run_pass device-plan 'Intel(R) Corporation' -L '^(device|conformance|cli)$'
pass1_s=$((SECONDS - pass1_start))

echo "--- Intel CPU runtime: ctest -L device with CLGATHER_TEST_PLAN=gpu"
pass2_start=$SECONDS
CLGATHER_TEST_PLAN=gpu lane_run_pass gpu-plan 'Intel(R) Corporation' -L '^device$'
pass2_s=$((SECONDS - pass2_start))

echo "--- Intel CPU runtime: ctest -L device with CLGATHER_SVM=0"
pass3_start=$SECONDS
CLGATHER_SVM=0 lane_run_pass no-svm 'Intel(R) Corporation' -L '^device$'
pass3_s=$((SECONDS - pass3_start))

echo "--- Intel lane summary"
echo "device: $lane_device"
echo "run time: $((SECONDS - start)) s (device plan ${pass1_s} s, GPU plan ${pass2_s} s, no SVM ${pass3_s} s)"
lane_verdict 0 "wrong-device" "the device, conformance and cli labels, the GPU plan and the wrapped host memory"
