/* SPDX-License-Identifier: Apache-2.0 */
/* Messages, raw OpenCL codes and build logs, kept per thread and per
 * context (docs/design.md, "Errors" and "Threads"): a thread reads back
 * what its own last call on a context left, whatever other threads do
 * with the same context meanwhile. Calls made without a context (ctx
 * NULL) have their own entry. */
#include "context.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Contexts one thread remembers at once; the least recently written entry
 * is reused for a ninth. */
#define CLG_THREAD_ENTRIES 8

typedef struct thread_entry {
    uint64_t ctx_id; /* 0: free or the NULL context */
    int used;
    uint64_t stamp;
    char message[CLG_ERROR_CAPACITY];
    cl_int cl_error;
    cl_int exec_status; /* < 0: a command's execution status */
    char *build_log;    /* owned */
    clg_path path;      /* where the last host-memory call ran */
} thread_entry;

typedef struct thread_errors {
    thread_entry entries[CLG_THREAD_ENTRIES];
    thread_entry none; /* calls without a context */
    uint64_t clock;
} thread_errors;

static pthread_key_t errors_key;
static pthread_once_t errors_once = PTHREAD_ONCE_INIT;
static int errors_key_ok;

static void free_thread_errors(void *p)
{
    thread_errors *t = p;
    for (size_t i = 0; i < CLG_THREAD_ENTRIES; i++)
        free(t->entries[i].build_log);
    free(t->none.build_log);
    free(t);
}

static void make_key(void)
{
    errors_key_ok = pthread_key_create(&errors_key, free_thread_errors) == 0;
}

/* The calling thread's record; a static fallback when even its allocation
 * fails (messages may then mix between threads, nothing worse). */
static thread_errors *thread_record(void)
{
    static thread_errors fallback;
    pthread_once(&errors_once, make_key);
    if (!errors_key_ok)
        return &fallback;
    thread_errors *t = pthread_getspecific(errors_key);
    if (t)
        return t;
    t = calloc(1, sizeof *t);
    if (!t || pthread_setspecific(errors_key, t) != 0) {
        free(t);
        return &fallback;
    }
    return t;
}

/* The entry of ctx for reading: NULL when this thread has none. */
static thread_entry *find_entry(const clg_context *ctx)
{
    thread_errors *t = thread_record();
    if (!ctx)
        return &t->none;
    for (size_t i = 0; i < CLG_THREAD_ENTRIES; i++)
        if (t->entries[i].used && t->entries[i].ctx_id == ctx->id)
            return &t->entries[i];
    return NULL;
}

/* The entry of ctx for writing, taken over from the oldest if needed. */
static thread_entry *write_entry(const clg_context *ctx)
{
    thread_errors *t = thread_record();
    thread_entry *e = find_entry(ctx);
    if (!e) {
        e = &t->entries[0];
        for (size_t i = 1; i < CLG_THREAD_ENTRIES; i++)
            if (!t->entries[i].used ||
                (e->used && t->entries[i].stamp < e->stamp))
                e = &t->entries[i];
        free(e->build_log);
        memset(e, 0, sizeof *e);
        e->used = 1;
        e->ctx_id = ctx->id;
    }
    e->stamp = ++t->clock;
    return e;
}

/* Formats a message into buf (size bytes). One longer than that (a
 * user's path of a few KiB, say) keeps its head and its tail, where the
 * reason usually stands, around "...", cut between UTF-8 characters; only
 * when the whole cannot be formatted (no memory) its head alone. */
static void format_message(char *buf, size_t size, const char *fmt, va_list ap)
{
    va_list again;
    va_copy(again, ap);
    int n = vsnprintf(buf, size, fmt, ap);
    if (n > 0 && (size_t)n >= size) {
        char *whole = malloc((size_t)n + 1);
        if (whole && vsnprintf(whole, (size_t)n + 1, fmt, again) == n) {
            size_t keep = (size - sizeof "...") / 2; /* bytes each side */
            size_t head = keep, tail = (size_t)n - keep;
            while (head > 0 && ((unsigned char)whole[head] & 0xC0) == 0x80)
                head--;
            while (tail < (size_t)n &&
                   ((unsigned char)whole[tail] & 0xC0) == 0x80)
                tail++;
            snprintf(buf, size, "%.*s...%s", (int)head, whole, whole + tail);
        }
        free(whole);
    }
    va_end(again);
}

clg_status clg_fail(clg_context *ctx, clg_status status, const char *fmt, ...)
{
    thread_entry *e = write_entry(ctx);
    va_list ap;
    va_start(ap, fmt);
    format_message(e->message, sizeof e->message, fmt, ap);
    va_end(ap);
    e->cl_error = CL_SUCCESS;
    e->exec_status = CL_COMPLETE;
    return status;
}

clg_status clg_fail_exec(clg_context *ctx, cl_int exec_status, const char *fmt,
                         ...)
{
    thread_entry *e = write_entry(ctx);
    va_list ap;
    va_start(ap, fmt);
    format_message(e->message, sizeof e->message, fmt, ap);
    va_end(ap);
    e->cl_error = CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST;
    e->exec_status = exec_status;
    return CLG_STATUS_OPENCL_ERROR;
}

clg_status clg_fail_cl(clg_context *ctx, cl_int code, const char *call)
{
    thread_entry *e = write_entry(ctx);
    snprintf(e->message, sizeof e->message, "%s failed: %s (%d)", call,
             clg_cl_error_name(code), (int)code);
    e->cl_error = code;
    e->exec_status = CL_COMPLETE;
    return CLG_STATUS_OPENCL_ERROR;
}

void clg_set_cl_error(clg_context *ctx, cl_int code)
{
    thread_entry *e = write_entry(ctx);
    e->cl_error = code;
    e->exec_status = CL_COMPLETE;
}

clg_status clg_prefix_error(clg_context *ctx, clg_status status,
                            const char *prefix)
{
    thread_entry *e = write_entry(ctx);
    size_t len = strlen(prefix), old = strlen(e->message);
    if (len >= sizeof e->message)
        len = sizeof e->message - 1;
    if (len + old >= sizeof e->message)
        old = sizeof e->message - 1 - len;
    memmove(e->message + len, e->message, old);
    memcpy(e->message, prefix, len);
    e->message[len + old] = '\0';
    return status;
}

void clg_clear_error(clg_context *ctx)
{
    thread_entry *e = find_entry(ctx);
    if (e) {
        e->message[0] = '\0';
        e->cl_error = CL_SUCCESS;
        e->exec_status = CL_COMPLETE;
    }
}

void clg_keep_build_log(clg_context *ctx, char *log)
{
    thread_entry *e = write_entry(ctx);
    free(e->build_log);
    e->build_log = log;
}

const char *clg_context_last_error(const clg_context *ctx)
{
    const thread_entry *e = find_entry(ctx);
    return e ? e->message : "";
}

cl_int clg_context_last_cl_error(const clg_context *ctx)
{
    const thread_entry *e = find_entry(ctx);
    return e ? e->cl_error : CL_SUCCESS;
}

cl_int clg_context_last_exec_status(const clg_context *ctx)
{
    const thread_entry *e = find_entry(ctx);
    return e ? e->exec_status : CL_COMPLETE;
}

void clg_set_last_path(clg_context *ctx, clg_path path)
{
    write_entry(ctx)->path = path;
}

clg_path clg_context_last_path(const clg_context *ctx)
{
    const thread_entry *e = ctx ? find_entry(ctx) : NULL;
    return e ? e->path : CLG_PATH_NONE;
}

const char *clg_context_build_log(const clg_context *ctx)
{
    const thread_entry *e = ctx ? find_entry(ctx) : NULL;
    return e && e->build_log ? e->build_log : "";
}
