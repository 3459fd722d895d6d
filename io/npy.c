/* SPDX-License-Identifier: Apache-2.0 */
/* NumPy .npy reading and writing for clgather_io. See npy.h. */
#include "npy.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const unsigned char npy_magic[6] = {0x93, 'N', 'U', 'M', 'P', 'Y'};

int clg_npy_is_npy(const void *bytes, size_t size)
{
    return size >= sizeof npy_magic &&
           memcmp(bytes, npy_magic, sizeof npy_magic) == 0;
}

/* ---------------------------------------------------------------- .npz */

/* np.savez writes a zip archive: a local file header "PK\3\4" per array
 * (its name at offset 30, the length of the name at 26), or only the end
 * record "PK\5\6" when there is no array. */
static const unsigned char zip_local[4] = {'P', 'K', 3, 4};
static const unsigned char zip_empty[4] = {'P', 'K', 5, 6};

int clg_npy_is_npz(const void *bytes, size_t size)
{
    return size >= 4 && (memcmp(bytes, zip_local, 4) == 0 ||
                         memcmp(bytes, zip_empty, 4) == 0);
}

size_t clg_npz_read_bound(const unsigned char *bytes, size_t len,
                          size_t *state)
{
    int local = len >= 4 && memcmp(bytes, zip_local, 4) == 0;
    (void)state;
    if (len < 30 && (len < 4 || local))
        return 30; /* the first member's header is not all in yet */
    if (!local)
        return len; /* an empty archive, or no zip: nothing more needed */
    return 30 + ((size_t)bytes[26] | (size_t)bytes[27] << 8);
}

/* The name of the archive's first member, printable ASCII only (another
 * byte as '?'), at most cap - 1 bytes, into buf; 0 when the bytes end
 * before it. */
static int npz_first_name(const unsigned char *b, size_t size, char *buf,
                          size_t cap)
{
    size_t n;
    if (size < 30 || memcmp(b, zip_local, 4) != 0)
        return 0;
    n = (size_t)b[26] | (size_t)b[27] << 8;
    if (n == 0 || n > size - 30)
        return 0;
    if (n > cap - 1)
        n = cap - 1;
    for (size_t i = 0; i < n; i++)
        buf[i] = b[30 + i] >= 0x20 && b[30 + i] < 0x7f ? (char)b[30 + i] : '?';
    buf[n] = '\0';
    return 1;
}

void clg_npz_error(const void *bytes, size_t size, const char *name,
                   clg_io_error *err)
{
    const char *file = strcmp(name, "-") == 0 ? "FILE.npz" : name;
    char member[72];
    size_t n;

    if (size >= 4 && memcmp(bytes, zip_empty, 4) == 0) {
        clg_io_error_set(err,
                         "%s: an empty .npz archive (a zip of .npy files, "
                         "here none), not a NumPy file of one array",
                         name);
        return;
    }
    if (!npz_first_name(bytes, size, member, sizeof member)) {
        clg_io_error_set(err,
                         "%s: an .npz archive (a zip of .npy files, one per "
                         "array), not a NumPy file of one array: extract "
                         "one ('unzip -l %s' lists them), e.g. 'unzip -p %s "
                         "NAME.npy > NAME.npy'",
                         name, file, file);
        return;
    }
    n = strlen(member);
    if (n <= 4 || strcmp(member + n - 4, ".npy") != 0) {
        clg_io_error_set(err,
                         "%s: a zip archive (its first member is '%s'), not "
                         "a NumPy file of one array; an .npz holds one .npy "
                         "file per array",
                         name, member);
        return;
    }
    clg_io_error_set(err,
                     "%s: an .npz archive (a zip of .npy files, one per "
                     "array; the first is '%.*s'), not a NumPy file of one "
                     "array: extract one, e.g. 'unzip -p %s %s > %s', or in "
                     "Python np.save('%s', np.load('%s')['%.*s'])",
                     name, (int)(n - 4), member, file, member, member, member,
                     file, (int)(n - 4), member);
}

const char *clg_npy_descr(clg_dtype dtype, char *buf, size_t cap)
{
    char kind = clg_io_dtype_kind(dtype);
    size_t size = clg_dtype_size(dtype);
    /* NumPy's kinds; bfloat16 and STRING descriptors have none. */
    if (kind == 0 || !strchr("fiubc", kind))
        return NULL;
    snprintf(buf, cap, "%c%c%zu", size == 1 ? '|' : '<', kind, size);
    return buf;
}

/* ---------------------------------------------------------------- header */

/* The header is a Python dict literal, e.g.
 *   {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }
 * parsed by this small cursor. */
typedef struct cursor {
    const char *p;
    const char *end;
    const char *start; /* of the header, for offsets in messages */
} cursor;

static void skip_space(cursor *c)
{
    while (c->p < c->end &&
           (*c->p == ' ' || *c->p == '\t' || *c->p == '\n' || *c->p == '\r'))
        c->p++;
}

static int accept_char(cursor *c, char ch)
{
    skip_space(c);
    if (c->p < c->end && *c->p == ch) {
        c->p++;
        return 1;
    }
    return 0;
}

/* A quoted Python string without escapes (NumPy never writes any). */
static int parse_string(cursor *c, char *out, size_t cap)
{
    char quote;
    size_t n = 0;
    skip_space(c);
    if (c->p >= c->end || (*c->p != '\'' && *c->p != '"'))
        return 0;
    quote = *c->p++;
    while (c->p < c->end && *c->p != quote) {
        if (*c->p == '\\' || n + 1 >= cap)
            return 0;
        out[n++] = *c->p++;
    }
    if (c->p >= c->end)
        return 0;
    c->p++;
    out[n] = '\0';
    return 1;
}

static int parse_word(cursor *c, const char *word)
{
    size_t n = strlen(word);
    skip_space(c);
    if ((size_t)(c->end - c->p) >= n && memcmp(c->p, word, n) == 0) {
        c->p += n;
        return 1;
    }
    return 0;
}

/* What parse_shape found. */
typedef enum shape_parse {
    SHAPE_OK,
    SHAPE_MALFORMED,
    SHAPE_RANK,     /* more than CLG_MAX_RANK dimensions */
    SHAPE_NEGATIVE, /* a dimension with a minus sign */
    SHAPE_HUGE      /* a dimension beyond INT64_MAX */
} shape_parse;

/* "(2, 3)", "(3,)", "()"; Python 2 writers may add an 'L' suffix. */
static shape_parse parse_shape(cursor *c, int64_t *shape, size_t *rank)
{
    *rank = 0;
    if (!accept_char(c, '('))
        return SHAPE_MALFORMED;
    for (;;) {
        int64_t v = 0;
        int digits = 0;
        if (accept_char(c, ')'))
            return SHAPE_OK;
        skip_space(c);
        /* Python reads -0 as 0; any other negative value is refused. */
        int negative = c->p < c->end && *c->p == '-';
        if (negative)
            c->p++;
        while (c->p < c->end && isdigit((unsigned char)*c->p)) {
            int d = *c->p - '0';
            if (v > (INT64_MAX - d) / 10)
                return SHAPE_HUGE;
            v = v * 10 + d;
            c->p++;
            digits++;
        }
        if (digits == 0)
            return SHAPE_MALFORMED;
        if (negative && v != 0)
            return SHAPE_NEGATIVE;
        if (c->p < c->end && (*c->p == 'L' || *c->p == 'l'))
            c->p++;
        if (*rank >= CLG_MAX_RANK)
            return SHAPE_RANK;
        shape[(*rank)++] = v;
        if (accept_char(c, ','))
            continue;
        if (accept_char(c, ')'))
            return SHAPE_OK;
        return SHAPE_MALFORMED;
    }
}

typedef struct npy_header {
    char descr[64];
    int fortran_order;
    int64_t shape[CLG_MAX_RANK];
    size_t rank;
} npy_header;

static clg_io_status malformed(const cursor *c, const char *name,
                               clg_io_error *err)
{
    clg_io_error_set(err, "%s: header: malformed dictionary near offset %zu",
                     name, (size_t)(c->p - c->start));
    return CLG_IO_FORMAT_ERROR;
}

/* Keys seen in the header dictionary. */
enum { SEEN_DESCR = 1, SEEN_ORDER = 2, SEEN_SHAPE = 4 };

/* The value of `key` into *h; its bit into *seen. */
static clg_io_status parse_entry(cursor *c, const char *key, const char *name,
                                 npy_header *h, unsigned *seen,
                                 clg_io_error *err)
{
    if (strcmp(key, "descr") == 0) {
        skip_space(c);
        if (c->p < c->end && *c->p == '[') {
            clg_io_error_set(err,
                             "%s: header: structured dtypes (a 'descr' "
                             "list) are not supported",
                             name);
            return CLG_IO_UNSUPPORTED;
        }
        if (!parse_string(c, h->descr, sizeof h->descr))
            return malformed(c, name, err);
        *seen |= SEEN_DESCR;
    } else if (strcmp(key, "fortran_order") == 0) {
        if (parse_word(c, "True"))
            h->fortran_order = 1;
        else if (parse_word(c, "False"))
            h->fortran_order = 0;
        else
            return malformed(c, name, err);
        *seen |= SEEN_ORDER;
    } else if (strcmp(key, "shape") == 0) {
        shape_parse r = parse_shape(c, h->shape, &h->rank);
        switch (r) {
        case SHAPE_OK:
            break;
        case SHAPE_RANK:
            clg_io_error_set(err,
                             "%s: header: shape has more than %d "
                             "dimensions",
                             name, CLG_MAX_RANK);
            return CLG_IO_UNSUPPORTED;
        case SHAPE_NEGATIVE:
        case SHAPE_HUGE:
            clg_io_error_set(err,
                             "%s: header: shape dimension %zu %s (offset %zu)",
                             name, h->rank,
                             r == SHAPE_NEGATIVE ? "is negative"
                                                 : "does not fit int64",
                             (size_t)(c->p - c->start));
            return CLG_IO_FORMAT_ERROR;
        default:
            return malformed(c, name, err);
        }
        *seen |= SEEN_SHAPE;
    } else {
        clg_io_error_set(err, "%s: header: unexpected key '%s'", name, key);
        return CLG_IO_FORMAT_ERROR;
    }
    return CLG_IO_OK;
}

static clg_io_status parse_header(const char *text, size_t len,
                                  const char *name, npy_header *h,
                                  clg_io_error *err)
{
    cursor c = {text, text + len, text};
    unsigned seen = 0;
    clg_io_status st;

    if (!accept_char(&c, '{'))
        return malformed(&c, name, err);
    for (;;) {
        char key[32];
        if (accept_char(&c, '}'))
            break;
        if (!parse_string(&c, key, sizeof key) || !accept_char(&c, ':'))
            return malformed(&c, name, err);
        if ((st = parse_entry(&c, key, name, h, &seen, err)) != CLG_IO_OK)
            return st;
        if (accept_char(&c, ','))
            continue;
        if (accept_char(&c, '}'))
            break;
        return malformed(&c, name, err);
    }
    skip_space(&c);
    if (c.p != c.end)
        return malformed(&c, name, err);
    if (seen != (SEEN_DESCR | SEEN_ORDER | SEEN_SHAPE)) {
        clg_io_error_set(err,
                         "%s: header: missing key '%s' (needs 'descr', "
                         "'fortran_order' and 'shape')",
                         name,
                         !(seen & SEEN_DESCR)   ? "descr"
                         : !(seen & SEEN_ORDER) ? "fortran_order"
                                                : "shape");
        return CLG_IO_FORMAT_ERROR;
    }
    return CLG_IO_OK;
}

/* A descriptor split into byte order ('<', '>', '|' or '='), kind and
 * size (*have_size: digits were given). 0, or -1 when malformed. */
static int split_descr(const char *descr, char *order, char *kind,
                       unsigned long long *size, int *have_size)
{
    const char *p = descr;
    *order = '=';
    *size = 0;
    *have_size = 0;
    if (*p == '<' || *p == '>' || *p == '|' || *p == '=')
        *order = *p++;
    *kind = *p;
    if (*kind == '\0')
        return -1;
    p++;
    while (isdigit((unsigned char)*p)) {
        if (*size > 1000000000ULL)
            return -1;
        *size = *size * 10 + (unsigned long long)(*p - '0');
        *have_size = 1;
        p++;
    }
    /* datetime64 and timedelta64 end in their unit, as '<M8[s]'. */
    if (*p == '[') {
        const char *close = strchr(p, ']');
        if (close != NULL && close[1] == '\0' && close > p + 1)
            p = close + 1;
    }
    return *p == '\0' ? 0 : -1;
}

/* The dtype of a kind and size, or UNDEFINED; *string_width gets n for
 * 'S<n>'. */
static clg_dtype dtype_for(char kind, unsigned long long size, int have_size,
                           size_t *string_width)
{
    *string_width = 0;
    switch (kind) {
    case '?':
        return !have_size || size == 1 ? CLG_DTYPE_BOOL : CLG_DTYPE_UNDEFINED;
    case 'S':
    case 'a':
        if (!have_size)
            return CLG_DTYPE_UNDEFINED;
        *string_width = (size_t)size;
        return CLG_DTYPE_STRING;
    case 'b':
    case 'i':
    case 'u':
    case 'f':
    case 'c':
        return have_size ? clg_io_dtype_of(kind, (size_t)size)
                         : CLG_DTYPE_UNDEFINED;
    default:
        return CLG_DTYPE_UNDEFINED;
    }
}

/* Maps a descriptor to a dtype. *swap is set when the data is in the
 * other byte order than the host's; *string_width gets n for 'S<n>'. */
static clg_io_status parse_descr(const char *descr, const char *name,
                                 clg_dtype *dtype, int *swap,
                                 size_t *string_width, clg_io_error *err)
{
    char order, kind;
    unsigned long long size;
    int have_size;

    if (split_descr(descr, &order, &kind, &size, &have_size) != 0) {
        clg_io_error_set(err, "%s: header: malformed dtype descriptor '%s'",
                         name, descr);
        return CLG_IO_FORMAT_ERROR;
    }
    *dtype = dtype_for(kind, size, have_size, string_width);
    if (kind == 'U') {
        clg_io_error_set(err,
                         "%s: dtype '%s' (unicode strings) is not supported; "
                         "save byte strings instead (e.g. "
                         "np.char.encode(a, 'utf-8'), dtype 'S')",
                         name, descr);
        return CLG_IO_UNSUPPORTED;
    }
    if (*dtype == CLG_DTYPE_UNDEFINED) {
        clg_io_error_set(err,
                         "%s: dtype '%s' is not supported (supported: bool, "
                         "int8..int64, uint8..uint64, float16/32/64, "
                         "complex64/128, byte strings 'S<n>')",
                         name, descr);
        return CLG_IO_UNSUPPORTED;
    }
    if (*dtype == CLG_DTYPE_STRING || size <= 1)
        *swap = 0;
    else if (order == '|') {
        clg_io_error_set(err,
                         "%s: dtype '%s' has no byte order but %llu-byte "
                         "elements",
                         name, descr, size);
        return CLG_IO_FORMAT_ERROR;
    } else if (order == '=')
        *swap = 0;
    else
        *swap = (order == '<') != clg_io_host_is_little_endian();
    return CLG_IO_OK;
}

/* ---------------------------------------------------------------- reading */

/* The header's length and offset from a preamble of a version the reader
 * knows (its 10 or 12 bytes in b); 0 for another version. */
static int header_span(const unsigned char *b, size_t *header_len,
                       size_t *header_at)
{
    if (b[6] < 1 || b[6] > 3)
        return 0;
    *header_len = (size_t)b[8] | (size_t)b[9] << 8;
    *header_at = 10;
    if (b[6] > 1) {
        *header_len |= (size_t)b[10] << 16 | (size_t)b[11] << 24;
        *header_at = 12;
    }
    return 1;
}

/* The preamble: magic, version, header length. The header's length and
 * offset to *header_len and *header_at. */
static clg_io_status read_preamble(const unsigned char *b, size_t size,
                                   const char *name, size_t *header_len,
                                   size_t *header_at, clg_io_error *err)
{
    if (!clg_npy_is_npy(b, size)) {
        if (clg_npy_is_npz(b, size))
            clg_npz_error(b, size, name, err);
        else
            clg_io_error_set(err, "%s: not a NumPy file (no \\x93NUMPY magic)",
                             name);
        return CLG_IO_FORMAT_ERROR;
    }
    /* Version 1 has a 2-byte header length, versions 2 and 3 a 4-byte
     * one. */
    if (size < 10 || (size < 12 && (b[6] == 2 || b[6] == 3))) {
        clg_io_error_set(err, "%s: truncated NumPy preamble (%zu bytes)", name,
                         size);
        return CLG_IO_FORMAT_ERROR;
    }
    if (!header_span(b, header_len, header_at)) {
        clg_io_error_set(err,
                         "%s: NumPy format version %u.%u is not supported "
                         "(1.0, 2.0 and 3.0 are)",
                         name, (unsigned)b[6], (unsigned)b[7]);
        return CLG_IO_UNSUPPORTED;
    }
    if (*header_len > size - *header_at) {
        clg_io_error_set(err,
                         "%s: truncated: the header is %zu bytes, the file "
                         "holds %zu after the preamble",
                         name, *header_len, size - *header_at);
        return CLG_IO_FORMAT_ERROR;
    }
    return CLG_IO_OK;
}

/* The header dictionary of len bytes at p into *h. */
static clg_io_status read_header(const unsigned char *p, size_t len,
                                 const char *name, npy_header *h,
                                 clg_io_error *err)
{
    clg_io_status st;
    char *text = malloc(len + 1);
    if (text == NULL) {
        clg_io_error_set(err, "%s: out of memory", name);
        return CLG_IO_NO_MEMORY;
    }
    memcpy(text, p, len);
    text[len] = '\0';
    if (memchr(text, '\0', len) != NULL) {
        clg_io_error_set(err, "%s: header: contains a NUL byte", name);
        st = CLG_IO_FORMAT_ERROR;
    } else {
        st = parse_header(text, len, name, h, err);
    }
    free(text);
    return st;
}

/* Whether the data must be rearranged into C order: Fortran order (the
 * first index moving fastest) is C order too when at most one dimension
 * exceeds 1. */
static int needs_transpose(const npy_header *h)
{
    size_t long_dims = 0;
    for (size_t d = 0; d < h->rank; d++)
        long_dims += h->shape[d] > 1;
    return h->fortran_order && long_dims > 1;
}

/* One element of `elem` bytes from src to dst; the common sizes as fixed
 * copies the compiler inlines. */
static void copy_element(unsigned char *dst, const unsigned char *src,
                         size_t elem)
{
    switch (elem) {
    case 1:
        *dst = *src;
        break;
    case 2:
        memcpy(dst, src, 2);
        break;
    case 4:
        memcpy(dst, src, 4);
        break;
    case 8:
        memcpy(dst, src, 8);
        break;
    case 16:
        memcpy(dst, src, 16);
        break;
    default:
        memcpy(dst, src, elem);
    }
}

/* The count elements (elem bytes each, count > 0) of a Fortran-order
 * array of shape h->shape at src into C order at dst: dst walks the
 * output in order, the last index fastest, while the source offset f
 * steps by each dimension's Fortran stride (the product of the
 * dimensions before it) and steps back when that index wraps. The byte
 * order is left as it is (swapped after, element by element). */
static void fortran_to_c(unsigned char *dst, const unsigned char *src,
                         const npy_header *h, int64_t count, size_t elem)
{
    size_t stride[CLG_MAX_RANK], index[CLG_MAX_RANK];
    size_t f = 0, s = 1, last = h->rank - 1, row = (size_t)h->shape[last];
    for (size_t d = 0; d < h->rank; d++) {
        stride[d] = s;
        index[d] = 0;
        s *= (size_t)h->shape[d];
    }
    for (int64_t done = 0; done < count; done += (int64_t)row) {
        for (size_t j = 0; j < row; j++, dst += elem)
            copy_element(dst, src + (f + j * stride[last]) * elem, elem);
        /* the next row: advance the index of the dimensions before the
         * last, the rightmost first */
        for (size_t d = last; d-- > 0;) {
            if (++index[d] < (size_t)h->shape[d]) {
                f += stride[d];
                break;
            }
            f -= stride[d] * (index[d] - 1);
            index[d] = 0;
        }
    }
}

/* The count elements (elem bytes each) at src into dst in C order. */
static void copy_c_order(unsigned char *dst, const unsigned char *src,
                         const npy_header *h, int64_t count, size_t elem)
{
    if (count == 0 || elem == 0)
        return;
    if (needs_transpose(h))
        fortran_to_c(dst, src, h, count, elem);
    else
        memcpy(dst, src, (size_t)count * elem);
}

/* The shape's element count to *count; the file must hold exactly its
 * data after the header (data_size bytes of elem-byte elements). */
static clg_io_status check_data_size(const npy_header *h, size_t elem,
                                     size_t data_bytes, const char *name,
                                     int64_t *count, clg_io_error *err)
{
    char shape_text[512];
    size_t data_size;
    *count = clg_io_shape_count(h->shape, h->rank, elem > 0 ? elem : 1);
    if (*count < 0) {
        clg_io_error_set(err, "%s: shape %s is too large", name,
                         clg_io_format_shape(shape_text, sizeof shape_text,
                                             h->shape, h->rank));
        return CLG_IO_FORMAT_ERROR;
    }
    data_size = (size_t)*count * elem;
    if (data_bytes != data_size) {
        clg_io_error_set(err,
                         "%s: %s: shape %s of '%s' needs %zu data bytes, the "
                         "file holds %zu",
                         name,
                         data_bytes < data_size ? "truncated"
                                                : "trailing bytes",
                         clg_io_format_shape(shape_text, sizeof shape_text,
                                             h->shape, h->rank),
                         h->descr, data_size, data_bytes);
        return CLG_IO_FORMAT_ERROR;
    }
    return CLG_IO_OK;
}

/* A tensor costs what its file holds: count * elem data bytes, checked
 * exactly by check_data_size, plus a 16-byte descriptor per STRING
 * element, at most 16 per data byte. 'S0' elements hold no bytes, so the
 * file bounds nothing: only an empty 'S0' array is read. NumPy itself
 * stores b'' as 'S1'. */
static clg_io_status check_zero_width(const npy_header *h, int64_t count,
                                      const char *name, clg_io_error *err)
{
    char shape_text[512];
    if (count == 0)
        return CLG_IO_OK;
    clg_io_error_set(err,
                     "%s: dtype '%s' has elements of zero bytes: only an "
                     "empty array is read, not shape %s (save empty byte "
                     "strings as 'S1')",
                     name, h->descr,
                     clg_io_format_shape(shape_text, sizeof shape_text,
                                         h->shape, h->rank));
    return CLG_IO_UNSUPPORTED;
}

/* 'S<width>' elements into out->string_bytes in C order, one descriptor
 * each (NUL padding dropped). */
static clg_io_status copy_strings(const unsigned char *p, const npy_header *h,
                                  size_t data_size, size_t width,
                                  const char *name, clg_io_tensor *out,
                                  clg_io_error *err)
{
    clg_string *s = out->data;
    out->string_bytes = malloc(data_size > 0 ? data_size : 1);
    if (out->string_bytes == NULL) {
        clg_io_error_set(err, "%s: out of memory", name);
        return CLG_IO_NO_MEMORY;
    }
    out->string_bytes_size = data_size;
    out->string_width = width;
    copy_c_order((unsigned char *)out->string_bytes, p, h, out->count, width);
    for (int64_t i = 0; i < out->count; i++) {
        const char *e = out->string_bytes + (size_t)i * width;
        size_t len = width;
        while (len > 0 && e[len - 1] == '\0')
            len--;
        s[i].data = e;
        s[i].length = len;
    }
    return CLG_IO_OK;
}

/* What the preamble and the header of a .npy file say: where the data
 * starts, its dtype, byte order and element size. */
typedef struct npy_layout {
    npy_header h;
    size_t data_at, width, elem;
    clg_dtype dtype;
    int swap;
} npy_layout;

static clg_io_status read_layout(const unsigned char *b, size_t size,
                                 const char *name, npy_layout *l,
                                 clg_io_error *err)
{
    size_t header_len = 0, header_at = 0;
    clg_io_status st;

    memset(l, 0, sizeof *l);
    l->dtype = CLG_DTYPE_UNDEFINED;
    st = read_preamble(b, size, name, &header_len, &header_at, err);
    if (st == CLG_IO_OK)
        st = read_header(b + header_at, header_len, name, &l->h, err);
    if (st == CLG_IO_OK)
        st = parse_descr(l->h.descr, name, &l->dtype, &l->swap, &l->width,
                         err);
    if (st != CLG_IO_OK)
        return st;
    l->elem = l->dtype == CLG_DTYPE_STRING ? l->width
                                           : clg_dtype_size(l->dtype);
    l->data_at = header_at + header_len;
    return CLG_IO_OK;
}

size_t clg_npy_read_bound(const unsigned char *bytes, size_t len,
                          size_t *state)
{
    npy_layout l;
    int64_t count;
    size_t header_len, header_at;
    (void)state;
    if (memcmp(bytes, npy_magic,
               len < sizeof npy_magic ? len : sizeof npy_magic) != 0)
        return len; /* not the magic: the decoder says so */
    /* the longest preamble; a shorter file ends before this anyway */
    if (len < 12)
        return SIZE_MAX;
    if (!header_span(bytes, &header_len, &header_at))
        return len; /* a version the decoder refuses */
    if (len - header_at < header_len)
        return SIZE_MAX; /* the header is not all in */
    if (read_layout(bytes, len, "", &l, NULL) != CLG_IO_OK)
        return len;
    count = clg_io_shape_count(l.h.shape, l.h.rank, l.elem > 0 ? l.elem : 1);
    if (count < 0 ||
        (l.elem > 0 && (uint64_t)count > (SIZE_MAX - l.data_at - 1) / l.elem))
        return len;
    return l.data_at + (size_t)count * l.elem + 1;
}

clg_io_status clg_npy_decode(const void *bytes, size_t size, const char *name,
                             clg_io_tensor *out, clg_io_error *err)
{
    const unsigned char *b = bytes;
    npy_layout l;
    int64_t count;
    clg_io_status st;

    clg_io_tensor_free(out);
    st = read_layout(b, size, name, &l, err);
    if (st != CLG_IO_OK)
        return st;
    st = check_data_size(&l.h, l.elem, size - l.data_at, name, &count, err);
    if (st == CLG_IO_OK && l.elem == 0)
        st = check_zero_width(&l.h, count, name, err);
    if (st == CLG_IO_OK)
        st = clg_io_tensor_alloc(out, l.dtype, l.h.rank, l.h.shape, name, err);
    if (st != CLG_IO_OK)
        goto cleanup;
    if (l.dtype != CLG_DTYPE_STRING) {
        copy_c_order(out->data, b + l.data_at, &l.h, count, l.elem);
        if (l.swap)
            clg_io_swap_words(out->data, out->nbytes,
                              clg_io_word_size(l.dtype));
    } else if (count > 0) {
        st = copy_strings(b + l.data_at, &l.h, (size_t)count * l.elem, l.width,
                          name, out, err);
    } else {
        out->string_width = l.width; /* an empty 'S5' is written back 'S5' */
    }

cleanup:
    if (st != CLG_IO_OK)
        clg_io_tensor_free(out);
    return st;
}

clg_io_status clg_npy_read(const char *path, clg_io_tensor *out,
                           clg_io_error *err)
{
    unsigned char *bytes = NULL;
    size_t size = 0;
    clg_io_status st;

    clg_io_tensor_free(out);
    st = clg_io_read_file(path, clg_npy_read_bound, &bytes, &size, err);
    if (st == CLG_IO_OK)
        st = clg_npy_decode(bytes, size, path, out, err);
    free(bytes);
    return st;
}

/* ---------------------------------------------------------------- writing */

/* The descriptor and element size of t: '|S<n>' for STRING, n the
 * longest string, at least string_width and 1. */
static clg_io_status npy_dtype(const clg_tensor *t, size_t string_width,
                               int64_t count, char *descr, size_t cap,
                               size_t *elem, clg_io_error *err)
{
    if (t->dtype == CLG_DTYPE_STRING) {
        const clg_string *s = t->data;
        size_t width = string_width;
        for (int64_t i = 0; i < count; i++)
            if (s[i].length > width)
                width = s[i].length;
        if (width == 0)
            width = 1; /* NumPy's smallest byte-string dtype is S1 */
        snprintf(descr, cap, "|S%zu", width);
        *elem = width;
        return CLG_IO_OK;
    }
    if (clg_npy_descr(t->dtype, descr, cap) == NULL) {
        /* A dtype of the table that NumPy lacks (BFLOAT16) has ONNX. */
        clg_io_error_set(err, "npy: data type %s has no NumPy dtype%s",
                         clg_dtype_name(t->dtype),
                         clg_dtype_size(t->dtype) != 0
                             ? "; write an ONNX .pb file instead"
                             : "");
        return CLG_IO_UNSUPPORTED;
    }
    *elem = clg_dtype_size(t->dtype);
    return CLG_IO_OK;
}

/* The header dictionary into header (cap bytes), padded with spaces and a
 * newline so that preamble + header is a multiple of 64 bytes, as NumPy
 * does; its length to *hlen. With rank <= CLG_MAX_RANK the header always
 * fits format 1.0's 16-bit length. */
static clg_io_status npy_header_text(const clg_tensor *t, const char *descr,
                                     char *header, size_t cap, size_t *hlen,
                                     clg_io_error *err)
{
    const size_t preamble = 10;
    char shape_text[1024];
    size_t at = 0, total_header;

    /* Shape as a Python tuple: "()", "(3,)", "(2, 3)". */
    at += (size_t)snprintf(shape_text, sizeof shape_text, "(");
    for (size_t i = 0; i < t->rank; i++)
        at += (size_t)snprintf(shape_text + at, sizeof shape_text - at,
                               "%s%lld", i ? ", " : "",
                               (long long)t->shape[i]);
    snprintf(shape_text + at, sizeof shape_text - at, "%s)",
             t->rank == 1 ? "," : "");
    *hlen = (size_t)snprintf(header, cap,
                             "{'descr': '%s', 'fortran_order': False, "
                             "'shape': %s, }",
                             descr, shape_text);
    total_header = (preamble + *hlen + 1 + 63) / 64 * 64;
    if (total_header - preamble > cap) {
        clg_io_error_set(err, "npy: header too long");
        return CLG_IO_FORMAT_ERROR;
    }
    while (preamble + *hlen + 1 < total_header)
        header[(*hlen)++] = ' ';
    header[(*hlen)++] = '\n';
    return CLG_IO_OK;
}

/* count elements of t, elem bytes each, little-endian (strings padded
 * with NULs to elem), to d. */
static void npy_data(unsigned char *d, const clg_tensor *t, int64_t count,
                     size_t elem)
{
    size_t data_size = (size_t)count * elem;
    if (t->dtype == CLG_DTYPE_STRING) {
        const clg_string *s = t->data;
        memset(d, 0, data_size);
        for (int64_t i = 0; i < count; i++)
            if (s[i].length > 0)
                memcpy(d + (size_t)i * elem, s[i].data, s[i].length);
    } else if (data_size > 0) {
        memcpy(d, t->data, data_size);
        if (!clg_io_host_is_little_endian())
            clg_io_swap_words(d, data_size, clg_io_word_size(t->dtype));
    }
}

/* t must have a valid rank and shape, and data unless empty. Its element
 * count to *count. */
static clg_io_status check_tensor(const clg_tensor *t, int64_t *count,
                                  clg_io_error *err)
{
    char shape_text[1024];
    if (t->rank > CLG_MAX_RANK || (t->rank > 0 && t->shape == NULL)) {
        clg_io_error_set(err, "npy: invalid tensor rank %zu", t->rank);
        return CLG_IO_FORMAT_ERROR;
    }
    *count = clg_io_shape_count(t->shape, t->rank, 1);
    if (*count < 0) {
        clg_io_error_set(err, "npy: invalid shape %s",
                         clg_io_format_shape(shape_text, sizeof shape_text,
                                             t->shape, t->rank));
        return CLG_IO_FORMAT_ERROR;
    }
    if (*count > 0 && t->data == NULL) {
        clg_io_error_set(err, "npy: tensor data is NULL");
        return CLG_IO_FORMAT_ERROR;
    }
    return CLG_IO_OK;
}

clg_io_status clg_npy_encode(const clg_tensor *t, size_t string_width,
                             unsigned char **bytes, size_t *size,
                             clg_io_error *err)
{
    const size_t preamble = 10;
    char descr[32];
    char header[2048];
    size_t hlen = 0, elem = 0, data_size;
    int64_t count = 0;
    unsigned char *buf;
    clg_io_status st;

    *bytes = NULL;
    *size = 0;
    st = check_tensor(t, &count, err);
    if (st == CLG_IO_OK)
        st = npy_dtype(t, string_width, count, descr, sizeof descr, &elem,
                       err);
    if (st != CLG_IO_OK)
        return st;
    if ((uint64_t)count > SIZE_MAX / elem) {
        clg_io_error_set(err, "npy: tensor too large");
        return CLG_IO_FORMAT_ERROR;
    }
    data_size = (size_t)count * elem;
    st = npy_header_text(t, descr, header, sizeof header, &hlen, err);
    if (st != CLG_IO_OK)
        return st;
    if (data_size > SIZE_MAX - (preamble + hlen)) {
        clg_io_error_set(err, "npy: tensor too large");
        return CLG_IO_FORMAT_ERROR;
    }
    buf = malloc(preamble + hlen + data_size);
    if (buf == NULL) {
        clg_io_error_set(err, "npy: cannot allocate %zu bytes",
                         preamble + hlen + data_size);
        return CLG_IO_NO_MEMORY;
    }
    memcpy(buf, npy_magic, sizeof npy_magic);
    buf[6] = 1;
    buf[7] = 0;
    buf[8] = (unsigned char)(hlen & 0xff);
    buf[9] = (unsigned char)(hlen >> 8);
    memcpy(buf + preamble, header, hlen);
    npy_data(buf + preamble + hlen, t, count, elem);
    *bytes = buf;
    *size = preamble + hlen + data_size;
    return CLG_IO_OK;
}

clg_io_status clg_npy_write(const char *path, const clg_tensor *t,
                            size_t string_width, clg_io_error *err)
{
    unsigned char *bytes = NULL;
    size_t size = 0;
    clg_io_status st = clg_npy_encode(t, string_width, &bytes, &size, err);
    if (st != CLG_IO_OK) {
        /* Prefix the path: the encoder does not know it. */
        if (err != NULL) {
            clg_io_error e = *err;
            clg_io_error_set(err, "%s: %s", path, e.message);
        }
        return st;
    }
    st = clg_io_write_file(path, bytes, size, err);
    free(bytes);
    return st;
}
