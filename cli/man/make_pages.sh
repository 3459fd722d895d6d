#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# sh make_pages.sh HELP2MAN CLGATHER OUTDIR
#
# Writes the man pages of the clgather tool into OUTDIR: clgather.1 and
# clgather-COMMAND.1 for each command that `clgather --help` lists (the
# command table, cli/cli.h), each made by help2man from the built tool's
# own `--help` (reshaped by help.awk beside this script for help2man's
# layout), its version from `clgather --version`, its NAME line from
# the command's summary. The tool's --help is the one source: a command,
# option or exit status is in its page once it is in its --help. Pages
# of commands that no longer exist are removed. Run at build time by
# cli/man/CMakeLists.txt (docs/cli.md, "Man pages and completion").
set -eu

help2man=$1
exe=$2
out=$3
awk_file="$(cd "$(dirname "$0")" && pwd)/help.awk"
work="$out/.work"

fail() {
  echo "make_pages.sh: $*" >&2
  exit 1
}

rm -rf "$work"
mkdir -p "$work"
rm -f "$out"/clgather.1 "$out"/clgather-*.1

version="$("$exe" --version | sed -n '1s/^clgather \([^ ]*\).*/\1/p')"
[ -n "$version" ] || fail "no version in '$exe --version'"
"$exe" --help >"$work/help" || fail "'$exe --help' failed"
# "Commands:" then "  NAME  SUMMARY" lines up to a blank line.
awk '/^Commands:/ { on = 1; next }
     on && /^[ \t]*$/ { exit }
     on { name = $1; sub(/^[ \t]*[^ \t]+[ \t]+/, ""); print name "\t" $0 }' \
  "$work/help" >"$work/commands"
[ -s "$work/commands" ] || fail "no Commands: section in '$exe --help'"
# The page's NAME line: the help's second line, "Run the ONNX ...".
summary="$(awk 'NR == 2 { sub(/\.$/, "");
  print tolower(substr($0, 1, 1)) substr($0, 2) }' "$work/help")"

# help2man's program: the tool with the given arguments (ending in
# --help), its output reshaped.
cat >"$work/clgather" <<WRAPPER
#!/bin/sh
"$exe" "\$@" | awk -f "$awk_file"
WRAPPER
chmod +x "$work/clgather"

# SEE ALSO: the main page lists every command's, each command's the main.
{
  echo "[SEE ALSO]"
  sep=""
  while IFS="$(printf '\t')" read -r name _; do
    printf '%s.BR clgather\\-%s (1)' "$sep" "$(echo "$name" | sed 's/-/\\-/g')"
    sep=",
"
  done <"$work/commands"
  echo
  echo ".PP"
  echo "docs/cli.md in the clgather sources describes every command."
} >"$work/see_also_main"
{
  echo "[SEE ALSO]"
  echo ".BR clgather (1)"
  echo ".PP"
  echo "docs/cli.md in the clgather sources describes every command."
} >"$work/see_also_command"

page() { # NAME SUMMARY HELP-OPTION SEE-ALSO
  "$help2man" --no-info --section=1 --source="clgather $version" \
    --version-string="$1 $version" --name="$2" --help-option="$3" \
    --include="$4" --output="$out/$1.1" "$work/clgather" ||
    fail "help2man failed on $1"
}

page clgather "$summary" --help "$work/see_also_main"
while IFS="$(printf '\t')" read -r name text; do
  page "clgather-$name" "$text" "$name --help" "$work/see_also_command"
done <"$work/commands"
rm -rf "$work"
