/*
 * rperf/serve.h — pages served over HTTP: `rperf report --host/--port`,
 * and `rperf report DIR` of a directory of snapshots (history.h).
 *
 * Owns: a small HTTP/1.1 server for a page looked at through SSH port
 * forwarding (ssh -L 8080:localhost:8080 host), from another machine, or
 * by the browser of this one: GET or HEAD of a path answered by a route,
 * any other method 405; one connection at a time, each closed after its
 * answer, a request read for at most 10 s. It runs in the foreground until
 * SIGINT or SIGTERM (Ctrl-C), then returns 0.
 */
#ifndef RPERF_RPERF_SERVE_H
#define RPERF_RPERF_SERVE_H

#include <stdbool.h>
#include <stddef.h>

/* A route's answer: status 200 with its content type and body (malloc'd;
 * the server frees it), 404, or 500 (something it could not make, said
 * on stderr). */
typedef struct rperf_reply {
    int status;
    const char *type;
    char *body;
    size_t len;
} rperf_reply;

/* Answers GET `path` ("/..."; its query string after '?', "" for none). */
typedef void (*rperf_route)(void *ctx, const char *path, const char *query, rperf_reply *reply);

/* The port --port names, 1..65535; -1 when it names none. */
int rperf_parse_port(const char *text);

/* Serves `route` on `host` (NULL: localhost) and `port` (0: one the
 * system picks), saying where on stderr (and warning that anyone who can
 * reach a host other than the loopback can read the profile); with
 * `browse`, opens it in a browser where there is a display. Returns 0 once
 * stopped by SIGINT/SIGTERM, 1 when it could not listen (said: a port in
 * use, a host that does not resolve). */
int rperf_serve(const char *host, int port, rperf_route route, void *ctx, bool browse);

/* Serves the file `page` at "/" (and "/index.html"); any other path 404. */
int rperf_serve_page(const char *page, const char *host, int port);

/* The whole file, malloc'd, its length in *len; NULL (said) when it
 * cannot be read. */
char *rperf_read_file(const char *path, size_t *len);

#endif
