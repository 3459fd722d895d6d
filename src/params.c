/* SPDX-License-Identifier: Apache-2.0 */
/* The device parameter table, CLGATHER_PARAMS and the public parameter
 * calls (docs/design.md, "Device parameters"). */
#include "params.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Measured on POCL 3.1's CPU device (docs/design.md, "Measured choices");
 * other CPU devices get the same values without the clang built-ins. The
 * Intel row is measured on Intel's CPU runtime 2026.2 (its vendor string:
 * POCL names the CPU's vendor, GenuineIntel, and matches the row above
 * first), whose compiler is clang's and takes the built-ins too. The GPU
 * rows are portable code. The last row matches every device. */
/* POCL's, Intel's and the plain CPU row differ only in `pack` (2 on
 * Intel's runtime: the packed gather prefetches its rows of indices and
 * output), `nt` (3, by size on the GatherElements lanes body and the
 * Gather spans, where the compiler takes the built-ins) and `small`
 * (KiB). */
#define CLG_CPU_PARAMS(pack_mode, nt_stores, small_kib)                       \
    {                                                                         \
        .wg = 4096, .strip = 256, .pack = (pack_mode), .chunk = 4, .unit = 4, \
        .prefetch = 0, .nt = (nt_stores), .norm = 1024, .small = (small_kib)  \
    }
/* map_wait (the last column) is 0 only on the two runtimes measured to
 * take the unmap of a map still queued, where waiting first would cost a
 * host round trip per call (Intel's runtime, small=0, maps every output:
 * 3.6 us per `bench -w small` call without the wait, 3.7 us with it). The
 * Rusticl row is Mesa's Rusticl 22.3 on llvmpipe (vendor "Mesa/X.org"),
 * whose compiler (clang to SPIR-V to NIR) has no clang built-ins and
 * which refuses that unmap: the CPU row but strips of 1024 bytes, not
 * packed (`clgather tune -s 0.1` chose them; on elements-axis0 the best
 * kernel of three rounds took 765 ms against 968 with the CPU row's
 * strip=256,pack=1, on a 2-core machine shared with other work). */
const clg_params_entry clg_params_table[] = {
    {"pocl-cpu", CLG_DEVICE_TYPE_CPU, "pocl", 1, CLG_CPU_PARAMS(1, 3, 64), 0},
    {"intel-cpu", CLG_DEVICE_TYPE_CPU, "Intel(R) Corporation", 1,
     CLG_CPU_PARAMS(2, 3, 0), 0},
    {"rusticl-cpu",
     CLG_DEVICE_TYPE_CPU,
     "Mesa",
     0,
     {.wg = 4096,
      .strip = 1024,
      .pack = 0,
      .chunk = 4,
      .unit = 4,
      .prefetch = 0,
      .nt = 0,
      .norm = 1024,
      .small = 64},
     1},
    {"cpu", CLG_DEVICE_TYPE_CPU, "", 0, CLG_CPU_PARAMS(1, 0, 64), 1},
    {"gpu",
     CLG_DEVICE_TYPE_GPU,
     "",
     0,
     {.wg = 256,
      .strip = 256,
      .pack = 0,
      .chunk = 0,
      .unit = 16,
      .prefetch = 0,
      .nt = 0,
      .norm = 0,
      .small = 64},
     1},
    {"default",
     CLG_DEVICE_TYPE_OTHER,
     "",
     0,
     {.wg = 256,
      .strip = 0,
      .pack = 0,
      .chunk = 0,
      .unit = 16,
      .prefetch = 0,
      .nt = 0,
      .norm = 0,
      .small = 64},
     1},
};
const size_t clg_params_table_size = sizeof clg_params_table /
                                     sizeof clg_params_table[0];

typedef struct field_info {
    const char *name;
    unsigned min, max, plain, flags;
    size_t offset;
} field_info;

static const field_info fields[] = {
#define CLG_PARAM_INFO_(field, min, max, plain, flags, meaning)               \
    {#field, min, max, plain, flags, offsetof(clg_params, field)},
    CLG_PARAM_FIELDS(CLG_PARAM_INFO_)
#undef CLG_PARAM_INFO_
};
#define FIELD_COUNT (sizeof fields / sizeof fields[0])

/* Case-insensitive substring test; "" is in everything. */
static int contains(const char *text, const char *part)
{
    size_t n = strlen(part);
    for (; text && *text; text++) {
        size_t k = 0;
        while (k < n && text[k] &&
               tolower((unsigned char)text[k]) ==
                   tolower((unsigned char)part[k]))
            k++;
        if (k == n)
            return 1;
    }
    return n == 0;
}

const clg_params_entry *clg_params_lookup(clg_device_type type,
                                          const char *vendor,
                                          const char *version)
{
    for (size_t i = 0; i + 1 < clg_params_table_size; i++) {
        const clg_params_entry *e = &clg_params_table[i];
        if (e->type == type &&
            (contains(vendor, e->match) || contains(version, e->match)))
            return e;
    }
    return &clg_params_table[clg_params_table_size - 1];
}

/* One "field=value" item of `len` bytes. */
static int parse_item(const char *item, size_t len, int builtins,
                      clg_params *p, unsigned *seen, char *msg, size_t cap)
{
    const char *eq = memchr(item, '=', len);
    size_t klen = eq ? (size_t)(eq - item) : len;
    for (size_t f = 0; f < FIELD_COUNT; f++) {
        if (strlen(fields[f].name) != klen ||
            strncmp(fields[f].name, item, klen) != 0)
            continue;
        const char *v = eq ? eq + 1 : NULL;
        size_t vlen = eq ? len - klen - 1 : 0;
        size_t digits = v ? strspn(v, "0123456789") : 0;
        unsigned long value = digits ? strtoul(v, NULL, 10) : 0;
        if (!v || digits == 0 || digits < vlen || digits > 6 ||
            value < fields[f].min || value > fields[f].max) {
            snprintf(msg, cap, "\"%.*s\": %s takes a number in [%u, %u]",
                     (int)len, item, fields[f].name, fields[f].min,
                     fields[f].max);
            return 0;
        }
        if (!builtins && value > fields[f].plain) {
            snprintf(msg, cap,
                     "\"%.*s\": %s above %u needs a parameter row whose "
                     "compiler takes clang's built-ins (POCL's, Intel's CPU "
                     "runtime's); the row in use has none",
                     (int)len, item, fields[f].name, fields[f].plain);
            return 0;
        }
        if ((fields[f].flags & CLG_PARAM_POW2) && (value & (value - 1)) != 0) {
            snprintf(msg, cap, "\"%.*s\": %s takes a power of two", (int)len,
                     item, fields[f].name);
            return 0;
        }
        if (*seen & (1u << f)) {
            snprintf(msg, cap, "\"%.*s\": %s is given twice", (int)len, item,
                     fields[f].name);
            return 0;
        }
        *seen |= 1u << f;
        *(unsigned *)((char *)p + fields[f].offset) = (unsigned)value;
        return 1;
    }
    snprintf(msg, cap, "\"%.*s\" is not field=value with a known field",
             (int)len, item);
    return 0;
}

int clg_params_parse(const char *text, int builtins, clg_params *p, char *msg,
                     size_t cap)
{
    const char *at = text;
    unsigned seen = 0;
    for (int item = 1;; item++) {
        size_t len = strcspn(at, ",");
        if (len == 0) {
            snprintf(msg, cap,
                     "an empty item (item %d, at byte %zu: a leading, "
                     "doubled or trailing comma)",
                     item, (size_t)(at - text));
            return 0;
        }
        if (!parse_item(at, len, builtins, p, &seen, msg, cap))
            return 0;
        if (at[len] == '\0')
            return 1;
        at += len + 1;
    }
}

void clg_params_format(const clg_params *p, char *buf, size_t cap)
{
    size_t len = 0;
    if (cap)
        buf[0] = '\0';
    for (size_t f = 0; f < FIELD_COUNT && len < cap; f++) {
        unsigned v = *(const unsigned *)((const char *)p + fields[f].offset);
        int n = snprintf(buf + len, cap - len, "%s%s=%u", f ? "," : "",
                         fields[f].name, v);
        if (n < 0)
            break;
        len += (size_t)n;
    }
}

/* Looked up once per thread and context: the lookup matches substrings
 * of the device's strings, and this runs on every operator call. */
const clg_params_entry *clg_params_entry_of(clg_context *ctx)
{
    static _Thread_local uint64_t cached_id;
    static _Thread_local const clg_params_entry *cached;
    uint64_t id = clg_rt_id(ctx);
    if (id != cached_id || !cached) {
        cached = clg_params_lookup(clg_rt_facts(ctx)->plan_type,
                                   clg_context_device_vendor(ctx),
                                   clg_context_device_version(ctx));
        cached_id = id;
    }
    return cached;
}

/* The row with CLGATHER_PARAMS applied, into *rp (locked). */
static void resolve(clg_context *ctx, clg_rt_params *rp)
{
    const clg_params_entry *e = clg_params_entry_of(ctx);
    const char *env = clg_rt_env_params(ctx);
    char msg[256];
    rp->value = e->params;
    rp->status = CLG_STATUS_OK;
    rp->message[0] = '\0';
    if (*env &&
        !clg_params_parse(env, e->builtins, &rp->value, msg, sizeof msg)) {
        rp->status = CLG_STATUS_INVALID_ARGUMENT;
        snprintf(rp->message, sizeof rp->message,
                 "CLGATHER_PARAMS=\"%.300s\": %s (parameter row \"%s\")", env,
                 msg, e->name);
    }
    rp->state = 1;
}

clg_status clg_params_get(clg_context *ctx, clg_params *out)
{
    clg_rt_params *rp = clg_rt_params_lock(ctx);
    if (!rp->state)
        resolve(ctx, rp);
    clg_status st = rp->status;
    *out = rp->value;
    /* Every launch asks: the message is copied out only when there is
     * one (clg_fail takes no lock of the context). */
    if (st != CLG_STATUS_OK)
        clg_fail(ctx, st, "%s", rp->message);
    clg_rt_params_unlock(ctx);
    return st;
}

const clg_params_entry *clg_context_params_entry(clg_context *ctx)
{
    return ctx ? clg_params_entry_of(ctx) : NULL;
}

clg_status clg_context_get_params(clg_context *ctx, clg_params *out)
{
    if (!ctx || !out)
        return clg_fail(ctx, CLG_STATUS_NULL_POINTER, "%s is NULL",
                        !ctx ? "ctx" : "out");
    clg_status st = clg_params_get(ctx, out);
    if (st == CLG_STATUS_OK)
        clg_clear_error(ctx);
    return st;
}

clg_status clg_context_parse_params(clg_context *ctx, const char *text,
                                    clg_params *params)
{
    char msg[256];
    if (!ctx || !text || !params)
        return clg_fail(ctx, CLG_STATUS_NULL_POINTER, "%s is NULL",
                        !ctx    ? "ctx"
                        : !text ? "text"
                                : "params");
    const clg_params_entry *e = clg_params_entry_of(ctx);
    if (!clg_params_parse(text, e->builtins, params, msg, sizeof msg))
        return clg_fail(ctx, CLG_STATUS_INVALID_ARGUMENT,
                        "%s (parameter row \"%s\")", msg, e->name);
    clg_clear_error(ctx);
    return CLG_STATUS_OK;
}

clg_status clg_context_set_params(clg_context *ctx, const clg_params *params)
{
    char text[256], msg[256];
    if (!ctx || !params)
        return clg_fail(ctx, CLG_STATUS_NULL_POINTER, "%s is NULL",
                        !ctx ? "ctx" : "params");
    /* Checked as CLGATHER_PARAMS is: every field, written out. */
    clg_params checked = *params;
    clg_params_format(params, text, sizeof text);
    const clg_params_entry *e = clg_params_entry_of(ctx);
    if (!clg_params_parse(text, e->builtins, &checked, msg, sizeof msg))
        return clg_fail(ctx, CLG_STATUS_INVALID_ARGUMENT,
                        "clg_context_set_params: %s (parameter row \"%s\")",
                        msg, e->name);
    clg_rt_params *rp = clg_rt_params_lock(ctx);
    rp->value = *params;
    rp->status = CLG_STATUS_OK;
    rp->message[0] = '\0';
    rp->state = 1;
    clg_rt_params_unlock(ctx);
    clg_clear_error(ctx);
    return CLG_STATUS_OK;
}
