# Package configuration for find_package(clgather): the clgather::clgather
# (shared) and clgather::clgather_static targets, with OpenCL as their
# dependency.
include(CMakeFindDependencyMacro)
find_dependency(OpenCL)
include("${CMAKE_CURRENT_LIST_DIR}/clgatherTargets.cmake")
