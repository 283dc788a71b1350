# A CPU-bound program: almost all of its time is in Object#fibonacci.
def fibonacci(n)
  n < 2 ? n : fibonacci(n - 1) + fibonacci(n - 2)
end

n = Integer(ARGV.fetch(0, 32))
puts "fibonacci(#{n}) = #{fibonacci(n)}"
