/*
 * profile/encode/pprof.c — the pprof encoder. See pprof.h.
 *
 * The top-level Profile message is written field by field straight to the
 * output (a top-level message has no length prefix), so memory stays at
 * one sub-message, whatever the size of the profile. String ids: index 0
 * is "", profile string i is i + 1, and the few strings of our own
 * (sample type, unit, label key, comments) follow.
 */
#include "pprof.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../profile_proto.h"
#include "../schema.h"
#include "../../common/stack_table.h"
#include "protobuf.h"
#include "../../common/vec.h"

/* Our strings: a type and a unit per measure (rp_measure order), then the
 * rest. */
enum extra_string { EXTRA_TYPE, EXTRA_UNIT = EXTRA_TYPE + RP_MEASURES,
                    EXTRA_THREAD_SEQ = EXTRA_UNIT + RP_MEASURES, EXTRA_C_VERSION, EXTRA_C_MODE,
                    EXTRA_C_FREQUENCY, EXTRA_C_RUBY, EXTRA_C_COUNTS, EXTRA_C_PROFILER, EXTRA_C_ALLOC,
                    EXTRA_COUNT };

struct encoder {
    const rp_profile *p;
    rp_out *out;
    rp_pb msg, sub; /* the message being built, and one nested in it */
    char extras[EXTRA_COUNT][128];
    uint64_t extra_base; /* pprof id of extras[0] */
    bool failed;         /* out of memory: the output is incomplete */
    int measures;        /* sample values: time, and with allocation sampling the others */
};

static uint64_t str_id(uint32_t profile_string)
{
    return (uint64_t)profile_string + 1;
}

static uint64_t extra_id(const struct encoder *e, enum extra_string x)
{
    return e->extra_base + (uint64_t)x;
}

/* Streams the message built in e->msg out as top-level field `field`. */
static void emit(struct encoder *e, uint32_t field)
{
    uint8_t header[RP_PB_HEADER_MAX];
    rp_out_write(e->out, header, rp_pb_bytes_header(field, e->msg.len, header));
    rp_out_write(e->out, e->msg.data, e->msg.len);
    if (e->msg.failed)
        e->failed = true;
    rp_pb_clear(&e->msg);
}

static void value_type(struct encoder *e, uint32_t field, rp_measure m)
{
    rp_pb_uint(&e->msg, VALUE_TYPE_TYPE, extra_id(e, (enum extra_string)(EXTRA_TYPE + m)));
    rp_pb_uint(&e->msg, VALUE_TYPE_UNIT, extra_id(e, (enum extra_string)(EXTRA_UNIT + m)));
    emit(e, field);
}

static void sample_labels(struct encoder *e, const rp_sample *s)
{
    if (s->thread_seq > 0) {
        rp_pb_clear(&e->sub);
        rp_pb_uint(&e->sub, LABEL_KEY, extra_id(e, EXTRA_THREAD_SEQ));
        rp_pb_int(&e->sub, LABEL_NUM, s->thread_seq);
        rp_pb_bytes(&e->msg, SAMPLE_LABEL, e->sub.data, e->sub.len);
    }
    const rp_label_set *ls = &e->p->label_sets[s->label_set];
    for (uint32_t i = 0; i < ls->count; i++) {
        const rp_label *l = &e->p->labels[ls->first + i];
        rp_pb_clear(&e->sub);
        rp_pb_uint(&e->sub, LABEL_KEY, str_id(l->key));
        rp_pb_uint(&e->sub, LABEL_STR, str_id(l->value));
        rp_pb_bytes(&e->msg, SAMPLE_LABEL, e->sub.data, e->sub.len);
    }
}

/* The samples of measure `m`: their weight at its place among the
 * values, 0 at the others; a retained sample carries its bytes too. */
static void samples_of(struct encoder *e, rp_measure m)
{
    const rp_sample_table *table = rp_profile_table_const(e->p, m);
    const rp_sample_table *bytes = rp_profile_table_const(e->p, RP_MEASURE_RETAINED_BYTES);
    for (size_t i = 0; i < table->count; i++) {
        const rp_sample *s = &table->samples[i];
        uint32_t depth;
        const uint32_t *frames = rp_stack_table_get(&e->p->stacks, s->stack, &depth);
        int64_t values[RP_MEASURES] = {0};
        values[m] = s->weight;
        if (m == RP_MEASURE_RETAINED_OBJECTS && i < bytes->count)
            values[RP_MEASURE_RETAINED_BYTES] = bytes->samples[i].weight;
        rp_pb_packed_u32(&e->msg, SAMPLE_LOCATION_ID, frames, depth, 1);
        rp_pb_packed_i64s(&e->msg, SAMPLE_VALUE, values, (size_t)e->measures);
        sample_labels(e, s);
        emit(e, PROFILE_SAMPLE);
    }
}

static void samples(struct encoder *e)
{
    samples_of(e, RP_MEASURE_TIME);
    if (e->measures > 1) {
        samples_of(e, RP_MEASURE_ALLOC_OBJECTS);
        samples_of(e, RP_MEASURE_RETAINED_OBJECTS);
    }
}

/* A location per frame (id frame + 1) and a function per method, i.e. per
 * (path, label): frames of one method at different lines share it. */
struct functions {
    rp_stack_table methods;  /* (path, label) pairs; function id = index + 1 */
    uint32_t *of_frame;      /* frame id → method index */
    uint32_t *start_line;    /* method index → first line, 0 if unknown */
};

static int collect_functions(const rp_profile *p, struct functions *fn)
{
    rp_stack_table_init(&fn->methods);
    size_t n = p->frame_count ? p->frame_count : 1;
    fn->of_frame = rp_alloc_array(n, sizeof(uint32_t));
    fn->start_line = calloc(n, sizeof(uint32_t));
    if (!fn->of_frame || !fn->start_line)
        return -1;
    for (size_t i = 0; i < p->frame_count; i++) {
        const rp_frame *f = &p->frames[i];
        uint32_t key[2] = {f->path, f->label};
        uint32_t m = rp_stack_table_intern(&fn->methods, key, 2);
        if (m == RP_IDX_NONE)
            return -1;
        fn->of_frame[i] = m;
        if (!fn->start_line[m])
            fn->start_line[m] = f->start_line;
    }
    return 0;
}

static void free_functions(struct functions *fn)
{
    rp_stack_table_free(&fn->methods);
    free(fn->of_frame);
    free(fn->start_line);
}

static int locations_and_functions(struct encoder *e)
{
    struct functions fn;
    if (collect_functions(e->p, &fn) != 0) {
        free_functions(&fn);
        return -1;
    }
    for (size_t i = 0; i < e->p->frame_count; i++) {
        rp_pb_uint(&e->msg, LOCATION_ID, i + 1);
        rp_pb_clear(&e->sub);
        rp_pb_uint(&e->sub, LINE_FUNCTION_ID, (uint64_t)fn.of_frame[i] + 1);
        if (e->p->frames[i].line)
            rp_pb_int(&e->sub, LINE_LINE, e->p->frames[i].line);
        rp_pb_bytes(&e->msg, LOCATION_LINE, e->sub.data, e->sub.len);
        emit(e, PROFILE_LOCATION);
    }
    for (size_t m = 0; m < fn.methods.count; m++) {
        uint32_t two;
        const uint32_t *method = rp_stack_table_get(&fn.methods, (uint32_t)m, &two);
        rp_pb_uint(&e->msg, FUNCTION_ID, m + 1);
        rp_pb_uint(&e->msg, FUNCTION_NAME, str_id(method[1]));
        rp_pb_uint(&e->msg, FUNCTION_SYSTEM_NAME, str_id(method[1]));
        rp_pb_uint(&e->msg, FUNCTION_FILENAME, str_id(method[0]));
        if (fn.start_line[m])
            rp_pb_int(&e->msg, FUNCTION_START_LINE, fn.start_line[m]);
        emit(e, PROFILE_FUNCTION);
    }
    free_functions(&fn);
    return 0;
}

/* Each string is one string_table field holding its raw bytes. */
static void string_table(struct encoder *e)
{
    emit(e, PROFILE_STRING_TABLE); /* "" at index 0 */
    for (size_t i = 0; i < e->p->strings.count; i++) {
        size_t len;
        const char *s = rp_strtab_get(&e->p->strings, (uint32_t)i, &len);
        rp_pb_raw(&e->msg, s, len);
        emit(e, PROFILE_STRING_TABLE);
    }
    for (int x = 0; x < EXTRA_COUNT; x++) {
        rp_pb_raw(&e->msg, e->extras[x], strlen(e->extras[x]));
        emit(e, PROFILE_STRING_TABLE);
    }
}

static void scalar(struct encoder *e, uint32_t field, int64_t value)
{
    rp_pb_int(&e->msg, field, value);
    rp_out_write(e->out, e->msg.data, e->msg.len);
    rp_pb_clear(&e->msg);
}

static void prepare_extras(struct encoder *e)
{
    const rp_meta *m = &e->p->meta;
    const rp_profile *p = e->p;
    for (int k = 0; k < RP_MEASURES; k++) {
        snprintf(e->extras[EXTRA_TYPE + k], sizeof(e->extras[0]), "%s",
                 k == RP_MEASURE_TIME ? rp_mode_name(m->mode) : rp_measures[k].pprof_type);
        snprintf(e->extras[EXTRA_UNIT + k], sizeof(e->extras[0]), "%s", rp_measures[k].pprof_unit);
    }
    snprintf(e->extras[EXTRA_C_ALLOC], sizeof(e->extras[0]), RP_PPROF_COMMENT_ALLOC_RATE "%lld",
             (long long)m->alloc_rate);
    snprintf(e->extras[EXTRA_THREAD_SEQ], sizeof(e->extras[0]), RP_PPROF_THREAD_SEQ);
    snprintf(e->extras[EXTRA_C_VERSION], sizeof(e->extras[0]), RP_PPROF_COMMENT_VERSION "%s", RP_VERSION);
    snprintf(e->extras[EXTRA_C_MODE], sizeof(e->extras[0]), RP_PPROF_COMMENT_MODE "%s", rp_mode_name(m->mode));
    snprintf(e->extras[EXTRA_C_FREQUENCY], sizeof(e->extras[0]), RP_PPROF_COMMENT_FREQUENCY "%lldHz",
             (long long)m->frequency);
    snprintf(e->extras[EXTRA_C_RUBY], sizeof(e->extras[0]), RP_PPROF_COMMENT_RUBY "%s",
             m->ruby_version != RP_IDX_NONE ? rp_profile_str(p, m->ruby_version) : "unknown");
    snprintf(e->extras[EXTRA_C_COUNTS], sizeof(e->extras[0]), RP_PPROF_COMMENT_COUNTS RP_PPROF_COUNTS_FORMAT,
             (long long)m->sampling_count, (long long)m->trigger_count,
             (long long)(m->process_count > 0 ? m->process_count : 1));
    snprintf(e->extras[EXTRA_C_PROFILER], sizeof(e->extras[0]), RP_PPROF_COMMENT_PROFILER RP_PPROF_PROFILER_FORMAT,
             (long long)m->sampling_time_ns, (long long)m->worker_cpu_ns);
    e->extra_base = (uint64_t)p->strings.count + 1;
}

int rp_pprof_write(const rp_profile *p, rp_out *out, const rp_encode_opts *opts)
{
    (void)opts; /* the encoder shape of format.h; pprof has no options */
    struct encoder e = {.p = p, .out = out, .measures = rp_profile_has_memory(p) ? RP_MEASURES : 1};
    rp_pb_init(&e.msg);
    rp_pb_init(&e.sub);
    prepare_extras(&e);
    for (int k = 0; k < e.measures; k++)
        value_type(&e, PROFILE_SAMPLE_TYPE, (rp_measure)k);
    samples(&e);
    if (locations_and_functions(&e) != 0)
        e.failed = true;
    string_table(&e);
    scalar(&e, PROFILE_TIME_NANOS, p->meta.start_time_ns);
    scalar(&e, PROFILE_DURATION_NANOS, p->meta.duration_ns);
    value_type(&e, PROFILE_PERIOD_TYPE, RP_MEASURE_TIME);
    scalar(&e, PROFILE_PERIOD, p->meta.frequency > 0 ? 1000000000 / p->meta.frequency : 0);
    for (int x = EXTRA_C_VERSION; x <= (e.measures > 1 ? EXTRA_C_ALLOC : EXTRA_C_PROFILER); x++)
        scalar(&e, PROFILE_COMMENT, (int64_t)extra_id(&e, (enum extra_string)x));
    /* the measure chosen (--measure) is what pprof shows first */
    if (e.measures > 1 && p->measure != RP_MEASURE_TIME)
        scalar(&e, PROFILE_DEFAULT_SAMPLE_TYPE, (int64_t)extra_id(&e, (enum extra_string)(EXTRA_TYPE + p->measure)));
    bool failed = e.failed || e.msg.failed || e.sub.failed;
    rp_pb_free(&e.msg);
    rp_pb_free(&e.sub);
    return failed ? -1 : 0;
}
