/*
 * tests/e2e/tick_rate.c — what this machine lets a timer thread achieve
 * right now, as a yardstick for the timers test.
 *
 *   tick_rate HZ SECONDS   prints wake-ups per second
 *
 * A thread sleeps to absolute deadlines HZ times a second, skipping the
 * deadlines it slept through (as the agent's sleeping ticker does). Run
 * next to the program under test, it shares its conditions: on an idle
 * machine it prints about HZ; on a loaded one, less, and the agent cannot
 * be expected to tick more often than this.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static atomic_bool done;
static long interval_ns;

static void add_ns(struct timespec *t, long ns)
{
    t->tv_nsec += ns;
    while (t->tv_nsec >= 1000000000L) {
        t->tv_nsec -= 1000000000L;
        t->tv_sec++;
    }
}

static int before(const struct timespec *a, const struct timespec *b)
{
    return a->tv_sec < b->tv_sec || (a->tv_sec == b->tv_sec && a->tv_nsec < b->tv_nsec);
}

static void *ticker(void *arg)
{
    long *wakes = arg;
    struct timespec deadline, now;
    clock_gettime(CLOCK_MONOTONIC, &deadline);
    add_ns(&deadline, interval_ns);
    while (!atomic_load(&done)) {
        clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &deadline, NULL);
        (*wakes)++;
        clock_gettime(CLOCK_MONOTONIC, &now);
        while (!before(&now, &deadline)) /* the next deadline still ahead */
            add_ns(&deadline, interval_ns);
    }
    return NULL;
}

static double seconds_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
    if (argc != 3 || atol(argv[1]) <= 0 || atof(argv[2]) <= 0) {
        fprintf(stderr, "usage: tick_rate HZ SECONDS\n");
        return 2;
    }
    interval_ns = 1000000000L / atol(argv[1]);
    double seconds = atof(argv[2]);
    long wakes = 0;
    pthread_t thread;
    double start = seconds_now();
    if (pthread_create(&thread, NULL, ticker, &wakes) != 0)
        return 1;
    struct timespec span = {(time_t)seconds, (long)((seconds - (time_t)seconds) * 1e9)};
    while (nanosleep(&span, &span) != 0)
        ;
    atomic_store(&done, 1);
    pthread_join(thread, NULL);
    printf("%.0f\n", wakes / (seconds_now() - start));
    return 0;
}
