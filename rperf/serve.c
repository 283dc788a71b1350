/*
 * rperf/serve.c — a page served over HTTP. See serve.h.
 */
#include "serve.h"

#include "page.h"

#include <errno.h>
#include <netdb.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <arpa/inet.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "hosts.h"

#define REQUEST_MAX 8192

static volatile sig_atomic_t stop_requested;

static void request_stop(int sig)
{
    (void)sig;
    stop_requested = 1;
}

int rperf_parse_port(const char *text)
{
    const char *problem = NULL;
    long long port = strtonum(text, 1, 65535, &problem);
    return problem ? -1 : (int)port;
}

char *rperf_read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "rperf: cannot read %s: %s\n", path, strerror(errno));
        return NULL;
    }
    char *data = NULL;
    size_t cap = 0, got;
    *len = 0;
    do {
        if (*len == cap) {
            char *grown = realloc(data, cap = cap ? cap * 2 : 1 << 16);
            if (!grown) {
                fclose(f);
                free(data);
                fprintf(stderr, "rperf: out of memory reading %s\n", path);
                return NULL;
            }
            data = grown;
        }
        got = fread(data + *len, 1, cap - *len, f);
        *len += got;
    } while (got > 0);
    bool failed = ferror(f);
    fclose(f);
    if (failed) {
        fprintf(stderr, "rperf: cannot read %s\n", path);
        free(data);
        return NULL;
    }
    return data;
}

/* A listening socket on host:port; -1 (said) when none can be had. */
static int listen_on(const char *host, int port)
{
    char service[8];
    snprintf(service, sizeof(service), "%d", port);
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM, .ai_flags = AI_PASSIVE};
    struct addrinfo *found = NULL;
    int rc = getaddrinfo(host, service, &hints, &found);
    if (rc != 0) {
        fprintf(stderr, "rperf: --host %s: %s\n", host, gai_strerror(rc));
        return -1;
    }
    int fd = -1, err = 0;
    for (struct addrinfo *a = found; a && fd < 0; a = a->ai_next) {
        fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
        if (fd < 0) {
            err = errno;
            continue;
        }
        int on = 1;
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof(on));
        if (bind(fd, a->ai_addr, a->ai_addrlen) != 0 || listen(fd, 16) != 0) {
            err = errno;
            close(fd);
            fd = -1;
        }
    }
    freeaddrinfo(found);
    if (fd < 0 && err == EADDRINUSE)
        fprintf(stderr, "rperf: port %d is already in use (choose another --port)\n", port);
    else if (fd < 0)
        fprintf(stderr, "rperf: cannot listen on %s port %d: %s\n", host, port, strerror(err));
    return fd;
}

static int bound_port(int fd)
{
    struct sockaddr_storage addr;
    socklen_t len = sizeof(addr);
    if (getsockname(fd, (struct sockaddr *)&addr, &len) != 0)
        return 0;
    return ntohs(addr.ss_family == AF_INET6 ? ((struct sockaddr_in6 *)&addr)->sin6_port
                                            : ((struct sockaddr_in *)&addr)->sin_port);
}

/* --- one connection ----------------------------------------------------------- */

/* The longest a client may take to send its request, and to take its
 * answer: a client that sends a byte a second, or one byte and then
 * nothing, costs only its own connection, and only that long. */
#define REQUEST_DEADLINE_MS 10000
#define ANSWER_DEADLINE_MS 30000
/* Connections served at once; past that a new one is answered 503. */
#define CONNECTIONS_MAX 64

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Waits until `fd` is ready for `events` or the deadline passes. */
static bool ready_by(int fd, short events, int64_t deadline)
{
    for (;;) {
        int64_t left = deadline - now_ms();
        if (left <= 0 || stop_requested)
            return false;
        struct pollfd p = {.fd = fd, .events = events};
        int rc = poll(&p, 1, left > 1000 ? 1000 : (int)left);
        if (rc > 0)
            return true;
        if (rc < 0 && errno != EINTR)
            return false;
    }
}

static void send_all(int fd, const char *data, size_t len, int64_t deadline)
{
    while (len > 0 && ready_by(fd, POLLOUT, deadline)) {
        ssize_t sent = send(fd, data, len, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (sent < 0 && (errno == EINTR || errno == EAGAIN))
            continue;
        if (sent <= 0)
            return;
        data += sent;
        len -= (size_t)sent;
    }
}

/* Reads a request's head (up to its blank line) into buf, by the
 * deadline. Returns its length, or 0 when the client sent none in time. */
static size_t read_request(int fd, char *buf, size_t size, int64_t deadline)
{
    size_t len = 0;
    while (len + 1 < size && ready_by(fd, POLLIN, deadline)) {
        ssize_t got = recv(fd, buf + len, size - 1 - len, MSG_DONTWAIT);
        if (got < 0 && (errno == EINTR || errno == EAGAIN))
            continue;
        if (got <= 0)
            break;
        len += (size_t)got;
        buf[len] = '\0';
        if (strstr(buf, "\r\n\r\n") || strstr(buf, "\n\n"))
            return len;
    }
    return 0;
}

static void answer(int fd, int status, const char *reason, const char *type, const char *body, size_t len,
                   bool head)
{
    char header[512];
    int n = snprintf(header, sizeof(header),
                     "HTTP/1.1 %d %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\nCache-Control: no-store\r\n"
                     "X-Content-Type-Options: nosniff\r\nConnection: close\r\n\r\n",
                     status, reason, type, len);
    int64_t deadline = now_ms() + ANSWER_DEADLINE_MS;
    send_all(fd, header, (size_t)n, deadline);
    if (!head)
        send_all(fd, body, len, deadline);
}

static void answer_text(int fd, int status, const char *reason, bool head)
{
    char body[64];
    int n = snprintf(body, sizeof(body), "%s\n", reason);
    answer(fd, status, reason, "text/plain", body, (size_t)n, head);
}

/* The server: what it routes, the names its Host header may give, the
 * connections being served. */
typedef struct server {
    rperf_route route;
    void *ctx;
    pthread_mutex_t route_lock; /* routes are called one at a time */
    rperf_hosts allowed;
    atomic_int connections;
} server;

typedef struct connection {
    server *srv;
    int fd;
} connection;

/* One connection's thread: its request read by the deadline, its Host
 * checked, answered by the route, closed. */
static void *serve_connection(void *arg)
{
    connection c = *(connection *)arg;
    free(arg);
    char request[REQUEST_MAX], method[16] = "", target[1024] = "";
    if (read_request(c.fd, request, sizeof(request), now_ms() + REQUEST_DEADLINE_MS) == 0 ||
        sscanf(request, "%15s %1023s", method, target) != 2) {
        answer_text(c.fd, 400, "Bad Request", false);
    } else {
        bool head = strcmp(method, "HEAD") == 0;
        char *query = strchr(target, '?');
        if (query)
            *query++ = '\0';
        int host = rperf_hosts_check(&c.srv->allowed, request);
        if (host != 0) {
            answer_text(c.fd, host, host == 403 ? "Forbidden" : "Bad Request", head);
        } else if (!head && strcmp(method, "GET") != 0) {
            answer_text(c.fd, 405, "Method Not Allowed", false);
        } else {
            rperf_reply reply = {0};
            pthread_mutex_lock(&c.srv->route_lock);
            c.srv->route(c.srv->ctx, target, query ? query : "", &reply);
            pthread_mutex_unlock(&c.srv->route_lock);
            if (reply.status == 200)
                answer(c.fd, 200, "OK", reply.type, reply.body, reply.len, head);
            else if (reply.status == 404)
                answer_text(c.fd, 404, "Not Found", head);
            else
                answer_text(c.fd, 500, "Internal Server Error", head);
            free(reply.body);
        }
    }
    close(c.fd);
    atomic_fetch_sub(&c.srv->connections, 1);
    return NULL;
}

/* Serves a connection on a thread of its own; past CONNECTIONS_MAX, or
 * without a thread, answers 503 at once (one send that does not wait). */
static void start_connection(server *srv, int fd)
{
    if (atomic_fetch_add(&srv->connections, 1) < CONNECTIONS_MAX) {
        connection *c = malloc(sizeof(*c));
        pthread_attr_t attr;
        pthread_t thread;
        if (c && pthread_attr_init(&attr) == 0) {
            *c = (connection){srv, fd};
            pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
            int rc = pthread_create(&thread, &attr, serve_connection, c);
            pthread_attr_destroy(&attr);
            if (rc == 0)
                return;
        }
        free(c);
    }
    atomic_fetch_sub(&srv->connections, 1);
    static const char busy[] = "HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain\r\n"
                               "Content-Length: 20\r\nConnection: close\r\n\r\nService Unavailable\n";
    (void)!send(fd, busy, sizeof(busy) - 1, MSG_DONTWAIT | MSG_NOSIGNAL); /* else the close alone */
    close(fd);
}

static bool is_loopback(const char *host)
{
    return strcmp(host, "localhost") == 0 || strcmp(host, "127.0.0.1") == 0 || strcmp(host, "::1") == 0;
}

/* At stop, the connections still served get a moment to end. */
static void drain(server *srv)
{
    for (int i = 0; i < 50 && atomic_load(&srv->connections) > 0; i++)
        usleep(20000);
}

int rperf_serve(const char *host, int port, rperf_route route, void *ctx, bool browse)
{
    host = host ? host : "localhost";
    int fd = listen_on(host, port);
    if (fd < 0)
        return 1;
    struct sigaction stop = {.sa_handler = request_stop}, old_int, old_term;
    sigemptyset(&stop.sa_mask); /* no SA_RESTART: accept() returns at Ctrl-C */
    sigaction(SIGINT, &stop, &old_int);
    sigaction(SIGTERM, &stop, &old_term);
    char shown[256], url[320]; /* the address to give a browser */
    if (strcmp(host, "0.0.0.0") == 0 || strcmp(host, "::") == 0) {
        if (gethostname(shown, sizeof(shown)) != 0)
            snprintf(shown, sizeof(shown), "localhost");
        shown[sizeof(shown) - 1] = '\0';
    } else {
        snprintf(shown, sizeof(shown), strchr(host, ':') ? "[%s]" : "%s", host);
    }
    snprintf(url, sizeof(url), "http://%s:%d/", shown, bound_port(fd));
    fprintf(stderr, "rperf: serving the viewer at %s (bound to %s); Ctrl-C stops\n", url, host);
    if (!is_loopback(host))
        fprintf(stderr, "rperf: WARNING: the viewer has no authentication; anyone who can reach %s port %d can "
                        "read the profile\n",
                host, bound_port(fd));
    server srv = {.route = route, .ctx = ctx};
    pthread_mutex_init(&srv.route_lock, NULL);
    rperf_hosts_for_bind(&srv.allowed, host);
    if (browse)
        rperf_browse(url);
    while (!stop_requested) {
        int client = accept4(fd, NULL, NULL, SOCK_CLOEXEC);
        if (client < 0) {
            if (errno != EINTR && errno != ECONNABORTED)
                usleep(100000); /* out of descriptors: wait rather than spin */
            continue;
        }
        start_connection(&srv, client);
    }
    close(fd);
    drain(&srv);
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    fprintf(stderr, "rperf: stopped serving\n");
    return 0;
}

/* --- one page ----------------------------------------------------------------- */

typedef struct one_page {
    const char *data;
    size_t len;
} one_page;

static void page_route(void *ctx, const char *path, const char *query, rperf_reply *reply)
{
    (void)query;
    const one_page *page = ctx;
    if (strcmp(path, "/") != 0 && strcmp(path, "/index.html") != 0) {
        reply->status = 404;
        return;
    }
    reply->body = malloc(page->len ? page->len : 1);
    if (!reply->body) {
        reply->status = 500;
        return;
    }
    memcpy(reply->body, page->data, page->len);
    *reply = (rperf_reply){200, "text/html; charset=utf-8", reply->body, page->len};
}

int rperf_serve_page(const char *page_path, const char *host, int port)
{
    size_t len;
    char *data = rperf_read_file(page_path, &len);
    if (!data)
        return 1;
    one_page page = {data, len};
    int rc = rperf_serve(host, port, page_route, &page, false);
    free(data);
    return rc;
}
