/* A preload library that exports the agent's core table under its name
 * but of another ABI — what an extension meets beside an agent of another
 * version (tests/e2e/installed.sh): it must refuse with a LoadError, not
 * read the table. */
#include <stdint.h>

struct {
    uint32_t abi, size;
} rperf_agent_core = {0, 8};
