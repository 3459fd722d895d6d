/* SPDX-License-Identifier: Apache-2.0 */
/* Device parameters: one table keyed by device type and vendor, after
 * CLBlast's database (docs/design.md, "Device parameters"). Each routine
 * reads its launch choices (work-group size, strips, units, prefetching,
 * non-temporal stores) from the entry of its device; CLGATHER_PARAMS and
 * clg_context_set_params override fields of that entry per context. */
#ifndef CLG_PARAMS_H
#define CLG_PARAMS_H

#include "runtime.h"

#include <stddef.h>

/* What a field's values must also satisfy. */
#define CLG_PARAM_POW2 1u /* a power of two */

/* X(field, min, max, plain, flags, meaning): the fields an entry holds and
 * CLGATHER_PARAMS may set, each an unsigned in [min, max]; values above
 * `plain` need a row whose compiler takes clang's built-ins. */
#define CLG_PARAM_FIELDS(X)                                                   \
    X(wg, 1, 4096, 4096, 0,                                                   \
      "work-items per work-group (at most the device's limit)")               \
    X(strip, 0, 65536, 65536, 0,                                              \
      "GatherElements off the last axis: bytes of a row per strip, 0 none")   \
    X(pack, 0, 2, 1, 0,                                                       \
      "1: each strip is packed contiguously before its gather; 2: and the "   \
      "gather prefetches its rows of indices and output ahead")               \
    X(chunk, 0, 4096, 4096, 0,                                                \
      "strips packed and gathered per pass (0: all at once)")                 \
    X(unit, 1, 64, 64, CLG_PARAM_POW2,                                        \
      "Gather lean rows body: bytes one work-item moves, a power of two")     \
    X(prefetch, 0, 64, 0, 0,                                                  \
      "lean bodies: positions prefetched ahead, 0 none")                      \
    X(nt, 0, 3, 0, 0,                                                         \
      "non-temporal stores of the output: 0 never, 1 always, 2 by size on "   \
      "the GatherElements last-axis body (outputs larger than the cache), "   \
      "3 by size there and on the Gather 64-byte spans (calls moving more "   \
      "than the cache)")                                                      \
    X(norm, 0, 999999, 999999, 0,                                             \
      "Gather lean bodies: normalise the indices in a pass first on outputs " \
      "of norm KiB or more, 0 never")                                         \
    X(small, 0, 1024, 1024, 0,                                                \
      "host memory in place: an output of at most small KiB is written to a " \
      "scratch buffer and read back, 0 never")

/* clg_params and clg_params_entry are public (clgather.h); the fields
 * above describe every member, in order. */
#define CLG_PARAM_COUNT_(field, min, max, plain, flags, meaning) +1
_Static_assert(sizeof(clg_params) ==
                   (0 CLG_PARAM_FIELDS(CLG_PARAM_COUNT_)) * sizeof(unsigned),
               "CLG_PARAM_FIELDS lists every member of clg_params");
#undef CLG_PARAM_COUNT_

extern const clg_params_entry clg_params_table[];
extern const size_t clg_params_table_size;

/* The entry of a device (never NULL: the last row matches every device). */
const clg_params_entry *clg_params_lookup(clg_device_type type,
                                          const char *vendor,
                                          const char *version);

/* Applies "field=value,field=value" to *p, strictly: known fields, each
 * at most once,
 * decimal values in range, no empty items; values above a field's
 * `plain` (prefetch and nt above 0, pack above 1) only where `builtins`.
 * Returns 0 and writes the reason to msg on the first bad item (then *p
 * is partly updated). */
int clg_params_parse(const char *text, int builtins, clg_params *p, char *msg,
                     size_t cap);

/* The parameters ctx's calls use (clg_context_get_params): resolved once
 * per context from its row and CLGATHER_PARAMS as read at creation, or
 * set by clg_context_set_params; fails with INVALID_ARGUMENT naming the
 * bad item of CLGATHER_PARAMS. */
clg_status clg_params_get(clg_context *ctx, clg_params *out);

/* The row of ctx's device (its plan type: CLGATHER_TEST_PLAN=gpu gives the
 * GPU row), without CLGATHER_PARAMS. */
const clg_params_entry *clg_params_entry_of(clg_context *ctx);

#endif
