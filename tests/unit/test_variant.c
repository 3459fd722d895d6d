/* SPDX-License-Identifier: Apache-2.0 */
/* The kernel variant tables (src/variant.h) against the kernels: the same
 * options as kernels/common.cl's list, every entry point of the entry
 * table in its file with its argument list and every __kernel in a row,
 * build options formatted from the table, impossible combinations
 * refused. No device needed. */
#include "clg_test.h"

#include <ctype.h>

#include "kernels_embedded.h"
#include "variant.h"

static const char *kernel_text(const char *name)
{
    for (size_t i = 0; i < clg_kernel_source_count; i++)
        if (!strcmp(clg_kernel_sources[i].name, name))
            return clg_kernel_sources[i].text;
    fail_msg("kernel file %s is not embedded", name);
    return NULL;
}

/* Every row of the C table is in common.cl's list, and the list has no
 * other entry. */
static void test_table_matches_common_cl(void **state)
{
    (void)state;
    const char *text = kernel_text("common.cl");
    size_t listed = 0;
    for (const char *at = strstr(text, " *   -DCLG_"); at;
         at = strstr(at + 1, " *   -DCLG_"))
        listed++;
    assert_int_equal(listed, CLG_OPT_COUNT);
    for (int i = 0; i < CLG_OPT_COUNT; i++) {
        char entry[64];
        snprintf(entry, sizeof entry, " *   -DCLG_%s=", clg_options[i].name);
        if (!strstr(text, entry))
            fail_msg("option CLG_%s of src/variant.h is not listed in "
                     "kernels/common.cl",
                     clg_options[i].name);
    }
}

/* Every CLG_ macro a kernel file tests with #if/#ifdef is in the table,
 * but for CLG_TEST_MISCOMPILE, which the runtime adds to every build under
 * the test-only CLGATHER_TEST_MISCOMPILE=1 (host/program.c): not a variant
 * option. */
static void test_kernels_test_only_table_options(void **state)
{
    (void)state;
    size_t checked = 0;
    for (size_t f = 0; f < clg_kernel_source_count; f++) {
        const char *t = clg_kernel_sources[f].text;
        for (const char *line = t; line && *line;
             line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
            if (line[0] != '#' || !strncmp(line, "#define", 7) ||
                !strncmp(line, "#error", 6))
                continue;
            const char *end = strchr(line, '\n');
            for (const char *m = strstr(line, "CLG_"); m && (!end || m < end);
                 m = strstr(m + 4, "CLG_")) {
                size_t n = strspn(m + 4, "ABCDEFGHIJKLMNOPQRSTUVWXYZ_");
                int known = n == strlen("TEST_MISCOMPILE") &&
                            !strncmp(m + 4, "TEST_MISCOMPILE", n);
                for (int i = 0; i < CLG_OPT_COUNT; i++)
                    known |= strlen(clg_options[i].name) == n &&
                             !strncmp(m + 4, clg_options[i].name, n);
                if (!known)
                    fail_msg("%s tests CLG_%.*s, which src/variant.h does "
                             "not list",
                             clg_kernel_sources[f].name, (int)n, m + 4);
                checked++;
            }
        }
    }
    assert_true(checked >= 20);
}

/* The text of #define `macro` in `file` (its continuation lines joined),
 * or NULL. */
static const char *macro_body(const char *file, const char *macro, char *buf,
                              size_t cap)
{
    char head[96];
    snprintf(head, sizeof head, "#define %s", macro);
    const char *at = strstr(file, head);
    size_t len = 0;
    /* The name in full: CLG_X is not CLG_X_Q. */
    while (at && (isalnum((unsigned char)at[strlen(head)]) ||
                  at[strlen(head)] == '_'))
        at = strstr(at + 1, head);
    if (!at)
        return NULL;
    at += strlen(head);
    if (*at == '(') /* a function-like macro's parameters */
        at = strchr(at, ')') + 1;
    for (; *at && *at != '\n' && len + 1 < cap; at++) {
        if (*at == '\\' && at[1] == '\n')
            at++;
        else
            buf[len++] = *at;
    }
    buf[len] = '\0';
    return buf;
}

/* `text` with the CLG_ macros of `file` expanded, repeatedly, into out; a
 * function-like macro's arguments are dropped (the parameter names are
 * the identifiers after the qualifiers they pass). */
static void expand_macros(const char *file, const char *text, char *out,
                          size_t cap)
{
    char body[2048], again[2048];
    size_t len = 0;
    int expanded = 0;
    for (const char *at = text; *at && len + 1 < cap;) {
        size_t id = strspn(at, "ABCDEFGHIJKLMNOPQRSTUVWXYZ_");
        if (id > 4 && !strncmp(at, "CLG_", 4) &&
            (at == text || !isalnum((unsigned char)at[-1]))) {
            char macro[64];
            snprintf(macro, sizeof macro, "%.*s", (int)id, at);
            const char *m = macro_body(file, macro, body, sizeof body);
            assert_non_null(m);
            len += (size_t)snprintf(out + len, cap - len, "%s", m);
            at += id;
            if (*at == '(')
                at = strchr(at, ')') + 1;
            expanded = 1;
        } else {
            out[len++] = *at++;
        }
    }
    out[len] = '\0';
    if (expanded) {
        snprintf(again, sizeof again, "%s", out);
        expand_macros(file, again, out, cap);
    }
}

/* The parameter names of `__kernel void name(...)` in `file`, comma
 * separated, into out; parameter macros of the file (CLG_GATHER_PARAMS)
 * are expanded. 0 when the file has no such entry point. */
static int kernel_params(const char *file, const char *name, char *out,
                         size_t cap)
{
    char head[96], raw[2048], text[2048];
    snprintf(head, sizeof head, "__kernel void %s(", name);
    const char *at = strstr(file, head);
    size_t n = 0;
    if (!at)
        return 0;
    at += strlen(head);
    const char *end = strchr(at, ')');
    assert_non_null(end);
    snprintf(raw, sizeof raw, "%.*s", (int)(end - at), at);
    expand_macros(file, raw, text, sizeof text);
    /* The last identifier before each comma is the parameter's name. */
    out[0] = '\0';
    for (char *p = strtok(text, ","); p; p = strtok(NULL, ",")) {
        char *e = p + strlen(p);
        while (e > p && !isalnum((unsigned char)e[-1]) && e[-1] != '_')
            e--;
        char *b = e;
        while (b > p && (isalnum((unsigned char)b[-1]) || b[-1] == '_'))
            b--;
        n += (size_t)snprintf(out + n, cap - n, "%s%.*s", n ? "," : "",
                              (int)(e - b), b);
    }
    return 1;
}

/* The field names of `typedef struct type { ... } type;` in `file`, comma
 * separated, into out; 0 when the file has no such typedef. */
static int struct_fields(const char *file, const char *type, char *out,
                         size_t cap)
{
    char head[96];
    snprintf(head, sizeof head, "typedef struct %s {", type);
    const char *at = strstr(file, head);
    size_t n = 0;
    if (!at)
        return 0;
    at += strlen(head);
    const char *end = strchr(at, '}');
    assert_non_null(end);
    out[0] = '\0';
    /* Each declaration: a type name, then field names separated by
     * commas, up to its semicolon. */
    while (at < end) {
        at += strspn(at, " \n");
        at += strspn(at, "abcdefghijklmnopqrstuvwxyz_0123456789");
        for (;;) {
            at += strspn(at, " \n");
            size_t id = strspn(at, "abcdefghijklmnopqrstuvwxyz_0123456789");
            n += (size_t)snprintf(out + n, cap - n, "%s%.*s", n ? "," : "",
                                  (int)id, at);
            at += id;
            at += strspn(at, " \n");
            if (*at++ != ',')
                break;
        }
        at += strspn(at, " \n");
    }
    return 1;
}

/* Every row of the entry table is a __kernel of its file whose parameters
 * are the row's argument list, in order. */
static void test_entries_are_in_their_files(void **state)
{
    (void)state;
    for (int e = 0; e < CLG_ENTRY_COUNT; e++) {
        const clg_entry_info *row = &clg_entries[e];
        const char *text = kernel_text(clg_kernel_file_name(row->file));
        char have[1024], want[1024];
        size_t n = 0;
        if (!kernel_params(text, row->name, have, sizeof have))
            fail_msg("entry point %s of the entry table is not a __kernel "
                     "of %s",
                     row->name, clg_kernel_file_name(row->file));
        want[0] = '\0';
        for (const clg_arg *a = row->args; *a != CLG_ARG_END; a++) {
            n += (size_t)snprintf(want + n, sizeof want - n, "%s%s",
                                  n ? "," : "", clg_arg_names[*a]);
        }
        for (char *c = want; *c; c++)
            *c = (char)tolower((unsigned char)*c);
        if (strcmp(have, want))
            fail_msg("%s: the kernel takes (%s), its row lists (%s)",
                     row->name, have, want);
        assert_true(row->dims >= 1 && row->dims <= 3);
    }
}

/* Every __kernel of every file has a row, so no entry point is chosen
 * outside the table. */
static void test_every_kernel_has_a_row(void **state)
{
    (void)state;
    size_t kernels = 0;
    for (size_t f = 0; f < clg_kernel_source_count; f++) {
        const char *t = clg_kernel_sources[f].text;
        for (const char *at = strstr(t, "__kernel void "); at;
             at = strstr(at + 1, "__kernel void ")) {
            const char *name = at + strlen("__kernel void ");
            size_t len = strcspn(name, "(");
            int found = 0;
            for (int e = 0; e < CLG_ENTRY_COUNT; e++)
                found |= strlen(clg_entries[e].name) == len &&
                         !strncmp(clg_entries[e].name, name, len) &&
                         !strcmp(clg_kernel_file_name(clg_entries[e].file),
                                 clg_kernel_sources[f].name);
            if (!found)
                fail_msg("%s defines %.*s, which has no row in the entry "
                         "table",
                         clg_kernel_sources[f].name, (int)len, name);
            kernels++;
        }
    }
    assert_int_equal(kernels, CLG_ENTRY_COUNT);
}

/* Arguments go in the row's order, whatever order the routine set them
 * in; a missing one is refused. */
static void test_arguments_follow_the_row(void **state)
{
    (void)state;
    cl_ulong count = 7, s = 3;
    cl_mem idx = NULL, err = NULL;
    clg_args a = {{{0}}};
    clg_rt_arg out[CLG_ARG_END];
    cl_ulong shape[CLG_RT_PLAN_FIELDS];
    size_t n = 0;
    a.at[CLG_ARG_AXIS_SIZE] = CLG_RT_SCALAR(s);
    a.at[CLG_ARG_COUNT] = CLG_RT_SCALAR(count);
    a.at[CLG_ARG_ERR] = CLG_RT_BUFFER(err);
    assert_false(clg_entry_args(CLG_ENTRY_CHECK_INDICES, &a, out, CLG_ARG_END,
                                &n, shape));
    a.at[CLG_ARG_INDICES] = CLG_RT_BUFFER(idx);
    assert_true(clg_entry_args(CLG_ENTRY_CHECK_INDICES, &a, out, CLG_ARG_END,
                               &n, shape));
    assert_int_equal(n, 4);
    assert_ptr_equal(out[0].value, &idx);
    assert_ptr_equal(out[1].value, &err);
    assert_ptr_equal(out[2].value, &count);
    assert_ptr_equal(out[3].value, &s);
    assert_int_equal(out[0].scalar, 0); /* buffers are set every launch */
    assert_int_equal(out[2].scalar, 1);
    assert_false(clg_entry_args(CLG_ENTRY_CHECK_INDICES, &a, out, 3, &n,
                                shape));
    assert_false(clg_entry_args(CLG_ENTRY_NORMALIZE_INDICES, &a, out,
                                CLG_ARG_END, &n, shape));
}

/* `type` is typedef'd in exactly one kernel file with fields `want`
 * (comma separated), and that file's clg_shape_fields lists them. */
static void check_shape(const char *type, const char *want)
{
    int found = 0;
    for (int f = 0; f < CLG_FILE_COUNT; f++) {
        char have[512], listed[512];
        size_t n = 0;
        if (!struct_fields(kernel_text(clg_kernel_file_name((clg_kernel_file)
                                                                f)),
                           type, have, sizeof have))
            continue;
        found++;
        if (strcmp(have, want))
            fail_msg("%s: kernels/%s has fields (%s), src/variant.h (%s)",
                     type, clg_kernel_file_name((clg_kernel_file)f), have,
                     want);
        assert_non_null(clg_shape_fields[f]);
        listed[0] = '\0';
        for (const clg_arg *a = clg_shape_fields[f]; *a != CLG_ARG_END; a++)
            n += (size_t)snprintf(listed + n, sizeof listed - n, "%s%s",
                                  n ? "," : "", clg_arg_names[*a]);
        for (char *c = listed; *c; c++)
            *c = (char)tolower((unsigned char)*c);
        assert_string_equal(listed, want);
    }
    assert_int_equal(found, 1);
}

/* A shape is one argument, packed from its fields' values in the order of
 * its file's typedef; a missing field is refused like a missing argument. */
static void test_shape_is_packed_from_its_fields(void **state)
{
    (void)state;
    cl_ulong v[CLG_ARG_END];
    cl_mem buf = NULL;
    clg_args a = {{{0}}};
    clg_rt_arg out[CLG_ARG_END];
    cl_ulong shape[CLG_RT_PLAN_FIELDS];
    size_t n = 0;
    a.at[CLG_ARG_DATA] = CLG_RT_BUFFER(buf);
    a.at[CLG_ARG_INDICES] = CLG_RT_BUFFER(buf);
    a.at[CLG_ARG_OUT] = CLG_RT_BUFFER(buf);
    a.at[CLG_ARG_ERR] = CLG_RT_BUFFER(buf);
    a.at[CLG_ARG_TUPLE_GEOM] = CLG_RT_BUFFER(buf);
    for (int i = 0; i < CLG_ARG_END; i++)
        v[i] = 100 + (cl_ulong)i;
    for (const clg_arg *f = clg_shape_fields[CLG_FILE_GATHER_ND];
         *f != CLG_ARG_BATCH_STRIDE; f++)
        a.at[*f] = CLG_RT_SCALAR(v[*f]);
    assert_false(clg_entry_args(CLG_ENTRY_GATHER_ND, &a, out, CLG_ARG_END, &n,
                                shape));
    a.at[CLG_ARG_BATCH_STRIDE] = CLG_RT_SCALAR(v[CLG_ARG_BATCH_STRIDE]);
    assert_true(clg_entry_args(CLG_ENTRY_GATHER_ND, &a, out, CLG_ARG_END, &n,
                               shape));
    assert_int_equal(n, 6);
    assert_ptr_equal(out[4].value, &buf); /* tuple_geom */
    assert_ptr_equal(out[5].value, shape);
    assert_int_equal(out[5].size, sizeof(clg_nd_shape));
    assert_int_equal(out[5].size, 10 * sizeof(cl_ulong));
    assert_int_equal(out[5].scalar, 1);
    clg_nd_shape nd;
    memcpy(&nd, shape, sizeof nd);
    assert_int_equal(nd.n, 100 + CLG_ARG_N);
    assert_int_equal(nd.axis_size, 100 + CLG_ARG_AXIS_SIZE);
    assert_int_equal(nd.out_len, 100 + CLG_ARG_OUT_LEN);
    assert_int_equal(nd.batch_stride, 100 + CLG_ARG_BATCH_STRIDE);
    /* The positions pass of the same file takes its scalars one by one. */
    assert_null(clg_entry_shape(CLG_ENTRY_GATHER_ND_POSITIONS));
    assert_null(clg_entry_shape(CLG_ENTRY_CHECK_INDICES));
    assert_ptr_equal(clg_entry_shape(CLG_ENTRY_PACK_STRIPS),
                     clg_shape_fields[CLG_FILE_GATHER_ELEMENTS]);
}

/* Each shape typedef of src/variant.h is in exactly one kernel file, the
 * one whose kernels take it, with the same fields in the same order, each
 * named after its argument. */
static void test_shapes_match_the_kernels(void **state)
{
    (void)state;
#define CLG_FIELD_NAME_(arg, field) "," #field
#define CLG_FIELD_ARG_(arg, field)                                            \
    {                                                                         \
        char lower[32];                                                       \
        snprintf(lower, sizeof lower, "%s", clg_arg_names[CLG_ARG_##arg]);    \
        for (char *c = lower; *c; c++)                                        \
            *c = (char)tolower((unsigned char)*c);                            \
        assert_string_equal(lower, #field);                                   \
    }
#define CLG_SHAPE_CHECK_(type, fields)                                        \
    check_shape(#type, &("" fields(CLG_FIELD_NAME_))[1]);                     \
    fields(CLG_FIELD_ARG_)
    CLG_SHAPE_TYPES(CLG_SHAPE_CHECK_)
#undef CLG_SHAPE_CHECK_
#undef CLG_FIELD_ARG_
#undef CLG_FIELD_NAME_
}

static void test_options_come_from_the_table(void **state)
{
    (void)state;
    char buf[256];
    clg_variant g = {CLG_ENTRY_GATHER, {0}};
    g.value[CLG_OPT_INDEX_BYTES] = 8;
    g.value[CLG_OPT_UNIT] = 4;
    g.value[CLG_OPT_WIDE] = 1;
    g.value[CLG_OPT_SPAN] = 1;
    assert_null(clg_variant_check(&g));
    assert_true(clg_variant_options(&g, buf, sizeof buf));
    assert_string_equal(buf,
                        "-cl-std=CL1.2 -w -DCLG_INDEX_BYTES=8 -DCLG_OOB=0 "
                        "-DCLG_UNIT=4 -DCLG_WIDE=1 -DCLG_WINDOWS=0 "
                        "-DCLG_SPAN=1 "
                        "-DCLG_PREFETCH=0 -DCLG_NT=0");
    clg_variant e = {CLG_ENTRY_ELEMENTS, {0}};
    e.value[CLG_OPT_INDEX_BYTES] = 4;
    e.value[CLG_OPT_UNIT] = 16;
    e.value[CLG_OPT_WINDOWS] = 1;
    e.value[CLG_OPT_OUTER_DIMS] = 2;
    e.value[CLG_OPT_INNER_DIMS] = 1;
    e.value[CLG_OPT_OOB] = CLG_OOB_FILL;
    assert_null(clg_variant_check(&e));
    assert_true(clg_variant_options(&e, buf, sizeof buf));
    assert_string_equal(buf,
                        "-cl-std=CL1.2 -w -DCLG_INDEX_BYTES=4 -DCLG_OOB=3 "
                        "-DCLG_UNIT=16 "
                        "-DCLG_WIDE=0 -DCLG_WINDOWS=1 -DCLG_OUTER_DIMS=2 "
                        "-DCLG_INNER_DIMS=1 -DCLG_PREFETCH=0 -DCLG_NT=0 "
                        "-DCLG_AHEAD=0");
    /* Reading ahead: the lean body only, whole tensors, value 0 or 2. */
    e.value[CLG_OPT_AHEAD] = 2;
    assert_non_null(clg_variant_check(&e));
    e.entry = CLG_ENTRY_ELEMENTS_LEAN;
    e.value[CLG_OPT_WINDOWS] = 0;
    e.value[CLG_OPT_OUTER_DIMS] = 1;
    e.value[CLG_OPT_INNER_DIMS] = 0;
    e.value[CLG_OPT_WIDE] = 1;
    assert_null(clg_variant_check(&e));
    assert_true(clg_variant_options(&e, buf, sizeof buf));
    assert_non_null(strstr(buf, " -DCLG_AHEAD=2"));
    e.value[CLG_OPT_AHEAD] = 1;
    assert_non_null(clg_variant_check(&e));
    e.value[CLG_OPT_AHEAD] = 0;
    clg_variant c = {CLG_ENTRY_CHECK_INDICES, {0}};
    c.value[CLG_OPT_INDEX_BYTES] = 4;
    assert_true(clg_variant_options(&c, buf, sizeof buf));
    assert_string_equal(buf,
                        "-cl-std=CL1.2 -w -DCLG_INDEX_BYTES=4 -DCLG_OOB=0");
    /* The check kernel serves raise only; mode 4 is no mode. */
    c.value[CLG_OPT_OOB] = CLG_OOB_WRAP;
    assert_non_null(clg_variant_check(&c));
    c.value[CLG_OPT_OOB] = 0;
    e.value[CLG_OPT_OOB] = 4;
    assert_non_null(clg_variant_check(&e));
    e.value[CLG_OPT_OOB] = CLG_OOB_FILL;
    assert_false(clg_variant_options(&e, buf, 20));
}

static void test_impossible_combinations_are_refused(void **state)
{
    (void)state;
    clg_variant ok = {CLG_ENTRY_ELEMENTS_LEAN, {0}};
    ok.value[CLG_OPT_INDEX_BYTES] = 8;
    ok.value[CLG_OPT_UNIT] = 2;
    ok.value[CLG_OPT_OUTER_DIMS] = 1;
    assert_null(clg_variant_check(&ok));

    clg_variant v = ok;
    v.value[CLG_OPT_UNIT] = 3;
    CLG_ASSERT_CONTAINS(clg_variant_check(&v), "outside its legal values");
    v = ok;
    v.value[CLG_OPT_INDEX_BYTES] = 2;
    CLG_ASSERT_CONTAINS(clg_variant_check(&v), "outside its legal values");
    v = ok;
    v.value[CLG_OPT_WIDE] = 2;
    CLG_ASSERT_CONTAINS(clg_variant_check(&v), "outside its legal values");
    v = ok;
    v.value[CLG_OPT_WINDOWS] = 1;
    CLG_ASSERT_CONTAINS(clg_variant_check(&v), "whole tensors");
    v = ok;
    v.value[CLG_OPT_OUTER_DIMS] = 2;
    CLG_ASSERT_CONTAINS(clg_variant_check(&v), "at most one outer stride");
    v = ok;
    v.value[CLG_OPT_INNER_DIMS] = 1;
    CLG_ASSERT_CONTAINS(clg_variant_check(&v), "no inner dims");

    v = ok;
    v.entry = CLG_ENTRY_ELEMENTS_PACKED;
    CLG_ASSERT_CONTAINS(clg_variant_check(&v), "one inner stride");
    v.value[CLG_OPT_INNER_DIMS] = 1;
    assert_null(clg_variant_check(&v));
    assert_true(clg_entry_fits(CLG_ENTRY_PACK_STRIPS, &v));
    assert_false(clg_entry_fits(CLG_ENTRY_ELEMENTS_LEAN, &v));
    v.entry = CLG_ENTRY_PACK_STRIPS;
    v.value[CLG_OPT_WINDOWS] = 1;
    CLG_ASSERT_CONTAINS(clg_variant_check(&v), "whole tensors");
    assert_true(clg_entry_fits(CLG_ENTRY_ELEMENTS_STRIPS, &v));
    v = ok;
    v.value[CLG_OPT_PREFETCH] = 1;
    assert_null(clg_variant_check(&v));
    v.entry = CLG_ENTRY_ELEMENTS_UNITS;
    CLG_ASSERT_CONTAINS(clg_variant_check(&v),
                        "only the lean, lanes and packed bodies prefetch");
    v = ok;
    v.entry = CLG_ENTRY_ELEMENTS_LANES;
    assert_null(clg_variant_check(&v));
    v.value[CLG_OPT_UNIT] = 16;
    CLG_ASSERT_CONTAINS(clg_variant_check(&v), "at most 8 bytes");

    clg_variant g = {CLG_ENTRY_GATHER, {0}};
    g.value[CLG_OPT_INDEX_BYTES] = 4;
    g.value[CLG_OPT_UNIT] = 1;
    g.value[CLG_OPT_SPAN] = 1;
    assert_null(clg_variant_check(&g));
    g.value[CLG_OPT_SPAN] = 3;
    CLG_ASSERT_CONTAINS(clg_variant_check(&g), "outside its legal values");
    g.value[CLG_OPT_SPAN] = 1;
    g.value[CLG_OPT_OUTER_DIMS] = 1;
    CLG_ASSERT_CONTAINS(clg_variant_check(&g), "does not take it");
    clg_variant c = {CLG_ENTRY_CHECK_INDICES, {0}};
    c.value[CLG_OPT_INDEX_BYTES] = 8;
    assert_null(clg_variant_check(&c));
    c.value[CLG_OPT_UNIT] = 1;
    CLG_ASSERT_CONTAINS(clg_variant_check(&c), "does not take it");
    g.value[CLG_OPT_OUTER_DIMS] = 0;
    g.value[CLG_OPT_SPAN] = 2;
    CLG_ASSERT_CONTAINS(clg_variant_check(&g), "only the lean Gather rows");
    g.entry = CLG_ENTRY_GATHER_LEAN;
    assert_null(clg_variant_check(&g));
    g.entry = CLG_ENTRY_GATHER_LEAN_NORMED;
    assert_null(clg_variant_check(&g));
    g.value[CLG_OPT_INDEX_BYTES] = 8;
    CLG_ASSERT_CONTAINS(clg_variant_check(&g), "int positions");
    clg_variant none = {CLG_ENTRY_COUNT, {0}};
    CLG_ASSERT_CONTAINS(clg_variant_check(&none), "no such entry point");
    assert_string_equal(clg_kernel_file_name(CLG_FILE_GATHER_ELEMENTS),
                        "gather_elements.cl");
    assert_string_equal(clg_kernel_file_name(CLG_FILE_COUNT), "");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_table_matches_common_cl),
        cmocka_unit_test(test_kernels_test_only_table_options),
        cmocka_unit_test(test_entries_are_in_their_files),
        cmocka_unit_test(test_every_kernel_has_a_row),
        cmocka_unit_test(test_arguments_follow_the_row),
        cmocka_unit_test(test_shape_is_packed_from_its_fields),
        cmocka_unit_test(test_shapes_match_the_kernels),
        cmocka_unit_test(test_options_come_from_the_table),
        cmocka_unit_test(test_impossible_combinations_are_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
