/* SPDX-License-Identifier: Apache-2.0 */
/* libFuzzer target: the TensorProto reader, clg_onnx_decode_tensor
 * (io/onnx_io.h).
 *
 * Single allocations are bounded by the input's size (dims alone must not
 * claim memory). The verdict is checked against fuzz_proto.h's oracle over
 * protobuf-c's own unpacking of the same bytes: the reader accepts exactly
 * the tensors the oracle accepts, and what it reads holds exactly their
 * values (no value narrowed to fit its dtype). A tensor read must also
 * satisfy fuzz_check_tensor, survive a round trip through both writers,
 * and be read whole through clg_onnx_read_bound. */
#include <stddef.h>
#include <stdint.h>

#include "fuzz_common.h"
#include "fuzz_proto.h"
#include "onnx_io.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char name[] = "fuzz.pb";
    Onnx__TensorProto *tp;
    clg_io_tensor t;
    clg_io_error err;
    clg_io_status st;
    char why[128] = "";
    int valid;

    clg_io_tensor_init(&t);
    fuzz_error_reset(&err);
    fuzz_alloc_watch(fuzz_alloc_limit(size));
    st = clg_onnx_decode_tensor(data, size, name, &t, &err);
    fuzz_alloc_unwatch();

    tp = onnx__tensor_proto__unpack(NULL, size, data);
    valid = tp != NULL && fuzz_proto_valid(tp, why, sizeof why);
    if (st != CLG_IO_OK) {
        fuzz_check_failure(st, &err, name);
        fuzz_check_empty(&t, name);
        FUZZ_CHECK(!valid, "a valid TensorProto was refused: %s", err.message);
    } else {
        FUZZ_CHECK(valid, "a TensorProto with %s was read",
                   tp == NULL ? "malformed protobuf" : why);
        fuzz_check_tensor(&t, name);
        fuzz_proto_check_values(tp, &t, name);
        fuzz_check_round_trips(&t);
        fuzz_check_bound(clg_onnx_read_bound, data, size, name);
    }
    if (tp != NULL)
        onnx__tensor_proto__free_unpacked(tp, NULL);
    clg_io_tensor_free(&t);
    return 0;
}
