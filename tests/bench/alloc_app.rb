# Allocation benchmark workload (scripts/bench alloc): request-like work
# whose cost is mostly allocation — a small Hash turned into JSON and back,
# strings built from it — as a web app's serialisation does.
require "json"

def handle(i)
  payload = { "id" => i, "name" => "user#{i}", "tags" => %w[admin staff], "score" => i * 1.5 }
  back = JSON.parse(JSON.generate(payload))
  "#{back["name"].upcase}:#{back["tags"].join(",")}"
end

Integer(ARGV.fetch(0, 100_000)).times { |i| handle(i) }
