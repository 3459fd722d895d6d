/* SPDX-License-Identifier: Apache-2.0 */
/* Test harness for the clgather tool. See cli_harness.h. */
#include "cli_harness.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <setjmp.h> /* cmocka.h needs these first */
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "io_tensor.h"
#include "npy.h"
#include "onnx.pb-c.h"
#include "onnx_io.h"

extern char **environ;

unsigned char *cli_read_bytes(const char *path, size_t *size)
{
    unsigned char *bytes = NULL;
    clg_io_error err;
    if (clg_io_read_file(path, NULL, &bytes, size, &err) != CLG_IO_OK)
        fail_msg("%s", err.message);
    return bytes;
}

char *cli_read_text(const char *path)
{
    unsigned char *bytes = NULL;
    size_t size = 0;
    char *text;
    if (clg_io_read_file(path, NULL, &bytes, &size, NULL) != CLG_IO_OK)
        return NULL;
    text = malloc(size + 1);
    if (text != NULL) {
        memcpy(text, bytes, size);
        text[size] = '\0';
    }
    free(bytes);
    return text;
}

/* Most arguments a run passes, the program's name and the terminating
 * NULL included: a whole ONNX node-test folder (about 930 directories)
 * fits. */
#define CLI_MAX_ARGS 2048

/* argv for the tool: CLG_CLI_EXE, then args (NULL-terminated), cut to
 * fit `cap` entries with the terminating NULL. */
static void make_argv(const char *const *args, const char **argv, size_t cap)
{
    size_t n = 0;
    argv[n++] = CLG_CLI_EXE;
    while (args[n - 1] != NULL && n + 1 < cap) {
        argv[n] = args[n - 1];
        n++;
    }
    argv[n] = NULL;
}

int cli_run(cli_result *r, const char *const *args)
{
    char out_path[] = "/tmp/clgather-cli-out-XXXXXX";
    char err_path[] = "/tmp/clgather-cli-err-XXXXXX";
    int out_fd = -1, err_fd = -1;
    posix_spawn_file_actions_t actions;
    int have_actions = 0;
    const char *argv[CLI_MAX_ARGS];
    pid_t pid;
    int wstatus = 0;
    int rc = -1;

    r->status = -1;
    r->out = NULL;
    r->err = NULL;
    make_argv(args, argv, sizeof argv / sizeof argv[0]);

    out_fd = mkstemp(out_path);
    err_fd = mkstemp(err_path);
    if (out_fd < 0 || err_fd < 0)
        goto cleanup;
    if (posix_spawn_file_actions_init(&actions) != 0)
        goto cleanup;
    have_actions = 1;
    posix_spawn_file_actions_adddup2(&actions, out_fd, STDOUT_FILENO);
    posix_spawn_file_actions_adddup2(&actions, err_fd, STDERR_FILENO);
    if (posix_spawn(&pid, CLG_CLI_EXE, &actions, NULL, (char *const *)argv,
                    environ) != 0)
        goto cleanup;
    while (waitpid(pid, &wstatus, 0) < 0)
        if (errno != EINTR)
            goto cleanup;
    r->status = WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : -1;
    r->out = cli_read_text(out_path);
    r->err = cli_read_text(err_path);
    rc = (r->out != NULL && r->err != NULL) ? 0 : -1;

cleanup:
    if (have_actions)
        posix_spawn_file_actions_destroy(&actions);
    if (out_fd >= 0) {
        close(out_fd);
        unlink(out_path);
    }
    if (err_fd >= 0) {
        close(err_fd);
        unlink(err_path);
    }
    return rc;
}

/* Appends what fd has to *buf (*len bytes so far); 1 at EOF, 0 when more
 * may come, -1 on error. */
static int drain(int fd, char **buf, size_t *len)
{
    char chunk[4096];
    ssize_t got = read(fd, chunk, sizeof chunk);
    char *grown;
    if (got < 0)
        return errno == EINTR ? 0 : -1;
    if (got == 0)
        return 1;
    grown = realloc(*buf, *len + (size_t)got + 1);
    if (grown == NULL)
        return -1;
    memcpy(grown + *len, chunk, (size_t)got);
    *len += (size_t)got;
    grown[*len] = '\0';
    *buf = grown;
    return 0;
}

/* AddressSanitizer maps terabytes of shadow memory when a program starts,
 * so an RLIMIT_AS of a few GiB would stop the sanitized tool before main;
 * there the address-space limit becomes ASan's own: allocations above it
 * return NULL, as they do under RLIMIT_AS. */
#if defined(__SANITIZE_ADDRESS__)
#define CLI_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define CLI_ASAN 1
#endif
#endif
#ifndef CLI_ASAN
#define CLI_ASAN 0
#endif

/* environ with ASAN_OPTIONS extended to cap allocations at `bytes`
 * (malloc'd array of malloc'd entries, one of them ours), or NULL. */
static char **asan_environment(uint64_t bytes)
{
    const char *old = getenv("ASAN_OPTIONS");
    size_t n = 0, k = 0, len;
    char **env;
    while (environ[n] != NULL)
        n++;
    env = calloc(n + 2, sizeof *env);
    if (env == NULL)
        return NULL;
    for (size_t i = 0; i < n; i++)
        if (strncmp(environ[i], "ASAN_OPTIONS=", 13) != 0)
            env[k++] = environ[i];
    len = (old != NULL ? strlen(old) : 0) + 128;
    env[k] = malloc(len);
    if (env[k] == NULL) {
        free(env);
        return NULL;
    }
    snprintf(env[k], len,
             "ASAN_OPTIONS=%s%sallocator_may_return_null=1:"
             "max_allocation_size_mb=%llu",
             old != NULL ? old : "", old != NULL && old[0] ? ":" : "",
             (unsigned long long)(bytes >> 20));
    return env;
}

/* In the child after fork: only async-signal-safe calls until exec. */
static void exec_limited(const char *const *argv, const cli_limits *limits,
                         char **env, int out_fd, int err_fd)
{
    struct rlimit rl;
    if (limits->address_space != 0 && !CLI_ASAN) {
        rl.rlim_cur = rl.rlim_max = (rlim_t)limits->address_space;
        if (setrlimit(RLIMIT_AS, &rl) != 0)
            _exit(126);
    }
    if (limits->file_size != 0) {
        rl.rlim_cur = rl.rlim_max = (rlim_t)limits->file_size;
        if (setrlimit(RLIMIT_FSIZE, &rl) != 0 ||
            signal(SIGXFSZ, SIG_IGN) == SIG_ERR)
            _exit(126);
    }
    if (dup2(out_fd, STDOUT_FILENO) < 0 || dup2(err_fd, STDERR_FILENO) < 0)
        _exit(126);
    execve(CLG_CLI_EXE, (char *const *)argv, env);
    _exit(127);
}

/* Reads both pipes to their ends into r->out and r->err. 0 or -1. */
static int collect(int out_fd, int err_fd, cli_result *r)
{
    struct pollfd fds[2];
    size_t out_len = 0, err_len = 0;
    int open_count = 2;

    r->out = calloc(1, 1);
    r->err = calloc(1, 1);
    if (r->out == NULL || r->err == NULL)
        return -1;
    fds[0].fd = out_fd;
    fds[1].fd = err_fd;
    fds[0].events = fds[1].events = POLLIN;
    while (open_count > 0) {
        if (poll(fds, 2, -1) < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        for (int i = 0; i < 2; i++) {
            int done;
            if (fds[i].fd < 0 || fds[i].revents == 0)
                continue;
            done = i == 0 ? drain(out_fd, &r->out, &out_len)
                          : drain(err_fd, &r->err, &err_len);
            if (done < 0)
                return -1;
            if (done > 0) {
                fds[i].fd = -1;
                open_count--;
            }
        }
    }
    return 0;
}

int cli_run_limited(cli_result *r, const char *const *args,
                    const cli_limits *limits)
{
    const char *argv[CLI_MAX_ARGS];
    int out_pipe[2] = {-1, -1}, err_pipe[2] = {-1, -1};
    char **env = environ, **asan_env = NULL;
    pid_t pid = -1;
    int wstatus = 0;
    int rc = -1;

    r->status = -1;
    r->out = NULL;
    r->err = NULL;
    make_argv(args, argv, sizeof argv / sizeof argv[0]);
    if (CLI_ASAN && limits->address_space != 0) {
        asan_env = asan_environment(limits->address_space);
        if (asan_env == NULL)
            goto cleanup;
        env = asan_env;
    }
    if (pipe(out_pipe) != 0 || pipe(err_pipe) != 0)
        goto cleanup;
    fflush(NULL);
    pid = fork();
    if (pid < 0)
        goto cleanup;
    if (pid == 0) {
        close(out_pipe[0]);
        close(err_pipe[0]);
        exec_limited(argv, limits, env, out_pipe[1], err_pipe[1]);
    }
    close(out_pipe[1]);
    close(err_pipe[1]);
    out_pipe[1] = err_pipe[1] = -1;
    rc = collect(out_pipe[0], err_pipe[0], r);
    while (waitpid(pid, &wstatus, 0) < 0)
        if (errno != EINTR) {
            rc = -1;
            goto cleanup;
        }
    r->status = WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : -1;

cleanup:
    for (int i = 0; i < 2; i++) {
        if (out_pipe[i] >= 0)
            close(out_pipe[i]);
        if (err_pipe[i] >= 0)
            close(err_pipe[i]);
    }
    if (asan_env != NULL) {
        /* ours is the last entry */
        size_t last = 0;
        while (asan_env[last + 1] != NULL)
            last++;
        free(asan_env[last]);
        free(asan_env);
    }
    if (rc != 0)
        cli_result_free(r);
    return rc;
}

void cli_result_free(cli_result *r)
{
    free(r->out);
    free(r->err);
    r->out = NULL;
    r->err = NULL;
}

void cli_result_dump(const cli_result *r)
{
    fprintf(stderr, "exit status %d\n--- stdout\n%s--- stderr\n%s---\n",
            r->status, r->out != NULL ? r->out : "(none)\n",
            r->err != NULL ? r->err : "(none)\n");
}

void cli_expect_run(cli_result *r, int status, const char *const *args)
{
    assert_int_equal(cli_run(r, args), 0);
    if (r->status != status)
        cli_result_dump(r);
    assert_int_equal(r->status, status);
}

int cli_have_device(void)
{
    size_t count = 0;
    return clg_devices_list(NULL, 0, &count) == CLG_STATUS_OK && count > 0;
}

void cli_device_runtime(const char *spec, cli_runtime *rt)
{
    clg_context *ctx = NULL;
    cl_platform_id platform = NULL;
    memset(rt, 0, sizeof *rt);
    assert_int_equal(clg_context_create(&ctx, spec), CLG_STATUS_OK);
    cl_device_id dev = clg_context_cl_device(ctx);
    assert_int_equal(clGetDeviceInfo(dev, CL_DEVICE_NAME, sizeof rt->name - 1,
                                     rt->name, NULL),
                     CL_SUCCESS);
    assert_int_equal(clGetDeviceInfo(dev, CL_DRIVER_VERSION,
                                     sizeof rt->driver - 1, rt->driver, NULL),
                     CL_SUCCESS);
    assert_int_equal(clGetDeviceInfo(dev, CL_DEVICE_PLATFORM, sizeof platform,
                                     &platform, NULL),
                     CL_SUCCESS);
    assert_int_equal(clGetPlatformInfo(platform, CL_PLATFORM_NAME,
                                       sizeof rt->platform - 1, rt->platform,
                                       NULL),
                     CL_SUCCESS);
    assert_int_equal(clGetPlatformInfo(platform, CL_PLATFORM_VERSION,
                                       sizeof rt->platform_version - 1,
                                       rt->platform_version, NULL),
                     CL_SUCCESS);
    snprintf(rt->line, sizeof rt->line, "%s on %s %s", rt->name, rt->platform,
             rt->driver);
    clg_context_destroy(ctx);
}

char *cli_tempdir(const char *prefix)
{
    const char *base = getenv("TMPDIR");
    char *path;
    size_t len;
    if (base == NULL || base[0] == '\0')
        base = "/tmp";
    len = strlen(base) + strlen(prefix) + 16;
    path = malloc(len);
    if (path == NULL)
        return NULL;
    snprintf(path, len, "%s/%s-XXXXXX", base, prefix);
    if (mkdtemp(path) == NULL) {
        free(path);
        return NULL;
    }
    return path;
}

static int remove_entry(const char *path, const struct stat *sb, int flag,
                        struct FTW *ftw)
{
    (void)sb;
    (void)flag;
    (void)ftw;
    return remove(path);
}

void cli_rmtree(const char *path)
{
    if (path != NULL)
        nftw(path, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

int cli_mkdir(const char *path)
{
    return mkdir(path, 0755) == 0 || errno == EEXIST ? 0 : -1;
}

int cli_write_bytes(const char *path, const void *bytes, size_t size)
{
    return clg_io_write_file(path, bytes, size, NULL) == CLG_IO_OK ? 0 : -1;
}

int cli_truncate(const char *path, size_t size)
{
    return truncate(path, (off_t)size);
}

long cli_file_size(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0 ? (long)sb.st_size : -1;
}

char *cli_path(const char *a, const char *b)
{
    size_t len = strlen(a) + strlen(b) + 2;
    char *p = malloc(len);
    if (p != NULL)
        snprintf(p, len, "%s/%s", a, b);
    return p;
}

char *cli_tmp(const char *name)
{
    char *p = cli_path(cli_root, name);
    assert_non_null(p);
    return p;
}

char *cli_subdir(const char *name)
{
    char *p = cli_tmp(name);
    assert_int_equal(cli_mkdir(p), 0);
    return p;
}

clg_tensor cli_tensor(clg_dtype dtype, size_t rank, const int64_t *shape,
                      const void *data)
{
    clg_tensor t;
    t.dtype = dtype;
    t.rank = rank;
    t.shape = shape;
    t.data = (void *)(uintptr_t)data;
    return t;
}

int cli_write_tensor(const char *path, const clg_tensor *t)
{
    return clg_onnx_write_tensor(path, t, NULL, NULL) == CLG_IO_OK ? 0 : -1;
}

cli_model cli_gather_model(int64_t axis)
{
    cli_model m;
    memset(&m, 0, sizeof m);
    m.op_type = "Gather";
    m.opset = 13;
    m.has_axis = 1;
    m.axis = axis;
    m.node_count = 1;
    m.data_dtype = CLG_DTYPE_FLOAT;
    m.indices_dtype = CLG_DTYPE_INT64;
    return m;
}

void cli_write_node_test(const char *dir, const cli_model *m,
                         const clg_tensor *data, const clg_tensor *indices,
                         const clg_tensor *output)
{
    static const char *const names[3] = {"input_0.pb", "input_1.pb",
                                         "output_0.pb"};
    const clg_tensor *tensors[3] = {data, indices, output};
    char *set = cli_path(dir, "test_data_set_0");
    assert_non_null(set);
    assert_int_equal(cli_mkdir(dir), 0);
    assert_int_equal(cli_mkdir(set), 0);
    assert_int_equal(cli_write_model(dir, m), 0);
    for (size_t k = 0; k < 3; k++) {
        if (tensors[k] == NULL)
            continue;
        char *p = cli_path(set, names[k]);
        assert_non_null(p);
        assert_int_equal(cli_write_tensor(p, tensors[k]), 0);
        free(p);
    }
    free(set);
}

void cli_write_npy(const char *path, clg_dtype dtype, size_t rank,
                   const int64_t *shape, const void *data)
{
    clg_tensor t = cli_tensor(dtype, rank, shape, data);
    clg_io_error err;
    if (clg_npy_write(path, &t, 0, &err) != CLG_IO_OK)
        fail_msg("%s", err.message);
}

/* ---------------------------------------------------------------- models */

int cli_write_model(const char *dir, const cli_model *m)
{
    Onnx__ModelProto model = ONNX__MODEL_PROTO__INIT;
    Onnx__OperatorSetIdProto opset = ONNX__OPERATOR_SET_ID_PROTO__INIT;
    Onnx__OperatorSetIdProto *opsets[1] = {&opset};
    Onnx__GraphProto graph = ONNX__GRAPH_PROTO__INIT;
    Onnx__NodeProto nodes[2] = {ONNX__NODE_PROTO__INIT,
                                ONNX__NODE_PROTO__INIT};
    Onnx__NodeProto *node_ptrs[2] = {&nodes[0], &nodes[1]};
    Onnx__AttributeProto axis = ONNX__ATTRIBUTE_PROTO__INIT;
    Onnx__AttributeProto *attrs[1] = {&axis};
    Onnx__TypeProto__Tensor tt[3] = {ONNX__TYPE_PROTO__TENSOR__INIT,
                                     ONNX__TYPE_PROTO__TENSOR__INIT,
                                     ONNX__TYPE_PROTO__TENSOR__INIT};
    Onnx__TypeProto types[3] = {ONNX__TYPE_PROTO__INIT, ONNX__TYPE_PROTO__INIT,
                                ONNX__TYPE_PROTO__INIT};
    Onnx__ValueInfoProto vi[3] = {ONNX__VALUE_INFO_PROTO__INIT,
                                  ONNX__VALUE_INFO_PROTO__INIT,
                                  ONNX__VALUE_INFO_PROTO__INIT};
    Onnx__TensorShapeProto data_shape = ONNX__TENSOR_SHAPE_PROTO__INIT;
    Onnx__TensorShapeProto__Dimension dims[CLG_MAX_RANK];
    Onnx__TensorShapeProto__Dimension *dim_ptrs[CLG_MAX_RANK];
    Onnx__ValueInfoProto *inputs[2];
    Onnx__ValueInfoProto *outputs[1];
    Onnx__TensorProto *init = NULL;
    Onnx__TensorProto *inits[1];
    char *node0_inputs[2] = {"data", "indices"};
    char *node0_outputs[1] = {"output"};
    char *node1_inputs[2] = {"mid", "indices"};
    char *mid_outputs[1] = {"mid"};
    unsigned char *bytes = NULL;
    size_t size = 0;
    char *path = NULL;
    int rc = -1;

    opset.domain = "";
    opset.has_version = 1;
    opset.version = m->opset;
    model.has_ir_version = 1;
    model.ir_version = 8;
    model.producer_name = "clgather-tests";
    model.n_opset_import = 1;
    model.opset_import = opsets;
    model.graph = &graph;
    graph.name = "test";

    for (int i = 0; i < 3; i++) {
        types[i].value_case = ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE;
        types[i].tensor_type = &tt[i];
        tt[i].has_elem_type = 1;
        vi[i].type = &types[i];
    }
    tt[0].elem_type = (int32_t)m->data_dtype;
    for (size_t i = 0; i < m->data_rank_declared && i < CLG_MAX_RANK; i++) {
        Onnx__TensorShapeProto__Dimension *d = &dims[i];
        onnx__tensor_shape_proto__dimension__init(d);
        if (m->data_shape_declared[i] < 0) {
            d->value_case =
                ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM;
            d->dim_param = "n";
        } else {
            d->value_case =
                ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE;
            d->dim_value = m->data_shape_declared[i];
        }
        dim_ptrs[i] = d;
    }
    if (m->data_rank_declared > 0) {
        data_shape.n_dim = m->data_rank_declared;
        data_shape.dim = dim_ptrs;
        tt[0].shape = &data_shape;
    }
    tt[1].elem_type = (int32_t)m->indices_dtype;
    tt[2].elem_type = (int32_t)m->data_dtype;
    vi[0].name = "data";
    vi[1].name = "indices";
    vi[2].name = "output";

    /* node 0: op(data, indices) -> output, or, for two nodes,
     * op(data, indices) -> mid; op(mid, indices) -> output */
    nodes[0].op_type = (char *)(uintptr_t)m->op_type;
    nodes[0].domain = "";
    nodes[0].n_input = 2;
    nodes[0].input = node0_inputs;
    nodes[0].n_output = 1;
    nodes[0].output = m->node_count == 2 ? mid_outputs : node0_outputs;
    if (m->has_axis) {
        axis.name = "axis";
        axis.has_type = 1;
        axis.type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT;
        axis.has_i = 1;
        axis.i = m->axis;
        nodes[0].n_attribute = 1;
        nodes[0].attribute = attrs;
    }
    nodes[1] = nodes[0];
    nodes[1].input = node1_inputs;
    nodes[1].output = node0_outputs;
    if (m->second_op_type != NULL)
        nodes[1].op_type = (char *)(uintptr_t)m->second_op_type;
    graph.n_node = m->node_count == 2 ? 2 : 1;
    graph.node = node_ptrs;

    inputs[0] = &vi[0];
    inputs[1] = &vi[1];
    graph.input = inputs;
    graph.n_input = 2;
    if (m->indices_initializer != NULL) {
        if (clg_onnx_encode_tensor(m->indices_initializer, "indices", &bytes,
                                   &size, NULL) != CLG_IO_OK)
            goto cleanup;
        init = onnx__tensor_proto__unpack(NULL, size, bytes);
        free(bytes);
        bytes = NULL;
        if (init == NULL)
            goto cleanup;
        inits[0] = init;
        graph.n_initializer = 1;
        graph.initializer = inits;
        if (!m->initializer_listed_as_input)
            graph.n_input = 1;
    }
    outputs[0] = &vi[2];
    graph.n_output = 1;
    graph.output = outputs;

    size = onnx__model_proto__get_packed_size(&model);
    bytes = malloc(size);
    if (bytes == NULL)
        goto cleanup;
    onnx__model_proto__pack(&model, bytes);
    path = cli_path(dir, "model.onnx");
    if (path == NULL)
        goto cleanup;
    rc = cli_write_bytes(path, bytes, size);

cleanup:
    free(path);
    free(bytes);
    if (init != NULL)
        onnx__tensor_proto__free_unpacked(init, NULL);
    return rc;
}

/* ---------------------------------------------------------------- text */

static int line_matches(const char *text, const char *line, int prefix)
{
    size_t n = strlen(line);
    const char *p = text;
    while (p != NULL && *p != '\0') {
        const char *eol = strchr(p, '\n');
        size_t len = eol != NULL ? (size_t)(eol - p) : strlen(p);
        if (prefix ? (len >= n && memcmp(p, line, n) == 0)
                   : (len == n && memcmp(p, line, n) == 0))
            return 1;
        p = eol != NULL ? eol + 1 : NULL;
    }
    return 0;
}

int cli_has_line(const char *text, const char *line)
{
    return text != NULL && line_matches(text, line, 0);
}

int cli_has_line_prefix(const char *text, const char *prefix)
{
    return text != NULL && line_matches(text, prefix, 1);
}

/* The value of `name` before a run changes it (malloc'd), or NULL when
 * it was unset; env_restore puts it back and frees it. A lane's own
 * setting (the Intel lane's CLGATHER_DEVICE and OCL_ICD_VENDORS) must
 * hold for the runs after one that changed it. */
static char *env_save(const char *name)
{
    const char *v = getenv(name);
    return v != NULL ? strdup(v) : NULL;
}

static void env_restore(const char *name, char *saved)
{
    if (saved != NULL)
        setenv(name, saved, 1);
    else
        unsetenv(name);
    free(saved);
}

int cli_run_env(cli_result *r, const char *name, const char *value,
                const char *const *args)
{
    char *saved = env_save(name);
    if ((value ? setenv(name, value, 1) : unsetenv(name)) != 0) {
        free(saved);
        return -1;
    }
    int rc = cli_run(r, args);
    env_restore(name, saved);
    return rc;
}

pid_t cli_start_env(const char *name, const char *value,
                    const char *const *args)
{
    const char *argv[CLI_MAX_ARGS];
    posix_spawn_file_actions_t actions;
    pid_t pid = -1;

    make_argv(args, argv, sizeof argv / sizeof argv[0]);
    char *saved = env_save(name);
    if (setenv(name, value, 1) != 0) {
        free(saved);
        return -1;
    }
    if (posix_spawn_file_actions_init(&actions) == 0) {
        posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null",
                                         O_WRONLY, 0);
        posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null",
                                         O_WRONLY, 0);
        if (posix_spawn(&pid, CLG_CLI_EXE, &actions, NULL, (char *const *)argv,
                        environ) != 0)
            pid = -1;
        posix_spawn_file_actions_destroy(&actions);
    }
    env_restore(name, saved);
    return pid;
}

int cli_wait(pid_t pid)
{
    int wstatus = 0;
    while (waitpid(pid, &wstatus, 0) < 0)
        if (errno != EINTR)
            return -1;
    return wstatus;
}

char *cli_root;
static const char *root_prefix;

static int root_setup(void **state)
{
    (void)state;
    cli_root = cli_tempdir(root_prefix);
    return cli_root != NULL ? 0 : -1;
}

static int root_teardown(void **state)
{
    (void)state;
    cli_rmtree(cli_root);
    free(cli_root);
    cli_root = NULL;
    return 0;
}

int cli_run_tests(const char *prefix, const char *name,
                  const struct CMUnitTest *tests, size_t count)
{
    if (!cli_have_device()) {
        fprintf(stderr, "no OpenCL device: skipping\n");
        return 77;
    }
    root_prefix = prefix;
    return _cmocka_run_group_tests(name, tests, count, root_setup,
                                   root_teardown);
}

int cli_count_entries(const char *dir)
{
    DIR *d = opendir(dir);
    int n = 0;
    assert_non_null(d);
    for (struct dirent *e; (e = readdir(d)) != NULL;)
        n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
    closedir(d);
    return n;
}
