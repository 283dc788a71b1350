/*
 * agent/control/life.c — the agent's life inside a process. See life.h.
 *
 * Owns: hooking into Ruby (interposed ruby_init, and getenv for a static
 * ruby), starting the agent in the process (and, unless dormant, its
 * whole-process profile, whole.c), the end proc that ends it, what happens
 * at fork, loading late for rperf attach, and standing aside when the
 * program takes the agent's timer signal. Everything else is delegated:
 * config.c reads RPERF_*, session.c finds the directory,
 * sampler.c/worker.c/aggregator.c record, writer.c writes; in control/,
 * whole.c begins and ends the whole profile, parts.c writes
 * RPERF_INTERVAL's parts, exec.c interposes the exits and execs, agent.c
 * serves the Rperf API, remote_profile.c rperf attach and ctl.
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
 * at_exit handler), or, for exit!, from the interposed _exit() (exec.c).
 *
 * Naming across the agent: a profile (what one file covers) begins and
 * ends (begin_profile, end_profile); a mechanism is started and stopped
 * (the worker thread, the timer, the hooks, the sampler's accepting
 * samples: rp_*_start / rp_*_stop).
 */
#include "life.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../allocations/allocations.h"
#include "../base/child_env.h"
#include "../base/log.h"
#include "../base/ruby_api.h"
#include "../base/ruby_lib.h"
#include "../base/ruby_version.h"
#include "../profiles/procstats.h"
#include "../requests/spans.h"
#include "../sampling/aggregator.h"
#include "../sampling/labels.h"
#include "../sampling/sample_buf.h"
#include "../sampling/sampler.h"
#include "../sampling/worker.h"
#include "../vm/gc_watch.h"
#include "../vm/gvl_holder.h"
#include "../vm/liveness.h"
#include "../vm/ractors.h"
#include "../vm/thread_cpu.h"
#include "../vm/threads.h"
#include "parts.h"
#include "remote_profile.h"
#include "whole.h"

static rb_postponed_job_handle_t restart_job = POSTPONED_JOB_HANDLE_INVALID;
static rb_postponed_job_handle_t step_aside_job = POSTPONED_JOB_HANDLE_INVALID;
static rb_postponed_job_handle_t stand_down_job = POSTPONED_JOB_HANDLE_INVALID;
static bool static_ruby; /* the program has Ruby linked in (on_load) */

/* --- starting ------------------------------------------------------------ */

/* End proc — runs on the main thread with the GVL, after the program's own
 * at_exit handlers (registered later, run earlier). */
static void on_ruby_exit(VALUE unused)
{
    (void)unused;
    rp_whole_end_profile();
}

static void on_fork_child(void);
static void stand_down_in_fork_child(void *unused);
static void step_aside(void *unused);
static void gem_started(void);

/* Main thread in ruby_init (or, attached, the command's postponed job):
 * in a Ruby other than the one the agent was built for, nothing of the
 * agent starts, whatever was asked; a process asked to record (not a
 * dormant one, which may never be) is told in one line. */
static bool ruby_is_profilable(void)
{
    if (rp_ruby_is_built_for())
        return true;
    if (!agent.cfg.dormant || agent.attached) {
        char why[512];
        rp_ruby_version_mismatch(why, sizeof(why));
        rp_log("%s", why);
    }
    return false;
}

static void start_agent(void)
{
    Dl_info self;
    agent.started = true;
    if (rp_config_load(&agent.cfg) != 0 || !ruby_is_profilable())
        return;
    if (agent.attached) {
        /* Nothing of the program's may change: dormant until asked, no
         * word on its stderr, nothing added to $LOAD_PATH. */
        agent.cfg.dormant = agent.cfg.quiet = true;
        agent.cfg.verbose = false;
        agent.cfg.interval = 0;
    }
    if (!agent.cfg.dormant && rp_session_open(&agent.session) != 0)
        return;
    if (!agent.cfg.dormant && dladdr((void *)start_agent, &self) && self.dli_fname)
        rp_child_env_init(agent.session.dir, agent.session.root_pid, agent.cfg.inherit, self.dli_fname);
    rp_procstats_capture_command();
    rp_procstats_set_meta(agent.cfg.meta_git, agent.cfg.meta_labels);
    rp_thread_cpu_init();
    if (rp_threads_init() != 0 || rp_sampler_init() != 0)
        return;
    rp_ractors_init();
    if (agent.cfg.verbose && !rp_gvl_holder_usable())
        rp_log("this Ruby's thread structures are not the ones rperf knows (Ruby 3.4's and 4.0's); "
               "a thread that starts running while another thread is starting may go "
               "unsampled until its first GVL switch");
    rp_gc_watch_init(); /* before liveness, which reads its counts */
    rp_liveness_init();
    if (rp_sample_buf_init(agent.cfg.lines) != 0 || rp_labels_init() != 0 ||
        rp_allocs_init(agent.cfg.alloc_follow, agent.cfg.lines, agent.cfg.alloc_window) != 0) {
        rp_log("cannot profile: out of memory");
        return;
    }
    rp_spans_init(agent.cfg.slow_keep, agent.cfg.slow_ms, agent.cfg.lines);
    if (!agent.attached)
        rp_ruby_lib_install(agent.cfg.verbose);
    restart_job = rb_postponed_job_preregister(0, rp_whole_restart_in_fork_child, NULL);
    step_aside_job = rb_postponed_job_preregister(0, step_aside, NULL);
    stand_down_job = rb_postponed_job_preregister(0, stand_down_in_fork_child, NULL);
    rp_parts_init(); /* rperf ctl start may begin a whole profile later */
    rp_worker_watch_gem(agent.cfg.gem_signal, gem_started);
    pthread_atfork(rp_aggregator_before_fork, rp_aggregator_after_fork_parent, on_fork_child);
    rb_set_end_proc(on_ruby_exit, Qnil);
    if (agent.cfg.dormant) {
        /* Nothing runs until the program starts a session (Rperf.start). */
        atomic_store(&agent.state, AGENT_DORMANT);
        return;
    }
    rp_remote_profile_set_rotation();
    rp_whole_begin_profile();
}

/* Postponed job — a Ruby thread, GVL held: the rperf gem's own profiler
 * has started (the program loads the gem's lib instead of the agent's
 * API; its Rperf.start puts its handler on its timer signal). Two
 * profilers would double the cost, and the gem's stop tidies away the
 * session directory it finds in RPERF_SESSION_DIR: the program's own
 * profiler has the process from here. The agent's recording ends and is
 * written now, while its directory is there, and no command starts
 * another. */
static void step_aside(void *unused)
{
    (void)unused;
    if (agent.stood_aside || getpid() != agent.owner_pid)
        return;
    agent.stood_aside = true;
    char path[RP_PATH_MAX + 64] = "", why[RP_PATH_MAX + 256] = "";
    if (agent.remote_profile && atomic_load(&agent.state) == AGENT_ACTIVE)
        rp_agent_remote_stop(path, sizeof(path), why, sizeof(why));
    else if (atomic_load(&agent.state) == AGENT_ACTIVE)
        rp_whole_end_whole_profile(false);
    else
        rp_whole_stop_machinery_if_idle();
    const char *written = path[0] ? path : agent.last_written;
    rp_log("process %ld started the rperf gem's own profiler (its lib loaded instead of the agent's "
           "API; its handler is on signal %d): the agent stands aside; its profile ends here%s%s",
           (long)getpid(), agent.cfg.gem_signal, written[0] ? ", written to " : "", written);
}

/* Worker thread (async-signal-safe): see step_aside. */
static void gem_started(void)
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
    if (!agent.started)
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
    if (static_ruby && !agent.started && name[0] == 'R' &&
        strcmp(name, "RUBY_FREE_AT_EXIT") == 0 && ruby_native_thread_p && ruby_thread_has_gvl_p &&
        ruby_native_thread_p() && ruby_thread_has_gvl_p())
        start_agent();
    return find_in_environment(name);
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
    int was = atomic_load(&agent.state);
    agent.session_at_fork = rp_recording_get(RP_REC_SESSION)->open;
    if (was != AGENT_ACTIVE && !agent.session_at_fork)
        return;
    rp_sampler_after_fork(); /* every recording closed, counters from zero */
    rp_allocs_after_fork();
    rp_spans_after_fork();
    rp_ractors_after_fork();
    rp_worker_forget();
    rp_gvl_holder_forget();
    if (was != AGENT_ACTIVE)
        return; /* dormant, and stays so */
    agent.owner_pid = 0;
    atomic_store(&agent.state, agent.cfg.inherit ? AGENT_RESTART_PENDING : AGENT_OFF);
    rb_postponed_job_trigger(agent.cfg.inherit ? restart_job : stand_down_job);
}

/* Postponed job — the first safepoint of a fork child that is not
 * profiled (RPERF_INHERIT=0), GVL held: the parent's hooks (allocations,
 * GC phases, thread events, fiber switches), which the child inherited
 * with its memory, are removed, so that nothing of the agent runs in it.
 * Its recordings were all closed at the fork. */
static void stand_down_in_fork_child(void *unused)
{
    (void)unused;
    if (atomic_load(&agent.state) == AGENT_OFF && !rp_recordings_any_open())
        rp_whole_stop_machinery_if_idle();
}


/* --- loaded late, by rperf attach (remote.c) ---------------------------- */

bool rp_agent_started(void)
{
    return agent.started;
}

int rp_agent_start_attached(void)
{
    if (!agent.started) {
        agent.attached = true;
        start_agent();
    }
    return atomic_load(&agent.state) == AGENT_OFF ? -1 : 0;
}

bool rp_agent_attached(void)
{
    return agent.attached;
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
