/* SPDX-License-Identifier: Apache-2.0 */
/*
 * clgather I/O: tensor files by format, the top of the I/O library
 * (docs/design.md, "Layers"): a .npy or ONNX TensorProto file is read by
 * its contents and written by its name. Above io_tensor.h, npy.h and
 * onnx_io.h; nothing in io/ includes this header.
 */
#ifndef CLG_IO_TENSOR_FILE_H
#define CLG_IO_TENSOR_FILE_H

#include <stddef.h>

#include <clgather/clgather.h>

#include "io_tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Reads a tensor file: NumPy .npy when the file starts with the NumPy
 *  magic, else an ONNX TensorProto (.pb). Path "-" reads standard input
 *  (either format, by its contents). An .npz archive (a zip) is
 *  UNSUPPORTED, with clg_npz_error's message (what it is and how to
 *  extract one array). */
clg_io_status clg_io_read_tensor_file(const char *path, clg_io_tensor *out,
                                      clg_io_error *err);

/** Whether path names an output format: "-" (standard output, .npy),
 *  a name ending in ".npy" or ".pb", or an existing device or pipe
 *  (written as .npy). Errors: UNSUPPORTED ("x.npz: unknown output
 *  format: ..."). */
clg_io_status clg_io_check_output_name(const char *path, clg_io_error *err);

/** Writes a tensor: ONNX TensorProto when path ends in ".pb", else .npy
 *  (STRING as 'S<n>', n >= string_width: see clg_npy_encode); "-" writes
 *  .npy to standard output. Errors: those of clg_io_check_output_name,
 *  then of the writers. */
clg_io_status clg_io_write_tensor_file(const char *path, const clg_tensor *t,
                                       size_t string_width, clg_io_error *err);

#ifdef __cplusplus
}
#endif

#endif /* CLG_IO_TENSOR_FILE_H */
