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
                                                       "gather_elements.cl"};

const char *clg_kernel_file_name(clg_kernel_file file)
{
    return (unsigned)file < CLG_FILE_COUNT ? file_names[file] : "";
}

const char *clg_variant_check(const clg_variant *v)
{
    if ((unsigned)v->file >= CLG_FILE_COUNT || !v->kernel)
        return "no such kernel file or no entry point";
    for (int i = 0; i < CLG_OPT_COUNT; i++) {
        unsigned value = v->value[i];
        if (!(clg_options[i].files & (1u << v->file))) {
            if (value != 0)
                return "an option is set for a file that does not take it";
        } else if (value > 16 || !(clg_options[i].legal & (1u << value))) {
            return "an option has a value outside its legal values";
        }
    }
    /* The lean bodies exist only for whole tensors (kernels/gather.cl,
     * kernels/gather_elements.cl guard them with #if). */
    int lean = strstr(v->kernel, "_lean") != NULL;
    if (lean && v->value[CLG_OPT_WINDOWS])
        return "a lean entry point takes whole tensors (CLG_WINDOWS=0)";
    if (lean && v->file == CLG_FILE_GATHER_ELEMENTS &&
        (v->value[CLG_OPT_OUTER_DIMS] > 1 ||
         v->value[CLG_OPT_INNER_DIMS] != 0))
        return "the lean GatherElements body takes at most one outer stride "
               "and no inner dims";
    /* The packed strips (kernels/gather_elements.cl) likewise. */
    int packed = strstr(v->kernel, "_packed") != NULL ||
                 strstr(v->kernel, "_pack_") != NULL;
    if (packed &&
        (v->value[CLG_OPT_WINDOWS] || v->value[CLG_OPT_OUTER_DIMS] > 1 ||
         v->value[CLG_OPT_INNER_DIMS] != 1))
        return "the packed strips take whole tensors, at most one outer "
               "stride and one inner stride";
    return NULL;
}

int clg_variant_options(const clg_variant *v, char *buf, size_t cap)
{
    int len = snprintf(buf, cap, "-cl-std=CL1.2");
    for (int i = 0; i < CLG_OPT_COUNT && len > 0 && (size_t)len < cap; i++)
        if (clg_options[i].files & (1u << v->file))
            len += snprintf(buf + len, cap - (size_t)len, " -DCLG_%s=%u",
                            clg_options[i].name, v->value[i]);
    return len > 0 && (size_t)len < cap;
}

/* The memo key of a variant: file, option values, entry point name; 0
 * when it does not fit. */
static size_t memo_key(const clg_variant *v, unsigned char *key)
{
    size_t len = 0, name = strlen(v->kernel);
    if (1 + 2 * CLG_OPT_COUNT + name > CLG_MEMO_KEY_MAX)
        return 0;
    key[len++] = (unsigned char)v->file;
    for (int i = 0; i < CLG_OPT_COUNT; i++) {
        key[len++] = (unsigned char)(v->value[i] & 0xff);
        key[len++] = (unsigned char)(v->value[i] >> 8);
    }
    memcpy(key + len, v->kernel, name);
    return len + name;
}

clg_status clg_variant_kernel(clg_context *ctx, const clg_variant *v,
                              cl_kernel *out)
{
    char options[256];
    unsigned char key[CLG_MEMO_KEY_MAX];
    size_t key_len = v->kernel ? memo_key(v, key) : 0;
    if (key_len && clg_rt_kernel_memo(ctx, key, key_len, out))
        return CLG_STATUS_OK;
    const char *rule = clg_variant_check(v);
    if (rule)
        return clg_fail(ctx, CLG_STATUS_BUILD_FAILED,
                        "internal error: kernel %s of %s: %s", v->kernel,
                        clg_kernel_file_name(v->file), rule);
    if (!clg_variant_options(v, options, sizeof options))
        return clg_fail(ctx, CLG_STATUS_BUILD_FAILED,
                        "internal error: build options of %s do not fit",
                        v->kernel);
    const char *files[2] = {"common.cl", clg_kernel_file_name(v->file)};
    clg_status st = clg_rt_kernel(ctx, files, 2, options, v->kernel, out);
    if (st == CLG_STATUS_OK && key_len)
        clg_rt_kernel_memo_store(ctx, key, key_len, *out);
    return st;
}
