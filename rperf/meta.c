/*
 * rperf/meta.c — the profile's meta from the command line and git. See
 * meta.h.
 */
#include "meta.h"

#include <fcntl.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../common/json_writer.h"

extern char **environ;

/* `git ARGS...` in the working directory: its output (the last newline
 * cut) into out[], its errors dropped. false when git is not there or
 * failed (not a repository). */
static bool git(char *out, size_t size, const char *const *args)
{
    const char *argv[12] = {"git"};
    int n = 1;
    for (; args[n - 1] && n < 11; n++)
        argv[n] = args[n - 1];
    argv[n] = NULL;
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0)
        return false;
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, fds[1], STDOUT_FILENO);
    posix_spawn_file_actions_addopen(&fa, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
    pid_t pid;
    int rc = posix_spawnp(&pid, "git", &fa, NULL, (char *const *)argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    close(fds[1]);
    size_t len = 0;
    ssize_t got;
    char rest[512];
    while (rc == 0 && ((got = read(fds[0], len < size - 1 ? out + len : rest,
                                   len < size - 1 ? size - 1 - len : sizeof(rest))) > 0))
        if (len < size - 1)
            len += (size_t)got;
    close(fds[0]);
    out[len] = '\0';
    while (len > 0 && out[len - 1] == '\n')
        out[--len] = '\0';
    int status = 0;
    return rc == 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

static bool is_hex_sha(const char *s)
{
    size_t n = strspn(s, "0123456789abcdefABCDEF");
    return n >= 7 && n <= 64 && s[n] == '\0';
}

struct object_fill {
    void (*fill)(rp_json *j, const void *ctx);
    const void *ctx;
};

static bool write_object(rp_json *j, const void *ctx)
{
    const struct object_fill *f = ctx;
    rp_json_begin_object(j);
    f->fill(j, f->ctx);
    rp_json_end_object(j);
    return true;
}

/* A JSON object of the members written by `fill`, as malloc'd text. */
static char *json_object(void (*fill)(rp_json *j, const void *ctx), const void *ctx)
{
    struct object_fill f = {fill, ctx};
    return rp_json_to_text(write_object, &f);
}

struct commit {
    char sha[128], branch[256], subject[1024], committed_at[64];
    int dirty; /* -1: not known */
};

static void member_if(rp_json *j, const char *key, const char *value)
{
    if (*value)
        rp_json_member_cstring(j, key, value);
}

static void fill_commit(rp_json *j, const void *ctx)
{
    const struct commit *c = ctx;
    rp_json_member_cstring(j, "sha", c->sha);
    member_if(j, "branch", c->branch);
    member_if(j, "subject", c->subject);
    member_if(j, "committed_at", c->committed_at);
    if (c->dirty >= 0) {
        rp_json_key(j, "dirty");
        rp_json_bool(j, c->dirty);
    }
}

/* GitHub Actions: the commit it checked out (a detached or shallow
 * checkout says less), enriched from git where it can. */
static bool from_github(struct commit *c)
{
    const char *sha = getenv("GITHUB_SHA"), *head = getenv("GITHUB_HEAD_REF"), *ref = getenv("GITHUB_REF_NAME");
    if (!sha || !is_hex_sha(sha))
        return false;
    snprintf(c->sha, sizeof(c->sha), "%s", sha);
    snprintf(c->branch, sizeof(c->branch), "%s", head && *head ? head : ref ? ref : "");
    c->dirty = 0;
    git(c->subject, sizeof(c->subject), (const char *[]){"log", "-1", "--format=%s", sha, NULL});
    git(c->committed_at, sizeof(c->committed_at), (const char *[]){"log", "-1", "--format=%cI", sha, NULL});
    return true;
}

char *rperf_meta_git(void)
{
    struct commit c = {.dirty = -1};
    if (!from_github(&c)) {
        if (!git(c.sha, sizeof(c.sha), (const char *[]){"rev-parse", "HEAD", NULL}) || !is_hex_sha(c.sha))
            return strdup("null");
        if (git(c.branch, sizeof(c.branch), (const char *[]){"rev-parse", "--abbrev-ref", "HEAD", NULL}) &&
            strcmp(c.branch, "HEAD") == 0)
            c.branch[0] = '\0'; /* detached */
        git(c.subject, sizeof(c.subject), (const char *[]){"log", "-1", "--format=%s", NULL});
        git(c.committed_at, sizeof(c.committed_at), (const char *[]){"log", "-1", "--format=%cI", NULL});
        char status[2];
        if (git(status, sizeof(status), (const char *[]){"status", "--porcelain", NULL}))
            c.dirty = status[0] != '\0';
    }
    return json_object(fill_commit, &c);
}

struct labels {
    const char *const *words;
    int count;
};

static void fill_labels(rp_json *j, const void *ctx)
{
    const struct labels *l = ctx;
    /* a key given again keeps its first place and takes its last value,
     * as a Ruby Hash does */
    for (int i = 0; i < l->count; i++) {
        size_t key = strcspn(l->words[i], "=");
        bool earlier = false;
        int last = i;
        for (int k = 0; k < l->count; k++)
            if (k != i && strcspn(l->words[k], "=") == key && strncmp(l->words[k], l->words[i], key) == 0) {
                earlier = earlier || k < i;
                last = k > last ? k : last;
            }
        char *name = earlier ? NULL : strndup(l->words[i], key);
        if (!name)
            continue;
        rp_json_member_cstring(j, name, l->words[last] + key + 1);
        free(name);
    }
}

char *rperf_meta_labels(const char *const *labels, int count)
{
    struct labels l = {labels, count};
    return json_object(fill_labels, &l);
}

void rperf_meta_snapshot_name(const char *git, long pid, char *name, size_t size)
{
    char when[32];
    time_t now = time(NULL);
    struct tm tm;
    strftime(when, sizeof(when), "%Y%m%dT%H%M%SZ", gmtime_r(&now, &tm));
    const char *sha = git ? strstr(git, "\"sha\":\"") : NULL;
    if (sha)
        snprintf(name, size, "rperf-%.7s-%s.json.gz", sha + 7, when);
    else
        snprintf(name, size, "rperf-nogit-%s-%ld.json.gz", when, pid);
}
