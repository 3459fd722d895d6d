/* SPDX-License-Identifier: Apache-2.0 */
/* Contexts: device, cl_context and command queue, the device facts plans
 * are made from, the locks and the sink slot (OpenCL 1.2 API sections 4.4
 * and 5.1). */
#define _POSIX_C_SOURCE 200809L /* getpid, pthread_atfork */
#include "context.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Source of the sink slot's zeros. */
static const cl_int zero_flag[2] = {0, 0};

/* Context ids, unique in the process (host/errors.c keys on them). */
static atomic_uint_fast64_t next_context_id = 1;

/* fork (docs/guide.md, "Processes and fork"): 1 in a process forked from
 * one that had begun creating a context, so had loaded and started the
 * OpenCL implementation; set by the child handler pthread_atfork runs.
 * Until then no call pays for a getpid. */
static atomic_int forked_child;
static pthread_once_t fork_once = PTHREAD_ONCE_INIT;

static void at_fork_child(void)
{
    atomic_store(&forked_child, 1);
}

static void watch_fork(void)
{
    pthread_atfork(NULL, NULL, at_fork_child);
}

/* The platform (CL_PLATFORM_NAME) known to run in a forked child:
 * Intel's CPU runtime. */
#define FORK_SAFE_PLATFORM "Intel(R) OpenCL"

/* Refuses a context in a forked child of a process that had used OpenCL,
 * on every implementation but the one known to run there: POCL's device
 * threads and llvmpipe's (Mesa's Rusticl) are not in the child, so the
 * first command would wait for ever. */
static clg_status check_fork_platform(cl_platform_id platform)
{
    char name[256] = "";
    if (!atomic_load(&forked_child) ||
        (clGetPlatformInfo(platform, CL_PLATFORM_NAME, sizeof name, name,
                           NULL) == CL_SUCCESS &&
         strstr(name, FORK_SAFE_PLATFORM) != NULL))
        return CLG_STATUS_OK;
    return clg_fail(NULL, CLG_STATUS_DEVICE_NOT_FOUND,
                    "this process (%ld) was forked from one that had "
                    "already used OpenCL, and the threads of %s do not "
                    "survive fork: a context on it would hang at its first "
                    "command. Create contexts in a process started afresh "
                    "(Python: multiprocessing's 'spawn' or 'forkserver' "
                    "start method; C: fork then exec) or before any "
                    "OpenCL use in the parent",
                    (long)getpid(), name[0] ? name : "this implementation");
}

clg_status clg_rt_check_process(const clg_context *ctx)
{
    if (!atomic_load_explicit(&forked_child, memory_order_relaxed) ||
        (long)getpid() == ctx->pid)
        return CLG_STATUS_OK;
    return clg_fail((clg_context *)ctx, CLG_STATUS_INVALID_ARGUMENT,
                    "this context was created in process %ld, and this is "
                    "process %ld, a child forked from it: OpenCL objects do "
                    "not survive fork (on POCL every call would hang). A "
                    "forked child must create its own context (where the "
                    "implementation allows it), or be started with "
                    "multiprocessing's 'spawn' method; in the child, "
                    "clg_context_destroy only forgets this one",
                    ctx->pid, (long)getpid());
}

/* The largest data or unified cache of the host's first CPU, in bytes,
 * as Linux describes it (/sys/devices/system/cpu/cpu0/cache/indexN:
 * `type`, and `size` such as "32768K"); 0 elsewhere or where it cannot be
 * read. */
static uint64_t host_cache_bytes(void)
{
    uint64_t best = 0;
#ifdef __linux__
    for (int i = 0; i < 8; i++) {
        char path[96], text[32] = {0};
        unsigned long long size = 0;
        char scale = 0;
        snprintf(path, sizeof path,
                 "/sys/devices/system/cpu/cpu0/cache/index%d/type", i);
        FILE *f = fopen(path, "r");
        if (!f)
            break;
        int instruction = fgets(text, sizeof text, f) &&
                          strncmp(text, "Instruction", 11) == 0;
        fclose(f);
        snprintf(path, sizeof path,
                 "/sys/devices/system/cpu/cpu0/cache/index%d/size", i);
        if (instruction || !(f = fopen(path, "r")))
            continue;
        int got = fscanf(f, "%llu%c", &size, &scale);
        fclose(f);
        if (got < 1 || size > (UINT64_MAX >> 30))
            continue;
        size *= scale == 'K' ? 1024 : scale == 'M' ? 1024 * 1024 : 1;
        if (size > best)
            best = size;
    }
#endif
    return best;
}

static clg_status query_device(clg_context *ctx)
{
    cl_int err;
    cl_device_type type = 0;
    cl_bool unified = CL_FALSE;
    clg_device_facts *f = &ctx->facts;
    if ((err = clGetDeviceInfo(ctx->device, CL_DEVICE_TYPE, sizeof type, &type,
                               NULL)) != CL_SUCCESS ||
        (err = clGetDeviceInfo(ctx->device, CL_DEVICE_MAX_MEM_ALLOC_SIZE,
                               sizeof f->max_alloc, &f->max_alloc, NULL)) !=
            CL_SUCCESS ||
        (err = clGetDeviceInfo(ctx->device, CL_DEVICE_MAX_WORK_GROUP_SIZE,
                               sizeof f->max_wg_size, &f->max_wg_size,
                               NULL)) != CL_SUCCESS ||
        (err = clGetDeviceInfo(ctx->device, CL_DEVICE_MAX_WORK_ITEM_SIZES,
                               sizeof f->max_item_sizes, f->max_item_sizes,
                               NULL)) != CL_SUCCESS)
        return clg_fail_cl(ctx, err, "clGetDeviceInfo");
    /* Deprecated in OpenCL 2.0 but still answered; absent means "no". */
    if (clGetDeviceInfo(ctx->device, CL_DEVICE_HOST_UNIFIED_MEMORY,
                        sizeof unified, &unified, NULL) != CL_SUCCESS)
        unified = CL_FALSE;
    ctx->type = clg_device_type_from_cl(type);
    ctx->host_unified = unified == CL_TRUE;
    f->plan_type = ctx->type;
    f->host_unified = ctx->host_unified;
    cl_uint align_bits = 0;
    if (clGetDeviceInfo(ctx->device, CL_DEVICE_MEM_BASE_ADDR_ALIGN,
                        sizeof align_bits, &align_bits, NULL) != CL_SUCCESS)
        align_bits = 4096; /* the largest any device reports */
    ctx->slot_stride = align_bits / 8 < 8 ? 8 : align_bits / 8;
    f->base_align = align_bits / 8;
    cl_ulong cache = 0;
    if (clGetDeviceInfo(ctx->device, CL_DEVICE_GLOBAL_MEM_CACHE_SIZE,
                        sizeof cache, &cache, NULL) != CL_SUCCESS)
        cache = 0;
    /* A CPU device shares the host's caches, and some runtimes report one
     * core's L2 there (Intel's CPU runtime: 1 MiB beside a 32 MiB L3);
     * the non-temporal store rules need the last level's size. */
    if (ctx->type == CLG_DEVICE_TYPE_CPU && ctx->host_unified) {
        uint64_t host = host_cache_bytes();
        if (host > cache)
            cache = host;
    }
    f->cache_bytes = cache;
    clGetDeviceInfo(ctx->device, CL_DEVICE_NAME, sizeof ctx->device_name,
                    ctx->device_name, NULL);
    clGetDeviceInfo(ctx->device, CL_DEVICE_VENDOR, sizeof ctx->device_vendor,
                    ctx->device_vendor, NULL);
    clGetDeviceInfo(ctx->device, CL_DEVICE_VERSION, sizeof ctx->device_version,
                    ctx->device_version, NULL);
    clGetDeviceInfo(ctx->device, CL_DRIVER_VERSION, sizeof ctx->driver_version,
                    ctx->driver_version, NULL);
    cl_platform_id platform = NULL;
    if (clGetDeviceInfo(ctx->device, CL_DEVICE_PLATFORM, sizeof platform,
                        &platform, NULL) == CL_SUCCESS &&
        platform != NULL) {
        clGetPlatformInfo(platform, CL_PLATFORM_NAME,
                          sizeof ctx->platform_name, ctx->platform_name, NULL);
        clGetPlatformInfo(platform, CL_PLATFORM_VERSION,
                          sizeof ctx->platform_version, ctx->platform_version,
                          NULL);
    }
    f->host_svm = f->host_unified &&
                  clg_rt_query_svm(ctx->device, ctx->device_version);
    return CLG_STATUS_OK;
}

/* Applies the environment read at creation (host/env.c). */
static void apply_env(clg_context *ctx)
{
    if (ctx->env.max_alloc && ctx->env.max_alloc < ctx->facts.max_alloc)
        ctx->facts.max_alloc = ctx->env.max_alloc;
    if (ctx->env.plan == CLG_ENV_PLAN_GPU) {
        ctx->facts.plan_type = CLG_DEVICE_TYPE_GPU;
        ctx->facts.host_unified = 0;
        ctx->facts.host_svm = 0;
    }
    if (ctx->env.no_svm)
        ctx->facts.host_svm = 0;
    if (ctx->env.plan == CLG_ENV_PLAN_CPU)
        ctx->facts.plan_type = CLG_DEVICE_TYPE_CPU;
    if (ctx->env.validate)
        atomic_store(&ctx->validation, CLG_RT_VALIDATE);
    ctx->disk.set = ctx->env.cache; /* the program cache's folder and cap */
}

/* The locks (once; destroy releases them only then). */
static clg_status init_locks(clg_context *ctx)
{
    pthread_mutex_t *locks[] = {&ctx->cache_lock,  &ctx->launch_lock,
                                &ctx->epoch_lock,  &ctx->finish_lock,
                                &ctx->params_lock, &ctx->test_lock,
                                &ctx->park_lock};
    for (size_t i = 0; i < sizeof locks / sizeof locks[0]; i++)
        if (pthread_mutex_init(locks[i], NULL) != 0) {
            while (i-- > 0)
                pthread_mutex_destroy(locks[i]);
            return clg_fail(ctx, CLG_STATUS_OUT_OF_MEMORY,
                            "cannot create the context's locks");
        }
    ctx->locks_ready = 1;
    return CLG_STATUS_OK;
}

/* Queries the device and its queue, applies the environment read at
 * creation, creates the locks and the sink slot. */
static clg_status setup_context(clg_context *ctx)
{
    cl_int err;
    clg_status st;
    cl_command_queue_properties props = 0;
    if ((st = init_locks(ctx)) != CLG_STATUS_OK ||
        (st = query_device(ctx)) != CLG_STATUS_OK)
        return st;
    apply_env(ctx);
    if ((err = clGetCommandQueueInfo(ctx->queue, CL_QUEUE_PROPERTIES,
                                     sizeof props, &props, NULL)) !=
        CL_SUCCESS)
        return clg_fail_cl(ctx, err, "clGetCommandQueueInfo");
    ctx->queue_out_of_order = (props &
                               CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE) != 0;
    ctx->own_queue = clCreateCommandQueue(ctx->cl_ctx, ctx->device, 0, &err);
    if (!ctx->own_queue)
        return clg_fail_cl(ctx, err, "clCreateCommandQueue(own queue)");
    ctx->sink = clCreateBuffer(ctx->cl_ctx,
                               CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                               sizeof zero_flag, (void *)zero_flag, &err);
    if (!ctx->sink)
        return clg_fail_cl(ctx, err, "clCreateBuffer(sink slot)");
    clg_clear_error(ctx);
    return CLG_STATUS_OK;
}

/* Finishes a context whose device, cl_context and queue are set, taking
 * ownership: on success publishes it in *out, on failure moves its message
 * to the thread's last error and destroys it. */
static clg_status finish_context(clg_context *ctx, clg_context **out)
{
    clg_status st = setup_context(ctx);
    if (st != CLG_STATUS_OK) {
        /* The message and the raw OpenCL code move together. */
        cl_int code = clg_context_last_cl_error(ctx);
        clg_fail(NULL, st, "%s", clg_context_last_error(ctx));
        if (code != CL_SUCCESS)
            clg_set_cl_error(NULL, code);
        clg_context_destroy(ctx);
        return st;
    }
    *out = ctx;
    clg_clear_error(NULL);
    return CLG_STATUS_OK;
}

clg_status clg_context_create(clg_context **out, const char *device_spec)
{
    clg_context *ctx = NULL;
    clg_status st = CLG_STATUS_OK;
    cl_int err = CL_SUCCESS;
    cl_platform_id platform = NULL;
    char msg[CLG_ERROR_CAPACITY];
    if (!out)
        return clg_fail(NULL, CLG_STATUS_NULL_POINTER, "ctx is NULL");
    *out = NULL;
    ctx = calloc(1, sizeof *ctx);
    if (!ctx)
        return clg_fail(NULL, CLG_STATUS_OUT_OF_MEMORY,
                        "out of host memory creating a context");
    ctx->id = atomic_fetch_add(&next_context_id, 1);
    ctx->pid = (long)getpid();
    pthread_once(&fork_once, watch_fork);
    st = clg_env_read(&ctx->env, msg, sizeof msg);
    if (st == CLG_STATUS_OK)
        st = clg_devices_select(device_spec, ctx->env.device, &platform,
                                &ctx->device, msg, sizeof msg, &err);
    if (st != CLG_STATUS_OK) {
        clg_fail(NULL, st, "%s", msg);
        if (err != CL_SUCCESS)
            clg_set_cl_error(NULL, err);
        goto cleanup;
    }
    if ((st = check_fork_platform(platform)) != CLG_STATUS_OK)
        goto cleanup;
    cl_context_properties props[] = {CL_CONTEXT_PLATFORM,
                                     (cl_context_properties)platform, 0};
    ctx->cl_ctx = clCreateContext(props, 1, &ctx->device, NULL, NULL, &err);
    if (!ctx->cl_ctx) {
        st = clg_fail_cl(NULL, err, "clCreateContext");
        goto cleanup;
    }
    ctx->queue = clCreateCommandQueue(ctx->cl_ctx, ctx->device, 0, &err);
    if (!ctx->queue) {
        st = clg_fail_cl(NULL, err, "clCreateCommandQueue");
        goto cleanup;
    }
    return finish_context(ctx, out);
cleanup:
    clg_context_destroy(ctx);
    return st;
}

clg_status clg_context_create_from_cl(clg_context **out, cl_context context,
                                      cl_device_id device,
                                      cl_command_queue queue)
{
    clg_context *ctx = NULL;
    cl_int err;
    if (!out || !context || !device || !queue)
        return clg_fail(NULL, CLG_STATUS_NULL_POINTER, "%s is NULL",
                        !out       ? "ctx"
                        : !context ? "context"
                        : !device  ? "device"
                                   : "queue");
    *out = NULL;
    cl_device_id qdev = NULL;
    cl_context qctx = NULL;
    cl_platform_id platform = NULL;
    clg_status st;
    pthread_once(&fork_once, watch_fork);
    if (clGetDeviceInfo(device, CL_DEVICE_PLATFORM, sizeof platform, &platform,
                        NULL) == CL_SUCCESS &&
        (st = check_fork_platform(platform)) != CLG_STATUS_OK)
        return st;
    if ((err = clGetCommandQueueInfo(queue, CL_QUEUE_DEVICE, sizeof qdev,
                                     &qdev, NULL)) != CL_SUCCESS ||
        (err = clGetCommandQueueInfo(queue, CL_QUEUE_CONTEXT, sizeof qctx,
                                     &qctx, NULL)) != CL_SUCCESS)
        return clg_fail_cl(NULL, err, "clGetCommandQueueInfo");
    if (qdev != device)
        return clg_fail(NULL, CLG_STATUS_INVALID_ARGUMENT,
                        "device is not the device of the command queue");
    if (qctx != context)
        return clg_fail(NULL, CLG_STATUS_INVALID_ARGUMENT,
                        "context is not the cl_context of the command queue");
    ctx = calloc(1, sizeof *ctx);
    if (!ctx)
        return clg_fail(NULL, CLG_STATUS_OUT_OF_MEMORY,
                        "out of host memory creating a context");
    ctx->id = atomic_fetch_add(&next_context_id, 1);
    ctx->pid = (long)getpid();
    ctx->device = device;
    ctx->cl_ctx = context;
    ctx->queue = queue;
    clRetainContext(context);
    clRetainCommandQueue(queue);
    char msg[CLG_ERROR_CAPACITY];
    st = clg_env_read(&ctx->env, msg, sizeof msg);
    if (st != CLG_STATUS_OK) {
        clg_fail(NULL, st, "%s", msg);
        clg_context_destroy(ctx);
        return st;
    }
    return finish_context(ctx, out);
}

void clg_context_destroy(clg_context *ctx)
{
    if (!ctx)
        return;
    /* A parent's context in a forked child: its OpenCL objects, locks and
     * pending operations are the parent's (a wait or release could hang,
     * a lock be held by a thread the child does not have), so nothing is
     * touched; the child's copy of its memory is left as it is. */
    if (clg_rt_check_process(ctx) != CLG_STATUS_OK)
        return;
    if (ctx->queue)
        clFinish(ctx->queue);
    if (ctx->locks_ready)
        clg_calls_release(ctx);
    clg_programs_release(ctx);
    if (ctx->own_queue)
        clReleaseCommandQueue(ctx->own_queue);
    if (ctx->queue)
        clReleaseCommandQueue(ctx->queue);
    if (ctx->cl_ctx)
        clReleaseContext(ctx->cl_ctx);
    if (ctx->locks_ready) {
        pthread_mutex_destroy(&ctx->cache_lock);
        pthread_mutex_destroy(&ctx->launch_lock);
        pthread_mutex_destroy(&ctx->epoch_lock);
        pthread_mutex_destroy(&ctx->finish_lock);
        pthread_mutex_destroy(&ctx->params_lock);
        pthread_mutex_destroy(&ctx->test_lock);
        pthread_mutex_destroy(&ctx->park_lock);
    }
    free(ctx);
}

const clg_device_facts *clg_rt_facts(const clg_context *ctx)
{
    return &ctx->facts;
}

clg_rt_params *clg_rt_params_lock(clg_context *ctx)
{
    pthread_mutex_lock(&ctx->params_lock);
    return &ctx->params;
}

void clg_rt_params_unlock(clg_context *ctx)
{
    pthread_mutex_unlock(&ctx->params_lock);
}

const char *clg_rt_env_params(const clg_context *ctx)
{
    return ctx->env.params;
}

const char *clg_context_params_env(const clg_context *ctx)
{
    return ctx && ctx->env.params[0] ? ctx->env.params : NULL;
}

uint64_t clg_rt_id(const clg_context *ctx)
{
    return ctx->id;
}

const char *clg_context_device_name(const clg_context *ctx)
{
    return ctx ? ctx->device_name : "";
}
const char *clg_context_device_vendor(const clg_context *ctx)
{
    return ctx ? ctx->device_vendor : "";
}
const char *clg_context_device_version(const clg_context *ctx)
{
    return ctx ? ctx->device_version : "";
}

const char *clg_context_platform_name(const clg_context *ctx)
{
    return ctx ? ctx->platform_name : "";
}

const char *clg_context_platform_version(const clg_context *ctx)
{
    return ctx ? ctx->platform_version : "";
}

const char *clg_context_driver_version(const clg_context *ctx)
{
    return ctx ? ctx->driver_version : "";
}
clg_device_type clg_context_device_type(const clg_context *ctx)
{
    return ctx ? ctx->type : CLG_DEVICE_TYPE_OTHER;
}
int clg_context_uses_host_memory(const clg_context *ctx)
{
    return ctx ? ctx->facts.host_unified : 0;
}
int clg_context_uses_svm(const clg_context *ctx)
{
    return ctx ? ctx->facts.host_svm : 0;
}
uint64_t clg_context_max_alloc_size(const clg_context *ctx)
{
    return ctx ? ctx->facts.max_alloc : 0;
}
cl_context clg_context_cl_context(const clg_context *ctx)
{
    return ctx ? ctx->cl_ctx : NULL;
}
cl_device_id clg_context_cl_device(const clg_context *ctx)
{
    return ctx ? ctx->device : NULL;
}
cl_command_queue clg_context_cl_queue(const clg_context *ctx)
{
    return ctx ? ctx->queue : NULL;
}

clg_status clg_context_set_validate(clg_context *ctx, int on)
{
    if (!ctx)
        return clg_fail(NULL, CLG_STATUS_NULL_POINTER, "ctx is NULL");
    if (on)
        atomic_fetch_or(&ctx->validation, CLG_RT_VALIDATE);
    else
        atomic_fetch_and(&ctx->validation, ~CLG_RT_VALIDATE);
    clg_clear_error(ctx);
    return CLG_STATUS_OK;
}

unsigned clg_rt_validation(const clg_context *ctx)
{
    return atomic_load(&((clg_context *)ctx)->validation);
}

int clg_context_validates(const clg_context *ctx)
{
    return ctx ? (clg_rt_validation(ctx) & CLG_RT_VALIDATE) != 0 : 0;
}
