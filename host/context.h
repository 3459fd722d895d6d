/* The context object, private to host/ (docs/design.md, "Layers"): the
 * operator layer sees clg_context only as an opaque handle and reaches it
 * through host/runtime.h. */
#ifndef CLG_CONTEXT_H
#define CLG_CONTEXT_H

#include "runtime.h"

#define CLG_ERROR_CAPACITY 1024

/* One kernel of a cached program. */
typedef struct clg_cached_kernel {
    char name[64];
    cl_kernel kernel;
} clg_cached_kernel;

#define CLG_KERNELS_PER_PROGRAM 8

/* A built program, keyed by its files and build options. */
typedef struct clg_cached_program {
    char *key; /* "file;file;...|options", owned */
    cl_program program;
    clg_cached_kernel kernels[CLG_KERNELS_PER_PROGRAM];
    size_t kernel_count;
} clg_cached_program;

struct clg_context {
    cl_device_id device;
    cl_context cl_ctx;
    cl_command_queue queue;
    clg_device_type type;   /* the device's own type */
    int host_unified;       /* the device's CL_DEVICE_HOST_UNIFIED_MEMORY */
    clg_device_facts facts; /* what plans are made from */
    char device_name[256];
    char device_vendor[256];
    char device_version[256];

    clg_cached_program *programs;
    size_t program_count, program_capacity;

    cl_mem flag;    /* device error flag: [0] flag, [1] a sink */
    int flag_dirty; /* a launch happened since the flag was read */
    cl_mem scratch[CLG_SCRATCH_COUNT];
    size_t scratch_size[CLG_SCRATCH_COUNT];

    char last_error[CLG_ERROR_CAPACITY];
    cl_int last_cl_error;
    char *build_log;
};

/* Maps CL_DEVICE_TYPE_* bits to clg_device_type (host/devices.c). */
clg_device_type clg_device_type_from_cl(cl_device_type type);

/* Chooses the device `spec` names (docs/design.md, "Choosing a device");
 * host/devices.c. On failure writes the reason to msg. */
clg_status clg_devices_select(const char *spec, cl_platform_id *platform,
                              cl_device_id *device, char *msg, size_t cap);

/* Releases the cached programs and their kernels (host/program.c). */
void clg_programs_release(clg_context *ctx);

#endif
