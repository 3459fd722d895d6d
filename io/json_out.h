/* SPDX-License-Identifier: Apache-2.0 */
/*
 * clgather I/O: JSON output, the one JSON writer of the tool and the
 * benchmark (docs/cli.md, "JSON output"; docs/design.md, "Layers").
 *
 * Written through json-c (docs/design.md, "Layers"): the structured
 * writer (clg_json) builds the document as json-c objects while a command
 * runs, and clg_json_finish prints it with json-c, two spaces a level;
 * the value writers (clg_json_write_*) print one value the same way, for
 * code that lays out its own text.
 * Strings are escaped by json-c as RFC 8259 requires ('"', '\\' and
 * control characters); well-formed UTF-8 passes through as it is, and
 * each byte that is not part of one (a file name may hold any) becomes
 * U+FFFD, so the document is always UTF-8. Numbers that are not finite,
 * or not present, are written as null. Above io_tensor.h only.
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

/** Deepest nesting clg_json follows; values deeper are dropped. */
#define CLG_JSON_MAX_DEPTH 16

struct json_object;

/** A document being built for f. Initialise with clg_json_init; every
 *  begin is matched by its end; clg_json_finish prints the document and
 *  ends the line (nothing is printed before). Inside an object each value
 *  takes its key; inside an array (or at the top) key must be NULL. A
 *  document not finished holds memory: clg_json_finish frees it. */
typedef struct clg_json {
    FILE *f;
    int depth; /* containers open; open[0] is the root once begun */
    struct json_object *open[CLG_JSON_MAX_DEPTH];
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
/** A list of n strings (each as clg_json_string writes it). */
void clg_json_strings(clg_json *j, const char *key, const char *const *list,
                      size_t n);
/** Prints the document with a newline, flushes the stream and frees the
 *  document. */
void clg_json_finish(clg_json *j);

#ifdef __cplusplus
}
#endif

#endif /* CLG_IO_JSON_OUT_H */
