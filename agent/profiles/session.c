/*
 * agent/profiles/session.c — session directory. See session.h.
 *
 * Context: main thread, at start and at exit (GVL held); plain syscalls.
 */
#include "session.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../profile/schema.h"
#include "../base/child_env.h"
#include "../base/log.h"

/* Returns NULL when `path` is a safe session directory, else why not. */
static const char *unsafe_reason(const char *path)
{
    struct stat st;
    if (lstat(path, &st) != 0)
        return strerror(errno);
    if (S_ISLNK(st.st_mode))
        return "it is a symbolic link";
    if (!S_ISDIR(st.st_mode))
        return "it is not a directory";
    if (st.st_uid != geteuid())
        return "it is owned by another user";
    if (st.st_mode & (S_IWGRP | S_IWOTH))
        return "it is writable by group or others";
    if (access(path, W_OK | X_OK) != 0)
        return strerror(errno);
    return NULL;
}

static int refuse(const char *path, const char *reason)
{
    rp_log("cannot use session directory %s: %s; running without profiling", path, reason);
    return -1;
}

/* Decides where the session lives; `display` keeps the user's spelling. */
static int choose_directory(rp_session *s, char *path, size_t size)
{
    const char *env = getenv(RP_SESSION_DIR_VAR);
    int n;
    if (env && *env) {
        n = snprintf(path, size, "%s", env);
        snprintf(s->display, sizeof(s->display), "%s", env);
    } else {
        n = snprintf(path, size, "rperf-%ld", (long)getpid());
        snprintf(s->display, sizeof(s->display), "./rperf-%ld/", (long)getpid());
    }
    if (n < 0 || (size_t)n >= size) {
        rp_log("RPERF_SESSION_DIR is too long (more than %zu bytes); running without profiling",
               size - 1);
        return -1;
    }
    return 0;
}

int rp_session_open(rp_session *s)
{
    char path[RP_PATH_MAX];
    memset(s, 0, sizeof(*s));
    /* A process started by a profiled one writes where its root writes,
     * whatever its own working directory. */
    if (rp_child_env_take_session(&s->root_pid, path, sizeof(path))) {
        snprintf(s->display, sizeof(s->display), "%s", path);
    } else {
        s->root_pid = (long)getpid();
        if (choose_directory(s, path, sizeof(path)) != 0)
            return -1;
    }
    /* An exec keeps the pid: the root's new image is still the root. */
    s->is_root = s->root_pid == (long)getpid();
    if (mkdir(path, 0700) != 0 && errno != EEXIST)
        return refuse(path, strerror(errno));
    const char *reason = unsafe_reason(path);
    if (reason)
        return refuse(path, reason);
    if (!realpath(path, s->dir))
        return refuse(path, strerror(errno));
    return 0;
}

const char *rp_session_use(rp_session *s, const char *dir)
{
    const char *reason = unsafe_reason(dir);
    if (reason)
        return reason;
    memset(s, 0, sizeof(*s));
    if (!realpath(dir, s->dir))
        return strerror(errno);
    snprintf(s->display, sizeof(s->display), "%s", s->dir);
    s->is_root = true;
    s->root_pid = (long)getpid();
    return NULL;
}

const char *rp_session_unsafe(const rp_session *s)
{
    return unsafe_reason(s->dir);
}

int rp_session_profile_path(const rp_session *s, pid_t pid, int64_t start_ns, char *buf,
                            size_t size)
{
    int n = snprintf(buf, size, "%s/" RP_PROFILE_PREFIX "%ld-%" PRId64 RP_PROFILE_SUFFIX, s->dir,
                     (long)pid, start_ns);
    return n < 0 || (size_t)n >= size ? -1 : 0;
}

static bool is_profile_name(const char *name)
{
    size_t len = strlen(name), pre = strlen(RP_PROFILE_PREFIX), suf = strlen(RP_PROFILE_SUFFIX);
    return len > pre + suf && strncmp(name, RP_PROFILE_PREFIX, pre) == 0 &&
           strcmp(name + len - suf, RP_PROFILE_SUFFIX) == 0;
}

int rp_session_count_profiles(const rp_session *s)
{
    DIR *d = opendir(s->dir);
    if (!d)
        return 0;
    int count = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        if (is_profile_name(e->d_name))
            count++;
    closedir(d);
    return count;
}
