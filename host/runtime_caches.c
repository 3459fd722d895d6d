/* SPDX-License-Identifier: Apache-2.0 */
/* The OpenCL implementations' own caches of compiled code, pointed away
 * from folders that another user controls before the first OpenCL call
 * of the process (docs/guide.md, "Program cache"; docs/design.md,
 * "Program cache").
 *
 * POCL keeps the shared objects it dlopen()s in $POCL_CACHE_DIR, else
 * $XDG_CACHE_HOME/pocl, else $HOME/.cache/pocl, and Mesa (Rusticl) its
 * compiled shaders in $MESA_SHADER_CACHE_DIR, else
 * $XDG_CACHE_HOME/mesa_shader_cache, else $HOME/.cache/mesa_shader_cache,
 * where $MESA_SHADER_CACHE_DIR (else the older $MESA_GLSL_CACHE_DIR)
 * names the folder above (Mesa 22.3 appends mesa_shader_cache to it as to
 * the others, or mesa_shader_cache_sf or _db for its single-file and
 * database caches).
 * Neither checks who owns the folder, so root with a user's HOME (sudo -E,
 * a service whose HOME is a user's folder) would run that user's code. So
 * before the first clGetPlatformIDs, each such folder is checked as the
 * program cache checks its own: its nearest existing folder owned by the
 * effective user or root and writable by neither group nor others, and
 * every folder above it the same, sticky ones (/tmp) excepted. A sticky
 * folder is no cache folder: anyone may create the folder the
 * implementation would make in it before it does. A folder that fails is
 * replaced, through the implementation's own variable, by the same folder
 * under the effective user's home from the password database, or, when
 * that fails too, by a new private folder under /tmp. A folder that passes
 * but was named through a link or a relative path (the variable's or
 * XDG_CACHE_HOME) is pinned, through the
 * same variable, to the absolute folder that was checked, so that the
 * link cannot be turned elsewhere after the check. The process
 * environment is changed only then, once, before any runtime reads it. */
#define _GNU_SOURCE
#include "context.h"

#include <limits.h>
#include <pthread.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct runtime_cache {
    const char *variable;  /* the implementation's own setting */
    const char *fallback;  /* an older name it reads when that is unset */
    const char *folder;    /* its name under the cache base */
    const char *others[3]; /* other names it may use there, NULL-ended */
    int appends; /* the variable names the base, not the folder itself */
} runtime_cache;

/* Mesa 22.3 reads MESA_GLSL_CACHE_DIR where MESA_SHADER_CACHE_DIR is
 * unset, and names its folder mesa_shader_cache_sf or _db where
 * MESA_DISK_CACHE_SINGLE_FILE or MESA_DISK_CACHE_DATABASE is set: every
 * name is checked, whichever those variables choose. */
static const runtime_cache runtime_caches[] = {
    {"POCL_CACHE_DIR", NULL, "pocl", {NULL}, 0},
    {"MESA_SHADER_CACHE_DIR",
     "MESA_GLSL_CACHE_DIR",
     "mesa_shader_cache",
     {"mesa_shader_cache_sf", "mesa_shader_cache_db", NULL},
     1},
};

/* 1 when `st` is a folder that no one but the effective user or root
 * could have written to; `sticky_ok`: a sticky one (no one else may remove
 * or rename what is in it) will do. */
static int trusted(const struct stat *st, int sticky_ok)
{
    if (!S_ISDIR(st->st_mode) || (st->st_uid != geteuid() && st->st_uid != 0))
        return 0;
    return !(st->st_mode & (S_IWGRP | S_IWOTH)) ||
           (sticky_ok && (st->st_mode & S_ISVTX));
}

/* Checks folder `path` (absolute; it need not exist): its nearest existing
 * folder, resolved through every link, and each folder above that (see
 * the top); `strict`: the nearest one may not be sticky either, as for a
 * runtime that creates and uses the folder without checking it. On
 * success, and when `checked` is not NULL, writes there the
 * absolute path with every link resolved (the resolved nearest folder and
 * the part of `path` that does not exist yet). */
static int check_folder(const char *path, int strict, char *checked,
                        size_t cap)
{
    char probe[PATH_MAX], real[PATH_MAX];
    struct stat st;
    if (path[0] != '/' || strlen(path) >= sizeof probe)
        return 0;
    strcpy(probe, path);
    while (stat(probe, &st) != 0) {
        char *slash = strrchr(probe, '/');
        if (slash == NULL)
            return 0;
        if (slash == probe) {
            probe[1] = '\0';
            break;
        }
        *slash = '\0';
    }
    if (realpath(probe, real) == NULL)
        return 0;
    if (checked) {
        const char *rest = path + strlen(probe);
        int n = snprintf(checked, cap, "%s%s",
                         strcmp(real, "/") || !*rest ? real : "", rest);
        if (n <= 0 || (size_t)n >= cap)
            return 0;
    }
    for (int above = 0;; above = 1) {
        if (lstat(real, &st) != 0 || !trusted(&st, above || !strict))
            return 0;
        char *slash = strrchr(real, '/');
        if (slash == NULL || strcmp(real, "/") == 0)
            return 1;
        slash == real ? (void)(real[1] = '\0') : (void)(*slash = '\0');
    }
}

/* The program cache's rule: it checks the folder again once it exists
 * (host/cache.c), so one it creates in a sticky folder will do. A
 * relative path is taken from the working directory, as open() takes
 * it. */
int clg_rt_trusted_folder(const char *path)
{
    char whole[PATH_MAX];
    if (path[0] != '/' && path[0] != '\0') {
        size_t n = getcwd(whole, sizeof whole) ? strlen(whole) : 0;
        if (n == 0 || (size_t)snprintf(whole + n, sizeof whole - n, "/%s",
                                       path) >= sizeof whole - n)
            return 0;
        path = whole;
    }
    return check_folder(path, 0, NULL, 0);
}

/* The folder the implementation uses today, as an absolute path: its
 * variable (or the older one), else under $XDG_CACHE_HOME, else under
 * $HOME/.cache, a relative one taken from the working directory as the
 * implementation takes it, and *relative set; 0 when none can be named
 * (the implementation has none then). */
static int current_folder(const runtime_cache *c, char *out, size_t cap,
                          int *relative)
{
    const char *set = getenv(c->variable);
    const char *xdg = getenv("XDG_CACHE_HOME");
    const char *home = getenv("HOME");
    char named[PATH_MAX], cwd[PATH_MAX];
    int n = -1;
    if ((set == NULL || set[0] == '\0') && c->fallback != NULL)
        set = getenv(c->fallback);
    if (set != NULL && set[0] != '\0')
        n = snprintf(named, sizeof named, c->appends ? "%s/%s" : "%s", set,
                     c->folder);
    else if (xdg != NULL && xdg[0] != '\0')
        n = snprintf(named, sizeof named, "%s/%s", xdg, c->folder);
    else if (home != NULL && home[0] != '\0')
        n = snprintf(named, sizeof named, "%s/.cache/%s", home, c->folder);
    if (n <= 0 || (size_t)n >= sizeof named)
        return 0;
    *relative = named[0] != '/';
    if (named[0] == '/')
        n = snprintf(out, cap, "%s", named);
    else if (getcwd(cwd, sizeof cwd) != NULL)
        n = snprintf(out, cap, "%s/%s", cwd, named);
    else
        return 0;
    return n > 0 && (size_t)n < cap;
}

/* check_folder (strict) for `folder`, c's folder under its base, and for
 * each other name of c beside it; `checked` as there, for `folder`. */
static int cache_trusted(const runtime_cache *c, const char *folder,
                         char *checked, size_t cap)
{
    char other[PATH_MAX];
    if (!check_folder(folder, 1, checked, cap))
        return 0;
    size_t base = strlen(folder) - strlen(c->folder);
    for (const char *const *name = c->others; *name != NULL; name++) {
        int n = snprintf(other, sizeof other, "%.*s%s", (int)base, folder,
                         *name);
        if (n <= 0 || (size_t)n >= sizeof other ||
            !check_folder(other, 1, NULL, 0))
            return 0;
    }
    return 1;
}

/* A folder for `c` that the effective user controls: under its home
 * from the password database, else a new one under /tmp; 0 when neither
 * can be had. */
static int own_folder(const runtime_cache *c, char *out, size_t cap)
{
    struct passwd pw, *found = NULL;
    char buf[4096];
    if (getpwuid_r(geteuid(), &pw, buf, sizeof buf, &found) == 0 &&
        found != NULL && found->pw_dir != NULL && found->pw_dir[0] == '/') {
        int n = snprintf(out, cap, "%s/.cache/%s", found->pw_dir, c->folder);
        if (n > 0 && (size_t)n < cap && cache_trusted(c, out, NULL, 0))
            return 1;
    }
    int n = snprintf(out, cap, "/tmp/clgather-%s-XXXXXX", c->folder);
    if (n <= 0 || (size_t)n >= cap || mkdtemp(out) == NULL)
        return 0;
    if (!c->appends)
        return 1;
    /* Where the variable names the base, the folder is the one inside. */
    size_t len = strlen(out);
    n = snprintf(out + len, cap - len, "/%s", c->folder);
    return n > 0 && (size_t)n < cap - len;
}

/* Sets c's variable so that the implementation uses `folder`: the folder
 * itself, or where the variable names the base, the folder above it (0,
 * nothing set, when the folder is not so named). */
static int point_to(const runtime_cache *c, char *folder)
{
    if (!c->appends)
        return setenv(c->variable, folder, 1) == 0;
    size_t len = strlen(folder), name = strlen(c->folder);
    if (len <= name + 1 || folder[len - name - 1] != '/' ||
        strcmp(folder + len - name, c->folder) != 0)
        return 0;
    folder[len - name - 1] = '\0';
    int ok = setenv(c->variable, folder, 1) == 0;
    folder[len - name - 1] = '/';
    return ok;
}

static void guard_once(void)
{
    for (size_t i = 0; i < sizeof runtime_caches / sizeof runtime_caches[0];
         i++) {
        const runtime_cache *c = &runtime_caches[i];
        char now[PATH_MAX], checked[PATH_MAX], own[PATH_MAX];
        int relative = 0;
        if (!current_folder(c, now, sizeof now, &relative))
            continue;
        if (cache_trusted(c, now, checked, sizeof checked)) {
            /* Named through a link or a relative path: pinned to what was
             * checked. */
            if ((strcmp(checked, now) == 0 && !relative) ||
                point_to(c, checked))
                continue;
            /* A link that resolves to another name than Mesa appends. */
        }
        if (own_folder(c, own, sizeof own))
            point_to(c, own);
    }
}

void clg_rt_guard_runtime_caches(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, guard_once);
}
