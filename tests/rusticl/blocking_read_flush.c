/* SPDX-License-Identifier: Apache-2.0 */
/* A fault of Mesa's Rusticl 22.3, shown without clgather (docs/design.md,
 * "Threads"): a blocking clEnqueueReadBuffer returns before its command has
 * run when another thread flushes the same command queue meanwhile. OpenCL
 * 1.2 (section 5.2.2) says a blocking read returns once the bytes are in
 * host memory, and every API call but clSetKernelArg is thread-safe, so
 * the read must hold the kernel's result whatever the other thread does.
 *
 * The main thread enqueues a kernel writing `it` to every word of a buffer,
 * then a blocking read of the buffer into zeroed host memory, and checks
 * every word; a second thread calls clFlush on the same queue in a loop.
 * With the argument "wait" the read also returns an event that is waited
 * for before the check (the form clgather uses): that must pass everywhere.
 *
 * Usage: blocking_read_flush [wait] [SECONDS]  (default 30 s, the first
 * platform's first device: select it with OCL_ICD_VENDORS). Exit status 0:
 * no fault in that time; 1: a read returned before its data arrived (the
 * fault); 2: OpenCL setup failed. Rusticl 22.3 (llvmpipe) shows the fault
 * within a second; POCL 3.1 runs 30 s without it. */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define WORDS (1 << 16)

static const char *source = "__kernel void fill(__global uint *out, uint v)\n"
                            "{\n"
                            "    uint a = v;\n"
                            "    for (int i = 0; i < 64; i++)\n"
                            "        a = a * 1664525u + 1013904223u;\n"
                            "    out[get_global_id(0)] = a - a + v;\n"
                            "}\n";

static cl_command_queue queue = NULL;
static atomic_int stop;

static void *flusher(void *arg)
{
    (void)arg;
    while (!atomic_load(&stop))
        clFlush(queue);
    return NULL;
}

static int setup_failed(const char *call, cl_int err)
{
    fprintf(stderr, "blocking_read_flush: %s failed (%d)\n", call, (int)err);
    return 2;
}

int main(int argc, char **argv)
{
    int wait = 0;
    long seconds = 30;
    for (int a = 1; a < argc; a++) {
        if (!strcmp(argv[a], "wait"))
            wait = 1;
        else
            seconds = strtol(argv[a], NULL, 10);
    }
    cl_platform_id platform = NULL;
    cl_device_id device = NULL;
    cl_int err = clGetPlatformIDs(1, &platform, NULL);
    if (err != CL_SUCCESS)
        return setup_failed("clGetPlatformIDs", err);
    if ((err = clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &device,
                              NULL)) != CL_SUCCESS)
        return setup_failed("clGetDeviceIDs", err);
    char name[256] = "";
    clGetDeviceInfo(device, CL_DEVICE_NAME, sizeof name, name, NULL);
    cl_context context = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
    if (!context)
        return setup_failed("clCreateContext", err);
    queue = clCreateCommandQueue(context, device, 0, &err);
    if (!queue)
        return setup_failed("clCreateCommandQueue", err);
    cl_program program = clCreateProgramWithSource(context, 1, &source, NULL,
                                                   &err);
    if (!program)
        return setup_failed("clCreateProgramWithSource", err);
    if ((err = clBuildProgram(program, 1, &device, "", NULL, NULL)) !=
        CL_SUCCESS)
        return setup_failed("clBuildProgram", err);
    cl_kernel kernel = clCreateKernel(program, "fill", &err);
    if (!kernel)
        return setup_failed("clCreateKernel", err);
    cl_mem buffer = clCreateBuffer(context, CL_MEM_READ_WRITE,
                                   WORDS * sizeof(cl_uint), NULL, &err);
    if (!buffer)
        return setup_failed("clCreateBuffer", err);
    cl_uint *host = malloc(WORDS * sizeof(cl_uint));
    if (!host)
        return setup_failed("malloc", CL_OUT_OF_HOST_MEMORY);

    pthread_t thread;
    if (pthread_create(&thread, NULL, flusher, NULL) != 0)
        return setup_failed("pthread_create", 0);
    time_t start = time(NULL);
    int fault = 0;
    cl_uint it = 0;
    while (!fault && time(NULL) - start < seconds) {
        size_t global = WORDS;
        cl_event ev = NULL;
        it++;
        memset(host, 0, WORDS * sizeof(cl_uint));
        clSetKernelArg(kernel, 0, sizeof buffer, &buffer);
        clSetKernelArg(kernel, 1, sizeof it, &it);
        err = clEnqueueNDRangeKernel(queue, kernel, 1, NULL, &global, NULL, 0,
                                     NULL, NULL);
        if (err == CL_SUCCESS)
            err = clEnqueueReadBuffer(queue, buffer, CL_TRUE, 0,
                                      WORDS * sizeof(cl_uint), host, 0, NULL,
                                      wait ? &ev : NULL);
        if (err == CL_SUCCESS && ev)
            err = clWaitForEvents(1, &ev);
        if (ev)
            clReleaseEvent(ev);
        if (err != CL_SUCCESS) {
            atomic_store(&stop, 1);
            pthread_join(thread, NULL);
            return setup_failed("an enqueue or wait", err);
        }
        for (size_t i = 0; i < WORDS; i++)
            if (host[i] != it) {
                printf("iteration %u: the blocking read returned CL_SUCCESS "
                       "but word %zu is %u, not %u\n",
                       (unsigned)it, i, (unsigned)host[i], (unsigned)it);
                fault = 1;
                break;
            }
        clFinish(queue);
    }
    atomic_store(&stop, 1);
    pthread_join(thread, NULL);
    printf("%s: %u iterations in %ld s%s: %s\n", name, (unsigned)it,
           (long)(time(NULL) - start), wait ? ", reads waited for" : "",
           fault ? "FAULT (a blocking read returned before its data)"
                 : "no fault");
    clReleaseMemObject(buffer);
    clReleaseKernel(kernel);
    clReleaseProgram(program);
    clReleaseCommandQueue(queue);
    clReleaseContext(context);
    free(host);
    return fault;
}
