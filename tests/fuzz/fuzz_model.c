/* SPDX-License-Identifier: Apache-2.0 */
/* libFuzzer target: the model loader of `clgather onnx-test`,
 * clg_onnx_decode_model (io/onnx_io.h): one Gather, GatherElements or
 * GatherND node, its operands resolved to graph inputs or initializers.
 *
 * Single allocations are bounded by the input's size. The verdict and
 * what is read are checked against an oracle written here from
 * onnx_io.h's rules over protobuf-c's own unpacking of the same bytes:
 * the node, its opset and axis, which operand is which graph input or
 * initializer, and each initializer's values (fuzz_proto.h); a file nested
 * deeper than CLG_ONNX_MAX_NESTING is refused as such, exactly when the
 * oracle's own walk of the bytes finds it (the oracle unpacks only the
 * others: protobuf-c recurses without a limit). A model read
 * with two initializers is then run on the CPU reference, as onnx-test
 * would, on exact-size buffers. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"
#include "fuzz_proto.h"
#include "onnx_io.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Names longer than clg_onnx_operand's 255 characters: the header does not
 * say what the reader makes of them, so the verdict is not checked. */
#define NAME_MAX_LEN 255

typedef struct expect {
    const char *rule; /* the first rule broken; NULL when valid */
    int long_names;   /* a node name longer than NAME_MAX_LEN */
    const Onnx__GraphProto *graph;
    const Onnx__NodeProto *node;
    int64_t opset, axis;
} expect;

static const char *str(const char *s)
{
    return s != NULL ? s : "";
}

static int default_domain(const char *d)
{
    return d == NULL || d[0] == '\0' || strcmp(d, "ai.onnx") == 0;
}

static const Onnx__TensorProto *initializer(const Onnx__GraphProto *g,
                                            const char *name)
{
    for (size_t i = 0; i < g->n_initializer; i++)
        if (strcmp(str(g->initializer[i]->name), name) == 0)
            return g->initializer[i];
    return NULL;
}

/* The position of `name` among the graph inputs fed from input_N.pb
 * (those without an initializer of their name), or -1. */
static int runtime_index(const Onnx__GraphProto *g, const char *name)
{
    int k = 0;
    for (size_t i = 0; i < g->n_input; i++) {
        const char *in = str(g->input[i]->name);
        if (initializer(g, in) != NULL)
            continue;
        if (strcmp(in, name) == 0)
            return k;
        k++;
    }
    return -1;
}

/* The type the first graph input named `name` declares, or NULL. */
static const Onnx__TypeProto *declared(const Onnx__GraphProto *g,
                                       const char *name)
{
    for (size_t i = 0; i < g->n_input; i++)
        if (strcmp(str(g->input[i]->name), name) == 0)
            return g->input[i]->type;
    return NULL;
}

static const char *operand_rule(const Onnx__GraphProto *g, const char *name)
{
    const Onnx__TensorProto *init;
    const Onnx__TypeProto *type;
    if (name[0] == '\0')
        return "an input without a name";
    if (runtime_index(g, name) >= 0) {
        type = declared(g, name);
        if (type != NULL &&
            type->value_case != ONNX__TYPE_PROTO__VALUE__NOT_SET &&
            (type->value_case != ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE ||
             type->tensor_type == NULL))
            return "a runtime input declared other than a tensor";
        return NULL;
    }
    init = initializer(g, name);
    if (init == NULL)
        return "an input that is neither a graph input nor an initializer";
    return fuzz_proto_valid(init, NULL, 0) ? NULL : "a bad initializer";
}

/* The node's attributes: only 'axis', an integer (its last value). */
/* The node's one integer attribute: `name` (axis; GatherND's batch_dims,
 * which version 11 lacks: `nd11`). */
static const char *attribute_rule(const Onnx__NodeProto *n, const char *name,
                                  int nd11, int64_t *axis)
{
    *axis = 0;
    for (size_t i = 0; i < n->n_attribute; i++) {
        const Onnx__AttributeProto *a = n->attribute[i];
        if (strcmp(str(a->name), name) != 0)
            return "an attribute other than the operator's";
        if ((a->has_type &&
             a->type != ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT) ||
            (!a->has_type && !a->has_i) || str(a->ref_attr_name)[0] != '\0')
            return "an axis that is not an integer";
        if (nd11)
            return "batch_dims on GatherND-11";
        *axis = a->i;
    }
    return NULL;
}

/* The opset of the default domain (its last opset_import), the node. */
static const char *graph_rule(const Onnx__ModelProto *m, expect *e)
{
    int have = 0;
    for (size_t i = 0; i < m->n_opset_import; i++)
        if (default_domain(m->opset_import[i]->domain)) {
            e->opset = m->opset_import[i]->has_version
                           ? m->opset_import[i]->version
                           : 0;
            have = 1;
        }
    if (m->graph == NULL)
        return "no graph";
    e->graph = m->graph;
    if (!have)
        return "no opset of the default domain";
    if (m->graph->n_node != 1)
        return "not one node";
    e->node = m->graph->node[0];
    if (!default_domain(e->node->domain))
        return "a node of another domain";
    return NULL;
}

static const char *node_rule(expect *e)
{
    const Onnx__NodeProto *n = e->node;
    const Onnx__GraphProto *g = e->graph;
    const char *op = str(n->op_type), *rule;
    int nd = strcmp(op, "GatherND") == 0;
    if (!(strcmp(op, "Gather") == 0 && e->opset >= 1) &&
        !(strcmp(op, "GatherElements") == 0 && e->opset >= 11) &&
        !(nd && e->opset >= 11))
        return "not Gather (opset >= 1), GatherElements or GatherND (opset "
               ">= 11)";
    if (n->n_input != 2 || n->n_output != 1)
        return "not two inputs and one output";
    for (size_t k = 0; k < 2; k++)
        e->long_names |= strlen(n->input[k]) > NAME_MAX_LEN;
    e->long_names |= strlen(n->output[0]) > NAME_MAX_LEN;
    if ((rule = attribute_rule(n, nd ? "batch_dims" : "axis",
                               nd && e->opset < 12, &e->axis)) != NULL ||
        (rule = operand_rule(g, n->input[0])) != NULL ||
        (rule = operand_rule(g, n->input[1])) != NULL)
        return rule;
    if (g->n_output != 1 || strcmp(str(g->output[0]->name), n->output[0]))
        return "a graph output that is not the node's only output";
    return NULL;
}

static void oracle(const Onnx__ModelProto *m, int too_deep, expect *e)
{
    memset(e, 0, sizeof *e);
    if (too_deep) {
        e->rule = "messages nested too deep";
        return;
    }
    if (m == NULL) {
        e->rule = "malformed protobuf";
        return;
    }
    e->rule = graph_rule(m, e);
    if (e->rule == NULL)
        e->rule = node_rule(e);
}

/* ---------------------------------------------------------------- checks */

/* What a runtime operand declares: the type's elem_type (0 when left
 * out) and shape (rank -1 when left out; -1 for a dimension without a
 * dim_value). */
static void check_declared(const Onnx__TypeProto *type,
                           const clg_onnx_operand *op, const char *name)
{
    const Onnx__TypeProto__Tensor *tt =
        type != NULL && type->value_case == ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE
            ? type->tensor_type
            : NULL;
    const Onnx__TensorShapeProto *shape = tt != NULL ? tt->shape : NULL;
    int32_t elem = tt != NULL && tt->has_elem_type ? tt->elem_type : 0;
    int rank = shape == NULL                 ? -1
               : shape->n_dim > CLG_MAX_RANK ? CLG_MAX_RANK + 1
                                             : (int)shape->n_dim;
    FUZZ_CHECK(op->declared_type == elem && op->declared_rank == rank,
               "operand '%s' declared type %d rank %d; the model says %d, %d",
               name, (int)op->declared_type, op->declared_rank, (int)elem,
               rank);
    for (int i = 0; i < rank && i < CLG_MAX_RANK; i++) {
        const Onnx__TensorShapeProto__Dimension *d = shape->dim[i];
        int64_t want =
            d->value_case ==
                        ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE &&
                    d->dim_value >= 0
                ? d->dim_value
                : -1;
        FUZZ_CHECK(op->declared_shape[i] == want,
                   "operand '%s' dimension %d declared %lld, not %lld", name,
                   i, (long long)op->declared_shape[i], (long long)want);
    }
}

static void check_operand(const expect *e, const char *name,
                          const clg_onnx_operand *op, size_t input_count)
{
    int k = runtime_index(e->graph, name);
    FUZZ_CHECK(strcmp(op->name, name) == 0, "operand '%s' named '%s'", name,
               op->name);
    FUZZ_CHECK(op->input_index == k, "operand '%s': input_index %d, not %d",
               name, op->input_index, k);
    if (k >= 0) {
        FUZZ_CHECK((size_t)k < input_count, "input %d of %zu", k, input_count);
        fuzz_check_empty(&op->value, name);
        check_declared(declared(e->graph, name), op, name);
        return;
    }
    fuzz_check_tensor(&op->value, name);
    fuzz_proto_check_values(initializer(e->graph, name), &op->value, name);
}

/* The operator version an opset selects (clg_onnx_model.op_version). */
static int op_version(int gather, int nd, int64_t opset)
{
    if (opset >= 13)
        return 13;
    if (nd && opset >= 12)
        return 12;
    if (opset >= 11)
        return 11;
    return gather ? 1 : 0;
}

static void check_model(const expect *e, const clg_onnx_model *m)
{
    const Onnx__NodeProto *n = e->node;
    int gather = strcmp(n->op_type, "Gather") == 0;
    int nd = strcmp(n->op_type, "GatherND") == 0;
    int version = op_version(gather, nd, e->opset);
    size_t inputs = 0;
    FUZZ_CHECK(m->op == (gather ? CLG_OP_GATHER
                         : nd   ? CLG_OP_GATHER_ND
                                : CLG_OP_GATHER_ELEMENTS) &&
                   strcmp(m->op_type, n->op_type) == 0,
               "op %d '%s' read from a '%s' node", (int)m->op, m->op_type,
               n->op_type);
    FUZZ_CHECK(m->opset == e->opset && m->op_version == version &&
                   m->axis == e->axis,
               "opset %lld, version %d, axis %lld; expected %lld, %d, %lld",
               (long long)m->opset, m->op_version, (long long)m->axis,
               (long long)e->opset, version, (long long)e->axis);
    for (size_t i = 0; i < e->graph->n_input; i++)
        inputs += initializer(e->graph, str(e->graph->input[i]->name)) == NULL;
    FUZZ_CHECK(m->input_count == inputs, "input_count %zu, expected %zu",
               m->input_count, inputs);
    check_operand(e, n->input[0], &m->data, inputs);
    check_operand(e, n->input[1], &m->indices, inputs);
    FUZZ_CHECK(strcmp(m->output_name, n->output[0]) == 0, "output '%s'",
               m->output_name);
}

/* A model left by a failed read: clg_onnx_model_init's. */
static void check_reset(const clg_onnx_model *m)
{
    FUZZ_CHECK(m->op_type != NULL && m->op_type[0] == '\0' &&
                   m->data.input_index == -1 && m->indices.input_index == -1,
               "a failed read left a model behind");
    fuzz_check_empty(&m->data.value, "data");
    fuzz_check_empty(&m->indices.value, "indices");
}

/* Both operands initializers: the reference on them, as onnx-test runs
 * it, into an exact-size output of at most 1 MiB. */
static void run_reference(const clg_onnx_model *m)
{
    clg_tensor d = clg_io_tensor_view(&m->data.value);
    clg_tensor ix = clg_io_tensor_view(&m->indices.value);
    int64_t shape[CLG_MAX_RANK], count;
    size_t rank = 0;
    int gather = m->op == CLG_OP_GATHER, nd = m->op == CLG_OP_GATHER_ND;
    clg_status st;
    if (gather)
        st = clg_gather_output_shape(&d, &ix, m->axis, shape, CLG_MAX_RANK,
                                     &rank);
    else if (nd)
        st = clg_gather_nd_output_shape(&d, &ix, m->axis, shape, CLG_MAX_RANK,
                                        &rank);
    else
        st = clg_gather_elements_output_shape(&d, &ix, m->axis, shape,
                                              CLG_MAX_RANK, &rank);
    if (st != CLG_STATUS_OK ||
        clg_shape_count(shape, rank, &count) != CLG_STATUS_OK ||
        (uint64_t)count > (1u << 20) / clg_dtype_size(d.dtype))
        return;
    clg_tensor out = {d.dtype, rank, shape, NULL};
    out.data = count > 0 ? malloc((size_t)count * clg_dtype_size(d.dtype))
                         : NULL;
    FUZZ_CHECK(count == 0 || out.data != NULL, "out of memory");
    st = gather ? clg_reference_gather(NULL, &d, &ix, m->axis, &out)
         : nd   ? clg_reference_gather_nd(NULL, &d, &ix, m->axis, &out)
                : clg_reference_gather_elements(NULL, &d, &ix, m->axis, &out);
    FUZZ_CHECK(st == CLG_STATUS_OK || st == CLG_STATUS_INDEX_OUT_OF_RANGE,
               "reference: %s: %s", clg_status_name(st),
               clg_context_last_error(NULL));
    free(out.data);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char name[] = "model.onnx";
    Onnx__ModelProto *proto = NULL;
    clg_onnx_model m;
    clg_io_error err;
    clg_io_status st;
    expect e;
    int too_deep, refused_deep;

    clg_onnx_model_init(&m);
    fuzz_error_reset(&err);
    fuzz_alloc_watch(fuzz_alloc_limit(size));
    st = clg_onnx_decode_model(data, size, name, &m, &err);
    fuzz_alloc_unwatch();

    /* protobuf-c's unpacking recurses without a limit: the oracle unpacks
     * only what its own walk finds shallow enough. */
    too_deep = fuzz_proto_too_deep(&onnx__model_proto__descriptor, data, size);
    /* By its prefix: other messages quote the file's own strings, which
     * may hold the same words. */
    refused_deep = st == CLG_IO_UNSUPPORTED &&
                   strncmp(err.message, "model.onnx: nested too deep: ",
                           sizeof "model.onnx: nested too deep: " - 1) == 0;
    FUZZ_CHECK(too_deep == refused_deep,
               "nested too deep: %d by the oracle's walk; the reader: %s",
               too_deep, st == CLG_IO_OK ? "OK" : err.message);
    if (!too_deep)
        proto = onnx__model_proto__unpack(NULL, size, data);
    oracle(proto, too_deep, &e);
    if (st != CLG_IO_OK) {
        fuzz_check_failure(st, &err, name);
        check_reset(&m);
        FUZZ_CHECK(e.rule != NULL || e.long_names,
                   "a valid model was refused: %s", err.message);
    } else {
        FUZZ_CHECK(e.rule == NULL, "a model with %s was read", e.rule);
        fuzz_check_bound(clg_onnx_read_bound, data, size, name);
        if (!e.long_names)
            check_model(&e, &m);
        if (m.data.input_index < 0 && m.indices.input_index < 0)
            run_reference(&m);
    }
    if (proto != NULL)
        onnx__model_proto__free_unpacked(proto, NULL);
    clg_onnx_model_free(&m);
    return 0;
}
