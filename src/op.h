/* SPDX-License-Identifier: Apache-2.0 */
/* The operator layer's shared declarations (docs/design.md, "Layers"):
 * validation, the problem and plan of one call, pieces, geometry and the
 * routine each operator provides. Not installed. src/ reaches the device
 * only through host/runtime.h. */
#ifndef CLG_OP_H
#define CLG_OP_H

#include "params.h"
#include "runtime.h"
#include "variant.h"

#include <stddef.h>
#include <stdint.h>

/* ---------------------------------------------------------------- problem */

/* Everything validation learns about one call, independent of any plan:
 * the normalised axis, element counts and the output shape. */
typedef struct clg_problem {
    clg_op op;
    clg_dtype dtype;       /* data (and output) dtype */
    clg_dtype index_dtype; /* INT32 or INT64 */
    size_t elem_size;      /* bytes per data element */
    size_t index_size;     /* 4 or 8 */
    size_t components;     /* index values that make one index (the
                              operator's index rule, clg_op_desc) */
    size_t data_rank, index_rank, out_rank;
    int64_t data_shape[CLG_MAX_RANK];
    int64_t index_shape[CLG_MAX_RANK];
    int64_t out_shape[CLG_MAX_RANK];
    size_t axis;       /* normalised, in [0, data_rank): the first data
                          dim an index addresses */
    int64_t axis_size; /* s = data.shape[axis] */
    int64_t data_count, index_count, out_count;
    clg_oob_mode oob; /* the call's out-of-range mode; 0 (raise) unless set
                         by clg_validate_options */
} clg_problem;

/* src/operators.c. Copies the caller's `call` into *out, whole: the
 * fields its size does not cover at their defaults (zero), out->size
 * sizeof(clg_call). NULL_POINTER for NULL, INVALID_ARGUMENT for a size or
 * an operator clg_call's contract refuses (include/clgather/clgather.h). */
clg_status clg_call_read(clg_context *ctx, const clg_call *call,
                         clg_call *out);

/* Appends "[a, b, c]" for a shape to buf (size cap), always terminated. */
void clg_format_shape(char *buf, size_t cap, const int64_t *shape,
                      size_t rank);

/* src/validate.c. Validates one shape (rank, NULL, negative dimensions,
 * overflow), the message naming `what`, and writes its element count. */
clg_status clg_check_shape(clg_context *ctx, const char *what,
                           const int64_t *shape, size_t rank, int64_t *count);

/* src/validate.c. Validates the descriptors of one call (not the index
 * values, not data pointers) for the operator and attributes of `call`
 * (read whole, clg_call_read) and fills *p. Shapes are read from
 * `data_shape`/`index_shape` with their ranks and dtypes, so host and
 * device tensors share it. */
clg_status clg_validate(clg_context *ctx, const clg_call *call,
                        clg_dtype data_dtype, size_t data_rank,
                        const int64_t *data_shape, clg_dtype index_dtype,
                        size_t index_rank, const int64_t *index_shape,
                        clg_problem *p);

/* Checks an output descriptor against the validated problem. */
clg_status clg_validate_output(clg_context *ctx, const clg_problem *p,
                               clg_dtype dtype, size_t rank,
                               const int64_t *shape);

/* Applies a call's options (NULL: defaults) to a validated problem:
 * INVALID_ARGUMENT for a mode outside CLG_OOB_TABLE; under every mode an
 * axis of size 0 with a non-empty output is INDEX_OUT_OF_RANGE, which
 * raise reports when it checks the values and the other modes here, as
 * they check none (docs/design.md, "Out-of-range modes"). */
clg_status clg_validate_options(clg_context *ctx,
                                const clg_call_options *options,
                                clg_problem *p);

/* The descriptor part of a tensor, host or device. */
typedef struct clg_desc {
    clg_dtype dtype;
    size_t rank;
    const int64_t *shape;
} clg_desc;

/* The checks every call makes of its descriptors (NULL: a NULL tensor):
 * clg_validate and clg_validate_output. Fills *p. */
clg_status clg_validate_call(clg_context *ctx, const clg_call *call,
                             const clg_desc *data, const clg_desc *indices,
                             const clg_desc *output, clg_problem *p);

/* All the checks of a host-memory call (clg_gather and friends, and the
 * reference): descriptors present, clg_validate, the output descriptor,
 * the data pointers and no overlap of output and inputs. Fills *p. */
clg_status clg_validate_host(clg_context *ctx, const clg_call *call,
                             const clg_tensor *data, const clg_tensor *indices,
                             const clg_tensor *output, clg_problem *p);

/* clg_output_shape for a call read whole (src/validate.c). */
clg_status clg_output_shape_of(const clg_call *call, const clg_tensor *data,
                               const clg_tensor *indices, int64_t *shape,
                               size_t capacity, size_t *rank);

/* The CPU reference for a call read whole (src/reference.c). */
clg_status clg_reference_of(clg_context *ctx, const clg_call *call,
                            const clg_tensor *data, const clg_tensor *indices,
                            const clg_tensor *output);

/* The range of the index value at flat position `pos` of the indices:
 * values lie in [-s, s-1] for s the size of the data dim its component
 * addresses (the index rule, clg_op_desc): p->axis_size for an index of
 * one value, else data dim p->axis + pos % components. */
static inline int64_t clg_index_range(const clg_problem *p, int64_t pos)
{
    if (p->components <= 1)
        return p->axis_size;
    return p->data_shape[p->axis + (size_t)(pos % (int64_t)p->components)];
}

/* The attribute rule of the operators that take an axis (src/validate.c):
 * call->axis in [-r, r-1], normalised into p->axis; p->axis_size. Needs
 * p->data_rank and p->data_shape. */
clg_status clg_axis_rule(clg_context *ctx, const clg_call *call,
                         clg_problem *p);

/* Each operator's own shape rules and output shape (src/shape.c, below
 * the operators), called by clg_validate once the common checks passed;
 * fills p->out_rank and p->out_shape. */
clg_status clg_gather_infer(clg_context *ctx, clg_problem *p);
clg_status clg_gather_elements_infer(clg_context *ctx, clg_problem *p);
clg_status clg_gather_nd_infer(clg_context *ctx, clg_problem *p);

/* Each operator's offset rule in the CPU reference (src/reference.c),
 * straight from its formula: the flat position in the indices of the
 * first value of the index that output element `pos` (a multi-index over
 * the output shape) uses, and the data element it copies once that
 * index's components select positions at[0 .. components-1] (normalised,
 * in range). `istride` and `dstride` are the row-major strides of indices
 * and data. */
int64_t clg_gather_ref_index(const clg_problem *p, const int64_t *pos,
                             const int64_t *istride);
int64_t clg_gather_ref_data(const clg_problem *p, const int64_t *pos,
                            const int64_t *at, const int64_t *dstride);
int64_t clg_gather_elements_ref_index(const clg_problem *p, const int64_t *pos,
                                      const int64_t *istride);
int64_t clg_gather_elements_ref_data(const clg_problem *p, const int64_t *pos,
                                     const int64_t *at,
                                     const int64_t *dstride);
int64_t clg_gather_nd_ref_index(const clg_problem *p, const int64_t *pos,
                                const int64_t *istride);
int64_t clg_gather_nd_ref_data(const clg_problem *p, const int64_t *pos,
                               const int64_t *at, const int64_t *dstride);

/* The position in [0, s) that index value v selects under `mode`
 * (docs/design.md, "Out-of-range modes"), or -1 for none: a value out of
 * range under fill. Raise has checked every value before. s > 0. Shared
 * by the reference and the host loops (src/host_path.c). */
int64_t clg_resolve(int64_t v, int64_t s, clg_oob_mode mode);

/* Each operator's host loop (src/host_path.c): the whole call on the
 * calling thread, for a validated, non-empty problem whose index values
 * raise has checked; output written in order. */
typedef void (*clg_host_loop)(const clg_problem *p, const void *data,
                              const void *indices, void *out);
void clg_gather_host(const clg_problem *p, const void *data,
                     const void *indices, void *out);
void clg_gather_elements_host(const clg_problem *p, const void *data,
                              const void *indices, void *out);
void clg_gather_nd_host(const clg_problem *p, const void *data,
                        const void *indices, void *out);

/* ---------------------------------------------------------------- indices */

/* src/check.c. Scans index values for the first one outside [-s, s-1].
 * Returns the position (element offset) or -1 when all are valid; *value
 * gets the bad value. */
int64_t clg_find_bad_index(const void *indices, clg_dtype index_dtype,
                           int64_t count, int64_t axis_size, int64_t *value);

/* Fails with INDEX_OUT_OF_RANGE, naming position `pos` of the indices as a
 * multi-index, its value and the valid range. */
clg_status clg_fail_index(clg_context *ctx, const clg_problem *p, int64_t pos,
                          int64_t value);

/* Up to this many index values are checked on the host before an in-place
 * launch; more are checked by the check kernel (src/index_check.c). */
#define CLG_HOST_CHECK_LIMIT 65536

/* The check a host-memory call runs before its first launch
 * (src/index_check.c): in place (`in_place`), more than
 * CLG_HOST_CHECK_LIMIT indices that fit one buffer and one range for
 * every value (GatherND: components addressing dims of one size) by the
 * check kernel, else a host scan; *ran says which. */
clg_status clg_check_indices_first(clg_context *ctx, const clg_problem *p,
                                   void *indices, int in_place,
                                   clg_index_check *ran);

/* 1 when that check runs on the device (the check kernel), 0 when on the
 * host: the rule above, for a warm-up, which builds the kernel only when
 * the call would run it. */
int clg_check_indices_on_device(clg_context *ctx, const clg_problem *p,
                                int in_place);

/* Scans host indices and fails on the first bad one; OK when all valid. */
clg_status clg_check_indices_host(clg_context *ctx, const clg_problem *p,
                                  const void *indices);

/* The variant, arguments and geometry of a pass over the indices, one
 * work-item per value, that raises the call's error slot when any value
 * is outside [-s, s-1]: the check kernel, or with `normalise`
 * clg_normalize_indices, which also writes each value normalised into
 * [0, s) to the temporary (p->index_count ints; 0 for a bad one).
 * Normalising needs s <= INT32_MAX. */
struct clg_plan_args;
void clg_index_pass_make(const clg_device_facts *dev, const clg_problem *p,
                         int normalise, clg_variant *v,
                         struct clg_plan_args *a, clg_geometry *g);

/* Runs the check kernel over device indices as a blocking call; *raised =
 * 1 when any value is outside [-s, s-1]. */
clg_status clg_check_indices_device(clg_context *ctx, const clg_problem *p,
                                    cl_mem indices, int *raised);

/* Reads device indices back and checks them on the host: OK when all are
 * valid, else INDEX_OUT_OF_RANGE naming the first bad one. */
clg_status clg_check_indices_readback(clg_context *ctx, const clg_problem *p,
                                      cl_mem indices);

/* ---------------------------------------------------------------- plan */

/* How the device computes one problem, in plan coordinates
 * [outer, n, inner] (docs/design.md, "Plans"). Gather: data [outer, s,
 * inner], output [outer, n, inner], all in units of `unit` bytes.
 * GatherElements: output/indices [outer, n, inner] with data offsets
 *   outer part + index * axis_stride + inner part
 * where each part is either one stride (simple) or a list of coalesced
 * (extent, stride) dims (ragged: indices smaller than data off the axis). */
typedef struct clg_plan {
    size_t unit;      /* bytes one work-item moves: a dtype size */
    int wide_offsets; /* 1: 64-bit offsets in the kernel */
    int lean;         /* CPU lean bodies allowed (whole tensors only) */
    int64_t outer, n, inner;
    int64_t axis_size;
    int64_t data_units, index_count, out_units;
    /* GatherElements only, in elements */
    int64_t axis_stride;
    size_t outer_dims, inner_dims; /* 0 or 1: simple; more: ragged */
    int64_t outer_extent[CLG_MAX_RANK], outer_stride[CLG_MAX_RANK];
    int64_t inner_extent[CLG_MAX_RANK], inner_stride[CLG_MAX_RANK];
} clg_plan;

/* 32-bit offsets only where every offset provably fits, and only on GPUs:
 * sets plan->wide_offsets from the plan's unit counts (src/plan.c). */
void clg_plan_offsets(clg_plan *plan, const clg_device_facts *dev);

/* Coalesces a run of dims (extent e[k], data stride st[k], outermost
 * first): drops extent-1 dims and merges a dim into its inner neighbour
 * when the neighbour is full. Returns the number of dims left. */
size_t clg_coalesce(int64_t *e, int64_t *st, size_t n);

/* A box of plan coordinates [o0, o1) x [j0, j1) x [c0, c1) (j: the index
 * position for Gather, the axis position for GatherElements; c in units). */
typedef struct clg_box {
    int64_t o0, o1, j0, j1, c0, c1;
} clg_box;

/* The buffers of one launch, each holding a window of its tensor:
 * [base, base + len) in units (data, output) or elements (indices); the
 * call the launch belongs to, and its error slot. */
typedef struct clg_windows {
    cl_mem data, indices, output;
    /* Where not NULL, the kernels take this caller memory as SVM pointers
     * in place of data, indices and output (a device with host_svm). */
    const void *data_svm, *indices_svm, *output_svm;
    int64_t data_base, data_len;
    int64_t index_base, index_len;
    int64_t out_base, out_len;
    clg_rt_call *call; /* its error slot is the kernels' err */
} clg_windows;

/* The kernel arguments every operator kernel takes (the entry table's
 * CLG_ARGS_OPERATOR_ list and the fields every shape starts with,
 * CLG_SHAPE_BASE_, in src/variant.h): data, indices, output, err, n,
 * axis_size, inner and the six window bounds.
 * clg_base_args sets them in `a`, pointing into `w` and into `scalars`,
 * which must outlive the launch call (src/plan.c). */
typedef struct clg_base_scalars {
    cl_ulong n, axis_size, inner, win[6];
} clg_base_scalars;
void clg_base_args(const clg_plan *plan, const clg_windows *w,
                   clg_base_scalars *scalars, clg_args *a);

/* The variant of a launch of `entry` with the options every operator
 * sets: index size, unit, offset width, windows (not whole). */
clg_variant clg_plan_variant(clg_entry entry, const clg_problem *p,
                             const clg_plan *plan, int whole);

/* The work-group and padded global size for an NDRange of `size` over
 * `dims` dimensions (origin[0 .. dims-1], size[0 .. dims-1]), for the
 * device (src/plan.c).
 * Dimensions 0 and 1 are padded up to whole work-groups; the kernels
 * bounds-check them. */
void clg_geometry_make(const clg_device_facts *dev, unsigned dims,
                       const size_t *origin, const size_t *size,
                       clg_geometry *g);
/* The same with a group of about `wg` work-items (device parameters). */
void clg_geometry_make_wg(const clg_device_facts *dev, size_t wg,
                          unsigned dims, const size_t *origin,
                          const size_t *size, clg_geometry *g);

/* clg_gather_fill_rows zeroes a row in pieces of at most CLG_FILL_PIECE
 * units, one work-item each: Mesa's llvmpipe ends a work-item's loop
 * after 65535 iterations (docs/design.md, "Kernels"). The pieces of a row
 * of `inner` units (at least 1). */
#define CLG_FILL_PIECE 4096
static inline int64_t clg_fill_pieces(int64_t inner)
{
    return inner > CLG_FILL_PIECE
               ? (inner + CLG_FILL_PIECE - 1) / CLG_FILL_PIECE
               : 1;
}

/* ---------------------------------------------------------------- routines */

/* ---------------------------------------------------------- call plans */

/* The symbolic arguments of one launch of a plan, by name (the plan's
 * counterpart of clg_args; host/runtime.h, clg_rt_parg): `set` has bit
 * 1 << id for each argument given. */
typedef struct clg_plan_args {
    clg_rt_parg at[CLG_ARG_END];
    uint64_t set;
} clg_plan_args;
_Static_assert(CLG_ARG_END <= 64, "an argument is one bit of set");

/* An empty argument set: only `set` is cleared, as an argument is read
 * only where its bit is set (a call's plan is built on every call). */
static inline void clg_plan_args_init(clg_plan_args *a)
{
    a->set = 0;
}
static inline void clg_parg_value(clg_plan_args *a, clg_arg id, cl_ulong v)
{
    a->at[id] = (clg_rt_parg){CLG_RT_REF_VALUE, v};
    a->set |= (uint64_t)1 << id;
}
static inline void clg_parg_ref(clg_plan_args *a, clg_arg id, clg_rt_ref ref,
                                cl_ulong which)
{
    a->at[id] = (clg_rt_parg){ref, which};
    a->set |= (uint64_t)1 << id;
}

/* The arguments every operator entry point takes (the entry table's
 * CLG_ARGS_OPERATOR_ list and the shape fields of CLG_SHAPE_BASE_): the
 * window's data, indices and output, the error slot, n, axis_size, inner
 * and the six window bounds. */
void clg_base_pargs(const clg_plan *plan, clg_plan_args *a);

/* One call's plan (docs/design.md, "Plans"): the runtime's data
 * (clg_rt_plan) and the variant of each of its kernels, from which the
 * compile step resolves them. `box` is the box the routine's steps are
 * added to. */
typedef struct clg_call_plan {
    clg_rt_plan rt;
    clg_variant variant[CLG_RT_PLAN_KERNELS];
    clg_rt_box *box;
} clg_call_plan;

/* What a routine's choice reads, read once per call: the device, its
 * parameters, whether its compiler takes clang's built-ins, and the
 * alignment (bytes, at most 4096) of the output the kernels write. */
typedef struct clg_plan_env {
    clg_context *ctx; /* for messages only */
    const clg_device_facts *dev;
    clg_param_values prm;
    int builtins;
    size_t out_align;
} clg_plan_env;

/* src/call_plan.c. Starts an empty plan of `nboxes` boxes: inline for one,
 * else its lists allocated once (OUT_OF_MEMORY). */
clg_status clg_call_plan_init(clg_context *ctx, clg_call_plan *cp,
                              size_t nboxes);
/* Starts the next box; the routine's steps go to it. */
clg_rt_box *clg_call_plan_box(clg_call_plan *cp);
/* Adds the kernel of `v` with arguments `a` (every one of its entry's
 * list set) and returns its number in *k (an equal kernel is shared). */
clg_status clg_call_plan_kernel(const clg_plan_env *env, clg_call_plan *cp,
                                const clg_variant *v, const clg_plan_args *a,
                                unsigned *k);
/* Adds a launch of that kernel over `g` to the current box. */
clg_status clg_call_plan_step(const clg_plan_env *env, clg_call_plan *cp,
                              const clg_variant *v, const clg_plan_args *a,
                              const clg_geometry *g);
/* A small read-only buffer of the plan holding vals[0 .. n-1]; *which
 * gets its number (an equal one is shared). */
clg_status clg_call_plan_const(const clg_plan_env *env, clg_call_plan *cp,
                               const cl_ulong *vals, size_t n,
                               cl_ulong *which);
/* The compile step: resolves every kernel of the plan
 * (clg_variant_kernel), building it on first use. */
clg_status clg_call_plan_compile(clg_context *ctx, clg_call_plan *cp);

/* What each operator provides to the shared paths (src/dispatch.c,
 * src/pieces.c): its plan, the data footprint of a box, and the steps of
 * a box: each body's choice, geometry, fallback and option rules. */
typedef struct clg_routine {
    /* Builds the plan; `align` is the alignment (bytes, power of two)
     * shared by the data and output addresses the device will see. */
    void (*plan)(const clg_problem *p, const clg_device_facts *dev,
                 size_t align, clg_plan *plan);
    /* Data units [*first, *end) a box may read. */
    void (*footprint)(const clg_plan *plan, const clg_box *box, int64_t *first,
                      int64_t *end);
    /* The launches over `box` as steps of cp's current box (`whole`: box
     * and windows cover the whole tensors; `out_len`: the output window's
     * units), with their kernels, temporary and small buffers. */
    clg_status (*launch)(const clg_plan_env *env, const clg_problem *p,
                         const clg_plan *plan, const clg_box *box, int whole,
                         int64_t out_len, clg_call_plan *cp);
} clg_routine;

/* How a GatherElements launch walks its box (src/gather_elements.c;
 * docs/design.md, "Kernels"), from the plan, the device parameters and the
 * box: the entry point it launches, one of
 *   CLG_ENTRY_ELEMENTS          (c, a, o)
 *   CLG_ENTRY_ELEMENTS_UNITS    (a, o)
 *   CLG_ENTRY_ELEMENTS_LEAN     (a, o)
 *   CLG_ENTRY_ELEMENTS_LANES    (o * ceil(n / 16) + a / 16)
 *   CLG_ENTRY_ELEMENTS_STRIPS   strip order in place
 *   CLG_ENTRY_ELEMENTS_PACKED   per pass: CLG_ENTRY_PACK_STRIPS, then it */
typedef struct clg_elements_choice {
    clg_entry entry;     /* the entry point launched */
    int64_t strip_width; /* elements per strip (strips, packed) */
    int64_t strips;      /* strips per outer row */
    int64_t chunk;       /* strips per pass (packed) */
    unsigned ahead;      /* lean: CLG_AHEAD, rows read ahead (0 or 2);
                          * lanes: rows prefetched ahead where the device
                          * compiler has clang's built-ins (2); packed:
                          * rows of indices and output prefetched ahead
                          * there (CLG_PACKED_AHEAD where pack is 2) */
} clg_elements_choice;

/* Rows of indices and output the packed gather prefetches ahead under
 * pack=2 (docs/decisions.md). */
#define CLG_PACKED_AHEAD 16u

void clg_elements_choose(const clg_problem *p, const clg_plan *plan,
                         const clg_param_values *prm, const clg_box *box,
                         int whole, uint64_t max_alloc,
                         clg_elements_choice *ch);

/* Whether the lanes body stores its vectors non-temporally: only where
 * the device compiler takes clang's built-ins (`builtins`), and then as
 * `nt` says: 1 always, 2 or 3 where the output (out_bytes) is larger than
 * the device's global memory cache (cache_bytes, 0 unknown), which it
 * would not stay in for its reader anyway (docs/decisions.md); 0 never. */
/* Whether a lean Gather body stores non-temporally, moving `span_bytes`
 * a work-item (CLG_SPAN units) into an output of out_bytes whose base is
 * aligned to out_align bytes: only with `builtins`; units (span_bytes of
 * one unit, `single`) where `nt` is 1; spans, whose store is one vector
 * and so needs the output aligned to span_bytes, where `nt` is 1, or 3
 * and the call moves more than the cache holds (the output and the rows
 * it reads: twice out_bytes > cache_bytes, 0 unknown). */
int clg_gather_nt(int builtins, unsigned nt, int single, size_t span_bytes,
                  size_t out_align, uint64_t out_bytes, uint64_t cache_bytes);

int clg_elements_lanes_nt(int builtins, unsigned nt, uint64_t out_bytes,
                          uint64_t cache_bytes);

/* Units one work-item of the lean Gather rows body moves (src/gather.c):
 * the largest power of two up to 16 that divides the row and keeps
 * span * unit within the device's `unit` bytes; 1 off the lean bodies. */
int clg_gather_span(const clg_plan *plan, const clg_param_values *prm);

/* Gather's steps (src/gather.c) over the whole tensors of `plan`, added
 * to cp's current box, reading INT32 positions that an earlier step of
 * the box wrote into its temporary: each in [0, s), or INT_MIN where fill
 * selects none. Its lean bodies read them as they are, with no
 * normalising pass of their own (GatherND's per-tuple pass,
 * src/gather_nd.c). */
clg_status clg_gather_steps_positions(const clg_plan_env *env,
                                      const clg_problem *p,
                                      const clg_plan *plan, clg_call_plan *cp);

/* Each row of CLG_OP_TABLE's routine, clg_<name>_routine, defined in its
 * file (src/<name>.c) beside its descriptor. */
#define CLG_OP_ROUTINE_DECLARE_(ID, value, name, op_type, versions,           \
                                attribute)                                    \
    extern const clg_routine clg_##name##_routine;
CLG_OP_TABLE(CLG_OP_ROUTINE_DECLARE_)
#undef CLG_OP_ROUTINE_DECLARE_

/* ---------------------------------------------------------------- operators */

/* Which indices a box of the plan reads (src/pieces.c): */
typedef enum clg_index_window {
    /* one index per plan position j, shared by every outer row: a box
     * reads the indices of its positions [j0, j1) (Gather) */
    CLG_WINDOW_POSITIONS,
    /* one index per output element, in output order: a box reads the
     * indices of its output window (GatherElements) */
    CLG_WINDOW_OUTPUT,
    /* one tuple of `components` values per plan position (o, j), in that
     * order: a box reads the tuples of its positions (GatherND) */
    CLG_WINDOW_TUPLES
} clg_index_window;

/* What caller memory a host-memory call needs to run in place
 * (src/dispatch.c): */
typedef enum clg_align_need {
    /* any address: the plan picks a unit the addresses allow (Gather) */
    CLG_ALIGN_ANY,
    /* aligned to the element (to CLG_MAX_ELEMENT_SIZE at most): the
     * kernels move whole elements (GatherElements) */
    CLG_ALIGN_ELEMENT
} clg_align_need;

/* One row per operator of CLG_OP_TABLE: everything the shared paths
 * (validation, pieces, dispatch, the reference, validation mode) ask of
 * an operator, so that none of them branches on which operator it is
 * (docs/design.md, "Adding an operator"). Each operator's file defines its
 * row, clg_<name>_desc; src/operators.c indexes them by clg_op. */
typedef struct clg_op_desc {
    /* The attribute rule: checks the call's attributes against the data
     * and sets p->axis, the first data dim an index addresses, and
     * p->axis_size (src/validate.c). */
    clg_status (*attributes)(clg_context *ctx, const clg_call *call,
                             clg_problem *p);
    /* Shape inference: the operator's shape rules and its output shape
     * (src/shape.c). */
    clg_status (*infer)(clg_context *ctx, clg_problem *p);
    /* The index rule: how many index values make one index. 1: a value,
     * the position along data dim p->axis; k > 1: a tuple whose component
     * c is the position along data dim p->axis + c, each with the range
     * of its own dim (clg_index_range), stored last in the indices. */
    size_t (*components)(const clg_problem *p);
    /* 1: an index is a tuple, even of one component, and a bad value's
     * message names its data dim (GatherND); 0: an axis position. */
    int tuples;
    /* The reference's offset rule (clg_gather_ref_index and friends). */
    int64_t (*ref_index)(const clg_problem *p, const int64_t *pos,
                         const int64_t *istride);
    int64_t (*ref_data)(const clg_problem *p, const int64_t *pos,
                        const int64_t *at, const int64_t *dstride);
    clg_index_window index_window; /* the index-window rule */
    clg_align_need in_place_align; /* the in-place alignment need */
    const clg_routine *routine;    /* plan, footprint, launch */
    clg_host_loop host;            /* a tiny host-memory call's loop */
} clg_op_desc;

/* Each row of CLG_OP_TABLE's descriptor, clg_<name>_desc. */
#define CLG_OP_DESC_DECLARE_(ID, value, name, op_type, versions, attribute)   \
    extern const clg_op_desc clg_##name##_desc;
CLG_OP_TABLE(CLG_OP_DESC_DECLARE_)
#undef CLG_OP_DESC_DECLARE_

/* The row of an operator of CLG_OP_TABLE (src/operators.c); `op` must be
 * one (clg_call_read checks a caller's). */
const clg_op_desc *clg_op_desc_of(clg_op op);

/* The index rule of the operators whose index is one value. */
size_t clg_one_component(const clg_problem *p);

/* src/dispatch.c: the device-buffer and host-memory paths shared by every
 * operator, for a call read whole (clg_call_read), each a plan compiled
 * and run (docs/design.md, "Plans"). */
clg_status clg_dispatch_enqueue(clg_context *ctx, cl_command_queue queue,
                                const clg_call *call,
                                const clg_cl_tensor *data,
                                const clg_cl_tensor *indices,
                                const clg_cl_tensor *output, cl_uint num_wait,
                                const cl_event *wait, cl_event *event);
clg_status clg_dispatch_cl(clg_context *ctx, const clg_call *call,
                           const clg_cl_tensor *data,
                           const clg_cl_tensor *indices,
                           const clg_cl_tensor *output);
clg_status clg_dispatch_host(clg_context *ctx, const clg_call *call,
                             const clg_tensor *data, const clg_tensor *indices,
                             const clg_tensor *output);
/* Warm-ups (docs/design.md, "Program cache"): the host-memory call's and
 * the device-buffer call's plans, built and compiled (every kernel the
 * call would launch built), never run. Descriptors only: data
 * pointers and buffers are not read (pointers only for their alignment);
 * output may be NULL; options as the call's (the out-of-range mode picks
 * the kernels). */
clg_status clg_dispatch_warm_up_host(clg_context *ctx, const clg_call *call,
                                     const clg_tensor *data,
                                     const clg_tensor *indices,
                                     const clg_tensor *output);
clg_status clg_dispatch_warm_up_cl(clg_context *ctx, const clg_call *call,
                                   const clg_cl_tensor *data,
                                   const clg_cl_tensor *indices,
                                   const clg_cl_tensor *output);

/* src/views.c: device tensors at the call's byte offsets (clg_call's
 * data_offset, indices_offset, output_offset), each seen by the kernels at
 * offset 0 of a buffer of its own. Index k: 0 data, 1 indices, 2 output. */
#define CLG_VIEW_COUNT 3
typedef struct clg_cl_views {
    clg_cl_tensor t[CLG_VIEW_COUNT]; /* the tensors as launched */
    cl_mem parent[CLG_VIEW_COUNT];   /* the caller's buffers */
    cl_mem made[CLG_VIEW_COUNT];     /* sub-buffers or temporaries (owned) */
    int copied[CLG_VIEW_COUNT];      /* 1: made[k] is a temporary copy */
    uint64_t offset[CLG_VIEW_COUNT];
    size_t bytes[CLG_VIEW_COUNT];
} clg_cl_views;

/* The alignment rule of the offsets: INVALID_ARGUMENT for an offset that
 * is not a multiple of its tensor's element size. */
clg_status clg_views_check_offsets(clg_context *ctx, const clg_call *call,
                                   const clg_problem *p);
/* That rule, each buffer holding its tensor at its offset (of this
 * context), and no overlap of the output's bytes with an input's in one
 * buffer. */
clg_status clg_views_check(clg_context *ctx, const clg_call *call,
                           const clg_problem *p,
                           const clg_cl_tensor *const t[CLG_VIEW_COUNT]);
/* Makes the views of call `c` (a sub-buffer, or a temporary and, for an
 * input, the copy into it, enqueued in c) into v->t; clg_views_commit
 * enqueues the copy of a temporary output back into the caller's buffer
 * after the launches; clg_views_close releases what v made (OpenCL keeps
 * a buffer until its commands are done). */
clg_status clg_views_open(clg_rt_call *c, const clg_call *call,
                          const clg_problem *p,
                          const clg_cl_tensor *const t[CLG_VIEW_COUNT],
                          clg_cl_views *v);
clg_status clg_views_commit(clg_rt_call *c, const clg_cl_views *v);
void clg_views_close(clg_cl_views *v);

/* src/finish.c: what a deferred call records for its report, and the
 * report of the first raised one. */
typedef struct clg_deferred_info {
    uint64_t sequence;
    clg_problem p;
} clg_deferred_info;

/* The record a deferred call keeps until the finish is the info packed
 * (src/finish.c): the problem without the unused tails of its shape
 * arrays, about 130 bytes for small ranks instead of about 800, since a
 * context may hold 262,144 of them. clg_info_pack writes at most
 * sizeof(clg_deferred_info) bytes to `buf` and returns how many;
 * clg_info_unpack restores the info. */
size_t clg_info_pack(const clg_deferred_info *info, void *buf);
void clg_info_unpack(const void *buf, clg_deferred_info *info);

/* src/mismatch.c: validation mode. clg_validate_reserve allocates the
 * reference's output (*ref, NULL when validation is off or the output
 * empty; `mode`: clg_rt_validation, read once by the call) before the
 * device may write the caller's output, so that a failed allocation
 * leaves it untouched; clg_validate_result runs the
 * reference over the same host tensors into *ref and compares it with the
 * device's output: DEVICE_MISMATCH naming the first differing position
 * and both values. The caller frees ref. */
clg_status clg_validate_reserve(clg_context *ctx, unsigned mode,
                                const clg_problem *p, void **ref);
clg_status clg_validate_result(clg_context *ctx, const clg_call *call,
                               const clg_problem *p, const clg_tensor *data,
                               const clg_tensor *indices,
                               const clg_tensor *output, void *ref);

/* ---------------------------------------------------------------- pieces */

/* How the output is cut so that every buffer fits one allocation
 * (src/pieces.c; docs/design.md, "Large tensors"):
 *   ROWS:    [o0, o1) x all j x all c   (several outer rows)
 *   INDICES: one o x [j0, j1) x all c   (a run of index positions)
 *   COLUMNS: one o x one j x [c0, c1)   (part of one inner block)
 * Each piece is contiguous in the output (and, for GatherElements, in the
 * indices). The data a piece reads is cut into windows of at most `units`
 * units; a launch per window writes the elements whose source lies in it. */
typedef enum clg_piece_kind {
    CLG_PIECE_ROWS,
    CLG_PIECE_INDICES,
    CLG_PIECE_COLUMNS
} clg_piece_kind;

typedef struct clg_pieces {
    clg_piece_kind kind;
    int64_t per;   /* rows, index positions or units per piece */
    int64_t count; /* number of pieces */
    int64_t units; /* units per data window and output piece */
} clg_pieces;

void clg_pieces_cut(const clg_problem *p, const clg_plan *plan,
                    uint64_t max_bytes, clg_pieces *pc);

/* The box of piece k, its output and index windows (w->out_*, w->index_*)
 * and the data footprint [*first, *end) it reads. */
void clg_piece_at(const clg_routine *r, const clg_problem *p,
                  const clg_plan *plan, const clg_pieces *pc, int64_t k,
                  clg_box *box, clg_windows *w, int64_t *first, int64_t *end);

#endif
