/*
 * clgather: run the ONNX operators Gather and GatherElements on OpenCL
 * devices from the command line, and check the results against ONNX's
 * expected outputs and the library's CPU reference.
 *
 *   clgather devices
 *   clgather onnx-test [--device SPEC] [--reference] DIR...
 *   clgather run (gather|gather-elements) --data FILE --indices FILE ...
 *   clgather compare [--device SPEC]... (DIR... | --data FILE ...)
 *   clgather bench ...
 *   clgather cache [--dir DIR] [--clear]
 *
 * Exit statuses (a contract): 0 success; 1 an output differed; 2 the
 * operator rejected its input; 3 usage, file or environment problems.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include <clgather/clgather.h>

#include "bench.h"
#include "cli.h"

static void usage(FILE *out)
{
    fprintf(out,
            "Usage: clgather COMMAND [OPTIONS]\n"
            "Run the ONNX operators Gather and GatherElements on OpenCL "
            "devices.\n"
            "\n"
            "Commands:\n"
            "  devices      list every OpenCL platform and device\n"
            "  onnx-test    run ONNX backend node tests (model.onnx and "
            "test_data_set_*)\n"
            "  run          run one operator on .npy or ONNX .pb tensors\n"
            "  compare      run node tests or tensor files on several "
            "devices and compare\n"
            "               each with the CPU reference\n"
            "  bench        measure bandwidth\n"
            "  tune         search the device parameters and print the best "
            "entry\n"
            "  cache        show or clear the persistent program cache\n"
            "\n"
            "Options:\n"
            "  -h, --help     show this help (COMMAND --help for a "
            "command's)\n"
            "  -V, --version  show the tool and library versions\n"
            "\n"
            "Device SPEC (--device): gpu, cpu, accelerator, P:D (indices from "
            "`clgather devices`),\n"
            "or part of a platform or device name; default: $CLGATHER_DEVICE, "
            "else the first GPU,\n"
            "else the first device.\n"
            "\n"
            "Exit status: 0 success, 1 an output differed, 2 the operator "
            "rejected its input,\n"
            "3 usage, file or environment problems.\n");
}

int main(int argc, char **argv)
{
    static const struct option options[] = {{"help", no_argument, NULL, 'h'},
                                            {"version", no_argument, NULL,
                                             'V'},
                                            {NULL, 0, NULL, 0}};
    const char *command;
    int c;

    /* '+': stop at the command name; its options are its own. */
    opterr = 0;
    while ((c = getopt_long(argc, argv, "+hV", options, NULL)) != -1) {
        switch (c) {
        case 'h':
            usage(stdout);
            return CLG_EXIT_OK;
        case 'V':
            printf("clgather %s (library %s)\n", CLG_VERSION_STRING,
                   clg_version_string());
            if (clg_version() != CLG_VERSION_NUMBER)
                fprintf(stderr,
                        "clgather: warning: built against library %s but "
                        "running with %s\n",
                        CLG_VERSION_STRING, clg_version_string());
            return CLG_EXIT_OK;
        default:
            fprintf(stderr, "clgather: unknown option '%s'\n",
                    argv[optind - 1]);
            usage(stderr);
            return CLG_EXIT_ERROR;
        }
    }
    if (optind >= argc) {
        usage(stderr);
        return CLG_EXIT_ERROR;
    }
    command = argv[optind];
    argc -= optind;
    argv += optind;
    clg_cli_reset_getopt();
    opterr = 1;
    /* getopt names argv[0] in its messages: "clgather bench: ...", as the
     * commands' own messages do. */
    static char name[64];
    snprintf(name, sizeof name, "clgather %s", command);
    argv[0] = name;

    if (strcmp(command, "devices") == 0)
        return clg_cli_devices(argc, argv);
    if (strcmp(command, "onnx-test") == 0)
        return clg_cli_onnx_test(argc, argv);
    if (strcmp(command, "run") == 0)
        return clg_cli_run(argc, argv);
    if (strcmp(command, "compare") == 0)
        return clg_cli_compare(argc, argv);
    if (strcmp(command, "bench") == 0)
        return clg_cli_bench(argc, argv);
    if (strcmp(command, "tune") == 0)
        return clg_cli_tune(argc, argv);
    if (strcmp(command, "cache") == 0)
        return clg_cli_cache(argc, argv);
    if (strcmp(command, "help") == 0) {
        usage(stdout);
        return CLG_EXIT_OK;
    }
    fprintf(stderr, "clgather: unknown command '%s'\n", command);
    usage(stderr);
    return CLG_EXIT_ERROR;
}
