# The program's own signals: traps for USR1/USR2/TERM, kill to self, a
# thread with every signal blocked (through a child that blocks them).
received = []
Signal.trap("USR1") { received << :usr1 }
Signal.trap("USR2") { received << :usr2 }
Signal.trap("TERM") { received << :term }
3.times do
  Process.kill(:USR1, Process.pid)
  Process.kill(:USR2, Process.pid)
  sleep 0.01
end
Process.kill(:TERM, Process.pid)
sleep 0.05
puts "received: #{received.tally.sort.to_h}"
# A child shell that blocks every signal it can, then is told to stop.
r, w = IO.pipe
pid = spawn("sh", "-c", "trap '' HUP INT QUIT USR1 USR2 TERM; echo ready; read x", in: r, out: :out)
sleep 0.1
w.puts "go"
w.close
Process.wait(pid)
puts "blocked child exited #{$?.exitstatus}"
old = Signal.trap("INT", "IGNORE")
Process.kill(:INT, Process.pid)
sleep 0.01
Signal.trap("INT", old)
puts "ignored INT"
