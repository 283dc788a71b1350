# A Rack application served by WEBrick over loopback (tests/e2e/requests.sh):
# /fast spends 1 ms of CPU, /slow 1 ms and in one request of 20 a 50 ms
# sleep as well, /cpu 20 ms of CPU; Rperf::RackMiddleware records each
# request. Writes its port to ARGV[0] once listening; stops on /stop.
require "rack"
require "rack/handler/webrick"
require "rperf/rack"

def burn(seconds)
  t = Process.clock_gettime(Process::CLOCK_THREAD_CPUTIME_ID)
  nil while Process.clock_gettime(Process::CLOCK_THREAD_CPUTIME_ID) - t < seconds
end

slow_count = 0
lock = Mutex.new
app = lambda do |env|
  case env["PATH_INFO"]
  when "/fast" then burn(0.001)
  when "/slow"
    burn(0.001)
    sleep 0.05 if lock.synchronize { (slow_count += 1) % 20 == 0 }
  when "/cpu" then burn(0.02)
  when "/stop" then Thread.new { sleep 0.1; Rack::Handler::WEBrick.shutdown }
  end
  [200, { "content-type" => "text/plain" }, ["ok"]]
end

Rack::Handler::WEBrick.run(Rperf::RackMiddleware.new(app), Host: "127.0.0.1", Port: 0,
  Logger: WEBrick::Log.new(File::NULL), AccessLog: [],
  StartCallback: -> {}) do |server|
  # WEBrick writes a response in pieces; without this, Nagle's algorithm
  # and the client's delayed ACK add 40 ms to some of them (accepted
  # sockets inherit the option)
  server.listeners.each { |s| s.setsockopt(Socket::IPPROTO_TCP, Socket::TCP_NODELAY, 1) }
  File.write(ARGV[0], server.listeners.first.addr[1].to_s)
end
