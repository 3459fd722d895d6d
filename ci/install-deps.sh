#!/usr/bin/env bash
# Installs the Debian packages clgather needs to build and test: a C
# toolchain, CMake, OpenCL headers and ICD loader, POCL (the CPU OpenCL
# device CI runs on), cmocka, protobuf-c and ONNX (CLI and conformance
# tests), clang-format (ci/format.sh), clang-14 with its libFuzzer and
# sanitizer runtimes (ci/fuzz.sh, ci/sanitize.sh), llvm-14 for
# llvm-symbolizer (ci/sanitize.sh's reports), oclgrind (ci/oclgrind.sh)
# and python3-venv (ci/install-intel.sh's private venv for Intel's OpenCL
# runtime, which ci/intel.sh installs from PyPI itself). Idempotent: each package is
# checked with dpkg -s, and apt-get (update, then install) runs only when
# something is missing. Uses sudo only when not root.
set -euo pipefail

packages=(
  build-essential
  cmake
  pkg-config
  pocl-opencl-icd
  ocl-icd-opencl-dev
  opencl-c-headers
  clinfo
  libcmocka-dev
  protobuf-c-compiler
  libprotobuf-c-dev
  libonnx-dev
  libonnx-testdata
  clang-format
  clang-14
  libclang-rt-14-dev
  llvm-14
  oclgrind
  python3-venv
)

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
