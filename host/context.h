/* SPDX-License-Identifier: Apache-2.0 */
/* The context object, private to host/ (docs/design.md, "Layers"): the
 * operator layer sees clg_context only as an opaque handle and reaches it
 * through host/runtime.h.
 *
 * Threads (docs/design.md, "Threads"): any number of threads may use one
 * context at once. What never changes after creation (device, cl_context,
 * queue, facts, names) is read without a lock; everything else is guarded:
 *   cache_lock  the program cache, in memory and its disk settings;
 *   launch_lock kernel arguments and their enqueue (a cl_kernel's
 *               arguments are shared state, OpenCL 1.2 section 5.7.2);
 *   epoch_lock  the deferred calls since the last finish, the error slots
 *               and the scratch pool;
 *   finish_lock one collect (clg_context_finish, clg_context_finish_queue,
 *               clg_context_finish_events) at a time;
 *   test_lock   one self-test (of one entry point) at a time (a deferred
 *               call may run one while it holds epoch_lock, so a self-test
 *               never takes epoch_lock).
 * Lock order: finish_lock, epoch_lock, test_lock, cache_lock, launch_lock,
 * park_lock.
 * Messages
 * are per thread (host/errors.c). */
#ifndef CLG_CONTEXT_H
#define CLG_CONTEXT_H

#include "cache.h"
#include "runtime.h"

#include <pthread.h>
#include <stdatomic.h>

#define CLG_ERROR_CAPACITY 1024

/* CLGATHER_TEST_PLAN's values: the device's own plan, or a GPU's or a
 * CPU's forced (test-only). */
enum { CLG_ENV_PLAN_DEVICE, CLG_ENV_PLAN_GPU, CLG_ENV_PLAN_CPU };

/* The CLGATHER_* variables as read at creation (host/env.c). */
#define CLG_ENV_TEXT_CAP 512
typedef struct clg_env {
    char device[CLG_ENV_TEXT_CAP]; /* CLGATHER_DEVICE; "" unset */
    char params[CLG_ENV_TEXT_CAP]; /* CLGATHER_PARAMS; "" unset */
    uint64_t max_alloc;            /* CLGATHER_MAX_ALLOC; 0 unset */
    int plan;                      /* CLGATHER_TEST_PLAN: CLG_ENV_PLAN_* */
    int validate;                  /* CLGATHER_VALIDATE=1 */
    int no_svm;                    /* CLGATHER_SVM=0 */
    int test_miscompile;           /* CLGATHER_TEST_MISCOMPILE=1 */
    clg_disk_settings cache;       /* CLGATHER_CACHE*, XDG_CACHE_HOME, HOME */
} clg_env;

/* Reads every CLGATHER_* variable into *env (host/env.c, the only file
 * that reads the environment); on a bad value writes a message naming
 * the variable to msg and fails with INVALID_ARGUMENT. */
clg_status clg_env_read(clg_env *env, char *msg, size_t cap);

/* The program cache's variables alone into *s (host/env.c; for the
 * context-less cache calls); on a malformed value writes the reason to
 * msg and fails with INVALID_ARGUMENT. */
clg_status clg_env_read_cache(clg_disk_settings *s, char *msg, size_t cap);

/* CLGATHER_DEVICE into buf ("" when unset). Returns -1, buf "", when it
 * is too long: clg_context_create then refuses it, so no device is the
 * default. */
int clg_env_device(char *buf, size_t cap);

/* One kernel of a cached program. */
typedef struct clg_cached_kernel {
    char name[64];
    cl_kernel kernel;
} clg_cached_kernel;

#define CLG_KERNELS_PER_PROGRAM 8

/* Kernels remembered by binary key (host/program.c). */
#define CLG_MEMO_ENTRIES 32

/* Kernels whose scalar arguments are remembered, the arguments of each,
 * by index, and the bytes of its one larger by-value argument, a shape
 * struct (host/launch.c). */
#define CLG_ARG_MEMO_KERNELS 32
#define CLG_ARG_MEMO_ARGS 32
#define CLG_ARG_MEMO_BLOCK 128

/* The self-test verdict (clg_rt_verdict) of one entry point of a cached
 * program: PASSED (tested in this context, or named as passed by the
 * disk entry the program was loaded from) or FAILED, with its message.
 * An entry point without a row is UNTESTED. */
typedef struct clg_entry_verdict {
    char name[64];
    int verdict;
    char *failure; /* a FAILED verdict's message, owned; NULL: none */
} clg_entry_verdict;

/* A built program, keyed by its files and build options. Each entry point
 * is tested on its own, before its first use ("Known-answer self-test" in
 * docs/design.md): `verdicts` holds those given so far (by the operator
 * layer, clg_rt_program_test_end, or by the disk entry the program was
 * loaded from). */
typedef struct clg_cached_program {
    char *key; /* "file;file;...|options", owned */
    cl_program program;
    char *disk_key; /* its key in the disk cache, owned; NULL: none */
    clg_entry_verdict verdicts[CLG_KERNELS_PER_PROGRAM];
    size_t verdict_count;
    clg_cached_kernel kernels[CLG_KERNELS_PER_PROGRAM];
    size_t kernel_count;
} clg_cached_program;

/* Error slots (host/error_slots.c): an int pair a call's kernels write,
 * [0] the flag, [1] a sink. A private slot is a buffer of its own; a
 * deferred call's slot is a sub-buffer of a chunk, made when the slot is
 * first used, so that a finish reads a whole chunk at once. */
#define CLG_SLOTS_PER_CHUNK 1024
typedef struct clg_slot_chunk clg_slot_chunk;
struct clg_rt_slot {
    cl_mem buf;
    clg_slot_chunk *chunk; /* NULL: a private slot */
    struct clg_rt_slot *next;
};
struct clg_slot_chunk {
    cl_mem parent;
    struct clg_rt_slot slots[CLG_SLOTS_PER_CHUNK];
    size_t used;
    /* Slots handed out whose call is not yet collected (a call that
     * records nothing gives its slot back at once): a chunk leaves its
     * epoch only when none is, so that no collect reads or clears a whole
     * chunk while a kernel of another caller's operation may write it. */
    size_t live;
    size_t taken; /* the current collect's slots in it (finish_lock) */
    int whole;    /* the current collect reads and retires it whole */
    clg_slot_chunk *next;
};

/* One deferred call, kept until the next finish with every event it
 * depends on (docs/design.md, "Enqueue and deferred errors"). */
typedef struct clg_deferred_rec {
    void *info; /* the operator layer's description, owned; NULL: none */
    cl_mem keep;
    struct clg_rt_slot *slot;
    cl_command_queue queue; /* the call's queue (compared, not retained) */
    cl_event ev;     /* the call's last command, owned; NULL: none enqueued */
    cl_event *more;  /* owned: the wait list's events (retained, `ngates`),
                      * then the earlier commands' events; NULL: none */
    uint32_t nmore;  /* entries of `more` */
    uint32_t ngates; /* of which the wait list's */
} clg_deferred_rec;

/* Operations one context holds between two finishes (docs/design.md,
 * "Enqueue and deferred errors"): past it an enqueue is refused with
 * PENDING_LIMIT. */
#define CLG_MAX_PENDING 262144

/* Free slot chunks a context keeps after a finish, for the next batch. */
#define CLG_CHUNKS_KEPT 2

/* A finish of at least this many operations gives freed heap memory back
 * to the system (glibc's malloc_trim). */
#define CLG_TRIM_AFTER 4096

/* Everything enqueued since the last finish. */
typedef struct clg_epoch {
    clg_slot_chunk *chunks; /* head: the chunk slots are taken from */
    clg_deferred_rec *recs;
    size_t rec_count, rec_capacity;
    size_t event_count; /* command events the records hold */
} clg_epoch;

/* A set of the copy path's scratch buffers, one per tensor role. */
struct clg_rt_scratch {
    cl_mem buf[CLG_SCRATCH_COUNT];
    size_t size[CLG_SCRATCH_COUNT];
    struct clg_rt_scratch *next;
};

struct clg_context {
    uint64_t id; /* unique in the process; keys per-thread messages */
    long pid;    /* the process that created it (getpid) */
    cl_device_id device;
    cl_context cl_ctx;
    cl_command_queue queue;
    int queue_out_of_order;
    /* The library's own in-order queue, for the host-memory calls and
     * for reads after a wait (error slots, indices to report): never
     * behind a caller's commands, so never stopped by a caller's failed
     * event (docs/design.md, "Enqueue and deferred errors"). */
    cl_command_queue own_queue;
    clg_device_type type;   /* the device's own type */
    int host_unified;       /* the device's CL_DEVICE_HOST_UNIFIED_MEMORY */
    clg_device_facts facts; /* what plans are made from */
    size_t slot_stride;     /* bytes between sub-buffer origins */
    char device_name[256];
    char device_vendor[256];
    char device_version[256];
    char platform_name[256];    /* CL_PLATFORM_NAME of the device's */
    char platform_version[256]; /* CL_PLATFORM_VERSION */
    char driver_version[256];   /* CL_DRIVER_VERSION */

    pthread_mutex_t cache_lock, launch_lock, epoch_lock, finish_lock;
    /* One self-test at a time (clg_rt_program_test_begin). */
    pthread_mutex_t test_lock;
    /* The parked events (below), last in the lock order: a self-test may
     * park events while its thread holds epoch_lock. */
    pthread_mutex_t park_lock;
    int locks_ready;

    clg_cached_program **programs;
    size_t program_count, program_capacity;
    struct clg_kernel_memo {
        unsigned char key[CLG_MEMO_KEY_MAX];
        size_t len;
        cl_kernel kernel;
    } memo[CLG_MEMO_ENTRIES];
    size_t memo_next; /* the entry the next store replaces */

    /* The scalar arguments each kernel holds, so that a launch sets only
     * those that changed (host/launch.c); under launch_lock. */
    struct clg_arg_memo {
        cl_kernel kernel;
        uint32_t known; /* bit i: value[i], or block for argument
                           block_arg, is what argument i holds */
        uint64_t value[CLG_ARG_MEMO_ARGS];
        size_t block_arg, block_size;
        unsigned char block[CLG_ARG_MEMO_BLOCK];
    } arg_memo[CLG_ARG_MEMO_KERNELS];
    size_t arg_memo_next; /* the entry a new kernel replaces */

    cl_mem sink; /* the UNCHECKED calls' slot, never read */
    clg_epoch epoch;
    clg_slot_chunk *free_chunks;
    struct clg_rt_slot *free_slots; /* private slots */
    struct clg_rt_scratch *free_scratch;
    /* Objects a failed call could not drain, freed only with the context
     * (the device may still write them). */
    clg_slot_chunk *lost_chunks;
    struct clg_rt_slot *lost_slots;
    struct clg_rt_scratch *lost_scratch;
    /* Events of commands that did not run, released only with the
     * context: POCL 3.1 may still be propagating the failure through them
     * on the thread that failed the caller's event, after a waiter here
     * has woken (docs/design.md, "Enqueue and deferred errors"). */
    cl_event *parked;
    size_t parked_count, parked_capacity;

    atomic_uint_fast64_t sequence;
    atomic_uint validation; /* CLG_RT_VALIDATE | CLG_RT_TEST_CORRUPT */

    clg_disk disk; /* the persistent program cache (host/cache.c) */
    clg_env env;   /* the environment, read once at creation */
    /* The device parameters (src/params.c), resolved on first use from
     * the row and env.params, or set by clg_context_set_params. */
    pthread_mutex_t params_lock;
    clg_rt_params params;
};

/* 1 when `device`, whose CL_DEVICE_VERSION is `version`, shares the
 * host's whole address space at fine grain (host/svm.c). */
int clg_rt_query_svm(cl_device_id device, const char *version);

/* clSetKernelArgSVMPointer (host/svm.c). */
cl_int clg_rt_set_svm_arg(cl_kernel kernel, cl_uint index, const void *ptr);

/* Maps CL_DEVICE_TYPE_* bits to clg_device_type (host/devices.c). */
clg_device_type clg_device_type_from_cl(cl_device_type type);

/* Chooses the device `spec` names (docs/design.md, "Choosing a device"),
 * `env_spec` (CLGATHER_DEVICE as read at creation) when spec is NULL or
 * empty; host/devices.c. On failure writes the reason to msg and the raw
 * OpenCL code, if an OpenCL call failed, to *code (else CL_SUCCESS). */
/* Points the OpenCL implementations' own caches of compiled code (POCL's,
 * Mesa's) away from folders another user controls; once per process,
 * before the first clGetPlatformIDs (host/runtime_caches.c). */
void clg_rt_guard_runtime_caches(void);

/* 1 when folder `path` (it need not exist yet) is one that no one but the
 * effective user or root could have written: its nearest existing folder,
 * links resolved, and every folder above it owned by one of them and
 * writable by neither group nor others, unless sticky. */
int clg_rt_trusted_folder(const char *path);

clg_status clg_devices_select(const char *spec, const char *env_spec,
                              cl_platform_id *platform, cl_device_id *device,
                              char *msg, size_t cap, cl_int *code);

/* Releases the cached programs and their kernels (host/program.c). */
void clg_programs_release(clg_context *ctx);

/* Releases every slot, chunk and scratch set (host/calls_release.c); the
 * queue is finished. */
void clg_calls_release(clg_context *ctx);

/* Keeps `log` (owned, may be NULL) as the calling thread's build log for
 * ctx (host/errors.c). */
void clg_keep_build_log(clg_context *ctx, char *log);

#endif
