/*
 * agent/control/remote.c — commands from outside the process. See remote.h.
 *
 * Contexts: rperf_remote() runs on a thread rperf-attach borrowed — it
 * holds no GVL and may be any native thread, so it touches only this
 * file's hand-over slot and Ruby's postponed-job table (atomic, callable
 * from any thread). Everything else runs in the postponed job: a Ruby
 * thread of the main Ractor, GVL held.
 */
#include "remote.h"
#include "remote_command.h"

#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "life.h"
#include "remote_profile.h"
#include "../base/log.h"
#include "../base/ruby_api.h"
#include "../base/ruby_version.h"
#include "../sampling/sampler.h"
#include "../profiles/session.h"

/* The hand-over slot: rperf_remote writes, the job reads. */
enum { SLOT_FREE, SLOT_WRITING, SLOT_READY, SLOT_TAKEN };
static atomic_int slot_state = SLOT_FREE;
static char slot[RP_REMOTE_MAX];
static _Atomic int64_t slot_expires_ns;
static _Atomic rb_postponed_job_handle_t job = POSTPONED_JOB_HANDLE_INVALID;

static void run_command(void *unused);

static int64_t expiry_of(const char *command)
{
    const char *at = strstr(command, "\nexpires=");
    return at ? strtoll(at + 9, NULL, 10) : 0;
}

/* Takes the slot: free, or holding a command nobody waits for any more. */
static bool take_slot(void)
{
    int expected = SLOT_FREE;
    if (atomic_compare_exchange_strong(&slot_state, &expected, SLOT_WRITING))
        return true;
    expected = SLOT_READY;
    return rp_monotonic_ns() > atomic_load(&slot_expires_ns) &&
           atomic_compare_exchange_strong(&slot_state, &expected, SLOT_WRITING);
}

static int hand_over(const char *command)
{
    size_t n = strnlen(command, RP_REMOTE_MAX);
    if (n == RP_REMOTE_MAX)
        return RP_REMOTE_TOO_LONG;
    /* rb_cObject is set by Ruby's first Init_ and never cleared: a VM
     * that takes jobs. Only the Ruby this agent is built for. */
    if (!&rb_cObject || !rb_cObject || !rp_ruby_is_built_for())
        return RP_REMOTE_NO_RUBY;
    if (!take_slot())
        return RP_REMOTE_BUSY;
    memcpy(slot, command, n + 1);
    atomic_store(&slot_expires_ns, expiry_of(slot));
    rb_postponed_job_handle_t h = atomic_load(&job);
    if (h == POSTPONED_JOB_HANDLE_INVALID) {
        h = rb_postponed_job_preregister(0, run_command, NULL);
        atomic_store(&job, h);
    }
    if (h == POSTPONED_JOB_HANDLE_INVALID) {
        atomic_store(&slot_state, SLOT_FREE);
        return RP_REMOTE_NO_JOB;
    }
    atomic_store(&slot_state, SLOT_READY);
    rb_postponed_job_trigger(h);
    return RP_REMOTE_ACCEPTED;
}

__attribute__((visibility("default"))) void rperf_remote(const char *command, int *answer)
{
    *answer = hand_over(command);
}

/* --- the job --------------------------------------------------------------- */

/* An attached agent's messages go to DIR/agent.log, for rperf to show. */
static void log_into(const char *dir)
{
    if (!rp_agent_attached())
        return;
    char path[RP_PATH_MAX + 16];
    snprintf(path, sizeof(path), "%s/agent.log", dir);
    int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd >= 0)
        rp_log_redirect(fd);
}

/* Runs the request; answer[] gets what follows "ok " or "error ". */
static bool execute(const rp_remote_request *r, char *answer, size_t size)
{
    char path[RP_PATH_MAX + 64];
    if (rp_agent_start_attached() != 0) {
        snprintf(answer, size, "the agent cannot run in this process");
        return false;
    }
    if (strcmp(r->verb, "status") == 0) {
        snprintf(answer, size, "%s", rp_agent_status());
        return true;
    }
    if (strcmp(r->verb, "start") == 0) {
        log_into(r->dir);
        rp_remote_start o = {.dir = r->dir, .mode = strcmp(r->mode, "wall") == 0 ? RP_MODE_WALL : RP_MODE_CPU,
                             .frequency = (int)r->frequency, .alloc_rate = r->alloc,
                             .watch_pid = (pid_t)r->watch, .limit_s = r->limit_s};
        if (rp_agent_remote_start(&o, answer, size) != 0)
            return false;
        snprintf(answer, size, "recording process %ld", (long)getpid());
        return true;
    }
    bool ok = strcmp(r->verb, "stop") == 0
                  ? rp_agent_remote_stop(path, sizeof(path), answer, size) == 0
                  : rp_agent_remote_snapshot(r->dir, path, sizeof(path), answer, size) == 0;
    if (ok)
        snprintf(answer, size, "%s", path);
    return ok;
}

/* The answer, written whole or not at all (rperf reads it once it is there). */
static void write_reply(const char *reply, bool ok, const char *answer)
{
    char tmp[RP_PATH_MAX + 16];
    snprintf(tmp, sizeof(tmp), "%s.tmp", reply);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd < 0)
        return;
    char line[RP_PATH_MAX + 512];
    int n = snprintf(line, sizeof(line), "%s %s\n", ok ? "ok" : "error", answer);
    bool written = n > 0 && write(fd, line, (size_t)n) == n;
    if (close(fd) != 0 || !written || rename(tmp, reply) != 0)
        unlink(tmp);
}

/* Postponed job — a Ruby thread of the main Ractor, GVL held. */
static void run_command(void *unused)
{
    (void)unused;
    char command[RP_REMOTE_MAX];
    int expected = SLOT_READY;
    if (!atomic_compare_exchange_strong(&slot_state, &expected, SLOT_TAKEN))
        return;
    memcpy(command, slot, sizeof(command));
    atomic_store(&slot_state, SLOT_FREE);

    rp_remote_request r;
    char answer[RP_PATH_MAX + 256];
    bool ok = rp_remote_parse(command, &r, answer, sizeof(answer));
    if (!r.reply)
        return; /* nowhere to answer: nobody could be told */
    if (r.expires_ns && rp_monotonic_ns() > r.expires_ns)
        return; /* rperf gave up on it, and said so */
    int64_t began = rp_monotonic_ns();
    if (ok)
        ok = execute(&r, answer, sizeof(answer));
    if (ok && strcmp(r.verb, "start") == 0) {
        size_t n = strlen(answer);
        snprintf(answer + n, sizeof(answer) - n, " (the start took %.2f ms of a Ruby thread)",
                 (double)(rp_monotonic_ns() - began) / 1e6);
    }
    write_reply(r.reply, ok, answer);
}
