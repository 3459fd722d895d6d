/* SPDX-License-Identifier: Apache-2.0 */
/*
 * clgather I/O: JSON output, the one JSON writer of the tool and the
 * benchmark (docs/cli.md, "JSON output"; docs/design.md, "Layers").
 *
 * Two levels over a stdio stream:
 *  - value writers (clg_json_write_*) for code that lays out its own
 *    document, as the benchmark's report does;
 *  - a small structured writer (clg_json) that tracks nesting and commas
 *    and indents by two spaces per level, for the commands' --json
 *    documents.
 * Strings are escaped as RFC 8259 requires ('"', '\\' and control
 * characters); well-formed UTF-8 passes through as it is, and each byte
 * that is not part of one (a file name may hold any) is written as
 * \ufffd, so the document is always UTF-8. Numbers that are not finite, or not
 * present, are written as null. Above io_tensor.h only.
 */
#ifndef CLG_IO_JSON_OUT_H
#define CLG_IO_JSON_OUT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/** A JSON string literal for s; null for NULL. */
void clg_json_write_string(FILE *f, const char *s);

/** %.6g when present and finite, else null. */
void clg_json_write_number(FILE *f, int present, double v);

/** A shape as an array of integers, "[2, 3]" ("[]" for rank 0). */
void clg_json_write_shape(FILE *f, const int64_t *shape, size_t rank);

/** Deepest nesting clg_json follows; deeper levels are not indented. */
#define CLG_JSON_MAX_DEPTH 16

/** A document being written to f. Initialise with clg_json_init; every
 *  begin is matched by its end; clg_json_finish ends the line. Inside an
 *  object each value takes its key; inside an array (or at the top) key
 *  must be NULL. */
typedef struct clg_json {
    FILE *f;
    int depth;
    unsigned char has_items[CLG_JSON_MAX_DEPTH];
} clg_json;

void clg_json_init(clg_json *j, FILE *f);
void clg_json_begin_object(clg_json *j, const char *key);
void clg_json_end_object(clg_json *j);
void clg_json_begin_array(clg_json *j, const char *key);
void clg_json_end_array(clg_json *j);
/** Writes a string (null for NULL). */
void clg_json_string(clg_json *j, const char *key, const char *value);
void clg_json_int(clg_json *j, const char *key, int64_t value);
void clg_json_uint(clg_json *j, const char *key, uint64_t value);
/** A number; null when not present or not finite. */
void clg_json_number(clg_json *j, const char *key, int present, double v);
void clg_json_bool(clg_json *j, const char *key, int value);
void clg_json_null(clg_json *j, const char *key);
void clg_json_shape(clg_json *j, const char *key, const int64_t *shape,
                    size_t rank);
/** Ends the document with a newline and flushes the stream. */
void clg_json_finish(clg_json *j);

#ifdef __cplusplus
}
#endif

#endif /* CLG_IO_JSON_OUT_H */
