/* SPDX-License-Identifier: Apache-2.0 */
/* Planning internals (src/plan.c, src/pieces.c and the operators' plans):
 * coalescing, units and offset widths, pieces that cover the output once,
 * work-group shapes; the operators' descriptor rows and the index rule. No device needed: plans are made from device facts
 * written here. */
#include "clg_test.h"

#include "op.h"

static const clg_device_facts cpu = {.plan_type = CLG_DEVICE_TYPE_CPU,
                                     .host_unified = 1,
                                     .max_alloc = (uint64_t)1 << 32,
                                     .max_wg_size = 4096,
                                     .max_item_sizes = {4096, 4096, 4096}};
static const clg_device_facts gpu = {.plan_type = CLG_DEVICE_TYPE_GPU,
                                     .max_alloc = (uint64_t)1 << 34,
                                     .max_wg_size = 1024,
                                     .max_item_sizes = {1024, 1024, 64}};

/* Every field's value in the row `e` of the parameter table (what the
 * routines read). */
static clg_param_values row_of(const clg_params_entry *e)
{
    return clg_params_rows[e - clg_params_table];
}

static clg_problem problem(clg_op op, clg_dtype dtype, size_t rank,
                           const int64_t *dshape, clg_dtype itype,
                           size_t irank, const int64_t *ishape, int64_t axis)
{
    clg_problem p;
    clg_call call = {.size = sizeof call, .op = op, .axis = axis};
    CLG_ASSERT_OK(NULL, clg_validate(NULL, &call, dtype, rank, dshape, itype,
                                     irank, ishape, &p));
    return p;
}

static void test_coalesce(void **state)
{
    (void)state;
    int64_t e[3] = {2, 3, 4}, st[3] = {12, 4, 1};
    assert_int_equal(clg_coalesce(e, st, 3), 1);
    assert_int_equal(e[0], 24);
    assert_int_equal(st[0], 1);
    /* Indices smaller than data off the axis: strides do not chain. */
    int64_t e2[3] = {2, 1, 4}, st2[3] = {20, 5, 1};
    assert_int_equal(clg_coalesce(e2, st2, 3), 2);
    assert_int_equal(e2[0], 2);
    assert_int_equal(st2[0], 20);
    assert_int_equal(e2[1], 4);
    assert_int_equal(st2[1], 1);
    int64_t e3[2] = {1, 1}, st3[2] = {1, 1};
    assert_int_equal(clg_coalesce(e3, st3, 2), 0);
}

static void test_gather_plan_units_and_offsets(void **state)
{
    (void)state;
    const int64_t d[] = {50257, 768}, i[] = {8, 1024};
    clg_problem p = problem(CLG_OP_GATHER, CLG_DTYPE_FLOAT, 2, d,
                            CLG_DTYPE_INT64, 2, i, 0);
    clg_plan plan;
    clg_gather_routine.plan(&p, &cpu, 16, &plan);
    assert_int_equal(plan.unit, 4); /* CPUs: at most 4-byte units */
    assert_int_equal(plan.outer, 1);
    assert_int_equal(plan.n, 8192);
    assert_int_equal(plan.inner, 768);
    assert_int_equal(plan.wide_offsets, 1);
    assert_int_equal(plan.lean, 1);
    clg_gather_routine.plan(&p, &gpu, 16, &plan);
    assert_int_equal(plan.unit, 16);
    assert_int_equal(plan.inner, 192);
    assert_int_equal(plan.data_units, 50257 * 192);
    assert_int_equal(plan.wide_offsets, 0); /* every offset < 2^31 */
    assert_int_equal(plan.lean, 0);
    /* An address aligned to 4 bytes only caps the unit. */
    clg_gather_routine.plan(&p, &gpu, 4, &plan);
    assert_int_equal(plan.unit, 4);
    /* CPUs: 128-byte rows in 4-byte units (32 work-items a row), 64-byte
     * rows in 2-byte units. */
    const int64_t mid[] = {64, 4096, 64}, mi[] = {2048};
    p = problem(CLG_OP_GATHER, CLG_DTYPE_FLOAT16, 3, mid, CLG_DTYPE_INT32, 1,
                mi, 1);
    clg_gather_routine.plan(&p, &cpu, 16, &plan);
    assert_int_equal(plan.unit, 4);
    assert_int_equal(plan.inner, 32);
    const int64_t narrow[] = {64, 4096, 32};
    p = problem(CLG_OP_GATHER, CLG_DTYPE_FLOAT16, 3, narrow, CLG_DTYPE_INT32,
                1, mi, 1);
    clg_gather_routine.plan(&p, &cpu, 16, &plan);
    assert_int_equal(plan.unit, 2);
    assert_int_equal(plan.inner, 32);
    /* Past 2^31 units, 64-bit offsets on GPUs too. */
    const int64_t big[] = {(int64_t)1 << 28, 16};
    const int64_t one[] = {1};
    p = problem(CLG_OP_GATHER, CLG_DTYPE_UINT8, 2, big, CLG_DTYPE_INT32, 1,
                one, 1);
    clg_gather_routine.plan(&p, &gpu, 16, &plan);
    assert_int_equal(plan.unit, 1);
    assert_int_equal(plan.wide_offsets, 1);
}

static void test_elements_plan_dims(void **state)
{
    (void)state;
    const int64_t d[] = {4096, 4096};
    clg_problem p = problem(CLG_OP_GATHER_ELEMENTS, CLG_DTYPE_FLOAT, 2, d,
                            CLG_DTYPE_INT32, 2, d, 0);
    clg_plan plan;
    clg_gather_elements_routine.plan(&p, &cpu, 16, &plan);
    assert_int_equal(plan.outer_dims, 0);
    assert_int_equal(plan.inner_dims, 1);
    assert_int_equal(plan.axis_stride, 4096);
    clg_gather_elements_routine.plan(&p, &gpu, 16, &plan);
    assert_int_equal(plan.wide_offsets, 0);
    /* Ragged: indices [2, 3, 2] in data [2, 5, 4], axis 2. */
    const int64_t d3[] = {2, 5, 4}, i3[] = {2, 3, 2};
    p = problem(CLG_OP_GATHER_ELEMENTS, CLG_DTYPE_INT16, 3, d3,
                CLG_DTYPE_INT64, 3, i3, 2);
    clg_gather_elements_routine.plan(&p, &cpu, 16, &plan);
    assert_int_equal(plan.outer, 6);
    assert_int_equal(plan.n, 2);
    assert_int_equal(plan.inner, 1);
    assert_int_equal(plan.outer_dims, 2);
    assert_int_equal(plan.outer_extent[0], 2);
    assert_int_equal(plan.outer_stride[0], 20);
    assert_int_equal(plan.outer_extent[1], 3);
    assert_int_equal(plan.outer_stride[1], 4);
    assert_int_equal(plan.inner_dims, 0);
}

/* The lanes body's non-temporal stores: `nt` 0 never, 1 always, 2 and 3
 * on outputs larger than the cache; never without the built-ins. */
static void test_lanes_nt(void **state)
{
    (void)state;
    const uint64_t mib = 1 << 20;
    assert_int_equal(clg_elements_lanes_nt(1, 2, 64 * mib, 32 * mib), 1);
    assert_int_equal(clg_elements_lanes_nt(1, 3, 64 * mib, 32 * mib), 1);
    assert_int_equal(clg_elements_lanes_nt(1, 3, 32 * mib, 32 * mib), 0);
    assert_int_equal(clg_elements_lanes_nt(1, 2, 32 * mib, 32 * mib), 0);
    assert_int_equal(clg_elements_lanes_nt(1, 2, 64 * mib, 0), 0);
    assert_int_equal(clg_elements_lanes_nt(1, 0, 64 * mib, 32 * mib), 0);
    assert_int_equal(clg_elements_lanes_nt(1, 1, 1024, 32 * mib), 1);
    assert_int_equal(clg_elements_lanes_nt(0, 1, 64 * mib, 32 * mib), 0);
    assert_int_equal(clg_elements_lanes_nt(0, 2, 64 * mib, 32 * mib), 0);
    /* The rows with the built-ins say 3, the others 0. */
    assert_int_equal(clg_params_lookup(CLG_DEVICE_TYPE_CPU, "GenuineIntel",
                                       "OpenCL 3.0 PoCL HSTR")
                         ->params.nt,
                     3);
    assert_int_equal(clg_params_lookup(CLG_DEVICE_TYPE_CPU,
                                       "Intel(R) Corporation",
                                       "OpenCL 3.0 (Build 0)")
                         ->params.nt,
                     3);
    assert_int_equal(clg_params_lookup(CLG_DEVICE_TYPE_CPU, "Intel",
                                       "OpenCL 3.0")
                         ->params.nt,
                     0);
}

/* A lean Gather body's non-temporal stores (clg_gather_nt): units where
 * `nt` is 1; 64-byte spans where it is 1, or 3 and the output and the
 * rows read exceed the cache, and only into an output aligned to the
 * span; never without the built-ins or with `nt` 0 or 2. */
static void test_gather_nt(void **state)
{
    (void)state;
    const uint64_t mib = 1 << 20, cache = 32 * mib;
    /* Units: `nt` 1 alone, alignment and size aside. */
    assert_int_equal(clg_gather_nt(1, 1, 1, 4, 4, 1024, cache), 1);
    assert_int_equal(clg_gather_nt(1, 3, 1, 4, 4, 64 * mib, cache), 0);
    /* Spans by size: the boundary is half the cache. */
    assert_int_equal(clg_gather_nt(1, 3, 0, 64, 64, 16 * mib + 1, cache), 1);
    assert_int_equal(clg_gather_nt(1, 3, 0, 64, 64, 16 * mib, cache), 0);
    assert_int_equal(clg_gather_nt(1, 3, 0, 64, 4096, 25 * mib, cache), 1);
    assert_int_equal(clg_gather_nt(1, 3, 0, 64, 64, 64 * mib, 0), 0);
    /* Spans need the output aligned to a whole span. */
    assert_int_equal(clg_gather_nt(1, 3, 0, 64, 32, 64 * mib, cache), 0);
    assert_int_equal(clg_gather_nt(1, 1, 0, 64, 16, 64 * mib, cache), 0);
    assert_int_equal(clg_gather_nt(1, 1, 0, 64, 64, 1024, cache), 1);
    assert_int_equal(clg_gather_nt(1, 1, 0, 16, 16, 1024, cache), 1);
    /* 2 is the GatherElements lanes body's alone; 0 never; no built-ins. */
    assert_int_equal(clg_gather_nt(1, 2, 0, 64, 64, 64 * mib, cache), 0);
    assert_int_equal(clg_gather_nt(1, 0, 0, 64, 64, 64 * mib, cache), 0);
    assert_int_equal(clg_gather_nt(0, 1, 0, 64, 64, 64 * mib, cache), 0);
    assert_int_equal(clg_gather_nt(0, 3, 0, 64, 64, 64 * mib, cache), 0);
    assert_int_equal(clg_gather_nt(0, 1, 1, 4, 4, 1024, cache), 0);
}

/* The entry point of each GatherElements launch, from the device
 * parameters. */
static void test_elements_walks(void **state)
{
    (void)state;
    const clg_param_values pocl =
        row_of(clg_params_lookup(CLG_DEVICE_TYPE_CPU, "GenuineIntel",
                                 "OpenCL 3.0 PoCL HSTR: x"));
    const clg_param_values gpup =
        row_of(clg_params_lookup(CLG_DEVICE_TYPE_GPU, "NVIDIA Corporation",
                                 "OpenCL 3.0 CUDA"));
    const int64_t d[] = {4096, 4096};
    clg_problem p = problem(CLG_OP_GATHER_ELEMENTS, CLG_DTYPE_FLOAT, 2, d,
                            CLG_DTYPE_INT32, 2, d, 0);
    clg_plan plan;
    clg_elements_choice ch;
    clg_gather_elements_routine.plan(&p, &cpu, 16, &plan);
    clg_box whole = {0, 1, 0, 4096, 0, 4096};
    /* elements-axis0 on POCL: strips of 256 B = 64 floats, packed, four a
     * pass (two per core). */
    clg_elements_choose(&p, &plan, &pocl, &whole, 1, cpu.max_alloc, &ch);
    assert_int_equal(ch.entry, CLG_ENTRY_ELEMENTS_PACKED);
    assert_int_equal(ch.strip_width, 64);
    assert_int_equal(ch.strips, 64);
    assert_int_equal(ch.chunk, 4);
    assert_int_equal(ch.ahead, 0);
    /* pack=2 (Intel's row): the same walk, its gather prefetching 16 rows
     * of indices and output ahead. */
    const clg_param_values intel =
        row_of(clg_params_lookup(CLG_DEVICE_TYPE_CPU, "Intel(R) Corporation",
                                 "OpenCL 3.1 (Build 0)"));
    assert_int_equal(intel.pack, 2);
    clg_elements_choose(&p, &plan, &intel, &whole, 1, cpu.max_alloc, &ch);
    assert_int_equal(ch.entry, CLG_ENTRY_ELEMENTS_PACKED);
    assert_int_equal(ch.strip_width, 64);
    assert_int_equal(ch.chunk, 4);
    assert_int_equal(ch.ahead, 16);
    /* A piece (windows): strips in place. */
    clg_elements_choose(&p, &plan, &pocl, &whole, 0, cpu.max_alloc, &ch);
    assert_int_equal(ch.entry, CLG_ENTRY_ELEMENTS_STRIPS);
    /* Passes no larger than one allocation: 4 MiB holds 4 strips. */
    clg_param_values all = pocl;
    all.chunk = 0;
    clg_elements_choose(&p, &plan, &all, &whole, 1, (uint64_t)4 << 20, &ch);
    assert_int_equal(ch.chunk, 4);
    /* The packed gather addresses a strip with an int: strips of 2^31
     * elements or more stay in place (an allocation limit of 1 TiB, so that
     * only the element count decides). */
    for (int64_t rows = ((int64_t)1 << 25) - 1; rows <= (int64_t)1 << 25;
         rows++) {
        const int64_t shape[] = {rows, 128};
        p = problem(CLG_OP_GATHER_ELEMENTS, CLG_DTYPE_FLOAT, 2, shape,
                    CLG_DTYPE_INT32, 2, shape, 0);
        clg_gather_elements_routine.plan(&p, &cpu, 16, &plan);
        clg_box box = {0, 1, 0, rows, 0, 128};
        clg_elements_choose(&p, &plan, &pocl, &box, 1, (uint64_t)1 << 40, &ch);
        /* 64 columns a strip: (2^25 - 1) * 64 <= INT_MAX < 2^25 * 64. */
        assert_int_equal(ch.entry, rows < (int64_t)1 << 25
                                       ? CLG_ENTRY_ELEMENTS_PACKED
                                       : CLG_ENTRY_ELEMENTS_STRIPS);
        assert_int_equal(ch.strip_width, 64);
    }
    /* The gather reads fewer than a quarter of the axis's rows: the pack
     * would read them all, so strips in place; a quarter packs. */
    for (int64_t n = 1023; n <= 1024; n++) {
        const int64_t dq[] = {4096, 4096}, iq[] = {n, 4096};
        p = problem(CLG_OP_GATHER_ELEMENTS, CLG_DTYPE_FLOAT, 2, dq,
                    CLG_DTYPE_INT32, 2, iq, 0);
        clg_gather_elements_routine.plan(&p, &cpu, 16, &plan);
        clg_box box = {0, 1, 0, n, 0, 4096};
        clg_elements_choose(&p, &plan, &pocl, &box, 1, cpu.max_alloc, &ch);
        assert_int_equal(ch.entry, n < 1024 ? CLG_ENTRY_ELEMENTS_STRIPS
                                            : CLG_ENTRY_ELEMENTS_PACKED);
    }
    /* Rows no divisor of 64 columns in [32, 64] divides: in place. */
    const int64_t d2[] = {512, 4099};
    p = problem(CLG_OP_GATHER_ELEMENTS, CLG_DTYPE_FLOAT, 2, d2,
                CLG_DTYPE_INT32, 2, d2, 0);
    clg_gather_elements_routine.plan(&p, &cpu, 16, &plan);
    clg_box w2 = {0, 1, 0, 512, 0, 4099};
    clg_elements_choose(&p, &plan, &pocl, &w2, 1, cpu.max_alloc, &ch);
    assert_int_equal(ch.entry, CLG_ENTRY_ELEMENTS_STRIPS);
    assert_int_equal(ch.strips, 65);
    /* Inner rows strided in data (indices [512, 4096, 1] over data
     * [512, 4096, 3], axis 0: one inner dim of stride 3): strips in
     * place, since the pack kernel reads contiguous rows. */
    const int64_t d3[] = {512, 4096, 3}, i3[] = {512, 4096, 1};
    p = problem(CLG_OP_GATHER_ELEMENTS, CLG_DTYPE_FLOAT, 3, d3,
                CLG_DTYPE_INT32, 3, i3, 0);
    clg_gather_elements_routine.plan(&p, &cpu, 16, &plan);
    assert_int_equal(plan.inner_dims, 1);
    assert_int_equal(plan.inner_stride[0], 3);
    clg_box w4 = {0, 1, 0, 512, 0, 4096};
    clg_elements_choose(&p, &plan, &pocl, &w4, 1, cpu.max_alloc, &ch);
    assert_int_equal(ch.entry, CLG_ENTRY_ELEMENTS_STRIPS);
    assert_int_equal(ch.strip_width, 64);
    /* GPUs: strip order in place, work-groups in strip order. */
    p = problem(CLG_OP_GATHER_ELEMENTS, CLG_DTYPE_FLOAT, 2, d, CLG_DTYPE_INT32,
                2, d, 0);
    clg_gather_elements_routine.plan(&p, &gpu, 16, &plan);
    clg_elements_choose(&p, &plan, &gpup, &whole, 1, gpu.max_alloc, &ch);
    assert_int_equal(ch.entry, CLG_ENTRY_ELEMENTS_STRIPS);
    assert_int_equal(ch.strip_width, 64);
    /* The last axis: no strips; on CPUs the lanes body, prefetching two
     * rows ahead, for elements of at most 8 bytes, else the lean body
     * reading two rows ahead. */
    p = problem(CLG_OP_GATHER_ELEMENTS, CLG_DTYPE_FLOAT, 2, d, CLG_DTYPE_INT64,
                2, d, 1);
    clg_gather_elements_routine.plan(&p, &cpu, 16, &plan);
    clg_box w3 = {0, 4096, 0, 4096, 0, 1};
    clg_elements_choose(&p, &plan, &pocl, &w3, 1, cpu.max_alloc, &ch);
    assert_int_equal(ch.entry, CLG_ENTRY_ELEMENTS_LANES);
    assert_int_equal(ch.ahead, 2);
    clg_problem p16 = problem(CLG_OP_GATHER_ELEMENTS, CLG_DTYPE_COMPLEX128, 2,
                              d, CLG_DTYPE_INT64, 2, d, 1);
    clg_gather_elements_routine.plan(&p16, &cpu, 16, &plan);
    clg_elements_choose(&p16, &plan, &pocl, &w3, 1, cpu.max_alloc, &ch);
    assert_int_equal(ch.entry, CLG_ENTRY_ELEMENTS_LEAN);
    assert_int_equal(ch.ahead, 2);
    clg_gather_elements_routine.plan(&p, &cpu, 16, &plan);
    clg_gather_elements_routine.plan(&p, &gpu, 16, &plan);
    clg_elements_choose(&p, &plan, &gpup, &w3, 1, gpu.max_alloc, &ch);
    assert_int_equal(ch.entry, CLG_ENTRY_ELEMENTS_UNITS);
    assert_int_equal(ch.ahead, 0);
    /* The lean body's reading ahead needs every element a row's
     * work-items read inside the row, the lanes body contiguous rows:
     * indices longer than the axis (data [64, 8], indices [64, 9], axis
     * 1) take the lanes body, rows strided in data (indices [64, 8, 1]
     * over data [64, 8, 2], axis 1: axis stride 2) the lean one without
     * reading ahead. */
    const int64_t d5[] = {64, 8}, i5[] = {64, 9};
    p = problem(CLG_OP_GATHER_ELEMENTS, CLG_DTYPE_FLOAT, 2, d5,
                CLG_DTYPE_INT64, 2, i5, 1);
    clg_gather_elements_routine.plan(&p, &cpu, 16, &plan);
    clg_box w5 = {0, 64, 0, 9, 0, 1};
    clg_elements_choose(&p, &plan, &pocl, &w5, 1, cpu.max_alloc, &ch);
    assert_int_equal(ch.entry, CLG_ENTRY_ELEMENTS_LANES);
    assert_int_equal(ch.ahead, 2);
    const int64_t d6[] = {64, 8, 2}, i6[] = {64, 8, 1};
    p = problem(CLG_OP_GATHER_ELEMENTS, CLG_DTYPE_FLOAT, 3, d6,
                CLG_DTYPE_INT64, 3, i6, 1);
    clg_gather_elements_routine.plan(&p, &cpu, 16, &plan);
    assert_int_equal(plan.axis_stride, 2);
    clg_box w6 = {0, 64, 0, 8, 0, 1};
    clg_elements_choose(&p, &plan, &pocl, &w6, 1, cpu.max_alloc, &ch);
    assert_int_equal(ch.entry, CLG_ENTRY_ELEMENTS_LEAN);
    assert_int_equal(ch.ahead, 0);
    /* The lanes body takes longer indices (its prefetch stays in the
     * row), not strided rows. */
    /* A piece (windows): no lean body, no reading ahead. */
    p = problem(CLG_OP_GATHER_ELEMENTS, CLG_DTYPE_FLOAT, 2, d, CLG_DTYPE_INT64,
                2, d, 1);
    clg_gather_elements_routine.plan(&p, &cpu, 16, &plan);
    clg_elements_choose(&p, &plan, &pocl, &w3, 0, cpu.max_alloc, &ch);
    assert_int_equal(ch.entry, CLG_ENTRY_ELEMENTS_UNITS);
    assert_int_equal(ch.ahead, 0);
}

/* Spans of the lean Gather rows body. */
static void test_gather_spans(void **state)
{
    (void)state;
    const int64_t d[] = {50257, 768}, i[] = {8, 1024};
    clg_problem p = problem(CLG_OP_GATHER, CLG_DTYPE_FLOAT, 2, d,
                            CLG_DTYPE_INT64, 2, i, 0);
    clg_plan plan;
    clg_param_values prm = clg_params_rows[0];
    clg_gather_routine.plan(&p, &cpu, 16, &plan);
    assert_int_equal(clg_gather_span(&plan, &prm), 1); /* unit=4: 4 bytes */
    prm.unit = 64;
    assert_int_equal(clg_gather_span(&plan, &prm), 16);
    prm.unit = 24;
    assert_int_equal(clg_gather_span(&plan, &prm), 4);
    clg_gather_routine.plan(&p, &gpu, 16, &plan);
    assert_int_equal(clg_gather_span(&plan, &prm), 1); /* no lean body */
}

/* The table's lookup and CLGATHER_PARAMS's strict syntax. */
static void test_params_table_and_syntax(void **state)
{
    (void)state;
    char msg[256], text[256];
    assert_string_equal(clg_params_lookup(CLG_DEVICE_TYPE_CPU, "GenuineIntel",
                                          "OpenCL 3.0 PoCL HSTR")
                            ->name,
                        "pocl-cpu");
    assert_string_equal(
        clg_params_lookup(CLG_DEVICE_TYPE_CPU, "Intel", "OpenCL 3.0")->name,
        "cpu");
    assert_string_equal(clg_params_lookup(CLG_DEVICE_TYPE_CPU,
                                          "Intel(R) Corporation",
                                          "OpenCL 3.0 (Build 0)")
                            ->name,
                        "intel-cpu");
    /* The clang built-ins: POCL's and Intel's CPU compilers, no other. */
    assert_int_equal(clg_params_lookup(CLG_DEVICE_TYPE_CPU, "GenuineIntel",
                                       "OpenCL 3.0 PoCL HSTR")
                         ->builtins,
                     1);
    assert_int_equal(clg_params_lookup(CLG_DEVICE_TYPE_CPU,
                                       "Intel(R) Corporation",
                                       "OpenCL 3.0 (Build 0)")
                         ->builtins,
                     1);
    assert_int_equal(clg_params_lookup(CLG_DEVICE_TYPE_CPU, "Intel",
                                       "OpenCL 3.0")
                         ->builtins,
                     0);
    assert_int_equal(
        clg_params_lookup(CLG_DEVICE_TYPE_GPU, "X", "Y")->builtins, 0);
    assert_string_equal(clg_params_lookup(CLG_DEVICE_TYPE_GPU,
                                          "Intel(R) Corporation",
                                          "OpenCL 3.0 NEO")
                            ->name,
                        "gpu");
    assert_string_equal(
        clg_params_lookup(CLG_DEVICE_TYPE_ACCELERATOR, "X", "Y")->name,
        "default");
    /* Mesa's Rusticl on llvmpipe: its own row, no built-ins; it and every
     * row but POCL's and Intel's wait for a map before its unmap. */
    const clg_params_entry *rusticl =
        clg_params_lookup(CLG_DEVICE_TYPE_CPU, "Mesa/X.org", "OpenCL 3.0 ");
    assert_string_equal(rusticl->name, "rusticl-cpu");
    assert_int_equal(rusticl->builtins, 0);
    assert_int_equal(rusticl->map_wait, 1);
    assert_int_equal(clg_params_lookup(CLG_DEVICE_TYPE_CPU, "GenuineIntel",
                                       "OpenCL 3.0 PoCL HSTR")
                         ->map_wait,
                     0);
    assert_int_equal(clg_params_lookup(CLG_DEVICE_TYPE_CPU,
                                       "Intel(R) Corporation",
                                       "OpenCL 3.0 (Build 0)")
                         ->map_wait,
                     0);
    assert_int_equal(clg_params_lookup(CLG_DEVICE_TYPE_CPU, "Intel",
                                       "OpenCL 3.0")
                         ->map_wait,
                     1);
    assert_int_equal(
        clg_params_lookup(CLG_DEVICE_TYPE_GPU, "X", "Y")->map_wait, 1);
    assert_int_equal(
        clg_params_lookup(CLG_DEVICE_TYPE_ACCELERATOR, "X", "Y")->map_wait, 1);
    clg_params p = clg_params_table[0].params;
    assert_true(clg_params_parse("strip=64,prefetch=16,nt=1", 1, &p, msg,
                                 sizeof msg));
    assert_int_equal(p.strip, 64);
    assert_int_equal(p.prefetch, 16);
    assert_int_equal(p.nt, 1);
    clg_params_format(&p, text, sizeof text);
    assert_string_equal(text, "wg=4096,strip=64,pack=1,chunk=4,unit=4,"
                              "prefetch=16,nt=1,norm=1024,small=64");
    static const char *const bad[] = {
        "",          "strip",         "strip=",    "strip=x",      "strip=-1",
        "nt=4",      "wg=0",          "foo=1",     "strip=64,",    ",nt=1",
        "strip=64 ", "strip=0999999", "nt=1,nt=0", "norm=1000000", "unit=3",
        "unit=48",   "small=1025"};
    for (size_t k = 0; k < CLG_TEST_ARRAY_LEN(bad); k++)
        if (clg_params_parse(bad[k], 1, &p, msg, sizeof msg))
            fail_msg("CLGATHER_PARAMS=\"%s\" was accepted", bad[k]);
    assert_false(clg_params_parse("nt=1", 0, &p, msg, sizeof msg));
    CLG_ASSERT_CONTAINS(msg, "clang's built-ins");
    assert_false(clg_params_parse("nt=2", 0, &p, msg, sizeof msg));
    assert_true(clg_params_parse("nt=0,prefetch=0", 0, &p, msg, sizeof msg));
    assert_true(clg_params_parse("nt=2", 1, &p, msg, sizeof msg));
    assert_int_equal(p.nt, 2);
    assert_true(clg_params_parse("nt=3", 1, &p, msg, sizeof msg));
    assert_int_equal(p.nt, 3);
    assert_false(clg_params_parse("nt=3", 0, &p, msg, sizeof msg));
    /* pack 2 prefetches: only with the built-ins; 0 and 1 anywhere. */
    assert_false(clg_params_parse("pack=2", 0, &p, msg, sizeof msg));
    CLG_ASSERT_CONTAINS(msg, "pack above 1 needs a parameter row whose "
                             "compiler takes clang's built-ins");
    CLG_ASSERT_CONTAINS(msg, "the row in use has none");
    assert_true(clg_params_parse("pack=1", 0, &p, msg, sizeof msg));
    assert_int_equal(p.pack, 1);
    assert_true(clg_params_parse("pack=2", 1, &p, msg, sizeof msg));
    assert_int_equal(p.pack, 2);
    assert_false(clg_params_parse("pack=3", 1, &p, msg, sizeof msg));
    CLG_ASSERT_CONTAINS(msg, "pack takes a number in [0, 2]");
}

/* The pieces of a plan cover the output once, in order, and each reads
 * data only inside the tensor. */
static void check_pieces(const clg_routine *r, const clg_problem *p,
                         const clg_device_facts *dev, uint64_t max_bytes,
                         clg_piece_kind want_kind, int64_t want_count)
{
    clg_plan plan;
    clg_pieces pc;
    r->plan(p, dev, 16, &plan);
    clg_pieces_cut(p, &plan, max_bytes, &pc);
    assert_int_equal(pc.kind, want_kind);
    assert_int_equal(pc.count, want_count);
    int64_t next = 0;
    for (int64_t k = 0; k < pc.count; k++) {
        clg_box box;
        clg_windows w = {0};
        int64_t f0, f1;
        clg_piece_at(r, p, &plan, &pc, k, &box, &w, &f0, &f1);
        assert_int_equal(w.out_base, next);
        assert_true(w.out_len >= 1);
        assert_true((uint64_t)w.out_len * plan.unit <= max_bytes);
        assert_true((uint64_t)w.index_len * p->index_size <= max_bytes);
        assert_true(f0 >= 0 && f0 < f1 && f1 <= plan.data_units);
        next = w.out_base + w.out_len;
    }
    assert_int_equal(next, plan.out_units);
}

static void test_pieces_cover_the_output_once(void **state)
{
    (void)state;
    const int64_t d[] = {300, 7}, i[] = {120};
    clg_problem p = problem(CLG_OP_GATHER, CLG_DTYPE_FLOAT, 2, d,
                            CLG_DTYPE_INT64, 1, i, 0);
    /* 120 rows of 7 units do not fit 256 units: runs of 36 indices. */
    check_pieces(&clg_gather_routine, &p, &cpu, 1024, CLG_PIECE_INDICES, 4);
    check_pieces(&clg_gather_routine, &p, &cpu, 1 << 20, CLG_PIECE_ROWS, 1);
    const int64_t d2[] = {3, 4, 1000}, i2[] = {5};
    p = problem(CLG_OP_GATHER, CLG_DTYPE_FLOAT, 3, d2, CLG_DTYPE_INT32, 1, i2,
                1);
    /* Inner blocks of 1000 units do not fit 256: column ranges. */
    check_pieces(&clg_gather_routine, &p, &cpu, 1024, CLG_PIECE_COLUMNS,
                 3 * 5 * 4);
    const int64_t d3[] = {64, 40}, i3[] = {64, 40};
    p = problem(CLG_OP_GATHER_ELEMENTS, CLG_DTYPE_DOUBLE, 2, d3,
                CLG_DTYPE_INT64, 2, i3, 1);
    /* Rows of 40 elements, 128 per buffer: 3 rows a piece. */
    check_pieces(&clg_gather_elements_routine, &p, &cpu, 1024, CLG_PIECE_ROWS,
                 22);
}

/* GatherND (b = batch_dims): the plan [batch, tuples, slice] in Gather's
 * units, and pieces whose index windows are the tuples of their
 * positions, consecutive and each within one buffer. */
static clg_problem nd_problem(size_t rank, const int64_t *dshape, size_t irank,
                              const int64_t *ishape, int64_t b)
{
    clg_problem p;
    clg_call call = {.size = sizeof call, .op = CLG_OP_GATHER_ND};
    call.batch_dims = b;
    CLG_ASSERT_OK(NULL,
                  clg_validate(NULL, &call, CLG_DTYPE_FLOAT, rank, dshape,
                               CLG_DTYPE_INT64, irank, ishape, &p));
    return p;
}

static void check_nd_pieces(const clg_problem *p, uint64_t max_bytes,
                            clg_piece_kind kind, int64_t count)
{
    clg_plan plan;
    clg_pieces pc;
    clg_gather_nd_routine.plan(p, &cpu, 16, &plan);
    clg_pieces_cut(p, &plan, max_bytes, &pc);
    assert_int_equal(pc.kind, kind);
    assert_int_equal(pc.count, count);
    check_pieces(&clg_gather_nd_routine, p, &cpu, max_bytes, kind, count);
    int64_t next = 0;
    for (int64_t k = 0; k < pc.count; k++) {
        clg_box box;
        clg_windows w = {0};
        int64_t f0, f1;
        clg_piece_at(&clg_gather_nd_routine, p, &plan, &pc, k, &box, &w, &f0,
                     &f1);
        assert_int_equal(w.index_base, next);
        assert_int_equal(w.index_len, ((box.o1 - 1) * plan.n + box.j1 -
                                       box.o0 * plan.n - box.j0) *
                                          (int64_t)p->components);
        assert_int_equal(f0, box.o0 * plan.axis_stride);
        next = w.index_base + w.index_len;
    }
    assert_int_equal(next, p->index_count);
}

static void test_gather_nd_plan_and_pieces(void **state)
{
    (void)state;
    const int64_t d[] = {4, 30, 20}, i[] = {4, 50, 1};
    clg_problem p = nd_problem(3, d, 3, i, 1);
    assert_int_equal(p.axis, 1);
    assert_int_equal(p.components, 1);
    clg_plan plan;
    /* Slices of 80 bytes: 2-byte units on a CPU (32 or more a slice),
     * 16-byte units on a GPU, 4-byte ones at 4-byte addresses. */
    clg_gather_nd_routine.plan(&p, &cpu, 16, &plan);
    assert_int_equal(plan.unit, 2);
    assert_int_equal(plan.outer, 4);
    assert_int_equal(plan.n, 50);
    assert_int_equal(plan.inner, 40);
    assert_int_equal(plan.axis_stride, 30 * 40);
    assert_int_equal(plan.data_units, 4800);
    assert_int_equal(plan.out_units, 8000);
    clg_gather_nd_routine.plan(&p, &gpu, 16, &plan);
    assert_int_equal(plan.unit, 16);
    assert_int_equal(plan.inner, 5);
    clg_gather_nd_routine.plan(&p, &gpu, 4, &plan);
    assert_int_equal(plan.unit, 4);
    /* Runs of 12 tuples (480 of 512 units) per batch position. */
    check_nd_pieces(&p, 1024, CLG_PIECE_INDICES, 4 * 5);
    check_nd_pieces(&p, 1 << 20, CLG_PIECE_ROWS, 1);
    /* b = 0, k = 2: 200 tuples of 16 bytes, 12 a piece. */
    const int64_t i2[] = {200, 2};
    p = nd_problem(3, d, 2, i2, 0);
    assert_int_equal(p.components, 2);
    check_nd_pieces(&p, 1024, CLG_PIECE_INDICES, 17);
    /* Scalar slices, b = 1: 8 tuples of 8 bytes a row; 32 rows of output
     * fit 1024 bytes but their tuples do not: 16 rows a piece. */
    const int64_t d3[] = {64, 2}, i3[] = {64, 8, 1};
    p = nd_problem(2, d3, 3, i3, 1);
    check_nd_pieces(&p, 1024, CLG_PIECE_ROWS, 4);
    /* Empty slices give an empty plan row. */
    const int64_t d4[] = {3, 4, 0}, i4[] = {5, 1};
    p = nd_problem(3, d4, 2, i4, 0);
    clg_gather_nd_routine.plan(&p, &gpu, 16, &plan);
    assert_int_equal(plan.inner, 0);
    assert_int_equal(plan.out_units, 0);
}

static void test_work_group_shapes(void **state)
{
    (void)state;
    clg_geometry g;
    size_t origin[3] = {0, 0, 0}, size[3] = {768, 8192, 1};
    clg_geometry_make(&cpu, 3, origin, size, &g);
    /* 4096 / 768 = 5 rows, but 4 divide 8192: no padded rows. */
    assert_int_equal(g.local[0], 768);
    assert_int_equal(g.local[1], 4);
    assert_int_equal(g.global[0], 768);
    assert_int_equal(g.global[1], 8192);
    size_t s2[3] = {192, 8192, 1};
    clg_geometry_make(&gpu, 3, origin, s2, &g);
    assert_int_equal(g.local[0], 192);
    assert_int_equal(g.local[1], 1);
    size_t s3[2] = {1000, 3};
    size_t o3[2] = {24, 5};
    clg_geometry_make(&gpu, 2, o3, s3, &g);
    assert_int_equal(g.dims, 2);
    assert_int_equal(g.local[0], 256);
    assert_int_equal(g.global[0], 1024); /* padded to whole groups */
    assert_int_equal(g.global[1], 3);
    assert_int_equal(g.origin[0], 24);
    assert_int_equal(g.origin[1], 5);
    assert_int_equal(g.global[2], 1);
}

/* Every operator of CLG_OP_TABLE has its descriptor row, whole, and the
 * rows say what the shared paths decided by operator before. */
static void test_operator_rows(void **state)
{
    (void)state;
    for (int i = 0; i < clg_op_count(); i++) {
        const clg_op_desc *row = clg_op_desc_of((clg_op)i);
        assert_non_null(row);
        assert_non_null(row->attributes);
        assert_non_null(row->infer);
        assert_non_null(row->components);
        assert_non_null(row->ref_index);
        assert_non_null(row->ref_data);
        assert_non_null(row->routine);
        assert_non_null(row->routine->plan);
        assert_non_null(row->routine->footprint);
        assert_non_null(row->routine->launch);
    }
    const clg_op_desc *g = clg_op_desc_of(CLG_OP_GATHER);
    const clg_op_desc *e = clg_op_desc_of(CLG_OP_GATHER_ELEMENTS);
    assert_ptr_equal(g->routine, &clg_gather_routine);
    assert_ptr_equal(e->routine, &clg_gather_elements_routine);
    assert_int_equal(g->index_window, CLG_WINDOW_POSITIONS);
    assert_int_equal(e->index_window, CLG_WINDOW_OUTPUT);
    assert_int_equal(g->in_place_align, CLG_ALIGN_ANY);
    assert_int_equal(e->in_place_align, CLG_ALIGN_ELEMENT);
    int64_t d[2] = {3, 4}, i1[1] = {5}, i2[2] = {3, 4};
    clg_problem p = problem(CLG_OP_GATHER, CLG_DTYPE_FLOAT, 2, d,
                            CLG_DTYPE_INT32, 1, i1, 1);
    assert_int_equal(p.components, 1);
    assert_int_equal(clg_index_range(&p, 3), 4);
    p = problem(CLG_OP_GATHER_ELEMENTS, CLG_DTYPE_FLOAT, 2, d, CLG_DTYPE_INT32,
                2, i2, 0);
    assert_int_equal(p.components, 1);
    assert_int_equal(clg_index_range(&p, 7), 3);
}

/* The index rule with tuples (an index of several values, each against
 * its own data dim): the ranges, the host check and its message, and the
 * index windows of pieces, on a problem made by hand, as an operator with
 * tuples would have it. */
static void test_tuple_index_rule(void **state)
{
    (void)state;
    int64_t d[3] = {3, 4, 5}, q[1] = {6};
    clg_problem p = problem(CLG_OP_GATHER, CLG_DTYPE_FLOAT, 3, d,
                            CLG_DTYPE_INT64, 1, q, 0);
    /* Three indices of two values: positions along dims 0 and 1. */
    p.components = 2;
    p.index_rank = 2;
    p.index_shape[0] = 3;
    p.index_shape[1] = 2;
    assert_int_equal(clg_index_range(&p, 0), 3);
    assert_int_equal(clg_index_range(&p, 1), 4);
    assert_int_equal(clg_index_range(&p, 4), 3);
    const int64_t good[6] = {2, 3, -3, -4, 0, 0};
    CLG_ASSERT_OK(NULL, clg_check_indices_host(NULL, &p, good));
    /* 3 is valid for dim 1 (size 4) but not for dim 0 (size 3). */
    const int64_t bad[6] = {2, 3, 0, -4, 3, 0};
    CLG_ASSERT_STATUS(NULL, clg_check_indices_host(NULL, &p, bad),
                      CLG_STATUS_INDEX_OUT_OF_RANGE);
    assert_string_equal(clg_context_last_error(NULL),
                        "indices[2][0] = 3 is out of range [-3, 2] for data "
                        "dim 0 of size 3");
    const int64_t bad1[6] = {2, 4, 0, 0, 0, 0};
    CLG_ASSERT_STATUS(NULL, clg_check_indices_host(NULL, &p, bad1),
                      CLG_STATUS_INDEX_OUT_OF_RANGE);
    assert_string_equal(clg_context_last_error(NULL),
                        "indices[0][1] = 4 is out of range [-4, 3] for data "
                        "dim 1 of size 4");
    /* A piece of index positions [j0, j1) reads their values. */
    clg_plan plan = {.unit = 4,
                     .outer = 1,
                     .n = 3,
                     .inner = 5,
                     .axis_size = 3,
                     .index_count = 6};
    clg_pieces pc = {CLG_PIECE_INDICES, 1, 3, 1 << 20};
    clg_box box;
    clg_windows w = {0};
    int64_t first, end;
    clg_piece_at(&clg_gather_routine, &p, &plan, &pc, 2, &box, &w, &first,
                 &end);
    assert_int_equal(box.j0, 2);
    assert_int_equal(w.index_base, 4);
    assert_int_equal(w.index_len, 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_coalesce),
        cmocka_unit_test(test_gather_plan_units_and_offsets),
        cmocka_unit_test(test_elements_plan_dims),
        cmocka_unit_test(test_elements_walks),
        cmocka_unit_test(test_lanes_nt),
        cmocka_unit_test(test_gather_nt),
        cmocka_unit_test(test_gather_spans),
        cmocka_unit_test(test_params_table_and_syntax),
        cmocka_unit_test(test_pieces_cover_the_output_once),
        cmocka_unit_test(test_work_group_shapes),
        cmocka_unit_test(test_operator_rows),
        cmocka_unit_test(test_tuple_index_rule),
        cmocka_unit_test(test_gather_nd_plan_and_pieces),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
