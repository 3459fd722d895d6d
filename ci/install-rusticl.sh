#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Installs Mesa's Rusticl (Debian 12's mesa-opencl-icd, 22.3.6: clang to
# SPIR-V to Mesa's NIR, run by llvmpipe on the CPU) privately, and writes
# a private OpenCL vendors folder that names it alone. Nothing is
# registered system-wide: the package is unpacked with dpkg -x under
#   ${CLG_DEPS_DIR:-$HOME/.cache/clgather-ci}/rusticl/
#     root/      the unpacked package (usr/lib/x86_64-linux-gnu/
#                libRusticlOpenCL.so.1)
#     vendors/   rusticl.icd (the absolute path of libRusticlOpenCL.so.1)
# Its Debian dependencies (libclc-15, libclang-cpp15, libllvm15,
# libllvmspirvlib15 and the small libraries beside them) are installed
# with apt-get when missing; they register no OpenCL platform. Use it with
#   OCL_ICD_VENDORS=<dir>/rusticl/vendors RUSTICL_ENABLE=swrast
# (ci/rusticl.sh does). Prints the vendors folder as its last line.
#
# Idempotent: apt-get runs only when the package or a dependency is
# missing (a stamp file records the version unpacked). When the package
# cannot be had it says so and fails: the Rusticl lane never skips.
set -euo pipefail

package=mesa-opencl-icd
version=22.3.6-1+deb12u2
deps=(libclc-15 libclang-cpp15 libllvm15 libllvmspirvlib15 libdrm2
  libdrm-amdgpu1 libdrm-nouveau2 libdrm-radeon1 libelf1 libexpat1
  libsensors5 libzstd1 zlib1g)
root="${CLG_DEPS_DIR:-$HOME/.cache/clgather-ci}/rusticl"
unpacked="$root/root"
vendors="$root/vendors"
stamp="$unpacked/.clgather-installed"
arch="$(dpkg --print-architecture 2>/dev/null || echo amd64)"
case "$arch" in
  amd64) triplet=x86_64-linux-gnu ;;
  arm64) triplet=aarch64-linux-gnu ;;
  *) triplet="$(gcc -dumpmachine 2>/dev/null || echo "$arch-linux-gnu")" ;;
esac
lib="$unpacked/usr/lib/$triplet/libRusticlOpenCL.so.1"

fail() {
  echo "install-rusticl: $*" >&2
  exit 1
}

sudo=()
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null 2>&1 ||
    fail "not root and sudo is missing; cannot install ${deps[*]}"
  sudo=(sudo)
fi

missing=()
for p in "${deps[@]}"; do
  if ! dpkg -s "$p" 2>/dev/null | grep -q '^Status: install ok installed$'; then
    missing+=("$p")
  fi
done
updated=0
if [ "${#missing[@]}" -ne 0 ]; then
  echo "install-rusticl: installing ${missing[*]}" >&2
  ${sudo[@]+"${sudo[@]}"} apt-get update >&2 || true
  updated=1
  ${sudo[@]+"${sudo[@]}"} env DEBIAN_FRONTEND=noninteractive \
    apt-get install -y "${missing[@]}" >&2 ||
    fail "apt-get could not install ${missing[*]}: the Rusticl lane needs them and does not skip"
fi

if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$package=$version" ] &&
  [ -f "$lib" ]; then
  echo "install-rusticl: $package $version already unpacked in $unpacked" >&2
else
  rm -rf "$unpacked"
  mkdir -p "$root"
  work="$(mktemp -d "$root/download.XXXXXX")"
  trap 'rm -rf "$work"' EXIT
  echo "install-rusticl: downloading $package=$version" >&2
  if ! (cd "$work" && apt-get download "$package=$version" >&2); then
    # The pinned version may have left the mirror; a fresh index may
    # still hold it.
    [ "$updated" -eq 1 ] || ${sudo[@]+"${sudo[@]}"} apt-get update >&2 || true
    (cd "$work" && apt-get download "$package=$version" >&2) ||
      fail "apt-get download $package=$version failed: is the Debian mirror reachable? The Rusticl lane needs it and does not skip"
  fi
  deb="$(find "$work" -maxdepth 1 -name "${package}_*.deb" | head -n 1)"
  [ -n "$deb" ] || fail "apt-get download left no ${package}_*.deb"
  dpkg -x "$deb" "$unpacked" || fail "dpkg -x $deb failed"
  [ -f "$lib" ] || fail "$lib is missing after unpacking $deb"
  echo "$package=$version" >"$stamp"
fi

mkdir -p "$vendors"
# Written whole each time: the folder's path is in it.
echo "$lib" >"$vendors/rusticl.icd.tmp"
mv "$vendors/rusticl.icd.tmp" "$vendors/rusticl.icd"
echo "$vendors"
