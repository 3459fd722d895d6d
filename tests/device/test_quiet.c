/* SPDX-License-Identifier: Apache-2.0 */
/* The library stays silent: first calls, which build programs from source
 * with every cache off (the library's, POCL's and Mesa's), print nothing
 * on stdout or stderr. POCL on AVX2 CPUs let its compiler's "N warnings
 * generated." through, and Rusticl a warning about a kernel argument read
 * in control flow; both were the library's programs. The calls reach the
 * check kernel (more than 65536 indices, int32 and int64), Gather,
 * GatherElements' lanes body, GatherND and an out-of-range error, and
 * each result is checked. */
#include "clg_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define N 70000 /* above the host scan's 65536 */
#define S 1000
#define ROWS 65
#define COLS 1024

/* Standard output and error go to one temporary file until quiet_end. */
typedef struct quiet {
    FILE *tmp;
    int saved[2];
} quiet;

static void quiet_begin(quiet *q)
{
    fflush(stdout);
    fflush(stderr);
    q->tmp = tmpfile();
    assert_non_null(q->tmp);
    for (int fd = 1; fd <= 2; fd++) {
        q->saved[fd - 1] = dup(fd);
        assert_true(q->saved[fd - 1] >= 0);
        assert_true(dup2(fileno(q->tmp), fd) >= 0);
    }
}

/* Restores both streams; returns what was written meanwhile (malloc'd,
 * NUL-terminated) and its length in *len. */
static char *quiet_end(quiet *q, long *len)
{
    fflush(stdout);
    fflush(stderr);
    for (int fd = 1; fd <= 2; fd++) {
        dup2(q->saved[fd - 1], fd);
        close(q->saved[fd - 1]);
    }
    fseek(q->tmp, 0, SEEK_END);
    *len = ftell(q->tmp);
    char *text = calloc((size_t)(*len > 0 ? *len : 0) + 1, 1);
    assert_non_null(text);
    rewind(q->tmp);
    if (*len > 0 && fread(text, 1, (size_t)*len, q->tmp) != (size_t)*len)
        *len = -1;
    fclose(q->tmp);
    return text;
}

static void test_first_calls_print_nothing(void **state)
{
    clg_context *ctx = *state;
    float *data = malloc(S * sizeof *data);
    float *rows = malloc(ROWS * COLS * sizeof *rows);
    int64_t *i64 = malloc(N * sizeof *i64);
    int32_t *i32 = malloc(N * sizeof *i32);
    int64_t *e64 = malloc(ROWS * COLS * sizeof *e64);
    float *out[5];
    for (int k = 0; k < 5; k++) {
        out[k] = calloc(N > ROWS * COLS ? N : ROWS * COLS, sizeof(float));
        assert_non_null(out[k]);
    }
    assert_true(data && rows && i64 && i32 && e64);
    for (int k = 0; k < S; k++)
        data[k] = (float)k + 0.5f;
    for (int k = 0; k < ROWS * COLS; k++) {
        rows[k] = (float)k;
        e64[k] = (int64_t)((k * 7) % COLS) - (k % 2 ? COLS : 0);
    }
    for (int k = 0; k < N; k++) {
        i64[k] = (int64_t)((k * 37) % (2 * S)) - S; /* [-S, S-1] */
        i32[k] = (int32_t)i64[N - 1 - k];
    }
    const int64_t sd[1] = {S}, si[1] = {N}, snd[2] = {N, 1};
    const int64_t se[2] = {ROWS, COLS};
    clg_tensor d = {CLG_DTYPE_FLOAT, 1, sd, data};
    clg_tensor r = {CLG_DTYPE_FLOAT, 2, se, rows};
    clg_tensor x64 = {CLG_DTYPE_INT64, 1, si, i64};
    clg_tensor x32 = {CLG_DTYPE_INT32, 1, si, i32};
    clg_tensor xnd = {CLG_DTYPE_INT64, 2, snd, i64};
    clg_tensor xe = {CLG_DTYPE_INT64, 2, se, e64};
    clg_tensor o0 = {CLG_DTYPE_FLOAT, 1, si, out[0]};
    clg_tensor o1 = {CLG_DTYPE_FLOAT, 1, si, out[1]};
    clg_tensor o2 = {CLG_DTYPE_FLOAT, 2, se, out[2]};
    clg_tensor o3 = {CLG_DTYPE_FLOAT, 1, si, out[3]};
    clg_tensor o4 = {CLG_DTYPE_FLOAT, 1, si, out[4]};
    clg_status st[5];
    quiet q;

    quiet_begin(&q);
    st[0] = clg_gather(ctx, &d, &x64, 0, &o0);
    st[1] = clg_gather(ctx, &d, &x32, 0, &o1);
    st[2] = clg_gather_elements(ctx, &r, &xe, 1, &o2);
    st[3] = clg_gather_nd(ctx, &d, &xnd, 0, &o3);
    i64[N - 3] = S; /* one value out of range */
    st[4] = clg_gather(ctx, &d, &x64, 0, &o4);
    long len = 0;
    char *text = quiet_end(&q, &len);

    if (len != 0)
        print_error("the calls printed %ld bytes:\n%s\n", len, text);
    assert_int_equal(len, 0);
    free(text);
    for (int k = 0; k < 4; k++)
        assert_int_equal(st[k], CLG_STATUS_OK);
    assert_int_equal(st[4], CLG_STATUS_INDEX_OUT_OF_RANGE);
    CLG_ASSERT_CONTAINS(clg_context_last_error(ctx), "indices[69997] = 1000 ");
    i64[N - 3] = (int64_t)(((N - 3) * 37) % (2 * S)) - S;
    for (int k = 0; k < N; k++) {
        int64_t p = i64[k] < 0 ? i64[k] + S : i64[k];
        int64_t p32 = i32[k] < 0 ? (int64_t)i32[k] + S : i32[k];
        assert_true(out[0][k] == data[p]);
        assert_true(out[1][k] == data[p32]);
        assert_true(out[3][k] == data[p]);
    }
    for (int k = 0; k < ROWS * COLS; k++) {
        int64_t p = e64[k] < 0 ? e64[k] + COLS : e64[k];
        assert_true(out[2][k] == rows[(k / COLS) * COLS + p]);
    }
    for (int k = 0; k < 5; k++)
        free(out[k]);
    free(data);
    free(rows);
    free(i64);
    free(i32);
    free(e64);
}

int main(void)
{
    /* Before the first OpenCL call: every program is built from source. */
    setenv("CLGATHER_CACHE", "0", 1);
    setenv("POCL_KERNEL_CACHE", "0", 1);
    setenv("MESA_SHADER_CACHE_DISABLE", "true", 1);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_first_calls_print_nothing),
    };
    return CLG_RUN_DEVICE_TESTS(tests);
}
