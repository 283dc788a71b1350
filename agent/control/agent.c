/*
 * agent/control/agent.c — the agent's life inside a process.
 *
 * Owns: hooking into Ruby (interposed ruby_init, _exit and the exec
 * family: execve, execv, execl, execle),
 * starting and finishing the profile, what happens at fork, and what the
 * Rperf API (api.c) may ask of the profile being taken (agent.h).
 * Everything else is delegated: config.c reads RPERF_*, session.c finds
 * the directory, sampler.c/worker.c/aggregator.c record, writer.c writes.
 *
 * How the agent gets control: the `ruby` of an --enable-shared build calls
 * ruby_init() in libruby through the PLT; this library, preloaded, defines
 * ruby_init too, so the call lands here. We call the real one (dlsym
 * RTLD_NEXT), and with the VM now alive, start profiling. A `ruby` with
 * Ruby linked in (built without --enable-shared) calls its own ruby_init;
 * there the agent starts at the program's first getenv() after it (see
 * getenv below). Loaded into a running process by rperf attach, it starts
 * dormant when the first command arrives (remote.c). The profile is
 * written by an end proc registered first (so it runs after every user
 * at_exit handler), or, for exit!, from the interposed _exit().
 *
 * Naming across the agent: a profile (what one file covers) begins and
 * ends (begin_profile, end_profile); a mechanism is started and stopped
 * (the worker thread, the timer, the hooks, the sampler's accepting
 * samples: rp_*_start / rp_*_stop).
 */
#include <dlfcn.h>
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "../../common/clock.h"
#include "agent.h"
#include "../sampling/aggregator.h"
#include "../sampling/frame_capture.h"
#include "../vm/gc_watch.h"
#include "../allocations/allocations.h"
#include "../requests/spans.h"
#include "../base/config.h"
#include "../sampling/defer.h"
#include "../base/fd_reserve.h"
#include "../sampling/gvl_gc.h"
#include "../vm/gvl_holder.h"
#include "../sampling/labels.h"
#include "../vm/ractors.h"
#include "../base/ruby_lib.h"
#include "../base/child_env.h"
#include "../base/log.h"
#include "../profiles/procstats.h"
#include "../base/ruby_api.h"
#include "../sampling/sample_buf.h"
#include "../sampling/sampler.h"
#include "../profiles/session.h"
#include "../vm/threads.h"
#include "../../profile/encode/verbose.h"
#include "../sampling/worker.h"
#include "../profiles/window.h"
#include "../profiles/writer.h"

/* Not in Ruby's public headers, but exported by libruby. */
int ruby_thread_has_gvl_p(void);
#pragma weak ruby_thread_has_gvl_p

typedef enum agent_state {
    AGENT_OFF,             /* not profiling (non-Ruby process, bad config, done) */
    AGENT_DORMANT,         /* RPERF_ENABLED=0: only sessions of the Rperf API record */
    AGENT_ACTIVE,          /* the whole process is profiled; the profile belongs to owner_pid */
    AGENT_RESTART_PENDING, /* fork child waiting for its first safepoint */
} agent_state;

static atomic_int state = AGENT_OFF;
static pid_t owner_pid;
static rp_config cfg;
static rp_session session;
static rp_window whole; /* the profile (with RPERF_INTERVAL: the part) being taken */
static uint32_t profile_serial;
static rp_window session_start; /* the Rperf API's session, since Rperf.start */
static uint32_t session_serial;
static bool session_at_fork; /* a fork child whose parent had a session open */
static int64_t parts_written; /* RPERF_INTERVAL: parts of this process written */
/* The pauses parts cost a Ruby thread (RPERF_VERBOSE), in wall time and
 * in the thread's CPU time: on a busy machine the wall time also holds
 * the stretches the kernel ran other processes. */
static int64_t longest_rotation_ns, total_rotation_ns, total_rotation_cpu_ns, rotations;
static atomic_long parts_failing; /* parts lost since the last one written */
static rb_postponed_job_handle_t restart_job = POSTPONED_JOB_HANDLE_INVALID;
static rb_postponed_job_handle_t rotate_job = POSTPONED_JOB_HANDLE_INVALID;
static bool agent_started;  /* start_agent ran (whatever came of it) */
static bool static_ruby;    /* the program has Ruby linked in (on_load) */
static bool attached;       /* loaded into a running process (rperf attach) */
/* A profile begun by rperf attach / rperf ctl start (remote.c): cfg as it
 * was before it, put back when it ends. */
static bool remote_profile;
static rp_config cfg_before_remote;
/* Its safety net, should rperf die or forget it: it ends when the rperf
 * process that started it is gone, or after its time limit. */
static pid_t remote_watch_pid;
static int64_t remote_until_ns;
static rb_postponed_job_handle_t remote_end_job = POSTPONED_JOB_HANDLE_INVALID;
static char last_written[RP_PATH_MAX + 64]; /* the file the last profile went to */
/* The program put a handler of its own on the timer's signal: the agent
 * stood aside (step_aside) and takes no recording any more. */
static bool stood_aside;
static rb_postponed_job_handle_t step_aside_job = POSTPONED_JOB_HANDLE_INVALID;

/* --- starting ------------------------------------------------------------ */

/* GVL held: the worker and the hooks that the open recordings need,
 * started when none runs yet (the first recording, a dormant process's
 * first session), ticking at their rate. `signo`: the timer signal a
 * first worker uses (0: the sleeping ticker). */
static int start_machinery(int signo)
{
    rp_allocs_update();
    if (rp_worker_running()) {
        rp_gvl_gc_update();
        rp_worker_update_ticks();
        return 0;
    }
    rp_gvl_gc_restart(); /* hooks a fork child has from its parent, afresh */
    return rp_worker_start(signo, cfg.verbose);
}

/* GVL held: when no recording is open any more, no tick, no hook and no
 * worker thread (a dormant process after its session). Returns false
 * when the worker did not stop: its tables must not be touched then. */
static bool stop_machinery_if_idle(void)
{
    rp_worker_update_ticks();
    rp_allocs_update();
    if (rp_recordings_any_open())
        return true;
    rp_gvl_gc_stop();
    return rp_worker_stop();
}

/* The whole process's recording, as RPERF_* configure it. */
static rp_rec_config whole_config(void)
{
    return (rp_rec_config){.mode = cfg.mode, .frequency = cfg.frequency,
                           .aggregate = cfg.aggregate, .deferred = cfg.defer,
                           .alloc_rate = cfg.alloc_rate};
}

/* GVL held: opens a new profile of the whole process (at boot, or in a
 * fork child). A deferred process (RPERF_DEFER) begins paused. */
static void begin_profile(void)
{
    parts_written = 0;
    longest_rotation_ns = total_rotation_ns = total_rotation_cpu_ns = rotations = 0;
    atomic_store(&parts_failing, 0);
    owner_pid = getpid();
    rp_fd_reserve_take(session.dir);
    rp_rec_config rec = whole_config();
    rp_aggregator_begin(RP_REC_WHOLE, rec.aggregate, (size_t)cfg.max_stacks);
    rp_recording_open(RP_REC_WHOLE, &rec, rec.deferred && rp_defer_pauses());
    rp_allocs_begin(RP_REC_WHOLE);
    rp_spans_begin_recording(RP_REC_WHOLE);
    /* stamped once its counters are zero */
    rp_window_begin_empty(&whole, RP_REC_WHOLE);
    if (remote_profile)
        rp_window_begin_part(&whole); /* the process's CPU time counts from now */
    whole.profile = ++profile_serial;
    rp_sampler_start_clock(RP_REC_WHOLE);
    if (start_machinery(cfg.timer_signal) != 0) {
        rp_recording_close(RP_REC_WHOLE);
        stop_machinery_if_idle();
        atomic_store(&state, AGENT_OFF);
        return;
    }
    atomic_store(&state, AGENT_ACTIVE);
}

/* GVL held: a fresh profile for this process after the previous one was
 * dropped (fork child) or written (failed exec): empty tables, counters
 * from zero, threads numbered from 1 again. */
static void begin_fresh_profile(void)
{
    rp_sample_buf_reset();
    rp_threads_new_generation();
    begin_profile();
}

static void end_profile(void);

/* End proc — runs on the main thread with the GVL, after the program's own
 * at_exit handlers (registered later, run earlier). */
static void on_ruby_exit(VALUE unused)
{
    (void)unused;
    end_profile();
}

static void on_fork_child(void);
static void restart_in_fork_child(void *unused);
static void write_part(void *unused);
static void ask_for_part(void);
static void set_worker_rotation(void);
static void step_aside(void *unused);
static void signal_taken(void);
static void end_whole_profile(bool at_end);

static void start_agent(void)
{
    Dl_info self;
    agent_started = true;
    if (rp_config_load(&cfg) != 0)
        return;
    if (attached) {
        /* Nothing of the program's may change: dormant until asked, no
         * word on its stderr, nothing added to $LOAD_PATH. */
        cfg.dormant = cfg.quiet = true;
        cfg.verbose = false;
        cfg.interval = 0;
    }
    if (!cfg.dormant && rp_session_open(&session) != 0)
        return;
    if (!cfg.dormant && dladdr((void *)start_agent, &self) && self.dli_fname)
        rp_child_env_init(session.dir, session.root_pid, cfg.inherit, self.dli_fname);
    rp_procstats_capture_command();
    rp_thread_cpu_init();
    if (rp_threads_init() != 0 || rp_sampler_init() != 0)
        return;
    rp_ractors_init();
    if (cfg.verbose && !rp_gvl_holder_usable())
        rp_log("this Ruby's thread structures are not the ones rperf knows (Ruby 3.4's); "
               "a thread that starts running while another thread is starting may go "
               "unsampled until its first GVL switch");
    rp_gc_watch_init(); /* before frame_capture, which reads its counts */
    rp_frame_capture_init();
    if (rp_sample_buf_init(cfg.lines) != 0 || rp_labels_init() != 0 ||
        rp_allocs_init(cfg.alloc_follow, cfg.lines, cfg.alloc_window) != 0) {
        rp_log("cannot profile: out of memory");
        return;
    }
    rp_spans_init(cfg.slow_keep, cfg.slow_ms, cfg.lines);
    if (!attached)
        rp_ruby_lib_install(cfg.verbose);
    restart_job = rb_postponed_job_preregister(0, restart_in_fork_child, NULL);
    step_aside_job = rb_postponed_job_preregister(0, step_aside, NULL);
    rp_worker_on_signal_taken(signal_taken);
    pthread_atfork(rp_aggregator_before_fork, rp_aggregator_after_fork_parent, on_fork_child);
    rb_set_end_proc(on_ruby_exit, Qnil);
    if (cfg.dormant) {
        /* Nothing runs until the program starts a session (Rperf.start). */
        atomic_store(&state, AGENT_DORMANT);
        return;
    }
    if (cfg.interval)
        rotate_job = rb_postponed_job_preregister(0, write_part, NULL);
    set_worker_rotation();
    begin_profile();
}

/* Postponed job — a Ruby thread, GVL held: the program has put a handler
 * of its own on the agent's timer signal — the rperf gem's own profiler
 * does, at its Rperf.start, on the same SIGRTMIN+8, when the program
 * loads the gem's lib instead of the agent's API. Two profilers on one
 * signal would each take the other's ticks as samples, and the gem's stop
 * tidies away the session directory it finds in RPERF_SESSION_DIR: the
 * program's own profiler has the process from here. The worker has
 * stopped ticking; the agent's recording ends and is written now, while
 * its directory is there, and no command starts another. */
static void step_aside(void *unused)
{
    (void)unused;
    if (stood_aside || getpid() != owner_pid)
        return;
    stood_aside = true;
    char path[RP_PATH_MAX + 64] = "", why[RP_PATH_MAX + 256] = "";
    if (remote_profile && atomic_load(&state) == AGENT_ACTIVE)
        rp_agent_remote_stop(path, sizeof(path), why, sizeof(why));
    else if (atomic_load(&state) == AGENT_ACTIVE)
        end_whole_profile(false);
    else
        stop_machinery_if_idle();
    const char *written = path[0] ? path : last_written;
    rp_log("process %ld put a handler of its own on signal %d, the agent's timer (the rperf "
           "gem's own profiler does, at Rperf.start, when its lib is loaded instead of the "
           "agent's API): the agent stands aside; its profile ends here%s%s",
           (long)getpid(), cfg.timer_signal, written[0] ? ", written to " : "", written);
}

/* Worker thread (async-signal-safe): see step_aside. */
static void signal_taken(void)
{
    rb_postponed_job_trigger(step_aside_job);
    rp_gvl_holder_interrupt();
}

/* Interposes libruby's ruby_init(): main thread, before any Ruby code. */
__attribute__((visibility("default"))) void ruby_init(void)
{
    void (*real_ruby_init)(void) = (void (*)(void))dlsym(RTLD_NEXT, "ruby_init");
    if (!real_ruby_init) {
        /* Only reachable if something without libruby calls ruby_init:
         * there is no Ruby to run, so nothing sensible can follow. */
        rp_log("cannot find libruby's ruby_init; is this an embedded static Ruby?");
        abort();
    }
    real_ruby_init();
    if (!agent_started)
        start_agent();
}

/* The libc lookup getenv() does, without asking libc: this one is
 * called before any library is set up, and from every process that
 * preloads the agent. */
static char *find_in_environment(const char *name)
{
    extern char **environ;
    if (!name[0] || !environ)
        return NULL;
    size_t len = strlen(name);
    for (char **ep = environ; *ep; ep++)
        if (strncmp(*ep, name, len) == 0 && (*ep)[len] == '=')
            return *ep + len + 1;
    return NULL;
}

/* Interposes getenv(). A static `ruby` (Ruby linked in, symbols
 * exported, as Ruby's build makes it without --enable-shared) runs its
 * own ruby_init, out of our reach; its very next step, the first of
 * ruby_options(), reads RUBY_FREE_AT_EXIT — on the main thread, GVL held,
 * the VM up and no Ruby code run yet: where an --enable-shared ruby's
 * ruby_init returns. Any other call, and any other program, only gets the
 * variable. */
__attribute__((visibility("default"))) char *getenv(const char *name)
{
    if (static_ruby && !agent_started && name[0] == 'R' &&
        strcmp(name, "RUBY_FREE_AT_EXIT") == 0 && ruby_native_thread_p && ruby_thread_has_gvl_p &&
        ruby_native_thread_p() && ruby_thread_has_gvl_p())
        start_agent();
    return find_in_environment(name);
}

/* --- finishing ----------------------------------------------------------- */

static void announce_session(bool wrote)
{
    if (!session.is_root || cfg.quiet)
        return;
    int count = rp_session_count_profiles(&session);
    if (!wrote && count == 0)
        return;
    rp_log("%d profile%s in %s — analyze with: rperf-analyze stat %s", count,
           count == 1 ? "" : "s", session.display, session.display);
}

/* What the writer needs to write `window` of the recording it is of. */
static rp_write_request write_request(const rp_window *window)
{
    return (rp_write_request){
        .recording = window->recording,
        .rec = rp_recording_get(window->recording)->cfg,
        .session = &session,
        .window = window,
        .stats = rp_recording_stats(window->recording),
        .detected_threads = rp_threads_detected(),
        /* Every process of the whole-process session but its root carries
         * %pid; the Rperf API labels its own sessions' children. */
        .label_pid = window->recording == RP_REC_WHOLE && !session.is_root,
    };
}

/* --- parts (RPERF_INTERVAL) -------------------------------------------------- */

/* A part built on a Ruby thread, written by the worker. */
typedef struct part {
    rp_window window; /* the part's own times (no weights) */
    rp_write_request req;
    rp_profile profile;
    bool built;
} part;

/* Worker thread or a Ruby thread, possibly both at once: says how writing
 * a part went. A server whose session directory went away (or whose disk
 * is full) would otherwise print the same line every interval: the first
 * failure is printed, the parts lost after it only counted, and the first
 * part written again says how many were lost. */
static void report_part(bool saved, const char *why)
{
    if (!saved) {
        if (atomic_fetch_add(&parts_failing, 1) == 0)
            rp_log("%s (parts of process %ld that cannot be written are counted, not reported)",
                   why, (long)getpid());
        return;
    }
    long lost = atomic_exchange(&parts_failing, 0);
    if (lost)
        rp_log("profile parts of process %ld written again; %ld parts lost", (long)getpid(), lost);
}

/* Worker thread (or the Ruby thread when the worker is busy): writes the
 * part and frees it. No Ruby call. */
static void save_part(void *arg)
{
    part *pt = arg;
    char path[RP_PATH_MAX + 64];
    char why[RP_PATH_MAX + 256];
    if (pt->built) {
        rp_fd_reserve_give_back(); /* a program out of descriptors */
        bool saved = rp_writer_save(&pt->req, &pt->profile, path, sizeof(path), why, sizeof(why)) == 0;
        rp_fd_reserve_take(session.dir);
        report_part(saved, why);
    }
    rp_profile_free(&pt->profile);
    free(pt);
}

static VALUE build_part(VALUE arg)
{
    part *pt = (part *)arg;
    pt->built = rp_writer_build(&pt->req, &pt->profile) == 0;
    return Qnil;
}

static void clear_thread_labels(rp_thread *t, void *unused)
{
    (void)unused;
    t->label_set = 0;
}

static void carry_thread_labels(rp_thread *t, void *unused)
{
    (void)unused;
    t->label_set = rp_labels_carry(t->label_set);
}

/* GVL held, tables held and the whole profile's empty: the label store
 * keeps only the sets still in use, so labels made per request do not
 * pile up (labels.h). Everything that holds a set id carries it: threads,
 * the keys of the objects followed since earlier parts, open requests,
 * and the tables of a session open meanwhile (an API session, rperf
 * attach or ctl), which so stay bounded as the parts are. */
static uint32_t sets_after_compaction; /* the store's sets after the last one */

static void compact_labels(void)
{
    if (rp_labels_compact_begin() != 0)
        return;
    rp_threads_each(carry_thread_labels, NULL);
    rp_allocs_carry_labels();
    rp_spans_carry_labels();
    for (int r = 0; r < RP_RECORDINGS; r++)
        if (rp_recording_get((rp_rec_id)r)->open)
            rp_aggregator_carry_labels((rp_rec_id)r);
    rp_labels_compact_end();
    sets_after_compaction = rp_labels_set_count();
}

/* GVL held, as a recording without parts ends (rperf ctl stop, the end of
 * rperf attach, Rperf.stop): the same compaction once the store has grown
 * by a few thousand sets since the last, so that recording after recording
 * of a program that labels each request does not fill it. */
#define SETS_GROWTH_TO_COMPACT 4096

static void compact_labels_if_grown(void)
{
    if (rp_labels_set_count() < sets_after_compaction + SETS_GROWTH_TO_COMPACT)
        return;
    rp_aggregator_hold();
    compact_labels();
    rp_aggregator_release();
}

/* Postponed job — whichever Ruby thread holds the GVL, at the first
 * safepoint after an interval ended. Builds the part (resolving frames
 * needs the GVL), empties the tables — frames of the part are no longer
 * pinned, so memory stops growing — and leaves the writing to the worker.
 * The pause a Ruby thread sees is the build; it is measured. */
static void write_part(void *unused)
{
    (void)unused;
    if (atomic_load(&state) != AGENT_ACTIVE || getpid() != owner_pid)
        return;
    int64_t started = rp_monotonic_ns(), started_cpu = rp_clock_ns(CLOCK_THREAD_CPUTIME_ID);
    part *pt = calloc(1, sizeof(*pt));
    if (!pt)
        return; /* the interval goes on into the next part */
    pt->window = whole;
    pt->req = write_request(&pt->window);
    pt->req.part = ++parts_written;
    pt->req.take_requests = true; /* the next part has its own */
    int raised = 0;
    rp_spans_spill_open();
    rp_aggregator_hold();
    rb_protect(build_part, (VALUE)pt, &raised);
    rp_aggregator_clear(RP_REC_WHOLE);
    rp_allocs_restart_count(RP_REC_WHOLE);
    compact_labels();
    rp_window_begin_part(&whole);
    whole.profile = ++profile_serial; /* windows of the Rperf API restart here too */
    rp_aggregator_release();
    int64_t pause = rp_monotonic_ns() - started;
    if (pause > longest_rotation_ns)
        longest_rotation_ns = pause;
    total_rotation_ns += pause;
    total_rotation_cpu_ns += rp_clock_ns(CLOCK_THREAD_CPUTIME_ID) - started_cpu;
    rotations++;
    if (!rp_worker_post(save_part, pt))
        save_part(pt);
    if (raised)
        rb_jump_tag(raised);
}

/* Worker thread: an interval ended. Async-signal-safe. */
static void ask_for_part(void)
{
    rb_postponed_job_trigger(rotate_job);
    rp_gvl_holder_interrupt();
}

/* RPERF_VERBOSE: how much time the stack cap sent to the capped stack. */
static void say_capped(const rp_aggregate *agg)
{
    if (agg->capped)
        rp_log("%zu samples (%.1f ms) went to " RP_CAPPED_FRAME_NAME ": the profile reached "
               "RPERF_MAX_STACKS=%ld distinct stacks",
               agg->capped, (double)agg->capped_weight / 1e6, cfg.max_stacks);
}

/* RPERF_VERBOSE with RPERF_ALLOC: the objects followed at the end and
 * what following them costs in memory. */
static void say_followed(void)
{
    size_t followed, peak, bytes;
    rp_allocs_footprint(&followed, &peak, &bytes);
    if (!rp_gc_watch_marks_known())
        rp_log("allocation sampling: no object followed: this Ruby's GC keeps its mark bits elsewhere "
               "than Ruby 3.4's default GC (retained objects are not measured)");
    rp_log("allocation sampling: %zu objects followed at the end, %zu at most, in %zu KB (%.0f bytes "
           "per object at the most); %" PRId64 " sampled objects not followed (RPERF_ALLOC_FOLLOW=%ld)",
           followed, peak, bytes / 1024, peak ? (double)bytes / (double)peak : 0.0,
           rp_allocs_unfollowed(RP_REC_WHOLE), cfg.alloc_follow);
}

static double mean_ms(int64_t total_ns, int64_t count)
{
    return count ? (double)total_ns / (double)count / 1e6 : 0.0;
}

/* GVL held, at exit: writes the profile (or the last part). Unlike a
 * part's, its failure is always printed: it is the last word. */
static bool save_last(const rp_write_request *req, const rp_profile *p, char *path, size_t size)
{
    char why[RP_PATH_MAX + 256];
    bool saved = rp_writer_save(req, p, path, size, why, sizeof(why)) == 0;
    long lost = atomic_load(&parts_failing);
    if (saved)
        report_part(true, NULL);
    else if (lost)
        rp_log("%s; %ld earlier parts were lost too", why, lost);
    else
        rp_log("%s", why);
    return saved;
}

/* RPERF_VERBOSE=1: the summary on stderr. */
static void print_verbose(const rp_profile *p)
{
    rp_out *out = rp_out_stream(stderr, false);
    if (!out)
        return;
    rp_verbose_write(p, out, rp_threads_allocated());
    rp_out_close(out);
}

/* GVL held, at the end of the process (or of its image, at exec): a
 * session the program did not stop ends unwritten, as the gem's does. */
static void close_session_at_end(void)
{
    if (!rp_recording_get(RP_REC_SESSION)->open)
        return;
    rp_ractors_settle();
    rp_recording_close(RP_REC_SESSION);
    rp_aggregator_clear(RP_REC_SESSION);
    rp_allocs_forget(RP_REC_SESSION);
}

/* GVL held, on the thread that ends the process: stops sampling and writes
 * this process's profile, once. */
static void end_profile(void)
{
    end_whole_profile(true);
}

/* GVL held: stops sampling and writes the whole-process profile. At the
 * end of the process (or of its image), a session the program did not
 * stop ends too; otherwise (rperf ctl stop) it goes on. */
static void end_whole_profile(bool at_end)
{
    if (getpid() != owner_pid && atomic_load(&state) != AGENT_DORMANT)
        return;
    int expected = AGENT_ACTIVE;
    bool profiled = atomic_compare_exchange_strong(&state, &expected, AGENT_OFF);
    if (at_end)
        close_session_at_end();
    if (!profiled) {
        /* dormant: only a session's machinery to stop */
        stop_machinery_if_idle();
        return;
    }
    rp_ractors_settle(); /* the Ractors still running count up to here */
    rp_spans_close_open();
    rp_spans_spill_open();
    rp_recording_close(RP_REC_WHOLE);
    if (!stop_machinery_if_idle()) {
        rp_log("the sampling thread did not stop; no profile written for process %ld",
               (long)getpid());
        return;
    }
    rp_aggregator_fold(rp_sample_buf_active());

    rp_fd_reserve_give_back(); /* for a program out of descriptors */
    rp_write_request req = write_request(&whole);
    req.part = cfg.interval ? ++parts_written : 0;
    char path[RP_PATH_MAX + 64];
    rp_profile profile;
    bool wrote = rp_writer_build(&req, &profile) == 0;
    if (cfg.verbose) {
        say_capped(rp_aggregator_tables(RP_REC_WHOLE));
        if (cfg.interval)
            rp_log("%" PRId64 " parts written; the pause a part cost a Ruby thread: mean %.2f ms "
                   "(%.2f ms of its CPU time), longest %.2f ms",
                   parts_written, mean_ms(total_rotation_ns, rotations),
                   mean_ms(total_rotation_cpu_ns, rotations), (double)longest_rotation_ns / 1e6);
    }
    if (cfg.verbose && cfg.alloc_rate)
        say_followed();
    rp_aggregator_clear(RP_REC_WHOLE);
    rp_allocs_forget(RP_REC_WHOLE);
    if (!at_end)
        compact_labels_if_grown();
    wrote = wrote && save_last(&req, &profile, path, sizeof(path));
    snprintf(last_written, sizeof(last_written), "%s", wrote ? path : "");
    if (cfg.verbose)
        print_verbose(&profile);
    rp_profile_free(&profile);
    announce_session(wrote);
}

/* True when the calling thread is this process's profiled Ruby thread
 * holding the GVL: the only place where the profile may be written from
 * an interposed libc call. Cheap and safe in any process and context. */
static bool on_profiled_ruby_thread(void)
{
    return atomic_load(&state) == AGENT_ACTIVE && getpid() == owner_pid && ruby_native_thread_p &&
           ruby_thread_has_gvl_p && ruby_native_thread_p() && ruby_thread_has_gvl_p();
}

/* Interposes _exit(): Kernel#exit! (and Process.daemon's parent) leave
 * through it without running end procs. Every process that preloads the
 * agent passes here, so anything but our own profiled Ruby thread goes
 * straight to the real _exit. */
__attribute__((visibility("default"), noreturn)) void _exit(int status)
{
    if (on_profiled_ruby_thread())
        end_profile();
    /* What glibc's _exit does; a system call needs no symbol lookup, which
     * matters in vfork children and keeps the load of every process cheap. */
    for (;;)
        syscall(SYS_exit_group, status);
}

/* A profile left at exec: Kernel#exec replaces the image without running
 * end procs. If the exec fails, the process goes on and gets a new profile
 * (a new start time, so a new file). Spawn children (fork or vfork, then
 * exec) have a different pid than owner_pid and pass straight through. */
static void before_exec(bool *was_profiling)
{
    *was_profiling = on_profiled_ruby_thread();
    if (*was_profiling)
        end_profile();
}

static void after_failed_exec(bool was_profiling)
{
    if (was_profiling)
        begin_fresh_profile();
}

/* The exec itself: glibc's execve is this system call, and execv is
 * execve with `environ`. The child's environment gets the session (see
 * child_env.h), built on this stack: no allocation, even in a vfork child. */
static int exec_with_child_env(const char *path, char *const argv[], char *const envp[])
{
    bool was_profiling;
    before_exec(&was_profiling);
    char *env[rp_child_env_capacity(envp)];
    char scratch[rp_child_env_scratch_size(envp)];
    char *const *child_env = rp_child_env(envp, env, scratch, sizeof(scratch));
    int rc = (int)syscall(SYS_execve, path, argv, child_env);
    int saved_errno = errno;
    after_failed_exec(was_profiling);
    errno = saved_errno;
    return rc;
}

__attribute__((visibility("default"))) int execve(const char *path, char *const argv[],
                                                  char *const envp[])
{
    return exec_with_child_env(path, argv, envp);
}

__attribute__((visibility("default"))) int execv(const char *path, char *const argv[])
{
    return exec_with_child_env(path, argv, environ);
}

/* execl and execle (Ruby runs shell commands with them): the variadic
 * arguments become an argv array on the stack. */
static size_t count_args(va_list ap)
{
    size_t n = 1; /* arg0 */
    while (va_arg(ap, const char *))
        n++;
    return n;
}

static void collect_args(const char *arg0, va_list ap, char **argv, size_t n)
{
    argv[0] = (char *)arg0;
    for (size_t i = 1; i < n; i++)
        argv[i] = va_arg(ap, char *);
    argv[n] = NULL;
}

__attribute__((visibility("default"))) int execl(const char *path, const char *arg0, ...)
{
    va_list ap, count;
    va_start(ap, arg0);
    va_copy(count, ap);
    size_t n = count_args(count); /* glibc declares arg0 non-null */
    va_end(count);
    char *argv[n + 1];
    collect_args(arg0, ap, argv, n);
    va_end(ap);
    return exec_with_child_env(path, argv, environ);
}

__attribute__((visibility("default"))) int execle(const char *path, const char *arg0, ...)
{
    va_list ap, count;
    va_start(ap, arg0);
    va_copy(count, ap);
    size_t n = count_args(count);
    va_end(count);
    char *argv[n + 1];
    collect_args(arg0, ap, argv, n);
    char *const *envp = va_arg(ap, char *const *); /* after the NULL */
    va_end(ap);
    return exec_with_child_env(path, argv, envp);
}

/* --- fork ------------------------------------------------------------------ */

/* pthread_atfork child handler — in the child, right after fork(), single
 * threaded, before Ruby's own after-fork work. Only resets state and asks
 * for a restart at the first safepoint: Ruby carries triggered postponed
 * jobs over fork (rb_vm_postponed_job_atfork). A child that only execs
 * (spawn, system) never reaches a safepoint and so never restarts. A
 * session of the Rperf API ends here; the API begins it again in the
 * child when it follows forks (agent.h). */
static void on_fork_child(void)
{
    rp_aggregator_after_fork(); /* the lock taken before fork */
    int was = atomic_load(&state);
    session_at_fork = rp_recording_get(RP_REC_SESSION)->open;
    if (was != AGENT_ACTIVE && !session_at_fork)
        return;
    rp_sampler_after_fork(); /* every recording closed, counters from zero */
    rp_allocs_after_fork();
    rp_spans_after_fork();
    rp_ractors_after_fork();
    rp_worker_forget();
    rp_gvl_holder_forget();
    if (was != AGENT_ACTIVE)
        return; /* dormant, and stays so */
    owner_pid = 0;
    atomic_store(&state, cfg.inherit ? AGENT_RESTART_PENDING : AGENT_OFF);
    if (cfg.inherit)
        rb_postponed_job_trigger(restart_job);
}

/* Postponed job — the fork child's main thread, GVL held. The thread that
 * forked is the only one here; its record, still of the parent's
 * generation, says which profile blocks are open. */
static void restart_in_fork_child(void *unused)
{
    (void)unused;
    if (atomic_load(&state) != AGENT_RESTART_PENDING)
        return;
    session.is_root = false;
    rp_defer_after_fork(rp_threads_find(rb_thread_current()));
    begin_fresh_profile();
}

/* --- the Rperf API's view (agent.h) ---------------------------------------- */

bool rp_agent_profiling(void)
{
    /* A fork child's profile begins at its first safepoint; the program
     * may call the API before that: begin it now. */
    restart_in_fork_child(NULL);
    /* No getpid() (a system call, about as costly as a labelled block):
     * Ruby forks through fork(), whose child handler leaves ACTIVE at
     * once, and no Ruby code runs in a vfork child. */
    return atomic_load(&state) == AGENT_ACTIVE;
}

bool rp_agent_session_is_open(void)
{
    return rp_recording_get(RP_REC_SESSION)->open;
}

bool rp_agent_take_session_at_fork(void)
{
    bool was = session_at_fork;
    session_at_fork = false;
    return was;
}

const rp_config *rp_agent_config(void)
{
    return &cfg;
}

const char *rp_agent_session_dir(void)
{
    return cfg.dormant || !session.dir[0] ? NULL : session.dir;
}

int rp_agent_session_open(const rp_session_opts *o)
{
    restart_in_fork_child(NULL);
    if (atomic_load(&state) == AGENT_OFF || rp_agent_session_is_open())
        return -1;
    rp_aggregator_begin(RP_REC_SESSION, o->rec.aggregate, (size_t)cfg.max_stacks);
    rp_recording_open(RP_REC_SESSION, &o->rec, o->rec.deferred && rp_defer_pauses());
    rp_allocs_begin(RP_REC_SESSION);
    rp_spans_begin_recording(RP_REC_SESSION);
    /* its times and the process's CPU time from now (counters are zero) */
    session_start.recording = RP_REC_SESSION;
    rp_window_begin_part(&session_start);
    session_start.profile = ++session_serial;
    rp_sampler_start_clock(RP_REC_SESSION);
    if (start_machinery(o->signal < 0 ? cfg.timer_signal : o->signal) != 0) {
        rp_agent_session_close();
        return -1;
    }
    return 0;
}

void rp_agent_session_close(void)
{
    if (!rp_agent_session_is_open())
        return;
    rp_recording_close(RP_REC_SESSION);
    rp_aggregator_clear(RP_REC_SESSION);
    rp_allocs_forget(RP_REC_SESSION);
    compact_labels_if_grown();
    stop_machinery_if_idle();
}

/* The window a recording's profile starts at, and its current serial. */
static const rp_window *start_of(rp_rec_id id)
{
    return id == RP_REC_WHOLE ? &whole : &session_start;
}

/* GVL held: the calling thread's time up to now goes into the tables
 * before a window opens or is read. Otherwise its edge would fall at the
 * thread's next tick, which on a loaded machine can come tens of ms late,
 * and that stretch would land on the wrong side of Rperf.start/stop. */
static void charge_caller(rp_rec_id id)
{
    rp_sampler_charge_current(id);
}

int rp_agent_open_window(rp_rec_id id, rp_window *w)
{
    charge_caller(id);
    rp_spans_spill_open(); /* samples buffered before the window are not of it */
    rp_aggregator_hold();
    int rc = rp_window_begin_at(w, id);
    rp_aggregator_release();
    if (rc == 0)
        w->profile = start_of(id)->profile;
    return rc;
}

struct build_args {
    rp_write_request req;
    rp_profile *profile;
    int rc;
};

static VALUE build_held(VALUE arg)
{
    struct build_args *a = (struct build_args *)arg;
    a->rc = rp_writer_build(&a->req, a->profile);
    return Qnil;
}

int rp_agent_build_window(rp_rec_id id, const rp_window *w, rp_profile *p)
{
    /* A window of an earlier profile (before a fork) means this one whole. */
    const rp_window *from = w && w->recording == id && w->profile == start_of(id)->profile ? w : start_of(id);
    struct build_args args = {.req = write_request(from), .profile = p, .rc = -1};
    int raised = 0;
    charge_caller(id);
    rp_spans_spill_open();
    rp_aggregator_hold();
    /* Resolving frames allocates Ruby strings; should that raise, the
     * worker must still be let go before the exception goes on. */
    rb_protect(build_held, (VALUE)&args, &raised);
    rp_aggregator_release();
    if (raised)
        rb_jump_tag(raised);
    return args.rc;
}

void rp_agent_clear_labels(void)
{
    rp_threads_each(clear_thread_labels, NULL);
}

/* --- commands from outside: rperf attach, rperf ctl (remote.h) -------------- */

bool rp_agent_started(void)
{
    return agent_started;
}

/* Any thread (async-signal-safe: kill(2)): the rperf that started the
 * remote profile is gone. */
static bool remote_watcher_gone(void)
{
    return remote_watch_pid && kill(remote_watch_pid, 0) != 0 && errno == ESRCH;
}

/* Worker thread, once a second while a remote profile runs (the slot of
 * RPERF_INTERVAL's parts, which a remote profile does not use).
 * Async-signal-safe: kill(2) and a postponed-job trigger. */
static void check_remote_profile(void)
{
    bool gone = remote_watcher_gone();
    bool late = remote_until_ns && rp_monotonic_ns() > remote_until_ns;
    if (gone || late) {
        rb_postponed_job_trigger(remote_end_job);
        rp_gvl_holder_interrupt();
    }
}

/* The worker's periodic call as the whole profile wants it: parts with
 * RPERF_INTERVAL, the safety net of a remote profile, or none. */
static void set_worker_rotation(void)
{
    if (remote_profile)
        rp_worker_set_rotation(1000000000LL, check_remote_profile);
    else if (!cfg.dormant && cfg.interval)
        rp_worker_set_rotation(cfg.interval * 1000000000LL, ask_for_part);
    else
        rp_worker_set_rotation(0, NULL);
}

/* Postponed job — a Ruby thread, GVL held: the rperf that started the
 * remote profile is gone, or its time is up; it ends and is written, and
 * the agent's log says where. */
static void end_remote_profile(void *unused)
{
    (void)unused;
    if (!remote_profile || atomic_load(&state) != AGENT_ACTIVE || getpid() != owner_pid)
        return;
    bool gone = remote_watcher_gone();
    char path[RP_PATH_MAX + 64], why[RP_PATH_MAX + 256];
    if (rp_agent_remote_stop(path, sizeof(path), why, sizeof(why)) == 0)
        rp_log("the recording ended: %s; its profile is %s",
               gone ? "the rperf that started it is gone" : "its time limit passed", path);
}

int rp_agent_start_attached(void)
{
    if (!agent_started) {
        attached = true;
        start_agent();
    }
    return atomic_load(&state) == AGENT_OFF ? -1 : 0;
}

bool rp_agent_attached(void)
{
    return attached;
}

const char *rp_agent_status(void)
{
    switch (atomic_load(&state)) {
    case AGENT_ACTIVE:
        return remote_profile ? "recording" : "recording the whole process";
    case AGENT_DORMANT:
        return rp_agent_session_is_open() ? "dormant, a session of the Rperf API recording" : "dormant";
    default:
        return "off";
    }
}

int rp_agent_remote_start(const rp_remote_start *o, char *why, size_t size)
{
    restart_in_fork_child(NULL);
    int now = atomic_load(&state);
    if (stood_aside) {
        snprintf(why, size, "the program has a handler of its own on signal %d, the agent's timer "
                 "(the rperf gem's own profiler?): the agent stood aside in this process",
                 cfg.timer_signal);
        return -1;
    }
    if (now == AGENT_ACTIVE) {
        snprintf(why, size, remote_profile ? "already recording (stop it with: rperf ctl %ld stop)"
                                           : "this process is profiled from its start already",
                 (long)getpid());
        return -1;
    }
    if (now != AGENT_DORMANT) {
        snprintf(why, size, "the agent is off in this process (a bad RPERF_* value, or its profile ended)");
        return -1;
    }
    if (rp_agent_session_is_open()) {
        snprintf(why, size, "a session of the Rperf API is recording (Rperf.start); it must stop first");
        return -1;
    }
    rp_session chosen;
    const char *reason = rp_session_use(&chosen, o->dir);
    if (reason) {
        snprintf(why, size, "cannot use directory %s: %s", o->dir, reason);
        return -1;
    }
    cfg_before_remote = cfg;
    session = chosen;
    cfg.mode = o->mode;
    cfg.frequency = o->frequency;
    cfg.alloc_rate = o->alloc_rate;
    cfg.interval = 0;
    cfg.defer = false;
    cfg.quiet = true;
    cfg.dormant = false;
    remote_profile = true;
    remote_watch_pid = o->watch_pid;
    remote_until_ns = o->limit_s > 0 ? rp_monotonic_ns() + o->limit_s * 1000000000LL : 0;
    if (remote_end_job == POSTPONED_JOB_HANDLE_INVALID)
        remote_end_job = rb_postponed_job_preregister(0, end_remote_profile, NULL);
    set_worker_rotation();
    begin_profile();
    if (atomic_load(&state) != AGENT_ACTIVE) {
        cfg = cfg_before_remote;
        remote_profile = false;
        set_worker_rotation();
        atomic_store(&state, AGENT_DORMANT);
        snprintf(why, size, "the sampling thread could not start");
        return -1;
    }
    return 0;
}

int rp_agent_remote_stop(char *path, size_t size, char *why, size_t wsize)
{
    if (atomic_load(&state) != AGENT_ACTIVE || getpid() != owner_pid) {
        snprintf(why, wsize, "not recording");
        return -1;
    }
    end_whole_profile(false);
    if (remote_profile)
        cfg = cfg_before_remote;
    remote_profile = false;
    set_worker_rotation();
    /* The agent stays, dormant, for the next start. */
    atomic_store(&state, AGENT_DORMANT);
    if (!last_written[0]) {
        snprintf(why, wsize, "the profile could not be written (see the agent's log)");
        return -1;
    }
    snprintf(path, size, "%s", last_written);
    return 0;
}

int rp_agent_remote_snapshot(const char *dir, char *path, size_t size, char *why, size_t wsize)
{
    if (atomic_load(&state) != AGENT_ACTIVE || getpid() != owner_pid) {
        snprintf(why, wsize, "not recording");
        return -1;
    }
    rp_session into;
    const char *reason = rp_session_use(&into, dir);
    if (reason) {
        snprintf(why, wsize, "cannot use directory %s: %s", dir, reason);
        return -1;
    }
    rp_profile p;
    int rc = rp_agent_build_window(RP_REC_WHOLE, NULL, &p);
    if (rc == 0) {
        rp_write_request req = write_request(&whole);
        req.session = &into;
        rc = rp_writer_save(&req, &p, path, size, why, wsize);
    } else {
        snprintf(why, wsize, "the profile could not be built (see the agent's log)");
    }
    rp_profile_free(&p);
    return rc;
}

/* --- load ------------------------------------------------------------------ */

/* Library constructor — runs in every process that preloads the agent,
 * Ruby or not, before main(), and in a process rperf attach loads it into
 * (on the thread it borrowed, remote.h). It must stay silent and cheap: it
 * takes the session variable out of the environment (child_env.h) and
 * notices a `ruby` that defines ruby_init itself (a static build), whose
 * calls never reach our ruby_init. */
__attribute__((constructor)) static void on_load(void)
{
    rp_child_env_adopt();

    /* Our own address of ruby_init would be interposed too, so compare the
     * objects the symbols live in rather than the addresses. */
    Dl_info resolved_in, agent_in;
    void *resolved = dlsym(RTLD_DEFAULT, "ruby_init");
    static_ruby = resolved && dladdr(resolved, &resolved_in) && dladdr((void *)on_load, &agent_in) &&
                  resolved_in.dli_fbase != agent_in.dli_fbase;
}
