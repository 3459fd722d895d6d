#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The sanitizer lane: builds the library, the CLI and the tests with
# AddressSanitizer (LeakSanitizer included) and UndefinedBehaviorSanitizer,
# every check fatal (-fno-sanitize-recover=all), into build-sanitize/ (or
# $CLG_SANITIZE_BUILD_DIR), and runs the ctest labels unit, device, fault,
# cli and conformance (not large). Fails when a test fails or is skipped, or when
# any process (test binaries, and the clgather processes the cli and
# conformance tests start) wrote a sanitizer report. Prints the run time,
# the tests run per label, the reports (0) and the leaks suppressed.
#
#   ci/sanitize.sh              the whole lane
#   CLG_SANITIZE_CC=gcc-12 ci/sanitize.sh   another compiler (default
#                                            clang-14, else clang)
#
# Compiler: clang 14 (Debian 12's clang-14 with libclang-rt-14-dev, and
# llvm-14 for llvm-symbolizer; ci/install-deps.sh --tests installs them). POCL
# loads its own LLVM 15 into the process; both clang 14 and gcc 12 run
# clean with it. clang is the default because it builds at -O1 with
# -Werror. The sanitizer flags come in through CMAKE_C_FLAGS and the linker
# flags, so CMakeLists.txt needs nothing for this build.
#
# Two passes over the same build, each counting every sanitizer report:
#  1. the lane: all five labels with LeakSanitizer on, on ASan's fast
#     unwinder, with tests/sanitizers/lsan.supp: leaks of memory that C++
#     code allocated (LLVM inside POCL) are not reported; clgather's, the
#     ICD loader's and POCL's C runtime's (every OpenCL object) are. A
#     leaked OpenCL object's stack then ends at its libpocl caller; to see
#     the clgather frames above it, rerun that test with
#     ASAN_OPTIONS=...:fast_unwind_on_malloc=0.
#     device_fault's injection runs (a context and a program build each)
#     are the longest part; they run as four tests, device_fault_0 to _3,
#     one per core.
#  2. attribution: device_quiet (every cache off, so POCL compiles every
#     program it builds) again, with whole allocation stacks
#     (fast_unwind_on_malloc=0) and tests/sanitizers/lsan_pocl_compile.supp,
#     whose one entry names the POCL function that leaks: so every leak
#     pass 1's suppressions let pass when POCL compiles is known to be
#     POCL's own. The slow unwinder makes POCL's in-process LLVM about 4
#     times slower, which is why pass 1 does without it.
# Measured on 2 shared cores, after the main ctest run filled POCL's cache:
# pass 1 takes about 8 minutes, pass 2 about 1; on a cold cache pass 1
# also compiles every kernel variant.
#
# POCL runs without work-group specialisation (sanitizer_pocl_env in
# ci/sanitizer_build.sh says why).
#
# The sanitizer options are set here, for every process ctest starts and
# every process those start (the cli tests pass their environment on to
# clgather):
#  - reports go to files under <build>/sanitizer-logs/ (log_path), one per
#    process, and are counted there, so a report from a clgather child
#    process counts even when its test only looks at the exit status;
#  - exitcode=86, a status no clgather command uses (0-4) and no test
#    expects: a child that dies of a report cannot pass for "outputs
#    differ" (1);
#  - allocator_may_return_null=1: malloc returns NULL where glibc would
#    (ASan would otherwise abort on an allocation above its 1 TiB limit),
#    since the CLI's tests check how it refuses absurd sizes;
#  - use_sigaltstack=0: ASan's runtime (compiler-rt 14, and gcc 12's)
#    unmaps whatever alternate signal stack a thread has when the thread
#    ends, assuming it is its own. LLVM installs its own (a malloc'd 80 KB
#    stack, llvm/lib/Support/Unix/Signals.inc, CreateSigAltStack) on the
#    thread where POCL first sets LLVM up; when that is not the main thread
#    (device_concurrent_create, whose 8 threads make the first OpenCL
#    calls) ASan dies at that thread's exit: "failed to deallocate 0x138c0
#    (80064) bytes ... CHECK failed: sanitizer_posix.cpp:61 unable to
#    unmap" (compiler-rt fixed it in 2026, llvm/llvm-project#179000). The
#    cost: a stack overflow kills the process with SIGSEGV instead of
#    giving an ASan report.
#
# Before the tests, a canary (tests/sanitizers/leak_canary.c) leaks an
# OpenCL buffer under pass 1's options and suppressions, then under pass
# 2's; the lane fails unless that leak is reported both times (with libpocl
# as the allocation's caller under pass 1's fast unwinder, with the
# canary's make_buffer in the stack under pass 2's), so LeakSanitizer is
# known to be on and neither set of suppressions known to hide an OpenCL
# object left unreleased.
set -euo pipefail
cd "$(dirname "$0")/.."
src="$PWD"

start=$SECONDS
build_dir="${CLG_SANITIZE_BUILD_DIR:-build-sanitize}"
jobs="$(nproc 2>/dev/null || getconf _NPROCESSORS_ONLN 2>/dev/null || echo 2)"

fail() {
  echo "ci/sanitize.sh: $*" >&2
  exit 1
}

lane=sanitize
# shellcheck source=ci/sanitizer_build.sh
. "$src/ci/sanitizer_build.sh"
sanitizer_build "${CLG_SANITIZE_CC:-}" "sanitizer" "-fsanitize=address,undefined" -fno-sanitize-recover=all

logs="$build_abs/sanitizer-logs"
supp_lane="$src/tests/sanitizers/lsan.supp"
supp_pocl="$src/tests/sanitizers/lsan_pocl_compile.supp"
rm -rf "$logs"
mkdir -p "$logs"

# sanitizer_env <log prefix> <leaks: 1 (fast unwinder, the lane's
# suppressions) or whole (whole allocation stacks, the attribution pass's
# suppressions)>: exports the sanitizer options. ASan and UBSan share one
# log_path (their common flags are one set; the last one parsed would win).
sanitizer_env() {
  local log="$1" leaks="$2" supp="$supp_lane"
  local asan="halt_on_error=1:abort_on_error=0:print_stacktrace=1"
  asan+=":detect_stack_use_after_return=1:strict_string_checks=1"
  asan+=":allocator_may_return_null=1:use_sigaltstack=0"
  asan+=":exitcode=86:log_path=$log"
  asan+=":detect_leaks=1"
  if [ "$leaks" = whole ]; then
    asan+=":fast_unwind_on_malloc=0"
    supp="$supp_pocl"
  fi
  export ASAN_OPTIONS="$asan"
  export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1:report_error_type=1:exitcode=86:log_path=$log"
  export LSAN_OPTIONS="suppressions=$supp:print_suppressions=1:report_objects=0"
  if [ -n "$symbolizer" ]; then
    export ASAN_SYMBOLIZER_PATH="$symbolizer" UBSAN_SYMBOLIZER_PATH="$symbolizer"
  fi
}

# Counts the reports in the log files of a folder (a file may also hold,
# or hold only, LeakSanitizer's list of the suppressions it used).
count_reports() {
  logs_of "$1" | { grep -c '^SUMMARY: ' || true; }
}

# run_pass <name> <leaks: as sanitizer_env> <ctest selection...>: runs
# ctest under the sanitizers, its output in $build_abs/sanitize-<name>.log;
# fails the lane (after the summary) when a test fails or is skipped.
failures=()
run_pass() {
  local name="$1" leaks="$2" status=0
  shift 2
  local log="$build_abs/sanitize-$name.log"
  (
    sanitizer_env "$logs/$name" "$leaks"
    sanitizer_pocl_env
    ctest --test-dir "$build_dir" --output-on-failure --no-tests=error \
      --parallel "$jobs" "$@" -LE '^large$'
  ) 2>&1 | tee "$log" || status=$?
  local why
  why="$(ctest_failure "$log" "$status")"
  [ -z "$why" ] || failures+=("$name: $why")
}

# canary <leaks: 1 or whole> <command>: runs the canary under a pass's
# options; <command> reads its report on stdin and must succeed.
canary() {
  local leaks="$1" status=0
  shift
  local dir="$probe/canary-logs-$leaks"
  mkdir -p "$dir"
  (
    sanitizer_env "$dir/canary" "$leaks"
    "$probe/leak_canary"
  ) || status=$?
  local log
  log="$(logs_of "$dir")"
  [ "$status" -ne 77 ] || fail "the canary found no OpenCL device"
  if [ "$status" -ne 86 ] ||
    ! grep -q 'ERROR: LeakSanitizer: detected memory leaks' <<<"$log" ||
    ! "$@" <<<"$log"; then
    echo "$log"
    fail "the canary's leaked cl_mem was not reported under leaks=$leaks (exit $status): LeakSanitizer is off, or a suppression hides OpenCL objects"
  fi
  echo "ci/sanitize.sh: the canary's leaked cl_mem was reported under leaks=$leaks, as it must be"
}

echo "--- leak canary"
"$cc" "${c_flags[@]}" "$src/tests/sanitizers/leak_canary.c" -o "$probe/leak_canary" -lOpenCL
# Pass 1's fast unwinder stops in libpocl (no frame pointers): a direct
# leak whose caller is libpocl is the cl_mem (the canary's other leak is
# its own malloc, under main).
canary 1 awk '/^Direct leak/ { direct = 1; next }
              direct && /^ +#1 / { if (/libpocl\.so/) found = 1; direct = 0 }
              END { exit !found }'
canary whole grep -q 'in make_buffer .*leak_canary\.c'

echo "--- pass 1: ctest -L 'unit|device|fault|cli|conformance', ASan+UBSan+LSan"
pass1_start=$SECONDS
run_pass lane 1 -L '^(unit|device|fault|cli|conformance)$'
pass1_s=$((SECONDS - pass1_start))
echo "--- pass 2: device_quiet (POCL compiles), ASan+UBSan+LSan on whole stacks, POCL's leak named"
pass2_start=$SECONDS
run_pass attribution whole -R '^device_quiet$'
pass2_s=$((SECONDS - pass2_start))

reports="$(count_reports "$logs")"
if [ "$reports" -ne 0 ]; then
  echo "--- sanitizer reports"
  print_reports "$logs" '^SUMMARY: '
fi
# suppressed <pass name>: what LeakSanitizer suppressed in a pass's
# processes, summed per entry.
suppressed() {
  find "$logs" -type f -name "$1.*" -exec cat {} + |
    awk '/^Suppressions used:/ { on = 1; next }
         on && $1 == "count" { next }
         on && $1 ~ /^[0-9]+$/ && $2 ~ /^[0-9]+$/ { n[$3] += $1; b[$3] += $2; next }
         { on = 0 }
         END { for (k in n) printf "  %s: %d leaks, %d bytes\n", k, n[k], b[k] }'
}

total_s=$((SECONDS - start))
echo "--- sanitizer lane summary"
echo "tests run with LeakSanitizer (pass 1), per label:"
sed -n '/^Label Time Summary:/,/^$/p' "$build_abs/sanitize-lane.log"
echo "sanitizer reports: $reports"
echo "leaks suppressed in pass 1 (tests/sanitizers/lsan.supp, C++ callers):"
echo "$(suppressed lane)" | sed 's/^$/  none/'
echo "leaks suppressed in pass 2 (tests/sanitizers/lsan_pocl_compile.supp, POCL's compiler):"
echo "$(suppressed attribution)" | sed 's/^$/  none/'
echo "run time: ${total_s} s (build ${build_s} s, pass 1 ${pass1_s} s, pass 2 ${pass2_s} s)"

lane_verdict "$reports" sanitizer "every test"
