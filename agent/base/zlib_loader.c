/*
 * agent/base/zlib_loader.c — rp_gzip_api for the agent, resolved with dlopen.
 * See common/gzip.h for why the agent does not link libz.
 *
 * Context: a Ruby process writing a profile, from a Ruby thread (at exit,
 * a part the worker was too busy for) or from the worker thread (parts),
 * possibly both at once: the table is filled exactly once (pthread_once)
 * and read-only afterwards. libruby has already loaded libz.so.1, so
 * dlopen only finds it.
 */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

#include "../../common/gzip.h"

static pthread_once_t once = PTHREAD_ONCE_INIT;
static rp_gzip_api api;
static bool usable;

static void resolve(void)
{
    void *lib = dlopen("libz.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib)
        return;
    api.write = (int (*)(void *, const void *, unsigned))dlsym(lib, "gzwrite");
    api.close = (int (*)(void *))dlsym(lib, "gzclose");
    api.dopen = (void *(*)(int, const char *))dlsym(lib, "gzdopen");
    usable = api.dopen && api.write && api.close;
}

const rp_gzip_api *rp_gzip_api_get(void)
{
    pthread_once(&once, resolve);
    if (!usable) {
        errno = ENOSYS;
        return NULL;
    }
    return &api;
}
