/* SPDX-License-Identifier: Apache-2.0 */
/* Shared definitions for the clgather kernels (OpenCL C 1.2).
 *
 * Kernel variants (docs/design.md, "Kernel variants"). Every build option
 * is listed here once, with its legal values and the files that take it;
 * src/variant.h holds the same table for the host (tests/unit/test_variant.c
 * checks that the two list the same options). Values outside the legal
 * ones, and options given to a file that does not take them, stop the
 * build with #error.
 *
 *   -DCLG_INDEX_BYTES=4|8   index element: 4 int (ONNX INT32), 8 long
 *                           (INT64). All files.
 *   -DCLG_OOB=0|1|2|3       out-of-range mode (CLG_OOB_TABLE of the
 *                           public header): 0 raise, 1 wrap, 2 clip,
 *                           3 fill. All files. Under 0 every body is the
 *                           raise body, unchanged; under 1 and 2 no body
 *                           checks or raises; under 3 an out-of-range
 *                           value writes zero bytes.
 *   -DCLG_UNIT=1|2|4|8|16   bytes one work-item moves. gather.cl,
 *                           gather_elements.cl, gather_nd.cl.
 *   -DCLG_WIDE=0|1          1: 64-bit offsets; 0: 32-bit, chosen only when
 *                           every offset of the launch is below 2^31.
 *                           gather.cl, gather_elements.cl, gather_nd.cl.
 *   -DCLG_WINDOWS=0|1       1: each buffer holds a window of a split tensor
 *                           and every access is checked against it; 0:
 *                           whole tensors. gather.cl, gather_elements.cl,
 *                           gather_nd.cl.
 *   -DCLG_OUTER_DIMS=0|1|2  GatherElements offsets of the dimensions
 *   -DCLG_INNER_DIMS=0|1|2  before / after the axis: 0 none, 1 one stride,
 *                           2 a list of (extent, stride) pairs (indices
 *                           smaller than data off the axis, not
 *                           coalescible). gather_elements.cl.
 *
 *   -DCLG_SPAN=1|2|4|8|16   units one work-item of the lean Gather rows
 *                           body or the units spans body moves (vstoren),
 *                           at most 64 bytes, scalar units only. gather.cl.
 *   -DCLG_PREFETCH=0|1      1: the lean bodies prefetch the source of the
 *                           work a given distance ahead with
 *                           __builtin_prefetch (the GatherElements lanes
 *                           body: the data row two rows ahead; the packed
 *                           body: its indices and output rows ahead).
 *                           gather.cl, gather_elements.cl (gather_nd.cl:
 *                           0).
 *   -DCLG_NT=0|1            1: the lean bodies store the output with
 *                           __builtin_nontemporal_store. gather.cl,
 *                           gather_elements.cl (gather_nd.cl: 0).
 *                           CLG_PREFETCH and CLG_NT are clang built-ins:
 *                           set only for device compilers that are clang
 *                           (POCL), from the device parameter table.
 *   -DCLG_TUPLE=0|1|2|3     GatherND's per-tuple pass: 1 to 3 the
 *                           components of a tuple, whose dims and strides
 *                           it takes as scalars; 0 reads them from the
 *                           tuple list (the other GatherND bodies: 0).
 *                           gather_nd.cl.
 *   -DCLG_AHEAD=0|2         2: the lean GatherElements body also reads
 *                           data row o + 2 in order, so that the row is in
 *                           cache when its own work-items gather from it;
 *                           set only when rows are contiguous, indices no
 *                           longer than the axis and the axis at most
 *                           INT_MAX long. gather_elements.cl.
 *
 * Which entry point runs is not an option: each file has one __kernel per
 * NDRange shape and body (see the file), defined for every legal option
 * set. The entry table in src/variant.h gives each one's NDRange, its
 * argument list and the option values a plan needs to use it (whole
 * tensors for the lean, trusted and packed bodies, for instance); the
 * host refuses a variant that breaks them before anything is built.
 *
 * Every work-item checks its own index against [-s, s-1]. A bad one raises
 * *err, which the host reads back, and never moves an access outside its
 * buffers; what it writes is unspecified (the general bodies write
 * nothing, the lean CPU bodies write row 0 to keep their stores
 * unconditional). */

#if !defined(CLG_INDEX_BYTES) || (CLG_INDEX_BYTES != 4 && CLG_INDEX_BYTES != 8)
#error "CLG_INDEX_BYTES must be 4 or 8"
#endif
#if CLG_INDEX_BYTES == 4
typedef int clg_index;
#else
typedef long clg_index;
#endif

#if !defined(CLG_OOB) || CLG_OOB < 0 || CLG_OOB > 3
#error "CLG_OOB must be 0 (raise), 1 (wrap), 2 (clip) or 3 (fill)"
#endif
#ifdef CLG_UNIT
#if CLG_UNIT == 1
#define CLG_UNIT_SCALAR uchar
typedef uchar clg_unit;
#elif CLG_UNIT == 2
#define CLG_UNIT_SCALAR ushort
typedef ushort clg_unit;
#elif CLG_UNIT == 4
#define CLG_UNIT_SCALAR uint
typedef uint clg_unit;
#elif CLG_UNIT == 8
#define CLG_UNIT_SCALAR ulong
typedef ulong clg_unit;
#elif CLG_UNIT == 16
typedef uint4 clg_unit;
#else
#error "CLG_UNIT must be 1, 2, 4, 8 or 16"
#endif
#endif

/* CLG_CAT(uint, 16): uint16, after expanding both. */
#define CLG_CAT_(a, b) a##b
#define CLG_CAT(a, b) CLG_CAT_(a, b)

#ifdef CLG_WIDE
#if CLG_WIDE == 1
typedef ulong clg_off;
#elif CLG_WIDE == 0
typedef uint clg_off;
#else
#error "CLG_WIDE must be 0 or 1"
#endif
#endif

#if defined(CLG_WINDOWS) && CLG_WINDOWS != 0 && CLG_WINDOWS != 1
#error "CLG_WINDOWS must be 0 or 1"
#endif

#if defined(CLG_PREFETCH) && CLG_PREFETCH != 0 && CLG_PREFETCH != 1
#error "CLG_PREFETCH must be 0 or 1"
#endif
#if defined(CLG_NT) && CLG_NT != 0 && CLG_NT != 1
#error "CLG_NT must be 0 or 1"
#endif
#if ((defined(CLG_PREFETCH) && CLG_PREFETCH) || (defined(CLG_NT) && CLG_NT)) && \
    !defined(__clang__)
#error "CLG_PREFETCH and CLG_NT need a clang device compiler"
#endif

/* clg_prefetch(p): a hint to fetch the line at p; clg_store(p, v): *p = v,
 * bypassing the caches with CLG_NT. Portable code without the options. */
#if defined(CLG_PREFETCH) && CLG_PREFETCH
#define clg_prefetch(p) __builtin_prefetch(p)
#else
#define clg_prefetch(p) ((void)0)
#endif
#if defined(CLG_NT) && CLG_NT
#define clg_store(p, v) __builtin_nontemporal_store((v), (p))
#else
#define clg_store(p, v) (*(p) = (v))
#endif

/* The fields every operator kernel's shape struct starts with (src/variant.h,
 * CLG_SHAPE_BASE_), as locals of their names: each file's UNPACK macro
 * begins with it and adds the file's own fields. */
#define CLG_SHAPE_BASE_UNPACK                                                \
    const ulong n = shape.n, axis_size = shape.axis_size,                    \
                inner = shape.inner, data_base = shape.data_base,            \
                data_len = shape.data_len, index_base = shape.index_base,    \
                index_len = shape.index_len, out_base = shape.out_base,      \
                out_len = shape.out_len

/* norm(v) = v < 0 ? v + s : v; returns s (an invalid position) when v is
 * outside [-s, s-1]. The sign is tested in the index's own width, before
 * any widening, and the range as unsigned: Mesa's Rusticl 22.3 compiles a
 * compare with zero of an int sign-extended to long as false for every
 * negative value, so no kernel compares a widened index with anything
 * (tests/device/test_oob.c checks every mode with negative INT32
 * indices). The sum is unsigned, so INT64_MIN cannot wrap: a value below
 * -s gives a sum above 2^63, not below s. */
inline ulong clg_normalize(clg_index v, ulong s)
{
#ifdef CLG_TEST_MISCOMPILE
    /* Test-only (CLGATHER_TEST_MISCOMPILE=1, host/env.c): -1 selects none,
     * a wrong answer that the known-answer self-test must catch. */
    if (v == -1)
        return s;
#endif
    ulong n = (ulong)(long)v + (v < 0 ? s : (ulong)0);
    return n < s ? n : s;
}

/* The position in [0, s) that index value v selects under CLG_OOB
 * (docs/design.md, "Out-of-range modes"); s when it selects none (raise,
 * fill: v outside [-s, s-1]). Wrap and clip need s > 0, which the host
 * guarantees (an empty axis is refused before any launch). 64-bit, so
 * INT64_MIN and INT64_MAX cannot overflow; signs as in clg_normalize. */
inline ulong clg_position(clg_index v, ulong s)
{
#if defined(CLG_TEST_MISCOMPILE) && (CLG_OOB == 1 || CLG_OOB == 2)
    if (v == -1) /* test-only, as in clg_normalize: position 0 */
        return 0;
#endif
#if CLG_OOB == 1
    long r = (long)v % (long)s; /* truncates toward zero: r in (-s, s) */
    /* r < 0 exactly where v < 0 and r != 0. */
    return (ulong)r + (v < 0 && r != 0 ? s : (ulong)0);
#elif CLG_OOB == 2
    /* v clamped to [-s, s-1], then normalised: below -s is position 0,
     * above s - 1 is s - 1. */
    ulong n = clg_normalize(v, s);
    return n < s ? n : v < 0 ? (ulong)0 : s - 1;
#else
    return clg_normalize(v, s);
#endif
}
