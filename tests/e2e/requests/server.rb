# A Rack application over loopback (tests/e2e/requests.sh): /fast spends
# 1 ms of CPU, /slow 1 ms and when asked (/slow?nap: one request of 20) a
# 50 ms sleep as well, /cpu 20 ms of CPU; Rperf::RackMiddleware records each request. Writes
# its port to ARGV[0] once listening; stops on /stop. ARGV[1], how it is
# served:
#   threads  WEBrick, a thread per connection (the default)
#   prefork  4 WEBrick worker processes forked by a master, one connection
#            each at a time (MaxClients 1), as Unicorn or Puma's cluster
#            mode serve: no request waits for another's GVL
#   fibers   one thread, a fiber per connection under a fiber scheduler
#            (fiber_scheduler.rb), as Falcon serves
require "rack"
require "rack/handler/webrick"
require "rperf/rack"

def burn(seconds)
  t = Process.clock_gettime(Process::CLOCK_THREAD_CPUTIME_ID)
  nil while Process.clock_gettime(Process::CLOCK_THREAD_CPUTIME_ID) - t < seconds
end

app = lambda do |env|
  case env["PATH_INFO"]
  when "/fast" then burn(0.001)
  when "/slow"
    burn(0.001)
    sleep 0.05 if env["QUERY_STRING"] == "nap"
  when "/cpu" then burn(0.02)
  when "/stop" then $stop.call
  end
  [200, { "content-type" => "text/plain" }, ["ok"]]
end
app = Rperf::RackMiddleware.new(app)

QUIET = { Logger: WEBrick::Log.new(File::NULL), AccessLog: [] }.freeze

# WEBrick writes a response in pieces; without TCP_NODELAY, Nagle's
# algorithm and the client's delayed ACK add 40 ms to some of them
# (accepted sockets inherit the option)
def no_delay(socket) = socket.setsockopt(Socket::IPPROTO_TCP, Socket::TCP_NODELAY, 1)

def serve_threads(app)
  $stop = -> { Thread.new { sleep 0.1; Rack::Handler::WEBrick.shutdown } }
  Rack::Handler::WEBrick.run(app, Host: "127.0.0.1", Port: 0, StartCallback: -> {}, **QUIET) do |server|
    server.listeners.each { |s| no_delay(s) }
    File.write(ARGV[0], server.listeners.first.addr[1].to_s)
  end
end

def serve_prefork(app)
  listener = TCPServer.new("127.0.0.1", 0)
  no_delay(listener)
  $stop = -> { Process.kill(:TERM, Process.ppid) }
  workers = Array.new(4) do
    fork do
      server = WEBrick::HTTPServer.new(DoNotListen: true, MaxClients: 1, **QUIET)
      server.listeners << listener
      server.mount("/", Rack::Handler::WEBrick, app)
      trap(:TERM) { server.shutdown }
      server.start
    end
  end
  trap(:TERM) { workers.each { |pid| Process.kill(:TERM, pid) } }
  File.write(ARGV[0], listener.addr[1].to_s)
  workers.each { |pid| Process.wait(pid) }
end

# HTTP/1.1 GET requests of one keep-alive connection, each through the app.
def serve_connection(app, socket)
  while (line = socket.gets)
    method, target, = line.split(" ", 3)
    path, query = target.split("?", 2)
    env = { "REQUEST_METHOD" => method, "PATH_INFO" => path, "QUERY_STRING" => query.to_s, "SCRIPT_NAME" => "",
            "SERVER_NAME" => "127.0.0.1", "SERVER_PORT" => "0", "rack.input" => StringIO.new, "rack.url_scheme" => "http" }
    while (header = socket.gets) && header != "\r\n"
      key, value = header.split(":", 2)
      env["HTTP_#{key.upcase.tr("-", "_")}"] = value.strip
    end
    status, headers, body = app.call(env)
    text = +""
    body.each { |part| text << part }
    fields = headers.map { |k, v| "#{k}: #{v}\r\n" }.join
    socket.write("HTTP/1.1 #{status} OK\r\ncontent-length: #{text.bytesize}\r\n#{fields}\r\n#{text}")
  end
ensure
  socket.close
end

def serve_fibers(app)
  require_relative "fiber_scheduler"
  listener = TCPServer.new("127.0.0.1", 0)
  no_delay(listener)
  stopping = false
  $stop = -> { stopping = true }
  Fiber.set_scheduler(TinyScheduler.new)
  Fiber.schedule do
    File.write(ARGV[0], listener.addr[1].to_s)
    until stopping
      next unless listener.wait_readable(0.05)

      socket = listener.accept_nonblock(exception: false)
      Fiber.schedule { serve_connection(app, socket) } if socket.is_a?(TCPSocket)
    end
  end
end

case ARGV.fetch(1, "threads")
when "threads" then serve_threads(app)
when "prefork" then serve_prefork(app)
when "fibers" then serve_fibers(app)
else abort "server.rb: serving #{ARGV[1].inspect}: expected threads, prefork or fibers"
end
