/*
 * agent/sample_buf.c — the sampling double buffer. See sample_buf.h.
 *
 * Ownership protocol: `active` and the active buffer belong to the GVL
 * holder. `handed_over` names the buffer the worker owns (or is -1): the
 * GVL side stores it (release) after switching to the other buffer; the
 * worker stores -1 (release) after emptying it, so a GVL side that sees -1
 * (acquire) also sees the emptied buffer.
 */
#include "sample_buf.h"

#include <stdatomic.h>
#include <stdlib.h>

static rp_sample_buf *buffers[2];
static int active;
static atomic_int handed_over = -1;
static void (*wakeup)(void);

int rp_sample_buf_init(void)
{
    for (int i = 0; i < 2; i++) {
        buffers[i] = calloc(1, sizeof(rp_sample_buf));
        if (!buffers[i]) {
            rp_sample_buf_free();
            return -1;
        }
    }
    active = 0;
    atomic_store(&handed_over, -1);
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

rp_capture_result rp_sample_buf_capture(uint32_t thread_seq, const rp_charge *charges, int n)
{
    rp_sample_buf *b = buffers[active];
    if (!has_room(b)) {
        if (!try_hand_over())
            return RP_CAPTURE_FULL;
        b = buffers[active];
    }
    /* One frame more than kept, to learn whether the stack was cut. */
    int depth = rb_profile_frames(0, RP_STACK_MAX + 1, b->frames + b->frame_count, NULL);
    if (depth <= 0)
        return RP_CAPTURE_NO_FRAMES;
    rp_capture_result result = RP_CAPTURED;
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
            .thread_seq = thread_seq,
            .weight = charges[i].weight,
        };
    }
    b->frame_count += (uint32_t)depth;
    if (is_half_full(b))
        try_hand_over();
    return result;
}

rp_sample_buf *rp_sample_buf_take_full(void)
{
    int idx = atomic_load_explicit(&handed_over, memory_order_acquire);
    return idx >= 0 ? buffers[idx] : NULL;
}

void rp_sample_buf_return(rp_sample_buf *buf)
{
    (void)buf; /* already emptied by the aggregator, under its lock */
    atomic_store_explicit(&handed_over, -1, memory_order_release);
}

rp_sample_buf *rp_sample_buf_active(void)
{
    return buffers[active];
}

void rp_sample_buf_mark(void)
{
    for (int i = 0; i < 2; i++) {
        rp_sample_buf *b = buffers[i];
        if (!b)
            continue;
        for (uint32_t f = 0; f < b->frame_count; f++)
            rb_gc_mark(b->frames[f]);
    }
}

void rp_sample_buf_reset(void)
{
    for (int i = 0; i < 2; i++)
        if (buffers[i])
            buffers[i]->count = buffers[i]->frame_count = 0;
    active = 0;
    atomic_store(&handed_over, -1);
}
