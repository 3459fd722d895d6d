#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# bash test_man_pages.sh CLGATHER MANDIR
#
# The man pages made from the tool's --help (cli/man/make_pages.sh) are
# all there and say what --help says: clgather.1 names every command that
# `clgather --help` lists and clgather-COMMAND.1 exists for each; every
# page carries the tool's version, its NAME line (the summary), every
# option its --help lists (short and long), and an EXIT STATUS section
# holding the --help's exit status paragraph word for word; with man(1)
# present, each page renders. Exits non-zero naming each miss.
set -euo pipefail

exe=$1
mandir=$2
failures=0

miss() {
  echo "test_man_pages: $*" >&2
  failures=$((failures + 1))
}

# A page's text without troff's escapes: fonts, "\-", "\,", "\/", "\&".
plain() {
  sed -e 's/\\f[BIRP]//g' -e 's/\\-/-/g' -e 's/\\[,/&]//g' "$1"
}

# Every option an --help text lists: the words that start with - or --
# on its usage lines and its (indented) option lines.
options_of() {
  awk '/^Usage: / || /^[ \t]+(clgather|\[|-)/' <<<"$1" |
    grep -oE '(^|[][ ,(|])--?[A-Za-z][A-Za-z0-9-]*' |
    sed -E 's/^[][ ,(|]//' | sort -u
}

# The --help's paragraph that starts "Exit status", on one line.
exit_paragraph() {
  awk '/^Exit status/ { on = 1 } on && /^$/ { exit } on' <<<"$1" | tr -s ' \n' '  ' |
    sed 's/ $//'
}

# The text of a page's section "EXIT STATUS", on one line.
exit_section() {
  plain "$1" | awk '/^\.SH "EXIT STATUS"/ { on = 1; next } on && /^\.SH/ { exit }
    on && !/^\./' | tr -s ' \n' '  ' | sed 's/ $//'
}

version="$("$exe" --version | sed -n '1s/^clgather \([^ ]*\).*/\1/p')"
main_help="$("$exe" --help)"
mapfile -t commands < <(awk '/^Commands:/ { on = 1; next } on && /^$/ { exit }
  on { print $1 }' <<<"$main_help")
[ "${#commands[@]}" -ge 7 ] || miss "clgather --help lists ${#commands[@]} commands"

# check_page PAGE HELP-TEXT NAME
check_page() {
  local page=$1 help=$2 name=$3 text opt want got
  if [ ! -f "$page" ]; then
    miss "no page $page"
    return
  fi
  text="$(plain "$page")"
  grep -q "^\.TH ${name^^} \"1\" \".*\" \"clgather $version\"" <<<"$text" ||
    miss "$page: no .TH line for ${name^^} of clgather $version"
  grep -qx "$name - .\+" <<<"$text" || miss "$page: no NAME line '$name - ...'"
  while read -r opt; do
    grep -qE -- "(^|[^A-Za-z0-9-])$opt([^A-Za-z0-9-]|$)" <<<"$text" ||
      miss "$page: option $opt of its --help missing"
  done < <(options_of "$help")
  want="$(exit_paragraph "$help")"
  got="$(exit_section "$page")"
  [ -n "$want" ] || miss "$name --help has no exit status paragraph"
  [[ "$got" == *"$want"* ]] ||
    miss "$page: EXIT STATUS is '$got', not --help's '$want'"
  if command -v man >/dev/null 2>&1; then
    out="$(MANWIDTH=80 man -l "$page" 2>&1)" || miss "man -l $page failed: $out"
    for heading in NAME SYNOPSIS DESCRIPTION "EXIT STATUS" "SEE ALSO"; do
      grep -qx "$heading" <<<"$out" || miss "man -l $page: no $heading heading"
    done
  fi
}

check_page "$mandir/clgather.1" "$main_help" clgather
main_text="$(plain "$mandir/clgather.1")"
for cmd in "${commands[@]}"; do
  # in the Commands list and in SEE ALSO
  grep -qx "$cmd" <<<"$main_text" || miss "clgather.1: command $cmd not listed"
  grep -qx "\.BR clgather-$cmd (1),\?" <<<"$main_text" ||
    miss "clgather.1: no SEE ALSO clgather-$cmd(1)"
  check_page "$mandir/clgather-$cmd.1" "$("$exe" "$cmd" --help)" "clgather-$cmd"
done
# no page of a command that is gone
for page in "$mandir"/clgather-*.1; do
  cmd="${page##*/clgather-}"
  cmd="${cmd%.1}"
  [[ " ${commands[*]} " == *" $cmd "* ]] || miss "$page: no such command"
done

if [ "$failures" -ne 0 ]; then
  echo "test_man_pages: $failures problem(s)" >&2
  exit 1
fi
echo "test_man_pages: ${#commands[@]} command pages and clgather.1 name every command, option and exit status of --help"
