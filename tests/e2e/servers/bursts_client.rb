# frozen_string_literal: true

# bursts_client.rb PORT THREADS REQUESTS — THREADS concurrent clients,
# each sending REQUESTS requests over one keep-alive connection; prints
# how many were answered 200.
require "net/http"

port, threads, requests = ARGV.map { |a| Integer(a) }
ok = Array.new(threads) do
  Thread.new do
    Net::HTTP.start("127.0.0.1", port) { |http| requests.times.count { http.get("/").code == "200" } }
  end
end.sum(&:value)
puts ok
