/*
 * rperf/remote.c — commands to the agent inside a running process. See
 * remote.h.
 */
#include "remote.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

bool rperf_exists(const char *path)
{
    return access(path, F_OK) == 0;
}

int rperf_check_recording(const rperf_recording *r, rperf_usage_fn *usage)
{
    const char *f = r->frequency;
    if (!rperf_all_digits(f) || strlen(f) > 9 || atol(f) < 1 || atol(f) > 10000)
        return rperf_usage_error(usage, "invalid argument: --frequency %s (1..10000)", f);
    if (strcmp(r->mode, "cpu") != 0 && strcmp(r->mode, "wall") != 0)
        return rperf_usage_error(usage, "invalid argument: --mode %s", r->mode);
    if (r->alloc && !(rperf_all_digits(r->alloc) && strlen(r->alloc) < 10 && atol(r->alloc) >= 1 &&
                      atol(r->alloc) <= 100000000))
        return rperf_usage_error(usage, "--alloc must be a positive integer N (one allocation in N sampled), got '%s'",
                                 r->alloc);
    return 0;
}

pid_t rperf_check_pid(const char *arg, rperf_usage_fn *usage)
{
    if (!arg || !*arg)
        return rperf_usage_error(usage, "No process id given."), -1;
    if (!rperf_all_digits(arg) || strlen(arg) > 9)
        return rperf_usage_error(usage, "invalid process id: %s", arg), -1;
    char proc[32];
    snprintf(proc, sizeof(proc), "/proc/%s", arg);
    if (!rperf_exists(proc)) {
        fprintf(stderr, "rperf: no process %s\n", arg);
        return -1;
    }
    return (pid_t)atol(arg);
}

/* A number of /proc/PID/status: the line "KEY %ld" (`key`: "Uid:",
 * "PPid:"), or -1. */
static long status_field(long pid, const char *key)
{
    char path[32], line[256], format[32];
    snprintf(path, sizeof(path), "/proc/%ld/status", pid);
    snprintf(format, sizeof(format), "%s %%ld", key);
    FILE *f = fopen(path, "re");
    long value = -1;
    while (f && fgets(line, sizeof(line), f))
        if (sscanf(line, format, &value) == 1)
            break;
    if (f)
        fclose(f);
    return value;
}

int rperf_process_dir(pid_t pid, char dir[PATH_MAX])
{
    if (rperf_temp_dir("rperf-attach", dir) != 0)
        return -1;
    long uid = status_field((long)pid, "Uid:");
    if (uid > 0 && getuid() == 0 && chown(dir, (uid_t)uid, (gid_t)-1) != 0) {
        fprintf(stderr, "rperf: cannot give %s to uid %ld: %s\n", dir, uid, strerror(errno));
        rperf_remove_tree(dir);
        return -1;
    }
    return 0;
}

int rperf_remote(const rperf_tools *t, const rperf_recording *r, pid_t pid, int wait_s, const char *verb,
                 const char *reply_dir, const char *const *lines, char *answer, size_t size)
{
    struct utsname u;
    if (!t->attach[0] && uname(&u) == 0 && strcmp(u.machine, "x86_64") != 0) {
        fprintf(stderr, "rperf: attach, detach and ctl work on x86-64 Linux only (this is %s)\n", u.machine);
        return 1;
    }
    if (!t->attach[0]) {
        fprintf(stderr, "rperf: cannot find rperf-attach (set RPERF_ATTACH)\n");
        return 1;
    }
    char command[8192];
    int n = snprintf(command, sizeof(command), "%s\n", verb);
    for (; lines && *lines && n < (int)sizeof(command); lines++)
        n += snprintf(command + n, sizeof(command) - (size_t)n, "%s\n", *lines);
    if (n < (int)sizeof(command))
        n += snprintf(command + n, sizeof(command) - (size_t)n, "reply=%s/.reply-%s-%ld", reply_dir, verb,
                      (long)getpid());
    if (n >= (int)sizeof(command)) {
        fprintf(stderr, "rperf: the command to process %ld is too long\n", (long)pid);
        return 1;
    }
    char wait[16], target[16], ignored[256];
    snprintf(wait, sizeof(wait), "%d", wait_s);
    snprintf(target, sizeof(target), "%ld", (long)pid);
    char *argv[8];
    int a = 0;
    argv[a++] = (char *)t->attach;
    if (r && r->verbose)
        argv[a++] = "-v";
    argv[a++] = "--wait";
    argv[a++] = wait;
    argv[a++] = target;
    argv[a++] = (char *)t->agent;
    argv[a++] = command;
    argv[a] = NULL;
    int rc = rperf_run_capture(argv, RPERF_OWN_GROUP, answer ? answer : ignored, answer ? size : sizeof(ignored));
    return rc == 0 ? 0 : 1;
}

/* `verb` to the agent in `pid`, its answer into answer[]; the reply
 * directory made and removed. Returns 0 or 1. */
int rperf_ask(const rperf_tools *t, const rperf_recording *r, pid_t pid, int wait_s, const char *verb, char *answer,
              size_t size)
{
    char reply_dir[PATH_MAX];
    if (rperf_process_dir(pid, reply_dir) != 0)
        return 1;
    int rc = rperf_remote(t, r, pid, wait_s, verb, reply_dir, NULL, answer, size);
    rperf_remove_tree(reply_dir);
    return rc;
}

int rperf_start_lines(const rperf_recording *r, const char *dir, rperf_start_text *text, const char *lines[])
{
    int n = 0;
    snprintf(text->line[n], sizeof(text->line[n]), "dir=%s", dir);
    lines[n] = text->line[n];
    n++;
    snprintf(text->line[n], sizeof(text->line[n]), "mode=%s", r->mode);
    lines[n] = text->line[n];
    n++;
    snprintf(text->line[n], sizeof(text->line[n]), "frequency=%s", r->frequency);
    lines[n] = text->line[n];
    n++;
    if (r->alloc) {
        snprintf(text->line[n], sizeof(text->line[n]), "alloc=%s", r->alloc);
        lines[n] = text->line[n];
        n++;
    }
    return n;
}

int rperf_write_output(const rperf_recording *r, const char *session)
{
    char pattern[PATH_MAX + 16];
    snprintf(pattern, sizeof(pattern), "%s/*.json.gz", session);
    glob_t g;
    bool any = glob(pattern, 0, NULL, &g) == 0 && g.gl_pathc > 0;
    globfree(&g);
    if (!any) {
        fprintf(stderr, "rperf: no profile was written\n");
        return 1;
    }
    const char *args[] = {"convert", "-o", r->output, r->format ? "--format" : session,
                          r->format ? r->format : NULL, r->format ? session : NULL, NULL};
    if (rperf_analyze(false, args) != 0)
        return 1;
    fprintf(stderr, "rperf: profile written to %s\n", r->output);
    return 0;
}

void rperf_show_agent_log(const char *session)
{
    char path[PATH_MAX + 16], buf[4096];
    snprintf(path, sizeof(path), "%s/agent.log", session);
    FILE *f = fopen(path, "re");
    size_t n;
    while (f && (n = fread(buf, 1, sizeof(buf), f)) > 0)
        fwrite(buf, 1, n, stderr);
    if (f)
        fclose(f);
}

/* --- a process's descendants -------------------------------------------------- */

struct family {
    pid_t *pid, *ppid;
    size_t count;
};

static void read_family(struct family *f)
{
    DIR *proc = opendir("/proc");
    struct dirent *e;
    size_t cap = 0;
    *f = (struct family){0};
    while (proc && (e = readdir(proc))) {
        if (!rperf_all_digits(e->d_name))
            continue;
        long ppid = status_field(atol(e->d_name), "PPid:");
        if (ppid < 0)
            continue;
        if (f->count == cap) {
            cap = cap ? cap * 2 : 256;
            pid_t *a = realloc(f->pid, cap * sizeof(*a)), *b = a ? realloc(f->ppid, cap * sizeof(*b)) : NULL;
            if (a)
                f->pid = a;
            if (!b)
                break;
            f->ppid = b;
        }
        f->pid[f->count] = (pid_t)atol(e->d_name);
        f->ppid[f->count++] = (pid_t)ppid;
    }
    if (proc)
        closedir(proc);
}

/* Whether the agent is mapped into `pid`. */
static bool has_agent(pid_t pid)
{
    char path[32], line[PATH_MAX + 128];
    snprintf(path, sizeof(path), "/proc/%ld/maps", (long)pid);
    FILE *f = fopen(path, "re");
    bool found = false;
    while (f && !found && fgets(line, sizeof(line), f))
        found = strstr(line, "librperf-agent.so") != NULL;
    if (f)
        fclose(f);
    return found;
}

static void stop_descendants(const rperf_tools *t, const rperf_recording *r, const struct family *f, pid_t parent,
                             const char *session, int depth)
{
    for (size_t i = 0; i < f->count && depth < 64; i++) {
        if (f->ppid[i] != parent)
            continue;
        if (has_agent(f->pid[i])) {
            /* a child that ended meanwhile, or never followed, is no error */
            int saved = dup(STDERR_FILENO), null = open("/dev/null", O_WRONLY | O_CLOEXEC);
            if (null >= 0) {
                dup2(null, STDERR_FILENO);
                close(null);
            }
            rperf_remote(t, r, f->pid[i], 10, "stop", session, NULL, NULL, 0);
            if (saved >= 0) {
                dup2(saved, STDERR_FILENO);
                close(saved);
            }
        }
        stop_descendants(t, r, f, f->pid[i], session, depth + 1);
    }
}

void rperf_stop_all(const rperf_tools *t, const rperf_recording *r, pid_t pid, const char *session)
{
    struct family f;
    read_family(&f);
    stop_descendants(t, r, &f, pid, session, 0);
    free(f.pid);
    free(f.ppid);
    char proc[32];
    snprintf(proc, sizeof(proc), "/proc/%ld", (long)pid);
    if (rperf_exists(proc))
        rperf_remote(t, r, pid, 30, "stop", session, NULL, NULL, 0);
}
