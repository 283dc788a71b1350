# tests/browser/served_server.rb — a profiled program serving Rperf::Viewer
# over HTTP for served_test.js: a thread spends CPU time in
# Object#hot_method, a snapshot is taken, and the viewer answers on a port
# of 127.0.0.1 (written to the file ARGV[0]) until the browser is done
# (ARGV[1] appears). A minimal HTTP/1.0 server of its own, a thread per
# connection (the browser opens some it sends nothing on): the page must
# not need anything a real server adds.
require "rperf/viewer"
require "socket"
require "cpu_burn"

def hot_method = burn_cpu(0.4)

viewer = Rperf::Viewer.new(->(_env) { [404, {"content-type" => "text/plain"}, ["not the viewer"]] })
Thread.new { hot_method }.join
viewer.take_snapshot! or abort "no snapshot: is the agent profiling this process?"

server = TCPServer.new("127.0.0.1", 0)
File.write(ARGV[0] + ".tmp", server.addr[1].to_s)
File.rename(ARGV[0] + ".tmp", ARGV[0])

def answer(client, viewer)
  request_line = client.gets or return
  method, target = request_line.split(" ", 3)
  nil while (line = client.gets) && line != "\r\n"
  path, query = target.to_s.split("?", 2)
  status, headers, body = viewer.call("REQUEST_METHOD" => method, "PATH_INFO" => path, "QUERY_STRING" => query.to_s,
                                      "SCRIPT_NAME" => "")
  text = +""
  body.each { |part| text << part }
  client.write("HTTP/1.0 #{status} X\r\n")
  headers.merge("content-length" => text.bytesize.to_s, "connection" => "close").each { |k, v| client.write("#{k}: #{v}\r\n") }
  client.write("\r\n", text)
ensure
  client.close
end

until File.exist?(ARGV[1])
  next unless IO.select([server], nil, nil, 0.1)
  client = server.accept
  Thread.new { answer(client, viewer) }
end
