/*
 * agent/control/remote_command.h — the grammar of the commands rperf attach and
 * rperf ctl send (remote.h lists them).
 *
 * Owns: splitting a command's text into its verb and values and refusing
 * anything malformed. No Ruby, no state: unit-tested on its own.
 */
#ifndef RPERF_AGENT_REMOTE_COMMAND_H
#define RPERF_AGENT_REMOTE_COMMAND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct rp_remote_request {
    char verb[16];          /* start, stop, snapshot, status */
    const char *dir;        /* start, snapshot: where the profile goes */
    const char *reply;      /* an absolute path: where the answer goes */
    const char *mode;       /* start: "cpu" or "wall" */
    long frequency;         /* start: Hz (default RP_FREQUENCY_DEFAULT) */
    long alloc;             /* start: one allocation in N sampled, 0: none */
    long watch;             /* start: the pid of the rperf that waits, 0: none */
    long limit_s;           /* start: seconds the recording may last, 0: no limit */
    int64_t expires_ns;     /* CLOCK_MONOTONIC; 0: never */
} rp_remote_request;

/* Splits `command` (its lines are cut in place: the values point into
 * it) into *r. False with why[] when it is malformed; r->reply is still
 * set when the command named one, so the refusal can be answered. */
bool rp_remote_parse(char *command, rp_remote_request *r, char *why, size_t size);

#endif
