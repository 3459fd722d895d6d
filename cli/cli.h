/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Internal to the `clgather` executable: its subcommands and the helpers
 * they share. The I/O helpers the benchmark can reuse live in
 * io_tensor.h, npy.h, onnx_io.h and compare.h (library clgather_io).
 */
#ifndef CLG_CLI_CLI_H
#define CLG_CLI_CLI_H

#include <stdint.h>

#include <clgather/clgather.h>

/* Exit statuses: a contract with the scripts that call the tool
 * (docs/cli.md, "Exit status"). */
enum {
    CLG_EXIT_OK = 0,       /* every data set passed / the command succeeded */
    CLG_EXIT_DIFFER = 1,   /* an output differed */
    CLG_EXIT_REJECTED = 2, /* the operator rejected its input */
    CLG_EXIT_ERROR = 3,    /* usage, file or configuration problem */
    CLG_EXIT_RUNTIME = 4   /* the OpenCL runtime or device failed: no
                              device, an OpenCL call or a kernel build
                              failed, memory ran out */
};

/* The end of every command's exit statuses in its --help, on lines of
 * their own after 0, 1 and 2. */
#define CLG_CLI_EXIT_HELP                                                     \
    "3 usage, file or configuration problems; 4 the OpenCL runtime or "       \
    "device\n"                                                                \
    "failed (no device, an OpenCL call or a kernel build failed, out of "     \
    "memory).\n"

/* The tool's commands, one row each: X(name, function, one-line summary).
 * main.c prints the usage from this table and finds commands in it;
 * adding a command is its file, one row here and its line in
 * cli/CMakeLists.txt (docs/design.md, "Layers"). Each function takes the
 * arguments from the command's name on and returns an exit status. */
#define CLG_CLI_COMMANDS(X)                                                   \
    X("devices", clg_cli_devices, "list every OpenCL platform and device")    \
    X("onnx-test", clg_cli_onnx_test,                                         \
      "run ONNX backend node tests (model.onnx and test_data_set_*)")         \
    X("run", clg_cli_run, "run one operator on .npy or ONNX .pb tensors")     \
    X("compare", clg_cli_compare,                                             \
      "compare devices with the CPU reference on node tests or tensor "       \
      "files")                                                                \
    X("bench", clg_cli_bench,                                                 \
      "measure bandwidth beside the device's copy kernel")                    \
    X("tune", clg_cli_tune,                                                   \
      "search the device parameters and print the best entry")                \
    X("cache", clg_cli_cache,                                                 \
      "show, clear or fill the persistent program cache")

#define CLG_CLI_DECLARE_(name, function, summary)                             \
    int function(int argc, char **argv);
CLG_CLI_COMMANDS(CLG_CLI_DECLARE_)
#undef CLG_CLI_DECLARE_

/* Exit status for a failed library call: CLG_EXIT_REJECTED when the
 * operator rejected its input (index, axis, rank, shape, dtype, size),
 * CLG_EXIT_DIFFER when validation (CLGATHER_VALIDATE=1) found the
 * device's result differing from the reference (DEVICE_MISMATCH),
 * CLG_EXIT_RUNTIME when the runtime or device failed (no device,
 * OpenCL, build, memory, pending limit), else CLG_EXIT_ERROR. */
int clg_cli_exit_for_status(clg_status status);

/* A usage error's second line, "Try 'clgather CMD --help'." on stderr
 * (the first, printed before, names the problem). Returns
 * CLG_EXIT_ERROR. */
int clg_cli_try_help(const char *cmd);

/* What to do when no OpenCL device is found at all. */
#define CLG_CLI_NO_DEVICE_HINT                                                \
    "install an OpenCL runtime (on a CPU, the package pocl-opencl-icd) or "   \
    "set OCL_ICD_VENDORS to the folder that holds its .icd file"

/* A context on the device `spec` chooses (NULL: the default) into *ctx.
 * On failure prints "clgather CMD: ..." (clg_cli_fail) naming where the
 * spec came from (--device, CLGATHER_DEVICE or the default), the
 * library's message and what to do (the package and OCL_ICD_VENDORS when
 * no device exists at all; `clgather devices` otherwise), and returns
 * CLG_EXIT_ERROR for a malformed spec, else CLG_EXIT_RUNTIME; on success
 * CLG_EXIT_OK. */
int clg_cli_open_device(const char *cmd, const char *spec, clg_context **ctx);

/* The device of ctx as the tool names it on every device line: "NAME on
 * PLATFORM DRIVER_VERSION", the runtime named beside the device (a CPU's
 * name is the same under POCL and Intel's runtime), e.g.
 * "pthread-skylake-avx512-AMD EPYC on Portable Computing Language
 * 3.1+debian"; into buf (size cap), which it returns. */
const char *clg_cli_device_line(char *buf, size_t cap, const clg_context *ctx);

/* Before a context is created: a bad CLGATHER_* value is an environment
 * problem named by the library (clg_environment_check), not a device
 * one. Prints "clgather CMD: INVALID_ARGUMENT: CLGATHER_...=..." and
 * returns CLG_EXIT_ERROR; else CLG_EXIT_OK. */
int clg_cli_check_env(const char *cmd);

/* "CPU", "GPU", "ACCELERATOR" or "OTHER". */
const char *clg_cli_device_type_name(clg_device_type t);

/* The device parameters the library uses on ctx (its row of the table,
 * with CLGATHER_PARAMS applied): every field of the library's table, by
 * name, formatted "wg=...,small=..." into buf (size cap, 256 bytes
 * hold today's fields; clg_context_format_params). A malformed CLGATHER_PARAMS is an environment problem like
 * the other variables': prints the library's message after "clgather
 * CMD: " and returns CLG_EXIT_ERROR; else CLG_EXIT_OK. */
int clg_cli_params(clg_context *ctx, const char *cmd, char *buf, size_t cap);

/* For the commands that test the device (compare, onnx-test): every call
 * on ctx launches, tiny ones too (the `host` parameter 0). Prints the
 * library's message and returns CLG_EXIT_ERROR when it cannot be set
 * (a malformed CLGATHER_PARAMS); else CLG_EXIT_OK. */
int clg_cli_device_only(clg_context *ctx, const char *cmd);

/* "STATUS_NAME: message" of a failed call into buf: the context's last
 * error (ctx NULL: the thread's), else the status's generic message. */
const char *clg_cli_describe(char *buf, size_t cap, const clg_context *ctx,
                             clg_status status);

/* Parses --oob's value (raise, wrap, clip, fill) into *mode; on another
 * prints "clgather CMD: --oob 'X' is not raise, wrap, clip or fill" and
 * returns -1, else 0. */
int clg_cli_parse_oob(const char *cmd, const char *text, clg_oob_mode *mode);

/* The tool's words for the operators of CLG_OP_TABLE (clg_op_word),
 * "gather, gather-elements or gather-nd", into buf (size cap). */
void clg_cli_op_words(char *buf, size_t cap);

/* Parses an operator as the tool names it: its word ("gather-elements")
 * or its C name ("gather_elements"), into *op; -1 for any other text
 * (an ONNX op_type included), else 0. Prints nothing. */
int clg_cli_parse_op(const char *text, clg_op *op);

/* The operator's attribute is given by the option named after it
 * (clg_op_attribute: --axis, --batch-dims): -1 (printed, `cmd` naming the
 * command) when the other one was given (`axis_given`, `batch_given`),
 * else 0. */
int clg_cli_check_attribute(const char *cmd, clg_op op, int axis_given,
                            int batch_given);

/* --oob in a command's usage. */
#define CLG_CLI_OOB_USAGE                                                     \
    "  --oob MODE         out-of-range indices: raise (default, an error), "  \
    "wrap,\n"                                                                 \
    "                     clip or fill (zeros); see docs/cli.md\n"

/* Makes getopt_long start afresh on a subcommand's argv. */
void clg_cli_reset_getopt(void);

/* Parses a whole decimal int64 ("-1", "3"); 0 on success, -1 otherwise. */
int clg_cli_parse_int64(const char *text, int64_t *value);

/* Monotonic clock in seconds. */
double clg_cli_now(void);

/* Largest --repeat of run and compare. */
#define CLG_CLI_REPEAT_MAX 1000

/* --repeat's value: a count from 1 to max, into *value. On a bad one
 * prints "clgather CMD: --repeat 'TEXT' is not a count from 1 to MAX"
 * and returns -1; else 0. */
int clg_cli_parse_repeat(const char *cmd, const char *text, int64_t max,
                         int64_t *value);

/* An option that takes one value, met again: prints "clgather CMD:
 * OPTION given twice" and returns -1; else marks *seen and returns 0. */
int clg_cli_once(const char *cmd, const char *option, int *seen);

/* Prints "clgather CMD: MESSAGE" on stderr and keeps MESSAGE for
 * clg_cli_failure (the "error" of a --json document). */
void clg_cli_fail(const char *cmd, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* The last message of clg_cli_fail, or NULL when none. */
const char *clg_cli_failure(void);

/* Interrupt safety (docs/cli.md, "Files"): handlers for SIGINT, SIGTERM
 * and SIGHUP (those not ignored) that remove the temporary file of a
 * write in progress, then end the process by the same signal; and, when
 * CLGATHER_TEST_WRITE_PAUSE=SECONDS is set, a pause of that long in
 * every file write once its temporary file is full (a test's hook). */
void clg_cli_protect_writes(void);

/* JSON documents of --json (docs/cli.md, "JSON output"). */
#define CLG_CLI_JSON_VERSION 2
struct clg_json;
/* The members of a device object that name the runtime, after
 * "name", "vendor" and "version": "platform" (its name),
 * "platform_version" and "driver_version". */
void clg_cli_json_runtime(struct clg_json *j, const clg_context *ctx);
/* Opens the document's object on j (initialised by the caller) with the
 * members every document begins with: {"schema": {"name": "clgather-CMD",
 * "version": CLG_CLI_JSON_VERSION}, "schema_version", "command": CMD,
 * "tool_version", "library_version", "time" (ISO 8601, UTC), ... */
void clg_cli_json_head(struct clg_json *j, const char *cmd);
/* clg_json_init on stdout, then clg_cli_json_head. */
void clg_cli_json_begin(struct clg_json *j, const char *cmd);
/* ... "error": clg_cli_failure() or null, "exit_status": RC} */
void clg_cli_json_end(struct clg_json *j, int rc);

#endif /* CLG_CLI_CLI_H */
