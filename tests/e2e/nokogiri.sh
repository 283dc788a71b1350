# C-extension time on the C method, with a real C extension from
# RubyGems: Nokogiri (tests/gems.txt) parses a 1.2 MB HTML document and
# runs CSS queries over it. Its C methods hold the GVL and run no
# safepoint, then call back into Ruby (Document#initialize when a parse
# is done, Document#decorate for the nodes a query found): the ticks that
# came while libxml2 worked were served in those callbacks, which got
# 86% of the run before (Nokogiri::HTML4::Document.read_memory and
# XPathContext#evaluate almost nothing). The truth is the program's own
# clock around each call (thread CPU time in cpu mode, wall time in wall
# mode): the parser's own time within 5% of the parses', the queries'
# time within 5% under XPathContext#evaluate, whose callbacks
# (Document#decorate, about a tenth of it when timed alone) keep at most
# a quarter.
. "$(dirname "$0")/lib.sh"
use_test_gems nokogiri

cat >noko.rb <<'RUBY'
require "nokogiri"
clock = ENV.fetch("RPERF_MODE") == "wall" ? Process::CLOCK_MONOTONIC : Process::CLOCK_THREAD_CPUTIME_ID
html = +"<html><body>"
12_000.times { |i| html << %(<div class="row r#{i % 7}"><p id="p#{i}">item <b>#{i}</b> <a href="/x/#{i}">link</a></p></div>) }
html << "</body></html>"
def timed(clock) = (t = Process.clock_gettime(clock, :nanosecond); yield; Process.clock_gettime(clock, :nanosecond) - t)
parse = query = 0
doc = nil
3.times do
  parse += timed(clock) { doc = Nokogiri::HTML4::Document.parse(html) }
  query += timed(clock) { 3.times { doc.css("div.r3 p a").size } }
end
puts "#{parse} #{query}"
RUBY

pct() { awk -v g="$1" -v t="$2" 'BEGIN { printf "%.1f", g * 100 / t }'; }
between() { awk -v v="$1" -v lo="$2" -v hi="$3" 'BEGIN { exit !(v >= lo && v <= hi) }'; }

for mode in cpu wall; do
    RPERF_MODE=$mode profiled "$WORK/$mode" "$RUBY" noko.rb >truth.txt || fail "$mode: exit status $?"
    f=$(only_profile "$WORK/$mode")
    read -r parse query <truth.txt
    parser=$(check self "$f" Nokogiri::HTML4::Document.read_memory)
    evaluate=$(check weight "$f" Nokogiri::XML::XPathContext#evaluate)
    decorate=$(check weight "$f" Nokogiri::XML::Document#decorate)
    note "$mode mode: read_memory's own time $(pct "$parser" "$parse")% of the parses' $((parse / 1000000)) ms;" \
        "under XPathContext#evaluate $(pct "$evaluate" "$query")% of the queries' $((query / 1000000)) ms," \
        "Document#decorate $(pct "$decorate" "$query")%"
    between "$(pct "$parser" "$parse")" 95 105 ||
        fail "$mode: the parser's own time is $(pct "$parser" "$parse")% of the parses' (95 to 105%)"
    between "$(pct "$evaluate" "$query")" 95 105 ||
        fail "$mode: XPathContext#evaluate holds $(pct "$evaluate" "$query")% of the queries' time (95 to 105%)"
    at_least 25 "$(pct "$decorate" "$query")" ||
        fail "$mode: the callback Document#decorate has $(pct "$decorate" "$query")% of the queries' time (at most 25%)"
done
