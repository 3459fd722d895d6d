#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Checks that every tracked source, kernel, script and CMake file says
# under what terms it may be used: an "SPDX-License-Identifier: Apache-2.0"
# line within its first three lines (after a #! line, where there is one).
# With --fix, adds the line to the files that lack it.
#
#   ci/licence.sh         exit 0 when every file carries the line, else 1,
#                         naming the files
#   ci/licence.sh --fix   add it where it is missing
#
# Files covered: *.c *.h *.cl *.sh *.py *.cmake *.toml *.in,
# CMakeLists.txt, .clang-format and .ci/run. Data (test corpora,
# results) and documentation are not code and carry none.
set -euo pipefail
cd "$(dirname "$0")/.."

tag="SPDX-License-Identifier: Apache-2.0"
mode=check
case "${1:-}" in
  "") ;;
  --fix) mode=fix ;;
  *)
    echo "usage: ci/licence.sh [--fix]" >&2
    exit 2
    ;;
esac

missing=()
count=0
while IFS= read -r f; do
  [ -f "$f" ] || continue
  count=$((count + 1))
  if head -n 3 "$f" | grep -q "$tag"; then
    continue
  fi
  if [ "$mode" = check ]; then
    missing+=("$f")
    continue
  fi
  case "$f" in
    *.c | *.h | *.cl) line="/* $tag */" ;;
    *) line="# $tag" ;;
  esac
  tmp="$(mktemp "$f.XXXXXX")"
  if head -n 1 "$f" | grep -q '^#!'; then
    { head -n 1 "$f"; echo "$line"; tail -n +2 "$f"; } >"$tmp"
  else
    { echo "$line"; cat "$f"; } >"$tmp"
  fi
  chmod --reference="$f" "$tmp"
  mv "$tmp" "$f"
  echo "ci/licence.sh: added to $f"
done < <(git ls-files -- '*.c' '*.h' '*.cl' '*.sh' '*.py' '*.cmake' \
  '*.toml' '*.in' '*CMakeLists.txt' .clang-format .ci/run |
  grep -vE '^(tests/fuzz/corpus|tests/fuzz/regressions|bench/results)/')

if [ "$mode" = check ] && [ "${#missing[@]}" -gt 0 ]; then
  echo "ci/licence.sh: ${#missing[@]} of $count files carry no '$tag' line:"
  printf '  %s\n' "${missing[@]}"
  echo "run ci/licence.sh --fix to add it"
  exit 1
fi
echo "ci/licence.sh: all $count files carry the licence line"
