#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Checks that the library builds and installs on its own and can be used
# from the install, the two ways a user would:
#  1. configures with pkg-config hidden (-DCMAKE_DISABLE_FIND_PACKAGE_PkgConfig
#     hides cmocka and protobuf-c, and with them protoc-c and onnx.proto; see
#     cmake/ClgOptions.cmake), so the default configure sees only OpenCL and
#     must build the library alone; builds it and installs it into a
#     temporary prefix;
#  2. builds the README example (examples/gather_example.c) with
#     `cc ... $(pkg-config --cflags --libs clgather)` against that prefix;
#  3. builds it again with a small CMake project using find_package(clgather);
#  4. runs both binaries, which must print "device == reference: yes";
#  5. installs the full build that ci/build.sh made ($CLG_BUILD_DIR, else
#     build/) into a second prefix and checks what comes with the tool:
#     a man page for clgather and for each command its --help lists,
#     each rendered by `man -l` (and `man clgather` finding it through
#     MANPATH), and the bash completion, found by bash-completion's
#     loader through XDG_DATA_DIRS.
# Prints each command and its output. Needs an OpenCL device (CI has POCL),
# man (man-db) and bash-completion (ci/install-deps.sh --tests).
# Everything lives in one temporary folder, removed on exit (kept when
# CLG_KEEP_TMP=1).
set -euo pipefail
cd "$(dirname "$0")/.."
src="$PWD"

tmp="$(mktemp -d "${TMPDIR:-/tmp}/clgather-install-check.XXXXXX")"
if [ "${CLG_KEEP_TMP:-0}" = 1 ]; then
  echo "install_check: keeping $tmp"
else
  trap 'rm -rf "$tmp"' EXIT
fi
build="$tmp/build"
prefix="$tmp/prefix"
# The examples' program cache goes with the rest, not into $HOME.
export CLGATHER_CACHE_DIR="$tmp/program-cache"
jobs="$(nproc 2>/dev/null || echo 2)"
cc="${CC:-cc}"

# Prints a command, then runs it.
show() {
  printf '$ %s\n' "$*"
  "$@"
}

fail() {
  echo "install_check: $*" >&2
  exit 1
}

echo "--- install_check: the library alone, dependencies hidden"
show cmake -S "$src" -B "$build" -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_INSTALL_PREFIX="$prefix" -DCMAKE_DISABLE_FIND_PACKAGE_PkgConfig=ON
for opt in CLGATHER_BUILD_CLI CLGATHER_BUILD_TESTS; do
  grep -q "^$opt:BOOL=OFF$" "$build/CMakeCache.txt" ||
    fail "$opt is not OFF with its dependencies hidden"
done
show cmake --build "$build" --parallel "$jobs"
show cmake --install "$build"
[ ! -e "$prefix/bin/clgather" ] || fail "the CLI was installed by a library-only build"

# GNUInstallDirs picks lib/ under this prefix (lib/<multiarch> only under
# /usr on Debian); ask the build rather than guess.
libdir="$(sed -n 's/^CMAKE_INSTALL_LIBDIR:PATH=//p' "$build/CMakeCache.txt")"
case "$libdir" in /*) ;; *) libdir="$prefix/$libdir" ;; esac
pcdir="$libdir/pkgconfig"
[ -f "$pcdir/clgather.pc" ] || fail "no clgather.pc in $pcdir"
[ -f "$libdir/cmake/clgather/clgatherConfig.cmake" ] ||
  fail "no clgatherConfig.cmake in $libdir/cmake/clgather"

echo
echo "--- install_check: the README example through pkg-config"
show cat "$pcdir/clgather.pc"
export PKG_CONFIG_PATH="$pcdir${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
echo "\$ export PKG_CONFIG_PATH=$PKG_CONFIG_PATH"
show pkg-config --modversion clgather
show pkg-config --cflags --libs clgather
echo "\$ $cc -std=c11 -Wall -Wextra -o $tmp/example_pkgconfig" \
  "examples/gather_example.c \$(pkg-config --cflags --libs clgather)" \
  "-Wl,-rpath,\$(pkg-config --variable=libdir clgather)    # expands to:"
# Word splitting of pkg-config's flags is wanted here.
# shellcheck disable=SC2046
show "$cc" -std=c11 -Wall -Wextra -o "$tmp/example_pkgconfig" \
  "$src/examples/gather_example.c" $(pkg-config --cflags --libs clgather) \
  -Wl,-rpath,"$(pkg-config --variable=libdir clgather)"
# The pipeline example calls OpenCL itself: pkg-config must give -lOpenCL.
# shellcheck disable=SC2046
show "$cc" -std=c11 -Wall -Wextra -o "$tmp/pipeline_pkgconfig" \
  "$src/examples/pipeline.c" $(pkg-config --cflags --libs clgather) \
  -Wl,-rpath,"$(pkg-config --variable=libdir clgather)"

echo
echo "--- install_check: the README example through find_package(clgather)"
mkdir -p "$tmp/consumer"
cat > "$tmp/consumer/CMakeLists.txt" <<'EOF'
cmake_minimum_required(VERSION 3.19)
project(clgather_consumer LANGUAGES C)
find_package(clgather REQUIRED)
message(STATUS "clgather ${clgather_VERSION} from ${clgather_DIR}")
add_executable(example_find_package ${EXAMPLE})
target_link_libraries(example_find_package PRIVATE clgather::clgather)
EOF
show cat "$tmp/consumer/CMakeLists.txt"
show cmake -S "$tmp/consumer" -B "$tmp/consumer/build" \
  -DCMAKE_PREFIX_PATH="$prefix" -DEXAMPLE="$src/examples/gather_example.c"
show cmake --build "$tmp/consumer/build"

echo
echo "--- install_check: run both"
for exe in "$tmp/example_pkgconfig" "$tmp/consumer/build/example_find_package"; do
  out="$(show "$exe" 2>&1)" || { echo "$out"; fail "$exe failed"; }
  echo "$out"
  grep -q '^device == reference: yes$' <<<"$out" ||
    fail "$exe did not print 'device == reference: yes'"
done
out="$(show "$tmp/pipeline_pkgconfig" 2>&1)" ||
  { echo "$out"; fail "the pipeline example failed"; }
echo "$out"
grep -q '^pipeline == reference: yes$' <<<"$out" ||
  fail "the pipeline example did not print 'pipeline == reference: yes'"

echo
echo "--- install_check: the tool, its man pages and bash completion"
full="${CLG_BUILD_DIR:-build}"
[ -x "$full/cli/clgather" ] || fail "no tool in $full/cli (run ci/build.sh first)"
tool_prefix="$tmp/tool-prefix"
show cmake --install "$full" --prefix "$tool_prefix"
clgather="$tool_prefix/bin/clgather"
show "$clgather" --version
man1="$tool_prefix/share/man/man1"
commands="$("$clgather" --help | awk '/^Commands:/ { on = 1; next }
  on && /^$/ { exit } on { print $1 }')"
[ -n "$commands" ] || fail "the installed clgather --help lists no command"
for page in clgather $(printf 'clgather-%s\n' $commands); do
  [ -f "$man1/$page.1" ] || fail "no man page $man1/$page.1"
  out="$(MANWIDTH=80 man -l "$man1/$page.1" 2>&1)" ||
    { echo "$out"; fail "man -l $man1/$page.1 failed"; }
  grep -q "^${page^^}(1)" <<<"$out" && grep -qx "EXIT STATUS" <<<"$out" ||
    { echo "$out"; fail "man -l $man1/$page.1 did not render its title and EXIT STATUS"; }
  echo "\$ man -l $man1/$page.1    # $(grep -A1 -x NAME <<<"$out" | tail -n 1 | sed 's/^ *//')"
done
echo "\$ MANPATH=$tool_prefix/share/man man -w clgather    # the page 'man clgather' shows"
out="$(MANPATH="$tool_prefix/share/man" man -w clgather)"
echo "$out"
[ "$out" = "$man1/clgather.1" ] || fail "man clgather does not find $man1/clgather.1"
echo "\$ man -l $man1/clgather.1"
MANWIDTH=80 man -l "$man1/clgather.1" | sed -n '1,20p' # sed reads it all
completion="$tool_prefix/share/bash-completion/completions/clgather"
[ -f "$completion" ] || fail "no bash completion at $completion"
loader=/usr/share/bash-completion/bash_completion
[ -f "$loader" ] || fail "bash-completion is not installed ($loader)"
echo "\$ XDG_DATA_DIRS=$tool_prefix/share:/usr/share bash: _completion_loader clgather; complete -p clgather"
out="$(XDG_DATA_DIRS="$tool_prefix/share:/usr/share" bash -c \
  "source $loader; _completion_loader clgather; complete -p clgather" 2>&1)" || true
echo "$out"
[ "$out" = "complete -F _clgather clgather" ] ||
  fail "bash-completion's loader does not find $completion"
echo "install_check: the library installs alone and builds both ways; the tool installs with its man pages and completion"

