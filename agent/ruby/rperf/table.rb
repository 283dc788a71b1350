# Rperf::Table — the gem's flat tables for tools and language models
# (`rperf report --format table|table-json`, `rperf diff --format ...`):
# one row per method name, computed by the same C code as rperf-analyze's
# (profile/encode/table.c), so that the two never differ. The rows and
# summaries as Ruby objects are read back from the JSON table.
#
# json is required when a method needs it, not at load: rperf is loaded
# before a program's bundle is set up, and activating the default json
# gem then would clash with a bundle that pins another.
module Rperf
  module Table
    ROWS_LIMIT = 50

    module_function

    # TSV: method, self_pct, total_pct, self_ms; the top rows, "(other)",
    # and a "# summary" line.
    def report_tsv(data, limit: ROWS_LIMIT) = Rperf._table(given(data), false, limit)

    # The same as a JSON array whose last element is {"summary": {...}}.
    def report_json(data, limit: ROWS_LIMIT) = Rperf._table(given(data), true, limit).chomp

    def report_rows(data, limit: ROWS_LIMIT) = parsed(report_json(data, limit: limit))[0...-1]

    def report_summary(data) = parsed(report_json(data, limit: 0)).last[:summary]

    # TSV: method, self_pct_base, self_pct_head, delta_pt; |delta_pt|
    # descending; a "# summary" line of base, head and delta.
    def diff_tsv(base, head, limit: ROWS_LIMIT) = Rperf._table_diff(given(base), given(head), false, limit)

    def diff_json(base, head, limit: ROWS_LIMIT) = Rperf._table_diff(given(base), given(head), true, limit).chomp

    def diff_rows(base, head, limit: ROWS_LIMIT) = parsed(diff_json(base, head, limit: limit))[0...-1]

    def diff_summary(base, head) = parsed(diff_json(base, head, limit: 0)).last[:summary]

    # A profile's data with the :summary it came with (Rperf.load's, or one
    # handed with it), whose figures the "# summary" line gives as the gem's does.
    def given(data) = Rperf._with_meta_texts(data)

    def parsed(json)
      require "json"
      JSON.parse(json, symbolize_names: true)
    end
    private_class_method :parsed, :given
  end
end
