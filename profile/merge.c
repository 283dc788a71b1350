/*
 * profile/merge.c — merging profiles. See merge.h.
 * Linear in the size of `src`: every table is mapped once through the
 * destination's hash tables.
 */
#include "merge.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/vec.h"

struct id_maps {
    uint32_t *strings, *frames, *stacks, *label_sets;
};

static void free_maps(struct id_maps *m)
{
    free(m->strings);
    free(m->frames);
    free(m->stacks);
    free(m->label_sets);
}

static uint32_t *alloc_map(size_t n)
{
    return malloc((n ? n : 1) * sizeof(uint32_t));
}

static int map_strings(rp_profile *dst, const rp_profile *src, struct id_maps *m)
{
    if (!(m->strings = alloc_map(src->strings.count)))
        return -1;
    for (size_t i = 0; i < src->strings.count; i++) {
        size_t len;
        const char *s = rp_strtab_get(&src->strings, (uint32_t)i, &len);
        if ((m->strings[i] = rp_profile_string(dst, s, len)) == RP_IDX_NONE)
            return -1;
    }
    return 0;
}

/* Without `keep_lines`, the frames of one method at different lines become
 * one frame (the method's first line stays known). */
static int map_frames(rp_profile *dst, const rp_profile *src, bool keep_lines, struct id_maps *m)
{
    if (!(m->frames = alloc_map(src->frame_count)))
        return -1;
    for (size_t i = 0; i < src->frame_count; i++) {
        const rp_frame *f = &src->frames[i];
        m->frames[i] = rp_profile_line_frame(dst, m->strings[f->path], m->strings[f->label],
                                             keep_lines ? f->line : 0, f->start_line);
        if (m->frames[i] == RP_IDX_NONE)
            return -1;
    }
    return 0;
}

static int map_stacks(rp_profile *dst, const rp_profile *src, struct id_maps *m)
{
    uint32_t *ids = NULL;
    size_t cap = 0;
    if (!(m->stacks = alloc_map(src->stacks.count)))
        return -1;
    for (size_t i = 0; i < src->stacks.count; i++) {
        uint32_t depth;
        const uint32_t *frames = rp_stack_table_get(&src->stacks, (uint32_t)i, &depth);
        if (RP_VEC_RESERVE(ids, cap, depth) != 0) {
            free(ids);
            return -1;
        }
        for (uint32_t d = 0; d < depth; d++)
            ids[d] = m->frames[frames[d]];
        if ((m->stacks[i] = rp_profile_stack(dst, ids, depth)) == RP_IDX_NONE) {
            free(ids);
            return -1;
        }
    }
    free(ids);
    return 0;
}

/* `extra` (dst string ids; key RP_IDX_NONE: none) joins every set. */
static int map_label_sets(rp_profile *dst, const rp_profile *src, rp_label extra,
                          struct id_maps *m)
{
    rp_label *pairs = NULL;
    size_t cap = 0;
    if (!(m->label_sets = alloc_map(src->label_set_count)))
        return -1;
    for (size_t i = 0; i < src->label_set_count; i++) {
        const rp_label_set *ls = &src->label_sets[i];
        if (RP_VEC_RESERVE(pairs, cap, ls->count + 1) != 0) {
            free(pairs);
            return -1;
        }
        uint32_t n = 0;
        for (uint32_t k = 0; k < ls->count; k++) {
            const rp_label *l = &src->labels[ls->first + k];
            pairs[n++] = (rp_label){m->strings[l->key], m->strings[l->value]};
        }
        if (extra.key != RP_IDX_NONE)
            pairs[n++] = extra;
        if ((m->label_sets[i] = rp_profile_label_set(dst, pairs, n)) == RP_IDX_NONE) {
            free(pairs);
            return -1;
        }
    }
    free(pairs);
    return 0;
}

/* Copies the facts that describe one process (the root's). */
static void take_process_facts(rp_meta *dst, const rp_meta *src, const struct id_maps *m)
{
    dst->mode = src->mode;
    dst->frequency = src->frequency;
    dst->pid = src->pid;
    dst->ppid = src->ppid;
    dst->start_time_ns = src->start_time_ns;
    dst->detected_thread_count = src->detected_thread_count;
    dst->rperf_version = src->rperf_version == RP_IDX_NONE ? RP_IDX_NONE : m->strings[src->rperf_version];
    dst->ruby_version = src->ruby_version == RP_IDX_NONE ? RP_IDX_NONE : m->strings[src->ruby_version];
    for (size_t i = 0; i < src->command_len; i++)
        dst->command[i] = m->strings[src->command[i]];
    dst->command_len = src->command_len;
    dst->has_gc = src->has_gc;
    dst->gc = src->gc;
    dst->has_os = src->has_os;
    dst->os = src->os;
    dst->has_yjit = src->has_yjit;
    dst->yjit_ratio = src->yjit_ratio;
}

static int merge_meta(rp_meta *dst, const rp_meta *src, size_t merged_before,
                      const struct id_maps *m)
{
    bool src_is_root = merged_before == 0 || src->start_time_ns < dst->start_time_ns;
    int64_t end = src->start_time_ns + src->duration_ns;
    if (merged_before > 0 && dst->start_time_ns + dst->duration_ns > end)
        end = dst->start_time_ns + dst->duration_ns;
    if (src_is_root) {
        uint32_t *command = realloc(dst->command, (src->command_len ? src->command_len : 1) *
                                                      sizeof(uint32_t));
        if (!command)
            return -1;
        dst->command = command;
        take_process_facts(dst, src, m);
    }
    if (merged_before == 0) {
        dst->process_count = 0;
        dst->duration_ns = 0;
        dst->total_duration_ns = 0;
    }
    rp_add_saturating(&dst->trigger_count, src->trigger_count);
    rp_add_saturating(&dst->sampling_count, src->sampling_count);
    rp_add_saturating(&dst->sampling_time_ns, src->sampling_time_ns);
    rp_add_saturating(&dst->dropped_samples, src->dropped_samples);
    rp_add_saturating(&dst->truncated_samples, src->truncated_samples);
    rp_add_saturating(&dst->user_ns, src->user_ns);
    rp_add_saturating(&dst->sys_ns, src->sys_ns);
    /* The parts of one process after its first (RPERF_INTERVAL) are that
     * process again. */
    if (src->part <= 1)
        rp_add_saturating(&dst->process_count, src->process_count);
    rp_add_saturating(&dst->total_duration_ns, src->total_duration_ns);
    /* From the earliest start to the latest end of any file: the parts of a
     * process follow each other. */
    dst->duration_ns = end - dst->start_time_ns;
    return 0;
}

static int merge_samples(rp_profile *dst, const rp_profile *src, const struct id_maps *m,
                         char *err)
{
    for (size_t i = 0; i < src->samples.count; i++) {
        const rp_sample *s = &src->samples.samples[i];
        switch (rp_sample_table_add(&dst->samples, m->stacks[s->stack], s->thread_seq,
                                    m->label_sets[s->label_set], s->weight)) {
        case RP_SAMPLE_OK:
            break;
        case RP_SAMPLE_OVERFLOW:
            snprintf(err, RP_MERGE_ERROR_MAX, "summed sample weight overflows 64 bits");
            return -1;
        default:
            snprintf(err, RP_MERGE_ERROR_MAX, "out of memory");
            return -1;
        }
    }
    return 0;
}

int rp_merge_into(rp_profile *dst, const rp_profile *src, size_t merged_before, bool keep_lines,
                  char err[RP_MERGE_ERROR_MAX])
{
    return rp_merge_into_labelled(dst, src, merged_before, keep_lines, NULL, NULL, err);
}

int rp_merge_into_labelled(rp_profile *dst, const rp_profile *src, size_t merged_before,
                           bool keep_lines, const char *key, const char *value,
                           char err[RP_MERGE_ERROR_MAX])
{
    struct id_maps m = {0};
    rp_label extra = {RP_IDX_NONE, RP_IDX_NONE};
    int rc = -1;
    if (key)
        extra = (rp_label){rp_profile_cstring(dst, key), rp_profile_cstring(dst, value)};
    if ((key && (extra.key == RP_IDX_NONE || extra.value == RP_IDX_NONE)) ||
        map_strings(dst, src, &m) != 0 || map_frames(dst, src, keep_lines, &m) != 0 ||
        map_stacks(dst, src, &m) != 0 || map_label_sets(dst, src, extra, &m) != 0 ||
        merge_meta(&dst->meta, &src->meta, merged_before, &m) != 0)
        snprintf(err, RP_MERGE_ERROR_MAX, "out of memory");
    else
        rc = merge_samples(dst, src, &m, err);
    free_maps(&m);
    return rc;
}
