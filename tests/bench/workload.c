/*
 * tests/bench/workload.c — a tiny Ruby C extension whose methods cost a
 * known amount of time, for the accuracy benchmark (scripts/bench accuracy).
 *
 *   RperfBench.c_busy(ms)        busy-waits `ms` of thread CPU time holding the GVL
 *   RperfBench.c_sleep_gvl(ms)   sleeps `ms` holding the GVL
 *   RperfBench.c_sleep_nogvl(ms) sleeps `ms` with the GVL released
 *   RperfBench.c_busy_nogvl(ms)  busy-waits `ms` of thread CPU time with the GVL released
 *   RperfBench.c_busy_then_call(ms, obj, name)
 *                                busy-waits `ms` holding the GVL, then calls
 *                                obj.name (a parser's hook: C code that
 *                                calls back into Ruby when it is done)
 *   RperfBench.sample_floor(n)   [ns per thread-CPU clock read, ns per
 *                                rb_profile_frames of the caller's stack,
 *                                the same two with cold caches]: warm, the
 *                                mean of n calls in a row; cold, of n/100
 *                                calls each after evicting the caches. The
 *                                part of a sample's cost that belongs to
 *                                the kernel and to Ruby, not to the
 *                                profiler (scripts/bench sample)
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
    (void)self;
    double until = thread_cpu_ms() + NUM2DBL(ms);
    while (thread_cpu_ms() < until)
        ;
    return Qnil;
}

static VALUE c_sleep_gvl(VALUE self, VALUE ms)
{
    (void)self;
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
    (void)self;
    double d = NUM2DBL(ms);
    rb_thread_call_without_gvl(sleep_without_gvl, &d, RUBY_UBF_IO, NULL);
    return Qnil;
}

static void *busy_without_gvl(void *arg)
{
    double until = thread_cpu_ms() + *(double *)arg;
    while (thread_cpu_ms() < until)
        ;
    return NULL;
}

static VALUE c_busy_nogvl(VALUE self, VALUE ms)
{
    (void)self;
    double d = NUM2DBL(ms);
    rb_thread_call_without_gvl(busy_without_gvl, &d, RUBY_UBF_IO, NULL);
    return Qnil;
}

static VALUE c_busy_then_call(VALUE self, VALUE ms, VALUE obj, VALUE name)
{
    c_busy(self, ms);
    return rb_funcall(obj, rb_to_id(name), 0);
}

static double monotonic_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* Evicts the data caches, as a millisecond of other work between two
 * samples does, so that what follows runs about as cold as the sampling
 * job inside a real run (where, timed in place, the clock read alone took
 * 1–5 µs: no less than this cold figure). */
static void evict_caches(void)
{
    static volatile unsigned char junk[8 << 20];
    for (size_t i = 0; i < sizeof(junk); i += 64)
        junk[i]++;
}

static VALUE frames[513]; /* the agent's depth cap + 1, as it asks */

static void read_thread_clock(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
}

static void walk_frames(void)
{
    rb_profile_frames(0, 513, frames, NULL);
}

/* ns per call of `op`, mean of n back-to-back calls (warm caches). */
static double warm_ns(void (*op)(void), long n)
{
    double start = monotonic_ns();
    for (long i = 0; i < n; i++)
        op();
    return (monotonic_ns() - start) / n;
}

/* ns per call of `op`, mean of n calls each after evict_caches, less the
 * cost of the two clock reads around it. */
static double cold_ns(void (*op)(void), long n)
{
    double total = 0, empty = 0;
    for (long i = 0; i < n; i++) {
        evict_caches();
        double a = monotonic_ns();
        op();
        double b = monotonic_ns();
        double c = monotonic_ns();
        total += b - a;
        empty += c - b;
    }
    return (total - empty) / n;
}

static VALUE sample_floor(VALUE self, VALUE calls)
{
    (void)self;
    long n = NUM2LONG(calls);
    long cold_n = n / 100 > 0 ? n / 100 : 1;
    return rb_ary_new_from_args(4, DBL2NUM(warm_ns(read_thread_clock, n)),
                                DBL2NUM(warm_ns(walk_frames, n)),
                                DBL2NUM(cold_ns(read_thread_clock, cold_n)),
                                DBL2NUM(cold_ns(walk_frames, cold_n)));
}

/* RperfBench.noop_newobj_hook: installs a NEWOBJ hook that does nothing —
 * what Ruby's allocation path costs with any object hook at all
 * (scripts/bench alloc). */
static void noop_hook(VALUE tracepoint, void *data)
{
    (void)tracepoint;
    (void)data;
}

static VALUE noop_newobj_hook(VALUE self)
{
    (void)self;
    static VALUE tp = Qnil;
    if (NIL_P(tp)) {
        tp = rb_tracepoint_new(0, RUBY_INTERNAL_EVENT_NEWOBJ, noop_hook, NULL);
        rb_gc_register_address(&tp);
        rb_tracepoint_enable(tp);
    }
    return Qnil;
}

void Init_workload(void)
{
    VALUE m = rb_define_module("RperfBench");
    rb_define_module_function(m, "c_busy", c_busy, 1);
    rb_define_module_function(m, "c_sleep_gvl", c_sleep_gvl, 1);
    rb_define_module_function(m, "c_sleep_nogvl", c_sleep_nogvl, 1);
    rb_define_module_function(m, "c_busy_nogvl", c_busy_nogvl, 1);
    rb_define_module_function(m, "c_busy_then_call", c_busy_then_call, 3);
    rb_define_module_function(m, "sample_floor", sample_floor, 1);
    rb_define_module_function(m, "noop_newobj_hook", noop_newobj_hook, 0);
}
