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
#      guard test to one element size and two index patterns per shape.
#   3. clgather onnx-test over the ONNX node tests of Gather and
#      GatherElements (test_gather*, not GatherND), on both plans.
#   4. every __kernel in kernels/*.cl must have run at least once (the
#      names of the kernels Oclgrind ran, from --inst-counts); the lane
#      fails when an entry point is added that it does not reach.
#
# Left out, and why (docs/design.md, "Tests"):
#  - device_threads and device_concurrent_create: Oclgrind 21.10's runtime
#    is not safe to call from several threads (device_threads dies with
#    exit 255 at its first concurrent calls; device_concurrent_create's
#    eight contexts return zeros). ci/tsan.sh covers clgather's threads.
#  - the uninitialised-value check on device_guard, which runs with
#    --check-api --data-races only: Oclgrind 21.10 marks the contents of a
#    CL_MEM_USE_HOST_PTR buffer uninitialised (a kernel reading one written
#    by the host is reported), and the guard test's device-buffer path
#    makes exactly such buffers. clgather itself makes none on Oclgrind
#    (it does not share host memory).
#  - expected reports, counted apart (the lane prints them):
#    a. device_enqueue fails a user event on purpose (status -1234) and
#       checks that clg_context_finish reports it, which makes
#       clWaitForEvents return CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST;
#       Oclgrind's API check reports that return. The lane fails unless
#       each pass over device_enqueue gives exactly one.
#    b. device_enqueue's context made over an out-of-order queue: its
#       GatherElements, which waits on the event of the Gather that wrote
#       its data, is reported reading one uninitialised element of that
#       data (two reports), though its results are bit-exact; a program
#       making the same calls alone gets no report, and the cause is not
#       known (docs/design.md, "Implementations"). Only reports of
#       uninitialised values in clg_gather_elements from device_enqueue
#       are counted here; the lane prints them.
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

# reports <log>: Oclgrind's reports in a log, "<counted> <expected a>
# <expected b>" (see above). Each
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
        if ($0 == "\tKernel: clg_gather_elements" && title[p] ~ /^Uninitialized value written/ && name[p] == "device_enqueue") kind[p] = "b"
        if ($0 == "") { count(p); delete blk[p] }
      }
      prev[p] = $0
    }
    function count(q) { if (kind[q] == "a") a++; else if (kind[q] == "b") b++; else n++ }
    END { for (q in blk) count(q); printf "%d %d %d\n", n + 0, a + 0, b + 0 }' "$1"
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
total_ooo=0
note() { echo "ci/oclgrind.sh: $*"; }

# --- 1. the canary
echo "--- canary"
cc="$(command -v cc || command -v gcc || command -v clang)"
"$cc" -std=c11 -O1 -o "$logs/canary" "$src/tests/oclgrind/canary.c" -lOpenCL
oclgrind "${checks[@]}" "$logs/canary" >"$logs/canary.log" 2>&1 ||
  fail "the canary failed under Oclgrind (see $logs/canary.log)"
read -r canary_reports _ _ < <(reports "$logs/canary.log")
for want in '^Invalid read of size' 'data race at global memory' \
  '^Uninitialized value' '^Oclgrind - OpenCL runtime error detected'; do
  grep -Eq "$want" "$logs/canary.log" ||
    fail "the canary's fault /$want/ was not reported: an Oclgrind check is off (see $logs/canary.log)"
done
[ "$canary_reports" -ge 4 ] ||
  fail "the canary made 4 kinds of fault, but only $canary_reports report(s) were counted"
note "the canary's $canary_reports reports (invalid read, data race, uninitialised value, API misuse) were all seen"

# --- 2. the device tests
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
  oclgrind "${opts[@]}" --inst-counts ctest --test-dir "$build_dir" -V \
    --no-tests=error --parallel "$jobs" "$@" >"$log" 2>&1 || status=$?
  grep -E '^ *[0-9]+/[0-9]+ Test +#|tests passed' "$log" || true
  local why
  why="$(ctest_failure "$log" "$status")"
  if [ -n "$why" ]; then
    grep -E '^[0-9]+: ' "$log" | grep -Ev '\[ +(RUN|OK) +\]|^[0-9]+: +[0-9]+ - |Instructions executed' |
      tail -n 60 || true
    failures+=("$name: $why (see $log)")
  fi
  local r e o
  read -r r e o < <(reports "$log")
  total_reports=$((total_reports + r))
  total_expected=$((total_expected + e))
  total_ooo=$((total_ooo + o))
  note "$name: $((SECONDS - t0)) s, $r report(s), $((e + o)) expected"
}

device_tests=(-L '^device$' -E '^device_(threads|concurrent_create|guard)$')
for plan in device cpu; do
  export CLGATHER_TEST_PLAN="$plan"
  echo "--- ctest -L device under Oclgrind, CLGATHER_TEST_PLAN=$plan"
  run_pass "device-$plan" "${checks[@]}" -- "${device_tests[@]}"
  run_pass "guard-$plan" --check-api --data-races -- -R '^device_guard$'
done

# --- 3. the ONNX node tests
node_dirs=()
for d in "$nodes"/test_gather*; do
  case "$d" in *gathernd*) ;; *) node_dirs+=("$d") ;; esac
done
[ "${#node_dirs[@]}" -gt 0 ] ||
  fail "no ONNX node tests under $nodes (Debian package libonnx-testdata)"
node_pass=0
for plan in device cpu; do
  echo "--- clgather onnx-test under Oclgrind, CLGATHER_TEST_PLAN=$plan"
  export CLGATHER_TEST_PLAN="$plan"
  log="$logs/onnx-$plan.log"
  status=0
  oclgrind "${checks[@]}" --inst-counts "$build_dir/cli/clgather" onnx-test \
    "${node_dirs[@]}" >"$log" 2>&1 || status=$?
  grep -E '^(PASS|FAIL|ERROR) ' "$log" || true
  passed="$(grep -c '^PASS ' "$log" || true)"
  if [ "$status" -ne 0 ] || [ "$passed" -eq 0 ] || grep -Eq '^(FAIL|ERROR) ' "$log"; then
    failures+=("onnx-$plan: clgather onnx-test exit $status, $passed passed (see $log)")
  fi
  node_pass=$passed
  read -r r e o < <(reports "$log")
  total_reports=$((total_reports + r + e + o))
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

# device_enqueue's failed user event: one report on each plan (the
# finish's wait; Oclgrind gives the failed command a negative status).
expected_want=2
if [ "$total_expected" -ne "$expected_want" ]; then
  failures+=("$total_expected report(s) of device_enqueue's failed user event, expected $expected_want")
fi

echo "--- Oclgrind lane summary"
echo "Oclgrind: $(oclgrind --version 2>&1 | grep -m1 -o 'Oclgrind [0-9.]*')"
echo "kernel launches: $launches, work-items: $items"
echo "entry points run: $ran of $declared in kernels/*.cl"
echo "ONNX node tests: $node_pass data sets passed on each plan"
echo "reports: $total_reports; expected: $total_expected of device_enqueue's failed user event, $total_ooo of its context over an out-of-order queue"
if [ "$total_ooo" -ne 0 ]; then
  { grep -h -A5 'Uninitialized value written' "$logs"/device-*.log || true; } |
    head -n 14 || true
fi
echo "run time: $((SECONDS - start)) s"
lane_verdict "$total_reports" Oclgrind "the device tests and the ONNX node tests"
