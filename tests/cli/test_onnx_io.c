/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ONNX I/O of clgather_io: TensorProto round trips for every dtype, every
 * typed field ONNX writers use, clear errors naming the file and field,
 * and single-node model reading (opsets, axis, initializers, rejections).
 * Built with protobuf-c on the protoc-c output of Debian's onnx.proto.
 * No device needed.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cmocka.h>

#include "compare.h"
#include "io_tensor.h"
#include "onnx.pb-c.h"
#include "onnx_io.h"

static void expect_same(const clg_tensor *a, const clg_io_tensor *b)
{
    char detail[512];
    clg_tensor bv = clg_io_tensor_view(b);
    if (!clg_io_compare(a, &bv, detail, sizeof detail, NULL))
        fail_msg("%s %s", clg_dtype_name(a->dtype), detail);
}

/* ---------------------------------------------------------------- tensors */

static void test_round_trip_every_dtype(void **state)
{
    static const int64_t shapes[3][3] = {{2, 3}, {0}, {4, 0, 1}};
    static const size_t ranks[3] = {2, 0, 3};
    uint64_t rng = 42;
    (void)state;

    for (int d = 1; d <= 16; d++) {
        for (size_t s = 0; s < 3; s++) {
            clg_dtype dtype = (clg_dtype)d;
            size_t elem = clg_dtype_size(dtype);
            int64_t count = clg_io_shape_count(shapes[s], ranks[s], elem);
            unsigned char *data = calloc((size_t)count + 1, elem);
            clg_string *strings = (clg_string *)(void *)data;
            static const char pool[] = "gather\0elements";
            unsigned char *bytes = NULL;
            size_t size = 0;
            clg_io_tensor back;
            clg_io_error err;
            clg_tensor t;

            assert_non_null(data);
            for (int64_t i = 0; i < count; i++) {
                if (dtype == CLG_DTYPE_STRING) {
                    strings[i].data = pool + i % 7;
                    strings[i].length = (size_t)(i * 3) % 9;
                } else {
                    for (size_t b = 0; b < elem; b++) {
                        rng = rng * 6364136223846793005ull + 1;
                        data[(size_t)i * elem + b] = (unsigned char)(rng >>
                                                                     56);
                    }
                }
            }
            t.dtype = dtype;
            t.rank = ranks[s];
            t.shape = shapes[s];
            t.data = data;
            clg_io_tensor_init(&back);
            if (clg_onnx_encode_tensor(&t, "x", &bytes, &size, &err) !=
                CLG_IO_OK)
                fail_msg("encode %s: %s", clg_dtype_name(dtype), err.message);
            if (clg_onnx_decode_tensor(bytes, size, "x.pb", &back, &err) !=
                CLG_IO_OK)
                fail_msg("decode %s: %s", clg_dtype_name(dtype), err.message);
            expect_same(&t, &back);
            clg_io_tensor_free(&back);
            free(bytes);
            free(data);
        }
    }
}

/* Packs a hand-built TensorProto and decodes it. */
static clg_io_status decode_proto(const Onnx__TensorProto *tp,
                                  clg_io_tensor *out, clg_io_error *err)
{
    size_t size = onnx__tensor_proto__get_packed_size(tp);
    unsigned char *buf = malloc(size + 1);
    clg_io_status st;
    assert_non_null(buf);
    onnx__tensor_proto__pack(tp, buf);
    st = clg_onnx_decode_tensor(buf, size, "t.pb", out, err);
    free(buf);
    return st;
}

static void expect_typed(const Onnx__TensorProto *tp, clg_dtype dtype,
                         const void *expected, size_t count)
{
    int64_t shape[1];
    clg_tensor t;
    clg_io_tensor back;
    clg_io_error err;

    shape[0] = (int64_t)count;
    t.dtype = dtype;
    t.rank = 1;
    t.shape = shape;
    t.data = (void *)(uintptr_t)expected;
    clg_io_tensor_init(&back);
    if (decode_proto(tp, &back, &err) != CLG_IO_OK)
        fail_msg("%s: %s", clg_dtype_name(dtype), err.message);
    expect_same(&t, &back);
    clg_io_tensor_free(&back);
}

static Onnx__TensorProto vector_proto(clg_dtype dtype, int64_t *dims,
                                      int64_t n)
{
    Onnx__TensorProto tp = ONNX__TENSOR_PROTO__INIT;
    dims[0] = n;
    tp.n_dims = 1;
    tp.dims = dims;
    tp.has_data_type = 1;
    tp.data_type = (int32_t)dtype;
    return tp;
}

static void test_typed_fields(void **state)
{
    int64_t dims[1];
    Onnx__TensorProto tp;
    (void)state;

    {
        float f[2] = {1.5f, -0.0f};
        tp = vector_proto(CLG_DTYPE_FLOAT, dims, 2);
        tp.n_float_data = 2;
        tp.float_data = f;
        expect_typed(&tp, CLG_DTYPE_FLOAT, f, 2);
        tp = vector_proto(CLG_DTYPE_COMPLEX64, dims, 1);
        tp.n_float_data = 2; /* real, imaginary */
        tp.float_data = f;
        expect_typed(&tp, CLG_DTYPE_COMPLEX64, f, 1);
    }
    {
        /* ONNX packs the narrow types one per int32_data entry */
        int32_t v[2] = {-2, 300};
        int16_t i16[2] = {-2, 300};
        int32_t v8[2] = {-1, 127};
        int8_t i8[2] = {-1, 127};
        int32_t vu[2] = {65535, 7};
        uint16_t u16[2] = {65535, 7};
        int32_t vb[2] = {255, 1};
        uint8_t u8[2] = {255, 1};
        int32_t vbool[2] = {1, 0};
        uint8_t b[2] = {1, 0};
        int32_t vh[2] = {0x3c00, 0xfc00};
        uint16_t h[2] = {0x3c00, 0xfc00};

        tp = vector_proto(CLG_DTYPE_INT32, dims, 2);
        tp.n_int32_data = 2;
        tp.int32_data = v;
        expect_typed(&tp, CLG_DTYPE_INT32, v, 2);
        tp.data_type = CLG_DTYPE_INT16;
        expect_typed(&tp, CLG_DTYPE_INT16, i16, 2);
        tp.int32_data = v8;
        tp.data_type = CLG_DTYPE_INT8;
        expect_typed(&tp, CLG_DTYPE_INT8, i8, 2);
        tp.int32_data = vu;
        tp.data_type = CLG_DTYPE_UINT16;
        expect_typed(&tp, CLG_DTYPE_UINT16, u16, 2);
        tp.int32_data = vb;
        tp.data_type = CLG_DTYPE_UINT8;
        expect_typed(&tp, CLG_DTYPE_UINT8, u8, 2);
        tp.int32_data = vbool;
        tp.data_type = CLG_DTYPE_BOOL;
        expect_typed(&tp, CLG_DTYPE_BOOL, b, 2);
        tp.int32_data = vh;
        tp.data_type = CLG_DTYPE_FLOAT16;
        expect_typed(&tp, CLG_DTYPE_FLOAT16, h, 2);
        tp.data_type = CLG_DTYPE_BFLOAT16;
        expect_typed(&tp, CLG_DTYPE_BFLOAT16, h, 2);
    }
    {
        int64_t v[2] = {INT64_MIN, 5};
        double d[2] = {-0.0, 1e-310};
        uint64_t u[2] = {UINT64_MAX, 4000000000u};
        uint64_t u32_field[2] = {UINT32_MAX, 4000000000u};
        uint32_t u32[2] = {UINT32_MAX, 4000000000u};
        tp = vector_proto(CLG_DTYPE_INT64, dims, 2);
        tp.n_int64_data = 2;
        tp.int64_data = v;
        expect_typed(&tp, CLG_DTYPE_INT64, v, 2);
        tp = vector_proto(CLG_DTYPE_DOUBLE, dims, 2);
        tp.n_double_data = 2;
        tp.double_data = d;
        expect_typed(&tp, CLG_DTYPE_DOUBLE, d, 2);
        tp = vector_proto(CLG_DTYPE_COMPLEX128, dims, 1);
        tp.n_double_data = 2;
        tp.double_data = d;
        expect_typed(&tp, CLG_DTYPE_COMPLEX128, d, 1);
        tp = vector_proto(CLG_DTYPE_UINT64, dims, 2);
        tp.n_uint64_data = 2;
        tp.uint64_data = u;
        expect_typed(&tp, CLG_DTYPE_UINT64, u, 2);
        /* UINT32 values must fit: UINT64_MAX is refused
         * (test_out_of_range_values) */
        tp.data_type = CLG_DTYPE_UINT32;
        tp.uint64_data = u32_field;
        expect_typed(&tp, CLG_DTYPE_UINT32, u32, 2);
    }
    {
        ProtobufCBinaryData s[3] = {{2, (uint8_t *)"hi"},
                                    {0, NULL},
                                    {3, (uint8_t *)"a\0b"}};
        clg_string e[3] = {{"hi", 2}, {"", 0}, {"a\0b", 3}};
        tp = vector_proto(CLG_DTYPE_STRING, dims, 3);
        tp.n_string_data = 3;
        tp.string_data = s;
        expect_typed(&tp, CLG_DTYPE_STRING, e, 3);
    }
}

/* Empty tensors with no data field at all: dims [0] and a data_type, the
 * four bytes 08 00 10 <type>. Their typed fields are empty (NULL), and so
 * is the tensor's data: nothing may be copied between the two
 * (memcpy(NULL, NULL, 0) is undefined; UBSan stops on it). */
static void test_empty_typed_fields(void **state)
{
    (void)state;
    for (int d = 1; d <= 16; d++) {
        const unsigned char bytes[4] = {0x08, 0x00, 0x10, (unsigned char)d};
        clg_io_tensor back;
        clg_io_error err;
        clg_io_tensor_init(&back);
        if (clg_onnx_decode_tensor(bytes, sizeof bytes, "e.pb", &back, &err) !=
            CLG_IO_OK)
            fail_msg("%s: %s", clg_dtype_name((clg_dtype)d), err.message);
        assert_int_equal(back.dtype, d);
        assert_int_equal(back.rank, 1);
        assert_int_equal(back.shape[0], 0);
        assert_int_equal(back.count, 0);
        assert_int_equal(back.nbytes, 0);
        assert_null(back.data);
        clg_io_tensor_free(&back);
    }
}

static void expect_tensor_error(const Onnx__TensorProto *tp,
                                clg_io_status status, const char *text)
{
    clg_io_tensor back;
    clg_io_error err;
    clg_io_tensor_init(&back);
    err.message[0] = '\0';
    assert_int_equal(decode_proto(tp, &back, &err), status);
    if (strstr(err.message, text) == NULL)
        fail_msg("message '%s' lacks '%s'", err.message, text);
    assert_memory_equal(err.message, "t.pb: ", 6);
    assert_null(back.data);
}

static void test_tensor_errors(void **state)
{
    int64_t dims[1];
    int64_t neg[2] = {2, -1};
    float f[3] = {1, 2, 3};
    int64_t i64[2] = {1, 2};
    uint8_t raw[8] = {0};
    Onnx__TensorProto tp;
    Onnx__TensorProto__Segment seg = ONNX__TENSOR_PROTO__SEGMENT__INIT;
    Onnx__StringStringEntryProto loc = ONNX__STRING_STRING_ENTRY_PROTO__INIT;
    Onnx__StringStringEntryProto *entries[1] = {&loc};
    clg_io_tensor back;
    clg_io_error err;
    unsigned char buf[64];
    size_t size;
    (void)state;

    tp = vector_proto(CLG_DTYPE_INT64, dims, 2);
    tp.n_float_data = 2;
    tp.float_data = f;
    expect_tensor_error(&tp, CLG_IO_FORMAT_ERROR,
                        "field float_data: not valid for data_type INT64");
    tp = vector_proto(CLG_DTYPE_FLOAT, dims, 2);
    tp.n_float_data = 3;
    tp.float_data = f;
    expect_tensor_error(&tp, CLG_IO_FORMAT_ERROR,
                        "field float_data: 3 values, but FLOAT [2] needs 2");
    tp = vector_proto(CLG_DTYPE_FLOAT, dims, 2);
    expect_tensor_error(&tp, CLG_IO_FORMAT_ERROR,
                        "no data: FLOAT [2] needs 2 values in float_data or "
                        "raw_data");
    tp = vector_proto(CLG_DTYPE_INT64, dims, 1);
    tp.n_int64_data = 1;
    tp.int64_data = i64;
    tp.has_raw_data = 1;
    tp.raw_data.len = 8;
    tp.raw_data.data = raw;
    expect_tensor_error(&tp, CLG_IO_FORMAT_ERROR,
                        "fields raw_data and int64_data are both set");
    tp = vector_proto(CLG_DTYPE_INT64, dims, 2);
    tp.has_raw_data = 1;
    tp.raw_data.len = 8;
    tp.raw_data.data = raw;
    expect_tensor_error(&tp, CLG_IO_FORMAT_ERROR,
                        "field raw_data: 8 bytes, but INT64 [2] needs 16");
    tp = vector_proto(CLG_DTYPE_STRING, dims, 1);
    tp.has_raw_data = 1;
    tp.raw_data.len = 8;
    tp.raw_data.data = raw;
    expect_tensor_error(&tp, CLG_IO_FORMAT_ERROR,
                        "STRING tensors must use string_data");
    tp = vector_proto(CLG_DTYPE_FLOAT, dims, 0);
    tp.has_data_type = 0;
    expect_tensor_error(&tp, CLG_IO_FORMAT_ERROR,
                        "field data_type: missing or UNDEFINED");
    tp = vector_proto((clg_dtype)17, dims, 1);
    tp.has_raw_data = 1;
    tp.raw_data.len = 1;
    tp.raw_data.data = raw;
    expect_tensor_error(&tp, CLG_IO_UNSUPPORTED,
                        "field data_type: 17 (FLOAT8E4M3FN) is not "
                        "supported");
    tp = vector_proto(CLG_DTYPE_FLOAT, dims, 0);
    tp.n_dims = 2;
    tp.dims = neg;
    expect_tensor_error(&tp, CLG_IO_FORMAT_ERROR,
                        "field dims: dimension 1 is -1");
    tp = vector_proto(CLG_DTYPE_FLOAT, dims, 2);
    tp.has_data_location = 1;
    tp.data_location = ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL;
    loc.key = "location";
    loc.value = "weights.bin";
    tp.n_external_data = 1;
    tp.external_data = entries;
    tp.name = "w";
    expect_tensor_error(&tp, CLG_IO_UNSUPPORTED,
                        "field external_data: tensor 'w' keeps its data in "
                        "external file 'weights.bin'");
    tp = vector_proto(CLG_DTYPE_FLOAT, dims, 2);
    tp.segment = &seg;
    expect_tensor_error(&tp, CLG_IO_UNSUPPORTED, "field segment");

    /* truncated inside raw_data: protobuf-c refuses it */
    tp = vector_proto(CLG_DTYPE_INT64, dims, 1);
    tp.has_raw_data = 1;
    tp.raw_data.len = 8;
    tp.raw_data.data = raw;
    size = onnx__tensor_proto__get_packed_size(&tp);
    assert_true(size <= sizeof buf);
    onnx__tensor_proto__pack(&tp, buf);
    clg_io_tensor_init(&back);
    assert_int_equal(clg_onnx_decode_tensor(buf, size - 3, "t.pb", &back,
                                            &err),
                     CLG_IO_FORMAT_ERROR);
    assert_non_null(strstr(err.message,
                           "t.pb: not a valid ONNX TensorProto (malformed or "
                           "truncated protobuf"));
}

/* ---------------------------------------------------------------- models */

/* A Gather model whose parts tests can change before packing. */
typedef struct kit {
    Onnx__ModelProto model;
    Onnx__OperatorSetIdProto opset;
    Onnx__OperatorSetIdProto *opsets[1];
    Onnx__GraphProto graph;
    Onnx__NodeProto node;
    Onnx__NodeProto *nodes[2];
    Onnx__AttributeProto attr;
    Onnx__AttributeProto *attrs[1];
    Onnx__ValueInfoProto in[2], out;
    Onnx__ValueInfoProto *ins[2], *outs[1];
    Onnx__TensorProto init;
    Onnx__TensorProto *inits[1];
    char *node_inputs[2];
    char *node_outputs[1];
    int64_t init_dims[1];
    int64_t init_values[2];
} kit;

static void kit_init(kit *k)
{
    static const Onnx__ModelProto model = ONNX__MODEL_PROTO__INIT;
    static const Onnx__OperatorSetIdProto opset =
        ONNX__OPERATOR_SET_ID_PROTO__INIT;
    static const Onnx__GraphProto graph = ONNX__GRAPH_PROTO__INIT;
    static const Onnx__NodeProto node = ONNX__NODE_PROTO__INIT;
    static const Onnx__AttributeProto attr = ONNX__ATTRIBUTE_PROTO__INIT;
    static const Onnx__ValueInfoProto vi = ONNX__VALUE_INFO_PROTO__INIT;
    static const Onnx__TensorProto tp = ONNX__TENSOR_PROTO__INIT;

    k->model = model;
    k->opset = opset;
    k->graph = graph;
    k->node = node;
    k->attr = attr;
    k->in[0] = vi;
    k->in[1] = vi;
    k->out = vi;
    k->init = tp;

    k->opset.domain = "";
    k->opset.has_version = 1;
    k->opset.version = 13;
    k->opsets[0] = &k->opset;
    k->model.n_opset_import = 1;
    k->model.opset_import = k->opsets;
    k->model.has_ir_version = 1;
    k->model.ir_version = 8;
    k->model.graph = &k->graph;

    k->node_inputs[0] = "data";
    k->node_inputs[1] = "indices";
    k->node_outputs[0] = "y";
    k->node.op_type = "Gather";
    k->node.n_input = 2;
    k->node.input = k->node_inputs;
    k->node.n_output = 1;
    k->node.output = k->node_outputs;
    k->attr.name = "axis";
    k->attr.has_type = 1;
    k->attr.type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT;
    k->attr.has_i = 1;
    k->attr.i = -1;
    k->attrs[0] = &k->attr;
    k->node.n_attribute = 1;
    k->node.attribute = k->attrs;
    k->nodes[0] = &k->node;
    k->nodes[1] = &k->node;
    k->graph.n_node = 1;
    k->graph.node = k->nodes;

    k->in[0].name = "data";
    k->in[1].name = "indices";
    k->out.name = "y";
    k->ins[0] = &k->in[0];
    k->ins[1] = &k->in[1];
    k->outs[0] = &k->out;
    k->graph.n_input = 2;
    k->graph.input = k->ins;
    k->graph.n_output = 1;
    k->graph.output = k->outs;

    k->init_dims[0] = 2;
    k->init_values[0] = 1;
    k->init_values[1] = -1;
    k->init.name = "indices";
    k->init.n_dims = 1;
    k->init.dims = k->init_dims;
    k->init.has_data_type = 1;
    k->init.data_type = CLG_DTYPE_INT64;
    k->init.n_int64_data = 2;
    k->init.int64_data = k->init_values;
    k->inits[0] = &k->init;
}

static clg_io_status kit_decode(const kit *k, clg_onnx_model *m,
                                clg_io_error *err)
{
    size_t size = onnx__model_proto__get_packed_size(&k->model);
    unsigned char *buf = malloc(size + 1);
    clg_io_status st;
    assert_non_null(buf);
    onnx__model_proto__pack(&k->model, buf);
    st = clg_onnx_decode_model(buf, size, "m.onnx", m, err);
    free(buf);
    return st;
}

static void kit_ok(const kit *k, clg_onnx_model *m)
{
    clg_io_error err;
    if (kit_decode(k, m, &err) != CLG_IO_OK)
        fail_msg("%s", err.message);
}

static void test_model_gather(void **state)
{
    kit k;
    clg_onnx_model m;
    (void)state;

    kit_init(&k);
    clg_onnx_model_init(&m);
    kit_ok(&k, &m);
    assert_int_equal(m.op, CLG_OP_GATHER);
    assert_string_equal(m.op_type, "Gather");
    assert_int_equal(m.opset, 13);
    assert_int_equal(m.op_version, 13);
    assert_int_equal(m.axis, -1);
    assert_int_equal(m.input_count, 2);
    assert_int_equal(m.data.input_index, 0);
    assert_int_equal(m.indices.input_index, 1);
    assert_string_equal(m.output_name, "y");

    /* axis defaults to 0; the opset selects the operator version */
    k.node.n_attribute = 0;
    k.opset.version = 1;
    kit_ok(&k, &m);
    assert_int_equal(m.axis, 0);
    assert_int_equal(m.op_version, 1);
    k.opset.version = 12;
    k.opset.domain = "ai.onnx";
    kit_ok(&k, &m);
    assert_int_equal(m.op_version, 11);
    k.opset.version = 21;
    kit_ok(&k, &m);
    assert_int_equal(m.op_version, 13);

    k.node.op_type = "GatherElements";
    k.opset.version = 11;
    kit_ok(&k, &m);
    assert_int_equal(m.op, CLG_OP_GATHER_ELEMENTS);
    assert_int_equal(m.op_version, 11);
    clg_onnx_model_free(&m);
}

static void test_model_initializers(void **state)
{
    static const int64_t values[2] = {1, -1};
    static const int64_t shape[1] = {2};
    clg_tensor expected = {CLG_DTYPE_INT64, 1, shape,
                           (void *)(uintptr_t)values};
    kit k;
    clg_onnx_model m;
    (void)state;

    kit_init(&k);
    clg_onnx_model_init(&m);
    k.graph.n_initializer = 1;
    k.graph.initializer = k.inits;
    /* listed among the graph inputs too (older IR): not a runtime input */
    kit_ok(&k, &m);
    assert_int_equal(m.input_count, 1);
    assert_int_equal(m.data.input_index, 0);
    assert_int_equal(m.indices.input_index, -1);
    expect_same(&expected, &m.indices.value);
    /* not listed (IR >= 4) */
    k.graph.n_input = 1;
    kit_ok(&k, &m);
    assert_int_equal(m.input_count, 1);
    assert_int_equal(m.indices.input_index, -1);
    expect_same(&expected, &m.indices.value);
    /* the data as the initializer: indices become input_0.pb */
    k.init.name = "data";
    k.graph.n_input = 2;
    kit_ok(&k, &m);
    assert_int_equal(m.input_count, 1);
    assert_int_equal(m.data.input_index, -1);
    assert_int_equal(m.indices.input_index, 0);
    clg_onnx_model_free(&m);
}

static void expect_model_error(const kit *k, clg_io_status status,
                               const char *text)
{
    clg_onnx_model m;
    clg_io_error err;
    clg_onnx_model_init(&m);
    err.message[0] = '\0';
    assert_int_equal(kit_decode(k, &m, &err), status);
    if (strstr(err.message, text) == NULL)
        fail_msg("message '%s' lacks '%s'", err.message, text);
    assert_memory_equal(err.message, "m.onnx: ", 8);
    clg_onnx_model_free(&m);
}

static void test_model_rejections(void **state)
{
    kit k;
    char *one_input[1] = {"data"};
    (void)state;

    kit_init(&k);
    k.node.op_type = "GatherNd";
    expect_model_error(&k, CLG_IO_UNSUPPORTED,
                       "the node is 'GatherNd', not Gather, GatherElements "
                       "or GatherND");
    /* GatherND-11 has no batch_dims; 12 has. */
    kit_init(&k);
    k.node.op_type = "GatherND";
    k.attr.name = "batch_dims";
    k.opset.version = 11;
    expect_model_error(&k, CLG_IO_UNSUPPORTED,
                       "GatherND-11 has no attribute 'batch_dims' (version "
                       "12 added it)");
    kit_init(&k);
    k.node.op_type = "GatherND";
    k.attr.name = "batch_dims";
    k.opset.version = 12;
    {
        clg_onnx_model nd;
        clg_onnx_model_init(&nd);
        kit_ok(&k, &nd);
        assert_int_equal(nd.op, CLG_OP_GATHER_ND);
        assert_int_equal(nd.op_version, 12);
        clg_onnx_model_free(&nd);
    }
    kit_init(&k);
    k.graph.n_node = 2;
    expect_model_error(&k, CLG_IO_UNSUPPORTED, "the graph has 2 nodes");
    kit_init(&k);
    k.graph.n_node = 0;
    expect_model_error(&k, CLG_IO_UNSUPPORTED, "the graph has 0 nodes");
    kit_init(&k);
    k.node.op_type = "GatherElements";
    k.opset.version = 10;
    expect_model_error(&k, CLG_IO_UNSUPPORTED,
                       "GatherElements needs opset >= 11");
    kit_init(&k);
    k.opset.domain = "com.microsoft";
    expect_model_error(&k, CLG_IO_UNSUPPORTED,
                       "no opset_import for the default ONNX domain");
    kit_init(&k);
    k.node.domain = "com.example";
    expect_model_error(&k, CLG_IO_UNSUPPORTED, "is in domain 'com.example'");
    kit_init(&k);
    k.attr.name = "batch_dims";
    expect_model_error(&k, CLG_IO_UNSUPPORTED,
                       "unsupported attribute 'batch_dims'");
    kit_init(&k);
    k.attr.type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT;
    expect_model_error(&k, CLG_IO_FORMAT_ERROR,
                       "attribute 'axis' is not an integer");
    kit_init(&k);
    k.node.n_input = 1;
    k.node.input = one_input;
    expect_model_error(&k, CLG_IO_FORMAT_ERROR,
                       "Gather node has 1 inputs and 1 outputs");
    kit_init(&k);
    k.in[1].name = "other";
    expect_model_error(&k, CLG_IO_FORMAT_ERROR,
                       "the node's indices input 'indices' is neither a "
                       "graph input nor an initializer");
    kit_init(&k);
    k.out.name = "z";
    expect_model_error(&k, CLG_IO_FORMAT_ERROR,
                       "the graph must have one output, the node's 'y'");
    kit_init(&k);
    k.model.graph = NULL;
    expect_model_error(&k, CLG_IO_FORMAT_ERROR, "the model has no graph");
    kit_init(&k);
    k.graph.n_initializer = 1;
    k.graph.initializer = k.inits;
    k.init.n_int64_data = 1; /* dims say 2 */
    expect_model_error(&k, CLG_IO_FORMAT_ERROR,
                       "initializer 'indices': field int64_data: 1 values");
}

static void test_model_truncated_and_missing(void **state)
{
    kit k;
    clg_onnx_model m;
    clg_io_error err;
    unsigned char *buf;
    size_t size;
    (void)state;

    kit_init(&k);
    clg_onnx_model_init(&m);
    size = onnx__model_proto__get_packed_size(&k.model);
    buf = malloc(size);
    assert_non_null(buf);
    onnx__model_proto__pack(&k.model, buf);
    assert_int_equal(clg_onnx_decode_model(buf, size / 2, "m.onnx", &m, &err),
                     CLG_IO_FORMAT_ERROR);
    assert_non_null(strstr(err.message, "m.onnx: not a valid ONNX model"));
    free(buf);
    assert_int_equal(clg_onnx_read_model("/nonexistent/model.onnx", &m, &err),
                     CLG_IO_FILE_ERROR);
    assert_string_equal(err.message,
                        "/nonexistent/model.onnx: cannot open: No such file "
                        "or directory");
}

/* ---------------------------------------------------------------- compare */

/* ---------------------------------------------------------------- bounds */

static struct rlimit g_saved_as;

/* Lets this process map at most `headroom` more bytes than it has now, so
 * that a reader which allocates what a shape claims, rather than what the
 * file holds, fails here instead of passing on an overcommitting host. */
static void limit_address_space(size_t headroom)
{
    FILE *f = fopen("/proc/self/statm", "r");
    unsigned long pages = 0;
    struct rlimit r;
    assert_non_null(f);
    assert_int_equal(fscanf(f, "%lu", &pages), 1);
    fclose(f);
    assert_int_equal(getrlimit(RLIMIT_AS, &g_saved_as), 0);
    r = g_saved_as;
    r.rlim_cur = (rlim_t)pages * (rlim_t)sysconf(_SC_PAGESIZE) + headroom;
    if (r.rlim_max != RLIM_INFINITY && r.rlim_cur > r.rlim_max)
        r.rlim_cur = r.rlim_max;
    assert_int_equal(setrlimit(RLIMIT_AS, &r), 0);
}

static void restore_address_space(void)
{
    assert_int_equal(setrlimit(RLIMIT_AS, &g_saved_as), 0);
}

/* Decodes tp with 256 MiB of address space to spare; the message must be
 * `text` exactly. */
static void expect_bounded_error(const Onnx__TensorProto *tp, const char *text)
{
    clg_io_tensor back;
    clg_io_error err;
    clg_io_status st;
    clg_io_tensor_init(&back);
    err.message[0] = '\0';
    limit_address_space((size_t)256 << 20);
    st = decode_proto(tp, &back, &err);
    restore_address_space();
    assert_string_equal(err.message, text);
    assert_int_equal(st, CLG_IO_FORMAT_ERROR);
    assert_null(back.data);
}

/* A TensorProto's payload is checked against its shape before anything is
 * allocated: an 8-byte file claiming 1506262861 INT64 values (12 GB) is
 * "no data", not a 12 GB allocation; so is 2^41 values, which once said
 * "cannot allocate". Model initializers are read the same way. */
static void test_payload_checked_before_allocation(void **state)
{
    int64_t dims[1];
    uint8_t raw[8] = {0};
    ProtobufCBinaryData one[1] = {{1, (uint8_t *)"x"}};
    Onnx__TensorProto tp;
    unsigned char small[16];
    kit k;
    clg_onnx_model m;
    clg_io_error err;
    clg_io_status st;
    (void)state;

    tp = vector_proto(CLG_DTYPE_INT64, dims, 1506262861);
    assert_int_equal(onnx__tensor_proto__get_packed_size(&tp), 8);
    assert_int_equal(onnx__tensor_proto__pack(&tp, small), 8);
    expect_bounded_error(&tp, "t.pb: no data: INT64 [1506262861] needs "
                              "1506262861 values in int64_data or raw_data");
    tp = vector_proto(CLG_DTYPE_INT64, dims, (int64_t)1 << 41);
    expect_bounded_error(&tp, "t.pb: no data: INT64 [2199023255552] needs "
                              "2199023255552 values in int64_data or "
                              "raw_data");
    tp.has_raw_data = 1;
    tp.raw_data.len = sizeof raw;
    tp.raw_data.data = raw;
    expect_bounded_error(&tp, "t.pb: field raw_data: 8 bytes, but INT64 "
                              "[2199023255552] needs 17592186044416");
    tp = vector_proto(CLG_DTYPE_STRING, dims, (int64_t)1 << 40);
    tp.n_string_data = 1;
    tp.string_data = one;
    expect_bounded_error(&tp, "t.pb: field string_data: 1 values, but STRING "
                              "[1099511627776] needs 1099511627776");

    kit_init(&k);
    clg_onnx_model_init(&m);
    k.graph.n_initializer = 1;
    k.graph.initializer = k.inits;
    k.init_dims[0] = 1506262861;
    k.init.n_int64_data = 0;
    err.message[0] = '\0';
    limit_address_space((size_t)256 << 20);
    st = kit_decode(&k, &m, &err);
    restore_address_space();
    assert_string_equal(err.message,
                        "m.onnx: initializer 'indices': no data: INT64 "
                        "[1506262861] needs 1506262861 values in int64_data "
                        "or raw_data");
    assert_int_equal(st, CLG_IO_FORMAT_ERROR);
    assert_null(m.indices.value.data);
    clg_onnx_model_free(&m);
}

/* One narrowing case: `dtype` stored in its wider typed field. */
typedef struct narrow_case {
    clg_dtype dtype;
    int64_t min, max; /* the values the dtype holds */
    const char *range;
} narrow_case;

static const narrow_case narrow_cases[] = {
    {CLG_DTYPE_INT8, -128, 127, "-128 to 127"},
    {CLG_DTYPE_UINT8, 0, 255, "0 to 255"},
    {CLG_DTYPE_INT16, -32768, 32767, "-32768 to 32767"},
    {CLG_DTYPE_UINT16, 0, 65535, "0 to 65535"},
    {CLG_DTYPE_BOOL, 0, 1, "0 to 1"},
    {CLG_DTYPE_FLOAT16, 0, 65535, "0 to 65535, a 16-bit pattern"},
    {CLG_DTYPE_BFLOAT16, 0, 65535, "0 to 65535, a 16-bit pattern"},
    {CLG_DTYPE_UINT32, 0, 4294967295, "0 to 4294967295"},
};

/* A [2, 2] tensor `x` of c->dtype holding {min, max, bad, min} in its
 * typed field (uint64_data for UINT32, else int32_data). */
static clg_io_status decode_narrow(const narrow_case *c, int64_t bad,
                                   clg_io_tensor *back, clg_io_error *err)
{
    int64_t dims[2] = {2, 2};
    int32_t i32[4] = {(int32_t)c->min, (int32_t)c->max, (int32_t)bad,
                      (int32_t)c->min};
    uint64_t u64[4] = {(uint64_t)c->min, (uint64_t)c->max, (uint64_t)bad,
                       (uint64_t)c->min};
    Onnx__TensorProto tp = ONNX__TENSOR_PROTO__INIT;
    tp.n_dims = 2;
    tp.dims = dims;
    tp.has_data_type = 1;
    tp.data_type = (int32_t)c->dtype;
    tp.name = "x";
    if (c->dtype == CLG_DTYPE_UINT32) {
        tp.n_uint64_data = 4;
        tp.uint64_data = u64;
    } else {
        tp.n_int32_data = 4;
        tp.int32_data = i32;
    }
    err->message[0] = '\0';
    return decode_proto(&tp, back, err);
}

/* A value of a typed field that does not fit the dtype it is stored for
 * is refused, with the tensor, the position and the value named: INT8
 * 1000 once became -24 and BOOL 7 a byte 7. Each dtype's own limits are
 * accepted. */
static void test_out_of_range_values(void **state)
{
    char want[256];
    (void)state;

    for (size_t i = 0; i < sizeof narrow_cases / sizeof narrow_cases[0]; i++) {
        const narrow_case *c = &narrow_cases[i];
        const int64_t bad[2] = {c->min - 1, c->max + 1};
        const char *field = c->dtype == CLG_DTYPE_UINT32 ? "uint64_data"
                                                         : "int32_data";
        clg_io_tensor back;
        clg_io_error err;

        clg_io_tensor_init(&back);
        if (decode_narrow(c, c->max, &back, &err) != CLG_IO_OK)
            fail_msg("%s: %s", clg_dtype_name(c->dtype), err.message);
        assert_int_equal(back.count, 4);
        clg_io_tensor_free(&back);
        for (int b = 0; b < 2; b++) {
            /* UINT32 below 0 is 2^64-1 in a uint64 field */
            unsigned long long shown = (unsigned long long)bad[b];
            if (c->dtype == CLG_DTYPE_UINT32)
                snprintf(want, sizeof want,
                         "t.pb: tensor 'x': %s[2] = %llu (element [1, 0]) "
                         "is out of range for %s (%s)",
                         field, shown, clg_dtype_name(c->dtype), c->range);
            else
                snprintf(want, sizeof want,
                         "t.pb: tensor 'x': %s[2] = %lld (element [1, 0]) "
                         "is out of range for %s (%s)",
                         field, (long long)bad[b], clg_dtype_name(c->dtype),
                         c->range);
            assert_int_equal(decode_narrow(c, bad[b], &back, &err),
                             CLG_IO_FORMAT_ERROR);
            assert_string_equal(err.message, want);
            assert_null(back.data);
        }
    }
}

/* The same holds for a model's initializers. */
static void test_out_of_range_initializer(void **state)
{
    int32_t values[3] = {1, 1000, 2};
    kit k;
    clg_onnx_model m;
    clg_io_error err;
    (void)state;

    kit_init(&k);
    clg_onnx_model_init(&m);
    k.graph.n_initializer = 1;
    k.graph.initializer = k.inits;
    k.init.name = "data";
    k.init.data_type = CLG_DTYPE_INT8;
    k.init_dims[0] = 3;
    k.init.n_int64_data = 0;
    k.init.n_int32_data = 3;
    k.init.int32_data = values;
    err.message[0] = '\0';
    assert_int_equal(kit_decode(&k, &m, &err), CLG_IO_FORMAT_ERROR);
    assert_string_equal(err.message,
                        "m.onnx: initializer 'data': tensor 'data': "
                        "int32_data[1] = 1000 (element [1]) is out of range "
                        "for INT8 (-128 to 127)");
    clg_onnx_model_free(&m);
}

static void test_compare_and_format(void **state)
{
    static const float a[4] = {1.0f, 2.0f, 3.0f, 4.0f};
    static const float b[4] = {1.0f, 2.0f, -3.0f, 4.0f};
    static const int64_t s22[2] = {2, 2};
    static const int64_t s4[1] = {4};
    uint32_t nan1 = 0x7fc00001, nan2 = 0x7fc00002;
    float fn1, fn2;
    int64_t pos;
    char detail[256], buf[128];
    clg_tensor ta = {CLG_DTYPE_FLOAT, 2, s22, (void *)(uintptr_t)a};
    clg_tensor tb = {CLG_DTYPE_FLOAT, 2, s22, (void *)(uintptr_t)b};
    clg_tensor tc = {CLG_DTYPE_FLOAT, 1, s4, (void *)(uintptr_t)a};
    clg_tensor td = {CLG_DTYPE_INT32, 2, s22, (void *)(uintptr_t)a};
    clg_tensor tn1 = {CLG_DTYPE_FLOAT, 0, NULL, &fn1};
    clg_tensor tn2 = {CLG_DTYPE_FLOAT, 0, NULL, &fn2};
    (void)state;

    assert_true(clg_io_compare(&ta, &ta, detail, sizeof detail, &pos));
    assert_int_equal(pos, -1);
    assert_false(clg_io_compare(&ta, &tb, detail, sizeof detail, &pos));
    assert_int_equal(pos, 2);
    assert_string_equal(detail, "[1][0]: expected 3 (0x40400000), got -3 "
                                "(0xc0400000)");
    assert_false(clg_io_compare(&ta, &tc, detail, sizeof detail, NULL));
    assert_string_equal(detail, "shape: expected [2, 2], got [4]");
    assert_false(clg_io_compare(&ta, &td, detail, sizeof detail, NULL));
    assert_string_equal(detail, "dtype: expected FLOAT, got INT32");
    /* bitwise: NaN payloads differ, -0.0 != 0.0 */
    memcpy(&fn1, &nan1, 4);
    memcpy(&fn2, &nan2, 4);
    assert_true(clg_io_compare(&tn1, &tn1, NULL, 0, NULL));
    assert_false(clg_io_compare(&tn1, &tn2, detail, sizeof detail, NULL));
    assert_string_equal(detail, "[]: expected nan (0x7fc00001), got nan "
                                "(0x7fc00002)");

    {
        uint16_t h = 0x3555;   /* 0.333251953125 */
        uint16_t sub = 0x0001; /* 2^-24 */
        uint16_t bf = 0xbf80;
        double d = 0.1;
        int64_t i = -5;
        uint8_t bo = 1;
        clg_string s = {"a\"b\n\x01", 5};
        assert_string_equal(clg_io_format_value(buf, sizeof buf,
                                                CLG_DTYPE_FLOAT16, &h),
                            "0.333251953 (0x3555)");
        assert_string_equal(clg_io_format_value(buf, sizeof buf,
                                                CLG_DTYPE_FLOAT16, &sub),
                            "5.96046448e-08 (0x0001)");
        assert_string_equal(clg_io_format_value(buf, sizeof buf,
                                                CLG_DTYPE_BFLOAT16, &bf),
                            "-1 (0xbf80)");
        assert_string_equal(clg_io_format_value(buf, sizeof buf,
                                                CLG_DTYPE_DOUBLE, &d),
                            "0.10000000000000001 (0x3fb999999999999a)");
        assert_string_equal(clg_io_format_value(buf, sizeof buf,
                                                CLG_DTYPE_INT64, &i),
                            "-5");
        assert_string_equal(clg_io_format_value(buf, sizeof buf,
                                                CLG_DTYPE_BOOL, &bo),
                            "true");
        assert_string_equal(clg_io_format_value(buf, sizeof buf,
                                                CLG_DTYPE_STRING, &s),
                            "\"a\\\"b\\x0a\\x01\"");
    }
    assert_string_equal(clg_io_format_position(buf, sizeof buf, s22, 2, 3),
                        "[1][1]");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip_every_dtype),
        cmocka_unit_test(test_typed_fields),
        cmocka_unit_test(test_empty_typed_fields),
        cmocka_unit_test(test_tensor_errors),
        cmocka_unit_test(test_model_gather),
        cmocka_unit_test(test_model_initializers),
        cmocka_unit_test(test_model_rejections),
        cmocka_unit_test(test_model_truncated_and_missing),
        cmocka_unit_test(test_payload_checked_before_allocation),
        cmocka_unit_test(test_out_of_range_values),
        cmocka_unit_test(test_out_of_range_initializer),
        cmocka_unit_test(test_compare_and_format),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
