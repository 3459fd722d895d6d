/* SPDX-License-Identifier: Apache-2.0 */
/* ONNX node-test directories and the operator call. See node_test.h. */
#include "node_test.h"

#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"

/* The library's description of the call. */
static clg_call as_call(const clg_cli_call *call)
{
    clg_call c = {.size = sizeof c, .op = call->op};
    c.options.oob = call->oob;
    clg_call_set_attribute(&c, call->axis); /* op is one of the table's */
    return c;
}

clg_status clg_cli_call_output_shape(const clg_cli_call *call, int64_t *shape,
                                     size_t *rank)
{
    clg_call c = as_call(call);
    return clg_output_shape(&c, &call->data, &call->indices, shape,
                            CLG_MAX_RANK, rank);
}

/* The call with data's dimensions that no index addresses set to 1, its
 * data shape in data_shape: the same index values and the same sizes of
 * the dims they address, an output of as many elements as the indices
 * (Gather: every dim but the axis; GatherND: those after the b batch dims
 * and the k components a tuple addresses). Data is the same memory: a
 * non-empty data holds at least the reduced shape's elements; an empty
 * one with an output to fill has an addressed dim of size 0, and so has
 * the reduced data. */
static clg_cli_call reduced_call(const clg_cli_call *call, int64_t *data_shape)
{
    clg_cli_call r = *call;
    size_t first = 0, end = 0;
    if (call->op == CLG_OP_GATHER_ND) {
        /* Validated: batch_dims b and k = the last index dim fit data. */
        end = (size_t)call->axis +
              (size_t)call->indices.shape[call->indices.rank - 1];
    } else {
        first = (size_t)(call->axis < 0 ? call->axis + (int64_t)call->data.rank
                                        : call->axis);
        end = first + 1;
    }
    for (size_t d = 0; d < call->data.rank; d++)
        data_shape[d] = d >= first && d < end ? call->data.shape[d] : 1;
    r.data.shape = data_shape;
    return r;
}

clg_status clg_cli_call_prepare(clg_cli_call *call, int64_t *data_shape,
                                int64_t *shape, size_t *rank)
{
    int64_t out_count = 0, index_count = 0, probe_shape[CLG_MAX_RANK];
    size_t probe_rank = 0;
    clg_io_tensor out;
    clg_tensor view;
    clg_cli_call probe;
    clg_status st = clg_cli_call_output_shape(call, shape, rank);

    /* Validated: both counts fit. Only an output larger than the indices
     * (Gather's) is probed. */
    if (st != CLG_STATUS_OK ||
        clg_shape_count(shape, *rank, &out_count) != CLG_STATUS_OK ||
        clg_shape_count(call->indices.shape, call->indices.rank,
                        &index_count) != CLG_STATUS_OK ||
        out_count <= index_count)
        return st;
    probe = reduced_call(call, data_shape);
    clg_io_tensor_init(&out);
    if (clg_cli_call_output_shape(&probe, probe_shape, &probe_rank) !=
            CLG_STATUS_OK ||
        clg_io_tensor_alloc(&out, probe.data.dtype, probe_rank, probe_shape,
                            "output", NULL) != CLG_IO_OK)
        return st; /* the full call reports what is wrong */
    view = clg_io_tensor_view(&out);
    if (clg_cli_call_reference(NULL, &probe, &view) ==
        CLG_STATUS_INDEX_OUT_OF_RANGE) {
        *call = probe;
        memcpy(shape, probe_shape, probe_rank * sizeof *shape);
        *rank = probe_rank;
    }
    clg_io_tensor_free(&out);
    return st;
}

clg_status clg_cli_call_device(clg_context *ctx, const clg_cli_call *call,
                               const clg_tensor *out)
{
    clg_call c = as_call(call);
    return clg_run(ctx, &c, &call->data, &call->indices, out);
}

clg_status clg_cli_call_reference(clg_context *ctx, const clg_cli_call *call,
                                  const clg_tensor *out)
{
    clg_call c = as_call(call);
    return clg_reference(ctx, &c, &call->data, &call->indices, out);
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

/* Appends a copy of name to the list of *n names (capacity *cap).
 * 0, or -1 out of memory. */
static int push_name(char ***list, size_t *n, size_t *cap, const char *name)
{
    if (*n == *cap) {
        size_t ncap = *cap ? *cap * 2 : 8;
        char **nl = realloc(*list, ncap * sizeof *nl);
        if (nl == NULL)
            return -1;
        *list = nl;
        *cap = ncap;
    }
    (*list)[*n] = strdup(name);
    if ((*list)[*n] == NULL)
        return -1;
    (*n)++;
    return 0;
}

/* Lists the test_data_set_* folders of d->path into d->sets, sorted.
 * Returns 0, or -1 with errno set. */
static int list_sets(clg_node_dir *d)
{
    DIR *dir = opendir(d->path);
    struct dirent *e;
    size_t cap = 0;
    char path[CLG_NODE_PATH_CAP];

    if (dir == NULL)
        return -1;
    while ((e = readdir(dir)) != NULL) {
        if (strncmp(e->d_name, "test_data_set_", 14) != 0)
            continue;
        if (format_path(path, sizeof path, "%s/%s", d->path, e->d_name) != 0) {
            closedir(dir);
            errno = ENAMETOOLONG;
            return -1;
        }
        if (is_directory(path) &&
            push_name(&d->sets, &d->nsets, &cap, e->d_name) != 0) {
            closedir(dir);
            errno = ENOMEM;
            return -1;
        }
    }
    closedir(dir);
    if (d->nsets > 1)
        qsort(d->sets, d->nsets, sizeof *d->sets, compare_sets);
    return 0;
}

/* The directory as given, less trailing slashes, into d->path; -1 when
 * arg does not fit (cut short, it could name another directory). */
static int trim_dir(clg_node_dir *d, const char *arg)
{
    size_t len;
    if (format_path(d->path, sizeof d->path, "%s", arg) != 0) {
        d->path[0] = '\0';
        return -1;
    }
    len = strlen(d->path);
    while (len > 1 && d->path[len - 1] == '/')
        d->path[--len] = '\0';
    return 0;
}

int clg_node_dir_open(const char *arg, clg_node_dir *d, char *msg, size_t cap)
{
    clg_io_error err;
    char path[CLG_NODE_PATH_CAP + 64];

    memset(d, 0, sizeof *d);
    clg_onnx_model_init(&d->model);
    if (trim_dir(d, arg) != 0) {
        snprintf(msg, cap, "path too long (%zu bytes, at most %d)",
                 strlen(arg), CLG_NODE_PATH_CAP - 1);
        return CLG_EXIT_ERROR;
    }
    if (!is_directory(d->path)) {
        snprintf(msg, cap, "%s",
                 file_exists(d->path) ? "not a directory"
                                      : "no such directory");
        return CLG_EXIT_ERROR;
    }
    snprintf(path, sizeof path, "%s/model.onnx", d->path);
    if (clg_onnx_read_model(path, &d->model, &err) != CLG_IO_OK) {
        snprintf(msg, cap, "%s", err.message);
        d->other_operator =
            clg_onnx_model_other_operator(path, d->other_what,
                                          sizeof d->other_what);
        return CLG_EXIT_ERROR;
    }
    if (list_sets(d) != 0) {
        snprintf(msg, cap, "cannot list data sets: %s", strerror(errno));
        return CLG_EXIT_ERROR;
    }
    if (d->nsets == 0) {
        snprintf(msg, cap, "no test_data_set_* directories");
        return CLG_EXIT_ERROR;
    }
    return CLG_EXIT_OK;
}

void clg_node_dir_free(clg_node_dir *d)
{
    for (size_t s = 0; s < d->nsets; s++)
        free(d->sets[s]);
    free(d->sets);
    d->sets = NULL;
    d->nsets = 0;
    clg_onnx_model_free(&d->model);
}

void clg_node_set_init(clg_node_set *s)
{
    s->inputs = NULL;
    s->input_count = 0;
    clg_io_tensor_init(&s->expected);
    s->have_expected = 0;
}

void clg_node_set_free(clg_node_set *s)
{
    for (size_t k = 0; k < s->input_count; k++)
        clg_io_tensor_free(&s->inputs[k]);
    free(s->inputs);
    clg_io_tensor_free(&s->expected);
    clg_node_set_init(s);
}

/* Reads <dir>/<set>/<name> into t; CLG_EXIT_OK, or CLG_EXIT_ERROR with
 * why in msg. */
static int read_one(const char *dir, const char *set, const char *name,
                    clg_io_tensor *t, char *msg, size_t cap)
{
    clg_io_error err;
    char path[CLG_NODE_PATH_CAP];

    if (format_path(path, sizeof path, "%s/%s/%s", dir, set, name) != 0) {
        snprintf(msg, cap, "the path of %s is too long (at most %d bytes)",
                 name, CLG_NODE_PATH_CAP - 1);
        return CLG_EXIT_ERROR;
    }
    if (clg_onnx_read_tensor(path, t, &err) != CLG_IO_OK) {
        snprintf(msg, cap, "%s", err.message);
        return CLG_EXIT_ERROR;
    }
    return CLG_EXIT_OK;
}

/* The input file that feeds op, if one does, against what the model
 * declares for it; CLG_EXIT_OK, or CLG_EXIT_ERROR with why in msg. */
static int check_declared(const clg_node_dir *d, const char *set,
                          const clg_onnx_operand *op, const clg_node_set *s,
                          char *msg, size_t cap)
{
    clg_io_error err;
    char path[CLG_NODE_PATH_CAP];

    if (op->input_index < 0 || (size_t)op->input_index >= s->input_count)
        return CLG_EXIT_OK;
    if (format_path(path, sizeof path, "%s/%s/input_%d.pb", d->path, set,
                    op->input_index) != 0)
        snprintf(path, sizeof path, "input_%d.pb", op->input_index);
    if (clg_onnx_check_input(op, &s->inputs[op->input_index], path, &err) !=
        CLG_IO_OK) {
        snprintf(msg, cap, "%s", err.message);
        return CLG_EXIT_ERROR;
    }
    return CLG_EXIT_OK;
}

int clg_node_set_read(const clg_node_dir *d, const char *set, clg_node_set *s,
                      char *msg, size_t cap)
{
    const size_t count = d->model.input_count;
    char name[64], path[CLG_NODE_PATH_CAP];

    clg_node_set_free(s);
    s->inputs = calloc(count > 0 ? count : 1, sizeof *s->inputs);
    if (s->inputs == NULL) {
        snprintf(msg, cap, "out of memory");
        return CLG_EXIT_ERROR;
    }
    s->input_count = count;
    for (size_t k = 0; k < count; k++)
        clg_io_tensor_init(&s->inputs[k]);
    for (size_t k = 0; k < count; k++) {
        snprintf(name, sizeof name, "input_%zu.pb", k);
        if (read_one(d->path, set, name, &s->inputs[k], msg, cap) != 0)
            return CLG_EXIT_ERROR;
    }
    /* one input file more than the model takes: a set made for another
     * model, as ONNX Runtime refuses a feed it has no input for */
    snprintf(name, sizeof name, "input_%zu.pb", count);
    if (format_path(path, sizeof path, "%s/%s/%s", d->path, set, name) == 0 &&
        file_exists(path)) {
        snprintf(msg, cap,
                 "%s is there, but the model takes %zu runtime input(s)", path,
                 count);
        return CLG_EXIT_ERROR;
    }
    if (check_declared(d, set, &d->model.data, s, msg, cap) != 0 ||
        check_declared(d, set, &d->model.indices, s, msg, cap) != 0)
        return CLG_EXIT_ERROR;
    /* output_0.pb is optional: a set without it is checked against the
     * reference alone. */
    if (format_path(path, sizeof path, "%s/%s/output_0.pb", d->path, set) ==
            0 &&
        !file_exists(path))
        return CLG_EXIT_OK;
    if (read_one(d->path, set, "output_0.pb", &s->expected, msg, cap) != 0)
        return CLG_EXIT_ERROR;
    s->have_expected = 1;
    return CLG_EXIT_OK;
}

clg_cli_call clg_node_set_call(const clg_onnx_model *m, const clg_node_set *s)
{
    clg_cli_call call;
    call.oob = CLG_OOB_RAISE;
    call.op = m->op;
    call.axis = m->axis;
    call.data = clg_io_tensor_view(m->data.input_index >= 0
                                       ? &s->inputs[m->data.input_index]
                                       : &m->data.value);
    call.indices = clg_io_tensor_view(m->indices.input_index >= 0
                                          ? &s->inputs[m->indices.input_index]
                                          : &m->indices.value);
    return call;
}
