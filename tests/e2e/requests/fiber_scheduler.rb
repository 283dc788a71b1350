# A small fiber scheduler (Fiber.set_scheduler) for the fiber-per-request
# server of tests/e2e/requests/server.rb, as Falcon's (the async gem's)
# works: every blocking call of a non-blocking fiber (reading a socket,
# sleep, a contended Mutex) suspends it and the event loop, on the
# thread's root fiber, resumes whichever is ready, waiting in IO.select
# when none is. Standard library only.
class TinyScheduler
  def initialize
    @readable = {} # io => fiber
    @writable = {}
    @timers = []   # [monotonic deadline, fiber]
    @ready = []    # fibers to resume (unblocked)
    @lock = Thread::Mutex.new
  end

  def fiber(&block)
    fiber = Fiber.new(blocking: false, &block)
    fiber.resume
    fiber
  end

  def io_wait(io, events, timeout)
    @readable[io] = Fiber.current if events.anybits?(IO::READABLE)
    @writable[io] = Fiber.current if events.anybits?(IO::WRITABLE)
    add_timer(timeout) if timeout
    Fiber.yield
    events
  ensure
    @readable.delete(io)
    @writable.delete(io)
  end

  def kernel_sleep(duration = nil)
    add_timer(duration) if duration
    Fiber.yield
  end

  def block(_blocker, timeout = nil)
    add_timer(timeout) if timeout
    Fiber.yield
  end

  def unblock(_blocker, fiber)
    @lock.synchronize { @ready << fiber }
  end

  def close
    run
  end

  def fiber_interrupt(fiber, exception)
    fiber.raise(exception)
  end

  # The event loop: until no fiber waits for anything.
  def run
    until @readable.empty? && @writable.empty? && @timers.empty? && @ready.empty?
      resume_ready
      resume_expired
      next if @readable.empty? && @writable.empty?

      readable, writable = IO.select(@readable.keys, @writable.keys, nil, next_timeout)
      readable&.each { |io| resume(@readable[io]) }
      writable&.each { |io| resume(@writable[io]) }
    end
  end

  private

  def now = Process.clock_gettime(Process::CLOCK_MONOTONIC)

  def add_timer(seconds)
    @timers << [now + seconds, Fiber.current]
    @timers.sort_by!(&:first)
  end

  def next_timeout
    return nil if @timers.empty?

    [@timers.first.first - now, 0].max
  end

  def resume_ready
    ready = @lock.synchronize { @ready.slice!(0..) }
    ready.each { |fiber| resume(fiber) }
  end

  def resume_expired
    while (timer = @timers.first) && timer.first <= now
      @timers.shift
      resume(timer.last)
    end
  end

  # A fiber woken by an event or timer it no longer waits for (it was
  # woken by another first) is not resumed twice.
  def resume(fiber)
    return unless fiber&.alive?

    @timers.reject! { |(_, f)| f.equal?(fiber) }
    fiber.resume
  end
end
