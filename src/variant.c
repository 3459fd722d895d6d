/* SPDX-License-Identifier: Apache-2.0 */
/* The kernel variant table and its build options (docs/design.md, "Kernel
 * variants"). */
#include "variant.h"

#include <stdio.h>
#include <string.h>

const clg_option_info clg_options[CLG_OPT_COUNT] = {
#define CLG_OPTION_ROW_(name, files, legal, meaning)                          \
    {#name, files, legal, meaning},
    CLG_VARIANT_OPTIONS(CLG_OPTION_ROW_)
#undef CLG_OPTION_ROW_
};

static const char *const file_names[CLG_FILE_COUNT] = {"check.cl", "gather.cl",
                                                       "gather_elements.cl",
                                                       "gather_nd.cl"};

const char *clg_kernel_file_name(clg_kernel_file file)
{
    return (unsigned)file < CLG_FILE_COUNT ? file_names[file] : "";
}

const char *const clg_arg_names[CLG_ARG_END] = {
#define CLG_ARG_NAME_(name) #name,
    CLG_KERNEL_ARGS(CLG_ARG_NAME_)
#undef CLG_ARG_NAME_
};

#define CLG_SHAPE_ARG_(arg, field) CLG_ARG_##arg,
const clg_arg *const clg_shape_fields[CLG_FILE_COUNT] = {
    NULL, (const clg_arg[]){CLG_GATHER_SHAPE(CLG_SHAPE_ARG_) CLG_ARG_END},
    (const clg_arg[]){CLG_ELEMENTS_SHAPE(CLG_SHAPE_ARG_) CLG_ARG_END},
    (const clg_arg[]){CLG_ND_SHAPE(CLG_SHAPE_ARG_) CLG_ARG_END}};
#undef CLG_SHAPE_ARG_

const clg_entry_info clg_entries[CLG_ENTRY_COUNT] = {
#define CLG_ENTRY_ROW_(id, file, name, dims, args, conditions)                \
    {CLG_FILE_##file, #name, dims, (const clg_arg[]){args, CLG_ARG_END},      \
     conditions},
    CLG_ENTRIES(CLG_ENTRY_ROW_)
#undef CLG_ENTRY_ROW_
};

/* The conditions of the entry table, as rows. */
typedef struct condition {
    clg_option option;
    uint64_t set, clear;
    const char *rule;
} condition;

static const condition conditions[CLG_CONDITION_COUNT] = {
#define CLG_CONDITION_ROW_(name, option, set, clear, rule)                    \
    {CLG_OPT_##option, set, clear, rule},
    CLG_ENTRY_CONDITIONS(CLG_CONDITION_ROW_)
#undef CLG_CONDITION_ROW_
};

static int legal(uint64_t mask, unsigned value)
{
    return value < 64 && (mask >> value) & 1u;
}

const char *clg_variant_check(const clg_variant *v)
{
    if ((unsigned)v->entry >= CLG_ENTRY_COUNT)
        return "no such entry point";
    const clg_entry_info *e = &clg_entries[v->entry];
    for (int i = 0; i < CLG_OPT_COUNT; i++) {
        unsigned value = v->value[i];
        if (!(clg_options[i].files & (1u << e->file))) {
            if (value != 0)
                return "an option is set for a file that does not take it";
        } else if (!legal(clg_options[i].legal, value)) {
            return "an option has a value outside its legal values";
        }
    }
    for (int k = 0; k < CLG_CONDITION_COUNT; k++) {
        const condition *c = &conditions[k];
        uint64_t mask = e->conditions & (1u << k) ? c->set : c->clear;
        if ((clg_options[c->option].files & (1u << e->file)) &&
            !legal(mask, v->value[c->option]))
            return c->rule;
    }
    return NULL;
}

int clg_entry_fits(clg_entry entry, const clg_variant *v)
{
    clg_variant w = *v;
    w.entry = entry;
    return clg_variant_check(&w) == NULL;
}

const clg_arg *clg_entry_shape(clg_entry entry)
{
    for (const clg_arg *a = clg_entries[entry].args; *a != CLG_ARG_END; a++)
        if (*a == CLG_ARG_SHAPE)
            return clg_shape_fields[clg_entries[entry].file];
    return NULL;
}

/* Packs the fields of `entry`'s shape from `a` into shape[]; 0 when one
 * is not set (or not a cl_ulong). */
static int pack_shape(clg_entry entry, const clg_args *a, cl_ulong *shape,
                      size_t *bytes)
{
    const clg_arg *f = clg_entry_shape(entry);
    size_t k = 0;
    for (; f && f[k] != CLG_ARG_END; k++) {
        if (!a->at[f[k]].value || a->at[f[k]].size != sizeof(cl_ulong))
            return 0;
        memcpy(&shape[k], a->at[f[k]].value, sizeof(cl_ulong));
    }
    *bytes = k * sizeof(cl_ulong);
    return f != NULL;
}

int clg_entry_args(clg_entry entry, const clg_args *a, clg_rt_arg *out,
                   size_t cap, size_t *n, cl_ulong *shape)
{
    const clg_arg *list = clg_entries[entry].args;
    size_t k = 0, bytes = 0;
    for (; list[k] != CLG_ARG_END; k++) {
        if (k == cap)
            return 0;
        if (list[k] == CLG_ARG_SHAPE) {
            if (!pack_shape(entry, a, shape, &bytes))
                return 0;
            out[k] = (clg_rt_arg){bytes, shape, 1};
            continue;
        }
        if (!a->at[list[k]].value)
            return 0;
        out[k] = a->at[list[k]];
    }
    *n = k;
    return 1;
}

clg_status clg_entry_launch(clg_rt_call *c, clg_entry entry, cl_kernel kernel,
                            const clg_args *a, const clg_geometry *g)
{
    clg_rt_arg args[CLG_ARG_END];
    cl_ulong shape[CLG_RT_PLAN_FIELDS];
    size_t n = 0;
    if (!clg_entry_args(entry, a, args, CLG_ARG_END, &n, shape))
        return clg_fail(c->ctx, CLG_STATUS_BUILD_FAILED,
                        "internal error: an argument of kernel %s is not set",
                        clg_entries[entry].name);
    return clg_rt_launch(c, kernel, args, n, g);
}

int clg_variant_options(const clg_variant *v, char *buf, size_t cap)
{
    /* -w: POCL lets the compiler's warnings through to the process's
     * stderr (on AVX2 CPUs, one for every 16-wide vector of 64-bit values);
     * the library stays silent. Errors still reach the build log. */
    int len = snprintf(buf, cap, "-cl-std=CL1.2 -w");
    for (int i = 0; i < CLG_OPT_COUNT && len > 0 && (size_t)len < cap; i++)
        if (clg_options[i].files & (1u << clg_entries[v->entry].file))
            len += snprintf(buf + len, cap - (size_t)len, " -DCLG_%s=%u",
                            clg_options[i].name, v->value[i]);
    return len > 0 && (size_t)len < cap;
}

/* The memo key of a variant: entry point and option values. */
#define MEMO_KEY_LEN (1 + 2 * CLG_OPT_COUNT)
_Static_assert(MEMO_KEY_LEN <= CLG_MEMO_KEY_MAX, "a variant's memo key fits");
_Static_assert(CLG_ENTRY_COUNT <= 256, "an entry point is one key byte");

static size_t memo_key(const clg_variant *v, unsigned char *key)
{
    size_t len = 0;
    key[len++] = (unsigned char)v->entry;
    for (int i = 0; i < CLG_OPT_COUNT; i++) {
        key[len++] = (unsigned char)(v->value[i] & 0xff);
        key[len++] = (unsigned char)(v->value[i] >> 8);
    }
    return len;
}

clg_status clg_variant_kernel(clg_context *ctx, const clg_variant *v,
                              cl_kernel *out)
{
    char options[256];
    unsigned char key[MEMO_KEY_LEN];
    size_t key_len = memo_key(v, key);
    if (clg_rt_kernel_memo(ctx, key, key_len, out))
        return CLG_STATUS_OK;
    const char *rule = clg_variant_check(v);
    if (rule)
        return clg_fail(ctx, CLG_STATUS_BUILD_FAILED,
                        "internal error: entry point %s: %s",
                        (unsigned)v->entry < CLG_ENTRY_COUNT
                            ? clg_entries[v->entry].name
                            : "(none)",
                        rule);
    const clg_entry_info *e = &clg_entries[v->entry];
    if (!clg_variant_options(v, options, sizeof options))
        return clg_fail(ctx, CLG_STATUS_BUILD_FAILED,
                        "internal error: build options of %s do not fit",
                        e->name);
    const char *files[2] = {"common.cl", clg_kernel_file_name(e->file)};
    clg_rt_verdict verdict = CLG_RT_UNTESTED;
    clg_status st = clg_rt_kernel(ctx, files, 2, options, e->name, out,
                                  &verdict);
    if (st == CLG_STATUS_OK && verdict != CLG_RT_PASSED)
        st = clg_variant_verify(ctx, v, files, options);
    /* The memo holds only kernels whose entry point passed. */
    if (st == CLG_STATUS_OK)
        clg_rt_kernel_memo_store(ctx, key, key_len, *out);
    return st;
}
