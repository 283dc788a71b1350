/*
 * agent/ext/formats.h — the profile library's formats, for Ruby.
 *
 * Owns: the native methods that turn the gem's Hash of a profile into its
 * formats and files and back, each on the very code rperf-analyze uses
 * (profile/, profile/encode/): no format is implemented twice.
 *   Rperf::PProf.encode(data)      profile.proto bytes (not compressed)
 *   Rperf::Collapsed.encode(data)  "bottom;...;leaf weight" lines
 *   Rperf::Text.encode(data, top_n: 50, header: true)  the text report
 *   Rperf._encode(data, format)    any format of the table (format.c) as a String
 *   Rperf._read_meta(path)         [meta, summary] JSON texts of a file's head
 *   Rperf._summary(data)           the summary's JSON text (Rperf::Meta)
 *   Rperf._table(data, json, limit), Rperf._table_diff(base, head, json, limit)
 *                                  the flat tables (table.h) for Rperf::Table
 *   Rperf._save(path, data, format) a file, written whole (atomic_file.h)
 *   Rperf._load(path)              [data, rperf_version or nil]
 *   Rperf._stat_text(data, report, command)  the stat summary
 *   Rperf._verbose_text(data)      the verbose summary
 *   Rperf._merge_dir(dir, data)    data merged with every profile in dir
 * Errors are raised as the gem raises them: SystemCallError for files,
 * Zlib::GzipFile::Error for damaged gzip, JSON::ParserError for text that
 * is not JSON, ArgumentError for a document that is not a profile.
 * Context: Ruby methods, GVL held.
 */
#ifndef RPERF_AGENT_EXT_FORMATS_H
#define RPERF_AGENT_EXT_FORMATS_H

#include "../control/core_api.h"
#include "../base/ruby_api.h"

/* Init_rperf_agent: defines the methods under `rperf` (the Rperf module). */
void rp_formats_define(VALUE rperf, const rp_core_api *core);

#endif
