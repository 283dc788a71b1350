/*
 * agent/core_api.h — what the sampling core offers the Ruby extension.
 *
 * Owns: the one table of functions through which the agent's Ruby
 * extension (agent/ext/, loaded when a program requires "rperf") reaches
 * the sampling core preloaded into the process (librperf-agent.so). The
 * core exports nothing else to it: the table is its only symbol besides
 * the entry points it interposes (exports.map), so the core stays small —
 * it links no reader or encoder — and the extension, which links the whole
 * profile library, is loaded only into programs that use the API.
 *
 * The extension finds the table with dlsym(RTLD_DEFAULT, RP_CORE_SYMBOL)
 * and uses it only if its ABI number and size are its own and the core's
 * Ruby folder is the one the extension was loaded from: both come from one
 * build. Every function runs on a Ruby thread holding the GVL.
 */
#ifndef RPERF_AGENT_CORE_API_H
#define RPERF_AGENT_CORE_API_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../profile/profile.h"
#include "config.h"
#include "labels.h"
#include "threads.h"
#include "window.h"

#define RP_CORE_SYMBOL "rperf_agent_core"
/* Raised whenever the table's functions or their meaning change. */
#define RP_CORE_ABI 1

typedef struct rp_core_api {
    uint32_t abi;  /* RP_CORE_ABI of the core */
    uint32_t size; /* sizeof(rp_core_api) of the core */
    /* The folder of Ruby files the core put first on $LOAD_PATH, or NULL
     * when it put none (ruby_lib.h). */
    const char *(*ruby_folder)(void);

    /* agent.h: whether the process is profiled, its configuration, and
     * windows of its profile. */
    bool (*profiling)(void);
    const rp_config *(*config)(void);
    int (*open_window)(rp_window *w);
    int (*build_window)(const rp_window *w, rp_profile *p);
    void (*free_window)(rp_window *w);

    /* sampler.h: the calling thread's record (labels live in it). */
    rp_thread *(*current_thread)(void);

    /* labels.h: the store of label sets. */
    uint32_t (*labels_merge)(uint32_t base, const rp_label_change *changes, size_t n);
    rp_label_hold *(*labels_hold)(uint32_t set);
    uint32_t (*labels_release)(rp_label_hold *h);
    uint32_t (*labels_pair_count)(uint32_t set);
    void (*labels_pair)(uint32_t set, uint32_t i, const char **key, size_t *key_len,
                        const char **value, size_t *value_len);

    /* defer.h: profile blocks, and deferring from Rperf.start(defer:). */
    void (*defer_enter)(rp_thread *t);
    void (*defer_leave)(rp_thread *t);
    void (*defer_set_window)(bool on);
} rp_core_api;

#endif
