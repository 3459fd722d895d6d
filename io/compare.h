/* SPDX-License-Identifier: Apache-2.0 */
/*
 * clgather I/O: bitwise tensor comparison and value formatting, for the
 * FAIL lines of `clgather onnx-test` and `clgather run --check` and the
 * rows of `clgather compare`.
 *
 * Comparison is bit for bit (memcmp per element), never `==` on floats:
 * Gather only moves bytes, so NaN payloads and -0.0 must survive. STRING
 * elements compare by length and bytes (not by descriptor pointers).
 */
#ifndef CLG_CLI_COMPARE_H
#define CLG_CLI_COMPARE_H

#include <stddef.h>
#include <stdint.h>

#include <clgather/clgather.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Compares `actual` with `expected`: dtype, then shape, then elements.
 *  Returns 1 when identical. Otherwise returns 0 and writes a one-line
 *  description of the first difference to `detail` (if not NULL), e.g.
 *    "dtype: expected FLOAT, got INT64"
 *    "shape: expected [2, 3], got [3, 2]"
 *    "[1][0]: expected 2.29999995 (0x40133333), got 1 (0x3f800000)"
 *  and, when elements differ, its flat position to *position (if not
 *  NULL; -1 otherwise). */
int clg_io_compare(const clg_tensor *expected, const clg_tensor *actual,
                   char *detail, size_t cap, int64_t *position);

/** Compares `actual` with `reference` as clg_io_compare does, bit for bit,
 *  and writes the verdict of a `clgather compare` row to buf, naming the
 *  two sides `actual_name` and `reference_name`:
 *    "agree"
 *    "DIFFER at out[1][0]: device=1 (0x3f800000) reference=2.29999995
 *     (0x40133333)"                                   (one line)
 *    "DIFFER in dtype: device=FLOAT reference=INT64"
 *    "DIFFER in shape: device=[3, 2] reference=[2, 3]"
 *  (positions and values as clg_io_format_position and
 *  clg_io_format_value write them). Returns 1 when identical, else 0 with
 *  the flat position of the first differing element in *position (if not
 *  NULL; -1 when dtype or shape differ). Always terminated. */
int clg_io_agreement(char *buf, size_t cap, const clg_tensor *actual,
                     const char *actual_name, const clg_tensor *reference,
                     const char *reference_name, int64_t *position);

/** Formats one element of `dtype` at `elem`: integers in decimal; FLOAT,
 *  DOUBLE, FLOAT16 and BFLOAT16 with %.9g (%.17g for DOUBLE) and their hex
 *  bits; complex as (re, im); BOOL as true/false; STRING quoted with C
 *  escapes (long strings shortened). Always terminated. Returns buf. */
char *clg_io_format_value(char *buf, size_t cap, clg_dtype dtype,
                          const void *elem);

/** Formats flat position `flat` of a C-order shape as "[1][0]" ("[]" for
 *  rank 0). Returns buf. */
char *clg_io_format_position(char *buf, size_t cap, const int64_t *shape,
                             size_t rank, int64_t flat);

/** float16 / bfloat16 bit patterns to float (exact). */
float clg_io_half_to_float(uint16_t bits);
float clg_io_bfloat16_to_float(uint16_t bits);

#ifdef __cplusplus
}
#endif

#endif /* CLG_CLI_COMPARE_H */
