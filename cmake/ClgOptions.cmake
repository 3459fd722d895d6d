# SPDX-License-Identifier: Apache-2.0
# The build options and what each one needs. Included by the top-level
# CMakeLists.txt after project().
#
#   CLGATHER_BUILD_CLI    the `clgather` tool (cli/), its I/O library (io/)
#                         and the benchmark (bench/):
#                         the protobuf-c runtime (pkg-config libprotobuf-c),
#                         protoc-c, ONNX's onnx.proto and json-c (pkg-config
#                         json-c; the --json documents)
#   CLGATHER_BUILD_TESTS  the cmocka test suite (tests/) and the run of
#                         examples/ under ctest: cmocka (pkg-config cmocka),
#                         json-c, and a python3 with the JSON Schema
#                         validator jsonschema (the test that validates every
#                         --json document against docs/schemas/; CLG_PYTHON3
#                         names the interpreter);
#                         its cli and conformance areas also need the CLI
#                         and are left out without it
#   CLGATHER_BUILD_MAN    the man pages of the tool (cli/man/), made from
#                         its --help at build time: help2man, the tool
#                         (CLGATHER_BUILD_CLI) and a native build (the
#                         tool runs at build time)
#   CLGATHER_WERROR       warnings are errors in clgather's own code
#                         (-Werror for GCC and Clang, /WX for MSVC)
#   CLGATHER_BUILD_FUZZERS the libFuzzer targets (tests/fuzz/): Clang with
#                         libFuzzer; OFF unless set (see the end of this
#                         file)
#
# The first four default to ON when clgather is the top-level project and
# what it needs is found, and to OFF otherwise: as a subproject, or on a
# machine with only the OpenCL headers and ICD loader, the library alone is
# built. The library itself needs only OpenCL. An option set ON explicitly
# (-D...=ON) makes configure fail, naming the Debian packages, when
# something it needs is missing; ci/build.sh sets all four so that CI
# cannot lose a part quietly. Like any option, the value chosen at the
# first configure stays in the cache.
#
# To see the library-only configure on a machine that has everything, hide
# pkg-config: -DCMAKE_DISABLE_FIND_PACKAGE_PkgConfig=ON. That hides cmocka
# and protobuf-c, and protoc-c and onnx.proto are looked for only once
# protobuf-c is found (ci/install_check.sh does this).

if(CMAKE_SOURCE_DIR STREQUAL PROJECT_SOURCE_DIR)
  set(CLG_TOP_LEVEL ON)
else()
  set(CLG_TOP_LEVEL OFF)
endif()

# What each part lacks: one entry per missing piece, with its Debian package.
# clg_missing(<list> <text pieces...>) appends the pieces as one entry (no
# ';' in them: it would split the entry).
macro(clg_missing list)
  string(CONCAT clg_entry ${ARGN})
  list(APPEND ${list} "${clg_entry}")
endmacro()
set(clg_cli_missing "")
set(clg_tests_missing "")
set(clg_werror_missing "")
set(clg_man_missing "")

# A subproject looks nothing up unless its parent asked for a part.
if(CLG_TOP_LEVEL OR CLGATHER_BUILD_CLI OR CLGATHER_BUILD_TESTS)
  # Judged by the imported targets, not by <prefix>_FOUND, which
  # pkg_check_modules keeps in the cache from an earlier configure.
  find_package(PkgConfig QUIET)
  if(PkgConfig_FOUND)
    pkg_check_modules(PROTOBUF_C QUIET IMPORTED_TARGET libprotobuf-c)
    pkg_check_modules(CMOCKA QUIET IMPORTED_TARGET cmocka)
    # the tool writes its --json documents with json-c, its tests parse them
    pkg_check_modules(JSONC QUIET IMPORTED_TARGET json-c)
  else()
    clg_missing(clg_cli_missing "pkg-config (Debian package pkg-config), which "
                "finds the protobuf-c runtime (libprotobuf-c-dev) and json-c "
                "(libjson-c-dev)")
    clg_missing(clg_tests_missing "pkg-config (Debian package pkg-config), "
                "which finds cmocka (libcmocka-dev)")
  endif()
  if(PkgConfig_FOUND AND NOT TARGET PkgConfig::CMOCKA)
    clg_missing(clg_tests_missing "cmocka, pkg-config module cmocka "
                "(Debian package libcmocka-dev)")
  endif()
  if(PkgConfig_FOUND AND NOT TARGET PkgConfig::JSONC)
    clg_missing(clg_cli_missing "json-c, pkg-config module json-c "
                "(Debian package libjson-c-dev)")
    clg_missing(clg_tests_missing "json-c, pkg-config module json-c "
                "(Debian package libjson-c-dev)")
  endif()
  # The validator of the --json documents (tests/cli/validate_json.py):
  # a python3 that imports jsonschema.
  find_program(CLG_PYTHON3 NAMES python3
               DOC "python3 with jsonschema, for the --json schema test (Debian: python3-jsonschema)")
  set(clg_have_jsonschema FALSE)
  if(CLG_PYTHON3)
    execute_process(COMMAND ${CLG_PYTHON3} -c "import jsonschema"
                    RESULT_VARIABLE clg_jsonschema_rc OUTPUT_QUIET ERROR_QUIET)
    if(clg_jsonschema_rc EQUAL 0)
      set(clg_have_jsonschema TRUE)
    endif()
  endif()
  if(NOT clg_have_jsonschema)
    clg_missing(clg_tests_missing "python3 with the JSON Schema validator "
                "jsonschema (Debian package python3-jsonschema), given by "
                "CLG_PYTHON3 (now '${CLG_PYTHON3}')")
  endif()
  if(PkgConfig_FOUND AND NOT TARGET PkgConfig::PROTOBUF_C)
    clg_missing(clg_cli_missing "the protobuf-c runtime, pkg-config module "
                "libprotobuf-c (Debian package libprotobuf-c-dev)")
  endif()
  if(NOT TARGET PkgConfig::PROTOBUF_C)
    clg_missing(clg_cli_missing "protoc-c (protobuf-c-compiler) and onnx.proto "
                "(libonnx-dev), looked for once protobuf-c is found")
  else()
    find_program(CLG_PROTOC_C NAMES protoc-c protoc-gen-c
                 DOC "protoc-c, the protobuf-c compiler (Debian: protobuf-c-compiler)")
    find_path(CLG_ONNX_PROTO_DIR NAMES onnx.proto
              PATHS /usr/include/onnx /usr/local/include/onnx
              PATH_SUFFIXES onnx
              DOC "Directory holding onnx.proto (Debian: libonnx-dev, /usr/include/onnx)")
    if(NOT CLG_PROTOC_C)
      clg_missing(clg_cli_missing "protoc-c (Debian package protobuf-c-compiler)")
    endif()
    if(NOT CLG_ONNX_PROTO_DIR)
      clg_missing(clg_cli_missing "onnx.proto (Debian package libonnx-dev, or set "
                  "CLG_ONNX_PROTO_DIR to the folder that holds it)")
    endif()
  endif()
endif()

# The man pages: help2man over the built tool's --help (cli/man/).
if(CLG_TOP_LEVEL OR CLGATHER_BUILD_MAN)
  find_program(CLG_HELP2MAN help2man
               DOC "help2man, which makes the man pages from --help (Debian: help2man)")
  if(NOT CLG_HELP2MAN)
    clg_missing(clg_man_missing "help2man (Debian package help2man)")
  endif()
  if(CMAKE_CROSSCOMPILING)
    clg_missing(clg_man_missing "a native build: the pages come from running "
                "the tool at build time")
  endif()
endif()

if(NOT CMAKE_C_COMPILER_ID MATCHES "GNU|Clang" AND NOT MSVC)
  clg_missing(clg_werror_missing "a compiler whose warning flags clgather "
              "knows (GCC, Clang or MSVC; this one is '${CMAKE_C_COMPILER_ID}')")
endif()

# clg_dependent_option(<name> <doc> <list of what is missing>)
# Declares the option, ON by default only for a top-level build that lacks
# nothing. An option that is ON but lacks something adds its complaint to
# clg_option_errors; configure fails below, once, naming every one.
set(clg_option_errors "")
function(clg_dependent_option name doc missing)
  set(default OFF)
  if(CLG_TOP_LEVEL AND missing STREQUAL "")
    set(default ON)
  endif()
  option(${name} "${doc}" ${default})
  if(missing STREQUAL "")
    return()
  endif()
  if(${name})
    list(JOIN missing "\n  - " lines)
    string(APPEND clg_option_errors "${name} is ON, but it needs:\n"
           "  - ${lines}\n"
           "Install what is missing, or configure with -D${name}=OFF.\n")
    set(clg_option_errors "${clg_option_errors}" PARENT_SCOPE)
  else()
    list(JOIN missing "; " lines)
    message(STATUS "clgather: ${name} is OFF (missing: ${lines})")
  endif()
endfunction()

clg_dependent_option(CLGATHER_BUILD_CLI
  "Build the clgather command-line tool (needs protobuf-c, protoc-c and libonnx-dev)"
  "${clg_cli_missing}")
clg_dependent_option(CLGATHER_BUILD_TESTS
  "Build the cmocka test suite (needs cmocka; its cli and conformance tests need the CLI)"
  "${clg_tests_missing}")
if(NOT CLGATHER_BUILD_CLI)
  clg_missing(clg_man_missing "the tool (CLGATHER_BUILD_CLI), whose --help "
              "the pages are made from")
endif()
clg_dependent_option(CLGATHER_BUILD_MAN
  "Build and install the clgather tool's man pages from its --help (needs help2man)"
  "${clg_man_missing}")
clg_dependent_option(CLGATHER_WERROR
  "Treat warnings as errors in clgather's own code"
  "${clg_werror_missing}")
if(NOT clg_option_errors STREQUAL "")
  message(FATAL_ERROR "clgather: ${clg_option_errors}")
endif()

# CLGATHER_BUILD_FUZZERS: the libFuzzer targets of tests/fuzz/ (ci/fuzz.sh).
# OFF unless asked for, and not for a build that is used for anything else:
# it compiles every target of the build (library, I/O, protobuf-c code)
# with -fsanitize=fuzzer-no-link,address,undefined. Needs Clang with
# libFuzzer (Debian: clang-14 and libclang-rt-14-dev; configure with
# -DCMAKE_C_COMPILER=clang-14) and CLGATHER_BUILD_CLI, whose readers are
# fuzzed.
option(CLGATHER_BUILD_FUZZERS
  "Build the libFuzzer targets (Clang only; sanitizes the whole build)" OFF)
if(CLGATHER_BUILD_FUZZERS)
  if(NOT CMAKE_C_COMPILER_ID MATCHES "Clang")
    message(FATAL_ERROR "clgather: CLGATHER_BUILD_FUZZERS needs Clang "
            "(configure with -DCMAKE_C_COMPILER=clang-14); this is "
            "${CMAKE_C_COMPILER_ID}")
  endif()
  if(NOT CLGATHER_BUILD_CLI)
    message(FATAL_ERROR "clgather: CLGATHER_BUILD_FUZZERS needs "
            "CLGATHER_BUILD_CLI, whose readers it fuzzes")
  endif()
  include(CheckCSourceCompiles)
  set(CMAKE_REQUIRED_FLAGS "-fsanitize=fuzzer,address,undefined")
  check_c_source_compiles("
    #include <stddef.h>
    #include <stdint.h>
    int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n);
    int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
    { return (int)(d == NULL) + (int)(n == 0) - 1; }" CLG_HAVE_LIBFUZZER)
  unset(CMAKE_REQUIRED_FLAGS)
  if(NOT CLG_HAVE_LIBFUZZER)
    message(FATAL_ERROR "clgather: ${CMAKE_C_COMPILER} cannot link "
            "-fsanitize=fuzzer,address,undefined (Debian package "
            "libclang-rt-14-dev for clang-14)")
  endif()
  add_compile_options(-fsanitize=fuzzer-no-link,address,undefined
                      -fno-sanitize-recover=all -fno-omit-frame-pointer)
  add_link_options(-fsanitize=address,undefined)
endif()
