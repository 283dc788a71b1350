/*
 * profile/pb_reader.h — reading protocol buffers' wire format.
 *
 * Owns: walking the fields of one message in a byte range: varints, the
 * (field number, wire type) key, length-delimited payloads and skipping
 * what a reader does not want, every length checked against the range so
 * no input reads outside it. Header-only; the pprof reader uses it.
 */
#ifndef RPERF_PROFILE_PB_READER_H
#define RPERF_PROFILE_PB_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum { RP_PB_VARINT = 0, RP_PB_FIXED64 = 1, RP_PB_LEN = 2, RP_PB_FIXED32 = 5 };

typedef struct rp_pb_reader {
    const uint8_t *p, *end;
} rp_pb_reader;

/* One field: its number and wire type, and its value (varint or fixed) or
 * its payload (RP_PB_LEN: `sub` covers it). */
typedef struct rp_pb_field {
    uint32_t number;
    int wire;
    uint64_t value;
    rp_pb_reader sub;
} rp_pb_field;

static inline rp_pb_reader rp_pb_reader_of(const void *data, size_t len)
{
    return (rp_pb_reader){(const uint8_t *)data, (const uint8_t *)data + len};
}

static inline bool rp_pb_done(const rp_pb_reader *r)
{
    return r->p >= r->end;
}

/* Returns 0, or -1 when the varint is cut short or longer than 10 bytes. */
static inline int rp_pb_varint(rp_pb_reader *r, uint64_t *v)
{
    uint64_t x = 0;
    for (int shift = 0; shift < 70 && r->p < r->end; shift += 7) {
        uint8_t b = *r->p++;
        x |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80)) {
            *v = x;
            return 0;
        }
    }
    return -1;
}

/* Reads the next field. Returns 0, or -1 for a malformed one (cut short,
 * a length beyond the range, a group or an unknown wire type). */
static inline int rp_pb_next(rp_pb_reader *r, rp_pb_field *f)
{
    uint64_t key;
    if (rp_pb_varint(r, &key) != 0 || key >> 3 == 0 || key >> 3 > UINT32_MAX)
        return -1;
    f->number = (uint32_t)(key >> 3);
    f->wire = (int)(key & 7);
    f->value = 0;
    f->sub = (rp_pb_reader){r->p, r->p};
    size_t avail = (size_t)(r->end - r->p);
    switch (f->wire) {
    case RP_PB_VARINT:
        return rp_pb_varint(r, &f->value);
    case RP_PB_FIXED64:
    case RP_PB_FIXED32: {
        size_t n = f->wire == RP_PB_FIXED64 ? 8 : 4;
        if (avail < n)
            return -1;
        for (size_t i = 0; i < n; i++)
            f->value |= (uint64_t)r->p[i] << (8 * i);
        r->p += n;
        return 0;
    }
    case RP_PB_LEN: {
        uint64_t len;
        if (rp_pb_varint(r, &len) != 0 || len > (uint64_t)(r->end - r->p))
            return -1;
        f->sub = (rp_pb_reader){r->p, r->p + len};
        r->p += len;
        return 0;
    }
    default:
        return -1;
    }
}

#endif
