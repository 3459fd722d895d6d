# SPDX-License-Identifier: Apache-2.0
# Shared by ci/sanitize.sh and ci/tsan.sh (sourced, not run): choose the
# compiler, check that it links with the sanitizer, and configure and
# build the tree with it. The caller sets `lane` (its name, for messages),
# `build_dir`, `jobs` and `start`, and defines fail().
#
# sanitizer_build <compiler or ""> <label> <sanitizer flag>...
#   "" picks clang-14, else clang. Sets cc, san_flags, c_flags, probe (a
#   temporary folder removed at exit), build_abs, symbolizer and logs_of.
# Also defines logs_of, ctest_failure, lane_verdict, print_reports and
# sanitizer_pocl_env.

# sanitizer_pocl_env: POCL_WORK_GROUP_SPECIALIZATION=0 for a sanitized
# lane's tests. POCL then builds and loads one machine-code object per
# kernel, not one per kernel and work-group size; the device label's
# varied shapes made thousands of those per test, and a sanitized process
# loads each far more slowly (ThreadSanitizer, compiler-rt 14, rescans
# every loaded module at each dlopen). Measured alone: device_random on a
# cold POCL cache under ASan ran past its 900 s timeout with them and took
# 37 s without; under TSan on a warm cache 52 s and 16 s. It changes only
# POCL's compiled kernels, which neither sanitizer instruments, and
# nothing of the host code they check.
sanitizer_pocl_env() {
  export POCL_WORK_GROUP_SPECIALIZATION=0
}

# Every file under a folder, concatenated (each process writes its own).
logs_of() {
  find "$1" -type f -exec cat {} +
}

# ctest_failure <ctest log> <ctest exit status>: why the run does not count
# as every test run and passed; nothing when it does.
ctest_failure() {
  if [ "$2" -ne 0 ]; then
    echo "ctest failed (exit $2)"
  elif grep -Eq '\*\*\*Skipped|Not Run|tests did not run' "$1"; then
    echo "tests were skipped (no OpenCL device?)"
  elif ! grep -Eq '^100% tests passed, 0 tests failed out of [1-9][0-9]*' "$1"; then
    echo "could not confirm that every test ran and passed"
  fi
}

# lane_verdict <reports> <kind> <what passed>: after the summary, prints
# each entry of the caller's `failures` array and fails on any, or on a
# report of <kind>; else says that <what passed> passed with none.
lane_verdict() {
  local f
  for f in ${failures[@]+"${failures[@]}"}; do
    echo "ci/$lane.sh: $f" >&2
  done
  [ "${#failures[@]}" -eq 0 ] || exit 1
  [ "$1" -eq 0 ] || fail "$1 $2 report(s); see above and $logs"
  echo "ci/$lane.sh: $3 passed with no $2 report"
}

# print_reports <folder> <regex>: prints each log file under the folder
# that holds a line matching the regex, after its name.
print_reports() {
  find "$1" -type f -exec grep -l "$2" {} + | while read -r f; do
    echo "=== $f"
    cat "$f"
  done
}

sanitizer_build() {
  local given="$1" label="$2"
  shift 2
  cc="$given"
  if [ -z "$cc" ]; then
    for c in clang-14 clang; do
      if command -v "$c" >/dev/null 2>&1; then
        cc="$c"
        break
      fi
    done
  fi
  [ -n "$cc" ] || fail "clang not found; install the Debian packages clang-14 and libclang-rt-14-dev (ci/install-deps.sh --tests)"
  cc="$(command -v "$cc")" || fail "compiler '$given' not found"
  san_flags=("$@")
  c_flags=(-O1 -g -fno-omit-frame-pointer "${san_flags[@]}")

  # The compiler must have its sanitizer runtimes (clang: libclang-rt-14-dev).
  probe="$(mktemp -d "${TMPDIR:-/tmp}/clgather-$lane.XXXXXX")"
  trap 'rm -rf "$probe"' EXIT
  echo 'int main(void) { return 0; }' >"$probe/probe.c"
  if ! "$cc" "${c_flags[@]}" "$probe/probe.c" -o "$probe/probe" 2>"$probe/probe.log"; then
    cat "$probe/probe.log" >&2
    fail "$cc cannot link with ${san_flags[*]}; for clang 14 install libclang-rt-14-dev"
  fi

  # A build folder configured with another compiler is made afresh (CMake
  # cannot change the compiler of a configured tree).
  if [ -f "$build_dir/CMakeCache.txt" ] &&
    [ "$(sed -n 's/^CMAKE_C_COMPILER:[A-Z]*=//p' "$build_dir/CMakeCache.txt")" != "$cc" ]; then
    echo "ci/$lane.sh: $build_dir was configured with another compiler; starting afresh"
    rm -rf "$build_dir"
  fi

  echo "--- $label build ($("$cc" --version | head -n 1); ${c_flags[*]})"
  # Debug: no NDEBUG, so assertions stay on; -O1 from CMAKE_C_FLAGS comes
  # before CMAKE_C_FLAGS_DEBUG's -g and is kept.
  cmake -S . -B "$build_dir" -DCMAKE_BUILD_TYPE=Debug -DCMAKE_C_COMPILER="$cc" \
    -DCMAKE_C_FLAGS="${c_flags[*]}" \
    -DCMAKE_EXE_LINKER_FLAGS="${san_flags[*]}" \
    -DCMAKE_SHARED_LINKER_FLAGS="${san_flags[*]}" \
    -DCLGATHER_BUILD_CLI=ON -DCLGATHER_BUILD_TESTS=ON -DCLGATHER_WERROR=ON \
    -DCLGATHER_BUILD_FUZZERS=OFF -DCLGATHER_BUILD_MAN=OFF \
    >"$probe/configure.log" || { cat "$probe/configure.log"; fail "configure failed"; }
  cmake --build "$build_dir" --parallel "$jobs" >"$probe/build.log" 2>&1 ||
    { tail -n 60 "$probe/build.log"; fail "build failed"; }
  build_s=$((SECONDS - start))
  echo "ci/$lane.sh: built in ${build_s} s"

  build_abs="$(cd "$build_dir" && pwd)"
  symbolizer="$(command -v llvm-symbolizer-14 || command -v llvm-symbolizer || true)"
}
