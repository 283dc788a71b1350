# tests/e2e/api/stand_in/active_support/concern.rb — a stand-in for
# ActiveSupport::Concern's `included do ... end`, just enough to load
# rperf/active_job without Rails in the tests (middleware.rb). Not Rails.
module ActiveSupport
  module Concern
    def included(base = nil, &block)
      return @_included_block = block if block

      super
      base.class_eval(&@_included_block) if @_included_block
    end
  end
end
