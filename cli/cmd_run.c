/*
 * clgather run: one Gather or GatherElements on tensors from .npy or ONNX
 * .pb files, on the device; --check compares with the CPU reference.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <clgather/clgather.h>

#include "cli.h"
#include "compare.h"
#include "io_tensor.h"
#include "tensor_file.h"
#include "node_test.h"

static void usage(FILE *out)
{
    fprintf(out,
            "Usage: clgather run (gather|gather-elements) --data FILE "
            "--indices FILE\n"
            "                    [--axis N] [--output FILE] [--device SPEC] "
            "[--repeat N] "
            "[--check]\n"
            "Run ONNX Gather or GatherElements on the device. FILEs are NumPy "
            ".npy\n"
            "(numeric dtypes, bool, float16, byte strings 'S<n>') or ONNX "
            "TensorProto .pb.\n"
            "Prints the output dtype and shape, the device and the time of "
            "the call\n"
            "(host memory in and out; the first call includes building the "
            "kernel).\n"
            "\n"
            "  --data FILE        data tensor, rank >= 1\n"
            "  --indices FILE     indices tensor, int32 or int64\n"
            "  --axis N           axis, in [-r, r-1] (default 0)\n"
            "  -o, --output FILE  write the output: .pb as an ONNX "
            "TensorProto, else .npy;\n"
            "                     checked before the run, replaced whole "
            "(an existing\n"
            "                     FILE stays as it was if writing fails)\n"
            "  -d, --device SPEC  OpenCL device (see clgather --help)\n"
            "  -c, --check        also run the CPU reference and compare bit "
            "for bit\n"
            "  --repeat N         time N more calls and print the fastest\n"
            "  -h, --help         show this help\n"
            "\n"
            "Exit status: 0 success, 1 device != reference (--check), 2 the "
            "operator\n"
            "rejected its input, 3 usage, file or environment problems.\n");
}

enum { OPT_DATA = 256, OPT_INDICES, OPT_AXIS, OPT_REPEAT };

/* What `clgather run` was asked to do. */
typedef struct run_options {
    int elements;          /* GatherElements, else Gather */
    const char *data_path; /* --data */
    const char *indices_path;
    const char *output_path; /* --output, or NULL */
    const char *device;      /* --device, or NULL for the default */
    int64_t axis;
    int64_t repeat; /* timed calls after the first */
    int check;      /* --check */
} run_options;

/* The tensors of a run: inputs as read, the device's output and the CPU
 * reference's, with the views the operators take. */
typedef struct run_tensors {
    clg_io_tensor data, indices, out, ref;
    clg_cli_call call; /* over data and indices */
    clg_tensor ov;
    int64_t shape[CLG_MAX_RANK]; /* of the output */
    size_t rank;
} run_tensors;

/* One option c (with optarg) into *opt; parse_options' return values. */
static int parse_option(int c, run_options *opt)
{
    switch (c) {
    case OPT_DATA:
        opt->data_path = optarg;
        return 0;
    case OPT_INDICES:
        opt->indices_path = optarg;
        return 0;
    case OPT_AXIS:
        if (clg_cli_parse_int64(optarg, &opt->axis) != 0) {
            fprintf(stderr,
                    "clgather run: --axis '%s' is not an "
                    "integer\n",
                    optarg);
            return -1;
        }
        return 0;
    case OPT_REPEAT:
        if (clg_cli_parse_int64(optarg, &opt->repeat) != 0 ||
            opt->repeat < 0) {
            fprintf(stderr,
                    "clgather run: --repeat '%s' is not a "
                    "count\n",
                    optarg);
            return -1;
        }
        return 0;
    case 'o':
        opt->output_path = optarg;
        return 0;
    case 'd':
        opt->device = optarg;
        return 0;
    case 'c':
        opt->check = 1;
        return 0;
    case 'h':
        usage(stdout);
        return 1;
    default:
        usage(stderr);
        return -1;
    }
}

/* The operator name, the one argument left after the options. */
static int parse_operator(int argc, char **argv, run_options *opt)
{
    if (optind + 1 != argc) {
        fprintf(stderr, "clgather run: %s\n",
                optind >= argc ? "which operator? gather or gather-elements"
                               : "one operator name only");
        usage(stderr);
        return -1;
    }
    if (strcmp(argv[optind], "gather") == 0)
        opt->elements = 0;
    else if (strcmp(argv[optind], "gather-elements") == 0 ||
             strcmp(argv[optind], "gather_elements") == 0)
        opt->elements = 1;
    else {
        fprintf(stderr,
                "clgather run: unknown operator '%s' (gather or "
                "gather-elements)\n",
                argv[optind]);
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
        {"output", required_argument, NULL, 'o'},
        {"device", required_argument, NULL, 'd'},
        {"check", no_argument, NULL, 'c'},
        {"repeat", required_argument, NULL, OPT_REPEAT},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0}};
    int c, rc;

    memset(opt, 0, sizeof *opt);
    while ((c = getopt_long(argc, argv, "o:d:ch", long_options, NULL)) != -1)
        if ((rc = parse_option(c, opt)) != 0)
            return rc;
    if (parse_operator(argc, argv, opt) != 0)
        return -1;
    if (opt->data_path == NULL || opt->indices_path == NULL) {
        fprintf(stderr, "clgather run: --data and --indices are required\n");
        return -1;
    }
    return 0;
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
        fprintf(stderr, "clgather run: %s\n", err.message);
        return CLG_EXIT_ERROR;
    }
    t->call.elements = opt->elements;
    t->call.axis = opt->axis;
    t->call.data = clg_io_tensor_view(&t->data);
    t->call.indices = clg_io_tensor_view(&t->indices);
    st = clg_cli_call_output_shape(&t->call, t->shape, &t->rank);
    if (st != CLG_STATUS_OK) {
        fprintf(stderr, "clgather run: %s\n",
                clg_cli_describe(msg, sizeof msg, NULL, st));
        return clg_cli_exit_for_status(st);
    }
    if (clg_io_tensor_alloc(&t->out, t->data.dtype, t->rank, t->shape,
                            "output", &err) != CLG_IO_OK) {
        fprintf(stderr, "clgather run: %s\n", err.message);
        return CLG_EXIT_ERROR;
    }
    t->ov = clg_io_tensor_view(&t->out);
    return CLG_EXIT_OK;
}

/* The first call, then opt->repeat more; their times in milliseconds
 * (*best_ms: the fastest of the more). Returns an exit status. */
static int time_calls(clg_context *ctx, const run_options *opt, run_tensors *t,
                      double *first_ms, double *best_ms)
{
    char msg[1200];
    for (int64_t r = 0; r <= opt->repeat; r++) {
        double t0 = clg_cli_now(), ms;
        clg_status st = clg_cli_call_device(ctx, &t->call, &t->ov);
        ms = (clg_cli_now() - t0) * 1e3;
        if (st != CLG_STATUS_OK) {
            fprintf(stderr, "clgather run: %s\n",
                    clg_cli_describe(msg, sizeof msg, ctx, st));
            if (st == CLG_STATUS_BUILD_FAILED)
                fprintf(stderr, "build log:\n%s\n",
                        clg_context_build_log(ctx));
            return clg_cli_exit_for_status(st);
        }
        if (r == 0)
            *first_ms = ms;
        else if (r == 1 || ms < *best_ms)
            *best_ms = ms;
    }
    return CLG_EXIT_OK;
}

static void print_run(const clg_context *ctx, const run_options *opt,
                      const run_tensors *t, double first_ms, double best_ms)
{
    char text[512];
    printf("output: %s %s\n", clg_dtype_name(t->out.dtype),
           clg_io_format_shape(text, sizeof text, t->out.shape, t->out.rank));
    printf("device: %s\n", clg_context_device_name(ctx));
    if (opt->repeat > 0)
        printf("time: %.3f ms (first call), %.3f ms (best of %lld more)\n",
               first_ms, best_ms, (long long)opt->repeat);
    else
        printf("time: %.3f ms\n", first_ms);
    fflush(stdout);
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
        fprintf(stderr, "clgather run: %s\n", err.message);
        return CLG_EXIT_ERROR;
    }
    rv = clg_io_tensor_view(&t->ref);
    st = clg_cli_call_reference(ctx, &t->call, &rv);
    if (st != CLG_STATUS_OK) {
        printf("device != reference: the device accepted the input, the "
               "CPU reference rejected it: %s\n",
               clg_cli_describe(msg, sizeof msg, ctx, st));
        return CLG_EXIT_DIFFER;
    }
    if (clg_io_compare(&rv, &t->ov, msg, sizeof msg, NULL)) {
        printf("device == reference\n");
        return CLG_EXIT_OK;
    }
    /* "expected" is the reference, "got" the device. */
    printf("device != reference: %s\n", msg);
    return CLG_EXIT_DIFFER;
}

int clg_cli_run(int argc, char **argv)
{
    run_options opt;
    run_tensors t;
    clg_context *ctx = NULL;
    clg_io_error err;
    clg_status st;
    double first_ms = 0.0, best_ms = 0.0;
    char msg[1200], label[300];
    int rc;

    clg_io_tensor_init(&t.data);
    clg_io_tensor_init(&t.indices);
    clg_io_tensor_init(&t.out);
    clg_io_tensor_init(&t.ref);
    rc = parse_options(argc, argv, &opt);
    if (rc != 0) {
        rc = rc > 0 ? CLG_EXIT_OK : CLG_EXIT_ERROR;
        goto cleanup;
    }
    /* A path that cannot be written fails now, not after the work. */
    if (opt.output_path != NULL &&
        clg_io_check_writable(opt.output_path, &err) != CLG_IO_OK) {
        fprintf(stderr, "clgather run: %s\n", err.message);
        rc = CLG_EXIT_ERROR;
        goto cleanup;
    }
    if ((rc = load_tensors(&opt, &t)) != CLG_EXIT_OK)
        goto cleanup;
    if ((rc = clg_cli_check_env("run")) != CLG_EXIT_OK)
        goto cleanup;
    st = clg_context_create(&ctx, opt.device);
    if (st != CLG_STATUS_OK) {
        fprintf(stderr, "clgather run: cannot use device %s: %s\n",
                clg_cli_device_label(label, sizeof label, opt.device),
                clg_cli_describe(msg, sizeof msg, NULL, st));
        rc = CLG_EXIT_ERROR;
        goto cleanup;
    }
    if ((rc = clg_cli_params(ctx, "run", msg, sizeof msg)) != CLG_EXIT_OK ||
        (rc = time_calls(ctx, &opt, &t, &first_ms, &best_ms)) != CLG_EXIT_OK)
        goto cleanup;
    /* Written (atomically) before "output:" is printed as done. */
    if (opt.output_path != NULL &&
        clg_io_write_tensor_file(opt.output_path, &t.ov, t.data.string_width,
                                 &err) != CLG_IO_OK) {
        fprintf(stderr, "clgather run: %s\n", err.message);
        rc = CLG_EXIT_ERROR;
        goto cleanup;
    }
    print_run(ctx, &opt, &t, first_ms, best_ms);
    if (opt.check)
        rc = check_reference(ctx, &t);

cleanup:
    fflush(stdout);
    clg_context_destroy(ctx);
    clg_io_tensor_free(&t.data);
    clg_io_tensor_free(&t.indices);
    clg_io_tensor_free(&t.out);
    clg_io_tensor_free(&t.ref);
    return rc;
}
