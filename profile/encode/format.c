/*
 * profile/encode/format.c — the table of output formats. See format.h.
 */
#include "format.h"

#include <string.h>

#include "../../common/filename.h"
#include "../profile_write.h"
#include "collapsed.h"
#include "html.h"
#include "pprof.h"
#include "report.h"
#include "speedscope.h"
#include "table.h"

/* The merged profile in the agent's own format (profile/profile_write.c). */
static int encode_json(const rp_profile *p, rp_out *out, const rp_encode_opts *opts)
{
    (void)opts; /* a profile is written whole */
    return rp_profile_write_json(p, out);
}

const rp_format rp_formats[] = {
    {.name = "pprof", .extensions = {".pb.gz", NULL}, .binary = true, .compression = RP_GZIP,
     .keeps_lines = true, .help = "gzip-compressed profile.proto (go tool pprof)",
     .encode = rp_pprof_write},
    {.name = "collapsed", .extensions = {".collapsed", NULL},
     .help = "bottom;...;leaf weight lines (FlameGraph, speedscope)", .encode = rp_collapsed_write},
    {.name = "text", .extensions = {".txt", NULL}, .help = "the text report",
     .encode = rp_text_write},
    /* before "json": its extension ends in .json too */
    {.name = "speedscope", .extensions = {".speedscope.json", NULL},
     .help = "speedscope's JSON, one sampled profile per thread (speedscope.app)",
     .encode = rp_speedscope_write},
    {.name = "json", .extensions = {".json", ".json.gz", NULL}, .compression = RP_GZIP_IF_NAMED_GZ,
     .keeps_lines = true, .help = "one merged profile in the agent's format", .encode = encode_json},
    {.name = "html", .extensions = {".html", ".htm", NULL}, .time_slots = true, .keeps_lines = true,
     .help = "a self-contained flame-graph viewer page (offline)", .encode = rp_html_write},
    {.name = "table", .extensions = {NULL},
     .help = "method, self %, total %, self ms: TSV for tools and language models", .encode = rp_table_write},
    {.name = "table-json", .extensions = {NULL},
     .help = "the same table as a JSON array, its summary last", .encode = rp_table_json_write},
};
const size_t rp_format_count = sizeof(rp_formats) / sizeof(rp_formats[0]);

/* What -o chooses when no extension matches, as the gem does. */
#define DEFAULT_FORMAT (&rp_formats[0])

const rp_format *rp_format_named(const char *name)
{
    for (size_t i = 0; i < rp_format_count; i++)
        if (strcmp(rp_formats[i].name, name) == 0)
            return &rp_formats[i];
    return NULL;
}

const rp_format *rp_format_for_path(const char *path)
{
    for (size_t i = 0; i < rp_format_count; i++)
        for (const char *const *ext = rp_formats[i].extensions; *ext; ext++)
            if (rp_has_suffix(path, *ext))
                return &rp_formats[i];
    return DEFAULT_FORMAT;
}

bool rp_format_compressed(const rp_format *f, const char *path)
{
    switch (f->compression) {
    case RP_GZIP:
        return true;
    case RP_GZIP_IF_NAMED_GZ:
        return path && rp_has_suffix(path, ".gz");
    default:
        return false;
    }
}
