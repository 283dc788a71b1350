# frozen_string_literal: true

# app.ru — the Rack application the Puma tests serve: /cpu burns 20 ms of
# CPU, /sleep sleeps 20 ms, anything else is a 404. Under the agent every
# request goes through Rperf::RackMiddleware (rperf-analyze requests);
# without it the application is the same, unwrapped.
require "cpu_burn"
require "puma_trap_safe" # tests/e2e/servers, on RUBYLIB
begin
  require "rperf/rack" # the agent's: first on the load path when it is preloaded
  use Rperf::RackMiddleware
rescue LoadError
  nil # no agent in this process
end

run(proc do |env|
  case env["PATH_INFO"]
  when "/cpu" then burn_cpu(0.02); [200, { "content-type" => "text/plain" }, ["burned\n"]]
  when "/sleep" then sleep(0.02); [200, { "content-type" => "text/plain" }, ["slept\n"]]
  else [404, { "content-type" => "text/plain" }, ["not here\n"]]
  end
end)
