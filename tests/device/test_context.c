/* SPDX-License-Identifier: Apache-2.0 */
/* Contexts and devices: creation by spec and by CLGATHER_DEVICE, device
 * queries, wrapping a caller's OpenCL objects, destroy(NULL). */
#define _POSIX_C_SOURCE 200809L
/* OpenCL 2.0's names for the SVM query; clCreateCommandQueue stays usable. */
#define CL_TARGET_OPENCL_VERSION 200
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS
#include "clg_test_cases.h"

#include <stdio.h>

#include <ctype.h>
#include <stdlib.h>
#include <time.h>

static clg_context *ctx_of(void **state)
{
    return *state;
}

static void test_destroy_null(void **state)
{
    (void)state;
    clg_context_destroy(NULL);
    clg_context_destroy(NULL);
}

static void test_create_null_pointer(void **state)
{
    (void)state;
    CLG_ASSERT_STATUS(NULL, clg_context_create(NULL, NULL),
                      CLG_STATUS_NULL_POINTER);
    CLG_ASSERT_STATUS(NULL, clg_context_create(NULL, "0:0"),
                      CLG_STATUS_NULL_POINTER);
}

static void test_context_queries(void **state)
{
    clg_context *ctx = ctx_of(state);
    assert_non_null(clg_context_device_name(ctx));
    assert_true(clg_context_device_name(ctx)[0] != '\0');
    assert_true(clg_context_device_vendor(ctx)[0] != '\0');
    assert_true(clg_context_device_version(ctx)[0] != '\0');
    assert_non_null(clg_context_cl_context(ctx));
    assert_non_null(clg_context_cl_device(ctx));
    assert_non_null(clg_context_cl_queue(ctx));
    assert_true(clg_context_max_alloc_size(ctx) > 0);

    /* The answers agree with OpenCL's own. */
    cl_device_id dev = clg_context_cl_device(ctx);
    char name[1024] = {0};
    assert_int_equal(clGetDeviceInfo(dev, CL_DEVICE_NAME, sizeof name - 1,
                                     name, NULL),
                     CL_SUCCESS);
    assert_string_equal(clg_context_device_name(ctx), name);
    char version[1024] = {0};
    assert_int_equal(clGetDeviceInfo(dev, CL_DEVICE_VERSION,
                                     sizeof version - 1, version, NULL),
                     CL_SUCCESS);
    assert_string_equal(clg_context_device_version(ctx), version);
    cl_bool unified = CL_FALSE;
    assert_int_equal(clGetDeviceInfo(dev, CL_DEVICE_HOST_UNIFIED_MEMORY,
                                     sizeof unified, &unified, NULL),
                     CL_SUCCESS);
    /* CLGATHER_TEST_PLAN=gpu plans as on a GPU, copies included. */
    const char *plan = getenv("CLGATHER_TEST_PLAN");
    int gpu_plan = plan && !strcmp(plan, "gpu");
    assert_int_equal(clg_context_uses_host_memory(ctx),
                     unified && !gpu_plan ? 1 : 0);
    /* SVM pointers only where the device shares the whole address space
     * at fine grain (a 2.0 query; Oclgrind's 1.2 device is not asked). */
    const char *svm_env = getenv("CLGATHER_SVM");
    int svm_off = svm_env && !strcmp(svm_env, "0");
    unsigned major = 0, minor = 0;
    cl_device_svm_capabilities caps = 0;
    if (sscanf(version, "OpenCL %u.%u", &major, &minor) == 2 && major >= 2)
        assert_int_equal(clGetDeviceInfo(dev, CL_DEVICE_SVM_CAPABILITIES,
                                         sizeof caps, &caps, NULL),
                         CL_SUCCESS);
    int fine_system = (caps & CL_DEVICE_SVM_FINE_GRAIN_SYSTEM) != 0;
    assert_int_equal(clg_context_uses_svm(ctx),
                     fine_system && unified && !gpu_plan && !svm_off ? 1 : 0);
    cl_ulong max_alloc = 0;
    assert_int_equal(clGetDeviceInfo(dev, CL_DEVICE_MAX_MEM_ALLOC_SIZE,
                                     sizeof max_alloc, &max_alloc, NULL),
                     CL_SUCCESS);
    assert_int_equal(clg_context_max_alloc_size(ctx), max_alloc);
    cl_device_type type = 0;
    assert_int_equal(clGetDeviceInfo(dev, CL_DEVICE_TYPE, sizeof type, &type,
                                     NULL),
                     CL_SUCCESS);
    clg_device_type want = (type & CL_DEVICE_TYPE_GPU)   ? CLG_DEVICE_TYPE_GPU
                           : (type & CL_DEVICE_TYPE_CPU) ? CLG_DEVICE_TYPE_CPU
                           : (type & CL_DEVICE_TYPE_ACCELERATOR)
                               ? CLG_DEVICE_TYPE_ACCELERATOR
                               : CLG_DEVICE_TYPE_OTHER;
    assert_int_equal(clg_context_device_type(ctx), want);

    /* The queue is the context's, on the context's device, in order. */
    cl_context qctx = NULL;
    assert_int_equal(clGetCommandQueueInfo(clg_context_cl_queue(ctx),
                                           CL_QUEUE_CONTEXT, sizeof qctx,
                                           &qctx, NULL),
                     CL_SUCCESS);
    assert_ptr_equal(qctx, clg_context_cl_context(ctx));
    cl_command_queue_properties props = 0;
    assert_int_equal(clGetCommandQueueInfo(clg_context_cl_queue(ctx),
                                           CL_QUEUE_PROPERTIES, sizeof props,
                                           &props, NULL),
                     CL_SUCCESS);
    assert_int_equal(props & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, 0);

    /* NULL context: empty strings, never NULL. */
    assert_string_equal(clg_context_device_name(NULL), "");
    assert_string_equal(clg_context_device_vendor(NULL), "");
    assert_string_equal(clg_context_device_version(NULL), "");
}

/* The runtime behind the device: its platform's name and version and the
 * driver version, as OpenCL answers them, on a context made from a spec
 * and on one made over the caller's objects. */
static void test_platform_queries(void **state)
{
    clg_context *ctx = ctx_of(state), *own = NULL;
    cl_device_id dev = clg_context_cl_device(ctx);
    cl_platform_id platform = NULL;
    char name[1024] = {0}, version[1024] = {0}, driver[1024] = {0};
    assert_int_equal(clGetDeviceInfo(dev, CL_DEVICE_PLATFORM, sizeof platform,
                                     &platform, NULL),
                     CL_SUCCESS);
    assert_int_equal(clGetPlatformInfo(platform, CL_PLATFORM_NAME,
                                       sizeof name - 1, name, NULL),
                     CL_SUCCESS);
    assert_int_equal(clGetPlatformInfo(platform, CL_PLATFORM_VERSION,
                                       sizeof version - 1, version, NULL),
                     CL_SUCCESS);
    assert_int_equal(clGetDeviceInfo(dev, CL_DRIVER_VERSION, sizeof driver - 1,
                                     driver, NULL),
                     CL_SUCCESS);
    assert_true(name[0] != '\0');
    assert_string_equal(clg_context_platform_name(ctx), name);
    assert_string_equal(clg_context_platform_version(ctx), version);
    assert_string_equal(clg_context_driver_version(ctx), driver);
    assert_int_equal(strncmp(version, "OpenCL ", 7), 0);

    assert_int_equal(clg_context_create_from_cl(&own,
                                                clg_context_cl_context(ctx),
                                                dev,
                                                clg_context_cl_queue(ctx)),
                     CLG_STATUS_OK);
    assert_string_equal(clg_context_platform_name(own), name);
    assert_string_equal(clg_context_platform_version(own), version);
    assert_string_equal(clg_context_driver_version(own), driver);
    clg_context_destroy(own);

    assert_string_equal(clg_context_platform_name(NULL), "");
    assert_string_equal(clg_context_platform_version(NULL), "");
    assert_string_equal(clg_context_driver_version(NULL), "");
}

static void test_devices_list(void **state)
{
    clg_context *ctx = ctx_of(state);
    size_t count = 0;
    CLG_ASSERT_OK(NULL, clg_devices_list(NULL, 0, &count));
    assert_true(count >= 1);
    clg_device_info *infos = calloc(count + 1, sizeof *infos);
    assert_non_null(infos);
    size_t count2 = 0;
    CLG_ASSERT_OK(NULL, clg_devices_list(infos, count + 1, &count2));
    assert_int_equal(count2, count);
    size_t defaults = 0;
    for (size_t i = 0; i < count; i++) {
        assert_true(infos[i].name[0] != '\0');
        assert_true(infos[i].platform_name[0] != '\0');
        assert_true(infos[i].global_mem_size > 0);
        assert_true(infos[i].max_alloc_size > 0);
        defaults += infos[i].is_default ? 1 : 0;
        if (infos[i].is_default) {
            /* The default is the fixture's device (created with NULL). */
            assert_string_equal(infos[i].name, clg_context_device_name(ctx));
        }
    }
    assert_int_equal(defaults, 1);
    /* A smaller capacity writes fewer entries, still reports the total. */
    if (count > 1) {
        clg_device_info one[2];
        memset(one, 0x5A, sizeof one);
        CLG_ASSERT_OK(NULL, clg_devices_list(one, 1, &count2));
        assert_int_equal(count2, count);
        assert_string_equal(one[0].name, infos[0].name);
        CLG_ASSERT_FILLED(&one[1], sizeof one[1], 0x5A, "entry past capacity");
    }
    CLG_ASSERT_STATUS(NULL, clg_devices_list(infos, count, NULL),
                      CLG_STATUS_NULL_POINTER);
    CLG_ASSERT_STATUS(NULL, clg_devices_list(NULL, 1, &count2),
                      CLG_STATUS_NULL_POINTER);
    free(infos);
}

static void lower(char *s)
{
    for (; *s; s++) {
        *s = (char)tolower((unsigned char)*s);
    }
}

static void test_create_by_spec(void **state)
{
    (void)state;
    size_t count = 0;
    CLG_ASSERT_OK(NULL, clg_devices_list(NULL, 0, &count));
    clg_device_info *infos = calloc(count, sizeof *infos);
    assert_non_null(infos);
    CLG_ASSERT_OK(NULL, clg_devices_list(infos, count, &count));

    /* "P:D" picks exactly that device. */
    for (size_t i = 0; i < count; i++) {
        char spec[64];
        snprintf(spec, sizeof spec, "%u:%u", infos[i].platform_index,
                 infos[i].device_index);
        clg_context *c = NULL;
        CLG_ASSERT_OK(NULL, clg_context_create(&c, spec));
        assert_non_null(c);
        assert_string_equal(clg_context_device_name(c), infos[i].name);
        assert_int_equal(clg_context_device_type(c), infos[i].type);
        clg_context_destroy(c);
    }

    /* "gpu", "cpu", "accelerator": OK exactly when such a device exists. */
    const struct {
        const char *spec;
        clg_device_type type;
    } types[] = {{"gpu", CLG_DEVICE_TYPE_GPU},
                 {"cpu", CLG_DEVICE_TYPE_CPU},
                 {"accelerator", CLG_DEVICE_TYPE_ACCELERATOR}};
    for (size_t t = 0; t < CLG_TEST_ARRAY_LEN(types); t++) {
        int exists = 0;
        for (size_t i = 0; i < count; i++) {
            exists |= infos[i].type == types[t].type;
        }
        clg_context *c = NULL;
        clg_status st = clg_context_create(&c, types[t].spec);
        clg_test_set_case("spec \"%s\"", types[t].spec);
        CLG_ASSERT_STATUS(NULL, st,
                          exists ? CLG_STATUS_OK
                                 : CLG_STATUS_DEVICE_NOT_FOUND);
        if (exists) {
            assert_int_equal(clg_context_device_type(c), types[t].type);
        } else {
            assert_null(c);
        }
        clg_context_destroy(c);
    }

    /* A case-insensitive substring of the device name. */
    char sub[8] = {0};
    memcpy(sub, infos[0].name,
           strlen(infos[0].name) < 6 ? strlen(infos[0].name) : 6);
    for (char *p = sub; *p; p++) {
        *p = (char)(islower((unsigned char)*p) ? toupper((unsigned char)*p)
                                               : tolower((unsigned char)*p));
    }
    clg_context *c = NULL;
    clg_test_set_case("spec \"%s\"", sub);
    CLG_ASSERT_OK(NULL, clg_context_create(&c, sub));
    char got[1024];
    char plat[256];
    snprintf(got, sizeof got, "%s", clg_context_device_name(c));
    lower(got);
    lower(sub);
    int match = strstr(got, sub) != NULL;
    for (size_t i = 0; i < count && !match; i++) {
        snprintf(plat, sizeof plat, "%s", infos[i].platform_name);
        lower(plat);
        match = strstr(plat, sub) != NULL;
    }
    assert_true(match);
    clg_context_destroy(c);

    /* No match: DEVICE_NOT_FOUND, *ctx NULL, message names the spec. */
    const char *none[] = {"no-such-device-zzz", "99:0", "0:99"};
    for (size_t i = 0; i < CLG_TEST_ARRAY_LEN(none); i++) {
        c = (clg_context *)&c; /* must be overwritten with NULL */
        clg_test_set_case("spec \"%s\"", none[i]);
        CLG_ASSERT_STATUS(NULL, clg_context_create(&c, none[i]),
                          CLG_STATUS_DEVICE_NOT_FOUND);
        assert_null(c);
        CLG_ASSERT_CONTAINS(clg_context_last_error(NULL), none[i]);
    }
    free(infos);
}

/* CLGATHER_DEVICE supplies the spec when the argument is NULL or "". */
static void test_environment_variable(void **state)
{
    (void)state;
    char *saved = clg_test_env_save("CLGATHER_DEVICE");

    assert_int_equal(setenv("CLGATHER_DEVICE", "no-such-device-zzz", 1), 0);
    clg_context *c = NULL;
    CLG_ASSERT_STATUS(NULL, clg_context_create(&c, NULL),
                      CLG_STATUS_DEVICE_NOT_FOUND);
    assert_null(c);
    CLG_ASSERT_CONTAINS(clg_context_last_error(NULL), "no-such-device-zzz");
    CLG_ASSERT_STATUS(NULL, clg_context_create(&c, ""),
                      CLG_STATUS_DEVICE_NOT_FOUND);
    assert_null(c);
    /* An explicit spec wins over the variable. */
    CLG_ASSERT_OK(NULL, clg_context_create(&c, "0:0"));
    clg_context_destroy(c);
    c = NULL;

    /* The variable decides the default of clg_devices_list too. */
    size_t count = 0;
    CLG_ASSERT_OK(NULL, clg_devices_list(NULL, 0, &count));
    clg_device_info *infos = calloc(count, sizeof *infos);
    assert_non_null(infos);
    CLG_ASSERT_OK(NULL, clg_devices_list(infos, count, &count));
    const clg_device_info *last = &infos[count - 1];
    char spec[64];
    snprintf(spec, sizeof spec, "%u:%u", last->platform_index,
             last->device_index);
    assert_int_equal(setenv("CLGATHER_DEVICE", spec, 1), 0);
    CLG_ASSERT_OK(NULL, clg_devices_list(infos, count, &count));
    for (size_t i = 0; i < count; i++) {
        assert_int_equal(infos[i].is_default, i == count - 1 ? 1 : 0);
    }
    CLG_ASSERT_OK(NULL, clg_context_create(&c, NULL));
    assert_string_equal(clg_context_device_name(c), infos[count - 1].name);
    clg_context_destroy(c);
    free(infos);

    clg_test_env_restore("CLGATHER_DEVICE", saved);
}

/* A bare number is not a device spec: "0" once matched the first device
 * whose version string holds a 0 ("OpenCL 3.0"). It is INVALID_ARGUMENT
 * naming the P:D form, as an argument and from CLGATHER_DEVICE; white
 * space around a spec is ignored; a variable that matches nothing leaves
 * clg_devices_list with no default. */
static void test_spec_bare_number_and_space(void **state)
{
    (void)state;
    char *saved = clg_test_env_save("CLGATHER_DEVICE");
    const char *bare[] = {"0", "1", "+0", "00"};
    clg_context *c = NULL;
    size_t count = 0;

    unsetenv("CLGATHER_DEVICE");
    for (size_t i = 0; i < CLG_TEST_ARRAY_LEN(bare); i++) {
        c = (clg_context *)&c;
        clg_test_set_case("spec \"%s\"", bare[i]);
        CLG_ASSERT_STATUS(NULL, clg_context_create(&c, bare[i]),
                          CLG_STATUS_INVALID_ARGUMENT);
        assert_null(c);
        CLG_ASSERT_CONTAINS(clg_context_last_error(NULL),
                            "is not of the form P:D");
    }
    assert_int_equal(setenv("CLGATHER_DEVICE", "0", 1), 0);
    CLG_ASSERT_STATUS(NULL, clg_context_create(&c, NULL),
                      CLG_STATUS_INVALID_ARGUMENT);
    assert_null(c);
    CLG_ASSERT_CONTAINS(clg_context_last_error(NULL),
                        "device spec \"0\" is not of the form P:D");

    assert_int_equal(setenv("CLGATHER_DEVICE", " 0:0 ", 1), 0);
    CLG_ASSERT_OK(NULL, clg_context_create(&c, NULL));
    clg_context_destroy(c);
    c = NULL;
    CLG_ASSERT_OK(NULL, clg_context_create(&c, "\t0:0 "));
    clg_context_destroy(c);
    c = NULL;

    assert_int_equal(setenv("CLGATHER_DEVICE", "no-such-device-zzz", 1), 0);
    CLG_ASSERT_OK(NULL, clg_devices_list(NULL, 0, &count));
    clg_device_info *infos = calloc(count, sizeof *infos);
    assert_non_null(infos);
    CLG_ASSERT_OK(NULL, clg_devices_list(infos, count, &count));
    for (size_t i = 0; i < count; i++)
        assert_int_equal(infos[i].is_default, 0);

    /* A value too long to read: the context refuses it, so no device is
     * the default either (the first one was marked). */
    char long_spec[600];
    memset(long_spec, 'x', sizeof long_spec - 1);
    long_spec[sizeof long_spec - 1] = '\0';
    assert_int_equal(setenv("CLGATHER_DEVICE", long_spec, 1), 0);
    CLG_ASSERT_STATUS(NULL, clg_context_create(&c, NULL),
                      CLG_STATUS_INVALID_ARGUMENT);
    CLG_ASSERT_CONTAINS(clg_context_last_error(NULL),
                        "CLGATHER_DEVICE is longer than");
    CLG_ASSERT_OK(NULL, clg_devices_list(infos, count, &count));
    for (size_t i = 0; i < count; i++)
        assert_int_equal(infos[i].is_default, 0);
    free(infos);

    clg_test_env_restore("CLGATHER_DEVICE", saved);
}

static cl_uint ref_count_context(cl_context c)
{
    cl_uint n = 0;
    assert_int_equal(clGetContextInfo(c, CL_CONTEXT_REFERENCE_COUNT, sizeof n,
                                      &n, NULL),
                     CL_SUCCESS);
    return n;
}

static cl_uint ref_count_queue(cl_command_queue q)
{
    cl_uint n = 0;
    assert_int_equal(clGetCommandQueueInfo(q, CL_QUEUE_REFERENCE_COUNT,
                                           sizeof n, &n, NULL),
                     CL_SUCCESS);
    return n;
}

/* Runs the first literal case (ONNX Gather example 1) on a context. */
static void run_example(clg_context *c)
{
    assert_int_equal(clg_test_run_case(c, &clg_test_cases[0], CLG_DTYPE_INT64),
                     1);
}

/* clg_device_resolve gives the device a context created with the same
 * spec uses, for every "P:D", for NULL (the default) and for a name; it
 * fails as clg_context_create does, with both handles NULL. */
static void test_device_resolve(void **state)
{
    clg_context *fixture = ctx_of(state);
    cl_platform_id p = NULL, p2 = NULL;
    cl_device_id d = NULL;
    CLG_ASSERT_OK(NULL, clg_device_resolve(NULL, &p, &d));
    assert_ptr_equal(d, clg_context_cl_device(fixture));
    assert_int_equal(clGetDeviceInfo(d, CL_DEVICE_PLATFORM, sizeof p2, &p2,
                                     NULL),
                     CL_SUCCESS);
    assert_ptr_equal(p, p2);

    size_t count = 0;
    CLG_ASSERT_OK(NULL, clg_devices_list(NULL, 0, &count));
    clg_device_info *infos = calloc(count, sizeof *infos);
    assert_non_null(infos);
    CLG_ASSERT_OK(NULL, clg_devices_list(infos, count, &count));
    for (size_t i = 0; i < count; i++) {
        char spec[64], name[128] = "";
        snprintf(spec, sizeof spec, " %u:%u ", infos[i].platform_index,
                 infos[i].device_index);
        CLG_ASSERT_OK(NULL, clg_device_resolve(spec, &p, &d));
        assert_int_equal(clGetDeviceInfo(d, CL_DEVICE_NAME, sizeof name, name,
                                         NULL),
                         CL_SUCCESS);
        assert_string_equal(name, infos[i].name);
        clg_context *c = NULL;
        CLG_ASSERT_OK(NULL, clg_context_create(&c, spec));
        assert_ptr_equal(clg_context_cl_device(c), d);
        clg_context_destroy(c);
    }
    /* A part of the default device's name finds a device with that part. */
    CLG_ASSERT_OK(NULL, clg_device_resolve(clg_context_device_name(fixture),
                                           &p, &d));
    assert_non_null(d);
    free(infos);

    CLG_ASSERT_STATUS(NULL, clg_device_resolve("no-such-device-zzz", &p, &d),
                      CLG_STATUS_DEVICE_NOT_FOUND);
    assert_null(p);
    assert_null(d);
    CLG_ASSERT_CONTAINS(clg_context_last_error(NULL), "no-such-device-zzz");
    CLG_ASSERT_STATUS(NULL, clg_device_resolve("0", &p, &d),
                      CLG_STATUS_INVALID_ARGUMENT);
    CLG_ASSERT_CONTAINS(clg_context_last_error(NULL), "P:D");
    CLG_ASSERT_STATUS(NULL, clg_device_resolve(NULL, NULL, &d),
                      CLG_STATUS_NULL_POINTER);
    assert_null(d);
    CLG_ASSERT_STATUS(NULL, clg_device_resolve(NULL, &p, NULL),
                      CLG_STATUS_NULL_POINTER);
    assert_null(p);

    /* NULL reads CLGATHER_DEVICE, as a context does. */
    char *saved = clg_test_env_save("CLGATHER_DEVICE");
    assert_int_equal(setenv("CLGATHER_DEVICE", "no-such-device-zzz", 1), 0);
    CLG_ASSERT_STATUS(NULL, clg_device_resolve(NULL, &p, &d),
                      CLG_STATUS_DEVICE_NOT_FOUND);
    CLG_ASSERT_CONTAINS(clg_context_last_error(NULL), "CLGATHER_DEVICE");
    clg_test_env_restore("CLGATHER_DEVICE", saved);
}

static void test_create_from_cl(void **state)
{
    clg_context *fixture = ctx_of(state);
    cl_device_id dev = clg_context_cl_device(fixture);
    cl_int err = CL_SUCCESS;
    cl_context cl = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
    assert_int_equal(err, CL_SUCCESS);
    cl_command_queue q = clCreateCommandQueue(cl, dev, 0, &err);
    assert_int_equal(err, CL_SUCCESS);
    /* Baselines: the queue itself may hold a context reference. */
    cl_uint c_before = ref_count_context(cl);
    cl_uint q_before = ref_count_queue(q);

    clg_context *c = NULL;
    CLG_ASSERT_OK(NULL, clg_context_create_from_cl(&c, cl, dev, q));
    assert_non_null(c);
    assert_ptr_equal(clg_context_cl_context(c), cl);
    assert_ptr_equal(clg_context_cl_device(c), dev);
    assert_ptr_equal(clg_context_cl_queue(c), q);
    /* Retained on entry... */
    assert_true(ref_count_context(cl) >= c_before + 1);
    assert_true(ref_count_queue(q) >= q_before + 1);
    assert_string_equal(clg_context_device_name(c),
                        clg_context_device_name(fixture));
    run_example(c);
    /* ...and everything released on destroy (programs, kernels, buffers
     * included: each holds the context). */
    clg_context_destroy(c);
    /* Commands that finished may drop their references a little later
     * (POCL releases them from its worker threads): drain the queue and
     * give the driver up to a second before counting. */
    assert_int_equal(clFinish(q), CL_SUCCESS);
    for (int tries = 0; tries < 100 && (ref_count_context(cl) != c_before ||
                                        ref_count_queue(q) != q_before);
         tries++) {
        struct timespec ten_ms = {0, 10 * 1000 * 1000};
        nanosleep(&ten_ms, NULL);
    }
    print_message("context references: %u before, %u after destroy\n",
                  c_before, ref_count_context(cl));
    assert_int_equal(ref_count_context(cl), c_before);
    assert_int_equal(ref_count_queue(q), q_before);

    /* The caller may release its own references at once. */
    CLG_ASSERT_OK(NULL, clg_context_create_from_cl(&c, cl, dev, q));
    clReleaseCommandQueue(q);
    clReleaseContext(cl);
    run_example(c);
    clg_context_destroy(c);
}

static void test_create_from_cl_errors(void **state)
{
    clg_context *fixture = ctx_of(state);
    cl_device_id dev = clg_context_cl_device(fixture);
    cl_context cl = clg_context_cl_context(fixture);
    cl_command_queue q = clg_context_cl_queue(fixture);
    clg_context *c = NULL;
    CLG_ASSERT_STATUS(NULL, clg_context_create_from_cl(NULL, cl, dev, q),
                      CLG_STATUS_NULL_POINTER);
    CLG_ASSERT_STATUS(NULL, clg_context_create_from_cl(&c, NULL, dev, q),
                      CLG_STATUS_NULL_POINTER);
    assert_null(c);
    CLG_ASSERT_STATUS(NULL, clg_context_create_from_cl(&c, cl, NULL, q),
                      CLG_STATUS_NULL_POINTER);
    assert_null(c);
    CLG_ASSERT_STATUS(NULL, clg_context_create_from_cl(&c, cl, dev, NULL),
                      CLG_STATUS_NULL_POINTER);
    assert_null(c);

    /* A queue of another cl_context than `context` is refused. */
    cl_int err = CL_SUCCESS;
    cl_context other = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
    assert_int_equal(err, CL_SUCCESS);
    CLG_ASSERT_STATUS(NULL, clg_context_create_from_cl(&c, other, dev, q),
                      CLG_STATUS_INVALID_ARGUMENT);
    assert_null(c);
    CLG_ASSERT_CONTAINS(clg_context_last_error(NULL),
                        "not the cl_context of the command queue");
    clReleaseContext(other);
}

/* The last error is per context and "" after a success. */
static void test_last_error_lifecycle(void **state)
{
    clg_context *ctx = ctx_of(state);
    const float data[] = {1, 2, 3};
    const int64_t shape[] = {3};
    const int64_t bad[] = {3};
    const int64_t good[] = {-3};
    const int64_t one[] = {1};
    float out = 0;
    clg_tensor d = {CLG_DTYPE_FLOAT, 1, shape, (void *)data};
    clg_tensor ib = {CLG_DTYPE_INT64, 1, one, (void *)bad};
    clg_tensor ig = {CLG_DTYPE_INT64, 1, one, (void *)good};
    clg_tensor o = {CLG_DTYPE_FLOAT, 1, one, &out};
    CLG_ASSERT_STATUS(ctx, clg_gather(ctx, &d, &ib, 0, &o),
                      CLG_STATUS_INDEX_OUT_OF_RANGE);
    CLG_ASSERT_CONTAINS(clg_context_last_error(ctx), "indices[0] = 3");
    assert_int_equal(clg_context_last_cl_error(ctx), CL_SUCCESS);

    /* Another context's message is its own. */
    clg_context *other = NULL;
    CLG_ASSERT_OK(NULL, clg_context_create(&other, NULL));
    assert_string_equal(clg_context_last_error(other), "");
    CLG_ASSERT_CONTAINS(clg_context_last_error(ctx), "indices[0] = 3");
    clg_context_destroy(other);

    CLG_ASSERT_OK(ctx, clg_gather(ctx, &d, &ig, 0, &o));
    assert_string_equal(clg_context_last_error(ctx), "");
    const float want = 1.0f;
    CLG_ASSERT_BYTES(&out, &want, sizeof out, 4, "output");
    assert_string_equal(clg_context_build_log(ctx), "");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_destroy_null),
        cmocka_unit_test(test_create_null_pointer),
        cmocka_unit_test(test_context_queries),
        cmocka_unit_test(test_platform_queries),
        cmocka_unit_test(test_devices_list),
        cmocka_unit_test(test_create_by_spec),
        cmocka_unit_test(test_environment_variable),
        cmocka_unit_test(test_spec_bare_number_and_space),
        cmocka_unit_test(test_device_resolve),
        cmocka_unit_test(test_create_from_cl),
        cmocka_unit_test(test_create_from_cl_errors),
        cmocka_unit_test(test_last_error_lifecycle),
    };
    return CLG_RUN_DEVICE_TESTS(tests);
}
