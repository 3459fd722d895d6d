/* SPDX-License-Identifier: Apache-2.0 */
/* The persistent program cache (docs/design.md, "Program cache"): program
 * binaries on disk, keyed by everything that changes them, loaded instead
 * of built from source. Private to host/. Every function here is quiet:
 * a failure is a miss or an entry not written, never an error of the
 * call. The settings are guarded by the context's cache_lock. */
#ifndef CLG_CACHE_H
#define CLG_CACHE_H

#include "clgather/clgather.h"

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

/* 512 MiB: about 50 of POCL's binaries (10 to 12 MB each), thousands of a
 * GPU driver's (tens to hundreds of KB). */
#define CLG_DISK_DEFAULT_MAX (UINT64_C(512) << 20)
#define CLG_DISK_IDENT_MAX 2048
/* The longest list of passed entry points an entry records, with its
 * terminating NUL. */
#define CLG_DISK_PASSED_MAX 1024

/* What the environment says (clg_env_read_cache, host/env.c), or the
 * context-level API (clg_context_set_cache_dir, _max). */
typedef struct clg_disk_settings {
    int on;
    char dir[CLG_CACHE_PATH_MAX];
    uint64_t max_bytes;
    char driver_override[256]; /* test hook: "" keeps CL_DRIVER_VERSION */
    char isa_override[256];    /* test hook: "" keeps the host's CPU */
} clg_disk_settings;

/* A context's disk cache. */
typedef struct clg_disk {
    clg_disk_settings set;
    int described; /* ident holds the device's description (or failed) */
    char ident[CLG_DISK_IDENT_MAX]; /* "" once describing failed: off */
    atomic_uint_fast64_t hits, misses, stores, rejected;
    atomic_uint_fast64_t temp_counter;
    /* why the folder or an entry was last passed over (a static string of
     * host/cache.c; NULL: never); under cache_lock */
    const char *refusal;
} clg_disk;

/* The program of `key` (everything but the device description; see
 * clg_disk_program_key) loaded from its binary and built with `options`;
 * NULL on a miss (absent, unreadable, a folder or entry the cache does not
 * trust, any mismatch, or a binary the runtime rejects; the reason of all
 * but the first goes to disk.refusal). On a hit `passed` (size cap) gets
 * the entry points whose known-answer self-test passed, as the entry
 * records them: names separated by ','; on a miss "". The binary reaches the
 * runtime only when the entry was built for this platform, device, driver
 * and clgather. Called under cache_lock. */
cl_program clg_disk_load(clg_context *ctx, const char *key,
                         const char *options, char *passed, size_t cap);

/* Writes the binary of `program` (built from key's sources) to the cache,
 * atomically, with `passed`, the entry points whose self-test passed
 * (names separated by ','; at most CLG_DISK_PASSED_MAX - 1 bytes), over
 * any entry of the same key, then evicts beyond the cap; nothing when the
 * folder is not trusted (the reason to disk.refusal). Quiet. Called under
 * cache_lock. */
void clg_disk_store(clg_context *ctx, const char *key, const char *passed,
                    cl_program program);

/* The part of a key that names a program: the kernel files, a hash of
 * their sources, the build options, into buf (size cap); 0 when it does
 * not fit. */
int clg_disk_program_key(const char *const *files, const char *const *sources,
                         size_t nfiles, const char *options, char *buf,
                         size_t cap);

#endif
