/*
 * profile/encode/encoder.h — what every encoder is given.
 *
 * Owns: the encoder's signature and the few choices a caller may make
 * about an output beyond the profile itself (the formats table, format.h,
 * holds one encoder per format). The command line (analyzer/options.h)
 * and the Ruby API (agent/ext/) both fill them in.
 */
#ifndef RPERF_PROFILE_ENCODER_H
#define RPERF_PROFILE_ENCODER_H

#include <stdbool.h>

#include "../../common/out.h"
#include "../profile.h"

#define RP_REPORT_TOP_DEFAULT 50

typedef struct rp_encode_opts {
    int top;        /* rows per table of the text report; -1: every row */
    bool no_header; /* the text report without its Total/Samples lines */
    bool lines;     /* the page shows a frame per line of code at first (--lines) */
    bool no_source; /* the page without the program's source files (--no-source) */
} rp_encode_opts;

#define RP_ENCODE_OPTS_DEFAULT ((rp_encode_opts){.top = RP_REPORT_TOP_DEFAULT})

/* Every encoder: writes `p` to `out`; returns 0, or -1 when memory ran
 * out (write errors surface at rp_out_close). */
typedef int (*rp_encoder)(const rp_profile *p, rp_out *out, const rp_encode_opts *opts);

#endif
