#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The fuzzing lane: builds the libFuzzer targets of tests/fuzz/ with clang-14
# (ASan + UBSan, -fno-sanitize-recover=all; CLGATHER_BUILD_FUZZERS), replays
# every regression input of tests/fuzz/regressions/<target>/, then fuzzes
# each target from its seeds (tests/fuzz/corpus/<target>/) for a fixed time,
# as many targets at a time as there are cores. Fails on any crash, sanitizer report, failed harness
# check, leak, timeout (an input running over 10 s) or allocation over the
# limits (one allocation above 512 MiB, RSS above 1 GiB, or a reader's
# single allocation above its bound for the input: tests/fuzz/README.md).
#
#   ci/fuzz.sh [target...]    targets: npy tensor model gather (default all)
#
# Environment:
#   FUZZ_SECONDS        seconds per target (default 60)
#   FUZZ_CC             the compiler (default clang-14; Debian packages
#                       clang-14 and libclang-rt-14-dev, in ci/install-deps.sh --tests)
#   CLG_FUZZ_BUILD_DIR  build folder (default build-fuzz)
#   FUZZ_OUT            logs and crash inputs (default <build folder>/fuzz-out)
#
# New inputs found while fuzzing go to a scratch corpus under FUZZ_OUT, never
# into the repository. A crash input is kept in FUZZ_OUT and shown as a hex
# dump; to keep it as a regression, copy it to tests/fuzz/regressions/<target>/.
set -euo pipefail
cd "$(dirname "$0")/.."

all_targets=(npy tensor model gather)
seconds="${FUZZ_SECONDS:-60}"
cc="${FUZZ_CC:-clang-14}"
build_dir="${CLG_FUZZ_BUILD_DIR:-build-fuzz}"
out="${FUZZ_OUT:-$build_dir/fuzz-out}"
jobs="$(nproc 2>/dev/null || getconf _NPROCESSORS_ONLN 2>/dev/null || echo 2)"

case "${1:-}" in
  -h | --help)
    sed -n '3,26s/^# \{0,1\}//p' "$0"
    exit 0
    ;;
esac
targets=("$@")
[ "${#targets[@]}" -gt 0 ] || targets=("${all_targets[@]}")
for t in "${targets[@]}"; do
  case " ${all_targets[*]} " in
    *" $t "*) ;;
    *)
      echo "ci/fuzz.sh: unknown target '$t' (targets: ${all_targets[*]})" >&2
      exit 2
      ;;
  esac
done
if ! [[ "$seconds" =~ ^[1-9][0-9]*$ ]]; then
  echo "ci/fuzz.sh: FUZZ_SECONDS must be a positive number of seconds" >&2
  exit 2
fi
if ! command -v "$cc" >/dev/null 2>&1; then
  echo "ci/fuzz.sh: $cc not found; install the Debian packages clang-14 and" \
    "libclang-rt-14-dev (ci/install-deps.sh --tests)" >&2
  exit 1
fi

lane_start=$SECONDS
echo "--- fuzz: build ($cc, $build_dir)"
cmake -S . -B "$build_dir" -DCMAKE_C_COMPILER="$cc" \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCLGATHER_BUILD_FUZZERS=ON \
  -DCLGATHER_BUILD_CLI=ON -DCLGATHER_BUILD_TESTS=OFF -DCLGATHER_WERROR=ON \
  -DCLGATHER_BUILD_MAN=OFF
cmake --build "$build_dir" --target fuzzers --parallel "$jobs"

# Sanitizer settings for every run: leaks are failures, an allocation that
# fails is a report (not NULL), UBSan prints its stack.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=1:allocator_may_return_null=0"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:+$UBSAN_OPTIONS:}print_stacktrace=1:halt_on_error=1"
limits=(-malloc_limit_mb=512 -rss_limit_mb=1024 -timeout=10)

rm -rf "$out"
mkdir -p "$out"
failures=()

fuzzer() {
  echo "$build_dir/tests/fuzz/clg_fuzz_$1"
}

# Dictionary of a target, when it has one.
dict_args() {
  case "$1" in
    npy) echo "-dict=tests/fuzz/npy.dict" ;;
    tensor | model) echo "-dict=tests/fuzz/model.dict" ;;
  esac
}

# Longest input of a target: 4 KiB, and 64 KiB for models, so that the
# seed nesting 3,000 subgraphs (30 KB, about 9,000 levels) is fuzzed whole
# and mutations can nest far past the readers' limit of 100 levels.
max_len() {
  case "$1" in
    model) echo 65536 ;;
    *) echo 4096 ;;
  esac
}

# Shows a failing input: where it is, its bytes, and the log's report
# (never fails: a pipe cut short by head is no error here).
show_failure() {
  local log="$1" input="$2"
  echo "    log: $log"
  { grep -E '^(==[0-9]+==|==fuzz==|SUMMARY|    #[0-9]+ |.*runtime error)' \
    "$log" || tail -n 20 "$log"; } | head -n 40 | sed 's/^/    /' || true
  if [ -n "$input" ] && [ -f "$input" ]; then
    echo "    input: $input ($(wc -c <"$input") bytes)"
    od -An -tx1 -v "$input" | head -n 16 | sed 's/^/     /' || true
  fi
}

# Every regression input must now run clean.
echo "--- fuzz: regression inputs"
for t in "${targets[@]}"; do
  dir="tests/fuzz/regressions/$t"
  [ -d "$dir" ] || continue
  for input in "$dir"/*; do
    [ -f "$input" ] || continue
    case "$input" in *.md) continue ;; esac
    log="$out/regression-$t-$(basename "$input").log"
    if "$(fuzzer "$t")" "${limits[@]}" "$input" >"$log" 2>&1; then
      echo "  ok      $input"
    else
      echo "  FAILED  $input"
      show_failure "$log" "$input"
      failures+=("regression $input")
    fi
  done
done

# fuzz_target <target>: fuzzes one target from a scratch copy of its
# seeds; writes its summary line to $out/summary-<target> and, when it
# failed, its crash input's path (or nothing) to $out/failed-<target>.
# Runs in the background, beside the others: it never fails itself.
fuzz_target() {
  local t="$1" scratch="$out/corpus-$1" log="$out/fuzz-$1.log"
  local start=$SECONDS status=0 execs final cov ft corp crash result
  mkdir -p "$scratch" "$out/crashes"
  # shellcheck disable=SC2046 # dict_args prints zero or one word
  timeout "$((seconds + 300))" "$(fuzzer "$t")" "${limits[@]}" \
    $(dict_args "$t") -max_len="$(max_len "$t")" -use_value_profile=1 \
    -max_total_time="$seconds" -print_final_stats=1 \
    -artifact_prefix="$out/crashes/$t-" \
    "$scratch" "tests/fuzz/corpus/$t" >"$log" 2>&1 || status=$?
  # The last status line (DONE after a clean run) has cov: and ft:; a run
  # that failed on a seed has none.
  execs="$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)"
  final="$(grep -E '^#[0-9]+[[:space:]]+(DONE|pulse|NEW|REDUCE|INITED)' \
    "$log" | tail -n 1 || true)"
  cov="$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<<"$final")"
  ft="$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<<"$final")"
  corp="$(sed -n 's/.* corp: \([0-9]*\).*/\1/p' <<<"$final")"
  # crash-, leak-, timeout- and oom- inputs (not slow-unit- ones).
  crash="$(find "$out/crashes" -maxdepth 1 -type f \( -name "$t-crash-*" \
    -o -name "$t-leak-*" -o -name "$t-timeout-*" -o -name "$t-oom-*" \) |
    head -n 1 || true)"
  if [ "$status" -eq 0 ] && [ -z "$crash" ]; then
    result="ok"
  else
    result="FAILED (exit $status)"
    echo "$crash" >"$out/failed-$t"
  fi
  printf '%-7s %-18s execs %-10s cov %-6s ft %-6s corpus %-5s %ss\n' \
    "$t" "$result" "${execs:-?}" "${cov:-?}" "${ft:-?}" "${corp:-?}" \
    "$((SECONDS - start))" >"$out/summary-$t"
}

# As many targets at a time as there are cores (each is one process), so
# that each still has a core of its own for its fixed time; then their
# results, in the targets' order.
echo "--- fuzz: ${#targets[@]} targets, ${seconds}s each, $jobs at a time"
running=0
for t in "${targets[@]}"; do
  if [ "$running" -ge "$jobs" ]; then
    wait -n
    running=$((running - 1))
  fi
  fuzz_target "$t" &
  running=$((running + 1))
done
wait
summary=()
for t in "${targets[@]}"; do
  line="$(cat "$out/summary-$t")"
  echo "  $line"
  if [ -f "$out/failed-$t" ]; then
    show_failure "$out/fuzz-$t.log" "$(cat "$out/failed-$t")"
    failures+=("fuzz $t")
  fi
  summary+=("$line")
done

echo "--- fuzz: summary"
printf '  %s\n' "${summary[@]}"
echo "  lane time: $((SECONDS - lane_start))s (build, regressions, ${#targets[@]} x ${seconds}s)"
if [ "${#failures[@]}" -gt 0 ]; then
  echo "ci/fuzz.sh: ${#failures[@]} failure(s):" >&2
  printf '  %s\n' "${failures[@]}" >&2
  echo "keep each new crash input as tests/fuzz/regressions/<target>/<name> (README there)" >&2
  exit 1
fi
echo "ci/fuzz.sh: every regression input ran clean and no target failed"
