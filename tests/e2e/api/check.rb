# tests/e2e/api/check.rb — the API test programs check the API's answers
# themselves: a wrong answer raises, naming what was asked.
def check(what, got, expected)
  raise "#{what}: got #{got.inspect}, expected #{expected.inspect}" unless got == expected
end
