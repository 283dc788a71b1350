# tests/bench/soak_server.rb — a server-like program for `scripts/bench
# soak`: a master that preforks WORKERS processes sharing one loopback
# listening socket, each serving requests on THREADS threads. Each request
# does a little CPU work as a request of one of 16 endpoints (Rperf.request)
# under a request-id label, through code made
# fresh all the time (a block eval'd from a file name never used before;
# the old ones dropped, and Ruby frees them): every few requests bring a
# stack the profiler has never seen. (Methods with fresh names would do
# too, but their names are symbols Ruby never frees: Ruby itself would
# grow, and hide what the agent does.) Worker slot 0 is replaced (SIGTERM, fork anew)
# every REPLACE seconds, as servers recycle workers; the other slots live
# for the whole run. Stops on SIGTERM, stopping its workers first.
#   ruby soak_server.rb DIR [WORKERS THREADS REPLACE]
# Writes DIR/port, and DIR/pids ("master PID", "worker SLOT PID") on every
# fork. Standard library only.
require "socket"

dir = ARGV.fetch(0)
WORKERS = Integer(ARGV.fetch(1, 3))
THREADS = Integer(ARGV.fetch(2, 4))
REPLACE = Float(ARGV.fetch(3, 30))

begin
  require "rperf" # under the agent: its API; elsewhere, no labels
rescue LoadError
  module Rperf
    def self.label(**) = yield
    def self.request(_name) = yield
  end
end

# Fresh code all the time, never more than KEEP blocks alive at once.
module Churn
  KEEP = 200
  @lock = Mutex.new
  @serial = 0
  @handlers = []

  def self.work(n, depth)
    return (1..n).sum { |i| i * i % 7 } if depth.zero?
    work(n, depth - 1)
  end

  # Every 4th request makes a block from a file name never used before.
  def self.next_handler
    @lock.synchronize do
      @serial += 1
      if @handlers.empty? || (@serial % 4).zero?
        @handlers << eval("proc { |n, depth| Churn.work(n, depth) }", TOPLEVEL_BINDING,
                          "handler_#{Process.pid}_#{@serial}.rb", 1)
        @handlers.shift if @handlers.size > KEEP
      end
      @handlers.sample
    end
  end
end

def handle(client)
  id = client.gets&.to_i or return
  # one request of one of 16 endpoints (rperf-analyze requests)
  Rperf.request("work/#{id % 16}") do
    Rperf.label(request: id) do
      reply = Churn.next_handler.call(3000, id % 16)
      client.write("#{reply}\n")
    end
  end
ensure
  client.close
end

def serve(server)
  stop = false
  Signal.trap(:TERM) { stop = true }
  THREADS.times.map do
    Thread.new do
      until stop
        client = begin
          server.accept_nonblock
        rescue IO::WaitReadable
          server.wait_readable(0.2)
          next
        end
        handle(client)
      end
    end
  end.each(&:join)
end

server = TCPServer.new("127.0.0.1", 0)
File.write(File.join(dir, "port"), "#{server.addr[1]}\n")
workers = {}
write_pids = lambda do
  lines = ["master #{Process.pid}"] + workers.map { |slot, pid| "worker #{slot} #{pid}" }
  File.write(File.join(dir, "pids.new"), lines.join("\n") + "\n")
  File.rename(File.join(dir, "pids.new"), File.join(dir, "pids"))
end
start = ->(slot) { workers[slot] = fork { serve(server) } }
WORKERS.times { |slot| start.(slot) }
write_pids.()

stop = false
Signal.trap(:TERM) { stop = true }
last_replace = Process.clock_gettime(Process::CLOCK_MONOTONIC)
until stop
  sleep 0.2
  now = Process.clock_gettime(Process::CLOCK_MONOTONIC)
  next if now - last_replace < REPLACE
  last_replace = now
  Process.kill(:TERM, workers[0])
  Process.wait(workers[0])
  start.(0)
  write_pids.()
end
workers.each_value { |pid| Process.kill(:TERM, pid) }
workers.each_value { |pid| Process.wait(pid) }
