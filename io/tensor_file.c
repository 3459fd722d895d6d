/* SPDX-License-Identifier: Apache-2.0 */
/* Tensor files by format: see tensor_file.h. */
#include "tensor_file.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "npy.h"
#include "onnx_io.h"

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s);
    size_t m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* clg_npy_read_bound, clg_npz_read_bound or clg_onnx_read_bound, by the
 * first bytes. */
static size_t either_bound(const unsigned char *bytes, size_t len,
                           size_t *state)
{
    if (bytes[0] == 0x93)
        return clg_npy_read_bound(bytes, len, state);
    if (clg_npy_is_npz(bytes, len) || (len < 4 && bytes[0] == 'P'))
        return clg_npz_read_bound(bytes, len, state);
    return clg_onnx_read_bound(bytes, len, state);
}

clg_io_status clg_io_read_tensor_file(const char *path, clg_io_tensor *out,
                                      clg_io_error *err)
{
    unsigned char *bytes = NULL;
    size_t size = 0;
    clg_io_status st;

    st = clg_io_read_file(path, either_bound, &bytes, &size, err);
    if (st != CLG_IO_OK)
        return st;
    if (size == 0) {
        clg_io_error_set(err,
                         "%s: empty (0 bytes): neither a NumPy file nor an "
                         "ONNX TensorProto",
                         path);
        st = CLG_IO_FORMAT_ERROR;
    } else if (clg_npy_is_npy(bytes, size))
        st = clg_npy_decode(bytes, size, path, out, err);
    else if (clg_npy_is_npz(bytes, size)) {
        /* np.savez's archive, not a protobuf message */
        clg_npz_error(bytes, size, path, err);
        st = CLG_IO_UNSUPPORTED;
    } else if (ends_with(path, ".npy")) {
        clg_io_error_set(err, "%s: not a NumPy file (no \\x93NUMPY magic)",
                         path);
        st = CLG_IO_FORMAT_ERROR;
    } else
        st = clg_onnx_decode_tensor(bytes, size, path, out, err);
    free(bytes);
    return st;
}

clg_io_status clg_io_check_output_name(const char *path, clg_io_error *err)
{
    struct stat sb;
    if (strcmp(path, "-") == 0 || ends_with(path, ".npy") ||
        ends_with(path, ".pb"))
        return CLG_IO_OK;
    /* a device or a pipe (/dev/null, /dev/stdout) has no name to go by */
    if (stat(path, &sb) == 0 && !S_ISREG(sb.st_mode) && !S_ISDIR(sb.st_mode))
        return CLG_IO_OK;
    if (stat(path, &sb) == 0 && S_ISDIR(sb.st_mode)) {
        clg_io_error_set(err,
                         "%s: is a directory; name the output file .npy "
                         "(NumPy) or .pb (ONNX TensorProto)",
                         path);
        return CLG_IO_UNSUPPORTED;
    }
    clg_io_error_set(err,
                     "%s: unknown output format: name it .npy (NumPy) or .pb "
                     "(ONNX TensorProto), or - for .npy on standard output",
                     path);
    return CLG_IO_UNSUPPORTED;
}

clg_io_status clg_io_write_tensor_file(const char *path, const clg_tensor *t,
                                       size_t string_width, clg_io_error *err)
{
    clg_io_status st = clg_io_check_output_name(path, err);
    if (st != CLG_IO_OK)
        return st;
    if (ends_with(path, ".pb"))
        return clg_onnx_write_tensor(path, t, "output", err);
    return clg_npy_write(path, t, string_width, err);
}
