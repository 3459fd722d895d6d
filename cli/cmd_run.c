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
            "TensorProto, else .npy\n"
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

int clg_cli_run(int argc, char **argv)
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
    const char *data_path = NULL, *indices_path = NULL;
    const char *output_path = NULL, *device = NULL;
    int check = 0;
    int64_t axis = 0, repeat = 0;
    int elements = 0;
    clg_context *ctx = NULL;
    clg_io_tensor data, indices, out, ref;
    clg_tensor dv, iv, ov, rv;
    clg_io_error err;
    int64_t shape[CLG_MAX_RANK];
    size_t rank = 0;
    clg_status st;
    double t0, first_ms = 0.0, best_ms = 0.0;
    char msg[1200], text[512];
    int rc = CLG_EXIT_OK;
    int c;

    clg_io_tensor_init(&data);
    clg_io_tensor_init(&indices);
    clg_io_tensor_init(&out);
    clg_io_tensor_init(&ref);

    while ((c = getopt_long(argc, argv, "o:d:ch", long_options, NULL)) !=
           -1) {
        switch (c) {
        case OPT_DATA:
            data_path = optarg;
            break;
        case OPT_INDICES:
            indices_path = optarg;
            break;
        case OPT_AXIS:
            if (clg_cli_parse_int64(optarg, &axis) != 0) {
                fprintf(stderr, "clgather run: --axis '%s' is not an "
                        "integer\n", optarg);
                rc = CLG_EXIT_ERROR;
                goto cleanup;
            }
            break;
        case OPT_REPEAT:
            if (clg_cli_parse_int64(optarg, &repeat) != 0 || repeat < 0) {
                fprintf(stderr, "clgather run: --repeat '%s' is not a "
                        "count\n", optarg);
                rc = CLG_EXIT_ERROR;
                goto cleanup;
            }
            break;
        case 'o':
            output_path = optarg;
            break;
        case 'd':
            device = optarg;
            break;
        case 'c':
            check = 1;
            break;
        case 'h':
            usage(stdout);
            goto cleanup;
        default:
            usage(stderr);
            rc = CLG_EXIT_ERROR;
            goto cleanup;
        }
    }
    if (optind + 1 != argc) {
        fprintf(stderr, "clgather run: %s\n",
                optind >= argc ? "which operator? gather or gather-elements"
                               : "one operator name only");
        usage(stderr);
        rc = CLG_EXIT_ERROR;
        goto cleanup;
    }
    if (strcmp(argv[optind], "gather") == 0)
        elements = 0;
    else if (strcmp(argv[optind], "gather-elements") == 0 ||
             strcmp(argv[optind], "gather_elements") == 0)
        elements = 1;
    else {
        fprintf(stderr,
                "clgather run: unknown operator '%s' (gather or "
                "gather-elements)\n",
                argv[optind]);
        rc = CLG_EXIT_ERROR;
        goto cleanup;
    }
    if (data_path == NULL || indices_path == NULL) {
        fprintf(stderr, "clgather run: --data and --indices are required\n");
        rc = CLG_EXIT_ERROR;
        goto cleanup;
    }

    if (clg_io_read_tensor_file(data_path, &data, &err) != CLG_IO_OK ||
        clg_io_read_tensor_file(indices_path, &indices, &err) != CLG_IO_OK) {
        fprintf(stderr, "clgather run: %s\n", err.message);
        rc = CLG_EXIT_ERROR;
        goto cleanup;
    }
    dv = clg_io_tensor_view(&data);
    iv = clg_io_tensor_view(&indices);
    st = elements ? clg_gather_elements_output_shape(&dv, &iv, axis, shape,
                                                     CLG_MAX_RANK, &rank)
                  : clg_gather_output_shape(&dv, &iv, axis, shape,
                                            CLG_MAX_RANK, &rank);
    if (st != CLG_STATUS_OK) {
        fprintf(stderr, "clgather run: %s\n",
                clg_cli_describe(msg, sizeof msg, NULL, st));
        rc = clg_cli_exit_for_status(st);
        goto cleanup;
    }
    if (clg_io_tensor_alloc(&out, data.dtype, rank, shape, "output", &err) !=
        CLG_IO_OK) {
        fprintf(stderr, "clgather run: %s\n", err.message);
        rc = CLG_EXIT_ERROR;
        goto cleanup;
    }
    ov = clg_io_tensor_view(&out);

    st = clg_context_create(&ctx, device);
    if (st != CLG_STATUS_OK) {
        fprintf(stderr, "clgather run: cannot use device %s: %s\n",
                device != NULL ? device : "(default)",
                clg_cli_describe(msg, sizeof msg, NULL, st));
        rc = CLG_EXIT_ERROR;
        goto cleanup;
    }

    for (int64_t r = 0; r <= repeat; r++) {
        double ms;
        t0 = clg_cli_now();
        st = elements ? clg_gather_elements(ctx, &dv, &iv, axis, &ov)
                      : clg_gather(ctx, &dv, &iv, axis, &ov);
        ms = (clg_cli_now() - t0) * 1e3;
        if (st != CLG_STATUS_OK) {
            fprintf(stderr, "clgather run: %s\n",
                    clg_cli_describe(msg, sizeof msg, ctx, st));
            if (st == CLG_STATUS_BUILD_FAILED)
                fprintf(stderr, "build log:\n%s\n",
                        clg_context_build_log(ctx));
            rc = clg_cli_exit_for_status(st);
            goto cleanup;
        }
        if (r == 0)
            first_ms = ms;
        else if (r == 1 || ms < best_ms)
            best_ms = ms;
    }

    printf("output: %s %s\n", clg_dtype_name(out.dtype),
           clg_io_format_shape(text, sizeof text, out.shape, out.rank));
    printf("device: %s\n", clg_context_device_name(ctx));
    if (repeat > 0)
        printf("time: %.3f ms (first call), %.3f ms (best of %lld more)\n",
               first_ms, best_ms, (long long)repeat);
    else
        printf("time: %.3f ms\n", first_ms);
    fflush(stdout);

    if (output_path != NULL &&
        clg_io_write_tensor_file(output_path, &ov, data.string_width, &err) !=
            CLG_IO_OK) {
        fprintf(stderr, "clgather run: %s\n", err.message);
        rc = CLG_EXIT_ERROR;
        goto cleanup;
    }

    if (check) {
        if (clg_io_tensor_alloc(&ref, data.dtype, rank, shape, "reference",
                                &err) != CLG_IO_OK) {
            fprintf(stderr, "clgather run: %s\n", err.message);
            rc = CLG_EXIT_ERROR;
            goto cleanup;
        }
        rv = clg_io_tensor_view(&ref);
        st = elements ? clg_reference_gather_elements(ctx, &dv, &iv, axis, &rv)
                      : clg_reference_gather(ctx, &dv, &iv, axis, &rv);
        if (st != CLG_STATUS_OK) {
            printf("device != reference: the device accepted the input, the "
                   "CPU reference rejected it: %s\n",
                   clg_cli_describe(msg, sizeof msg, ctx, st));
            rc = CLG_EXIT_DIFFER;
        } else if (clg_io_compare(&rv, &ov, msg, sizeof msg, NULL)) {
            printf("device == reference\n");
        } else {
            /* "expected" is the reference, "got" the device. */
            printf("device != reference: %s\n", msg);
            rc = CLG_EXIT_DIFFER;
        }
    }

cleanup:
    fflush(stdout);
    clg_context_destroy(ctx);
    clg_io_tensor_free(&data);
    clg_io_tensor_free(&indices);
    clg_io_tensor_free(&out);
    clg_io_tensor_free(&ref);
    return rc;
}
