#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The Python lane: installs the package the way a user does (pip install
# ./python, which builds the library with CMake through scikit-build-core)
# into a private virtual environment with its test tools from PyPI, runs
# its pytest + Hypothesis suite on every OpenCL device the ICD loader offers
# (POCL always; Intel's CPU runtime too when OCL_ICD_VENDORS names it beside
# POCL), installs it again from the repository root (pip install ., the
# root pyproject.toml) and runs the API tests on that, then builds the
# package a third way, over an installed clgather found through
# pkg-config, and runs the API tests on that.
# Idempotent (the environment and the builds are kept under $build_dir and
# reused); writes nothing outside $build_dir but pip's and POCL's caches
# (bytecode and pytest's temporary folders go under $build_dir too);
# fails when a test fails, when no test passed, or when any was skipped.
#
#   CLG_BUILD_DIR   build folder (default build); the lane uses
#                   $CLG_BUILD_DIR/py-* only
#   PYTHON          the interpreter that makes the environment (python3;
#                   Debian needs python3-venv)
#   CLGATHER_HYPOTHESIS_EXAMPLES  examples per property test (default 300)
set -euo pipefail
cd "$(dirname "$0")/.."

build_dir="${CLG_BUILD_DIR:-build}"
mkdir -p "$build_dir"
build_dir="$(cd "$build_dir" && pwd)"
venv="$build_dir/py-venv"
python="$venv/bin/python"
# Bytecode of the tests (and pytest's rewritten test modules) under the
# build folder, not beside the sources.
export PYTHONPYCACHEPREFIX="$build_dir/py-pycache"
# The persistent program cache's folder, for a library that has one.
export CLGATHER_CACHE_DIR="$build_dir/py-program-cache"

echo "--- python: environment $venv"
if [ ! -x "$python" ]; then
  "${PYTHON:-python3}" -m venv "$venv" || {
    echo "ci/python.sh: cannot create a virtual environment with" \
      "${PYTHON:-python3} (Debian: apt-get install python3-venv)" >&2
    exit 1
  }
fi
"$python" -m pip install --quiet --disable-pip-version-check \
  numpy pytest hypothesis pyopencl ml_dtypes scikit-build-core

echo "--- python: pip install ./python"
# build-dir keeps CMake's tree between runs; --force-reinstall makes sure
# the package installed is the one just built from this tree.
"$python" -m pip install --quiet --disable-pip-version-check \
  --force-reinstall --no-deps -C build-dir="$build_dir/py-build" ./python

log="$(mktemp)"
trap 'rm -f "$log"' EXIT

# run_pytest <what> <pytest arguments...>: fails on any failure, on no
# tests (pytest's exit 5, or a summary without "N passed") and on any skip
# (CI has POCL and PyOpenCL). tmp_path folders go under $build_dir.
run_pytest() {
  local what="$1"
  shift
  local status=0
  (cd python && "$python" -m pytest -p no:cacheprovider -rs \
    --basetemp="$build_dir/py-tmp" "$@") 2>&1 | tee "$log" || status=$?
  if [ "$status" -ne 0 ]; then
    echo "ci/python.sh: pytest failed ($what, exit $status)" >&2
    exit 1
  fi
  if grep -Eq '[0-9]+ skipped' "$log"; then
    echo "ci/python.sh: tests were skipped ($what)" >&2
    exit 1
  fi
  if ! grep -Eq '^=+ [1-9][0-9]* passed' "$log"; then
    echo "ci/python.sh: no test passed ($what)" >&2
    exit 1
  fi
}

echo "--- python: tests"
run_pytest "bundled library" tests

echo "--- python: pip install . (the repository root)"
# The root pyproject.toml configures the same python/CMakeLists.txt with
# the same settings, so it shares the CMake tree of pip install ./python;
# what it adds, the paths from the root, is what this checks.
rm -rf "$build_dir/py-root"
"$python" -m pip install --quiet --disable-pip-version-check --no-deps \
  --target "$build_dir/py-root" -C build-dir="$build_dir/py-build" .
PYTHONPATH="$build_dir/py-root" CLGATHER_EXPECT_LIBRARY="$build_dir/py-root" \
  run_pytest "pip install ." tests/test_api.py

echo "--- python: over an installed clgather (pkg-config)"
prefix="$build_dir/py-prefix"
cmake -S . -B "$build_dir/py-lib" -DCMAKE_BUILD_TYPE=Release \
  -DCLGATHER_BUILD_CLI=OFF -DCLGATHER_BUILD_TESTS=OFF \
  -DCMAKE_INSTALL_PREFIX="$prefix" >/dev/null
cmake --build "$build_dir/py-lib" --parallel "$(nproc 2>/dev/null || echo 2)" \
  >/dev/null
cmake --install "$build_dir/py-lib" >/dev/null
rm -rf "$build_dir/py-system"
PKG_CONFIG_PATH="$prefix/lib/pkgconfig:$prefix/lib64/pkgconfig" \
  "$python" -m pip install --quiet --disable-pip-version-check --no-deps \
  --target "$build_dir/py-system" \
  -C build-dir="$build_dir/py-build-system" \
  -C cmake.define.CLGATHER_PYTHON_SYSTEM_LIBRARY=ON ./python
if ls "$build_dir"/py-system/clgather/libclgather* >/dev/null 2>&1; then
  echo "ci/python.sh: the pkg-config build carries its own library" >&2
  exit 1
fi
PYTHONPATH="$build_dir/py-system" CLGATHER_EXPECT_LIBRARY="$prefix" \
  run_pytest "pkg-config library" tests/test_api.py
echo "ci/python.sh: the Python tests ran and passed"
