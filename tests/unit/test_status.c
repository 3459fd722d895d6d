/* SPDX-License-Identifier: Apache-2.0 */
/* Status table, version and OpenCL error names: no device needed. */
#include "clg_test.h"

#include <errno.h>

/* The expectations come from the header's own table, so the test checks
 * that the library's functions agree with it entry by entry. */
typedef struct status_row {
    clg_status status;
    int value;
    const char *name;
    const char *message;
} status_row;

#define ROW(name, value, message) {CLG_STATUS_##name, value, #name, message},
static const status_row rows[] = {CLG_STATUS_TABLE(ROW)};
#undef ROW

static void test_status_values_are_pinned(void **state)
{
    (void)state;
    /* Values are part of the ABI; a reordering of the table must fail. */
    assert_int_equal(CLG_STATUS_OK, 0);
    assert_int_equal(CLG_STATUS_NULL_POINTER, 1);
    assert_int_equal(CLG_STATUS_INVALID_ARGUMENT, 2);
    assert_int_equal(CLG_STATUS_INVALID_AXIS, 3);
    assert_int_equal(CLG_STATUS_INVALID_RANK, 4);
    assert_int_equal(CLG_STATUS_RANK_MISMATCH, 5);
    assert_int_equal(CLG_STATUS_INVALID_SHAPE, 6);
    assert_int_equal(CLG_STATUS_SHAPE_MISMATCH, 7);
    assert_int_equal(CLG_STATUS_UNSUPPORTED_DTYPE, 8);
    assert_int_equal(CLG_STATUS_INDEX_OUT_OF_RANGE, 9);
    assert_int_equal(CLG_STATUS_TENSOR_TOO_LARGE, 10);
    assert_int_equal(CLG_STATUS_OUT_OF_MEMORY, 11);
    assert_int_equal(CLG_STATUS_DEVICE_NOT_FOUND, 12);
    assert_int_equal(CLG_STATUS_OPENCL_ERROR, 13);
    assert_int_equal(CLG_STATUS_BUILD_FAILED, 14);
    assert_int_equal(CLG_STATUS_DEVICE_MISMATCH, 15);
    assert_int_equal(CLG_STATUS_PENDING_LIMIT, 16);
    assert_int_equal(CLG_STATUS_DEVICE_MISCOMPILED, 17);
    assert_int_equal(CLG_TEST_ARRAY_LEN(rows), 18);
    assert_string_equal(clg_status_name(CLG_STATUS_DEVICE_MISMATCH),
                        "DEVICE_MISMATCH");
}

static void test_status_name_and_message_for_every_entry(void **state)
{
    (void)state;
    for (size_t i = 0; i < CLG_TEST_ARRAY_LEN(rows); i++) {
        assert_int_equal((int)rows[i].status, rows[i].value);
        const char *name = clg_status_name(rows[i].status);
        const char *message = clg_status_message(rows[i].status);
        assert_non_null(name);
        assert_non_null(message);
        assert_string_equal(name, rows[i].name);
        assert_string_equal(message, rows[i].message);
        /* Static strings: the same pointer on every call. */
        assert_ptr_equal(name, clg_status_name(rows[i].status));
        assert_ptr_equal(message, clg_status_message(rows[i].status));
    }
}

static void test_status_unknown_values(void **state)
{
    (void)state;
    const int unknown[] = {18, 19, 99, 1000, -1, -5, 0x7fffffff};
    const char *first_message = clg_status_message((clg_status)unknown[0]);
    assert_non_null(first_message);
    assert_true(first_message[0] != '\0');
    for (size_t i = 0; i < CLG_TEST_ARRAY_LEN(unknown); i++) {
        clg_status st = (clg_status)unknown[i];
        const char *name = clg_status_name(st);
        const char *message = clg_status_message(st);
        assert_non_null(name);
        assert_non_null(message);
        assert_string_equal(name, "UNKNOWN_STATUS");
        /* A fixed string, the same for every unknown value, and not one of
         * the table's messages. */
        assert_string_equal(message, first_message);
        for (size_t k = 0; k < CLG_TEST_ARRAY_LEN(rows); k++) {
            assert_string_not_equal(message, rows[k].message);
        }
    }
}

static void test_version(void **state)
{
    (void)state;
    assert_int_equal(CLG_VERSION_NUMBER, 200);
    assert_int_equal(clg_version(), CLG_VERSION_NUMBER);
    assert_non_null(clg_version_string());
    assert_string_equal(clg_version_string(), CLG_VERSION_STRING);
    assert_string_equal(CLG_VERSION_STRING, "0.2.0");
}

#define CL_CODE(code)                                                         \
    {                                                                         \
        code, #code                                                           \
    }
static const struct {
    cl_int code;
    const char *name;
} cl_codes[] = {
    CL_CODE(CL_SUCCESS),
    CL_CODE(CL_DEVICE_NOT_FOUND),
    CL_CODE(CL_DEVICE_NOT_AVAILABLE),
    CL_CODE(CL_COMPILER_NOT_AVAILABLE),
    CL_CODE(CL_MEM_OBJECT_ALLOCATION_FAILURE),
    CL_CODE(CL_OUT_OF_RESOURCES),
    CL_CODE(CL_OUT_OF_HOST_MEMORY),
    CL_CODE(CL_PROFILING_INFO_NOT_AVAILABLE),
    CL_CODE(CL_MEM_COPY_OVERLAP),
    CL_CODE(CL_IMAGE_FORMAT_MISMATCH),
    CL_CODE(CL_IMAGE_FORMAT_NOT_SUPPORTED),
    CL_CODE(CL_BUILD_PROGRAM_FAILURE),
    CL_CODE(CL_MAP_FAILURE),
    CL_CODE(CL_MISALIGNED_SUB_BUFFER_OFFSET),
    CL_CODE(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST),
    CL_CODE(CL_COMPILE_PROGRAM_FAILURE),
    CL_CODE(CL_LINKER_NOT_AVAILABLE),
    CL_CODE(CL_LINK_PROGRAM_FAILURE),
    CL_CODE(CL_DEVICE_PARTITION_FAILED),
    CL_CODE(CL_KERNEL_ARG_INFO_NOT_AVAILABLE),
    CL_CODE(CL_INVALID_VALUE),
    CL_CODE(CL_INVALID_DEVICE_TYPE),
    CL_CODE(CL_INVALID_PLATFORM),
    CL_CODE(CL_INVALID_DEVICE),
    CL_CODE(CL_INVALID_CONTEXT),
    CL_CODE(CL_INVALID_QUEUE_PROPERTIES),
    CL_CODE(CL_INVALID_COMMAND_QUEUE),
    CL_CODE(CL_INVALID_HOST_PTR),
    CL_CODE(CL_INVALID_MEM_OBJECT),
    CL_CODE(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR),
    CL_CODE(CL_INVALID_IMAGE_SIZE),
    CL_CODE(CL_INVALID_SAMPLER),
    CL_CODE(CL_INVALID_BINARY),
    CL_CODE(CL_INVALID_BUILD_OPTIONS),
    CL_CODE(CL_INVALID_PROGRAM),
    CL_CODE(CL_INVALID_PROGRAM_EXECUTABLE),
    CL_CODE(CL_INVALID_KERNEL_NAME),
    CL_CODE(CL_INVALID_KERNEL_DEFINITION),
    CL_CODE(CL_INVALID_KERNEL),
    CL_CODE(CL_INVALID_ARG_INDEX),
    CL_CODE(CL_INVALID_ARG_VALUE),
    CL_CODE(CL_INVALID_ARG_SIZE),
    CL_CODE(CL_INVALID_KERNEL_ARGS),
    CL_CODE(CL_INVALID_WORK_DIMENSION),
    CL_CODE(CL_INVALID_WORK_GROUP_SIZE),
    CL_CODE(CL_INVALID_WORK_ITEM_SIZE),
    CL_CODE(CL_INVALID_GLOBAL_OFFSET),
    CL_CODE(CL_INVALID_EVENT_WAIT_LIST),
    CL_CODE(CL_INVALID_EVENT),
    CL_CODE(CL_INVALID_OPERATION),
    CL_CODE(CL_INVALID_GL_OBJECT),
    CL_CODE(CL_INVALID_BUFFER_SIZE),
    CL_CODE(CL_INVALID_MIP_LEVEL),
    CL_CODE(CL_INVALID_GLOBAL_WORK_SIZE),
    CL_CODE(CL_INVALID_PROPERTY),
    CL_CODE(CL_INVALID_IMAGE_DESCRIPTOR),
    CL_CODE(CL_INVALID_COMPILER_OPTIONS),
    CL_CODE(CL_INVALID_LINKER_OPTIONS),
    CL_CODE(CL_INVALID_DEVICE_PARTITION_COUNT),
};
#undef CL_CODE

static void test_cl_error_names(void **state)
{
    (void)state;
    for (size_t i = 0; i < CLG_TEST_ARRAY_LEN(cl_codes); i++) {
        const char *name = clg_cl_error_name(cl_codes[i].code);
        assert_non_null(name);
        if (strcmp(name, cl_codes[i].name) != 0) {
            fail_msg("clg_cl_error_name(%d) = \"%s\", expected \"%s\"",
                     (int)cl_codes[i].code, name, cl_codes[i].name);
        }
    }
}

static void test_cl_error_name_unknown(void **state)
{
    (void)state;
    const cl_int unknown[] = {1, 42, -20, -9999, -100000, 0x7fffffff};
    for (size_t i = 0; i < CLG_TEST_ARRAY_LEN(unknown); i++) {
        const char *name = clg_cl_error_name(unknown[i]);
        assert_non_null(name);
        assert_string_equal(name, "CL_UNKNOWN_ERROR");
    }
}

static void test_last_error_of_null_context_is_a_string(void **state)
{
    (void)state;
    /* Never NULL, whatever happened before on this thread. */
    assert_non_null(clg_context_last_error(NULL));
}

/* Whether s is well-formed UTF-8 (no character cut short). */
static int utf8_whole(const char *s)
{
    for (const unsigned char *p = (const unsigned char *)s; *p;) {
        int more = *p < 0x80             ? 0
                   : (*p & 0xE0) == 0xC0 ? 1
                   : (*p & 0xF0) == 0xE0 ? 2
                   : (*p & 0xF8) == 0xF0 ? 3
                                         : -1;
        if (more < 0)
            return 0;
        for (p++; more > 0; more--, p++)
            if ((*p & 0xC0) != 0x80)
                return 0;
    }
    return 1;
}

/* A message longer than the library keeps (here a path of 3 KiB, each
 * character two bytes) keeps its head and its tail, where the reason
 * stands, around "...", and cuts no character in two. */
static void test_long_message_keeps_its_reason(void **state)
{
    (void)state;
    char dir[3100] = "/tmp/";
    for (size_t i = 5; i + 2 < sizeof dir - 4; i += 2)
        memcpy(dir + i, "\xc3\xa9", 3); /* U+00E9, and the NUL after it */
    assert_int_equal(clg_cache_clear(dir, NULL), CLG_STATUS_INVALID_ARGUMENT);
    const char *m = clg_context_last_error(NULL);
    char reason[160];
    snprintf(reason, sizeof reason, ": %s", strerror(ENAMETOOLONG));
    size_t len = strlen(m), tail = strlen(reason);
    assert_true(len > 1000 && len < 1024);
    assert_int_equal(strncmp(m, "cannot read the cache folder /tmp/\xc3\xa9",
                             36),
                     0);
    assert_non_null(strstr(m, "\xc3\xa9...\xc3\xa9"));
    assert_string_equal(m + len - tail, reason);
    assert_true(utf8_whole(m));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_status_values_are_pinned),
        cmocka_unit_test(test_status_name_and_message_for_every_entry),
        cmocka_unit_test(test_status_unknown_values),
        cmocka_unit_test(test_version),
        cmocka_unit_test(test_cl_error_names),
        cmocka_unit_test(test_cl_error_name_unknown),
        cmocka_unit_test(test_last_error_of_null_context_is_a_string),
        cmocka_unit_test(test_long_message_keeps_its_reason),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
