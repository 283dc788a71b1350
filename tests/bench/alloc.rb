# Overhead workload: allocation-heavy (many minor GCs).
def churn(n)
  list = []
  n.times { |i| list << "item #{i}" << [i, i.to_s] << { i => i }; list.clear if list.size > 3000 }
end
churn(Integer(ARGV.fetch(0, 600_000)))
