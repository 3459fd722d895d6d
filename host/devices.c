/* SPDX-License-Identifier: Apache-2.0 */
/* OpenCL platform and device discovery (OpenCL 3.0 API sections 4.1-4.2)
 * and selection by spec string (docs/design.md, "Choosing a device"). */
#include "context.h"

#include <ctype.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CLG_MAX_PLATFORMS 32
#define CLG_MAX_DEVICES 64

/* All devices of all platforms, in platform order. */
typedef struct device_table {
    size_t count;
    cl_platform_id platform[CLG_MAX_PLATFORMS * CLG_MAX_DEVICES];
    cl_device_id device[CLG_MAX_PLATFORMS * CLG_MAX_DEVICES];
    uint32_t pindex[CLG_MAX_PLATFORMS * CLG_MAX_DEVICES];
    uint32_t dindex[CLG_MAX_PLATFORMS * CLG_MAX_DEVICES];
} device_table;

/* Discovery is serialised: some implementations' first clGetDeviceIDs is
 * not safe to call from several threads at once (POCL 3.1 answers
 * CL_DEVICE_NOT_FOUND to most of 8 concurrent first calls). */
static pthread_mutex_t discovery_lock = PTHREAD_MUTEX_INITIALIZER;

static cl_int enumerate_locked(device_table *t)
{
    cl_platform_id platforms[CLG_MAX_PLATFORMS];
    cl_uint np = 0;
    t->count = 0;
    clg_rt_guard_runtime_caches();
    cl_int err = clGetPlatformIDs(CLG_MAX_PLATFORMS, platforms, &np);
    if (err == -1001 /* CL_PLATFORM_NOT_FOUND_KHR: ICD loader, none */)
        return CL_SUCCESS;
    if (err != CL_SUCCESS)
        return err;
    if (np > CLG_MAX_PLATFORMS)
        np = CLG_MAX_PLATFORMS;
    for (cl_uint p = 0; p < np; p++) {
        cl_device_id devs[CLG_MAX_DEVICES];
        cl_uint nd = 0;
        err = clGetDeviceIDs(platforms[p], CL_DEVICE_TYPE_ALL, CLG_MAX_DEVICES,
                             devs, &nd);
        if (err == CL_DEVICE_NOT_FOUND)
            continue;
        if (err != CL_SUCCESS)
            return err;
        if (nd > CLG_MAX_DEVICES)
            nd = CLG_MAX_DEVICES;
        for (cl_uint d = 0; d < nd; d++) {
            t->platform[t->count] = platforms[p];
            t->device[t->count] = devs[d];
            t->pindex[t->count] = p;
            t->dindex[t->count] = d;
            t->count++;
        }
    }
    return CL_SUCCESS;
}

static cl_int enumerate(device_table *t)
{
    pthread_mutex_lock(&discovery_lock);
    cl_int err = enumerate_locked(t);
    pthread_mutex_unlock(&discovery_lock);
    return err;
}

clg_device_type clg_device_type_from_cl(cl_device_type type)
{
    return (type & CL_DEVICE_TYPE_GPU)           ? CLG_DEVICE_TYPE_GPU
           : (type & CL_DEVICE_TYPE_CPU)         ? CLG_DEVICE_TYPE_CPU
           : (type & CL_DEVICE_TYPE_ACCELERATOR) ? CLG_DEVICE_TYPE_ACCELERATOR
                                                 : CLG_DEVICE_TYPE_OTHER;
}

static cl_device_type device_type_of(cl_device_id d)
{
    cl_device_type type = 0;
    clGetDeviceInfo(d, CL_DEVICE_TYPE, sizeof type, &type, NULL);
    return type;
}

static void info_string(cl_device_id d, cl_device_info what, char *buf,
                        size_t cap)
{
    buf[0] = '\0';
    if (clGetDeviceInfo(d, what, cap, buf, NULL) != CL_SUCCESS) {
        /* Too long for buf: fetch whole, keep a prefix. */
        size_t need = 0;
        if (clGetDeviceInfo(d, what, 0, NULL, &need) == CL_SUCCESS && need) {
            char *tmp = malloc(need);
            if (tmp && clGetDeviceInfo(d, what, need, tmp, NULL) == CL_SUCCESS)
                snprintf(buf, cap, "%s", tmp);
            free(tmp);
        }
    }
}

static void platform_name(cl_platform_id p, char *buf, size_t cap)
{
    buf[0] = '\0';
    if (clGetPlatformInfo(p, CL_PLATFORM_NAME, cap, buf, NULL) != CL_SUCCESS)
        buf[0] = '\0';
}

static int contains_nocase(const char *hay, const char *needle)
{
    size_t n = strlen(needle);
    for (; *hay; hay++) {
        size_t k = 0;
        while (k < n && hay[k] &&
               tolower((unsigned char)hay[k]) ==
                   tolower((unsigned char)needle[k]))
            k++;
        if (k == n)
            return 1;
    }
    return n == 0;
}

/* spec without leading and trailing white space, into buf (cap bytes);
 * NULL for NULL. A spec too long for buf is cut: no device name is that
 * long. */
static const char *trim_spec(const char *spec, char *buf, size_t cap)
{
    size_t n;
    if (!spec)
        return NULL;
    while (isspace((unsigned char)*spec))
        spec++;
    n = strlen(spec);
    while (n > 0 && isspace((unsigned char)spec[n - 1]))
        n--;
    if (n >= cap)
        n = cap - 1;
    memcpy(buf, spec, n);
    buf[n] = '\0';
    return buf;
}

/* Index into t of the device `spec` names, -1 when none, -2 when the spec
 * is a malformed "P:D". */
static long find_device(const device_table *t, const char *spec)
{
    if (!spec || !*spec) {
        for (size_t i = 0; i < t->count; i++)
            if (device_type_of(t->device[i]) & CL_DEVICE_TYPE_GPU)
                return (long)i;
        return t->count ? 0 : -1;
    }
    cl_device_type want = 0;
    if (!strcmp(spec, "gpu") || !strcmp(spec, "GPU"))
        want = CL_DEVICE_TYPE_GPU;
    else if (!strcmp(spec, "cpu") || !strcmp(spec, "CPU"))
        want = CL_DEVICE_TYPE_CPU;
    else if (!strcmp(spec, "accelerator") || !strcmp(spec, "ACCELERATOR"))
        want = CL_DEVICE_TYPE_ACCELERATOR;
    /* The type clgather reports for the device: Oclgrind's claims every
     * type bit, and clgather lists it as a GPU only. */
    if (want) {
        for (size_t i = 0; i < t->count; i++)
            if (clg_device_type_from_cl(device_type_of(t->device[i])) ==
                clg_device_type_from_cl(want))
                return (long)i;
        return -1;
    }
    /* Anything made of digits, signs and colons is meant as "P:D" and
     * must be exactly that: a bare "0" is an error, not the first device
     * whose version string contains a 0 ("OpenCL 3.0"). */
    if (strspn(spec, "0123456789:+-") == strlen(spec)) {
        const char *colon = strchr(spec, ':');
        if (colon == NULL)
            return -2;
        size_t plen = (size_t)(colon - spec), dlen = strlen(colon + 1);
        if (plen == 0 || dlen == 0 || plen > 9 || dlen > 9 ||
            strspn(spec, "0123456789") != plen ||
            strspn(colon + 1, "0123456789") != dlen)
            return -2;
        unsigned long p = strtoul(spec, NULL, 10);
        unsigned long d = strtoul(colon + 1, NULL, 10);
        for (size_t i = 0; i < t->count; i++)
            if (t->pindex[i] == p && t->dindex[i] == d)
                return (long)i;
        return -1;
    }
    /* Names first, then vendors and versions ("pocl" is only in POCL's
     * version string and platform vendor). */
    for (int pass = 0; pass < 2; pass++)
        for (size_t i = 0; i < t->count; i++) {
            char a[256], b[256], c[256];
            if (pass == 0) {
                info_string(t->device[i], CL_DEVICE_NAME, a, sizeof a);
                platform_name(t->platform[i], b, sizeof b);
                c[0] = '\0';
            } else {
                info_string(t->device[i], CL_DEVICE_VENDOR, a, sizeof a);
                info_string(t->device[i], CL_DEVICE_VERSION, b, sizeof b);
                if (clGetPlatformInfo(t->platform[i], CL_PLATFORM_VENDOR,
                                      sizeof c, c, NULL) != CL_SUCCESS)
                    c[0] = '\0';
            }
            if (contains_nocase(a, spec) || contains_nocase(b, spec) ||
                (c[0] && contains_nocase(c, spec)))
                return (long)i;
        }
    return -1;
}

static const char *effective_spec(const char *spec, const char *env_spec)
{
    if (spec && *spec)
        return spec;
    return (env_spec && *env_spec) ? env_spec : NULL;
}

clg_status clg_devices_select(const char *spec, const char *env_spec,
                              cl_platform_id *platform, cl_device_id *device,
                              char *msg, size_t cap, cl_int *code)
{
    *code = CL_SUCCESS;
    device_table *tp = malloc(sizeof *tp);
    if (!tp) {
        snprintf(msg, cap, "out of host memory listing OpenCL devices");
        return CLG_STATUS_OUT_OF_MEMORY;
    }
    clg_status st = CLG_STATUS_OK;
    cl_int err = enumerate(tp);
    char trimmed[CLG_ENV_TEXT_CAP];
    const char *eff = trim_spec(effective_spec(spec, env_spec), trimmed,
                                sizeof trimmed);
    if (err != CL_SUCCESS) {
        snprintf(msg, cap, "clGetPlatformIDs/clGetDeviceIDs failed: %s (%d)",
                 clg_cl_error_name(err), (int)err);
        *code = err;
        st = CLG_STATUS_OPENCL_ERROR;
        goto cleanup;
    }
    if (tp->count == 0) {
        snprintf(msg, cap,
                 "no OpenCL device found (no platform or no device "
                 "is installed: on a CPU, install the package "
                 "pocl-opencl-icd, or set OCL_ICD_VENDORS to the folder "
                 "that holds a runtime's .icd file)");
        st = CLG_STATUS_DEVICE_NOT_FOUND;
        goto cleanup;
    }
    long i = find_device(tp, eff);
    if (i == -2) {
        snprintf(msg, cap,
                 "device spec \"%s\" is not of the form P:D with "
                 "platform and device indices",
                 eff);
        st = CLG_STATUS_INVALID_ARGUMENT;
        goto cleanup;
    }
    if (i < 0) {
        size_t len = (size_t)snprintf(msg, cap,
                                      "no OpenCL device matches \"%s\"%s; "
                                      "devices:",
                                      eff ? eff : "",
                                      (spec && *spec) ? ""
                                                      : " (CLGATHER_DEVICE)");
        for (size_t k = 0; k < tp->count && len < cap; k++) {
            char name[128];
            info_string(tp->device[k], CL_DEVICE_NAME, name, sizeof name);
            len += (size_t)snprintf(msg + len, cap - len, " %u:%u \"%s\"",
                                    tp->pindex[k], tp->dindex[k], name);
        }
        st = CLG_STATUS_DEVICE_NOT_FOUND;
        goto cleanup;
    }
    *platform = tp->platform[i];
    *device = tp->device[i];
cleanup:
    free(tp);
    return st;
}

clg_status clg_device_resolve(const char *device_spec,
                              cl_platform_id *platform, cl_device_id *device)
{
    char msg[CLG_ERROR_CAPACITY], env_spec[CLG_ENV_TEXT_CAP];
    cl_platform_id p = NULL;
    cl_device_id d = NULL;
    cl_int err = CL_SUCCESS;
    if (platform)
        *platform = NULL;
    if (device)
        *device = NULL;
    if (!platform || !device)
        return clg_fail(NULL, CLG_STATUS_NULL_POINTER, "%s is NULL",
                        !platform ? "platform" : "device");
    /* A CLGATHER_DEVICE too long to read selects nothing, as for a
     * context. */
    if (clg_env_device(env_spec, sizeof env_spec) != 0)
        return clg_fail(NULL, CLG_STATUS_INVALID_ARGUMENT,
                        "CLGATHER_DEVICE is longer than %zu bytes",
                        sizeof env_spec - 1);
    clg_status st = clg_devices_select(device_spec, env_spec, &p, &d, msg,
                                       sizeof msg, &err);
    if (st != CLG_STATUS_OK) {
        clg_fail(NULL, st, "%s", msg);
        if (err != CL_SUCCESS)
            clg_set_cl_error(NULL, err);
        return st;
    }
    *platform = p;
    *device = d;
    clg_clear_error(NULL);
    return CLG_STATUS_OK;
}

clg_status clg_devices_list(clg_device_info *infos, size_t capacity,
                            size_t *count)
{
    device_table *t = NULL;
    clg_status st = CLG_STATUS_OK;
    if (!count || (!infos && capacity > 0))
        return clg_fail(NULL, CLG_STATUS_NULL_POINTER, "%s is NULL",
                        !count ? "count" : "infos");
    *count = 0;
    t = malloc(sizeof *t);
    if (!t)
        return clg_fail(NULL, CLG_STATUS_OUT_OF_MEMORY,
                        "out of host memory listing OpenCL devices");
    cl_int err = enumerate(t);
    if (err != CL_SUCCESS) {
        st = clg_fail_cl(NULL, err, "clGetPlatformIDs/clGetDeviceIDs");
        goto cleanup;
    }
    if (t->count == 0) {
        st = clg_fail(NULL, CLG_STATUS_DEVICE_NOT_FOUND,
                      "no OpenCL device found");
        goto cleanup;
    }
    char env_spec[CLG_ENV_TEXT_CAP], trimmed[CLG_ENV_TEXT_CAP];
    /* A CLGATHER_DEVICE too long to read selects no device (a context
     * with a NULL spec fails), rather than the first one. */
    long def = clg_env_device(env_spec, sizeof env_spec) != 0
                   ? -1
                   : find_device(t, trim_spec(effective_spec(NULL, env_spec),
                                              trimmed, sizeof trimmed));
    for (size_t i = 0; i < t->count && i < capacity; i++) {
        clg_device_info *d = &infos[i];
        memset(d, 0, sizeof *d);
        d->platform_index = t->pindex[i];
        d->device_index = t->dindex[i];
        d->type = clg_device_type_from_cl(device_type_of(t->device[i]));
        d->is_default = (long)i == def;
        platform_name(t->platform[i], d->platform_name,
                      sizeof d->platform_name);
        info_string(t->device[i], CL_DEVICE_NAME, d->name, sizeof d->name);
        info_string(t->device[i], CL_DEVICE_VENDOR, d->vendor,
                    sizeof d->vendor);
        info_string(t->device[i], CL_DEVICE_VERSION, d->version,
                    sizeof d->version);
        cl_ulong v = 0;
        clGetDeviceInfo(t->device[i], CL_DEVICE_GLOBAL_MEM_SIZE, sizeof v, &v,
                        NULL);
        d->global_mem_size = v;
        v = 0;
        clGetDeviceInfo(t->device[i], CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof v,
                        &v, NULL);
        d->max_alloc_size = v;
        cl_bool unified = CL_FALSE;
        clGetDeviceInfo(t->device[i], CL_DEVICE_HOST_UNIFIED_MEMORY,
                        sizeof unified, &unified, NULL);
        d->host_unified_memory = unified == CL_TRUE;
    }
    *count = t->count;
cleanup:
    free(t);
    return st;
}
