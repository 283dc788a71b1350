/*
 * agent/sampling/sample_buf.c — the sampling double buffer. See sample_buf.h.
 *
 * Ownership protocol: `active` and the active buffer belong to the GVL
 * holder. `handed_over` names the buffer the worker owns (or is -1): the
 * GVL side stores it (release) after switching to the other buffer; the
 * worker stores -1 (release) after emptying it, so a GVL side that sees -1
 * (acquire) also sees the emptied buffer.
 *
 * Prefaulting: the worker keeps each buffer faulted in up to `mapped`, a
 * window beyond `written` (the GVL side's fill level, a hint). The GVL side
 * wakes it when it gets within half a window of `mapped`, once per mark
 * (`asked`), so the worker runs only about once per window written.
 */
#include "sample_buf.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../../common/clock.h"
#include "frame_capture.h"

/* How far beyond the writer the worker maps pages in (32 KB of frames,
 * 24 KB of samples): at 10 kHz with the deepest stacks, more than the
 * writer fills while a woken worker gets round to it. */
#define PREFAULT_WINDOW_FRAMES (RP_STACK_MAX * 16)
#define PREFAULT_WINDOW_SAMPLES (RP_CHARGES_MAX * 256)

typedef struct fill_mark {
    uint32_t samples;
    uint32_t frames;
} fill_mark;

static rp_sample_buf *buffers[2];
static int active;
/* The last capture's frames (rp_sample_buf_last_capture). */
static struct {
    const uint32_t *frames;
    const int *lines;
    uint32_t depth;
} last;
static atomic_int handed_over = -1;
static void (*wakeup)(void);
static _Atomic fill_mark written[2];
static _Atomic fill_mark mapped[2];
static fill_mark asked[2];

int rp_sample_buf_init(bool lines)
{
    for (int i = 0; i < 2; i++) {
        buffers[i] = calloc(1, sizeof(rp_sample_buf));
        if (!buffers[i]) {
            rp_sample_buf_free();
            return -1;
        }
        buffers[i]->has_lines = lines;
    }
    rp_sample_buf_reset();
    return 0;
}

void rp_sample_buf_free(void)
{
    for (int i = 0; i < 2; i++) {
        free(buffers[i]);
        buffers[i] = NULL;
    }
}

void rp_sample_buf_set_wakeup(void (*wake)(void))
{
    wakeup = wake;
}

static bool has_room(const rp_sample_buf *b)
{
    return b->count + RP_CHARGES_MAX <= RP_BUF_SAMPLES &&
           b->frame_count + RP_STACK_MAX + 1 <= RP_BUF_FRAMES;
}

static bool is_half_full(const rp_sample_buf *b)
{
    return b->count >= RP_BUF_SAMPLES / 2 || b->frame_count >= RP_BUF_FRAMES / 2;
}

/* GVL held: hands the active buffer to the worker if the standby is free. */
static bool try_hand_over(void)
{
    if (atomic_load_explicit(&handed_over, memory_order_acquire) >= 0)
        return false;
    int full = active;
    active ^= 1;
    atomic_store_explicit(&handed_over, full, memory_order_release);
    if (wakeup)
        wakeup();
    return true;
}

static bool same_mark(fill_mark a, fill_mark b)
{
    return a.samples == b.samples && a.frames == b.frames;
}

/* Whether the writer, at `w`, is within half a window of the end of what
 * is mapped in, `m` (short of the buffer's end). */
static bool near_end(fill_mark w, fill_mark m)
{
    return (w.frames + PREFAULT_WINDOW_FRAMES / 2 > m.frames && m.frames < RP_BUF_FRAMES) ||
           (w.samples + PREFAULT_WINDOW_SAMPLES / 2 > m.samples && m.samples < RP_BUF_SAMPLES);
}

/* GVL held, after a capture into buffer `i`: publishes the fill level and
 * wakes the worker when the writer nears the end of the mapped window. */
static void ask_for_pages_when_near_end(int i, const rp_sample_buf *b)
{
    fill_mark w = {b->count, b->frame_count};
    atomic_store_explicit(&written[i], w, memory_order_relaxed);
    fill_mark m = atomic_load_explicit(&mapped[i], memory_order_relaxed);
    if (near_end(w, m) && !same_mark(m, asked[i]) && wakeup) {
        asked[i] = m;
        wakeup();
    }
}

rp_capture_result rp_sample_buf_capture(uint32_t thread_seq, uint32_t label_set,
                                        const rp_charge *charges, int n)
{
    rp_sample_buf *b = buffers[active];
    if (!has_room(b)) {
        if (!try_hand_over())
            return RP_CAPTURE_FULL;
        b = buffers[active];
    }
    /* One frame more than kept, to learn whether the stack was cut. */
    int depth = rp_frame_capture(0, RP_STACK_MAX + 1, b->frames + b->frame_count,
                                 b->has_lines ? b->lines + b->frame_count : NULL);
    if (depth <= 0)
        return RP_CAPTURE_NO_FRAMES;
    rp_capture_result result = RP_CAPTURED;
    int64_t now = rp_clock_ns(CLOCK_MONOTONIC);
    if (depth > RP_STACK_MAX) {
        depth = RP_STACK_MAX;
        result = RP_CAPTURED_TRUNCATED;
    }
    for (int i = 0; i < n && i < RP_CHARGES_MAX; i++) {
        if (charges[i].weight <= 0)
            continue;
        b->samples[b->count++] = (rp_buffered_sample){
            .frame_offset = b->frame_count,
            .depth = (uint16_t)depth,
            .vm_state = (uint8_t)charges[i].state,
            .recording = charges[i].recording,
            .thread_seq = thread_seq,
            .label_set = label_set,
            .weight = charges[i].weight,
            .time_ns = now,
        };
    }
    last.frames = b->frames + b->frame_count;
    last.lines = b->has_lines ? b->lines + b->frame_count : NULL;
    last.depth = (uint32_t)depth;
    b->frame_count += (uint32_t)depth;
    ask_for_pages_when_near_end(active, b);
    if (is_half_full(b))
        try_hand_over();
    return result;
}

/* A hand-over lets the worker read the buffer, and its return only resets
 * the counts: the frames stay as written until a capture, under the GVL,
 * writes over them. */
uint32_t rp_sample_buf_last_capture(const uint32_t **frames, const int **lines)
{
    *frames = last.frames;
    *lines = last.lines;
    return last.depth;
}

rp_capture_result rp_sample_buf_append(uint32_t thread_seq, uint32_t label_set, const uint32_t *frames,
                                       const int *lines, uint32_t depth, const rp_charge *charge, int64_t time_ns)
{
    rp_sample_buf *b = buffers[active];
    if (!has_room(b)) {
        if (!try_hand_over())
            return RP_CAPTURE_FULL;
        b = buffers[active];
    }
    memcpy(b->frames + b->frame_count, frames, depth * sizeof(*frames));
    if (b->has_lines)
        for (uint32_t i = 0; i < depth; i++)
            b->lines[b->frame_count + i] = lines ? lines[i] : 0;
    b->samples[b->count++] = (rp_buffered_sample){
        .frame_offset = b->frame_count,
        .depth = (uint16_t)depth,
        .vm_state = (uint8_t)charge->state,
        .recording = charge->recording,
        .thread_seq = thread_seq,
        .label_set = label_set,
        .weight = charge->weight,
        .time_ns = time_ns,
    };
    b->frame_count += depth;
    ask_for_pages_when_near_end(active, b);
    if (is_half_full(b))
        try_hand_over();
    return RP_CAPTURED;
}

rp_sample_buf *rp_sample_buf_take_full(void)
{
    int idx = atomic_load_explicit(&handed_over, memory_order_acquire);
    return idx >= 0 ? buffers[idx] : NULL;
}

void rp_sample_buf_return(void)
{
    /* already emptied by the aggregator, under its lock */
    atomic_store_explicit(&handed_over, -1, memory_order_release);
}

rp_sample_buf *rp_sample_buf_active(void)
{
    return buffers[active];
}

void rp_sample_buf_reset(void)
{
    for (int i = 0; i < 2; i++) {
        if (buffers[i])
            buffers[i]->count = buffers[i]->frame_count = 0;
        atomic_store(&written[i], ((fill_mark){0, 0}));
    }
    active = 0;
    atomic_store(&handed_over, -1);
}

/* Worker: faults in elements [from, to) of `array` (elements of `size`
 * bytes) without writing to them, so the GVL side may be writing below.
 * Returns false on a kernel without MADV_POPULATE_WRITE (before 5.14). */
static bool map_in(void *array, size_t size, uint32_t from, uint32_t to)
{
    if (to <= from)
        return true;
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
    uintptr_t start = ((uintptr_t)array + from * size) & ~(page - 1);
    uintptr_t end = (uintptr_t)array + to * size;
    return madvise((void *)start, end - start, MADV_POPULATE_WRITE) == 0 || errno != EINVAL;
}

static uint32_t min_u32(uint32_t a, uint32_t b)
{
    return a < b ? a : b;
}

static uint32_t max_u32(uint32_t a, uint32_t b)
{
    return a > b ? a : b;
}

void rp_sample_buf_prefault(void)
{
    for (int i = 0; i < 2; i++) {
        rp_sample_buf *b = buffers[i];
        if (!b)
            continue;
        fill_mark w = atomic_load_explicit(&written[i], memory_order_relaxed);
        fill_mark m = atomic_load_explicit(&mapped[i], memory_order_relaxed);
        /* Mapped in a half window at a time: not two system calls a tick
         * (the worker wakes at every one) for a sample's few bytes. */
        if (!near_end(w, m))
            continue;
        fill_mark want = {min_u32(w.samples + PREFAULT_WINDOW_SAMPLES, RP_BUF_SAMPLES),
                          min_u32(w.frames + PREFAULT_WINDOW_FRAMES, RP_BUF_FRAMES)};
        bool supported = map_in(b->samples, sizeof(b->samples[0]), m.samples, want.samples) &&
                         map_in(b->frames, sizeof(b->frames[0]), m.frames, want.frames) &&
                         (!b->has_lines ||
                          map_in(b->lines, sizeof(b->lines[0]), m.frames, want.frames));
        if (!supported) /* never ask again: the sampler takes its own faults */
            want = (fill_mark){RP_BUF_SAMPLES, RP_BUF_FRAMES};
        fill_mark now = {max_u32(m.samples, want.samples), max_u32(m.frames, want.frames)};
        if (!same_mark(now, m))
            atomic_store_explicit(&mapped[i], now, memory_order_relaxed);
    }
}

void rp_sample_buf_prefault_reset(void)
{
    for (int i = 0; i < 2; i++) {
        atomic_store(&mapped[i], ((fill_mark){0, 0}));
        asked[i] = (fill_mark){0, 0};
    }
}
