# SPDX-License-Identifier: Apache-2.0
# cmake -DROOT=<repository> -P doc_refs.cmake
#
# Checks that every reference to a section of a Markdown page names a
# heading that exists, in the code (src host kernels include io cli bench
# python examples tests ci cmake, the top-level build files) and in the
# docs (docs/, README.md, bench/README.md, CHANGELOG.md). The forms read:
#
#   docs/<page>.md, "Heading"            also: , section "Heading"
#   docs/<page>.md ("Heading")           also: 's "Heading"
#   docs/<page>.md, "A", "B" and "C"     every quoted heading of the chain
#   docs/<page>.md, section <N>          a heading numbered N ("## N. ...")
#   <page>.md#anchor, (#anchor)          GitHub's anchor of a heading
#
# A citation may wrap over comment lines (the leaders " * ", "//", "#"
# are dropped before matching). A heading matches its exact text, without
# a leading "N. " number. Every docs/<page>.md named must exist, and a
# page named with a capitalised word after its comma but no quotes is
# reported too (a heading is cited in quotes). Exits non-zero naming each
# broken reference.
cmake_minimum_required(VERSION 3.16)
if(NOT ROOT)
  message(FATAL_ERROR "doc_refs.cmake: pass -DROOT=<repository root>")
endif()

# Headings of one Markdown page, as "\n<name>\n" entries in
# DOC_NAMES_<key>, numbers in DOC_NUMS_<key>, anchors in DOC_ANCHORS_<key>.
function(doc_load path key)
  file(READ "${path}" text)
  string(REPLACE ";" "<semicolon>" text "${text}")
  string(REPLACE "[" "<lb>" text "${text}")
  string(REPLACE "]" "<rb>" text "${text}")
  string(REPLACE "\n" ";" lines "${text}")
  set(names "\n")
  set(nums "\n")
  set(anchors "\n")
  set(fenced 0)
  foreach(line IN LISTS lines)
    if(line MATCHES "^[ \t]*```")
      math(EXPR fenced "1 - ${fenced}")
      continue()
    endif()
    if(fenced OR NOT line MATCHES "^#+[ \t]+(.*)$")
      continue()
    endif()
    set(h "${CMAKE_MATCH_1}")
    string(REGEX REPLACE "[ \t#]+$" "" h "${h}")
    string(REPLACE "<semicolon>" ";" h "${h}")
    string(REPLACE "<lb>" "[" h "${h}")
    string(REPLACE "<rb>" "]" h "${h}")
    if(h MATCHES "^([0-9]+)\\.[ \t]+(.*)$")
      string(APPEND nums "${CMAKE_MATCH_1}\n")
      set(name "${CMAKE_MATCH_2}")
    else()
      set(name "${h}")
    endif()
    string(APPEND names "${name}\n")
    # GitHub's anchor: lower case, punctuation dropped, spaces to hyphens,
    # -1, -2, ... for repeats.
    string(TOLOWER "${h}" slug)
    string(REGEX REPLACE "[^a-z0-9 _-]" "" slug "${slug}")
    string(REPLACE " " "-" slug "${slug}")
    set(anchor "${slug}")
    set(n 0)
    while(1)
      string(FIND "${anchors}" "\n${anchor}\n" at)
      if(at EQUAL -1)
        break()
      endif()
      math(EXPR n "${n} + 1")
      set(anchor "${slug}-${n}")
    endwhile()
    string(APPEND anchors "${anchor}\n")
  endforeach()
  set(DOC_NAMES_${key} "${names}" PARENT_SCOPE)
  set(DOC_NUMS_${key} "${nums}" PARENT_SCOPE)
  set(DOC_ANCHORS_${key} "${anchors}" PARENT_SCOPE)
endfunction()

# The key of a page given by its path relative to ROOT; loads it once.
# Sets <out> to the key, or to "" when the page does not exist.
macro(doc_key rel out)
  string(MAKE_C_IDENTIFIER "${rel}" _k)
  if(NOT DEFINED DOC_SEEN_${_k})
    if(EXISTS "${ROOT}/${rel}" AND NOT IS_DIRECTORY "${ROOT}/${rel}")
      doc_load("${ROOT}/${rel}" ${_k})
      set(DOC_SEEN_${_k} 1)
    else()
      set(DOC_SEEN_${_k} 0)
    endif()
  endif()
  if(DOC_SEEN_${_k})
    set(${out} ${_k})
  else()
    set(${out} "")
  endif()
endmacro()

set(broken "")
set(checked 0)
macro(report where what why)
  string(APPEND broken "  ${where}: ${what}: ${why}\n")
endmacro()

set(globs)
foreach(dir src host kernels include io cli bench python examples tests ci
            cmake docs)
  foreach(ext c h cl py pyi sh cmake txt md toml in)
    list(APPEND globs "${ROOT}/${dir}/*.${ext}")
  endforeach()
endforeach()
file(GLOB_RECURSE files LIST_DIRECTORIES false ${globs})
foreach(top README.md CHANGELOG.md CMakeLists.txt pyproject.toml)
  if(EXISTS "${ROOT}/${top}")
    list(APPEND files "${ROOT}/${top}")
  endif()
endforeach()
set(nfiles 0)
foreach(path IN LISTS files)
  file(RELATIVE_PATH rel "${ROOT}" "${path}")
  # Build trees, results and fuzz inputs are not the repository's text.
  if(rel MATCHES "(^|/)(build[^/]*|\\.git|__pycache__|\\.venv)/" OR
     rel MATCHES "^(bench/results|tests/fuzz/corpus|tests/fuzz/regressions)/")
    continue()
  endif()
  math(EXPR nfiles "${nfiles} + 1")
  get_filename_component(dir "${rel}" DIRECTORY)
  file(READ "${path}" text)
  # No ; [ or ] may reach a CMake list: they would split or join items.
  string(REPLACE ";" "<semicolon>" text "${text}")
  string(REPLACE "[" "<lb>" text "${text}")
  string(REPLACE "]" "<rb>" text "${text}")
  string(REPLACE "\\\"" "\"" text "${text}")
  if(rel MATCHES "\\.md$")
    string(REGEX REPLACE "\n[ \t]*(>[ \t]*)?" " " text "${text}")
  else()
    string(REGEX REPLACE "\n[ \t]*(\\*+/?|//+|#+|--)?[ \t]*" " " text
                         "${text}")
  endif()

  # Pages named at all must exist.
  string(REGEX MATCHALL "docs/[A-Za-z0-9_-]+\\.md" pages "${text}")
  list(REMOVE_DUPLICATES pages)
  foreach(page IN LISTS pages)
    doc_key("${page}" key)
    if(NOT key)
      report("${rel}" "${page}" "no such page")
    endif()
  endforeach()

  # docs/<page>.md, "Heading"[, "Heading" | and "Heading"]...
  string(REGEX MATCHALL
    "docs/[A-Za-z0-9_-]+\\.md(,| \\(|'s)( section)? \"[^\"]+\"((,| and|, and) \"[^\"]+\")*"
    cites "${text}")
  foreach(cite IN LISTS cites)
    string(REGEX MATCH "^docs/[A-Za-z0-9_-]+\\.md" page "${cite}")
    doc_key("${page}" key)
    if(NOT key)
      continue()
    endif()
    string(REGEX MATCHALL "\"[^\"]+\"" quoted "${cite}")
    foreach(q IN LISTS quoted)
      string(REGEX REPLACE "^\"(.*)\"$" "\\1" name "${q}")
      string(REPLACE "<semicolon>" ";" name "${name}")
      string(REPLACE "<lb>" "[" name "${name}")
      string(REPLACE "<rb>" "]" name "${name}")
      string(REGEX REPLACE "[ \t]+" " " name "${name}")
      math(EXPR checked "${checked} + 1")
      string(FIND "${DOC_NAMES_${key}}" "\n${name}\n" at)
      if(at EQUAL -1)
        report("${rel}" "${page}, \"${name}\"" "no such heading")
      endif()
    endforeach()
  endforeach()

  # docs/<page>.md, section <N>
  string(REGEX MATCHALL "docs/[A-Za-z0-9_-]+\\.md,? section [0-9]+" cites
         "${text}")
  foreach(cite IN LISTS cites)
    string(REGEX MATCH "^docs/[A-Za-z0-9_-]+\\.md" page "${cite}")
    string(REGEX MATCH "[0-9]+$" num "${cite}")
    doc_key("${page}" key)
    if(NOT key)
      continue()
    endif()
    math(EXPR checked "${checked} + 1")
    string(FIND "${DOC_NUMS_${key}}" "\n${num}\n" at)
    if(at EQUAL -1)
      report("${rel}" "${cite}" "no heading numbered ${num}")
    endif()
  endforeach()

  # docs/<page>.md, Unquoted Heading
  string(REGEX MATCHALL "docs/[A-Za-z0-9_-]+\\.md, [A-Z][a-z]+" cites
         "${text}")
  foreach(cite IN LISTS cites)
    report("${rel}" "${cite}" "cite the heading in quotes")
  endforeach()

  # <page>.md#anchor, relative to this file, or to the root for docs/...
  string(REGEX MATCHALL "[A-Za-z0-9_./-]*[A-Za-z0-9_-]\\.md#[A-Za-z0-9_-]+"
         cites "${text}")
  foreach(cite IN LISTS cites)
    string(REGEX MATCH "^(.*)#(.*)$" _ "${cite}")
    set(target "${CMAKE_MATCH_1}")
    set(anchor "${CMAKE_MATCH_2}")
    if(dir AND NOT target MATCHES "^docs/")
      get_filename_component(target "${dir}/${target}" ABSOLUTE
                             BASE_DIR "${ROOT}")
      file(RELATIVE_PATH target "${ROOT}" "${target}")
    endif()
    doc_key("${target}" key)
    if(NOT key)
      report("${rel}" "${cite}" "no such page")
      continue()
    endif()
    math(EXPR checked "${checked} + 1")
    string(FIND "${DOC_ANCHORS_${key}}" "\n${anchor}\n" at)
    if(at EQUAL -1)
      report("${rel}" "${cite}" "no heading with that anchor")
    endif()
  endforeach()

  # (#anchor) inside a Markdown page: its own headings.
  if(rel MATCHES "\\.md$")
    string(REGEX MATCHALL "<rb>\\(#[A-Za-z0-9_-]+\\)" cites "${text}")
    foreach(cite IN LISTS cites)
      string(REGEX REPLACE "^<rb>\\(#(.*)\\)$" "\\1" anchor "${cite}")
      doc_key("${rel}" key)
      math(EXPR checked "${checked} + 1")
      string(FIND "${DOC_ANCHORS_${key}}" "\n${anchor}\n" at)
      if(at EQUAL -1)
        report("${rel}" "(#${anchor})" "no heading with that anchor")
      endif()
    endforeach()
  endif()
endforeach()

if(broken)
  message(FATAL_ERROR
          "doc_refs: broken references to Markdown sections:\n${broken}")
endif()
message(STATUS "doc_refs: ${checked} section references in ${nfiles} "
               "files, all resolve")
