/*
 * Unit tests for profile/my_code.c: which code a frame is (gems, Ruby's
 * library, the VM, path gems, the application) and --my-code's collapsing
 * of library runs, C methods going with their callers.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "../../profile/my_code.h"
#include "helpers.h"

#define APP "/srv/app"
#define GEMS "/home/u/.gem/ruby/3.4.0/gems"

static void assert_library(const char *label, const char *path, const char *name, const char *dir)
{
    rp_code_origin o = rp_code_of(label, path);
    assert_int_equal(o.code, RP_CODE_LIBRARY);
    assert_string_equal(o.name, name);
    if (dir) {
        assert_int_equal(o.dir_len, strlen(dir));
        assert_memory_equal(path, dir, strlen(dir));
    }
}

static void assert_app(const char *label, const char *path)
{
    assert_int_equal(rp_code_of(label, path).code, RP_CODE_APP);
}

static void test_gems(void **state)
{
    (void)state;
    assert_library("ActionController::Metal#dispatch", GEMS "/actionpack-8.1.4.1/lib/action_controller/metal.rb",
                   "actionpack 8.1.4.1", GEMS "/actionpack-8.1.4.1");
    /* a name with dashes, a platform suffix, vendored under the app */
    assert_library("Net::HTTP#request", GEMS "/net-http-0.6.0/lib/net/http.rb", "net-http 0.6.0", NULL);
    assert_library("Nokogiri::XML::Document.parse", GEMS "/nokogiri-1.16.0-x86_64-linux/lib/nokogiri.rb",
                   "nokogiri 1.16.0-x86_64-linux", NULL);
    assert_library("Rack::Lint#call", APP "/vendor/bundle/ruby/3.4.0/gems/rack-3.1.8/lib/rack/lint.rb",
                   "rack 3.1.8", APP "/vendor/bundle/ruby/3.4.0/gems/rack-3.1.8");
    /* Bundler's git checkouts: the revision after the last dash */
    assert_library("Foo#bar", "/u/.bundle/ruby/3.4.0/bundler/gems/my-lib-a1b2c3d4e5f6/lib/foo.rb",
                   "my-lib a1b2c3d4e5f6", NULL);
    /* a directory named gems that holds no gem is nobody's */
    assert_app("Object#x", APP "/gems/readme.rb");
}

static void test_ruby_and_vm(void **state)
{
    (void)state;
    assert_library("JSON::Ext::Parser#parse", "/opt/ruby/lib/ruby/3.4.0/json/common.rb", "ruby",
                   "/opt/ruby/lib/ruby/3.4.0");
    assert_library("Rake::Task#invoke", "/usr/lib/ruby/vendor_ruby/rake/task.rb", "ruby", NULL);
    assert_library("Kernel#tap", "<internal:kernel>", "ruby", NULL);
    assert_library("Kernel#require", "<internal:/opt/ruby/lib/ruby/3.4.0/rubygems/core_ext/kernel_require.rb>",
                   "ruby", "");
    assert_library("Rperf::RackMiddleware#call", "/opt/rperf/ruby/rperf/rack.rb", "rperf", NULL);
    assert_int_equal(rp_code_of("Array#each", "<C method>").code, RP_CODE_CALLERS);
}

static void test_app_and_checkouts(void **state)
{
    (void)state;
    assert_app("ProductsController#show", APP "/app/controllers/products_controller.rb");
    assert_app("Object#helper", APP "/lib/helper.rb"); /* the app's own lib/ */
    assert_app("Object#main", "/tmp/script.rb");      /* a script elsewhere */
    assert_app("Object#main", "-e");
    assert_app("Object#main", "(eval at " APP "/x.rb:1)");
    /* a checkout under /var/lib is nobody's library */
    assert_app("Object#work", "/var/lib/ci/checkout/tests/e2e/cpu_burn.rb");
    assert_app("Mylib.go", "/src/mylib/lib/mylib.rb");
}

/* The labels of stack `id`, root first, joined by ";". */
static void stack_text(const rp_profile *p, uint32_t id, char *out, size_t size)
{
    uint32_t depth;
    const uint32_t *frames = rp_stack_table_get(&p->stacks, id, &depth);
    out[0] = '\0';
    for (uint32_t i = depth; i-- > 0;) {
        strncat(out, rp_profile_str(p, p->frames[frames[i]].label), size - strlen(out) - 1);
        if (i)
            strncat(out, ";", size - strlen(out) - 1);
    }
}

static int64_t weight_of(const rp_profile *p, const char *text)
{
    int64_t w = 0;
    char got[512];
    for (size_t i = 0; i < p->samples.count; i++) {
        stack_text(p, p->samples.samples[i].stack, got, sizeof(got));
        if (strcmp(got, text) == 0)
            w += p->samples.samples[i].weight;
    }
    return w;
}

#define PUMA GEMS "/puma-7.1.0/lib/puma/thread_pool.rb|"
#define PACK GEMS "/actionpack-8.1.4.1/lib/action_dispatch.rb|"
#define CTRL APP "/app/controllers/products_controller.rb|"

static void test_collapse(void **state)
{
    (void)state;
    rp_profile p;
    assert_int_equal(rp_profile_init(&p, true), 0);
    /* puma -> actionpack (two frames, a C method between) -> the action -> sleep:
     * one run from puma's frame to the action, named for puma */
    add_sample(&p, 50, 1, 0, "<C method>|Kernel#sleep", CTRL "ProductsController#show", PACK "Metal#dispatch",
               "<C method>|BasicObject#instance_exec", PACK "Routing#call", PUMA "ThreadPool#spawn", NULL);
    /* the action calls back into the gem, which spends the time */
    add_sample(&p, 30, 1, 0, PACK "Rendering#render", CTRL "ProductsController#show", PACK "Metal#dispatch",
               PACK "Routing#call", PUMA "ThreadPool#spawn", NULL);
    /* a pool thread waiting: all library, one box */
    add_sample(&p, 200, 2, 0, "<C method>|Thread::Mutex#sleep", PUMA "ThreadPool#wait", PUMA "ThreadPool#spawn", NULL);
    /* recursion of the application's method stays */
    add_sample(&p, 7, 3, 0, CTRL "Object#fib", CTRL "Object#fib", NULL);
    int64_t total = rp_sample_table_total(&p.samples);
    assert_int_equal(rp_my_code_apply(&p), 0);
    assert_int_equal(rp_sample_table_total(&p.samples), total);
    assert_int_equal(weight_of(&p, "[puma 7.1.0];ProductsController#show;Kernel#sleep"), 50);
    assert_int_equal(weight_of(&p, "[puma 7.1.0];ProductsController#show;[actionpack 8.1.4.1]"), 30);
    assert_int_equal(weight_of(&p, "[puma 7.1.0]"), 200);
    assert_int_equal(weight_of(&p, "Object#fib;Object#fib"), 7);
    /* the library frame's path is the gem's directory */
    char name[RP_FRAME_NAME_MAX];
    bool found = false;
    for (size_t f = 0; f < p.frame_count; f++)
        if (strcmp(rp_profile_str(&p, p.frames[f].label), "[puma 7.1.0]") == 0) {
            assert_string_equal(rp_frame_name(&p, &p.frames[f], name, sizeof(name)),
                                "[puma 7.1.0] (" GEMS "/puma-7.1.0)");
            found = true;
        }
    assert_true(found);
    rp_profile_free(&p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gems),
        cmocka_unit_test(test_ruby_and_vm),
        cmocka_unit_test(test_app_and_checkouts),
        cmocka_unit_test(test_collapse),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
