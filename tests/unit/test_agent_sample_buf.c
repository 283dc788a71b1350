/*
 * Unit tests for agent/sample_buf: capture, truncation, the hand-over to
 * the worker, a full buffer, and prefaulting (pages mapped in ahead of the
 * writer, checked with mincore). The test links without libruby: it defines
 * rp_frame_capture itself, reporting a stack of the depth each test sets.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <malloc.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../../agent/sampling/frame_capture.h"
#include "../../agent/sampling/sample_buf.h"

/* --- test doubles for the Ruby symbols sample_buf.c uses --------------- */

static int fake_stack_depth;

int rp_frame_capture(int start, int limit, uint32_t *names, int *lines)
{
    (void)start;
    int n = fake_stack_depth < limit ? fake_stack_depth : limit;
    for (int i = 0; i < n; i++) {
        names[i] = (uint32_t)(100 + i);
        if (lines)
            lines[i] = 10 + i;
    }
    return n;
}

static int wakeups;

static void count_wakeup(void)
{
    wakeups++;
}

static int setup(void **state)
{
    (void)state;
    assert_int_equal(rp_sample_buf_init(false), 0);
    rp_sample_buf_set_wakeup(count_wakeup);
    rp_sample_buf_prefault_reset();
    wakeups = 0;
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    rp_sample_buf_free();
    return 0;
}

static rp_capture_result capture(int depth, int64_t weight)
{
    fake_stack_depth = depth;
    rp_charge c = {RP_VM_RUNNING, weight, 0};
    return rp_sample_buf_capture(7, 0, &c, 1);
}

/* --- tests --------------------------------------------------------------- */

static void test_capture_records_stack_and_charges(void **state)
{
    (void)state;
    fake_stack_depth = 3;
    /* the last charge for the second recording (a session) */
    rp_charge charges[] = {{RP_VM_GVL_BLOCKED, 100, 0}, {RP_VM_GVL_WAIT, 0, 0}, {RP_VM_GVL_WAIT, 20, 1}};
    assert_int_equal(rp_sample_buf_capture(2, 5, charges, 3), RP_CAPTURED);
    rp_sample_buf *b = rp_sample_buf_active();
    /* one stack, two samples (the charge of 0 is left out) */
    assert_int_equal(b->frame_count, 3);
    assert_int_equal(b->count, 2);
    assert_int_equal(b->samples[0].depth, 3);
    assert_int_equal(b->samples[0].weight, 100);
    assert_int_equal(b->samples[0].vm_state, RP_VM_GVL_BLOCKED);
    assert_int_equal(b->samples[1].weight, 20);
    assert_int_equal(b->samples[1].frame_offset, 0);
    assert_int_equal(b->samples[1].thread_seq, 2);
    assert_int_equal(b->samples[0].label_set, 5);
    assert_int_equal(b->samples[1].label_set, 5);
    assert_int_equal(b->samples[0].recording, 0);
    assert_int_equal(b->samples[1].recording, 1);
    assert_true(b->frames[2] == 102);
}

/* Lines are captured beside the frames only when asked for. */
static void test_lines_are_captured_when_asked(void **state)
{
    (void)state;
    rp_sample_buf *b = rp_sample_buf_active();
    assert_false(b->has_lines);
    assert_int_equal(capture(3, 1), RP_CAPTURED);
    assert_int_equal(b->lines[2], 0); /* untouched */
    rp_sample_buf_free();
    assert_int_equal(rp_sample_buf_init(true), 0);
    b = rp_sample_buf_active();
    assert_true(b->has_lines);
    assert_int_equal(capture(3, 1), RP_CAPTURED);
    assert_int_equal(b->lines[0], 10);
    assert_int_equal(b->lines[2], 12);
}

static void test_deep_stack_is_truncated(void **state)
{
    (void)state;
    assert_int_equal(capture(RP_STACK_MAX + 50, 1), RP_CAPTURED_TRUNCATED);
    assert_int_equal(rp_sample_buf_active()->samples[0].depth, RP_STACK_MAX);
    assert_int_equal(capture(0, 1), RP_CAPTURE_NO_FRAMES);
}

static void test_half_full_is_handed_over(void **state)
{
    (void)state;
    rp_sample_buf *first = rp_sample_buf_active();
    int before = wakeups;
    while (rp_sample_buf_active() == first)
        assert_int_equal(capture(100, 1), RP_CAPTURED);
    assert_true(wakeups > before);
    assert_ptr_equal(rp_sample_buf_take_full(), first);
    assert_true(first->frame_count >= RP_BUF_FRAMES / 2);
    /* the worker folds and returns it; the next hand-over can happen */
    first->count = first->frame_count = 0;
    rp_sample_buf_return();
    assert_null(rp_sample_buf_take_full());
}

static void test_full_buffer_drops_when_worker_is_busy(void **state)
{
    (void)state;
    rp_capture_result r = RP_CAPTURED;
    unsigned captured = 0;
    /* nobody takes the handed-over buffer: both fill up, then samples drop */
    while ((r = capture(RP_STACK_MAX, 1)) != RP_CAPTURE_FULL)
        captured++;
    assert_true(captured > RP_BUF_FRAMES / RP_STACK_MAX);
    assert_non_null(rp_sample_buf_take_full());
    assert_int_equal(capture(1, 1), RP_CAPTURE_FULL);
}

/* How many pages [p, p + len) touches. */
static size_t pages_in(const void *p, size_t len)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    uintptr_t start = (uintptr_t)p & ~(page - 1);
    return ((uintptr_t)p + len - start + page - 1) / page;
}

/* How many pages of [p, p + len) are resident. */
static size_t resident_pages(const void *p, size_t len)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    uintptr_t start = (uintptr_t)p & ~(page - 1);
    size_t n = pages_in(p, len);
    unsigned char *vec = malloc(n);
    assert_non_null(vec);
    assert_int_equal(mincore((void *)start, n * page, vec), 0);
    size_t resident = 0;
    for (size_t i = 0; i < n; i++)
        resident += vec[i] & 1;
    free(vec);
    return resident;
}

static bool kernel_can_populate(void)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    void *p = mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    assert_true(p != MAP_FAILED);
    bool ok = madvise(p, page, MADV_POPULATE_WRITE) == 0;
    munmap(p, page);
    return ok;
}

static void test_prefault_maps_ahead_of_the_writer(void **state)
{
    (void)state;
    if (!kernel_can_populate())
        skip(); /* Linux before 5.14: the sampler takes its own page faults */
    rp_sample_buf *b = rp_sample_buf_active();
    /* sample_buf.c's window: RP_STACK_MAX * 16 frames (32 KB of names) */
    const size_t window = RP_STACK_MAX * 16 * sizeof(b->frames[0]);
    /* the far end of a fresh buffer is not mapped yet */
    size_t tail_before = resident_pages(&b->frames[RP_BUF_FRAMES / 2], window);
    rp_sample_buf_prefault();
    assert_int_equal(resident_pages(b->frames, window), pages_in(b->frames, window));
    assert_int_equal(resident_pages(&b->frames[RP_BUF_FRAMES / 2], window), tail_before);

    /* a writer far from the window's end costs the worker nothing: the
     * next window is mapped in half a window at a time, not a page per
     * sample (two system calls at every tick) */
    size_t beyond_before = resident_pages(&b->frames[RP_STACK_MAX * 16], window);
    for (int i = 0; i < 4; i++)
        capture(RP_STACK_MAX, 1);
    rp_sample_buf_prefault();
    assert_int_equal(resident_pages(&b->frames[RP_STACK_MAX * 16], window), beyond_before);

    /* the writer nearing the end of the window wakes the worker, once */
    int before = wakeups;
    for (int i = 0; i < 40; i++)
        capture(RP_STACK_MAX, 1);
    assert_int_equal(wakeups, before + 1);
    for (int i = 0; i < 5; i++)
        capture(RP_STACK_MAX, 1);
    assert_int_equal(wakeups, before + 1);
    /* the worker maps the next window beyond what was written */
    rp_sample_buf_prefault();
    uint32_t written = b->frame_count;
    assert_int_equal(resident_pages(&b->frames[written], window / 2),
                     pages_in(&b->frames[written], window / 2));
}

int main(void)
{
    /* Fixed, so that each buffer is a fresh mapping (untouched pages) in
     * every test rather than reused, already touched heap memory. */
    mallopt(M_MMAP_THRESHOLD, 128 * 1024);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_capture_records_stack_and_charges, setup, teardown),
        cmocka_unit_test_setup_teardown(test_deep_stack_is_truncated, setup, teardown),
        cmocka_unit_test_setup_teardown(test_lines_are_captured_when_asked, setup, teardown),
        cmocka_unit_test_setup_teardown(test_half_full_is_handed_over, setup, teardown),
        cmocka_unit_test_setup_teardown(test_full_buffer_drops_when_worker_is_busy, setup, teardown),
        cmocka_unit_test_setup_teardown(test_prefault_maps_ahead_of_the_writer, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
