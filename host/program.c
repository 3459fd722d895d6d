/* SPDX-License-Identifier: Apache-2.0 */
/* Program builds: lazy, cached in the context by (files, build options)
 * and on disk (host/cache.c),
 * build log kept and never printed (OpenCL 1.2 API sections 5.6-5.7). The
 * kernel files are embedded at build time (cmake/embed_kernels.cmake).
 * The cache is guarded by ctx->cache_lock; programs never move once
 * cached, so the kernels handed out stay valid until the context is
 * destroyed. */
#include "context.h"
#include "kernels_embedded.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *embedded(const char *name)
{
    for (size_t i = 0; i < clg_kernel_source_count; i++)
        if (!strcmp(clg_kernel_sources[i].name, name))
            return clg_kernel_sources[i].text;
    return NULL;
}

/* Keeps the build log of a failed build as the calling thread's. */
static void keep_build_log(clg_context *ctx, cl_program program)
{
    size_t size = 0;
    char *log = NULL;
    if (clGetProgramBuildInfo(program, ctx->device, CL_PROGRAM_BUILD_LOG, 0,
                              NULL, &size) == CL_SUCCESS &&
        size > 0 && (log = malloc(size + 1)) != NULL) {
        if (clGetProgramBuildInfo(program, ctx->device, CL_PROGRAM_BUILD_LOG,
                                  size, log, NULL) != CL_SUCCESS)
            size = 0;
        log[size] = '\0';
    }
    clg_keep_build_log(ctx, log);
}

/* "a.cl;b.cl|options" in buf; 0 when it does not fit. */
static int make_key(const char *const *files, size_t nfiles,
                    const char *options, char *buf, size_t cap)
{
    size_t len = 0;
    for (size_t i = 0; i < nfiles; i++) {
        int n = snprintf(buf + len, cap - len, "%s%s", i ? ";" : "", files[i]);
        if (n < 0 || (size_t)n >= cap - len)
            return 0;
        len += (size_t)n;
    }
    int n = snprintf(buf + len, cap - len, "|%s", options);
    return n >= 0 && (size_t)n < cap - len;
}

static clg_cached_program *find_program(clg_context *ctx, const char *key)
{
    for (size_t i = 0; i < ctx->program_count; i++)
        if (!strcmp(ctx->programs[i]->key, key))
            return ctx->programs[i];
    return NULL;
}

/* Makes room for one more cached program and copies its key. */
static clg_status reserve_program(clg_context *ctx, const char *key,
                                  char **key_copy)
{
    if (ctx->program_count == ctx->program_capacity) {
        size_t cap = ctx->program_capacity ? 2 * ctx->program_capacity : 16;
        clg_cached_program **grown = realloc(ctx->programs,
                                             cap * sizeof *grown);
        if (!grown)
            return clg_fail(ctx, CLG_STATUS_OUT_OF_MEMORY,
                            "out of host memory caching programs");
        ctx->programs = grown;
        ctx->program_capacity = cap;
    }
    size_t len = strlen(key) + 1;
    if (!(*key_copy = malloc(len)))
        return clg_fail(ctx, CLG_STATUS_OUT_OF_MEMORY,
                        "out of host memory caching programs");
    memcpy(*key_copy, key, len);
    return CLG_STATUS_OK;
}

/* Builds `program` from the sources srcs[0 .. nfiles-1]. Its binary goes
 * to the persistent cache only once its self-test passed
 * (clg_rt_program_test_end). */
static clg_status build_source(clg_context *ctx, const char *const *files,
                               const char **srcs, size_t nfiles,
                               const char *options, cl_program *program)
{
    cl_int err = CL_SUCCESS;
    *program = clCreateProgramWithSource(ctx->cl_ctx, (cl_uint)nfiles, srcs,
                                         NULL, &err);
    if (!*program)
        return clg_fail_cl(ctx, err, "clCreateProgramWithSource");
    err = clBuildProgram(*program, 1, &ctx->device, options, NULL, NULL);
    if (err == CL_SUCCESS)
        return CLG_STATUS_OK;
    keep_build_log(ctx, *program);
    clg_fail(ctx, CLG_STATUS_BUILD_FAILED,
             "clBuildProgram(%s, \"%s\") failed: %s (%d); see "
             "clg_context_build_log()",
             files[nfiles - 1], options, clg_cl_error_name(err), (int)err);
    clg_set_cl_error(ctx, err);
    return CLG_STATUS_BUILD_FAILED;
}

/* Loads the program of `key` from the persistent cache (host/cache.c),
 * which holds only programs whose self-test passed, or on a miss builds
 * it from source, untested, and appends it to the context's cache. */
static clg_status build_program(clg_context *ctx, const char *const *files,
                                size_t nfiles, const char *options,
                                const char *key, clg_cached_program **out)
{
    const char *srcs[8];
    char disk_key[1024];
    cl_program program = NULL;
    char *key_copy = NULL, *disk_copy = NULL;
    clg_rt_verdict verdict = CLG_RT_UNTESTED;
    clg_status st = CLG_STATUS_OK;
    if (nfiles == 0 || nfiles > 8)
        return clg_fail(ctx, CLG_STATUS_INVALID_ARGUMENT,
                        "a program takes 1 to 8 kernel files, not %zu",
                        nfiles);
    for (size_t i = 0; i < nfiles; i++)
        if (!(srcs[i] = embedded(files[i])))
            return clg_fail(ctx, CLG_STATUS_BUILD_FAILED,
                            "kernel source %s is not embedded", files[i]);
    if ((st = reserve_program(ctx, key, &key_copy)) != CLG_STATUS_OK)
        return st;
    if (!clg_disk_program_key(files, srcs, nfiles, options, disk_key,
                              sizeof disk_key))
        disk_key[0] = '\0';
    if (disk_key[0])
        program = clg_disk_load(ctx, disk_key, options);
    if (program)
        verdict = CLG_RT_PASSED;
    else if ((st = build_source(ctx, files, srcs, nfiles, options,
                                &program)) != CLG_STATUS_OK)
        goto cleanup;
    clg_cached_program *p = calloc(1, sizeof *p);
    size_t disk_len = strlen(disk_key) + 1;
    if (!p || (disk_key[0] && !(disk_copy = malloc(disk_len)))) {
        free(p);
        st = clg_fail(ctx, CLG_STATUS_OUT_OF_MEMORY,
                      "out of host memory caching programs");
        goto cleanup;
    }
    if (disk_copy)
        memcpy(disk_copy, disk_key, disk_len);
    ctx->programs[ctx->program_count++] = p;
    p->key = key_copy;
    p->program = program;
    p->verdict = verdict;
    p->disk_key = disk_copy;
    key_copy = disk_copy = NULL;
    program = NULL;
    *out = p;
cleanup:
    if (program)
        clReleaseProgram(program);
    free(key_copy);
    free(disk_copy);
    return st;
}

/* The kernel `name` of a cached program, created on first use. */
static clg_status program_kernel(clg_context *ctx, clg_cached_program *p,
                                 const char *name, cl_kernel *out)
{
    cl_int err = CL_SUCCESS;
    for (size_t i = 0; i < p->kernel_count; i++)
        if (!strcmp(p->kernels[i].name, name)) {
            *out = p->kernels[i].kernel;
            return CLG_STATUS_OK;
        }
    if (p->kernel_count == CLG_KERNELS_PER_PROGRAM ||
        strlen(name) >= sizeof p->kernels[0].name)
        return clg_fail(ctx, CLG_STATUS_INVALID_ARGUMENT,
                        "kernel %s: too many kernels or too long a name",
                        name);
    cl_kernel k = clCreateKernel(p->program, name, &err);
    if (!k) {
        char call[96];
        snprintf(call, sizeof call, "clCreateKernel(%s)", name);
        return clg_fail_cl(ctx, err, call);
    }
    clg_cached_kernel *ck = &p->kernels[p->kernel_count++];
    snprintf(ck->name, sizeof ck->name, "%s", name);
    ck->kernel = k;
    *out = k;
    return CLG_STATUS_OK;
}

/* The build options as given, with the test-only -DCLG_TEST_MISCOMPILE
 * under CLGATHER_TEST_MISCOMPILE=1 (host/env.c); 0 when they do not fit. */
static int full_options(const clg_context *ctx, const char *options, char *buf,
                        size_t cap)
{
    int n = snprintf(buf, cap, "%s%s", options,
                     ctx->env.test_miscompile ? " -DCLG_TEST_MISCOMPILE" : "");
    return n >= 0 && (size_t)n < cap;
}

/* The key of (files, options) as the cache knows it; 0 when too long. */
static int program_key(const clg_context *ctx, const char *const *files,
                       size_t nfiles, const char *options, char *opts,
                       size_t opts_cap, char *key, size_t key_cap)
{
    return full_options(ctx, options, opts, opts_cap) &&
           make_key(files, nfiles, opts, key, key_cap);
}

clg_status clg_rt_kernel(clg_context *ctx, const char *const *files,
                         size_t nfiles, const char *options, const char *name,
                         cl_kernel *out, clg_rt_verdict *verdict)
{
    char key[512], opts[320];
    clg_status st;
    if (!program_key(ctx, files, nfiles, options, opts, sizeof opts, key,
                     sizeof key))
        return clg_fail(ctx, CLG_STATUS_INVALID_ARGUMENT,
                        "program key for %s is too long", name);
    pthread_mutex_lock(&ctx->cache_lock);
    clg_cached_program *p = find_program(ctx, key);
    st = p ? CLG_STATUS_OK : build_program(ctx, files, nfiles, opts, key, &p);
    if (st == CLG_STATUS_OK)
        st = program_kernel(ctx, p, name, out);
    if (st == CLG_STATUS_OK && verdict)
        *verdict = (clg_rt_verdict)p->verdict;
    pthread_mutex_unlock(&ctx->cache_lock);
    return st;
}

/* The cached program of (files, options); NULL when it is not cached.
 * cache_lock held. */
static clg_cached_program *cached(clg_context *ctx, const char *const *files,
                                  size_t nfiles, const char *options)
{
    char key[512], opts[320];
    if (!program_key(ctx, files, nfiles, options, opts, sizeof opts, key,
                     sizeof key))
        return NULL;
    return find_program(ctx, key);
}

clg_rt_verdict clg_rt_program_test_begin(clg_context *ctx,
                                         const char *const *files,
                                         size_t nfiles, const char *options,
                                         char *msg, size_t cap)
{
    clg_rt_verdict v = CLG_RT_FAILED;
    pthread_mutex_lock(&ctx->test_lock);
    pthread_mutex_lock(&ctx->cache_lock);
    clg_cached_program *p = cached(ctx, files, nfiles, options);
    if (p)
        v = (clg_rt_verdict)p->verdict;
    snprintf(msg, cap, "%s",
             !p ? "internal error: the program under test is not cached"
             : p->failure ? p->failure
                          : "");
    pthread_mutex_unlock(&ctx->cache_lock);
    if (v != CLG_RT_UNTESTED)
        pthread_mutex_unlock(&ctx->test_lock);
    return v;
}

void clg_rt_program_test_end(clg_context *ctx, const char *const *files,
                             size_t nfiles, const char *options,
                             clg_rt_verdict verdict, const char *message)
{
    pthread_mutex_lock(&ctx->cache_lock);
    clg_cached_program *p = cached(ctx, files, nfiles, options);
    if (p && verdict == CLG_RT_FAILED) {
        size_t len = strlen(message) + 1;
        /* Without memory for the message the verdict still holds. */
        if ((p->failure = malloc(len)) != NULL)
            memcpy(p->failure, message, len);
        p->verdict = CLG_RT_FAILED;
    } else if (p && verdict == CLG_RT_PASSED) {
        /* The disk cache holds only programs that passed (an entry's
         * presence is the verdict), so a program loaded from it is never
         * tested again. */
        if (p->disk_key)
            clg_disk_store(ctx, p->disk_key, p->program);
        p->verdict = CLG_RT_PASSED;
    }
    pthread_mutex_unlock(&ctx->cache_lock);
    pthread_mutex_unlock(&ctx->test_lock);
}

int clg_rt_kernel_memo(clg_context *ctx, const void *key, size_t len,
                       cl_kernel *out)
{
    int hit = 0;
    pthread_mutex_lock(&ctx->cache_lock);
    for (size_t i = 0; i < CLG_MEMO_ENTRIES && !hit; i++) {
        const struct clg_kernel_memo *m = &ctx->memo[i];
        if (m->kernel && m->len == len && !memcmp(m->key, key, len)) {
            *out = m->kernel;
            hit = 1;
        }
    }
    pthread_mutex_unlock(&ctx->cache_lock);
    return hit;
}

void clg_rt_kernel_memo_store(clg_context *ctx, const void *key, size_t len,
                              cl_kernel kernel)
{
    if (len > CLG_MEMO_KEY_MAX)
        return;
    pthread_mutex_lock(&ctx->cache_lock);
    struct clg_kernel_memo *m = &ctx->memo[ctx->memo_next];
    ctx->memo_next = (ctx->memo_next + 1) % CLG_MEMO_ENTRIES;
    memcpy(m->key, key, len);
    m->len = len;
    m->kernel = kernel; /* owned by its cached program */
    pthread_mutex_unlock(&ctx->cache_lock);
}

void clg_programs_release(clg_context *ctx)
{
    for (size_t i = 0; i < ctx->program_count; i++) {
        clg_cached_program *p = ctx->programs[i];
        for (size_t k = 0; k < p->kernel_count; k++)
            clReleaseKernel(p->kernels[k].kernel);
        clReleaseProgram(p->program);
        free(p->key);
        free(p->disk_key);
        free(p->failure);
        free(p);
    }
    free(ctx->programs);
    memset(ctx->memo, 0, sizeof ctx->memo);
    memset(ctx->arg_memo, 0, sizeof ctx->arg_memo);
    ctx->programs = NULL;
    ctx->program_count = ctx->program_capacity = 0;
}
