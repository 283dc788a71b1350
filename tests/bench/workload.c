/*
 * tests/bench/workload.c — a tiny Ruby C extension whose methods cost a
 * known amount of time, for the accuracy benchmark (scripts/bench accuracy).
 *
 *   RperfBench.c_busy(ms)        busy-waits `ms` of thread CPU time holding the GVL
 *   RperfBench.c_sleep_gvl(ms)   sleeps `ms` holding the GVL
 *   RperfBench.c_sleep_nogvl(ms) sleeps `ms` with the GVL released
 */
#include <ruby.h>
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

void Init_workload(void)
{
    VALUE m = rb_define_module("RperfBench");
    rb_define_module_function(m, "c_busy", c_busy, 1);
    rb_define_module_function(m, "c_sleep_gvl", c_sleep_gvl, 1);
    rb_define_module_function(m, "c_sleep_nogvl", c_sleep_nogvl, 1);
}
