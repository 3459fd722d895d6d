# SPDX-License-Identifier: Apache-2.0
# shellcheck shell=bash
# Functions shared by the lanes that run the test suite on another OpenCL
# implementation (ci/intel.sh, ci/rusticl.sh); sourced, nothing runs.
# The caller sets: $lane (its name, for messages), $build_dir, $jobs,
# $logs (a folder for the ctest logs) and an array failures=(); it has
# sourced ci/sanitizer_build.sh (ctest_failure) and defines fail().

# lane_check_default <platform>: lists the OpenCL devices and fails unless
# the one `clgather devices` marks as the default is on <platform>. Sets
# lane_device to "name, version" of that device.
lane_check_default() {
  local platform="$1" devices default_platform
  echo "--- OpenCL devices (OCL_ICD_VENDORS=${OCL_ICD_VENDORS:-})"
  devices="$("$build_dir/cli/clgather" devices)" ||
    fail "clgather devices failed with OCL_ICD_VENDORS=${OCL_ICD_VENDORS:-}"
  echo "$devices"
  # The entry marked "(default)" and the platform line under it.
  default_platform="$(awk '/\(default\)$/ { on = 1; next }
    on && /^ +platform:/ { sub(/^ +platform: /, ""); print; exit }' <<<"$devices")"
  [ "$default_platform" = "$platform" ] ||
    fail "the default device is on platform \"$default_platform\", not \"$platform\""
  # "0:0  CPU  NAME  (default)" then "version: ...": its name and version.
  lane_device="$(awk '/\(default\)$/ { on = 1; sub(/ +\(default\)$/, "");
      sub(/^[0-9]+:[0-9]+ +[A-Z]+ +/, ""); name = $0; next }
    on && /^ +version:/ { sub(/^ +version: /, ""); print name ", " $0; exit }' \
    <<<"$devices")"
}

# lane_run_pass <name> <vendor> <ctest args...>: ctest -V into
# $logs/<name>.log, its summary on stdout. Adds to failures when a test
# fails or is skipped, or when a device test binary ran on a device whose
# vendor is not <vendor> (each prints "device: name | vendor | version").
lane_run_pass() {
  local name="$1" vendor="$2" status=0
  shift 2
  local log="$logs/$name.log"
  ctest --test-dir "$build_dir" -V --no-tests=error --parallel "$jobs" "$@" \
    >"$log" 2>&1 || status=$?
  grep -E '^ *[0-9]+/[0-9]+ Test +#|tests passed|^Total Test time' "$log" || true
  local why
  why="$(ctest_failure "$log" "$status")"
  if [ -n "$why" ]; then
    # The output of the failed tests, as --output-on-failure would show it.
    grep -E '^[0-9]+: ' "$log" | grep -Ev '\[ +(RUN|OK) +\]' | tail -n 60 || true
    failures+=("$name: $why (see $log)")
    return
  fi
  local named others
  named="$(grep -Ec '^[0-9]+: device: .* \| ' "$log" || true)"
  others="$(grep -E '^[0-9]+: device: .* \| ' "$log" |
    grep -Fvc "| $vendor |" || true)"
  if [ "$named" -eq 0 ] || [ "$others" -ne 0 ]; then
    failures+=("$name: $named test binaries named their device, $others of them not $vendor's (see $log)")
  else
    echo "ci/$lane.sh: $name: all $named device test binaries ran on $vendor's device"
  fi
}
