/*
 * profile/encode/protobuf.h — the few protobuf wire-format primitives pprof needs.
 *
 * Owns: varints, tags, length-delimited fields and packed repeated
 * integers, written into a growable byte buffer. Messages are built in a
 * buffer and then copied as a length-delimited field of their parent (or
 * streamed out as a top-level field).
 */
#ifndef RPERF_PROFILE_PROTOBUF_H
#define RPERF_PROFILE_PROTOBUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct rp_pb {
    uint8_t *data;
    size_t len, cap;
    bool failed; /* out of memory at some point: the content is unusable */
} rp_pb;

void rp_pb_init(rp_pb *b);
void rp_pb_free(rp_pb *b);
void rp_pb_clear(rp_pb *b);

/* Field `field` as a varint (wire type 0): int64 values are written as
 * their two's complement, as protobuf does for int64. */
void rp_pb_uint(rp_pb *b, uint32_t field, uint64_t value);
void rp_pb_int(rp_pb *b, uint32_t field, int64_t value);
/* Field `field` as length-delimited bytes (wire type 2): strings, messages. */
void rp_pb_bytes(rp_pb *b, uint32_t field, const void *data, size_t len);
/* A packed repeated uint64 field: ids[i] + add for every i. */
void rp_pb_packed_u32(rp_pb *b, uint32_t field, const uint32_t *ids, size_t n, uint64_t add);

/* A packed repeated int64 field: `n` values, or a single one. */
void rp_pb_packed_i64s(rp_pb *b, uint32_t field, const int64_t *values, size_t n);
void rp_pb_packed_i64(rp_pb *b, uint32_t field, int64_t value);
/* Appends bytes as they are (the content of a string field). */
void rp_pb_raw(rp_pb *b, const void *data, size_t len);

/* Bytes a varint of `value` takes. */
size_t rp_pb_varint_size(uint64_t value);

/* The tag and length that precede `len` bytes of length-delimited field
 * `field`, for callers that stream the bytes themselves. Returns the size
 * written to `out` (at most RP_PB_HEADER_MAX). */
#define RP_PB_HEADER_MAX 20
size_t rp_pb_bytes_header(uint32_t field, size_t len, uint8_t out[RP_PB_HEADER_MAX]);

#endif
