/*
 * agent/profiles/procstats.c — process facts. See procstats.h.
 *
 * Context: main thread (start) and the end-of-profile path (GVL held);
 * may call Ruby (GC.stat) and allocate.
 */
#include "procstats.h"

#include <fcntl.h>
#include <stdbool.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "../../common/clock.h"
#include "../base/ruby_api.h"
#include "../sampling/worker.h"

static char *cmdline;     /* NUL-separated argv words */
static size_t cmdline_len;
static char *start_dir;   /* the working directory at start */
static const char *meta_git = "", *meta_labels = ""; /* JSON objects, "": none */

void rp_procstats_capture_command(void)
{
    int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return;
    char buf[8192];
    ssize_t n = read(fd, buf, sizeof(buf));
    close(fd);
    if (n <= 0)
        return;
    free(cmdline);
    cmdline = malloc((size_t)n);
    if (!cmdline)
        return;
    memcpy(cmdline, buf, (size_t)n);
    cmdline_len = (size_t)n;
    free(start_dir);
    start_dir = getcwd(NULL, 0); /* NULL: the profile names none */
}

static void fill_command(rp_profile *p)
{
    size_t words = 0;
    for (size_t i = 0; i < cmdline_len; i++)
        words += cmdline[i] == '\0' || i + 1 == cmdline_len;
    uint32_t *ids = words ? calloc(words, sizeof(uint32_t)) : NULL;
    if (!ids)
        return;
    size_t w = 0, start = 0;
    for (size_t i = 0; i < cmdline_len && w < words; i++) {
        if (cmdline[i] == '\0' || i + 1 == cmdline_len) {
            size_t end = cmdline[i] == '\0' ? i : i + 1;
            ids[w] = rp_profile_string(p, cmdline + start, end - start);
            if (ids[w] == RP_IDX_NONE)
                break;
            w++;
            start = i + 1;
        }
    }
    p->meta.command = ids;
    p->meta.command_len = w;
}

static int64_t gc_stat(const char *key)
{
    return (int64_t)rb_gc_stat(rb_id2sym(rb_intern2(key, (long)strlen(key))));
}

static void fill_gc(rp_meta *m)
{
    m->has_gc = true;
    m->gc.count = gc_stat("count");
    m->gc.minor_count = gc_stat("minor_gc_count");
    m->gc.major_count = gc_stat("major_gc_count");
    m->gc.time_ns = gc_stat("time") * 1000000; /* GC.stat reports ms */
    m->gc.allocated_objects = gc_stat("total_allocated_objects");
    m->gc.freed_objects = gc_stat("total_freed_objects");
}

/* libruby's flag (exported, not in the public headers); absent → no YJIT. */
extern bool rb_yjit_enabled_p __attribute__((weak));

/* RubyVM::YJIT.runtime_stats[:ratio_in_yjit], through calls only: this
 * runs in postponed jobs too (interval parts, an attach's stop), where
 * compiling Ruby source (an eval) can crash Ruby. */
static VALUE yjit_ratio(VALUE unused)
{
    (void)unused;
    VALUE vm = rb_const_get(rb_cObject, rb_intern("RubyVM"));
    if (!RTEST(rb_const_defined(vm, rb_intern("YJIT"))))
        return Qnil;
    VALUE stats = rb_funcall(rb_const_get(vm, rb_intern("YJIT")), rb_intern("runtime_stats"), 0);
    return RB_TYPE_P(stats, T_HASH) ? rb_hash_aref(stats, rb_id2sym(rb_intern("ratio_in_yjit"))) : Qnil;
}

static void fill_yjit(rp_meta *m)
{
    /* Only when YJIT runs at all; ratio_in_yjit only exists with
     * --yjit-stats (nil otherwise). */
    if (!&rb_yjit_enabled_p || !rb_yjit_enabled_p)
        return;
    int state = 0;
    VALUE ratio = rb_protect(yjit_ratio, Qnil, &state);
    if (state) {
        rb_set_errinfo(Qnil);
        return;
    }
    if (!RB_FLOAT_TYPE_P(ratio))
        return;
    m->has_yjit = true;
    m->yjit_ratio = rb_num2dbl(ratio);
}

/* Reads "read_bytes:" and "write_bytes:" from /proc/self/io (absent in some
 * sandboxes: then the counters stay 0). */
static void fill_io(rp_os_stats *os)
{
    FILE *f = fopen("/proc/self/io", "re");
    if (!f)
        return;
    char line[128];
    while (fgets(line, sizeof(line), f)) {
        int64_t v;
        if (sscanf(line, "read_bytes: %" SCNd64, &v) == 1)
            os->io_read_bytes = v;
        else if (sscanf(line, "write_bytes: %" SCNd64, &v) == 1)
            os->io_write_bytes = v;
    }
    fclose(f);
}

static void fill_os(rp_meta *m)
{
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru) != 0)
        return;
    m->user_ns = rp_timeval_ns(ru.ru_utime);
    m->sys_ns = rp_timeval_ns(ru.ru_stime);
    m->has_os = true;
    m->os.maxrss_kb = ru.ru_maxrss;
    m->os.page_faults_minor = ru.ru_minflt;
    m->os.page_faults_major = ru.ru_majflt;
    /* The worker thread sleeps between ticks: its switches are the
     * agent's, not the program's (it has ended by now). */
    long agent_voluntary, agent_involuntary;
    rp_worker_context_switches(&agent_voluntary, &agent_involuntary);
    m->os.ctx_voluntary = ru.ru_nvcsw - (ru.ru_nvcsw >= agent_voluntary ? agent_voluntary : 0);
    m->os.ctx_involuntary = ru.ru_nivcsw - (ru.ru_nivcsw >= agent_involuntary ? agent_involuntary : 0);
    fill_io(&m->os);
}

void rp_procstats_set_meta(const char *git, const char *labels)
{
    meta_git = git;
    meta_labels = labels;
}

void rp_procstats_fill_meta(rp_profile *p)
{
    char host[256];
    if (gethostname(host, sizeof(host)) == 0) {
        host[sizeof(host) - 1] = '\0';
        p->meta.hostname = rp_profile_cstring(p, host);
    }
    if (*meta_git)
        p->meta.git = rp_profile_cstring(p, meta_git);
    if (*meta_labels)
        p->meta.meta_labels = rp_profile_cstring(p, meta_labels);
}

void rp_procstats_fill(rp_profile *p)
{
    rp_procstats_fill_meta(p);
    fill_command(p);
    p->meta.ruby_version = rp_profile_cstring(p, ruby_version);
    if (start_dir)
        p->meta.cwd = rp_profile_cstring(p, start_dir);
    fill_gc(&p->meta);
    fill_yjit(&p->meta);
    fill_os(&p->meta);
}
