/*
 * attach/proc_target.c — reading /proc/PID. See proc_target.h.
 */
#include "proc_target.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Reads one status file into *t (its tracer only when t has none yet). */
static bool read_status(const char *path, rp_target *t, bool whole)
{
    char line[256];
    FILE *f = fopen(path, "re");
    if (!f)
        return false;
    while (fgets(line, sizeof(line), f)) {
        unsigned long v;
        if (whole && sscanf(line, "Name:\t%63[^\n]", t->name) == 1)
            continue;
        if (whole && sscanf(line, "Uid:\t%lu", &v) == 1)
            t->uid = (uid_t)v;
        else if (sscanf(line, "TracerPid:\t%lu", &v) == 1 && !t->tracer)
            t->tracer = (pid_t)v;
    }
    fclose(f);
    return true;
}

bool rp_target_read(pid_t pid, rp_target *t)
{
    char path[96];
    memset(t, 0, sizeof(*t));
    t->pid = pid;
    snprintf(path, sizeof(path), "/proc/%ld/status", (long)pid);
    if (!read_status(path, t, true))
        return false;
    /* A tracer holds threads, not processes: any thread's counts. */
    snprintf(path, sizeof(path), "/proc/%ld/task", (long)pid);
    DIR *d = opendir(path);
    struct dirent *e;
    while (d && !t->tracer && (e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        snprintf(path, sizeof(path), "/proc/%ld/task/%.20s/status", (long)pid, e->d_name);
        read_status(path, t, false);
    }
    if (d)
        closedir(d);
    return true;
}

/* One line of /proc/PID/maps. */
typedef struct map_line {
    uint64_t start, end;
    unsigned long inode;
    const char *path; /* "" for anonymous memory */
} map_line;

static bool parse_map_line(char *line, map_line *m)
{
    int path_at = 0;
    if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %*s %*s %*s %lu %n", &m->start, &m->end, &m->inode,
               &path_at) < 3)
        return false;
    line[strcspn(line, "\n")] = '\0';
    m->path = path_at ? line + path_at : "";
    return true;
}

typedef bool (*map_matcher)(const map_line *m, const void *arg);

/* The first mapping `match` accepts, into *out. */
static bool find_mapping(pid_t pid, map_matcher match, const void *arg, rp_mapped *out)
{
    char path[64], line[PATH_MAX + 128];
    snprintf(path, sizeof(path), "/proc/%ld/maps", (long)pid);
    FILE *f = fopen(path, "re");
    if (!f)
        return false;
    bool found = false;
    map_line m;
    while (!found && fgets(line, sizeof(line), f))
        if (parse_map_line(line, &m) && match(&m, arg)) {
            out->start = m.start;
            out->inode = m.inode;
            snprintf(out->path, sizeof(out->path), "%s", m.path);
            found = true;
        }
    fclose(f);
    return found;
}

typedef struct name_match {
    const char *name;
    bool prefix;
} name_match;

static bool matches_name(const map_line *m, const void *arg)
{
    const name_match *nm = arg;
    const char *slash = strrchr(m->path, '/');
    if (!slash || !m->inode)
        return false;
    return nm->prefix ? strncmp(slash + 1, nm->name, strlen(nm->name)) == 0 : strcmp(slash + 1, nm->name) == 0;
}

bool rp_target_find_mapped(pid_t pid, const char *name, bool prefix, rp_mapped *out)
{
    name_match nm = {name, prefix};
    return find_mapping(pid, matches_name, &nm, out);
}

typedef struct file_match {
    const char *path;
    unsigned long inode;
} file_match;

/* The same inode under the same file name: /lib and /usr/lib are one
 * folder on a merged-/usr system, and either may be the name shown. */
static bool matches_file(const map_line *m, const void *arg)
{
    const file_match *fm = arg;
    const char *a = strrchr(m->path, '/'), *b = strrchr(fm->path, '/');
    return m->inode == fm->inode && a && b && strcmp(a, b) == 0;
}

bool rp_target_find_same_file(pid_t pid, const char *path, unsigned long inode, rp_mapped *out)
{
    file_match fm = {path, inode};
    return find_mapping(pid, matches_file, &fm, out);
}

static bool holds(const map_line *m, const void *arg)
{
    uint64_t addr = *(const uint64_t *)arg;
    return addr >= m->start && addr < m->end;
}

bool rp_target_mapping_of(pid_t pid, uint64_t addr, uint64_t *low)
{
    rp_mapped out;
    if (!find_mapping(pid, holds, &addr, &out))
        return false;
    *low = out.start;
    return true;
}

bool rp_target_read_memory(pid_t pid, uint64_t addr, void *buf, size_t n)
{
    char path[64];
    snprintf(path, sizeof(path), "/proc/%ld/mem", (long)pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    ssize_t got = pread(fd, buf, n, (off_t)addr);
    int err = errno;
    close(fd);
    errno = got < 0 ? err : EIO;
    return got == (ssize_t)n;
}

bool rp_target_thread_takes_segv(pid_t pid, pid_t tid)
{
    char path[96], line[256];
    snprintf(path, sizeof(path), "/proc/%ld/task/%ld/status", (long)pid, (long)tid);
    FILE *f = fopen(path, "re");
    if (!f)
        return false;
    unsigned long long blocked = ~0ULL, ignored = ~0ULL, mask;
    while (fgets(line, sizeof(line), f)) {
        if (sscanf(line, "SigBlk:\t%llx", &mask) == 1)
            blocked = mask;
        else if (sscanf(line, "SigIgn:\t%llx", &mask) == 1)
            ignored = mask;
    }
    fclose(f);
    unsigned long long segv = 1ULL << (SIGSEGV - 1);
    return !(blocked & segv) && !(ignored & segv);
}

/* Whether thread `tid` of `pid` is in one of the epoll_wait calls now. */
static bool in_epoll_wait(pid_t pid, pid_t tid)
{
    char path[96], text[256];
    snprintf(path, sizeof(path), "/proc/%ld/task/%ld/syscall", (long)pid, (long)tid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    ssize_t n = read(fd, text, sizeof(text) - 1);
    close(fd);
    if (n <= 0)
        return false;
    text[n] = '\0';
    char *end;
    long nr = strtol(text, &end, 10);
    return end != text && (nr == SYS_epoll_wait || nr == SYS_epoll_pwait || nr == SYS_epoll_pwait2);
}

static int compare_tids(const void *a, const void *b)
{
    pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;
    return (x > y) - (x < y);
}

int rp_target_epoll_threads(pid_t pid, pid_t *tids, int max)
{
    char path[64];
    snprintf(path, sizeof(path), "/proc/%ld/task", (long)pid);
    DIR *d = opendir(path);
    if (!d)
        return 0;
    int count = 0;
    struct dirent *e;
    while (count < max && (e = readdir(d)) != NULL) {
        pid_t tid = (pid_t)strtol(e->d_name, NULL, 10);
        if (tid > 0 && tid != pid && in_epoll_wait(pid, tid))
            tids[count++] = tid;
    }
    closedir(d);
    qsort(tids, (size_t)count, sizeof(*tids), compare_tids);
    return count;
}
