/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Helpers shared by the libFuzzer targets of tests/fuzz/ (README.md there):
 * the check that fails a run, the bound on single allocations, and the
 * invariants of a tensor that a reader returns.
 */
#ifndef CLG_FUZZ_COMMON_H
#define CLG_FUZZ_COMMON_H

#include <stddef.h>
#include <stdint.h>

#include "io_tensor.h"

/* Prints where and why, then aborts: libFuzzer reports a crash and saves
 * the input. */
_Noreturn void fuzz_fail(const char *file, int line, const char *what,
                         const char *fmt, ...) CLG_IO_PRINTF(4, 5);

/* FUZZ_CHECK(condition, printf format, arguments...): the harness's
 * assertion, on in every build type (it is not assert()). */
#define FUZZ_CHECK(cond, ...)                                                 \
    ((cond) ? (void)0 : fuzz_fail(__FILE__, __LINE__, #cond, __VA_ARGS__))

/* Between fuzz_alloc_watch(limit) and fuzz_alloc_unwatch(), a single
 * allocation of more than `limit` bytes on this thread fails the run at
 * the allocation (its stack is libFuzzer's crash report). */
void fuzz_alloc_watch(size_t limit);
void fuzz_alloc_unwatch(void);

/* The most a reader may allocate at once for `size` bytes of input:
 * 64 KiB plus 32 bytes per input byte (a 16-byte STRING descriptor per
 * 2-byte protobuf entry, protobuf-c's 32-byte bookkeeping per field). */
size_t fuzz_alloc_limit(size_t size);

/* A tensor a reader returned: a known dtype, a valid shape whose count
 * and byte size match, data present exactly when there are elements and
 * readable to its last byte, STRING descriptors inside string_bytes. */
void fuzz_check_tensor(const clg_io_tensor *t, const char *what);

/* A tensor left by a failed read: released and re-initialised. */
void fuzz_check_empty(const clg_io_tensor *t, const char *what);

/* Fills err->message with a pattern (no terminator) before a call, so that
 * fuzz_check_failure can tell that the call wrote a whole message. */
void fuzz_error_reset(clg_io_error *err);

/* A failed decode: FORMAT_ERROR or UNSUPPORTED, and a terminated, non-empty
 * message that starts with "<name>: ". */
void fuzz_check_failure(clg_io_status st, const clg_io_error *err,
                        const char *name);

/* a and b hold the same dtype, shape and elements. With strip_nuls,
 * STRING elements are compared without their trailing NUL bytes (which
 * .npy cannot keep). */
void fuzz_check_same(const clg_io_tensor *a, const clg_io_tensor *b,
                     int strip_nuls, const char *what);

/* Encodes t as a TensorProto and as .npy (BFLOAT16: UNSUPPORTED there)
 * and decodes each again: the same tensor both times. */
void fuzz_check_round_trips(const clg_io_tensor *t);

/* A file its decoder accepted, read as a stream: `bound` (a
 * clg_io_read_bound) must find every prefix worth reading on, and the
 * whole file too, so that no file a reader accepts is cut short. The
 * prefixes grow as a read's do, with one state: every length up to 256
 * bytes, then doubling. */
void fuzz_check_bound(clg_io_read_bound bound, const uint8_t *data,
                      size_t size, const char *what);

#endif /* CLG_FUZZ_COMMON_H */
