/*
 * agent/control/remote.h — commands from outside the process: rperf attach, rperf
 * detach and rperf ctl.
 *
 * Owns: rperf_remote(), the one entry point rperf-attach (attach/) calls
 * inside the process, on a thread it has stopped with ptrace; handing the
 * command over to a postponed job, which runs it with the GVL; the
 * command's grammar; the reply file rperf waits for.
 *
 * A command is lines of text: a verb, then key=value lines
 * (remote_command.h parses them).
 *
 *   start      dir=D mode=cpu|wall frequency=HZ [alloc=N] [watch=PID]
 *              [limit_s=S] (it ends by itself, written into D, once
 *              process PID is gone or after S seconds)
 *   stop       (the profile is written into the start's D)
 *   snapshot   dir=D (the profile so far, written into D)
 *   status
 *
 * and always reply=FILE (where the one-line answer goes: "ok ..." or
 * "error ...") and expires=NS (CLOCK_MONOTONIC): a command whose job runs
 * later than that is dropped, as rperf has given up waiting and said so.
 */
#ifndef RPERF_AGENT_REMOTE_H
#define RPERF_AGENT_REMOTE_H

/* The longest command, and rperf_remote()'s answers (attach/ says them). */
#define RP_REMOTE_MAX 8192
enum {
    RP_REMOTE_ACCEPTED = 0,
    RP_REMOTE_BUSY = 1,      /* an earlier command still waits for its job */
    RP_REMOTE_TOO_LONG = 2,
    RP_REMOTE_NO_RUBY = 3,   /* no Ruby VM running in this process (yet) */
    RP_REMOTE_NO_JOB = 4,    /* Ruby's postponed-job table is full */
};

/* On a borrowed thread (Ruby's timer thread, stopped by ptrace in a
 * system call; no GVL): copies `command` and triggers the job that runs
 * it at the next safepoint. Returns at once, one of the values above in
 * *answer (memory rperf-attach reads: it never catches a register). */
void rperf_remote(const char *command, int *answer);

#endif
