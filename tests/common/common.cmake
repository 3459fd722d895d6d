# SPDX-License-Identifier: Apache-2.0
# Makes the clg_test_common target available to a test area, whichever
# area is configured first.
if(NOT TARGET clg_test_common)
  add_subdirectory(${PROJECT_SOURCE_DIR}/tests/common
                   ${PROJECT_BINARY_DIR}/tests/common)
endif()
