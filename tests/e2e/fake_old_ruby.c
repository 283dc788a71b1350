/* Stands in for a process of another Ruby (3.3): it exports the
 * ruby_api_version and ruby_version a ruby executable exports, with 3.3 in them, and waits
 * (at most 30 s) to be looked at by rperf attach. */
#include <stdio.h>
#include <unistd.h>

__attribute__((visibility("default"))) const int ruby_api_version[3] = {3, 3, 0};
__attribute__((visibility("default"))) const char ruby_version[] = "3.3.9";

int main(void)
{
    printf("ready %d.%d\n", ruby_api_version[0], ruby_api_version[1]);
    fflush(stdout);
    sleep(30);
    return 0;
}
