/*
 * profile/encode/html_sources.c — the program's source files in the page.
 * See html_sources.h.
 */
#include "html_sources.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../common/stack_table.h"
#include "../../common/vec.h"

/* Per string id: the weight of the samples with a frame in that file
 * (each sample once), or NULL when out of memory. */
static int64_t *weight_per_path(const rp_profile *p)
{
    size_t n = p->strings.count ? p->strings.count : 1;
    int64_t *weight = rp_calloc_array(n, sizeof(*weight));
    size_t *stamp = rp_calloc_array(n, sizeof(*stamp));
    for (size_t i = 0; weight && stamp && i < p->samples.count; i++) {
        const rp_sample *s = &p->samples.samples[i];
        uint32_t depth;
        const uint32_t *frames = rp_stack_table_get(&p->stacks, s->stack, &depth);
        for (uint32_t d = 0; d < depth; d++) {
            uint32_t path = p->frames[frames[d]].path;
            if (stamp[path] != i + 1) {
                stamp[path] = i + 1;
                rp_add_saturating(&weight[path], s->weight);
            }
        }
    }
    free(stamp);
    if (!stamp) {
        free(weight);
        return NULL;
    }
    return weight;
}

static const int64_t *sorting_weight;

static int heavier_path(const void *a, const void *b)
{
    int64_t x = sorting_weight[*(const uint32_t *)a], y = sorting_weight[*(const uint32_t *)b];
    return x != y ? (x > y ? -1 : 1) : 0;
}

/* The files whose lines the profile weighs — paths of frames with a line
 * that name a file ("<C method>", "<internal:...>" and "(eval)" do not),
 * each once — heaviest first. Returns the count of ids written into a
 * malloc'd *out (NULL when out of memory). */
static size_t source_paths(const rp_profile *p, uint32_t **out)
{
    uint8_t *seen = rp_calloc_array(p->strings.count ? p->strings.count : 1, 1);
    uint32_t *paths = rp_alloc_array(p->frame_count ? p->frame_count : 1, sizeof(*paths));
    int64_t *weight = weight_per_path(p);
    size_t count = 0;
    for (size_t f = 0; seen && paths && weight && f < p->frame_count; f++) {
        uint32_t path = p->frames[f].path;
        if (p->frames[f].line <= 0 || seen[path])
            continue;
        seen[path] = 1;
        const char *name = rp_profile_str(p, path);
        if (*name && *name != '<' && *name != '(')
            paths[count++] = path;
    }
    if (seen && paths && weight) {
        sorting_weight = weight;
        qsort(paths, count, sizeof(*paths), heavier_path);
    } else {
        free(paths);
        paths = NULL;
    }
    free(seen);
    free(weight);
    *out = paths;
    return paths ? count : 0;
}

/* A file's bytes (at most RP_HTML_SOURCE_MAX), or NULL with the reason
 * in `why`. */
static char *read_source(const char *path, size_t *len, char *why, size_t why_size)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(why, why_size, "%s", strerror(errno));
        return NULL;
    }
    char *buf = malloc(RP_HTML_SOURCE_MAX + 1);
    size_t n = buf ? fread(buf, 1, RP_HTML_SOURCE_MAX + 1, f) : 0;
    bool failed = buf && ferror(f);
    fclose(f);
    if (!buf || failed || n > RP_HTML_SOURCE_MAX) {
        snprintf(why, why_size, "%s", !buf ? "out of memory" : failed ? "read error"
                                                              : "larger than " RP_HTML_SOURCE_MAX_TEXT);
        free(buf);
        return NULL;
    }
    *len = n;
    return buf;
}

/* The file's lines as an array of strings, without their line ends. */
static void write_lines(rp_json *j, const char *text, size_t len)
{
    rp_json_key(j, "lines");
    rp_json_begin_array(j);
    size_t at = 0;
    while (at < len) {
        const char *nl = memchr(text + at, '\n', len - at);
        size_t end = nl ? (size_t)(nl - text) : len, cut = end;
        if (cut > at && text[cut - 1] == '\r')
            cut--;
        rp_json_string(j, text + at, cut - at);
        at = end + 1;
    }
    rp_json_end_array(j);
}

/* A relative path is the program's: from the directory it started in
 * (the profile's cwd) when that holds the file, else from ours. */
static char *read_program_source(const rp_profile *p, const char *path, size_t *len, char *why, size_t why_size)
{
    if (path[0] != '/' && p->meta.cwd != RP_IDX_NONE) {
        char full[4096];
        if (snprintf(full, sizeof(full), "%s/%s", rp_profile_str(p, p->meta.cwd), path) < (int)sizeof(full) &&
            access(full, F_OK) == 0)
            return read_source(full, len, why, why_size);
    }
    return read_source(path, len, why, why_size);
}

int rp_html_write_sources(rp_json *j, const rp_profile *p)
{
    uint32_t *paths;
    size_t count = source_paths(p, &paths);
    if (!paths)
        return -1;
    rp_json_key(j, "sources");
    rp_json_begin_object(j);
    size_t budget = RP_HTML_SOURCES_MAX;
    for (size_t i = 0; i < count; i++) {
        const char *path = rp_profile_str(p, paths[i]);
        char why[128] = "";
        size_t len = 0;
        char *text = read_program_source(p, path, &len, why, sizeof(why));
        if (text && len > budget) {
            free(text);
            text = NULL;
            snprintf(why, sizeof(why), "the page holds " RP_HTML_SOURCES_MAX_TEXT " of sources already");
        }
        rp_json_key(j, path);
        rp_json_begin_object(j);
        if (text) {
            write_lines(j, text, len);
            budget -= len;
        } else {
            rp_json_member_cstring(j, "error", why);
        }
        rp_json_end_object(j);
        free(text);
    }
    rp_json_end_object(j);
    free(paths);
    return 0;
}
