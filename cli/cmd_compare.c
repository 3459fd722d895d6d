/* SPDX-License-Identifier: Apache-2.0 */
/*
 * clgather compare: runs each case (an ONNX node-test data set, or one
 * call on tensor files) on the CPU reference and on every device asked
 * for, and prints one row per device: the time of the call and whether
 * its output agrees with the reference bit for bit, else the first
 * difference. The reference's own row says whether it matches the
 * expected output, when the case has one.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <clgather/clgather.h>

#include "cli.h"
#include "compare.h"
#include "io_tensor.h"
#include "json_out.h"
#include "node_test.h"
#include "tensor_file.h"

#define MSG_CAP 2048
#define LABEL_CAP 320
#define REPEAT_MAX CLG_CLI_REPEAT_MAX

static void usage(FILE *out)
{
    fprintf(out,
            "Usage: clgather compare [--device SPEC]... [--repeat N] [--json] "
            "[--oob MODE] DIR...\n"
            "       clgather compare [--device SPEC]... [--repeat N] [--json] "
            "--data FILE --indices FILE\n"
            "                        [--op gather|gather-elements|gather-nd] "
            "[--axis N | --batch-dims B]\n"
            "                        [--expected FILE] [--oob MODE]\n"
            "Run each case on the CPU reference and on every device, and "
            "compare bit for bit.\n"
            "A case is a data set of an ONNX node-test DIR (model.onnx, "
            "test_data_set_*/),\n"
            "or the call on the --data and --indices files (.npy or ONNX "
            ".pb, as for run).\n"
            "\n"
            "  -d, --device SPEC  a device (see clgather --help); repeat for "
            "more;\n"
            "                     default: every device `clgather devices` "
            "lists\n"
            "  -r, --repeat N     time N calls per device and show the "
            "fastest (1-%d,\n"
            "                     default 1: the first call includes "
            "building the kernel)\n"
            "  --op OP            gather (default), gather-elements or "
            "gather-nd\n"
            "  --data FILE, --indices FILE, --axis N, --batch-dims B   as for "
            "run (default 0)\n"
            "  --expected FILE    the output the reference must match\n"
            "  --json             print the rows as one JSON document "
            "(docs/cli.md)\n" CLG_CLI_OOB_USAGE
            "  -h, --help         show this help\n"
            "\n"
            "Prints one row per case and device (the CPU reference first):\n"
            "  CASE  DEVICE  TIME  agree | DIFFER at out[i][j]: device=V "
            "reference=V | ERROR ...\n"
            "the reference's row: matches output_0.pb | DIFFER ... "
            "expected=V | (no expected output)\n"
            "Exit status (the highest that applies): 0 all agree, 1 an output "
            "differed,\n"
            "2 the operator rejected its input,\n" CLG_CLI_EXIT_HELP,
            REPEAT_MAX);
}

static int worst(int a, int b)
{
    return a > b ? a : b;
}

enum {
    OPT_DATA = 256,
    OPT_INDICES,
    OPT_AXIS,
    OPT_BATCH_DIMS,
    OPT_OP,
    OPT_EXP,
    OPT_JSON,
    OPT_OOB
};

/* What `clgather compare` was asked to do. */
typedef struct compare_options {
    const char **specs; /* --device, in order; none: every device */
    size_t nspecs;
    int64_t repeat; /* timed calls per device, best shown */
    clg_op op;      /* --op (default gather) */
    int64_t axis;
    const char *data_path, *indices_path, *expected_path;
    int json;              /* --json */
    clg_oob_mode oob;      /* --oob */
    int seen[OPT_OOB + 1]; /* single-value options met so far */
} compare_options;

/* One device to compare, and its row label "NAME on RUNTIME (SPEC)". */
typedef struct compare_device {
    clg_context *ctx;
    char spec[LABEL_CAP];
    char label[2 * LABEL_CAP + 800];
} compare_device;

/* The devices, the width of the label column and the counts of rows. */
typedef struct compare_run {
    const compare_options *opt;
    compare_device *devices;
    size_t ndevices;
    int width;
    size_t cases, agree, differ, errors;
    clg_json *json; /* --json: the document, else NULL */
} compare_run;

/* One case while it runs. */
typedef struct compare_case {
    const char *name;
    clg_cli_call call;
    const clg_tensor *expected; /* NULL: none */
    const char *expected_name;  /* "output_0.pb", or the --expected path */
    clg_io_tensor ref_out, dev_out;
    clg_tensor rv, dv;
    clg_status ref_status;
    int64_t data_shape[CLG_MAX_RANK]; /* of a reduced call */
} compare_case;

/* "clgather compare: OPTION 'VALUE' is not WHAT"; returns -1. */
static int bad_value(const char *option, const char *what)
{
    fprintf(stderr, "clgather compare: %s '%s' is not %s\n", option, optarg,
            what);
    return -1;
}

/* One option that takes a value; -1 on a bad one (printed), else 0. */
static int parse_value(int c, compare_options *opt)
{
    switch (c) {
    case 'd':
        opt->specs[opt->nspecs++] = optarg;
        return 0;
    case OPT_DATA:
        opt->data_path = optarg;
        return clg_cli_once("compare", "--data", &opt->seen[c]);
    case OPT_INDICES:
        opt->indices_path = optarg;
        return clg_cli_once("compare", "--indices", &opt->seen[c]);
    case OPT_EXP:
        opt->expected_path = optarg;
        return clg_cli_once("compare", "--expected", &opt->seen[c]);
    case OPT_OP:
        if (clg_cli_parse_op(optarg, &opt->op) != 0) {
            char words[256];
            clg_cli_op_words(words, sizeof words);
            return bad_value("--op", words);
        }
        return clg_cli_once("compare", "--op", &opt->seen[c]);
    case OPT_AXIS:
        if (clg_cli_parse_int64(optarg, &opt->axis) != 0)
            return bad_value("--axis", "a 64-bit integer");
        return clg_cli_once("compare", "--axis", &opt->seen[c]);
    case OPT_BATCH_DIMS:
        if (clg_cli_parse_int64(optarg, &opt->axis) != 0)
            return bad_value("--batch-dims", "a 64-bit integer");
        return clg_cli_once("compare", "--batch-dims", &opt->seen[c]);
    case OPT_JSON:
        opt->json = 1;
        return 0;
    case OPT_OOB:
        if (clg_cli_parse_oob("compare", optarg, &opt->oob) != 0)
            return -1;
        return clg_cli_once("compare", "--oob", &opt->seen[c]);
    default: /* 'r', --repeat */
        if (clg_cli_parse_repeat("compare", optarg, REPEAT_MAX,
                                 &opt->repeat) != 0)
            return -1;
        return clg_cli_once("compare", "--repeat", &opt->seen[c]);
    }
}

/* The arguments left: a case to run; -1 (printed) when there is none or
 * the file options are incomplete. */
static int check_cases(int argc, const compare_options *opt, int op_given)
{
    int files = opt->data_path != NULL || opt->indices_path != NULL ||
                opt->expected_path != NULL || op_given;
    if (files && (opt->data_path == NULL || opt->indices_path == NULL)) {
        fprintf(stderr,
                "clgather compare: %s: --op, --axis and --expected describe "
                "a case given by --data and --indices, which go together\n",
                opt->data_path == NULL && opt->indices_path == NULL
                    ? "neither --data nor --indices is given"
                : opt->data_path == NULL ? "--data is missing"
                                         : "--indices is missing");
        return -1;
    }
    if (!files && optind >= argc) {
        fprintf(stderr, "clgather compare: no case: give node-test "
                        "directories or --data and --indices\n");
        return -1;
    }
    return 0;
}

/* Returns 0 to run, 1 after --help (printed), -1 on a usage error
 * (printed). opt->specs is malloc'd (argc entries) either way. */
static int parse_options(int argc, char **argv, compare_options *opt)
{
    static const struct option long_options[] = {
        {"device", required_argument, NULL, 'd'},
        {"repeat", required_argument, NULL, 'r'},
        {"op", required_argument, NULL, OPT_OP},
        {"data", required_argument, NULL, OPT_DATA},
        {"indices", required_argument, NULL, OPT_INDICES},
        {"axis", required_argument, NULL, OPT_AXIS},
        {"batch-dims", required_argument, NULL, OPT_BATCH_DIMS},
        {"expected", required_argument, NULL, OPT_EXP},
        {"json", no_argument, NULL, OPT_JSON},
        {"oob", required_argument, NULL, OPT_OOB},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0}};
    int c, op_given = 0;

    memset(opt, 0, sizeof *opt);
    opt->repeat = 1;
    opt->specs = calloc((size_t)argc, sizeof *opt->specs);
    if (opt->specs == NULL) {
        fprintf(stderr, "clgather compare: out of memory\n");
        return -1;
    }
    while ((c = getopt_long(argc, argv, "d:r:h", long_options, NULL)) != -1) {
        if (c == 'h') {
            usage(stdout);
            return 1;
        }
        if (c == '?' || c == ':')
            return -1; /* getopt named the option */
        op_given |= c == OPT_OP || c == OPT_AXIS || c == OPT_BATCH_DIMS;
        if (parse_value(c, opt) != 0)
            return -1;
    }
    if (clg_cli_check_attribute("compare", opt->op, opt->seen[OPT_AXIS],
                                opt->seen[OPT_BATCH_DIMS]) != 0)
        return -1;
    return check_cases(argc, opt, op_given);
}

/* A context on `spec`, labelled "NAME on RUNTIME (SPEC)". Returns an
 * exit status. */
static int open_device(compare_device *d, const char *spec)
{
    char msg[1200], line[800];
    int rc;
    if (clg_cli_check_env("compare") != CLG_EXIT_OK)
        return CLG_EXIT_ERROR;
    snprintf(d->spec, sizeof d->spec, "%s", spec);
    if ((rc = clg_cli_open_device("compare", spec, &d->ctx)) != CLG_EXIT_OK)
        return rc;
    if (clg_cli_device_only(d->ctx, "compare") != CLG_EXIT_OK ||
        clg_cli_params(d->ctx, "compare", msg, sizeof msg) != CLG_EXIT_OK)
        return CLG_EXIT_ERROR;
    snprintf(d->label, sizeof d->label, "%s (%s)",
             clg_cli_device_line(line, sizeof line, d->ctx), spec);
    return CLG_EXIT_OK;
}

/* The specs of every device found, "P:D", into a malloc'd array of
 * LABEL_CAP-byte strings. Returns an exit status. */
static int list_specs(char (**specs)[LABEL_CAP], size_t *count)
{
    clg_device_info *infos = NULL;
    char msg[1200];
    size_t got = 0;
    clg_status st = clg_devices_list(NULL, 0, count);

    *specs = NULL;
    if (st == CLG_STATUS_OK && *count == 0)
        st = CLG_STATUS_DEVICE_NOT_FOUND;
    if (st == CLG_STATUS_OK) {
        infos = calloc(*count, sizeof *infos);
        *specs = calloc(*count, sizeof **specs);
        st = infos != NULL && *specs != NULL
                 ? clg_devices_list(infos, *count, &got)
                 : CLG_STATUS_OUT_OF_MEMORY;
    }
    if (st == CLG_STATUS_DEVICE_NOT_FOUND) {
        clg_cli_fail("compare",
                     "no OpenCL device found: " CLG_CLI_NO_DEVICE_HINT
                     "; 'clgather devices' then lists the devices");
        free(infos);
        return CLG_EXIT_RUNTIME;
    }
    if (st != CLG_STATUS_OK) {
        clg_cli_fail("compare", "no OpenCL device: %s",
                     clg_cli_describe(msg, sizeof msg, NULL, st));
        free(infos);
        return clg_cli_exit_for_status(st);
    }
    *count = got < *count ? got : *count;
    for (size_t i = 0; i < *count; i++)
        snprintf((*specs)[i], LABEL_CAP, "%u:%u",
                 (unsigned)infos[i].platform_index,
                 (unsigned)infos[i].device_index);
    free(infos);
    return CLG_EXIT_OK;
}

/* A context for each --device, else for every device found; the width
 * of the label column. Returns an exit status. */
static int open_devices(compare_run *run)
{
    const compare_options *opt = run->opt;
    char(*found)[LABEL_CAP] = NULL;
    size_t n = opt->nspecs;
    int rc = CLG_EXIT_OK;

    if (n == 0 && (rc = list_specs(&found, &n)) != CLG_EXIT_OK)
        return rc;
    run->devices = calloc(n, sizeof *run->devices);
    if (run->devices == NULL) {
        fprintf(stderr, "clgather compare: out of memory\n");
        free(found);
        return CLG_EXIT_ERROR;
    }
    run->width = (int)strlen("CPU reference");
    for (size_t i = 0; i < n && rc == CLG_EXIT_OK; i++) {
        rc = open_device(&run->devices[i],
                         found != NULL ? found[i] : opt->specs[i]);
        run->ndevices = i + 1;
        if ((int)strlen(run->devices[i].label) > run->width)
            run->width = (int)strlen(run->devices[i].label);
    }
    free(found);
    return rc;
}

/* One row: "<case>  <label>  <time>  <result>" (ms < 0: no time), or
 * with --json an object of the case's "rows": its device (d NULL: the
 * CPU reference), time, verdict ("agree", "matches", "no_expected",
 * "differ", "error"), result text and first difference (position: its
 * flat index, -1 when dtype or shape differ). */
static void print_row(const compare_run *run, const char *name,
                      const compare_device *d, double ms, const char *verdict,
                      const char *result, int64_t position)
{
    char time[32] = "-";
    const char *label = d != NULL ? d->label : "CPU reference";
    clg_json *j = run->json;
    if (j == NULL) {
        if (ms >= 0.0)
            snprintf(time, sizeof time, "%.3f ms", ms);
        printf("%s  %-*s  %12s  %s\n", name, run->width, label, time, result);
        fflush(stdout);
        return;
    }
    clg_json_begin_object(j, NULL);
    clg_json_string(j, "device", d != NULL ? d->spec : NULL);
    clg_json_string(j, "label", label);
    clg_json_number(j, "time_ms", ms >= 0.0, ms);
    clg_json_bool(j, "time_includes_first_call", run->opt->repeat == 1);
    clg_json_string(j, "verdict", verdict);
    clg_json_string(j, "result", result);
    if (strcmp(verdict, "differ") != 0) {
        clg_json_null(j, "first_difference");
    } else {
        clg_json_begin_object(j, "first_difference");
        if (position >= 0)
            clg_json_int(j, "flat_index", position);
        else
            clg_json_null(j, "flat_index");
        clg_json_string(j, "detail", result);
        clg_json_end_object(j);
    }
    clg_json_end_object(j);
}

/* Overwrites an output before each call, so that a device that writes
 * nothing cannot pass with what the reference or an earlier device left:
 * 0xA5 bytes, or empty strings (a descriptor must stay readable). */
static void poison(const clg_tensor *out)
{
    size_t bytes = (size_t)clg_io_shape_count(out->shape, out->rank,
                                              clg_dtype_size(out->dtype)) *
                   clg_dtype_size(out->dtype);
    if (bytes > 0)
        memset(out->data, out->dtype == CLG_DTYPE_STRING ? 0 : 0xA5, bytes);
}

/* repeat calls into out on ctx's device (reference: the CPU reference,
 * ctx NULL), each checked against c->rv when `check` (the first
 * difference ends them, its call number in *differ_call); *best_ms the
 * fastest. Returns the first failing status, else OK. */
static clg_status timed_calls(clg_context *ctx, int reference,
                              const compare_case *c, const clg_tensor *out,
                              int64_t repeat, int check, double *best_ms,
                              int64_t *differ_call)
{
    *differ_call = 0;
    for (int64_t r = 1; r <= repeat; r++) {
        double t0, ms;
        clg_status st;
        poison(out);
        t0 = clg_cli_now();
        st = reference ? clg_cli_call_reference(ctx, &c->call, out)
                       : clg_cli_call_device(ctx, &c->call, out);
        ms = (clg_cli_now() - t0) * 1e3;
        if (st != CLG_STATUS_OK)
            return st;
        if (r == 1 || ms < *best_ms)
            *best_ms = ms;
        if (check && !clg_io_compare(&c->rv, out, NULL, 0, NULL)) {
            *differ_call = r;
            return CLG_STATUS_OK;
        }
    }
    return CLG_STATUS_OK;
}

/* The reference's row: its time, and whether it matches the expected
 * output. Returns an exit status. */
static int reference_row(compare_run *run, compare_case *c)
{
    char result[MSG_CAP + 64], detail[MSG_CAP];
    const char *verdict = "error";
    double ms = -1.0;
    int64_t unused, position = -1;
    int rc = CLG_EXIT_OK;

    c->ref_status = timed_calls(NULL, 1, c, &c->rv, run->opt->repeat, 0, &ms,
                                &unused);
    if (c->ref_status != CLG_STATUS_OK) {
        snprintf(result, sizeof result, "ERROR %s",
                 clg_cli_describe(detail, sizeof detail, NULL, c->ref_status));
        ms = -1.0;
        rc = clg_cli_exit_for_status(c->ref_status);
    } else if (c->expected == NULL) {
        snprintf(result, sizeof result, "(no expected output)");
        verdict = "no_expected";
    } else if (clg_io_agreement(detail, sizeof detail, &c->rv, "reference",
                                c->expected, "expected", &position)) {
        snprintf(result, sizeof result, "matches %s", c->expected_name);
        verdict = "matches";
    } else {
        /* "DIFFER at ..." -> "DIFFER from output_0.pb at ..." */
        snprintf(result, sizeof result, "DIFFER from %s%s", c->expected_name,
                 detail + strlen("DIFFER"));
        verdict = "differ";
        rc = CLG_EXIT_DIFFER;
    }
    print_row(run, c->name, NULL, ms, verdict, result, position);
    return rc;
}

/* A device call failed with st: its message, with what the reference
 * made of the same input. Returns an exit status. */
static int device_failed(compare_device *d, const compare_case *c,
                         clg_status st, char *result, size_t cap)
{
    char detail[MSG_CAP];
    clg_cli_describe(detail, sizeof detail, d->ctx, st);
    if (st == CLG_STATUS_BUILD_FAILED)
        fprintf(stderr, "clgather compare: %s: build log:\n%s\n", d->label,
                clg_context_build_log(d->ctx));
    if (c->ref_status == CLG_STATUS_OK)
        snprintf(result, cap,
                 "ERROR %s (the CPU reference accepted this input)", detail);
    else if (c->ref_status != st)
        snprintf(result, cap, "ERROR %s (the CPU reference: %s)", detail,
                 clg_status_name(c->ref_status));
    else
        snprintf(result, cap, "ERROR %s", detail);
    return clg_cli_exit_for_status(st);
}

/* One device's row. Returns an exit status. */
static int device_row(compare_run *run, compare_device *d, compare_case *c)
{
    char result[MSG_CAP + 128];
    const char *verdict = "agree";
    double ms = -1.0;
    int64_t differ_call = 0, repeat = run->opt->repeat, position = -1;
    int check = c->ref_status == CLG_STATUS_OK, rc = CLG_EXIT_OK;
    clg_status st;

    st = timed_calls(d->ctx, 0, c, &c->dv, repeat, check, &ms, &differ_call);
    if (st != CLG_STATUS_OK) {
        rc = device_failed(d, c, st, result, sizeof result);
        verdict = "error";
        ms = -1.0;
    } else if (!check) {
        snprintf(result, sizeof result,
                 "DIFFER: the device accepted the input, the CPU reference "
                 "rejected it");
        verdict = "differ";
        rc = CLG_EXIT_DIFFER;
    } else if (differ_call > 0) {
        size_t n;
        verdict = "differ";
        clg_io_agreement(result, sizeof result, &c->dv, "device", &c->rv,
                         "reference", &position);
        n = strlen(result);
        if (repeat > 1)
            snprintf(result + n, sizeof result - n, " (call %lld of %lld)",
                     (long long)differ_call, (long long)repeat);
        rc = CLG_EXIT_DIFFER;
    } else {
        snprintf(result, sizeof result, "agree");
    }
    print_row(run, c->name, d, ms, verdict, result, position);
    return rc;
}

/* A case that cannot run at all: "<case>  ERROR <message>". */
static int case_failed(compare_run *run, const char *name, const char *msg,
                       int rc)
{
    clg_json *j = run->json;
    run->errors++;
    if (j == NULL) {
        printf("%s  ERROR %s\n", name, msg);
        fflush(stdout);
        return rc;
    }
    clg_json_begin_object(j, NULL);
    clg_json_string(j, "name", name);
    clg_json_null(j, "operator");
    clg_json_string(j, "error", msg);
    clg_json_begin_array(j, "rows");
    clg_json_end_array(j);
    clg_json_string(j, "verdict", "error");
    clg_json_end_object(j);
    return rc;
}

/* --json: a case's head, up to its "rows" array. `full` is the call as
 * its files give it and shape its output's: the shapes reported are
 * those, even when the case then runs a reduced call (see
 * clg_cli_call_prepare). */
static void json_case_begin(compare_run *run, const compare_case *c,
                            const clg_cli_call *full, const int64_t *shape,
                            size_t rank)
{
    clg_json *j = run->json;
    if (j == NULL)
        return;
    clg_json_begin_object(j, NULL);
    clg_json_string(j, "name", c->name);
    clg_json_string(j, "operator", clg_op_name(c->call.op));
    clg_json_int(j, clg_op_attribute(c->call.op), c->call.axis);
    clg_json_begin_object(j, "data");
    clg_json_string(j, "dtype", clg_dtype_name(full->data.dtype));
    clg_json_shape(j, "shape", full->data.shape, full->data.rank);
    clg_json_end_object(j);
    clg_json_begin_object(j, "indices");
    clg_json_string(j, "dtype", clg_dtype_name(full->indices.dtype));
    clg_json_shape(j, "shape", full->indices.shape, full->indices.rank);
    clg_json_end_object(j);
    clg_json_begin_object(j, "output");
    clg_json_string(j, "dtype", clg_dtype_name(full->data.dtype));
    clg_json_shape(j, "shape", shape, rank);
    clg_json_end_object(j);
    clg_json_string(j, "expected",
                    c->expected != NULL ? c->expected_name : NULL);
    clg_json_null(j, "error");
    clg_json_begin_array(j, "rows");
}

static void json_case_end(compare_run *run, int rc)
{
    clg_json *j = run->json;
    if (j == NULL)
        return;
    clg_json_end_array(j);
    clg_json_string(j, "verdict",
                    rc == CLG_EXIT_OK       ? "agree"
                    : rc == CLG_EXIT_DIFFER ? "differ"
                                            : "error");
    clg_json_end_object(j);
}

static void count(compare_run *run, int rc)
{
    if (rc == CLG_EXIT_OK)
        run->agree++;
    else if (rc == CLG_EXIT_DIFFER)
        run->differ++;
    else
        run->errors++;
}

/* Shapes the outputs (once the index values are worth them), then the
 * reference's row and one row per device. Returns the case's exit
 * status. */
static int run_case(compare_run *run, compare_case *c)
{
    clg_io_error err;
    int64_t shape[CLG_MAX_RANK], full_shape[CLG_MAX_RANK];
    size_t rank = 0, full_rank = 0;
    clg_cli_call full = c->call;
    char msg[MSG_CAP];
    clg_status st;
    int rc;

    /* The output shape of the call as given, for --json: prepare may
     * replace c->call with a reduced one. */
    (void)clg_cli_call_output_shape(&full, full_shape, &full_rank);
    st = clg_cli_call_prepare(&c->call, c->data_shape, shape, &rank);
    if (st != CLG_STATUS_OK)
        return case_failed(run, c->name,
                           clg_cli_describe(msg, sizeof msg, NULL, st),
                           clg_cli_exit_for_status(st));
    if (clg_io_tensor_alloc(&c->ref_out, c->call.data.dtype, rank, shape,
                            "reference output", &err) != CLG_IO_OK ||
        clg_io_tensor_alloc(&c->dev_out, c->call.data.dtype, rank, shape,
                            "device output", &err) != CLG_IO_OK)
        return case_failed(run, c->name, err.message, CLG_EXIT_ERROR);
    c->rv = clg_io_tensor_view(&c->ref_out);
    c->dv = clg_io_tensor_view(&c->dev_out);
    json_case_begin(run, c, &full, full_shape, full_rank);
    rc = reference_row(run, c);
    count(run, rc);
    for (size_t i = 0; i < run->ndevices; i++) {
        int r = device_row(run, &run->devices[i], c);
        count(run, r);
        rc = worst(rc, r);
    }
    json_case_end(run, rc);
    return rc;
}

static void case_free(compare_case *c)
{
    clg_io_tensor_free(&c->ref_out);
    clg_io_tensor_free(&c->dev_out);
}

/* Every data set of one node-test directory. Returns an exit status. */
static int run_dir(compare_run *run, const char *arg)
{
    clg_node_dir d;
    clg_node_set set;
    char msg[MSG_CAP], name[CLG_NODE_PATH_CAP + 64];
    int rc, opened;

    clg_node_set_init(&set);
    rc = clg_node_dir_open(arg, &d, msg, sizeof msg);
    opened = rc == CLG_EXIT_OK;
    if (!opened)
        case_failed(run, d.path[0] != '\0' ? d.path : arg, msg, rc);
    for (size_t s = 0; opened && s < d.nsets; s++) {
        compare_case c;
        clg_tensor ev;
        int r;
        memset(&c, 0, sizeof c);
        snprintf(name, sizeof name, "%s/%s", d.path, d.sets[s]);
        c.name = name;
        run->cases++;
        r = clg_node_set_read(&d, d.sets[s], &set, msg, sizeof msg);
        if (r != CLG_EXIT_OK) {
            r = case_failed(run, name, msg, r);
        } else {
            c.call = clg_node_set_call(&d.model, &set);
            c.call.oob = run->opt->oob;
            ev = clg_io_tensor_view(&set.expected);
            c.expected = set.have_expected ? &ev : NULL;
            c.expected_name = "output_0.pb";
            r = run_case(run, &c);
        }
        case_free(&c);
        rc = worst(rc, r);
    }
    clg_node_set_free(&set);
    clg_node_dir_free(&d);
    return rc;
}

/* The case of --data and --indices (and --expected). Returns an exit
 * status. */
static int run_files(compare_run *run)
{
    const compare_options *opt = run->opt;
    clg_io_tensor data, indices, expected;
    compare_case c;
    clg_tensor ev;
    clg_io_error err;
    char name[3 * CLG_NODE_PATH_CAP];
    int rc;

    memset(&c, 0, sizeof c);
    clg_io_tensor_init(&data);
    clg_io_tensor_init(&indices);
    clg_io_tensor_init(&expected);
    snprintf(name, sizeof name, "%s(%s,%s,%s=%lld)", clg_op_name(opt->op),
             opt->data_path, opt->indices_path, clg_op_attribute(opt->op),
             (long long)opt->axis);
    c.name = name;
    run->cases++;
    if (clg_io_read_tensor_file(opt->data_path, &data, &err) != CLG_IO_OK ||
        clg_io_read_tensor_file(opt->indices_path, &indices, &err) !=
            CLG_IO_OK ||
        (opt->expected_path != NULL &&
         clg_io_read_tensor_file(opt->expected_path, &expected, &err) !=
             CLG_IO_OK)) {
        rc = case_failed(run, name, err.message, CLG_EXIT_ERROR);
    } else {
        c.call.op = opt->op;
        c.call.axis = opt->axis;
        c.call.oob = opt->oob;
        c.call.data = clg_io_tensor_view(&data);
        c.call.indices = clg_io_tensor_view(&indices);
        ev = clg_io_tensor_view(&expected);
        c.expected = opt->expected_path != NULL ? &ev : NULL;
        c.expected_name = opt->expected_path;
        rc = run_case(run, &c);
    }
    case_free(&c);
    clg_io_tensor_free(&data);
    clg_io_tensor_free(&indices);
    clg_io_tensor_free(&expected);
    return rc;
}

/* --json: the head of the document, up to the "cases" array. */
static void json_head(compare_run *run, clg_json *j)
{
    run->json = j;
    clg_cli_json_begin(j, "compare");
    clg_json_int(j, "repeat", run->opt->repeat);
    clg_json_string(j, "oob", clg_oob_mode_name(run->opt->oob));
    clg_json_begin_array(j, "devices");
    for (size_t i = 0; i < run->ndevices; i++) {
        const compare_device *d = &run->devices[i];
        clg_json_begin_object(j, NULL);
        clg_json_string(j, "spec", d->spec);
        clg_json_string(j, "name",
                        d->ctx != NULL ? clg_context_device_name(d->ctx)
                                       : NULL);
        clg_json_string(j, "label", d->ctx != NULL ? d->label : NULL);
        if (d->ctx != NULL) {
            clg_cli_json_runtime(j, d->ctx);
        } else {
            clg_json_null(j, "platform");
            clg_json_null(j, "platform_version");
            clg_json_null(j, "driver_version");
        }
        clg_json_end_object(j);
    }
    clg_json_end_array(j);
    clg_json_begin_array(j, "cases");
}

static void json_tail(const compare_run *run, clg_json *j, int rc)
{
    clg_json_end_array(j);
    clg_json_begin_object(j, "summary");
    clg_json_uint(j, "cases", run->cases);
    clg_json_uint(j, "devices", run->ndevices);
    clg_json_uint(j, "rows_agree", run->agree);
    clg_json_uint(j, "rows_differ", run->differ);
    clg_json_uint(j, "errors", run->errors);
    clg_json_end_object(j);
    clg_cli_json_end(j, rc);
}

int clg_cli_compare(int argc, char **argv)
{
    compare_options opt;
    compare_run run;
    clg_json j;
    int rc;

    memset(&run, 0, sizeof run);
    run.opt = &opt;
    rc = parse_options(argc, argv, &opt);
    if (rc != 0) {
        rc = rc > 0 ? CLG_EXIT_OK : clg_cli_try_help("compare");
        goto cleanup;
    }
    rc = open_devices(&run);
    if (opt.json)
        json_head(&run, &j);
    if (rc != CLG_EXIT_OK)
        goto report;
    if (opt.data_path != NULL)
        rc = run_files(&run);
    for (int a = optind; a < argc; a++)
        rc = worst(rc, run_dir(&run, argv[a]));
    fprintf(stderr,
            "clgather compare: %zu case(s) on %zu device(s): %zu row(s) "
            "agree, %zu differ, %zu error(s)\n",
            run.cases, run.ndevices, run.agree, run.differ, run.errors);

report:
    if (opt.json)
        json_tail(&run, &j, rc);
cleanup:
    fflush(stdout);
    for (size_t i = 0; i < run.ndevices; i++)
        clg_context_destroy(run.devices[i].ctx);
    free(run.devices);
    free(opt.specs);
    return rc;
}
