/* SPDX-License-Identifier: Apache-2.0 */
/* Shared virtual memory (OpenCL 2.0 API sections 4.2 and 5.9.2): a device
 * that shares the whole host address space at fine grain
 * (CL_DEVICE_SVM_FINE_GRAIN_SYSTEM) takes the caller's host memory in a
 * kernel argument as it is, with no buffer around it and no map to make
 * the kernel's writes visible: they are once its event has completed
 * (docs/design.md, "Host memory and device buffers"). The only file that
 * uses OpenCL 2.0 API; the rest of the library needs no more than 1.2. */
#define CL_TARGET_OPENCL_VERSION 200
#include "context.h"

#include <stdio.h>

int clg_rt_query_svm(cl_device_id device, const char *version)
{
    unsigned major = 0, minor = 0;
    cl_device_svm_capabilities caps = 0;
    /* A 1.x device has no such query (and an API checker would report
     * asking it). */
    if (sscanf(version, "OpenCL %u.%u", &major, &minor) != 2 || major < 2)
        return 0;
    if (clGetDeviceInfo(device, CL_DEVICE_SVM_CAPABILITIES, sizeof caps, &caps,
                        NULL) != CL_SUCCESS)
        return 0;
    return (caps & CL_DEVICE_SVM_FINE_GRAIN_SYSTEM) != 0;
}

cl_int clg_rt_set_svm_arg(cl_kernel kernel, cl_uint index, const void *ptr)
{
    return clSetKernelArgSVMPointer(kernel, index, ptr);
}
