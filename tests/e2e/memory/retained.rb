# frozen_string_literal: true

# Retained objects of known truth (tests/e2e/allocations.sh). keep_some
# keeps one string in ten of those it allocates, in a global array;
# keep_a_while does the same into an array emptied before the end;
# drop_all keeps nothing. GC.compact runs after the first two (or, with
# RETAINED_AUTO_COMPACT=1, a major GC with auto-compaction on), so the
# objects followed from both move (those of keep_a_while are freed at
# their new address). The strings alive at exit go to ARGV[0].
$kept = []
$for_a_while = []

def keep_some(count, into)
  count.times { |i| s = String.new("kept"); into << s if i % 10 == 0 }
end

def keep_a_while(count) = keep_some(count, $for_a_while)

def drop_all(count)
  count.times { Array.new(3) }
end

keep_some(500_000, $kept)
keep_a_while(500_000)
moved = if ENV["RETAINED_AUTO_COMPACT"] # auto-compaction: a major GC compacts
  GC.auto_compact = true
  GC.start
  GC.latest_compact_info
else
  GC.compact
end
drop_all(500_000)
$for_a_while.clear
GC.start
File.write(ARGV[0], "kept #{$kept.size}\nmoved #{moved.dig(:moved, :T_STRING).to_i}\n")
