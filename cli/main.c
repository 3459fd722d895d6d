/* SPDX-License-Identifier: Apache-2.0 */
/*
 * clgather: run the ONNX operators Gather, GatherElements and GatherND on OpenCL
 * devices from the command line, and check the results against ONNX's
 * expected outputs and the library's CPU reference.
 *
 * One command table below; each command is one file (cmd_*.c here, bench
 * and tune in bench/). docs/cli.md describes every command.
 *
 * Exit statuses (a contract, docs/cli.md "Exit status"): 0 success; 1 an
 * output differed; 2 the operator rejected its input; 3 usage, file or
 * configuration problems; 4 the OpenCL runtime or device failed.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include <clgather/clgather.h>

#include "cli.h"

/* The command table (cli.h, CLG_CLI_COMMANDS): the usage text is printed
 * from it and commands are found in it. */
static const struct command {
    const char *name;
    const char *summary; /* one line */
    int (*run)(int argc, char **argv);
} commands[] = {
#define CLG_CLI_ROW_(name, function, summary) {name, summary, function},
    CLG_CLI_COMMANDS(CLG_CLI_ROW_)
#undef CLG_CLI_ROW_
};
#define COMMAND_COUNT (sizeof commands / sizeof commands[0])

static void usage(FILE *out)
{
    fprintf(out, "Usage: clgather COMMAND [OPTIONS]\n"
                 "Run the ONNX operators Gather, GatherElements and GatherND "
                 "on OpenCL devices.\n"
                 "\n"
                 "Commands:\n");
    for (size_t i = 0; i < COMMAND_COUNT; i++)
        fprintf(out, "  %-11s  %s\n", commands[i].name, commands[i].summary);
    fprintf(out,
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
            "rejected its input,\n" CLG_CLI_EXIT_HELP);
}

/* A command's exit status once its standard output is flushed: a report
 * or JSON document lost to a full disk or a closed file is a failure
 * (status 3), not a success with nothing written. */
static int flushed(const char *command, int rc)
{
    int e = fflush(stdout) != 0 ? errno : 0;
    if (e == 0 && !ferror(stdout))
        return rc;
    fprintf(stderr, "clgather %s: standard output: write error: %s\n", command,
            e != 0 ? strerror(e) : "an earlier write failed");
    return CLG_EXIT_ERROR;
}

int main(int argc, char **argv)
{
    static const struct option options[] = {{"help", no_argument, NULL, 'h'},
                                            {"version", no_argument, NULL,
                                             'V'},
                                            {NULL, 0, NULL, 0}};
    const char *command;
    int c;

    clg_cli_protect_writes();
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
            fprintf(stderr, "Try 'clgather --help'.\n");
            return CLG_EXIT_ERROR;
        }
    }
    if (optind >= argc) {
        fprintf(stderr, "clgather: no command given\n"
                        "Try 'clgather --help'.\n");
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

    for (size_t i = 0; i < COMMAND_COUNT; i++)
        if (strcmp(command, commands[i].name) == 0)
            return flushed(command, commands[i].run(argc, argv));
    if (strcmp(command, "help") == 0) {
        usage(stdout);
        return CLG_EXIT_OK;
    }
    fprintf(stderr, "clgather: unknown command '%s'\n", command);
    fprintf(stderr, "Try 'clgather --help'.\n");
    return CLG_EXIT_ERROR;
}
