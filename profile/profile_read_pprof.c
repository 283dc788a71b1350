/*
 * profile/profile_read_pprof.c — pprof files into the model. See
 * profile_read_pprof.h.
 *
 * profile.proto lets fields come in any order (this analyzer and the gem
 * write samples before the locations, functions and strings they name),
 * so the document is read twice: first the tables (strings, functions,
 * locations, sample types, comments) as spans of the input, then the
 * samples. A location's frames are built once, when first used. Nothing
 * is trusted: every id, index and length is checked, and each problem is
 * one line naming what was wrong where.
 */
#include "profile_read_pprof.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pb_reader.h"
#include "profile_proto.h"
#include "../common/utf8.h"
#include "../common/vec.h"

typedef struct pp_function {
    uint64_t id, name, filename, start_line;
} pp_function;

typedef struct pp_location {
    uint64_t id;
    rp_pb_reader message;  /* the whole Location, for its lines */
    uint32_t first, count; /* its frames in pp_doc.frame_pool, once built */
    bool built;
} pp_location;

typedef struct pp_doc {
    rp_profile *p;
    char *err;
    rp_pb_reader top;
    rp_pb_reader *strings; /* spans of the string table */
    size_t string_count, strings_cap;
    uint32_t *string_ids;  /* string table index → profile string id, or RP_IDX_NONE */
    pp_function *functions;
    size_t function_count, functions_cap;
    pp_location *locations;
    size_t location_count, locations_cap;
    uint64_t (*sample_types)[2]; /* (type, unit) string indexes */
    size_t sample_type_count, sample_types_cap;
    uint64_t period_unit;
    int64_t period, time_nanos, duration_nanos;
    uint64_t *comments;
    size_t comment_count, comments_cap;
    size_t value_index; /* which value of a sample is its weight */
    size_t memory_index[RP_MEASURES]; /* the values of allocation sampling's types, SIZE_MAX: absent */
    bool has_memory;
    uint32_t *frame_pool;
    size_t frame_pool_len, frame_pool_cap;
    uint32_t *stack;    /* scratch: one sample's frames */
    size_t stack_cap;
    rp_label *pairs;    /* scratch: one sample's labels */
    size_t pairs_cap;
    char *repaired;     /* scratch: a string made valid UTF-8 */
    size_t repaired_cap;
} pp_doc;

static int fail(pp_doc *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(pp_doc *d, const char *fmt, ...)
{
    char msg[RP_READ_ERROR_MAX - 8];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    snprintf(d->err, RP_READ_ERROR_MAX, "pprof: %s", msg);
    return -1;
}

static int out_of_memory(pp_doc *d)
{
    return fail(d, "out of memory");
}

bool rp_pprof_looks_like(const char *data, size_t len)
{
    if (len == 0)
        return false;
    switch ((uint8_t)data[0]) {
    case PROFILE_SAMPLE_TYPE << 3 | RP_PB_LEN:
    case PROFILE_SAMPLE << 3 | RP_PB_LEN:
    case PROFILE_MAPPING << 3 | RP_PB_LEN:
    case PROFILE_LOCATION << 3 | RP_PB_LEN:
    case PROFILE_FUNCTION << 3 | RP_PB_LEN:
    case PROFILE_STRING_TABLE << 3 | RP_PB_LEN:
    case PROFILE_TIME_NANOS << 3 | RP_PB_VARINT:
    case PROFILE_DURATION_NANOS << 3 | RP_PB_VARINT:
    case PROFILE_PERIOD_TYPE << 3 | RP_PB_LEN:
    case PROFILE_PERIOD << 3 | RP_PB_VARINT:
        return true;
    default:
        return false;
    }
}

/* --- pass 1: the tables ------------------------------------------------------ */

static int expect_len(pp_doc *d, const rp_pb_field *f, const char *what)
{
    if (f->wire != RP_PB_LEN)
        return fail(d, "%s (field %" PRIu32 ") is not a message", what, f->number);
    return 0;
}

/* Reads the varint members of a small message into values[number - 1]. */
static int read_varints(pp_doc *d, rp_pb_reader r, uint64_t *values, uint32_t max_number, const char *what)
{
    rp_pb_field f;
    while (!rp_pb_done(&r)) {
        if (rp_pb_next(&r, &f) != 0)
            return fail(d, "a %s is malformed", what);
        if (f.number <= max_number && f.wire == RP_PB_VARINT)
            values[f.number - 1] = f.value;
    }
    return 0;
}

static int read_function(pp_doc *d, rp_pb_reader r)
{
    uint64_t v[FUNCTION_START_LINE] = {0};
    if (read_varints(d, r, v, FUNCTION_START_LINE, "function") != 0)
        return -1;
    if (RP_VEC_RESERVE(d->functions, d->functions_cap, d->function_count + 1) != 0)
        return out_of_memory(d);
    d->functions[d->function_count++] = (pp_function){v[FUNCTION_ID - 1], v[FUNCTION_NAME - 1],
                                                      v[FUNCTION_FILENAME - 1], v[FUNCTION_START_LINE - 1]};
    return 0;
}

static int read_location(pp_doc *d, rp_pb_reader r)
{
    uint64_t v[LOCATION_ID] = {0};
    if (read_varints(d, r, v, LOCATION_ID, "location") != 0)
        return -1;
    if (RP_VEC_RESERVE(d->locations, d->locations_cap, d->location_count + 1) != 0)
        return out_of_memory(d);
    d->locations[d->location_count++] = (pp_location){.id = v[LOCATION_ID - 1], .message = r};
    return 0;
}

static int read_value_type(pp_doc *d, rp_pb_reader r, uint64_t out[2])
{
    uint64_t v[VALUE_TYPE_UNIT] = {0};
    if (read_varints(d, r, v, VALUE_TYPE_UNIT, "sample type") != 0)
        return -1;
    out[0] = v[VALUE_TYPE_TYPE - 1];
    out[1] = v[VALUE_TYPE_UNIT - 1];
    return 0;
}

static int add_comment(pp_doc *d, uint64_t index)
{
    if (RP_VEC_RESERVE(d->comments, d->comments_cap, d->comment_count + 1) != 0)
        return out_of_memory(d);
    d->comments[d->comment_count++] = index;
    return 0;
}

static int read_comments(pp_doc *d, const rp_pb_field *f)
{
    if (f->wire == RP_PB_VARINT)
        return add_comment(d, f->value);
    if (f->wire != RP_PB_LEN)
        return fail(d, "a comment is malformed");
    rp_pb_reader packed = f->sub;
    while (!rp_pb_done(&packed)) {
        uint64_t v;
        if (rp_pb_varint(&packed, &v) != 0)
            return fail(d, "a comment is malformed");
        if (add_comment(d, v) != 0)
            return -1;
    }
    return 0;
}

static int read_table_field(pp_doc *d, const rp_pb_field *f)
{
    switch (f->number) {
    case PROFILE_SAMPLE_TYPE:
        if (expect_len(d, f, "sample_type") != 0 ||
            RP_VEC_RESERVE(d->sample_types, d->sample_types_cap, d->sample_type_count + 1) != 0)
            return d->err[0] ? -1 : out_of_memory(d);
        return read_value_type(d, f->sub, d->sample_types[d->sample_type_count++]);
    case PROFILE_LOCATION:
        return expect_len(d, f, "location") == 0 ? read_location(d, f->sub) : -1;
    case PROFILE_FUNCTION:
        return expect_len(d, f, "function") == 0 ? read_function(d, f->sub) : -1;
    case PROFILE_STRING_TABLE:
        if (expect_len(d, f, "string_table") != 0)
            return -1;
        if (RP_VEC_RESERVE(d->strings, d->strings_cap, d->string_count + 1) != 0)
            return out_of_memory(d);
        d->strings[d->string_count++] = f->sub;
        return 0;
    case PROFILE_PERIOD_TYPE: {
        uint64_t vt[2];
        if (expect_len(d, f, "period_type") != 0 || read_value_type(d, f->sub, vt) != 0)
            return -1;
        d->period_unit = vt[1];
        return 0;
    }
    case PROFILE_TIME_NANOS:
        d->time_nanos = (int64_t)f->value;
        return 0;
    case PROFILE_DURATION_NANOS:
        d->duration_nanos = (int64_t)f->value;
        return 0;
    case PROFILE_PERIOD:
        d->period = (int64_t)f->value;
        return 0;
    case PROFILE_COMMENT:
        return read_comments(d, f);
    default:
        return 0; /* samples come in pass 2; mappings and the rest are not needed */
    }
}

static int compare_function_ids(const void *a, const void *b)
{
    uint64_t x = ((const pp_function *)a)->id, y = ((const pp_function *)b)->id;
    return x < y ? -1 : x > y;
}

static int compare_location_ids(const void *a, const void *b)
{
    uint64_t x = ((const pp_location *)a)->id, y = ((const pp_location *)b)->id;
    return x < y ? -1 : x > y;
}

/* Sorts the functions and locations by id for lookups; ids are unique
 * and not 0. */
static int index_tables(pp_doc *d)
{
    if (d->function_count)
        qsort(d->functions, d->function_count, sizeof(*d->functions), compare_function_ids);
    if (d->location_count)
        qsort(d->locations, d->location_count, sizeof(*d->locations), compare_location_ids);
    for (size_t i = 0; i < d->function_count; i++)
        if (d->functions[i].id == 0 || (i > 0 && d->functions[i].id == d->functions[i - 1].id))
            return fail(d, "function id %" PRIu64 " is 0 or defined twice", d->functions[i].id);
    for (size_t i = 0; i < d->location_count; i++)
        if (d->locations[i].id == 0 || (i > 0 && d->locations[i].id == d->locations[i - 1].id))
            return fail(d, "location id %" PRIu64 " is 0 or defined twice", d->locations[i].id);
    if (d->string_count == 0 || d->strings[0].end != d->strings[0].p)
        return fail(d, "the string table must start with \"\"");
    d->string_ids = rp_alloc_array(d->string_count, sizeof(*d->string_ids));
    if (!d->string_ids)
        return out_of_memory(d);
    memset(d->string_ids, 0xff, d->string_count * sizeof(*d->string_ids)); /* RP_IDX_NONE */
    return 0;
}

/* --- strings ---------------------------------------------------------------------- */

/* The profile string id of string table entry `index`. */
static int string_id(pp_doc *d, uint64_t index, const char *what, uint32_t *id)
{
    if (index >= d->string_count)
        return fail(d, "%s names string %" PRIu64 " of a table of %zu", what, index, d->string_count);
    if (d->string_ids[index] == RP_IDX_NONE) {
        const rp_pb_reader *s = &d->strings[index];
        const char *text = (const char *)s->p;
        size_t len = (size_t)(s->end - s->p);
        if (!rp_utf8_valid(text, len)) { /* as the JSON reader reads it */
            if (RP_VEC_RESERVE(d->repaired, d->repaired_cap, 3 * len) != 0)
                return out_of_memory(d);
            len = rp_utf8_repair(text, len, d->repaired);
            text = d->repaired;
        }
        d->string_ids[index] = rp_profile_string(d->p, text, len);
        if (d->string_ids[index] == RP_IDX_NONE)
            return out_of_memory(d);
    }
    *id = d->string_ids[index];
    return 0;
}

/* The text of string table entry `index` (not NUL-terminated), or NULL. */
static const char *string_at(const pp_doc *d, uint64_t index, size_t *len)
{
    if (index >= d->string_count)
        return NULL;
    *len = (size_t)(d->strings[index].end - d->strings[index].p);
    return (const char *)d->strings[index].p;
}

static bool string_is(const pp_doc *d, uint64_t index, const char *text)
{
    size_t len;
    const char *s = string_at(d, index, &len);
    return s && len == strlen(text) && memcmp(s, text, len) == 0;
}

/* --- what the header says ---------------------------------------------------------- */

/* The values of allocation sampling (rperf's, Go's heap profiles): types
 * alloc_objects, inuse_objects and inuse_space. */
static void choose_memory_values(pp_doc *d)
{
    d->has_memory = false;
    for (int m = RP_MEASURE_ALLOC_OBJECTS; m < RP_MEASURES; m++) {
        d->memory_index[m] = SIZE_MAX;
        for (size_t i = 0; i < d->sample_type_count; i++)
            if (string_is(d, d->sample_types[i][0], rp_measures[m].pprof_type) &&
                string_is(d, d->sample_types[i][1], rp_measures[m].pprof_unit)) {
                d->memory_index[m] = i;
                d->has_memory = true;
            }
    }
}

/* The weight of a sample: the value of type cpu or wall in nanoseconds,
 * else the first in nanoseconds. */
static int choose_value(pp_doc *d)
{
    size_t chosen = SIZE_MAX;
    for (size_t i = 0; i < d->sample_type_count; i++) {
        if (!string_is(d, d->sample_types[i][1], "nanoseconds"))
            continue;
        bool named = string_is(d, d->sample_types[i][0], "cpu") || string_is(d, d->sample_types[i][0], "wall");
        if (chosen == SIZE_MAX || named) {
            chosen = i;
            if (named)
                break;
        }
    }
    if (chosen == SIZE_MAX)
        return fail(d, "no sample type is measured in nanoseconds (%zu sample types)", d->sample_type_count);
    d->value_index = chosen;
    d->p->meta.mode = string_is(d, d->sample_types[chosen][0], "wall") ? RP_MODE_WALL : RP_MODE_CPU;
    choose_memory_values(d);
    return 0;
}

/* The comment's text after `prefix`, as a NUL-terminated copy in buf. */
static bool comment_after(const pp_doc *d, uint64_t index, const char *prefix, char *buf, size_t size)
{
    size_t len, plen = strlen(prefix);
    const char *s = string_at(d, index, &len);
    if (!s || len < plen || memcmp(s, prefix, plen) != 0 || len - plen >= size)
        return false;
    memcpy(buf, s + plen, len - plen);
    buf[len - plen] = '\0';
    return true;
}

static int read_comment_facts(pp_doc *d)
{
    rp_meta *m = &d->p->meta;
    char text[256];
    long long a, b, c;
    for (size_t i = 0; i < d->comment_count; i++) {
        uint64_t comment = d->comments[i];
        if (comment_after(d, comment, RP_PPROF_COMMENT_MODE, text, sizeof(text)))
            m->mode = strcmp(text, "wall") == 0 ? RP_MODE_WALL : m->mode;
        else if (comment_after(d, comment, RP_PPROF_COMMENT_FREQUENCY, text, sizeof(text)) &&
                 sscanf(text, "%lld", &a) == 1 && a > 0)
            m->frequency = a;
        else if (comment_after(d, comment, RP_PPROF_COMMENT_COUNTS, text, sizeof(text)) &&
                 sscanf(text, RP_PPROF_COUNTS_FORMAT, &a, &b, &c) == 3 && a >= 0 && b >= 0 && c > 0) {
            m->sampling_count = a;
            m->trigger_count = b;
            m->process_count = c;
        } else if (comment_after(d, comment, RP_PPROF_COMMENT_PROFILER, text, sizeof(text)) &&
                   sscanf(text, RP_PPROF_PROFILER_FORMAT, &a, &b) == 2 && a >= 0 && b >= 0) {
            m->sampling_time_ns = a;
            m->worker_cpu_ns = b;
        } else if (comment_after(d, comment, RP_PPROF_COMMENT_RUBY, text, sizeof(text))) {
            if ((m->ruby_version = rp_profile_cstring(d->p, text)) == RP_IDX_NONE)
                return out_of_memory(d);
        } else if (comment_after(d, comment, RP_PPROF_COMMENT_ALLOC_RATE, text, sizeof(text)) &&
                   sscanf(text, "%lld", &a) == 1 && a > 0) {
            m->alloc_rate = a;
        } else if (comment_after(d, comment, RP_PPROF_COMMENT_VERSION, text, sizeof(text))) {
            if ((m->rperf_version = rp_profile_cstring(d->p, text)) == RP_IDX_NONE)
                return out_of_memory(d);
        }
    }
    return 0;
}

static int read_header(pp_doc *d)
{
    rp_meta *m = &d->p->meta;
    if (choose_value(d) != 0)
        return -1;
    if (d->time_nanos < 0 || d->duration_nanos < 0 || d->period < 0)
        return fail(d, "time_nanos, duration_nanos and period must not be negative");
    m->start_time_ns = d->time_nanos;
    m->duration_ns = d->duration_nanos;
    m->total_duration_ns = d->duration_nanos;
    m->process_count = 1;
    if (d->period > 0 && string_is(d, d->period_unit, "nanoseconds"))
        m->frequency = (1000000000 + d->period / 2) / d->period;
    if (read_comment_facts(d) != 0)
        return -1;
    if (d->has_memory && m->alloc_rate == 0)
        m->alloc_rate = 1; /* not ours (a Go heap profile): its values are the estimates already */
    return 0;
}

/* --- pass 2: samples ------------------------------------------------------------------ */

static const pp_function *find_function(const pp_doc *d, uint64_t id)
{
    pp_function key = {.id = id};
    return d->function_count ? bsearch(&key, d->functions, d->function_count, sizeof(key), compare_function_ids)
                             : NULL;
}

static pp_location *find_location(const pp_doc *d, uint64_t id)
{
    pp_location key = {.id = id};
    return d->location_count ? bsearch(&key, d->locations, d->location_count, sizeof(key), compare_location_ids)
                             : NULL;
}

static int add_pool_frame(pp_doc *d, uint32_t frame)
{
    if (RP_VEC_RESERVE(d->frame_pool, d->frame_pool_cap, d->frame_pool_len + 1) != 0)
        return out_of_memory(d);
    d->frame_pool[d->frame_pool_len++] = frame;
    return 0;
}

/* One Line of a location: a frame of its function at its line. */
static int line_frame(pp_doc *d, const pp_location *loc, rp_pb_reader r)
{
    uint64_t v[LINE_LINE] = {0};
    if (read_varints(d, r, v, LINE_LINE, "location line") != 0)
        return -1;
    const pp_function *fn = find_function(d, v[LINE_FUNCTION_ID - 1]);
    if (!fn)
        return fail(d, "location %" PRIu64 " refers to function %" PRIu64 ", which is not defined", loc->id,
                    v[LINE_FUNCTION_ID - 1]);
    uint32_t path, label;
    if (string_id(d, fn->filename, "a function's file", &path) != 0 ||
        string_id(d, fn->name, "a function's name", &label) != 0)
        return -1;
    uint64_t line = v[LINE_LINE - 1] <= UINT32_MAX ? v[LINE_LINE - 1] : 0;
    uint64_t start = fn->start_line <= UINT32_MAX ? fn->start_line : 0;
    uint32_t frame = rp_profile_line_frame(d->p, path, label, (uint32_t)line, (uint32_t)start);
    return frame == RP_IDX_NONE ? out_of_memory(d) : add_pool_frame(d, frame);
}

/* The frames of a location, innermost first as pprof lists its lines. */
static int build_location(pp_doc *d, pp_location *loc)
{
    loc->first = (uint32_t)d->frame_pool_len;
    rp_pb_reader r = loc->message;
    rp_pb_field f;
    while (!rp_pb_done(&r)) {
        if (rp_pb_next(&r, &f) != 0)
            return fail(d, "location %" PRIu64 " is malformed", loc->id);
        if (f.number == LOCATION_LINE && f.wire == RP_PB_LEN && line_frame(d, loc, f.sub) != 0)
            return -1;
    }
    if (d->frame_pool_len > UINT32_MAX)
        return out_of_memory(d);
    loc->count = (uint32_t)(d->frame_pool_len - loc->first);
    loc->built = true;
    return 0;
}

static int push_location(pp_doc *d, size_t si, uint64_t id, uint32_t *depth)
{
    pp_location *loc = find_location(d, id);
    if (!loc)
        return fail(d, "sample %zu refers to location %" PRIu64 ", which is not defined", si, id);
    if (!loc->built && build_location(d, loc) != 0)
        return -1;
    if (loc->count == 0)
        return 0; /* a location without lines (an address only) names no frame */
    if (RP_VEC_RESERVE(d->stack, d->stack_cap, (size_t)*depth + loc->count) != 0 ||
        (size_t)*depth + loc->count > UINT32_MAX)
        return out_of_memory(d);
    memcpy(d->stack + *depth, d->frame_pool + loc->first, loc->count * sizeof(uint32_t));
    *depth += loc->count;
    return 0;
}

/* Calls `each` for a repeated varint field, packed or not. */
static int for_each_varint(pp_doc *d, const rp_pb_field *f, size_t si, const char *what,
                           int (*each)(pp_doc *, size_t, uint64_t, void *), void *ctx)
{
    if (f->wire == RP_PB_VARINT)
        return each(d, si, f->value, ctx);
    if (f->wire != RP_PB_LEN)
        return fail(d, "sample %zu: %s is malformed", si, what);
    rp_pb_reader packed = f->sub;
    while (!rp_pb_done(&packed)) {
        uint64_t v;
        if (rp_pb_varint(&packed, &v) != 0)
            return fail(d, "sample %zu: %s is malformed", si, what);
        if (each(d, si, v, ctx) != 0)
            return -1;
    }
    return 0;
}

struct sample_values {
    size_t count;
    int64_t weight;
    int64_t memory[RP_MEASURES]; /* allocation sampling's values, by measure */
    uint32_t depth;
};

static int take_location(pp_doc *d, size_t si, uint64_t id, void *ctx)
{
    return push_location(d, si, id, &((struct sample_values *)ctx)->depth);
}

static int take_value(pp_doc *d, size_t si, uint64_t v, void *ctx)
{
    struct sample_values *sv = ctx;
    (void)si;
    for (int m = RP_MEASURE_ALLOC_OBJECTS; m < RP_MEASURES; m++)
        if (d->has_memory && sv->count == d->memory_index[m])
            sv->memory[m] = (int64_t)v;
    if (sv->count++ == d->value_index)
        sv->weight = (int64_t)v;
    return 0;
}

static int read_label(pp_doc *d, size_t si, rp_pb_reader r, uint32_t *pair_count, uint32_t *thread_seq)
{
    uint64_t v[LABEL_NUM] = {0};
    if (read_varints(d, r, v, LABEL_NUM, "label") != 0)
        return -1;
    uint64_t key = v[LABEL_KEY - 1], str = v[LABEL_STR - 1], num = v[LABEL_NUM - 1];
    if (string_is(d, key, RP_PPROF_THREAD_SEQ) && str == 0) {
        if (num > UINT32_MAX)
            return fail(d, "sample %zu: thread_seq %" PRIu64 " is out of range", si, num);
        *thread_seq = (uint32_t)num;
        return 0;
    }
    rp_label l;
    if (string_id(d, key, "a label key", &l.key) != 0)
        return -1;
    if (str != 0 || num == 0) {
        if (string_id(d, str, "a label value", &l.value) != 0)
            return -1;
    } else {
        char text[24];
        snprintf(text, sizeof(text), "%" PRId64, (int64_t)num);
        if ((l.value = rp_profile_cstring(d->p, text)) == RP_IDX_NONE)
            return out_of_memory(d);
    }
    if (RP_VEC_RESERVE(d->pairs, d->pairs_cap, (size_t)*pair_count + 1) != 0)
        return out_of_memory(d);
    d->pairs[(*pair_count)++] = l;
    return 0;
}

static int add_value(pp_doc *d, size_t si, rp_sample_table *table, uint32_t stack, uint32_t thread_seq,
                     uint32_t set, int64_t weight)
{
    switch (rp_sample_table_add(table, stack, thread_seq, set, weight)) {
    case RP_SAMPLE_OK:
        return 0;
    case RP_SAMPLE_OVERFLOW:
        return fail(d, "sample %zu: summed weights overflow 64 bits", si);
    default:
        return out_of_memory(d);
    }
}

static int read_sample(pp_doc *d, size_t si, rp_pb_reader r)
{
    struct sample_values sv = {0};
    uint32_t pair_count = 0, thread_seq = 0;
    rp_pb_field f;
    while (!rp_pb_done(&r)) {
        if (rp_pb_next(&r, &f) != 0)
            return fail(d, "sample %zu is malformed", si);
        int rc = 0;
        if (f.number == SAMPLE_LOCATION_ID)
            rc = for_each_varint(d, &f, si, "location_id", take_location, &sv);
        else if (f.number == SAMPLE_VALUE)
            rc = for_each_varint(d, &f, si, "value", take_value, &sv);
        else if (f.number == SAMPLE_LABEL && f.wire == RP_PB_LEN)
            rc = read_label(d, si, f.sub, &pair_count, &thread_seq);
        if (rc != 0)
            return -1;
    }
    if (sv.count != d->sample_type_count)
        return fail(d, "sample %zu has %zu values for %zu sample types", si, sv.count, d->sample_type_count);
    if (sv.weight < 0)
        return fail(d, "sample %zu has a negative weight (%" PRId64 ")", si, sv.weight);
    uint32_t stack = rp_profile_stack(d->p, d->stack, sv.depth);
    uint32_t set = rp_profile_label_set(d->p, d->pairs, pair_count);
    if (stack == RP_IDX_NONE || set == RP_IDX_NONE)
        return out_of_memory(d);
    /* A sample of allocation sampling carries no time: it has none to add.
     * One with no value at all is kept as time, as without allocation
     * sampling, so that its stack stays one of the profile's. */
    bool any_memory = sv.memory[RP_MEASURE_ALLOC_OBJECTS] || sv.memory[RP_MEASURE_RETAINED_OBJECTS] ||
                      sv.memory[RP_MEASURE_RETAINED_BYTES];
    if (!d->has_memory || sv.weight > 0 || !any_memory)
        if (add_value(d, si, &d->p->samples, stack, thread_seq, set, sv.weight) != 0)
            return -1;
    if (sv.memory[RP_MEASURE_ALLOC_OBJECTS] < 0 || sv.memory[RP_MEASURE_RETAINED_OBJECTS] < 0 ||
        sv.memory[RP_MEASURE_RETAINED_BYTES] < 0)
        return fail(d, "sample %zu has a negative allocation value", si);
    if (sv.memory[RP_MEASURE_ALLOC_OBJECTS] > 0 &&
        add_value(d, si, rp_profile_table(d->p, RP_MEASURE_ALLOC_OBJECTS), stack, thread_seq, set,
                  sv.memory[RP_MEASURE_ALLOC_OBJECTS]) != 0)
        return -1;
    if (sv.memory[RP_MEASURE_RETAINED_OBJECTS] > 0 || sv.memory[RP_MEASURE_RETAINED_BYTES] > 0)
        for (int m = RP_MEASURE_RETAINED_OBJECTS; m <= RP_MEASURE_RETAINED_BYTES; m++)
            if (add_value(d, si, rp_profile_table(d->p, (rp_measure)m), stack, thread_seq, set, sv.memory[m]) != 0)
                return -1;
    return 0;
}

static int read_samples(pp_doc *d)
{
    rp_pb_reader r = d->top;
    rp_pb_field f;
    size_t si = 0;
    while (!rp_pb_done(&r)) {
        if (rp_pb_next(&r, &f) != 0)
            return -1; /* pass 1 read the same bytes */
        if (f.number != PROFILE_SAMPLE)
            continue;
        if (expect_len(d, &f, "sample") != 0 || read_sample(d, si++, f.sub) != 0)
            return -1;
    }
    if (d->p->meta.sampling_count == 0)
        d->p->meta.sampling_count = (int64_t)d->p->samples.count;
    return 0;
}

static int read_tables(pp_doc *d)
{
    rp_pb_reader r = d->top;
    rp_pb_field f;
    while (!rp_pb_done(&r)) {
        size_t offset = (size_t)(r.p - d->top.p);
        if (rp_pb_next(&r, &f) != 0)
            return fail(d, "not a valid protocol buffer at byte %zu (truncated or corrupt)", offset);
        if (read_table_field(d, &f) != 0)
            return -1;
    }
    return index_tables(d);
}

int rp_pprof_read(rp_profile *p, const char *data, size_t len, char *err)
{
    pp_doc d = {.p = p, .err = err, .top = rp_pb_reader_of(data, len)};
    err[0] = '\0';
    int rc = read_tables(&d) == 0 && read_header(&d) == 0 && read_samples(&d) == 0 ? 0 : -1;
    free(d.strings);
    free(d.string_ids);
    free(d.functions);
    free(d.locations);
    free(d.sample_types);
    free(d.comments);
    free(d.frame_pool);
    free(d.stack);
    free(d.pairs);
    free(d.repaired);
    return rc;
}
