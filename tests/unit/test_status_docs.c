/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Every list of statuses in the docs against the header's table
 * (CLG_STATUS_TABLE): docs/guide.md, "Errors" (value and name of each
 * status) and docs/python.md's table of exception classes (each name but
 * OK). A status missing from a page, one the table does not have, a
 * wrong value or a row given twice fails. No device needed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clg_test.h"

#define ROW(name, value, message) {value, #name},
static const struct {
    int value;
    const char *name;
} table[] = {CLG_STATUS_TABLE(ROW)};
#undef ROW
#define TABLE_LEN CLG_TEST_ARRAY_LEN(table)

static char *read_doc(const char *page)
{
    char path[1024];
    FILE *f;
    char *text;
    long size;
    snprintf(path, sizeof path, "%s/docs/%s", CLG_SOURCE_DIR, page);
    f = fopen(path, "rb");
    if (f == NULL)
        fail_msg("cannot open %s", path);
    assert_int_equal(fseek(f, 0, SEEK_END), 0);
    size = ftell(f);
    assert_true(size > 0);
    rewind(f);
    text = malloc((size_t)size + 1);
    assert_non_null(text);
    assert_int_equal(fread(text, 1, (size_t)size, f), (size_t)size);
    text[size] = '\0';
    fclose(f);
    return text;
}

static int table_index(const char *name)
{
    for (size_t i = 0; i < TABLE_LEN; i++)
        if (strcmp(table[i].name, name) == 0)
            return (int)i;
    return -1;
}

/* docs/guide.md: rows "| 16 | `PENDING_LIMIT` | ..." after the heading
 * "## Errors", up to the first line that is not a table row. */
static void test_guide_status_table(void **state)
{
    char *doc = read_doc("guide.md");
    const char *p = strstr(doc, "\n## Errors\n");
    int seen[TABLE_LEN];
    size_t rows = 0;
    (void)state;
    memset(seen, 0, sizeof seen);
    assert_non_null(p);
    p = strstr(p, "\n| value | status | when |\n");
    assert_non_null(p);
    p = strchr(p + 1, '\n') + 1; /* the header row */
    p = strchr(p, '\n') + 1;     /* the |---| row */
    while (p[0] == '|') {
        int value = -1, i;
        char name[64] = "";
        if (sscanf(p, "| %d | `%63[A-Z_]` |", &value, name) != 2)
            fail_msg("not a status row: %.80s", p);
        i = table_index(name);
        if (i < 0)
            fail_msg("docs/guide.md names %s, which CLG_STATUS_TABLE "
                     "does not have",
                     name);
        if (table[i].value != value)
            fail_msg("docs/guide.md gives %s the value %d, the table %d", name,
                     value, table[i].value);
        if (seen[i]++)
            fail_msg("docs/guide.md lists %s twice", name);
        rows++;
        p = strchr(p, '\n') + 1;
    }
    for (size_t i = 0; i < TABLE_LEN; i++)
        if (!seen[i])
            fail_msg("docs/guide.md's status table lacks %s (%d)",
                     table[i].name, table[i].value);
    assert_int_equal(rows, TABLE_LEN);
    free(doc);
}

/* docs/python.md: rows "| PENDING_LIMIT | `PendingLimitError` ... |" of
 * the table headed "| status | class | also a |"; every status but OK. */
static void test_python_status_table(void **state)
{
    char *doc = read_doc("python.md");
    const char *p = strstr(doc, "\n| status | class | also a |\n");
    int seen[TABLE_LEN];
    size_t rows = 0;
    (void)state;
    memset(seen, 0, sizeof seen);
    assert_non_null(p);
    p = strchr(p + 1, '\n') + 1;
    p = strchr(p, '\n') + 1;
    while (p[0] == '|') {
        char name[64] = "";
        int i;
        if (sscanf(p, "| %63[A-Z_] |", name) != 1)
            fail_msg("not a status row: %.80s", p);
        i = table_index(name);
        if (i < 0)
            fail_msg("docs/python.md names %s, which CLG_STATUS_TABLE "
                     "does not have",
                     name);
        if (seen[i]++)
            fail_msg("docs/python.md lists %s twice", name);
        rows++;
        p = strchr(p, '\n') + 1;
    }
    for (size_t i = 0; i < TABLE_LEN; i++)
        if (!seen[i] && table[i].value != CLG_STATUS_OK)
            fail_msg("docs/python.md's status table lacks %s (%d)",
                     table[i].name, table[i].value);
    assert_int_equal(rows, TABLE_LEN - 1);
    free(doc);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_guide_status_table),
        cmocka_unit_test(test_python_status_table),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
