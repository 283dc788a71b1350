# frozen_string_literal: true

# rails_app.ru — a small real Rails application (railties, actionpack,
# activerecord on SQLite) for tests/e2e/rails.sh, served by Puma:
#   GET /posts/:slug  one post from the database, by its slug
#   GET /search/:term the slugs that end as the term does (any term: as
#                     many URLs as clients make up; scripts/bench soak)
#   GET /cpu          burns 20 ms of CPU       GET /slow  sleeps 50 ms
#                     (RAILS_SLOW_SLEEP=0.065: that long instead, a slower
#                     version of the application for diffs)
#   GET /rails_times  what Rails' own instrumentation measured, a line per
#                     request: "Controller#action MS" (process_action)
# DATABASE_URL names the SQLite file; the table is made and filled at boot.
# Under the agent every request goes through Rperf::RackMiddleware.
require "cpu_burn"
require "puma_trap_safe" # tests/e2e/servers, on RUBYLIB
require "rails"
require "action_controller/railtie"
require "active_record/railtie"

class RperfTestApp < Rails::Application
  config.root = __dir__
  config.eager_load = false
  config.logger = Logger.new(nil)
  config.secret_key_base = "0" * 64
  config.hosts.clear
  config.active_record.maintain_test_schema = false
end
RperfTestApp.initialize!

ActiveRecord::Schema.verbose = false
ActiveRecord::Schema.define do
  create_table :posts, force: true do |t|
    t.string :slug, index: { unique: true }
    t.text :body
  end
end
class Post < ActiveRecord::Base; end
Post.insert_all(Array.new(300) { |i| { slug: "post-number-#{i}-about-things", body: "body #{i}" } })

RAILS_TIMES = Queue.new
ActiveSupport::Notifications.subscribe("process_action.action_controller") do |event|
  RAILS_TIMES << format("%s#%s %.3f", event.payload[:controller], event.payload[:action], event.duration)
end

class PostsController < ActionController::API
  def show
    post = Post.find_by!(slug: params[:slug])
    render plain: "#{post.body}\n"
  end

  def search
    slugs = Post.where("slug LIKE ?", "%#{params[:term][-1]}%").limit(3).pluck(:slug)
    render plain: "#{slugs.size}\n"
  end
end

SLOW_SLEEP = Float(ENV.fetch("RAILS_SLOW_SLEEP", "0.05"))

class WorkController < ActionController::API
  def cpu
    burn_cpu(0.02)
    render plain: "burned\n"
  end

  def slow
    sleep(SLOW_SLEEP)
    render plain: "slept\n"
  end

  def rails_times
    lines = []
    lines << RAILS_TIMES.pop until RAILS_TIMES.empty?
    render plain: lines.map { |l| "#{l}\n" }.join
  end
end

RperfTestApp.routes.draw do
  get "/posts/:slug", to: "posts#show"
  get "/search/:term", to: "posts#search"
  get "/cpu", to: "work#cpu"
  get "/slow", to: "work#slow"
  get "/rails_times", to: "work#rails_times"
end

begin
  require "rperf/rack" # the agent's: first on the load path when it is preloaded
  use Rperf::RackMiddleware
rescue LoadError
  nil # no agent in this process
end
run RperfTestApp
