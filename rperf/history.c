/*
 * rperf/history.c — `rperf report DIR` of a directory of snapshots. See
 * history.h.
 */
#include "history.h"

#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../common/json_writer.h"
#include "../common/out.h"
#include "../profile/encode/html_sections.h"
#include "../profile/flatcum.h"
#include "../profile/load.h"
#include "../profile/meta_read.h"
#include "page.h"
#include "serve.h"
#include "tools.h"

/* The page's files (profile/viewer/history.*), compiled in by
 * rperf/meson.build. */
extern const char rp_history_html[], rp_history_css[], rp_history_js[];
extern const size_t rp_history_html_len, rp_history_css_len, rp_history_js_len;

typedef struct snapshot {
    char *name, *path;
    char *meta, *summary; /* JSON text, or NULL */
    double mtime;         /* seconds: the order of files of one second */
    /* each method's self and total share, read from the body when the
     * sparkline first asks (shares_read); shares_ok when it could be */
    bool shares_read, shares_ok;
    rp_by_name shares;
} snapshot;

/* The viewer and diff pages made so far are kept in a folder of their
 * own, at most PAGES_KEPT of them and PAGES_BYTES in all: past that the
 * least recently asked for is removed (a client asking for every pair of
 * N snapshots would have left N^2 pages). */
#define PAGES_KEPT 32
#define PAGES_BYTES (256L << 20)

typedef struct kept_page {
    char name[48];
    long bytes;
    unsigned long used; /* when last asked for: the history's clock */
} kept_page;

typedef struct history {
    const char *dir;
    snapshot *snaps;
    size_t count;
    char pages[PATH_MAX]; /* the folder of the pages made */
    kept_page kept[PAGES_KEPT];
    int kept_count;
    unsigned long clock;
} history;

bool rperf_is_snapshot_dir(const char *dir)
{
    struct stat st;
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
        return false;
    DIR *d = opendir(dir);
    if (!d)
        return false;
    bool session = false;
    for (struct dirent *e; (e = readdir(d)) && !session;)
        session = rp_is_session_file_name(e->d_name);
    closedir(d);
    return !session;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(((const snapshot *)a)->name, ((const snapshot *)b)->name);
}

static void free_history(history *h)
{
    for (size_t i = 0; i < h->count; i++) {
        free(h->snaps[i].name);
        free(h->snaps[i].path);
        free(h->snaps[i].meta);
        free(h->snaps[i].summary);
        if (h->snaps[i].shares_read)
            rp_by_name_free(&h->snaps[i].shares);
    }
    free(h->snaps);
    if (h->pages[0])
        rperf_remove_tree(h->pages);
}

/* Every profile file of h->dir, with its meta and summary (a file that
 * has none is listed by its name alone). Returns 0, or -1 (said). */
static int read_list(history *h)
{
    DIR *d = opendir(h->dir);
    if (!d) {
        fprintf(stderr, "rperf: cannot read the directory %s\n", h->dir);
        return -1;
    }
    size_t cap = 0;
    int rc = 0;
    for (struct dirent *e; rc == 0 && (e = readdir(d));) {
        if (!rp_is_profile_file_name(e->d_name))
            continue;
        if (h->count == cap) {
            snapshot *grown = realloc(h->snaps, (cap = cap ? cap * 2 : 16) * sizeof(*grown));
            if (!grown) {
                rc = -1;
                break;
            }
            h->snaps = grown;
        }
        snapshot *s = &h->snaps[h->count];
        *s = (snapshot){.name = strdup(e->d_name)};
        if (!s->name || asprintf(&s->path, "%s/%s", h->dir, e->d_name) < 0) {
            free(s->name);
            rc = -1;
            break;
        }
        h->count++;
        struct stat st;
        if (stat(s->path, &st) == 0)
            s->mtime = (double)st.st_mtim.tv_sec + (double)st.st_mtim.tv_nsec / 1e9;
        char err[RP_READ_ERROR_MAX];
        if (rp_meta_read(s->path, &s->meta, &s->summary, err) < 0)
            fprintf(stderr, "rperf: warning: %s\n", err);
    }
    closedir(d);
    if (rc != 0)
        fprintf(stderr, "rperf: out of memory listing %s\n", h->dir);
    else if (h->count == 0) {
        fprintf(stderr, "rperf: No .json(.gz) profiles found in %s\n", h->dir);
        rc = -1;
    }
    qsort(h->snaps, h->count, sizeof(*h->snaps), by_name);
    return rc;
}

/* --- answers ---------------------------------------------------------------------- */

/* An answer of `type` written by `write` into memory (500 when it cannot
 * be). */
static void reply_written(rperf_reply *reply, const char *type, void (*write)(rp_out *out, void *arg), void *arg)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    rp_out *out = f ? rp_out_stream(f, true) : NULL;
    if (!out) {
        if (f)
            fclose(f);
        free(buf);
        reply->status = 500;
        return;
    }
    write(out, arg);
    if (rp_out_close(out) != 0) {
        free(buf);
        reply->status = 500;
        return;
    }
    *reply = (rperf_reply){200, type, buf, len};
}

typedef struct json_fill {
    void (*fill)(rp_json *j, void *arg);
    void *arg;
} json_fill;

static void write_json(rp_out *out, void *arg)
{
    const json_fill *f = arg;
    rp_json j;
    rp_json_init(&j, out);
    f->fill(&j, f->arg);
}

static void reply_json(rperf_reply *reply, void (*fill)(rp_json *j, void *arg), void *arg)
{
    reply_written(reply, "application/json", write_json, &(json_fill){fill, arg});
}

static void fill_list(rp_json *j, void *arg)
{
    const history *h = arg;
    rp_json_begin_array(j);
    for (size_t i = 0; i < h->count; i++) {
        const snapshot *s = &h->snaps[i];
        rp_json_begin_object(j);
        rp_json_member_int(j, "id", (int64_t)i);
        rp_json_member_cstring(j, "file", s->name);
        rp_json_key(j, "mtime");
        rp_json_double(j, s->mtime);
        rp_json_key(j, "meta");
        s->meta ? rp_json_raw(j, s->meta) : rp_json_null(j);
        rp_json_key(j, "summary");
        s->summary ? rp_json_raw(j, s->summary) : rp_json_null(j);
        rp_json_end_object(j);
    }
    rp_json_end_array(j);
}

/* Each method's shares in snapshot `s`, read once. */
static bool shares_of(snapshot *s)
{
    if (s->shares_read)
        return s->shares_ok;
    s->shares_read = true;
    rp_profile p;
    rp_load_spec spec = {0};
    char *paths[] = {s->path};
    s->shares_ok = rp_load_paths(paths, 1, &spec, &p) == 0 && rp_by_name_compute(&p, &s->shares) == 0;
    rp_profile_free(&p);
    return s->shares_ok;
}

typedef struct share_query {
    history *h;
    const char *method;
} share_query;

static void fill_shares(rp_json *j, void *arg)
{
    share_query *q = arg;
    rp_json_begin_array(j);
    for (size_t i = 0; i < q->h->count; i++) {
        snapshot *s = &q->h->snaps[i];
        const rp_name_weight *w = shares_of(s) ? rp_by_name_find(&s->shares, q->method) : NULL;
        if (!w || s->shares.total <= 0) {
            rp_json_null(j);
            continue;
        }
        rp_json_begin_object(j);
        rp_json_key(j, "self_pct");
        rp_json_double(j, (double)w->self * 100.0 / (double)s->shares.total);
        rp_json_key(j, "total_pct");
        rp_json_double(j, (double)w->total * 100.0 / (double)s->shares.total);
        rp_json_end_object(j);
    }
    rp_json_end_array(j);
}

static int hex_value(char c)
{
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* The value of `key` in a query string, %-decoded (and '+' as a space),
 * into out[]; false when it is not there. */
static bool query_value(const char *query, const char *key, char *out, size_t size)
{
    size_t key_len = strlen(key);
    for (const char *p = query; p && *p; p = strchr(p, '&') ? strchr(p, '&') + 1 : NULL) {
        if (strncmp(p, key, key_len) != 0 || p[key_len] != '=')
            continue;
        size_t n = 0;
        for (const char *c = p + key_len + 1; *c && *c != '&' && n + 1 < size; c++) {
            int hi, lo;
            if (*c == '%' && (hi = hex_value(c[1])) >= 0 && (lo = hex_value(c[2])) >= 0) {
                out[n++] = (char)(hi * 16 + lo);
                c += 2;
            } else {
                out[n++] = *c == '+' ? ' ' : *c;
            }
        }
        out[n] = '\0';
        return true;
    }
    return false;
}

/* A page rperf-analyze makes (`args` then -o PAGE then `inputs`), made
 * once into h->pages and answered. */
static void page_path(const history *h, const char *name, char *out, size_t size)
{
    snprintf(out, size, "%s/%s.html", h->pages, name);
}

static kept_page *kept_named(history *h, const char *name)
{
    for (int i = 0; i < h->kept_count; i++)
        if (strcmp(h->kept[i].name, name) == 0)
            return &h->kept[i];
    return NULL;
}

static long kept_bytes(const history *h)
{
    long total = 0;
    for (int i = 0; i < h->kept_count; i++)
        total += h->kept[i].bytes;
    return total;
}

/* Removes the least recently asked for pages until a new one of `bytes`
 * fits the bounds. */
static void make_room(history *h, long bytes)
{
    while (h->kept_count > 0 && (h->kept_count >= PAGES_KEPT || kept_bytes(h) + bytes > PAGES_BYTES)) {
        int oldest = 0;
        for (int i = 1; i < h->kept_count; i++)
            if (h->kept[i].used < h->kept[oldest].used)
                oldest = i;
        char path[PATH_MAX + 64];
        page_path(h, h->kept[oldest].name, path, sizeof(path));
        unlink(path);
        h->kept[oldest] = h->kept[--h->kept_count];
    }
}

/* The page `name`, made by rperf-analyze `args` `-o PAGE` `inputs` when it
 * is not kept already. */
static void reply_made_page(history *h, const char *name, const char *const *args, const char *const *inputs,
                            rperf_reply *reply)
{
    char page[PATH_MAX + 64];
    page_path(h, name, page, sizeof(page));
    kept_page *k = kept_named(h, name);
    if (!k) {
        const char *argv[16];
        int n = 0;
        for (; *args; args++)
            argv[n++] = *args;
        argv[n++] = "-o";
        argv[n++] = page;
        for (; *inputs; inputs++)
            argv[n++] = *inputs;
        argv[n] = NULL;
        struct stat st;
        if (rperf_analyze(true, argv) != 0 || stat(page, &st) != 0) {
            reply->status = 500;
            return;
        }
        make_room(h, (long)st.st_size);
        k = &h->kept[h->kept_count++];
        snprintf(k->name, sizeof(k->name), "%s", name);
        k->bytes = (long)st.st_size;
    }
    k->used = ++h->clock;
    size_t len;
    char *body = rperf_read_file(page, &len);
    *reply = body ? (rperf_reply){200, "text/html; charset=utf-8", body, len} : (rperf_reply){.status = 500};
}

/* The page: history.html with its style, script and title in place. */
static void write_index(rp_out *out, void *arg)
{
    const history *h = arg;
    static const char *const markers[] = {"<!--rperf:style-->", "<!--rperf:script-->", "<!--rperf:title-->"};
    const char *html = rp_history_html, *end = rp_history_html + rp_history_html_len;
    while (html < end) {
        const char *next = end;
        size_t which = sizeof(markers) / sizeof(markers[0]);
        for (size_t m = 0; m < sizeof(markers) / sizeof(markers[0]); m++) {
            const char *at = strstr(html, markers[m]);
            if (at && at < next) {
                next = at;
                which = m;
            }
        }
        rp_out_write(out, html, (size_t)(next - html));
        if (which == 0)
            rp_out_write(out, rp_history_css, rp_history_css_len);
        else if (which == 1)
            rp_out_write(out, rp_history_js, rp_history_js_len);
        else if (which == 2)
            rp_html_text(out, h->dir);
        else
            break;
        html = next + strlen(markers[which]);
    }
}

/* A snapshot's number in a path ("3", "3/..."), or -1. */
static long snapshot_at(const history *h, const char *text, const char **rest)
{
    char *end;
    long id = strtol(text, &end, 10);
    if (end == text || id < 0 || (size_t)id >= h->count)
        return -1;
    *rest = end;
    return id;
}

/* Runs in rperf's own process, one request at a time (serve.h: the
 * connections' threads take turns). */
static void route(void *ctx, const char *path, const char *query, rperf_reply *reply)
{
    history *h = ctx;
    const char *rest = "";
    long a, b;
    reply->status = 404;
    if (strcmp(path, "/") == 0 || strcmp(path, "/index.html") == 0) {
        reply_written(reply, "text/html; charset=utf-8", write_index, h);
    } else if (strcmp(path, "/snapshots") == 0) {
        reply_json(reply, fill_list, h);
    } else if (strncmp(path, "/snapshots/", 11) == 0 && (a = snapshot_at(h, path + 11, &rest)) >= 0 && !*rest) {
        char name[32];
        snprintf(name, sizeof(name), "snapshot-%ld", a);
        reply_made_page(h, name, (const char *[]){"convert", "--html", NULL},
                        (const char *[]){h->snaps[a].path, NULL}, reply);
    } else if (strncmp(path, "/diff/", 6) == 0 && (a = snapshot_at(h, path + 6, &rest)) >= 0 && *rest == '/' &&
               (b = snapshot_at(h, rest + 1, &rest)) >= 0 && !*rest) {
        char name[48];
        snprintf(name, sizeof(name), "diff-%ld-%ld", a, b);
        reply_made_page(h, name, (const char *[]){"diff", "--html", NULL},
                        (const char *[]){h->snaps[a].path, h->snaps[b].path, NULL}, reply);
    } else if (strcmp(path, "/share") == 0) {
        char method[1024];
        if (query_value(query, "method", method, sizeof(method)))
            reply_json(reply, fill_shares, &(share_query){h, method});
    }
}

int rperf_history_serve(const char *dir, const char *host, int port, bool browse)
{
    history h = {.dir = dir};
    int rc = read_list(&h);
    if (rc == 0 && rperf_temp_dir("tmp", h.pages) != 0) {
        h.pages[0] = '\0';
        rc = -1;
    }
    if (rc == 0) {
        fprintf(stderr, "rperf: %zu snapshot%s in %s\n", h.count, h.count == 1 ? "" : "s", dir);
        rc = rperf_serve(host, port, route, &h, browse) == 0 ? 0 : -1;
    }
    free_history(&h);
    return rc == 0 ? 0 : 1;
}
