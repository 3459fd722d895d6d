/* OpenCL host runtime: context and command queue, lazy per-variant program
 * builds cached in the context (build log kept, never printed), scratch
 * buffers for devices that do not share host memory, kernel launch and the
 * device error flag. OpenCL 1.2 API sections 4-5. */
#include "internal.h"
#include "kernels_embedded.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ context */

/* Source of the device error flag's zero. */
static const cl_int zero_flag[2] = {0, 0};

clg_status clg_runtime_query_device(clg_context *ctx)
{
    cl_int err;
    cl_device_type type = 0;
    cl_bool unified = CL_FALSE;
    if ((err = clGetDeviceInfo(ctx->device, CL_DEVICE_TYPE, sizeof type, &type,
                               NULL)) != CL_SUCCESS ||
        (err = clGetDeviceInfo(ctx->device, CL_DEVICE_MAX_MEM_ALLOC_SIZE,
                               sizeof ctx->max_alloc, &ctx->max_alloc,
                               NULL)) != CL_SUCCESS ||
        (err = clGetDeviceInfo(ctx->device, CL_DEVICE_GLOBAL_MEM_SIZE,
                               sizeof ctx->global_mem, &ctx->global_mem,
                               NULL)) != CL_SUCCESS ||
        (err = clGetDeviceInfo(ctx->device, CL_DEVICE_MAX_WORK_GROUP_SIZE,
                               sizeof ctx->max_wg_size, &ctx->max_wg_size,
                               NULL)) != CL_SUCCESS ||
        (err = clGetDeviceInfo(ctx->device, CL_DEVICE_MAX_WORK_ITEM_SIZES,
                               sizeof ctx->max_item_sizes, ctx->max_item_sizes,
                               NULL)) != CL_SUCCESS)
        return clg_fail_cl(ctx, err, "clGetDeviceInfo");
    /* Deprecated in OpenCL 2.0 but still answered; absent means "no". */
    if (clGetDeviceInfo(ctx->device, CL_DEVICE_HOST_UNIFIED_MEMORY,
                        sizeof unified, &unified, NULL) != CL_SUCCESS)
        unified = CL_FALSE;
    ctx->type = (type & CL_DEVICE_TYPE_GPU)           ? CLG_DEVICE_TYPE_GPU
                : (type & CL_DEVICE_TYPE_CPU)         ? CLG_DEVICE_TYPE_CPU
                : (type & CL_DEVICE_TYPE_ACCELERATOR) ? CLG_DEVICE_TYPE_ACCELERATOR
                                                      : CLG_DEVICE_TYPE_OTHER;
    ctx->host_unified = unified == CL_TRUE;
    clGetDeviceInfo(ctx->device, CL_DEVICE_NAME, sizeof ctx->device_name,
                    ctx->device_name, NULL);
    clGetDeviceInfo(ctx->device, CL_DEVICE_VENDOR, sizeof ctx->device_vendor,
                    ctx->device_vendor, NULL);
    clGetDeviceInfo(ctx->device, CL_DEVICE_VERSION, sizeof ctx->device_version,
                    ctx->device_version, NULL);
    return CLG_STATUS_OK;
}

/* Queries the device and creates the error flag. */
static clg_status setup_context(clg_context *ctx)
{
    cl_int err;
    clg_status st = clg_runtime_query_device(ctx);
    if (st != CLG_STATUS_OK)
        return st;
    /* CLGATHER_MAX_ALLOC (bytes) lowers the size of one buffer, so that
     * the split paths can be exercised with small tensors. */
    const char *cap = getenv("CLGATHER_MAX_ALLOC");
    if (cap && *cap) {
        char *end = NULL;
        /* Digits only (strtoull alone takes "-1" and leading spaces), and
         * at most 19 of them so that the value cannot overflow. */
        size_t digits = strspn(cap, "0123456789");
        unsigned long long v = strtoull(cap, &end, 10);
        if (digits != strlen(cap) || digits > 19)
            end = (char *)"x";
        /* Below 1 KiB the pieces and windows multiply into millions of
         * launches for megabyte tensors, with nothing more to test. */
        if (*end != '\0' || v < 1024)
            return clg_fail(ctx, CLG_STATUS_INVALID_ARGUMENT,
                            "CLGATHER_MAX_ALLOC=\"%s\" is not a byte count "
                            ">= 1024", cap);
        if (v < ctx->max_alloc)
            ctx->max_alloc = v;
    }
    ctx->flag = clCreateBuffer(ctx->cl_ctx,
                               CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                               sizeof zero_flag, (void *)zero_flag, &err);
    if (!ctx->flag)
        return clg_fail_cl(ctx, err, "clCreateBuffer(error flag)");
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
        clg_fail(NULL, st, "%s", ctx->last_error);
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
    char msg[CLG_ERROR_CAPACITY];
    if (!out)
        return clg_fail(NULL, CLG_STATUS_NULL_POINTER, "ctx is NULL");
    *out = NULL;
    ctx = calloc(1, sizeof *ctx);
    if (!ctx)
        return clg_fail(NULL, CLG_STATUS_OUT_OF_MEMORY,
                        "out of host memory creating a context");
    st = clg_devices_select(device_spec, &ctx->platform, &ctx->device, msg,
                            sizeof msg);
    if (st != CLG_STATUS_OK) {
        clg_fail(NULL, st, "%s", msg);
        goto cleanup;
    }
    cl_context_properties props[] = {CL_CONTEXT_PLATFORM,
                                     (cl_context_properties)ctx->platform, 0};
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
    cl_command_queue_properties qprops = 0;
    if ((err = clGetCommandQueueInfo(queue, CL_QUEUE_DEVICE, sizeof qdev, &qdev,
                                     NULL)) != CL_SUCCESS ||
        (err = clGetCommandQueueInfo(queue, CL_QUEUE_PROPERTIES, sizeof qprops,
                                     &qprops, NULL)) != CL_SUCCESS)
        return clg_fail_cl(NULL, err, "clGetCommandQueueInfo");
    if (qdev != device)
        return clg_fail(NULL, CLG_STATUS_INVALID_ARGUMENT,
                        "device is not the device of the command queue");
    if (qprops & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE)
        return clg_fail(NULL, CLG_STATUS_INVALID_ARGUMENT,
                        "the command queue is out of order; clgather needs an "
                        "in-order queue");
    ctx = calloc(1, sizeof *ctx);
    if (!ctx)
        return clg_fail(NULL, CLG_STATUS_OUT_OF_MEMORY,
                        "out of host memory creating a context");
    clGetDeviceInfo(device, CL_DEVICE_PLATFORM, sizeof ctx->platform,
                    &ctx->platform, NULL);
    ctx->device = device;
    ctx->cl_ctx = context;
    ctx->queue = queue;
    clRetainContext(context);
    clRetainCommandQueue(queue);
    return finish_context(ctx, out);
}

void clg_context_destroy(clg_context *ctx)
{
    if (!ctx)
        return;
    if (ctx->queue)
        clFinish(ctx->queue);
    for (size_t i = 0; i < ctx->variant_count; i++) {
        clg_variant *v = &ctx->variants[i];
        if (v->kernel)
            clReleaseKernel(v->kernel);
        if (v->check_kernel)
            clReleaseKernel(v->check_kernel);
        if (v->program)
            clReleaseProgram(v->program);
    }
    free(ctx->variants);
    for (int i = 0; i < 3; i++)
        if (ctx->scratch[i])
            clReleaseMemObject(ctx->scratch[i]);
    if (ctx->flag)
        clReleaseMemObject(ctx->flag);
    if (ctx->queue)
        clReleaseCommandQueue(ctx->queue);
    if (ctx->cl_ctx)
        clReleaseContext(ctx->cl_ctx);
    free(ctx->build_log);
    free(ctx);
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
clg_device_type clg_context_device_type(const clg_context *ctx)
{
    return ctx ? ctx->type : CLG_DEVICE_TYPE_OTHER;
}
int clg_context_uses_host_memory(const clg_context *ctx)
{
    return ctx ? ctx->host_unified : 0;
}
uint64_t clg_context_max_alloc_size(const clg_context *ctx)
{
    return ctx ? ctx->max_alloc : 0;
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

/* ------------------------------------------------------------ programs */

static const char *kernel_file(clg_op op)
{
    return op == CLG_OP_GATHER ? "gather.cl" : "gather_elements.cl";
}

static const char *embedded(const char *name)
{
    for (size_t i = 0; i < clg_kernel_source_count; i++)
        if (!strcmp(clg_kernel_sources[i].name, name))
            return clg_kernel_sources[i].text;
    return NULL;
}

/* Keeps the build log of a failed build in ctx->build_log. */
static void keep_build_log(clg_context *ctx, cl_program program)
{
    size_t size = 0;
    free(ctx->build_log);
    ctx->build_log = NULL;
    if (clGetProgramBuildInfo(program, ctx->device, CL_PROGRAM_BUILD_LOG, 0,
                              NULL, &size) != CL_SUCCESS || size == 0)
        return;
    ctx->build_log = malloc(size + 1);
    if (!ctx->build_log)
        return;
    if (clGetProgramBuildInfo(program, ctx->device, CL_PROGRAM_BUILD_LOG, size,
                              ctx->build_log, NULL) != CL_SUCCESS)
        size = 0;
    ctx->build_log[size] = '\0';
}

static uint32_t pack_key(const clg_variant_key *k)
{
    unsigned unit_log2 = 0;
    while ((1u << unit_log2) < k->unit)
        unit_log2++;
    return (uint32_t)k->op | unit_log2 << 1 | k->wide_index << 4 |
           k->wide << 5 | k->inner_x << 6 | k->outer_dims << 7 |
           k->inner_dims << 9 | k->strip << 11 | k->fast << 12 |
           k->windows << 13;
}

static void key_options(const clg_variant_key *k, char *buf, size_t cap)
{
    int len = snprintf(buf, cap,
                       "-cl-std=CL1.2 -DCLG_UNIT=%u -DCLG_INDEX=%s "
                       "-DCLG_WIDE=%u -DCLG_INNER_X=%u -DCLG_FAST=%u "
                       "-DCLG_WINDOWS=%u",
                       k->unit, k->wide_index ? "long" : "int", k->wide,
                       k->inner_x, k->fast, k->windows);
    if (k->op == CLG_OP_GATHER_ELEMENTS && len > 0 && (size_t)len < cap)
        snprintf(buf + len, cap - (size_t)len,
                 " -DCLG_OUTER_DIMS=%u -DCLG_INNER_DIMS=%u -DCLG_STRIP=%u",
                 k->outer_dims, k->inner_dims, k->strip);
}

clg_status clg_runtime_variant(clg_context *ctx, const clg_variant_key *k,
                               clg_variant **out)
{
    uint32_t key = pack_key(k);
    clg_op op = k->op;
    char options[256];
    for (size_t i = 0; i < ctx->variant_count; i++)
        if (ctx->variants[i].key == key) {
            *out = &ctx->variants[i];
            return CLG_STATUS_OK;
        }
    key_options(k, options, sizeof options);
    clg_status st = CLG_STATUS_OK;
    cl_int err = CL_SUCCESS;
    cl_program program = NULL;
    cl_kernel kernel = NULL;
    const char *srcs[2] = {embedded("common.cl"), embedded(kernel_file(op))};
    if (!srcs[0] || !srcs[1])
        return clg_fail(ctx, CLG_STATUS_BUILD_FAILED,
                        "kernel source %s is not embedded", kernel_file(op));
    if (ctx->variant_count == ctx->variant_capacity) {
        size_t cap = ctx->variant_capacity ? 2 * ctx->variant_capacity : 16;
        clg_variant *grown = realloc(ctx->variants, cap * sizeof *grown);
        if (!grown)
            return clg_fail(ctx, CLG_STATUS_OUT_OF_MEMORY,
                            "out of host memory caching program variants");
        ctx->variants = grown;
        ctx->variant_capacity = cap;
    }
    program = clCreateProgramWithSource(ctx->cl_ctx, 2, srcs, NULL, &err);
    if (!program) {
        st = clg_fail_cl(ctx, err, "clCreateProgramWithSource");
        goto cleanup;
    }
    err = clBuildProgram(program, 1, &ctx->device, options, NULL, NULL);
    if (err != CL_SUCCESS) {
        keep_build_log(ctx, program);
        clg_fail(ctx, CLG_STATUS_BUILD_FAILED,
                 "clBuildProgram(%s, \"%s\") failed: %s (%d); see "
                 "clg_context_build_log()",
                 kernel_file(op), options, clg_cl_error_name(err), (int)err);
        ctx->last_cl_error = err;
        st = CLG_STATUS_BUILD_FAILED;
        goto cleanup;
    }
    kernel = clCreateKernel(program, op == CLG_OP_GATHER ? "clg_gather"
                                                         : "clg_gather_elements",
                            &err);
    if (!kernel) {
        st = clg_fail_cl(ctx, err, "clCreateKernel");
        goto cleanup;
    }
    clg_variant *v = &ctx->variants[ctx->variant_count++];
    memset(v, 0, sizeof *v);
    v->key = key;
    v->program = program;
    v->kernel = kernel;
    program = NULL;
    kernel = NULL;
    *out = v;
cleanup:
    if (kernel)
        clReleaseKernel(kernel);
    if (program)
        clReleaseProgram(program);
    return st;
}

/* ------------------------------------------------------------ buffers */

clg_status clg_runtime_scratch(clg_context *ctx, int slot, size_t size,
                               cl_mem *out)
{
    cl_int err;
    if (size == 0)
        size = 1;
    if (ctx->scratch[slot] && ctx->scratch_size[slot] >= size) {
        *out = ctx->scratch[slot];
        return CLG_STATUS_OK;
    }
    if (ctx->scratch[slot]) {
        clReleaseMemObject(ctx->scratch[slot]);
        ctx->scratch[slot] = NULL;
        ctx->scratch_size[slot] = 0;
    }
    ctx->scratch[slot] = clCreateBuffer(ctx->cl_ctx, CL_MEM_READ_WRITE, size,
                                        NULL, &err);
    if (!ctx->scratch[slot])
        return clg_fail_cl(ctx, err, "clCreateBuffer(scratch)");
    ctx->scratch_size[slot] = size;
    *out = ctx->scratch[slot];
    return CLG_STATUS_OK;
}

/* ------------------------------------------------------------ launch */

/* Local size for a 3-D launch whose dims 0 and 1 are padded to it. GPUs
 * want about 256 work-items a group; POCL's CPU device runs a work-group
 * as loops on one thread, so bigger groups cut per-group overhead. */
static void pick_local(const clg_context *ctx, const size_t global[3],
                       size_t local[3])
{
    size_t target = ctx->type == CLG_DEVICE_TYPE_GPU ? 256 : 4096;
    if (target > ctx->max_wg_size)
        target = ctx->max_wg_size;
    size_t lx = global[0] < target ? global[0] : target;
    if (lx > ctx->max_item_sizes[0])
        lx = ctx->max_item_sizes[0];
    if (lx == 0)
        lx = 1;
    size_t ly = target / lx;
    if (ly > global[1])
        ly = global[1];
    if (ly > ctx->max_item_sizes[1])
        ly = ctx->max_item_sizes[1];
    if (ly == 0)
        ly = 1;
    /* Prefer a divisor of the rows (no padded work-items) when one is at
     * least half as large: 4 rows of 768 beat 5 with padding on POCL. */
    for (size_t d = ly; d > 1 && 2 * d >= ly; d--)
        if (global[1] % d == 0) {
            ly = d;
            break;
        }
    local[0] = lx;
    local[1] = ly;
    local[2] = 1;
}

/* Enqueues `kernel` over the box origin[3] + size[3] (dims 0 and 1 padded
 * up to the local size; the kernels bounds-check them). On GPUs dims 1 and
 * 2 are cut into launches of at most 65535 work-groups each, the portable
 * grid limit. */
static clg_status enqueue_3d(clg_context *ctx, cl_kernel kernel,
                             const size_t origin[3], const size_t size[3])
{
    size_t local[3], padded[3];
    pick_local(ctx, size, local);
    for (int d = 0; d < 3; d++)
        padded[d] = (size[d] + local[d] - 1) / local[d] * local[d];
    size_t cap1 = ctx->type == CLG_DEVICE_TYPE_GPU ? 65535 * local[1]
                                                   : padded[1];
    size_t cap2 = ctx->type == CLG_DEVICE_TYPE_GPU ? 65535 : padded[2];
    for (size_t z = 0; z < padded[2]; z += cap2) {
        for (size_t y = 0; y < padded[1]; y += cap1) {
            size_t offset[3] = {origin[0], origin[1] + y, origin[2] + z};
            size_t count[3] = {padded[0],
                               padded[1] - y < cap1 ? padded[1] - y : cap1,
                               padded[2] - z < cap2 ? padded[2] - z : cap2};
            cl_int err = clEnqueueNDRangeKernel(ctx->queue, kernel, 3, offset,
                                                count, local, 0, NULL, NULL);
            if (err != CL_SUCCESS)
                return clg_fail_cl(ctx, err, "clEnqueueNDRangeKernel");
        }
    }
    return CLG_STATUS_OK;
}

/* One kernel argument: its size and address. */
typedef struct kernel_arg {
    size_t size;
    const void *value;
} kernel_arg;

/* Sets args[0 .. count-1] in order, stopping at the first failure. */
static clg_status set_args(clg_context *ctx, cl_kernel k,
                           const kernel_arg *args, cl_uint count)
{
    for (cl_uint i = 0; i < count; i++) {
        cl_int err = clSetKernelArg(k, i, args[i].size, args[i].value);
        if (err != CL_SUCCESS) {
            char call[48];
            snprintf(call, sizeof call, "clSetKernelArg(%u)", i);
            return clg_fail_cl(ctx, err, call);
        }
    }
    return CLG_STATUS_OK;
}

static clg_variant_key plan_key(const clg_problem *p, const clg_plan *plan)
{
    clg_variant_key k = {plan->op,
                         (unsigned)plan->unit,
                         p->index_dtype != CLG_DTYPE_INT32,
                         (unsigned)plan->wide_offsets,
                         plan->inner > 1,
                         0, 0, 0, 0, 0};
    if (plan->op == CLG_OP_GATHER_ELEMENTS) {
        k.outer_dims = plan->outer_dims > 1 ? 2 : (unsigned)plan->outer_dims;
        k.inner_dims = plan->inner_dims > 1 ? 2 : (unsigned)plan->inner_dims;
        k.strip = plan->strip_width > 0;
    }
    return k;
}

/* Packs a ragged dim list into a small read-only buffer. */
static clg_status geom_buffer(clg_context *ctx, size_t dims,
                              const int64_t *extent, const int64_t *stride,
                              cl_mem *out)
{
    cl_ulong g[1 + 2 * CLG_MAX_RANK];
    cl_int err;
    g[0] = dims;
    for (size_t k = 0; k < dims; k++) {
        g[1 + 2 * k] = (cl_ulong)extent[k];
        g[2 + 2 * k] = (cl_ulong)stride[k];
    }
    *out = clCreateBuffer(ctx->cl_ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                          (1 + 2 * dims) * sizeof(cl_ulong), g, &err);
    return *out ? CLG_STATUS_OK : clg_fail_cl(ctx, err, "clCreateBuffer(geom)");
}

clg_status clg_runtime_flag_reset(clg_context *ctx)
{
    /* The flag is zero unless a kernel raised it, and a raised flag is
     * cleared when read; only a call that failed between its launch and
     * its read leaves it in doubt. So most calls enqueue no write here. */
    if (ctx->flag_dirty) {
        cl_int err = clEnqueueWriteBuffer(ctx->queue, ctx->flag, CL_TRUE, 0,
                                          sizeof zero_flag[0], zero_flag, 0,
                                          NULL, NULL);
        if (err != CL_SUCCESS)
            return clg_fail_cl(ctx, err, "clEnqueueWriteBuffer(error flag)");
    }
    ctx->flag_dirty = 1;
    return CLG_STATUS_OK;
}

clg_status clg_runtime_flag_read(clg_context *ctx, int *raised)
{
    cl_int flag = 0;
    cl_int err = clEnqueueReadBuffer(ctx->queue, ctx->flag, CL_TRUE, 0,
                                     sizeof flag, &flag, 0, NULL, NULL);
    if (err != CL_SUCCESS)
        return clg_fail_cl(ctx, err, "clEnqueueReadBuffer(error flag)");
    *raised = flag != 0;
    if (flag != 0) {
        err = clEnqueueWriteBuffer(ctx->queue, ctx->flag, CL_TRUE, 0,
                                   sizeof zero_flag[0], zero_flag, 0, NULL, NULL);
        if (err != CL_SUCCESS)
            return clg_fail_cl(ctx, err, "clEnqueueWriteBuffer(error flag)");
    }
    ctx->flag_dirty = 0;
    return CLG_STATUS_OK;
}

clg_status clg_runtime_launch(clg_context *ctx, const clg_problem *p,
                              const clg_plan *plan, const clg_box *box,
                              const clg_windows *w)
{
    clg_status st;
    clg_variant *v = NULL;
    cl_mem outer_geom = NULL, inner_geom = NULL;
    cl_ulong strip_width = (cl_ulong)plan->strip_width;
    cl_ulong strips = strip_width ? ((cl_ulong)plan->inner + strip_width - 1) /
                                        strip_width
                                  : 0;
    size_t origin[3], size[3];
    if (strips) {
        origin[0] = 0;
        size[0] = (size_t)strip_width;
        origin[1] = (size_t)box->j0;
        size[1] = (size_t)(box->j1 - box->j0);
        origin[2] = (size_t)box->o0 * (size_t)strips;
        size[2] = (size_t)(box->o1 - box->o0) * (size_t)strips;
    } else if (plan->inner > 1) {
        origin[0] = (size_t)box->c0;
        size[0] = (size_t)(box->c1 - box->c0);
        origin[1] = (size_t)box->j0;
        size[1] = (size_t)(box->j1 - box->j0);
        origin[2] = (size_t)box->o0;
        size[2] = (size_t)(box->o1 - box->o0);
    } else {
        origin[0] = (size_t)box->j0;
        size[0] = (size_t)(box->j1 - box->j0);
        origin[1] = (size_t)box->o0;
        size[1] = (size_t)(box->o1 - box->o0);
        origin[2] = 0;
        size[2] = 1;
    }
    /* The branch-free Gather (CLG_FAST) needs a whole-tensor launch whose
     * dimension 0 fills its work-groups exactly. */
    size_t local[3];
    pick_local(ctx, size, local);
    int whole = box->o0 == 0 && box->o1 == plan->outer && box->j0 == 0 &&
                box->j1 == plan->n && box->c0 == 0 && box->c1 == plan->inner &&
                w->data_base == 0 && w->data_len == plan->data_units &&
                w->index_base == 0 && w->index_len == p->index_count &&
                w->out_base == 0 && w->out_len == plan->out_units;
    clg_variant_key key = plan_key(p, plan);
    key.windows = !whole;
    key.fast = ctx->type == CLG_DEVICE_TYPE_CPU && whole &&
               (plan->op == CLG_OP_GATHER
                    ? plan->inner == 1 || size[0] % local[0] == 0
                    : plan->inner == 1 && plan->outer_dims <= 1 &&
                          plan->inner_dims == 0 && !strips);
    if ((st = clg_runtime_variant(ctx, &key, &v)) != CLG_STATUS_OK)
        return st;

    cl_kernel k = v->kernel;
    cl_ulong n = (cl_ulong)plan->n, s = (cl_ulong)plan->axis_size,
             inner = (cl_ulong)plan->inner;
    cl_ulong win[6] = {(cl_ulong)w->data_base,  (cl_ulong)w->data_len,
                       (cl_ulong)w->index_base, (cl_ulong)w->index_len,
                       (cl_ulong)w->out_base,   (cl_ulong)w->out_len};
    cl_ulong axis_stride = (cl_ulong)plan->axis_stride;
    cl_ulong ostride = plan->outer_dims == 1 ? (cl_ulong)plan->outer_stride[0] : 0;
    cl_ulong istride = plan->inner_dims == 1 ? (cl_ulong)plan->inner_stride[0] : 0;
    if (plan->op == CLG_OP_GATHER_ELEMENTS) {
        if (plan->outer_dims > 1 &&
            (st = geom_buffer(ctx, plan->outer_dims, plan->outer_extent,
                              plan->outer_stride, &outer_geom)) != CLG_STATUS_OK)
            goto cleanup;
        if (plan->inner_dims > 1 &&
            (st = geom_buffer(ctx, plan->inner_dims, plan->inner_extent,
                              plan->inner_stride, &inner_geom)) != CLG_STATUS_OK)
            goto cleanup;
    }
    const kernel_arg args[] = {
        {sizeof(cl_mem), &w->data},     {sizeof(cl_mem), &w->indices},
        {sizeof(cl_mem), &w->output},   {sizeof(cl_mem), &ctx->flag},
        {sizeof n, &n},                 {sizeof s, &s},
        {sizeof inner, &inner},         {sizeof win[0], &win[0]},
        {sizeof win[1], &win[1]},       {sizeof win[2], &win[2]},
        {sizeof win[3], &win[3]},       {sizeof win[4], &win[4]},
        {sizeof win[5], &win[5]},       {sizeof axis_stride, &axis_stride},
        {sizeof ostride, &ostride},     {sizeof istride, &istride},
        {sizeof(cl_mem), &outer_geom},  {sizeof(cl_mem), &inner_geom},
        {sizeof strip_width, &strip_width}, {sizeof strips, &strips}};
    /* Gather takes the first 13 arguments, GatherElements all 20. */
    if ((st = set_args(ctx, k, args,
                       plan->op == CLG_OP_GATHER ? 13 : 20)) != CLG_STATUS_OK)
        goto cleanup;

    st = enqueue_3d(ctx, k, origin, size);
cleanup:
    /* Release is deferred by OpenCL until the enqueued kernel is done. */
    if (outer_geom)
        clReleaseMemObject(outer_geom);
    if (inner_geom)
        clReleaseMemObject(inner_geom);
    return st;
}

clg_status clg_runtime_check(clg_context *ctx, const clg_problem *p,
                             cl_mem indices, int *flag_raised)
{
    clg_status st;
    clg_variant *v = NULL;
    cl_int err = CL_SUCCESS;
    *flag_raised = 0;
    /* The check kernel lives in common.cl; any Gather variant with this
     * index type carries it. */
    clg_variant_key key = {CLG_OP_GATHER, 1, p->index_dtype != CLG_DTYPE_INT32,
                           1, 0, 0, 0, 0, 0, 0};
    if ((st = clg_runtime_variant(ctx, &key, &v)) != CLG_STATUS_OK)
        return st;
    if (!v->check_kernel) {
        v->check_kernel = clCreateKernel(v->program, "clg_check_indices", &err);
        if (!v->check_kernel)
            return clg_fail_cl(ctx, err, "clCreateKernel(clg_check_indices)");
    }
    cl_kernel k = v->check_kernel;
    cl_ulong count = (cl_ulong)p->index_count, s = (cl_ulong)p->axis_size;
    const kernel_arg args[] = {{sizeof(cl_mem), &indices},
                               {sizeof(cl_mem), &ctx->flag},
                               {sizeof count, &count},
                               {sizeof s, &s}};
    if ((st = set_args(ctx, k, args, 4)) != CLG_STATUS_OK)
        return st;
    size_t origin[3] = {0, 0, 0}, size[3] = {(size_t)p->index_count, 1, 1};
    if ((st = clg_runtime_flag_reset(ctx)) != CLG_STATUS_OK ||
        (st = enqueue_3d(ctx, k, origin, size)) != CLG_STATUS_OK)
        return st;
    return clg_runtime_flag_read(ctx, flag_raised);
}
