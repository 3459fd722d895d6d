/* SPDX-License-Identifier: Apache-2.0 */
/* Helpers shared by the clgather subcommands. */
#include "cli.h"

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "io_tensor.h"
#include "json_out.h"

int clg_cli_parse_repeat(const char *cmd, const char *text, int64_t max,
                         int64_t *value)
{
    if (clg_cli_parse_int64(text, value) != 0 || *value < 1 || *value > max) {
        fprintf(stderr,
                "clgather %s: --repeat '%s' is not a count from 1 to %lld\n",
                cmd, text, (long long)max);
        return -1;
    }
    return 0;
}

int clg_cli_once(const char *cmd, const char *option, int *seen)
{
    if (*seen) {
        fprintf(stderr, "clgather %s: %s given twice\n", cmd, option);
        return -1;
    }
    *seen = 1;
    return 0;
}

static char failure[2048];

void clg_cli_fail(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(failure, sizeof failure, fmt, ap);
    va_end(ap);
    fprintf(stderr, "clgather %s: %s\n", cmd, failure);
}

const char *clg_cli_failure(void)
{
    return failure[0] != '\0' ? failure : NULL;
}

static pthread_t main_thread;

/* The temporary file of a write in progress goes; the signal then ends
 * the process as it would have (its default action, re-raised). Only the
 * main thread, the one that writes, runs this: it holds these signals
 * while it creates and registers a temporary file (io_tensor.c), which
 * protects nothing against a handler on another thread, and the OpenCL
 * runtime starts threads of its own (POCL's workers) that may receive a
 * signal sent to the process. Such a thread hands the signal on to the
 * main thread (pthread_kill is async-signal-safe), where it waits until
 * the registration is done. */
static void on_signal(int sig)
{
    if (!pthread_equal(pthread_self(), main_thread)) {
        pthread_kill(main_thread, sig);
        return;
    }
    clg_io_remove_pending_temp();
    signal(sig, SIG_DFL);
    raise(sig);
}

static double pause_seconds;

static void test_pause(void)
{
    struct timespec ts;
    ts.tv_sec = (time_t)pause_seconds;
    ts.tv_nsec = (long)((pause_seconds - (double)ts.tv_sec) * 1e9);
    fprintf(stderr,
            "clgather: pausing %.3f s in a write "
            "(CLGATHER_TEST_WRITE_PAUSE)\n",
            pause_seconds);
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
}

void clg_cli_protect_writes(void)
{
    static const int signals[] = {SIGINT, SIGTERM, SIGHUP};
    const char *pause = getenv("CLGATHER_TEST_WRITE_PAUSE");
    main_thread = pthread_self();
    for (size_t i = 0; i < sizeof signals / sizeof signals[0]; i++) {
        struct sigaction sa, old;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_signal;
        sigemptyset(&sa.sa_mask);
        /* a signal ignored at start stays ignored (nohup's SIGHUP, a
         * background job's SIGINT) */
        if (sigaction(signals[i], NULL, &old) == 0 &&
            old.sa_handler != SIG_IGN)
            sigaction(signals[i], &sa, NULL);
    }
    if (pause != NULL && *pause != '\0') {
        char *end = NULL;
        double s = strtod(pause, &end);
        if (end != pause && *end == '\0' && s > 0 && s <= 3600) {
            pause_seconds = s;
            clg_io_set_write_pause(test_pause);
        }
    }
}

void clg_cli_json_head(struct clg_json *j, const char *cmd)
{
    char name[64], when[32] = "";
    time_t now = time(NULL);
    struct tm utc;
    snprintf(name, sizeof name, "clgather-%s", cmd);
    if (now != (time_t)-1 && gmtime_r(&now, &utc) != NULL)
        strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", &utc);
    clg_json_begin_object(j, NULL);
    clg_json_begin_object(j, "schema");
    clg_json_string(j, "name", name);
    clg_json_int(j, "version", CLG_CLI_JSON_VERSION);
    clg_json_end_object(j);
    clg_json_int(j, "schema_version", CLG_CLI_JSON_VERSION);
    clg_json_string(j, "command", cmd);
    clg_json_string(j, "tool_version", CLG_VERSION_STRING);
    clg_json_string(j, "library_version", clg_version_string());
    clg_json_string(j, "time", when[0] ? when : NULL);
}

void clg_cli_json_begin(struct clg_json *j, const char *cmd)
{
    clg_json_init(j, stdout);
    clg_cli_json_head(j, cmd);
}

void clg_cli_json_end(struct clg_json *j, int rc)
{
    clg_json_string(j, "error", clg_cli_failure());
    clg_json_int(j, "exit_status", rc);
    clg_json_end_object(j);
    clg_json_finish(j);
}

void clg_cli_json_runtime(struct clg_json *j, const clg_context *ctx)
{
    clg_json_string(j, "platform", clg_context_platform_name(ctx));
    clg_json_string(j, "platform_version", clg_context_platform_version(ctx));
    clg_json_string(j, "driver_version", clg_context_driver_version(ctx));
}

int clg_cli_try_help(const char *cmd)
{
    fprintf(stderr, "Try 'clgather %s --help'.\n", cmd);
    return CLG_EXIT_ERROR;
}

const char *clg_cli_device_line(char *buf, size_t cap, const clg_context *ctx)
{
    const char *platform = clg_context_platform_name(ctx);
    const char *driver = clg_context_driver_version(ctx);
    if (platform[0] == '\0')
        snprintf(buf, cap, "%s", clg_context_device_name(ctx));
    else
        snprintf(buf, cap, "%s on %s%s%s", clg_context_device_name(ctx),
                 platform, driver[0] != '\0' ? " " : "", driver);
    return buf;
}

/* 1 when no OpenCL runtime offers a device at all. */
static int no_device_at_all(void)
{
    size_t count = 0;
    clg_status st = clg_devices_list(NULL, 0, &count);
    return st == CLG_STATUS_DEVICE_NOT_FOUND ||
           (st == CLG_STATUS_OK && count == 0);
}

/* A spec with its white space around removed, as the library reads it,
 * into buf; NULL when it is NULL or empty then. */
static const char *trimmed(char *buf, size_t cap, const char *spec)
{
    size_t n;
    if (spec == NULL)
        return NULL;
    while (isspace((unsigned char)*spec))
        spec++;
    n = strlen(spec);
    while (n > 0 && isspace((unsigned char)spec[n - 1]))
        n--;
    if (n == 0)
        return NULL;
    snprintf(buf, cap, "%.*s", (int)(n < cap ? n : cap - 1), spec);
    return buf;
}

int clg_cli_open_device(const char *cmd, const char *spec, clg_context **ctx)
{
    char msg[1200], given[300], env[300];
    const char *s = trimmed(given, sizeof given, spec);
    const char *e = trimmed(env, sizeof env, getenv("CLGATHER_DEVICE"));
    clg_status st = clg_context_create(ctx, spec);
    if (st == CLG_STATUS_OK)
        return CLG_EXIT_OK;
    clg_cli_describe(msg, sizeof msg, NULL, st);
    if (st == CLG_STATUS_DEVICE_NOT_FOUND && no_device_at_all())
        clg_cli_fail(cmd, "no OpenCL device found: " CLG_CLI_NO_DEVICE_HINT
                          "; 'clgather devices' then lists the devices");
    else if (s != NULL)
        clg_cli_fail(cmd,
                     "cannot use --device \"%s\": %s; 'clgather devices' "
                     "lists the devices and their P:D specs",
                     s, msg);
    else if (e != NULL)
        clg_cli_fail(cmd,
                     "cannot use CLGATHER_DEVICE=\"%s\": %s; set "
                     "CLGATHER_DEVICE to a device 'clgather devices' "
                     "lists, or unset it",
                     e, msg);
    else
        clg_cli_fail(cmd,
                     "cannot use the default device: %s; 'clgather "
                     "devices' lists the devices",
                     msg);
    return st == CLG_STATUS_INVALID_ARGUMENT ? CLG_EXIT_ERROR
                                             : CLG_EXIT_RUNTIME;
}

int clg_cli_exit_for_status(clg_status status)
{
    switch (status) {
    case CLG_STATUS_OK:
        return CLG_EXIT_OK;
    case CLG_STATUS_DEVICE_MISMATCH:
        return CLG_EXIT_DIFFER; /* CLGATHER_VALIDATE=1 caught the device */
    case CLG_STATUS_OUT_OF_MEMORY:
    case CLG_STATUS_DEVICE_NOT_FOUND:
    case CLG_STATUS_OPENCL_ERROR:
    case CLG_STATUS_BUILD_FAILED:
    case CLG_STATUS_PENDING_LIMIT:
    case CLG_STATUS_DEVICE_MISCOMPILED:
        return CLG_EXIT_RUNTIME;
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
        /* NULL_POINTER (a bug here) */
        return CLG_EXIT_ERROR;
    }
}

const char *clg_cli_describe(char *buf, size_t cap, const clg_context *ctx,
                             clg_status status)
{
    const char *msg = clg_context_last_error(ctx);
    if (msg == NULL || msg[0] == '\0')
        msg = clg_status_message(status);
    const char *code = clg_cl_error_name(clg_context_last_cl_error(ctx));
    /* The OpenCL error's name, unless the message names it already (the
     * library's "clFoo failed: CL_INVALID_VALUE (-30)" does). */
    if ((status == CLG_STATUS_OPENCL_ERROR ||
         status == CLG_STATUS_BUILD_FAILED) &&
        clg_context_last_cl_error(ctx) != CL_SUCCESS &&
        strstr(msg, code) == NULL)
        snprintf(buf, cap, "%s: %s (%s)", clg_status_name(status), msg, code);
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
    /* strtoll skips leading white space; an option value may not have
     * any. */
    if (!(isdigit((unsigned char)text[0]) ||
          ((text[0] == '-' || text[0] == '+') &&
           isdigit((unsigned char)text[1]))))
        return -1;
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

int clg_cli_check_env(const char *cmd)
{
    char msg[1200];
    clg_status st = clg_environment_check();
    if (st == CLG_STATUS_OK)
        return CLG_EXIT_OK;
    clg_cli_fail(cmd, "%s", clg_cli_describe(msg, sizeof msg, NULL, st));
    return CLG_EXIT_ERROR;
}

int clg_cli_device_only(clg_context *ctx, const char *cmd)
{
    char msg[1200];
    clg_status st = clg_context_set_param(ctx, CLG_PARAM_HOST, 0);
    if (st != CLG_STATUS_OK) {
        clg_cli_fail(cmd, "%s", clg_cli_describe(msg, sizeof msg, ctx, st));
        return CLG_EXIT_ERROR;
    }
    return CLG_EXIT_OK;
}

int clg_cli_params(clg_context *ctx, const char *cmd, char *buf, size_t cap)
{
    char msg[1200];
    clg_status st = clg_context_format_params(ctx, buf, cap);
    if (st != CLG_STATUS_OK) {
        clg_cli_fail(cmd, "%s", clg_cli_describe(msg, sizeof msg, ctx, st));
        return CLG_EXIT_ERROR;
    }
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

void clg_cli_op_words(char *buf, size_t cap)
{
    size_t at = 0;
    int n = clg_op_count();
    if (cap > 0)
        buf[0] = '\0';
    for (int i = 0; i < n && at < cap; i++)
        at += (size_t)snprintf(buf + at, cap - at, "%s%s",
                               i == 0       ? ""
                               : i == n - 1 ? " or "
                                            : ", ",
                               clg_op_word((clg_op)i));
}

int clg_cli_parse_op(const char *text, clg_op *op)
{
    clg_op found;
    /* The library also takes the ONNX op_type ("GatherElements"); the
     * tool's words are lower case. */
    if (clg_op_parse(text, &found) != CLG_STATUS_OK ||
        strcmp(text, clg_op_name(found)) == 0)
        return -1;
    *op = found;
    return 0;
}

int clg_cli_check_attribute(const char *cmd, clg_op op, int axis_given,
                            int batch_given)
{
    int batch = strcmp(clg_op_attribute(op), "batch_dims") == 0;
    if ((batch && axis_given) || (!batch && batch_given)) {
        fprintf(stderr, "clgather %s: %s takes %s, not %s\n", cmd,
                clg_op_word(op), batch ? "--batch-dims" : "--axis",
                batch ? "--axis" : "--batch-dims");
        return -1;
    }
    return 0;
}

int clg_cli_parse_oob(const char *cmd, const char *text, clg_oob_mode *mode)
{
    if (clg_oob_mode_parse(text, mode) != CLG_STATUS_OK) {
        fprintf(stderr,
                "clgather %s: --oob '%s' is not raise, wrap, clip or fill\n",
                cmd, text);
        return -1;
    }
    return 0;
}
