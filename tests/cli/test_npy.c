/* SPDX-License-Identifier: Apache-2.0 */
/*
 * NumPy .npy I/O of clgather_io: round trips for every supported dtype,
 * byte-for-byte agreement with files NumPy wrote (npy_samples.h), format
 * versions 1.0-3.0, big endian, Fortran order read into C order, and
 * clear errors for .npz archives, unsupported dtypes and malformed or
 * truncated files. No device needed.
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
#include "tensor_file.h"
#include "npy.h"
#include "npy_samples.h"

#define SAMPLE(name) name, sizeof(name) - 1

/* splitmix64, fixed seed: reproducible element bytes. */
static uint64_t g_rng = 0x1234abcd5678ef01ull;
static uint64_t next_random(void)
{
    uint64_t z = (g_rng += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static void expect_same(const clg_tensor *a, const clg_io_tensor *b)
{
    char detail[512];
    clg_tensor bv = clg_io_tensor_view(b);
    if (!clg_io_compare(a, &bv, detail, sizeof detail, NULL))
        fail_msg("%s %s", clg_dtype_name(a->dtype), detail);
}

/* Encodes t, decodes it back, compares bit for bit. */
static void round_trip(const clg_tensor *t)
{
    unsigned char *bytes = NULL;
    size_t size = 0;
    clg_io_tensor back;
    clg_io_error err;

    clg_io_tensor_init(&back);
    if (clg_npy_encode(t, 0, &bytes, &size, &err) != CLG_IO_OK)
        fail_msg("encode %s: %s", clg_dtype_name(t->dtype), err.message);
    /* header padded to 64 bytes, as NumPy does */
    assert_int_equal((bytes[8] | bytes[9] << 8) % 64, 64 - 10);
    if (clg_npy_decode(bytes, size, "round trip", &back, &err) != CLG_IO_OK)
        fail_msg("decode %s: %s", clg_dtype_name(t->dtype), err.message);
    expect_same(t, &back);
    clg_io_tensor_free(&back);
    free(bytes);
}

static void test_round_trip_every_dtype(void **state)
{
    static const clg_dtype dtypes[] = {
        CLG_DTYPE_BOOL,      CLG_DTYPE_INT8,      CLG_DTYPE_UINT8,
        CLG_DTYPE_INT16,     CLG_DTYPE_UINT16,    CLG_DTYPE_INT32,
        CLG_DTYPE_UINT32,    CLG_DTYPE_INT64,     CLG_DTYPE_UINT64,
        CLG_DTYPE_FLOAT16,   CLG_DTYPE_FLOAT,     CLG_DTYPE_DOUBLE,
        CLG_DTYPE_COMPLEX64, CLG_DTYPE_COMPLEX128};
    static const int64_t shapes[4][5] = {{2, 3}, {0}, {0, 4}, {2, 1, 3, 1, 2}};
    static const size_t ranks[4] = {2, 0, 2, 5};
    (void)state;

    for (size_t d = 0; d < sizeof dtypes / sizeof dtypes[0]; d++) {
        for (size_t s = 0; s < 4; s++) {
            size_t elem = clg_dtype_size(dtypes[d]);
            int64_t count = clg_io_shape_count(shapes[s], ranks[s], elem);
            unsigned char *data = malloc((size_t)count * elem + 1);
            clg_tensor t;
            assert_non_null(data);
            for (int64_t i = 0; i < count * (int64_t)elem; i++)
                data[i] = (unsigned char)next_random();
            if (dtypes[d] == CLG_DTYPE_BOOL)
                for (int64_t i = 0; i < count; i++)
                    data[i] &= 1;
            t.dtype = dtypes[d];
            t.rank = ranks[s];
            t.shape = shapes[s];
            t.data = data;
            round_trip(&t);
            free(data);
        }
    }
}

/* Whether the header of an encoded .npy (not NUL-terminated) holds
 * `needle` past its magic. */
static int header_has(const unsigned char *bytes, size_t size,
                      const char *needle)
{
    char head[256];
    size_t n = size < sizeof head - 1 ? size : sizeof head - 1;
    memcpy(head, bytes, n);
    head[n] = '\0';
    return n > 10 && strstr(head + 10, needle) != NULL;
}

static void test_round_trip_strings(void **state)
{
    /* trailing NUL bytes cannot survive the |S format; embedded ones do */
    static const clg_string words[6] = {
        {"", 0}, {"a", 1}, {"a\0b", 3}, {"\xff\x01", 2}, {"longer word", 11},
        {"", 0}};
    static const int64_t shape[2] = {2, 3};
    static const clg_string empties[2] = {{"", 0}, {"", 0}};
    static const int64_t shape2[1] = {2};
    clg_tensor t = {CLG_DTYPE_STRING, 2, shape, (void *)(uintptr_t)words};
    clg_tensor e = {CLG_DTYPE_STRING, 1, shape2, (void *)(uintptr_t)empties};
    unsigned char *bytes = NULL;
    size_t size = 0;
    (void)state;

    round_trip(&t);
    round_trip(&e);
    assert_int_equal(clg_npy_encode(&t, 0, &bytes, &size, NULL), CLG_IO_OK);
    assert_true(header_has(bytes, size, "'descr': '|S11'"));
    free(bytes);
    assert_int_equal(clg_npy_encode(&e, 0, &bytes, &size, NULL), CLG_IO_OK);
    assert_true(header_has(bytes, size, "'descr': '|S1'"));
    free(bytes);
}

static void test_file_round_trip(void **state)
{
    static const double values[3] = {-0.0, 1e-310, 3.25};
    static const int64_t shape[1] = {3};
    clg_tensor t = {CLG_DTYPE_DOUBLE, 1, shape, (void *)(uintptr_t)values};
    char path[] = "/tmp/clgather-npy-XXXXXX";
    clg_io_tensor back;
    clg_io_error err;
    int fd = mkstemp(path);
    (void)state;

    assert_true(fd >= 0);
    clg_io_tensor_init(&back);
    if (clg_npy_write(path, &t, 0, &err) != CLG_IO_OK)
        fail_msg("%s", err.message);
    if (clg_io_read_tensor_file(path, &back, &err) != CLG_IO_OK)
        fail_msg("%s", err.message);
    expect_same(&t, &back);
    clg_io_tensor_free(&back);
    remove(path);
}

static void test_bfloat16_has_no_numpy_dtype(void **state)
{
    static const uint16_t v[1] = {0x3f80};
    static const int64_t shape[1] = {1};
    clg_tensor t = {CLG_DTYPE_BFLOAT16, 1, shape, (void *)(uintptr_t)v};
    unsigned char *bytes = NULL;
    size_t size = 0;
    clg_io_error err;
    (void)state;
    assert_int_equal(clg_npy_encode(&t, 0, &bytes, &size, &err),
                     CLG_IO_UNSUPPORTED);
    assert_non_null(strstr(err.message, "BFLOAT16"));
    assert_null(bytes);
}

/* Our writer produces exactly NumPy's bytes. */
static void expect_encodes_to(const clg_tensor *t, const char *sample,
                              size_t sample_size)
{
    unsigned char *bytes = NULL;
    size_t size = 0;
    clg_io_error err;
    if (clg_npy_encode(t, 0, &bytes, &size, &err) != CLG_IO_OK)
        fail_msg("%s", err.message);
    assert_int_equal(size, sample_size);
    assert_memory_equal(bytes, sample, size);
    free(bytes);
}

static void decode_ok(const char *sample, size_t size, clg_io_tensor *out)
{
    clg_io_error err;
    if (clg_npy_decode(sample, size, "sample", out, &err) != CLG_IO_OK)
        fail_msg("%s", err.message);
}

static void test_numpy_written_files(void **state)
{
    static const int32_t i4[6] = {0, 1, 2, 3, 4, 5};
    static const int64_t s23[2] = {2, 3};
    static const uint8_t b3[3] = {1, 0, 1};
    static const int64_t s3[1] = {3};
    static const clg_string words[3] = {{"ab", 2}, {"", 0}, {"xyz", 3}};
    static const uint16_t half[1] = {0x3e00}; /* 1.5 */
    static const int64_t s02[2] = {0, 2};
    static const float c8[2] = {1.0f, 2.0f};
    static const int64_t s11[2] = {1, 1};
    clg_tensor t;
    clg_io_tensor back;
    (void)state;

    clg_io_tensor_init(&back);
    t = (clg_tensor){CLG_DTYPE_INT32, 2, s23, (void *)(uintptr_t)i4};
    expect_encodes_to(&t, SAMPLE(npy_i4_2x3));
    decode_ok(SAMPLE(npy_i4_2x3), &back);
    expect_same(&t, &back);

    t = (clg_tensor){CLG_DTYPE_BOOL, 1, s3, (void *)(uintptr_t)b3};
    expect_encodes_to(&t, SAMPLE(npy_bool_3));
    decode_ok(SAMPLE(npy_bool_3), &back);
    expect_same(&t, &back);

    t = (clg_tensor){CLG_DTYPE_STRING, 1, s3, (void *)(uintptr_t)words};
    expect_encodes_to(&t, SAMPLE(npy_s3_3));
    decode_ok(SAMPLE(npy_s3_3), &back);
    expect_same(&t, &back);

    t = (clg_tensor){CLG_DTYPE_FLOAT16, 0, NULL, (void *)(uintptr_t)half};
    expect_encodes_to(&t, SAMPLE(npy_f2_scalar));
    decode_ok(SAMPLE(npy_f2_scalar), &back);
    expect_same(&t, &back);

    t = (clg_tensor){CLG_DTYPE_DOUBLE, 2, s02, NULL};
    expect_encodes_to(&t, SAMPLE(npy_f8_0x2));
    decode_ok(SAMPLE(npy_f8_0x2), &back);
    expect_same(&t, &back);

    t = (clg_tensor){CLG_DTYPE_COMPLEX64, 2, s11, (void *)(uintptr_t)c8};
    expect_encodes_to(&t, SAMPLE(npy_c8_1x1));
    decode_ok(SAMPLE(npy_c8_1x1), &back);
    expect_same(&t, &back);
    clg_io_tensor_free(&back);
}

static void test_big_endian_and_versions(void **state)
{
    static const int64_t i8[2] = {1, -2};
    static const int64_t s2[1] = {2};
    static const float c8[2] = {1.0f, 2.0f};
    static const int64_t s11[2] = {1, 1};
    static const uint16_t f2[1] = {0x3800}; /* 0.5 */
    static const int64_t s1[1] = {1};
    static const int16_t i2[6] = {0, 1, 2, 3, 4, 5};
    static const int64_t s23[2] = {2, 3};
    static const uint32_t u4[3] = {0, 1, 2};
    static const int64_t s3[1] = {3};
    clg_tensor t;
    clg_io_tensor back;
    (void)state;

    clg_io_tensor_init(&back);
    t = (clg_tensor){CLG_DTYPE_INT64, 1, s2, (void *)(uintptr_t)i8};
    decode_ok(SAMPLE(npy_be_i8_2), &back);
    expect_same(&t, &back);
    t = (clg_tensor){CLG_DTYPE_COMPLEX64, 2, s11, (void *)(uintptr_t)c8};
    decode_ok(SAMPLE(npy_be_c8_1x1), &back);
    expect_same(&t, &back);
    t = (clg_tensor){CLG_DTYPE_FLOAT16, 1, s1, (void *)(uintptr_t)f2};
    decode_ok(SAMPLE(npy_be_f2_1), &back);
    expect_same(&t, &back);
    t = (clg_tensor){CLG_DTYPE_INT16, 2, s23, (void *)(uintptr_t)i2};
    decode_ok(SAMPLE(npy_v2_i2_2x3), &back);
    expect_same(&t, &back);
    t = (clg_tensor){CLG_DTYPE_UINT32, 1, s3, (void *)(uintptr_t)u4};
    decode_ok(SAMPLE(npy_v3_u4_3), &back);
    expect_same(&t, &back);
    clg_io_tensor_free(&back);
}

static void expect_error(const void *bytes, size_t size, clg_io_status status,
                         const char *text)
{
    clg_io_tensor back;
    clg_io_error err;
    clg_io_tensor_init(&back);
    err.message[0] = '\0';
    assert_int_equal(clg_npy_decode(bytes, size, "bad.npy", &back, &err),
                     status);
    if (strstr(err.message, text) == NULL)
        fail_msg("message '%s' lacks '%s'", err.message, text);
    /* the message names the file */
    assert_memory_equal(err.message, "bad.npy: ", 9);
    assert_null(back.data);
    assert_int_equal(back.dtype, CLG_DTYPE_UNDEFINED);
}

/* A version 1.0 file around a hand-written header (padded by hand). */
static size_t make_npy(unsigned char *buf, const char *header,
                       const void *data, size_t data_size)
{
    size_t hlen = strlen(header);
    memcpy(buf, "\x93NUMPY\x01\x00", 8);
    buf[8] = (unsigned char)(hlen & 0xff);
    buf[9] = (unsigned char)(hlen >> 8);
    memcpy(buf + 10, header, hlen);
    if (data_size > 0)
        memcpy(buf + 10 + hlen, data, data_size);
    return 10 + hlen + data_size;
}

/* Decodes buf (n bytes) and expects a C-order tensor of dtype, rank,
 * shape and data, bit for bit. */
static void expect_decoded(const void *buf, size_t n, clg_dtype dtype,
                           size_t rank, const int64_t *shape, const void *data)
{
    clg_tensor t = {dtype, rank, shape, (void *)(uintptr_t)data};
    clg_io_tensor back;
    clg_io_error err;
    clg_io_tensor_init(&back);
    if (clg_npy_decode(buf, n, "f.npy", &back, &err) != CLG_IO_OK)
        fail_msg("%s", err.message);
    expect_same(&t, &back);
    clg_io_tensor_free(&back);
}

/* fortran_order True: the first index moves fastest in the file; the
 * reader gives C order (the last index fastest), and the writer writes
 * C order back. */
static void test_fortran_order(void **state)
{
    /* NumPy's np.asfortranarray(np.arange(6).reshape(2, 3)): the file
     * holds 0 3 1 4 2 5 */
    static const int32_t i4[6] = {0, 1, 2, 3, 4, 5};
    static const int64_t s23[2] = {2, 3};
    /* arange(24).reshape(2, 3, 4) in Fortran order: element [i][j][k] =
     * 12i + 4j + k at position i + 2j + 6k */
    static const int32_t f234[24] = {0,  12, 4, 16, 8, 20, 1,  13,
                                     5,  17, 9, 21, 2, 14, 6,  18,
                                     10, 22, 3, 15, 7, 19, 11, 23};
    static const int64_t s234[3] = {2, 3, 4};
    int32_t c234[24];
    /* [2, 1, 3]: [i][0][k] = 3i + k at position i + 2k */
    static const int32_t f213[6] = {0, 3, 1, 4, 2, 5};
    static const int64_t s213[3] = {2, 1, 3};
    /* big endian: transposed, then each element swapped */
    static const unsigned char be[12] = {0, 0, 0, 3, 0, 1, 0, 4, 0, 2, 0, 5};
    static const int16_t i2[6] = {0, 1, 2, 3, 4, 5};
    /* 3-byte elements ('S3'), [2, 2]: [["a", "bb"], ["ccc", ""]] */
    static const char f_s3[12] = {'a', 0,   0, 'c', 'c', 'c',
                                  'b', 'b', 0, 0,   0,   0};
    static const clg_string words[4] = {{"a", 1},
                                        {"bb", 2},
                                        {"ccc", 3},
                                        {"", 0}};
    static const int64_t s22[2] = {2, 2};
    /* 16-byte elements: complex128 [2, 2], each real part its C position */
    double f_c16[8] = {0, 0, 2, 0, 1, 0, 3, 0},
           c_c16[8] = {0, 0, 1, 0, 2, 0, 3, 0};
    /* one dimension above 1, and an empty array: no reordering */
    static const uint8_t u1[3] = {7, 8, 9};
    static const int64_t s31[2] = {3, 1}, s13[2] = {1, 3}, s03[2] = {0, 3};
    unsigned char buf[1024], *bytes = NULL;
    size_t n, size = 0;
    clg_io_tensor back;
    clg_tensor view;
    clg_io_error err;
    (void)state;

    expect_decoded(SAMPLE(npy_fortran_i4_2x3), CLG_DTYPE_INT32, 2, s23, i4);
    for (int32_t v = 0; v < 24; v++)
        c234[v] = v;
    n = make_npy(buf,
                 "{'descr': '<i4', 'fortran_order': True, "
                 "'shape': (2, 3, 4), }\n",
                 f234, sizeof f234);
    expect_decoded(buf, n, CLG_DTYPE_INT32, 3, s234, c234);
    n = make_npy(buf,
                 "{'descr': '<i4', 'fortran_order': True, "
                 "'shape': (2, 1, 3), }\n",
                 f213, sizeof f213);
    expect_decoded(buf, n, CLG_DTYPE_INT32, 3, s213, i4);
    n = make_npy(buf,
                 "{'descr': '>i2', 'fortran_order': True, "
                 "'shape': (2, 3), }\n",
                 be, sizeof be);
    expect_decoded(buf, n, CLG_DTYPE_INT16, 2, s23, i2);
    n = make_npy(buf,
                 "{'descr': '|S3', 'fortran_order': True, "
                 "'shape': (2, 2), }\n",
                 f_s3, sizeof f_s3);
    expect_decoded(buf, n, CLG_DTYPE_STRING, 2, s22, words);
    n = make_npy(buf,
                 "{'descr': '<c16', 'fortran_order': True, "
                 "'shape': (2, 2), }\n",
                 f_c16, sizeof f_c16);
    expect_decoded(buf, n, CLG_DTYPE_COMPLEX128, 2, s22, c_c16);
    n = make_npy(buf,
                 "{'descr': '|u1', 'fortran_order': True, "
                 "'shape': (3, 1), }\n",
                 u1, sizeof u1);
    expect_decoded(buf, n, CLG_DTYPE_UINT8, 2, s31, u1);
    n = make_npy(buf,
                 "{'descr': '|u1', 'fortran_order': True, "
                 "'shape': (1, 3), }\n",
                 u1, sizeof u1);
    expect_decoded(buf, n, CLG_DTYPE_UINT8, 2, s13, u1);
    n = make_npy(buf,
                 "{'descr': '|u1', 'fortran_order': True, "
                 "'shape': (0, 3), }\n",
                 u1, 0);
    expect_decoded(buf, n, CLG_DTYPE_UINT8, 2, s03, u1);

    /* written back in C order: 0 1 2 3 4 5 after a C-order header */
    clg_io_tensor_init(&back);
    if (clg_npy_decode(SAMPLE(npy_fortran_i4_2x3), "f.npy", &back, &err) !=
        CLG_IO_OK)
        fail_msg("%s", err.message);
    view = clg_io_tensor_view(&back);
    assert_int_equal(clg_npy_encode(&view, 0, &bytes, &size, NULL), CLG_IO_OK);
    assert_true(header_has(bytes, size, "'fortran_order': False"));
    assert_int_equal(size, 128 + sizeof i4);
    assert_memory_equal(bytes + 128, i4, sizeof i4);
    /* the same bytes as NumPy's own C-order file of the same array */
    assert_int_equal(size, sizeof npy_i4_2x3 - 1);
    assert_memory_equal(bytes, npy_i4_2x3, size);
    free(bytes);
    clg_io_tensor_free(&back);
}

/* np.savez's .npz (a zip of .npy files) where one array is expected: an
 * error that says what it is and how to extract one array. */
static void test_npz_refused(void **state)
{
    static const char empty[22] = {'P', 'K', 5, 6};
    char dir[] = "/tmp/clgather-npz-XXXXXX", path[64];
    const char *sample = npz_data_i4_2x3;
    size_t size = sizeof npz_data_i4_2x3 - 1;
    char expected[1024], other[64];
    clg_io_tensor back;
    clg_io_error err;
    FILE *f;
    (void)state;

    assert_true(clg_npy_is_npz(sample, size));
    assert_true(clg_npy_is_npz(empty, sizeof empty));
    assert_false(clg_npy_is_npz(npy_i4_2x3, sizeof npy_i4_2x3 - 1));
    assert_false(clg_npy_is_npz("PK", 2));
    /* the reader reads up to the first member's name (30 + 8 bytes) */
    assert_int_equal(clg_npz_read_bound((const unsigned char *)sample, 2,
                                        NULL),
                     30);
    assert_int_equal(clg_npz_read_bound((const unsigned char *)sample, 29,
                                        NULL),
                     30);
    assert_int_equal(clg_npz_read_bound((const unsigned char *)sample, 100,
                                        NULL),
                     38);
    assert_int_equal(clg_npz_read_bound((const unsigned char *)empty, 22,
                                        NULL),
                     22);

    /* as .npy bytes: FORMAT_ERROR, the archive named */
    expect_error(sample, size, CLG_IO_FORMAT_ERROR,
                 "bad.npy: an .npz archive (a zip of .npy files, one per "
                 "array; the first is 'data'), not a NumPy file of one "
                 "array: extract one, e.g. 'unzip -p bad.npy data.npy > "
                 "data.npy', or in Python np.save('data.npy', "
                 "np.load('bad.npy')['data'])");
    expect_error(sample, 20, CLG_IO_FORMAT_ERROR,
                 "bad.npy: an .npz archive (a zip of .npy files, one per "
                 "array), not a NumPy file of one array: extract one "
                 "('unzip -l bad.npy' lists them), e.g. 'unzip -p bad.npy "
                 "NAME.npy > NAME.npy'");
    expect_error(empty, sizeof empty, CLG_IO_FORMAT_ERROR,
                 "bad.npy: an empty .npz archive (a zip of .npy files, here "
                 "none), not a NumPy file of one array");
    /* a zip of something else */
    memcpy(other, sample, 30);
    other[26] = 5;
    memcpy(other + 30, "a.txt", 5);
    expect_error(other, 35, CLG_IO_FORMAT_ERROR,
                 "bad.npy: a zip archive (its first member is 'a.txt'), not "
                 "a NumPy file of one array; an .npz holds one .npy file per "
                 "array");

    /* as a tensor file (.npy or ONNX .pb by its contents): UNSUPPORTED,
     * once reported as a malformed ONNX TensorProto */
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/x.npz", dir);
    f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(sample, 1, size, f), size);
    assert_int_equal(fclose(f), 0);
    clg_io_tensor_init(&back);
    assert_int_equal(clg_io_read_tensor_file(path, &back, &err),
                     CLG_IO_UNSUPPORTED);
    snprintf(expected, sizeof expected,
             "%s: an .npz archive (a zip of .npy files, one per array; the "
             "first is 'data'), not a NumPy file of one array: extract one, "
             "e.g. 'unzip -p %s data.npy > data.npy', or in Python "
             "np.save('data.npy', np.load('%s')['data'])",
             path, path, path);
    assert_string_equal(err.message, expected);
    assert_null(back.data);
    remove(path);
    rmdir(dir);
}

static void test_unsupported_layouts_and_dtypes(void **state)
{
    (void)state;
    expect_error(SAMPLE(npy_unicode_1), CLG_IO_UNSUPPORTED, "unicode strings");
    expect_error(SAMPLE(npy_structured_1), CLG_IO_UNSUPPORTED,
                 "structured dtypes");
}

static void test_header_variants(void **state)
{
    static const int16_t v[2] = {7, -7};
    static const int64_t s21[2] = {2, 1};
    clg_tensor t = {CLG_DTYPE_INT16, 2, s21, (void *)(uintptr_t)v};
    unsigned char buf[512];
    size_t n;
    clg_io_tensor back;
    (void)state;

    clg_io_tensor_init(&back);
    /* Python 2 long suffixes, double quotes, another key order */
    n = make_npy(buf,
                 "{\"shape\": (2L, 1L), \"fortran_order\": False, "
                 "\"descr\": \"<i2\"}\n",
                 v, sizeof v);
    decode_ok((const char *)buf, n, &back);
    expect_same(&t, &back);
    /* '=' native order, no trailing comma, no padding newline spaces */
    n = make_npy(buf,
                 "{'descr': '=i2', 'fortran_order': False, 'shape': (2, 1)}",
                 v, sizeof v);
    decode_ok((const char *)buf, n, &back);
    expect_same(&t, &back);
    /* -0 is 0, as Python reads it: an empty [2, 0] tensor */
    n = make_npy(buf,
                 "{'descr': '<i2', 'fortran_order': False, "
                 "'shape': (2, -0)}\n",
                 v, 0);
    decode_ok((const char *)buf, n, &back);
    assert_int_equal(back.rank, 2);
    assert_int_equal(back.shape[0], 2);
    assert_int_equal(back.shape[1], 0);
    clg_io_tensor_free(&back);
}

static void test_malformed_files(void **state)
{
    static const int32_t v[3] = {1, 2, 3};
    unsigned char buf[512];
    unsigned char copy[512];
    size_t n, good;
    (void)state;

    good = make_npy(buf,
                    "{'descr': '<i4', 'fortran_order': False, "
                    "'shape': (3,), }\n",
                    v, sizeof v);
    memcpy(copy, buf, good);
    expect_error(copy, good - 1, CLG_IO_FORMAT_ERROR,
                 "truncated: shape [3] of '<i4' needs 12 data bytes, the "
                 "file holds 11");
    copy[good] = 0;
    expect_error(copy, good + 1, CLG_IO_FORMAT_ERROR, "trailing bytes");
    expect_error(copy, 9, CLG_IO_FORMAT_ERROR, "truncated NumPy preamble");
    expect_error(copy, 30, CLG_IO_FORMAT_ERROR, "truncated: the header is");
    expect_error("PK\x03\x04 not npy", 14, CLG_IO_FORMAT_ERROR,
                 "not a NumPy file");
    expect_error("", 0, CLG_IO_FORMAT_ERROR, "not a NumPy file");
    memcpy(copy, buf, good);
    copy[6] = 4;
    expect_error(copy, good, CLG_IO_UNSUPPORTED,
                 "format version 4.0 is not supported");

    n = make_npy(buf, "{'descr': '<i4', 'shape': (3,), }\n", v, sizeof v);
    expect_error(buf, n, CLG_IO_FORMAT_ERROR, "missing key 'fortran_order'");
    n = make_npy(buf,
                 "{'descr': '<i4', 'fortran_order': False, "
                 "'shape': (3,), 'extra': 1}\n",
                 v, sizeof v);
    expect_error(buf, n, CLG_IO_FORMAT_ERROR, "unexpected key 'extra'");
    n = make_npy(buf,
                 "{'descr': '<i4', 'fortran_order': Maybe, "
                 "'shape': (3,)}\n",
                 v, sizeof v);
    expect_error(buf, n, CLG_IO_FORMAT_ERROR, "malformed dictionary");
    n = make_npy(buf,
                 "{'descr': '<i4', 'fortran_order': False, "
                 "'shape': (-3,)}\n",
                 v, sizeof v);
    expect_error(buf, n, CLG_IO_FORMAT_ERROR, "shape dimension 0 is negative");
    n = make_npy(buf,
                 "{'descr': '<i4', 'fortran_order': False, "
                 "'shape': (2, -1)}\n",
                 v, sizeof v);
    expect_error(buf, n, CLG_IO_FORMAT_ERROR, "shape dimension 1 is negative");
    n = make_npy(buf,
                 "{'descr': '<i4', 'fortran_order': False, "
                 "'shape': (1, 9223372036854775808)}\n",
                 v, sizeof v);
    expect_error(buf, n, CLG_IO_FORMAT_ERROR,
                 "shape dimension 1 does not fit int64");
    /* Well-formed descriptors of dtypes the library has not: objects,
     * float128, datetime64 with its unit. */
    static const char *const unsupported[] = {"|O", "<f16", "<M8[s]"};
    for (size_t i = 0; i < sizeof unsupported / sizeof *unsupported; i++) {
        char header[96], want[64];
        snprintf(header, sizeof header,
                 "{'descr': '%s', 'fortran_order': False, 'shape': (3,)}\n",
                 unsupported[i]);
        snprintf(want, sizeof want, "dtype '%s' is not supported",
                 unsupported[i]);
        n = make_npy(buf, header, v, sizeof v);
        expect_error(buf, n, CLG_IO_UNSUPPORTED, want);
    }
    n = make_npy(buf,
                 "{'descr': '|i4', 'fortran_order': False, "
                 "'shape': (3,)}\n",
                 v, sizeof v);
    expect_error(buf, n, CLG_IO_FORMAT_ERROR, "has no byte order");
    n = make_npy(buf,
                 "{'descr': '<i4', 'fortran_order': False, "
                 "'shape': (3000000000, 3000000000, 3000000000)}\n",
                 v, sizeof v);
    expect_error(buf, n, CLG_IO_FORMAT_ERROR, "too large");
}

/* |S0: elements of zero bytes, so the file cannot bound how many there
 * are, while each still costs a 16-byte descriptor. A 76-byte file
 * claiming 400000000 of them once made the reader allocate 6.4 GB; it is
 * refused, under an address-space limit that such an allocation would
 * break. An empty |S0 array is still read. */
static void test_zero_byte_strings(void **state)
{
    const char *header = "{'descr': '|S0', 'fortran_order': False, "
                         "'shape': (400000000,), }\n";
    unsigned char buf[256];
    size_t size = make_npy(buf, header, NULL, 0);
    struct rlimit saved, limited;
    unsigned long pages = 0;
    FILE *f = fopen("/proc/self/statm", "r");
    clg_io_tensor back;
    clg_io_error err;
    clg_io_status st;
    (void)state;

    assert_int_equal(size, 76);
    assert_non_null(f);
    assert_int_equal(fscanf(f, "%lu", &pages), 1);
    fclose(f);
    assert_int_equal(getrlimit(RLIMIT_AS, &saved), 0);
    limited = saved;
    limited.rlim_cur = (rlim_t)pages * (rlim_t)sysconf(_SC_PAGESIZE) +
                       ((rlim_t)256 << 20);
    if (saved.rlim_max != RLIM_INFINITY && limited.rlim_cur > saved.rlim_max)
        limited.rlim_cur = saved.rlim_max;
    clg_io_tensor_init(&back);
    err.message[0] = '\0';
    assert_int_equal(setrlimit(RLIMIT_AS, &limited), 0);
    st = clg_npy_decode(buf, size, "s0.npy", &back, &err);
    assert_int_equal(setrlimit(RLIMIT_AS, &saved), 0);
    assert_string_equal(err.message,
                        "s0.npy: dtype '|S0' has elements of zero bytes: "
                        "only an empty array is read, not shape "
                        "[400000000] (save empty byte strings as 'S1')");
    assert_int_equal(st, CLG_IO_UNSUPPORTED);
    assert_null(back.data);

    size = make_npy(buf,
                    "{'descr': '|S0', 'fortran_order': False, "
                    "'shape': (0, 5), }\n",
                    NULL, 0);
    if (clg_npy_decode(buf, size, "s0.npy", &back, &err) != CLG_IO_OK)
        fail_msg("%s", err.message);
    assert_int_equal(back.dtype, CLG_DTYPE_STRING);
    assert_int_equal(back.count, 0);
    assert_int_equal(back.rank, 2);
    assert_int_equal(back.shape[1], 5);
    clg_io_tensor_free(&back);
}

static void test_missing_file(void **state)
{
    clg_io_tensor back;
    clg_io_error err;
    (void)state;
    clg_io_tensor_init(&back);
    assert_int_equal(clg_npy_read("/nonexistent/x.npy", &back, &err),
                     CLG_IO_FILE_ERROR);
    assert_string_equal(err.message,
                        "/nonexistent/x.npy: cannot open: No such file or "
                        "directory");
}

/* Byte strings keep the width they were read with (NumPy's np.take keeps
 * the dtype), and grow only to fit a longer element. */
static void test_string_width_kept(void **state)
{
    (void)state;
    clg_string s[2] = {{"ab", 2}, {"", 0}};
    const int64_t shape[1] = {2};
    clg_tensor t = {CLG_DTYPE_STRING, 1, shape, s};
    unsigned char *bytes = NULL;
    size_t size = 0;
    assert_int_equal(clg_npy_encode(&t, 5, &bytes, &size, NULL), CLG_IO_OK);
    assert_true(header_has(bytes, size, "'descr': '|S5'"));
    assert_memory_equal(bytes + size - 10, "ab\0\0\0\0\0\0\0\0", 10);
    free(bytes);
    assert_int_equal(clg_npy_encode(&t, 1, &bytes, &size, NULL), CLG_IO_OK);
    assert_true(header_has(bytes, size, "'descr': '|S2'"));
    free(bytes);
}

/* An empty byte-string array keeps its width too: np.zeros(0, 'S5')
 * read and written back is '|S5', not '|S1'. */
static void test_empty_string_width_kept(void **state)
{
    const char *header = "{'descr': '|S5', 'fortran_order': False, "
                         "'shape': (0,), }\n";
    unsigned char buf[256], *bytes = NULL;
    size_t size = make_npy(buf, header, NULL, 0), out_size = 0;
    clg_io_tensor back;
    clg_tensor view;
    clg_io_error err;
    (void)state;

    clg_io_tensor_init(&back);
    if (clg_npy_decode(buf, size, "e.npy", &back, &err) != CLG_IO_OK)
        fail_msg("%s", err.message);
    assert_int_equal(back.dtype, CLG_DTYPE_STRING);
    assert_int_equal(back.count, 0);
    assert_int_equal(back.string_width, 5);
    view = clg_io_tensor_view(&back);
    assert_int_equal(clg_npy_encode(&view, back.string_width, &bytes,
                                    &out_size, NULL),
                     CLG_IO_OK);
    assert_true(header_has(bytes, out_size, "'descr': '|S5'"));
    free(bytes);
    clg_io_tensor_free(&back);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip_every_dtype),
        cmocka_unit_test(test_round_trip_strings),
        cmocka_unit_test(test_file_round_trip),
        cmocka_unit_test(test_bfloat16_has_no_numpy_dtype),
        cmocka_unit_test(test_numpy_written_files),
        cmocka_unit_test(test_big_endian_and_versions),
        cmocka_unit_test(test_unsupported_layouts_and_dtypes),
        cmocka_unit_test(test_fortran_order),
        cmocka_unit_test(test_npz_refused),
        cmocka_unit_test(test_header_variants),
        cmocka_unit_test(test_malformed_files),
        cmocka_unit_test(test_zero_byte_strings),
        cmocka_unit_test(test_missing_file),
        cmocka_unit_test(test_string_width_kept),
        cmocka_unit_test(test_empty_string_width_kept),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
