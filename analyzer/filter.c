/*
 * analyzer/filter.c — the filter stage. See filter.h.
 */
#include "filter.h"

#include "diag.h"
#include "merge.h"

static bool has_lines(const rp_profile *p)
{
    for (size_t i = 0; i < p->frame_count; i++)
        if (p->frames[i].line)
            return true;
    return false;
}

/* One frame per method: the profile merged again, without its lines. */
static int drop_lines(rp_profile *p)
{
    rp_profile methods;
    char err[RP_MERGE_ERROR_MAX];
    if (rp_profile_init(&methods, p->samples.aggregate) != 0) {
        rp_profile_free(&methods);
        rp_error("out of memory");
        return -1;
    }
    if (rp_merge_into(&methods, p, 0, false, err) != 0) {
        rp_profile_free(&methods);
        rp_error("%s", err);
        return -1;
    }
    rp_profile_free(p);
    *p = methods;
    return 0;
}

int rp_filter_apply(rp_profile *p, const rp_options *o, bool keep_lines)
{
    if (!keep_lines && !o->lines && has_lines(p))
        return drop_lines(p);
    return 0;
}
