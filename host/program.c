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
 * to the persistent cache only once the self-test of one of its entry
 * points passed (clg_rt_program_test_end). */
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

/* The verdict row of entry point `name` of p; NULL when it has none. */
static clg_entry_verdict *find_verdict(clg_cached_program *p, const char *name)
{
    for (size_t i = 0; i < p->verdict_count; i++)
        if (!strcmp(p->verdicts[i].name, name))
            return &p->verdicts[i];
    return NULL;
}

/* The row of `name` (of at most `len` bytes), added UNTESTED when absent;
 * NULL when the table is full or the name too long. A program has at most
 * CLG_KERNELS_PER_PROGRAM entry points, as it has kernels. */
static clg_entry_verdict *add_verdict(clg_cached_program *p, const char *name,
                                      size_t len)
{
    for (size_t i = 0; i < p->verdict_count; i++)
        if (strlen(p->verdicts[i].name) == len &&
            !strncmp(p->verdicts[i].name, name, len))
            return &p->verdicts[i];
    if (p->verdict_count == CLG_KERNELS_PER_PROGRAM ||
        len >= sizeof p->verdicts[0].name)
        return NULL;
    clg_entry_verdict *e = &p->verdicts[p->verdict_count++];
    memcpy(e->name, name, len);
    e->name[len] = '\0';
    e->verdict = CLG_RT_UNTESTED;
    e->failure = NULL;
    return e;
}

/* Records the entry points a disk entry names as passed ("a,b,...") as
 * PASSED. */
static void record_passed(clg_cached_program *p, const char *list)
{
    while (*list) {
        size_t len = strcspn(list, ",");
        clg_entry_verdict *e = len ? add_verdict(p, list, len) : NULL;
        if (e)
            e->verdict = CLG_RT_PASSED;
        list += len + (list[len] == ',');
    }
}

/* The entry points of p that passed, as a disk entry records them
 * ("a,b,..."), into buf; 0 when they do not fit. */
static int passed_list(const clg_cached_program *p, char *buf, size_t cap)
{
    size_t len = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < p->verdict_count; i++) {
        if (p->verdicts[i].verdict != CLG_RT_PASSED)
            continue;
        int n = snprintf(buf + len, cap - len, "%s%s", len ? "," : "",
                         p->verdicts[i].name);
        if (n < 0 || (size_t)n >= cap - len)
            return 0;
        len += (size_t)n;
    }
    return 1;
}

/* Loads the program of `key` from the persistent cache (host/cache.c),
 * with the entry points its entry records as passed, or on a miss builds
 * it from source, every entry point untested, and appends it to the
 * context's cache. */
static clg_status build_program(clg_context *ctx, const char *const *files,
                                size_t nfiles, const char *options,
                                const char *key, clg_cached_program **out)
{
    const char *srcs[8];
    char disk_key[1024];
    cl_program program = NULL;
    char *key_copy = NULL, *disk_copy = NULL;
    char passed[CLG_DISK_PASSED_MAX] = "";
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
        program = clg_disk_load(ctx, disk_key, options, passed, sizeof passed);
    if (!program && (st = build_source(ctx, files, srcs, nfiles, options,
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
    p->disk_key = disk_copy;
    /* "" unless loaded: built from source, no entry point has a verdict. */
    record_passed(p, passed);
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
    if (st == CLG_STATUS_OK && verdict) {
        const clg_entry_verdict *e = find_verdict(p, name);
        *verdict = e ? (clg_rt_verdict)e->verdict : CLG_RT_UNTESTED;
    }
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
                                         const char *name, char *msg,
                                         size_t cap)
{
    clg_rt_verdict v = CLG_RT_FAILED;
    const char *why = "internal error: the program under test is not cached";
    pthread_mutex_lock(&ctx->test_lock);
    pthread_mutex_lock(&ctx->cache_lock);
    clg_cached_program *p = cached(ctx, files, nfiles, options);
    if (p) {
        const clg_entry_verdict *e = find_verdict(p, name);
        v = e ? (clg_rt_verdict)e->verdict : CLG_RT_UNTESTED;
        why = e && e->failure ? e->failure : "";
    }
    snprintf(msg, cap, "%s", why);
    pthread_mutex_unlock(&ctx->cache_lock);
    if (v != CLG_RT_UNTESTED)
        pthread_mutex_unlock(&ctx->test_lock);
    return v;
}

void clg_rt_program_test_end(clg_context *ctx, const char *const *files,
                             size_t nfiles, const char *options,
                             const char *const *names, size_t n,
                             clg_rt_verdict verdict, const char *message)
{
    char list[CLG_DISK_PASSED_MAX];
    int added = 0;
    pthread_mutex_lock(&ctx->cache_lock);
    clg_cached_program *p = cached(ctx, files, nfiles, options);
    for (size_t i = 0; p && i < n; i++) {
        /* Without room for the row the verdict is not kept: a failed
         * entry point is then refused again by a new test, a passed one
         * tested again. Without memory for the message a failure still
         * holds. A failure is final. */
        clg_entry_verdict *e = add_verdict(p, names[i], strlen(names[i]));
        if (!e || e->verdict != CLG_RT_UNTESTED)
            continue;
        if (verdict == CLG_RT_FAILED) {
            size_t len = strlen(message) + 1;
            if ((e->failure = malloc(len)) != NULL)
                memcpy(e->failure, message, len);
            e->verdict = CLG_RT_FAILED;
        } else if (verdict == CLG_RT_PASSED) {
            e->verdict = CLG_RT_PASSED;
            added = 1;
        }
    }
    /* The disk entry names the entry points that passed, and only those
     * (a failed one is never among them): a program loaded from it tests
     * only the others, and each that passes later rewrites it. */
    if (added && p->disk_key && passed_list(p, list, sizeof list))
        clg_disk_store(ctx, p->disk_key, list, p->program);
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
        for (size_t k = 0; k < p->verdict_count; k++)
            free(p->verdicts[k].failure);
        free(p);
    }
    free(ctx->programs);
    memset(ctx->memo, 0, sizeof ctx->memo);
    memset(ctx->arg_memo, 0, sizeof ctx->arg_memo);
    ctx->programs = NULL;
    ctx->program_count = ctx->program_capacity = 0;
}
