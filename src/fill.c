/* SPDX-License-Identifier: Apache-2.0 */
/* The whole-device warm-up, clg_context_fill_cache (docs/design.md,
 * "Program cache"): every shape class of the table below, in every element
 * size of CLG_DTYPE_TABLE, both index dtypes and each out-of-range mode
 * asked for, warmed up through clg_warm_up and clg_warm_up_cl, so that the
 * kernel variants are chosen by the code the calls themselves run and land
 * in the program cache. */
#include "runtime.h"

#include <stddef.h>
#include <stdint.h>

/* One shape class: an operator, its attribute, data and indices shapes. The
 * rows cover what the routines choose between: rows of 6, 24 and 256
 * elements (which, times the element sizes, reach the units and spans of
 * docs/design.md, "Plans"), rows of 1 KiB or more whose length allows a
 * span of 1, 2, 4 or 8 units only (257, 258, 260 and 264 elements: the
 * lean rows body with its prefetch, per span) and single elements, the first, a middle and the
 * last axis, indices smaller than the data off the axis, outputs below and
 * above the size that turns the normalising pass on, an odd tiny shape
 * (one-byte units), data of 2^31 elements or more (64-bit offsets, and
 * windows where a buffer cannot hold it; nothing is allocated), and GatherND
 * with and without batch dims, and with outputs of 1 MiB or more (the
 * per-tuple pass for k = 1, 2 and 3, the check kernel for more than 65536
 * values of one range). */
typedef struct fill_class {
    clg_op op;
    int64_t attribute;
    size_t data_rank, indices_rank;
    int64_t data[3], indices[3];
} fill_class;

static const fill_class classes[] = {
    {CLG_OP_GATHER, 0, 2, 1, {1000, 256}, {64}},
    {CLG_OP_GATHER, 0, 2, 1, {4096, 256}, {4096}},
    {CLG_OP_GATHER, 1, 2, 1, {256, 1000}, {100}},
    {CLG_OP_GATHER, 0, 1, 1, {100000}, {100000}},
    {CLG_OP_GATHER, 0, 2, 1, {1000, 257}, {64}},
    {CLG_OP_GATHER, 0, 2, 1, {1000, 258}, {64}},
    {CLG_OP_GATHER, 0, 2, 1, {1000, 260}, {64}},
    {CLG_OP_GATHER, 0, 2, 1, {1000, 264}, {64}},
    {CLG_OP_GATHER, 0, 2, 1, {500, 24}, {64}},
    {CLG_OP_GATHER, 0, 2, 1, {500, 6}, {64}},
    {CLG_OP_GATHER, 0, 2, 1, {7, 3}, {2}},
    {CLG_OP_GATHER, 0, 2, 1, {3, 1ll << 30}, {2}},
    {CLG_OP_GATHER_ELEMENTS, 1, 2, 2, {256, 1000}, {256, 100}},
    {CLG_OP_GATHER_ELEMENTS, 0, 2, 2, {1000, 256}, {100, 256}},
    {CLG_OP_GATHER_ELEMENTS, 1, 3, 3, {16, 100, 32}, {16, 10, 32}},
    {CLG_OP_GATHER_ELEMENTS, 1, 2, 2, {7, 3}, {7, 2}},
    {CLG_OP_GATHER_ELEMENTS, 1, 2, 2, {7, 3}, {5, 2}},
    {CLG_OP_GATHER_ELEMENTS, 0, 2, 2, {1000, 256}, {100, 128}},
    {CLG_OP_GATHER_ELEMENTS, 1, 2, 2, {2, 1ll << 30}, {2, 1ll << 20}},
    {CLG_OP_GATHER_ND, 0, 2, 2, {1000, 256}, {64, 1}},
    {CLG_OP_GATHER_ND, 0, 2, 2, {500, 24}, {64, 1}},
    {CLG_OP_GATHER_ND, 0, 3, 2, {100, 100, 8}, {500, 3}},
    {CLG_OP_GATHER_ND, 1, 3, 3, {8, 100, 64}, {8, 16, 1}},
    {CLG_OP_GATHER_ND, 0, 2, 2, {3, 1ll << 30}, {2, 1}},
    {CLG_OP_GATHER_ND, 0, 2, 2, {4096, 256}, {4096, 1}},
    {CLG_OP_GATHER_ND, 0, 1, 2, {100000}, {1 << 20, 1}},
    {CLG_OP_GATHER_ND, 0, 2, 2, {1024, 1024}, {1 << 20, 2}},
    {CLG_OP_GATHER_ND, 0, 3, 2, {64, 128, 128}, {1 << 20, 3}},
};
#define CLASS_COUNT (sizeof classes / sizeof classes[0])

/* The first dtype of each element size of CLG_DTYPE_TABLE: the kernels
 * move bytes, so a size stands for every dtype of that size (STRING's
 * descriptors for COMPLEX128's 16 bytes). */
#define FILL_DTYPE_(name, number, size, kind) {CLG_DTYPE_##name, size, kind},
static const struct {
    clg_dtype dtype;
    size_t size;
    char kind;
} dtypes[] = {CLG_DTYPE_TABLE(FILL_DTYPE_)};
#undef FILL_DTYPE_
#define DTYPE_COUNT (sizeof dtypes / sizeof dtypes[0])

static const clg_dtype index_dtypes[] = {CLG_DTYPE_INT32, CLG_DTYPE_INT64};

#define OOB_BIT_(name, value, word) | (1u << (value))
#define OOB_ALL (0u CLG_OOB_TABLE(OOB_BIT_))

/* The index dtypes (bit i: index_dtypes[i]) class c is warmed in for the
 * operators `ops`: both for its own operator; for GatherND, whose
 * per-tuple pass moves its slices with Gather's bodies over int positions
 * (docs/design.md, "Kernels"), Gather's classes with INT32 indices too. */
static unsigned class_index_dtypes(const fill_class *c, uint32_t ops)
{
    if (ops & (1u << c->op))
        return 3u;
    if (c->op == CLG_OP_GATHER && (ops & (1u << CLG_OP_GATHER_ND)))
        return 1u;
    return 0;
}

/* 1 when dtypes[i] is the first of its size and not a string. */
static int first_of_size(size_t i)
{
    if (dtypes[i].kind == 'S')
        return 0;
    for (size_t k = 0; k < i; k++)
        if (dtypes[k].kind != 'S' && dtypes[k].size == dtypes[i].size)
            return 0;
    return 1;
}

/* One class in one dtype, index dtype and mode, host memory then device
 * buffers. A class the device's limits refuse (TENSOR_TOO_LARGE) counts
 * in *skipped; any other failure is returned. */
static clg_status warm_class(clg_context *ctx, const fill_class *c,
                             clg_dtype dtype, clg_dtype index_dtype,
                             clg_oob_mode oob, size_t *warmed, size_t *skipped)
{
    clg_call call = {.size = sizeof call, .op = c->op, .options = {oob}};
    clg_tensor data = {dtype, c->data_rank, c->data, NULL};
    clg_tensor indices = {index_dtype, c->indices_rank, c->indices, NULL};
    clg_cl_tensor data_cl = {.dtype = dtype,
                             .rank = c->data_rank,
                             .shape = c->data};
    clg_cl_tensor indices_cl = {.dtype = index_dtype,
                                .rank = c->indices_rank,
                                .shape = c->indices};
    clg_status st = clg_call_set_attribute(&call, c->attribute);
    if (st == CLG_STATUS_OK)
        st = clg_warm_up(ctx, &call, &data, &indices, NULL);
    if (st == CLG_STATUS_OK)
        st = clg_warm_up_cl(ctx, &call, &data_cl, &indices_cl, NULL);
    if (st == CLG_STATUS_TENSOR_TOO_LARGE) {
        (*skipped)++;
        return CLG_STATUS_OK;
    }
    if (st == CLG_STATUS_OK)
        (*warmed)++;
    return st;
}

clg_status clg_context_fill_cache(clg_context *ctx, uint32_t ops,
                                  uint32_t oob_modes, size_t *warmed,
                                  size_t *skipped)
{
    uint32_t all_ops = (uint32_t)((1ull << clg_op_count()) - 1);
    size_t w = 0, s = 0;
    clg_status st = CLG_STATUS_OK;
    if (ctx == NULL)
        return clg_fail(NULL, CLG_STATUS_NULL_POINTER, "ctx is NULL");
    if ((ops & ~all_ops) != 0 || (oob_modes & ~OOB_ALL) != 0)
        return clg_fail(ctx, CLG_STATUS_INVALID_ARGUMENT,
                        "clg_context_fill_cache: ops 0x%x or oob_modes 0x%x "
                        "names an operator or mode outside the tables (ops "
                        "0x%x, modes 0x%x)",
                        (unsigned)ops, (unsigned)oob_modes, (unsigned)all_ops,
                        (unsigned)OOB_ALL);
    ops = ops ? ops : all_ops;
    oob_modes = oob_modes ? oob_modes : OOB_ALL;
    for (size_t c = 0; c < CLASS_COUNT && st == CLG_STATUS_OK; c++) {
        unsigned index_mask = class_index_dtypes(&classes[c], ops);
        if (index_mask == 0)
            continue;
        for (size_t d = 0; d < DTYPE_COUNT && st == CLG_STATUS_OK; d++) {
            if (!first_of_size(d))
                continue;
            for (size_t i = 0; i < 2 && st == CLG_STATUS_OK; i++)
                for (unsigned m = 0; m < 32 && st == CLG_STATUS_OK; m++)
                    if ((index_mask & (1u << i)) && (oob_modes & (1u << m)))
                        st = warm_class(ctx, &classes[c], dtypes[d].dtype,
                                        index_dtypes[i], (clg_oob_mode)m, &w,
                                        &s);
        }
    }
    if (warmed != NULL)
        *warmed = w;
    if (skipped != NULL)
        *skipped = s;
    return st;
}
