/*
 * common/profile_write.c — the profile document writer. See profile_write.h.
 */
#include "profile_write.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "json_writer.h"
#include "schema.h"

static void write_string_id(rp_json *j, const rp_profile *p, uint32_t id)
{
    size_t len;
    const char *s = rp_strtab_get(&p->strings, id, &len);
    rp_json_string(j, s, len);
}

static void write_counters(rp_json *j, const rp_profile *p)
{
    const rp_meta *m = &p->meta;
    rp_json_member_cstring(j, RP_KEY_RPERF_VERSION,
                           m->rperf_version != RP_IDX_NONE ? rp_profile_str(p, m->rperf_version)
                                                           : RP_VERSION);
    rp_json_member_int(j, RP_KEY_PID, m->pid);
    rp_json_member_int(j, RP_KEY_PPID, m->ppid);
    rp_json_member_cstring(j, RP_KEY_MODE, rp_mode_name(m->mode));
    rp_json_member_int(j, RP_KEY_FREQUENCY, m->frequency);
    rp_json_member_int(j, RP_KEY_TRIGGER_COUNT, m->trigger_count);
    rp_json_member_int(j, RP_KEY_SAMPLING_COUNT, m->sampling_count);
    rp_json_member_int(j, RP_KEY_SAMPLING_TIME_NS, m->sampling_time_ns);
    rp_json_member_int(j, RP_KEY_DETECTED_THREADS, m->detected_thread_count);
    rp_json_member_int(j, RP_KEY_UNIQUE_FRAMES, (int64_t)p->frame_count);
    rp_json_member_int(j, RP_KEY_UNIQUE_STACKS, (int64_t)p->stacks.count);
    rp_json_member_int(j, RP_KEY_START_TIME_NS, m->start_time_ns);
    rp_json_member_int(j, RP_KEY_DURATION_NS, m->duration_ns);
    rp_json_member_int(j, RP_KEY_USER_NS, m->user_ns);
    rp_json_member_int(j, RP_KEY_SYS_NS, m->sys_ns);
    rp_json_member_int(j, RP_KEY_DROPPED_SAMPLES, m->dropped_samples);
    rp_json_member_int(j, RP_KEY_TRUNCATED_SAMPLES, m->truncated_samples);
    if (m->process_count > 1) {
        rp_json_member_int(j, RP_KEY_PROCESS_COUNT, m->process_count);
        rp_json_member_int(j, RP_KEY_TOTAL_DURATION_NS, m->total_duration_ns);
    }
}

static void write_int_object(rp_json *j, const char *key, const void *base,
                             const rp_int_field *fields, size_t count)
{
    rp_json_key(j, key);
    rp_json_begin_object(j);
    for (size_t i = 0; i < count; i++)
        rp_json_member_int(j, fields[i].key, *rp_int_field_at((void *)base, &fields[i]));
    rp_json_end_object(j);
}

static void write_process_facts(rp_json *j, const rp_profile *p)
{
    const rp_meta *m = &p->meta;
    rp_json_key(j, RP_KEY_COMMAND);
    rp_json_begin_array(j);
    for (size_t i = 0; i < m->command_len; i++)
        write_string_id(j, p, m->command[i]);
    rp_json_end_array(j);
    if (m->ruby_version != RP_IDX_NONE) {
        rp_json_key(j, RP_KEY_RUBY_VERSION);
        write_string_id(j, p, m->ruby_version);
    }
    if (m->has_gc)
        write_int_object(j, RP_KEY_GC, &m->gc, rp_gc_fields, rp_gc_field_count);
    if (m->has_yjit) {
        rp_json_key(j, RP_KEY_YJIT_RATIO);
        rp_json_double(j, m->yjit_ratio);
    }
    if (m->has_os)
        write_int_object(j, RP_KEY_OS, &m->os, rp_os_fields, rp_os_field_count);
}

static void write_samples(rp_json *j, const rp_profile *p)
{
    rp_json_key(j, p->samples.aggregate ? RP_KEY_AGGREGATED_SAMPLES : RP_KEY_RAW_SAMPLES);
    rp_json_begin_array(j);
    for (size_t i = 0; i < p->samples.count; i++) {
        const rp_sample *s = &p->samples.samples[i];
        uint32_t depth;
        const uint32_t *frames = rp_stack_table_get(&p->stacks, s->stack, &depth);
        rp_json_begin_array(j);
        rp_json_begin_array(j);
        for (uint32_t d = 0; d < depth; d++) {
            const rp_frame *f = &p->frames[frames[d]];
            rp_json_begin_array(j);
            write_string_id(j, p, f->path);
            write_string_id(j, p, f->label);
            if (f->line) {
                rp_json_int(j, f->line);
                if (f->start_line)
                    rp_json_int(j, f->start_line);
            }
            rp_json_end_array(j);
        }
        rp_json_end_array(j);
        rp_json_int(j, s->weight);
        rp_json_int(j, s->thread_seq);
        rp_json_int(j, s->label_set);
        rp_json_end_array(j);
    }
    rp_json_end_array(j);
}

static void write_label_sets(rp_json *j, const rp_profile *p)
{
    rp_json_key(j, RP_KEY_LABEL_SETS);
    rp_json_begin_array(j);
    for (size_t i = 0; i < p->label_set_count; i++) {
        const rp_label_set *ls = &p->label_sets[i];
        rp_json_begin_object(j);
        for (uint32_t k = 0; k < ls->count; k++) {
            const rp_label *l = &p->labels[ls->first + k];
            rp_json_key(j, rp_profile_str(p, l->key));
            write_string_id(j, p, l->value);
        }
        rp_json_end_object(j);
    }
    rp_json_end_array(j);
}

void rp_profile_write_json(const rp_profile *p, rp_out *out)
{
    rp_json j;
    rp_json_init(&j, out);
    rp_json_begin_object(&j);
    write_counters(&j, p);
    write_process_facts(&j, p);
    write_samples(&j, p);
    write_label_sets(&j, p);
    rp_json_end_object(&j);
    rp_out_write(out, "\n", 1);
}

int rp_profile_write_file(const rp_profile *p, const char *path, int level)
{
    /* Readers only ever see complete files: the data goes to a temporary
     * name first and rename() publishes it in one step. */
    char tmp[4096];
    if (snprintf(tmp, sizeof(tmp), "%s.tmp.%ld", path, (long)getpid()) >= (int)sizeof(tmp))
        return ENAMETOOLONG;
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0)
        return errno;
    rp_out *out = rp_out_gzip_fd(fd, level);
    if (!out) {
        int err = errno;
        close(fd);
        unlink(tmp);
        return err;
    }
    rp_profile_write_json(p, out);
    int err = rp_out_close(out);
    if (!err && rename(tmp, path) != 0)
        err = errno;
    if (err)
        unlink(tmp);
    return err;
}
