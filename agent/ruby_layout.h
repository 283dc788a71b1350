/*
 * agent/ruby_layout.h — what the agent reads of Ruby 3.4's own structures.
 *
 * Owns: the offsets into rb_thread_t that libruby exports nothing for
 * (vm_core.h of Ruby 3.4), and the first check every user of them makes
 * on the running Ruby: it is 3.4, and the current Thread's structure
 * points back at the Thread through `self`. Each user checks the rest of
 * what it reads itself (gvl_holder.c, ractors.c) and does without it when
 * a check fails. Header-only.
 */
#ifndef RPERF_AGENT_RUBY_LAYOUT_H
#define RPERF_AGENT_RUBY_LAYOUT_H

#include "ruby_api.h"

enum {
    RP_TH_SELF_OFFSET = 16,   /* rb_thread_t.self, after lt_node */
    RP_TH_RACTOR_OFFSET = 24, /* rb_thread_t.ractor */
    RP_TH_EC_OFFSET = 48,     /* rb_thread_t.ec, after ractor, vm, nt */
};

/* The rb_thread_t behind a Thread object. */
static inline char *rp_thread_struct(VALUE thread)
{
    return (char *)RTYPEDDATA_GET_DATA(thread);
}

/* Ruby thread with the GVL: the current thread's rb_thread_t, when this is
 * Ruby 3.4 and its `self` is the Thread; else NULL. */
static inline char *rp_checked_current_thread_struct(void)
{
    if (!ruby_api_version || ruby_api_version[0] != 3 || ruby_api_version[1] != 4)
        return NULL;
    VALUE thread = rb_thread_current();
    if (!RB_TYPE_P(thread, T_DATA) || !RTYPEDDATA_P(thread))
        return NULL;
    char *th = rp_thread_struct(thread);
    return th && *(VALUE *)(th + RP_TH_SELF_OFFSET) == thread ? th : NULL;
}

#endif
