/*
 * agent/base/fd_reserve.h — a file descriptor kept back for writing the profile.
 *
 * Owns: one descriptor the agent opens when a profile begins (the session
 * directory, read-only) and gives back just before writing the profile, so
 * that a program that used up its descriptors (EMFILE: Ruby's own
 * TestIO#test_dup_many opens pipes until it fails, and keeps them open
 * until exit) still gets its profile written. The program hits its limit
 * one descriptor earlier, which it cannot tell from a limit one lower.
 * A descriptor the program closed and reused meanwhile (the number now
 * names another file) is never closed by the agent.
 * Context: GVL held (a profile's beginning, the end of the profile); a
 * fork child holds its own copy of the parent's.
 */
#ifndef RPERF_AGENT_FD_RESERVE_H
#define RPERF_AGENT_FD_RESERVE_H

/* Holds a descriptor on `dir`, unless one is held already. */
void rp_fd_reserve_take(const char *dir);

/* Gives the descriptor back (closes it) if it is still the agent's. */
void rp_fd_reserve_give_back(void);

#endif
