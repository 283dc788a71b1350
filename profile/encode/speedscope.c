/*
 * profile/encode/speedscope.c — speedscope output. See speedscope.h.
 *
 * A speedscope sample is a stack of indexes into the shared frames, root
 * first, with its weight. The profile's aggregated samples map one to one
 * onto them, grouped by thread: a thread is (process, thread_seq), the
 * process being the %pid label (none: the session's root process).
 */
#include "speedscope.h"

#include <inttypes.h>
#include <stdlib.h>

#include "../../common/json_writer.h"
#include "../schema.h"
#include "../../common/vec.h"

#define SPEEDSCOPE_SCHEMA "https://www.speedscope.app/file-format-schema.json"

typedef struct thread_sample {
    uint32_t process; /* rp_profile_process_of */
    uint32_t thread_seq;
    uint32_t sample;  /* index into the profile's samples */
} thread_sample;

/* The root process (RP_IDX_NONE) first, then the others. */
static int by_thread(const void *a, const void *b)
{
    const thread_sample *x = a, *y = b;
    if (x->process != y->process)
        return x->process + 1 < y->process + 1 ? -1 : 1;
    if (x->thread_seq != y->thread_seq)
        return x->thread_seq < y->thread_seq ? -1 : 1;
    return x->sample < y->sample ? -1 : x->sample > y->sample;
}

static void write_frames(rp_json *j, const rp_profile *p)
{
    rp_json_key(j, "shared");
    rp_json_begin_object(j);
    rp_json_key(j, "frames");
    rp_json_begin_array(j);
    for (size_t i = 0; i < p->frame_count; i++) {
        const rp_frame *f = &p->frames[i];
        rp_json_begin_object(j);
        rp_json_member_cstring(j, "name", rp_profile_str(p, f->label));
        rp_json_member_cstring(j, "file", rp_profile_str(p, f->path));
        if (f->line)
            rp_json_member_int(j, "line", f->line);
        rp_json_end_object(j);
    }
    rp_json_end_array(j);
    rp_json_end_object(j);
}

/* One sampled profile: the samples [first, end) of one thread. */
static void write_thread(rp_json *j, const rp_profile *p, const thread_sample *first, const thread_sample *end)
{
    char name[96], pid[RP_FRAME_NAME_MAX];
    int64_t total = 0;
    for (const thread_sample *t = first; t < end; t++)
        rp_add_saturating(&total, p->samples.samples[t->sample].weight);
    if (first->process != RP_IDX_NONE)
        snprintf(pid, sizeof(pid), "%s", rp_profile_str(p, first->process));
    else
        snprintf(pid, sizeof(pid), "%" PRId64, p->meta.pid);
    snprintf(name, sizeof(name), "pid %.40s thread %" PRIu32 " (%s)", pid, first->thread_seq,
             p->measure == RP_MEASURE_TIME ? rp_mode_name(p->meta.mode) : rp_measures[p->measure].what);
    rp_json_begin_object(j);
    rp_json_member_cstring(j, "type", "sampled");
    rp_json_member_cstring(j, "name", name);
    rp_json_member_cstring(j, "unit", p->measure == RP_MEASURE_TIME            ? "nanoseconds"
                                      : p->measure == RP_MEASURE_RETAINED_BYTES ? "bytes"
                                                                                : "none");
    rp_json_member_int(j, "startValue", 0);
    rp_json_member_int(j, "endValue", total);
    rp_json_key(j, "samples");
    rp_json_begin_array(j);
    for (const thread_sample *t = first; t < end; t++) {
        uint32_t depth;
        const uint32_t *frames = rp_stack_table_get(&p->stacks, p->samples.samples[t->sample].stack, &depth);
        rp_json_begin_array(j);
        for (uint32_t d = depth; d-- > 0;)
            rp_json_int(j, frames[d]);
        rp_json_end_array(j);
    }
    rp_json_end_array(j);
    rp_json_key(j, "weights");
    rp_json_begin_array(j);
    for (const thread_sample *t = first; t < end; t++)
        rp_json_int(j, p->samples.samples[t->sample].weight);
    rp_json_end_array(j);
    rp_json_end_object(j);
}

static void write_name(rp_json *j, const rp_profile *p)
{
    char name[512];
    size_t len = 0;
    name[0] = '\0';
    for (size_t i = 0; i < p->meta.command_len && len < sizeof(name) - 1; i++)
        len += (size_t)snprintf(name + len, sizeof(name) - len, "%s%s", i ? " " : "",
                                rp_profile_str(p, p->meta.command[i]));
    rp_json_member_cstring(j, "name", len ? name : "rperf profile");
}

int rp_speedscope_write(const rp_profile *p, rp_out *out, const rp_encode_opts *opts)
{
    (void)opts; /* frames are what loading kept (with --lines, one per line) */
    size_t n = p->samples.count;
    thread_sample *order = rp_alloc_array(n, sizeof(*order));
    if (!order)
        return -1;
    for (size_t i = 0; i < n; i++) {
        const rp_sample *s = &p->samples.samples[i];
        order[i] = (thread_sample){rp_profile_process_of(p, s->label_set), s->thread_seq, (uint32_t)i};
    }
    qsort(order, n, sizeof(*order), by_thread);

    rp_json j;
    rp_json_init(&j, out);
    rp_json_begin_object(&j);
    rp_json_member_cstring(&j, "$schema", SPEEDSCOPE_SCHEMA);
    write_name(&j, p);
    rp_json_member_cstring(&j, "exporter", "rperf-analyze " RP_VERSION);
    rp_json_member_int(&j, "activeProfileIndex", 0);
    write_frames(&j, p);
    rp_json_key(&j, "profiles");
    rp_json_begin_array(&j);
    for (size_t i = 0; i < n;) {
        size_t k = i + 1;
        while (k < n && order[k].process == order[i].process && order[k].thread_seq == order[i].thread_seq)
            k++;
        write_thread(&j, p, &order[i], &order[k]);
        i = k;
    }
    rp_json_end_array(&j);
    rp_json_end_object(&j);
    rp_out_write(out, "\n", 1);
    free(order);
    return 0;
}
