/* SPDX-License-Identifier: Apache-2.0 */
/* The Oclgrind lane's proof of an Oclgrind 21.10 limit (ci/oclgrind.sh;
 * docs/design.md, "Implementations"): its uninitialised-value check keeps
 * the shadow memory of a released buffer and gives it to the next buffer
 * that reuses its id. Here a 16-byte buffer is written by the host and
 * released; a 256-byte buffer made next gets its id; kernel `fill` writes
 * every int of it (b[i] = i), and kernel `use` reads out[i] = d[b[i]].
 * Every value is right, yet Oclgrind reports each read from i = 4 on (the
 * bytes past the old buffer's 16) as an address made from an
 * uninitialised value. With tests/oclgrind/keep_buffers.c preloaded (no
 * id reused) it reports nothing. Exits 0 when every call worked and every
 * value read back is right (the reports are the lane's to count). */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <stdio.h>

static const char *source =
    "__kernel void fill(__global int *b)\n"
    "{ size_t i = get_global_id(0); b[i] = (int)i; }\n"
    "__kernel void use(__global const float *d, __global const int *b,\n"
    "                  __global float *out)\n"
    "{ size_t i = get_global_id(0); out[i] = d[b[i]]; }\n";

enum { N = 64 };

int main(void)
{
    cl_platform_id platform;
    cl_device_id device;
    cl_int err = clGetPlatformIDs(1, &platform, NULL);
    if (err == CL_SUCCESS)
        err = clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &device, NULL);
    if (err != CL_SUCCESS) {
        fprintf(stderr, "reused_id: no OpenCL device (%d)\n", (int)err);
        return 1;
    }
    cl_context ctx = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
    cl_command_queue q = clCreateCommandQueue(ctx, device, 0, &err);
    cl_program prog = clCreateProgramWithSource(ctx, 1, &source, NULL, &err);
    err = clBuildProgram(prog, 1, &device, "", NULL, NULL);
    cl_kernel fill = clCreateKernel(prog, "fill", &err);
    cl_kernel use = clCreateKernel(prog, "use", &err);
    float host[N], got[N];
    int old[4] = {0, 1, 2, 3};
    for (int i = 0; i < N; i++)
        host[i] = (float)i + 0.5f;
    cl_mem d = clCreateBuffer(ctx, CL_MEM_READ_WRITE, sizeof host, NULL, &err);
    cl_mem out = clCreateBuffer(ctx, CL_MEM_READ_WRITE, sizeof got, NULL,
                                &err);
    cl_mem small = clCreateBuffer(ctx, CL_MEM_READ_WRITE, sizeof old, NULL,
                                  &err);
    err = clEnqueueWriteBuffer(q, d, CL_TRUE, 0, sizeof host, host, 0, NULL,
                               NULL);
    err |= clEnqueueWriteBuffer(q, small, CL_TRUE, 0, sizeof old, old, 0, NULL,
                                NULL);
    err |= clReleaseMemObject(small);
    cl_mem b = clCreateBuffer(ctx, CL_MEM_READ_WRITE, N * sizeof(int), NULL,
                              &err);
    size_t n = N;
    err |= clSetKernelArg(fill, 0, sizeof b, &b);
    err |= clEnqueueNDRangeKernel(q, fill, 1, NULL, &n, NULL, 0, NULL, NULL);
    err |= clSetKernelArg(use, 0, sizeof d, &d);
    err |= clSetKernelArg(use, 1, sizeof b, &b);
    err |= clSetKernelArg(use, 2, sizeof out, &out);
    err |= clEnqueueNDRangeKernel(q, use, 1, NULL, &n, NULL, 0, NULL, NULL);
    err |= clEnqueueReadBuffer(q, out, CL_TRUE, 0, sizeof got, got, 0, NULL,
                               NULL);
    int wrong = 0;
    for (int i = 0; i < N; i++)
        wrong += got[i] != host[i];
    printf("reused_id: %d of %d values wrong\n", wrong, N);
    return err != CL_SUCCESS || wrong != 0;
}
