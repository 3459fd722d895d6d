# SPDX-License-Identifier: Apache-2.0
# cmake -DNM=<nm> -DLIBRARY=<libclgather.so> -DLIST=<exported_symbols.txt>
#       -P exported_symbols.cmake
#
# The shared library keeps its ABI: every symbol in LIST ('#' lines and
# blank lines aside) must be a defined dynamic symbol of LIBRARY
# (`nm -D --defined-only`). Symbols the list does not name are allowed.
# Exits non-zero naming each missing symbol.
cmake_minimum_required(VERSION 3.16)
foreach(var NM LIBRARY LIST)
  if(NOT ${var})
    message(FATAL_ERROR "exported_symbols.cmake: pass -D${var}=...")
  endif()
endforeach()

execute_process(COMMAND "${NM}" -D --defined-only "${LIBRARY}"
                OUTPUT_VARIABLE nm_out ERROR_VARIABLE nm_err
                RESULT_VARIABLE nm_rc)
if(NOT nm_rc EQUAL 0)
  message(FATAL_ERROR "${NM} -D --defined-only ${LIBRARY} failed "
                      "(${nm_rc}): ${nm_err}")
endif()
# "address type name" lines: keep the names, as "\n<name>\n" entries.
string(REPLACE "\n" ";" nm_lines "${nm_out}")
set(exported "\n")
foreach(line IN LISTS nm_lines)
  if(line MATCHES "^[0-9a-fA-F]* *[A-Za-z] +([^ ]+)$")
    string(APPEND exported "${CMAKE_MATCH_1}\n")
  endif()
endforeach()

file(STRINGS "${LIST}" wanted)
set(missing "")
set(count 0)
foreach(sym IN LISTS wanted)
  string(STRIP "${sym}" sym)
  if(sym STREQUAL "" OR sym MATCHES "^#")
    continue()
  endif()
  math(EXPR count "${count} + 1")
  string(FIND "${exported}" "\n${sym}\n" at)
  if(at EQUAL -1)
    list(APPEND missing "${sym}")
  endif()
endforeach()

if(count EQUAL 0)
  message(FATAL_ERROR "${LIST} names no symbol")
endif()
if(missing)
  list(LENGTH missing n)
  string(REPLACE ";" "\n  " shown "${missing}")
  message(FATAL_ERROR "${LIBRARY} no longer exports ${n} of the ${count} "
                      "symbols in ${LIST}:\n  ${shown}")
endif()
message(STATUS "${LIBRARY} exports all ${count} symbols of ${LIST}")
