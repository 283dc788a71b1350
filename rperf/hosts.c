/*
 * rperf/hosts.c — the names the served viewer answers to. See hosts.h.
 */
#include "hosts.h"

#include <ctype.h>
#include <ifaddrs.h>
#include <netdb.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

static rperf_hosts extra; /* --allow-host */

/* Lower case, without the brackets of an IPv6 literal or a trailing dot. */
static bool normalized(const char *name, size_t len, char out[RPERF_HOST_NAME_MAX])
{
    if (len >= 2 && name[0] == '[' && name[len - 1] == ']') {
        name++;
        len -= 2;
    }
    if (len > 0 && name[len - 1] == '.')
        len--;
    if (len == 0 || len >= RPERF_HOST_NAME_MAX)
        return false;
    for (size_t i = 0; i < len; i++)
        out[i] = (char)tolower((unsigned char)name[i]);
    out[len] = '\0';
    return true;
}

static void add(rperf_hosts *h, const char *name)
{
    if (h->count < RPERF_HOSTS_MAX && normalized(name, strlen(name), h->names[h->count]))
        h->count++;
}

int rperf_hosts_allow(const char *name)
{
    int before = extra.count;
    add(&extra, name);
    return extra.count > before ? 0 : -1;
}

/* The machine's own host name and addresses (a server bound to all). */
static void add_machine(rperf_hosts *h)
{
    char name[RPERF_HOST_NAME_MAX];
    if (gethostname(name, sizeof(name)) == 0) {
        name[sizeof(name) - 1] = '\0';
        add(h, name);
    }
    struct ifaddrs *addrs;
    if (getifaddrs(&addrs) != 0)
        return;
    for (struct ifaddrs *a = addrs; a; a = a->ifa_next) {
        if (!a->ifa_addr || (a->ifa_addr->sa_family != AF_INET && a->ifa_addr->sa_family != AF_INET6))
            continue;
        socklen_t len = a->ifa_addr->sa_family == AF_INET ? sizeof(struct sockaddr_in) : sizeof(struct sockaddr_in6);
        if (getnameinfo(a->ifa_addr, len, name, sizeof(name), NULL, 0, NI_NUMERICHOST) != 0)
            continue;
        char *scope = strchr(name, '%'); /* fe80::1%eth0 */
        if (scope)
            *scope = '\0';
        add(h, name);
    }
    freeifaddrs(addrs);
}

void rperf_hosts_for_bind(rperf_hosts *h, const char *bind_host)
{
    h->count = 0;
    add(h, "localhost");
    add(h, "127.0.0.1");
    add(h, "::1");
    if (strcmp(bind_host, "0.0.0.0") == 0 || strcmp(bind_host, "::") == 0)
        add_machine(h);
    else
        add(h, bind_host);
    for (int i = 0; i < extra.count; i++)
        add(h, extra.names[i]);
}

/* The Host header's value in `request`, its length in *len; NULL when
 * there is none. */
static const char *host_header(const char *request, size_t *len)
{
    for (const char *line = strchr(request, '\n'); line; line = strchr(line, '\n')) {
        line++;
        if (strncasecmp(line, "Host:", 5) != 0)
            continue;
        const char *v = line + 5;
        while (*v == ' ' || *v == '\t')
            v++;
        size_t n = strcspn(v, "\r\n");
        while (n > 0 && (v[n - 1] == ' ' || v[n - 1] == '\t'))
            n--;
        *len = n;
        return v;
    }
    return NULL;
}

/* The name part of a Host value: "[::1]:8080" -> "[::1]", "a:80" -> "a". */
static size_t without_port(const char *v, size_t len)
{
    if (len > 0 && v[0] == '[') {
        const char *end = memchr(v, ']', len);
        return end ? (size_t)(end - v) + 1 : len;
    }
    const char *colon = memchr(v, ':', len);
    return colon ? (size_t)(colon - v) : len;
}

int rperf_hosts_check(const rperf_hosts *h, const char *request)
{
    size_t len;
    const char *v = host_header(request, &len);
    if (!v || len == 0)
        return 400;
    char name[RPERF_HOST_NAME_MAX];
    if (!normalized(v, without_port(v, len), name))
        return 403;
    for (int i = 0; i < h->count; i++)
        if (strcmp(h->names[i], name) == 0)
            return 0;
    return 403;
}
