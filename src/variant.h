/* SPDX-License-Identifier: Apache-2.0 */
/* Kernel variants (docs/design.md, "Kernel variants"): the one table of
 * build options and the one table of kernel entry points.
 * kernels/common.cl lists the same options for the kernels and stops a
 * build with #error on values or files that cannot occur;
 * tests/unit/test_variant.c checks that the option lists agree and that
 * every entry point's row matches its __kernel.
 *
 * Adding an option touches two places: a row here and its use in the
 * kernel file (plus the line in common.cl's list, which the test checks).
 * The routine that needs it sets its value. Adding an entry point touches
 * three: its __kernel, its row in CLG_ENTRIES and the routine's choice. */
#ifndef CLG_VARIANT_H
#define CLG_VARIANT_H

#include "runtime.h"

#include <stddef.h>
#include <stdint.h>

/* The kernel files (kernels/). Each program is common.cl + one of them. */
typedef enum clg_kernel_file {
    CLG_FILE_CHECK = 0,           /* check.cl */
    CLG_FILE_GATHER = 1,          /* gather.cl */
    CLG_FILE_GATHER_ELEMENTS = 2, /* gather_elements.cl */
    CLG_FILE_GATHER_ND = 3,       /* gather_nd.cl */
    CLG_FILE_COUNT = 4
} clg_kernel_file;

#define CLG_FILES_ALL 15u     /* every file */
#define CLG_FILES_OPS 14u     /* gather.cl, gather_elements.cl, gather_nd.cl */
#define CLG_FILES_ELEMENTS 4u /* gather_elements.cl */
#define CLG_FILES_GATHER 2u   /* gather.cl */
#define CLG_FILES_ND 8u       /* gather_nd.cl */

/* The units a kernel moves: the sizes of CLG_DTYPE_TABLE, as a legal mask
 * (kernels/common.cl has a unit type for each). */
#define CLG_UNIT_SIZE_BIT_(name, number, size, kind) | (1ull << (size))
#define CLG_UNIT_SIZES (0ull CLG_DTYPE_TABLE(CLG_UNIT_SIZE_BIT_))

/* X(name, files, legal, meaning): `files` a mask of (1 << clg_kernel_file)
 * that take the option, `legal` a mask of (1 << value) of its legal
 * values. An option a file does not take is not passed to it. */
#define CLG_VARIANT_OPTIONS(X)                                                \
    X(INDEX_BYTES, CLG_FILES_ALL, 0x110u,                                     \
      "index element: 4 int (ONNX INT32), 8 long (INT64)")                    \
    X(OOB, CLG_FILES_ALL, 0xfu,                                               \
      "out-of-range mode: 0 raise, 1 wrap, 2 clip, 3 fill (CLG_OOB_TABLE)")   \
    X(UNIT, CLG_FILES_OPS, CLG_UNIT_SIZES,                                    \
      "bytes one work-item moves: a dtype size")                              \
    X(WIDE, CLG_FILES_OPS, 0x3u,                                              \
      "1: 64-bit offsets; 0: 32-bit, only when every offset < 2^31")          \
    X(WINDOWS, CLG_FILES_OPS, 0x3u,                                           \
      "1: buffers hold windows of split tensors, accesses checked")           \
    X(OUTER_DIMS, CLG_FILES_ELEMENTS, 0x7u,                                   \
      "GatherElements offsets before the axis: 0 none, 1 stride, 2 list")     \
    X(INNER_DIMS, CLG_FILES_ELEMENTS, 0x7u,                                   \
      "GatherElements offsets after the axis: 0 none, 1 stride, 2 list")      \
    X(SPAN, CLG_FILES_GATHER, 0x10116u,                                       \
      "Gather lean rows: units one work-item moves (at most 64 bytes)")       \
    X(PREFETCH, CLG_FILES_OPS, 0x3u,                                          \
      "1: __builtin_prefetch ahead (clang device compilers: POCL)")           \
    X(NT, CLG_FILES_OPS, 0x3u,                                                \
      "1: __builtin_nontemporal_store of the output (clang: POCL)")           \
    X(AHEAD, CLG_FILES_ELEMENTS, 0x5u,                                        \
      "GatherElements lean body: 2 reads data row o + 2 in order; 0 not")     \
    X(TUPLE, CLG_FILES_ND, 0xfu,                                              \
      "GatherND per-tuple pass: 1 to 3 components as scalars; 0 a list")

/* CLG_TUPLE's largest value: the components GatherND's per-tuple pass
 * takes as scalars (DIM0, DIM1, DIM2). */
#define CLG_ND_SCALAR_COMPONENTS 3

typedef enum clg_option {
#define CLG_OPTION_ENUM_(name, files, legal, meaning) CLG_OPT_##name,
    CLG_VARIANT_OPTIONS(CLG_OPTION_ENUM_)
#undef CLG_OPTION_ENUM_
        CLG_OPT_COUNT
} clg_option;

/* One row of the table, for code that walks it. */
typedef struct clg_option_info {
    const char *name; /* without the CLG_ prefix */
    unsigned files;
    uint64_t legal;
    const char *meaning;
} clg_option_info;

extern const clg_option_info clg_options[CLG_OPT_COUNT];

/* ------------------------------------------------------------ arguments */

/* Every kernel argument, by the name its kernel parameter has
 * (lower-cased): the one list the entry table's argument lists draw from.
 * SHAPE is the by-value struct of an operator file's scalars (below);
 * the scalars it holds keep their names, by which routines set them. */
#define CLG_KERNEL_ARGS(X)                                                    \
    X(DATA)                                                                   \
    X(INDICES)                                                                \
    X(OUT)                                                                    \
    X(ERR)                                                                    \
    X(SHAPE)                                                                  \
    X(N)                                                                      \
    X(AXIS_SIZE)                                                              \
    X(INNER)                                                                  \
    X(DATA_BASE)                                                              \
    X(DATA_LEN)                                                               \
    X(INDEX_BASE)                                                             \
    X(INDEX_LEN)                                                              \
    X(OUT_BASE)                                                               \
    X(OUT_LEN)                                                                \
    X(AXIS_STRIDE)                                                            \
    X(OUTER_STRIDE)                                                           \
    X(INNER_STRIDE)                                                           \
    X(OUTER_GEOM)                                                             \
    X(INNER_GEOM)                                                             \
    X(STRIP_WIDTH)                                                            \
    X(STRIPS)                                                                 \
    X(PREFETCH)                                                               \
    X(Z0)                                                                     \
    X(PACK)                                                                   \
    X(COUNT)                                                                  \
    X(NORMED)                                                                 \
    X(BATCH_STRIDE)                                                           \
    X(TUPLE_GEOM)                                                             \
    X(DIM0)                                                                   \
    X(DIM1)                                                                   \
    X(DIM2)

typedef enum clg_arg {
#define CLG_ARG_ENUM_(name) CLG_ARG_##name,
    CLG_KERNEL_ARGS(CLG_ARG_ENUM_)
#undef CLG_ARG_ENUM_
        CLG_ARG_END /* ends an argument list; the number of arguments */
} clg_arg;

/* Each argument's name, e.g. "AXIS_SIZE" (its parameter, upper-cased). */
extern const char *const clg_arg_names[CLG_ARG_END];

/* The shape structs (docs/design.md, "Cost per call"): the scalars of an
 * operator file's kernels, passed as one by-value argument `shape`
 * (CLG_ARG_SHAPE), so that a launch sets one argument where it set ten.
 * X(arg, field): the argument CLG_ARG_<arg> is field `field` (its name,
 * lower-cased), in field order. kernels/<file> defines the same typedef
 * with ulong fields (tests/unit/test_variant.c checks the names and their
 * order) and unpacks it into locals of the fields' names at the top of
 * each __kernel, so that the inline bodies take the scalars as before. */
#define CLG_SHAPE_BASE_(X)                                                    \
    X(N, n)                                                                   \
    X(AXIS_SIZE, axis_size)                                                   \
    X(INNER, inner)                                                           \
    X(DATA_BASE, data_base)                                                   \
    X(DATA_LEN, data_len)                                                     \
    X(INDEX_BASE, index_base)                                                 \
    X(INDEX_LEN, index_len)                                                   \
    X(OUT_BASE, out_base)                                                     \
    X(OUT_LEN, out_len)
#define CLG_GATHER_SHAPE(X) CLG_SHAPE_BASE_(X) X(PREFETCH, prefetch)
#define CLG_ELEMENTS_SHAPE(X)                                                 \
    CLG_SHAPE_BASE_(X)                                                        \
    X(AXIS_STRIDE, axis_stride)                                               \
    X(OUTER_STRIDE, outer_stride)                                             \
    X(INNER_STRIDE, inner_stride)                                             \
    X(STRIP_WIDTH, strip_width)                                               \
    X(STRIPS, strips)                                                         \
    X(PREFETCH, prefetch)                                                     \
    X(Z0, z0)
#define CLG_ND_SHAPE(X) CLG_SHAPE_BASE_(X) X(BATCH_STRIDE, batch_stride)

/* The host's typedefs of the same layout: only cl_ulong fields, so no
 * padding on either side (OpenCL C 1.2 section 6.1.1: a ulong is 8 bytes,
 * aligned to 8). The runtime passes a shape as an array of its fields'
 * values (CLG_RT_REF_FIELDS), which the assertions below make the same
 * bytes. */
#define CLG_SHAPE_FIELD_(arg, field) cl_ulong field;
#define CLG_SHAPE_COUNT_(arg, field) +1
#define CLG_SHAPE_TYPES(X)                                                    \
    X(clg_gather_shape, CLG_GATHER_SHAPE)                                     \
    X(clg_elements_shape, CLG_ELEMENTS_SHAPE)                                 \
    X(clg_nd_shape, CLG_ND_SHAPE)
#define CLG_SHAPE_TYPEDEF_(type, fields)                                      \
    typedef struct type {                                                     \
        fields(CLG_SHAPE_FIELD_)                                              \
    } type;                                                                   \
    _Static_assert(sizeof(type) == (0 fields(CLG_SHAPE_COUNT_)) * 8 &&        \
                       _Alignof(type) == 8,                                   \
                   #type " is not OpenCL C's struct of ulongs");              \
    _Static_assert((0 fields(CLG_SHAPE_COUNT_)) <= CLG_RT_PLAN_FIELDS,        \
                   #type " has more fields than a plan's kernel holds");
CLG_SHAPE_TYPES(CLG_SHAPE_TYPEDEF_)
#undef CLG_SHAPE_TYPEDEF_

/* The fields of each file's shape, in order, ending with CLG_ARG_END;
 * NULL for a file whose kernels take none (check.cl). */
extern const clg_arg *const clg_shape_fields[CLG_FILE_COUNT];

/* The argument lists of the entry points, in parameter order. */
#define CLG_ARGS_OPERATOR_                                                    \
    CLG_ARG_DATA, CLG_ARG_INDICES, CLG_ARG_OUT, CLG_ARG_ERR
#define CLG_ARGS_GATHER CLG_ARGS_OPERATOR_, CLG_ARG_SHAPE
#define CLG_ARGS_ELEMENTS                                                     \
    CLG_ARGS_OPERATOR_, CLG_ARG_OUTER_GEOM, CLG_ARG_INNER_GEOM, CLG_ARG_SHAPE
#define CLG_ARGS_PACK CLG_ARG_DATA, CLG_ARG_PACK, CLG_ARG_SHAPE
#define CLG_ARGS_ND CLG_ARGS_OPERATOR_, CLG_ARG_TUPLE_GEOM, CLG_ARG_SHAPE
#define CLG_ARGS_ND_POSITIONS                                                 \
    CLG_ARG_INDICES, CLG_ARG_ERR, CLG_ARG_NORMED, CLG_ARG_COUNT, CLG_ARG_N,   \
        CLG_ARG_AXIS_STRIDE, CLG_ARG_TUPLE_GEOM, CLG_ARG_DIM0, CLG_ARG_DIM1,  \
        CLG_ARG_DIM2
#define CLG_ARGS_CHECK                                                        \
    CLG_ARG_INDICES, CLG_ARG_ERR, CLG_ARG_COUNT, CLG_ARG_AXIS_SIZE
#define CLG_ARGS_NORMALIZE                                                    \
    CLG_ARG_INDICES, CLG_ARG_ERR, CLG_ARG_NORMED, CLG_ARG_COUNT,              \
        CLG_ARG_AXIS_SIZE

/* One launch's argument values, by argument: each {size, pointer to the
 * value}, set by the routine for the arguments its entry point takes. */
typedef struct clg_args {
    clg_rt_arg at[CLG_ARG_END];
} clg_args;

/* ----------------------------------------------------------- conditions */

/* The conditions an entry point sets on the options' values, beyond the
 * option table's legal ones: X(name, option, set, clear, rule). An entry
 * with CLG_COND_<name> in its conditions takes the values of mask `set`, one
 * without it those of mask `clear` (masks of 1 << value). Conditions on an
 * option its file does not take are not checked. */
#define CLG_ENTRY_CONDITIONS(X)                                               \
    X(WHOLE, WINDOWS, 0x1u, ~0ull,                                            \
      "the entry point takes whole tensors only (CLG_WINDOWS=0)")             \
    X(OUTER_STRIDE, OUTER_DIMS, 0x3u, ~0ull,                                  \
      "the entry point takes at most one outer stride (CLG_OUTER_DIMS<=1)")   \
    X(NO_INNER, INNER_DIMS, 0x1u, ~0ull,                                      \
      "the entry point takes no inner dims (CLG_INNER_DIMS=0)")               \
    X(INNER_STRIDE, INNER_DIMS, 0x2u, ~0ull,                                  \
      "the entry point takes one inner stride (CLG_INNER_DIMS=1)")            \
    X(RAISES, OOB, 0x1u, ~0ull,                                               \
      "the check kernel only serves raise (CLG_OOB=0)")                       \
    X(FILLS, OOB, 0x8u, ~0ull,                                                \
      "the entry point only serves fill (CLG_OOB=3)")                         \
    X(INT_POSITIONS, INDEX_BYTES, 0x10u, ~0ull,                               \
      "the entry point reads int positions (CLG_INDEX_BYTES=4)")              \
    X(SPANS, SPAN, ~0ull, 0x2u,                                               \
      "only the lean Gather rows and units spans bodies move spans "          \
      "(CLG_SPAN>1)")                                                         \
    X(PREFETCHES, PREFETCH, ~0ull, 0x1u,                                      \
      "only the lean, lanes and packed bodies prefetch (CLG_PREFETCH=1; "     \
      "Gather's rows body is a lean one; the pack kernel shares the packed "  \
      "body's program)")                                                      \
    X(NT_STORES, NT, ~0ull, 0x1u,                                             \
      "only the lean, lanes, trusted and packed bodies store "                \
      "non-temporally (CLG_NT=1)")                                            \
    X(READS_AHEAD, AHEAD, ~0ull, 0x1u,                                        \
      "only the lean GatherElements body reads rows ahead (CLG_AHEAD=2)")     \
    X(SCALAR_UNITS, UNIT, 0x116u, ~0ull,                                      \
      "the entry point moves elements of at most 8 bytes (CLG_UNIT<=8)")      \
    X(TUPLES, TUPLE, ~0ull, 0x1u,                                             \
      "only GatherND's per-tuple pass takes a tuple's components as "         \
      "scalars (CLG_TUPLE>0)")

enum {
#define CLG_CONDITION_BIT_(name, option, set, clear, rule) CLG_BIT_##name,
    CLG_ENTRY_CONDITIONS(CLG_CONDITION_BIT_)
#undef CLG_CONDITION_BIT_
        CLG_CONDITION_COUNT
};
#define CLG_CONDITION_FLAG_(name, option, set, clear, rule)                   \
    CLG_COND_##name = 1u << CLG_BIT_##name,
enum { CLG_ENTRY_CONDITIONS(CLG_CONDITION_FLAG_) };
#undef CLG_CONDITION_FLAG_

/* ---------------------------------------------------------- entry points */

/* The one table of kernel entry points: X(id, file, name, dims, args,
 * conditions): CLG_ENTRY_<id> is `__kernel void name` of kernels/<file>
 * (CLG_FILE_<file>), launched over an NDRange of `dims` dimensions with
 * the arguments `args` (a CLG_ARGS_ list, in parameter order), and usable
 * by a plan whose variant meets `conditions` (CLG_COND_ flags above). The
 * kernel files define every entry point for every legal option set;
 * tests/unit/test_variant.c checks that each row's entry point is in its
 * file with that argument list, and that no file has one without a row.
 * Which entry a launch uses is its routine's choice (docs/design.md,
 * "Kernel variants"). */
#define CLG_ENTRIES(X)                                                        \
    X(CHECK_INDICES, CHECK, clg_check_indices, 1, CLG_ARGS_CHECK,             \
      CLG_COND_RAISES)                                                        \
    X(CHECK_INDICES_VECTORS, CHECK, clg_check_indices_vectors, 1,             \
      CLG_ARGS_CHECK, CLG_COND_RAISES)                                        \
    X(NORMALIZE_INDICES, CHECK, clg_normalize_indices, 1, CLG_ARGS_NORMALIZE, \
      0)                                                                      \
    X(GATHER, GATHER, clg_gather, 3, CLG_ARGS_GATHER, 0)                      \
    X(GATHER_UNITS, GATHER, clg_gather_units, 2, CLG_ARGS_GATHER, 0)          \
    X(GATHER_LEAN, GATHER, clg_gather_lean, 3, CLG_ARGS_GATHER,               \
      CLG_COND_WHOLE | CLG_COND_SPANS | CLG_COND_PREFETCHES |                 \
          CLG_COND_NT_STORES)                                                 \
    X(GATHER_UNITS_LEAN, GATHER, clg_gather_units_lean, 2, CLG_ARGS_GATHER,   \
      CLG_COND_WHOLE | CLG_COND_PREFETCHES | CLG_COND_NT_STORES)              \
    X(GATHER_LEAN_NORMED, GATHER, clg_gather_lean_normed, 3, CLG_ARGS_GATHER, \
      CLG_COND_WHOLE | CLG_COND_INT_POSITIONS | CLG_COND_SPANS |              \
          CLG_COND_NT_STORES)                                                 \
    X(GATHER_UNITS_NORMED, GATHER, clg_gather_units_normed, 2,                \
      CLG_ARGS_GATHER,                                                        \
      CLG_COND_WHOLE | CLG_COND_INT_POSITIONS | CLG_COND_NT_STORES)           \
    X(GATHER_FILL_ROWS, GATHER, clg_gather_fill_rows, 3, CLG_ARGS_GATHER,     \
      CLG_COND_WHOLE | CLG_COND_INT_POSITIONS | CLG_COND_FILLS)               \
    X(GATHER_ROWS, GATHER, clg_gather_rows, 2, CLG_ARGS_GATHER,               \
      CLG_COND_WHOLE | CLG_COND_SPANS | CLG_COND_PREFETCHES |                 \
          CLG_COND_NT_STORES)                                                 \
    X(GATHER_UNITS_SPANS, GATHER, clg_gather_units_spans, 2, CLG_ARGS_GATHER, \
      CLG_COND_WHOLE | CLG_COND_INT_POSITIONS | CLG_COND_SPANS |              \
          CLG_COND_PREFETCHES | CLG_COND_NT_STORES)                           \
    X(ELEMENTS, GATHER_ELEMENTS, clg_gather_elements, 3, CLG_ARGS_ELEMENTS,   \
      0)                                                                      \
    X(ELEMENTS_UNITS, GATHER_ELEMENTS, clg_gather_elements_units, 2,          \
      CLG_ARGS_ELEMENTS, 0)                                                   \
    X(ELEMENTS_STRIPS, GATHER_ELEMENTS, clg_gather_elements_strips, 3,        \
      CLG_ARGS_ELEMENTS, 0)                                                   \
    X(ELEMENTS_LEAN, GATHER_ELEMENTS, clg_gather_elements_lean, 2,            \
      CLG_ARGS_ELEMENTS,                                                      \
      CLG_COND_WHOLE | CLG_COND_OUTER_STRIDE | CLG_COND_NO_INNER |            \
          CLG_COND_PREFETCHES | CLG_COND_NT_STORES | CLG_COND_READS_AHEAD)    \
    X(ELEMENTS_LANES, GATHER_ELEMENTS, clg_gather_elements_lanes, 1,          \
      CLG_ARGS_ELEMENTS,                                                      \
      CLG_COND_WHOLE | CLG_COND_OUTER_STRIDE | CLG_COND_NO_INNER |            \
          CLG_COND_PREFETCHES | CLG_COND_SCALAR_UNITS | CLG_COND_NT_STORES)   \
    X(PACK_STRIPS, GATHER_ELEMENTS, clg_pack_strips, 3, CLG_ARGS_PACK,        \
      CLG_COND_WHOLE | CLG_COND_OUTER_STRIDE | CLG_COND_INNER_STRIDE |        \
          CLG_COND_PREFETCHES | CLG_COND_NT_STORES)                           \
    X(ELEMENTS_PACKED, GATHER_ELEMENTS, clg_gather_elements_packed, 3,        \
      CLG_ARGS_ELEMENTS,                                                      \
      CLG_COND_WHOLE | CLG_COND_OUTER_STRIDE | CLG_COND_INNER_STRIDE |        \
          CLG_COND_PREFETCHES | CLG_COND_NT_STORES)                           \
    X(GATHER_ND, GATHER_ND, clg_gather_nd, 3, CLG_ARGS_ND, 0)                 \
    X(GATHER_ND_POSITIONS, GATHER_ND, clg_gather_nd_positions, 2,             \
      CLG_ARGS_ND_POSITIONS, CLG_COND_WHOLE | CLG_COND_TUPLES)

typedef enum clg_entry {
#define CLG_ENTRY_ENUM_(id, file, name, dims, args, conditions) CLG_ENTRY_##id,
    CLG_ENTRIES(CLG_ENTRY_ENUM_)
#undef CLG_ENTRY_ENUM_
        CLG_ENTRY_COUNT
} clg_entry;

/* One row of the entry table. */
typedef struct clg_entry_info {
    clg_kernel_file file;
    const char *name;
    unsigned dims;
    const clg_arg *args; /* ends with CLG_ARG_END */
    unsigned conditions; /* CLG_COND_ flags */
} clg_entry_info;

extern const clg_entry_info clg_entries[CLG_ENTRY_COUNT];

/* The fields of `entry`'s shape (clg_shape_fields of its file) when its
 * argument list takes CLG_ARG_SHAPE, else NULL. */
const clg_arg *clg_entry_shape(clg_entry entry);

/* Fills `out` with the values of `a` in the order of `entry`'s argument
 * list; *n gets their number. Its shape (CLG_ARG_SHAPE) is packed from the
 * values of its fields into `shape` (CLG_RT_PLAN_FIELDS cl_ulongs), which
 * out's shape argument points at. 0 (out untouched past the first unset
 * argument) when an argument or field of the list was not set or the list
 * is longer than `cap`. */
int clg_entry_args(clg_entry entry, const clg_args *a, clg_rt_arg *out,
                   size_t cap, size_t *n, cl_ulong *shape);

/* Launches `kernel` of `entry` with the arguments of `a` in its list's
 * order (clg_rt_launch); BUILD_FAILED, naming the entry point, when an
 * argument of its list was not set. */
clg_status clg_entry_launch(clg_rt_call *c, clg_entry entry, cl_kernel kernel,
                            const clg_args *a, const clg_geometry *g);

/* A kernel variant: an entry point and a value per option (those its file
 * does not take must be 0). Compared as a whole value. */
typedef struct clg_variant {
    clg_entry entry;
    unsigned value[CLG_OPT_COUNT];
} clg_variant;

/* The embedded file name of `file`, e.g. "gather.cl". */
const char *clg_kernel_file_name(clg_kernel_file file);

/* NULL when `v` is a combination the kernels accept (the option table's
 * legal values and its entry's conditions), else a static sentence saying
 * which rule it breaks. */
const char *clg_variant_check(const clg_variant *v);

/* 1 when a variant with entry point `entry` and the option values of `v`
 * meets every rule of clg_variant_check: how a routine asks the table
 * whether a plan may use an entry point. */
int clg_entry_fits(clg_entry entry, const clg_variant *v);

/* Writes the build options of `v` ("-cl-std=CL1.2 -w -DCLG_...") to buf;
 * returns 0 when they do not fit. */
int clg_variant_options(const clg_variant *v, char *buf, size_t cap);

/* The kernel of `v` (built and cached on first use; owned by the context).
 * A variant that breaks a rule of clg_variant_check is refused with
 * BUILD_FAILED before anything is built. The kernel answers only once the
 * known-answer self-test of its entry point in its program passed
 * (clg_variant_verify): DEVICE_MISCOMPILED, from then on, for one that
 * failed it. */
clg_status clg_variant_kernel(clg_context *ctx, const clg_variant *v,
                              cl_kernel *out);

/* The known-answer self-test of entry point v->entry of the program of `v`
 * (kernel files `files`, common.cl first, built with `options`) on the
 * context's device (src/selftest.c; docs/guide.md, "Known-answer
 * self-test"): runs its cases when it has no verdict yet (one thread at a
 * time; the others wait for it), else answers the kept one. The pack and
 * fill kernels are tested within the cases of the body they serve, which
 * then passes or fails with them. OK: it passed (the program's binary is
 * then stored in the disk cache, naming it among those that passed);
 * DEVICE_MISCOMPILED naming the entry point, the case and the device; or
 * the failure (OPENCL_ERROR, OUT_OF_MEMORY) that kept the test from
 * running, which leaves it for the next request. The program's other
 * entry points keep their own verdicts. */
clg_status clg_variant_verify(clg_context *ctx, const clg_variant *v,
                              const char *const *files, const char *options);

#endif
