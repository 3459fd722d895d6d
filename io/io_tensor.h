/* SPDX-License-Identifier: Apache-2.0 */
/*
 * clgather I/O, its base (docs/design.md, "Layers"): owned host tensors,
 * error reporting, whole-file reads, atomic writes and shape formatting,
 * shared by the NumPy (.npy) and ONNX (TensorProto, ModelProto) readers
 * and writers above it. It includes no other header of io/.
 *
 * Part of the clgather_io static library that the `clgather` tool, its
 * tests and the benchmark link. Not installed, not part of the library API.
 * Every function that can fail returns a clg_io_status and, on failure,
 * writes a one-line message naming the file (and field) to *err.
 */
#ifndef CLG_CLI_IO_TENSOR_H
#define CLG_CLI_IO_TENSOR_H

#include <stddef.h>
#include <stdint.h>

#include <clgather/clgather.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define CLG_IO_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define CLG_IO_PRINTF(f, a)
#endif

/** Outcome of an I/O call. The `clgather` tool maps every failure to exit
 *  status 3. */
typedef enum clg_io_status {
    CLG_IO_OK = 0,
    CLG_IO_FILE_ERROR = 1,   /* cannot open, read or write the file */
    CLG_IO_FORMAT_ERROR = 2, /* malformed or truncated contents */
    CLG_IO_UNSUPPORTED = 3,  /* well formed, but not something we handle:
                                a dtype, external data, Fortran order, a
                                model that is not one Gather node */
    CLG_IO_NO_MEMORY = 4     /* host allocation failed */
} clg_io_status;

/** Message of the last failure, e.g. "in.npy: truncated: the header says
 *  24 bytes of data, the file holds 20". */
typedef struct clg_io_error {
    char message[1024];
} clg_io_error;

/** Writes a printf-style message to *err (err may be NULL). */
void clg_io_error_set(clg_io_error *err, const char *fmt, ...)
    CLG_IO_PRINTF(2, 3);

/** A dense C-order host tensor that owns its memory.
 *  - data: count * clg_dtype_size(dtype) bytes (NULL when count is 0);
 *  - STRING tensors: data is an array of clg_string descriptors pointing
 *    into string_bytes, which the tensor owns as well.
 *  Initialise with clg_io_tensor_init (or `= {0}`), release with
 *  clg_io_tensor_free. */
typedef struct clg_io_tensor {
    clg_dtype dtype;
    size_t rank;
    int64_t shape[CLG_MAX_RANK];
    int64_t count; /* elements; 1 for rank 0 */
    size_t nbytes; /* bytes at data */
    void *data;
    char *string_bytes; /* STRING only */
    size_t string_bytes_size;
    size_t string_width; /* STRING read from .npy: n of 'S<n>'; else 0 */
} clg_io_tensor;

/** Empty tensor: UNDEFINED dtype, rank 0, count 0, no memory. */
void clg_io_tensor_init(clg_io_tensor *t);

/** Releases what t owns and re-initialises it. Accepts NULL. */
void clg_io_tensor_free(clg_io_tensor *t);

/** Frees t, then allocates a zero-filled tensor of the given dtype and
 *  shape. `what` names the tensor in messages. Errors: UNSUPPORTED (dtype
 *  unknown to clg_dtype_size), FORMAT_ERROR (rank above CLG_MAX_RANK, a
 *  negative dimension, a size that overflows), NO_MEMORY.
 *  Same as clg_io_tensor_shape, then clg_io_tensor_alloc_data. */
clg_io_status clg_io_tensor_alloc(clg_io_tensor *t, clg_dtype dtype,
                                  size_t rank, const int64_t *shape,
                                  const char *what, clg_io_error *err);

/** Frees t, then sets its dtype, rank, shape, count and nbytes without
 *  allocating anything (data stays NULL): what a reader checks a file's
 *  payload against before it allocates, so that what it allocates is
 *  bounded by what the file holds, not by what its header claims. Errors
 *  as clg_io_tensor_alloc, less NO_MEMORY. */
clg_io_status clg_io_tensor_shape(clg_io_tensor *t, clg_dtype dtype,
                                  size_t rank, const int64_t *shape,
                                  const char *what, clg_io_error *err);

/** Allocates the zero-filled data (t->nbytes bytes, none when 0) of a
 *  tensor set up by clg_io_tensor_shape. Errors: NO_MEMORY. */
clg_io_status clg_io_tensor_alloc_data(clg_io_tensor *t, const char *what,
                                       clg_io_error *err);

/** Borrowed clg_tensor view of t for the library's operators. */
clg_tensor clg_io_tensor_view(const clg_io_tensor *t);

/** Deep copy of a host tensor (STRING bytes included) into *dst (freed
 *  first). */
clg_io_status clg_io_tensor_copy(clg_io_tensor *dst, const clg_tensor *src,
                                 clg_io_error *err);

/** A reader's bound on a file while it is read: given the first len
 *  bytes, how many are worth reading in all. SIZE_MAX while the bytes do
 *  not tell; the size the format's header promises plus one (so that the
 *  decoder still sees a trailing byte) once they do; len, to stop at
 *  once, when they can no longer start a file of the format (the decoder
 *  then says why). *state is the bound's own, 0 at the start. */
typedef size_t (*clg_io_read_bound)(const unsigned char *bytes, size_t len,
                                    size_t *state);

/** Reads a file into a malloc'd buffer (*bytes, freed by the caller;
 *  never NULL on success, even for an empty file): to its end, or to
 *  where `bound` (may be NULL) says the bytes stop being worth reading,
 *  so that an endless stream of bytes no file of the format starts with
 *  (/dev/urandom, a pipe) is not read until memory runs out. A first byte
 *  that starts neither a .npy file (0x93) nor a protobuf message (a field
 *  key, at least 8) is refused as FORMAT_ERROR. Path "-" reads standard
 *  input. Errors: FILE_ERROR (open, read), FORMAT_ERROR, NO_MEMORY. */
clg_io_status clg_io_read_file(const char *path, clg_io_read_bound bound,
                               unsigned char **bytes, size_t *size,
                               clg_io_error *err);

/** Writes `size` bytes to path, replacing it atomically: the bytes go to
 *  a temporary file in path's directory (".<name>.<pid>.<n>.tmp"), which
 *  is flushed to disk (fsync) and renamed over path. On any failure (a
 *  full disk included) an existing file is left exactly as it was and the
 *  temporary file is removed. An existing file keeps its permission bits
 *  (not its owner); a new one gets 0666 less the umask. A symbolic link
 *  is followed: the file it names is replaced. A device, a pipe, or a
 *  symbolic link under /dev or /proc (/dev/stdout, /dev/fd/N: an open
 *  descriptor, not a file) is written in place, and so is "-", standard
 *  output (clg_io_check_writable accepts it). The temporary file is the
 *  one clg_io_remove_pending_temp removes. Errors: FILE_ERROR (the messages of
 *  clg_io_check_writable, or "write error: <reason>"), NO_MEMORY. */
clg_io_status clg_io_write_file(const char *path, const void *bytes,
                                size_t size, clg_io_error *err);

/** 1 when a and b both exist and are the same file (same device and
 *  inode, whatever the names: links and "./" included); 0 otherwise, and
 *  always for "-". */
int clg_io_same_file(const char *a, const char *b);

/** 1 when path is "-" or names the file standard output is open on (same
 *  device and inode: /dev/stdout, /dev/fd/1, or the pipe or file itself),
 *  so that nothing else is printed there; 0 otherwise. */
int clg_io_is_stdout(const char *path);

/** Removes the temporary file clg_io_write_file is writing, if any (it
 *  is then never renamed over its target). Async-signal-safe: for a
 *  handler of SIGINT, SIGTERM or SIGHUP that then ends the process, so
 *  that an interrupted write leaves its target as it was and no
 *  temporary file behind. One write at a time is tracked (the tool
 *  writes one file at a time). */
void clg_io_remove_pending_temp(void);

/** Test hook: `pause` (NULL: none) is called by clg_io_write_file once
 *  the temporary file holds every byte, before it is synced and renamed.
 *  The tool sets it from CLGATHER_TEST_WRITE_PAUSE so that a test can
 *  signal it in the middle of a write (docs/cli.md). */
void clg_io_set_write_pause(void (*pause)(void));

/** Checks, before any work, that clg_io_write_file(path) can create its
 *  file: path's directory exists and takes a new file (a temporary one is
 *  created and removed to know), and path is not a directory nor an
 *  existing file without write permission. Errors: FILE_ERROR, e.g.
 *  "out/x.npy: cannot write: directory 'out' does not exist". */
clg_io_status clg_io_check_writable(const char *path, clg_io_error *err);

/** The kind letter of `dtype` in CLG_DTYPE_TABLE ('f', 'i', 'u', 'b',
 *  'c', 'B', 'S'); 0 for UNDEFINED and values outside the table. */
char clg_io_dtype_kind(clg_dtype dtype);

/** The dtype of CLG_DTYPE_TABLE with this kind letter and size, or
 *  UNDEFINED. */
clg_dtype clg_io_dtype_of(char kind, size_t size);

/** Bytes of one little-endian word of `dtype` as files store it: the
 *  element, one part of a complex number, 1 for STRING bytes. */
size_t clg_io_word_size(clg_dtype dtype);

/** 1 when the host stores integers little-endian (as .npy "<" and ONNX
 *  raw_data do). */
int clg_io_host_is_little_endian(void);

/** Reverses the bytes of each `unit`-byte word of p[0 .. nbytes) in place
 *  (nothing for unit < 2). */
void clg_io_swap_words(unsigned char *p, size_t nbytes, size_t unit);

/** Formats a shape as "[2, 3]" ("[]" for rank 0) into buf; always
 *  terminated. Returns buf. */
char *clg_io_format_shape(char *buf, size_t cap, const int64_t *shape,
                          size_t rank);

/** Element count of a shape with overflow and sign checks; -1 when a
 *  dimension is negative or the product does not fit in int64_t or in a
 *  size_t byte count of `elem_size`-byte elements. */
int64_t clg_io_shape_count(const int64_t *shape, size_t rank,
                           size_t elem_size);

#ifdef __cplusplus
}
#endif

#endif /* CLG_CLI_IO_TENSOR_H */
