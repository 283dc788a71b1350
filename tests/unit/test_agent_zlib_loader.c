/*
 * Unit test for agent/base/zlib_loader.c: the worker thread (writing a part)
 * and a Ruby thread (writing at exit) may ask for the zlib functions at
 * the same moment. Several threads ask at once; every one gets the same
 * complete table. Built with ThreadSanitizer (tests/meson.build), which
 * fails the test on any unsynchronised access, however the threads
 * happen to interleave.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <pthread.h>
#include <zlib.h> /* libz loaded, as libruby has it in a Ruby process */

#include "../../common/gzip.h"

#define THREADS 8

static pthread_barrier_t start;

static void *ask(void *slot)
{
    pthread_barrier_wait(&start);
    *(const rp_gzip_api **)slot = rp_gzip_api_get();
    return NULL;
}

static void test_threads_asking_at_once_get_one_table(void **state)
{
    (void)state;
    pthread_t threads[THREADS];
    const rp_gzip_api *got[THREADS];
    (void)zlibVersion();
    pthread_barrier_init(&start, NULL, THREADS);
    for (int i = 0; i < THREADS; i++)
        assert_int_equal(pthread_create(&threads[i], NULL, ask, &got[i]), 0);
    for (int i = 0; i < THREADS; i++)
        pthread_join(threads[i], NULL);
    pthread_barrier_destroy(&start);
    for (int i = 0; i < THREADS; i++) {
        assert_non_null(got[i]);
        assert_ptr_equal(got[i], got[0]);
        assert_non_null(got[i]->dopen);
        assert_non_null(got[i]->write);
        assert_non_null(got[i]->close);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_threads_asking_at_once_get_one_table),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
