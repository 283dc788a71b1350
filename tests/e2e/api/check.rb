# tests/e2e/api/check.rb — the API test programs check the API's answers
# themselves: a wrong answer raises, naming what was asked.
require "stringio"

def check(what, got, expected)
  raise "#{what}: got #{got.inspect}, expected #{expected.inspect}" unless got == expected
end

# What the block writes to $stderr (the API writes its warnings and
# summaries to whatever $stderr is now).
def stderr_of
  old, $stderr = $stderr, StringIO.new
  yield
  $stderr.string
ensure
  $stderr = old
end
