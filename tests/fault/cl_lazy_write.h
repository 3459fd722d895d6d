/* SPDX-License-Identifier: Apache-2.0 */
/* A shim for the OpenCL API, linked into a test binary (as cl_fault.h),
 * that makes blocking clEnqueueWriteBuffer calls return as soon as they
 * have copied the host bytes, which is all OpenCL 1.2 (5.2.2) promises
 * and what Intel's CPU runtime does. The write then runs as late as it
 * may: at the next blocking read, after the last kernel enqueued on
 * another queue, or when its event or its queue is waited for. Single
 * threaded. */
#ifndef CLG_CL_LAZY_WRITE_H
#define CLG_CL_LAZY_WRITE_H

/* Turns lazy writes on or off (running any pending write first) and
 * resets the count. */
void cl_lazy_write_set(int on);
/* Blocking writes made lazy since the last cl_lazy_write_set. */
unsigned long cl_lazy_write_deferred(void);

#endif
