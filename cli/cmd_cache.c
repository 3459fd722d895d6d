/* SPDX-License-Identifier: Apache-2.0 */
/* clgather cache: the persistent program cache's folder, cap and entries
 * (device, build options, size, last use), newest first, and why a
 * context would not use the folder or an entry; --clear empties it
 * (docs/guide.md, "Program cache"). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <clgather/clgather.h>

#include "cli.h"

static void usage(FILE *out)
{
    fprintf(out,
            "Usage: clgather cache [--dir DIR] [--clear]\n"
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
            "  --dir DIR   the cache folder to show or clear\n"
            "  --clear     remove every entry of the folder (files that "
            "start with the\n"
            "              cache's header; other files stay); a folder not "
            "used is\n"
            "              refused: nothing is removed\n"
            "  -h, --help  show this help\n"
            "\n"
            "Exit status: 0, or 3 a usage error, a folder that cannot be "
            "read or cleared,\n"
            "or --clear on a folder not used.\n");
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

/* The entries of `dir` (NULL: the environment's), printed. Returns an
 * exit status. */
static int show(const char *dir, const clg_cache_info *info)
{
    size_t count = 0, got = 0;
    uint64_t total = 0;
    char msg[1200], a[32], b[32];
    clg_cache_entry *entries = NULL;
    clg_status st = clg_cache_list(dir, NULL, 0, &count);
    if (st == CLG_STATUS_OK && count > 0) {
        if (!(entries = calloc(count, sizeof *entries))) {
            fprintf(stderr, "clgather cache: out of memory\n");
            return CLG_EXIT_ERROR;
        }
        st = clg_cache_list(dir, entries, count, &got);
        count = got < count ? got : count;
    }
    if (st != CLG_STATUS_OK) {
        fprintf(stderr, "clgather cache: %s\n",
                clg_cli_describe(msg, sizeof msg, NULL, st));
        free(entries);
        return CLG_EXIT_ERROR;
    }
    if (count > 1)
        qsort(entries, count, sizeof *entries, newest_first);
    for (size_t i = 0; i < count; i++)
        total += entries[i].bytes;
    printf("entries: %zu, %s of a %s cap (%llu of %llu bytes)\n", count,
           mib(a, sizeof a, total), mib(b, sizeof b, info->max_bytes),
           (unsigned long long)total, (unsigned long long)info->max_bytes);
    if (count > 0)
        printf("  last use             size        device  options\n");
    /* Each entry's own reason where the folder is used, else the folder's
     * for every entry: none of them would be used, whatever it holds. */
    const char *folder_why = clg_cache_check(dir, NULL);
    for (size_t i = 0; i < count; i++)
        print_entry(&entries[i], *folder_why
                                     ? folder_why
                                     : clg_cache_check(dir, entries[i].file));
    free(entries);
    return CLG_EXIT_OK;
}

int clg_cli_cache(int argc, char **argv)
{
    static const struct option options[] = {{"dir", required_argument, NULL,
                                             'D'},
                                            {"clear", no_argument, NULL, 'C'},
                                            {"help", no_argument, NULL, 'h'},
                                            {NULL, 0, NULL, 0}};
    const char *dir = NULL;
    int clear = 0, c, dir_seen = 0;
    clg_cache_info info;
    char msg[1200];
    size_t removed = 0;

    while ((c = getopt_long(argc, argv, "h", options, NULL)) != -1) {
        if (c == 'D') {
            if (clg_cli_once("cache", "--dir", &dir_seen) != 0)
                return clg_cli_try_help("cache");
            /* "" would list nothing and clear nothing, as if it were an
             * empty folder: refused, as clg_context_set_cache_dir does. */
            if (optarg[0] == '\0') {
                fprintf(stderr, "clgather cache: --dir needs a folder\n");
                return clg_cli_try_help("cache");
            }
            dir = optarg;
        } else if (c == 'C')
            clear = 1;
        else if (c == 'h') {
            usage(stdout);
            return CLG_EXIT_OK;
        } else
            return clg_cli_try_help("cache"); /* getopt named it */
    }
    if (optind != argc) {
        fprintf(stderr, "clgather cache: unexpected argument '%s'\n",
                argv[optind]);
        return clg_cli_try_help("cache");
    }
    clg_status st = clg_cache_environment(&info);
    if (st != CLG_STATUS_OK) {
        fprintf(stderr, "clgather cache: %s\n",
                clg_cli_describe(msg, sizeof msg, NULL, st));
        return CLG_EXIT_ERROR;
    }
    if (!dir && !info.enabled) {
        printf("program cache: off (CLGATHER_CACHE=0, or no "
               "CLGATHER_CACHE_DIR, XDG_CACHE_HOME or HOME)\n");
        return clear ? CLG_EXIT_ERROR : CLG_EXIT_OK;
    }
    const char *why = clg_cache_check(dir, NULL);
    printf("folder: %s%s%s%s\n", dir ? dir : info.directory, *why ? " (" : "",
           why, *why ? ")" : "");
    if (clear) {
        st = clg_cache_clear(dir, &removed);
        printf("removed: %zu entr%s\n", removed, removed == 1 ? "y" : "ies");
        if (st != CLG_STATUS_OK) {
            fprintf(stderr, "clgather cache: %s\n",
                    clg_cli_describe(msg, sizeof msg, NULL, st));
            return CLG_EXIT_ERROR;
        }
    }
    return show(dir, &info);
}
