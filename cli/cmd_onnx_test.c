/* SPDX-License-Identifier: Apache-2.0 */
/*
 * clgather onnx-test: runs ONNX backend node-test directories
 * (model.onnx + test_data_set_N/input_N.pb, output_0.pb) through the
 * device and the CPU reference, one PASS / FAIL / ERROR line per data set.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include <clgather/clgather.h>

#include "cli.h"
#include "compare.h"
#include "io_tensor.h"
#include "json_out.h"
#include "node_test.h"

#define LINE_CAP 2048

typedef struct options {
    const char *device;
    int reference_only;
    int verbose;
    int strict;       /* other operators' directories are errors */
    clg_oob_mode oob; /* --oob */
    clg_json *json;   /* --json: the document, else NULL */
} options;

typedef struct totals {
    size_t passed, failed, errors, skipped;
} totals;

static void usage(FILE *out)
{
    fprintf(out,
            "Usage: clgather onnx-test [--device SPEC] [--reference] "
            "[--strict] [--verbose] [--json] [--oob MODE] DIR...\n"
            "Run ONNX backend node tests: each DIR holds model.onnx (one "
            "Gather,\n"
            "GatherElements or GatherND node) and test_data_set_*/ with "
            "input_N.pb and "
            "output_0.pb.\n"
            "Each data set runs on the device and on the CPU reference; the "
            "device result\n"
            "must equal output_0.pb bit for bit (dtype and shape included) "
            "and the reference.\n"
            "Each input_N.pb must have the type and the fixed dimensions "
            "the model declares.\n"
            "A DIR whose model holds a node of another operator (another "
            "operator's\n"
            "test, as in onnx-test .../data/node/*) is skipped and counted.\n"
            "\n"
            "  -d, --device SPEC  OpenCL device (see clgather --help)\n"
            "  --reference        run the CPU reference alone (no device)\n"
            "  --strict           report other operators' DIRs as errors, "
            "not skips\n"
            "  --json             print the results as one JSON document "
            "(docs/cli.md)\n"
            "  -v, --verbose      describe each model (and each skip) on "
            "stderr\n" CLG_CLI_OOB_USAGE
            "  -h, --help         show this help\n"
            "\n"
            "Prints one line per data set on stdout:\n"
            "  PASS DIR/SET   FAIL DIR/SET: <first difference>   ERROR "
            "DIR/SET: <message>\n"
            "and the totals on stderr (passed, failed, errors, skipped).\n"
            "Exit status (the highest that applies): 0 all passed, 1 an "
            "output differed,\n"
            "2 the operator rejected its input,\n" CLG_CLI_EXIT_HELP);
}

/* One result: a line "<verdict> <dir>[/<set>][: <msg>]", or with --json
 * an object of the "cases" array. set and msg may be NULL. */
static void report(const options *opt, const char *verdict, const char *dir,
                   const char *set, const char *msg, int has_expected)
{
    if (opt->json != NULL) {
        clg_json *j = opt->json;
        clg_json_begin_object(j, NULL);
        clg_json_string(j, "dir", dir);
        clg_json_string(j, "set", set);
        clg_json_string(j, "result", verdict);
        if (set != NULL)
            clg_json_bool(j, "has_expected", has_expected);
        else
            clg_json_null(j, "has_expected");
        clg_json_string(j, "message", msg);
        clg_json_end_object(j);
        return;
    }
    printf("%s %s%s%s%s%s%s\n", verdict, dir, set != NULL ? "/" : "",
           set != NULL ? set : "", msg != NULL ? ": " : "",
           msg != NULL ? msg : "",
           set != NULL && msg == NULL && !has_expected
               ? " (no expected output)"
               : "");
    fflush(stdout);
}

static int worst(int a, int b)
{
    return a > b ? a : b;
}

/* One data set while it runs: its tensors, and the line it prints,
 * "<verdict> <dir>/<set>[: <msg>]". */
typedef struct data_set {
    clg_node_set set;
    clg_io_tensor dev_out, ref_out;
    clg_cli_call call;
    int64_t data_shape[CLG_MAX_RANK]; /* of a reduced call */
    clg_tensor dv, rv, ev;
    const char *verdict; /* "ERROR" unless a comparison says "FAIL" */
    char msg[LINE_CAP + 256];
} data_set;

/* The two outputs, shaped by the call once the index values are worth
 * them. */
static int prepare_outputs(data_set *ds)
{
    clg_io_error err;
    int64_t shape[CLG_MAX_RANK];
    size_t rank = 0;
    char detail[LINE_CAP];
    clg_status st;

    st = clg_cli_call_prepare(&ds->call, ds->data_shape, shape, &rank);
    if (st != CLG_STATUS_OK) {
        snprintf(ds->msg, sizeof ds->msg, "%s",
                 clg_cli_describe(detail, sizeof detail, NULL, st));
        return clg_cli_exit_for_status(st);
    }
    if (clg_io_tensor_alloc(&ds->dev_out, ds->call.data.dtype, rank, shape,
                            "output", &err) != CLG_IO_OK ||
        clg_io_tensor_alloc(&ds->ref_out, ds->call.data.dtype, rank, shape,
                            "output", &err) != CLG_IO_OK) {
        snprintf(ds->msg, sizeof ds->msg, "%s", err.message);
        return CLG_EXIT_ERROR;
    }
    ds->dv = clg_io_tensor_view(&ds->dev_out);
    ds->rv = clg_io_tensor_view(&ds->ref_out);
    ds->ev = clg_io_tensor_view(&ds->set.expected);
    return CLG_EXIT_OK;
}

/* The device (unless --reference) and the CPU reference. A device that
 * rejects the input is an error, with whether the reference accepts it;
 * a reference that rejects what the device accepted is a failure. */
static int run_operators(clg_context *ctx, const options *opt, data_set *ds)
{
    char detail[LINE_CAP];
    clg_status st;

    if (!opt->reference_only) {
        st = clg_cli_call_device(ctx, &ds->call, &ds->dv);
        if (st != CLG_STATUS_OK) {
            clg_status rst;
            clg_cli_describe(detail, sizeof detail, ctx, st);
            if (st == CLG_STATUS_BUILD_FAILED)
                fprintf(stderr, "clgather: build log:\n%s\n",
                        clg_context_build_log(ctx));
            rst = clg_cli_call_reference(NULL, &ds->call, &ds->rv);
            snprintf(ds->msg, sizeof ds->msg, "%s%s", detail,
                     rst == CLG_STATUS_OK
                         ? " (the CPU reference accepted this input)"
                         : "");
            return clg_cli_exit_for_status(st);
        }
    }
    st = clg_cli_call_reference(ctx, &ds->call, &ds->rv);
    if (st == CLG_STATUS_OK)
        return CLG_EXIT_OK;
    clg_cli_describe(detail, sizeof detail, ctx, st);
    if (opt->reference_only) {
        snprintf(ds->msg, sizeof ds->msg, "%s", detail);
        return clg_cli_exit_for_status(st);
    }
    ds->verdict = "FAIL";
    snprintf(ds->msg, sizeof ds->msg,
             "the device accepted the input but the CPU reference "
             "rejected it: %s",
             detail);
    return CLG_EXIT_DIFFER;
}

/* The result against output_0.pb, and the device's against the
 * reference's; with --reference, the reference against output_0.pb. */
static int compare_outputs(const options *opt, data_set *ds)
{
    char detail[LINE_CAP];
    const clg_tensor *got = opt->reference_only ? &ds->rv : &ds->dv;

    ds->verdict = "FAIL";
    if (ds->set.have_expected &&
        !clg_io_compare(&ds->ev, got, detail, sizeof detail, NULL)) {
        snprintf(ds->msg, sizeof ds->msg, "%s", detail);
        return CLG_EXIT_DIFFER;
    }
    if (!opt->reference_only &&
        !clg_io_compare(&ds->rv, &ds->dv, detail, sizeof detail, NULL)) {
        /* "expected" is the reference here, "got" the device. */
        snprintf(ds->msg, sizeof ds->msg,
                 "device differs from the CPU reference: %s", detail);
        return CLG_EXIT_DIFFER;
    }
    ds->verdict = "PASS";
    return CLG_EXIT_OK;
}

/* Runs one data set; prints its line; returns its exit status. */
static int run_set(clg_context *ctx, const options *opt, const clg_node_dir *d,
                   const char *set)
{
    data_set ds;
    int rc;

    memset(&ds, 0, sizeof ds);
    clg_node_set_init(&ds.set);
    clg_io_tensor_init(&ds.dev_out);
    clg_io_tensor_init(&ds.ref_out);
    ds.verdict = "ERROR";
    rc = clg_node_set_read(d, set, &ds.set, ds.msg, sizeof ds.msg);
    if (rc == CLG_EXIT_OK) {
        ds.call = clg_node_set_call(&d->model, &ds.set);
        ds.call.oob = opt->oob;
        rc = prepare_outputs(&ds);
    }
    if (rc == CLG_EXIT_OK)
        rc = run_operators(ctx, opt, &ds);
    if (rc == CLG_EXIT_OK)
        rc = compare_outputs(opt, &ds);
    if (rc == CLG_EXIT_OK)
        report(opt, "PASS", d->path, set, NULL, ds.set.have_expected);
    else
        report(opt, ds.verdict, d->path, set, ds.msg, ds.set.have_expected);
    clg_node_set_free(&ds.set);
    clg_io_tensor_free(&ds.dev_out);
    clg_io_tensor_free(&ds.ref_out);
    return rc;
}

static void count(totals *t, int rc)
{
    if (rc == CLG_EXIT_OK)
        t->passed++;
    else if (rc == CLG_EXIT_DIFFER)
        t->failed++;
    else
        t->errors++;
}

static int run_dir(clg_context *ctx, const options *opt, const char *arg,
                   totals *t)
{
    clg_node_dir d;
    char msg[LINE_CAP];
    int rc, opened;

    rc = clg_node_dir_open(arg, &d, msg, sizeof msg);
    opened = rc == CLG_EXIT_OK;
    if (opt->verbose && opened)
        fprintf(stderr,
                "clgather: %s: %s (opset %lld, operator version %d), axis "
                "%lld, %zu runtime input(s)\n",
                d.path, d.model.op_type, (long long)d.model.opset,
                d.model.op_version, (long long)d.model.axis,
                d.model.input_count);
    if (rc != CLG_EXIT_OK && d.other_operator && !opt->strict) {
        /* another operator's test: counted, not an error */
        const char *what = d.other_what;
        if (opt->verbose)
            fprintf(stderr, "clgather: %s: skipped: %s\n", d.path, what);
        if (opt->json != NULL)
            report(opt, "SKIP", d.path, NULL, what, 0);
        t->skipped++;
        rc = CLG_EXIT_OK;
    } else if (rc != CLG_EXIT_OK) {
        /* the whole directory: "ERROR <dir>: <what>" */
        report(opt, "ERROR", d.path[0] != '\0' ? d.path : arg, NULL, msg, 0);
        t->errors++;
    }
    for (size_t s = 0; opened && s < d.nsets; s++) {
        int r = run_set(ctx, opt, &d, d.sets[s]);
        count(t, r);
        rc = worst(rc, r);
    }
    fflush(stdout);
    clg_node_dir_free(&d);
    return rc;
}

/* Returns 0 to run, 1 after --help (printed), -1 on a usage error
 * (printed). *json set by --json. */
static int parse_options(int argc, char **argv, options *opt, int *json)
{
    enum { OPT_STRICT = 256, OPT_JSON, OPT_OOB, OPT_REFERENCE };
    static const struct option long_options[] = {
        {"device", required_argument, NULL, 'd'},
        {"reference", no_argument, NULL, OPT_REFERENCE},
        {"verbose", no_argument, NULL, 'v'},
        {"strict", no_argument, NULL, OPT_STRICT},
        {"json", no_argument, NULL, OPT_JSON},
        {"oob", required_argument, NULL, OPT_OOB},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0}};
    int c, device_seen = 0;

    while ((c = getopt_long(argc, argv, "d:vh", long_options, NULL)) != -1) {
        switch (c) {
        case 'd':
            opt->device = optarg;
            if (clg_cli_once("onnx-test", "--device", &device_seen) != 0)
                return -1;
            break;
        case OPT_REFERENCE:
            opt->reference_only = 1;
            break;
        case 'v':
            opt->verbose = 1;
            break;
        case OPT_STRICT:
            opt->strict = 1;
            break;
        case OPT_JSON:
            *json = 1;
            break;
        case OPT_OOB:
            if (clg_cli_parse_oob("onnx-test", optarg, &opt->oob) != 0)
                return -1;
            break;
        case 'h':
            usage(stdout);
            return 1;
        default: /* getopt named the option */
            return -1;
        }
    }
    if (optind >= argc) {
        fprintf(stderr, "clgather onnx-test: no test directory given\n");
        return -1;
    }
    if (opt->reference_only && opt->device != NULL) {
        fprintf(stderr,
                "clgather onnx-test: --reference and --device exclude each "
                "other\n");
        return -1;
    }
    return 0;
}

/* The device's context (none with --reference). Returns an exit
 * status. */
static int open_device(const options *opt, clg_context **ctx)
{
    char msg[1200], line[800];
    int rc;

    if (opt->reference_only) {
        fprintf(stderr, "clgather onnx-test: CPU reference only\n");
        return CLG_EXIT_OK;
    }
    if (clg_cli_check_env("onnx-test") != CLG_EXIT_OK)
        return CLG_EXIT_ERROR;
    if ((rc = clg_cli_open_device("onnx-test", opt->device, ctx)) !=
        CLG_EXIT_OK)
        return rc;
    if (clg_cli_device_only(*ctx, "onnx-test") != CLG_EXIT_OK ||
        clg_cli_params(*ctx, "onnx-test", msg, sizeof msg) != CLG_EXIT_OK)
        return CLG_EXIT_ERROR;
    fprintf(stderr, "clgather onnx-test: device: %s\n",
            clg_cli_device_line(line, sizeof line, *ctx));
    return CLG_EXIT_OK;
}

/* The head of the --json document, up to the "cases" array. */
static void json_head(clg_json *j, const options *opt, const clg_context *ctx)
{
    clg_cli_json_begin(j, "onnx-test");
    if (ctx == NULL) {
        clg_json_null(j, "device");
    } else {
        clg_json_begin_object(j, "device");
        clg_json_string(j, "spec", opt->device);
        clg_json_string(j, "name", clg_context_device_name(ctx));
        clg_json_string(j, "vendor", clg_context_device_vendor(ctx));
        clg_json_string(j, "version", clg_context_device_version(ctx));
        clg_cli_json_runtime(j, ctx);
        clg_json_end_object(j);
    }
    clg_json_bool(j, "reference_only", opt->reference_only);
    clg_json_string(j, "oob", clg_oob_mode_name(opt->oob));
    clg_json_begin_array(j, "cases");
}

static void json_tail(clg_json *j, const totals *t, int rc)
{
    clg_json_end_array(j);
    clg_json_begin_object(j, "summary");
    clg_json_uint(j, "passed", t->passed);
    clg_json_uint(j, "failed", t->failed);
    clg_json_uint(j, "errors", t->errors);
    clg_json_uint(j, "skipped", t->skipped);
    clg_json_end_object(j);
    clg_cli_json_end(j, rc);
}

int clg_cli_onnx_test(int argc, char **argv)
{
    options opt = {NULL, 0, 0, 0, CLG_OOB_RAISE, NULL};
    clg_context *ctx = NULL;
    totals t = {0, 0, 0, 0};
    clg_json j;
    int parsed, json = 0, rc;

    parsed = parse_options(argc, argv, &opt, &json);
    if (parsed != 0)
        return parsed > 0 ? CLG_EXIT_OK : clg_cli_try_help("onnx-test");
    rc = open_device(&opt, &ctx);
    if (json) {
        opt.json = &j;
        json_head(&j, &opt, ctx);
    }
    for (int a = optind; a < argc && (ctx != NULL || opt.reference_only); a++)
        rc = worst(rc, run_dir(ctx, &opt, argv[a], &t));
    char ops[256];
    size_t at = 0;
    for (int i = 0; i < clg_op_count() && at < sizeof ops; i++)
        at += (size_t)snprintf(ops + at, sizeof ops - at, "%s%s",
                               i == 0                    ? ""
                               : i == clg_op_count() - 1 ? " or "
                                                         : ", ",
                               clg_op_name((clg_op)i));
    fprintf(stderr,
            "clgather onnx-test: %zu passed, %zu failed, %zu errors, %zu "
            "skipped (not %s)\n",
            t.passed, t.failed, t.errors, t.skipped, ops);
    if (json)
        json_tail(&j, &t, rc);
    clg_context_destroy(ctx);
    return rc;
}
