/* SPDX-License-Identifier: Apache-2.0 */
/*
 * clgather run: one Gather, GatherElements or GatherND on tensors from
 * .npy or ONNX .pb files, on the device; --check compares with the CPU
 * reference.
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

static void usage(FILE *out)
{
    fprintf(out,
            "Usage: clgather run (gather|gather-elements|gather-nd) --data "
            "FILE --indices FILE\n"
            "                    [--axis N | --batch-dims B] [--output FILE] "
            "[--device SPEC]\n"
            "                    [--repeat N] [--check] [--json] [--oob "
            "MODE]\n"
            "Run ONNX Gather, GatherElements or GatherND on the device. FILEs "
            "are NumPy .npy\n"
            "(numeric dtypes, bool, float16, byte strings 'S<n>') or ONNX "
            "TensorProto .pb;\n"
            "- reads one of them from standard input.\n"
            "Prints the output dtype and shape, the device and the time of "
            "the first call\n"
            "(host memory in and out), which includes building its kernels "
            "or loading\n"
            "them from the persistent program cache, and which of the two "
            "it was.\n"
            "\n"
            "  --data FILE        data tensor, rank >= 1\n"
            "  --indices FILE     indices tensor, int32 or int64\n"
            "  --axis N           axis, in [-r, r-1] (default 0; gather, "
            "gather-elements)\n"
            "  --batch-dims B     GatherND's batch_dims, in [0, min(q, r) - "
            "1] (default 0)\n"
            "  -o, --output FILE  write the output: FILE.npy as NumPy, "
            "FILE.pb as an ONNX\n"
            "                     TensorProto, - as .npy on standard output "
            "(the report\n"
            "                     then goes to standard error); checked "
            "before the run,\n"
            "                     never an input, replaced whole (an "
            "existing FILE stays\n"
            "                     as it was if writing fails or is "
            "interrupted)\n"
            "  -d, --device SPEC  OpenCL device (see clgather --help)\n"
            "  -c, --check        also run the CPU reference and compare bit "
            "for bit\n"
            "  -r, --repeat N     time N more calls (1 to %d) and print the "
            "fastest\n"
            "  --json             print the report as one JSON document "
            "(docs/cli.md)\n" CLG_CLI_OOB_USAGE
            "  -h, --help         show this help\n"
            "\n"
            "Exit status: 0 success, 1 device != reference (--check), 2 the "
            "operator\n"
            "rejected its input,\n" CLG_CLI_EXIT_HELP,
            CLG_CLI_REPEAT_MAX);
}

enum {
    OPT_DATA = 256,
    OPT_INDICES,
    OPT_AXIS,
    OPT_JSON,
    OPT_BATCH_DIMS,
    OPT_OOB
};

/* What `clgather run` was asked to do. */
typedef struct run_options {
    clg_op op;             /* the operator (the one argument) */
    const char *data_path; /* --data */
    const char *indices_path;
    const char *output_path; /* --output, or NULL */
    const char *device;      /* --device, or NULL for the default */
    int64_t axis;
    int64_t repeat;        /* timed calls after the first */
    int check;             /* --check */
    int json;              /* --json */
    clg_oob_mode oob;      /* --oob */
    int seen[OPT_OOB + 1]; /* single-value options met so far */
} run_options;

/* The tensors of a run: inputs as read, the device's output and the CPU
 * reference's, with the views the operators take; what the report says. */
typedef struct run_tensors {
    clg_io_tensor data, indices, out, ref;
    clg_cli_call call; /* over data and indices */
    clg_tensor ov;
    int64_t shape[CLG_MAX_RANK]; /* of the output */
    size_t rank;
    int loaded, ran; /* inputs read; calls made */
    double first_ms, best_ms;
    clg_path path;   /* where the first call ran */
    char cache[192]; /* what the program cache did for the first call */
    const char *cache_state;   /* "off", "not_needed", "served", "missed" */
    clg_cache_info cache_info; /* settings and counts after the first */
    uint64_t programs_loaded, programs_compiled; /* by the first call */
    const char *cache_refusal; /* why a miss passed over the folder */
    int checked, agree;        /* --check done, and its verdict */
    int64_t position;          /* first differing element, or -1 */
    char detail[1200];         /* the difference */
} run_tensors;

/* Marks an option that takes one value; -1 (printed) when met again. */
static int once(run_options *opt, int c, const char *name)
{
    return clg_cli_once("run", name, &opt->seen[c]);
}

/* One option c (with optarg) into *opt; parse_options' return values. */
static int parse_option(int c, run_options *opt)
{
    switch (c) {
    case OPT_DATA:
        opt->data_path = optarg;
        return once(opt, c, "--data");
    case OPT_INDICES:
        opt->indices_path = optarg;
        return once(opt, c, "--indices");
    case OPT_AXIS:
        if (clg_cli_parse_int64(optarg, &opt->axis) != 0) {
            fprintf(stderr,
                    "clgather run: --axis '%s' is not a 64-bit "
                    "integer\n",
                    optarg);
            return -1;
        }
        return once(opt, c, "--axis");
    case OPT_BATCH_DIMS:
        if (clg_cli_parse_int64(optarg, &opt->axis) != 0) {
            fprintf(stderr,
                    "clgather run: --batch-dims '%s' is not a 64-bit "
                    "integer\n",
                    optarg);
            return -1;
        }
        return once(opt, c, "--batch-dims");
    case 'r':
        if (clg_cli_parse_repeat("run", optarg, CLG_CLI_REPEAT_MAX,
                                 &opt->repeat) != 0)
            return -1;
        return once(opt, c, "--repeat");
    case OPT_JSON:
        opt->json = 1;
        return 0;
    case OPT_OOB:
        if (clg_cli_parse_oob("run", optarg, &opt->oob) != 0)
            return -1;
        return once(opt, c, "--oob");
    case 'o':
        opt->output_path = optarg;
        return once(opt, c, "--output");
    case 'd':
        opt->device = optarg;
        return once(opt, c, "--device");
    case 'c':
        opt->check = 1;
        return 0;
    case 'h':
        usage(stdout);
        return 1;
    default: /* getopt named the option */
        return -1;
    }
}

/* The operator name, the one argument left after the options. */
static int parse_operator(int argc, char **argv, run_options *opt)
{
    char words[256];
    clg_cli_op_words(words, sizeof words);
    if (optind + 1 != argc) {
        if (optind >= argc)
            fprintf(stderr, "clgather run: which operator? %s\n", words);
        else
            fprintf(stderr, "clgather run: one operator name only\n");
        return -1;
    }
    if (clg_cli_parse_op(argv[optind], &opt->op) != 0) {
        fprintf(stderr, "clgather run: unknown operator '%s' (%s)\n",
                argv[optind], words);
        return -1;
    }
    return 0;
}

/* Standard input and output: one input at most, and no JSON report
 * beside a tensor on standard output. -1 (printed) when misused. */
static int check_streams(const run_options *opt)
{
    int out_stdout = opt->output_path != NULL &&
                     strcmp(opt->output_path, "-") == 0;
    if (strcmp(opt->data_path, "-") == 0 &&
        strcmp(opt->indices_path, "-") == 0) {
        fprintf(stderr, "clgather run: --data and --indices cannot both be "
                        "- (standard input)\n");
        return -1;
    }
    if (out_stdout && opt->json) {
        fprintf(stderr, "clgather run: --json and --output - both write "
                        "standard output\n");
        return -1;
    }
    return 0;
}

/* Returns 0 to run, 1 after --help (printed), -1 on a usage error
 * (printed). */
static int parse_options(int argc, char **argv, run_options *opt)
{
    static const struct option long_options[] = {
        {"data", required_argument, NULL, OPT_DATA},
        {"indices", required_argument, NULL, OPT_INDICES},
        {"axis", required_argument, NULL, OPT_AXIS},
        {"batch-dims", required_argument, NULL, OPT_BATCH_DIMS},
        {"output", required_argument, NULL, 'o'},
        {"device", required_argument, NULL, 'd'},
        {"check", no_argument, NULL, 'c'},
        {"repeat", required_argument, NULL, 'r'},
        {"json", no_argument, NULL, OPT_JSON},
        {"oob", required_argument, NULL, OPT_OOB},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0}};
    int c, rc;

    memset(opt, 0, sizeof *opt);
    while ((c = getopt_long(argc, argv, "o:d:cr:h", long_options, NULL)) != -1)
        if ((rc = parse_option(c, opt)) != 0)
            return rc;
    if (parse_operator(argc, argv, opt) != 0 ||
        clg_cli_check_attribute("run", opt->op, opt->seen[OPT_AXIS],
                                opt->seen[OPT_BATCH_DIMS]) != 0)
        return -1;
    if (opt->data_path == NULL || opt->indices_path == NULL) {
        fprintf(stderr, "clgather run: --data and --indices are required\n");
        return -1;
    }
    /* A name of the file standard output is open on (/dev/stdout, the
     * pipe itself) is written as "-" is. */
    if (opt->output_path != NULL && clg_io_is_stdout(opt->output_path))
        opt->output_path = "-";
    return check_streams(opt);
}

/* Before any work: the output is a known format, can be written, and is
 * neither input (by device and inode, whatever the names). Returns an
 * exit status. */
static int check_output(const run_options *opt)
{
    clg_io_error err;
    const char *out = opt->output_path;
    if (out == NULL)
        return CLG_EXIT_OK;
    if (clg_io_check_output_name(out, &err) != CLG_IO_OK ||
        clg_io_check_writable(out, &err) != CLG_IO_OK) {
        clg_cli_fail("run", "%s", err.message);
        return CLG_EXIT_ERROR;
    }
    if (clg_io_same_file(out, opt->data_path) ||
        clg_io_same_file(out, opt->indices_path)) {
        clg_cli_fail("run", "%s: the output is the input file %s: refused",
                     out,
                     clg_io_same_file(out, opt->data_path)
                         ? opt->data_path
                         : opt->indices_path);
        return CLG_EXIT_ERROR;
    }
    return CLG_EXIT_OK;
}

/* Reads the inputs and allocates the output. Returns an exit status. */
static int load_tensors(const run_options *opt, run_tensors *t)
{
    clg_io_error err;
    clg_status st;
    char msg[1200];

    if (clg_io_read_tensor_file(opt->data_path, &t->data, &err) != CLG_IO_OK ||
        clg_io_read_tensor_file(opt->indices_path, &t->indices, &err) !=
            CLG_IO_OK) {
        clg_cli_fail("run", "%s", err.message);
        return CLG_EXIT_ERROR;
    }
    t->loaded = 1;
    t->call.op = opt->op;
    t->call.axis = opt->axis; /* the attribute: axis or batch_dims */
    t->call.oob = opt->oob;
    t->call.data = clg_io_tensor_view(&t->data);
    t->call.indices = clg_io_tensor_view(&t->indices);
    st = clg_cli_call_output_shape(&t->call, t->shape, &t->rank);
    if (st != CLG_STATUS_OK) {
        clg_cli_fail("run", "%s", clg_cli_describe(msg, sizeof msg, NULL, st));
        return clg_cli_exit_for_status(st);
    }
    if (clg_io_tensor_alloc(&t->out, t->data.dtype, t->rank, t->shape,
                            "output", &err) != CLG_IO_OK) {
        clg_cli_fail("run", "%s", err.message);
        return CLG_EXIT_ERROR;
    }
    t->ov = clg_io_tensor_view(&t->out);
    return CLG_EXIT_OK;
}

/* What the program cache did for the first call, into t: "served" (every
 * program it built was loaded), "missed" (some were compiled; with the
 * reason when the cache passed over its folder or an entry), "off", or
 * "not needed" (the context had every program); t->cache as text. */
static void describe_cache(clg_context *ctx, const clg_cache_info *before,
                           run_tensors *t)
{
    clg_cache_info *after = &t->cache_info;
    char *buf = t->cache;
    size_t cap = sizeof t->cache;
    t->cache_refusal = NULL;
    if (clg_context_cache_info(ctx, after) != CLG_STATUS_OK ||
        !after->enabled) {
        memset(after, 0, sizeof *after);
        t->cache_state = "off";
        snprintf(buf, cap, "off");
        return;
    }
    unsigned long long hits = after->hits - before->hits;
    unsigned long long misses = after->misses - before->misses;
    t->programs_loaded = hits;
    t->programs_compiled = misses;
    if (hits + misses == 0) {
        t->cache_state = "not_needed";
        snprintf(buf, cap, "not needed");
    } else if (misses == 0) {
        t->cache_state = "served";
        snprintf(buf, cap, "served, %llu program%s loaded", hits,
                 hits == 1 ? "" : "s");
    } else {
        const char *why = clg_context_cache_refusal(ctx);
        t->cache_state = "missed";
        t->cache_refusal = *why ? why : NULL;
        snprintf(buf, cap, "missed, %llu program%s compiled, %llu loaded%s%s",
                 misses, misses == 1 ? "" : "s", hits, *why ? "; " : "", why);
    }
}

/* The first call, then opt->repeat more; their times in milliseconds
 * (t->best_ms: the fastest of the more), and what the program cache did
 * for the first into t->cache. Returns an exit status. */
static int time_calls(clg_context *ctx, const run_options *opt, run_tensors *t)
{
    char msg[1200];
    clg_cache_info before;
    if (clg_context_cache_info(ctx, &before) != CLG_STATUS_OK)
        memset(&before, 0, sizeof before);
    for (int64_t r = 0; r <= opt->repeat; r++) {
        double t0 = clg_cli_now(), ms;
        clg_status st = clg_cli_call_device(ctx, &t->call, &t->ov);
        ms = (clg_cli_now() - t0) * 1e3;
        if (st != CLG_STATUS_OK) {
            clg_cli_fail("run", "%s",
                         clg_cli_describe(msg, sizeof msg, ctx, st));
            if (st == CLG_STATUS_BUILD_FAILED)
                fprintf(stderr, "build log:\n%s\n",
                        clg_context_build_log(ctx));
            return clg_cli_exit_for_status(st);
        }
        if (r == 0) {
            t->first_ms = ms;
            t->path = clg_context_last_path(ctx);
            describe_cache(ctx, &before, t);
        } else if (r == 1 || ms < t->best_ms)
            t->best_ms = ms;
    }
    t->ran = 1;
    return CLG_EXIT_OK;
}

/* The text report, on `report` (standard error when the output tensor
 * goes to standard output). */
static void print_run(FILE *report, const clg_context *ctx,
                      const run_options *opt, const run_tensors *t)
{
    char text[512], line[800];
    fprintf(report, "output: %s %s\n", clg_dtype_name(t->out.dtype),
            clg_io_format_shape(text, sizeof text, t->out.shape, t->out.rank));
    fprintf(report, "device: %s\n",
            clg_cli_device_line(line, sizeof line, ctx));
    if (t->path == CLG_PATH_HOST)
        fprintf(report,
                "time: %.3f ms (first call, on the calling thread: "
                "at most the host parameter's bytes)",
                t->first_ms);
    else
        fprintf(report, "time: %.3f ms (first call; program cache: %s)",
                t->first_ms, t->cache);
    if (opt->repeat > 0)
        fprintf(report, ", %.3f ms (best of %lld more)", t->best_ms,
                (long long)opt->repeat);
    fprintf(report, "\n");
    fflush(report);
}

/* --check: the CPU reference against the device's output, bit for bit.
 * Returns an exit status. */
static int check_reference(clg_context *ctx, run_tensors *t)
{
    clg_io_error err;
    clg_tensor rv;
    clg_status st;
    char msg[1200];

    if (clg_io_tensor_alloc(&t->ref, t->data.dtype, t->rank, t->shape,
                            "reference", &err) != CLG_IO_OK) {
        clg_cli_fail("run", "%s", err.message);
        return CLG_EXIT_ERROR;
    }
    rv = clg_io_tensor_view(&t->ref);
    st = clg_cli_call_reference(ctx, &t->call, &rv);
    t->checked = 1;
    t->position = -1;
    if (st != CLG_STATUS_OK) {
        snprintf(t->detail, sizeof t->detail,
                 "the device accepted the input, the CPU reference rejected "
                 "it: %s",
                 clg_cli_describe(msg, sizeof msg, ctx, st));
        return CLG_EXIT_DIFFER;
    }
    /* "expected" is the reference, "got" the device. */
    t->agree = clg_io_compare(&rv, &t->ov, t->detail, sizeof t->detail,
                              &t->position);
    return t->agree ? CLG_EXIT_OK : CLG_EXIT_DIFFER;
}

static void print_check(FILE *report, const run_tensors *t)
{
    if (t->agree)
        fprintf(report, "device == reference\n");
    else
        fprintf(report, "device != reference: %s\n", t->detail);
}

/* {"path", "dtype", "shape"} of a tensor read or written. */
static void json_tensor(clg_json *j, const char *key, const char *path,
                        const clg_io_tensor *t, int known)
{
    if (!known) {
        clg_json_null(j, key);
        return;
    }
    clg_json_begin_object(j, key);
    clg_json_string(j, "path", path);
    clg_json_string(j, "dtype", clg_dtype_name(t->dtype));
    clg_json_shape(j, "shape", t->shape, t->rank);
    clg_json_end_object(j);
}

/* What the program cache did for the first call (docs/cli.md, "JSON
 * output"). */
static void json_program_cache(clg_json *j, const run_tensors *t)
{
    const clg_cache_info *c = &t->cache_info;
    clg_json_begin_object(j, "program_cache");
    clg_json_string(j, "state", t->cache_state);
    clg_json_bool(j, "enabled", c->enabled);
    clg_json_string(j, "directory", c->enabled ? c->directory : NULL);
    clg_json_uint(j, "programs_loaded", t->programs_loaded);
    clg_json_uint(j, "programs_compiled", t->programs_compiled);
    clg_json_string(j, "refusal", t->cache_refusal);
    clg_json_string(j, "text", t->cache);
    clg_json_end_object(j);
}

/* The --json document (docs/cli.md, "JSON output"). */
static void json_run(const clg_context *ctx, const run_options *opt,
                     const run_tensors *t, int rc)
{
    clg_json j;
    clg_cli_json_begin(&j, "run");
    clg_json_string(&j, "operator", clg_op_name(opt->op));
    clg_json_int(&j, clg_op_attribute(opt->op), opt->axis);
    clg_json_string(&j, "oob", clg_oob_mode_name(opt->oob));
    json_tensor(&j, "data", opt->data_path, &t->data, t->loaded);
    json_tensor(&j, "indices", opt->indices_path, &t->indices, t->loaded);
    json_tensor(&j, "output", opt->output_path, &t->out, t->ran);
    if (ctx == NULL) {
        clg_json_null(&j, "device");
    } else {
        clg_json_begin_object(&j, "device");
        clg_json_string(&j, "spec", opt->device);
        clg_json_string(&j, "name", clg_context_device_name(ctx));
        clg_json_string(&j, "vendor", clg_context_device_vendor(ctx));
        clg_json_string(&j, "version", clg_context_device_version(ctx));
        clg_cli_json_runtime(&j, ctx);
        clg_json_end_object(&j);
    }
    if (!t->ran) {
        clg_json_null(&j, "timing");
    } else {
        clg_json_begin_object(&j, "timing");
        clg_json_number(&j, "first_call_ms", 1, t->first_ms);
        clg_json_bool(&j, "first_call_includes_build",
                      t->path != CLG_PATH_HOST);
        json_program_cache(&j, t);
        clg_json_int(&j, "more_calls", opt->repeat);
        clg_json_number(&j, "best_more_ms", opt->repeat > 0, t->best_ms);
        clg_json_string(&j, "path",
                        t->path == CLG_PATH_HOST ? "host" : "device");
        clg_json_end_object(&j);
    }
    if (!t->checked) {
        clg_json_null(&j, "check");
    } else {
        clg_json_begin_object(&j, "check");
        clg_json_bool(&j, "agree", t->agree);
        if (t->agree) {
            clg_json_null(&j, "first_difference");
        } else {
            clg_json_begin_object(&j, "first_difference");
            if (t->position >= 0)
                clg_json_int(&j, "flat_index", t->position);
            else
                clg_json_null(&j, "flat_index");
            clg_json_string(&j, "detail", t->detail);
            clg_json_end_object(&j);
        }
        clg_json_end_object(&j);
    }
    clg_cli_json_end(&j, rc);
}

/* Device, calls, output file, check. Returns an exit status. */
static int run_device(clg_context **ctx, const run_options *opt,
                      run_tensors *t)
{
    clg_io_error err;
    char msg[1200];
    int rc;
    if ((rc = clg_cli_open_device("run", opt->device, ctx)) != CLG_EXIT_OK)
        return rc;
    if ((rc = clg_cli_params(*ctx, "run", msg, sizeof msg)) != CLG_EXIT_OK ||
        (rc = time_calls(*ctx, opt, t)) != CLG_EXIT_OK)
        return rc;
    /* Written (atomically) before "output:" is printed as done. */
    if (opt->output_path != NULL &&
        clg_io_write_tensor_file(opt->output_path, &t->ov,
                                 t->data.string_width, &err) != CLG_IO_OK) {
        clg_cli_fail("run", "%s", err.message);
        return CLG_EXIT_ERROR;
    }
    return opt->check ? check_reference(*ctx, t) : CLG_EXIT_OK;
}

int clg_cli_run(int argc, char **argv)
{
    run_options opt;
    run_tensors t;
    clg_context *ctx = NULL;
    FILE *report = stdout;
    int rc;

    memset(&t, 0, sizeof t);
    clg_io_tensor_init(&t.data);
    clg_io_tensor_init(&t.indices);
    clg_io_tensor_init(&t.out);
    clg_io_tensor_init(&t.ref);
    rc = parse_options(argc, argv, &opt);
    if (rc != 0) {
        rc = rc > 0 ? CLG_EXIT_OK : clg_cli_try_help("run");
        goto cleanup;
    }
    /* The tensor goes to standard output: the report goes to standard
     * error. */
    if (opt.output_path != NULL && strcmp(opt.output_path, "-") == 0)
        report = stderr;
    /* A path that cannot be written fails now, not after the work. */
    if ((rc = check_output(&opt)) != CLG_EXIT_OK ||
        (rc = load_tensors(&opt, &t)) != CLG_EXIT_OK ||
        (rc = clg_cli_check_env("run")) != CLG_EXIT_OK)
        goto report;
    rc = run_device(&ctx, &opt, &t);
    if (!opt.json && t.ran && (rc == CLG_EXIT_OK || t.checked)) {
        print_run(report, ctx, &opt, &t);
        if (t.checked)
            print_check(report, &t);
    }

report:
    if (opt.json)
        json_run(ctx, &opt, &t, rc);
cleanup:
    fflush(stdout);
    clg_context_destroy(ctx);
    clg_io_tensor_free(&t.data);
    clg_io_tensor_free(&t.indices);
    clg_io_tensor_free(&t.out);
    clg_io_tensor_free(&t.ref);
    return rc;
}
