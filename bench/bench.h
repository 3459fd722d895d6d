/*
 * The commands `clgather bench ...` and `clgather tune ...`. The tool's
 * command table (cli/main.c) calls them with the arguments from the
 * command's name on (argv[0] is "clgather bench" or "clgather tune"), and
 * exits with their return value, following the tool's exit statuses
 * (docs/cli.md).
 */
#ifndef CLG_CLI_BENCH_H
#define CLG_CLI_BENCH_H

#ifdef __cplusplus
extern "C" {
#endif

int clg_cli_bench(int argc, char **argv);
int clg_cli_tune(int argc, char **argv);

#ifdef __cplusplus
}
#endif

#endif /* CLG_CLI_BENCH_H */
