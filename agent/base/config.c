/*
 * agent/base/config.c — RPERF_* parsing. See config.h.
 *
 * Context: main thread inside ruby_init (GVL held); reads environ only.
 */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "../../common/json_flat.h"
#include "log.h"

/* Strict decimal integer: digits only, no sign, no spaces, fits in long. */
static bool parse_long(const char *s, long *out)
{
    if (!s || !*s || strspn(s, "0123456789") != strlen(s) || strlen(s) > 9)
        return false;
    errno = 0;
    *out = strtol(s, NULL, 10);
    return errno == 0;
}

static int invalid(const char *var, const char *value, const char *accepted)
{
    rp_log("invalid %s=\"%s\": expected %s; running without profiling", var, value, accepted);
    return -1;
}

static int load_mode(rp_config *cfg)
{
    const char *v = getenv("RPERF_MODE");
    if (!v || strcmp(v, "cpu") == 0)
        cfg->mode = RP_MODE_CPU;
    else if (strcmp(v, "wall") == 0)
        cfg->mode = RP_MODE_WALL;
    else
        return invalid("RPERF_MODE", v, "cpu or wall");
    return 0;
}

static int load_frequency(rp_config *cfg)
{
    const char *v = getenv("RPERF_FREQUENCY");
    long hz = RP_FREQUENCY_DEFAULT;
    if (v && (!parse_long(v, &hz) || hz < RP_FREQUENCY_MIN || hz > RP_FREQUENCY_MAX))
        return invalid("RPERF_FREQUENCY", v, "an integer from 1 to 10000 (Hz)");
    cfg->frequency = (int)hz;
    return 0;
}

static int load_signal(rp_config *cfg)
{
    const char *v = getenv("RPERF_SIGNAL");
    long sig = SIGRTMIN + 8;
    if (v && strcmp(v, "false") == 0) {
        cfg->gem_signal = (int)sig;
        return 0;
    }
    if (v && (!parse_long(v, &sig) || sig < SIGRTMIN || sig > SIGRTMAX))
        return invalid("RPERF_SIGNAL", v,
                       "a real-time signal number (SIGRTMIN..SIGRTMAX) or false");
    cfg->gem_signal = (int)sig;
    return 0;
}

/* A 0/1 switch; `name` is the variable. */
static int load_flag(const char *name, bool fallback, bool *dst)
{
    const char *v = getenv(name);
    if (!v || !*v)
        *dst = fallback;
    else if (strcmp(v, "1") == 0)
        *dst = true;
    else if (strcmp(v, "0") == 0)
        *dst = false;
    else
        return invalid(name, v, "0 or 1");
    return 0;
}

static int load_max_stacks(rp_config *cfg)
{
    const char *v = getenv("RPERF_MAX_STACKS");
    cfg->max_stacks = RP_MAX_STACKS_DEFAULT;
    if (v && (!parse_long(v, &cfg->max_stacks) || cfg->max_stacks < 1 ||
              cfg->max_stacks > RP_MAX_STACKS_MAX))
        return invalid("RPERF_MAX_STACKS", v, "an integer from 1 to 100000000");
    return 0;
}

static int load_interval(rp_config *cfg)
{
    const char *v = getenv("RPERF_INTERVAL");
    cfg->interval = 0;
    if (v && *v && (!parse_long(v, &cfg->interval) || cfg->interval < 1 ||
                    cfg->interval > RP_INTERVAL_MAX))
        return invalid("RPERF_INTERVAL", v, "a number of seconds from 1 to 86400");
    return 0;
}

/* RPERF_ALLOC: one allocation in N sampled (unset, empty or 0: none), or
 * "window"; RPERF_ALLOC_FOLLOW: sampled objects followed until freed, at
 * most. */
static int load_alloc(rp_config *cfg)
{
    const char *v = getenv("RPERF_ALLOC");
    cfg->alloc_rate = 0;
    cfg->alloc_window = v && strcmp(v, "window") == 0;
    if (cfg->alloc_window)
        cfg->alloc_rate = RP_ALLOC_WINDOW_RATE;
    else if (v && *v && (!parse_long(v, &cfg->alloc_rate) || cfg->alloc_rate > RP_ALLOC_RATE_MAX))
        return invalid("RPERF_ALLOC", v,
                       "a positive integer N: one allocation in N sampled (0 or unset: none), or "
                       "'window' (sampled in short windows only, for production)");
    v = getenv("RPERF_ALLOC_FOLLOW");
    cfg->alloc_follow = RP_ALLOC_FOLLOW_DEFAULT;
    if (v && *v && (!parse_long(v, &cfg->alloc_follow) || cfg->alloc_follow > RP_ALLOC_FOLLOW_MAX))
        return invalid("RPERF_ALLOC_FOLLOW", v,
                       "an integer from 0 to 100000000: sampled objects followed until freed");
    return 0;
}

/* RPERF_SLOW_MS: requests at least that slow are kept one by one (unset:
 * the slowest of each endpoint); RPERF_SLOW_KEEP: how many per endpoint
 * and part (spans.h). */
static int load_slow(rp_config *cfg)
{
    const char *v = getenv("RPERF_SLOW_MS");
    cfg->slow_ms = 0;
    if (v && *v && (!parse_long(v, &cfg->slow_ms) || cfg->slow_ms > RP_SLOW_MS_MAX))
        return invalid("RPERF_SLOW_MS", v, "a number of milliseconds from 0 to 3600000");
    v = getenv("RPERF_SLOW_KEEP");
    cfg->slow_keep = RP_SLOW_KEEP_DEFAULT;
    if (v && *v && (!parse_long(v, &cfg->slow_keep) || cfg->slow_keep < 1 || cfg->slow_keep > RP_SLOW_KEEP_MAX))
        return invalid("RPERF_SLOW_KEEP", v, "an integer from 1 to 1000 (slow requests kept per endpoint)");
    return 0;
}

/* RPERF_ENABLED, the gem's variable: 1 (or unset) profiles the whole
 * process from its start, 0 leaves the agent dormant until Rperf.start. */
static int load_enabled(rp_config *cfg)
{
    bool enabled;
    if (load_flag("RPERF_ENABLED", true, &enabled) != 0)
        return -1;
    cfg->dormant = !enabled;
    return 0;
}

/* A flat JSON object from `var` into out, canonically; left empty when
 * unset or "null", and when it is not one, after a line saying so: the
 * program is still profiled, without that part of its meta. */
static void load_meta(const char *var, char out[RP_META_TEXT_MAX])
{
    const char *v = getenv(var);
    out[0] = '\0';
    if (!v || !*v || strcmp(v, "null") == 0)
        return;
    char *text = NULL, why[RP_JSON_FLAT_ERROR_MAX];
    if (rp_json_flat_canonical(v, strlen(v), &text, why) != 0)
        rp_log("%s is not a JSON object of strings, numbers and booleans (%s); the profile's meta leaves it out",
               var, why);
    else if (strlen(text) >= RP_META_TEXT_MAX)
        rp_log("%s is longer than %d bytes; the profile's meta leaves it out", var, RP_META_TEXT_MAX - 1);
    else
        memcpy(out, text, strlen(text) + 1);
    free(text);
}

int rp_config_load(rp_config *cfg)
{
    memset(cfg, 0, sizeof(*cfg));
    if (load_enabled(cfg) != 0 || load_mode(cfg) != 0 || load_frequency(cfg) != 0 || load_signal(cfg) != 0 ||
        load_flag("RPERF_AGGREGATE", true, &cfg->aggregate) != 0 ||
        load_flag("RPERF_INHERIT", true, &cfg->inherit) != 0 ||
        load_flag("RPERF_QUIET", false, &cfg->quiet) != 0 ||
        load_flag("RPERF_VERBOSE", false, &cfg->verbose) != 0 ||
        load_flag("RPERF_LINES", RP_LINES_DEFAULT, &cfg->lines) != 0 ||
        load_flag("RPERF_DEFER", false, &cfg->defer) != 0 || load_max_stacks(cfg) != 0 ||
        load_interval(cfg) != 0 || load_alloc(cfg) != 0 || load_slow(cfg) != 0)
        return -1;
    load_meta("RPERF_META_GIT", cfg->meta_git);
    load_meta("RPERF_META_LABELS", cfg->meta_labels);
    return 0;
}
