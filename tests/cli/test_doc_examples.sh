#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Runs the shell examples of the docs that are marked to run: each ```sh
# block right after a line "<!-- example: runs in CI -->" in the pages
# given, with bash -euo pipefail, in a fresh folder that holds a link
# `docs` to the repository's docs/ (for docs/schemas/), with the built tool
# first on PATH as `clgather`, the python3 that has jsonschema first after
# it, and a program cache folder of its own. Fails on the first block that
# fails, naming the page and the block's first line; 77 (skipped) without
# an OpenCL device.
#
#   test_doc_examples.sh TOOL PYTHON3 DOCS_DIR PAGE.md...
set -uo pipefail

tool=$1 python=$2 docs=$3
shift 3
work="$(mktemp -d "${TMPDIR:-/tmp}/clgather-doc-examples.XXXXXX")"
trap 'rm -rf "$work"' EXIT
mkdir "$work/bin"
ln -s "$tool" "$work/bin/clgather"
ln -s "$python" "$work/bin/python3"
export PATH="$work/bin:$PATH"
export CLGATHER_CACHE_DIR="$work/program-cache"

if ! "$tool" devices >/dev/null 2>&1; then
  echo "test_doc_examples: no OpenCL device; skipped"
  exit 77
fi

blocks=0
for page in "$@"; do
  n=0
  while :; do
    n=$((n + 1))
    block="$(awk -v want="$n" '
      /^<!-- example: runs in CI -->$/ { marked = 1; next }
      marked && /^```sh$/ { seen++; inside = (seen == want); marked = 0; next }
      { marked = 0 }
      inside && /^```$/ { exit }
      inside { print }' "$docs/$page")"
    [ -n "$block" ] || break
    dir="$work/$page-$n"
    mkdir -p "$dir"
    ln -s "$docs" "$dir/docs"
    if ! (cd "$dir" && bash -euo pipefail -c "$block") >"$dir.log" 2>&1; then
      echo "test_doc_examples: docs/$page, block $n ('$(head -n 1 <<<"$block")') failed:" >&2
      cat "$dir.log" >&2
      exit 1
    fi
    blocks=$((blocks + 1))
  done
done
if [ "$blocks" -eq 0 ]; then
  echo "test_doc_examples: no marked example in $*" >&2
  exit 1
fi
echo "test_doc_examples: $blocks example(s) ran"
