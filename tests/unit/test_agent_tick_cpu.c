/*
 * Unit tests for agent/vm/tick_cpu: the ticker's reading of the GVL
 * holder's CPU clock is handed to that thread only (not to another
 * thread, nor to a thread that came with the same native clock id under
 * another number), only from the latest tick, never when the clock is
 * not the Ruby thread's alone (M:N); and, under ThreadSanitizer where the
 * compiler has it, a ticker reading while the thread takes: every value
 * taken lies between the thread's own clock readings around it.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdatomic.h>
#include <time.h>

#include "../../agent/vm/tick_cpu.h"

static int64_t own_cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void burn_a_little(void)
{
    int64_t until = own_cpu_ns() + 200000;
    while (own_cpu_ns() < until)
        ;
}

/* The ticker is another thread: it reads the holder's clock from there. */
static void *read_once(void *unused)
{
    (void)unused;
    rp_tick_cpu_read(1);
    return NULL;
}

static void tick_from_another_thread(void)
{
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, read_once, NULL), 0);
    pthread_join(th, NULL);
}

static rp_thread_cpu this_thread(void)
{
    rp_thread_cpu c;
    rp_thread_cpu_reset(&c);
    return c;
}

static int setup(void **state)
{
    (void)state;
    rp_tick_cpu_forget();
    return 0;
}

static void test_the_holder_takes_the_ticks_reading(void **state)
{
    (void)state;
    rp_thread_cpu c = this_thread();
    assert_true(c.has_native_clock);
    rp_tick_cpu_holder(&c, 3);
    burn_a_little();
    int64_t before = own_cpu_ns();
    tick_from_another_thread();
    int64_t after = own_cpu_ns(), taken = -1, at = 0;
    assert_true(rp_tick_cpu_take(&c, 3, &taken, &at));
    assert_int_equal(at, 1); /* the tick's time, as the ticker gave it */
    assert_true(taken >= before && taken <= after);
    assert_true(taken > 0);
}

static void test_nothing_before_a_tick_or_a_holder(void **state)
{
    (void)state;
    rp_thread_cpu c = this_thread();
    int64_t taken, at;
    assert_false(rp_tick_cpu_take(&c, 3, &taken, &at)); /* no tick yet */
    tick_from_another_thread();
    assert_false(rp_tick_cpu_take(&c, 3, &taken, &at)); /* a tick, nobody said they hold the GVL */
}

static void test_another_thread_number_takes_nothing(void **state)
{
    (void)state;
    rp_thread_cpu c = this_thread();
    rp_tick_cpu_holder(&c, 3);
    tick_from_another_thread();
    int64_t taken, at;
    /* the same native clock under another Ruby thread's number: a thread
     * id the OS gave again */
    assert_false(rp_tick_cpu_take(&c, 4, &taken, &at));
    assert_true(rp_tick_cpu_take(&c, 3, &taken, &at));
}

static void test_only_the_latest_ticks_holder(void **state)
{
    (void)state;
    rp_thread_cpu c = this_thread();
    rp_thread_cpu other = c;
    other.native_clock = c.native_clock ^ 0x100; /* another native thread's clock */
    rp_tick_cpu_holder(&c, 3);
    tick_from_another_thread();
    rp_tick_cpu_holder(&other, 5); /* the GVL moved on */
    tick_from_another_thread();
    int64_t taken, at;
    assert_false(rp_tick_cpu_take(&c, 3, &taken, &at));
}

static void test_mn_threads_take_nothing(void **state)
{
    (void)state;
    rp_thread_cpu c = this_thread();
    c.has_native_clock = false; /* M:N: the native clock is several threads' */
    rp_tick_cpu_holder(&c, 3);
    tick_from_another_thread();
    int64_t taken, at;
    assert_false(rp_tick_cpu_take(&c, 3, &taken, &at));
}

static void test_forgotten_after_fork(void **state)
{
    (void)state;
    rp_thread_cpu c = this_thread();
    rp_tick_cpu_holder(&c, 3);
    tick_from_another_thread();
    rp_tick_cpu_forget();
    int64_t taken, at;
    assert_false(rp_tick_cpu_take(&c, 3, &taken, &at));
    tick_from_another_thread();
    assert_false(rp_tick_cpu_take(&c, 3, &taken, &at)); /* nobody holds it in the child yet */
}

static atomic_bool stop_ticking;

static void *tick_until_stopped(void *unused)
{
    (void)unused;
    while (!atomic_load(&stop_ticking))
        rp_tick_cpu_read(1);
    return NULL;
}

/* The ticker writes while the holder takes: a value taken is always a
 * whole reading of this thread's clock, between its own readings. */
static void test_race_with_the_ticker(void **state)
{
    (void)state;
    rp_thread_cpu c = this_thread();
    rp_tick_cpu_holder(&c, 3);
    atomic_store(&stop_ticking, false);
    int64_t last = own_cpu_ns(); /* every reading is taken after this */
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, tick_until_stopped, NULL), 0);
    /* until the ticker thread, started just now, has been read from
     * 20,000 times (a sanitizer build starts it late), 10 s at most */
    struct timespec start, now;
    clock_gettime(CLOCK_MONOTONIC, &start);
    int takes = 0;
    for (int i = 0; takes < 20000; i++) {
        if (i % 1024 == 0) {
            clock_gettime(CLOCK_MONOTONIC, &now);
            if (now.tv_sec - start.tv_sec > 10)
                break;
        }
        int64_t taken, at, after;
        if (rp_tick_cpu_take(&c, 3, &taken, &at)) {
            after = own_cpu_ns();
            assert_true(taken <= after);
            assert_true(taken >= last); /* the ticker's readings only grow */
            last = taken;
            takes++;
        }
    }
    atomic_store(&stop_ticking, true);
    pthread_join(th, NULL);
    assert_int_equal(takes, 20000);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_the_holder_takes_the_ticks_reading, setup),
        cmocka_unit_test_setup(test_nothing_before_a_tick_or_a_holder, setup),
        cmocka_unit_test_setup(test_another_thread_number_takes_nothing, setup),
        cmocka_unit_test_setup(test_only_the_latest_ticks_holder, setup),
        cmocka_unit_test_setup(test_mn_threads_take_nothing, setup),
        cmocka_unit_test_setup(test_forgotten_after_fork, setup),
        cmocka_unit_test_setup(test_race_with_the_ticker, setup),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
