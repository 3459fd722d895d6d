/* SPDX-License-Identifier: Apache-2.0 */
/* clgather devices: every platform and device, with its P:D position. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <clgather/clgather.h>

#include "cli.h"
#include "json_out.h"

static const char *human_bytes(char *buf, size_t cap, uint64_t bytes)
{
    static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    double v = (double)bytes;
    size_t u = 0;
    while (v >= 1024.0 && u + 1 < sizeof units / sizeof units[0]) {
        v /= 1024.0;
        u++;
    }
    if (u == 0)
        snprintf(buf, cap, "%llu B", (unsigned long long)bytes);
    else
        snprintf(buf, cap, "%.1f %s", v, units[u]);
    return buf;
}

static void usage(FILE *out)
{
    fprintf(out,
            "Usage: clgather devices [--json]\n"
            "List every OpenCL platform and device: its P:D position (for "
            "--device P:D),\n"
            "type, name, platform, version, global memory and largest "
            "allocation.\n"
            "The device a run uses by default is marked (default); when "
            "CLGATHER_DEVICE\n"
            "matches no device, a warning says so.\n"
            "\n"
            "  --json      print the list as one JSON document (docs/cli.md)\n"
            "  -h, --help  show this help\n"
            "\n"
            "Exit status: 0, 3 a usage error, 4 the OpenCL runtime or device "
            "failed\n"
            "(no OpenCL device is found).\n");
}

/* Every device into *infos (malloc'd) and *count; says why not.
 * Returns an exit status. */
static int list_devices(clg_device_info **infos, size_t *count)
{
    size_t got = 0;
    char msg[1200];
    clg_status st = clg_devices_list(NULL, 0, count);

    *infos = NULL;
    if (st == CLG_STATUS_OK && *count > 0) {
        *infos = calloc(*count, sizeof **infos);
        if (*infos == NULL) {
            clg_cli_fail("devices", "out of memory");
            return CLG_EXIT_ERROR;
        }
        st = clg_devices_list(*infos, *count, &got);
        if (got < *count)
            *count = got;
    }
    if (st != CLG_STATUS_OK || *count == 0) {
        *count = 0;
        if (st == CLG_STATUS_OK || st == CLG_STATUS_DEVICE_NOT_FOUND) {
            clg_cli_fail("devices",
                         "no OpenCL device found: " CLG_CLI_NO_DEVICE_HINT);
            return CLG_EXIT_RUNTIME;
        }
        clg_cli_fail("devices", "no OpenCL device: %s",
                     clg_cli_describe(msg, sizeof msg, NULL, st));
        return clg_cli_exit_for_status(st);
    }
    return CLG_EXIT_OK;
}

/* When no device is the default, CLGATHER_DEVICE names none: the reason,
 * as creating a context on the default says it, into buf; "" when a
 * device is the default. */
static const char *default_warning(const clg_device_info *infos, size_t count,
                                   char *buf, size_t cap)
{
    clg_context *ctx = NULL;
    clg_status st;
    char msg[1200];

    buf[0] = '\0';
    for (size_t i = 0; i < count; i++)
        if (infos[i].is_default)
            return buf;
    if (count == 0)
        return buf;
    st = clg_context_create(&ctx, NULL);
    clg_context_destroy(ctx);
    snprintf(buf, cap,
             "the default device spec matches no device: %s; a command "
             "without --device will fail",
             st == CLG_STATUS_OK
                 ? "CLGATHER_DEVICE"
                 : clg_cli_describe(msg, sizeof msg, NULL, st));
    return buf;
}

/* The runtime's versions of a listed device (CL_PLATFORM_VERSION and
 * CL_DRIVER_VERSION), which clg_device_info does not hold: "" where the
 * device cannot be resolved or asked. */
typedef struct runtime_versions {
    char platform[256], driver[128];
} runtime_versions;

static void versions_of(const clg_device_info *d, runtime_versions *v)
{
    char spec[32];
    cl_platform_id platform = NULL;
    cl_device_id device = NULL;
    v->platform[0] = v->driver[0] = '\0';
    snprintf(spec, sizeof spec, "%u:%u", (unsigned)d->platform_index,
             (unsigned)d->device_index);
    if (clg_device_resolve(spec, &platform, &device) != CLG_STATUS_OK)
        return;
    if (clGetPlatformInfo(platform, CL_PLATFORM_VERSION, sizeof v->platform,
                          v->platform, NULL) != CL_SUCCESS)
        v->platform[0] = '\0';
    if (clGetDeviceInfo(device, CL_DRIVER_VERSION, sizeof v->driver, v->driver,
                        NULL) != CL_SUCCESS)
        v->driver[0] = '\0';
    v->platform[sizeof v->platform - 1] = '\0';
    v->driver[sizeof v->driver - 1] = '\0';
}

static void print_device(const clg_device_info *d)
{
    char g[32], a[32];
    runtime_versions v;
    versions_of(d, &v);
    printf("%u:%u  %-4s %s%s\n", (unsigned)d->platform_index,
           (unsigned)d->device_index, clg_cli_device_type_name(d->type),
           d->name, d->is_default ? "  (default)" : "");
    printf("     platform: %s\n", d->platform_name);
    printf("     driver: %s\n", v.driver);
    printf("     version: %s\n", d->version);
    printf("     global memory: %s (%llu bytes), max allocation: %s "
           "(%llu bytes)\n",
           human_bytes(g, sizeof g, d->global_mem_size),
           (unsigned long long)d->global_mem_size,
           human_bytes(a, sizeof a, d->max_alloc_size),
           (unsigned long long)d->max_alloc_size);
}

static void json_device(clg_json *j, const clg_device_info *d)
{
    char spec[32];
    runtime_versions v;
    versions_of(d, &v);
    snprintf(spec, sizeof spec, "%u:%u", (unsigned)d->platform_index,
             (unsigned)d->device_index);
    clg_json_begin_object(j, NULL);
    clg_json_string(j, "spec", spec);
    clg_json_uint(j, "platform_index", d->platform_index);
    clg_json_uint(j, "device_index", d->device_index);
    clg_json_string(j, "type", clg_cli_device_type_name(d->type));
    clg_json_string(j, "name", d->name);
    clg_json_string(j, "vendor", d->vendor);
    clg_json_string(j, "platform", d->platform_name);
    clg_json_string(j, "platform_version", v.platform);
    clg_json_string(j, "driver_version", v.driver);
    clg_json_string(j, "version", d->version);
    clg_json_uint(j, "global_memory_bytes", d->global_mem_size);
    clg_json_uint(j, "max_alloc_bytes", d->max_alloc_size);
    clg_json_bool(j, "host_unified_memory", d->host_unified_memory);
    clg_json_bool(j, "default", d->is_default);
    clg_json_end_object(j);
}

static void json_devices(const clg_device_info *infos, size_t count,
                         const char *warning, int rc)
{
    const char *env = getenv("CLGATHER_DEVICE");
    clg_json j;
    clg_cli_json_begin(&j, "devices");
    clg_json_begin_array(&j, "devices");
    for (size_t i = 0; i < count; i++)
        json_device(&j, &infos[i]);
    clg_json_end_array(&j);
    clg_json_string(&j, "default_spec", env != NULL && *env ? env : NULL);
    clg_json_begin_array(&j, "warnings");
    if (warning[0] != '\0')
        clg_json_string(&j, NULL, warning);
    clg_json_end_array(&j);
    clg_cli_json_end(&j, rc);
}

int clg_cli_devices(int argc, char **argv)
{
    enum { OPT_JSON = 256 };
    static const struct option options[] = {{"json", no_argument, NULL,
                                             OPT_JSON},
                                            {"help", no_argument, NULL, 'h'},
                                            {NULL, 0, NULL, 0}};
    clg_device_info *infos = NULL;
    size_t count = 0;
    char warning[1400];
    int rc, c, json = 0;

    while ((c = getopt_long(argc, argv, "h", options, NULL)) != -1) {
        if (c == OPT_JSON) {
            json = 1;
            continue;
        }
        if (c == 'h') {
            usage(stdout);
            return CLG_EXIT_OK;
        }
        return clg_cli_try_help("devices"); /* getopt named it */
    }
    if (optind != argc) {
        fprintf(stderr, "clgather devices: unexpected argument '%s'\n",
                argv[optind]);
        return clg_cli_try_help("devices");
    }
    rc = list_devices(&infos, &count);
    default_warning(infos, count, warning, sizeof warning);
    if (warning[0] != '\0')
        fprintf(stderr, "clgather devices: warning: %s\n", warning);
    if (json)
        json_devices(infos, count, warning, rc);
    else
        for (size_t i = 0; i < count; i++)
            print_device(&infos[i]);
    free(infos);
    return rc;
}
