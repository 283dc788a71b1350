# Frame names are let go of once nothing holds them (issue 50, item 6):
# a program that evals code under distinct 4 KB file names without end
# (code loaded, run and dropped) keeps every one of its frames' names in
# its profiles, where before the names' byte bound (32 MB of text) sent
# all frames after the first ~8,000 names to "[other frames]" for the
# rest of the process:
# - the whole profile in parts (RPERF_INTERVAL=1, every allocation
#   sampled): 12 rounds of 1,000 evals, each round waiting for the next
#   part, so that a part holds 1,000 evals' names however loaded the
#   machine (about 100 MB of names in all, three times the bound): all
#   12,000 file names are in the parts, no frame is under "[other frames]", the
#   bound is never said, and the process's peak memory stays within
#   200 MB of the same program's without the agent (+95 to +118 MB here:
#   a part's names in the store, in the part built and in its file's
#   text, at most two parts' worth; names kept would add 160 MB);
# - sessions of the Rperf API in a dormant process (each ending lets go):
#   eight sessions of 1,500 such evals, then one more: its eval's name
#   is its own.
. "$(dirname "$0")/lib.sh"

cat >evals.rb <<'RUBY'
dir = ENV["RPERF_SESSION_DIR"]
parts = -> { Dir.children(dir).count { |f| f.end_with?(".json.gz") } }
rounds, per = Integer(ARGV[0]), Integer(ARGV[1])
pad = "d" * 4000
i = 0
rounds.times do
  seen = dir && parts.call
  per.times do
    eval("def m#{i % 100}; x = 'a' * 10; x; end; m#{i % 100}", nil, "/app/#{pad}/#{i}.rb", 1)
    i += 1
  end
  waited = Process.clock_gettime(Process::CLOCK_MONOTONIC)
  sleep 0.01 while dir && parts.call == seen && Process.clock_gettime(Process::CLOCK_MONOTONIC) - waited < 60
end
puts File.read("/proc/self/status")[/VmHWM:\s*(\d+)/, 1]
RUBY
plain_kb=$("$RUBY" evals.rb 12 1000)
agent_kb=$(RPERF_ALLOC=1 RPERF_INTERVAL=1 profiled parts "$RUBY" evals.rb 12 1000 2>parts.err) ||
    fail "the program failed under the agent: $(cat parts.err)"
! grep "frame names: the bound is reached" parts.err || fail "the bound of frame names was reached"
files=(parts/*.json.gz)
[ "${#files[@]}" -ge 12 ] || fail "${#files[@]} parts written, expected 12 at least"
named=$(for f in "${files[@]}"; do zcat "$f" | grep -o "$(printf 'd%.0s' {1..8})/[0-9]*\.rb\"" || true; done | sort -u | wc -l)
others=$(for f in "${files[@]}"; do zcat "$f" | grep -c "other frames: past the bound" || true; done |
         awk '{ n += $1 } END { print n + 0 }')
note "parts: ${#files[@]}; file names of the 12,000 evals in them: $named; [other frames] in $others"
[ "$named" = 12000 ] || fail "$named of the 12,000 eval'd files are named in the parts"
[ "$others" = 0 ] || fail "[other frames] is in $others parts"
note "peak memory: $((agent_kb / 1024)) MB with the agent, $((plain_kb / 1024)) MB without"
[ $((agent_kb - plain_kb)) -le $((200 * 1024)) ] ||
    fail "peak memory ${agent_kb} KB with the agent, ${plain_kb} KB without: the names let go are not freed"

cat >sessions.rb <<'RUBY'
require "rperf"
pad = "d" * 4000
i = 0
8.times do
  Rperf.start(frequency: 1000, alloc: 1)
  1500.times do
    eval("def m#{i % 100}; x = 'a' * 10; x; end; m#{i % 100}", nil, "/app/#{pad}/#{i}.rb", 1)
    i += 1
  end
  Rperf.stop
end
Rperf.start(frequency: 1000, alloc: 1)
eval("def last; x = 'a' * 10; x; end; last", nil, "/app/#{pad}/last.rb", 1)
Rperf.save("last.json.gz", Rperf.stop)
RUBY
RPERF_ENABLED=0 profiled sessions "$RUBY" sessions.rb 2>sessions.err || fail "sessions: $(cat sessions.err)"
! grep "frame names: the bound is reached" sessions.err || fail "sessions: the bound of frame names was reached"
zcat last.json.gz | grep -q '/last\.rb"' ||
    fail "the last session does not name its eval: $(zcat last.json.gz | grep -o 'other frames[^"]*' | head -1)"
note "9 sessions, 8 of 1,500 evals under 4 KB names: the last one's eval is named"
