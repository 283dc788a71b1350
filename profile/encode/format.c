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

/* The merged profile in the agent's own format (profile/profile_write.c). */
static int encode_json(const rp_profile *p, rp_out *out, const rp_options *o)
{
    (void)o; /* a profile is written whole */
    return rp_profile_write_json(p, out);
}

const rp_format rp_formats[] = {
    {"pprof", {".pb.gz", NULL}, true, RP_GZIP, true, false,
     "gzip-compressed profile.proto (go tool pprof)", rp_pprof_write},
    {"collapsed", {".collapsed", NULL}, false, RP_UNCOMPRESSED, false, false,
     "bottom;...;leaf weight lines (FlameGraph, speedscope)", rp_collapsed_write},
    {"text", {".txt", NULL}, false, RP_UNCOMPRESSED, false, false,
     "the text report", rp_text_write},
    /* before "json": its extension ends in .json too */
    {"speedscope", {".speedscope.json", NULL}, false, RP_UNCOMPRESSED, false, false,
     "speedscope's JSON, one sampled profile per thread (speedscope.app)", rp_speedscope_write},
    {"json", {".json", ".json.gz", NULL}, false, RP_GZIP_IF_NAMED_GZ, true, false,
     "one merged profile in the agent's format", encode_json},
    {"html", {".html", ".htm", NULL}, false, RP_UNCOMPRESSED, false, true,
     "a self-contained flame-graph viewer page (offline)", rp_html_write},
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
