/* SPDX-License-Identifier: Apache-2.0 */
/* The Oclgrind lane's canary (ci/oclgrind.sh): one kernel of each fault
 * Oclgrind's checks must report, run under the lane's options, so that the
 * lane knows its checks are on and that it counts their reports. Each
 * kernel is launched once over 4 work-items:
 *   oob     reads one element past its buffer     (an invalid read)
 *   race    every work-item writes its id to x[0] (a data race)
 *   uninit  stores a value read from a buffer no one wrote (uninitialised)
 * and one API misuse: clSetKernelArg with a wrong argument size (the API
 * check). Prints what it ran; exits 0 when every call it expects to work
 * worked (the reports are the lane's to count), 1 otherwise. */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <stdio.h>

static const char *source =
    "__kernel void oob(__global const int *in, __global int *out)\n"
    "{ size_t i = get_global_id(0); out[i] = in[i + 1]; }\n"
    "__kernel void race(__global const int *in, __global int *out)\n"
    "{ out[0] = (int)get_global_id(0) + in[0]; }\n"
    "__kernel void uninit(__global const int *in, __global int *out)\n"
    "{ size_t i = get_global_id(0); out[i] = in[i] ? 1 : 2; }\n";

static int failed(const char *what, cl_int err)
{
    if (err == CL_SUCCESS)
        return 0;
    fprintf(stderr, "canary: %s failed (%d)\n", what, (int)err);
    return 1;
}

int main(void)
{
    cl_platform_id platform = NULL;
    cl_device_id device = NULL;
    cl_int err = clGetPlatformIDs(1, &platform, NULL);
    if (failed("clGetPlatformIDs", err) ||
        failed("clGetDeviceIDs",
               clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &device, NULL)))
        return 1;
    cl_context ctx = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
    if (failed("clCreateContext", err))
        return 1;
    cl_command_queue q = clCreateCommandQueue(ctx, device, 0, &err);
    cl_program prog = clCreateProgramWithSource(ctx, 1, &source, NULL, &err);
    if (failed("clCreateCommandQueue", err) ||
        failed("clBuildProgram",
               clBuildProgram(prog, 1, &device, "", NULL, NULL)))
        return 1;
    int init[4] = {1, 2, 3, 4};
    cl_mem in = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                               sizeof init, init, &err);
    cl_mem blank = clCreateBuffer(ctx, CL_MEM_READ_WRITE, sizeof init, NULL,
                                  &err);
    cl_mem out = clCreateBuffer(ctx, CL_MEM_READ_WRITE, sizeof init, NULL,
                                &err);
    const char *names[3] = {"oob", "race", "uninit"};
    int status = 0;
    for (int k = 0; k < 3; k++) {
        cl_kernel kern = clCreateKernel(prog, names[k], &err);
        if (failed(names[k], err))
            return 1;
        cl_mem src = k == 2 ? blank : in;
        size_t global = 4;
        status |= failed("clSetKernelArg",
                         clSetKernelArg(kern, 0, sizeof src, &src));
        status |= failed("clSetKernelArg",
                         clSetKernelArg(kern, 1, sizeof out, &out));
        status |= failed("clEnqueueNDRangeKernel",
                         clEnqueueNDRangeKernel(q, kern, 1, NULL, &global,
                                                NULL, 0, NULL, NULL));
        status |= failed("clFinish", clFinish(q));
        if (k == 0) /* the API misuse: a 1-byte cl_mem argument */
            status |= clSetKernelArg(kern, 0, 1, &src) == CL_SUCCESS;
        clReleaseKernel(kern);
        printf("canary: ran %s\n", names[k]);
    }
    clReleaseMemObject(in);
    clReleaseMemObject(blank);
    clReleaseMemObject(out);
    clReleaseProgram(prog);
    clReleaseCommandQueue(q);
    clReleaseContext(ctx);
    return status;
}
