/* SPDX-License-Identifier: Apache-2.0 */
/* The device parameter table, CLGATHER_PARAMS and the public parameter
 * calls, by name and as clg_params (docs/design.md, "Device
 * parameters"). Everything here is generated from CLG_PARAM_TABLE
 * (clgather.h) and CLG_PARAM_ROWS (params.h). */
#include "params.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CLG_PARAM_LIST_(...) __VA_ARGS__

/* Each row's value of a field: CLG_PARAM_ROW_<index>_ picks column
 * <index> of its `rows` (a field whose `rows` has another length fails to
 * compile here). */
#define CLG_PARAM_PICK0_(a, b, c, d, e, f) a
#define CLG_PARAM_PICK1_(a, b, c, d, e, f) b
#define CLG_PARAM_PICK2_(a, b, c, d, e, f) c
#define CLG_PARAM_PICK3_(a, b, c, d, e, f) d
#define CLG_PARAM_PICK4_(a, b, c, d, e, f) e
#define CLG_PARAM_PICK5_(a, b, c, d, e, f) f
#define CLG_PARAM_ROW_0_(ID, id, name, lo, hi, plain, pow2, rows, cand)       \
    CLG_PARAM_PICK0_ rows,
#define CLG_PARAM_ROW_1_(ID, id, name, lo, hi, plain, pow2, rows, cand)       \
    CLG_PARAM_PICK1_ rows,
#define CLG_PARAM_ROW_2_(ID, id, name, lo, hi, plain, pow2, rows, cand)       \
    CLG_PARAM_PICK2_ rows,
#define CLG_PARAM_ROW_3_(ID, id, name, lo, hi, plain, pow2, rows, cand)       \
    CLG_PARAM_PICK3_ rows,
#define CLG_PARAM_ROW_4_(ID, id, name, lo, hi, plain, pow2, rows, cand)       \
    CLG_PARAM_PICK4_ rows,
#define CLG_PARAM_ROW_5_(ID, id, name, lo, hi, plain, pow2, rows, cand)       \
    CLG_PARAM_PICK5_ rows,

#define CLG_PARAM_ENTRY_(index, name, type, match, builtins, map_wait)        \
    {name,                                                                    \
     type,                                                                    \
     match,                                                                   \
     builtins,                                                                \
     {CLG_PARAM_STRUCT_FIELDS(CLG_PARAM_ROW_##index##_)},                     \
     map_wait},
const clg_params_entry clg_params_table[] = {CLG_PARAM_ROWS(CLG_PARAM_ENTRY_)};
#undef CLG_PARAM_ENTRY_
const size_t clg_params_table_size = sizeof clg_params_table /
                                     sizeof clg_params_table[0];

#define CLG_PARAM_VALUES_(index, name, type, match, builtins, map_wait)       \
    {CLG_PARAM_TABLE(CLG_PARAM_ROW_##index##_)},
const clg_param_values clg_params_rows[] = {CLG_PARAM_ROWS(CLG_PARAM_VALUES_)};
#undef CLG_PARAM_VALUES_
_Static_assert(sizeof clg_params_rows / sizeof clg_params_rows[0] ==
                   sizeof clg_params_table / sizeof clg_params_table[0],
               "a values row per row of the parameter table");

/* Each field's candidates, and its place in clg_param_values (and in
 * clg_params for the fields it holds): the id is the member's index. */
#define CLG_PARAM_CANDIDATES_(ID, id, name, lo, hi, plain, pow2, rows, cand)  \
    static const int64_t candidates_##name[] = {CLG_PARAM_LIST_ cand};        \
    _Static_assert(offsetof(clg_param_values, name) ==                        \
                       (id) * sizeof(unsigned),                               \
                   "CLG_PARAM_" #ID "'s id is its place in the table");
CLG_PARAM_TABLE(CLG_PARAM_CANDIDATES_)
#undef CLG_PARAM_CANDIDATES_
#define CLG_PARAM_MEMBER_AT_(ID, id, name, lo, hi, plain, pow2, rows, cand)   \
    _Static_assert(offsetof(clg_params, name) == (id) * sizeof(unsigned),     \
                   "clg_params holds CLG_PARAM_" #ID " at its id");
CLG_PARAM_STRUCT_FIELDS(CLG_PARAM_MEMBER_AT_)
#undef CLG_PARAM_MEMBER_AT_
_Static_assert(CLG_PARAM_N <= 64, "the parser's `seen` holds a bit a field");

typedef struct field_info {
    const char *name;
    int64_t lo, hi, plain;
    int pow2;
    const int64_t *candidates;
    size_t candidate_count;
} field_info;

static const field_info fields[CLG_PARAM_N] = {
#define CLG_PARAM_INFO_(ID, id, name, lo, hi, plain, pow2, rows, cand)        \
    [id] = {#name,                                                            \
            lo,                                                               \
            hi,                                                               \
            plain,                                                            \
            pow2,                                                             \
            candidates_##name,                                                \
            sizeof candidates_##name / sizeof candidates_##name[0]},
    CLG_PARAM_TABLE(CLG_PARAM_INFO_)
#undef CLG_PARAM_INFO_
};

static unsigned *slot(clg_param_values *v, size_t f)
{
    return (unsigned *)((char *)v + f * sizeof(unsigned));
}

static unsigned value_of(const clg_param_values *v, size_t f)
{
    return *(const unsigned *)((const char *)v + f * sizeof(unsigned));
}

/* clg_params is the first CLG_PARAM_STRUCT_N members of clg_param_values
 * (asserted above and in params.h). */
static void values_from_struct(clg_param_values *v, const clg_params *p)
{
    memcpy(v, p, sizeof *p);
}

static void struct_from_values(clg_params *p, const clg_param_values *v)
{
    memcpy(p, v, sizeof *p);
}

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

const char *clg_param_check(clg_param param, int64_t value, int builtins,
                            char *msg, size_t cap)
{
    if ((unsigned)param >= CLG_PARAM_N) {
        snprintf(msg, cap, "%d is not a field (0 to %d)", (int)param,
                 CLG_PARAM_N - 1);
        return msg;
    }
    const field_info *f = &fields[param];
    if (value < f->lo || value > f->hi)
        snprintf(msg, cap, "%s takes a number in [%" PRId64 ", %" PRId64 "]",
                 f->name, f->lo, f->hi);
    else if (!builtins && value > f->plain)
        snprintf(msg, cap,
                 "%s above %" PRId64 " needs a parameter row whose "
                 "compiler takes clang's built-ins (POCL's, Intel's CPU "
                 "runtime's); the row in use has none",
                 f->name, f->plain);
    else if (f->pow2 && (value & (value - 1)) != 0)
        snprintf(msg, cap, "%s takes a power of two", f->name);
    else
        return NULL;
    return msg;
}

/* One "field=value" item of `len` bytes; fields from `limit` on are not
 * taken (those outside clg_params, for its calls). */
static int parse_item(const char *item, size_t len, int builtins, size_t limit,
                      clg_param_values *v, uint64_t *seen, char *msg,
                      size_t cap)
{
    const char *eq = memchr(item, '=', len);
    size_t klen = eq ? (size_t)(eq - item) : len;
    char why[256];
    for (size_t f = 0; f < CLG_PARAM_N; f++) {
        if (strlen(fields[f].name) != klen ||
            strncmp(fields[f].name, item, klen) != 0)
            continue;
        if (f >= limit) {
            snprintf(msg, cap,
                     "\"%.*s\": %s is not a member of clg_params (set it by "
                     "name)",
                     (int)len, item, fields[f].name);
            return 0;
        }
        const char *val = eq ? eq + 1 : NULL;
        size_t vlen = eq ? len - klen - 1 : 0;
        size_t digits = val ? strspn(val, "0123456789") : 0;
        int64_t value = digits ? (int64_t)strtoll(val, NULL, 10) : -1;
        /* Nine digits hold every field's bounds (the largest, host's, has
         * eight) and cannot overflow; more are out of every range. */
        if (!val || digits == 0 || digits < vlen || digits > 9)
            value = -1;
        if (clg_param_check((clg_param)f, value, builtins, why, sizeof why)) {
            snprintf(msg, cap, "\"%.*s\": %s", (int)len, item, why);
            return 0;
        }
        if (*seen & ((uint64_t)1 << f)) {
            snprintf(msg, cap, "\"%.*s\": %s is given twice", (int)len, item,
                     fields[f].name);
            return 0;
        }
        *seen |= (uint64_t)1 << f;
        *slot(v, f) = (unsigned)value;
        return 1;
    }
    snprintf(msg, cap, "\"%.*s\" is not field=value with a known field",
             (int)len, item);
    return 0;
}

static int parse_text(const char *text, int builtins, size_t limit,
                      clg_param_values *v, char *msg, size_t cap)
{
    const char *at = text;
    uint64_t seen = 0;
    for (int item = 1;; item++) {
        size_t len = strcspn(at, ",");
        if (len == 0) {
            snprintf(msg, cap,
                     "an empty item (item %d, at byte %zu: a leading, "
                     "doubled or trailing comma)",
                     item, (size_t)(at - text));
            return 0;
        }
        if (!parse_item(at, len, builtins, limit, v, &seen, msg, cap))
            return 0;
        if (at[len] == '\0')
            return 1;
        at += len + 1;
    }
}

int clg_param_values_parse(const char *text, int builtins, clg_param_values *v,
                           char *msg, size_t cap)
{
    return parse_text(text, builtins, CLG_PARAM_N, v, msg, cap);
}

int clg_params_parse(const char *text, int builtins, clg_params *p, char *msg,
                     size_t cap)
{
    clg_param_values v = {0};
    values_from_struct(&v, p);
    int ok = parse_text(text, builtins, CLG_PARAM_STRUCT_N, &v, msg, cap);
    struct_from_values(p, &v);
    return ok;
}

/* The first n fields of *v as "name=value,..."; the length the whole text
 * needs (buf holds what fits, terminated when cap > 0). */
static size_t format_values(const clg_param_values *v, size_t n, char *buf,
                            size_t cap)
{
    size_t len = 0;
    int full = 0; /* an item did not fit: whole items only, none after */
    if (cap)
        buf[0] = '\0';
    for (size_t f = 0; f < n; f++) {
        char item[64];
        int k = snprintf(item, sizeof item, "%s%s=%u", f ? "," : "",
                         fields[f].name, value_of(v, f));
        if (k < 0)
            break;
        full |= len + (size_t)k >= cap;
        if (!full)
            memcpy(buf + len, item, (size_t)k + 1);
        len += (size_t)k;
    }
    return len;
}

void clg_params_format(const clg_params *p, char *buf, size_t cap)
{
    clg_param_values v = {0};
    values_from_struct(&v, p);
    format_values(&v, CLG_PARAM_STRUCT_N, buf, cap);
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

static const clg_param_values *row_values(const clg_params_entry *e)
{
    return &clg_params_rows[e - clg_params_table];
}

/* The row with CLGATHER_PARAMS applied, into *rp (locked). */
static void resolve(clg_context *ctx, clg_rt_params *rp)
{
    const clg_params_entry *e = clg_params_entry_of(ctx);
    const char *env = clg_rt_env_params(ctx);
    char msg[256];
    rp->value = *row_values(e);
    rp->status = CLG_STATUS_OK;
    rp->message[0] = '\0';
    if (*env && !clg_param_values_parse(env, e->builtins, &rp->value, msg,
                                        sizeof msg)) {
        rp->status = CLG_STATUS_INVALID_ARGUMENT;
        snprintf(rp->message, sizeof rp->message,
                 "CLGATHER_PARAMS=\"%.300s\": %s (parameter row \"%s\")", env,
                 msg, e->name);
    }
    rp->state = 1;
}

/* Locks ctx's parameters, resolved; OK, or the status of a malformed
 * CLGATHER_PARAMS (failed on ctx). Unlock with clg_rt_params_unlock. */
static clg_status lock_resolved(clg_context *ctx, clg_rt_params **out)
{
    clg_rt_params *rp = clg_rt_params_lock(ctx);
    if (!rp->state)
        resolve(ctx, rp);
    *out = rp;
    /* Every launch asks: the message is copied out only when there is
     * one (clg_fail takes no lock of the context). */
    if (rp->status != CLG_STATUS_OK)
        clg_fail(ctx, rp->status, "%s", rp->message);
    return rp->status;
}

clg_status clg_param_values_get(clg_context *ctx, clg_param_values *out)
{
    clg_rt_params *rp;
    clg_status st = lock_resolved(ctx, &rp);
    *out = rp->value;
    clg_rt_params_unlock(ctx);
    return st;
}

clg_status clg_params_get(clg_context *ctx, clg_params *out)
{
    clg_rt_params *rp;
    clg_status st = lock_resolved(ctx, &rp);
    struct_from_values(out, &rp->value);
    clg_rt_params_unlock(ctx);
    return st;
}

/* Stores *v as ctx's parameters in use. */
static void store(clg_context *ctx, const clg_param_values *v)
{
    clg_rt_params *rp = clg_rt_params_lock(ctx);
    rp->value = *v;
    rp->status = CLG_STATUS_OK;
    rp->message[0] = '\0';
    rp->state = 1;
    clg_rt_params_unlock(ctx);
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
    /* The fields outside clg_params keep the values in use. */
    clg_rt_params *rp = clg_rt_params_lock(ctx);
    if (!rp->state)
        resolve(ctx, rp);
    if (rp->status != CLG_STATUS_OK)
        rp->value = *row_values(e);
    values_from_struct(&rp->value, params);
    rp->status = CLG_STATUS_OK;
    rp->message[0] = '\0';
    clg_rt_params_unlock(ctx);
    clg_clear_error(ctx);
    return CLG_STATUS_OK;
}

/* ------------------------------------------------------------ by name */

int clg_param_count(void)
{
    return CLG_PARAM_N;
}

const char *clg_param_name(clg_param param)
{
    return (unsigned)param < CLG_PARAM_N ? fields[param].name : NULL;
}

/* INVALID_ARGUMENT on ctx (may be NULL) when param is not a field. */
static clg_status check_field(clg_context *ctx, const char *fn,
                              clg_param param)
{
    if ((unsigned)param < CLG_PARAM_N)
        return CLG_STATUS_OK;
    return clg_fail(ctx, CLG_STATUS_INVALID_ARGUMENT,
                    "%s: param %d is not a field (0 to %d)", fn, (int)param,
                    CLG_PARAM_N - 1);
}

clg_status clg_param_parse(const char *name, clg_param *param)
{
    if (!name || !param)
        return clg_fail(NULL, CLG_STATUS_NULL_POINTER, "%s is NULL",
                        !name ? "name" : "param");
    for (size_t f = 0; f < CLG_PARAM_N; f++)
        if (strcmp(name, fields[f].name) == 0) {
            *param = (clg_param)f;
            return CLG_STATUS_OK;
        }
    char list[256];
    size_t len = 0;
    list[0] = '\0';
    for (size_t f = 0; f < CLG_PARAM_N && len < sizeof list; f++) {
        int k = snprintf(list + len, sizeof list - len, "%s%s", f ? ", " : "",
                         fields[f].name);
        len += k > 0 ? (size_t)k : 0;
    }
    return clg_fail(NULL, CLG_STATUS_INVALID_ARGUMENT,
                    "\"%.100s\" is not a parameter field (%s)", name, list);
}

clg_status clg_param_bounds(clg_param param, int64_t *lo, int64_t *hi)
{
    if (!lo || !hi)
        return clg_fail(NULL, CLG_STATUS_NULL_POINTER, "%s is NULL",
                        !lo ? "lo" : "hi");
    clg_status st = check_field(NULL, "clg_param_bounds", param);
    if (st != CLG_STATUS_OK)
        return st;
    *lo = fields[param].lo;
    *hi = fields[param].hi;
    return CLG_STATUS_OK;
}

clg_status clg_context_param_bounds(clg_context *ctx, clg_param param,
                                    int64_t *lo, int64_t *hi)
{
    if (!ctx || !lo || !hi)
        return clg_fail(ctx, CLG_STATUS_NULL_POINTER, "%s is NULL",
                        !ctx  ? "ctx"
                        : !lo ? "lo"
                              : "hi");
    clg_status st = check_field(ctx, "clg_context_param_bounds", param);
    if (st != CLG_STATUS_OK)
        return st;
    const field_info *f = &fields[param];
    *lo = f->lo;
    *hi = clg_params_entry_of(ctx)->builtins || f->plain > f->hi ? f->hi
                                                                 : f->plain;
    clg_clear_error(ctx);
    return CLG_STATUS_OK;
}

clg_status clg_param_candidates(clg_param param, const int64_t **values,
                                size_t *count)
{
    if (!values || !count)
        return clg_fail(NULL, CLG_STATUS_NULL_POINTER, "%s is NULL",
                        !values ? "values" : "count");
    clg_status st = check_field(NULL, "clg_param_candidates", param);
    if (st != CLG_STATUS_OK)
        return st;
    *values = fields[param].candidates;
    *count = fields[param].candidate_count;
    return CLG_STATUS_OK;
}

clg_status clg_context_set_param(clg_context *ctx, clg_param param,
                                 int64_t value)
{
    char why[256];
    if (!ctx)
        return clg_fail(ctx, CLG_STATUS_NULL_POINTER, "ctx is NULL");
    clg_status st = check_field(ctx, "clg_context_set_param", param);
    if (st != CLG_STATUS_OK)
        return st;
    const clg_params_entry *e = clg_params_entry_of(ctx);
    if (clg_param_check(param, value, e->builtins, why, sizeof why))
        return clg_fail(ctx, CLG_STATUS_INVALID_ARGUMENT,
                        "clg_context_set_param: \"%s=%" PRId64
                        "\": %s (parameter row \"%s\")",
                        fields[param].name, value, why, e->name);
    clg_rt_params *rp;
    st = lock_resolved(ctx, &rp);
    if (st == CLG_STATUS_OK)
        *slot(&rp->value, (size_t)param) = (unsigned)value;
    clg_rt_params_unlock(ctx);
    if (st == CLG_STATUS_OK)
        clg_clear_error(ctx);
    return st;
}

clg_status clg_context_get_param(clg_context *ctx, clg_param param,
                                 int64_t *value)
{
    if (!ctx || !value)
        return clg_fail(ctx, CLG_STATUS_NULL_POINTER, "%s is NULL",
                        !ctx ? "ctx" : "value");
    clg_status st = check_field(ctx, "clg_context_get_param", param);
    if (st != CLG_STATUS_OK)
        return st;
    clg_rt_params *rp;
    st = lock_resolved(ctx, &rp);
    if (st == CLG_STATUS_OK)
        *value = value_of(&rp->value, (size_t)param);
    clg_rt_params_unlock(ctx);
    if (st == CLG_STATUS_OK)
        clg_clear_error(ctx);
    return st;
}

clg_status clg_context_set_params_text(clg_context *ctx, const char *text)
{
    char msg[256];
    if (!ctx)
        return clg_fail(ctx, CLG_STATUS_NULL_POINTER, "ctx is NULL");
    const clg_params_entry *e = clg_params_entry_of(ctx);
    const char *given = text ? text : clg_rt_env_params(ctx);
    clg_param_values v = *row_values(e);
    if (*given &&
        !clg_param_values_parse(given, e->builtins, &v, msg, sizeof msg)) {
        if (!text)
            return clg_fail(ctx, CLG_STATUS_INVALID_ARGUMENT,
                            "CLGATHER_PARAMS=\"%.300s\": %s (parameter row "
                            "\"%s\")",
                            given, msg, e->name);
        return clg_fail(ctx, CLG_STATUS_INVALID_ARGUMENT,
                        "%s (parameter row \"%s\")", msg, e->name);
    }
    store(ctx, &v);
    clg_clear_error(ctx);
    return CLG_STATUS_OK;
}

clg_status clg_context_format_params(clg_context *ctx, char *buf, size_t cap)
{
    if (!ctx || !buf)
        return clg_fail(ctx, CLG_STATUS_NULL_POINTER, "%s is NULL",
                        !ctx ? "ctx" : "buf");
    clg_param_values v;
    if (cap)
        buf[0] = '\0';
    clg_status st = clg_param_values_get(ctx, &v);
    if (st != CLG_STATUS_OK)
        return st;
    size_t need = format_values(&v, CLG_PARAM_N, buf, cap);
    if (need >= cap)
        return clg_fail(ctx, CLG_STATUS_INVALID_ARGUMENT,
                        "clg_context_format_params: the parameters need %zu "
                        "bytes, buf has %zu",
                        need + 1, cap);
    clg_clear_error(ctx);
    return CLG_STATUS_OK;
}
