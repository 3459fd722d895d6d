/* The kernel variant table (src/variant.h) against the kernels' own list
 * (kernels/common.cl): the same options, build options formatted from the
 * table, impossible combinations refused. No device needed. */
#include "clg_test.h"

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

/* Every CLG_ macro a kernel file tests with #if/#ifdef is in the table. */
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
                int known = 0;
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

static void test_options_come_from_the_table(void **state)
{
    (void)state;
    char buf[256];
    clg_variant g = {CLG_FILE_GATHER, "clg_gather", {0}};
    g.value[CLG_OPT_INDEX_BYTES] = 8;
    g.value[CLG_OPT_UNIT] = 4;
    g.value[CLG_OPT_WIDE] = 1;
    g.value[CLG_OPT_SPAN] = 1;
    assert_null(clg_variant_check(&g));
    assert_true(clg_variant_options(&g, buf, sizeof buf));
    assert_string_equal(buf, "-cl-std=CL1.2 -DCLG_INDEX_BYTES=8 -DCLG_UNIT=4 "
                             "-DCLG_WIDE=1 -DCLG_WINDOWS=0 -DCLG_SPAN=1 "
                             "-DCLG_PREFETCH=0 -DCLG_NT=0");
    clg_variant e = {CLG_FILE_GATHER_ELEMENTS, "clg_gather_elements", {0}};
    e.value[CLG_OPT_INDEX_BYTES] = 4;
    e.value[CLG_OPT_UNIT] = 16;
    e.value[CLG_OPT_WINDOWS] = 1;
    e.value[CLG_OPT_OUTER_DIMS] = 2;
    e.value[CLG_OPT_INNER_DIMS] = 1;
    assert_null(clg_variant_check(&e));
    assert_true(clg_variant_options(&e, buf, sizeof buf));
    assert_string_equal(buf, "-cl-std=CL1.2 -DCLG_INDEX_BYTES=4 -DCLG_UNIT=16 "
                             "-DCLG_WIDE=0 -DCLG_WINDOWS=1 -DCLG_OUTER_DIMS=2 "
                             "-DCLG_INNER_DIMS=1 -DCLG_PREFETCH=0 -DCLG_NT=0");
    clg_variant c = {CLG_FILE_CHECK, "clg_check_indices", {0}};
    c.value[CLG_OPT_INDEX_BYTES] = 4;
    assert_true(clg_variant_options(&c, buf, sizeof buf));
    assert_string_equal(buf, "-cl-std=CL1.2 -DCLG_INDEX_BYTES=4");
    assert_false(clg_variant_options(&e, buf, 20));
}

static void test_impossible_combinations_are_refused(void **state)
{
    (void)state;
    clg_variant ok = {CLG_FILE_GATHER_ELEMENTS,
                      "clg_gather_elements_lean",
                      {0}};
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
    CLG_ASSERT_CONTAINS(clg_variant_check(&v), "at most one outer stride");

    v = ok;
    v.kernel = "clg_gather_elements_packed";
    CLG_ASSERT_CONTAINS(clg_variant_check(&v), "packed strips");
    v.value[CLG_OPT_INNER_DIMS] = 1;
    assert_null(clg_variant_check(&v));
    v.kernel = "clg_pack_strips";
    v.value[CLG_OPT_WINDOWS] = 1;
    CLG_ASSERT_CONTAINS(clg_variant_check(&v), "packed strips");

    clg_variant g = {CLG_FILE_GATHER, "clg_gather", {0}};
    g.value[CLG_OPT_INDEX_BYTES] = 4;
    g.value[CLG_OPT_UNIT] = 1;
    g.value[CLG_OPT_SPAN] = 1;
    assert_null(clg_variant_check(&g));
    g.value[CLG_OPT_SPAN] = 3;
    CLG_ASSERT_CONTAINS(clg_variant_check(&g), "outside its legal values");
    g.value[CLG_OPT_SPAN] = 1;
    g.value[CLG_OPT_OUTER_DIMS] = 1;
    CLG_ASSERT_CONTAINS(clg_variant_check(&g), "does not take it");
    clg_variant c = {CLG_FILE_CHECK, "clg_check_indices", {0}};
    c.value[CLG_OPT_INDEX_BYTES] = 8;
    assert_null(clg_variant_check(&c));
    c.value[CLG_OPT_UNIT] = 1;
    CLG_ASSERT_CONTAINS(clg_variant_check(&c), "does not take it");
    clg_variant none = {CLG_FILE_GATHER, NULL, {0}};
    CLG_ASSERT_CONTAINS(clg_variant_check(&none), "no entry point");
    assert_string_equal(clg_kernel_file_name(CLG_FILE_GATHER_ELEMENTS),
                        "gather_elements.cl");
    assert_string_equal(clg_kernel_file_name(CLG_FILE_COUNT), "");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_table_matches_common_cl),
        cmocka_unit_test(test_kernels_test_only_table_options),
        cmocka_unit_test(test_options_come_from_the_table),
        cmocka_unit_test(test_impossible_combinations_are_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
