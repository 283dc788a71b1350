/*
 * rperf/tools.c — what the subcommands of `rperf` share. See tools.h.
 */
#include "tools.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <libgen.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../analyzer/commands.h"

static bool is_file(const char *path)
{
    struct stat st;
    return path && *path && stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* The first file among `env`'s value and `candidates` (relative to the
 * directory of this program, globbed), into out[]. */
static bool find_first(const char *env, const char *const *candidates, char out[PATH_MAX])
{
    const char *given = getenv(env);
    if (is_file(given)) {
        snprintf(out, PATH_MAX, "%s", given);
        return true;
    }
    char self[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
    if (n <= 0)
        return false;
    self[n] = '\0';
    const char *dir = dirname(self);
    for (const char *const *c = candidates; *c; c++) {
        char pattern[PATH_MAX];
        snprintf(pattern, sizeof(pattern), "%s/%s", dir, *c);
        glob_t g;
        bool found = false;
        if (glob(pattern, 0, NULL, &g) == 0)
            for (size_t i = 0; i < g.gl_pathc && !found; i++)
                if (is_file(g.gl_pathv[i]) && realpath(g.gl_pathv[i], out))
                    found = true;
        globfree(&g);
        if (found)
            return true;
    }
    return false;
}

int rperf_locate(rperf_tools *t)
{
    static const char *const agents[] = {"librperf-agent.so", "../lib/librperf-agent.so",
                                         "../lib/*/librperf-agent.so", "../agent/librperf-agent.so", NULL};
    static const char *const attaches[] = {"rperf-attach", "../attach/rperf-attach", NULL};
    if (!find_first("RPERF_AGENT", agents, t->agent)) {
        fprintf(stderr, "rperf: cannot find librperf-agent.so (set RPERF_AGENT)\n");
        return -1;
    }
    if (!find_first("RPERF_ATTACH", attaches, t->attach))
        t->attach[0] = '\0';
    return 0;
}

int rperf_preloadable(rperf_tools *t, char link_dir[PATH_MAX])
{
    link_dir[0] = '\0';
    if (!strpbrk(t->agent, " \t:"))
        return 0;
    char link[PATH_MAX];
    if (rperf_temp_dir("rperf-agent", link_dir) != 0)
        return -1;
    snprintf(link, sizeof(link), "%s/librperf-agent.so", link_dir);
    if (strpbrk(link, " \t:") || symlink(t->agent, link) != 0) {
        fprintf(stderr, "rperf: cannot preload %s (LD_PRELOAD splits paths at spaces and colons) and cannot link "
                        "it from %s: set TMPDIR to a directory whose path has neither\n",
                t->agent, link_dir);
        rperf_remove_tree(link_dir);
        link_dir[0] = '\0';
        return -1;
    }
    snprintf(t->agent, sizeof(t->agent), "%s", link);
    return 0;
}

/* --- rperf-analyze's commands, in this process ----------------------------- */

static const struct {
    const char *name;
    int (*run)(int argc, char **argv);
} analyzer_commands[] = {
    {"stat", cmd_stat}, {"report", cmd_report}, {"convert", cmd_convert}, {"diff", cmd_diff},
};

int rperf_analyze(bool to_stderr, const char *const *args)
{
    int argc = 0;
    while (args[argc])
        argc++;
    char *argv[argc + 1];
    for (int i = 0; i <= argc; i++)
        argv[i] = (char *)args[i];
    int saved = -1;
    fflush(stdout);
    if (to_stderr && (saved = dup(STDOUT_FILENO)) >= 0)
        dup2(STDERR_FILENO, STDOUT_FILENO);
    int rc = RP_EXIT_USAGE;
    for (size_t i = 0; i < sizeof(analyzer_commands) / sizeof(analyzer_commands[0]); i++)
        if (strcmp(args[0], analyzer_commands[i].name) == 0)
            rc = analyzer_commands[i].run(argc, argv);
    fflush(stdout);
    if (saved >= 0) {
        dup2(saved, STDOUT_FILENO);
        close(saved);
    }
    return rc;
}

/* --- programs ---------------------------------------------------------------- */

static int shell_status(int status)
{
    if (WIFEXITED(status))
        return WEXITSTATUS(status);
    if (WIFSIGNALED(status))
        return 128 + WTERMSIG(status);
    return 1;
}

/* The signals rperf handles itself (cmd_attach.c) or ignores while it
 * waits: the program gets them at their default action. */
static const int handled_signals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};

/* Child of fork: signals as the program should find them. */
static void reset_signals(void)
{
    for (size_t i = 0; i < sizeof(handled_signals) / sizeof(handled_signals[0]); i++) {
        struct sigaction now;
        if (sigaction(handled_signals[i], NULL, &now) == 0 && now.sa_handler != SIG_IGN)
            signal(handled_signals[i], SIG_DFL);
    }
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
}

/* Child of fork, now in a process group of its own: a signal sent to
 * rperf's group between the fork and setpgid — a Ctrl-C, or timeout(1)'s
 * kill of the whole group right after its kill of rperf — reached the
 * child too. It was meant for rperf, which got it as well (and holds it
 * while a command is in the agent's hands); here, pending under the mask
 * the child inherited, it would kill rperf-attach midway the moment the
 * mask is cleared. Ignoring a signal discards a pending one. */
static void drop_group_signals(void)
{
    for (size_t i = 0; i < sizeof(handled_signals) / sizeof(handled_signals[0]); i++) {
        struct sigaction ignore = {.sa_handler = SIG_IGN}, was;
        if (sigaction(handled_signals[i], &ignore, &was) == 0)
            sigaction(handled_signals[i], &was, NULL);
    }
}

/* Forks argv[0]; its stdout into `out_fd` when >= 0. Returns the pid, or
 * -(127 or 126) when it could not be run (said). */
static pid_t start(char *const argv[], char *const envp[], int flags, int out_fd)
{
    int report[2];
    if (pipe2(report, O_CLOEXEC) != 0) {
        fprintf(stderr, "rperf: %s: %s\n", argv[0], strerror(errno));
        return -126;
    }
    pid_t pid = fork();
    if (pid == 0) {
        if (flags & RPERF_OWN_GROUP) {
            setpgid(0, 0);
            drop_group_signals();
        }
        reset_signals();
        if (out_fd >= 0)
            dup2(out_fd, STDOUT_FILENO);
        execvpe(argv[0], argv, envp);
        int err = errno;
        (void)!write(report[1], &err, sizeof(err));
        _exit(127);
    }
    close(report[1]);
    int err = 0;
    if (pid > 0 && read(report[0], &err, sizeof(err)) == (ssize_t)sizeof(err)) {
        waitpid(pid, NULL, 0);
        fprintf(stderr, "rperf: %s: %s\n", argv[0], strerror(err));
        pid = err == ENOENT ? -127 : -126;
    } else if (pid < 0) {
        fprintf(stderr, "rperf: cannot start %s: %s\n", argv[0], strerror(errno));
        pid = -126;
    }
    close(report[0]);
    return pid;
}

static int wait_for(pid_t pid)
{
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return 1;
    return shell_status(status);
}

extern char **environ;

/* The signals passed on to the program while rperf waits for it. */
static const int forwarded_signals[] = {SIGINT, SIGQUIT, SIGTERM, SIGHUP, SIGUSR1, SIGUSR2};
static volatile sig_atomic_t forward_to; /* the program's pid while rperf waits */

/* Signal handler (rperf, waiting): a signal a process sent to rperf goes
 * on to the program. One the kernel generated (the terminal's Ctrl-C,
 * Ctrl-\ or hang-up, sent to the whole foreground group) reached the
 * program already. */
static void pass_on(int signo, siginfo_t *info, void *context)
{
    (void)context;
    int saved = errno;
    if (info->si_code != SI_KERNEL && forward_to > 0)
        kill((pid_t)forward_to, signo);
    errno = saved;
}

int rperf_run(char *const argv[], char *const envp[], int flags)
{
    pid_t pid = start(argv, envp ? envp : environ, flags, -1);
    if (pid < 0)
        return (int)-pid;
    enum { N = sizeof(forwarded_signals) / sizeof(forwarded_signals[0]) };
    struct sigaction pass = {.sa_sigaction = pass_on, .sa_flags = SA_SIGINFO | SA_RESTART}, old[N];
    if (flags & RPERF_FORWARD_SIGNALS) {
        forward_to = pid;
        for (int i = 0; i < N; i++)
            sigaction(forwarded_signals[i], &pass, &old[i]);
    }
    int status = wait_for(pid);
    if (flags & RPERF_FORWARD_SIGNALS) {
        for (int i = 0; i < N; i++)
            sigaction(forwarded_signals[i], &old[i], NULL);
        forward_to = 0;
    }
    return status;
}

int rperf_run_capture(char *const argv[], int flags, char *out, size_t size)
{
    int fds[2];
    out[0] = '\0';
    if (pipe2(fds, O_CLOEXEC) != 0)
        return -1;
    pid_t pid = start(argv, environ, flags, fds[1]);
    close(fds[1]);
    /* all of it read, what does not fit dropped: a program whose output
     * filled the pipe would never end */
    size_t n = 0;
    ssize_t got;
    char rest[512];
    while ((got = read(fds[0], n < size - 1 ? out + n : rest, n < size - 1 ? size - 1 - n : sizeof(rest))) > 0 ||
           (got < 0 && errno == EINTR))
        if (got > 0 && n < size - 1)
            n += (size_t)got;
    close(fds[0]);
    out[n] = '\0';
    out[strcspn(out, "\n")] = '\0';
    return pid < 0 ? (int)-pid : wait_for(pid);
}

/* --- files -------------------------------------------------------------------- */

int rperf_temp_dir(const char *prefix, char dir[PATH_MAX])
{
    const char *tmp = getenv("TMPDIR");
    snprintf(dir, PATH_MAX, "%s/%s.XXXXXX", tmp && *tmp ? tmp : "/tmp", prefix);
    if (mkdtemp(dir))
        return 0;
    fprintf(stderr, "rperf: cannot make a directory %s: %s\n", dir, strerror(errno));
    return -1;
}

void rperf_remove_tree(const char *path)
{
    struct stat st;
    DIR *d = lstat(path, &st) == 0 && S_ISDIR(st.st_mode) ? opendir(path) : NULL;
    if (d) {
        struct dirent *e;
        while ((e = readdir(d)))
            if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0) {
                char child[PATH_MAX];
                snprintf(child, sizeof(child), "%s/%s", path, e->d_name);
                rperf_remove_tree(child);
            }
        closedir(d);
        rmdir(path);
    } else {
        unlink(path);
    }
}

bool rperf_files_exist(char *const *paths, int count)
{
    for (int i = 0; i < count; i++)
        if (access(paths[i], F_OK) != 0) {
            fprintf(stderr, "File not found: %s\n", paths[i]);
            return false;
        }
    return true;
}

bool rperf_all_digits(const char *s)
{
    if (!s || !*s)
        return false;
    for (; *s; s++)
        if (*s < '0' || *s > '9')
            return false;
    return true;
}
