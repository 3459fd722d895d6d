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
# device test binary must print it as its device. Nothing is excluded.
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

[ -x "$build_dir/cli/clgather" ] || bash ci/build.sh
vendors="$(bash ci/install-rusticl.sh | tail -n 1)"
export OCL_ICD_VENDORS="$vendors" RUSTICL_ENABLE=swrast \
  CLGATHER_DEVICE="$platform"
unset CLGATHER_TEST_PLAN CLGATHER_PARAMS CLGATHER_MAX_ALLOC CLGATHER_VALIDATE

echo "--- OpenCL devices (OCL_ICD_VENDORS=$vendors)"
devices="$("$build_dir/cli/clgather" devices)" ||
  fail "clgather devices failed with OCL_ICD_VENDORS=$vendors"
echo "$devices"
# The entry marked "(default)" and the platform line under it.
default_platform="$(awk '/\(default\)$/ { on = 1; next }
  on && /^ +platform:/ { sub(/^ +platform: /, ""); print; exit }' <<<"$devices")"
[ "$default_platform" = "$platform" ] ||
  fail "the default device is on platform \"$default_platform\", not \"$platform\""
# "llvmpipe (LLVM 15.0.6, 256 bits), OpenCL 3.0": its name and version.
rusticl_version="$(awk '/\(default\)$/ { on = 1; sub(/ +\(default\)$/, "");
    sub(/^[0-9]+:[0-9]+ +[A-Z]+ +/, ""); name = $0; next }
  on && /^ +version:/ { sub(/^ +version: /, ""); print name ", " $0; exit }' \
  <<<"$devices")"

logs="$build_dir/rusticl-logs"
mkdir -p "$logs"
failures=()
# run_pass <name> <ctest args...>: ctest -V into $logs/<name>.log (the
# device tests print their device there), its summary on stdout.
run_pass() {
  local name="$1" status=0
  shift
  local log="$logs/$name.log"
  ctest --test-dir "$build_dir" -V --no-tests=error --parallel "$jobs" "$@" \
    >"$log" 2>&1 || status=$?
  grep -E '^ *[0-9]+/[0-9]+ Test +#|tests passed|^Total Test time' "$log" || true
  local why
  why="$(ctest_failure "$log" "$status")"
  if [ -n "$why" ]; then
    # The output of the failed tests, as --output-on-failure would show it.
    grep -E '^[0-9]+: ' "$log" | grep -Ev '\[ +(RUN|OK) +\]' | tail -n 60 || true
    failures+=("$name: $why (see $log)")
    return
  fi
  # Every device test binary names its device ("device: name | vendor |
  # version", from the test harness); each must be Rusticl's.
  local named others
  named="$(grep -Ec '^[0-9]+: device: .* \| ' "$log" || true)"
  others="$(grep -E '^[0-9]+: device: .* \| ' "$log" |
    grep -Fvc "| $vendor |" || true)"
  if [ "$named" -eq 0 ] || [ "$others" -ne 0 ]; then
    failures+=("$name: $named test binaries named their device, $others of them not Rusticl's (see $log)")
  else
    echo "ci/rusticl.sh: $name: all $named device test binaries ran on Rusticl's device ($vendor)"
  fi
}

echo "--- Rusticl: ctest -L 'device|conformance|cli'"
pass1_start=$SECONDS
run_pass device-plan -L '^(device|conformance|cli)$'
pass1_s=$((SECONDS - pass1_start))

echo "--- Rusticl: ctest -L device with CLGATHER_TEST_PLAN=gpu"
pass2_start=$SECONDS
CLGATHER_TEST_PLAN=gpu run_pass gpu-plan -L '^device$'
pass2_s=$((SECONDS - pass2_start))

# Rusticl's faults that the library works around, each reproduced without
# it by a program in tests/rusticl/ (exit 1: the fault showed): reported,
# not gated, so that a workaround can go once its fault is gone.
echo "--- Rusticl faults reproduced without clgather (tests/rusticl/)"
for prog in "$build_dir"/tests/rusticl/rusticl_*; do
  [ -x "$prog" ] || continue
  fault_status=0
  "$prog" 10 || fault_status=$?
  case "$fault_status" in
  0) echo "ci/rusticl.sh: ${prog##*/}: the fault did not show in 10 s (gone?)" ;;
  1) echo "ci/rusticl.sh: ${prog##*/}: the fault is still present" ;;
  *) echo "ci/rusticl.sh: ${prog##*/}: could not run (exit $fault_status)" ;;
  esac
done

echo "--- Rusticl lane summary"
echo "device: $rusticl_version"
echo "run time: $((SECONDS - start)) s (device plan ${pass1_s} s, GPU plan ${pass2_s} s)"
lane_verdict 0 "wrong-device" "the device, conformance and cli labels and the GPU plan"
