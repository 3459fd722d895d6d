/* SPDX-License-Identifier: Apache-2.0 */
/* Index values: the host scan, the device check kernel, and the message
 * that names the first bad one (docs/design.md, "Errors"). */
#include "op.h"
#include "variant.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Index value i of host indices (read with memcpy: they need not be
 * aligned), and whether value v lies outside [-s, s-1]. */
static inline int64_t value_i32(const char *ix, size_t i)
{
    int32_t v;
    memcpy(&v, ix + i * sizeof v, sizeof v);
    return v;
}

static inline int64_t value_i64(const char *ix, size_t i)
{
    int64_t v;
    memcpy(&v, ix + i * sizeof v, sizeof v);
    return v;
}

static inline int outside(int64_t v, int64_t s)
{
    int64_t nv = v < 0 ? v + s : v;
    return (uint64_t)nv >= (uint64_t)s;
}

/* The first index value outside its range, for indices whose index is a
 * tuple of K values (K = 1: one value), component c in [-s[c], s[c]-1],
 * each read by READ (value_i32 or value_i64): blocks of tuples scanned
 * branch-free (the common case, every index valid, costs no branch per
 * value), and the search only in a block that holds a bad value. Returns
 * from the enclosing function with the bad value's position. */
#define CLG_FIND_BAD(READ, K)                                                 \
    do {                                                                      \
        const char *ix = (const char *)indices;                               \
        const int64_t block = 4096 / (int64_t)(K);                            \
        const int64_t tuples = count / (int64_t)(K);                          \
        for (int64_t b = 0; b < tuples; b += block) {                         \
            int64_t e = tuples - b < block ? tuples - b : block;              \
            int bad = 0;                                                      \
            for (int64_t t = 0; t < e; t++)                                   \
                for (size_t c = 0; c < (size_t)(K); c++)                      \
                    bad |= outside(READ(ix, (size_t)(b + t) * (K) + c),       \
                                   s[c]);                                     \
            if (!bad)                                                         \
                continue;                                                     \
            for (int64_t t = 0; t < e; t++)                                   \
                for (size_t c = 0; c < (size_t)(K); c++) {                    \
                    int64_t v = READ(ix, (size_t)(b + t) * (K) + c);          \
                    if (outside(v, s[c])) {                                   \
                        *value = v;                                           \
                        return (b + t) * (int64_t)(K) + (int64_t)c;           \
                    }                                                         \
                }                                                             \
        }                                                                     \
    } while (0)

int64_t clg_find_bad_index(const void *indices, clg_dtype index_dtype,
                           int64_t count, int64_t axis_size, int64_t *value)
{
    const int64_t s[1] = {axis_size};
    if (index_dtype == CLG_DTYPE_INT32)
        CLG_FIND_BAD(value_i32, 1);
    else
        CLG_FIND_BAD(value_i64, 1);
    return -1;
}

clg_status clg_fail_index(clg_context *ctx, const clg_problem *p, int64_t pos,
                          int64_t value)
{
    char where[CLG_MAX_RANK * 24 + 16];
    size_t len = 0;
    where[0] = '\0';
    if (p->index_rank == 0) {
        snprintf(where, sizeof where, " (a scalar)");
    } else {
        int64_t coord[CLG_MAX_RANK];
        int64_t rest = pos;
        for (size_t d = p->index_rank; d-- > 0;) {
            int64_t e = p->index_shape[d];
            coord[d] = e ? rest % e : 0;
            rest = e ? rest / e : 0;
        }
        for (size_t d = 0; d < p->index_rank && len < sizeof where; d++)
            len += (size_t)snprintf(where + len, sizeof where - len, "[%lld]",
                                    (long long)coord[d]);
    }
    int64_t s = clg_index_range(p, pos);
    size_t k = p->components ? p->components : 1;
    size_t dim = p->axis + (size_t)(pos % (int64_t)k);
    int tuple = p->components > 1 || clg_op_desc_of(p->op)->tuples;
    if (tuple && s == 0)
        return clg_fail(ctx, CLG_STATUS_INDEX_OUT_OF_RANGE,
                        "indices%s = %lld is out of range: data dim %zu has "
                        "size 0, so no index is valid",
                        where, (long long)value, dim);
    if (tuple) /* a tuple: its component's own data dim */
        return clg_fail(ctx, CLG_STATUS_INDEX_OUT_OF_RANGE,
                        "indices%s = %lld is out of range [%lld, %lld] for "
                        "data dim %zu of size %lld",
                        where, (long long)value, (long long)-s,
                        (long long)(s - 1), dim, (long long)s);
    if (s == 0)
        return clg_fail(ctx, CLG_STATUS_INDEX_OUT_OF_RANGE,
                        "indices%s = %lld is out of range: axis %zu of data "
                        "has size 0, so no index is valid",
                        where, (long long)value, p->axis);
    return clg_fail(ctx, CLG_STATUS_INDEX_OUT_OF_RANGE,
                    "indices%s = %lld is out of range [%lld, %lld] for axis "
                    "%zu of size %lld",
                    where, (long long)value, (long long)-s, (long long)(s - 1),
                    p->axis, (long long)s);
}

/* The first value outside its component's range (clg_index_range), for
 * indices whose index is a tuple of p->components values (the index
 * count a multiple of it, as the shape rules make it). */
static int64_t find_bad_component(const clg_problem *p, const void *indices,
                                  int64_t *value)
{
    const size_t k = p->components;
    const int64_t count = p->index_count;
    int64_t s[CLG_MAX_RANK];
    for (size_t c = 0; c < k; c++)
        s[c] = p->data_shape[p->axis + c];
    if (p->index_dtype == CLG_DTYPE_INT32)
        CLG_FIND_BAD(value_i32, k);
    else
        CLG_FIND_BAD(value_i64, k);
    return -1;
}

clg_status clg_check_indices_host(clg_context *ctx, const clg_problem *p,
                                  const void *indices)
{
    int64_t value = 0;
    int64_t pos = p->components > 1
                      ? find_bad_component(p, indices, &value)
                      : clg_find_bad_index(indices, p->index_dtype,
                                           p->index_count, p->axis_size,
                                           &value);
    return pos < 0 ? CLG_STATUS_OK : clg_fail_index(ctx, p, pos, value);
}

void clg_index_pass_make(const clg_device_facts *dev, const clg_problem *p,
                         int normalise, clg_variant *v, clg_plan_args *a,
                         clg_geometry *g)
{
    /* CPUs read each work-item's 16 values as one vector, other devices
     * in stripes across the work-group (kernels/check.cl). */
    clg_entry entry = normalise ? CLG_ENTRY_NORMALIZE_INDICES
                      : dev->plan_type == CLG_DEVICE_TYPE_CPU
                          ? CLG_ENTRY_CHECK_INDICES_VECTORS
                          : CLG_ENTRY_CHECK_INDICES;
    *v = (clg_variant){entry, {0}};
    v->value[CLG_OPT_INDEX_BYTES] = (unsigned)p->index_size;
    v->value[CLG_OPT_OOB] = (unsigned)p->oob;
    clg_parg_ref(a, CLG_ARG_INDICES, CLG_RT_REF_INDICES, 0);
    clg_parg_ref(a, CLG_ARG_ERR, CLG_RT_REF_ERR, 0);
    clg_parg_ref(a, CLG_ARG_NORMED, CLG_RT_REF_TEMP, 0);
    clg_parg_value(a, CLG_ARG_COUNT, (cl_ulong)p->index_count);
    clg_parg_value(a, CLG_ARG_AXIS_SIZE, (cl_ulong)p->axis_size);
    /* The check kernels take CLG_CHECK_SPAN (16) values per work-item. */
    size_t items = normalise ? (size_t)p->index_count
                             : (size_t)((p->index_count + 15) / 16);
    size_t origin[3] = {0, 0, 0}, size[3] = {items, 1, 1};
    clg_geometry_make(dev, clg_entries[entry].dims, origin, size, g);
}

clg_status clg_check_indices_device(clg_context *ctx, const clg_problem *p,
                                    cl_mem indices, int *raised)
{
    clg_plan_env env = {.ctx = ctx, .dev = clg_rt_facts(ctx)};
    clg_call_plan cp;
    clg_plan_args a;
    clg_plan_args_init(&a);
    clg_variant v;
    clg_geometry g;
    clg_rt_call c;
    *raised = 0;
    clg_index_pass_make(env.dev, p, 0, &v, &a, &g);
    clg_status st = clg_call_plan_init(ctx, &cp, 1);
    clg_rt_box *box = clg_call_plan_box(&cp);
    if (st == CLG_STATUS_OK)
        st = clg_call_plan_step(&env, &cp, &v, &a, &g);
    if (st == CLG_STATUS_OK)
        st = clg_call_plan_compile(ctx, &cp);
    if (st != CLG_STATUS_OK)
        return st;
    st = clg_rt_call_open(ctx, clg_rt_host_queue(ctx), 0, NULL,
                          CLG_RT_CALL_BLOCKING, &c);
    if (st == CLG_STATUS_OK &&
        (st = clg_rt_run_box(&c, &cp.rt, box, NULL, indices, NULL)) ==
            CLG_STATUS_OK)
        st = clg_rt_call_wait(&c, raised);
    clg_rt_call_close(&c, st != CLG_STATUS_OK);
    return st;
}

clg_status clg_check_indices_readback(clg_context *ctx, const clg_problem *p,
                                      cl_mem indices)
{
    size_t bytes = (size_t)p->index_count * p->index_size;
    void *host = NULL;
    clg_status st;
    if (bytes == 0)
        return CLG_STATUS_OK;
    host = malloc(bytes);
    if (!host)
        return clg_fail(ctx, CLG_STATUS_OUT_OF_MEMORY,
                        "out of host memory reading back %zu bytes of indices",
                        bytes);
    st = clg_rt_read(ctx, indices, 0, host, bytes);
    if (st == CLG_STATUS_OK)
        st = clg_check_indices_host(ctx, p, host);
    free(host);
    return st;
}
