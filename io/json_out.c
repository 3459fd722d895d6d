/* SPDX-License-Identifier: Apache-2.0 */
/* JSON output: see json_out.h. */
#include "json_out.h"

#include <math.h>

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

void clg_json_write_string(FILE *f, const char *s)
{
    if (s == NULL) {
        fputs("null", f);
        return;
    }
    fputc('"', f);
    const unsigned char *p = (const unsigned char *)s;
    while (*p) {
        unsigned char c = *p;
        size_t n = c < 0x80 ? 1 : utf8_sequence(p);
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c < 0x20 || c == 0x7f)
            fprintf(f, "\\u%04x", c);
        else if (n == 0)
            fputs("\\ufffd", f); /* a byte that is not UTF-8 */
        else
            fwrite(p, 1, n, f);
        p += n ? n : 1;
    }
    fputc('"', f);
}

void clg_json_write_number(FILE *f, int present, double v)
{
    if (present && isfinite(v))
        fprintf(f, "%.6g", v);
    else
        fputs("null", f);
}

void clg_json_write_shape(FILE *f, const int64_t *shape, size_t rank)
{
    fputc('[', f);
    for (size_t i = 0; i < rank; i++)
        fprintf(f, "%s%lld", i ? ", " : "", (long long)shape[i]);
    fputc(']', f);
}

void clg_json_init(clg_json *j, FILE *f)
{
    j->f = f;
    j->depth = 0;
    for (size_t i = 0; i < CLG_JSON_MAX_DEPTH; i++)
        j->has_items[i] = 0;
}

/* The separator, the indent and the key of the next value. */
static void item(clg_json *j, const char *key)
{
    int level = j->depth < CLG_JSON_MAX_DEPTH ? j->depth : 0;
    if (j->depth > 0) {
        fputs(j->has_items[level] ? ",\n" : "\n", j->f);
        for (int i = 0; i < j->depth; i++)
            fputs("  ", j->f);
    }
    j->has_items[level] = 1;
    if (key != NULL) {
        clg_json_write_string(j->f, key);
        fputs(": ", j->f);
    }
}

static void begin(clg_json *j, const char *key, char open)
{
    item(j, key);
    fputc(open, j->f);
    j->depth++;
    if (j->depth < CLG_JSON_MAX_DEPTH)
        j->has_items[j->depth] = 0;
}

static void end(clg_json *j, char close)
{
    int had = j->depth < CLG_JSON_MAX_DEPTH ? j->has_items[j->depth] : 1;
    j->depth--;
    if (had) {
        fputc('\n', j->f);
        for (int i = 0; i < j->depth; i++)
            fputs("  ", j->f);
    }
    fputc(close, j->f);
}

void clg_json_begin_object(clg_json *j, const char *key)
{
    begin(j, key, '{');
}

void clg_json_end_object(clg_json *j)
{
    end(j, '}');
}

void clg_json_begin_array(clg_json *j, const char *key)
{
    begin(j, key, '[');
}

void clg_json_end_array(clg_json *j)
{
    end(j, ']');
}

void clg_json_string(clg_json *j, const char *key, const char *value)
{
    item(j, key);
    clg_json_write_string(j->f, value);
}

void clg_json_int(clg_json *j, const char *key, int64_t value)
{
    item(j, key);
    fprintf(j->f, "%lld", (long long)value);
}

void clg_json_uint(clg_json *j, const char *key, uint64_t value)
{
    item(j, key);
    fprintf(j->f, "%llu", (unsigned long long)value);
}

void clg_json_number(clg_json *j, const char *key, int present, double v)
{
    item(j, key);
    clg_json_write_number(j->f, present, v);
}

void clg_json_bool(clg_json *j, const char *key, int value)
{
    item(j, key);
    fputs(value ? "true" : "false", j->f);
}

void clg_json_null(clg_json *j, const char *key)
{
    item(j, key);
    fputs("null", j->f);
}

void clg_json_shape(clg_json *j, const char *key, const int64_t *shape,
                    size_t rank)
{
    item(j, key);
    clg_json_write_shape(j->f, shape, rank);
}

void clg_json_finish(clg_json *j)
{
    fputc('\n', j->f);
    fflush(j->f);
}
