/* SPDX-License-Identifier: Apache-2.0 */
/*
 * clgather: the ONNX operators Gather, GatherElements and GatherND on
 * OpenCL devices.
 *
 * One public header. Sections:
 *   1. Version
 *   2. Status codes
 *   3. Data types and tensors
 *   4. Devices and contexts
 *   5. Operators: the operator table, calls as data (clg_call), the
 *      generic calls on host memory, device buffers and the CPU reference
 *   6. Enqueue: operators inside an OpenCL pipeline
 *   7. Diagnostics
 *   8. Program cache and warm-up
 *   9. Named operator functions (clg_gather, clg_gather_elements, ...)
 *
 * Semantics follow the ONNX operator pages of the operators of
 * CLG_OP_TABLE: Gather (opsets 1, 11, 13), GatherElements (opsets 11, 13)
 * and GatherND (opsets 11, 12, 13), with the index range [-s, s-1]
 * accepted for every opset. Results are bit-exact: the operators only move
 * bytes.
 *
 * Threading: any number of threads may call any function on one
 * clg_context at once (except clg_context_destroy, which must be the last
 * call on it). Messages (clg_context_last_error, clg_context_last_cl_error,
 * clg_context_build_log) are kept per thread and per context: each thread
 * reads what its own last call on that context left. The library never
 * prints.
 *
 * Processes: a context belongs to the process that created it. In a child
 * made by fork() the parent's context refuses every call that would reach
 * the device (operators, enqueues, warm-ups, finishes) with
 * INVALID_ARGUMENT ("this context was created in process N, and this is
 * process M, a child forked from it ..."), where it would otherwise hang
 * (POCL's device threads are not in the child), and clg_context_destroy
 * forgets it without touching it. In a child forked after the parent
 * created a context, clg_context_create and clg_context_create_from_cl
 * refuse a device with DEVICE_NOT_FOUND saying why on every
 * implementation but Intel's CPU runtime (POCL's and Rusticl's threads
 * are not in the child either). Create contexts in processes started
 * afresh (fork then exec; Python multiprocessing's 'spawn');
 * docs/guide.md, "Processes and fork".
 */
#ifndef CLGATHER_CLGATHER_H
#define CLGATHER_CLGATHER_H

#include <stddef.h>
#include <stdint.h>

/* The OpenCL 1.2 API unless the program chose another version first:
 * define CL_TARGET_OPENCL_VERSION (e.g. 300) before this header to call
 * OpenCL 2.0+ functions alongside clgather. */
#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#include <CL/cl.h>

/* CLG_API marks the exported functions (the shared library hides all
 * other symbols). */
#if defined(_WIN32) && defined(CLG_BUILDING_LIBRARY)
#define CLG_API __declspec(dllexport)
#elif defined(__GNUC__) || defined(__clang__)
#define CLG_API __attribute__((visibility("default")))
#else
#define CLG_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ======================================================================
 * 1. Version
 * ==================================================================== */

/** The version, in one place: CMakeLists.txt reads these three numbers for
 *  project(VERSION), and the macros below are derived from them. */
#define CLG_VERSION_MAJOR 0
#define CLG_VERSION_MINOR 2
#define CLG_VERSION_PATCH 0
/** MAJOR * 10000 + MINOR * 100 + PATCH, comparable with clg_version(). */
#define CLG_VERSION_NUMBER                                                    \
    (CLG_VERSION_MAJOR * 10000 + CLG_VERSION_MINOR * 100 + CLG_VERSION_PATCH)
/** "MAJOR.MINOR.PATCH", e.g. "0.2.0", quoted from the three numbers (two
 *  steps, so that the macros are expanded before # quotes them). */
#define CLG_VERSION_STRING                                                    \
    CLG_VERSION_EXPAND_(CLG_VERSION_MAJOR, CLG_VERSION_MINOR,                 \
                        CLG_VERSION_PATCH)
#define CLG_VERSION_EXPAND_(major, minor, patch)                              \
    CLG_VERSION_QUOTE_(major, minor, patch)
#define CLG_VERSION_QUOTE_(major, minor, patch) #major "." #minor "." #patch

/** Version number of the library actually linked (CLG_VERSION_NUMBER at
 *  its build time). Compare with CLG_VERSION_NUMBER to detect a mismatched
 *  shared library. */
CLG_API unsigned clg_version(void);

/** Version string of the library actually linked, e.g. "0.2.0". Static. */
CLG_API const char *clg_version_string(void);

/** sizeof of a public type of this header as the library loaded was
 *  compiled, by the type's name: "clg_tensor", "clg_call",
 *  "clg_cache_info", ..., an enum's too ("clg_status"); every struct and
 *  enum this header declares with a typedef, clg_context (opaque) aside.
 *  0 for NULL and for a name the library does not know (a type added
 *  after it was built). A binding in another language compares these with
 *  its own layouts, and sizes an output struct that grew (clg_cache_info
 *  of a newer library) to what the library writes. Thread-safe; needs no
 *  device. */
CLG_API size_t clg_type_size(const char *name);

/* ======================================================================
 * 2. Status codes
 * ==================================================================== */

/** The one table of statuses: X(name, value, message). Values are pinned;
 *  new statuses are only ever appended.
 *  DEVICE_MISCOMPILED: the first time a call needs a kernel (an entry
 *  point of a kernel program: one kernel file, one set of build options)
 *  in a context, before it serves the call, it runs a small fixed case
 *  (negative and positive INT32 or INT64 indices, the program's
 *  out-of-range mode, its element width) compared byte for byte with the
 *  CPU reference. A kernel that differs is never used: every call that
 *  needs it returns DEVICE_MISCOMPILED, its output untouched, with a
 *  message naming the kernel, the case and the device; there is no
 *  fallback to another variant. The persistent program cache records
 *  which kernels of a program passed, and only those, so a kernel loaded
 *  from it as passed is not tested again. docs/guide.md, "Known-answer
 *  self-test". */
#define CLG_STATUS_TABLE(X)                                                   \
    X(OK, 0, "success")                                                       \
    X(NULL_POINTER, 1, "a required pointer argument is NULL")                 \
    X(INVALID_ARGUMENT, 2, "an argument has an invalid value")                \
    X(INVALID_AXIS, 3, "axis is outside [-r, r-1]")                           \
    X(INVALID_RANK, 4, "a tensor has an unsupported rank")                    \
    X(RANK_MISMATCH, 5, "data and indices ranks differ (GatherElements)")     \
    X(INVALID_SHAPE, 6, "a tensor shape has a negative dimension")            \
    X(SHAPE_MISMATCH, 7, "tensor shapes are incompatible")                    \
    X(UNSUPPORTED_DTYPE, 8, "unsupported data type")                          \
    X(INDEX_OUT_OF_RANGE, 9, "an index value is outside [-s, s-1]")           \
    X(TENSOR_TOO_LARGE, 10, "a tensor is too large for the device or host")   \
    X(OUT_OF_MEMORY, 11, "host memory allocation failed")                     \
    X(DEVICE_NOT_FOUND, 12, "no OpenCL device matches the device spec")       \
    X(OPENCL_ERROR, 13, "an OpenCL call failed")                              \
    X(BUILD_FAILED, 14, "an OpenCL program failed to build")                  \
    X(DEVICE_MISMATCH, 15, "the device result differs from the reference")    \
    X(PENDING_LIMIT, 16,                                                      \
      "too many enqueued operations since the last finish")                   \
    X(DEVICE_MISCOMPILED, 17,                                                 \
      "a kernel failed its known-answer self-test on this device")

#define CLG_STATUS_ENUM_ENTRY_(name, value, message) CLG_STATUS_##name = value,
/** Result of every fallible call. CLG_STATUS_OK (0) means success. */
typedef enum clg_status {
    CLG_STATUS_TABLE(CLG_STATUS_ENUM_ENTRY_)
} clg_status;
#undef CLG_STATUS_ENUM_ENTRY_

/** Symbolic name without prefix, e.g. "INDEX_OUT_OF_RANGE". Static, never
 *  NULL; "UNKNOWN_STATUS" for a value outside the table. */
CLG_API const char *clg_status_name(clg_status status);

/** One-line generic description. Static, never NULL; a fixed string for a
 *  value outside the table. The context's clg_context_last_error() gives
 *  the specific message with the values involved. */
CLG_API const char *clg_status_message(clg_status status);

/** The number of statuses of the library loaded: its clg_status values are
 *  0 to clg_status_count() - 1, without a gap (CLG_STATUS_TABLE; a program
 *  built against an older header may see more than it names).
 *  Thread-safe. */
CLG_API int clg_status_count(void);

/* ======================================================================
 * 3. Data types and tensors
 * ==================================================================== */

/** The one table of element types, in ONNX order: X(name, number, size,
 *  kind), where
 *  - name gives the enum value CLG_DTYPE_<name> and clg_dtype_name();
 *  - number is its ONNX TensorProto.DataType value (pinned);
 *  - size is the bytes of one element, clg_dtype_size() (STRING: one
 *    clg_string descriptor, declared below);
 *  - kind says what the bytes hold, in NumPy's letters where NumPy has one:
 *    'f' an IEEE 754 binary float, 'i' a signed and 'u' an unsigned
 *    integer, 'b' a bool (one byte, 0 or 1), 'c' a complex number (two 'f'
 *    of size / 2 bytes, real part first), 'B' a bfloat16 (the upper half of
 *    a FLOAT), 'S' a STRING descriptor.
 *  Kernels are chosen by size only. Numbers, sizes and kinds are those
 *  the ONNX and NumPy file formats use, little-endian. */
#define CLG_DTYPE_TABLE(X)                                                    \
    X(FLOAT, 1, 4, 'f')                                                       \
    X(UINT8, 2, 1, 'u')                                                       \
    X(INT8, 3, 1, 'i')                                                        \
    X(UINT16, 4, 2, 'u')                                                      \
    X(INT16, 5, 2, 'i')                                                       \
    X(INT32, 6, 4, 'i')                                                       \
    X(INT64, 7, 8, 'i')                                                       \
    X(STRING, 8, sizeof(clg_string), 'S')                                     \
    X(BOOL, 9, 1, 'b')                                                        \
    X(FLOAT16, 10, 2, 'f')                                                    \
    X(DOUBLE, 11, 8, 'f')                                                     \
    X(UINT32, 12, 4, 'u')                                                     \
    X(UINT64, 13, 8, 'u')                                                     \
    X(COMPLEX64, 14, 8, 'c')                                                  \
    X(COMPLEX128, 15, 16, 'c')                                                \
    X(BFLOAT16, 16, 2, 'B')

/** The largest size in CLG_DTYPE_TABLE: the widest element, and the widest
 *  unit a kernel moves. */
#define CLG_MAX_ELEMENT_SIZE 16

#define CLG_DTYPE_ENUM_ENTRY_(name, number, size, kind)                       \
    CLG_DTYPE_##name = number,
/** Element types, numbered as ONNX TensorProto.DataType (CLG_DTYPE_TABLE);
 *  0 is no type. */
typedef enum clg_dtype {
    CLG_DTYPE_UNDEFINED = 0,
    CLG_DTYPE_TABLE(CLG_DTYPE_ENUM_ENTRY_)
} clg_dtype;
#undef CLG_DTYPE_ENUM_ENTRY_

/** One STRING element: a byte string of `length` bytes at `data` (NUL bytes
 *  allowed, no terminator required). A STRING tensor is an array of these
 *  descriptors (16 bytes each on 64-bit hosts). Gathering copies the
 *  descriptors, never the bytes: an output STRING tensor borrows the bytes
 *  of the input data tensor, which must outlive every use of the output. */
typedef struct clg_string {
    const char *data;
    size_t length;
} clg_string;

/** Size in bytes of one element of `dtype` (its CLG_DTYPE_TABLE size: 1,
 *  2, 4, 8 or 16; STRING is sizeof(clg_string)); 0 for CLG_DTYPE_UNDEFINED
 *  or a value that is not an ONNX TensorProto data type. */
CLG_API size_t clg_dtype_size(clg_dtype dtype);

/** ONNX name of `dtype`, e.g. "FLOAT", "BFLOAT16". Static, never NULL;
 *  "UNDEFINED" for unknown values. */
CLG_API const char *clg_dtype_name(clg_dtype dtype);

/** One more than the largest element type number of the library loaded:
 *  its clg_dtype values are below clg_dtype_count(). A number below it
 *  that is no type (0, CLG_DTYPE_UNDEFINED, or a gap that ONNX numbers
 *  and the table skips) has clg_dtype_size 0. Thread-safe. */
CLG_API int clg_dtype_count(void);

/** The kind of `dtype`, its CLG_DTYPE_TABLE letter as an int: 'f', 'i',
 *  'u', 'b', 'c', 'B' (bfloat16) or 'S' (STRING), as described there; 0
 *  for CLG_DTYPE_UNDEFINED or a value that is not an ONNX TensorProto
 *  data type. With clg_dtype_size it tells a binding which array type
 *  holds the elements (NumPy's dtype kind and itemsize). Thread-safe. */
CLG_API int clg_dtype_kind(clg_dtype dtype);

/** Largest rank clgather accepts for any tensor (data, indices, output). */
#define CLG_MAX_RANK 32

/** A tensor in host memory, dense, row-major (C order).
 *  - dtype: element type.
 *  - rank: number of dimensions, 0 (a scalar, one element) to CLG_MAX_RANK.
 *  - shape: `rank` dimension sizes, each >= 0; may be NULL when rank is 0.
 *  - data: clg_tensor_count(t) * clg_dtype_size(dtype) bytes; may be NULL
 *    only when the tensor has no elements.
 *  The descriptor and the memory it points to are borrowed for a call only;
 *  the library keeps no pointer into them after it returns. */
typedef struct clg_tensor {
    clg_dtype dtype;
    size_t rank;
    const int64_t *shape;
    void *data;
} clg_tensor;

/** A tensor in an OpenCL buffer of the context's cl_context. Same layout
 *  rules as clg_tensor; `buffer` holds the elements from offset 0 and is
 *  borrowed for the call. */
typedef struct clg_cl_tensor {
    clg_dtype dtype;
    size_t rank;
    const int64_t *shape;
    cl_mem buffer;
} clg_cl_tensor;

/** Number of elements of a shape (1 for rank 0). Writes it to *count.
 *  Errors: NULL_POINTER (count NULL, or shape NULL with rank > 0),
 *  INVALID_RANK (rank > CLG_MAX_RANK), INVALID_SHAPE (a negative dimension),
 *  TENSOR_TOO_LARGE (the product overflows int64). */
CLG_API clg_status clg_shape_count(const int64_t *shape, size_t rank,
                                   int64_t *count);

/* ======================================================================
 * 4. Devices and contexts
 * ==================================================================== */

/** Device types, as in CL_DEVICE_TYPE_*. */
typedef enum clg_device_type {
    CLG_DEVICE_TYPE_OTHER = 0,
    CLG_DEVICE_TYPE_CPU = 1,
    CLG_DEVICE_TYPE_GPU = 2,
    CLG_DEVICE_TYPE_ACCELERATOR = 3
} clg_device_type;

/** One OpenCL device as discovered, with its "P:D" position. Strings are
 *  NUL-terminated and truncated to fit. */
typedef struct clg_device_info {
    uint32_t platform_index; /* P in "P:D" */
    uint32_t device_index;   /* D in "P:D", within its platform */
    clg_device_type type;
    int is_default; /* 1 for the device a NULL spec selects */
    char platform_name[128];
    char name[128];
    char vendor[128];
    char version[128];        /* CL_DEVICE_VERSION */
    uint64_t global_mem_size; /* bytes, CL_DEVICE_GLOBAL_MEM_SIZE */
    uint64_t max_alloc_size;  /* bytes, CL_DEVICE_MAX_MEM_ALLOC_SIZE */
    int host_unified_memory;  /* CL_DEVICE_HOST_UNIFIED_MEMORY */
} clg_device_info;

/** Lists every device of every OpenCL platform. Writes up to `capacity`
 *  entries to `infos` (may be NULL when capacity is 0) and the total number
 *  of devices to *count. The default device is the one clg_context_create
 *  would choose for a NULL spec, CLGATHER_DEVICE included; when
 *  CLGATHER_DEVICE matches no device (or is a malformed "P:D"), no entry
 *  has is_default set.
 *  Errors: NULL_POINTER (count NULL, or infos NULL with capacity > 0),
 *  DEVICE_NOT_FOUND (no OpenCL platform or device at all; *count = 0),
 *  OPENCL_ERROR. */
CLG_API clg_status clg_devices_list(clg_device_info *infos, size_t capacity,
                                    size_t *count);

/** Resolves a device spec to its OpenCL platform and device, for a caller
 *  that builds its own cl_context (then clg_context_create_from_cl).
 *  `device_spec` is read exactly as clg_context_create reads it (NULL or
 *  "": CLGATHER_DEVICE, else the first GPU, else the first device); the
 *  result is the device that clg_context_create(&ctx, device_spec) would
 *  use. The handles are the runtime's own, owned by it: nothing to release.
 *  Thread-safe. On failure both are set to NULL and
 *  clg_context_last_error(NULL) names the spec and the devices seen.
 *  Errors: NULL_POINTER (platform or device NULL), DEVICE_NOT_FOUND (no
 *  device, or none matches), INVALID_ARGUMENT (a malformed "P:D", or a
 *  CLGATHER_DEVICE too long to read), OPENCL_ERROR (clGetPlatformIDs or
 *  clGetDeviceIDs failed), OUT_OF_MEMORY. */
CLG_API clg_status clg_device_resolve(const char *device_spec,
                                      cl_platform_id *platform,
                                      cl_device_id *device);

/** Opaque context: one OpenCL device, its cl_context and command queue,
 *  the programs built so far (cached per variant), and the operations
 *  enqueued since the last clg_context_finish. Thread-safe (see the top of
 *  this header). */
typedef struct clg_context clg_context;

/** Creates a context on the device chosen by `device_spec`:
 *  - "gpu", "cpu", "accelerator": the first device of that type;
 *  - "P:D": device D of platform P (indices as clg_devices_list shows);
 *  - any other text: the first device whose device name or platform name
 *    contains it, case-insensitively; failing that, whose device vendor,
 *    device version or platform vendor does (so "pocl" finds POCL);
 *  - NULL or "": the environment variable CLGATHER_DEVICE, read as a spec;
 *    if it is unset or empty, the first GPU, else the first device.
 *  Leading and trailing white space of a spec is ignored (" 0:0" is
 *  "0:0"). A spec made only of digits, signs and colons is a "P:D" and
 *  must be exactly that: a bare number ("0") is INVALID_ARGUMENT, never a
 *  search of the names and versions.
 *  The environment variable CLGATHER_MAX_ALLOC (a byte count >= 1024), when
 *  set, lowers the largest buffer the context creates below the device's
 *  CL_DEVICE_MAX_MEM_ALLOC_SIZE; tensors larger than that are processed in
 *  pieces (useful to test the split path, or to leave device memory free).
 *  The test-only environment variable CLGATHER_TEST_PLAN=gpu makes the
 *  context plan as on a GPU (see clg_context_uses_host_memory), "cpu" as
 *  on a CPU (CPU kernel variants and work-groups; host memory in place
 *  only where the device shares it); "device" or unset keeps the device's
 *  own plans. CLGATHER_SVM=0 keeps host memory wrapped in buffers on a
 *  device that could take it as SVM pointers (clg_context_uses_svm); "1",
 *  empty or unset lets it. CLGATHER_VALIDATE=1 starts the
 *  context in validation mode (clg_context_set_validate); "0", empty or unset
 *  does not. CLGATHER_PARAMS="field=value,..." overrides fields of the
 *  device's row of the parameter table (clg_context_get_params); a
 *  malformed value fails every operator call that launches a kernel (a
 *  call on empty tensors launches none) with INVALID_ARGUMENT naming the
 *  item. CLGATHER_CACHE, CLGATHER_CACHE_DIR and CLGATHER_CACHE_MAX set
 *  the persistent program cache (section 8). These variables are read
 *  here, once: setting them later does not change an existing context.
 *  On success *ctx receives a new context (destroy with
 *  clg_context_destroy). On failure *ctx is NULL and, when the failure
 *  concerns the device, clg_context_last_error(NULL) on the same thread
 *  names the spec and the devices seen.
 *  Errors: NULL_POINTER, DEVICE_NOT_FOUND (no device or no match; a
 *  device other than Intel's CPU runtime in a child forked after the
 *  parent created a context, see
 *  "Processes" at the top of this header),
 *  INVALID_ARGUMENT (a malformed "P:D": digits, signs and colons that are
 *  not two unsigned numbers joined by one colon, a bare number included;
 *  CLGATHER_MAX_ALLOC not a byte count >= 1024; CLGATHER_TEST_PLAN not
 *  "gpu", "cpu" or "device"; CLGATHER_VALIDATE, CLGATHER_SVM or the
 *  test-only CLGATHER_TEST_MISCOMPILE (1: every kernel built wrong on
 *  purpose, for the self-test's tests) not "0" or "1"; CLGATHER_CACHE not "0" or "1"; CLGATHER_CACHE_MAX not a byte
 *  count),
 *  OUT_OF_MEMORY, OPENCL_ERROR. */
CLG_API clg_status clg_context_create(clg_context **ctx,
                                      const char *device_spec);

/** Creates a context over a caller's OpenCL objects. `context` and `queue`
 *  are retained here and released by clg_context_destroy; `device` and
 *  `context` must be the queue's. The queue may be in order or out of
 *  order (CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE): each call orders its
 *  own commands with events. The environment is read as by
 *  clg_context_create.
 *  Errors: NULL_POINTER, INVALID_ARGUMENT (device or context not the
 *  queue's; a malformed environment variable), DEVICE_NOT_FOUND (a POCL
 *  device in a forked child, as clg_context_create), OUT_OF_MEMORY,
 *  OPENCL_ERROR. */
CLG_API clg_status clg_context_create_from_cl(clg_context **ctx,
                                              cl_context context,
                                              cl_device_id device,
                                              cl_command_queue queue);

/** Waits for everything enqueued on the context's queue and through the
 *  context (so a pending user event they wait on must complete or fail),
 *  then releases everything the context holds. Accepts NULL. Must be the
 *  last call on the context, from any thread. It does not hang on a
 *  failed event: an operation behind an event that failed before its
 *  enqueue was refused (see clg_enqueue), and one behind an event
 *  that failed later ended without running. In a forked child, on a
 *  context of the parent's, it returns at once and touches nothing (see
 *  "Processes" at the top of this header). */
CLG_API void clg_context_destroy(clg_context *ctx);

/** Device name, vendor and CL_DEVICE_VERSION of the context's device.
 *  Owned by the context; valid until it is destroyed. Never NULL for a
 *  valid context; "" for NULL. */
CLG_API const char *clg_context_device_name(const clg_context *ctx);
CLG_API const char *clg_context_device_vendor(const clg_context *ctx);
CLG_API const char *clg_context_device_version(const clg_context *ctx);

/** The OpenCL runtime that drives the context's device, which the device
 *  name alone does not tell (a CPU appears as "AMD EPYC 7B13" under
 *  Intel's runtime and under POCL): the name of the device's platform
 *  (CL_PLATFORM_NAME, e.g. "Portable Computing Language"), its
 *  CL_PLATFORM_VERSION ("OpenCL 3.0 PoCL 3.1+debian Linux, ...") and the
 *  device's CL_DRIVER_VERSION, the runtime's own version ("3.1+debian";
 *  Intel's CPU runtime: "2026.22.10.0.01_160000"). Read once when the
 *  context is created. Owned by the context; valid until it is
 *  destroyed; any thread. Never NULL: "" for NULL, and "" where the
 *  runtime does not answer (or the text does not fit 255 bytes). */
CLG_API const char *clg_context_platform_name(const clg_context *ctx);
CLG_API const char *clg_context_platform_version(const clg_context *ctx);
CLG_API const char *clg_context_driver_version(const clg_context *ctx);

/** Device type of the context's device. */
CLG_API clg_device_type clg_context_device_type(const clg_context *ctx);

/** 1 when the device shares host memory (CL_DEVICE_HOST_UNIFIED_MEMORY, as
 *  on POCL's CPU device): the host-memory operators then use the caller's
 *  buffers in place instead of copying them. 0 otherwise, and under the
 *  test-only environment variable CLGATHER_TEST_PLAN=gpu, which makes the
 *  context plan as on a GPU (GPU kernel variants and work-groups, copies
 *  through device buffers) whatever its device. */
CLG_API int clg_context_uses_host_memory(const clg_context *ctx);

/** 1 when the host-memory operators pass the caller's buffers to the
 *  kernels as they are, as shared virtual memory pointers (OpenCL 2.0
 *  API section 5.9.2, clSetKernelArgSVMPointer), rather than wrapped in
 *  CL_MEM_USE_HOST_PTR buffers that are mapped after the kernel: the
 *  device shares the host's whole address space at fine grain
 *  (CL_DEVICE_SVM_FINE_GRAIN_SYSTEM, as Intel's CPU runtime does) and
 *  uses host memory (clg_context_uses_host_memory). This saves a buffer
 *  per tensor and a map and an unmap per call. 0 otherwise, and when the
 *  environment variable CLGATHER_SVM=0 was set at creation. */
CLG_API int clg_context_uses_svm(const clg_context *ctx);

/** Largest buffer the context creates, in bytes: the device's
 *  CL_DEVICE_MAX_MEM_ALLOC_SIZE, or CLGATHER_MAX_ALLOC when that is lower.
 *  Host-memory tensors larger than this are processed in pieces. */
CLG_API uint64_t clg_context_max_alloc_size(const clg_context *ctx);

/** The context's OpenCL objects, borrowed (not retained for the caller). */
CLG_API cl_context clg_context_cl_context(const clg_context *ctx);
CLG_API cl_device_id clg_context_cl_device(const clg_context *ctx);
CLG_API cl_command_queue clg_context_cl_queue(const clg_context *ctx);

/** Validation mode: while on, every host-memory operator call (clg_run
 *  and its named forms, clg_gather, ...) also runs the CPU reference on the same inputs and
 *  compares the two outputs bit for bit. A difference returns
 *  DEVICE_MISMATCH; the message names the op, the first differing output
 *  position and the device's and the reference's bytes there, and the
 *  output holds the device's result. Cost: one reference run per call (a
 *  single-threaded host gather, several times the device call on large
 *  tensors) plus a temporary output of the same size. Device-buffer and
 *  enqueued calls are not compared. Starts on when CLGATHER_VALIDATE=1.
 *  Takes effect for calls that start after it returns; thread-safe.
 *  Errors: NULL_POINTER. */
CLG_API clg_status clg_context_set_validate(clg_context *ctx, int on);

/** 1 while validation mode is on, else 0 (also for NULL). */
CLG_API int clg_context_validates(const clg_context *ctx);

/** Reads the CLGATHER_* environment variables as clg_context_create does
 *  and checks the values that do not depend on a device: CLGATHER_VALIDATE
 *  and CLGATHER_SVM ("0", "1", empty or unset), CLGATHER_MAX_ALLOC (a
 *  byte count >= 1024), CLGATHER_TEST_PLAN ("gpu", "cpu", "device", empty or unset),
 *  CLGATHER_CACHE ("0", "1", empty or unset) and CLGATHER_CACHE_MAX (a
 *  byte count > 0, K, M or G may follow). Lets a program
 *  tell a bad variable from a device problem before it creates a context;
 *  nothing is kept. On failure clg_context_last_error(NULL) on the same
 *  thread names the variable and its value, e.g.
 *  `CLGATHER_VALIDATE="2" is not "0" or "1"`.
 *  Errors: INVALID_ARGUMENT. */
CLG_API clg_status clg_environment_check(void);

/* ======================================================================
 * 4b. Device parameters
 * ==================================================================== */

/** The launch choices of a context's operator calls (docs/design.md,
 *  "Device parameters"): named fields, each an integer in a range. Each
 *  device matches one row of the library's parameter table;
 *  CLGATHER_PARAMS="field=value,..." (read when the context is created),
 *  clg_context_set_params_text, clg_context_set_param and
 *  clg_context_set_params override it per context. The fields, one row
 *  each of CLG_PARAM_TABLE below:
 *    wg       [1, 4096]  work-items per work-group (at most the device's
 *                        limit);
 *    strip    [0, 65536] GatherElements off the last axis: bytes of a row
 *                        per strip, 0 none;
 *    pack     [0, 2]     1: each strip is packed contiguously first; 2:
 *                        as 1, and the gather from the pack prefetches its
 *                        rows of indices and output 16 rows ahead;
 *    chunk    [0, 4096]  strips packed and gathered per pass, 0 all;
 *    unit     [1, 64]    a power of two: bytes one Gather work-item moves
 *                        on the lean rows body;
 *    prefetch [0, 64]    positions prefetched ahead, 0 none;
 *    nt       [0, 3]     non-temporal stores of the output: 0 never, 1
 *                        always, 2 by size (only the GatherElements
 *                        last-axis body, on outputs larger than the
 *                        device's global memory cache), 3 by size there
 *                        and on the Gather rows body's 64-byte spans
 *                        (calls whose output and rows read exceed the
 *                        cache; an output aligned to 64 bytes) and the
 *                        last-axis spans body's (outputs over half the
 *                        cache or 32 MiB, the less; aligned to the span);
 *    norm     [0, 999999] Gather lean bodies: normalise the indices in a
 *                        pass first on outputs of norm KiB or more, and
 *                        GatherND on CPU plans: its per-tuple pass from
 *                        the same size; 0 never;
 *    small    [0, 1024]  host-memory calls in place: an output of at most
 *                        small KiB is written to a scratch buffer and read
 *                        back with one read, instead of being mapped and
 *                        unmapped where it is, 0 never;
 *    host     [0, 16777216] host-memory calls (clg_run and its named
 *                        forms) that move at most `host` bytes of output
 *                        and indices are computed on the calling thread by
 *                        a plain loop, without a launch (clg_context_
 *                        last_path says CLG_PATH_HOST), except under
 *                        validation mode; 0 never. Device-buffer and
 *                        enqueued calls always launch.
 *  prefetch and nt other than 0, and pack 2, need a device compiler with
 *  clang's built-ins (the row's `builtins`: POCL, Intel's CPU runtime).
 *  Where the row has them, Gather rows of 1 KiB or more always move at
 *  least 64 bytes per work-item, skip norm and prefetch `prefetch`
 *  positions ahead (2 when 0), Gather on the last axis with rows of
 *  1 KiB or more prefetches `prefetch` rows ahead (1 when 0), and the
 *  GatherElements last-axis body prefetches two rows ahead. The rows with the built-ins say nt=3, and
 *  Intel's says pack=2. Parameters change speed only: every valid setting
 *  gives the same bytes.
 *
 *  CLG_PARAM_TABLE(X): X(ID, id, name, lo, hi, plain, pow2, rows,
 *  candidates), one row per field: CLG_PARAM_<ID> = id is the field
 *  `name`, an integer in [lo, hi]; values above `plain` need a row with
 *  clang's built-ins; pow2 1: a power of two; `rows`: its value in each
 *  row of the parameter table, in the order pocl-cpu, intel-cpu,
 *  rusticl-cpu, cpu, gpu, default (clg_params_entry); `candidates`: the values `clgather tune`
 *  tries (clg_param_candidates). The first part, CLG_PARAM_STRUCT_FIELDS,
 *  holds the members of clg_params in order; that struct never grows, so
 *  fields added later go to CLG_PARAM_NAMED_FIELDS and are reachable only
 *  by name (clg_context_set_param, clg_context_get_param, the text
 *  calls). Ids are never reused or renumbered; a program asks the library
 *  it runs with how many fields it has (clg_param_count). */
#define CLG_PARAM_STRUCT_FIELDS(X)                                            \
    X(WG, 0, wg, 1, 4096, 4096, 0, (4096, 4096, 4096, 4096, 256, 256),        \
      (256, 1024, 4096))                                                      \
    X(STRIP, 1, strip, 0, 65536, 65536, 0, (256, 256, 1024, 256, 256, 0),     \
      (0, 128, 256, 512, 1024))                                               \
    X(PACK, 2, pack, 0, 2, 1, 0, (1, 2, 0, 1, 0, 0), (0, 1, 2))               \
    X(CHUNK, 3, chunk, 0, 4096, 4096, 0, (4, 4, 4, 4, 0, 0), (0, 1, 2, 4, 8)) \
    X(UNIT, 4, unit, 1, 64, 64, 1, (4, 4, 4, 4, 16, 16), (4, 16, 64))         \
    X(PREFETCH, 5, prefetch, 0, 64, 0, 0, (0, 0, 0, 0, 0, 0),                 \
      (0, 1, 2, 4, 16))                                                       \
    X(NT, 6, nt, 0, 3, 0, 0, (3, 3, 0, 0, 0, 0), (0, 1, 2, 3))                \
    X(NORM, 7, norm, 0, 999999, 999999, 0, (1024, 1024, 1024, 1024, 0, 0),    \
      (0, 1, 1024, 16384))                                                    \
    X(SMALL, 8, small, 0, 1024, 1024, 0, (64, 0, 64, 64, 64, 64),             \
      (0, 16, 64, 256))
#define CLG_PARAM_NAMED_FIELDS(X)                                             \
    X(HOST, 9, host, 0, 16777216, 16777216, 0,                                \
      (65536, 32768, 65536, 32768, 65536, 32768),                             \
      (0, 8192, 32768, 65536, 262144))
#define CLG_PARAM_TABLE(X) CLG_PARAM_STRUCT_FIELDS(X) CLG_PARAM_NAMED_FIELDS(X)

#define CLG_PARAM_ENUM_ENTRY_(ID, id, name, lo, hi, plain, pow2, rows,        \
                              candidates)                                     \
    CLG_PARAM_##ID = id,
/** A field of the device parameters (CLG_PARAM_TABLE). */
typedef enum clg_param { CLG_PARAM_TABLE(CLG_PARAM_ENUM_ENTRY_) } clg_param;
#undef CLG_PARAM_ENUM_ENTRY_

/** The fields of CLG_PARAM_STRUCT_FIELDS, in order; frozen. */
typedef struct clg_params {
    unsigned wg, strip, pack, chunk, unit, prefetch, nt, norm, small;
} clg_params;

/** A row of the parameter table: a device of `type` whose vendor or
 *  CL_DEVICE_VERSION contains `match` (case-insensitive; "" matches all)
 *  gets `params`; `builtins`: its compiler takes clang's built-ins;
 *  `map_wait`: a host-memory call whose output is mapped in place waits
 *  for the map to complete before it enqueues the unmap (OpenCL 1.2 allows
 *  the unmap at once, and POCL and Intel's CPU runtime take it; Mesa's
 *  Rusticl 22.3 refuses it with CL_INVALID_VALUE, so every row but those
 *  two waits). The table's own strings, static. */
typedef struct clg_params_entry {
    const char *name;
    clg_device_type type;
    const char *match;
    int builtins;
    clg_params params;
    int map_wait;
} clg_params_entry;

/** The row of ctx's device (under CLGATHER_TEST_PLAN=gpu, the GPU row),
 *  without CLGATHER_PARAMS or clg_context_set_params. Static; NULL only
 *  for a NULL ctx. Thread-safe. */
CLG_API const clg_params_entry *clg_context_params_entry(clg_context *ctx);

/** The fields of clg_params that ctx's calls use now: the last setting
 *  (clg_context_set_params, clg_context_set_params_text,
 *  clg_context_set_param), else the row with CLGATHER_PARAMS applied.
 *  Fields outside clg_params are read by name (clg_context_get_param).
 *  Thread-safe.
 *  Errors: NULL_POINTER; INVALID_ARGUMENT when CLGATHER_PARAMS (as read at
 *  creation) is malformed, the message naming the variable and the item
 *  (every operator call that launches a kernel fails the same way until
 *  clg_context_set_params sets valid parameters). */
CLG_API clg_status clg_context_get_params(clg_context *ctx, clg_params *out);

/** Validates *params as CLGATHER_PARAMS is validated (every field in its
 *  range, unit a power of two, prefetch and nt only where the row has
 *  built-ins); on success calls that start after it returns use them.
 *  Fields outside clg_params keep the values in use (the row's while a
 *  malformed CLGATHER_PARAMS stands). Thread-safe.
 *  Errors: NULL_POINTER, INVALID_ARGUMENT (the message names the field
 *  and its range; the parameters in use are unchanged). */
CLG_API clg_status clg_context_set_params(clg_context *ctx,
                                          const clg_params *params);

/** Applies "field=value,field=value" (the syntax of CLGATHER_PARAMS) onto
 *  *params, validated for ctx's device as clg_context_set_params does;
 *  ctx is not changed. Only fields of clg_params may be named (others:
 *  clg_context_set_params_text). Errors: NULL_POINTER, INVALID_ARGUMENT
 *  (the message names the bad item; *params is then partly updated). */
CLG_API clg_status clg_context_parse_params(clg_context *ctx, const char *text,
                                            clg_params *params);

/** CLGATHER_PARAMS as read when ctx was created, NULL when it was unset or
 *  empty (also for a NULL ctx). Owned by the context. */
CLG_API const char *clg_context_params_env(const clg_context *ctx);

/** Writes *params as "wg=4096,strip=256,...", the syntax of
 *  CLGATHER_PARAMS, into buf (size cap, always terminated when cap > 0).
 *  Holds the fields of clg_params only; clg_context_format_params writes
 *  every field in use. */
CLG_API void clg_params_format(const clg_params *params, char *buf,
                               size_t cap);

/* Parameters by name (after zstd's ZSTD_cParameter): each field of
 * CLG_PARAM_TABLE is set, read and described through its clg_param, so
 * that fields added later need no new struct. */

/** The number of fields of the library loaded: its clg_param ids are 0 to
 *  clg_param_count() - 1 (a program built against an older header may see
 *  more fields than it names). Thread-safe. */
CLG_API int clg_param_count(void);

/** The name of a field ("wg", "small", ...), the word CLGATHER_PARAMS
 *  uses. Static; NULL for a value that is not a field. Thread-safe. */
CLG_API const char *clg_param_name(clg_param param);

/** The field named `name` (exact, lower case, as clg_param_name writes it)
 *  into *param. Thread-safe. On failure clg_context_last_error(NULL) on
 *  the same thread says why.
 *  Errors: NULL_POINTER, INVALID_ARGUMENT (not a field; *param
 *  unchanged). */
CLG_API clg_status clg_param_parse(const char *name, clg_param *param);

/** The range [*lo, *hi] of a field's values on any device (after
 *  ZSTD_cParam_getBounds). A value in it may still be refused: unit takes
 *  powers of two only, and values above the field's `plain` need a row
 *  with clang's built-ins (clg_context_param_bounds gives the range on a
 *  context's device). Thread-safe. On failure clg_context_last_error(NULL)
 *  on the same thread says why.
 *  Errors: NULL_POINTER, INVALID_ARGUMENT (not a field; *lo and *hi
 *  unchanged). */
CLG_API clg_status clg_param_bounds(clg_param param, int64_t *lo, int64_t *hi);

/** The range [*lo, *hi] of a field's values on ctx's device: as
 *  clg_param_bounds, with *hi lowered to the field's `plain` where the
 *  device's row has no clang built-ins. Thread-safe.
 *  Errors: NULL_POINTER, INVALID_ARGUMENT (not a field; nothing
 *  written). */
CLG_API clg_status clg_context_param_bounds(clg_context *ctx, clg_param param,
                                            int64_t *lo, int64_t *hi);

/** The values `clgather tune` tries for a field, ascending: *values gets a
 *  static array of *count values, each valid on a row with clang's
 *  built-ins, and every row's own value among them. Thread-safe. On
 *  failure clg_context_last_error(NULL) on the same thread says why.
 *  Errors: NULL_POINTER, INVALID_ARGUMENT (not a field; nothing
 *  written). */
CLG_API clg_status clg_param_candidates(clg_param param,
                                        const int64_t **values, size_t *count);

/** Sets one field of the parameters ctx's calls use (after
 *  ZSTD_CCtx_setParameter): validated as in CLGATHER_PARAMS (the field's
 *  range, unit a power of two, values above the field's `plain` only
 *  where the row has clang's built-ins); the other fields keep their
 *  values; calls that start after it returns use it. Thread-safe: each
 *  call sees the parameters before or after, never a part.
 *  Errors: NULL_POINTER; INVALID_ARGUMENT, nothing changed: not a field,
 *  a value it does not take (the message names the field and its range),
 *  or a malformed CLGATHER_PARAMS (as read at creation) standing, which
 *  leaves no values to change one of: set them whole first
 *  (clg_context_set_params_text). */
CLG_API clg_status clg_context_set_param(clg_context *ctx, clg_param param,
                                         int64_t value);

/** The value of one field that ctx's calls use now (as
 *  clg_context_get_params) into *value. Thread-safe.
 *  Errors: NULL_POINTER; INVALID_ARGUMENT (not a field, or a malformed
 *  CLGATHER_PARAMS as clg_context_get_params; *value unchanged). */
CLG_API clg_status clg_context_get_param(clg_context *ctx, clg_param param,
                                         int64_t *value);

/** Sets every field at once: the device's row with `text` (the syntax of
 *  CLGATHER_PARAMS, any field by name) applied; "" gives the row itself,
 *  NULL the row with CLGATHER_PARAMS as read at creation. Validated whole
 *  before anything changes; calls that start after it returns use it.
 *  Thread-safe. Errors: INVALID_ARGUMENT (the message names the bad item,
 *  and CLGATHER_PARAMS when text is NULL; nothing changed), NULL_POINTER
 *  (ctx). */
CLG_API clg_status clg_context_set_params_text(clg_context *ctx,
                                               const char *text);

/** Writes every field ctx's calls use now as "wg=4096,...,small=64" (the
 *  syntax of CLGATHER_PARAMS, in id order) into buf (size cap, always
 *  terminated when cap > 0). Thread-safe.
 *  Errors: NULL_POINTER (ctx or buf), INVALID_ARGUMENT (a malformed
 *  CLGATHER_PARAMS as clg_context_get_params, buf then ""; or cap too
 *  small for every field, the message giving the size needed, buf then
 *  holding the fields that fit). 256 bytes hold today's fields. */
CLG_API clg_status clg_context_format_params(clg_context *ctx, char *buf,
                                             size_t cap);

/** Which index check a host-memory call runs before its first launch. */
typedef enum clg_index_check {
    CLG_INDEX_CHECK_NONE = 0,  /* none: each kernel checks its own index */
    CLG_INDEX_CHECK_HOST = 1,  /* a scan of the indices on the host */
    CLG_INDEX_CHECK_DEVICE = 2 /* the check kernel over the indices in place */
} clg_index_check;

/** Runs on host `indices` (INT32 or INT64) the index check that a
 *  host-memory call (clg_run, clg_gather, ...) with these indices
 *  runs before a kernel may write the caller's memory, and writes to *ran
 *  which one it ran, so that a benchmark can time it apart:
 *  - on a context that uses host memory (clg_context_uses_host_memory):
 *    up to 65536 values, or indices larger than one buffer, are scanned on
 *    the host; more, by the check kernel over the indices in place;
 *  - on other contexts: a host scan, which a host-memory call runs only
 *    when it processes a tensor larger than clg_context_max_alloc_size in
 *    pieces (otherwise its kernels check each index themselves).
 *  `axis_size` (s) is the operator's: values must lie in [-s, s-1]; `axis`
 *  only names the axis in the message. Thread-safe; blocks until the check
 *  is done.
 *  Errors: NULL_POINTER, UNSUPPORTED_DTYPE, INVALID_RANK, INVALID_SHAPE,
 *  TENSOR_TOO_LARGE (the message naming the indices' rank or dimension),
 *  INVALID_ARGUMENT (axis_size negative), INDEX_OUT_OF_RANGE (the message
 *  names the first bad position, as the operators' do), OUT_OF_MEMORY,
 *  OPENCL_ERROR, BUILD_FAILED, DEVICE_MISCOMPILED. */
CLG_API clg_status clg_check_indices(clg_context *ctx,
                                     const clg_tensor *indices, size_t axis,
                                     int64_t axis_size, clg_index_check *ran);

/* ======================================================================
 * 5. Operators
 * ==================================================================== */

/** The one table of operators: X(ID, value, name, op_type, versions,
 *  attribute), where
 *  - ID gives the enum value CLG_OP_<ID>;
 *  - value is its number, the row's position from 0 (pinned: operators
 *    are only ever appended);
 *  - name is its C name: the named functions clg_<name>, clg_<name>_ex,
 *    ... (section 9) and, with each '_' written '-', the tool's word for
 *    it (clg_op_word, e.g. "gather-elements");
 *  - op_type is its ONNX op_type (clg_op_name);
 *  - versions are the opsets of the ONNX default domain in which its
 *    page changed, in parentheses: the first is the first opset that has
 *    it (clg_op_first_opset); clg_op_version gives the one an opset
 *    selects;
 *  - attribute is its int64 attribute: the clg_call field that the named
 *    functions take as their fourth argument, and its ONNX name
 *    (clg_op_attribute).
 *  With r the rank of data, q that of indices, s = data.shape[axis] and
 *  norm(v) = v < 0 ? v + s : v, each index value lies in [-s, s-1] (for
 *  every opset, Gather-1 included; negative counts from the end) unless
 *  the call chose another out-of-range mode (CLG_OOB_TABLE):
 *  - GATHER: ONNX Gather (opsets 1, 11, 13),
 *      output[o..., i..., k...] = data[o..., norm(indices[i...]), k...]
 *    data: any dtype, rank r >= 1; indices: INT32 or INT64, any rank
 *    q >= 0 (rank 0: a scalar); axis in [-r, r-1], negative counting from
 *    the back; output: data's dtype, shape data.shape[:axis] +
 *    indices.shape + data.shape[axis+1:] (rank q + r - 1). On CPU devices
 *    a call with at least 1 MiB of output (the `norm` device parameter)
 *    also needs a device temporary of 4 bytes per index for the
 *    normalised indices.
 *  - GATHER_ELEMENTS: ONNX GatherElements (opsets 11, 13),
 *      output[p] = data[p with p[axis] replaced by norm(indices[p])]
 *    data: any dtype, rank r >= 1; indices: INT32 or INT64, rank r
 *    (RANK_MISMATCH otherwise), indices.shape[d] <= data.shape[d] for
 *    every d != axis (indices.shape[axis] is free; SHAPE_MISMATCH
 *    otherwise); axis as Gather's; output: data's dtype, indices' shape.
 *    On CPU devices, off the last axis, it may pack strips of data into a
 *    device temporary of at most one allocation.
 *  - GATHER_ND: ONNX GatherND (opsets 11, 12, 13; batch_dims from 12, 0
 *    before). With b = batch_dims and k = indices.shape[q-1], each index
 *    is a tuple of k values, its component c a position along data dim
 *    b + c, in [-data.shape[b+c], data.shape[b+c]-1]:
 *      output[i..., j..., t...] = data[i..., norm_0(indices[i..., j..., 0]),
 *                                      ..., norm_{k-1}(...), t...]
 *    for batch positions i (b dims), tuple positions j and slice
 *    positions t. data: any dtype, rank r >= 1; indices: INT64 (ONNX) or
 *    INT32 (an extension), rank q >= 1 (INVALID_RANK otherwise);
 *    batch_dims b in [0, min(q, r) - 1] (INVALID_ARGUMENT otherwise);
 *    data.shape[d] == indices.shape[d] for d < b, no broadcast, and
 *    1 <= k <= r - b (SHAPE_MISMATCH otherwise, naming both shapes);
 *    output: data's dtype, shape indices.shape[:q-1] + data.shape[b+k:]
 *    (rank q - 1 + r - b - k; k = r - b gives one element per tuple). The
 *    out-of-range modes apply per component, and FILL zeroes the whole
 *    slice a tuple selects when any of its components is out of range;
 *    raise's message names the component, e.g. `indices[1][0][2] = 5 is
 *    out of range [-3, 2] for data dim 2 of size 3`. Every device launch
 *    also makes a read-only buffer of (1 + 2k) * 8 bytes holding the
 *    tuple's dims, released with the launch.
 *  A blocking call takes its temporaries from the context's scratch pool,
 *  which keeps them for later calls until clg_context_destroy; an
 *  enqueued call's own are released once its kernels are done
 *  (docs/design.md, "Kernels"). */
#define CLG_OP_TABLE(X)                                                       \
    X(GATHER, 0, gather, "Gather", (1, 11, 13), axis)                         \
    X(GATHER_ELEMENTS, 1, gather_elements, "GatherElements", (11, 13), axis)  \
    X(GATHER_ND, 2, gather_nd, "GatherND", (11, 12, 13), batch_dims)

#define CLG_OP_ENUM_ENTRY_(ID, value, name, op_type, versions, attribute)     \
    CLG_OP_##ID = value,
/** The operators, numbered as CLG_OP_TABLE's rows. */
typedef enum clg_op { CLG_OP_TABLE(CLG_OP_ENUM_ENTRY_) } clg_op;
#undef CLG_OP_ENUM_ENTRY_

/** The number of operators of the library loaded: its clg_op values are 0
 *  to clg_op_count() - 1 (a program built against an older header may see
 *  more than it names). Thread-safe. */
CLG_API int clg_op_count(void);

/** The ONNX op_type of an operator, e.g. "GatherElements". Static, never
 *  NULL; "unknown" for a value outside CLG_OP_TABLE. */
CLG_API const char *clg_op_name(clg_op op);

/** The tool's word for an operator: its C name with each '_' written '-',
 *  e.g. "gather-elements". Static, never NULL; "unknown" for a value
 *  outside CLG_OP_TABLE. */
CLG_API const char *clg_op_word(clg_op op);

/** Parses an operator into *op: its ONNX op_type ("GatherElements"), its
 *  word ("gather-elements") or its C name ("gather_elements"), exact and
 *  case-sensitive. Thread-safe. On failure clg_context_last_error(NULL)
 *  on the same thread names the text and the operators.
 *  Errors: NULL_POINTER, INVALID_ARGUMENT (no operator has that name;
 *  *op unchanged). */
CLG_API clg_status clg_op_parse(const char *text, clg_op *op);

/** The first opset of the ONNX default domain that has the operator (1
 *  for Gather, 11 for GatherElements); 0 for a value outside
 *  CLG_OP_TABLE. */
CLG_API int clg_op_first_opset(clg_op op);

/** The version of the operator that a model importing `opset` of the
 *  ONNX default domain runs: the largest of its versions (CLG_OP_TABLE)
 *  not above opset, e.g. 11 for Gather at opset 12; 0 when opset is below
 *  its first or op is outside CLG_OP_TABLE. */
CLG_API int clg_op_version(clg_op op, int64_t opset);

/** The ONNX name of the operator's int64 attribute (CLG_OP_TABLE), e.g.
 *  "axis". Static, never NULL; "unknown" for a value outside
 *  CLG_OP_TABLE. */
CLG_API const char *clg_op_attribute(clg_op op);

/** The out-of-range modes: X(name, value, word), the value pinned (0, the
 *  default, is raise), the word the one the tool's --oob takes. With s =
 *  data.shape[axis] and v an index value:
 *  - RAISE (default): ONNX's contract. A value outside [-s, s-1] fails the
 *    call with INDEX_OUT_OF_RANGE naming the first such position, its
 *    value and the range (ONNX Runtime CPU, numpy.take mode='raise').
 *  - WRAP: position v mod s, Python-style, always in [0, s-1]
 *    (numpy.take mode='wrap'; ArrayFire folds the same way).
 *  - CLIP: v clamped to [-s, s-1], then a negative value normalised by
 *    adding s: below -s selects position 0, above s-1 position s-1 (the
 *    WebNN gather clamp; numpy.take mode='clip' for non-negative values).
 *  - FILL: the output element an out-of-range value selects is all zero
 *    bytes; for Gather, the whole inner block it selects (ONNX Runtime
 *    CUDA, TensorFlow GPU, OpenVINO GPU, Arm Compute Library; JAX's
 *    mode='fill' with a zero fill value). A STRING element becomes a
 *    descriptor of zero bytes: {data NULL, length 0}, the empty string.
 *  In range, every mode is ONNX's norm(v). WRAP, CLIP and FILL never fail
 *  on a value, so their kernels take one pass over the indices: no check
 *  before, no readback after. Every mode gives the same bytes on every
 *  device and in the reference, and no mode moves an access outside its
 *  buffers. An axis of size 0 has no position to wrap or clip onto: a
 *  call whose output is not empty then fails with INDEX_OUT_OF_RANGE in
 *  every mode, FILL included (so that every path agrees without a fill
 *  command; on the enqueue path this error is immediate, not deferred). */
#define CLG_OOB_TABLE(X)                                                      \
    X(RAISE, 0, "raise")                                                      \
    X(WRAP, 1, "wrap")                                                        \
    X(CLIP, 2, "clip")                                                        \
    X(FILL, 3, "fill")

#define CLG_OOB_ENUM_ENTRY_(name, value, word) CLG_OOB_##name = value,
/** How a call treats an index value outside [-s, s-1] (CLG_OOB_TABLE). */
typedef enum clg_oob_mode { CLG_OOB_TABLE(CLG_OOB_ENUM_ENTRY_) } clg_oob_mode;
#undef CLG_OOB_ENUM_ENTRY_

/** The word of a mode ("raise", "wrap", "clip", "fill"). Static, never
 *  NULL; "unknown" for a value outside CLG_OOB_TABLE. */
CLG_API const char *clg_oob_mode_name(clg_oob_mode mode);

/** Parses a mode's word (exact, lower case) into *mode.
 *  Errors: NULL_POINTER, INVALID_ARGUMENT (not a word of CLG_OOB_TABLE;
 *  *mode unchanged). */
CLG_API clg_status clg_oob_mode_parse(const char *word, clg_oob_mode *mode);

/** Options of one operator call, taken by the _ex functions (section 9)
 *  and held in clg_call. A zero-initialised struct (or a NULL pointer)
 *  gives the behaviour of the functions without _ex. Its layout is fixed:
 *  options added later are appended to clg_call, not here. Borrowed for
 *  the call; per call, not per context, so threads sharing a context may
 *  use different modes at once.
 *  - oob: the out-of-range mode (CLG_OOB_TABLE). */
typedef struct clg_call_options {
    clg_oob_mode oob;
} clg_call_options;

/** One operator call, as data: the operator, its attributes and its
 *  options, taken by the generic calls (clg_run, clg_run_cl, clg_enqueue,
 *  clg_reference, clg_warm_up, clg_warm_up_cl, clg_output_shape).
 *  A zero-initialised struct is Gather on axis 0 with the default options.
 *  - size: sizeof(clg_call) as the caller compiled it, or 0. The struct
 *    only grows at its end (fields appended, their zero the old
 *    behaviour), and the library reads the caller's `size` bytes: 0 stands
 *    for the first layout (size, op, axis, options; CLG_CALL_SIZE_1), so
 *    a caller that zeroes the struct and sets only those fields works with
 *    every later library. To use a field appended later, set size =
 *    sizeof(clg_call). A size larger than this library's clg_call is
 *    accepted when every byte past it is zero (the fields this library
 *    does not know then keep their defaults), as Linux's extensible
 *    system-call structs do, up to CLG_CALL_SIZE_MAX (4096) bytes.
 *  - op: the operator (CLG_OP_TABLE).
 *  - axis: Gather's and GatherElements' axis, in [-r, r-1].
 *  - options: the per-call options (clg_call_options).
 *  - batch_dims: GatherND's batch_dims, in [0, min(q, r) - 1]; appended
 *    after the first layout, so it needs size = sizeof(clg_call) (or 0
 *    for a zero batch_dims).
 *  - data_offset, indices_offset, output_offset: where each device-buffer
 *    tensor starts in its cl_mem, in bytes (after CLBlast's x_offset, in
 *    bytes as PyOpenCL's Array.offset), for clg_run_cl, clg_enqueue and
 *    clg_warm_up_cl; 0 for the host-memory calls (clg_run, clg_reference,
 *    clg_warm_up), which refuse others. Appended: they need size =
 *    sizeof(clg_call). Alignment rule: a multiple of the tensor's element
 *    size (clg_dtype_size; 4 or 8 for indices), and the buffer must hold
 *    offset + the tensor's bytes. An offset that is a multiple of the
 *    device's CL_DEVICE_MEM_BASE_ADDR_ALIGN (in bytes) is used in place
 *    through a sub-buffer; any other goes through a device-side copy of
 *    that tensor (clEnqueueCopyBuffer into a temporary buffer, and for
 *    the output back from it), enqueued in the call (docs/design.md,
 *    "Host memory and device buffers"). Tensors of one call may share a
 *    cl_mem when their byte ranges do not overlap (the output's with
 *    neither input's).
 *  Borrowed for the call; the library keeps no pointer to it.
 *  Every generic call checks it first: NULL_POINTER (call NULL),
 *  INVALID_ARGUMENT (op outside CLG_OP_TABLE; size neither 0 nor in
 *  [CLG_CALL_SIZE_1, CLG_CALL_SIZE_MAX]; a nonzero byte past this
 *  library's clg_call), the
 *  message naming the field and its value. */
typedef struct clg_call {
    uint32_t size;
    clg_op op;
    int64_t axis;
    clg_call_options options;
    int64_t batch_dims;   /* appended: GatherND's batch_dims */
    uint64_t data_offset; /* appended: byte offsets of device tensors */
    uint64_t indices_offset;
    uint64_t output_offset;
} clg_call;

/** The bytes of clg_call's first layout (size, op, axis, options): the
 *  least nonzero `size` a library accepts. */
#define CLG_CALL_SIZE_1                                                       \
    (offsetof(clg_call, options) + sizeof(clg_call_options))

/** The largest `size` a library accepts: one page, as Linux's extensible
 *  system-call structs (E2BIG past it), so that a garbage size is refused
 *  before the library reads that far. */
#define CLG_CALL_SIZE_MAX 4096

/** Sets the int64 attribute of call->op (CLG_OP_TABLE's attribute
 *  column: call->axis for Gather and GatherElements, call->batch_dims for
 *  GatherND) to `value`, so that a
 *  program that reads operators from files or command lines need not know
 *  each one's field. Touches no other field; the value is checked by the
 *  call that takes it. Thread-safe.
 *  Errors: NULL_POINTER, INVALID_ARGUMENT (call->op outside CLG_OP_TABLE;
 *  call->size, 0 standing for CLG_CALL_SIZE_1, not reaching the field,
 *  which is then not written; the message in
 *  clg_context_last_error(NULL)). */
CLG_API clg_status clg_call_set_attribute(clg_call *call, int64_t value);

/** Output shape of the call's operator (CLG_OP_TABLE gives each one's
 *  shape) on these data and indices descriptors. Writes the rank to *rank
 *  and the dimensions to shape[0 .. rank-1] (`capacity` entries
 *  available; CLG_MAX_RANK always suffices).
 *  Validates everything but the index values and the data pointers. Takes
 *  no context: on failure the message is in clg_context_last_error(NULL)
 *  of the calling thread.
 *  Errors: those of clg_call (see there), NULL_POINTER, INVALID_RANK (data
 *  rank 0, or a rank above CLG_MAX_RANK), INVALID_AXIS, INVALID_SHAPE,
 *  UNSUPPORTED_DTYPE (data dtype unknown, indices not INT32/INT64),
 *  INVALID_ARGUMENT (capacity below the output rank), TENSOR_TOO_LARGE,
 *  and the operator's own (GatherElements: RANK_MISMATCH when the indices'
 *  rank differs from the data's, SHAPE_MISMATCH when indices.shape[d] >
 *  data.shape[d] for some d != axis; GatherND: INVALID_RANK for indices
 *  of rank 0, INVALID_ARGUMENT for batch_dims outside [0, min(q, r) - 1],
 *  SHAPE_MISMATCH for unequal batch dims or k outside [1, r - b]). */
CLG_API clg_status clg_output_shape(const clg_call *call,
                                    const clg_tensor *data,
                                    const clg_tensor *indices, int64_t *shape,
                                    size_t capacity, size_t *rank);

/** Runs the call's operator on the context's device, host memory in and
 *  out.
 *  - call: the operator, its attributes and options (clg_call).
 *  - data, indices: as the operator asks (CLG_OP_TABLE).
 *  - output: caller-allocated; its dtype must equal data's and its shape
 *    the one clg_output_shape gives; it must not overlap data or
 *    indices. Written only on success: on any error the output memory is
 *    left exactly as it was (a call split into pieces writes a staging
 *    copy, committed only when every piece succeeded). One failure no host
 *    code can undo is the exception: when the device reports an error
 *    after the call's single kernel was enqueued (the wait, or the read or
 *    map that delivers the result, fails, or one of the call's commands
 *    ends with a negative execution status), each output byte holds
 *    either its old value or its result, never anything else.
 *  - Options: under a mode other than CLG_OOB_RAISE an index value out of
 *    range is not an error but is resolved as CLG_OOB_TABLE says.
 *    Validation mode (clg_context_set_validate) compares with the
 *    reference under the same options.
 *  - Queue: host-memory calls run on a queue of the library's own, never
 *    behind commands the caller enqueued (on the context's queue or any
 *    other), so a caller's failed event never stops them.
 *  - data, indices, output memory: any address (no alignment required).
 *  Empty tensors are valid; no kernel is launched for them.
 *  Errors: those of clg_output_shape, plus NULL_POINTER (ctx NULL; a data
 *  pointer NULL for a non-empty tensor), INVALID_ARGUMENT (output memory
 *  overlapping an input; a malformed CLGATHER_PARAMS; call->options.oob
 *  outside CLG_OOB_TABLE), SHAPE_MISMATCH or UNSUPPORTED_DTYPE (output
 *  descriptor differs from the expected one), INDEX_OUT_OF_RANGE (under
 *  raise, a value outside [-s, s-1]: the message names the first such
 *  position, its value and the valid range; under every mode, an axis of
 *  size 0 and a non-empty output), OPENCL_ERROR (e.g.
 *  CL_MEM_OBJECT_ALLOCATION_FAILURE when the device cannot hold a piece of
 *  output and a window of data at once; or a command of the call that
 *  ended with a negative execution status: the message names the command
 *  and the status, clg_context_last_cl_error is
 *  CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST and
 *  clg_context_last_exec_status the status), BUILD_FAILED,
 *  DEVICE_MISCOMPILED (a kernel the call needs failed its known-answer
 *  self-test on this device; see CLG_STATUS_TABLE), DEVICE_MISMATCH
 *  (validation mode). Every blocking call checks the execution status of
 *  each command it waited for before it returns OK.
 *  Size: tensors of any element count (2^31 and beyond) are supported; a
 *  tensor larger than clg_context_max_alloc_size() is processed in pieces:
 *  the output in contiguous pieces that each fit one buffer, the data each
 *  piece reads in windows that each fit one buffer. Temporaries: see
 *  CLG_OP_TABLE. The message is in clg_context_last_error(ctx).
 *  Threading: any thread, any number at once on one context. */
CLG_API clg_status clg_run(clg_context *ctx, const clg_call *call,
                           const clg_tensor *data, const clg_tensor *indices,
                           const clg_tensor *output);

/** The call on device-resident buffers of the context's cl_context;
 *  blocks until the result is in `output->buffer`: clg_enqueue on the
 *  context's queue, then a wait for this call (on the in-order queue, so
 *  also for the commands enqueued there before it). Same semantics and
 *  errors as clg_run (no validation mode), except that after
 *  INDEX_OUT_OF_RANGE or OPENCL_ERROR the output buffer's contents are
 *  unspecified (no byte outside it is ever written).
 *  Poisoning: because the call runs on the context's queue after what is
 *  already there, a command there that fails also stops this call; for
 *  instance an operation another thread enqueued on the context's queue
 *  (queue NULL) behind a user event that is then set to a negative status.
 *  The runtime then terminates this call's commands too, and it returns
 *  OPENCL_ERROR naming the command and its execution status
 *  (clg_context_last_exec_status), never OK. Enqueue on a queue of your
 *  own, or use the host-memory calls, to keep blocking calls apart from
 *  gated work (docs/design.md, "Enqueue and deferred errors"). Buffers
 *  must belong to the context's cl_context and hold their tensors at
 *  the call's offsets (clg_call's data_offset, indices_offset and
 *  output_offset, 0 by default), and the output's bytes must not overlap
 *  an input's in the same buffer (INVALID_ARGUMENT otherwise, also for an
 *  offset that breaks clg_call's alignment rule; overlapping sub-buffers
 *  the caller made are not detected and give unspecified output). STRING
 *  descriptors are moved as 16-byte elements. */
CLG_API clg_status clg_run_cl(clg_context *ctx, const clg_call *call,
                              const clg_cl_tensor *data,
                              const clg_cl_tensor *indices,
                              const clg_cl_tensor *output);

/** CPU reference of the call's operator, written straight from the ONNX
 *  formula (CLG_OP_TABLE) and independent of the device path. Same
 *  arguments, semantics and errors as clg_run (no OpenCL errors, no
 *  validation mode). `ctx` may be NULL: the message then goes to
 *  clg_context_last_error(NULL) of the calling thread. */
CLG_API clg_status clg_reference(clg_context *ctx, const clg_call *call,
                                 const clg_tensor *data,
                                 const clg_tensor *indices,
                                 const clg_tensor *output);

/* ======================================================================
 * 6. Enqueue: operators inside an OpenCL pipeline
 * ==================================================================== */

/** Enqueues the call's operator on device buffers and returns without
 *  waiting for the device (no clFinish, no blocking read, write or map;
 *  the first call of a kernel variant builds its program on the host).
 *  Semantics as clg_run_cl.
 *  - queue: NULL for the context's queue, or any command queue of the
 *    context's cl_context and device, in order or out of order.
 *  - num_events_in_wait_list, event_wait_list: as for
 *    clEnqueueNDRangeKernel (OpenCL 1.2 section 5.8): the operation starts
 *    after these events complete. The events must belong to the context's
 *    cl_context. Every event of the list is retained until the next
 *    clg_context_finish, and so are the events of the operation's own
 *    commands (several for some plans), so that no runtime has to
 *    propagate a failure through a released event; the events of
 *    commands that did not run are kept until clg_context_destroy.
 *  - event: when not NULL, receives a new event that completes once the
 *    output is written; the caller releases it (clReleaseEvent). On an
 *    out-of-order queue it is the only ordering against later commands.
 *    It must not point into event_wait_list (INVALID_ARGUMENT).
 *  Checked before anything is enqueued, and returned at once: the call
 *  (clg_call), descriptors (shapes, dtypes, attributes: as clg_run),
 *  buffers (NULL, another cl_context, too small: NULL_POINTER or
 *  INVALID_ARGUMENT), the output buffer being an input's
 *  (INVALID_ARGUMENT), the queue and the wait list (INVALID_ARGUMENT), an
 *  event of the wait list that has already failed (OPENCL_ERROR naming
 *  it, e.g. "event_wait_list[0] has already failed (its execution status
 *  is -7, an error)"; clg_context_last_exec_status gives the status), the
 *  options (INVALID_ARGUMENT for an oob outside CLG_OOB_TABLE; under a
 *  mode other than raise, an axis of size 0 with a non-empty output is
 *  INDEX_OUT_OF_RANGE) and the pending limit (PENDING_LIMIT: 262,144
 *  operations enqueued through the context since the last
 *  clg_context_finish; call it and enqueue again). Nothing is enqueued
 *  after such an error, *event is left unset and no operation number is
 *  taken.
 *  An event of the wait list that fails after the enqueue: the operation
 *  does not run (its output is not written), and clg_context_finish says
 *  so (see there). Failing it from another thread while the enqueue call
 *  runs is a race: on POCL 3.1 the operation may then stay queued for
 *  ever, and the finish and clg_context_destroy wait for it.
 *  Index values are checked on the device, and under raise an error there
 *  is deferred: the operation completes (its event too), its output
 *  buffer's contents are unspecified, and no byte outside its buffers is
 *  written, whatever the indices. The error surfaces from the next
 *  clg_context_finish(ctx), which names this operation (its sequence
 *  number, op, shapes and dtypes), the first bad position and its value.
 *  The indices buffer is retained until then, to name them. Under the
 *  other modes no index value raises a deferred error.
 *  Threading: any thread. On an in-order queue, operations run in the
 *  order their calls returned; on an out-of-order queue only the events
 *  order them.
 *  Errors (immediate): those of clg_run_cl except INDEX_OUT_OF_RANGE under
 *  raise; INVALID_ARGUMENT for a queue or event the runtime reports as
 *  invalid (CL_INVALID_COMMAND_QUEUE, CL_INVALID_EVENT); OPENCL_ERROR when
 *  the runtime fails otherwise to describe them, an event of the wait
 *  list has already failed, or an enqueue fails (commands already
 *  enqueued by the call still run; the output is then unspecified);
 *  PENDING_LIMIT; BUILD_FAILED; DEVICE_MISCOMPILED (nothing enqueued for
 *  its kernel).
 *  Invalid handles: clgather detects a NULL context, call, tensor, shape
 *  or buffer pointer (NULL_POINTER), a NULL event in the wait list, and
 *  handles that are valid OpenCL objects of the wrong context or device
 *  where the runtime says so: a queue or event of another cl_context or
 *  device, a buffer too small or of another cl_context (INVALID_ARGUMENT).
 *  Anything else is undefined behaviour, as in OpenCL itself: a released,
 *  freed or garbage queue, event or buffer handle (it may crash inside
 *  the runtime), a handle of another type (e.g. a cl_mem passed as an
 *  event: POCL accepts it and the finish may then never return), a
 *  context used after clg_context_destroy, and a pointer to fewer
 *  elements than its shape says. */
CLG_API clg_status clg_enqueue(clg_context *ctx, cl_command_queue queue,
                               const clg_call *call, const clg_cl_tensor *data,
                               const clg_cl_tensor *indices,
                               const clg_cl_tensor *output,
                               cl_uint num_events_in_wait_list,
                               const cl_event *event_wait_list,
                               cl_event *event);

/** Waits for every operation enqueued through `ctx` (clg_enqueue_*), on
 *  every queue they used, that no earlier finish (this function,
 *  clg_context_finish_queue or clg_context_finish_events) reported, and
 *  returns the first deferred error among them in enqueue order: OK when
 *  none. It waits for those operations only (their events), not for other
 *  commands the caller put on the same queues. Operations are numbered
 *  (#N) in the order the context accepted their enqueue calls, from 1.
 *  Until a finish, each operation keeps its indices buffer retained,
 *  its events and host memory: 1.1 to 1.7 KB per operation on POCL 3.1
 *  (measured with 200,000 pending Gathers: the library's record, about
 *  200 bytes, and the runtime's event and command, of which POCL recycles
 *  more or less while the operations are enqueued); call it regularly.
 *  At most 262,144 operations are held (PENDING_LIMIT), about 290 to
 *  450 MB. A finish frees the library's records and keeps 2 chunks of
 *  1,024 error slots for the next batch; POCL 3.1 keeps the freed events
 *  and commands in its own free lists (50 to 90% of the peak stays
 *  resident after 200,000 operations) and reuses them, so the memory is
 *  bounded by the largest batch: through three batches of 200,000, each
 *  with its finish, the process stays within one batch at 2 KB per
 *  operation (410 MB) of where it started. Until
 *  its kernels have run, a Gather on a CPU device with 1 MiB of output or
 *  more also holds a device temporary of 4 bytes per index (see
 *  CLG_OP_TABLE), and a GatherElements off the last axis its packed strips
 *  (see there).
 *  INDEX_OUT_OF_RANGE's message (clg_context_last_error on the calling
 *  thread) reads e.g. "Gather #12 (data FLOAT[3, 4], indices INT64[2],
 *  axis 0): indices[1] = 7 is out of range [-3, 2] for axis 0 of size 3".
 *  The device records that the operation met a bad index; the position
 *  and value named are those of the first bad value its indices buffer
 *  holds at finish time; when the buffer was overwritten since and holds
 *  none, the message says so instead.
 *  An operation that did not run (an event of its wait list failed after
 *  the enqueue, or an earlier command on its in-order queue failed, so
 *  the runtime terminated it) comes before any index error: the finish
 *  returns OPENCL_ERROR naming the first such operation, which event of
 *  its wait list failed with its execution status, its command's status,
 *  and how many later operations of the batch did not run either, e.g.
 *  "Gather #3 (...): the operation did not run: event_wait_list[0] failed
 *  with execution status -42 and its command ended with execution status
 *  -1, an error; its output was not written; 2 later operations did not
 *  run either". clg_context_last_cl_error is then
 *  CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST and
 *  clg_context_last_exec_status the failed event's status (-42 here: the
 *  value its owner gave it), or the command's when no event of its wait
 *  list failed (POCL gives a terminated command -1). Outputs of
 *  operations that did not run are not written. Other errors of later
 *  operations in the same batch are dropped. Finishing concurrently from
 *  several threads is allowed: each finish waits for the batch it took and
 *  any earlier one. Blocking calls (clg_run, clg_run_cl, clg_gather, ...) report
 *  their own errors and never appear here.
 *  Errors: NULL_POINTER, INDEX_OUT_OF_RANGE (deferred), OPENCL_ERROR (a
 *  wait failed, or reading or clearing the operations' error records, or
 *  reading a failed operation's indices back: the device or a queue is
 *  broken; the message names the call), OUT_OF_MEMORY, INVALID_ARGUMENT
 *  (a context of the parent's in a forked child, see "Processes" at the
 *  top). */
CLG_API clg_status clg_context_finish(clg_context *ctx);

/** clg_context_finish for the operations enqueued through `ctx` on one
 *  queue only: waits for those enqueued on `queue` (NULL: the context's
 *  queue, clg_context_cl_queue; the queue as given to clg_enqueue_*, where
 *  NULL also meant the context's) that no earlier finish reported, and
 *  returns the first deferred error among them, with the same order,
 *  messages and statuses as clg_context_finish. Operations on other
 *  queues are neither waited for nor reported: they stay pending, with
 *  their errors, for a later finish. The operations it waited for are
 *  reported once: a later clg_context_finish, or another thread's
 *  clg_context_finish_queue or clg_context_finish_events, does not
 *  report them again (and their retained indices buffers, events and
 *  records are released). This is how each thread of a program that
 *  shares one context gets its own errors: a thread that enqueues on a
 *  queue of its own and finishes that queue never sees another thread's
 *  bad index, and never takes one from it. A queue through which nothing
 *  is pending (or that is not a queue of the context) gives OK at once.
 *  Finishes run one at a time (see clg_context_finish): one waits while
 *  another waits for its operations. Thread-safe.
 *  Errors: NULL_POINTER (ctx NULL), INDEX_OUT_OF_RANGE (deferred),
 *  OPENCL_ERROR (an operation that did not run, or a wait or the reading
 *  of error records failed), OUT_OF_MEMORY, INVALID_ARGUMENT (a context
 *  of the parent's in a forked child, see "Processes" at the top). */
CLG_API clg_status clg_context_finish_queue(clg_context *ctx,
                                            cl_command_queue queue);

/** clg_context_finish for the operations whose output events are
 *  listed: `events[0 .. num_events-1]` are events a clg_enqueue_* call
 *  returned in its `event` argument. Waits for those operations, returns
 *  the first deferred error among them in enqueue order (as
 *  clg_context_finish) and reports them once, like
 *  clg_context_finish_queue; every other operation stays pending with its
 *  errors. An event that names no pending operation of `ctx` (one already
 *  reported by an earlier finish, or one the library did not return) is
 *  ignored, and neither waited for nor retained; num_events 0 gives OK.
 *  The events stay the caller's (not released). Thread-safe.
 *  Errors: NULL_POINTER (ctx NULL, or events NULL with num_events > 0),
 *  INVALID_ARGUMENT (an entry of events is NULL; a context of the
 *  parent's in a forked child), INDEX_OUT_OF_RANGE (deferred),
 *  OPENCL_ERROR, OUT_OF_MEMORY (as clg_context_finish_queue). */
CLG_API clg_status clg_context_finish_events(clg_context *ctx,
                                             cl_uint num_events,
                                             const cl_event *events);

/* ======================================================================
 * 7. Diagnostics
 * ==================================================================== */

/** Message of the calling thread's last failed call on `ctx`, naming the
 *  call or argument and the values involved, e.g. "indices[1][2] = 5 is
 *  out of range [-3, 2] for axis 1 of size 3". "" after a success, and
 *  for a thread that has made no call on ctx. Per thread: other threads'
 *  calls on the same context never change it (a thread remembers its last
 *  8 contexts). With ctx NULL: the thread's last failed call made without
 *  a context (clg_context_create, reference functions with a NULL ctx).
 *  At most 1023 bytes: a longer message (one quoting a long path) keeps
 *  its head and its end, where the reason stands, around "...", and cuts
 *  no UTF-8 character. Owned by the library; valid until the thread's
 *  next call on the same context (or, for NULL, its next call without
 *  one). */
CLG_API const char *clg_context_last_error(const clg_context *ctx);

/** Raw OpenCL error code of the calling thread's last OPENCL_ERROR or
 *  BUILD_FAILED on `ctx` (CL_SUCCESS when its last failure was not an
 *  OpenCL one). It is always an API error code: when the failure was a
 *  command that did not complete (a negative execution status, e.g. an
 *  event of its wait list failed), it is
 *  CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST, as clWaitForEvents would
 *  answer, and clg_context_last_exec_status gives the status itself. */
CLG_API cl_int clg_context_last_cl_error(const clg_context *ctx);

/** Execution status (CL_EVENT_COMMAND_EXECUTION_STATUS, a negative value)
 *  behind the calling thread's last OPENCL_ERROR on `ctx`: of a command
 *  that ended without completing (a blocking call), of an event of a wait
 *  list that had already failed (an enqueue), or, for an operation that
 *  did not run (clg_context_finish), of the event of its wait list that
 *  failed, else of its command. The value is whatever the runtime or the
 *  caller set (clSetUserEventStatus accepts any negative value): it is an
 *  execution status, not an API error code, so do not pass it to
 *  clg_cl_error_name. CL_COMPLETE (0) when the last failure was of another
 *  kind, after a success, and for NULL. */
CLG_API cl_int clg_context_last_exec_status(const clg_context *ctx);

/** Where a host-memory call ran (the `host` device parameter). */
typedef enum clg_path {
    CLG_PATH_NONE = 0,   /* no host-memory call has succeeded yet */
    CLG_PATH_DEVICE = 1, /* on the device: kernels, or for an empty call
                            the index check alone */
    CLG_PATH_HOST = 2    /* on the calling thread, a plain loop */
} clg_path;

/** Where the calling thread's last successful host-memory call on ctx
 *  (clg_run, clg_gather, clg_gather_elements, clg_gather_nd and their _ex
 *  forms) ran. Per thread and per context, as the last error; a failed
 *  call leaves it as it was. CLG_PATH_NONE for a NULL ctx. */
CLG_API clg_path clg_context_last_path(const clg_context *ctx);

/** Symbolic name of an OpenCL error code, e.g. "CL_OUT_OF_RESOURCES".
 *  Static, never NULL; "CL_UNKNOWN_ERROR" for unknown codes. */
CLG_API const char *clg_cl_error_name(cl_int code);

/** Build log of the calling thread's last failed program build on `ctx`
 *  ("" if none). Owned by the library; valid until that thread's next
 *  failed build on ctx or its exit. */
CLG_API const char *clg_context_build_log(const clg_context *ctx);

/* ======================================================================
 * 8. Program cache and warm-up
 * ==================================================================== */

/** Each context builds a kernel's program on its first use. Besides
 *  keeping it for the context's life, it keeps the program's binary in a
 *  persistent cache on disk, so that a new process loads it instead of
 *  compiling (docs/design.md, "Program cache"; docs/guide.md, "Program
 *  cache"):
 *  - Folder, read at context creation: CLGATHER_CACHE_DIR, else
 *    $XDG_CACHE_HOME/clgather (an absolute XDG_CACHE_HOME only), else
 *    $HOME/.cache/clgather; created on the first store (mode 0700).
 *    CLGATHER_CACHE=0 turns the cache off ("1", empty or unset: on).
 *    clg_context_set_cache_dir overrides both for one context.
 *  - Cap: CLGATHER_CACHE_MAX, bytes with an optional K, M or G (powers of
 *    1024), default 512M (about 50 of POCL's 10 MB binaries). After each
 *    store the least recently used entries (by modification time, which
 *    a load refreshes) are removed until the folder holds at most the cap.
 *  - An entry is keyed by the platform name and version, the device name
 *    and vendor, CL_DRIVER_VERSION, the OpenCL C version, clgather's
 *    version, a hash of the kernel sources and the build options; the
 *    whole key is stored in the entry and compared whole. An entry that is
 *    truncated, empty, of another key, fails its checksum or holds a
 *    binary the runtime rejects is a miss: the program is built from
 *    source and the entry rewritten. Entries are written to a temporary
 *    file in the folder and renamed, so any number of threads and
 *    processes may share one folder.
 *  - Trust (docs/guide.md, "Program cache"): a binary is code that the
 *    runtime runs in the process (native code on a CPU device), so the
 *    cache reads only what no one but the effective user (or root) could
 *    have written. The folder is used only when owned by the effective
 *    user, or by root (a shipped read-only folder), and writable by
 *    neither group nor others; every folder above it only when owned by
 *    the effective user or root and writable by neither group nor others
 *    unless sticky (as /tmp). An entry is read only when it is a regular
 *    file (opened without following a link and without blocking) owned by
 *    the effective user or root and writable by neither group nor others.
 *    Root trusts root alone. Anything else is a miss, never read further
 *    and never written to; clg_context_cache_refusal says why. An entry's
 *    header is read and checked first, then its key (the platform,
 *    device, driver and clgather it was built for, compared first), and
 *    only then a payload of the header's length, whose checksum must
 *    match before the binary reaches the runtime. Eviction and
 *    clg_cache_clear remove only files that start with the cache's own
 *    header.
 *  - The cache never fails a call and prints nothing: an unwritable or
 *    read-only folder, a full disk or an unreadable entry leave the call
 *    uncached.
 *  A malformed CLGATHER_CACHE or CLGATHER_CACHE_MAX fails
 *  clg_context_create with INVALID_ARGUMENT. */

/** Longest cache folder path accepted, terminator included. */
#define CLG_CACHE_PATH_MAX 4096

/** The program cache's settings and, for a context, what it did. */
typedef struct clg_cache_info {
    int enabled;                        /* 1: programs are loaded and stored */
    char directory[CLG_CACHE_PATH_MAX]; /* "" when disabled */
    uint64_t max_bytes;                 /* the cap, bytes */
    uint64_t hits;                      /* programs loaded from the folder */
    uint64_t misses;   /* programs looked up and not found whole there */
    uint64_t stores;   /* entries written */
    uint64_t rejected; /* whole entries whose binary the runtime refused */
} clg_cache_info;

/** The settings the environment gives (what clg_context_create would
 *  use); the counts are 0. Needs no device.
 *  Errors: NULL_POINTER, INVALID_ARGUMENT (a malformed CLGATHER_CACHE or
 *  CLGATHER_CACHE_MAX; the message in clg_context_last_error(NULL)). */
CLG_API clg_status clg_cache_environment(clg_cache_info *info);

/** The context's cache settings and its counts since creation: every
 *  program the context built counts one hit (loaded from its binary) or
 *  one miss (built from source) while the cache is enabled. Why a miss
 *  passed over the folder or an entry: clg_context_cache_refusal.
 *  Errors: NULL_POINTER. */
CLG_API clg_status clg_context_cache_info(clg_context *ctx,
                                          clg_cache_info *info);

/** Why the context's program cache last passed over its folder or one of
 *  its entries: a static string (never NULL, never freed), "" while it
 *  has passed over none. It stays until the next one. The reasons:
 *  "not used: folder owned by another user", "not used: folder writable
 *  by group or others", "not used: folder cannot be opened", "not used:
 *  it, or a part of its path, is not a folder", "not used: the folder
 *  cannot be created (a part of its path is not a folder, or not
 *  writable)", "not used: a folder on its path is owned by another user
 *  or writable by others" (one not made yet), "not used: a folder above
 *  it is owned by another user", "... is writable by group or others",
 *  "... cannot be examined"; "entry not used: " followed by "owned by
 *  another user", "writable by group or others", "not a regular file", "a
 *  symbolic link", "cannot be read", "not a clgather entry", "truncated
 *  or damaged", "built for another platform, device, driver or
 *  clgather", "another program's entry", "its checksum does not match",
 *  "the runtime refused its binary". An entry that does not exist yet is
 *  a miss with no reason. ctx NULL gives "". Any thread. */
CLG_API const char *clg_context_cache_refusal(clg_context *ctx);

/** Whether a context would use cache folder `dir` (NULL: the
 *  environment's, as clg_cache_environment), and, when `file` is not NULL,
 *  the entry of that name in it: "" when it would, else a static string
 *  saying why not, as clg_context_cache_refusal gives (an entry's header
 *  is checked, its key and payload only when a context loads it). A
 *  folder that does not exist yet gives "" where the first store would
 *  create it (mode 0700), else why not (a file on its path, a folder
 *  above it that another user controls); an entry that does not exist, "entry not used: no such file"; a
 *  `file` that is not an entry's name (16 hex digits and ".bin"), "entry
 *  not used: not an entry's name"; dir NULL with the cache off, "not
 *  used: the program cache is off"; with CLGATHER_CACHE or
 *  CLGATHER_CACHE_MAX malformed, "not used: CLGATHER_CACHE or
 *  CLGATHER_CACHE_MAX is malformed". Never NULL; touches no error record.
 *  Needs no device. Any thread. */
CLG_API const char *clg_cache_check(const char *dir, const char *file);

/** Sets the context's cache folder, whatever the environment said: `dir`
 *  (copied; created on the first store) enables the cache there; NULL
 *  disables it. Programs already built stay. Any thread, at any time.
 *  Errors: NULL_POINTER (ctx), INVALID_ARGUMENT (dir empty or at least
 *  CLG_CACHE_PATH_MAX bytes). */
CLG_API clg_status clg_context_set_cache_dir(clg_context *ctx,
                                             const char *dir);

/** Sets the context's cap on the bytes of entries in its folder (see
 *  above); applied at the next store.
 *  Errors: NULL_POINTER, INVALID_ARGUMENT (bytes 0). */
CLG_API clg_status clg_context_set_cache_max(clg_context *ctx, uint64_t bytes);

/** One entry of a cache folder, as its header describes it (the payload's
 *  checksum is checked only when it is loaded). */
typedef struct clg_cache_entry {
    char file[32];     /* name in the folder: 16 hex digits + ".bin" */
    int whole;         /* 1: a header of this format and a matching size */
    char device[128];  /* device name (whole entries), truncated to fit */
    char driver[128];  /* CL_DRIVER_VERSION */
    char options[512]; /* build options */
    uint64_t bytes;    /* file size */
    int64_t last_use;  /* seconds since 1970 (the file's modification time) */
} clg_cache_entry;

/** Lists the entries of cache folder `dir` (NULL: the environment's, as
 *  clg_cache_environment) in no particular order: up to `capacity` into
 *  `entries` (may be NULL when capacity is 0), their total number into
 *  *count. A folder that does not exist holds none. A folder the cache
 *  does not trust is listed all the same (only read): clg_cache_check
 *  says that a context would use none of its entries, and why. Needs no
 *  device.
 *  Errors: NULL_POINTER, INVALID_ARGUMENT (the folder cannot be read; dir
 *  NULL and the cache off or the environment malformed). */
CLG_API clg_status clg_cache_list(const char *dir, clg_cache_entry *entries,
                                  size_t capacity, size_t *count);

/** Removes every entry (and temporary file) of cache folder `dir` (NULL:
 *  the environment's); *removed (may be NULL) gets the entries removed.
 *  Only regular files with an entry's name (or the cache's naming of
 *  temporary files) that start with the cache's header, and empty
 *  temporary files of that naming, are removed: other files, a foreign
 *  0123456789abcdef.bin among them, are left alone. Safe
 *  while other processes use the folder (they rebuild what they miss).
 *  A folder the cache does not trust (clg_cache_check's rules: another
 *  user's, writable by group or others, or below such a folder, a
 *  symbolic link to one included) is never removed from: nothing is
 *  removed and the call fails, with clg_cache_check's reason in the
 *  message. A folder that does not exist holds nothing to remove (OK).
 *  Errors: INVALID_ARGUMENT (the folder is not trusted, cannot be read, or
 *  an entry cannot be removed; dir NULL and the cache off or the
 *  environment malformed). */
CLG_API clg_status clg_cache_clear(const char *dir, size_t *removed);

/** Warm-up: builds, without running anything, every kernel that the same
 *  clg_run call would use on the device (its plan, variants, pieces and
 *  index check, chosen by the code the call itself runs), so that the call
 *  itself pays no build; with the program cache enabled it also fills the
 *  cache (a packager can fill it ahead of users). A call small enough for
 *  the `host` parameter runs on the calling thread and needs none of
 *  them; they are built all the same, for a context with host=0 and for
 *  validation mode. Takes the call's arguments:
 *  - call: as for clg_run, options included: the out-of-range mode
 *    selects the kernels (each mode has its own bodies), so a caller that
 *    will run with options.oob = CLG_OOB_CLIP warms up with the same
 *    options.
 *  - data, indices: descriptors as for clg_run. Their data pointers are
 *    not read and may be NULL, but the call's kernels can depend on their
 *    alignment: pass the memory the call will use, or NULL for memory
 *    aligned to 16 bytes or more (as malloc gives).
 *  - output: as for clg_run, or NULL (then its shape is not checked and
 *    its memory is taken as aligned to 16 bytes).
 *  Index values are not read and not checked. Environment and parameters
 *  (CLGATHER_PARAMS, CLGATHER_MAX_ALLOC, ...) count as for the call.
 *  Errors: those of clg_output_shape, NULL_POINTER (ctx, data or indices
 *  NULL), SHAPE_MISMATCH or UNSUPPORTED_DTYPE (output descriptor),
 *  INVALID_ARGUMENT (malformed CLGATHER_PARAMS; options.oob not a mode),
 *  INDEX_OUT_OF_RANGE (a mode other than raise, an axis of size 0 and a
 *  non-empty output: the call refuses it whatever the index values),
 *  BUILD_FAILED, DEVICE_MISCOMPILED (a warm-up also runs the self-test of
 *  every kernel it builds), OPENCL_ERROR. */
CLG_API clg_status clg_warm_up(clg_context *ctx, const clg_call *call,
                               const clg_tensor *data,
                               const clg_tensor *indices,
                               const clg_tensor *output);

/** Warm-up for clg_run_cl and clg_enqueue (which use the same kernels):
 *  as clg_warm_up, on device tensor descriptors whose buffers are not used
 *  and may be NULL; output may be NULL. The call's offsets are checked
 *  against the alignment rule only. */
CLG_API clg_status clg_warm_up_cl(clg_context *ctx, const clg_call *call,
                                  const clg_cl_tensor *data,
                                  const clg_cl_tensor *indices,
                                  const clg_cl_tensor *output);

/** Whole-device warm-up (after CLBlast's CLBlastFillCache): builds the
 *  kernels of every shape class below on the context's device, for the
 *  host-memory calls (clg_warm_up) and the device-buffer ones
 *  (clg_warm_up_cl), so that with the program cache enabled a later
 *  process on this device, driver and clgather loads them instead of
 *  compiling (a packager or an installer can fill a cache ahead of its
 *  users; `clgather cache --fill` calls it). Without the cache the kernels
 *  are built into the context alone. Nothing is run but the known-answer
 *  self-test of each kernel built; no memory of the tensors' size is
 *  allocated.
 *  What it builds: each shape class of the operators in `ops`, in one
 *  dtype of each element size of CLG_DTYPE_TABLE (1, 2, 4, 8 and 16 bytes:
 *  the kernels move bytes, so one dtype stands for its size; STRING needs
 *  no kernel), with int32 and int64 indices, in each out-of-range mode of
 *  `oob_modes`, each variant chosen by the code the call itself runs (as
 *  clg_warm_up does), with the context's parameters (CLGATHER_PARAMS,
 *  clg_context_set_param). The shape classes (data shape, indices shape,
 *  attribute), with data 16-byte aligned:
 *    Gather:          [1000, 256] [64] axis 0; [4096, 256] [4096] axis 0;
 *                     [256, 1000] [100] axis 1; [100000] [100000] axis 0;
 *                     [1000, R] [64] axis 0 for R = 257, 258, 260, 264
 *                     (rows of 1 KiB or more, each span);
 *                     [500, 24] [64] axis 0; [500, 6] [64] axis 0;
 *                     [7, 3] [2] axis 0; [3, 2^30] [2] axis 0
 *    GatherElements:  [256, 1000] [256, 100] axis 1; [1000, 256]
 *                     [100, 256] axis 0; [16, 100, 32] [16, 10, 32]
 *                     axis 1; [7, 3] [7, 2] axis 1; [7, 3] [5, 2] axis 1;
 *                     [1000, 256] [100, 128] axis 0; [2, 2^30] [2, 2^20]
 *                     axis 1
 *    GatherND:        [1000, 256] [64, 1] batch_dims 0; [500, 24] [64, 1]
 *                     batch_dims 0; [100, 100, 8] [500, 3] batch_dims 0;
 *                     [8, 100, 64] [8, 16, 1] batch_dims 1; [3, 2^30]
 *                     [2, 1] batch_dims 0; outputs of 1 MiB or more (the
 *                     per-tuple pass): [4096, 256] [4096, 1]; [100000]
 *                     [2^20, 1]; [1024, 1024] [2^20, 2]; [64, 128, 128]
 *                     [2^20, 3], all batch_dims 0; and, since that pass
 *                     moves slices with Gather's bodies, Gather's classes
 *                     with int32 indices
 *  (the last of each: 64-bit offsets, and tensors split into windows
 *  where one buffer cannot hold them; docs/guide.md, "Large tensors").
 *  A call of another shape loads from the cache whatever of its kernels
 *  one of these classes built (the choice depends on the row size, the
 *  axis, the output's size and the data's alignment; docs/guide.md,
 *  "Program cache").
 *  - ops: a mask of (1u << clg_op), 0 for every operator of CLG_OP_TABLE.
 *  - oob_modes: a mask of (1u << clg_oob_mode), 0 for every mode of
 *    CLG_OOB_TABLE.
 *  - warmed (may be NULL): the class/dtype/index/mode combinations warmed
 *    up; skipped (may be NULL): those the device's limits refused
 *    (TENSOR_TOO_LARGE, e.g. a buffer above its CL_DEVICE_MAX_MEM_ALLOC_SIZE
 *    that the library could not split), which are not an error. Once the
 *    arguments are accepted both are written, also when a warm-up fails
 *    (what was done until then).
 *  How many programs were compiled and how many loaded:
 *  clg_context_cache_info before and after. It takes seconds to minutes
 *  (every program a compile on a cold cache; a second fill loads them).
 *  Threading: as clg_warm_up; other threads may use the context meanwhile.
 *  Errors: NULL_POINTER (ctx NULL), INVALID_ARGUMENT (a bit outside the
 *  operator or mode table; a malformed CLGATHER_PARAMS), BUILD_FAILED,
 *  DEVICE_MISCOMPILED (a kernel failed its self-test), OPENCL_ERROR,
 *  OUT_OF_MEMORY; the first failure stops the fill, with the message of
 *  the warm-up that failed in clg_context_last_error. */
CLG_API clg_status clg_context_fill_cache(clg_context *ctx, uint32_t ops,
                                          uint32_t oob_modes, size_t *warmed,
                                          size_t *skipped);

/* ======================================================================
 * 9. Named operator functions
 * ==================================================================== */

/** Each operator of CLG_OP_TABLE has thirteen named functions, generated
 *  from its row: `clg_<op>(...)` is clg_run(...) with that operator, its
 *  int64 attribute (`axis`) passed as the fourth argument and, in the
 *  _ex forms, `options` (NULL: the defaults, i.e. exactly the form
 *  without _ex) as call->options. Each has the contract and errors of the
 *  generic call it stands for. For Gather (name gather, attribute axis):
 *    clg_gather(ctx, data, indices, axis, output)             clg_run
 *    clg_gather_ex(ctx, data, indices, axis, output, options)  clg_run
 *    clg_gather_cl(ctx, data, indices, axis, output)           clg_run_cl
 *    clg_gather_cl_ex(..., options)                            clg_run_cl
 *    clg_enqueue_gather(ctx, queue, data, indices, axis, output,
 *                       num_events_in_wait_list, event_wait_list,
 *                       event)                                 clg_enqueue
 *    clg_enqueue_gather_ex(..., event, options)                clg_enqueue
 *    clg_reference_gather(ctx, data, indices, axis, output)    clg_reference
 *    clg_reference_gather_ex(..., options)                     clg_reference
 *    clg_warm_up_gather(ctx, data, indices, axis, output)      clg_warm_up
 *    clg_warm_up_gather_ex(..., options)                       clg_warm_up
 *    clg_warm_up_gather_cl(ctx, data, indices, axis, output)   clg_warm_up_cl
 *    clg_warm_up_gather_cl_ex(..., options)                    clg_warm_up_cl
 *    clg_gather_output_shape(data, indices, axis, shape, capacity,
 *                            rank)                             clg_output_shape
 *  and likewise clg_gather_elements, clg_gather_elements_ex, ...,
 *  clg_gather_elements_output_shape, and clg_gather_nd, ...,
 *  clg_gather_nd_output_shape, whose fourth argument is batch_dims. The host-memory and device-buffer
 *  forms take clg_tensor and clg_cl_tensor descriptors as the generic
 *  calls do. */
#define CLG_OP_DECLARE_(ID, value, name, op_type, versions, attribute)        \
    CLG_API clg_status clg_##name(clg_context *ctx, const clg_tensor *data,   \
                                  const clg_tensor *indices,                  \
                                  int64_t attribute,                          \
                                  const clg_tensor *output);                  \
    CLG_API clg_status clg_##name##_ex(clg_context *ctx,                      \
                                       const clg_tensor *data,                \
                                       const clg_tensor *indices,             \
                                       int64_t attribute,                     \
                                       const clg_tensor *output,              \
                                       const clg_call_options *options);      \
    CLG_API clg_status clg_##name##_cl(clg_context *ctx,                      \
                                       const clg_cl_tensor *data,             \
                                       const clg_cl_tensor *indices,          \
                                       int64_t attribute,                     \
                                       const clg_cl_tensor *output);          \
    CLG_API clg_status clg_##name##_cl_ex(clg_context *ctx,                   \
                                          const clg_cl_tensor *data,          \
                                          const clg_cl_tensor *indices,       \
                                          int64_t attribute,                  \
                                          const clg_cl_tensor *output,        \
                                          const clg_call_options *options);   \
    CLG_API clg_status clg_enqueue_##name(clg_context *ctx,                   \
                                          cl_command_queue queue,             \
                                          const clg_cl_tensor *data,          \
                                          const clg_cl_tensor *indices,       \
                                          int64_t attribute,                  \
                                          const clg_cl_tensor *output,        \
                                          cl_uint num_events_in_wait_list,    \
                                          const cl_event *event_wait_list,    \
                                          cl_event *event);                   \
    CLG_API clg_status clg_enqueue_##name##_ex(                               \
        clg_context *ctx, cl_command_queue queue, const clg_cl_tensor *data,  \
        const clg_cl_tensor *indices, int64_t attribute,                      \
        const clg_cl_tensor *output, cl_uint num_events_in_wait_list,         \
        const cl_event *event_wait_list, cl_event *event,                     \
        const clg_call_options *options);                                     \
    CLG_API clg_status clg_reference_##name(clg_context *ctx,                 \
                                            const clg_tensor *data,           \
                                            const clg_tensor *indices,        \
                                            int64_t attribute,                \
                                            const clg_tensor *output);        \
    CLG_API clg_status                                                        \
        clg_reference_##name##_ex(clg_context *ctx, const clg_tensor *data,   \
                                  const clg_tensor *indices,                  \
                                  int64_t attribute,                          \
                                  const clg_tensor *output,                   \
                                  const clg_call_options *options);           \
    CLG_API clg_status clg_warm_up_##name(clg_context *ctx,                   \
                                          const clg_tensor *data,             \
                                          const clg_tensor *indices,          \
                                          int64_t attribute,                  \
                                          const clg_tensor *output);          \
    CLG_API clg_status                                                        \
        clg_warm_up_##name##_ex(clg_context *ctx, const clg_tensor *data,     \
                                const clg_tensor *indices, int64_t attribute, \
                                const clg_tensor *output,                     \
                                const clg_call_options *options);             \
    CLG_API clg_status clg_warm_up_##name##_cl(clg_context *ctx,              \
                                               const clg_cl_tensor *data,     \
                                               const clg_cl_tensor *indices,  \
                                               int64_t attribute,             \
                                               const clg_cl_tensor *output);  \
    CLG_API clg_status clg_warm_up_##name##_cl_ex(                            \
        clg_context *ctx, const clg_cl_tensor *data,                          \
        const clg_cl_tensor *indices, int64_t attribute,                      \
        const clg_cl_tensor *output, const clg_call_options *options);        \
    CLG_API clg_status clg_##name##_output_shape(const clg_tensor *data,      \
                                                 const clg_tensor *indices,   \
                                                 int64_t attribute,           \
                                                 int64_t *shape,              \
                                                 size_t capacity,             \
                                                 size_t *rank);
CLG_OP_TABLE(CLG_OP_DECLARE_)
#undef CLG_OP_DECLARE_

#ifdef __cplusplus
}
#endif

#endif /* CLGATHER_CLGATHER_H */
