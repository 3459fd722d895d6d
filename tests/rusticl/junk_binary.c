/* SPDX-License-Identifier: Apache-2.0 */
/* A fault of Mesa's Rusticl 22.3, reproduced without clgather:
 * clCreateProgramWithBinary on bytes that are not one of its binaries
 * panics in Rust ("unknown version", rusticl/core/program.rs) and aborts
 * the process, where OpenCL 1.2, section 5.6.1, says it returns
 * CL_INVALID_BINARY.
 *
 * clgather never hands a runtime a binary it did not build on that very
 * platform, device and driver (docs/design.md, "Program cache"), so a
 * user cannot meet this; only device_disk_cache's "a binary the runtime
 * rejects" case, which writes such bytes into an entry on purpose, does.
 * That one case is not run on Rusticl; ci/rusticl.sh runs this program
 * and fails once the fault is gone, so that the exclusion goes with it.
 *
 * The call is made in a child process. Exit status: 1 when the fault is
 * present (the child died of a signal), 0 when the runtime refused the
 * bytes with an error code as it should, 2 on any other outcome, 77 when
 * there is no OpenCL device.
 *
 *   cc tests/rusticl/junk_binary.c -o junk_binary -lOpenCL   (or the build's
 *   tests/rusticl/rusticl_junk_binary)
 */
#define _POSIX_C_SOURCE 200809L
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static int try_junk(void)
{
    cl_platform_id platform;
    cl_device_id device;
    cl_int err = CL_SUCCESS, status = CL_SUCCESS;
    static unsigned char junk[4096];
    if (clGetPlatformIDs(1, &platform, NULL) != CL_SUCCESS ||
        clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &device, NULL) !=
            CL_SUCCESS)
        return 77;
    cl_context ctx = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
    if (!ctx)
        return 2;
    for (size_t k = 0; k < sizeof junk; k++)
        junk[k] = (unsigned char)(k * 131 + 7);
    const unsigned char *binaries[1] = {junk};
    size_t lengths[1] = {sizeof junk};
    cl_program program = clCreateProgramWithBinary(ctx, 1, &device, lengths,
                                                   binaries, &status, &err);
    printf("clCreateProgramWithBinary returned %d (binary status %d)\n",
           (int)err, (int)status);
    fflush(stdout);
    if (program)
        clReleaseProgram(program);
    clReleaseContext(ctx);
    return err == CL_INVALID_BINARY || status == CL_INVALID_BINARY ? 0 : 2;
}

int main(void)
{
    fflush(stdout);
    pid_t child = fork();
    if (child < 0)
        return 2;
    if (child == 0)
        _exit(try_junk());
    int st = 0;
    if (waitpid(child, &st, 0) != child)
        return 2;
    if (WIFSIGNALED(st)) {
        printf("fault present: clCreateProgramWithBinary on junk bytes "
               "killed the process (signal %d)\n",
               WTERMSIG(st));
        return 1;
    }
    int code = WIFEXITED(st) ? WEXITSTATUS(st) : 2;
    if (code == 0)
        printf("no fault: the junk bytes were refused with "
               "CL_INVALID_BINARY\n");
    return code;
}
