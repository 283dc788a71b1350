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
#include <sys/stat.h>
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
        else if (whole && sscanf(line, "State:\t%c", &t->state) == 1)
            continue;
        else if (whole && sscanf(line, "Seccomp:\t%d", &t->seccomp) == 1)
            continue;
        else if (sscanf(line, "TracerPid:\t%lu", &v) == 1 && !t->tracer)
            t->tracer = (pid_t)v;
    }
    fclose(f);
    return true;
}

/* Field 22 of /proc/PID/stat: when the process started, in clock ticks
 * since boot (with the pid, a name no later process has). */
static unsigned long long read_start_time(pid_t pid)
{
    char path[64], text[1024];
    snprintf(path, sizeof(path), "/proc/%ld/stat", (long)pid);
    FILE *f = fopen(path, "re");
    if (!f)
        return 0;
    size_t n = fread(text, 1, sizeof(text) - 1, f);
    fclose(f);
    text[n] = '\0';
    const char *after_name = strrchr(text, ')'); /* the name may hold spaces and parentheses */
    unsigned long long start = 0;
    if (after_name)
        sscanf(after_name + 2, "%*c %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %llu",
               &start);
    return start;
}

bool rp_target_read(pid_t pid, rp_target *t)
{
    char path[96];
    memset(t, 0, sizeof(*t));
    t->pid = pid;
    snprintf(path, sizeof(path), "/proc/%ld/status", (long)pid);
    if (!read_status(path, t, true))
        return false;
    t->start_time = read_start_time(pid);
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

bool rp_target_same_namespace(pid_t pid, const char *kind)
{
    char ours[64], theirs[64], path[64];
    snprintf(path, sizeof(path), "/proc/self/ns/%s", kind);
    ssize_t a = readlink(path, ours, sizeof(ours));
    snprintf(path, sizeof(path), "/proc/%ld/ns/%s", (long)pid, kind);
    ssize_t b = readlink(path, theirs, sizeof(theirs));
    return a > 0 && a == b && memcmp(ours, theirs, (size_t)a) == 0;
}

/* One line of /proc/PID/maps. */
typedef struct map_line {
    uint64_t start, end, offset;
    unsigned long inode;
    const char *path; /* "" for anonymous memory */
} map_line;

static bool parse_map_line(char *line, map_line *m)
{
    int path_at = 0;
    if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %*s %" SCNx64 " %*s %lu %n", &m->start, &m->end, &m->offset,
               &m->inode, &path_at) < 4)
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

/* The C library: libc.so.6 (glibc), libc-2.x.so (older glibc), libc.so
 * (musl), at its start (offset 0). */
static bool is_libc(const map_line *m, const void *arg)
{
    (void)arg;
    const char *slash = strrchr(m->path, '/');
    if (!slash || !m->inode || m->offset != 0)
        return false;
    const char *name = slash + 1;
    return strncmp(name, "libc.so", 7) == 0 || (strncmp(name, "libc-", 5) == 0 && strstr(name, ".so"));
}

bool rp_target_find_libc(pid_t pid, rp_mapped *libc, char *file, size_t size)
{
    if (!find_mapping(pid, is_libc, NULL, libc))
        return false;
    /* Its file as the process sees it (its own root: a container's
     * libc is not ours), checked to be the file mapped by its inode (the
     * device a mapping shows is not always the file's own on overlay and
     * btrfs; the caller compares code bytes besides). */
    int n = snprintf(file, size, "/proc/%ld/root%s", (long)pid, libc->path);
    struct stat st;
    return n > 0 && (size_t)n < size && stat(file, &st) == 0 && st.st_ino == libc->inode;
}

int rp_target_code_ranges(pid_t pid, rp_code_range *out, int max)
{
    char path[64], line[PATH_MAX + 128];
    snprintf(path, sizeof(path), "/proc/%ld/maps", (long)pid);
    FILE *f = fopen(path, "re");
    if (!f)
        return 0;
    int n = 0;
    map_line m;
    char perms[8];
    while (n < max && fgets(line, sizeof(line), f))
        if (sscanf(line, "%*s %7s", perms) == 1 && perms[2] == 'x' && parse_map_line(line, &m))
            out[n++] = (rp_code_range){m.start, m.end, m.inode};
    fclose(f);
    return n;
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

bool rp_target_thread_syscall(pid_t pid, pid_t tid, long *nr, uint64_t *sp)
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
    /* "NR ARG0 .. ARG5 SP PC" while in a system call */
    unsigned long long args[6], stack, pc;
    return sscanf(text, "%ld %llx %llx %llx %llx %llx %llx %llx %llx", nr, &args[0], &args[1], &args[2], &args[3],
                  &args[4], &args[5], &stack, &pc) == 9 &&
           (*sp = stack, true);
}

/* Whether thread `tid` of `pid` is in one of the epoll_wait calls now. */
static bool in_epoll_wait(pid_t pid, pid_t tid)
{
    long nr;
    uint64_t sp;
    return rp_target_thread_syscall(pid, tid, &nr, &sp) &&
           (nr == SYS_epoll_wait || nr == SYS_epoll_pwait || nr == SYS_epoll_pwait2);
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
