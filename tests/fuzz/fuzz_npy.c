/* libFuzzer target: the .npy reader, clg_npy_decode (cli/npy.h).
 *
 * Every input is decoded from libFuzzer's exact-size copy of it, with
 * single allocations bounded by the input's size (fuzz_alloc_limit: a
 * header cannot claim memory the file does not hold). A decoded tensor
 * must satisfy fuzz_check_tensor, fit in what the file holds, and survive
 * a round trip through both writers; a failure must leave the tensor
 * empty and name the file in its message. */
#include <stddef.h>
#include <stdint.h>

#include "fuzz_common.h"
#include "npy.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char name[] = "fuzz.npy";
    clg_io_tensor t;
    clg_io_error err;
    clg_io_status st;

    clg_io_tensor_init(&t);
    fuzz_error_reset(&err);
    fuzz_alloc_watch(fuzz_alloc_limit(size));
    st = clg_npy_decode(data, size, name, &t, &err);
    fuzz_alloc_unwatch();
    if (st != CLG_IO_OK) {
        fuzz_check_failure(st, &err, name);
        fuzz_check_empty(&t, name);
        return 0;
    }
    fuzz_check_tensor(&t, name);
    /* The elements come from the file: at most its size, and for STRING
     * one 16-byte descriptor per element of at least one byte. */
    FUZZ_CHECK(t.dtype == CLG_DTYPE_STRING
                   ? t.string_bytes_size <= size &&
                         (t.count == 0 || t.string_width > 0)
                   : t.nbytes <= size,
               "%zu bytes of elements (%lld, width %zu) from a %zu-byte file",
               t.nbytes, (long long)t.count, t.string_width, size);
    FUZZ_CHECK(t.dtype != CLG_DTYPE_BFLOAT16, "BFLOAT16 has no NumPy dtype");
    fuzz_check_round_trips(&t);
    clg_io_tensor_free(&t);
    return 0;
}
