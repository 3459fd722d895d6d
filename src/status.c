/* SPDX-License-Identifier: Apache-2.0 */
/* The status table and the version. The last error lives with the
 * context, in host/errors.c. */
#include "clgather/clgather.h"

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
