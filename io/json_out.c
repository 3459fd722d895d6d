/* SPDX-License-Identifier: Apache-2.0 */
/* JSON output through json-c: see json_out.h. */
#include "json_out.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

/* How json-c prints: two spaces a level, "key": value, '/' as it is. */
#define PRINT_FLAGS                                                           \
    (JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED |                      \
     JSON_C_TO_STRING_NOSLASHESCAPE)

/* The length of the well-formed UTF-8 sequence at s (RFC 3629: no
 * overlong form, no surrogate, nothing above U+10FFFF), 0 when there is
 * none; s[0] >= 0x80. */
static size_t utf8_sequence(const unsigned char *s)
{
    size_t n = s[0] >= 0xc2 && s[0] <= 0xdf   ? 2
               : s[0] >= 0xe0 && s[0] <= 0xef ? 3
               : s[0] >= 0xf0 && s[0] <= 0xf4 ? 4
                                              : 0;
    for (size_t i = 1; i < n; i++)
        if ((s[i] & 0xc0) != 0x80)
            return 0;
    if ((s[0] == 0xe0 && s[1] < 0xa0) || (s[0] == 0xed && s[1] >= 0xa0) ||
        (s[0] == 0xf0 && s[1] < 0x90) || (s[0] == 0xf4 && s[1] >= 0x90))
        return 0;
    return n;
}

/* A json-c string of s with each byte that is not UTF-8 replaced by
 * U+FFFD; NULL (JSON null) for NULL or when memory runs out. */
static json_object *new_string(const char *s)
{
    static const char replacement[] = "\xef\xbf\xbd";
    const unsigned char *p = (const unsigned char *)s;
    json_object *o;
    char *clean, *q;
    if (s == NULL)
        return NULL;
    clean = malloc(strlen(s) * 3 + 1); /* at worst each byte becomes 3 */
    if (clean == NULL)
        return NULL;
    q = clean;
    while (*p) {
        size_t n = *p < 0x80 ? 1 : utf8_sequence(p);
        if (n == 0) {
            memcpy(q, replacement, 3);
            q += 3;
            p++;
        } else {
            memcpy(q, p, n);
            q += n;
            p += n;
        }
    }
    *q = '\0';
    o = json_object_new_string(clean);
    free(clean);
    return o;
}

/* %.6g when present and finite, else NULL (JSON null). */
static json_object *new_number(int present, double v)
{
    char text[32];
    if (!present || !isfinite(v))
        return NULL;
    snprintf(text, sizeof text, "%.6g", v);
    return json_object_new_double_s(v, text);
}

static json_object *new_shape(const int64_t *shape, size_t rank)
{
    json_object *a = json_object_new_array_ext((int)rank);
    for (size_t i = 0; a != NULL && i < rank; i++)
        json_object_array_add(a, json_object_new_int64(shape[i]));
    return a;
}

/* Prints one value and frees it. */
static void print_value(FILE *f, json_object *o)
{
    fputs(json_object_to_json_string_ext(o, PRINT_FLAGS), f);
    json_object_put(o);
}

void clg_json_write_string(FILE *f, const char *s)
{
    print_value(f, new_string(s));
}

void clg_json_write_number(FILE *f, int present, double v)
{
    print_value(f, new_number(present, v));
}

void clg_json_write_shape(FILE *f, const int64_t *shape, size_t rank)
{
    print_value(f, new_shape(shape, rank));
}

void clg_json_init(clg_json *j, FILE *f)
{
    j->f = f;
    j->depth = 0;
    for (size_t i = 0; i < CLG_JSON_MAX_DEPTH; i++)
        j->open[i] = NULL;
}

/* Adds o (owned) to the innermost open container under key, or makes it
 * the root; a value past CLG_JSON_MAX_DEPTH is dropped. */
static void add(clg_json *j, const char *key, json_object *o)
{
    json_object *parent;
    if (j->depth == 0) {
        json_object_put(j->open[0]);
        j->open[0] = o;
        return;
    }
    if (j->depth > CLG_JSON_MAX_DEPTH) {
        json_object_put(o);
        return;
    }
    parent = j->open[j->depth - 1];
    if (json_object_is_type(parent, json_type_array))
        json_object_array_add(parent, o);
    else if (json_object_is_type(parent, json_type_object))
        json_object_object_add(parent, key != NULL ? key : "", o);
    else
        json_object_put(o);
}

static void begin(clg_json *j, const char *key, json_object *o)
{
    if (j->depth < CLG_JSON_MAX_DEPTH) {
        add(j, key, json_object_get(o));    /* the parent's reference */
        json_object_put(j->open[j->depth]); /* the root keeps its own */
        j->open[j->depth] = o;
    } else {
        json_object_put(o);
    }
    j->depth++;
}

static void end(clg_json *j)
{
    if (j->depth == 0)
        return;
    j->depth--;
    if (j->depth > 0 && j->depth < CLG_JSON_MAX_DEPTH) {
        json_object_put(j->open[j->depth]); /* the parent holds it */
        j->open[j->depth] = NULL;
    }
}

void clg_json_begin_object(clg_json *j, const char *key)
{
    begin(j, key, json_object_new_object());
}

void clg_json_end_object(clg_json *j)
{
    end(j);
}

void clg_json_begin_array(clg_json *j, const char *key)
{
    begin(j, key, json_object_new_array());
}

void clg_json_end_array(clg_json *j)
{
    end(j);
}

void clg_json_string(clg_json *j, const char *key, const char *value)
{
    add(j, key, new_string(value));
}

void clg_json_int(clg_json *j, const char *key, int64_t value)
{
    add(j, key, json_object_new_int64(value));
}

void clg_json_uint(clg_json *j, const char *key, uint64_t value)
{
    add(j, key, json_object_new_uint64(value));
}

void clg_json_number(clg_json *j, const char *key, int present, double v)
{
    add(j, key, new_number(present, v));
}

void clg_json_bool(clg_json *j, const char *key, int value)
{
    add(j, key, json_object_new_boolean(value != 0));
}

void clg_json_null(clg_json *j, const char *key)
{
    add(j, key, NULL);
}

void clg_json_shape(clg_json *j, const char *key, const int64_t *shape,
                    size_t rank)
{
    add(j, key, new_shape(shape, rank));
}

void clg_json_strings(clg_json *j, const char *key, const char *const *list,
                      size_t n)
{
    json_object *a = json_object_new_array_ext((int)n);
    for (size_t i = 0; a != NULL && i < n; i++)
        json_object_array_add(a, new_string(list[i]));
    add(j, key, a);
}

void clg_json_finish(clg_json *j)
{
    fputs(json_object_to_json_string_ext(j->open[0], PRINT_FLAGS), j->f);
    fputc('\n', j->f);
    fflush(j->f);
    for (size_t i = 0; i < CLG_JSON_MAX_DEPTH; i++) {
        json_object_put(j->open[i]);
        j->open[i] = NULL;
    }
    j->depth = 0;
}
