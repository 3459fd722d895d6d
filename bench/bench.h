/*
 * Hook for `clgather bench ...`. main.c calls clg_cli_bench with the
 * arguments from "bench" on (argv[0] is "bench"), and exits with its
 * return value, following the tool's exit statuses (0 success, 3 usage,
 * file or environment problems).
 */
#ifndef CLG_CLI_BENCH_H
#define CLG_CLI_BENCH_H

#ifdef __cplusplus
extern "C" {
#endif

int clg_cli_bench(int argc, char **argv);

#ifdef __cplusplus
}
#endif

#endif /* CLG_CLI_BENCH_H */
