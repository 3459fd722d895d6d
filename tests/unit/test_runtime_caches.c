/* SPDX-License-Identifier: Apache-2.0 */
/* The OpenCL implementations' own caches (host/runtime_caches.c;
 * docs/guide.md, "Program cache"): before the first OpenCL call the
 * library points POCL_CACHE_DIR (and Mesa's variable) away from a folder
 * that another user could write, and pins a folder named through a link or
 * a relative path to the absolute folder it checked. The guard runs once
 * per process, so each case runs in a child: it sets the environment,
 * runs the guard and sends back what the variable then is. Needs no
 * device (no OpenCL call is made). */
#define _GNU_SOURCE
#include "clg_test.h"

#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "context.h"

static char top[512]; /* this test's folder, mode 0700 */

/* Variable `var` after the guard, in a child where it is `value` (NULL:
 * unset), XDG_CACHE_HOME `xdg` (NULL: unset), HOME `home` and the working
 * directory `cwd`; "(unset)" when the guard left it unset. */
static void guarded_var(const char *var, const char *value, const char *xdg,
                        const char *home, const char *cwd, char *out,
                        size_t cap)
{
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        close(fds[0]);
        int bad = (value ? setenv(var, value, 1) : unsetenv(var)) != 0 ||
                  (xdg ? setenv("XDG_CACHE_HOME", xdg, 1)
                       : unsetenv("XDG_CACHE_HOME")) != 0 ||
                  setenv("HOME", home, 1) != 0 || chdir(cwd) != 0;
        if (!bad)
            clg_rt_guard_runtime_caches();
        const char *v = getenv(var);
        char msg[PATH_MAX + 16];
        int n = snprintf(msg, sizeof msg, "%s",
                         bad ? "(setup failed)"
                         : v ? v
                             : "(unset)");
        _exit(write(fds[1], msg, (size_t)n) == n ? 0 : 1);
    }
    close(fds[1]);
    ssize_t n = read(fds[0], out, cap - 1);
    close(fds[0]);
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    assert_true(n > 0);
    out[n] = '\0';
}

/* POCL_CACHE_DIR after the guard, as above. */
static void guarded(const char *pocl, const char *xdg, const char *home,
                    const char *cwd, char *out, size_t cap)
{
    guarded_var("POCL_CACHE_DIR", pocl, xdg, home, cwd, out, cap);
}

static char *path_in(const char *name)
{
    static char buf[4][PATH_MAX];
    static int k;
    char *p = buf[k++ % 4];
    snprintf(p, PATH_MAX, "%s/%s", top, name);
    return p;
}

/* A folder of the user's, given as is: left as the user set it. */
static void test_own_folder_kept(void **state)
{
    char got[PATH_MAX];
    (void)state;
    char *own = path_in("own");
    assert_int_equal(mkdir(own, 0700), 0);
    guarded(own, NULL, top, "/", got, sizeof got);
    assert_string_equal(got, own);
    /* Not there yet, in a folder of the user's: kept too. */
    char *later = path_in("own/not-yet");
    guarded(later, NULL, top, "/", got, sizeof got);
    assert_string_equal(got, later);
    /* Unset, under HOME: still unset. */
    guarded(NULL, NULL, top, "/", got, sizeof got);
    assert_string_equal(got, "(unset)");
}

/* A sticky folder anyone may write (as /tmp) is no cache folder, nor one
 * the implementation would create in it: both replaced by a folder of the
 * user's own. */
static void test_sticky_folder_replaced(void **state)
{
    char got[PATH_MAX];
    (void)state;
    char *sticky = path_in("sticky");
    assert_int_equal(mkdir(sticky, 0700), 0);
    assert_int_equal(chmod(sticky, 01777), 0);
    guarded(sticky, NULL, top, "/", got, sizeof got);
    assert_string_not_equal(got, sticky);
    assert_true(clg_rt_trusted_folder(got));
    char *inside = path_in("sticky/pocl");
    guarded(inside, NULL, top, "/", got, sizeof got);
    assert_string_not_equal(got, inside);
    assert_true(strncmp(got, sticky, strlen(sticky)) != 0);
    /* The program cache checks its folder again once it made it, so it
     * may make one there (host/cache.c). */
    assert_true(clg_rt_trusted_folder(inside));
    /* Under HOME, where HOME is that sticky folder. */
    guarded(NULL, NULL, sticky, "/", got, sizeof got);
    assert_true(strncmp(got, sticky, strlen(sticky)) != 0);
    assert_true(clg_rt_trusted_folder(got));
    /* A folder of the user's inside a sticky one is fine. */
    char *mine = path_in("sticky/mine");
    assert_int_equal(mkdir(mine, 0700), 0);
    guarded(mine, NULL, top, "/", got, sizeof got);
    assert_string_equal(got, mine);
}

/* A folder named through a link, and a relative one (XDG_CACHE_HOME or
 * the variable itself), is pinned to the absolute folder checked: the
 * link cannot be turned elsewhere afterwards. */
static void test_link_and_relative_pinned(void **state)
{
    char got[PATH_MAX], want[PATH_MAX];
    (void)state;
    char *real = path_in("real");
    char *link = path_in("link");
    assert_int_equal(mkdir(real, 0700), 0);
    assert_int_equal(symlink(real, link), 0);
    guarded(link, NULL, top, "/", got, sizeof got);
    assert_string_equal(got, real);
    snprintf(want, sizeof want, "%s/pocl", real);
    guarded(NULL, "link", top, top, got, sizeof got);
    assert_string_equal(got, want);
    guarded("real", NULL, top, top, got, sizeof got);
    assert_string_equal(got, real);
}

/* Mesa appends mesa_shader_cache to MESA_SHADER_CACHE_DIR as to
 * XDG_CACHE_HOME and HOME/.cache: the folder checked is the one inside,
 * and the variable, where the guard sets it, names the folder above, so
 * that Mesa's folder is never nested in one of the same name. */
static void test_mesa_names_the_base(void **state)
{
    char got[PATH_MAX], inside[PATH_MAX + 32];
    const char *var = "MESA_SHADER_CACHE_DIR";
    (void)state;
    char *base = path_in("mesa");
    char *link = path_in("mesa-link");
    assert_int_equal(mkdir(base, 0700), 0);
    assert_int_equal(symlink(base, link), 0);
    guarded_var(var, base, NULL, top, "/", got, sizeof got);
    assert_string_equal(got, base);
    guarded_var(var, link, NULL, top, "/", got, sizeof got);
    assert_string_equal(got, base);
    guarded_var(var, NULL, "mesa-link", top, top, got, sizeof got);
    assert_string_equal(got, base);
    guarded_var(var, NULL, NULL, top, "/", got, sizeof got);
    assert_string_equal(got, "(unset)");
    /* A base anyone may write: replaced by a base whose
     * mesa_shader_cache the user controls, not by that folder itself. */
    char *sticky = path_in("mesa-sticky");
    assert_int_equal(mkdir(sticky, 0700), 0);
    assert_int_equal(chmod(sticky, 01777), 0);
    guarded_var(var, sticky, NULL, top, "/", got, sizeof got);
    assert_true(strncmp(got, sticky, strlen(sticky)) != 0);
    size_t len = strlen(got), name = strlen("/mesa_shader_cache");
    assert_true(len < name || strcmp(got + len - name, "/mesa_shader_cache"));
    snprintf(inside, sizeof inside, "%s/mesa_shader_cache", got);
    assert_true(clg_rt_trusted_folder(inside));
}

/* Mesa's other settings: MESA_GLSL_CACHE_DIR, read where
 * MESA_SHADER_CACHE_DIR is unset, is checked the same way (and overridden
 * through MESA_SHADER_CACHE_DIR); the single-file and database caches'
 * folders beside mesa_shader_cache are checked too; a relative
 * XDG_CACHE_HOME is pinned like a relative variable. */
static void test_mesa_other_settings(void **state)
{
    char got[PATH_MAX], inside[PATH_MAX + 32];
    const char *var = "MESA_SHADER_CACHE_DIR";
    (void)state;
    char *sticky = path_in("glsl-sticky");
    assert_int_equal(mkdir(sticky, 0700), 0);
    assert_int_equal(chmod(sticky, 01777), 0);
    assert_int_equal(setenv("MESA_GLSL_CACHE_DIR", sticky, 1), 0);
    guarded_var(var, NULL, NULL, top, "/", got, sizeof got);
    assert_true(strcmp(got, "(unset)") != 0);
    assert_true(strncmp(got, sticky, strlen(sticky)) != 0);
    snprintf(inside, sizeof inside, "%s/mesa_shader_cache", got);
    assert_true(clg_rt_trusted_folder(inside));
    /* A base of the user's, named through the older variable: kept. */
    char *base = path_in("glsl-own");
    assert_int_equal(mkdir(base, 0700), 0);
    assert_int_equal(setenv("MESA_GLSL_CACHE_DIR", base, 1), 0);
    guarded_var(var, NULL, NULL, top, "/", got, sizeof got);
    assert_string_equal(got, "(unset)");
    assert_int_equal(unsetenv("MESA_GLSL_CACHE_DIR"), 0);
    /* Its single-file cache's folder writable by others: replaced. */
    snprintf(inside, sizeof inside, "%s/mesa_shader_cache_sf", base);
    assert_int_equal(mkdir(inside, 0700), 0);
    assert_int_equal(chmod(inside, 0777), 0);
    guarded_var(var, base, NULL, top, "/", got, sizeof got);
    assert_true(strncmp(got, base, strlen(base)) != 0);
    snprintf(inside, sizeof inside, "%s/mesa_shader_cache_sf", got);
    assert_true(clg_rt_trusted_folder(inside));
    /* A relative XDG_CACHE_HOME: pinned to the absolute folder. */
    char *rel = path_in("xdg-rel");
    assert_int_equal(mkdir(rel, 0700), 0);
    guarded_var(var, NULL, "xdg-rel", top, top, got, sizeof got);
    assert_string_equal(got, rel);
}

static int setup(void **state)
{
    (void)state;
    const char *tmp = getenv("TMPDIR");
    snprintf(top, sizeof top, "%s/clg-rtcache-XXXXXX",
             tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(top))
        return -1;
    char real[PATH_MAX];
    if (!realpath(top, real) || strlen(real) >= sizeof top)
        return -1;
    memcpy(top, real, strlen(real) + 1);
    return 0;
}

static int teardown(void **state)
{
    char cmd[PATH_MAX + 16];
    (void)state;
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", top);
    return system(cmd) == 0 ? 0 : -1;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_own_folder_kept),
        cmocka_unit_test(test_sticky_folder_replaced),
        cmocka_unit_test(test_link_and_relative_pinned),
        cmocka_unit_test(test_mesa_names_the_base),
        cmocka_unit_test(test_mesa_other_settings),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
