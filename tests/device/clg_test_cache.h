/* SPDX-License-Identifier: Apache-2.0 */
/* What a context's program cache (host/context.h) holds, for the device
 * tests that check which kernel variants their calls built. */
#ifndef CLG_TEST_CACHE_H
#define CLG_TEST_CACHE_H

#include <string.h>

#include "context.h"

/* Kernels built in ctx whose entry-point name contains `part`. */
static inline size_t clg_test_kernels_named(const clg_context *ctx,
                                            const char *part)
{
    size_t count = 0;
    for (size_t i = 0; i < ctx->program_count; i++)
        for (size_t k = 0; k < ctx->programs[i]->kernel_count; k++)
            count += strstr(ctx->programs[i]->kernels[k].name, part) != NULL;
    return count;
}

/* Kernels built in ctx whose entry-point name starts with `prefix` and
 * whose program was built with `option` among its build options. */
static inline size_t clg_test_kernels_built_with(const clg_context *ctx,
                                                 const char *prefix,
                                                 const char *option)
{
    size_t count = 0, n = strlen(prefix);
    for (size_t i = 0; i < ctx->program_count; i++) {
        const clg_cached_program *p = ctx->programs[i];
        const char *options = strchr(p->key, '|');
        if (!options || !strstr(options, option))
            continue;
        for (size_t k = 0; k < p->kernel_count; k++)
            count += strncmp(p->kernels[k].name, prefix, n) == 0;
    }
    return count;
}

#endif /* CLG_TEST_CACHE_H */
