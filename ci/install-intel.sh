#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Installs Intel's OpenCL runtime for CPUs (PyPI intel-opencl-rt, with
# libsvml.so from intel-cmplr-lib-rt) into a private Python venv, and
# writes a private OpenCL vendors folder that names it beside POCL. Nothing
# goes system-wide: everything lives under
#   ${CLG_DEPS_DIR:-$HOME/.cache/clgather-ci}/intel/
#     venv/      the wheels (lib/libintelocl.so and the libraries it needs:
#                libsvml, libimf, libintlc, libirng, libtbb, its compiler)
#     vendors/   intel-cpu.icd (the absolute path of libintelocl.so) and a
#                link to /etc/OpenCL/vendors/pocl.icd
# libintelocl.so finds its libraries through its own RUNPATH ($ORIGIN),
# so neither LD_LIBRARY_PATH nor an rpath is needed. Use it with
#   OCL_ICD_VENDORS=<dir>/intel/vendors CLGATHER_DEVICE='Intel(R) OpenCL'
# (ci/intel.sh does). Prints the vendors folder as its last line.
#
# Idempotent: pip runs only when the pinned versions are not installed yet
# (a stamp file records them). When PyPI cannot be reached it says so and
# fails: the Intel lane never skips silently.
set -euo pipefail

versions="intel-opencl-rt==2026.2.0 intel-cmplr-lib-rt==2026.2.0"
root="${CLG_DEPS_DIR:-$HOME/.cache/clgather-ci}/intel"
venv="$root/venv"
vendors="$root/vendors"
stamp="$venv/.clgather-installed"
pocl_icd=/etc/OpenCL/vendors/pocl.icd

fail() {
  echo "install-intel: $*" >&2
  exit 1
}

if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$versions" ] &&
  [ -f "$venv/lib/libintelocl.so" ]; then
  echo "install-intel: $versions already installed in $venv" >&2
else
  python="$(command -v python3 || true)"
  [ -n "$python" ] || fail "python3 is missing (ci/install-deps.sh installs it)"
  rm -rf "$venv"
  mkdir -p "$root"
  "$python" -m venv "$venv" ||
    fail "cannot create a venv in $venv (Debian: python3-venv)"
  echo "install-intel: installing $versions from PyPI into $venv" >&2
  # shellcheck disable=SC2086 # $versions is a list of requirements
  if ! "$venv/bin/pip" install --disable-pip-version-check \
    --no-input --retries 2 --timeout 60 $versions >&2; then
    rm -rf "$venv"
    fail "pip could not install $versions: is PyPI reachable? The Intel lane needs it and does not skip"
  fi
  [ -f "$venv/lib/libintelocl.so" ] ||
    fail "$venv/lib/libintelocl.so is missing after the install"
  echo "$versions" >"$stamp"
fi

[ -f "$pocl_icd" ] ||
  fail "$pocl_icd is missing (ci/install-deps.sh installs pocl-opencl-icd)"
mkdir -p "$vendors"
# Written whole each time: the venv's path is in it.
echo "$venv/lib/libintelocl.so" >"$vendors/intel-cpu.icd.tmp"
mv "$vendors/intel-cpu.icd.tmp" "$vendors/intel-cpu.icd"
ln -sfn "$pocl_icd" "$vendors/pocl.icd"
echo "$vendors"
