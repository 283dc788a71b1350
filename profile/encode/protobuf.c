/*
 * profile/encode/protobuf.c — protobuf wire-format writer. See protobuf.h.
 */
#include "protobuf.h"

#include <stdlib.h>
#include <string.h>

#include "../../common/vec.h"

enum { WIRE_VARINT = 0, WIRE_BYTES = 2 };

void rp_pb_init(rp_pb *b)
{
    memset(b, 0, sizeof(*b));
}

void rp_pb_free(rp_pb *b)
{
    free(b->data);
    rp_pb_init(b);
}

void rp_pb_clear(rp_pb *b)
{
    b->len = 0;
}

static uint8_t *room(rp_pb *b, size_t n)
{
    if (b->failed || RP_VEC_RESERVE(b->data, b->cap, b->len + n) != 0) {
        b->failed = true;
        return NULL;
    }
    return b->data + b->len;
}

size_t rp_pb_varint_size(uint64_t value)
{
    size_t n = 1;
    while (value >= 0x80) {
        value >>= 7;
        n++;
    }
    return n;
}

static size_t encode_varint(uint64_t value, uint8_t *p)
{
    size_t n = 0;
    while (value >= 0x80) {
        p[n++] = (uint8_t)(value | 0x80);
        value >>= 7;
    }
    p[n++] = (uint8_t)value;
    return n;
}

static void varint(rp_pb *b, uint64_t value)
{
    uint8_t *p = room(b, 10);
    if (p)
        b->len += encode_varint(value, p);
}

size_t rp_pb_bytes_header(uint32_t field, size_t len, uint8_t out[RP_PB_HEADER_MAX])
{
    size_t n = encode_varint(((uint64_t)field << 3) | WIRE_BYTES, out);
    return n + encode_varint(len, out + n);
}

static void tag(rp_pb *b, uint32_t field, int wire)
{
    varint(b, ((uint64_t)field << 3) | (uint64_t)wire);
}

void rp_pb_uint(rp_pb *b, uint32_t field, uint64_t value)
{
    tag(b, field, WIRE_VARINT);
    varint(b, value);
}

void rp_pb_int(rp_pb *b, uint32_t field, int64_t value)
{
    rp_pb_uint(b, field, (uint64_t)value);
}

void rp_pb_raw(rp_pb *b, const void *data, size_t len)
{
    uint8_t *p = room(b, len);
    if (p && len) {
        memcpy(p, data, len);
        b->len += len;
    }
}

void rp_pb_bytes(rp_pb *b, uint32_t field, const void *data, size_t len)
{
    tag(b, field, WIRE_BYTES);
    varint(b, len);
    rp_pb_raw(b, data, len);
}

void rp_pb_packed_i64s(rp_pb *b, uint32_t field, const int64_t *values, size_t n)
{
    size_t len = 0;
    for (size_t i = 0; i < n; i++)
        len += rp_pb_varint_size((uint64_t)values[i]);
    tag(b, field, WIRE_BYTES);
    varint(b, len);
    for (size_t i = 0; i < n; i++)
        varint(b, (uint64_t)values[i]);
}

void rp_pb_packed_i64(rp_pb *b, uint32_t field, int64_t value)
{
    rp_pb_packed_i64s(b, field, &value, 1);
}

void rp_pb_packed_u32(rp_pb *b, uint32_t field, const uint32_t *ids, size_t n, uint64_t add)
{
    size_t len = 0;
    for (size_t i = 0; i < n; i++)
        len += rp_pb_varint_size(ids[i] + add);
    tag(b, field, WIRE_BYTES);
    varint(b, len);
    for (size_t i = 0; i < n; i++)
        varint(b, ids[i] + add);
}
