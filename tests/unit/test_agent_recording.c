/*
 * Unit tests for agent/recording: which ticks each recording counts when
 * two run at once at different rates, what pausing, resuming, a busy
 * machine and a fork do to the schedule, and the timer's rate; and, under
 * ThreadSanitizer where the compiler has it, the tick (a signal handler or
 * the worker thread in the agent) racing a Ruby thread that opens,
 * retunes, pauses and closes recordings.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>

#include "../../agent/base/recording.h"

#define MS 1000000LL

static int64_t monotonic_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void open_at(rp_rec_id id, int hz, bool paused)
{
    rp_rec_config cfg = {.mode = RP_MODE_CPU, .frequency = hz, .aggregate = true};
    rp_recording_open(id, &cfg, paused);
}

static uint64_t triggers(rp_rec_id id)
{
    return rp_recording_stats(id).trigger_count;
}

/* Ticks every `period` from `start` for `n` ticks, each up to `jitter` ns
 * early or late (a fixed pseudo-random sequence). */
static void tick_for(int64_t start, int64_t period, int n, int64_t jitter)
{
    unsigned seed = 7;
    for (int k = 1; k <= n; k++) {
        int64_t off = jitter ? (int64_t)(rand_r(&seed) % (2 * jitter + 1)) - jitter : 0;
        rp_recordings_tick(start + k * period + off);
    }
}

static int teardown(void **state)
{
    (void)state;
    rp_recordings_after_fork();
    return 0;
}

/* The timer at 1000 Hz: the 1000 Hz recording counts every tick, the
 * 100 Hz one every tenth, however the ticks' phase falls against the
 * recordings' and with jitter of a fifth of a tick. */
static void test_each_recording_counts_at_its_own_rate(void **state)
{
    (void)state;
    for (int64_t phase = 0; phase < MS; phase += MS / 8) {
        open_at(RP_REC_WHOLE, 1000, false);
        open_at(RP_REC_SESSION, 100, false);
        tick_for(monotonic_ns() + phase, MS, 1000, MS / 5);
        assert_in_range(triggers(RP_REC_WHOLE), 999, 1000);
        assert_in_range(triggers(RP_REC_SESSION), 99, 101);
    }
}

/* A tick far too early counts for nothing; the schedule is not moved. */
static void test_early_ticks_do_not_count(void **state)
{
    (void)state;
    open_at(RP_REC_SESSION, 100, false);
    int64_t t0 = monotonic_ns();
    assert_false(rp_recordings_tick(t0 + 1 * MS));
    assert_false(rp_recordings_tick(t0 + 4 * MS));
    assert_true(rp_recordings_tick(t0 + 10 * MS));
    assert_false(rp_recordings_tick(t0 + 12 * MS));
    assert_int_equal(triggers(RP_REC_SESSION), 1);
}

/* A machine too busy to tick for 50 periods: one trigger when it comes
 * back, and the schedule goes on from then, not replaying what it missed. */
static void test_missed_ticks_are_not_replayed(void **state)
{
    (void)state;
    open_at(RP_REC_WHOLE, 1000, false);
    int64_t late = monotonic_ns() + 50 * MS;
    assert_true(rp_recordings_tick(late));
    assert_false(rp_recordings_tick(late + MS / 10));
    assert_true(rp_recordings_tick(late + MS));
    assert_int_equal(triggers(RP_REC_WHOLE), 2);
}

/* Paused (deferral): no trigger, and no rate asked of the timer; resuming
 * drops triggers not yet served and begins a new clock epoch. */
static void test_pause_and_resume(void **state)
{
    (void)state;
    open_at(RP_REC_WHOLE, 1000, false);
    open_at(RP_REC_SESSION, 100, true);
    assert_int_equal(rp_recordings_tick_frequency(), 1000);
    uint32_t opened = rp_recordings_epoch();
    tick_for(monotonic_ns(), 10 * MS, 5, 0);
    assert_int_equal(triggers(RP_REC_SESSION), 0);

    rp_recording_pause(RP_REC_WHOLE);
    assert_int_equal(rp_recordings_tick_frequency(), 0);
    rp_recording_resume(RP_REC_SESSION);
    assert_int_equal(rp_recordings_tick_frequency(), 100);
    assert_true(rp_recordings_epoch() > opened);
    assert_int_equal(rp_recording_get(RP_REC_SESSION)->clock_epoch, rp_recordings_epoch());
    tick_for(monotonic_ns(), 10 * MS, 3, 0);
    assert_int_equal(triggers(RP_REC_SESSION), 3);
    uint32_t resumed = rp_recordings_epoch();
    rp_recording_resume(RP_REC_SESSION); /* already accepting: nothing */
    assert_int_equal(rp_recordings_epoch(), resumed);

    /* triggers counted but never served are dropped at the next resume */
    rp_recording_pause(RP_REC_SESSION);
    rp_recording_resume(RP_REC_SESSION);
    assert_int_equal(triggers(RP_REC_SESSION), rp_recording_stats(RP_REC_SESSION).sampling_count);
}

/* Epochs never come back: a new session's thread clocks are never those
 * of the one before. */
static void test_epochs_only_grow(void **state)
{
    (void)state;
    open_at(RP_REC_SESSION, 100, false);
    uint32_t first = rp_recording_get(RP_REC_SESSION)->open_epoch;
    rp_recording_close(RP_REC_SESSION);
    rp_recordings_after_fork();
    open_at(RP_REC_SESSION, 100, false);
    assert_true(rp_recording_get(RP_REC_SESSION)->open_epoch > first);
}

/* Closed recordings take no trigger; a fork child starts with none open
 * and every counter at zero. */
static void test_close_and_fork(void **state)
{
    (void)state;
    open_at(RP_REC_WHOLE, 1000, false);
    open_at(RP_REC_SESSION, 500, false);
    tick_for(monotonic_ns(), MS, 10, 0);
    rp_recording_close(RP_REC_WHOLE);
    assert_true(rp_recordings_any_open());
    assert_int_equal(rp_recordings_tick_frequency(), 500);
    uint64_t whole = triggers(RP_REC_WHOLE);
    tick_for(monotonic_ns(), 2 * MS, 10, 0);
    assert_int_equal(triggers(RP_REC_WHOLE), whole);
    assert_true(triggers(RP_REC_SESSION) >= 10);

    rp_recordings_after_fork();
    assert_false(rp_recordings_any_open());
    assert_int_equal(rp_recordings_tick_frequency(), 0);
    assert_int_equal(triggers(RP_REC_SESSION), 0);
    assert_false(rp_recordings_tick(monotonic_ns() + 10 * MS));
}

static atomic_bool ticking;

static void *ticker(void *unused)
{
    (void)unused;
    int64_t now = monotonic_ns();
    while (atomic_load(&ticking)) {
        now += MS / 10;
        rp_recordings_tick(now);
    }
    return NULL;
}

/* The tick reads only what the opening side publishes atomically, and a
 * recording closed counts no more ticks (but one already under way). */
static void test_tick_races_open_and_close(void **state)
{
    (void)state;
#ifdef RP_TEST_UNDER_EMULATION
    skip();
#endif
    pthread_t t;
    atomic_store(&ticking, true);
    assert_int_equal(pthread_create(&t, NULL, ticker, NULL), 0);
    for (int i = 0; i < 2000; i++) {
        open_at(RP_REC_SESSION, 100 + i % 900, i % 3 == 0);
        if (i % 3 == 0)
            rp_recording_resume(RP_REC_SESSION);
        open_at(RP_REC_WHOLE, 1000 + i, false);
        rp_recording_pause(RP_REC_WHOLE);
        rp_recording_resume(RP_REC_WHOLE);
        rp_recording_close(RP_REC_SESSION);
    }
    rp_recording_close(RP_REC_WHOLE);
    /* A tick already past its accepting check when the close came may
     * still count: let it finish, then none may follow. */
    struct timespec pause = {0, 20 * MS};
    nanosleep(&pause, NULL);
    uint64_t before = triggers(RP_REC_WHOLE) + triggers(RP_REC_SESSION);
    nanosleep(&pause, NULL);
    uint64_t after = triggers(RP_REC_WHOLE) + triggers(RP_REC_SESSION);
    atomic_store(&ticking, false);
    pthread_join(t, NULL);
    assert_int_equal(before, after);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(test_each_recording_counts_at_its_own_rate, teardown),
        cmocka_unit_test_teardown(test_early_ticks_do_not_count, teardown),
        cmocka_unit_test_teardown(test_missed_ticks_are_not_replayed, teardown),
        cmocka_unit_test_teardown(test_pause_and_resume, teardown),
        cmocka_unit_test_teardown(test_epochs_only_grow, teardown),
        cmocka_unit_test_teardown(test_close_and_fork, teardown),
        cmocka_unit_test_teardown(test_tick_races_open_and_close, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
