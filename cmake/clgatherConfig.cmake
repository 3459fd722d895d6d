# SPDX-License-Identifier: Apache-2.0
# Package configuration for find_package(clgather): the clgather::clgather
# (shared) and clgather::clgather_static targets, with OpenCL as their
# dependency.
include(CMakeFindDependencyMacro)
find_dependency(OpenCL)
find_dependency(Threads)
include("${CMAKE_CURRENT_LIST_DIR}/clgatherTargets.cmake")
