/* SPDX-License-Identifier: Apache-2.0 */
/* A fault-injection shim for the OpenCL API, linked into a test binary:
 * the binary's own definitions of the cl* functions clgather calls take
 * the place of the ICD loader's (the library is linked statically into the
 * test), count every call, make the Nth one fail with CL_OUT_OF_RESOURCES
 * and forward the others to the ICD loader (libOpenCL.so.1, by dlopen). Releases and
 * retains are forwarded and never fail: failing them could only leak. */
#ifndef CLG_CL_FAULT_H
#define CLG_CL_FAULT_H

#include <stdint.h>

/* Counts calls from now on; the call numbered `fail_at` (1-based) fails,
 * and none does when fail_at is 0. */
void cl_fault_arm(uint64_t fail_at);
/* Stops counting (and failing) until the next cl_fault_arm. */
void cl_fault_pause(void);
/* Counts (and fails) again after a pause, from where it stopped. */
void cl_fault_resume(void);
/* Calls counted since the last cl_fault_arm. */
uint64_t cl_fault_calls(void);
/* The name of the call that was made to fail ("" when none did), and
 * whether a kernel had been enqueued before it. */
const char *cl_fault_failed_call(void);
int cl_fault_kernel_enqueued_before(void);

#endif
