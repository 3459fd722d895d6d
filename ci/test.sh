#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The whole CI run: install the Debian packages (the test toolchains
# included: ci/install-deps.sh --tests), check the C formatting
# (ci/format.sh) and the licence line of every file (ci/licence.sh), build, run every ctest test, run the device tests again
# with the GPU plan forced (CLGATHER_TEST_PLAN=gpu, so that every kernel
# variant a GPU can use is compiled and checked on POCL), check the
# library-only install and the tool's (ci/install_check.sh), the Python package's lane
# (ci/python.sh), then run the fuzzing lane
# (ci/fuzz.sh), the sanitizer lane (ci/sanitize.sh), the
# ThreadSanitizer lane (ci/tsan.sh), the Intel CPU runtime lane
# (ci/intel.sh), the Rusticl lane (ci/rusticl.sh: Mesa's OpenCL on
# llvmpipe, a second compiler stack) and the Oclgrind lane
# (ci/oclgrind.sh). Fails
# when a test fails, when no test ran, or when any test was skipped: a test
# binary skips (exit 77) only when no OpenCL device exists, and CI installs
# POCL, so a skip here means the device is broken.
set -euo pipefail
cd "$(dirname "$0")/.."

build_dir="${CLG_BUILD_DIR:-build}"

# Ends a lane: what passed, with the lane's time and the run's so far.
lane_start=$SECONDS
passed() {
  echo "ci/test.sh: $* ($((SECONDS - lane_start)) s; $SECONDS s since the start)"
  lane_start=$SECONDS
}

bash ci/install-deps.sh --tests
echo "--- format"
bash ci/format.sh
bash ci/licence.sh
echo "--- OpenCL devices"
clinfo -l || true
bash ci/build.sh

log="$(mktemp)"
trap 'rm -f "$log"' EXIT
jobs="$(nproc 2>/dev/null || echo 2)"

# Runs ctest with the given arguments (and environment), then fails unless
# its output shows every test passed: ctest counts a skipped test as
# passed, and CI must not (it has POCL, so a skip means a broken device).
run_ctest() {
  local what="$1"
  shift
  local status=0
  ctest --test-dir "$build_dir" --output-on-failure --no-tests=error \
    --parallel "$jobs" "$@" 2>&1 | tee "$log" || status=$?
  if [ "$status" -ne 0 ]; then
    echo "ci/test.sh: ctest failed ($what, exit $status)" >&2
    exit "$status"
  fi
  if grep -Eq '\*\*\*Skipped|Not Run|tests did not run' "$log"; then
    echo "ci/test.sh: tests were skipped ($what; no OpenCL device?)" >&2
    exit 1
  fi
  if ! grep -Eq '^100% tests passed, 0 tests failed out of [1-9][0-9]*' "$log"; then
    echo "ci/test.sh: could not confirm that every test ran and passed ($what)" >&2
    exit 1
  fi
}

run_ctest "all tests"
passed "all tests ran and passed"

# Every optimisation level builds with -Werror (gcc's warnings depend on
# it: -O1 once broke the build with -Wformat-truncation).
echo "--- build at -O1 and -Os"
for level in O1 Os; do
  cmake -S . -B "build-$level" -DCMAKE_BUILD_TYPE=None \
    -DCMAKE_C_FLAGS="-$level" -DCLGATHER_BUILD_TESTS=ON \
    -DCLGATHER_BUILD_CLI=ON -DCLGATHER_WERROR=ON >/dev/null
  cmake --build "build-$level" --parallel "$jobs" >/dev/null
done
passed "the tree builds at -O1 and -Os"

# The GPU plan on POCL: 32-bit offsets, GPU work-groups, no CPU-only
# kernels, the copy path.
echo "--- device tests with CLGATHER_TEST_PLAN=gpu"
CLGATHER_TEST_PLAN=gpu run_ctest "GPU plan" -L device
passed "the device tests passed with the GPU plan"

# The library alone, installed and used through pkg-config and
# find_package (a separate, library-only build; quick); then the build
# above installed, the tool's man pages rendered and its bash completion
# loaded.
echo "--- install check"
bash ci/install_check.sh
passed "the install check passed"

# The Python package (ci/python.sh): built with pip as a user does, its
# pytest + Hypothesis suite, PyOpenCL included, on both CPU
# implementations: Intel's runtime is installed privately
# (ci/install-intel.sh prints its vendors folder, which also names POCL).
echo "--- python"
vendors="$(bash ci/install-intel.sh | tail -n 1)"
OCL_ICD_VENDORS="$vendors" bash ci/python.sh
passed "the Python lane passed"

# libFuzzer targets for the readers, the model loader and validation with
# the reference: regression inputs, then 60 s per target, one target per
# core.
echo "--- fuzzing"
bash ci/fuzz.sh
passed "the fuzzing lane passed"

# ASan + UBSan + LeakSanitizer over the unit, device, fault, cli and
# conformance labels, on the kernel cache the runs above filled.
echo "--- sanitizers"
bash ci/sanitize.sh
passed "the sanitizer lane passed"

# ThreadSanitizer over the device label, device_threads (8 threads on one
# context) among it; about 3 minutes on 2 cores (POCL compiles the
# unspecialised kernels ci/tsan.sh asks for on their first run).
echo "--- ThreadSanitizer"
bash ci/tsan.sh
passed "the ThreadSanitizer lane passed"

# The same device, conformance and cli tests, and the GPU plan, on Intel's
# OpenCL runtime for CPUs (installed from PyPI into a private venv).
echo "--- Intel CPU runtime"
bash ci/intel.sh
passed "the Intel CPU runtime lane passed"

# The device, conformance and cli tests, and the GPU plan, on Mesa's
# Rusticl 22.3 (Debian's mesa-opencl-icd, unpacked privately) on llvmpipe:
# clang to SPIR-V to Mesa's NIR, a compiler stack of its own.
echo "--- Rusticl"
bash ci/rusticl.sh
passed "the Rusticl lane passed"

# The device tests and the ONNX node tests under Oclgrind's checks
# (bounds, API, data races, uninitialised values); fails on any report.
echo "--- Oclgrind"
bash ci/oclgrind.sh
passed "the Oclgrind lane passed"
