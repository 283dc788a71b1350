/*
 * agent/zlib_loader.c — rp_gzip_api for the agent, resolved with dlopen.
 * See common/gzip.h for why the agent does not link libz.
 *
 * Context: end of profiling in a Ruby process (GVL held), where libruby has
 * already loaded libz.so.1, so dlopen only finds it.
 */
#include <dlfcn.h>
#include <errno.h>
#include <stddef.h>

#include "../common/gzip.h"

const rp_gzip_api *rp_gzip_api_get(void)
{
    static rp_gzip_api api;
    static void *lib;
    if (api.dopen)
        return &api;
    if (!lib)
        lib = dlopen("libz.so.1", RTLD_NOW | RTLD_LOCAL);
    if (lib) {
        api.write = (int (*)(void *, const void *, unsigned))dlsym(lib, "gzwrite");
        api.close = (int (*)(void *))dlsym(lib, "gzclose");
        api.dopen = (void *(*)(int, const char *))dlsym(lib, "gzdopen");
    }
    if (!api.dopen || !api.write || !api.close) {
        api.dopen = NULL;
        errno = ENOSYS;
        return NULL;
    }
    return &api;
}
