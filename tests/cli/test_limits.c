/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What small files may cost `clgather onnx-test` and `clgather compare`:
 * - nesting: a model.onnx whose messages nest deeper than
 *   CLG_ONNX_MAX_NESTING (100) is refused before protobuf-c unpacks it,
 *   with exit status 3 and a message naming the message and its byte;
 *   one at exactly the limit is read. The models are written here byte by
 *   byte, subgraphs nested as GraphProto.node[0].attribute[0].g, or types
 *   as TypeProto.sequence_type.elem_type: protobuf-c's own packing
 *   recurses too.
 * - memory: a 13-byte input_0.pb claiming data [0, 100000000] with four
 *   indices asks Gather for a 1.6 GB output that no index can fill; the
 *   commands run under a 1.5 GiB address-space limit and must refuse the
 *   indices (exit status 2), not run out of memory (3).
 * - streams: a FIFO fed without end (a protobuf key, then bytes no key
 *   starts with; a .npy header, then data past its shape) is read only
 *   until the bytes stop being worth reading, and refused; well-formed
 *   files through a FIFO are read whole.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli_harness.h"
#include "io_tensor.h"
#include "npy.h"
#include "onnx_io.h"
#include "tensor_file.h"

/* 3,000 subgraphs, one inside the other. */
#define DEEP_SUBGRAPHS 3000

/* ---------------------------------------------------------------- wire */

/* Protobuf bytes, built from the innermost message outwards. */
typedef struct wire {
    unsigned char *bytes;
    size_t size;
} wire;

static size_t put_varint(unsigned char *p, uint64_t v)
{
    size_t n = 0;
    while (v >= 0x80) {
        p[n++] = (unsigned char)(v | 0x80);
        v >>= 7;
    }
    p[n++] = (unsigned char)v;
    return n;
}

/* Puts `size` bytes in front of w's. */
static void prepend(wire *w, const void *bytes, size_t size)
{
    unsigned char *b = malloc(w->size + size);
    assert_non_null(b);
    memcpy(b, bytes, size);
    if (w->size > 0)
        memcpy(b + size, w->bytes, w->size);
    free(w->bytes);
    w->bytes = b;
    w->size += size;
}

static void append(wire *w, const void *bytes, size_t size)
{
    unsigned char *b = realloc(w->bytes, w->size + size);
    assert_non_null(b);
    memcpy(b + w->size, bytes, size);
    w->bytes = b;
    w->size += size;
}

/* Makes w's bytes the payload of length-delimited field `field`; returns
 * the size of the key and length put in front. */
static size_t wrap(wire *w, unsigned field)
{
    unsigned char head[20];
    size_t n = put_varint(head, (uint64_t)field << 3 | 2);
    n += put_varint(head + n, w->size);
    prepend(w, head, n);
    return n;
}

/* The field by which the message `level` below a ModelProto sits in the
 * one above it. */
typedef unsigned (*field_at)(size_t level);

/* Subgraphs: ModelProto.graph (7), then GraphProto.node (1),
 * NodeProto.attribute (5), AttributeProto.g (6), again and again. */
static unsigned subgraph_field(size_t level)
{
    static const unsigned cycle[3] = {5, 6, 1};
    return level == 1 ? 7 : cycle[level % 3];
}

/* Types: ModelProto.graph (7), GraphProto.input (11),
 * ValueInfoProto.type (2), then TypeProto.sequence_type (4) and
 * TypeProto.Sequence.elem_type (1), again and again. */
static unsigned type_field(size_t level)
{
    static const unsigned first[4] = {0, 7, 11, 2};
    return level < 4 ? first[level] : level % 2 == 0 ? 4 : 1;
}

/* A ModelProto (ir_version 8, opset 13) whose deepest message, empty, sits
 * `levels` (>= 1) below it along `field`. *key_at[l] gets the offset of
 * the key of the message at level l (malloc'd, levels + 1 entries). */
static wire deep_model(size_t levels, field_at field, size_t **key_at)
{
    static const unsigned char ir_version[] = {0x08, 0x08};
    static const unsigned char opset_13[] = {0x42, 0x02, 0x10, 0x0d};
    size_t *head = calloc(levels + 1, sizeof *head);
    wire w = {NULL, 0};

    assert_non_null(head);
    *key_at = calloc(levels + 1, sizeof **key_at);
    assert_non_null(*key_at);
    for (size_t l = levels; l >= 1; l--)
        head[l] = wrap(&w, field(l));
    prepend(&w, ir_version, sizeof ir_version);
    append(&w, opset_13, sizeof opset_13);
    (*key_at)[1] = sizeof ir_version;
    for (size_t l = 2; l <= levels; l++)
        (*key_at)[l] = (*key_at)[l - 1] + head[l - 1];
    free(head);
    return w;
}

/* The message for a model nesting `type` at byte `at`, 101 levels down. */
static void too_deep_message(char *buf, size_t cap, const char *name,
                             const char *type, size_t at)
{
    snprintf(buf, cap,
             "%s: nested too deep: the onnx.%s at byte %zu is %d levels "
             "below the top message; clgather reads at most %d",
             name, type, at, CLG_ONNX_MAX_NESTING + 1, CLG_ONNX_MAX_NESTING);
}

/* ---------------------------------------------------------------- reader */

static void expect_decode(const wire *w, clg_io_status status,
                          const char *message)
{
    clg_onnx_model m;
    clg_io_error err;
    clg_io_status st;

    clg_onnx_model_init(&m);
    memset(&err, 0, sizeof err);
    st = clg_onnx_decode_model(w->bytes, w->size, "model.onnx", &m, &err);
    if (st != status || strcmp(err.message, message) != 0)
        fprintf(stderr, "status %d: %s\nexpected %d: %s\n", (int)st,
                err.message, (int)status, message);
    assert_int_equal(st, status);
    assert_string_equal(err.message, message);
    clg_onnx_model_free(&m);
}

/* At the limit a model is read past its nesting (and refused for what it
 * holds); one level more and it is refused for its nesting, whichever
 * message recurses. */
static void test_reader_limit(void **state)
{
    size_t *at = NULL;
    char msg[512];
    wire w;
    (void)state;

    /* 100: an empty GraphProto, in the attribute of the node of ... */
    w = deep_model(CLG_ONNX_MAX_NESTING, subgraph_field, &at);
    expect_decode(&w, CLG_IO_UNSUPPORTED,
                  "model.onnx: the node is '', not Gather, GatherElements or "
                  "GatherND");
    free(w.bytes);
    free(at);

    w = deep_model(CLG_ONNX_MAX_NESTING + 1, subgraph_field, &at);
    too_deep_message(msg, sizeof msg, "model.onnx", "NodeProto", at[101]);
    expect_decode(&w, CLG_IO_UNSUPPORTED, msg);
    free(w.bytes);
    free(at);

    /* The graph holds one input, of a sequence of sequences of ... */
    w = deep_model(CLG_ONNX_MAX_NESTING, type_field, &at);
    expect_decode(&w, CLG_IO_UNSUPPORTED,
                  "model.onnx: the graph has 0 nodes; clgather runs models "
                  "of exactly one Gather, GatherElements or GatherND "
                  "node");
    free(w.bytes);
    free(at);

    w = deep_model(CLG_ONNX_MAX_NESTING + 1, type_field, &at);
    too_deep_message(msg, sizeof msg, "model.onnx", "TypeProto", at[101]);
    expect_decode(&w, CLG_IO_UNSUPPORTED, msg);
    free(w.bytes);
    free(at);
}

/* 3,000 subgraphs deep: refused at level 101. Cut short inside its graph
 * (the last 5 bytes: the opset_import and one of the graph's), it is
 * malformed before it is deep: the graph's length, the first thing read
 * after ir_version, says more than the file holds. */
static void test_reader_deep_and_truncated(void **state)
{
    size_t *at = NULL, levels = 3 * DEEP_SUBGRAPHS + 1;
    char msg[512];
    wire w = deep_model(levels, subgraph_field, &at);
    (void)state;

    too_deep_message(msg, sizeof msg, "model.onnx", "NodeProto", at[101]);
    expect_decode(&w, CLG_IO_UNSUPPORTED, msg);
    w.size -= 5;
    snprintf(msg, sizeof msg,
             "model.onnx: not a valid ONNX model (malformed or truncated "
             "protobuf, %zu bytes)",
             w.size);
    expect_decode(&w, CLG_IO_FORMAT_ERROR, msg);
    free(w.bytes);
    free(at);
}

/* ---------------------------------------------------------------- tool */

static char *make_dir(const char *name)
{
    char *dir = cli_path(cli_root, name), *set;
    assert_non_null(dir);
    set = cli_path(dir, "test_data_set_0");
    assert_non_null(set);
    assert_int_equal(cli_mkdir(dir), 0);
    assert_int_equal(cli_mkdir(set), 0);
    free(set);
    return dir;
}

static void expect_status(cli_result *r, const char *const *args,
                          const cli_limits *limits, int status)
{
    assert_int_equal(limits != NULL ? cli_run_limited(r, args, limits)
                                    : cli_run(r, args),
                     0);
    if (r->status != status)
        cli_result_dump(r);
    assert_int_equal(r->status, status);
}

/* Lines of text that end with `suffix`. */
static int lines_ending(const char *text, const char *suffix)
{
    size_t n = strlen(suffix);
    int count = 0;
    while (*text != '\0') {
        const char *end = strchr(text, '\n');
        size_t len = end != NULL ? (size_t)(end - text) : strlen(text);
        if (len >= n && memcmp(text + len - n, suffix, n) == 0)
            count++;
        text += len + (end != NULL);
    }
    return count;
}

/* The model nesting 3,000 subgraphs: onnx-test --reference and compare
 * refuse it with exit status 3 (they died of a stack overflow). */
static void test_deep_model_refused(void **state)
{
    char *dir = make_dir("deep"), *path = cli_path(dir, "model.onnx");
    char msg[512], line[1024];
    size_t *at = NULL;
    wire w = deep_model(3 * DEEP_SUBGRAPHS + 1, subgraph_field, &at);
    const char *onnx_test[] = {"onnx-test", "--reference", dir, NULL};
    const char *compare[] = {"compare", "--device", "0:0", dir, NULL};
    cli_result r;
    (void)state;

    assert_non_null(path);
    assert_int_equal(cli_write_bytes(path, w.bytes, w.size), 0);
    too_deep_message(msg, sizeof msg, path, "NodeProto", at[101]);

    expect_status(&r, onnx_test, NULL, 3);
    snprintf(line, sizeof line, "ERROR %s: %s", dir, msg);
    assert_true(cli_has_line(r.out, line));
    cli_result_free(&r);

    expect_status(&r, compare, NULL, 3);
    snprintf(line, sizeof line, "%s  ERROR %s", dir, msg);
    assert_true(cli_has_line(r.out, line));
    cli_result_free(&r);

    free(w.bytes);
    free(at);
    free(path);
    free(dir);
}

/* A Gather node test (axis 0) whose input_0.pb is FLOAT [0, 100000000]
 * with no data, its input_1.pb four INT64 zeros. Returns the directory;
 * the two files' paths to *data and *indices (all malloc'd). */
static char *make_claim(char **data, char **indices)
{
    static const int64_t data_shape[2] = {0, 100000000};
    static const int64_t index_shape[1] = {4};
    static const int64_t zeros[4] = {0, 0, 0, 0};
    char *dir = make_dir("claim"), *set = cli_path(dir, "test_data_set_0");
    clg_tensor d = cli_tensor(CLG_DTYPE_FLOAT, 2, data_shape, NULL);
    clg_tensor i = cli_tensor(CLG_DTYPE_INT64, 1, index_shape, zeros);
    cli_model m = cli_gather_model(0);

    assert_int_equal(cli_write_model(dir, &m), 0);
    *data = cli_path(set, "input_0.pb");
    *indices = cli_path(set, "input_1.pb");
    assert_int_equal(cli_write_tensor(*data, &d), 0);
    assert_int_equal(cli_write_tensor(*indices, &i), 0);
    free(set);
    return dir;
}

/* What each command says of the claim: the index refused, not memory. */
static const char refused[] =
    "ERROR INDEX_OUT_OF_RANGE: indices[0] = 0 is out of range: axis 0 of "
    "data has size 0, so no index is valid";

/* The 13-byte claim on 1.6 GB: refused as an index error under a 1.5 GiB
 * address-space limit by onnx-test (reference and device) and by compare
 * (node test and tensor files), where compare used to fill 3.2 GB. */
static void test_claim_bounded(void **state)
{
    char *data = NULL, *indices = NULL, *dir = make_claim(&data, &indices);
    char *set = cli_path(dir, "test_data_set_0"), line[1024];
    const char *reference[] = {"onnx-test", "--reference", dir, NULL};
    const char *device[] = {"onnx-test", "--device", "0:0", dir, NULL};
    const char *compare[] = {"compare", "--device", "0:0", dir, NULL};
    const char *files[] = {"compare", "--device",  "0:0",   "--data",
                           data,      "--indices", indices, NULL};
    cli_limits limits = {(uint64_t)3 << 29, 0}; /* 1.5 GiB */
    cli_result r;
    (void)state;

    assert_non_null(set);
    assert_true(cli_file_size(data) <= 15);
    /* "ERROR <set>: INDEX_OUT_OF_RANGE: ..." */
    snprintf(line, sizeof line, "ERROR %s: %s", set,
             refused + strlen("ERROR "));
    expect_status(&r, reference, &limits, 2);
    assert_true(cli_has_line(r.out, line));
    cli_result_free(&r);
    expect_status(&r, device, &limits, 2);
    assert_true(cli_has_line(r.out, line));
    cli_result_free(&r);

    /* the reference's row and the device's */
    expect_status(&r, compare, &limits, 2);
    assert_int_equal(lines_ending(r.out, refused), 2);
    assert_int_equal(cli_has_line_prefix(r.out, set), 1);
    cli_result_free(&r);
    expect_status(&r, files, &limits, 2);
    assert_int_equal(lines_ending(r.out, refused), 2);
    cli_result_free(&r);

    free(set);
    free(data);
    free(indices);
    free(dir);
}

/* ---------------------------------------------------------------- streams */

/* Starts a process that writes `head` into the FIFO at path, then, when
 * `endless`, `fill` bytes until the reader closes its end (exit 0 on
 * EPIPE, 1 on another failure); else it closes after head (exit 0). */
static pid_t feed(const char *path, const void *head, size_t size, int endless,
                  unsigned char fill)
{
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        unsigned char chunk[4096];
        int fd;
        signal(SIGPIPE, SIG_IGN);
        fd = open(path, O_WRONLY);
        if (fd < 0 || write(fd, head, size) != (ssize_t)size)
            _exit(1);
        memset(chunk, fill, sizeof chunk);
        while (endless)
            if (write(fd, chunk, sizeof chunk) < 0)
                _exit(errno == EPIPE ? 0 : 1);
        close(fd);
        _exit(0);
    }
    return pid;
}

/* The readers a stream is fed to. */
typedef enum stream_reader {
    READ_TENSOR_FILE, /* clg_io_read_tensor_file: .npy or .pb */
    READ_MODEL,       /* clg_onnx_read_model */
    READ_NPY          /* clg_npy_read */
} stream_reader;

/* Feeds `head` (then, when endless, `fill` bytes without end) through the
 * FIFO at path to `reader`: its status, with the tensor read into *t and
 * the message into *err. The writer must have ended cleanly: on EPIPE
 * from an endless stream, once the reader closed its end. */
static clg_io_status read_fed(const char *path, const void *head, size_t size,
                              int endless, unsigned char fill,
                              stream_reader reader, clg_io_tensor *t,
                              clg_io_error *err)
{
    clg_onnx_model m;
    clg_io_status st;
    int status = 0;
    pid_t pid = feed(path, head, size, endless, fill);

    clg_onnx_model_init(&m);
    st = reader == READ_MODEL ? clg_onnx_read_model(path, &m, err)
         : reader == READ_NPY ? clg_npy_read(path, t, err)
                              : clg_io_read_tensor_file(path, t, err);
    clg_onnx_model_free(&m);
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
    return st;
}

/* An endless stream is refused once its bytes cannot be a file of the
 * format, with `text` in the message (NULL: any): the read returns. */
static void expect_endless_refused(const char *path, const void *head,
                                   size_t size, unsigned char fill,
                                   stream_reader reader, const char *text)
{
    clg_io_tensor t = {0};
    clg_io_error err;
    assert_int_equal(read_fed(path, head, size, 1, fill, reader, &t, &err),
                     CLG_IO_FORMAT_ERROR);
    assert_true(text == NULL || strstr(err.message, text) != NULL);
    clg_io_tensor_free(&t);
}

/* A well-formed file of the four floats, fed through the FIFO and closed,
 * is read whole. */
static void expect_read_whole(const char *path, const unsigned char *bytes,
                              size_t size, const float *values)
{
    clg_io_tensor t = {0};
    clg_io_error err;
    assert_int_equal(read_fed(path, bytes, size, 0, 0, READ_TENSOR_FILE, &t,
                              &err),
                     CLG_IO_OK);
    assert_int_equal(t.dtype, CLG_DTYPE_FLOAT);
    assert_int_equal(t.count, 4);
    assert_memory_equal(t.data, values, 4 * sizeof *values);
    clg_io_tensor_free(&t);
}

static void test_endless_streams(void **state)
{
    static const unsigned char key[] = {0x08, 0x03}; /* field 1 = 3 */
    static const char dict[] =
        "{'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }";
    char npy_head[128];
    static const float values[4] = {1.5f, -2.0f, 0.25f, 8.0f};
    static const int64_t shape[1] = {4};
    char *fifo = cli_tmp("stream");
    clg_io_error err;
    unsigned char *bytes = NULL;
    size_t size = 0;
    clg_tensor v = cli_tensor(CLG_DTYPE_FLOAT, 1, shape, values);
    (void)state;

    /* version 1.0: the magic, 2 bytes of version, 2 of header length,
     * then the dictionary padded with spaces to a newline at byte 127 */
    memcpy(npy_head, "\x93NUMPY\x01\x00", 8);
    npy_head[8] = (char)(sizeof npy_head - 10);
    npy_head[9] = 0;
    memset(npy_head + 10, ' ', sizeof npy_head - 10);
    memcpy(npy_head + 10, dict, sizeof dict - 1);
    npy_head[sizeof npy_head - 1] = '\n';
    assert_int_equal(mkfifo(fifo, 0600), 0);

    /* a TensorProto's first field, then 0xff: no key ends in 5 bytes */
    expect_endless_refused(fifo, key, sizeof key, 0xff, READ_TENSOR_FILE,
                           "not a valid ONNX TensorProto (malformed or "
                           "truncated protobuf");
    expect_endless_refused(fifo, key, sizeof key, 0xff, READ_MODEL,
                           "not a valid ONNX model");
    /* a .npy header for 48 bytes of data, then zeros without end */
    expect_endless_refused(fifo, npy_head, sizeof npy_head, 0,
                           READ_TENSOR_FILE,
                           "trailing bytes: shape [3, 4] of '<f4' needs 48 "
                           "data bytes");
    expect_endless_refused(fifo, npy_head, sizeof npy_head, 0, READ_NPY, NULL);

    /* well-formed files through the FIFO are read whole */
    assert_int_equal(clg_npy_encode(&v, 0, &bytes, &size, &err), CLG_IO_OK);
    expect_read_whole(fifo, bytes, size, values);
    free(bytes);
    assert_int_equal(clg_onnx_encode_tensor(&v, "v", &bytes, &size, &err),
                     CLG_IO_OK);
    expect_read_whole(fifo, bytes, size, values);
    free(bytes);
    unlink(fifo);
    free(fifo);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reader_limit),
        cmocka_unit_test(test_reader_deep_and_truncated),
        cmocka_unit_test(test_deep_model_refused),
        cmocka_unit_test(test_claim_bounded),
        cmocka_unit_test(test_endless_streams),
    };
    return CLI_RUN_TESTS("clgather-limits", tests);
}
