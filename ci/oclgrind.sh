#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The Oclgrind lane: clgather's kernels run work-item by work-item in
# Oclgrind's simulator (Debian's oclgrind 21.10, installed by
# ci/install-deps.sh) with its checks on: --check-api (every OpenCL call),
# --data-races, --uninitialized, and always its bounds check of every
# access inside and outside a buffer. Fails on a test failure and on any
# Oclgrind report, not only when a test notices.
#
#   1. canary: tests/oclgrind/canary.c makes one fault of each kind; the
#      lane fails unless each is reported and counted, so the checks are
#      known to be on and the counting known to see them.
#   2. ctest -L device under Oclgrind, twice: on the device's own plan
#      (Oclgrind is a GPU-like device: the GPU plan, what
#      CLGATHER_TEST_PLAN=gpu gives elsewhere) and with
#      CLGATHER_TEST_PLAN=cpu (the CPU-only kernels: the lean, packed and
#      trusted bodies, the normalising pass). CLG_TEST_QUICK=1 cuts the
#      guard test to one element size and two index patterns per shape,
#      and GatherND's per-tuple test to whole tensors (its pieces of 1 KiB
#      made 57,000 launches).
#   3. clgather onnx-test over the ONNX node tests of Gather,
#      GatherElements and GatherND (test_gather*: 10 data sets), on both
#      plans.
#   4. every __kernel in kernels/*.cl must have run at least once (the
#      names of the kernels Oclgrind ran, from --inst-counts); the lane
#      fails when an entry point is added that it does not reach.
#
# Left out, and why (docs/design.md, "Tests"):
#  - device_threads, device_concurrent_create and device_disk_cache:
#    Oclgrind 21.10's runtime is not safe to call from several threads
#    (device_threads dies with exit 255 at its first concurrent calls, and
#    device_own_errors runs two threads at once on one context as well;
#    device_concurrent_create's eight contexts return zeros; the disk
#    cache's two processes of eight threads, each with its own context,
#    see failed calls), and the disk cache test hands the runtime a binary
#    it rejects on purpose (an API report). ci/tsan.sh covers clgather's
#    threads; the disk cache's kernels are those of the other tests.
#  - device_fork, whose child would run Oclgrind's simulator after fork
#    (a fork test of the wrapper, not of clgather's kernels).
#  - device_quiet, which fails on any output during first calls: the
#    lane's --inst-counts writes each kernel's counts to stderr (its
#    kernels are those of the other tests).
#  - the uninitialised-value check on device_guard (its eight parts,
#    device_guard_gather, _elements, ... _split_elements, _nd), which runs with
#    --check-api --data-races only: Oclgrind 21.10 marks the contents of a
#    CL_MEM_USE_HOST_PTR buffer uninitialised (a kernel reading one written
#    by the host is reported), and the guard test's device-buffer path
#    makes exactly such buffers. clgather itself makes none on Oclgrind
#    (it does not share host memory).
#  - expected reports, counted apart (the lane prints them): device_enqueue
#    fails a user event on purpose (status -1234) and checks that
#    clg_context_finish reports it; the finish's wait over all its
#    commands, then its wait on the failed one alone, return
#    CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST, and Oclgrind's API check
#    reports each. The lane fails unless each pass over device_enqueue
#    gives exactly two.
#
# Every run under Oclgrind preloads tests/oclgrind/keep_buffers.c, whose
# last clReleaseMemObject of a buffer keeps it: Oclgrind 21.10's uninitialised
# check gives a released buffer's shadow memory to the next buffer that
# reuses its id, and reports reads of values a kernel did write
# (docs/design.md, "Implementations"). tests/oclgrind/reused_id.c shows
# it: the lane fails unless it is reported without the preload (so the
# workaround is dropped once Oclgrind is fixed) and not with it.
#
# Prints the counts: kernels launched, work-items (from the instruction
# counts: one kernel return per work-item, less the returns of the
# functions it called), distinct entry points, reports; and the run time.
# Uses the build in $CLG_BUILD_DIR (default build/).
set -euo pipefail
cd "$(dirname "$0")/.."
src="$PWD"

start=$SECONDS
lane=oclgrind
build_dir="${CLG_BUILD_DIR:-build}"
jobs="$(nproc 2>/dev/null || getconf _NPROCESSORS_ONLN 2>/dev/null || echo 2)"
checks=(--check-api --data-races --uninitialized)
nodes=/usr/share/libonnx-testdata/data/node

fail() {
  echo "ci/oclgrind.sh: $*" >&2
  exit 1
}

# ctest_failure and lane_verdict (functions only; nothing runs).
# shellcheck source=ci/sanitizer_build.sh
. "$src/ci/sanitizer_build.sh"

command -v oclgrind >/dev/null 2>&1 ||
  fail "oclgrind is missing (Debian package oclgrind; ci/install-deps.sh installs it)"
[ -x "$build_dir/cli/clgather" ] || bash ci/build.sh
unset CLGATHER_DEVICE CLGATHER_TEST_PLAN CLGATHER_PARAMS CLGATHER_MAX_ALLOC \
  CLGATHER_VALIDATE OCL_ICD_VENDORS
export CLG_TEST_QUICK=1

logs="$build_dir/oclgrind-logs"
rm -rf "$logs"
mkdir -p "$logs"

# reports <log>: Oclgrind's reports in a log, "<counted> <expected>" (see
# above). Each
# report is a block: a title line, then lines starting with a tab (one
# "\tKernel: " for kernel reports, one "\tFunction: " for API reports), up
# to an empty line; a fatal error starts "OCLGRIND FATAL ERROR". ctest -V
# prefixes each line with "<test number>: ", so blocks are kept per prefix.
reports() {
  awk '{
      p = ""
      if (match($0, /^[0-9]+: /)) { p = substr($0, 1, RLENGTH); $0 = substr($0, RLENGTH + 1) }
      if ($0 ~ /^Test command: /) { name[p] = $NF; sub(/.*\//, "", name[p]) }
      if ($0 ~ /^\t(Kernel|Function): / || $0 ~ /^OCLGRIND FATAL ERROR/) {
        if (!(p in blk)) { blk[p] = 1; kind[p] = ""; title[p] = prev[p] }
      }
      if (p in blk) {
        if (index($0, "terminated with error -1234")) kind[p] = "a"
        if ($0 == "") { count(p); delete blk[p] }
      }
      prev[p] = $0
    }
    function count(q) { if (kind[q] == "a") a++; else n++ }
    END { for (q in blk) count(q); printf "%d %d\n", n + 0, a + 0 }' "$1"
}

# kernel_stats <log>...: from --inst-counts, "<launches> <work-items>" and
# the names of the kernels run into $logs/kernels-run.txt.
kernel_stats() {
  awk '{ sub(/^[0-9]+: /, "") }
    /^Instructions executed for kernel / {
      launches++; k = $0; sub(/^[^'\'']*'\''/, "", k); sub(/'\''.*/, "", k); seen[k] = 1; on = 1; next }
    on && /^ +[0-9]+ - ret$/ { items += $1; next }
    on && /^ +[0-9]+ - call / {
      f = $4; if (f !~ /^_Z/ && f !~ /^llvm\./) items -= $1; next }
    on && !/^ +[0-9]+ - / { on = 0 }
    END {
      for (k in seen) print k > "'"$logs"'/kernels-run.txt"
      printf "%d %d\n", launches + 0, items + 0 }' "$@"
}

failures=()
total_reports=0
total_expected=0
note() { echo "ci/oclgrind.sh: $*"; }

# --- 1. the canary
echo "--- canary"
cc="$(command -v cc || command -v gcc || command -v clang)"
"$cc" -std=c11 -O1 -o "$logs/canary" "$src/tests/oclgrind/canary.c" -lOpenCL
"$cc" -std=c11 -O1 -o "$logs/reused_id" "$src/tests/oclgrind/reused_id.c" -lOpenCL
"$cc" -std=c11 -O1 -shared -fPIC -o "$logs/libkeep_buffers.so" \
  "$src/tests/oclgrind/keep_buffers.c" -ldl -lpthread
# keep <command...>: the command with keep_buffers.c preloaded ahead of
# Oclgrind's runtime (which oclgrind puts first in LD_PRELOAD).
# shellcheck disable=SC2016 # expanded by that sh
keep=(sh -c 'LD_PRELOAD="$0:$LD_PRELOAD" exec "$@"' "$(cd "$logs" && pwd)/libkeep_buffers.so")
oclgrind "${checks[@]}" "${keep[@]}" "$logs/canary" >"$logs/canary.log" 2>&1 ||
  fail "the canary failed under Oclgrind (see $logs/canary.log)"
read -r canary_reports _ < <(reports "$logs/canary.log")
for want in '^Invalid read of size' 'data race at global memory' \
  '^Uninitialized value' '^Oclgrind - OpenCL runtime error detected'; do
  grep -Eq "$want" "$logs/canary.log" ||
    fail "the canary's fault /$want/ was not reported: an Oclgrind check is off (see $logs/canary.log)"
done
[ "$canary_reports" -ge 4 ] ||
  fail "the canary made 4 kinds of fault, but only $canary_reports report(s) were counted"
note "the canary's $canary_reports reports (invalid read, data race, uninitialised value, API misuse) were all seen"
oclgrind "${checks[@]}" "$logs/reused_id" >"$logs/reused_id.log" 2>&1 ||
  fail "reused_id failed under Oclgrind (see $logs/reused_id.log)"
read -r reused_plain _ < <(reports "$logs/reused_id.log")
oclgrind "${checks[@]}" "${keep[@]}" "$logs/reused_id" >"$logs/reused_id-kept.log" 2>&1 ||
  fail "reused_id failed under Oclgrind with keep_buffers.so (see $logs/reused_id-kept.log)"
read -r reused_kept _ < <(reports "$logs/reused_id-kept.log")
[ "$reused_plain" -gt 0 ] ||
  fail "Oclgrind no longer reports reused_id's reused buffer id: drop keep_buffers.c from this lane (see $logs/reused_id.log)"
[ "$reused_kept" -eq 0 ] ||
  fail "reused_id under keep_buffers.so gave $reused_kept report(s), expected none (see $logs/reused_id-kept.log)"
note "a reused buffer id: $reused_plain false report(s) from Oclgrind alone, none with keep_buffers.so"

# --- 2. the device tests
# ctest -j starts the tests with the longest recorded times first, and the
# build tree's record of them (Testing/Temporary/CTestCostData.txt) holds
# other devices' lanes' times: each pass starts from the tests' own COSTs
# (cmake/ClgTest.cmake) instead, and the record is put back after.
cost_record="$build_dir/Testing/Temporary/CTestCostData.txt"
saved_record="$logs/CTestCostData.txt"
rm -f "$saved_record"
[ ! -f "$cost_record" ] || mv "$cost_record" "$saved_record"

# run_pass <name> <oclgrind options...> -- <ctest args...>
run_pass() {
  local name="$1" status=0 opts=()
  shift
  while [ "$1" != -- ]; do
    opts+=("$1")
    shift
  done
  shift
  local log="$logs/$name.log"
  local t0=$SECONDS
  rm -f "$cost_record"
  oclgrind "${opts[@]}" --inst-counts "${keep[@]}" ctest --test-dir "$build_dir" -V \
    --no-tests=error --parallel "$jobs" "$@" >"$log" 2>&1 || status=$?
  grep -E '^ *[0-9]+/[0-9]+ Test +#|tests passed' "$log" || true
  local why
  why="$(ctest_failure "$log" "$status")"
  if [ -n "$why" ]; then
    grep -E '^[0-9]+: ' "$log" | grep -Ev '\[ +(RUN|OK) +\]|^[0-9]+: +[0-9]+ - |Instructions executed' |
      tail -n 60 || true
    failures+=("$name: $why (see $log)")
  fi
  local r e
  read -r r e < <(reports "$log")
  total_reports=$((total_reports + r))
  total_expected=$((total_expected + e))
  note "$name: $((SECONDS - t0)) s, $r report(s), $e expected"
}

device_tests=(-L '^device$' -E '^device_(threads|concurrent_create|disk_cache|own_errors|fork|quiet|guard_[a-z0-9_]+)$')
for plan in device cpu; do
  export CLGATHER_TEST_PLAN="$plan"
  echo "--- ctest -L device under Oclgrind, CLGATHER_TEST_PLAN=$plan"
  run_pass "device-$plan" "${checks[@]}" -- "${device_tests[@]}"
  run_pass "guard-$plan" --check-api --data-races -- -R '^device_guard_[a-z0-9_]+$'
done

rm -f "$cost_record"
[ ! -f "$saved_record" ] || mv "$saved_record" "$cost_record"

# --- 3. the ONNX node tests
node_dirs=("$nodes"/test_gather*)
[ -d "${node_dirs[0]}" ] ||
  fail "no ONNX node tests under $nodes (Debian package libonnx-testdata)"
node_pass=0
for plan in device cpu; do
  echo "--- clgather onnx-test under Oclgrind, CLGATHER_TEST_PLAN=$plan"
  export CLGATHER_TEST_PLAN="$plan"
  log="$logs/onnx-$plan.log"
  status=0
  oclgrind "${checks[@]}" --inst-counts "${keep[@]}" "$build_dir/cli/clgather" onnx-test \
    "${node_dirs[@]}" >"$log" 2>&1 || status=$?
  grep -E '^(PASS|FAIL|ERROR) ' "$log" || true
  passed="$(grep -c '^PASS ' "$log" || true)"
  if [ "$status" -ne 0 ] || [ "$passed" -eq 0 ] || grep -Eq '^(FAIL|ERROR) ' "$log"; then
    failures+=("onnx-$plan: clgather onnx-test exit $status, $passed passed (see $log)")
  fi
  node_pass=$passed
  read -r r e < <(reports "$log")
  total_reports=$((total_reports + r + e))
  note "onnx-$plan: $passed data sets passed, $r report(s)"
done
unset CLGATHER_TEST_PLAN

# --- 4. every entry point ran
read -r launches items < <(kernel_stats "$logs"/device-*.log "$logs"/guard-*.log "$logs"/onnx-*.log)
sort -u -o "$logs/kernels-run.txt" "$logs/kernels-run.txt"
grep -ho '__kernel void [A-Za-z_0-9]*' kernels/*.cl | awk '{ print $3 }' |
  sort -u >"$logs/kernels-declared.txt"
missed="$(comm -23 "$logs/kernels-declared.txt" "$logs/kernels-run.txt")"
declared="$(wc -l <"$logs/kernels-declared.txt")"
ran="$(comm -12 "$logs/kernels-declared.txt" "$logs/kernels-run.txt" | wc -l)"
if [ -n "$missed" ]; then
  failures+=("entry points that never ran under Oclgrind: $(echo $missed)")
fi

# device_enqueue's failed user event: two reports on each plan (the
# finish's wait over all its commands, then on the failed one alone;
# Oclgrind gives the failed command a negative status).
expected_want=4
if [ "$total_expected" -ne "$expected_want" ]; then
  failures+=("$total_expected report(s) of device_enqueue's failed user event, expected $expected_want")
fi

echo "--- Oclgrind lane summary"
echo "Oclgrind: $(oclgrind --version 2>&1 | grep -m1 -o 'Oclgrind [0-9.]*')"
echo "kernel launches: $launches, work-items: $items"
echo "entry points run: $ran of $declared in kernels/*.cl"
echo "ONNX node tests: $node_pass data sets passed on each plan"
echo "reports: $total_reports; expected: $total_expected of device_enqueue's failed user event"
echo "run time: $((SECONDS - start)) s"
lane_verdict "$total_reports" Oclgrind "the device tests and the ONNX node tests"
