/* SPDX-License-Identifier: Apache-2.0 */
/* The ThreadSanitizer lane's canary (ci/tsan.sh): two threads write one
 * int with no synchronisation, after the OpenCL runtime is loaded and
 * running in the process. Built with the lane's flags and run under its
 * TSAN_OPTIONS, it must be reported as a data race in race_canary.c: so
 * ThreadSanitizer is on with POCL in the process, and the lane's report
 * counting sees what it reports. Not a ctest test: it fails on purpose. */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>

#include <pthread.h>
#include <stdio.h>

static int shared; /* written by both threads, unguarded */

static void *writer(void *arg)
{
    shared += (int)(size_t)arg;
    return NULL;
}

int main(void)
{
    cl_uint platforms = 0;
    if (clGetPlatformIDs(0, NULL, &platforms) != CL_SUCCESS || platforms == 0)
        return 77; /* no OpenCL platform */
    pthread_t a, b;
    pthread_create(&a, NULL, writer, (void *)1);
    pthread_create(&b, NULL, writer, (void *)2);
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    printf("shared = %d\n", shared);
    return 0;
}
