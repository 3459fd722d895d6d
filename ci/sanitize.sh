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
#  1. warm-up: the device, cli and conformance labels with ASan and
#     UBSan but without leak checking, on ASan's fast unwinder. It fills
#     POCL's disk cache of compiled kernels (~/.cache/pocl, or
#     POCL_CACHE_DIR). The fault label is left to pass 2: its kernels are
#     the device label's, and pass 2 runs it under the same checks.
#     Skipped with CLG_SANITIZE_WARMUP=0, for a run on a cache that
#     earlier runs have filled: ci/test.sh skips it, after its own runs
#     of every label.
#  2. the lane: all five labels with LeakSanitizer on, which needs whole
#     allocation stacks (fast_unwind_on_malloc=0) to apply its suppressions
#     (tests/sanitizers/lsan.supp says why). The slow unwinder makes POCL's
#     in-process LLVM work about 5 times slower: on a cold cache this pass
#     alone took 22 minutes and timed out device_random. device_fault's
#     injection runs (a context and a program build each) are the longest
#     part; they run as four tests, device_fault_0 to _3, one per core.
# Measured on 2 shared cores, after the main ctest run filled POCL's cache:
# pass 1 takes about 2 minutes, pass 2 about 8 (device_fault's parts about
# 3 each); with a cold cache pass 1 compiles every kernel variant.
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
# OpenCL buffer under pass 2's options and suppressions; the lane fails
# unless that leak is reported, so LeakSanitizer is known to be on and the
# suppressions known not to hide an OpenCL object left unreleased.
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
supp="$src/tests/sanitizers/lsan.supp"
rm -rf "$logs"
mkdir -p "$logs"

# sanitizer_env <log prefix> <leaks: 0 or 1>: exports the sanitizer
# options. ASan and UBSan share one log_path (their common flags are one
# set; the last one parsed would win).
sanitizer_env() {
  local log="$1" leaks="$2"
  local asan="halt_on_error=1:abort_on_error=0:print_stacktrace=1"
  asan+=":detect_stack_use_after_return=1:strict_string_checks=1"
  asan+=":allocator_may_return_null=1:use_sigaltstack=0"
  asan+=":exitcode=86:log_path=$log"
  if [ "$leaks" = 1 ]; then
    asan+=":detect_leaks=1:fast_unwind_on_malloc=0"
  else
    asan+=":detect_leaks=0"
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

# run_pass <name> <leaks: 0 or 1> <label regex>: runs ctest under the
# sanitizers, its output in $build_abs/sanitize-<name>.log; fails the lane
# (after the summary) when a test fails or is skipped.
failures=()
run_pass() {
  local name="$1" leaks="$2" labels="$3" status=0
  local log="$build_abs/sanitize-$name.log"
  (
    sanitizer_env "$logs/$name" "$leaks"
    ctest --test-dir "$build_dir" --output-on-failure --no-tests=error \
      --parallel "$jobs" -L "$labels" -LE '^large$'
  ) 2>&1 | tee "$log" || status=$?
  local why
  why="$(ctest_failure "$log" "$status")"
  [ -z "$why" ] || failures+=("$name: $why")
}

echo "--- leak canary"
mkdir -p "$probe/canary-logs"
"$cc" "${c_flags[@]}" "$src/tests/sanitizers/leak_canary.c" -o "$probe/leak_canary" -lOpenCL
canary_status=0
(
  sanitizer_env "$probe/canary-logs/canary" 1
  "$probe/leak_canary"
) || canary_status=$?
canary_log="$(logs_of "$probe/canary-logs")"
[ "$canary_status" -ne 77 ] || fail "the canary found no OpenCL device"
if [ "$canary_status" -ne 86 ] ||
  ! grep -q 'ERROR: LeakSanitizer: detected memory leaks' <<<"$canary_log" ||
  ! grep -q 'in make_buffer .*leak_canary\.c' <<<"$canary_log"; then
  echo "$canary_log"
  fail "the canary's leaked cl_mem was not reported (exit $canary_status): LeakSanitizer is off, or a suppression hides OpenCL objects"
fi
echo "ci/sanitize.sh: the canary's leaked cl_mem was reported, as it must be"

if [ "${CLG_SANITIZE_WARMUP:-1}" != 0 ]; then
  echo "--- pass 1: ctest -L 'device|cli|conformance', ASan+UBSan, no leak check (fills POCL's kernel cache)"
  pass1_start=$SECONDS
  run_pass warmup 0 '^(device|cli|conformance)$'
  warmup_s=$((SECONDS - pass1_start))
  echo "ci/sanitize.sh: pass 1 took ${warmup_s} s"
fi
echo "--- pass 2: ctest -L 'unit|device|fault|cli|conformance', ASan+UBSan+LSan"
pass2_start=$SECONDS
run_pass lane 1 '^(unit|device|fault|cli|conformance)$'
pass2_s=$((SECONDS - pass2_start))

reports="$(count_reports "$logs")"
if [ "$reports" -ne 0 ]; then
  echo "--- sanitizer reports"
  print_reports "$logs" '^SUMMARY: '
fi
# What LeakSanitizer suppressed, summed over every process.
suppressed="$(logs_of "$logs" |
  awk '/^Suppressions used:/ { on = 1; next }
       on && $1 == "count" { next }
       on && $1 ~ /^[0-9]+$/ && $2 ~ /^[0-9]+$/ { n[$3] += $1; b[$3] += $2; next }
       { on = 0 }
       END { for (k in n) printf "  %s: %d leaks, %d bytes\n", k, n[k], b[k] }')"

total_s=$((SECONDS - start))
echo "--- sanitizer lane summary"
echo "tests run with LeakSanitizer (pass 2), per label:"
sed -n '/^Label Time Summary:/,/^$/p' "$build_abs/sanitize-lane.log"
echo "sanitizer reports: $reports"
if [ -n "$suppressed" ]; then
  echo "leaks suppressed (POCL/LLVM, tests/sanitizers/lsan.supp):"
  echo "$suppressed"
else
  echo "leaks suppressed: none"
fi
echo "run time: ${total_s} s (build ${build_s} s, pass 1 ${warmup_s:-skipped}${warmup_s:+ s}, pass 2 ${pass2_s} s)"

lane_verdict "$reports" sanitizer "every test"
