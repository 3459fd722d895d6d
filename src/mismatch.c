/* SPDX-License-Identifier: Apache-2.0 */
/* Validation mode (docs/design.md, "Validation mode"): a host-memory call's
 * output compared bit for bit with the CPU reference's. */
#include "op.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "[1][2]" for output element `at`. */
static void position(char *buf, size_t cap, const clg_problem *p, int64_t at)
{
    int64_t coord[CLG_MAX_RANK];
    size_t len = 0;
    buf[0] = '\0';
    for (size_t d = p->out_rank; d-- > 0;) {
        coord[d] = at % p->out_shape[d];
        at /= p->out_shape[d];
    }
    for (size_t d = 0; d < p->out_rank && len < cap; d++)
        len += (size_t)snprintf(buf + len, cap - len, "[%lld]",
                                (long long)coord[d]);
    if (p->out_rank == 0)
        snprintf(buf, cap, " (a scalar)");
}

/* Up to one element (CLG_MAX_ELEMENT_SIZE bytes) as hex pairs, in memory
 * order. */
static void hex_bytes(char *buf, size_t cap, const unsigned char *b, size_t n)
{
    size_t len = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < n && i < CLG_MAX_ELEMENT_SIZE && len < cap; i++)
        len += (size_t)snprintf(buf + len, cap - len, "%s%02x", i ? " " : "",
                                b[i]);
}

static clg_status compare(clg_context *ctx, const clg_problem *p,
                          const unsigned char *dev, const unsigned char *ref)
{
    size_t es = p->elem_size;
    for (int64_t i = 0; i < p->out_count; i++) {
        const unsigned char *a = dev + (size_t)i * es,
                            *b = ref + (size_t)i * es;
        if (!memcmp(a, b, es))
            continue;
        char where[CLG_MAX_RANK * 24 + 16], da[3 * CLG_MAX_ELEMENT_SIZE + 1],
            ra[3 * CLG_MAX_ELEMENT_SIZE + 1];
        position(where, sizeof where, p, i);
        hex_bytes(da, sizeof da, a, es);
        hex_bytes(ra, sizeof ra, b, es);
        return clg_fail(ctx, CLG_STATUS_DEVICE_MISMATCH,
                        "%s: the device result differs from the reference at "
                        "output%s: device bytes %s, reference bytes %s "
                        "(device %s)",
                        clg_op_name(p->op), where, da, ra,
                        clg_context_device_name(ctx));
    }
    return CLG_STATUS_OK;
}

clg_status clg_validate_reserve(clg_context *ctx, unsigned mode,
                                const clg_problem *p, void **ref)
{
    size_t bytes = (size_t)p->out_count * p->elem_size;
    *ref = NULL;
    if (!(mode & CLG_RT_VALIDATE) || bytes == 0)
        return CLG_STATUS_OK;
    /* The test-only hook stands for a failed allocation. */
    if (!(mode & CLG_RT_TEST_NO_MEMORY))
        *ref = malloc(bytes);
    if (!*ref)
        return clg_fail(ctx, CLG_STATUS_OUT_OF_MEMORY,
                        "out of host memory validating an output of %zu "
                        "bytes",
                        bytes);
    return CLG_STATUS_OK;
}

clg_status clg_validate_result(clg_context *ctx, const clg_call *call,
                               const clg_problem *p, const clg_tensor *data,
                               const clg_tensor *indices,
                               const clg_tensor *output, void *ref)
{
    unsigned mode = clg_rt_validation(ctx);
    size_t bytes = (size_t)p->out_count * p->elem_size;
    if (bytes == 0)
        return CLG_STATUS_OK;
    /* The test-only hook: a wrong device result on purpose, so that the
     * comparison below is seen to catch it. */
    if (mode & CLG_RT_TEST_CORRUPT)
        ((unsigned char *)output->data)[0] ^= 0x01;
    if (!(mode & CLG_RT_VALIDATE) || !ref)
        return CLG_STATUS_OK;
    clg_tensor rt = *output;
    rt.data = ref;
    clg_call same = *call;
    same.options.oob = p->oob;
    clg_status st = clg_reference_of(ctx, &same, data, indices, &rt);
    if (st == CLG_STATUS_OK)
        st = compare(ctx, p, output->data, ref);
    return st;
}
