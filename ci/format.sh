#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Checks the tracked C sources and headers (git ls-files '*.c' '*.h')
# against .clang-format; with --fix, rewrites them in place.
#
#   ci/format.sh         exit 0 when every file is formatted, else 1, naming
#                        the files and showing the first differences
#   ci/format.sh --fix   format them all
#
# The OpenCL kernels (kernels/*.cl) are left out: clang-format breaks some
# of their index expressions in odd places, so they are kept tidy by hand.
# Different clang-format releases format differently; .clang-format is tuned
# for 14 (Debian 12's clang-format, installed by ci/install-deps.sh --tests), and
# clang-format-14 is preferred when both are installed. CLANG_FORMAT=<path>
# picks another.
set -euo pipefail
cd "$(dirname "$0")/.."

mode=check
case "${1:-}" in
  "") ;;
  --fix) mode=fix ;;
  -h | --help)
    sed -n '3,15s/^# \{0,1\}//p' "$0"
    exit 0
    ;;
  *)
    echo "usage: ci/format.sh [--fix]" >&2
    exit 2
    ;;
esac

cf="${CLANG_FORMAT:-}"
if [ -z "$cf" ]; then
  for c in clang-format-14 clang-format; do
    if command -v "$c" >/dev/null 2>&1; then
      cf="$c"
      break
    fi
  done
fi
if [ -z "$cf" ]; then
  echo "ci/format.sh: clang-format not found; install the Debian package clang-format" >&2
  exit 1
fi
version="$("$cf" --version)"
case "$version" in
  *"version 14."*) ;;
  *) echo "ci/format.sh: warning: .clang-format is tuned for clang-format 14; this is: $version" >&2 ;;
esac

files=()
while IFS= read -r f; do
  files+=("$f")
done < <(git ls-files -- '*.c' '*.h')
if [ "${#files[@]}" -eq 0 ]; then
  echo "ci/format.sh: no tracked C files found" >&2
  exit 1
fi

if [ "$mode" = fix ]; then
  "$cf" -i --style=file "${files[@]}"
  echo "ci/format.sh: formatted ${#files[@]} files with $cf"
  exit 0
fi

log="$(mktemp)"
trap 'rm -f "$log"' EXIT
if "$cf" --dry-run -Werror --style=file "${files[@]}" >"$log" 2>&1; then
  echo "ci/format.sh: all ${#files[@]} files are formatted"
  exit 0
fi
bad=()
while IFS= read -r f; do
  bad+=("$f")
done < <(sed -n 's/^\([^:]*\):[0-9]*:[0-9]*: error: code should be clang-formatted.*/\1/p' "$log" | sort -u)
if [ "${#bad[@]}" -eq 0 ]; then
  # clang-format failed for another reason (a bad .clang-format, say).
  cat "$log" >&2
  exit 1
fi
head -n 40 "$log"
echo "..."
echo "ci/format.sh: ${#bad[@]} of ${#files[@]} files need formatting:"
printf '  %s\n' "${bad[@]}"
echo "run ci/format.sh --fix to rewrite them"
exit 1
