#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Configures a Release build into build/ (or $CLG_BUILD_DIR) and builds it
# with all cores. Every optional part is turned ON explicitly, so configure
# fails, naming the Debian package, when a dependency is missing, rather than
# leaving the CLI or the tests out (see cmake/ClgOptions.cmake).
set -euo pipefail
cd "$(dirname "$0")/.."

build_dir="${CLG_BUILD_DIR:-build}"
jobs="$(nproc 2>/dev/null || getconf _NPROCESSORS_ONLN 2>/dev/null || echo 2)"

cmake -S . -B "$build_dir" -DCMAKE_BUILD_TYPE=Release \
  -DCLGATHER_BUILD_CLI=ON -DCLGATHER_BUILD_TESTS=ON -DCLGATHER_BUILD_MAN=ON \
  -DCLGATHER_WERROR=ON
cmake --build "$build_dir" --parallel "$jobs"
