/*
 * agent/control/core_api.c — the core's table for the Ruby extension. See
 * core_api.h.
 */
#include "core_api.h"

#include "../sampling/defer.h"
#include "../profiles/procstats.h"
#include "../base/ruby_lib.h"
#include "../sampling/sampler.h"
#include "../requests/spans.h"

/* Exported (exports.map): the extension looks it up by name. */
__attribute__((visibility("default"))) const rp_core_api rperf_agent_core = {
    .abi = RP_CORE_ABI,
    .size = sizeof(rp_core_api),
    .ruby_folder = rp_ruby_lib_folder,
    .config = rp_agent_config,
    .profiling = rp_agent_profiling,
    .session_dir = rp_agent_session_dir,
    .session_open = rp_agent_session_open,
    .session_close = rp_agent_session_close,
    .session_is_open = rp_agent_session_is_open,
    .take_session_at_fork = rp_agent_take_session_at_fork,
    .open_window = rp_agent_open_window,
    .build_window = rp_agent_build_window,
    .free_window = rp_window_free,
    .take_session_part = rp_agent_take_session_part,
    .set_session_sink = rp_agent_set_session_sink,
    .process_facts = rp_procstats_fill,
    .meta_facts = rp_procstats_fill_meta,
    .current_thread = rp_sampler_current_thread,
    .labels_merge = rp_labels_merge,
    .labels_hold = rp_labels_hold,
    .labels_release = rp_labels_release,
    .labels_pair_count = rp_labels_pair_count,
    .labels_pair = rp_labels_pair,
    .clear_labels = rp_agent_clear_labels,
    .label_alias = rp_label_alias,
    .defer_enter = rp_defer_enter,
    .defer_leave = rp_defer_leave,
    .span_begin = rp_spans_begin,
    .span_end = rp_spans_end,
};
