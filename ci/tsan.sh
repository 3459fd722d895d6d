#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The ThreadSanitizer lane: builds the library, the CLI and the tests with
# -fsanitize=thread into build-tsan/ (or $CLG_TSAN_BUILD_DIR) and runs the
# ctest label device: device_threads (8 threads on one context: 2,048
# random calls over host memory, blocking device buffers and enqueue,
# deferred errors, per-thread messages, concurrent first builds),
# device_concurrent_create, and every other device test, the enqueue ones
# among them. Fails when a test fails or is skipped, or when any process
# wrote a ThreadSanitizer report. Prints the run time, the tests run, the
# reports (0) and the suppressions used. The tests run with
# CLG_TEST_QUICK=1: the long single-threaded ones (device_random,
# device_oob, device_layout, device_gather_nd, the guards) take fewer
# cases over the same paths, since their calls come one at a time; the
# threaded tests have no quick form and run whole.
#
#   ci/tsan.sh                       the whole lane
#   CLG_TSAN_CC=clang ci/tsan.sh     another compiler (default clang-14)
#
# Compiler: clang 14 (Debian 12's clang-14 with libclang-rt-14-dev;
# ci/install-deps.sh --tests installs them), as in ci/sanitize.sh. gcc 12's TSan
# works too.
#
# POCL is not instrumented: its own threads and its memory are invisible
# to ThreadSanitizer except through the pthread and libc calls TSan
# intercepts, which is where POCL synchronises. Measured with POCL 3.1
# (Debian 12, pthread device), the label runs with no report at all, so
# the lane uses no suppression. Should a POCL version need one, it goes in
# tests/sanitizers/tsan.supp (passed to TSan when that file exists), scoped
# to POCL's own code (called_from_lib:libpocl.so.2 or a race: entry naming
# one POCL function), each entry with the reason above it, and in
# docs/design.md, "Tests": never a pattern that matches a clgather
# frame (race:clg_ or a whole-library race:libclgather).
#
# A canary (tests/sanitizers/race_canary.c) races on purpose, with POCL
# loaded, under the same options; the lane fails unless that race is
# reported, so ThreadSanitizer is known to be on and the counting below
# known to see its reports.
#
# TSan options: reports go to files under <build>/tsan-logs/ (log_path),
# one per process, counted there; halt_on_error=0 so that one run lists
# every report; exitcode=66 (TSan's own), a status no test uses;
# second_deadlock_stack=1 for lock-order reports.
#
# POCL runs without work-group specialisation (sanitizer_pocl_env in
# ci/sanitizer_build.sh says why).
#
# Run time, measured on 2 shared cores with a warm POCL kernel cache
# (~/.cache/pocl; the lanes before this one in ci/test.sh fill it, though
# not with the unspecialised objects, which add a few seconds the first
# time): the build about 60 s, the device label about 165 s, most of it
# device_disk_cache (about 130 s, against about 10 s uninstrumented),
# device_threads about 17 s.
set -euo pipefail
cd "$(dirname "$0")/.."
src="$PWD"

start=$SECONDS
build_dir="${CLG_TSAN_BUILD_DIR:-build-tsan}"
jobs="$(nproc 2>/dev/null || getconf _NPROCESSORS_ONLN 2>/dev/null || echo 2)"

fail() {
  echo "ci/tsan.sh: $*" >&2
  exit 1
}

lane=tsan
# shellcheck source=ci/sanitizer_build.sh
. "$src/ci/sanitizer_build.sh"
sanitizer_build "${CLG_TSAN_CC:-}" "ThreadSanitizer" -fsanitize=thread

logs="$build_abs/tsan-logs"
supp="$src/tests/sanitizers/tsan.supp"
rm -rf "$logs"
mkdir -p "$logs"

# tsan_env <log prefix>: exports the ThreadSanitizer options.
tsan_env() {
  local opts="halt_on_error=0:exitcode=66:second_deadlock_stack=1"
  opts+=":log_path=$1"
  if [ -f "$supp" ]; then
    opts+=":suppressions=$supp:print_suppressions=1"
  fi
  if [ -n "$symbolizer" ]; then
    opts+=":external_symbolizer_path=$symbolizer"
  fi
  export TSAN_OPTIONS="$opts"
}

count_reports() {
  logs_of "$1" | { grep -c '^WARNING: ThreadSanitizer' || true; }
}

echo "--- race canary"
mkdir -p "$probe/canary-logs"
"$cc" "${c_flags[@]}" "$src/tests/sanitizers/race_canary.c" -o "$probe/race_canary" -lOpenCL -lpthread
canary_status=0
(
  tsan_env "$probe/canary-logs/canary"
  "$probe/race_canary" >/dev/null
) || canary_status=$?
canary_log="$(logs_of "$probe/canary-logs")"
[ "$canary_status" -ne 77 ] || fail "the canary found no OpenCL platform"
if [ "$canary_status" -ne 66 ] ||
  ! grep -q 'WARNING: ThreadSanitizer: data race' <<<"$canary_log" ||
  ! grep -q 'race_canary\.c' <<<"$canary_log"; then
  echo "$canary_log"
  fail "the canary's data race was not reported (exit $canary_status): ThreadSanitizer is off, or a suppression hides it"
fi
echo "ci/tsan.sh: the canary's data race was reported, as it must be"

echo "--- ctest -L device under ThreadSanitizer"
run_start=$SECONDS
log="$build_abs/tsan-device.log"
status=0
(
  tsan_env "$logs/tsan"
  export CLG_TEST_QUICK=1
  sanitizer_pocl_env
  ctest --test-dir "$build_dir" --output-on-failure --no-tests=error \
    --parallel "$jobs" -L '^device$'
) 2>&1 | tee "$log" || status=$?
run_s=$((SECONDS - run_start))

failures=()
why="$(ctest_failure "$log" "$status")"
[ -z "$why" ] || failures+=("$why")
grep -q 'device_threads .*Passed' "$log" || failures+=("device_threads did not run and pass")

reports="$(count_reports "$logs")"
if [ "$reports" -ne 0 ]; then
  echo "--- ThreadSanitizer reports"
  print_reports "$logs" '^WARNING: ThreadSanitizer'
fi
suppressed="$(logs_of "$logs" | sed -n '/^ThreadSanitizer: Matched [0-9]* suppressions/,/^$/p')"

total_s=$((SECONDS - start))
echo "--- ThreadSanitizer lane summary"
grep -E '^ *[0-9]+/[0-9]+ Test +#' "$log" | sed 's/^ */  /' || true
echo "ThreadSanitizer reports: $reports"
if [ -n "$suppressed" ]; then
  echo "suppressions used (tests/sanitizers/tsan.supp):"
  echo "$suppressed"
else
  echo "suppressions used: none"
fi
echo "run time: ${total_s} s (build ${build_s} s, tests ${run_s} s)"

lane_verdict "$reports" ThreadSanitizer "every device test"
