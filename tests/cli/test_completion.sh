#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# bash test_completion.sh CLGATHER COMPLETION-FILE
#
# The bash completion (cli/clgather.bash) sourced into this shell: each
# case sets COMP_WORDS, COMP_CWORD, COMP_LINE and COMP_POINT as bash does
# for a line typed up to its end (words split at white space, then at
# ':' and '=', which are in COMP_WORDBREAKS), calls the function
# `complete -p clgather` names and compares COMPREPLY with the words
# expected (in any order: readline sorts them). Needs no OpenCL device:
# --device offers the P:D of whatever `clgather devices` lists, none
# without one. Exits non-zero naming each case that differs.
set -uo pipefail

exe=$1
source "$2"
failures=0

spec="$(complete -p clgather)" || { echo "no completion for clgather" >&2; exit 1; }
[[ "$spec" == "complete -F _clgather clgather" ]] ||
  { echo "unexpected: $spec" >&2; exit 1; }

# COMP_* for a line with the cursor at its end.
set_line() {
  local line=$1 w
  COMP_WORDS=()
  for w in $line; do
    while [[ "$w" =~ ^([^:=]*)([:=])(.*)$ ]]; do
      [ -n "${BASH_REMATCH[1]}" ] && COMP_WORDS+=("${BASH_REMATCH[1]}")
      COMP_WORDS+=("${BASH_REMATCH[2]}")
      w=${BASH_REMATCH[3]}
    done
    [ -n "$w" ] && COMP_WORDS+=("$w")
  done
  [[ "$line" == *" " ]] && COMP_WORDS+=("")
  COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
  COMP_LINE=$line
  COMP_POINT=${#line}
}

# The words of $1 sorted (readline sorts what it shows; compgen -f gives
# directory order).
sorted() {
  tr ' ' '\n' <<<"$1" | sort | tr '\n' ' ' | sed 's/ *$//'
}

# expect "ARGS AFTER clgather" "EXPECTED WORDS" (in any order)
expect() {
  local got
  set_line "$exe $1"
  COMPREPLY=()
  _clgather
  got="${COMPREPLY[*]}"
  if [ "$(sorted "$got")" != "$(sorted "$2")" ]; then
    echo "test_completion: 'clgather $1<TAB>' gives '$got', not '$2'" >&2
    failures=$((failures + 1))
  fi
}

dir="$(mktemp -d "${TMPDIR:-/tmp}/clgather-completion.XXXXXX")"
trap 'rm -rf "$dir"' EXIT
cd "$dir" || exit 1
touch d.npy i.npy
mkdir tests

# What the tool itself lists, for the lists that follow it.
commands="$("$exe" --help | awk '/^Commands:/ { on = 1; next }
  on && /^$/ { exit } on { print $1 }' | tr '\n' ' ' | sed 's/ $//')"
specs="$("$exe" devices 2>/dev/null | awk '$1 ~ /^[0-9]+:[0-9]+$/ { print $1 }' |
  tr '\n' ' ' | sed 's/ $//')"
operators="$("$exe" run --help | sed -n '1s/^Usage: clgather run (\([^)]*\)).*/\1/p' |
  tr '|' ' ')"
[ "$commands" = "devices onnx-test run compare bench tune cache" ] ||
  { echo "test_completion: clgather --help lists '$commands'" >&2; exit 1; }
[[ " $operators " == *" gather "* ]] ||
  { echo "test_completion: run's usage offers '$operators'" >&2; exit 1; }

# commands and the tool's own options
expect "r" "run"
expect "" "$commands"
expect "c" "compare cache"
expect "--" "--help --version"
# each command's options, from its --help
expect "run --d" "--data --device"
expect "run --c" "--check"
expect "onnx-test -" "-d --device --reference --strict --json -v --verbose --oob -h --help"
expect "tune --" "--device --scale --repeat --help"
expect "cache --" "--dir --clear --fill --device --op --oob --json --help"
expect "cache --fill --oob " "raise wrap clip fill"
expect "cache --fill --op gather-" "gather-elements gather-nd"
expect "devices --" "--json --help"
# values: SPEC, MODE, NAME, an a|b in the usage, nothing for N
expect "run --device " "gpu cpu accelerator${specs:+ $specs}"
expect "run -d g" "gpu"
expect "compare --device=a" "accelerator"
if [ -n "$specs" ]; then
  # "0:" is split at ':' by bash: only what follows is replaced
  expect "run -d 0:" "$(tr ' ' '\n' <<<"$specs" | sed -n 's/^0://p' | tr '\n' ' ' | sed 's/ $//')"
fi
expect "run --oob " "raise wrap clip fill"
expect "bench --oob=c" "clip"
expect "bench -w emb" "embedding"
expect "bench --workload small" "small"
expect "compare --op gather-" "gather-elements gather-nd"
expect "run gather-nd --batch-dims " ""
expect "run gather --axis " ""
expect "bench --repeat " ""
# operands: run's operator until one is given, then file names; DIR...
expect "run " "$operators"
expect "run --data d.npy " "$operators"
expect "run --data=d.npy -c " "$operators"
expect "run gather " "d.npy i.npy tests"
expect "compare " "tests"
expect "onnx-test -v t" "tests"
# file and directory values
expect "run gather --data " "d.npy i.npy tests"
expect "run gather --data=d" "d.npy"
expect "run gather -o i" "i.npy"
expect "compare --expected d" "d.npy"
expect "bench -j " "d.npy i.npy tests"
expect "cache --dir " "tests"

if [ "$failures" -ne 0 ]; then
  echo "test_completion: $failures case(s) differ" >&2
  exit 1
fi
echo "test_completion: every case completes as expected"
