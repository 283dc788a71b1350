/*
 * agent/ext/profile_hash.c — the gem's Hash of a profile. See profile_hash.h.
 */
#include "profile_hash.h"

static VALUE sym(const char *name)
{
    return ID2SYM(rb_intern(name));
}

static VALUE string_of(const rp_profile *p, uint32_t id)
{
    size_t len;
    const char *s = rp_strtab_get(&p->strings, id, &len);
    return rb_obj_freeze(rb_utf8_str_new(s, (long)len));
}

/* [path, label] of every frame, frozen, shared by the samples. */
static VALUE frame_pairs(const rp_profile *p)
{
    VALUE frames = rb_ary_new_capa((long)p->frame_count);
    for (size_t i = 0; i < p->frame_count; i++) {
        const rp_frame *f = &p->frames[i];
        VALUE pair = rb_ary_new_from_args(2, string_of(p, f->path), string_of(p, f->label));
        rb_ary_push(frames, rb_obj_freeze(pair));
    }
    return frames;
}

static VALUE samples_of(const rp_profile *p, VALUE frames)
{
    VALUE samples = rb_ary_new_capa((long)p->samples.count);
    for (size_t i = 0; i < p->samples.count; i++) {
        const rp_sample *s = &p->samples.samples[i];
        uint32_t depth;
        const uint32_t *ids = rp_stack_table_get(&p->stacks, s->stack, &depth);
        VALUE stack = rb_ary_new_capa(depth);
        for (uint32_t d = 0; d < depth; d++)
            rb_ary_push(stack, rb_ary_entry(frames, ids[d]));
        rb_ary_push(samples, rb_ary_new_from_args(4, stack, LL2NUM(s->weight),
                                                  UINT2NUM(s->thread_seq),
                                                  UINT2NUM(s->label_set)));
    }
    return samples;
}

static VALUE label_sets_of(const rp_profile *p)
{
    VALUE sets = rb_ary_new_capa((long)p->label_set_count);
    for (size_t i = 0; i < p->label_set_count; i++) {
        const rp_label_set *ls = &p->label_sets[i];
        VALUE set = rb_hash_new();
        for (uint32_t j = 0; j < ls->count; j++) {
            const rp_label *l = &p->labels[ls->first + j];
            rb_hash_aset(set, rb_str_intern(string_of(p, l->key)), string_of(p, l->value));
        }
        rb_ary_push(sets, rb_obj_freeze(set));
    }
    return sets;
}

static void set_int(VALUE h, const char *key, int64_t value)
{
    rb_hash_aset(h, sym(key), LL2NUM(value));
}

VALUE rp_profile_hash(const rp_profile *p)
{
    const rp_meta *m = &p->meta;
    VALUE h = rb_hash_new();
    rb_hash_aset(h, sym("mode"), sym(rp_mode_name(m->mode)));
    set_int(h, "frequency", m->frequency);
    set_int(h, "trigger_count", m->trigger_count);
    set_int(h, "sampling_count", m->sampling_count);
    set_int(h, "sampling_time_ns", m->sampling_time_ns);
    if (m->dropped_samples > 0)
        set_int(h, "dropped_samples", m->dropped_samples);
    set_int(h, "detected_thread_count", m->detected_thread_count);
    set_int(h, "unique_frames", (int64_t)p->frame_count);
    set_int(h, "unique_stacks", (int64_t)p->stacks.count);
    set_int(h, "start_time_ns", m->start_time_ns);
    set_int(h, "duration_ns", m->duration_ns);
    rb_hash_aset(h, sym("aggregated_samples"), samples_of(p, frame_pairs(p)));
    rb_hash_aset(h, sym("label_sets"), label_sets_of(p));
    return h;
}
