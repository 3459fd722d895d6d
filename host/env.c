/* SPDX-License-Identifier: Apache-2.0 */
/* The CLGATHER_* environment variables: the only file of the library that
 * reads the environment (docs/design.md, "Environment"). A context reads
 * them once, when it is created, into its clg_env; no later call reads
 * them again. */
#include "context.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A variable's value, "" when unset; fails when it does not fit. */
static clg_status read_text(const char *name, char *buf, size_t cap, char *msg,
                            size_t msg_cap)
{
    const char *v = getenv(name);
    buf[0] = '\0';
    if (!v)
        return CLG_STATUS_OK;
    if (strlen(v) >= cap) {
        snprintf(msg, msg_cap, "%s is longer than %zu bytes", name, cap - 1);
        return CLG_STATUS_INVALID_ARGUMENT;
    }
    memcpy(buf, v, strlen(v) + 1);
    return CLG_STATUS_OK;
}

/* CLGATHER_MAX_ALLOC (bytes) lowers the size of one buffer, so that the
 * split paths can be exercised with small tensors. */
static clg_status read_max_alloc(clg_env *env, char *msg, size_t cap)
{
    const char *v = getenv("CLGATHER_MAX_ALLOC");
    env->max_alloc = 0;
    if (!v || !*v)
        return CLG_STATUS_OK;
    /* Digits only (strtoull alone takes "-1" and leading spaces), and at
     * most 19 of them so that the value cannot overflow. Below 1 KiB the
     * pieces and windows multiply into millions of launches for megabyte
     * tensors, with nothing more to test. */
    size_t digits = strspn(v, "0123456789");
    unsigned long long n = digits ? strtoull(v, NULL, 10) : 0;
    if (digits != strlen(v) || digits > 19 || n < 1024) {
        snprintf(msg, cap,
                 "CLGATHER_MAX_ALLOC=\"%.200s\" is not a byte count >= 1024",
                 v);
        return CLG_STATUS_INVALID_ARGUMENT;
    }
    env->max_alloc = n;
    return CLG_STATUS_OK;
}

/* CLGATHER_TEST_PLAN=gpu (test-only) plans as on a GPU, =cpu as on a CPU
 * (the CPU-only kernels on a GPU-like device, for the Oclgrind lane): see
 * clg_device_facts. "device", unset or empty keep the device's own. */
static clg_status read_test_plan(clg_env *env, char *msg, size_t cap)
{
    const char *v = getenv("CLGATHER_TEST_PLAN");
    env->plan = CLG_ENV_PLAN_DEVICE;
    if (!v || !*v || !strcmp(v, "device"))
        return CLG_STATUS_OK;
    if (!strcmp(v, "gpu")) {
        env->plan = CLG_ENV_PLAN_GPU;
        return CLG_STATUS_OK;
    }
    if (!strcmp(v, "cpu")) {
        env->plan = CLG_ENV_PLAN_CPU;
        return CLG_STATUS_OK;
    }
    snprintf(msg, cap,
             "CLGATHER_TEST_PLAN=\"%.200s\" is not \"gpu\", \"cpu\" or "
             "\"device\"",
             v);
    return CLG_STATUS_INVALID_ARGUMENT;
}

/* CLGATHER_VALIDATE=1 compares every host-memory call with the
 * reference; 0, unset or empty do not. */
static clg_status read_validate(clg_env *env, char *msg, size_t cap)
{
    const char *v = getenv("CLGATHER_VALIDATE");
    env->validate = v && !strcmp(v, "1");
    if (!v || !*v || !strcmp(v, "0") || env->validate)
        return CLG_STATUS_OK;
    snprintf(msg, cap, "CLGATHER_VALIDATE=\"%.200s\" is not \"0\" or \"1\"",
             v);
    return CLG_STATUS_INVALID_ARGUMENT;
}

/* CLGATHER_SVM=0 wraps host memory in buffers even on a device that
 * could take it as SVM pointers (host/svm.c); 1, unset or empty: where
 * the device can. */
static clg_status read_svm(clg_env *env, char *msg, size_t cap)
{
    const char *v = getenv("CLGATHER_SVM");
    env->no_svm = v && !strcmp(v, "0");
    if (!v || !*v || !strcmp(v, "1") || env->no_svm)
        return CLG_STATUS_OK;
    snprintf(msg, cap, "CLGATHER_SVM=\"%.200s\" is not \"0\" or \"1\"", v);
    return CLG_STATUS_INVALID_ARGUMENT;
}

/* CLGATHER_TEST_MISCOMPILE=1 (test-only) builds every program with
 * -DCLG_TEST_MISCOMPILE, which makes the kernels wrong on purpose
 * (kernels/common.cl), so that the tests can see the known-answer
 * self-test refuse them (docs/guide.md, "Known-answer self-test"). */
static clg_status read_test_miscompile(clg_env *env, char *msg, size_t cap)
{
    const char *v = getenv("CLGATHER_TEST_MISCOMPILE");
    env->test_miscompile = v && !strcmp(v, "1");
    if (!v || !*v || !strcmp(v, "0") || env->test_miscompile)
        return CLG_STATUS_OK;
    snprintf(msg, cap,
             "CLGATHER_TEST_MISCOMPILE=\"%.200s\" is not \"0\" or \"1\"", v);
    return CLG_STATUS_INVALID_ARGUMENT;
}

/* A byte count with an optional K, M or G (powers of 1024); 0 on error,
 * including a count whose bytes do not fit int64 (e.g. "99999999999G",
 * which would otherwise wrap around to an arbitrary cap). */
static uint64_t parse_bytes(const char *text)
{
    size_t digits = strspn(text, "0123456789");
    const char *suffix = text + digits;
    unsigned shift = !*suffix               ? 0
                     : !strcmp(suffix, "K") ? 10
                     : !strcmp(suffix, "M") ? 20
                     : !strcmp(suffix, "G") ? 30
                                            : 99;
    if (digits == 0 || digits > 12 || shift == 99)
        return 0;
    uint64_t n = strtoull(text, NULL, 10);
    if (n > ((uint64_t)INT64_MAX >> shift))
        return 0;
    return n << shift;
}

/* CLGATHER_CACHE, CLGATHER_CACHE_DIR, CLGATHER_CACHE_MAX, the folder's
 * fallbacks XDG_CACHE_HOME and HOME (docs/design.md, "Program cache"), and
 * the test hooks CLGATHER_TEST_DRIVER_VERSION and CLGATHER_TEST_HOST_ISA. */
clg_status clg_env_read_cache(clg_disk_settings *s, char *msg, size_t cap)
{
    const char *on = getenv("CLGATHER_CACHE");
    const char *dir = getenv("CLGATHER_CACHE_DIR");
    const char *max = getenv("CLGATHER_CACHE_MAX");
    const char *hook = getenv("CLGATHER_TEST_DRIVER_VERSION");
    const char *isa_hook = getenv("CLGATHER_TEST_HOST_ISA");
    const char *base = getenv("XDG_CACHE_HOME");
    const char *tail = "clgather";
    memset(s, 0, sizeof *s);
    s->max_bytes = CLG_DISK_DEFAULT_MAX;
    if (on && *on && strcmp(on, "0") && strcmp(on, "1")) {
        snprintf(msg, cap, "CLGATHER_CACHE=\"%.200s\" is not \"0\" or \"1\"",
                 on);
        return CLG_STATUS_INVALID_ARGUMENT;
    }
    if (max && *max && !(s->max_bytes = parse_bytes(max))) {
        snprintf(msg, cap,
                 "CLGATHER_CACHE_MAX=\"%.200s\" is not a byte count > 0 (K, M "
                 "or G may follow)",
                 max);
        return CLG_STATUS_INVALID_ARGUMENT;
    }
    snprintf(s->driver_override, sizeof s->driver_override, "%s",
             hook ? hook : "");
    snprintf(s->isa_override, sizeof s->isa_override, "%s",
             isa_hook ? isa_hook : "");
    if (dir && *dir)
        base = dir, tail = NULL;
    else if (!base || *base != '/')
        base = getenv("HOME"), tail = ".cache/clgather";
    /* No folder (no HOME), or one too long: the cache is off. */
    s->on = !(on && !strcmp(on, "0")) && base && *base &&
            snprintf(s->dir, sizeof s->dir, "%s%s%s", base, tail ? "/" : "",
                     tail ? tail : "") < (int)sizeof s->dir;
    if (!s->on)
        s->dir[0] = '\0';
    return CLG_STATUS_OK;
}

clg_status clg_env_read(clg_env *env, char *msg, size_t cap)
{
    clg_status st;
    memset(env, 0, sizeof *env);
    if ((st = read_text("CLGATHER_DEVICE", env->device, sizeof env->device,
                        msg, cap)) != CLG_STATUS_OK ||
        (st = read_text("CLGATHER_PARAMS", env->params, sizeof env->params,
                        msg, cap)) != CLG_STATUS_OK ||
        (st = read_max_alloc(env, msg, cap)) != CLG_STATUS_OK ||
        (st = read_test_plan(env, msg, cap)) != CLG_STATUS_OK ||
        (st = read_validate(env, msg, cap)) != CLG_STATUS_OK ||
        (st = read_svm(env, msg, cap)) != CLG_STATUS_OK ||
        (st = read_test_miscompile(env, msg, cap)) != CLG_STATUS_OK ||
        (st = clg_env_read_cache(&env->cache, msg, cap)) != CLG_STATUS_OK)
        return st;
    return CLG_STATUS_OK;
}

int clg_env_device(char *buf, size_t cap)
{
    char msg[64];
    if (read_text("CLGATHER_DEVICE", buf, cap, msg, sizeof msg) !=
        CLG_STATUS_OK) {
        buf[0] = '\0';
        return -1;
    }
    return 0;
}

clg_status clg_environment_check(void)
{
    clg_env env;
    char msg[CLG_ERROR_CAPACITY];
    clg_status st = clg_env_read(&env, msg, sizeof msg);
    if (st != CLG_STATUS_OK)
        return clg_fail(NULL, st, "%s", msg);
    clg_clear_error(NULL);
    return CLG_STATUS_OK;
}
