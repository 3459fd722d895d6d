/* SPDX-License-Identifier: Apache-2.0 */
/* The operator table's public side (docs/design.md, "Adding an
 * operator"): the names of CLG_OP_TABLE's rows, a call read as data
 * (clg_call), the generic calls, and every operator's named functions,
 * generated from its row as thin wrappers over the generic calls. */
#include "op.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>

/* Most versions an operator's page lists. */
#define VERSIONS_MAX 8

/* One row's names and versions (the tool's word is the C name with '-'
 * for '_', made once below). */
typedef struct op_names {
    const char *op_type;
    const char *c_name;
    const char *attribute;
    int versions[VERSIONS_MAX]; /* ascending; 0 after the last */
} op_names;

#define CLG_OP_UNPAREN_(...) __VA_ARGS__
static const op_names op_rows[] = {
#define CLG_OP_NAMES_(ID, value, name, op_type, versions, attribute)          \
    [value] = {op_type, #name, #attribute, {CLG_OP_UNPAREN_ versions}},
    CLG_OP_TABLE(CLG_OP_NAMES_)
#undef CLG_OP_NAMES_
};
#define OP_COUNT (sizeof op_rows / sizeof op_rows[0])

/* Each row's descriptor, clg_<name>_desc: a row without one does not
 * link. */
static const clg_op_desc *const op_descs[] = {
#define CLG_OP_DESC_(ID, value, name, op_type, versions, attribute)           \
    [value] = &clg_##name##_desc,
    CLG_OP_TABLE(CLG_OP_DESC_)
#undef CLG_OP_DESC_
};

#define WORD_MAX 32
static char op_words[OP_COUNT][WORD_MAX];
static pthread_once_t words_once = PTHREAD_ONCE_INIT;

static void make_words(void)
{
    for (size_t i = 0; i < OP_COUNT; i++) {
        snprintf(op_words[i], WORD_MAX, "%s", op_rows[i].c_name);
        for (char *c = op_words[i]; *c; c++)
            if (*c == '_')
                *c = '-';
    }
}

static int known(clg_op op)
{
    return (unsigned)op < OP_COUNT;
}

int clg_op_count(void)
{
    return (int)OP_COUNT;
}

const char *clg_op_name(clg_op op)
{
    return known(op) ? op_rows[op].op_type : "unknown";
}

const char *clg_op_word(clg_op op)
{
    if (!known(op))
        return "unknown";
    pthread_once(&words_once, make_words);
    return op_words[op];
}

int clg_op_first_opset(clg_op op)
{
    return known(op) ? op_rows[op].versions[0] : 0;
}

int clg_op_version(clg_op op, int64_t opset)
{
    int version = 0;
    for (size_t i = 0; known(op) && i < VERSIONS_MAX; i++)
        if (op_rows[op].versions[i] > 0 && op_rows[op].versions[i] <= opset)
            version = op_rows[op].versions[i];
    return version;
}

const char *clg_op_attribute(clg_op op)
{
    return known(op) ? op_rows[op].attribute : "unknown";
}

/* "Gather (gather) 0, GatherElements (gather-elements) 1" into buf. */
static void list_ops(char *buf, size_t cap)
{
    size_t len = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < OP_COUNT && len < cap; i++)
        len += (size_t)snprintf(buf + len, cap - len, "%s%s (%s) %zu",
                                i ? ", " : "", op_rows[i].op_type,
                                clg_op_word((clg_op)i), i);
}

clg_status clg_op_parse(const char *text, clg_op *op)
{
    if (!text || !op)
        return clg_fail(NULL, CLG_STATUS_NULL_POINTER, "%s is NULL",
                        !text ? "text" : "op");
    for (size_t i = 0; i < OP_COUNT; i++)
        if (strcmp(text, op_rows[i].op_type) == 0 ||
            strcmp(text, op_rows[i].c_name) == 0 ||
            strcmp(text, clg_op_word((clg_op)i)) == 0) {
            *op = (clg_op)i;
            return CLG_STATUS_OK;
        }
    char ops[256];
    list_ops(ops, sizeof ops);
    return clg_fail(NULL, CLG_STATUS_INVALID_ARGUMENT,
                    "\"%s\" is not an operator: %s", text, ops);
}

const clg_op_desc *clg_op_desc_of(clg_op op)
{
    return op_descs[op];
}

/* ------------------------------------------------------------ clg_call */

clg_status clg_call_read(clg_context *ctx, const clg_call *call, clg_call *out)
{
    if (!call)
        return clg_fail(ctx, CLG_STATUS_NULL_POINTER, "call is NULL");
    size_t size = call->size ? call->size : CLG_CALL_SIZE_1;
    if (size < CLG_CALL_SIZE_1)
        return clg_fail(ctx, CLG_STATUS_INVALID_ARGUMENT,
                        "call->size = %zu is below the %zu bytes of "
                        "clg_call's first layout (0 stands for them)",
                        size, (size_t)CLG_CALL_SIZE_1);
    if (size > CLG_CALL_SIZE_MAX)
        return clg_fail(ctx, CLG_STATUS_INVALID_ARGUMENT,
                        "call->size = %zu is over CLG_CALL_SIZE_MAX (%d "
                        "bytes): no clg_call layout is that large (is size "
                        "set?)",
                        size, CLG_CALL_SIZE_MAX);
    /* A newer caller's struct: the fields this library does not know must
     * hold their defaults (zero bytes). */
    const unsigned char *bytes = (const unsigned char *)call;
    for (size_t i = sizeof *out; i < size; i++)
        if (bytes[i] != 0)
            return clg_fail(ctx, CLG_STATUS_INVALID_ARGUMENT,
                            "call->size = %zu, and byte %zu of the call is "
                            "not zero: this library (%s) knows only the "
                            "first %zu bytes of clg_call",
                            size, i, CLG_VERSION_STRING, sizeof *out);
    memset(out, 0, sizeof *out);
    memcpy(out, call, size < sizeof *out ? size : sizeof *out);
    out->size = (uint32_t)sizeof *out;
    if (!known(out->op)) {
        char ops[256];
        list_ops(ops, sizeof ops);
        return clg_fail(ctx, CLG_STATUS_INVALID_ARGUMENT,
                        "call->op = %d is not an operator of CLG_OP_TABLE "
                        "(%s)",
                        (int)out->op, ops);
    }
    return CLG_STATUS_OK;
}

clg_status clg_call_set_attribute(clg_call *call, int64_t value)
{
    if (!call)
        return clg_fail(NULL, CLG_STATUS_NULL_POINTER, "call is NULL");
    /* The caller's struct may be an older, shorter layout: its field must
     * lie within the `size` bytes it has. */
    size_t size = call->size ? call->size : CLG_CALL_SIZE_1;
    switch (call->op) {
#define CLG_OP_SET_(ID, row, name, op_type, versions, attribute)              \
    case CLG_OP_##ID:                                                         \
        if (offsetof(clg_call, attribute) + sizeof call->attribute > size)    \
            return clg_fail(NULL, CLG_STATUS_INVALID_ARGUMENT,                \
                            "call->size = %zu does not reach call->%s "       \
                            "(bytes %zu to %zu); set call->size = "           \
                            "sizeof(clg_call)",                               \
                            size, #attribute, offsetof(clg_call, attribute),  \
                            offsetof(clg_call, attribute) +                   \
                                sizeof call->attribute);                      \
        call->attribute = value;                                              \
        return CLG_STATUS_OK;
        CLG_OP_TABLE(CLG_OP_SET_)
#undef CLG_OP_SET_
    }
    char ops[256];
    list_ops(ops, sizeof ops);
    return clg_fail(NULL, CLG_STATUS_INVALID_ARGUMENT,
                    "call->op = %d is not an operator of CLG_OP_TABLE (%s)",
                    (int)call->op, ops);
}

/* ------------------------------------------------------------ generic calls */

clg_status clg_output_shape(const clg_call *call, const clg_tensor *data,
                            const clg_tensor *indices, int64_t *shape,
                            size_t capacity, size_t *rank)
{
    clg_call c;
    clg_status st = clg_call_read(NULL, call, &c);
    return st != CLG_STATUS_OK
               ? st
               : clg_output_shape_of(&c, data, indices, shape, capacity, rank);
}

/* clg_call_read for a host-memory call, which has no buffer offsets. */
static clg_status read_host_call(clg_context *ctx, const clg_call *call,
                                 clg_call *out)
{
    clg_status st = clg_call_read(ctx, call, out);
    if (st != CLG_STATUS_OK)
        return st;
    const uint64_t offsets[3] = {out->data_offset, out->indices_offset,
                                 out->output_offset};
    static const char *const names[3] = {"data", "indices", "output"};
    for (int k = 0; k < 3; k++)
        if (offsets[k] != 0)
            return clg_fail(ctx, CLG_STATUS_INVALID_ARGUMENT,
                            "call->%s_offset = %llu on a host-memory call: "
                            "buffer offsets apply to device buffers only "
                            "(point the tensor's data at its first element)",
                            names[k], (unsigned long long)offsets[k]);
    return CLG_STATUS_OK;
}

clg_status clg_run(clg_context *ctx, const clg_call *call,
                   const clg_tensor *data, const clg_tensor *indices,
                   const clg_tensor *output)
{
    clg_call c;
    clg_status st = read_host_call(ctx, call, &c);
    return st != CLG_STATUS_OK
               ? st
               : clg_dispatch_host(ctx, &c, data, indices, output);
}

clg_status clg_run_cl(clg_context *ctx, const clg_call *call,
                      const clg_cl_tensor *data, const clg_cl_tensor *indices,
                      const clg_cl_tensor *output)
{
    clg_call c;
    clg_status st = clg_call_read(ctx, call, &c);
    return st != CLG_STATUS_OK
               ? st
               : clg_dispatch_cl(ctx, &c, data, indices, output);
}

clg_status clg_enqueue(clg_context *ctx, cl_command_queue queue,
                       const clg_call *call, const clg_cl_tensor *data,
                       const clg_cl_tensor *indices,
                       const clg_cl_tensor *output,
                       cl_uint num_events_in_wait_list,
                       const cl_event *event_wait_list, cl_event *event)
{
    clg_call c;
    clg_status st = clg_call_read(ctx, call, &c);
    return st != CLG_STATUS_OK
               ? st
               : clg_dispatch_enqueue(ctx, queue, &c, data, indices, output,
                                      num_events_in_wait_list, event_wait_list,
                                      event);
}

clg_status clg_reference(clg_context *ctx, const clg_call *call,
                         const clg_tensor *data, const clg_tensor *indices,
                         const clg_tensor *output)
{
    clg_call c;
    clg_status st = read_host_call(ctx, call, &c);
    return st != CLG_STATUS_OK
               ? st
               : clg_reference_of(ctx, &c, data, indices, output);
}

clg_status clg_warm_up(clg_context *ctx, const clg_call *call,
                       const clg_tensor *data, const clg_tensor *indices,
                       const clg_tensor *output)
{
    clg_call c;
    clg_status st = read_host_call(ctx, call, &c);
    return st != CLG_STATUS_OK
               ? st
               : clg_dispatch_warm_up_host(ctx, &c, data, indices, output);
}

clg_status clg_warm_up_cl(clg_context *ctx, const clg_call *call,
                          const clg_cl_tensor *data,
                          const clg_cl_tensor *indices,
                          const clg_cl_tensor *output)
{
    clg_call c;
    clg_status st = clg_call_read(ctx, call, &c);
    return st != CLG_STATUS_OK
               ? st
               : clg_dispatch_warm_up_cl(ctx, &c, data, indices, output);
}

/* ------------------------------------------------------------ named functions */

/* The call a named function stands for: its operator, the defaults, and
 * `options` (NULL: the defaults); its attribute is set by the caller. */
static clg_call named_call(clg_op op, const clg_call_options *options)
{
    clg_call c = {.size = sizeof c, .op = op};
    if (options)
        c.options = *options;
    return c;
}

/* The thirteen named functions of one row (include/clgather/clgather.h,
 * section 9), each `clg_<op>...(...)` the generic call with that
 * operator and its attribute. */
/* clang-format off */
#define CLG_OP_DEFINE_(ID, value, name, op_type, versions, attribute)         \
clg_status clg_##name##_ex(clg_context *ctx, const clg_tensor *data,          \
                           const clg_tensor *indices, int64_t attribute,      \
                           const clg_tensor *output,                          \
                           const clg_call_options *options)                   \
{                                                                             \
    clg_call c = named_call(CLG_OP_##ID, options);                            \
    c.attribute = attribute;                                                  \
    return clg_run(ctx, &c, data, indices, output);                           \
}                                                                             \
clg_status clg_##name(clg_context *ctx, const clg_tensor *data,               \
                      const clg_tensor *indices, int64_t attribute,           \
                      const clg_tensor *output)                               \
{                                                                             \
    return clg_##name##_ex(ctx, data, indices, attribute, output, NULL);      \
}                                                                             \
clg_status clg_##name##_cl_ex(clg_context *ctx, const clg_cl_tensor *data,    \
                              const clg_cl_tensor *indices,                   \
                              int64_t attribute, const clg_cl_tensor *output, \
                              const clg_call_options *options)                \
{                                                                             \
    clg_call c = named_call(CLG_OP_##ID, options);                            \
    c.attribute = attribute;                                                  \
    return clg_run_cl(ctx, &c, data, indices, output);                        \
}                                                                             \
clg_status clg_##name##_cl(clg_context *ctx, const clg_cl_tensor *data,       \
                           const clg_cl_tensor *indices, int64_t attribute,   \
                           const clg_cl_tensor *output)                       \
{                                                                             \
    return clg_##name##_cl_ex(ctx, data, indices, attribute, output, NULL);   \
}                                                                             \
clg_status clg_enqueue_##name##_ex(                                           \
    clg_context *ctx, cl_command_queue queue, const clg_cl_tensor *data,      \
    const clg_cl_tensor *indices, int64_t attribute,                          \
    const clg_cl_tensor *output, cl_uint num_events_in_wait_list,             \
    const cl_event *event_wait_list, cl_event *event,                         \
    const clg_call_options *options)                                          \
{                                                                             \
    clg_call c = named_call(CLG_OP_##ID, options);                            \
    c.attribute = attribute;                                                  \
    return clg_enqueue(ctx, queue, &c, data, indices, output,                 \
                       num_events_in_wait_list, event_wait_list, event);      \
}                                                                             \
clg_status clg_enqueue_##name(                                                \
    clg_context *ctx, cl_command_queue queue, const clg_cl_tensor *data,      \
    const clg_cl_tensor *indices, int64_t attribute,                          \
    const clg_cl_tensor *output, cl_uint num_events_in_wait_list,             \
    const cl_event *event_wait_list, cl_event *event)                         \
{                                                                             \
    return clg_enqueue_##name##_ex(ctx, queue, data, indices, attribute,      \
                                   output, num_events_in_wait_list,           \
                                   event_wait_list, event, NULL);             \
}                                                                             \
clg_status clg_reference_##name##_ex(                                         \
    clg_context *ctx, const clg_tensor *data, const clg_tensor *indices,      \
    int64_t attribute, const clg_tensor *output,                              \
    const clg_call_options *options)                                          \
{                                                                             \
    clg_call c = named_call(CLG_OP_##ID, options);                            \
    c.attribute = attribute;                                                  \
    return clg_reference(ctx, &c, data, indices, output);                     \
}                                                                             \
clg_status clg_reference_##name(clg_context *ctx, const clg_tensor *data,     \
                                const clg_tensor *indices, int64_t attribute, \
                                const clg_tensor *output)                     \
{                                                                             \
    return clg_reference_##name##_ex(ctx, data, indices, attribute, output,   \
                                     NULL);                                   \
}                                                                             \
clg_status clg_warm_up_##name##_ex(                                           \
    clg_context *ctx, const clg_tensor *data, const clg_tensor *indices,      \
    int64_t attribute, const clg_tensor *output,                              \
    const clg_call_options *options)                                          \
{                                                                             \
    clg_call c = named_call(CLG_OP_##ID, options);                            \
    c.attribute = attribute;                                                  \
    return clg_warm_up(ctx, &c, data, indices, output);                       \
}                                                                             \
clg_status clg_warm_up_##name(clg_context *ctx, const clg_tensor *data,       \
                              const clg_tensor *indices, int64_t attribute,   \
                              const clg_tensor *output)                       \
{                                                                             \
    return clg_warm_up_##name##_ex(ctx, data, indices, attribute, output,     \
                                   NULL);                                     \
}                                                                             \
clg_status clg_warm_up_##name##_cl_ex(                                        \
    clg_context *ctx, const clg_cl_tensor *data,                              \
    const clg_cl_tensor *indices, int64_t attribute,                          \
    const clg_cl_tensor *output, const clg_call_options *options)             \
{                                                                             \
    clg_call c = named_call(CLG_OP_##ID, options);                            \
    c.attribute = attribute;                                                  \
    return clg_warm_up_cl(ctx, &c, data, indices, output);                    \
}                                                                             \
clg_status clg_warm_up_##name##_cl(                                           \
    clg_context *ctx, const clg_cl_tensor *data,                              \
    const clg_cl_tensor *indices, int64_t attribute,                          \
    const clg_cl_tensor *output)                                              \
{                                                                             \
    return clg_warm_up_##name##_cl_ex(ctx, data, indices, attribute, output,  \
                                      NULL);                                  \
}                                                                             \
clg_status clg_##name##_output_shape(                                         \
    const clg_tensor *data, const clg_tensor *indices, int64_t attribute,     \
    int64_t *shape, size_t capacity, size_t *rank)                            \
{                                                                             \
    clg_call c = named_call(CLG_OP_##ID, NULL);                               \
    c.attribute = attribute;                                                  \
    return clg_output_shape(&c, data, indices, shape, capacity, rank);        \
}
/* clang-format on */
CLG_OP_TABLE(CLG_OP_DEFINE_)
#undef CLG_OP_DEFINE_
