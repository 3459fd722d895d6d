/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The experiment behind docs/decisions.md, "GatherND: row slices by the
 * row": on the two row-slice GatherND workloads of `clgather bench`
 * (nd-positions, nd-rows), in alternating rounds on one device, the best
 * of `repeat` calls of the library's device-buffer call ("lib") and of
 * bodies moving a whole slice per work-item in a loop of vector spans
 * (vars[] below: fused with the tuple read, or over the positions of a
 * per-tuple pass; span, prefetch distance, non-temporal stores, the
 * vec_type_hint, the work-group), each ending with the error flag read
 * back; every output compared bit for bit with the library's. Raw output:
 * raw.txt beside it (the runs used subsets of vars[]). Not built by CMake:
 *   cc -O2 -std=c11 -D_POSIX_C_SOURCE=200809L -Iinclude -Ibuild/include \
 *      bench/results/nd-rows-body/slices.c -Lbuild -lclgather -lOpenCL \
 *      -Wl,-rpath,$PWD/build -o slices
 *   ./slices DEVICE_SPEC [rounds] [repeat] [workload]
 */
#define CL_TARGET_OPENCL_VERSION 120
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <clgather/clgather.h>

static const char *src =
    "#define CAT_(a,b) a##b\n#define CAT(a,b) CAT_(a,b)\n"
    "typedef CAT(uint,SPAN) span_t;\n"
    "#if SPAN==1\n#define LD(i,p) ((p)[i])\n#define ST(v,i,p) "
    "((p)[i]=(v))\n#else\n#define LD(i,p) CAT(vload,SPAN)(i,p)\n#define "
    "ST(v,i,p) CAT(vstore,SPAN)(v,i,p)\n#endif\n"
    "#if NT\n#undef ST\n#define ST(v,i,p) __builtin_nontemporal_store((v), "
    "(__global span_t *)(p) + (i))\n#endif\n"
    "inline long tpos(__global const long *idx, ulong t, ulong n, ulong k, "
    "ulong block, __constant ulong *geom, int *bad) {\n"
    "  long p = 0; int b = 0;\n"
    "  for (ulong i = 0; i < k; i++) {\n"
    "    long s = (long)geom[2 * i], v = idx[t * k + i];\n"
    "    b |= v < -s || v >= s;\n"
    "    p += (v < 0 ? v + s : v) * (long)geom[2 * i + 1];\n"
    "  }\n"
    "  *bad = b; return (long)(t / n) * (long)block + (b ? 0 : p);\n"
    "}\n"
    /* fused loop: one work-item per tuple, whole slice */
    "HINT __kernel void loop(__global const uint *data, __global const long "
    "*idx,\n"
    "   __global uint *out, __global volatile int *err, ulong n, ulong k, "
    "ulong block, ulong inner, ulong count, __constant ulong *geom) {\n"
    "  ulong t = get_global_id(0);\n"
    "  if (t >= count) return;\n"
    "  int bad; long p = tpos(idx, t, n, k, block, geom, &bad);\n"
    "  if (bad) { *err = 1; return; }\n"
    "  __global const uint *s = data + p * inner; __global uint *d = out + t "
    "* inner;\n"
    "#if PF\n  int b2; ulong tp = min(t + PF, count - 1); long pp = tpos(idx, "
    "tp, n, k, block, geom, &b2);\n"
    "  __global const uint *sp = data + pp * inner;\n#endif\n"
    "  for (ulong c = 0; c < inner / SPAN; c++) {\n"
    "#if PF\n    if ((c * SPAN * 4) % 64 == 0) __builtin_prefetch(sp + c * "
    "SPAN);\n#endif\n"
    "    ST(LD(c, s), c, d);\n"
    "  }\n"
    "}\n"
    /* the same from positions */
    "HINT __kernel void loopp(__global const uint *data, __global const int "
    "*pos,\n"
    "   __global uint *out, ulong inner, ulong count) {\n"
    "  ulong t = get_global_id(0);\n"
    "  if (t >= count) return;\n"
    "  __global const uint *s = data + (ulong)pos[t] * inner; __global uint "
    "*d = out + t * inner;\n"
    "#if PF\n  __global const uint *sp = data + (ulong)pos[min(t + PF, count "
    "- 1)] * inner;\n#endif\n"
    "  for (ulong c = 0; c < inner / SPAN; c++) {\n"
    "#if PF\n    if ((c * SPAN * 4) % 64 == 0) __builtin_prefetch(sp + c * "
    "SPAN);\n#endif\n"
    "    ST(LD(c, s), c, d);\n"
    "  }\n"
    "}\n"
    "__kernel void pos(__global const long *idx, __global int *pos,\n"
    "   __global volatile int *err, ulong n, ulong k, ulong block, __constant "
    "ulong *geom) {\n"
    "  ulong t = get_global_id(0); int bad; long p = tpos(idx, t, n, k, "
    "block, geom, &bad);\n"
    "  if (bad) *err = 1; pos[t] = (int)p;\n"
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

typedef struct var {
    const char *label;
    int fused;
    int span, pf, nt, hint;
    size_t lsz;
} var;
static const var vars[] = {
    /* label, fused, span, prefetch distance, nt, vec_type_hint, group */
    {"lib", 0, 0, 0, 0, 0, 0},         {"F16", 1, 16, 0, 0, 0, 0},
    {"F16h", 1, 16, 0, 0, 1, 0},       {"F16pf2", 1, 16, 2, 0, 1, 0},
    {"F16pf4", 1, 16, 4, 0, 1, 0},     {"F16nt", 1, 16, 0, 1, 1, 0},
    {"F16pf2nt", 1, 16, 2, 1, 1, 0},   {"F16pf4nt", 1, 16, 4, 1, 1, 0},
    {"F8pf4", 1, 8, 4, 0, 1, 0},       {"F16pf4l64", 1, 16, 4, 0, 1, 64},
    {"F16pf4l16", 1, 16, 4, 0, 1, 16}, {"P16", 0, 16, 0, 0, 1, 0},
    {"P16pf1", 0, 16, 1, 0, 1, 0},     {"P16pf2", 0, 16, 2, 0, 1, 0},
    {"P16pf4", 0, 16, 4, 0, 1, 0},     {"P16pf8", 0, 16, 8, 0, 1, 0},
    {"P16pf16", 0, 16, 16, 0, 1, 0},   {"P8pf4", 0, 8, 4, 0, 1, 0},
    {"P16pf4nh", 0, 16, 4, 0, 0, 0},   {"P16pf4nt", 0, 16, 4, 1, 1, 0},
    {"l16", 0, 16, 4, 0, 1, 16},       {"l64", 0, 16, 4, 0, 1, 64},
    {"l256", 0, 16, 4, 0, 1, 256},     {"l1024", 0, 16, 4, 0, 1, 1024},
    {"l4096", 0, 16, 4, 0, 1, 4096},
};
#define NV (sizeof vars / sizeof vars[0])

int main(int argc, char **argv)
{
    const char *spec = argc > 1 && argv[1][0] ? argv[1] : NULL;
    int rounds = argc > 2 ? atoi(argv[2]) : 3,
        repeat = argc > 3 ? atoi(argv[3]) : 10;
    const char *only = argc > 4 ? argv[4] : NULL;
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
        if (only && strcmp(only, W->name))
            continue;
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
        size_t tuples = outer * n, ibytes = inner * W->esz,
               inner_u = ibytes / 4;
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
        cl_ulong geom[16], stride = 1;
        for (size_t i = k; i-- > 0;) {
            geom[2 * i] = (cl_ulong)W->dshape[b + i];
            geom[2 * i + 1] = stride;
            stride *= (cl_ulong)W->dshape[b + i];
        }
        cl_mem dgeom = clCreateBuffer(cc,
                                      CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                                      sizeof geom, geom, &e);
        CK(e);
        cl_kernel kl[NV] = {0}, kp[NV] = {0};
        cl_ulong un = n, uk = k, ub = block, ui = inner_u, ut = tuples;
        for (size_t v = 1; v < NV; v++) {
            char opts[256];
            snprintf(opts, sizeof opts, "-DSPAN=%d -DPF=%d -DNT=%d -DHINT=%s",
                     vars[v].span, vars[v].pf, vars[v].nt,
                     vars[v].hint
                         ? (vars[v].span == 16
                                ? "__attribute__((vec_type_hint(uint16)))"
                                : "__attribute__((vec_type_hint(uint8)))")
                         : "");
            cl_program pr = clCreateProgramWithSource(cc, 1, &src, NULL, &e);
            CK(e);
            e = clBuildProgram(pr, 1, &dev, opts, NULL, NULL);
            if (e != CL_SUCCESS) {
                char log[8192];
                clGetProgramBuildInfo(pr, dev, CL_PROGRAM_BUILD_LOG,
                                      sizeof log, log, NULL);
                fprintf(stderr, "build: %s\n", log);
                return 2;
            }
            kl[v] = clCreateKernel(pr, vars[v].fused ? "loop" : "loopp", &e);
            CK(e);
            kp[v] = clCreateKernel(pr, "pos", &e);
            CK(e);
            if (vars[v].fused) {
                cl_mem fa[4] = {dd, di, dout, derr};
                for (int a = 0; a < 4; a++)
                    CK(clSetKernelArg(kl[v], (cl_uint)a, sizeof(cl_mem),
                                      &fa[a]));
                CK(clSetKernelArg(kl[v], 4, 8, &un));
                CK(clSetKernelArg(kl[v], 5, 8, &uk));
                CK(clSetKernelArg(kl[v], 6, 8, &ub));
                CK(clSetKernelArg(kl[v], 7, 8, &ui));
                CK(clSetKernelArg(kl[v], 8, 8, &ut));
                CK(clSetKernelArg(kl[v], 9, sizeof(cl_mem), &dgeom));
            } else {
                CK(clSetKernelArg(kl[v], 0, sizeof(cl_mem), &dd));
                CK(clSetKernelArg(kl[v], 1, sizeof(cl_mem), &dpos));
                CK(clSetKernelArg(kl[v], 2, sizeof(cl_mem), &dout));
                CK(clSetKernelArg(kl[v], 3, 8, &ui));
                CK(clSetKernelArg(kl[v], 4, 8, &ut));
                CK(clSetKernelArg(kp[v], 0, sizeof(cl_mem), &di));
                CK(clSetKernelArg(kp[v], 1, sizeof(cl_mem), &dpos));
                CK(clSetKernelArg(kp[v], 2, sizeof(cl_mem), &derr));
                CK(clSetKernelArg(kp[v], 3, 8, &un));
                CK(clSetKernelArg(kp[v], 4, 8, &uk));
                CK(clSetKernelArg(kp[v], 5, 8, &ub));
                CK(clSetKernelArg(kp[v], 6, sizeof(cl_mem), &dgeom));
            }
        }
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
        double best[NV];
        for (size_t v = 0; v < NV; v++)
            best[v] = 1e9;
        for (int r = 0; r < rounds; r++)
            for (size_t v = 0; v < NV; v++)
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
                        size_t g1 = tuples, l = vars[v].lsz;
                        if (!vars[v].fused)
                            CK(clEnqueueNDRangeKernel(q, kp[v], 1, NULL, &g1,
                                                      NULL, 0, NULL, NULL));
                        CK(clEnqueueNDRangeKernel(q, kl[v], 1, NULL, &g1,
                                                  l ? &l : NULL, 0, NULL,
                                                  NULL));
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
                            fprintf(stderr, "%s: variant %s differs\n",
                                    W->name, vars[v].label);
                            return 1;
                        }
                        CK(clEnqueueFillBuffer(q, dout, &zero, 4, 0, obytes, 0,
                                               NULL, NULL));
                        CK(clFinish(q));
                    }
                }
        printf("%-13s", W->name);
        for (size_t v = 0; v < NV; v++)
            printf(" %s %.3f", vars[v].label, best[v] * 1e3);
        printf("\n");
        fflush(stdout);
    }
    clg_context_destroy(ctx);
    return 0;
}
