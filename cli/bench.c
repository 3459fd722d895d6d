/* Placeholder for `clgather bench`, to be replaced by the benchmark. */
#include "bench.h"

#include <stdio.h>

int clg_cli_bench(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "bench: not built yet\n");
    return 3;
}
