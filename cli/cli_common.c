/* Helpers shared by the clgather subcommands. */
#include "cli.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

int clg_cli_exit_for_status(clg_status status)
{
    switch (status) {
    case CLG_STATUS_OK:
        return CLG_EXIT_OK;
    case CLG_STATUS_INVALID_ARGUMENT:
    case CLG_STATUS_INVALID_AXIS:
    case CLG_STATUS_INVALID_RANK:
    case CLG_STATUS_RANK_MISMATCH:
    case CLG_STATUS_INVALID_SHAPE:
    case CLG_STATUS_SHAPE_MISMATCH:
    case CLG_STATUS_UNSUPPORTED_DTYPE:
    case CLG_STATUS_INDEX_OUT_OF_RANGE:
    case CLG_STATUS_TENSOR_TOO_LARGE:
        return CLG_EXIT_REJECTED;
    default:
        /* NULL_POINTER (a bug here), OUT_OF_MEMORY, DEVICE_NOT_FOUND,
         * OPENCL_ERROR, BUILD_FAILED */
        return CLG_EXIT_ERROR;
    }
}

const char *clg_cli_describe(char *buf, size_t cap, const clg_context *ctx,
                             clg_status status)
{
    const char *msg = clg_context_last_error(ctx);
    if (msg == NULL || msg[0] == '\0')
        msg = clg_status_message(status);
    if (status == CLG_STATUS_OPENCL_ERROR || status == CLG_STATUS_BUILD_FAILED)
        snprintf(buf, cap, "%s: %s (%s)", clg_status_name(status), msg,
                 clg_cl_error_name(clg_context_last_cl_error(ctx)));
    else
        snprintf(buf, cap, "%s: %s", clg_status_name(status), msg);
    return buf;
}

void clg_cli_reset_getopt(void)
{
#ifdef __GLIBC__
    optind = 0; /* glibc: also resets its internal state */
#else
    optind = 1;
#endif
}

int clg_cli_parse_int64(const char *text, int64_t *value)
{
    char *end = NULL;
    long long v;
    errno = 0;
    v = strtoll(text, &end, 10);
    if (errno != 0 || end == text || *end != '\0')
        return -1;
    *value = (int64_t)v;
    return 0;
}

double clg_cli_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

const char *clg_cli_device_label(char *buf, size_t cap, const char *spec)
{
    snprintf(buf, cap, "%s", spec ? spec : "(default)");
    return buf;
}

int clg_cli_check_env(const char *cmd)
{
    char msg[1200];
    clg_status st = clg_environment_check();
    if (st == CLG_STATUS_OK)
        return CLG_EXIT_OK;
    fprintf(stderr, "clgather %s: %s\n", cmd,
            clg_cli_describe(msg, sizeof msg, NULL, st));
    return CLG_EXIT_ERROR;
}

int clg_cli_params(clg_context *ctx, const char *cmd, char *buf, size_t cap)
{
    clg_params prm;
    char msg[1200];
    clg_status st = clg_context_get_params(ctx, &prm);
    if (st != CLG_STATUS_OK) {
        fprintf(stderr, "clgather %s: %s\n", cmd,
                clg_cli_describe(msg, sizeof msg, ctx, st));
        return CLG_EXIT_ERROR;
    }
    clg_params_format(&prm, buf, cap);
    return CLG_EXIT_OK;
}

const char *clg_cli_device_type_name(clg_device_type t)
{
    switch (t) {
    case CLG_DEVICE_TYPE_CPU:
        return "CPU";
    case CLG_DEVICE_TYPE_GPU:
        return "GPU";
    case CLG_DEVICE_TYPE_ACCELERATOR:
        return "ACCELERATOR";
    default:
        return "OTHER";
    }
}
