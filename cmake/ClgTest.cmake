# SPDX-License-Identifier: Apache-2.0
# clg_add_test(<name> SOURCES <files...> LABELS <labels...> [LIBRARIES <libs...>]
#              [TIMEOUT <seconds>] [PARTS <parts...>])
# One cmocka binary per test file. With PARTS, the binary runs as one test
# per part, <name>_<part>, each with CLG_TEST_PART=<part> in its
# environment (the binary runs that part of its work only). A binary exits 77 only when no OpenCL
# device exists; ctest then reports it as skipped.
# cmocka (PkgConfig::CMOCKA) is found, or reported missing, by
# cmake/ClgOptions.cmake.
# Every test keeps its program cache in the build tree
# (build/test-program-cache), never in the user's, and runs its small
# host-memory calls on the device (CLGATHER_PARAMS=host=0, the tiny-call
# host path off; a test that sets CLGATHER_PARAMS itself says host=0 too,
# or tests that path): clg_test_environment sets both on any test.

function(clg_test_environment name)
  set_property(TEST ${name} APPEND PROPERTY ENVIRONMENT
               "CLGATHER_CACHE_DIR=${PROJECT_BINARY_DIR}/test-program-cache"
               "CLGATHER_PARAMS=host=0")
endfunction()

# clg_test_cost(<test>): the test's COST, if listed below. ctest -j
# starts the tests of highest COST first. A build tree keeps the times of
# its past runs (Testing/Temporary/CTestCostData.txt), which take over
# from these; a new one (each sanitizer lane's), or a lane that sets that
# record aside (ci/oclgrind.sh: it holds other devices' times), would
# otherwise start tests in the order they are defined and could end with
# a long one running alone. The costs: seconds under Oclgrind's CPU plan
# for the tests its lane runs, under AddressSanitizer for the others.
function(clg_test_cost test)
  set(costs
      device_gather_nd=190 device_layout=130 device_oob=125
      device_disk_cache=115 test_cli_cache_fill=85
      device_guard_split_elements=80 device_guard_many=70 device_random=65
      device_fault_0=60 device_fault_1=60 device_fault_2=60 device_fault_3=60
      test_cli_doc_examples=55 device_guard_split_gather=55
      test_cli_json_schemas=50 device_split=30 example_fill_cache=30)
  foreach(pair ${costs})
    if(pair MATCHES "^${test}=([0-9]+)$")
      set_tests_properties(${test} PROPERTIES COST ${CMAKE_MATCH_1})
    endif()
  endforeach()
endfunction()

function(clg_add_test name)
  cmake_parse_arguments(T "" "TIMEOUT" "SOURCES;LABELS;LIBRARIES;PARTS"
                        ${ARGN})
  add_executable(${name} ${T_SOURCES})
  target_link_libraries(${name} PRIVATE clgather_static PkgConfig::CMOCKA ${T_LIBRARIES})
  target_include_directories(${name} PRIVATE ${PROJECT_SOURCE_DIR}/tests/common)
  clg_strict_warnings(${name})
  if(NOT T_TIMEOUT)
    set(T_TIMEOUT 300)
  endif()
  set(tests ${name})
  if(T_PARTS)
    set(tests "")
    foreach(part ${T_PARTS})
      list(APPEND tests ${name}_${part})
    endforeach()
  endif()
  foreach(test ${tests})
    add_test(NAME ${test} COMMAND ${name})
    set_tests_properties(${test} PROPERTIES LABELS "${T_LABELS}"
                         SKIP_RETURN_CODE 77 TIMEOUT ${T_TIMEOUT})
    clg_test_environment(${test})
    clg_test_cost(${test})
  endforeach()
  foreach(part ${T_PARTS})
    set_property(TEST ${name}_${part} APPEND PROPERTY ENVIRONMENT
                 CLG_TEST_PART=${part})
  endforeach()
endfunction()
