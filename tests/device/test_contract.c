/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Contract details a user relies on: outputs must not alias inputs (host
 * memory and device buffers), device buffers must come from the context's
 * cl_context, indices may sit at any address, the device spec's P:D form
 * is strict and vendors/versions match, CLGATHER_MAX_ALLOC is validated.
 */
#define _POSIX_C_SOURCE 200809L /* setenv, unsetenv */
#include "clg_test.h"

static void test_host_output_must_not_overlap(void **state)
{
    clg_context *ctx = *state;
    float buf[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    int64_t idx[2] = {1, 0};
    const int64_t dshape[1] = {4}, ishape[1] = {2};
    clg_tensor d = {CLG_DTYPE_FLOAT, 1, dshape, buf};
    clg_tensor i = {CLG_DTYPE_INT64, 1, ishape, idx};
    clg_tensor o = {CLG_DTYPE_FLOAT, 1, ishape, buf + 3}; /* overlaps data */
    CLG_ASSERT_STATUS(ctx, clg_gather(ctx, &d, &i, 0, &o),
                      CLG_STATUS_INVALID_ARGUMENT);
    CLG_ASSERT_CONTAINS(clg_context_last_error(ctx), "overlaps the data");
    CLG_ASSERT_STATUS(ctx, clg_reference_gather(ctx, &d, &i, 0, &o),
                      CLG_STATUS_INVALID_ARGUMENT);
    const float untouched[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    assert_memory_equal(buf, untouched, sizeof buf);

    clg_tensor oi = {CLG_DTYPE_FLOAT, 1, ishape, (char *)idx + 4};
    CLG_ASSERT_STATUS(ctx, clg_gather(ctx, &d, &i, 0, &oi),
                      CLG_STATUS_INVALID_ARGUMENT);
    CLG_ASSERT_CONTAINS(clg_context_last_error(ctx), "overlaps the indices");

    /* Adjacent but not overlapping is fine. */
    clg_tensor ok = {CLG_DTYPE_FLOAT, 1, ishape, buf + 4};
    CLG_ASSERT_OK(ctx, clg_gather(ctx, &d, &i, 0, &ok));
    assert_true(buf[4] == 2.0f && buf[5] == 1.0f);
}

static void test_cl_buffers_alias_and_context(void **state)
{
    clg_context *ctx = *state;
    cl_context cl = clg_context_cl_context(ctx);
    cl_device_id dev = clg_context_cl_device(ctx);
    cl_int err;
    int64_t idx[2] = {1, 0};
    float data[4] = {1, 2, 3, 4};
    cl_mem bd = clCreateBuffer(cl, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                               sizeof data, data, &err);
    cl_mem bi = clCreateBuffer(cl, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                               sizeof idx, idx, &err);
    assert_non_null(bd);
    assert_non_null(bi);
    const int64_t dshape[1] = {4}, ishape[1] = {2};
    clg_cl_tensor d = {CLG_DTYPE_FLOAT, 1, dshape, bd};
    clg_cl_tensor i = {CLG_DTYPE_INT64, 1, ishape, bi};
    clg_cl_tensor o = {CLG_DTYPE_FLOAT, 1, ishape, bd};
    CLG_ASSERT_STATUS(ctx, clg_gather_cl(ctx, &d, &i, 0, &o),
                      CLG_STATUS_INVALID_ARGUMENT);
    CLG_ASSERT_CONTAINS(clg_context_last_error(ctx),
                        "output buffer is also the data buffer");

    cl_context other = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
    assert_non_null(other);
    cl_mem bo = clCreateBuffer(other, CL_MEM_READ_WRITE, 16, NULL, &err);
    assert_non_null(bo);
    o.buffer = bo;
    CLG_ASSERT_STATUS(ctx, clg_gather_cl(ctx, &d, &i, 0, &o),
                      CLG_STATUS_INVALID_ARGUMENT);
    CLG_ASSERT_CONTAINS(clg_context_last_error(ctx),
                        "output buffer belongs to another cl_context");
    clReleaseMemObject(bo);
    clReleaseContext(other);
    clReleaseMemObject(bd);
    clReleaseMemObject(bi);
}

/* Indices at an odd address: read safely, bit-exact results. */
static void test_misaligned_indices(void **state)
{
    clg_context *ctx = *state;
    unsigned char raw[1 + 3 * sizeof(int64_t)];
    const int64_t values[3] = {-1, 0, 2};
    memcpy(raw + 1, values, sizeof values);
    const int32_t data[3] = {10, 20, 30};
    const int64_t dshape[1] = {3}, ishape[1] = {3};
    int32_t out[3] = {0}, ref[3] = {0};
    const int32_t want[3] = {30, 10, 30};
    clg_tensor d = {CLG_DTYPE_INT32, 1, dshape, (void *)data};
    clg_tensor i = {CLG_DTYPE_INT64, 1, ishape, raw + 1};
    clg_tensor o = {CLG_DTYPE_INT32, 1, ishape, out};
    clg_tensor r = {CLG_DTYPE_INT32, 1, ishape, ref};
    CLG_ASSERT_OK(ctx, clg_gather(ctx, &d, &i, 0, &o));
    CLG_ASSERT_OK(ctx, clg_reference_gather(ctx, &d, &i, 0, &r));
    assert_memory_equal(out, want, sizeof want);
    assert_memory_equal(ref, want, sizeof want);
    CLG_ASSERT_OK(ctx, clg_gather_elements(ctx, &d, &i, 0, &o));
    assert_memory_equal(out, want, sizeof want);
}

static void test_device_spec_forms(void **state)
{
    clg_context *ctx = *state, *c = NULL;
    const char *malformed[] = {":0", "-1:0", "+0:0", "0:", "0:-1"};
    for (size_t k = 0; k < CLG_TEST_ARRAY_LEN(malformed); k++) {
        clg_test_set_case("spec \"%s\"", malformed[k]);
        assert_int_equal(clg_context_create(&c, malformed[k]),
                         CLG_STATUS_INVALID_ARGUMENT);
        assert_null(c);
        CLG_ASSERT_CONTAINS(clg_context_last_error(NULL), malformed[k]);
    }
    /* The device's vendor finds it too (POCL: "pocl" is only there). */
    char vendor[64];
    snprintf(vendor, sizeof vendor, "%.8s", clg_context_device_vendor(ctx));
    CLG_ASSERT_OK(NULL, clg_context_create(&c, vendor));
    clg_context_destroy(c);
}

static void test_max_alloc_knob_is_validated(void **state)
{
    (void)state;
    const char *bad[] = {"-1", " 2048", "1023", "2k", "99999999999999999999"};
    for (size_t k = 0; k < CLG_TEST_ARRAY_LEN(bad); k++) {
        clg_context *c = NULL;
        setenv("CLGATHER_MAX_ALLOC", bad[k], 1);
        clg_test_set_case("CLGATHER_MAX_ALLOC=\"%s\"", bad[k]);
        assert_int_equal(clg_context_create(&c, NULL),
                         CLG_STATUS_INVALID_ARGUMENT);
        assert_null(c);
        CLG_ASSERT_CONTAINS(clg_context_last_error(NULL),
                            "CLGATHER_MAX_ALLOC");
    }
    clg_context *c = NULL;
    setenv("CLGATHER_MAX_ALLOC", "4096", 1);
    CLG_ASSERT_OK(NULL, clg_context_create(&c, NULL));
    assert_int_equal(clg_context_max_alloc_size(c), 4096);
    clg_context_destroy(c);
    unsetenv("CLGATHER_MAX_ALLOC");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_host_output_must_not_overlap),
        cmocka_unit_test(test_cl_buffers_alias_and_context),
        cmocka_unit_test(test_misaligned_indices),
        cmocka_unit_test(test_device_spec_forms),
        cmocka_unit_test(test_max_alloc_knob_is_validated),
    };
    return CLG_RUN_DEVICE_TESTS(tests);
}
