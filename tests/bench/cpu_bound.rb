# Overhead workload: CPU-bound recursion (about 1 s).
def fib(n) = n < 2 ? n : fib(n - 1) + fib(n - 2)
fib(Integer(ARGV.fetch(0, 30)))
