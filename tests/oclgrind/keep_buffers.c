/* SPDX-License-Identifier: Apache-2.0 */
/* Preloaded by the Oclgrind lane (ci/oclgrind.sh) ahead of Oclgrind's
 * runtime: clReleaseMemObject does nothing, so that no buffer id of
 * Oclgrind's global memory is ever reused within a process.
 *
 * Oclgrind 21.10's uninitialised-value check keeps shadow memory per
 * buffer id and never drops it when a buffer is released, while its
 * allocator hands a released id to the next buffer made. A new buffer
 * then inherits the shadow of the old one: bytes beyond the old buffer's
 * size read as uninitialised whatever a kernel stored there, and a later
 * kernel reading them is reported (tests/oclgrind/reused_id.c shows it;
 * docs/design.md, "Implementations"). Keeping every buffer makes each new
 * buffer a fresh id, whose shadow starts uninitialised at its full size,
 * so reads of bytes that nothing wrote are still reported. Released
 * buffers are test-sized and live until the process exits. */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>

cl_int clReleaseMemObject(cl_mem memobj)
{
    return memobj ? CL_SUCCESS : CL_INVALID_MEM_OBJECT;
}
