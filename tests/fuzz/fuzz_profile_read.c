/*
 * tests/fuzz/fuzz_profile_read.c — libFuzzer target for the profile reader.
 *
 * Feeds arbitrary bytes to the reader as a profile document, and whatever
 * it accepts through everything downstream: merge, the flat/cumulative
 * tables, and every encoder. Built by scripts/fuzz with clang; the same
 * entry point replays tests/fuzz/regressions/ in `meson test`
 * (replay_main.c), so crashes found once stay fixed.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "../../analyzer/collapsed.h"
#include "../../analyzer/merge.h"
#include "../../analyzer/pprof.h"
#include "../../analyzer/report.h"
#include "../../analyzer/stat.h"
#include "../../common/profile_read.h"
#include "../../common/profile_write.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void encode_everything(const rp_profile *p)
{
    FILE *sink = fopen("/dev/null", "w");
    if (!sink)
        return;
    rp_out *out = rp_out_stream(sink, true);
    if (!out)
        return;
    rp_pprof_write(p, out);
    rp_collapsed_write(p, out);
    rp_report_write(p, out, 50, true);
    rp_stat_write(p, out, true);
    rp_profile_write_json(p, out);
    rp_out_close(out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    rp_profile one, merged;
    char err[RP_READ_ERROR_MAX];
    if (rp_profile_init(&one, true) != 0)
        return 0;
    if (rp_profile_read_buffer(&one, (const char *)data, size, err) == 0 &&
        rp_profile_init(&merged, true) == 0) {
        char merge_err[RP_MERGE_ERROR_MAX];
        /* twice: the second merge re-maps onto existing tables */
        if (rp_merge_into(&merged, &one, 0, true, merge_err) == 0 &&
            rp_merge_into(&merged, &one, 1, true, merge_err) == 0)
            encode_everything(&merged);
        rp_profile_free(&merged);
    }
    rp_profile_free(&one);
    return 0;
}
