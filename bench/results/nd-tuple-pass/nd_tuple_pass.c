/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The experiment behind docs/decisions.md, "GatherND: a per-tuple pass":
 * on the three GatherND workloads of `clgather bench`, in alternating
 * rounds on one device, the best of `repeat` calls of
 *   T  the library's device-buffer call (clg_run_cl; kernels/gather_nd.cl,
 *      one work-item per output unit, each recomputing its tuple's offset);
 *   P  a pass of its own, one work-item per tuple, that computes and
 *      checks the tuple's slice position once (an int per tuple), then a
 *      branch-free copy of spans of up to 64 bytes from that position;
 *   S  the same copy with no pass: each work-item of a span recomputes
 *      its tuple's position (isolates the pass from the wider spans);
 * each ending with the error flag read back, as the library's blocking
 * call does; every output compared bit for bit with the library's.
 * Not built by CMake:
 *   cc -O2 -std=c11 -D_POSIX_C_SOURCE=200809L -Iinclude -Ibuild/include \
 *      bench/results/nd-tuple-pass/nd_tuple_pass.c -Lbuild -lclgather \
 *      -lOpenCL -Wl,-rpath,$PWD/build -o nd_tuple_pass
 *   ./nd_tuple_pass DEVICE_SPEC [rounds] [repeat]
 */
#define CL_TARGET_OPENCL_VERSION 120
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <clgather/clgather.h>

static const char *src =
    "__kernel void pos(__global const long *idx, __global int *pos,\n"
    "                  __global volatile int *err, ulong n, ulong k,\n"
    "                  ulong block, __constant ulong *geom) {\n"
    "  ulong t = get_global_id(0), o = t / n;\n"
    "  long p = 0; int bad = 0;\n"
    "  for (ulong i = 0; i < k; i++) {\n"
    "    long s = (long)geom[2 * i], v = idx[t * k + i];\n"
    "    bad |= v < -s || v >= s;\n"
    "    p += (v < 0 ? v + s : v) * (long)geom[2 * i + 1];\n"
    "  }\n"
    "  if (bad) { *err = 1; p = 0; }\n"
    "  pos[t] = (int)(o * block + p);\n"
    "}\n"
    "__kernel void copy(__global const uint *data, __global const int *pos,\n"
    "                   __global uint *out, ulong inner) {\n"
    "  ulong c = CDIM, t = TDIM;\n"
    "  ulong s = (ulong)pos[t] * inner + c * SPAN;\n"
    "  VSTORE(VLOAD(0, data + s), 0, out + t * inner + c * SPAN);\n"
    "}\n"
    "__kernel void fused(__global const uint *data, __global const long "
    "*idx,\n"
    "                    __global uint *out, __global volatile int *err,\n"
    "                    ulong n, ulong k, ulong block, ulong inner,\n"
    "                    __constant ulong *geom) {\n"
    "  ulong c = CDIM, t = TDIM, o = t / n;\n"
    "  long p = 0; int bad = 0;\n"
    "  for (ulong i = 0; i < k; i++) {\n"
    "    long s = (long)geom[2 * i], v = idx[t * k + i];\n"
    "    bad |= v < -s || v >= s;\n"
    "    p += (v < 0 ? v + s : v) * (long)geom[2 * i + 1];\n"
    "  }\n"
    "  if (bad) { *err = 1; p = 0; }\n"
    "  ulong q = (o * block + (ulong)p) * inner + c * SPAN;\n"
    "  VSTORE(VLOAD(0, data + q), 0, out + t * inner + c * SPAN);\n"
    "}\n";

typedef struct wl {
    const char *name;
    clg_dtype dt;
    size_t esz, drank, irank;
    int64_t dshape[3], ishape[3];
    int64_t b;
} wl;

static const wl wls[] = {
    {"nd-positions",
     CLG_DTYPE_FLOAT,
     4,
     3,
     3,
     {32, 512, 768},
     {32, 128, 1},
     1},
    {"nd-rows", CLG_DTYPE_FLOAT16, 2, 3, 2, {64, 4096, 256}, {16384, 2, 0}, 0},
    {"nd-scalars",
     CLG_DTYPE_FLOAT,
     4,
     2,
     2,
     {4096, 4096, 0},
     {4194304, 2, 0},
     0},
};

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static uint64_t sm(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

#define CK(x)                                                                 \
    do {                                                                      \
        cl_int e_ = (x);                                                      \
        if (e_ != CL_SUCCESS) {                                               \
            fprintf(stderr, "%s:%d: %d\n", __FILE__, __LINE__, e_);           \
            exit(2);                                                          \
        }                                                                     \
    } while (0)

int main(int argc, char **argv)
{
    const char *spec = argc > 1 ? argv[1] : NULL;
    int rounds = argc > 2 ? atoi(argv[2]) : 3,
        repeat = argc > 3 ? atoi(argv[3]) : 5;
    clg_context *ctx = NULL;
    if (clg_context_create(&ctx, spec) != CLG_STATUS_OK) {
        fprintf(stderr, "context: %s\n", clg_context_last_error(NULL));
        return 2;
    }
    cl_context cc = clg_context_cl_context(ctx);
    cl_device_id dev = clg_context_cl_device(ctx);
    cl_command_queue q = clg_context_cl_queue(ctx);
    printf("device: %s (%s)\n", clg_context_device_name(ctx),
           clg_context_device_version(ctx));
    for (size_t w = 0; w < sizeof wls / sizeof wls[0]; w++) {
        const wl *W = &wls[w];
        size_t dn = 1, in = 1;
        for (size_t d = 0; d < W->drank; d++)
            dn *= (size_t)W->dshape[d];
        for (size_t d = 0; d < W->irank; d++)
            in *= (size_t)W->ishape[d];
        size_t k = (size_t)W->ishape[W->irank - 1], b = (size_t)W->b;
        size_t outer = 1, block = 1, inner = 1, n = 1;
        for (size_t d = 0; d < b; d++)
            outer *= (size_t)W->dshape[d];
        for (size_t d = b; d < b + k; d++)
            block *= (size_t)W->dshape[d];
        for (size_t d = b + k; d < W->drank; d++)
            inner *= (size_t)W->dshape[d];
        for (size_t d = b; d + 1 < W->irank; d++)
            n *= (size_t)W->ishape[d];
        size_t tuples = outer * n, ibytes = inner * W->esz;
        size_t inner_u = ibytes / 4; /* uint units; every slice here is */
        size_t span = 16;
        while (span > 1 && inner_u % span)
            span /= 2;
        uint64_t st = 0x636c676174686572ull + w;
        unsigned char *data = malloc(dn * W->esz);
        int64_t *idx = malloc(in * 8);
        size_t obytes = tuples * ibytes;
        unsigned char *want = malloc(obytes), *got = malloc(obytes);
        for (size_t i = 0; i < dn * W->esz; i++)
            data[i] = (unsigned char)sm(&st);
        for (size_t i = 0; i < in; i++) {
            int64_t s = W->dshape[b + i % k];
            idx[i] = (int64_t)(sm(&st) % (uint64_t)(2 * s)) - s;
        }
        cl_int e;
        cl_mem dd = clCreateBuffer(cc, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                                   dn * W->esz, data, &e);
        CK(e);
        cl_mem di = clCreateBuffer(cc, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                                   in * 8, idx, &e);
        CK(e);
        cl_mem dout = clCreateBuffer(cc, CL_MEM_READ_WRITE, obytes, NULL, &e);
        CK(e);
        cl_mem dpos = clCreateBuffer(cc, CL_MEM_READ_WRITE, tuples * 4, NULL,
                                     &e);
        CK(e);
        cl_mem derr = clCreateBuffer(cc, CL_MEM_READ_WRITE, 4, NULL, &e);
        CK(e);
        cl_ulong geom[2 * 8];
        cl_ulong stride = 1;
        for (size_t i = k; i-- > 0;) {
            geom[2 * i] = (cl_ulong)W->dshape[b + i];
            geom[2 * i + 1] = stride;
            stride *= (cl_ulong)W->dshape[b + i];
        }
        cl_mem dgeom = clCreateBuffer(cc,
                                      CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                                      sizeof geom, geom, &e);
        CK(e);
        char opts[256];
        /* A slice of one span: a 1-D launch over the tuples, so that the
         * compilers vectorise across tuples rather than a dim of size 1. */
        const int one = inner_u / span == 1;
        const char *dims = one ? "-DCDIM=0 -DTDIM=get_global_id(0)"
                               : "-DCDIM=get_global_id(0) "
                                 "-DTDIM=get_global_id(1)";
        if (span == 1)
            snprintf(opts, sizeof opts,
                     "%s -DSPAN=1 -DVLOAD(i,p)=(*(p)) "
                     "-DVSTORE(v,i,p)=(*(p)=(v))",
                     dims);
        else
            snprintf(opts, sizeof opts,
                     "%s -DSPAN=%zu -DVLOAD=vload%zu -DVSTORE=vstore%zu", dims,
                     span, span, span);
        cl_program pr = clCreateProgramWithSource(cc, 1, &src, NULL, &e);
        CK(e);
        e = clBuildProgram(pr, 1, &dev, opts, NULL, NULL);
        if (e != CL_SUCCESS) {
            char log[8192];
            clGetProgramBuildInfo(pr, dev, CL_PROGRAM_BUILD_LOG, sizeof log,
                                  log, NULL);
            fprintf(stderr, "build: %s\n", log);
            return 2;
        }
        cl_kernel kp = clCreateKernel(pr, "pos", &e),
                  kc = clCreateKernel(pr, "copy", &e),
                  kf = clCreateKernel(pr, "fused", &e);
        CK(e);
        cl_ulong un = n, uk = k, ub = block, ui = inner_u;
        CK(clSetKernelArg(kp, 0, sizeof(cl_mem), &di));
        CK(clSetKernelArg(kp, 1, sizeof(cl_mem), &dpos));
        CK(clSetKernelArg(kp, 2, sizeof(cl_mem), &derr));
        CK(clSetKernelArg(kp, 3, 8, &un));
        CK(clSetKernelArg(kp, 4, 8, &uk));
        CK(clSetKernelArg(kp, 5, 8, &ub));
        CK(clSetKernelArg(kp, 6, sizeof(cl_mem), &dgeom));
        CK(clSetKernelArg(kc, 0, sizeof(cl_mem), &dd));
        CK(clSetKernelArg(kc, 1, sizeof(cl_mem), &dpos));
        CK(clSetKernelArg(kc, 2, sizeof(cl_mem), &dout));
        CK(clSetKernelArg(kc, 3, 8, &ui));
        cl_mem fa[4] = {dd, di, dout, derr};
        for (int a = 0; a < 4; a++)
            CK(clSetKernelArg(kf, (cl_uint)a, sizeof(cl_mem), &fa[a]));
        CK(clSetKernelArg(kf, 4, 8, &un));
        CK(clSetKernelArg(kf, 5, 8, &uk));
        CK(clSetKernelArg(kf, 6, 8, &ub));
        CK(clSetKernelArg(kf, 7, 8, &ui));
        CK(clSetKernelArg(kf, 8, sizeof(cl_mem), &dgeom));
        clg_cl_tensor td = {W->dt, W->drank, W->dshape, dd},
                      ti = {CLG_DTYPE_INT64, W->irank, W->ishape, di};
        int64_t oshape[8];
        size_t orank = 0;
        clg_call call = {.size = sizeof call,
                         .op = CLG_OP_GATHER_ND,
                         .batch_dims = W->b};
        clg_tensor hd = {W->dt, W->drank, W->dshape, data},
                   hi = {CLG_DTYPE_INT64, W->irank, W->ishape, idx};
        if (clg_output_shape(&call, &hd, &hi, oshape, 8, &orank) !=
            CLG_STATUS_OK)
            return 2;
        clg_cl_tensor to = {W->dt, orank, oshape, dout};
        double best[3] = {1e9, 1e9, 1e9};
        for (int r = 0; r < rounds; r++)
            for (int v = 0; v < 3; v++)
                for (int i = 0; i <= repeat; i++) {
                    int zero = 0, flag = 0;
                    CK(clEnqueueWriteBuffer(q, derr, CL_TRUE, 0, 4, &zero, 0,
                                            NULL, NULL));
                    double t0 = now();
                    if (v == 0) {
                        if (clg_run_cl(ctx, &call, &td, &ti, &to) !=
                            CLG_STATUS_OK) {
                            fprintf(stderr, "T: %s\n",
                                    clg_context_last_error(ctx));
                            return 2;
                        }
                    } else {
                        size_t g1 = tuples, g2[2] = {inner_u / span, tuples};
                        const size_t *g = one ? &g1 : g2;
                        const cl_uint nd = one ? 1 : 2;
                        if (v == 1) {
                            CK(clEnqueueNDRangeKernel(q, kp, 1, NULL, &g1,
                                                      NULL, 0, NULL, NULL));
                            CK(clEnqueueNDRangeKernel(q, kc, nd, NULL, g, NULL,
                                                      0, NULL, NULL));
                        } else {
                            CK(clEnqueueNDRangeKernel(q, kf, nd, NULL, g, NULL,
                                                      0, NULL, NULL));
                        }
                        CK(clEnqueueReadBuffer(q, derr, CL_TRUE, 0, 4, &flag,
                                               0, NULL, NULL));
                        if (flag) {
                            fprintf(stderr, "raised\n");
                            return 2;
                        }
                    }
                    double t = now() - t0;
                    if (i > 0 && t < best[v])
                        best[v] = t;
                    if (r == 0 && i == 0) {
                        CK(clEnqueueReadBuffer(q, dout, CL_TRUE, 0, obytes,
                                               v == 0 ? want : got, 0, NULL,
                                               NULL));
                        if (v > 0 && memcmp(want, got, obytes) != 0) {
                            fprintf(stderr, "%s: variant %d differs\n",
                                    W->name, v);
                            return 1;
                        }
                        CK(clEnqueueFillBuffer(q, dout, &zero, 4, 0, obytes, 0,
                                               NULL, NULL));
                        CK(clFinish(q));
                    }
                }
        printf("%-13s slice %5zu B span %2zu x 4 B  T %8.3f ms  P %8.3f ms  "
               "S %8.3f ms  T/P %5.2f  S/P %5.2f\n",
               W->name, ibytes, span, best[0] * 1e3, best[1] * 1e3,
               best[2] * 1e3, best[0] / best[1], best[2] / best[1]);
        fflush(stdout);
        clReleaseKernel(kp);
        clReleaseKernel(kc);
        clReleaseKernel(kf);
        clReleaseProgram(pr);
        clReleaseMemObject(dd);
        clReleaseMemObject(di);
        clReleaseMemObject(dout);
        clReleaseMemObject(dpos);
        clReleaseMemObject(derr);
        clReleaseMemObject(dgeom);
        free(data);
        free(idx);
        free(want);
        free(got);
    }
    clg_context_destroy(ctx);
    return 0;
}
