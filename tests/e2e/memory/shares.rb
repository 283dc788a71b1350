# frozen_string_literal: true

# Allocation shares of known truth (tests/e2e/allocations.sh): one method
# allocates 300,000 strings, another 100,000 arrays, a third none. The
# truth, counted by Ruby's GC around each call, goes to ARGV[0].
def make_strings
  300_000.times { String.new("abc") }
end

def make_arrays
  100_000.times { Array.new(2) }
end

def burn
  x = 0
  3_000_000.times { |i| x += i }
  x
end

def allocations
  before = GC.stat(:total_allocated_objects)
  yield
  GC.stat(:total_allocated_objects) - before
end

truth = {
  "Object#make_strings" => allocations { make_strings },
  "Object#make_arrays" => allocations { make_arrays },
  "Object#burn" => allocations { burn },
}
File.write(ARGV[0], truth.map { |name, count| "#{name} #{count}\n" }.join)
