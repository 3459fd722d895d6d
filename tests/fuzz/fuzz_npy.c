/* SPDX-License-Identifier: Apache-2.0 */
/* libFuzzer target: the .npy reader, clg_npy_decode (io/npy.h).
 *
 * Every input is decoded from libFuzzer's exact-size copy of it, with
 * single allocations bounded by the input's size (fuzz_alloc_limit: a
 * header cannot claim memory the file does not hold). A decoded tensor
 * must satisfy fuzz_check_tensor, fit in what the file holds, hold the
 * file's last bytes in the order its descriptor gives, and survive a round
 * trip through both writers, and be read whole through clg_npy_read_bound;
 * a failure must leave the tensor empty and name the file in its
 * message. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "fuzz_common.h"
#include "npy.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Where the value of the header's one `key` starts (just past the key's
 * closing quote), found without the reader's parser; NULL when the header
 * does not hold the key exactly once (the harness then does not judge
 * what the key decides). *end gets the header's end. The reader accepted
 * the file, so its preamble and header are whole. */
static const uint8_t *key_value(const uint8_t *data, const char *key,
                                const uint8_t **end)
{
    size_t at = data[6] == 1 ? 10 : 12, hits = 0, k = strlen(key);
    size_t len = data[6] == 1
                     ? (size_t)data[8] | (size_t)data[9] << 8
                     : (size_t)data[8] | (size_t)data[9] << 8 |
                           (size_t)data[10] << 16 | (size_t)data[11] << 24;
    const uint8_t *h = data + at, *value = NULL;
    for (size_t i = 0; i + k <= len; i++)
        if (memcmp(h + i, key, k) == 0) {
            hits++;
            value = h + i + k + 1;
        }
    *end = h + len;
    return hits == 1 && value <= *end ? value : NULL;
}

/* The byte order of the header's one 'descr' value ('<', '>', '|' or
 * '=', '=' when it names none): the first quote after the key. 0 when it
 * cannot be told. */
static char descr_order(const uint8_t *data)
{
    const uint8_t *end, *value = key_value(data, "descr", &end);
    if (value == NULL)
        return 0;
    while (value < end && *value != '\'' && *value != '"')
        value++;
    if (value + 1 >= end)
        return 0;
    return strchr("<>|=", value[1]) != NULL ? (char)value[1] : '=';
}

/* The header's 'fortran_order' value: 1 for True, 0 for False, -1 when
 * it cannot be told (the key is not there exactly once, or not followed
 * by ':' and one of the two words). */
static int fortran_order(const uint8_t *data)
{
    const uint8_t *end, *value = key_value(data, "fortran_order", &end);
    if (value == NULL)
        return -1;
    while (value < end && (*value == ' ' || *value == ':'))
        value++;
    if (end - value >= 4 && memcmp(value, "True", 4) == 0)
        return 1;
    if (end - value >= 5 && memcmp(value, "False", 5) == 0)
        return 0;
    return -1;
}

/* The index, in the file's element order, of element `i` of the tensor
 * (C order): i itself, or for Fortran-order data the element whose first
 * index moves fastest. */
static size_t file_element(const clg_io_tensor *t, int fortran, size_t i)
{
    if (!fortran)
        return i;
    size_t f = 0, stride = 1, rest = i, index[CLG_MAX_RANK];
    for (size_t d = (size_t)t->rank; d-- > 0;) {
        index[d] = rest % (size_t)t->shape[d];
        rest /= (size_t)t->shape[d];
    }
    for (size_t d = 0; d < (size_t)t->rank; d++) {
        f += index[d] * stride;
        stride *= (size_t)t->shape[d];
    }
    return f;
}

/* The elements are the file's last bytes: as they are, or each word
 * reversed for '>' data (a complex number's two parts one by one), in C
 * order or, for a Fortran-order file, rearranged into it; byte strings
 * are its fixed-width records without their trailing NULs. */
static void check_values(const uint8_t *data, size_t size,
                         const clg_io_tensor *t)
{
    size_t width = t->string_width, elem = clg_dtype_size(t->dtype);
    int complex = t->dtype == CLG_DTYPE_COMPLEX64 ||
                  t->dtype == CLG_DTYPE_COMPLEX128;
    size_t word = complex ? elem / 2 : elem;
    int fortran = fortran_order(data);
    if (fortran < 0)
        return;
    if (t->dtype == CLG_DTYPE_STRING) {
        const uint8_t *recs = data + size - (size_t)t->count * width;
        const clg_string *s = t->data;
        for (int64_t i = 0; i < t->count; i++) {
            const uint8_t *rec = recs +
                                 file_element(t, fortran, (size_t)i) * width;
            size_t n = width;
            while (n > 0 && rec[n - 1] == 0)
                n--;
            FUZZ_CHECK(s[i].length == n &&
                           (n == 0 || memcmp(s[i].data, rec, n) == 0),
                       "string %lld is not record %lld", (long long)i,
                       (long long)i);
        }
        return;
    }
    const uint8_t *tail = data + size - t->nbytes, *p = t->data;
    char order = descr_order(data);
    if (order == 0 || elem == 0)
        return;
    for (size_t i = 0; i < t->nbytes; i++) {
        size_t at = file_element(t, fortran, i / elem) * elem + i % elem;
        size_t j = order == '>' ? at - at % word + (word - 1 - at % word) : at;
        FUZZ_CHECK(p[i] == tail[j],
                   "byte %zu of the elements ('%c' data, %s order)", i, order,
                   fortran ? "Fortran" : "C");
    }
}

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
    check_values(data, size, &t);
    fuzz_check_round_trips(&t);
    fuzz_check_bound(clg_npy_read_bound, data, size, name);
    clg_io_tensor_free(&t);
    return 0;
}
