/* Kernel variants: the one table of build options (docs/design.md,
 * "Kernel variants"). kernels/common.cl lists the same options for the
 * kernels and stops a build with #error on values or files that cannot
 * occur; tests/unit/test_variant.c checks that the two tables agree.
 *
 * Adding an option touches two places: a row here and its use in the
 * kernel file (plus the line in common.cl's list, which the test checks).
 * The routine that needs it sets its value. */
#ifndef CLG_VARIANT_H
#define CLG_VARIANT_H

#include "runtime.h"

#include <stddef.h>

/* The kernel files (kernels/). Each program is common.cl + one of them. */
typedef enum clg_kernel_file {
    CLG_FILE_CHECK = 0,           /* check.cl */
    CLG_FILE_GATHER = 1,          /* gather.cl */
    CLG_FILE_GATHER_ELEMENTS = 2, /* gather_elements.cl */
    CLG_FILE_COUNT = 3
} clg_kernel_file;

#define CLG_FILES_ALL 7u      /* every file */
#define CLG_FILES_OPS 6u      /* gather.cl, gather_elements.cl */
#define CLG_FILES_ELEMENTS 4u /* gather_elements.cl */
#define CLG_FILES_GATHER 2u   /* gather.cl */

/* X(name, files, legal, meaning): `files` a mask of (1 << clg_kernel_file)
 * that take the option, `legal` a mask of (1 << value) of its legal
 * values. An option a file does not take is not passed to it. */
#define CLG_VARIANT_OPTIONS(X)                                                \
    X(INDEX_BYTES, CLG_FILES_ALL, 0x110u,                                     \
      "index element: 4 int (ONNX INT32), 8 long (INT64)")                    \
    X(UNIT, CLG_FILES_OPS, 0x10116u, "bytes one work-item moves")             \
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
      "1: __builtin_nontemporal_store of the output (clang: POCL)")

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
    unsigned legal;
    const char *meaning;
} clg_option_info;

extern const clg_option_info clg_options[CLG_OPT_COUNT];

/* A kernel variant: a file, an entry point and a value per option (those
 * the file does not take must be 0). Compared as a whole value. */
typedef struct clg_variant {
    clg_kernel_file file;
    const char *kernel;
    unsigned value[CLG_OPT_COUNT];
} clg_variant;

/* The embedded file name of `file`, e.g. "gather.cl". */
const char *clg_kernel_file_name(clg_kernel_file file);

/* NULL when `v` is a combination the kernels accept, else a static
 * sentence saying which rule it breaks. */
const char *clg_variant_check(const clg_variant *v);

/* Writes the build options of `v` ("-cl-std=CL1.2 -DCLG_...") to buf;
 * returns 0 when they do not fit. */
int clg_variant_options(const clg_variant *v, char *buf, size_t cap);

/* The kernel of `v` (built and cached on first use; owned by the context).
 * A variant that breaks a rule of clg_variant_check is refused with
 * BUILD_FAILED before anything is built. */
clg_status clg_variant_kernel(clg_context *ctx, const clg_variant *v,
                              cl_kernel *out);

#endif
