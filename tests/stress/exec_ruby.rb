# exec into another Ruby program (which execs into a non-Ruby one).
50_000.times.sum
exec(RbConfig.ruby, "-e", 'puts "exec: ruby"; $stdout.flush; exec("sh", "-c", "echo exec: sh; exit 4")')
