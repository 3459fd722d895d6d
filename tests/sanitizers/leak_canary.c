/* SPDX-License-Identifier: Apache-2.0 */
/* The sanitizer lane's canary (ci/sanitize.sh): an OpenCL buffer that is
 * never released, and a malloc that is never freed. Built with the lane's
 * flags and run under each of its passes' ASAN_OPTIONS and LeakSanitizer
 * suppressions, the buffer must be reported: with libpocl as the
 * allocation's caller on ASan's fast unwinder, under make_buffer on whole
 * stacks. So LeakSanitizer is on and neither set of suppressions
 * (tests/sanitizers/lsan.supp, lsan_pocl_compile.supp) hides an OpenCL
 * object that clgather might forget to release. Not a ctest test: it
 * fails on purpose. */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>

#include <stdio.h>
#include <stdlib.h>

/* Kept in a volatile global and then dropped, so the compiler can remove
 * neither the allocation nor the leak. */
static void *volatile leaked;

/* Its own function, so that the report names it (libpocl's frames have no
 * symbol names). */
__attribute__((noinline)) static cl_mem make_buffer(cl_context context)
{
    cl_int err = CL_SUCCESS;
    cl_mem buffer = clCreateBuffer(context, CL_MEM_READ_WRITE, 4096, NULL,
                                   &err);
    return err == CL_SUCCESS ? buffer : NULL;
}

int main(void)
{
    cl_platform_id platform;
    cl_device_id device;
    cl_int err = CL_SUCCESS;
    if (clGetPlatformIDs(1, &platform, NULL) != CL_SUCCESS ||
        clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &device, NULL) !=
            CL_SUCCESS) {
        fprintf(stderr, "leak_canary: no OpenCL device\n");
        return 77;
    }
    cl_context context = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
    if (err != CL_SUCCESS)
        return 1;
    if (!make_buffer(context)) /* never released */
        return 1;
    clReleaseContext(context);

    leaked = malloc(24);
    leaked = NULL;
    return 0;
}
