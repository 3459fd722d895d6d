/* SPDX-License-Identifier: Apache-2.0 */
/* clgather cache: the persistent program cache's folder, cap and entries
 * (device, build options, size, last use), newest first, and why a
 * context would not use the folder or an entry; --clear empties it,
 * --fill warms a device up into it (clg_context_fill_cache), --json prints
 * it all as one document (docs/guide.md, "Program cache"; docs/cli.md,
 * "JSON output"). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <clgather/clgather.h>

#include "cli.h"
#include "json_out.h"

static void usage(FILE *out)
{
    fprintf(out,
            "Usage: clgather cache [--dir DIR] [--clear] [--json]\n"
            "       clgather cache --fill [--device SPEC]\n"
            "                      [--op gather|gather-elements|gather-nd]... "
            "[--oob MODE]...\n"
            "                      [--dir DIR] [--json]\n"
            "Show the persistent program cache: its folder, cap and entries "
            "(device,\n"
            "build options, size, last use), newest first. The folder is "
            "DIR, else\n"
            "$CLGATHER_CACHE_DIR, else $XDG_CACHE_HOME/clgather, else\n"
            "$HOME/.cache/clgather; CLGATHER_CACHE=0 turns the cache off.\n"
            "A folder or entry that a context would not use (another user's,\n"
            "writable by others, not a regular file, not an entry) says why;\n"
            "each entry of a folder not used says the folder's reason.\n"
            "\n"
            "  --dir DIR          the cache folder to show, clear or fill\n"
            "  --clear            remove every entry of the folder (files "
            "that start with\n"
            "                     the cache's header; other files stay); a "
            "folder not\n"
            "                     used is refused: nothing is removed\n"
            "  --fill             build every kernel the shape classes of "
            "each operator\n"
            "                     need on the device into the folder "
            "(clg_context_fill_cache;\n"
            "                     seconds to minutes), so that later "
            "processes load them\n"
            "  -d, --device SPEC  the device to fill for (see clgather "
            "--help)\n"
            "  --op OP            with --fill: only gather, gather-elements "
            "or gather-nd;\n"
            "                     repeat for more (default: every operator)\n"
            "  --oob MODE         with --fill: only raise, wrap, clip or "
            "fill; repeat for\n"
            "                     more (default: every mode)\n"
            "  --json             print the folder, the fill and the entries "
            "as one JSON\n"
            "                     document (docs/cli.md)\n"
            "  -h, --help         show this help\n"
            "\n"
            "Exit status: 0, or 3 a usage error, a folder that cannot be "
            "read or cleared,\n"
            "--clear on a folder not used or --fill with the cache off; 4 "
            "the device\n"
            "failed during --fill (no device, a build, a self-test).\n");
}

static const char *mib(char *buf, size_t cap, uint64_t bytes)
{
    snprintf(buf, cap, "%.1f MiB", (double)bytes / (1024.0 * 1024.0));
    return buf;
}

static int newest_first(const void *a, const void *b)
{
    int64_t x = ((const clg_cache_entry *)a)->last_use;
    int64_t y = ((const clg_cache_entry *)b)->last_use;
    return (x < y) - (x > y);
}

/* One entry; `why` says why a context would not use it ("": it would). */
static void print_entry(const clg_cache_entry *e, const char *why)
{
    char when[32] = "?", size[32], device[300];
    time_t t = (time_t)e->last_use;
    struct tm tm;
    if (localtime_r(&t, &tm))
        strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S", &tm);
    /* The device with its runtime's version: a CPU's name is the same
     * under POCL and Intel's runtime, whose binaries differ. */
    if (!e->whole)
        snprintf(device, sizeof device,
                 "(not a whole entry: a miss, rewritten on use)");
    else if (e->driver[0] != '\0')
        snprintf(device, sizeof device, "%s, driver %s", e->device, e->driver);
    else
        snprintf(device, sizeof device, "%s", e->device);
    printf("  %s  %10s  %s  %s\n", when, mib(size, sizeof size, e->bytes),
           *why ? why : device, e->options);
}

/* What the command found and did, for the text and the JSON. */
typedef struct cache_run {
    const char *dir;                  /* --dir, or NULL: the environment's */
    char dir_buf[CLG_CACHE_PATH_MAX]; /* --dir made absolute */
    int clear, fill, json;            /* --clear, --fill, --json */
    const char *spec;                 /* --device */
    uint32_t ops, oobs;               /* --op, --oob masks (0: all) */
    clg_cache_info info;              /* the environment's settings */
    const char *folder;               /* the folder shown, NULL when off */
    const char *folder_why; /* why a context would not use it, or "" */
    int cleared;            /* --clear ran */
    size_t removed;         /* entries --clear removed */
    clg_context *ctx;       /* --fill's context */
    size_t warmed, skipped; /* --fill's combinations */
    uint64_t compiled, loaded, stored; /* --fill's programs */
    double fill_s;                     /* --fill's time */
    clg_cache_entry *entries;
    size_t count;
    uint64_t total;
} cache_run;

/* The entries of run->dir, newest first, into run. Returns an exit
 * status. */
static int list_entries(cache_run *run)
{
    size_t count = 0, got = 0;
    char msg[1200];
    clg_status st = clg_cache_list(run->dir, NULL, 0, &count);
    if (st == CLG_STATUS_OK && count > 0) {
        if (!(run->entries = calloc(count, sizeof *run->entries))) {
            clg_cli_fail("cache", "out of memory");
            return CLG_EXIT_ERROR;
        }
        st = clg_cache_list(run->dir, run->entries, count, &got);
        count = got < count ? got : count;
    }
    if (st != CLG_STATUS_OK) {
        clg_cli_fail("cache", "%s",
                     clg_cli_describe(msg, sizeof msg, NULL, st));
        return CLG_EXIT_ERROR;
    }
    if (count > 1)
        qsort(run->entries, count, sizeof *run->entries, newest_first);
    run->count = count;
    for (size_t i = 0; i < count; i++)
        run->total += run->entries[i].bytes;
    return CLG_EXIT_OK;
}

/* Why a context would not use entry i ("": it would): the folder's
 * reason for every entry of a folder not used. */
static const char *entry_why(const cache_run *run, size_t i)
{
    return *run->folder_why ? run->folder_why
                            : clg_cache_check(run->dir, run->entries[i].file);
}

static void print_entries(const cache_run *run)
{
    char a[32], b[32];
    printf("entries: %zu, %s of a %s cap (%llu of %llu bytes)\n", run->count,
           mib(a, sizeof a, run->total), mib(b, sizeof b, run->info.max_bytes),
           (unsigned long long)run->total,
           (unsigned long long)run->info.max_bytes);
    if (run->count > 0)
        printf("  last use             size        device  options\n");
    for (size_t i = 0; i < run->count; i++)
        print_entry(&run->entries[i], entry_why(run, i));
}

/* --fill: a context on the device, on run->dir when given, filled.
 * Returns an exit status. */
static int fill(cache_run *run)
{
    clg_cache_info before, after;
    char msg[1200], line[800];
    clg_status st;
    int rc = clg_cli_open_device("cache", run->spec, &run->ctx);
    if (rc != CLG_EXIT_OK)
        return rc;
    if (run->dir != NULL &&
        (st = clg_context_set_cache_dir(run->ctx, run->dir)) !=
            CLG_STATUS_OK) {
        clg_cli_fail("cache", "%s",
                     clg_cli_describe(msg, sizeof msg, run->ctx, st));
        return CLG_EXIT_ERROR;
    }
    if (clg_context_cache_info(run->ctx, &before) != CLG_STATUS_OK ||
        !before.enabled) {
        clg_cli_fail("cache", "--fill: the program cache is off "
                              "(CLGATHER_CACHE=0, or no folder); give --dir");
        return CLG_EXIT_ERROR;
    }
    if (!run->json)
        fprintf(stderr, "clgather cache: filling for %s\n",
                clg_cli_device_line(line, sizeof line, run->ctx));
    double t0 = clg_cli_now();
    st = clg_context_fill_cache(run->ctx, run->ops, run->oobs, &run->warmed,
                                &run->skipped);
    run->fill_s = clg_cli_now() - t0;
    if (clg_context_cache_info(run->ctx, &after) == CLG_STATUS_OK) {
        run->compiled = after.misses - before.misses;
        run->loaded = after.hits - before.hits;
        run->stored = after.stores - before.stores;
    }
    if (st != CLG_STATUS_OK) {
        clg_cli_fail("cache", "--fill: %s",
                     clg_cli_describe(msg, sizeof msg, run->ctx, st));
        return clg_cli_exit_for_status(st);
    }
    /* The cache never fails a call: a folder it cannot write leaves the
     * programs compiled and kept nowhere, which is the fill's failure. */
    if (run->compiled > 0 && run->stored == 0) {
        const char *why = clg_context_cache_refusal(run->ctx);
        clg_cli_fail("cache",
                     "--fill: %llu programs compiled, none stored in %s%s%s",
                     (unsigned long long)run->compiled, after.directory,
                     *why ? ": "
                          : " (a folder that cannot be created or "
                            "written?)",
                     why);
        return CLG_EXIT_ERROR;
    }
    if (!run->json)
        printf("filled: %zu warm-ups (shape class, element size, index "
               "dtype, mode), %zu refused by the device's limits; %llu "
               "programs compiled, %llu loaded "
               "(%.1f s)\n",
               run->warmed, run->skipped, (unsigned long long)run->compiled,
               (unsigned long long)run->loaded, run->fill_s);
    return CLG_EXIT_OK;
}

/* A time in seconds since 1970 as ISO 8601 in UTC, into buf. */
static const char *iso_utc(char *buf, size_t cap, int64_t seconds)
{
    time_t t = (time_t)seconds;
    struct tm tm;
    buf[0] = '\0';
    if (gmtime_r(&t, &tm))
        strftime(buf, cap, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return buf;
}

/* The masks of --op and --oob as lists of words. */
static void json_masks(clg_json *j, const cache_run *run)
{
    const char *words[32];
    size_t n = 0;
    for (int op = 0; op < clg_op_count() && op < 32; op++)
        if (run->ops == 0 || (run->ops & (1u << op)))
            words[n++] = clg_op_word((clg_op)op);
    clg_json_strings(j, "operators", words, n);
    n = 0;
    for (int m = 0; m <= CLG_OOB_FILL; m++)
        if (run->oobs == 0 || (run->oobs & (1u << m)))
            words[n++] = clg_oob_mode_name((clg_oob_mode)m);
    clg_json_strings(j, "oob_modes", words, n);
}

static void json_fill(clg_json *j, const cache_run *run)
{
    if (!run->fill) {
        clg_json_null(j, "fill");
        return;
    }
    clg_json_begin_object(j, "fill");
    if (run->ctx == NULL) {
        clg_json_null(j, "device");
    } else {
        clg_json_begin_object(j, "device");
        clg_json_string(j, "spec", run->spec);
        clg_json_string(j, "name", clg_context_device_name(run->ctx));
        clg_json_string(j, "vendor", clg_context_device_vendor(run->ctx));
        clg_json_string(j, "version", clg_context_device_version(run->ctx));
        clg_cli_json_runtime(j, run->ctx);
        clg_json_end_object(j);
    }
    json_masks(j, run);
    clg_json_uint(j, "warmed", run->warmed);
    clg_json_uint(j, "skipped", run->skipped);
    clg_json_uint(j, "programs_compiled", run->compiled);
    clg_json_uint(j, "programs_loaded", run->loaded);
    clg_json_uint(j, "programs_stored", run->stored);
    clg_json_number(j, "seconds", run->ctx != NULL, run->fill_s);
    clg_json_end_object(j);
}

static void json_entries(clg_json *j, const cache_run *run)
{
    char when[32];
    clg_json_begin_array(j, "entries");
    for (size_t i = 0; i < run->count; i++) {
        const clg_cache_entry *e = &run->entries[i];
        const char *why = entry_why(run, i);
        clg_json_begin_object(j, NULL);
        clg_json_string(j, "file", e->file);
        clg_json_bool(j, "whole", e->whole);
        clg_json_string(j, "device", e->whole ? e->device : NULL);
        clg_json_string(j, "driver", e->whole ? e->driver : NULL);
        clg_json_string(j, "options", e->options);
        clg_json_uint(j, "bytes", e->bytes);
        clg_json_string(j, "last_use",
                        iso_utc(when, sizeof when, e->last_use));
        clg_json_string(j, "refusal", *why ? why : NULL);
        clg_json_end_object(j);
    }
    clg_json_end_array(j);
}

/* The --json document (docs/cli.md, "JSON output"). */
static void json_cache(const cache_run *run, int rc)
{
    clg_json j;
    clg_cli_json_begin(&j, "cache");
    clg_json_bool(&j, "enabled", run->folder != NULL);
    clg_json_string(&j, "directory", run->folder);
    clg_json_uint(&j, "max_bytes", run->info.max_bytes);
    clg_json_string(&j, "refusal",
                    run->folder_why && *run->folder_why ? run->folder_why
                                                        : NULL);
    if (run->cleared)
        clg_json_uint(&j, "removed", run->removed);
    else
        clg_json_null(&j, "removed");
    json_fill(&j, run);
    json_entries(&j, run);
    clg_json_uint(&j, "total_bytes", run->total);
    clg_cli_json_end(&j, rc);
}

/* --dir DIR relative to the working folder, made absolute into
 * run->dir_buf (the cache takes absolute folders only); -1 (printed) when
 * it cannot be. */
static int absolute(cache_run *run, const char *dir)
{
    char cwd[CLG_CACHE_PATH_MAX];
    if (getcwd(cwd, sizeof cwd) == NULL ||
        (size_t)snprintf(run->dir_buf, sizeof run->dir_buf, "%s/%s", cwd,
                         dir) >= sizeof run->dir_buf) {
        fprintf(stderr,
                "clgather cache: --dir %s: cannot make it an "
                "absolute path\n",
                dir);
        return -1;
    }
    run->dir = run->dir_buf;
    return 0;
}

enum { OPT_DIR = 256, OPT_CLEAR, OPT_FILL, OPT_OP, OPT_OOB, OPT_JSON };

/* The options into run; -1 (printed) on a usage error, 1 for --help. */
static int parse_options(int argc, char **argv, cache_run *run)
{
    static const struct option options[] = {
        {"dir", required_argument, NULL, OPT_DIR},
        {"clear", no_argument, NULL, OPT_CLEAR},
        {"fill", no_argument, NULL, OPT_FILL},
        {"device", required_argument, NULL, 'd'},
        {"op", required_argument, NULL, OPT_OP},
        {"oob", required_argument, NULL, OPT_OOB},
        {"json", no_argument, NULL, OPT_JSON},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0}};
    int c, dir_seen = 0, device_seen = 0;
    clg_op op;
    clg_oob_mode mode;
    while ((c = getopt_long(argc, argv, "d:h", options, NULL)) != -1) {
        switch (c) {
        case OPT_DIR:
            if (clg_cli_once("cache", "--dir", &dir_seen) != 0)
                return -1;
            /* "" would list nothing and clear nothing, as if it were an
             * empty folder: refused, as clg_context_set_cache_dir does. */
            if (optarg[0] == '\0') {
                fprintf(stderr, "clgather cache: --dir needs a folder\n");
                return -1;
            }
            run->dir = optarg;
            if (optarg[0] != '/' && absolute(run, optarg) != 0)
                return -1;
            break;
        case OPT_CLEAR:
            run->clear = 1;
            break;
        case OPT_FILL:
            run->fill = 1;
            break;
        case 'd':
            if (clg_cli_once("cache", "--device", &device_seen) != 0)
                return -1;
            run->spec = optarg;
            break;
        case OPT_OP:
            if (clg_cli_parse_op(optarg, &op) != 0) {
                char words[256];
                clg_cli_op_words(words, sizeof words);
                fprintf(stderr, "clgather cache: --op '%s': not %s\n", optarg,
                        words);
                return -1;
            }
            run->ops |= 1u << op;
            break;
        case OPT_OOB:
            if (clg_cli_parse_oob("cache", optarg, &mode) != 0)
                return -1;
            run->oobs |= 1u << mode;
            break;
        case OPT_JSON:
            run->json = 1;
            break;
        case 'h':
            usage(stdout);
            return 1;
        default:
            return -1; /* getopt named it */
        }
    }
    if (optind != argc) {
        fprintf(stderr, "clgather cache: unexpected argument '%s'\n",
                argv[optind]);
        return -1;
    }
    if (!run->fill && (run->spec || run->ops || run->oobs)) {
        fprintf(stderr, "clgather cache: --device, --op and --oob go with "
                        "--fill\n");
        return -1;
    }
    if (run->fill && run->clear) {
        fprintf(stderr, "clgather cache: --fill and --clear go one at a "
                        "time\n");
        return -1;
    }
    return 0;
}

/* The folder, --clear and --fill, the entries. Returns an exit status;
 * the text goes out as it is found, the JSON is printed by the caller. */
static int run_cache(cache_run *run)
{
    char msg[1200];
    clg_status st = clg_cache_environment(&run->info);
    if (st != CLG_STATUS_OK) {
        clg_cli_fail("cache", "%s",
                     clg_cli_describe(msg, sizeof msg, NULL, st));
        return CLG_EXIT_ERROR;
    }
    if (!run->dir && !run->info.enabled) {
        if (!run->json)
            printf("program cache: off (CLGATHER_CACHE=0, or no "
                   "CLGATHER_CACHE_DIR, XDG_CACHE_HOME or HOME)\n");
        if (run->clear || run->fill) {
            clg_cli_fail("cache",
                         "--%s: the program cache is off; give "
                         "--dir",
                         run->clear ? "clear" : "fill");
            return CLG_EXIT_ERROR;
        }
        return CLG_EXIT_OK;
    }
    run->folder = run->dir ? run->dir : run->info.directory;
    run->folder_why = clg_cache_check(run->dir, NULL);
    if (!run->json)
        printf("folder: %s%s%s%s\n", run->folder, *run->folder_why ? " (" : "",
               run->folder_why, *run->folder_why ? ")" : "");
    if (run->clear) {
        st = clg_cache_clear(run->dir, &run->removed);
        run->cleared = 1;
        if (!run->json)
            printf("removed: %zu entr%s\n", run->removed,
                   run->removed == 1 ? "y" : "ies");
        if (st != CLG_STATUS_OK) {
            clg_cli_fail("cache", "%s",
                         clg_cli_describe(msg, sizeof msg, NULL, st));
            return CLG_EXIT_ERROR;
        }
    }
    if (run->fill && *run->folder_why) {
        /* Refused before any compile: every program would be built and
         * kept nowhere. */
        clg_cli_fail("cache", "--fill: %s is %s; nothing would be stored",
                     run->folder, run->folder_why);
        return CLG_EXIT_ERROR;
    }
    if (run->fill) {
        int rc = fill(run);
        if (rc != CLG_EXIT_OK)
            return rc;
        run->folder_why = clg_cache_check(run->dir, NULL);
    }
    int rc = list_entries(run);
    if (rc == CLG_EXIT_OK && !run->json)
        print_entries(run);
    return rc;
}

int clg_cli_cache(int argc, char **argv)
{
    cache_run run;
    int rc;
    memset(&run, 0, sizeof run);
    rc = parse_options(argc, argv, &run);
    if (rc != 0)
        return rc > 0 ? CLG_EXIT_OK : clg_cli_try_help("cache");
    rc = run_cache(&run);
    if (run.json)
        json_cache(&run, rc);
    free(run.entries);
    clg_context_destroy(run.ctx);
    return rc;
}
