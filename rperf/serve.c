/*
 * rperf/serve.c — a page served over HTTP. See serve.h.
 */
#include "serve.h"

#include <errno.h>
#include <netdb.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <arpa/inet.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#define REQUEST_MAX 8192
#define REQUEST_TIMEOUT_S 10

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

/* The whole file, malloc'd; NULL (said) when it cannot be read. */
static char *read_page(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "rperf: cannot read the page %s: %s\n", path, strerror(errno));
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
                fprintf(stderr, "rperf: out of memory reading the page %s\n", path);
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
        fprintf(stderr, "rperf: cannot read the page %s\n", path);
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

static void send_all(int fd, const char *data, size_t len)
{
    while (len > 0) {
        ssize_t sent = send(fd, data, len, MSG_NOSIGNAL);
        if (sent < 0 && errno == EINTR && !stop_requested)
            continue;
        if (sent <= 0)
            return;
        data += sent;
        len -= (size_t)sent;
    }
}

/* Reads a request's head (up to its blank line) into buf. Returns its
 * length, or 0 when the client sent none in time. */
static size_t read_request(int fd, char *buf, size_t size)
{
    size_t len = 0;
    while (len + 1 < size) {
        ssize_t got = recv(fd, buf + len, size - 1 - len, 0);
        if (got < 0 && errno == EINTR && !stop_requested)
            continue;
        if (got <= 0)
            break;
        len += (size_t)got;
        buf[len] = '\0';
        if (strstr(buf, "\r\n\r\n") || strstr(buf, "\n\n"))
            return len;
    }
    return len > 0 && memchr(buf, '\n', len) ? len : 0;
}

static void answer(int fd, int status, const char *reason, const char *type, const char *body, size_t len,
                   bool head)
{
    char header[512];
    int n = snprintf(header, sizeof(header),
                     "HTTP/1.1 %d %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\nCache-Control: no-store\r\n"
                     "X-Content-Type-Options: nosniff\r\nConnection: close\r\n\r\n",
                     status, reason, type, len);
    send_all(fd, header, (size_t)n);
    if (!head)
        send_all(fd, body, len);
}

/* One connection: its request read, answered, closed. */
static void serve_one(int fd, const char *page, size_t page_len)
{
    struct timeval timeout = {.tv_sec = REQUEST_TIMEOUT_S};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof(timeout));
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, sizeof(timeout));
    char request[REQUEST_MAX], method[16] = "", target[1024] = "";
    if (read_request(fd, request, sizeof(request)) == 0 || sscanf(request, "%15s %1023s", method, target) != 2) {
        static const char bad[] = "Bad Request\n";
        answer(fd, 400, "Bad Request", "text/plain", bad, sizeof(bad) - 1, false);
        return;
    }
    bool head = strcmp(method, "HEAD") == 0;
    char *query = strchr(target, '?');
    if (query)
        *query = '\0';
    if (!head && strcmp(method, "GET") != 0) {
        static const char body[] = "Method Not Allowed\n";
        answer(fd, 405, "Method Not Allowed", "text/plain", body, sizeof(body) - 1, false);
    } else if (strcmp(target, "/") == 0 || strcmp(target, "/index.html") == 0) {
        answer(fd, 200, "OK", "text/html; charset=utf-8", page, page_len, head);
    } else {
        static const char body[] = "Not Found\n";
        answer(fd, 404, "Not Found", "text/plain", body, sizeof(body) - 1, head);
    }
}

static bool is_loopback(const char *host)
{
    return strcmp(host, "localhost") == 0 || strcmp(host, "127.0.0.1") == 0 || strcmp(host, "::1") == 0;
}

int rperf_serve_page(const char *page_path, const char *host, int port)
{
    host = host ? host : "localhost";
    size_t page_len;
    char *page = read_page(page_path, &page_len);
    int fd = page ? listen_on(host, port) : -1;
    if (fd < 0) {
        free(page);
        return 1;
    }
    struct sigaction stop = {.sa_handler = request_stop}, old_int, old_term;
    sigemptyset(&stop.sa_mask); /* no SA_RESTART: accept() returns at Ctrl-C */
    sigaction(SIGINT, &stop, &old_int);
    sigaction(SIGTERM, &stop, &old_term);
    char shown[256]; /* the address to give a browser */
    if (strcmp(host, "0.0.0.0") == 0 || strcmp(host, "::") == 0) {
        if (gethostname(shown, sizeof(shown)) != 0)
            snprintf(shown, sizeof(shown), "localhost");
        shown[sizeof(shown) - 1] = '\0';
    } else {
        snprintf(shown, sizeof(shown), strchr(host, ':') ? "[%s]" : "%s", host);
    }
    fprintf(stderr, "rperf: serving the viewer at http://%s:%d/ (bound to %s); Ctrl-C stops\n", shown,
            bound_port(fd), host);
    if (!is_loopback(host))
        fprintf(stderr, "rperf: WARNING: the viewer has no authentication; anyone who can reach %s port %d can "
                        "read the profile\n",
                host, bound_port(fd));
    while (!stop_requested) {
        int client = accept4(fd, NULL, NULL, SOCK_CLOEXEC);
        if (client < 0) {
            if (errno != EINTR && errno != ECONNABORTED)
                usleep(100000); /* out of descriptors: wait rather than spin */
            continue;
        }
        serve_one(client, page, page_len);
        close(client);
    }
    close(fd);
    free(page);
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    fprintf(stderr, "rperf: stopped serving\n");
    return 0;
}
