/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `clgather bench` on tiny sizes: the figures its JSON promises
 * (docs/design.md, "Measuring speed") are there and hold concrete values:
 * the cache conditions, the copy variants and the one that won, the host
 * copy, the check pass and its kind, and the linearity rows; and
 * `clgather tune`'s search space. Speed itself is not judged here (a
 * shared machine's times are noise).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <json-c/json.h>

#include "cli_harness.h"

/* Runs `bench <args> --no-first-call --json <dir>/name`, with
 * CLGATHER_PARAMS=params unless NULL, and returns the JSON text. The
 * first-call table, left out here (each of its rounds compiles from source),
 * has its own test. */
static char *run_bench(const char *name, const char *params,
                       const char *const *args)
{
    char *json = cli_path(cli_root, name);
    const char *argv[16];
    size_t n = 0;
    cli_result r;
    cli_runtime rt;
    char *text, runtime[600];
    argv[n++] = "bench";
    while (*args && n < 11)
        argv[n++] = *args++;
    argv[n++] = "--no-first-call";
    argv[n++] = "--json";
    argv[n++] = json;
    argv[n] = NULL;
    /* params NULL: no CLGATHER_PARAMS at all (the suite's host=0 too). */
    assert_int_equal(cli_run_env(&r, "CLGATHER_PARAMS", params, argv), 0);
    if (r.status != 0)
        cli_result_dump(&r);
    assert_int_equal(r.status, 0);
    /* the header names the runtime beside the device */
    cli_device_runtime(NULL, &rt);
    snprintf(runtime, sizeof runtime, ") on %s %s, host memory ", rt.platform,
             rt.driver);
    assert_non_null(strstr(r.out, "clgather bench: device \""));
    assert_non_null(strstr(r.out, runtime));
    assert_non_null(strstr(r.out, "cache: warm, back-to-back repeats"));
    assert_non_null(strstr(r.out, "copy_kernel"));
    assert_non_null(strstr(r.out, "check_ms"));
    assert_null(strstr(r.out, "first calls"));
    cli_result_free(&r);
    text = cli_read_text(json);
    assert_non_null(text);
    assert_true(text[0] != '\0');
    free(json);
    return text;
}

/* The text right after `"key": ` at or after `from`. */
static const char *field(const char *from, const char *key)
{
    char pattern[96];
    const char *at;
    snprintf(pattern, sizeof pattern, "\"%s\": ", key);
    at = strstr(from, pattern);
    if (!at)
        fail_msg("no field \"%s\" in %.200s", key, from);
    return at + strlen(pattern);
}

static double number(const char *from, const char *key)
{
    const char *v = field(from, key);
    char *end = NULL;
    double d = strtod(v, &end);
    if (end == v)
        fail_msg("field \"%s\" is not a number: %.40s", key, v);
    return d;
}

/* The report's list `key` as json-c reads it: its length, and its
 * strings into names (up to cap). */
static size_t string_list(const char *json, const char *key, char names[][24],
                          size_t cap)
{
    json_object *doc = json_tokener_parse(json), *list = NULL;
    size_t n;
    if (doc == NULL)
        fail_msg("the report is not JSON: %.200s", json);
    if (!json_object_object_get_ex(doc, key, &list) ||
        !json_object_is_type(list, json_type_array))
        fail_msg("\"%s\" is not a list", key);
    n = json_object_array_length(list);
    for (size_t i = 0; i < n && i < cap; i++) {
        json_object *v = json_object_array_get_idx(list, i);
        assert_true(json_object_is_type(v, json_type_string));
        snprintf(names[i], sizeof names[i], "%s", json_object_get_string(v));
    }
    json_object_put(doc);
    return n;
}

static int is_pocl(const char *json)
{
    const char *v = field(json, "device_version");
    const char *end = strchr(v + 1, '"');
    const char *pocl = strstr(v, "PoCL");
    return pocl && end && pocl < end;
}

/* The host-memory call uses the caller's memory in place (POCL). */
static int shares_host_memory(const char *json)
{
    return strstr(json, "\"host_unified_memory\": true") != NULL;
}

/* The top of the report and the baselines of the first workload. */
static void expect_baselines(const char *json, const char *check_pass)
{
    const char *w = field(json, "workloads");
    const char *variant = field(w, "copy_variant");
    char name[24] = "";
    cli_runtime rt;
    char field_text[400];
    /* the runtime beside the device, as OpenCL names it */
    cli_device_runtime(NULL, &rt);
    snprintf(field_text, sizeof field_text, "\"platform\": \"%s\"",
             rt.platform);
    assert_non_null(strstr(json, field_text));
    snprintf(field_text, sizeof field_text, "\"platform_version\": \"%s\"",
             rt.platform_version);
    assert_non_null(strstr(json, field_text));
    snprintf(field_text, sizeof field_text, "\"driver_version\": \"%s\"",
             rt.driver);
    assert_non_null(strstr(json, field_text));
    assert_non_null(strstr(json, "\"cache\": \"warm, back-to-back repeats\""));
    assert_true(number(json, "host_copy_threads") >= 1);
    {
        static const char *const all[] = {"16B",    "32B",    "64B",
                                          "16B-nt", "32B-nt", "64B-nt"};
        char names[8][24], refused[8][24];
        size_t n = string_list(json, "copy_variants", names, 8);
        size_t nr = string_list(json, "copy_variants_refused", refused, 8);
        assert_true(n >= 3);
        for (size_t i = 0; i < 3; i++)
            assert_string_equal(names[i], all[i]);
        /* each variant either built or refused */
        assert_int_equal(n + nr, 6);
        if (is_pocl(json)) {
            /* POCL's clang takes __builtin_nontemporal_store. */
            assert_int_equal(n, 6);
            for (size_t i = 0; i < 6; i++)
                assert_string_equal(names[i], all[i]);
            assert_int_equal(nr, 0);
        }
    }
    assert_int_equal(sscanf(variant, "\"%23[^\"]\"", name), 1);
    assert_non_null(strstr(field(json, "copy_variants"), name));
    assert_true(number(w, "copy_gbps") > 0);
    assert_true(number(field(w, "copy_variants_gbps"), "16B") > 0);
    assert_true(number(w, "host_copy_gbps") > 0);
    if (shares_host_memory(json)) {
        char want[64];
        snprintf(want, sizeof want, "\"check_pass\": \"%s\"", check_pass);
        assert_true(number(w, "check_ms") >= 0);
        assert_non_null(strstr(w, want));
    } else {
        /* A single launch on a device with its own memory: no check pass. */
        assert_true(strncmp(field(w, "check_ms"), "null", 4) == 0);
        assert_true(strncmp(field(w, "check_pass"), "null", 4) == 0);
    }
}

/* 16 indices: the host scan, the micro figures. */
static void test_small(void **state)
{
    const char *args[] = {"--workload", "small", "--repeat", "1", NULL};
    char *json = run_bench("small.json", NULL, args);
    (void)state;
    expect_baselines(json, "host scan");
    assert_true(number(json, "call_us") > 0);
    assert_true(number(json, "launch_us") > 0);
    assert_int_equal(string_list(json, "linearity", NULL, 0), 0);
    /* The parameters in use, whole, and no override. */
    assert_non_null(strstr(json, "\"params\": \"wg="));
    assert_non_null(strstr(field(json, "params"), ",norm="));
    assert_non_null(strstr(json, "\"params_env\": null"));
    /* The device buffers: host memory where the device shares it. */
    assert_non_null(strstr(json, shares_host_memory(json)
                                     ? "\"device_buffers\": \"host\""
                                     : "\"device_buffers\": \"runtime\""));
    free(json);
}

/* --buffers: each kind measured and recorded (the bench exits 0 only when
 * every result matched the reference); an unknown kind is a usage error
 * naming it, and --first-call refuses it. */
static void test_buffers(void **state)
{
    static const char *const kinds[] = {"host", "runtime"};
    const char *bad[] = {"bench",     "--workload", "small",
                         "--buffers", "pinned",     NULL};
    const char *first[] = {"bench", "--first-call", "--buffers", "host", NULL};
    cli_result r;
    (void)state;
    for (size_t k = 0; k < 2; k++) {
        const char *args[] = {"--workload", "embedding", "--scale",
                              "0.01",       "--repeat",  "1",
                              "--buffers",  kinds[k],    NULL};
        char want[48];
        char *json = run_bench("buffers.json", NULL, args);
        snprintf(want, sizeof want, "\"device_buffers\": \"%s\"", kinds[k]);
        assert_non_null(strstr(json, want));
        assert_true(number(field(json, "workloads"), "kernel_ms") > 0);
        free(json);
    }
    assert_int_equal(cli_run(&r, bad), 0);
    assert_int_equal(r.status, 3);
    assert_non_null(strstr(r.err, "'pinned' is neither host nor runtime"));
    cli_result_free(&r);
    assert_int_equal(cli_run(&r, first), 0);
    assert_int_equal(r.status, 3);
    assert_non_null(strstr(r.err, "--first-call takes --device only, not "
                                  "--buffers\n"));
    cli_result_free(&r);
}

/* --first-call: the first-call table alone, a row per operator with its
 * five figures (ms, and the filled/empty ratio); no bandwidth table. */
static void test_first_call_table(void **state)
{
    static const char *const ops[] = {"Gather", "GatherElements", "GatherND"};
    const char *argv[] = {"bench", "--first-call", NULL};
    cli_result r;
    (void)state;
    assert_int_equal(cli_run(&r, argv), 0);
    if (r.status != 0)
        cli_result_dump(&r);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "\nfirst calls (each a new context"));
    assert_true(cli_has_line_prefix(r.out, "op              context_ms "
                                           "first_empty_ms first_filled_ms"));
    assert_null(strstr(r.out, "copy_kernel"));
    for (size_t k = 0; k < sizeof ops / sizeof ops[0]; k++) {
        char row[32];
        double v[5];
        /* The row whose first word is the operator's name. */
        snprintf(row, sizeof row, "\n%s ", ops[k]);
        const char *at = strstr(r.out, row);
        if (!at || sscanf(at + strlen(row), "%lf %lf %lf %lf %lf", &v[0],
                          &v[1], &v[2], &v[3], &v[4]) != 5)
            fail_msg("no first-call row for %s in:\n%s", ops[k], r.out);
        /* context_ms and warm_call_ms may print as 0.00 on a fast
         * device; the first calls build or load programs. */
        assert_true(v[0] >= 0 && v[4] >= 0);
        assert_true(v[1] > 0 && v[2] > 0 && v[3] > 0);
    }
    cli_result_free(&r);
    /* A malformed CLGATHER_PARAMS: refused before any line of the table. */
    assert_int_equal(cli_run_env(&r, "CLGATHER_PARAMS", "bogus=1", argv), 0);
    assert_int_equal(r.status, 3);
    assert_string_equal(r.out, "");
    assert_non_null(strstr(r.err, "clgather bench: INVALID_ARGUMENT: "
                                  "CLGATHER_PARAMS=\"bogus=1\""));
    cli_result_free(&r);
}

/* A scale past what a tensor can hold: the workload is skipped with a
 * note, as one too large for the host (exit 3: every workload skipped),
 * never an error about a shape the scaling itself broke (a dim past
 * int64 read as negative). */
static void test_scale_past_int64_skips(void **state)
{
    static const char *const scales[] = {"1e17", "1e19", "1e30"};
    (void)state;
    for (size_t i = 0; i < 3; i++) {
        const char *args[] = {"bench",   "--workload", "small", "--scale",
                              scales[i], "--repeat",   "1",     NULL};
        cli_result r;
        assert_int_equal(cli_run(&r, args), 0);
        if (r.status != 3 || !strstr(r.err, "every workload was skipped") ||
            !strstr(r.out, "skipped: the tensors at this scale") ||
            strstr(r.err, "INVALID_SHAPE") ||
            strstr(r.err, "TENSOR_TOO_LARGE"))
            cli_result_dump(&r);
        assert_int_equal(r.status, 3);
        assert_non_null(strstr(r.err, "every workload was skipped"));
        assert_non_null(strstr(r.out, "skipped: the tensors at this scale"));
        assert_null(strstr(r.err, "INVALID_SHAPE"));
        assert_null(strstr(r.err, "TENSOR_TOO_LARGE"));
        cli_result_free(&r);
    }
}

/* CLGATHER_PARAMS: applied and recorded; malformed, an environment
 * problem (exit 3) naming the item, before any measurement. */
static void test_params_override(void **state)
{
    const char *args[] = {"--workload", "small", "--repeat", "1", NULL};
    const char *bad[] = {"bench",    "--workload", "small",
                         "--repeat", "1",          NULL};
    cli_result r;
    (void)state;
    char *json = run_bench("params.json", "norm=0,wg=64", args);
    assert_non_null(strstr(json, "\"params_env\": \"norm=0,wg=64\""));
    assert_non_null(strstr(field(json, "params"), "wg=64,"));
    assert_non_null(strstr(field(json, "params"), ",norm=0,small="));
    free(json);
    assert_int_equal(cli_run_env(&r, "CLGATHER_PARAMS", "norm=1,norm=2", bad),
                     0);
    assert_int_equal(r.status, 3);
    assert_non_null(strstr(r.err, "norm is given twice"));
    assert_string_equal(r.out, "");
    cli_result_free(&r);
}

/* 82 and 164 rows of 1024 int64 indices, more than the library scans on
 * the host: check.cl in place, at two scales, the first of them the
 * linearity reference (there is no scale 1). */
static void test_check_kernel_and_linearity(void **state)
{
    static const char workload[] = "elements-last-axis";
    const char *args[] = {"--workload", workload, "--scale", "0.005,0.01",
                          "--repeat",   "1",      NULL};
    char *json = run_bench("elements.json", NULL, args);
    const char *lin = field(json, "linearity");
    const char *ref = strstr(lin, "\"scale\": 0.005,");
    const char *row = strstr(lin, "\"scale\": 0.01,");
    const char *verdict;
    (void)state;
    expect_baselines(json, "check kernel");
    if (shares_host_memory(json)) {
        /* The read kernel over the same indices, beside the check. */
        char name[24];
        assert_true(number(json, "check_ms") > 0);
        assert_true(number(json, "read_ms") > 0);
        assert_int_equal(sscanf(field(json, "read_variant"), "\"%23[^\"]\"",
                                name),
                         1);
        static const char *const reads[] = {"16B",         "32B",
                                            "64B",         "16B-stripes",
                                            "32B-stripes", "64B-stripes"};
        int known = 0;
        for (size_t k = 0; k < sizeof reads / sizeof reads[0]; k++)
            known |= !strcmp(name, reads[k]);
        if (!known)
            fail_msg("read_variant \"%s\" is none of the read kernels", name);
    } else {
        assert_true(strncmp(field(json, "read_ms"), "null", 4) == 0);
    }
    assert_non_null(ref);
    assert_non_null(row);
    assert_true(number(ref, "reference_scale") == 0.005);
    assert_true(number(ref, "end_to_end_deviation") == 0);
    assert_true(number(ref, "kernel_ns_per_byte") > 0);
    assert_true(number(ref, "copy_ns_per_byte") > 0);
    assert_true(number(row, "reference_scale") == 0.005);
    assert_true(number(row, "bytes_ratio") > 1.9);
    verdict = field(row, "within_25pct");
    assert_true(strncmp(verdict, "true", 4) == 0 ||
                strncmp(verdict, "false", 5) == 0);
    free(json);
}

/* `clgather tune` searches every field of the library's table by name:
 * it prints each field for the row and the whole as CLGATHER_PARAMS, and
 * tries the values its own list once lacked (small's, and pack=2 where the
 * row has clang's built-ins). It ignores a CLGATHER_PARAMS it is given. */
static void test_tune_searches_every_field(void **state)
{
    (void)state;
    static const char *const names[] = {"wg",    "strip",    "pack", "chunk",
                                        "unit",  "prefetch", "nt",   "norm",
                                        "small", "host"};
    const char *argv[] = {"tune", "--scale", "0.01", "--repeat", "1", NULL};
    cli_result r;
    assert_int_equal(cli_run_env(&r, "CLGATHER_PARAMS", "wg=32", argv), 0);
    if (r.status != 0)
        cli_result_dump(&r);
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.err, "CLGATHER_PARAMS=\"wg=32\" is ignored"));
    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++) {
        char line[32];
        snprintf(line, sizeof line, "\n    %-9s ", names[k]);
        if (!strstr(r.out, line))
            fail_msg("tune printed no line for %s:\n%s", names[k], r.out);
    }
    assert_non_null(strstr(r.out, "\nCLGATHER_PARAMS=wg="));
    assert_non_null(strstr(r.out, ",small="));
    /* Each candidate's line on stderr: small's and host's are tried. */
    assert_non_null(strstr(r.err, ",small=0,"));
    assert_non_null(strstr(r.err, ",small=256,"));
    assert_non_null(strstr(r.err, ",host=0 "));
    assert_non_null(strstr(r.err, ",host=262144 "));
    if (strstr(r.out, "built-ins 1"))
        assert_non_null(strstr(r.err, ",pack=2,"));
    else
        assert_null(strstr(r.err, ",pack=2,"));
    cli_result_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_small),
        cmocka_unit_test(test_params_override),
        cmocka_unit_test(test_buffers),
        cmocka_unit_test(test_scale_past_int64_skips),
        cmocka_unit_test(test_first_call_table),
        cmocka_unit_test(test_check_kernel_and_linearity),
        cmocka_unit_test(test_tune_searches_every_field),
    };
    return CLI_RUN_TESTS("clgather-bench", tests);
}
