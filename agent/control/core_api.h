/*
 * agent/control/core_api.h — what the sampling core offers the Ruby extension.
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

#include "../../profile/profile.h"
#include "agent.h"
#include "../base/config.h"
#include "../sampling/label_aliases.h"
#include "../sampling/labels.h"
#include "../vm/threads.h"
#include "../profiles/window.h"

#define RP_CORE_SYMBOL "rperf_agent_core"
/* Raised whenever the table's functions or their meaning change. */
#define RP_CORE_ABI 6

typedef struct rp_core_api {
    uint32_t abi;  /* RP_CORE_ABI of the core */
    uint32_t size; /* sizeof(rp_core_api) of the core */
    /* The folder of Ruby files the core put first on $LOAD_PATH, or NULL
     * when it put none (ruby_lib.h). */
    const char *(*ruby_folder)(void);
    const rp_config *(*config)(void);

    /* agent.h: the whole process's profile, a session, windows of both. */
    bool (*profiling)(void);
    const char *(*session_dir)(void);
    int (*session_open)(const rp_session_opts *o);
    void (*session_close)(void);
    bool (*session_is_open)(void);
    bool (*take_session_at_fork)(void);
    int (*open_window)(rp_rec_id id, rp_window *w);
    int (*build_window)(rp_rec_id id, const rp_window *w, rp_profile *p);
    void (*free_window)(rp_window *w);
    int (*take_session_part)(rp_profile *p);
    void (*set_session_sink)(void (*sink)(rp_profile *part));
    /* procstats.h: the process's command, Ruby, GC and OS facts now; the
     * meta alone (host, commit, labels). */
    void (*process_facts)(rp_profile *p);
    void (*meta_facts)(rp_profile *p);

    /* sampler.h: the calling thread's record (labels live in it). */
    rp_thread *(*current_thread)(void);

    /* labels.h: the store of label sets; agent.h: everyone's cleared. */
    uint32_t (*labels_merge)(uint32_t base, const rp_label_change *changes, size_t n);
    rp_label_hold *(*labels_hold)(uint32_t set);
    uint32_t (*labels_release)(rp_label_hold *h);
    uint32_t (*labels_pair_count)(uint32_t set);
    void (*labels_pair)(uint32_t set, uint32_t i, const char **key, size_t *key_len,
                        const char **value, size_t *value_len);
    void (*clear_labels)(void);
    /* label_aliases.h: a label value written under another name. */
    bool (*label_alias)(const char *key, size_t key_len, const char *from, size_t from_len, const char *to,
                        size_t to_len);

    /* defer.h: profile blocks. */
    void (*defer_enter)(rp_thread *t);
    void (*defer_leave)(rp_thread *t);

    /* spans.h: requests and jobs. */
    int (*span_begin)(rp_thread *t, const char *name, size_t len, int64_t queued_ns);
    void (*span_end)(rp_thread *t, int status, const char *name, size_t len);
} rp_core_api;

#endif
