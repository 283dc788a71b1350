# Blocking I/O, IO.select, pipes, Queue and ConditionVariable hand-offs,
# Timeout, Fibers, Enumerator#next, and a Ractor.
require "timeout"

r, w = IO.pipe
writer = Thread.new { 50.times { |i| w.puts i; sleep 0.001 }; w.close }
lines = []
while (ready = IO.select([r], nil, nil, 1))
  line = r.gets or break
  lines << line.to_i
end
writer.join
puts "pipe: #{lines.sum}"

q = Queue.new
consumer = Thread.new { total = 0; while (v = q.pop) != :done; total += v; end; total }
100.times { |i| q << i }
q << :done
puts "queue: #{consumer.value}"

m = Mutex.new
cv = ConditionVariable.new
turn = 0
players = 2.times.map do |me|
  Thread.new do
    10.times do
      m.synchronize do
        cv.wait(m) until turn % 2 == me
        turn += 1
        cv.broadcast
      end
    end
  end
end
players.each(&:join)
puts "condvar: #{turn}"

begin
  Timeout.timeout(0.05) { sleep 1 }
rescue Timeout::Error
  puts "timeout: raised"
end

fiber = Fiber.new { 3.times { |i| Fiber.yield i * 10 }; :end }
puts "fiber: #{4.times.map { fiber.resume }.inspect}"
enum = Enumerator.new { |y| 5.times { |i| y << i * i } }
puts "enumerator: #{5.times.map { enum.next }.inspect}"

Warning[:experimental] = false
ractor = Ractor.new { 200_000.times.sum }
puts "ractor: #{ractor.take}"
