/*
 * clgather onnx-test: runs ONNX backend node-test directories
 * (model.onnx + test_data_set_N/input_N.pb, output_0.pb) through the
 * device and the CPU reference, one PASS / FAIL / ERROR line per data set.
 */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <clgather/clgather.h>

#include "cli.h"
#include "compare.h"
#include "io_tensor.h"
#include "onnx_io.h"

#define PATH_CAP 4096
#define LINE_CAP 2048

typedef struct options {
    const char *device;
    int reference_only;
    int verbose;
} options;

typedef struct totals {
    size_t passed, failed, errors;
} totals;

static void usage(FILE *out)
{
    fprintf(out,
            "Usage: clgather onnx-test [--device SPEC] [--reference] DIR...\n"
            "Run ONNX backend node tests: each DIR holds model.onnx (one "
            "Gather or\n"
            "GatherElements node) and test_data_set_*/ with input_N.pb and "
            "output_0.pb.\n"
            "Each data set runs on the device and on the CPU reference; the "
            "device result\n"
            "must equal output_0.pb bit for bit (dtype and shape included) "
            "and the reference.\n"
            "\n"
            "  -d, --device SPEC  OpenCL device (see clgather --help)\n"
            "  -r, --reference    run the CPU reference alone (no device)\n"
            "  -v, --verbose      describe each model on stderr\n"
            "  -h, --help         show this help\n"
            "\n"
            "Prints one line per data set on stdout:\n"
            "  PASS DIR/SET   FAIL DIR/SET: <first difference>   ERROR "
            "DIR/SET: <message>\n"
            "Exit status: 0 all passed, 1 an output differed, 2 the operator "
            "rejected its\n"
            "input, 3 usage, file or environment problems (the highest "
            "applies).\n");
}

static int worst(int a, int b)
{
    return a > b ? a : b;
}

static int is_directory(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0 && S_ISDIR(sb.st_mode);
}

static int file_exists(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0;
}

/* snprintf into a path buffer of cap bytes; 0, or -1 when the path would
 * not fit: a path cut short can name another file, so it is an error,
 * never a truncation. */
static int format_path(char *buf, size_t cap, const char *fmt, ...)
    CLG_IO_PRINTF(3, 4);

static int format_path(char *buf, size_t cap, const char *fmt, ...)
{
    va_list ap;
    int n;
    va_start(ap, fmt);
    n = vsnprintf(buf, cap, fmt, ap);
    va_end(ap);
    return n >= 0 && (size_t)n < cap ? 0 : -1;
}

/* test_data_set_<n>: numeric order, then by name. */
static int compare_sets(const void *pa, const void *pb)
{
    const char *a = *(const char *const *)pa;
    const char *b = *(const char *const *)pb;
    const char *prefix = "test_data_set_";
    size_t n = strlen(prefix);
    long na = strtol(a + n, NULL, 10);
    long nb = strtol(b + n, NULL, 10);
    if (na != nb)
        return na < nb ? -1 : 1;
    return strcmp(a, b);
}

/* Lists the test_data_set_* folders of dir into a sorted, malloc'd array
 * of malloc'd names. Returns 0, or -1 with errno set. */
static int list_sets(const char *dir, char ***names, size_t *count)
{
    DIR *d = NULL;
    struct dirent *e;
    char **list = NULL;
    size_t n = 0, cap = 0;
    char path[PATH_CAP];
    int rc = -1;

    *names = NULL;
    *count = 0;
    d = opendir(dir);
    if (d == NULL)
        return -1;
    while ((e = readdir(d)) != NULL) {
        if (strncmp(e->d_name, "test_data_set_", 14) != 0)
            continue;
        if (format_path(path, sizeof path, "%s/%s", dir, e->d_name) != 0) {
            errno = ENAMETOOLONG;
            goto cleanup;
        }
        if (!is_directory(path))
            continue;
        if (n == cap) {
            size_t ncap = cap ? cap * 2 : 8;
            char **nl = realloc(list, ncap * sizeof *nl);
            if (nl == NULL)
                goto cleanup;
            list = nl;
            cap = ncap;
        }
        list[n] = strdup(e->d_name);
        if (list[n] == NULL)
            goto cleanup;
        n++;
    }
    if (n > 1)
        qsort(list, n, sizeof *list, compare_sets);
    *names = list;
    *count = n;
    list = NULL;
    n = 0;
    rc = 0;

cleanup:
    for (size_t i = 0; i < n; i++)
        free(list[i]);
    free(list);
    if (d != NULL)
        closedir(d);
    return rc;
}

static clg_status output_shape(const clg_onnx_model *m, const clg_tensor *d,
                               const clg_tensor *i, int64_t *shape,
                               size_t *rank)
{
    if (m->op == CLG_ONNX_OP_GATHER)
        return clg_gather_output_shape(d, i, m->axis, shape, CLG_MAX_RANK,
                                       rank);
    return clg_gather_elements_output_shape(d, i, m->axis, shape, CLG_MAX_RANK,
                                            rank);
}

static clg_status run_device(clg_context *ctx, const clg_onnx_model *m,
                             const clg_tensor *d, const clg_tensor *i,
                             const clg_tensor *out)
{
    if (m->op == CLG_ONNX_OP_GATHER)
        return clg_gather(ctx, d, i, m->axis, out);
    return clg_gather_elements(ctx, d, i, m->axis, out);
}

static clg_status run_reference(clg_context *ctx, const clg_onnx_model *m,
                                const clg_tensor *d, const clg_tensor *i,
                                const clg_tensor *out)
{
    if (m->op == CLG_ONNX_OP_GATHER)
        return clg_reference_gather(ctx, d, i, m->axis, out);
    return clg_reference_gather_elements(ctx, d, i, m->axis, out);
}

/* One data set while it runs: its tensors, and the line it prints,
 * "<verdict> <dir>/<set>[: <msg>]". */
typedef struct data_set {
    clg_io_tensor *inputs; /* input_<k>.pb, m->input_count of them */
    clg_io_tensor expected, dev_out, ref_out;
    int have_expected; /* output_0.pb was there */
    clg_tensor data, indices, dv, rv, ev;
    const char *verdict; /* "ERROR" unless a comparison says "FAIL" */
    char msg[LINE_CAP + 256];
} data_set;

/* The set's input_<k>.pb and, if present, its output_0.pb. */
static int read_set(const clg_onnx_model *m, const char *dir, const char *set,
                    data_set *ds)
{
    clg_io_error err;
    char path[PATH_CAP];

    ds->inputs = calloc(m->input_count > 0 ? m->input_count : 1,
                        sizeof *ds->inputs);
    if (ds->inputs == NULL) {
        snprintf(ds->msg, sizeof ds->msg, "out of memory");
        return CLG_EXIT_ERROR;
    }
    for (size_t k = 0; k < m->input_count; k++)
        clg_io_tensor_init(&ds->inputs[k]);
    for (size_t k = 0; k < m->input_count; k++) {
        if (format_path(path, sizeof path, "%s/%s/input_%zu.pb", dir, set,
                        k) != 0) {
            snprintf(ds->msg, sizeof ds->msg,
                     "the path of input_%zu.pb is too long (at most %d "
                     "bytes)",
                     k, PATH_CAP - 1);
            return CLG_EXIT_ERROR;
        }
        if (clg_onnx_read_tensor(path, &ds->inputs[k], &err) != CLG_IO_OK) {
            snprintf(ds->msg, sizeof ds->msg, "%s", err.message);
            return CLG_EXIT_ERROR;
        }
    }
    if (format_path(path, sizeof path, "%s/%s/output_0.pb", dir, set) != 0) {
        snprintf(ds->msg, sizeof ds->msg,
                 "the path of output_0.pb is too long (at most %d bytes)",
                 PATH_CAP - 1);
        return CLG_EXIT_ERROR;
    }
    if (!file_exists(path))
        return CLG_EXIT_OK;
    if (clg_onnx_read_tensor(path, &ds->expected, &err) != CLG_IO_OK) {
        snprintf(ds->msg, sizeof ds->msg, "%s", err.message);
        return CLG_EXIT_ERROR;
    }
    ds->have_expected = 1;
    return CLG_EXIT_OK;
}

/* The operands (graph inputs or initializers) and the two outputs. */
static int prepare_outputs(const clg_onnx_model *m, data_set *ds)
{
    clg_io_error err;
    int64_t shape[CLG_MAX_RANK];
    size_t rank = 0;
    char detail[LINE_CAP];
    clg_status st;

    ds->data = clg_io_tensor_view(m->data.input_index >= 0
                                      ? &ds->inputs[m->data.input_index]
                                      : &m->data.value);
    ds->indices = clg_io_tensor_view(m->indices.input_index >= 0
                                         ? &ds->inputs[m->indices.input_index]
                                         : &m->indices.value);
    st = output_shape(m, &ds->data, &ds->indices, shape, &rank);
    if (st != CLG_STATUS_OK) {
        snprintf(ds->msg, sizeof ds->msg, "%s",
                 clg_cli_describe(detail, sizeof detail, NULL, st));
        return clg_cli_exit_for_status(st);
    }
    if (clg_io_tensor_alloc(&ds->dev_out, ds->data.dtype, rank, shape,
                            "output", &err) != CLG_IO_OK ||
        clg_io_tensor_alloc(&ds->ref_out, ds->data.dtype, rank, shape,
                            "output", &err) != CLG_IO_OK) {
        snprintf(ds->msg, sizeof ds->msg, "%s", err.message);
        return CLG_EXIT_ERROR;
    }
    ds->dv = clg_io_tensor_view(&ds->dev_out);
    ds->rv = clg_io_tensor_view(&ds->ref_out);
    ds->ev = clg_io_tensor_view(&ds->expected);
    return CLG_EXIT_OK;
}

/* The device (unless --reference) and the CPU reference. A device that
 * rejects the input is an error, with whether the reference accepts it;
 * a reference that rejects what the device accepted is a failure. */
static int run_operators(clg_context *ctx, const options *opt,
                         const clg_onnx_model *m, data_set *ds)
{
    char detail[LINE_CAP];
    clg_status st;

    if (!opt->reference_only) {
        st = run_device(ctx, m, &ds->data, &ds->indices, &ds->dv);
        if (st != CLG_STATUS_OK) {
            clg_status rst;
            clg_cli_describe(detail, sizeof detail, ctx, st);
            if (st == CLG_STATUS_BUILD_FAILED)
                fprintf(stderr, "clgather: build log:\n%s\n",
                        clg_context_build_log(ctx));
            rst = run_reference(NULL, m, &ds->data, &ds->indices, &ds->rv);
            snprintf(ds->msg, sizeof ds->msg, "%s%s", detail,
                     rst == CLG_STATUS_OK
                         ? " (the CPU reference accepted this input)"
                         : "");
            return clg_cli_exit_for_status(st);
        }
    }
    st = run_reference(ctx, m, &ds->data, &ds->indices, &ds->rv);
    if (st == CLG_STATUS_OK)
        return CLG_EXIT_OK;
    clg_cli_describe(detail, sizeof detail, ctx, st);
    if (opt->reference_only) {
        snprintf(ds->msg, sizeof ds->msg, "%s", detail);
        return clg_cli_exit_for_status(st);
    }
    ds->verdict = "FAIL";
    snprintf(ds->msg, sizeof ds->msg,
             "the device accepted the input but the CPU reference "
             "rejected it: %s",
             detail);
    return CLG_EXIT_DIFFER;
}

/* The result against output_0.pb, and the device's against the
 * reference's; with --reference, the reference against output_0.pb. */
static int compare_outputs(const options *opt, data_set *ds)
{
    char detail[LINE_CAP];
    const clg_tensor *got = opt->reference_only ? &ds->rv : &ds->dv;

    ds->verdict = "FAIL";
    if (ds->have_expected &&
        !clg_io_compare(&ds->ev, got, detail, sizeof detail, NULL)) {
        snprintf(ds->msg, sizeof ds->msg, "%s", detail);
        return CLG_EXIT_DIFFER;
    }
    if (!opt->reference_only &&
        !clg_io_compare(&ds->rv, &ds->dv, detail, sizeof detail, NULL)) {
        /* "expected" is the reference here, "got" the device. */
        snprintf(ds->msg, sizeof ds->msg,
                 "device differs from the CPU reference: %s", detail);
        return CLG_EXIT_DIFFER;
    }
    ds->verdict = "PASS";
    return CLG_EXIT_OK;
}

/* Runs one data set; prints its line; returns its exit status. */
static int run_set(clg_context *ctx, const options *opt,
                   const clg_onnx_model *m, const char *dir, const char *set)
{
    data_set ds;
    int rc;

    memset(&ds, 0, sizeof ds);
    clg_io_tensor_init(&ds.expected);
    clg_io_tensor_init(&ds.dev_out);
    clg_io_tensor_init(&ds.ref_out);
    ds.verdict = "ERROR";
    rc = read_set(m, dir, set, &ds);
    if (rc == CLG_EXIT_OK)
        rc = prepare_outputs(m, &ds);
    if (rc == CLG_EXIT_OK)
        rc = run_operators(ctx, opt, m, &ds);
    if (rc == CLG_EXIT_OK)
        rc = compare_outputs(opt, &ds);
    if (rc == CLG_EXIT_OK)
        printf("PASS %s/%s%s\n", dir, set,
               ds.have_expected ? "" : " (no expected output)");
    else
        printf("%s %s/%s: %s\n", ds.verdict, dir, set, ds.msg);
    fflush(stdout);
    if (ds.inputs != NULL)
        for (size_t k = 0; k < m->input_count; k++)
            clg_io_tensor_free(&ds.inputs[k]);
    free(ds.inputs);
    clg_io_tensor_free(&ds.expected);
    clg_io_tensor_free(&ds.dev_out);
    clg_io_tensor_free(&ds.ref_out);
    return rc;
}

static void count(totals *t, int rc)
{
    if (rc == CLG_EXIT_OK)
        t->passed++;
    else if (rc == CLG_EXIT_DIFFER)
        t->failed++;
    else
        t->errors++;
}

/* Prints "ERROR <dir>: <what>" for the whole directory and counts it. */
static int dir_failed(totals *t, const char *dir, const char *what,
                      const char *detail)
{
    printf("ERROR %s: %s%s\n", dir, what, detail);
    t->errors++;
    return CLG_EXIT_ERROR;
}

/* The directory as given, less trailing slashes, into dir; -1 when arg
 * does not fit (cut short, it could name another directory). */
static int trim_dir(char *dir, size_t cap, const char *arg)
{
    size_t len;
    if (format_path(dir, cap, "%s", arg) != 0)
        return -1;
    len = strlen(dir);
    while (len > 1 && dir[len - 1] == '/')
        dir[--len] = '\0';
    return 0;
}

static int run_dir(clg_context *ctx, const options *opt, const char *arg,
                   totals *t)
{
    clg_onnx_model model;
    clg_io_error err;
    char **sets = NULL;
    size_t nsets = 0;
    char dir[PATH_CAP];
    char path[PATH_CAP + 64];
    int rc = CLG_EXIT_OK;

    clg_onnx_model_init(&model);
    if (trim_dir(dir, sizeof dir, arg) != 0) {
        snprintf(path, sizeof path, " (%zu bytes, at most %d)", strlen(arg),
                 PATH_CAP - 1);
        rc = dir_failed(t, arg, "path too long", path);
        goto cleanup;
    }
    snprintf(path, sizeof path, "%s/model.onnx", dir);
    if (!is_directory(dir))
        rc = dir_failed(t, dir,
                        file_exists(dir) ? "not a directory"
                                         : "no such directory",
                        "");
    else if (clg_onnx_read_model(path, &model, &err) != CLG_IO_OK)
        rc = dir_failed(t, dir, err.message, "");
    if (rc != CLG_EXIT_OK)
        goto cleanup;
    if (opt->verbose)
        fprintf(stderr,
                "clgather: %s: %s (opset %lld, operator version %d), axis "
                "%lld, %zu runtime input(s)\n",
                dir, model.op_type, (long long)model.opset, model.op_version,
                (long long)model.axis, model.input_count);
    if (list_sets(dir, &sets, &nsets) != 0)
        rc = dir_failed(t, dir, "cannot list data sets: ", strerror(errno));
    else if (nsets == 0)
        rc = dir_failed(t, dir, "no test_data_set_* directories", "");
    for (size_t s = 0; s < nsets; s++) {
        int r = run_set(ctx, opt, &model, dir, sets[s]);
        count(t, r);
        rc = worst(rc, r);
    }

cleanup:
    fflush(stdout);
    for (size_t s = 0; s < nsets; s++)
        free(sets[s]);
    free(sets);
    clg_onnx_model_free(&model);
    return rc;
}

/* Returns 0 to run, 1 after --help (printed), -1 on a usage error
 * (printed). */
static int parse_options(int argc, char **argv, options *opt)
{
    static const struct option long_options[] = {
        {"device", required_argument, NULL, 'd'},
        {"reference", no_argument, NULL, 'r'},
        {"verbose", no_argument, NULL, 'v'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0}};
    int c;

    while ((c = getopt_long(argc, argv, "d:rvh", long_options, NULL)) != -1) {
        switch (c) {
        case 'd':
            opt->device = optarg;
            break;
        case 'r':
            opt->reference_only = 1;
            break;
        case 'v':
            opt->verbose = 1;
            break;
        case 'h':
            usage(stdout);
            return 1;
        default:
            usage(stderr);
            return -1;
        }
    }
    if (optind >= argc) {
        fprintf(stderr, "clgather onnx-test: no test directory given\n");
        usage(stderr);
        return -1;
    }
    if (opt->reference_only && opt->device != NULL) {
        fprintf(stderr,
                "clgather onnx-test: --reference and --device exclude each "
                "other\n");
        return -1;
    }
    return 0;
}

int clg_cli_onnx_test(int argc, char **argv)
{
    options opt = {NULL, 0, 0};
    clg_context *ctx = NULL;
    totals t = {0, 0, 0};
    clg_status st;
    char msg[1200];
    int parsed, rc = CLG_EXIT_OK;

    parsed = parse_options(argc, argv, &opt);
    if (parsed != 0)
        return parsed > 0 ? CLG_EXIT_OK : CLG_EXIT_ERROR;
    if (!opt.reference_only) {
        st = clg_context_create(&ctx, opt.device);
        if (st != CLG_STATUS_OK) {
            fprintf(stderr, "clgather onnx-test: cannot use device %s: %s\n",
                    opt.device != NULL ? opt.device : "(default)",
                    clg_cli_describe(msg, sizeof msg, NULL, st));
            return CLG_EXIT_ERROR;
        }
        fprintf(stderr, "clgather onnx-test: device: %s\n",
                clg_context_device_name(ctx));
    } else {
        fprintf(stderr, "clgather onnx-test: CPU reference only\n");
    }
    for (int a = optind; a < argc; a++)
        rc = worst(rc, run_dir(ctx, &opt, argv[a], &t));
    fprintf(stderr, "clgather onnx-test: %zu passed, %zu failed, %zu errors\n",
            t.passed, t.failed, t.errors);
    clg_context_destroy(ctx);
    return rc;
}
