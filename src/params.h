/* SPDX-License-Identifier: Apache-2.0 */
/* Device parameters: one table keyed by device type and vendor, after
 * CLBlast's database (docs/design.md, "Device parameters"). Each routine
 * reads its launch choices (work-group size, strips, units, prefetching,
 * non-temporal stores) from the entry of its device; CLGATHER_PARAMS and
 * the clg_context_set_param* calls override fields of that entry per
 * context. The fields, their bounds, each row's values and the tuner's
 * candidates are one table, CLG_PARAM_TABLE (clgather.h). */
#ifndef CLG_PARAMS_H
#define CLG_PARAMS_H

#include "runtime.h"

#include <stddef.h>

/* The number of fields (CLG_PARAM_TABLE), and of those clg_params holds
 * (CLG_PARAM_STRUCT_FIELDS, frozen). */
#define CLG_PARAM_ONE_(...) +1
enum {
    CLG_PARAM_N = 0 CLG_PARAM_TABLE(CLG_PARAM_ONE_),
    CLG_PARAM_STRUCT_N = 0 CLG_PARAM_STRUCT_FIELDS(CLG_PARAM_ONE_)
};
#undef CLG_PARAM_ONE_

/* clg_params is clg_param_values's first CLG_PARAM_STRUCT_N members. */
_Static_assert(sizeof(clg_params) == CLG_PARAM_STRUCT_N * sizeof(unsigned),
               "CLG_PARAM_STRUCT_FIELDS lists every member of clg_params");
_Static_assert(sizeof(clg_param_values) == CLG_PARAM_N * sizeof(unsigned),
               "clg_param_values holds one unsigned per field");

/* The rows of the parameter table, in the order of CLG_PARAM_TABLE's
 * `rows` column: X(index, name, type, match, builtins, map_wait)
 * (clg_params_entry; the last row matches every device). Measured on POCL 3.1's CPU device
 * (docs/decisions.md); other CPU devices get the same
 * values without the clang built-ins. The Intel row is measured on
 * Intel's CPU runtime 2026.2 (its vendor string: POCL names the CPU's
 * vendor, GenuineIntel, and matches the row above first), whose compiler
 * is clang's and takes the built-ins too. The Rusticl row is Mesa's
 * Rusticl 22.3 on llvmpipe (vendor "Mesa/X.org"; no clang built-ins): the
 * CPU row but strips of 1024 bytes, not packed (docs/decisions.md,
 * "Rusticl's row"). map_wait is 0 only on the two runtimes measured to
 * take the unmap of a map still queued (POCL, Intel's). The GPU rows are
 * portable code. A new row is a line here, a value in every field's `rows` and a
 * CLG_PARAM_ROW_<index>_ pick in src/params.c. */
#define CLG_PARAM_ROWS(X)                                                     \
    X(0, "pocl-cpu", CLG_DEVICE_TYPE_CPU, "pocl", 1, 0)                       \
    X(1, "intel-cpu", CLG_DEVICE_TYPE_CPU, "Intel(R) Corporation", 1, 0)      \
    X(2, "rusticl-cpu", CLG_DEVICE_TYPE_CPU, "Mesa", 0, 1)                    \
    X(3, "cpu", CLG_DEVICE_TYPE_CPU, "", 0, 1)                                \
    X(4, "gpu", CLG_DEVICE_TYPE_GPU, "", 0, 1)                                \
    X(5, "default", CLG_DEVICE_TYPE_OTHER, "", 0, 1)

extern const clg_params_entry clg_params_table[];
extern const size_t clg_params_table_size;

/* The entry of a device (never NULL: the last row matches every device). */
const clg_params_entry *clg_params_lookup(clg_device_type type,
                                          const char *vendor,
                                          const char *version);

/* Every field's values in each row of clg_params_table, by index. */
extern const clg_param_values clg_params_rows[];

/* Applies "field=value,field=value" to *v, strictly: known fields, each
 * at most once, decimal values in range, no empty items; values above a
 * field's `plain` (prefetch and nt above 0, pack above 1) only where
 * `builtins`. Returns 0 and writes the reason to msg on the first bad item
 * (then *v is partly updated). */
int clg_param_values_parse(const char *text, int builtins, clg_param_values *v,
                           char *msg, size_t cap);

/* As clg_param_values_parse on the fields of clg_params; an item naming a
 * field outside it is refused. */
int clg_params_parse(const char *text, int builtins, clg_params *p, char *msg,
                     size_t cap);

/* NULL when `value` is valid for `param` (on a row with built-ins when
 * `builtins`), else writes why to msg and returns it. */
const char *clg_param_check(clg_param param, int64_t value, int builtins,
                            char *msg, size_t cap);

/* The parameters ctx's calls use (clg_context_get_params): resolved once
 * per context from its row and CLGATHER_PARAMS as read at creation, or
 * set by clg_context_set_params; fails with INVALID_ARGUMENT naming the
 * bad item of CLGATHER_PARAMS. */
clg_status clg_params_get(clg_context *ctx, clg_params *out);

/* As clg_params_get, with every field (those outside clg_params too): what
 * a routine reading a field added by name takes. */
clg_status clg_param_values_get(clg_context *ctx, clg_param_values *out);

/* The row of ctx's device (its plan type: CLGATHER_TEST_PLAN=gpu gives the
 * GPU row), without CLGATHER_PARAMS. */
const clg_params_entry *clg_params_entry_of(clg_context *ctx);

#endif
