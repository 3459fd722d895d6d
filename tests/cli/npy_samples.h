/* SPDX-License-Identifier: Apache-2.0 */
/*
 * .npy files written by NumPy itself (np.save / np.lib.format.write_array,
 * NumPy 2.4.6), byte for byte, for tests/cli/test_npy.c. Generated once with a
 * short Python script; each is a C string (sizeof - 1 bytes). The last,
 * an .npz archive, was made by Python's zipfile module called as
 * np.savez calls it.
 */
#ifndef CLG_TEST_NPY_SAMPLES_H
#define CLG_TEST_NPY_SAMPLES_H

/* np.arange(6, dtype='<i4').reshape(2, 3) */
static const char npy_i4_2x3[] =
    "\x93NUMPY\x01\x00v\x00{'descr': '<i4', 'fortran_order': False, 'sh"
    "ape': (2, 3), }                                                   "
    "       \n\x00\x00\x00\x00\x01\x00\x00\x00\x02\x00\x00\x00\x03\x00"
    "\x00\x00\x04\x00\x00\x00\x05\x00\x00\x00";

/* np.array([True, False, True]) */
static const char npy_bool_3[] =
    "\x93NUMPY\x01\x00v\x00{'descr': '|b1', 'fortran_order': False, 'sh"
    "ape': (3,), }                                                     "
    "       \n\x01\x00\x01";

/* np.array([b'ab', b'', b'xyz']) */
static const char npy_s3_3[] =
    "\x93NUMPY\x01\x00v\x00{'descr': '|S3', 'fortran_order': False, 'sh"
    "ape': (3,), }                                                     "
    "       \nab\x00\x00\x00\x00xyz";

/* np.array(1.5, dtype=np.float16) */
static const char npy_f2_scalar[] =
    "\x93NUMPY\x01\x00v\x00{'descr': '<f2', 'fortran_order': False, 'sh"
    "ape': (), }                                                       "
    "       \n\x00>";

/* np.zeros((0, 2)) */
static const char npy_f8_0x2[] =
    "\x93NUMPY\x01\x00v\x00{'descr': '<f8', 'fortran_order': False, 'sh"
    "ape': (0, 2), }                                                   "
    "       \n";

/* np.array([[1+2j]], dtype=np.complex64) */
static const char npy_c8_1x1[] =
    "\x93NUMPY\x01\x00v\x00{'descr': '<c8', 'fortran_order': False, 'sh"
    "ape': (1, 1), }                                                   "
    "       \n\x00\x00\x80\x3f\x00\x00\x00@";

/* np.array([1, -2], dtype='>i8') */
static const char npy_be_i8_2[] =
    "\x93NUMPY\x01\x00v\x00{'descr': '>i8', 'fortran_order': False, 'sh"
    "ape': (2,), }                                                     "
    "       \n\x00\x00\x00\x00\x00\x00\x00\x01\xff\xff\xff\xff\xff\xff"
    "\xff\xfe";

/* np.array([[1+2j]], dtype='>c8') */
static const char npy_be_c8_1x1[] =
    "\x93NUMPY\x01\x00v\x00{'descr': '>c8', 'fortran_order': False, 'sh"
    "ape': (1, 1), }                                                   "
    "       \n\x3f\x80\x00\x00@\x00\x00\x00";

/* np.array([0.5], dtype='>f2') */
static const char npy_be_f2_1[] =
    "\x93NUMPY\x01\x00v\x00{'descr': '>f2', 'fortran_order': False, 'sh"
    "ape': (1,), }                                                     "
    "       \n8\x00";

/* np.arange(6, dtype=np.int16).reshape(2, 3), version (2, 0) */
static const char npy_v2_i2_2x3[] =
    "\x93NUMPY\x02\x00t\x00\x00\x00{'descr': '<i2', 'fortran_order': Fa"
    "lse, 'shape': (2, 3), }                                           "
    "             \n\x00\x00\x01\x00\x02\x00\x03\x00\x04\x00\x05\x00";

/* np.arange(3, dtype=np.uint32), version (3, 0) */
static const char npy_v3_u4_3[] =
    "\x93NUMPY\x03\x00t\x00\x00\x00{'descr': '<u4', 'fortran_order': Fa"
    "lse, 'shape': (3,), }                                             "
    "             \n\x00\x00\x00\x00\x01\x00\x00\x00\x02\x00\x00\x00";

/* np.asfortranarray(np.arange(6, dtype=np.int32).reshape(2, 3)) */
static const char npy_fortran_i4_2x3[] =
    "\x93NUMPY\x01\x00v\x00{'descr': '<i4', 'fortran_order': True, 'sha"
    "pe': (2, 3), }                                                    "
    "       \n\x00\x00\x00\x00\x03\x00\x00\x00\x01\x00\x00\x00\x04\x00"
    "\x00\x00\x02\x00\x00\x00\x05\x00\x00\x00";

/* np.array(['ab']) */
static const char npy_unicode_1[] =
    "\x93NUMPY\x01\x00v\x00{'descr': '<U2', 'fortran_order': False, 'sh"
    "ape': (1,), }                                                     "
    "       \na\x00\x00\x00"
    "b\x00\x00\x00";

/* np.array([(1, 2.0)], dtype=[('a', '<i4'), ('b', '<f8')]) */
static const char npy_structured_1[] =
    "\x93NUMPY\x01\x00v\x00{'descr': [('a', '<i4'), ('b', '<f8')], 'for"
    "tran_order': False, 'shape': (1,), }                              "
    "       \n\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00@";

/* np.savez(f, data=np.arange(6, dtype='<i4').reshape(2, 3)): a zip of
 * data.npy (npy_i4_2x3), as zipfile.ZipFile(f, 'w', ZIP_STORED,
 * allowZip64=True).open('data.npy', 'w', force_zip64=True) writes it */
static const char npz_data_i4_2x3[] =
    "\x50\x4b\x03\x04\x2d\x00\x00\x00\x00\x00\x00\x00\x21\x00\x50\xb4"
    "\x4d\x84\xff\xff\xff\xff\xff\xff\xff\xff\x08\x00\x14\x00\x64\x61"
    "\x74\x61\x2e\x6e\x70\x79\x01\x00\x10\x00\x98\x00\x00\x00\x00\x00"
    "\x00\x00\x98\x00\x00\x00\x00\x00\x00\x00\x93\x4e\x55\x4d\x50\x59"
    "\x01\x00\x76\x00\x7b\x27\x64\x65\x73\x63\x72\x27\x3a\x20\x27\x3c"
    "\x69\x34\x27\x2c\x20\x27\x66\x6f\x72\x74\x72\x61\x6e\x5f\x6f\x72"
    "\x64\x65\x72\x27\x3a\x20\x46\x61\x6c\x73\x65\x2c\x20\x27\x73\x68"
    "\x61\x70\x65\x27\x3a\x20\x28\x32\x2c\x20\x33\x29\x2c\x20\x7d\x20"
    "\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20"
    "\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20"
    "\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20\x20"
    "\x20\x20\x20\x20\x20\x20\x20\x20\x20\x0a\x00\x00\x00\x00\x01\x00"
    "\x00\x00\x02\x00\x00\x00\x03\x00\x00\x00\x04\x00\x00\x00\x05\x00"
    "\x00\x00\x50\x4b\x01\x02\x2d\x03\x2d\x00\x00\x00\x00\x00\x00\x00"
    "\x21\x00\x50\xb4\x4d\x84\x98\x00\x00\x00\x98\x00\x00\x00\x08\x00"
    "\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x80\x01\x00\x00\x00\x00"
    "\x64\x61\x74\x61\x2e\x6e\x70\x79\x50\x4b\x05\x06\x00\x00\x00\x00"
    "\x01\x00\x01\x00\x36\x00\x00\x00\xd2\x00\x00\x00\x00\x00";

#endif /* CLG_TEST_NPY_SAMPLES_H */
