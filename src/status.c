/* SPDX-License-Identifier: Apache-2.0 */
/* The status table, the version and the introspection calls. The last
 * error lives with the context, in host/errors.c. */
#include "clgather/clgather.h"

#include <string.h>

unsigned clg_version(void)
{
    return CLG_VERSION_NUMBER;
}

const char *clg_version_string(void)
{
    return CLG_VERSION_STRING;
}

const char *clg_status_name(clg_status status)
{
    switch (status) {
#define CLG_NAME_CASE_(name, value, message)                                  \
    case CLG_STATUS_##name:                                                   \
        return #name;
        CLG_STATUS_TABLE(CLG_NAME_CASE_)
#undef CLG_NAME_CASE_
    }
    return "UNKNOWN_STATUS";
}

const char *clg_status_message(clg_status status)
{
    switch (status) {
#define CLG_MESSAGE_CASE_(name, value, message)                               \
    case CLG_STATUS_##name:                                                   \
        return message;
        CLG_STATUS_TABLE(CLG_MESSAGE_CASE_)
#undef CLG_MESSAGE_CASE_
    }
    return "unknown status value";
}

/* Introspection: what a binding in another language asks of the library
 * it loaded instead of copying the header's tables and layouts. */

/* The number of rows of CLG_STATUS_TABLE. Statuses are numbered from 0
 * without a gap (each value below the count, and the switch of
 * clg_status_name refuses a value twice), so it is one more than the
 * last value. */
#define CLG_STATUS_PLUS_ONE_(name, value, message) +1
enum { STATUS_COUNT = 0 CLG_STATUS_TABLE(CLG_STATUS_PLUS_ONE_) };
#undef CLG_STATUS_PLUS_ONE_
#define CLG_STATUS_IN_RANGE_(name, value, message)                            \
    _Static_assert(value >= 0 && value < STATUS_COUNT,                        \
                   #name " is not numbered below the count of statuses");
CLG_STATUS_TABLE(CLG_STATUS_IN_RANGE_)
#undef CLG_STATUS_IN_RANGE_

int clg_status_count(void)
{
    return STATUS_COUNT;
}

int clg_dtype_count(void)
{
    int count = 1; /* CLG_DTYPE_UNDEFINED */
#define CLG_DTYPE_LIMIT_(name, number, size, kind)                            \
    if (number + 1 > count)                                                   \
        count = number + 1;
    CLG_DTYPE_TABLE(CLG_DTYPE_LIMIT_)
#undef CLG_DTYPE_LIMIT_
    return count;
}

int clg_dtype_kind(clg_dtype dtype)
{
    switch (dtype) {
#define CLG_DTYPE_KIND_(name, number, size, kind)                             \
    case CLG_DTYPE_##name:                                                    \
        return kind;
        CLG_DTYPE_TABLE(CLG_DTYPE_KIND_)
#undef CLG_DTYPE_KIND_
    case CLG_DTYPE_UNDEFINED:
        break;
    }
    return 0;
}

/* Every public type of clgather.h, by its name. */
#define CLG_PUBLIC_TYPES(X)                                                   \
    X(clg_status)                                                             \
    X(clg_dtype)                                                              \
    X(clg_string)                                                             \
    X(clg_tensor)                                                             \
    X(clg_cl_tensor)                                                          \
    X(clg_device_type)                                                        \
    X(clg_device_info)                                                        \
    X(clg_param)                                                              \
    X(clg_params)                                                             \
    X(clg_params_entry)                                                       \
    X(clg_index_check)                                                        \
    X(clg_op)                                                                 \
    X(clg_oob_mode)                                                           \
    X(clg_call_options)                                                       \
    X(clg_call)                                                               \
    X(clg_cache_info)                                                         \
    X(clg_cache_entry)                                                        \
    X(clg_path)

size_t clg_type_size(const char *name)
{
    if (!name)
        return 0;
#define CLG_TYPE_SIZE_(type)                                                  \
    if (strcmp(name, #type) == 0)                                             \
        return sizeof(type);
    CLG_PUBLIC_TYPES(CLG_TYPE_SIZE_)
#undef CLG_TYPE_SIZE_
    return 0;
}
