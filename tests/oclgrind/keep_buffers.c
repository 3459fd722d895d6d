/* SPDX-License-Identifier: Apache-2.0 */
/* Preloaded by the Oclgrind lane (ci/oclgrind.sh) ahead of Oclgrind's
 * runtime, so that no buffer id of Oclgrind's global memory is reused
 * within a context: the last clReleaseMemObject of a buffer keeps it.
 *
 * Oclgrind 21.10's uninitialised-value check keeps shadow memory per
 * buffer id and never drops it when a buffer is released, while its
 * allocator hands a released id to the next buffer made. A new buffer
 * then inherits the shadow of the old one: bytes beyond the old buffer's
 * size read as uninitialised whatever a kernel stored there, and a later
 * kernel reading them is reported (tests/oclgrind/reused_id.c shows it;
 * docs/design.md, "Implementations"). A kept buffer makes each new buffer
 * a fresh id, whose shadow starts uninitialised at its full size, so
 * reads of bytes that nothing wrote are still reported.
 *
 * Releases that are not the last, and sub-buffers (which share their
 * parent's id), go to Oclgrind. A kept buffer still holds its context, so
 * CL_CONTEXT_REFERENCE_COUNT is given less the buffers kept for that
 * context, as if they had been released. Kept buffers are test-sized and
 * live until the process exits. */
#define _GNU_SOURCE
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>

typedef struct {
    cl_context ctx;
    cl_uint kept;
} kept_count;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static kept_count *counts;
static size_t ncounts, cap;

/* The kept buffers of ctx, counted (add 1) or read (add 0). */
static cl_uint kept_in(cl_context ctx, cl_uint add)
{
    cl_uint kept = 0;
    pthread_mutex_lock(&lock);
    size_t i = 0;
    while (i < ncounts && counts[i].ctx != ctx)
        i++;
    if (i == ncounts && add) {
        if (ncounts == cap) {
            size_t grown = cap ? 2 * cap : 16;
            kept_count *p = realloc(counts, grown * sizeof *p);
            if (!p)
                abort();
            counts = p;
            cap = grown;
        }
        counts[ncounts++] = (kept_count){ctx, 0};
    }
    if (i < ncounts) {
        counts[i].kept += add;
        kept = counts[i].kept;
    }
    pthread_mutex_unlock(&lock);
    return kept;
}

cl_int clReleaseMemObject(cl_mem memobj)
{
    cl_int (*release)(cl_mem) = (cl_int(*)(cl_mem))dlsym(RTLD_NEXT,
                                                         "clReleaseMemObject");
    cl_uint refs = 0;
    cl_mem parent = NULL;
    cl_context ctx = NULL;
    if (!release)
        abort();
    if (clGetMemObjectInfo(memobj, CL_MEM_REFERENCE_COUNT, sizeof refs, &refs,
                           NULL) != CL_SUCCESS ||
        clGetMemObjectInfo(memobj, CL_MEM_ASSOCIATED_MEMOBJECT, sizeof parent,
                           &parent, NULL) != CL_SUCCESS ||
        clGetMemObjectInfo(memobj, CL_MEM_CONTEXT, sizeof ctx, &ctx, NULL) !=
            CL_SUCCESS ||
        refs > 1 || parent)
        return release(memobj);
    kept_in(ctx, 1);
    return CL_SUCCESS;
}

cl_int clGetContextInfo(cl_context context, cl_context_info param_name,
                        size_t param_value_size, void *param_value,
                        size_t *param_value_size_ret)
{
    cl_int (*info)(cl_context, cl_context_info, size_t, void *, size_t *) =
        (cl_int(*)(cl_context, cl_context_info, size_t, void *,
                   size_t *))dlsym(RTLD_NEXT, "clGetContextInfo");
    if (!info)
        abort();
    cl_int err = info(context, param_name, param_value_size, param_value,
                      param_value_size_ret);
    if (err == CL_SUCCESS && param_name == CL_CONTEXT_REFERENCE_COUNT &&
        param_value)
        *(cl_uint *)param_value -= kept_in(context, 0);
    return err;
}
