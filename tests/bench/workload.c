/*
 * tests/bench/workload.c — a tiny Ruby C extension whose methods cost a
 * known amount of time, for the accuracy benchmark (scripts/bench accuracy).
 *
 *   RperfBench.c_busy(ms)        busy-waits `ms` of thread CPU time holding the GVL
 *   RperfBench.c_sleep_gvl(ms)   sleeps `ms` holding the GVL
 *   RperfBench.c_sleep_nogvl(ms) sleeps `ms` with the GVL released
 *   RperfBench.sample_floor(n)   [ns per thread-CPU clock read, ns per
 *                                rb_profile_frames of the caller's stack],
 *                                each the mean of n calls: the part of a
 *                                sample's cost that belongs to the kernel
 *                                and to Ruby, not to the profiler
 *                                (scripts/bench sample)
 */
#include <ruby.h>
#include <ruby/debug.h>
#include <ruby/thread.h>
#include <time.h>

static double thread_cpu_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void sleep_ms(double ms)
{
    struct timespec ts = {(time_t)(ms / 1000), (long)((ms - (time_t)(ms / 1000) * 1000) * 1e6)};
    while (nanosleep(&ts, &ts) != 0)
        ;
}

static VALUE c_busy(VALUE self, VALUE ms)
{
    double until = thread_cpu_ms() + NUM2DBL(ms);
    while (thread_cpu_ms() < until)
        ;
    return Qnil;
}

static VALUE c_sleep_gvl(VALUE self, VALUE ms)
{
    sleep_ms(NUM2DBL(ms));
    return Qnil;
}

static void *sleep_without_gvl(void *arg)
{
    sleep_ms(*(double *)arg);
    return NULL;
}

static VALUE c_sleep_nogvl(VALUE self, VALUE ms)
{
    double d = NUM2DBL(ms);
    rb_thread_call_without_gvl(sleep_without_gvl, &d, RUBY_UBF_IO, NULL);
    return Qnil;
}

static double monotonic_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static VALUE sample_floor(VALUE self, VALUE calls)
{
    long n = NUM2LONG(calls);
    struct timespec ts;
    double start = monotonic_ns();
    for (long i = 0; i < n; i++)
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    double clock_ns = (monotonic_ns() - start) / n;
    static VALUE frames[513]; /* the agent's depth cap + 1, as it asks */
    start = monotonic_ns();
    for (long i = 0; i < n; i++)
        rb_profile_frames(0, 513, frames, NULL);
    double frames_ns = (monotonic_ns() - start) / n;
    return rb_ary_new_from_args(2, DBL2NUM(clock_ns), DBL2NUM(frames_ns));
}

void Init_workload(void)
{
    VALUE m = rb_define_module("RperfBench");
    rb_define_module_function(m, "c_busy", c_busy, 1);
    rb_define_module_function(m, "c_sleep_gvl", c_sleep_gvl, 1);
    rb_define_module_function(m, "c_sleep_nogvl", c_sleep_nogvl, 1);
    rb_define_module_function(m, "sample_floor", sample_floor, 1);
}
