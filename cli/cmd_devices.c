/* clgather devices: every platform and device, with its P:D position. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include <clgather/clgather.h>

#include "cli.h"

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
            "Usage: clgather devices\n"
            "List every OpenCL platform and device: its P:D position (for "
            "--device P:D),\n"
            "type, name, platform, version, global memory and largest "
            "allocation.\n"
            "The device a run uses by default is marked (default).\n"
            "Exit status: 0, or 3 when no OpenCL device is found.\n");
}

/* Every device into *infos (malloc'd) and *count; prints why not.
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
            fprintf(stderr, "clgather devices: out of memory\n");
            return CLG_EXIT_ERROR;
        }
        st = clg_devices_list(*infos, *count, &got);
        if (got < *count)
            *count = got;
    }
    if (st != CLG_STATUS_OK || *count == 0) {
        if (st == CLG_STATUS_OK)
            st = CLG_STATUS_DEVICE_NOT_FOUND;
        fprintf(stderr, "clgather devices: no OpenCL device: %s\n",
                clg_cli_describe(msg, sizeof msg, NULL, st));
        return CLG_EXIT_ERROR;
    }
    return CLG_EXIT_OK;
}

static void print_device(const clg_device_info *d)
{
    char g[32], a[32];
    printf("%u:%u  %-4s %s%s\n", (unsigned)d->platform_index,
           (unsigned)d->device_index, clg_cli_device_type_name(d->type),
           d->name, d->is_default ? "  (default)" : "");
    printf("     platform: %s\n", d->platform_name);
    printf("     version: %s\n", d->version);
    printf("     global memory: %s (%llu bytes), max allocation: %s "
           "(%llu bytes)\n",
           human_bytes(g, sizeof g, d->global_mem_size),
           (unsigned long long)d->global_mem_size,
           human_bytes(a, sizeof a, d->max_alloc_size),
           (unsigned long long)d->max_alloc_size);
}

int clg_cli_devices(int argc, char **argv)
{
    static const struct option options[] = {{"help", no_argument, NULL, 'h'},
                                            {NULL, 0, NULL, 0}};
    clg_device_info *infos = NULL;
    size_t count = 0;
    int rc;
    int c;

    while ((c = getopt_long(argc, argv, "h", options, NULL)) != -1) {
        if (c == 'h') {
            usage(stdout);
            return CLG_EXIT_OK;
        }
        usage(stderr);
        return CLG_EXIT_ERROR;
    }
    if (optind != argc) {
        fprintf(stderr, "clgather devices: unexpected argument '%s'\n",
                argv[optind]);
        return CLG_EXIT_ERROR;
    }
    rc = list_devices(&infos, &count);
    if (rc == CLG_EXIT_OK)
        for (size_t i = 0; i < count; i++)
            print_device(&infos[i]);
    free(infos);
    return rc;
}
