#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The Rusticl lane: the same tests as POCL's, on Mesa's Rusticl 22.3
# (Debian 12's mesa-opencl-icd) running llvmpipe on the CPU, a compiler
# stack not built on clang's code generator alone (clang to SPIR-V to
# Mesa's NIR, then llvmpipe). Installs it privately (ci/install-rusticl.sh),
# then, with OCL_ICD_VENDORS naming Rusticl alone, RUSTICL_ENABLE=swrast
# and CLGATHER_DEVICE naming its platform, runs
#   1. ctest -L 'device|conformance|cli' (the device's own plan: CPU);
#   2. ctest -L device with CLGATHER_TEST_PLAN=gpu (every GPU variant
#      compiled by Rusticl's compiler).
# Fails when a test fails or is skipped, and when Rusticl's device is not
# the one used: `clgather devices` must mark it as the default, and every
# device test binary must print it as its device.
#
# One check is excluded, for a fault of Rusticl's that a standalone
# program in tests/rusticl/ reproduces without clgather; the lane runs
# that program first and fails once the fault is gone, so that the
# exclusion goes with it:
#  - junk_binary.c: clCreateProgramWithBinary aborts the process on bytes
#    that are not a Rusticl binary; device_disk_cache does not forge such
#    an entry on Rusticl (the library itself never hands a runtime a
#    binary built elsewhere).
#
# Uses the build in $CLG_BUILD_DIR (default build/; ci/build.sh makes it
# when missing). Rusticl compiles each kernel variant in about a second on
# first use; clgather's disk cache of program binaries keeps them for the
# next run.
set -euo pipefail
cd "$(dirname "$0")/.."
src="$PWD"

start=$SECONDS
lane=rusticl
build_dir="${CLG_BUILD_DIR:-build}"
jobs="$(nproc 2>/dev/null || getconf _NPROCESSORS_ONLN 2>/dev/null || echo 2)"
platform=rusticl
vendor='Mesa/X.org'

fail() {
  echo "ci/rusticl.sh: $*" >&2
  exit 1
}

# ctest_failure and lane_verdict (functions only; nothing runs).
# shellcheck source=ci/sanitizer_build.sh
. "$src/ci/sanitizer_build.sh"
# lane_check_default, lane_run_pass.
# shellcheck source=ci/device_lane.sh
. "$src/ci/device_lane.sh"

[ -x "$build_dir/cli/clgather" ] || bash ci/build.sh
vendors="$(bash ci/install-rusticl.sh | tail -n 1)"
export OCL_ICD_VENDORS="$vendors" RUSTICL_ENABLE=swrast \
  CLGATHER_DEVICE="$platform"
unset CLGATHER_TEST_PLAN CLGATHER_PARAMS CLGATHER_MAX_ALLOC CLGATHER_VALIDATE

logs="$build_dir/rusticl-logs"
mkdir -p "$logs"
failures=()
lane_check_default "$platform"

# The fault behind the lane's one exclusion (see the top): the lane fails
# once it is gone.
echo "--- Rusticl fault behind an exclusion (tests/rusticl/junk_binary.c)"
status=0
"$build_dir/tests/rusticl/rusticl_junk_binary" || status=$?
case "$status" in
  1) echo "ci/rusticl.sh: junk_binary: the fault is still present, its exclusion stays" ;;
  0) fail "junk_binary: the fault is gone on this Rusticl; remove its exclusion (see tests/rusticl/junk_binary.c)" ;;
  *) fail "junk_binary: exit $status, neither the fault nor its absence" ;;
esac

echo "--- Rusticl: ctest -L 'device|conformance|cli'"
pass1_start=$SECONDS
lane_run_pass device-plan "$vendor" -L '^(device|conformance|cli)$'
pass1_s=$((SECONDS - pass1_start))

echo "--- Rusticl: ctest -L device with CLGATHER_TEST_PLAN=gpu"
pass2_start=$SECONDS
CLGATHER_TEST_PLAN=gpu lane_run_pass gpu-plan "$vendor" -L '^device$'
pass2_s=$((SECONDS - pass2_start))

# Rusticl's faults that the library works around, each reproduced without
# it by a program in tests/rusticl/ (exit 1: the fault showed): reported,
# not gated, so that a workaround can go once its fault is gone.
echo "--- Rusticl faults reproduced without clgather (tests/rusticl/)"
for prog in "$build_dir"/tests/rusticl/rusticl_*; do
  [ -x "$prog" ] && [ "${prog##*/}" != rusticl_junk_binary ] || continue
  fault_status=0
  "$prog" 10 || fault_status=$?
  case "$fault_status" in
  0) echo "ci/rusticl.sh: ${prog##*/}: the fault did not show in 10 s (gone?)" ;;
  1) echo "ci/rusticl.sh: ${prog##*/}: the fault is still present" ;;
  *) echo "ci/rusticl.sh: ${prog##*/}: could not run (exit $fault_status)" ;;
  esac
done

echo "--- Rusticl lane summary"
echo "device: $lane_device"
echo "run time: $((SECONDS - start)) s (device plan ${pass1_s} s, GPU plan ${pass2_s} s)"
lane_verdict 0 "wrong-device" "the device, conformance and cli labels and the GPU plan"
