/*
 * agent/base/config.h — the agent's configuration from RPERF_* variables.
 *
 * Owns: parsing and validating the environment (README, "Environment"). Runs once in the
 * interposed ruby_init() on the main thread, so a non-Ruby process never
 * parses anything and never prints about a bad value.
 */
#ifndef RPERF_AGENT_CONFIG_H
#define RPERF_AGENT_CONFIG_H

#include <stdbool.h>

#include "../../profile/profile.h"

#define RP_FREQUENCY_MIN 1
#define RP_FREQUENCY_MAX 10000
#define RP_FREQUENCY_DEFAULT 1000
/* RPERF_MAX_STACKS: distinct stacks kept before samples go to the capped
 * stack (aggregator.h); about 40 MB of tables for stacks 100 frames deep. */
#define RP_MAX_STACKS_DEFAULT 100000
#define RP_MAX_STACKS_MAX 100000000
#define RP_INTERVAL_MAX 86400
/* RPERF_LINES default: see README "Line-level profiles" for the measurement. */
#define RP_LINES_DEFAULT false

/* RPERF_ALLOC: one allocation in N sampled; `rperf record --alloc`
 * without N uses the default (README, "Allocations and retained
 * objects", for its cost and accuracy). */
#define RP_ALLOC_RATE_DEFAULT 128
#define RP_ALLOC_RATE_MAX 100000000
/* RPERF_ALLOC_FOLLOW: sampled objects followed until they are freed (the
 * retained objects); beyond, sampled objects are counted, not followed. */
#define RP_ALLOC_FOLLOW_DEFAULT 100000
#define RP_ALLOC_FOLLOW_MAX 100000000
/* RPERF_ALLOC=window: always-on allocation sampling for production — the
 * hook is installed only for short windows (allocations.h), where one
 * allocation in this many is sampled. */
#define RP_ALLOC_WINDOW_RATE 16

/* Requests (spans.h): RPERF_SLOW_KEEP slow ones kept per endpoint and
 * part, those of RPERF_SLOW_MS at least when set. */
#define RP_SLOW_KEEP_DEFAULT 20
#define RP_SLOW_KEEP_MAX 1000
#define RP_SLOW_MS_MAX 3600000

/* RPERF_META_GIT / RPERF_META_LABELS, as JSON text (the room for it). */
#define RP_META_TEXT_MAX 4096

typedef struct rp_config {
    bool dormant;     /* RPERF_ENABLED=0: only sessions of the Rperf API record */
    rp_mode mode;
    int frequency;    /* Hz */
    /* RPERF_SIGNAL: the real-time signal the rperf gem's own profiler ticks
     * with (its handler there means it started: the agent stands aside).
     * The agent's own ticks use no signal; `false` is taken, as the gem's
     * option, and watches the gem's default, SIGRTMIN+8. */
    int gem_signal;
    bool aggregate;
    bool inherit;
    bool quiet;
    bool verbose;
    bool lines;       /* record the line each frame is at */
    bool defer;       /* sample only inside Rperf.profile blocks */
    long max_stacks;  /* distinct stacks kept (RPERF_MAX_STACKS) */
    long interval;    /* seconds per profile part (RPERF_INTERVAL), 0: one profile */
    long alloc_rate;  /* one allocation in N sampled (RPERF_ALLOC), 0: none */
    bool alloc_window;/* RPERF_ALLOC=window: sampled in short windows only */
    long alloc_follow;/* sampled objects followed at most (RPERF_ALLOC_FOLLOW) */
    long slow_ms;     /* a slow request's time at least (RPERF_SLOW_MS), 0: the slowest */
    long slow_keep;   /* slow requests kept per endpoint and part (RPERF_SLOW_KEEP) */
    /* The profile's meta (the gem 0.11's): RPERF_META_GIT, the commit the
     * rperf command found before running the program ({"sha":...}), and
     * RPERF_META_LABELS, `--label KEY=VALUE` ({"ci":"x"}), each a flat JSON
     * object written canonically; "" when unset, "null" or not valid (said
     * once, and the profile is made without it). */
    char meta_git[RP_META_TEXT_MAX];
    char meta_labels[RP_META_TEXT_MAX];
} rp_config;

/* Fills `cfg` from the environment. On an invalid value, prints one line
 * naming the variable and the accepted values and returns -1. */
int rp_config_load(rp_config *cfg);

#endif
