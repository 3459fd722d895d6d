/* SPDX-License-Identifier: Apache-2.0 */
/*
 * clgather I/O: NumPy .npy files.
 *
 * Reading: format versions 1.0, 2.0 and 3.0; little-endian ('<'), big-endian
 * ('>'), native ('=') and byte-order-free ('|') descriptors; C order and
 * Fortran order (fortran_order True: the first index moves fastest),
 * whose elements are rearranged into C order as they are read, so that
 * a tensor read is always C order. Dtypes:
 *   b1 (or ?) BOOL, i1 u1 i2 u2 i4 u4 i8 u8, f2 FLOAT16, f4 FLOAT,
 *   f8 DOUBLE, c8 COMPLEX64, c16 COMPLEX128, S<n> STRING.
 * Byte strings 'S<n>' become clg_string descriptors with their trailing NUL
 * bytes stripped, as NumPy does when it reads them back.
 * Unicode ('U'), object ('O'), structured, datetime and void dtypes are
 * rejected with CLG_IO_UNSUPPORTED. BFLOAT16 has no NumPy dtype.
 *
 * What a file may make the reader allocate is bounded by its size: the
 * data must be exactly shape x itemsize bytes, checked before anything is
 * allocated, and a STRING tensor adds one 16-byte descriptor per element
 * (at most 16 bytes per data byte, for 'S1'). 'S0' elements have zero
 * bytes, so no file size bounds their number: 'S0' is read only for empty
 * arrays (CLG_IO_UNSUPPORTED otherwise; NumPy stores b'' as 'S1').
 *
 * Writing: format 1.0, little endian,
 * C order, header padded to 64 bytes as NumPy writes it. STRING tensors are
 * written as '|S<n>' with n the longest element (at least 1); trailing NUL
 * bytes of an element cannot survive the format.
 */
#ifndef CLG_CLI_NPY_H
#define CLG_CLI_NPY_H

#include <stddef.h>

#include "io_tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

/** 1 when `bytes` starts with the NumPy magic "\x93NUMPY". */
int clg_npy_is_npy(const void *bytes, size_t size);

/** 1 when `bytes` start like a zip archive, which is what NumPy's .npz
 *  is (np.savez: one .npy file per array): a local file header "PK\3\4",
 *  or the end record "PK\5\6" of an empty archive. */
int clg_npy_is_npz(const void *bytes, size_t size);

/** A clg_io_read_bound for bytes that start like an .npz (or are fewer
 *  than its 4-byte signature): up to the end of the first member's name,
 *  all clg_npz_error needs, so that an archive is not read whole only to
 *  be refused. */
size_t clg_npz_read_bound(const unsigned char *bytes, size_t len,
                          size_t *state);

/** Into *err, for .npz bytes (clg_npy_is_npz) named `name` given where
 *  one tensor was expected: that it is an .npz archive, its first array's
 *  name when the bytes hold it, and how to extract one array into a .npy
 *  file ("x.npz: an .npz archive (a zip of .npy files, one per array;
 *  the first is 'data'), not a NumPy file of one array: extract one,
 *  e.g. 'unzip -p x.npz data.npy > data.npy', or in Python ..."). */
void clg_npz_error(const void *bytes, size_t size, const char *name,
                   clg_io_error *err);

/** A clg_io_read_bound for .npy files: once the preamble and the header
 *  dictionary are in, the size they promise (header and data) plus one
 *  byte; at once when the bytes cannot start a .npy file or the header
 *  cannot be read (clg_npy_decode then says why). */
size_t clg_npy_read_bound(const unsigned char *bytes, size_t len,
                          size_t *state);

/** Reads a .npy file into *out (freed first). */
clg_io_status clg_npy_read(const char *path, clg_io_tensor *out,
                           clg_io_error *err);

/** Decodes .npy bytes held in memory; `name` names them in messages.
 *  A Fortran-order array comes out in C order; .npz bytes are a
 *  FORMAT_ERROR whose message is clg_npz_error's. */
clg_io_status clg_npy_decode(const void *bytes, size_t size, const char *name,
                             clg_io_tensor *out, clg_io_error *err);

/** Encodes a tensor as .npy bytes into a malloc'd buffer (*bytes, freed by
 *  the caller). STRING tensors are written as 'S<n>' with n the larger of
 *  `string_width` and the longest element (pass the input's width to keep
 *  NumPy's dtype; 0 for the longest element). Errors: UNSUPPORTED
 *  (BFLOAT16, UNDEFINED), FORMAT_ERROR (a bad shape), NO_MEMORY. */
clg_io_status clg_npy_encode(const clg_tensor *t, size_t string_width,
                             unsigned char **bytes, size_t *size,
                             clg_io_error *err);

/** Writes a tensor to a .npy file (string_width as clg_npy_encode). */
clg_io_status clg_npy_write(const char *path, const clg_tensor *t,
                            size_t string_width, clg_io_error *err);

/** NumPy descriptor clgather writes for `dtype`, e.g. "<f4", "|b1", from
 *  its CLG_DTYPE_TABLE kind and size, into buf (cap bytes; 8 suffice).
 *  Returns buf, or NULL for STRING (its width depends on the data),
 *  BFLOAT16 (NumPy has no such kind) and unknown values. */
const char *clg_npy_descr(clg_dtype dtype, char *buf, size_t cap);

#ifdef __cplusplus
}
#endif

#endif /* CLG_CLI_NPY_H */
