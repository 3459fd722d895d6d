/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Test harness for the `clgather` tool: runs the built executable with
 * captured stdout/stderr, manages a temporary directory, and builds ONNX
 * node-test directories (model.onnx built with protobuf-c, input_N.pb,
 * output_0.pb) so the tests do not depend on outside data.
 * Shared by tests/cli and tests/conformance.
 */
#ifndef CLG_TEST_CLI_HARNESS_H
#define CLG_TEST_CLI_HARNESS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <clgather/clgather.h>

/* Path of the built executable (a compile definition). */
#ifndef CLG_CLI_EXE
#error "CLG_CLI_EXE must name the clgather executable"
#endif

typedef struct cli_result {
    int status; /* exit status, or -1 when it did not exit normally */
    char *out;  /* stdout, NUL-terminated */
    char *err;  /* stderr, NUL-terminated */
} cli_result;

/* Runs CLG_CLI_EXE with the NULL-terminated args (not counting argv[0]).
 * Returns 0 when the program ran (whatever its status), -1 otherwise. */
int cli_run(cli_result *r, const char *const *args);

/* cli_run with the environment variable `name` set to `value` (NULL:
 * unset) for that run only (as it was before again after it, unset or
 * set, whatever happened). */
int cli_run_env(cli_result *r, const char *name, const char *value,
                const char *const *args);

/* Starts CLG_CLI_EXE with args and the environment variable `name` set
 * to `value` for it alone (as it was before again after the start), its
 * stdout and stderr on /dev/null, without waiting: its process id, or
 * -1. */
pid_t cli_start_env(const char *name, const char *value,
                    const char *const *args);

/* Waits for a process cli_start_env started: its wait status (as
 * waitpid gives it), or -1. */
int cli_wait(pid_t pid);

/* Resource limits for cli_run_limited; 0 leaves one unset. */
typedef struct cli_limits {
    uint64_t address_space; /* RLIMIT_AS, bytes: large allocations fail
                               (under AddressSanitizer, which needs more
                               address space than that to start, ASan's
                               max_allocation_size_mb instead) */
    uint64_t file_size;     /* RLIMIT_FSIZE, bytes, with SIGXFSZ ignored:
                               a write past it fails with EFBIG, as on a
                               full disk */
} cli_limits;

/* cli_run with the limits set in the child alone. Its stdout and stderr
 * are pipes, which RLIMIT_FSIZE does not cover. */
int cli_run_limited(cli_result *r, const char *const *args,
                    const cli_limits *limits);
void cli_result_free(cli_result *r);
/* Prints a result to stderr (for failing assertions). */
void cli_result_dump(const cli_result *r);
/* cli_run, asserting that the program ran and exited with `status`
 * (the result dumped first when it did not). */
void cli_expect_run(cli_result *r, int status, const char *const *args);

/* 1 when some OpenCL device exists (clg_devices_list finds one). */
int cli_have_device(void);

/* The device `spec` selects (NULL: the default) and the runtime that
 * drives it, as OpenCL itself answers (clGetDeviceInfo and
 * clGetPlatformInfo on the context's device), for the tool's device
 * lines; fails the running test when no context can be made. */
typedef struct cli_runtime {
    char name[256];             /* CL_DEVICE_NAME */
    char platform[256];         /* CL_PLATFORM_NAME */
    char platform_version[256]; /* CL_PLATFORM_VERSION */
    char driver[256];           /* CL_DRIVER_VERSION */
    char line[1024];            /* "NAME on PLATFORM DRIVER", as printed */
} cli_runtime;
void cli_device_runtime(const char *spec, cli_runtime *rt);

/* The temporary directory of the running group (CLI_RUN_TESTS). */
extern char *cli_root;

/* Runs a cmocka group whose tests share cli_root, a fresh directory made
 * (from `prefix`) before the first test and removed after the last.
 * Without an OpenCL device, says so and returns 77 (ctest's skip). */
struct CMUnitTest;
int cli_run_tests(const char *prefix, const char *name,
                  const struct CMUnitTest *tests, size_t count);
#define CLI_RUN_TESTS(prefix, tests)                                          \
    cli_run_tests((prefix), #tests, (tests),                                  \
                  sizeof(tests) / sizeof((tests)[0]))

/* Creates a fresh directory under $TMPDIR (or /tmp); returns a malloc'd
 * path, or NULL. */
char *cli_tempdir(const char *prefix);
/* A file's whole contents, NUL-terminated (malloc'd), or NULL. */
char *cli_read_text(const char *path);
/* A file's bytes (malloc'd) and their count in *size; fails the running
 * test (with the I/O library's message) when it cannot be read. */
unsigned char *cli_read_bytes(const char *path, size_t *size);
/* Removes a directory tree. */
void cli_rmtree(const char *path);
/* mkdir -p for one level under an existing parent; 0 on success. */
int cli_mkdir(const char *path);
/* Writes bytes to a file; 0 on success. */
int cli_write_bytes(const char *path, const void *bytes, size_t size);
/* Keeps only the first `size` bytes of a file; 0 on success. */
int cli_truncate(const char *path, size_t size);
/* Size of a file, or -1. */
long cli_file_size(const char *path);
/* Joins path parts into a static-free malloc'd string. */
char *cli_path(const char *a, const char *b);
/* cli_path(cli_root, name), asserted non-NULL. */
char *cli_tmp(const char *name);
/* The number of names in folder `dir` besides "." and ".." (the
 * folder asserted readable). */
int cli_count_entries(const char *dir);
/* cli_tmp(name), made a directory (asserted). */
char *cli_subdir(const char *name);

/* A single-node model for model.onnx. */
typedef struct cli_model {
    const char *op_type; /* "Gather", "GatherElements", "Relu", ... */
    int64_t opset;       /* default-domain opset_import version */
    int has_axis;
    int64_t axis;
    int node_count;             /* 1, or 2 for an invalid two-node model */
    const char *second_op_type; /* node 1's op_type (NULL: op_type) */
    clg_dtype data_dtype;       /* declared input types */
    clg_dtype indices_dtype;
    /* When data_rank_declared > 0, data's declared shape: its dims, -1
     * for a dim_param ("n"). Else data declares no shape. */
    size_t data_rank_declared;
    const int64_t *data_shape_declared;
    /* When set, the indices come from this initializer, not input_1.pb. */
    const clg_tensor *indices_initializer;
    /* With an initializer: also list it among the graph inputs (as older
     * ONNX IR versions do). */
    int initializer_listed_as_input;
} cli_model;

/* A model of one Gather node, default-domain opset 13, with attribute
 * `axis`, FLOAT data and INT64 indices (both graph inputs). */
cli_model cli_gather_model(int64_t axis);

/* Writes dir/model.onnx for the model. 0 on success. */
int cli_write_model(const char *dir, const cli_model *m);

/* Writes a TensorProto file. 0 on success. */
int cli_write_tensor(const char *path, const clg_tensor *t);

/* Makes the node-test directory dir (its parent existing) with
 * dir/model.onnx for m and dir/test_data_set_0/ holding input_0.pb,
 * input_1.pb and output_0.pb from data, indices and output; a NULL
 * tensor's file is left out. Fails the running test when one cannot be
 * made. */
void cli_write_node_test(const char *dir, const cli_model *m,
                         const clg_tensor *data, const clg_tensor *indices,
                         const clg_tensor *output);

/* Writes a .npy file of the tensor; fails the running test (with the I/O
 * library's message) when it cannot. */
void cli_write_npy(const char *path, clg_dtype dtype, size_t rank,
                   const int64_t *shape, const void *data);

/* Convenience tensors. */
clg_tensor cli_tensor(clg_dtype dtype, size_t rank, const int64_t *shape,
                      const void *data);

/* 1 when `text` contains line `line` exactly (a full line). */
int cli_has_line(const char *text, const char *line);
/* 1 when `text` has a line starting with `prefix`. */
int cli_has_line_prefix(const char *text, const char *prefix);

#endif /* CLG_TEST_CLI_HARNESS_H */
