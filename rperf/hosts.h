/*
 * rperf/hosts.h — which names a request to the served viewer may give in
 * its Host header.
 *
 * Owns: the names `rperf report`'s server answers to. A web page the user
 * visits can make the browser ask any address, and with DNS rebinding, a
 * name of the attacker's that resolves to 127.0.0.1 reaches the server
 * bound there; the browser then lets that page read the answers as its
 * own. The Host header names what the browser thinks it asked, so a
 * server that answers only its own names leaves such a page nothing to
 * read: on the loopback `localhost`, `127.0.0.1` and `[::1]`; bound to
 * another address, that address too; bound to every address (0.0.0.0,
 * ::), the machine's host name and addresses as well; and any name given
 * with --allow-host. The port is not compared.
 *
 * Context: rperf's own process; the list is made before serving, then
 * only read by the connections' threads.
 */
#ifndef RPERF_RPERF_HOSTS_H
#define RPERF_RPERF_HOSTS_H

#define RPERF_HOSTS_MAX 64
#define RPERF_HOST_NAME_MAX 256

typedef struct rperf_hosts {
    char names[RPERF_HOSTS_MAX][RPERF_HOST_NAME_MAX]; /* lower case */
    int count;
} rperf_hosts;

/* --allow-host NAME: a name the server answers to besides its own
 * (before serving). Returns 0, or -1 when NAME is empty or too long, or
 * too many were given. */
int rperf_hosts_allow(const char *name);

/* The names a server bound to `bind_host` answers to, with those of
 * rperf_hosts_allow. */
void rperf_hosts_for_bind(rperf_hosts *h, const char *bind_host);

/* Checks the Host header of `request` (its head, NUL-terminated): 0 when
 * it names one of `h`, 403 when it names another, 400 when it has none. */
int rperf_hosts_check(const rperf_hosts *h, const char *request);

#endif
