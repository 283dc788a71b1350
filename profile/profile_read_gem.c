/*
 * profile/profile_read_gem.c — what only the rperf gem's files contain.
 *
 * Owns: reading the gem 0.9's "gc_stats" object (its key names, GC time
 * in milliseconds) into our GC counters, and label values that are not
 * strings (the gem keeps user labels as given: numbers and booleans).
 * Everything else of the gem's format is ours too (profile_read.c).
 */
#include <stddef.h>

#include "profile_read_doc.h"
#include "schema.h"


int rp_gem_read_gc_stats(struct doc *d, rp_jtok tok)
{
    rp_meta *m = &d->p->meta;
    rp_gc_stats gem = {0};
    bool present = false;
    if (rp_doc_read_fields(d, tok, RP_KEY_GEM_GC_STATS, &gem, rp_gem_gc_fields, &present) != 0)
        return -1;
    if (!present || m->has_gc)
        return 0; /* our own "gc", when there, wins */
    if (__builtin_mul_overflow(gem.time_ns, 1000000, &gem.time_ns))
        return rp_doc_fail(d->err, "\"gc_stats\".\"time_ms\" is out of range");
    m->gc = gem;
    m->has_gc = true;
    return 0;
}

/* Label values are strings in our files; the gem may carry numbers or
 * booleans from user labels, which are kept as their JSON text. */
uint32_t rp_gem_label_value(struct doc *d, rp_jtok tok)
{
    switch (tok) {
    case RP_JT_STRING:
        return rp_profile_string(d->p, d->jr.str, d->jr.str_len);
    case RP_JT_NUMBER:
        return rp_profile_string(d->p, d->jr.num, d->jr.num_len);
    case RP_JT_TRUE:
        return rp_profile_cstring(d->p, "true");
    case RP_JT_FALSE:
        return rp_profile_cstring(d->p, "false");
    default:
        return RP_IDX_NONE - 1; /* not a scalar */
    }
}
