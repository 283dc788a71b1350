/*
 * rperf/serve.h — a page served over HTTP: `rperf report --host/--port`.
 *
 * Owns: a small HTTP/1.1 server of one file, for a page looked at through
 * SSH port forwarding (ssh -L 8080:localhost:8080 host) or from another
 * machine: GET or HEAD of "/" (or "/index.html") answers the page, any
 * other path 404, any other method 405; one connection at a time, each
 * closed after its answer, a request read for at most 10 s. It runs in
 * the foreground until SIGINT or SIGTERM (Ctrl-C), then returns 0.
 */
#ifndef RPERF_RPERF_SERVE_H
#define RPERF_RPERF_SERVE_H

/* The port --port names, 1..65535; -1 when it names none. */
int rperf_parse_port(const char *text);

/* Serves the file `page` on `host` (NULL: localhost) and `port` (0: one
 * the system picks), saying where on stderr (and warning that anyone who
 * can reach a host other than the loopback can read the profile).
 * Returns 0 once stopped by SIGINT/SIGTERM, 1 when it could not listen
 * (said: a port in use, a host that does not resolve) or read the page. */
int rperf_serve_page(const char *page, const char *host, int port);

#endif
