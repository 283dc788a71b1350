/*
 * rperf/cmd_run.c — `rperf record`, `rperf stat` and `rperf exec`: run a
 * command with the agent preloaded into a private session directory, then
 * write the profile (record), print the summary (stat; exec adds the
 * tables), as the rperf gem's command does.
 *
 * The command's own exit status is passed through (128+N when signal N
 * ended it), profiled or not, the profile written or not. A Ctrl-C ends
 * the command, not rperf, and a signal sent to rperf (TERM, INT, HUP, ...)
 * is passed on to the command: what it recorded is still written. An
 * output file that cannot be written is found before the command runs;
 * a write that fails after it keeps the session directory and says
 * where; a broken pipe on rperf's output leaves nothing behind. Bad
 * options print the error and the usage, as the gem's command words
 * them, and exit 1 without running anything.
 */
#include <dirent.h>
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "meta.h"
#include "subcommands.h"
#include "options.h"
#include "tools.h"
#include "usage.h"

struct run_options {
    const char *command; /* record, stat or exec */
    rperf_usage_fn *usage;
    const char *output, *format, *frequency, *mode, *signal, *interval, *alloc, *snapshot_dir;
    bool print, inherit, aggregate, report, keep, verbose, lines, defer, print_env;
    const char *labels[64]; /* --label KEY=VALUE */
    int label_count;
    char *meta_git, *meta_labels; /* the profile's meta for the agent (meta.h) */
};

/* Options up to the command; its index into *first. Returns 0, or the
 * exit status of a usage error. */
static int parse(int argc, char **argv, struct run_options *o, int *first)
{
    int i = 1;
    for (; i < argc; i++) {
        const char *a = argv[i];
        int got = 0;
        const char *alloc;
        if ((got = rperf_opt_value(argc, argv, &i, "-o", "--output", &o->output, o->usage)) ||
            (got = rperf_opt_value(argc, argv, &i, NULL, "--format", &o->format, o->usage)) ||
            (got = rperf_opt_value(argc, argv, &i, "-f", "--frequency", &o->frequency, o->usage)) ||
            (got = rperf_opt_value(argc, argv, &i, "-m", "--mode", &o->mode, o->usage)) ||
            (got = rperf_opt_value(argc, argv, &i, NULL, "--signal", &o->signal, o->usage)) ||
            (got = rperf_opt_value(argc, argv, &i, NULL, "--interval", &o->interval, o->usage)) ||
            (got = rperf_opt_value(argc, argv, &i, NULL, "--snapshot-dir", &o->snapshot_dir, o->usage))) {
            if (got < 0)
                return 1;
        } else if ((got = rperf_opt_value(argc, argv, &i, NULL, "--label", &alloc, o->usage))) {
            if (got < 0)
                return 1;
            if (o->label_count == (int)(sizeof(o->labels) / sizeof(o->labels[0])))
                return rperf_die_usage("at most %d --label options", o->label_count);
            o->labels[o->label_count++] = alloc;
        } else if (rperf_opt_alloc(a, &alloc)) {
            o->alloc = alloc;
        } else if (rperf_opt_flag(a, "-p", "--print")) {
            o->print = true;
        } else if (strcmp(a, "--no-inherit") == 0) {
            o->inherit = false;
        } else if (strcmp(a, "--no-aggregate") == 0) {
            o->aggregate = false;
        } else if (strcmp(a, "--lines") == 0) {
            o->lines = true;
        } else if (strcmp(a, "--defer") == 0) {
            o->defer = true;
        } else if (strcmp(a, "--report") == 0) {
            o->report = true;
        } else if (strcmp(a, "--keep") == 0) {
            o->keep = true;
        } else if (strcmp(a, "--print-env") == 0) {
            o->print_env = true;
        } else if (rperf_opt_flag(a, "-v", "--verbose")) {
            o->verbose = true;
        } else if (rperf_opt_flag(a, "-h", "--help")) {
            o->usage(stdout);
            exit(0);
        } else if (strcmp(a, "--") == 0) {
            i++;
            break;
        } else if (a[0] == '-') {
            return rperf_usage_error(o->usage, "invalid option: %s", a);
        } else {
            break;
        }
    }
    *first = i;
    return 0;
}

static bool in_range(const char *s, long lo, long hi)
{
    return rperf_all_digits(s) && strlen(s) < 10 && atol(s) >= lo && atol(s) <= hi;
}

/* The signal option: a real-time signal or false. Returns 0 or 1 (said). */
static int check_signal(const char *signal)
{
    if (!signal || strcmp(signal, "false") == 0)
        return 0;
    if (!rperf_all_digits(signal) || strlen(signal) > 9) {
        fprintf(stderr, "Error: --signal must be a signal number or 'false', got: \"%s\"\n", signal);
        return 1;
    }
    long n = atol(signal);
    if (n == SIGKILL || n == SIGSTOP) {
        fprintf(stderr, "Error: signal %ld (%s) cannot be caught; use a different signal\n", n,
                n == SIGKILL ? "KILL" : "STOP");
        return 1;
    }
    if (n < SIGRTMIN || n > SIGRTMAX) {
        fprintf(stderr, "Error: --signal must be a real-time signal (%d..%d) or false, got %ld\n", SIGRTMIN,
                SIGRTMAX, n);
        return 1;
    }
    return 0;
}

/* The values, checked as the gem's command checks them. Returns 0, or
 * the exit status of the error (said). */
static int check(struct run_options *o)
{
    const char *f = o->frequency;
    if (!rperf_all_digits(f[0] == '-' ? f + 1 : f))
        return rperf_usage_error(o->usage, "invalid argument: --frequency %s", f);
    if (f[0] == '-' || atol(f) < 1) {
        fprintf(stderr, "Error: frequency must be a positive integer (got %s)\n", f);
        return 1;
    }
    if (strlen(f) > 9 || atol(f) > 10000) {
        fprintf(stderr, "Error: frequency must be <= 10000 (10KHz), got %s\n", f);
        return 1;
    }
    if (strcmp(o->mode, "cpu") != 0 && strcmp(o->mode, "wall") != 0)
        return rperf_usage_error(o->usage, "invalid argument: --mode %s", o->mode);
    static const char *const formats[] = {"json", "pprof", "collapsed", "text", "html", "speedscope", NULL};
    bool known = !o->format || !*o->format;
    for (const char *const *k = formats; *k && !known; k++)
        known = strcmp(o->format, *k) == 0;
    if (!known)
        return rperf_die_usage("--format must be json, pprof, collapsed, text, html or speedscope, got '%s'",
                               o->format);
    if (o->interval && !in_range(o->interval, 1, 86400))
        return rperf_die_usage("--interval must be a number of seconds from 1 to 86400, got '%s'", o->interval);
    if (check_signal(o->signal))
        return 1;
    if (o->alloc && strcmp(o->alloc, "window") != 0 && !in_range(o->alloc, 1, 100000000))
        return rperf_die_usage("--alloc must be a positive integer N (one allocation in N sampled) or window, "
                               "got '%s'",
                               o->alloc);
    bool record = strcmp(o->command, "record") == 0;
    if (o->report && record)
        return rperf_die_usage("record: --report belongs to stat");
    if (o->print && !record)
        return rperf_die_usage("%s: --print belongs to record", o->command);
    if (o->print_env && !record)
        return rperf_die_usage("%s: --print-env belongs to record", o->command);
    for (int i = 0; i < o->label_count; i++)
        if (o->labels[i][0] == '=' || !strchr(o->labels[i], '=')) {
            fprintf(stderr, "Error: --label must be KEY=VALUE, got: \"%s\"\n", o->labels[i]);
            return 1;
        }
    if (o->snapshot_dir && !record)
        return rperf_die_usage("%s: --snapshot-dir belongs to record", o->command);
    if (o->snapshot_dir && (o->output || o->print)) {
        fputs("Error: --snapshot-dir and -o/--output (or -p) are mutually exclusive\n", stderr);
        return 1;
    }
    if (o->snapshot_dir && o->format && *o->format && strcmp(o->format, "json") != 0) {
        fprintf(stderr, "Error: --snapshot-dir requires JSON format (got --format=%s)\n", o->format);
        return 1;
    }
    return 0;
}

/* mkdir -p: `dir` and the directories above it. Returns 0, or -1 (said). */
static int make_dirs(const char *dir)
{
    char path[PATH_MAX];
    if (snprintf(path, sizeof(path), "%s", dir) >= (int)sizeof(path))
        return fprintf(stderr, "rperf: --snapshot-dir is too long\n"), -1;
    for (char *p = path + 1;; p++) {
        bool end = *p == '\0';
        if (*p == '/' || end) {
            *p = '\0';
            if (mkdir(path, 0777) != 0 && errno != EEXIST) {
                fprintf(stderr, "rperf: cannot make the directory %s: %s\n", path, strerror(errno));
                return -1;
            }
            if (end)
                return 0;
            *p = '/';
        }
    }
}

/* --snapshot-dir DIR: the output is DIR/rperf-<sha7>-<time>.json.gz (a
 * second run in the same second on the same commit adds its pid). */
static int snapshot_output(struct run_options *o, char *path, size_t size)
{
    if (make_dirs(o->snapshot_dir) != 0)
        return -1;
    char name[128];
    rperf_meta_snapshot_name(o->meta_git, (long)getpid(), name, sizeof(name));
    snprintf(path, size, "%s/%s", o->snapshot_dir, name);
    if (access(path, F_OK) == 0 && strlen(path) > 8)
        snprintf(path + strlen(path) - 8, size - (strlen(path) - 8), "-%ld.json.gz", (long)getpid());
    o->output = path;
    return 0;
}

/* The commit (before the program runs: it may change directory) and the
 * labels, for the profile's meta. */
static int collect_meta(struct run_options *o)
{
    o->meta_git = rperf_meta_git();
    o->meta_labels = o->label_count ? rperf_meta_labels(o->labels, o->label_count) : NULL;
    if (!o->meta_git || (o->label_count && !o->meta_labels)) {
        fputs("rperf: out of memory\n", stderr);
        return -1;
    }
    return 0;
}

#define AGENT_VARIABLES_MAX 16

/* The agent's variables for a command recorded into `session`, as
 * "NAME=value" strings in added[] (malloc'd); returns how many. Quiet:
 * rperf reports the profile itself (with --print-env, no rperf is there
 * to, and the first process says where its session is). */
static int agent_variables(const struct run_options *o, const rperf_tools *t, const char *session, bool quiet,
                           char *added[AGENT_VARIABLES_MAX])
{
    int k = 0;
    const char *preload = getenv("LD_PRELOAD");
#define ADD(...) (void)(asprintf(&added[k], __VA_ARGS__) >= 0 && k++)
    if (preload && *preload)
        ADD("LD_PRELOAD=%s:%s", t->agent, preload);
    else
        ADD("LD_PRELOAD=%s", t->agent);
    ADD("RPERF_SESSION_DIR=%s", session);
    if (quiet)
        ADD("RPERF_QUIET=1");
    ADD("RPERF_MODE=%s", o->mode);
    ADD("RPERF_FREQUENCY=%s", o->frequency);
    ADD("RPERF_INHERIT=%d", o->inherit);
    ADD("RPERF_AGGREGATE=%d", o->aggregate);
    ADD("RPERF_VERBOSE=%d", o->verbose);
    if (o->signal)
        ADD("RPERF_SIGNAL=%s", o->signal);
    if (o->lines)
        ADD("RPERF_LINES=1");
    if (o->defer)
        ADD("RPERF_DEFER=1");
    if (o->interval)
        ADD("RPERF_INTERVAL=%s", o->interval);
    if (o->alloc)
        ADD("RPERF_ALLOC=%s", o->alloc);
    if (o->meta_git)
        ADD("RPERF_META_GIT=%s", o->meta_git);
    if (o->meta_labels)
        ADD("RPERF_META_LABELS=%s", o->meta_labels);
#undef ADD
    return k;
}

/* The environment the command runs in: rperf's, and the agent's
 * variables (replacing any of the same name). */
static char **command_env(const struct run_options *o, const rperf_tools *t, const char *session)
{
    extern char **environ;
    size_t n = 0;
    while (environ[n])
        n++;
    char **env = calloc(n + AGENT_VARIABLES_MAX + 1, sizeof(*env));
    if (!env)
        return NULL;
    char *added[AGENT_VARIABLES_MAX];
    int k = agent_variables(o, t, session, true, added);
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        bool replaced = false;
        for (int a = 0; a < k && !replaced; a++) {
            size_t name = strcspn(added[a], "=") + 1;
            replaced = strncmp(environ[i], added[a], name) == 0;
        }
        if (!replaced)
            env[m++] = environ[i];
    }
    for (int a = 0; a < k; a++)
        env[m++] = added[a];
    env[m] = NULL;
    return env;
}

static bool dir_is_empty(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return true;
    struct dirent *e;
    bool empty = true;
    while (empty && (e = readdir(d)))
        empty = strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0;
    closedir(d);
    return empty;
}

/* Whether the profile can be written to `path`, before the command runs
 * for as long as it may: its folder exists and takes a new file, or the
 * file is there and writable. Said in one line when not. */
static bool output_writable(const char *path)
{
    char copy[PATH_MAX];
    snprintf(copy, sizeof(copy), "%s", path);
    const char *dir = dirname(copy);
    bool ok = access(path, F_OK) == 0 ? access(path, W_OK) == 0 : access(dir, W_OK | X_OK) == 0;
    if (!ok)
        fprintf(stderr, "rperf: cannot write the profile to %s: %s; nothing was run\n", path, strerror(errno));
    return ok;
}

/* After the command: the summary, the printed report, the output file.
 * Returns 0; 1 when the output file could not be written (what was
 * recorded must then be kept); -1 when there was nothing to write (no
 * Ruby ran). What goes to rperf's own output may fail (a reader that went
 * away): that loses nothing. */
static int analyze(const struct run_options *o, const char *session, const char *program)
{
    if (dir_is_empty(session)) {
        fprintf(stderr, "rperf: no profile was written: '%s' ran no Ruby this rperf can profile (a Ruby of "
                        "another version than rperf's says so above)\n",
                program);
        return -1;
    }
    const char *lines = o->lines ? "--lines" : NULL;
    if (strcmp(o->command, "record") != 0) {
        const char *stat[] = {"stat", o->report ? "--report" : session, o->report ? session : NULL, NULL};
        rperf_analyze(true, stat);
    }
    if (o->print) {
        const char *text[] = {"convert", "--text", lines ? lines : session, lines ? session : NULL, NULL};
        rperf_analyze(false, text);
    }
    if (!o->output)
        return 0;
    const char *convert[8] = {"convert", "-o", o->output};
    int n = 3;
    if (lines)
        convert[n++] = lines;
    if (o->format && *o->format) {
        convert[n++] = "--format";
        convert[n++] = o->format;
    }
    convert[n++] = session;
    if (rperf_analyze(false, convert) != 0)
        return 1;
    if (strcmp(o->command, "record") == 0)
        fprintf(stderr, "rperf: profile written to %s\n", o->output);
    return 0;
}

/* --print-env: the agent's variables as `export NAME='value'` lines for
 * a shell to eval, and nothing run: a wrapper (a CI script) runs the
 * command unchanged in that environment. Every process it starts writes
 * its profile into the session directory (-o DIR, default
 * ./rperf-session), which rperf report and rperf-analyze read; each
 * top-level process is a root there, its children follow it (so the gem's
 * RPERF_ROOT_PROCESS is not needed). */
static int print_env(const struct run_options *o, int first, int argc)
{
    if (first < argc)
        return rperf_die_usage("record: --print-env runs no command; run it in the environment printed");
    const char *dir = o->output ? o->output : "rperf-session";
    static const char *const files[] = {".gz", ".json", ".html", ".txt", ".collapsed"};
    for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++)
        if (strlen(dir) >= strlen(files[i]) && strcmp(dir + strlen(dir) - strlen(files[i]), files[i]) == 0)
            return rperf_die_usage("record: with --print-env, -o names the session directory the profiles "
                                   "go to, not one file: got '%s'",
                                   dir);
    char session[PATH_MAX], cwd[PATH_MAX];
    if (dir[0] != '/' && !getcwd(cwd, sizeof(cwd))) {
        fprintf(stderr, "rperf: cannot read the working directory: %s\n", strerror(errno));
        return 1;
    }
    if (snprintf(session, sizeof(session), "%s%s%s", dir[0] == '/' ? "" : cwd, dir[0] == '/' ? "" : "/", dir) >=
        (int)sizeof(session))
        return rperf_die_usage("record: -o is too long");
    rperf_tools t;
    if (rperf_locate(&t) != 0)
        return 1;
    if (strpbrk(t.agent, " \t:")) {
        fprintf(stderr, "rperf: --print-env: LD_PRELOAD splits paths at spaces and colons, and the agent is at %s: "
                        "link it from a path without them (ln -s) and set RPERF_AGENT to the link\n",
                t.agent);
        return 1;
    }
    char *added[AGENT_VARIABLES_MAX];
    int k = agent_variables(o, &t, session, false, added);
    for (int a = 0; a < k; a++) {
        size_t name = strcspn(added[a], "=");
        printf("export %.*s='", (int)name, added[a]);
        for (const char *c = added[a] + name + 1; *c; c++) {
            if (*c == '\'')
                fputs("'\\''", stdout); /* ' ends the quote, \' is one, ' opens it again */
            else
                putchar(*c);
        }
        puts("'");
        free(added[a]);
    }
    printf("# the profiles go to %s: rperf report %s, rperf-analyze stat %s\n", session, session, session);
    return fflush(stdout) == 0 ? 0 : 1;
}

int rperf_cmd_run(int argc, char **argv)
{
    struct run_options o = {.command = argv[0], .frequency = "1000", .inherit = true, .aggregate = true};
    bool record = strcmp(o.command, "record") == 0;
    o.usage = record ? rperf_record_usage : strcmp(o.command, "stat") == 0 ? rperf_stat_usage : rperf_exec_usage;
    o.mode = record ? "cpu" : "wall";
    int first = argc, rc = parse(argc, argv, &o, &first);
    if (rc)
        return rc;
    if (first >= argc && !o.print_env)
        return rperf_usage_error(o.usage, "No command specified.");
    if ((rc = check(&o)))
        return rc;
    if (collect_meta(&o) != 0)
        return 1;
    if (o.print_env)
        return print_env(&o, first, argc);
    char snapshot[PATH_MAX + 128];
    if (o.snapshot_dir && snapshot_output(&o, snapshot, sizeof(snapshot)) != 0)
        return 1;
    if (strcmp(o.command, "exec") == 0)
        o.report = true;
    if (record && !o.output && !o.print)
        o.output = "rperf.json.gz";
    if (o.output && !output_writable(o.output))
        return 1;
    rperf_tools t;
    char session[PATH_MAX], link_dir[PATH_MAX];
    if (rperf_locate(&t) != 0 || rperf_preloadable(&t, link_dir) != 0)
        return 1;
    if (rperf_temp_dir("rperf-session", session) != 0) {
        if (link_dir[0])
            rperf_remove_tree(link_dir);
        return 1;
    }
    char **env = command_env(&o, &t, session);
    int status = env ? rperf_run(argv + first, env, RPERF_FORWARD_SIGNALS) : 1;
    if (link_dir[0])
        rperf_remove_tree(link_dir);
    /* A reader of rperf's output that went away (`| head`) ends a write
     * with EPIPE, not rperf before it has tidied up. */
    signal(SIGPIPE, SIG_IGN);
    int analyzed = analyze(&o, session, argv[first]);
    if (o.keep)
        fprintf(stderr, "rperf: session directory kept: %s\n", session);
    else if (analyzed > 0)
        fprintf(stderr, "rperf: what was recorded is kept in %s (rperf-analyze stat %s reads it)\n", session,
                session);
    else
        rperf_remove_tree(session);
    return status; /* the command's own, whatever became of its profile */
}
