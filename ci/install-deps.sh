#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Installs the Debian packages clgather needs.
#
#   bash ci/install-deps.sh          the library, the tool and the main job
#                                    (ci/quickstart.sh): a C toolchain,
#                                    CMake, OpenCL headers and ICD loader,
#                                    POCL (the CPU OpenCL device), xxHash
#                                    (the program cache's hash), protobuf-c,
#                                    json-c and ONNX (the tool), help2man (the
#                                    tool's man pages), ONNX's node tests
#   bash ci/install-deps.sh --tests  also what only the tests need
#                                    (ci/test.sh): cmocka, the JSON Schema
#                                    validator python3-jsonschema (the
#                                    tool's --json tests), clinfo,
#                                    clang-format (ci/format.sh), clang-14
#                                    with its libFuzzer and sanitizer
#                                    runtimes (ci/fuzz.sh, ci/sanitize.sh,
#                                    ci/tsan.sh) and llvm-14 for
#                                    llvm-symbolizer (the sanitizer reports),
#                                    oclgrind (ci/oclgrind.sh),
#                                    python3-venv (the private venvs of
#                                    ci/install-intel.sh and ci/python.sh),
#                                    man-db and bash-completion (the
#                                    installed man pages and completion,
#                                    ci/install_check.sh)
#
# Idempotent: each package is checked with dpkg -s, and apt-get (update,
# then install) runs only when something is missing. Uses sudo only when
# not root.
set -euo pipefail

packages=(
  build-essential
  cmake
  pkg-config
  pocl-opencl-icd
  ocl-icd-opencl-dev
  opencl-c-headers
  libxxhash-dev
  protobuf-c-compiler
  libprotobuf-c-dev
  libjson-c-dev
  libonnx-dev
  libonnx-testdata
  help2man
)
test_packages=(
  clinfo
  libcmocka-dev
  python3-jsonschema
  clang-format
  clang-14
  libclang-rt-14-dev
  llvm-14
  oclgrind
  python3-venv
  man-db
  bash-completion
)
case "${1:-}" in
  "") ;;
  --tests) packages+=("${test_packages[@]}") ;;
  *)
    echo "usage: bash ci/install-deps.sh [--tests]" >&2
    exit 2
    ;;
esac

missing=()
for p in "${packages[@]}"; do
  # "install ok installed" only: a removed package that left its config
  # files behind is still known to dpkg -s but is not installed.
  if ! dpkg -s "$p" 2>/dev/null | grep -q '^Status: install ok installed$'; then
    missing+=("$p")
  fi
done

if [ "${#missing[@]}" -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages already installed"
  exit 0
fi

echo "install-deps: installing ${missing[*]}"
sudo=()
if [ "$(id -u)" -ne 0 ]; then
  if ! command -v sudo >/dev/null 2>&1; then
    echo "install-deps: not root and sudo is missing; install: ${missing[*]}" >&2
    exit 1
  fi
  sudo=(sudo)
fi
# ${sudo[@]+...}: an empty array is "unbound" under set -u in older bash.
${sudo[@]+"${sudo[@]}"} apt-get update
${sudo[@]+"${sudo[@]}"} env DEBIAN_FRONTEND=noninteractive \
  apt-get install -y "${missing[@]}"
