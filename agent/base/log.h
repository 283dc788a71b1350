/*
 * agent/base/log.h — the agent's messages on stderr.
 *
 * Owns: how the agent talks to the user: one line, prefixed "rperf: ",
 * written with a single write(2) so lines from concurrent processes do not
 * interleave. Safe in any context except a signal handler (vsnprintf).
 */
#ifndef RPERF_AGENT_LOG_H
#define RPERF_AGENT_LOG_H

void rp_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* From now on lines go to `fd` (an agent loaded by rperf attach writes
 * them where rperf reads them, never onto the program's stderr); -1:
 * stderr again. The previous file is closed. */
void rp_log_redirect(int fd);

#endif
