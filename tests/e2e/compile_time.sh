# Compiling code is charged to the method that compiles it, not to
# Integer#-@: Prism's compiler calls Integer#-@ for every negative integer
# literal, and a tick that arrived during compilation used to be served at
# the return of that call. This program never negates anything; it
# requires a file full of negative literals, and its profile must not
# contain Integer#-@ (before the fix it held most of the compile time).
. "$(dirname "$0")/lib.sh"

"$RUBY" -e 'File.open("literals.rb", "w") { |f| 4000.times { |i| f.puts "L#{i} = [#{(1..40).map { |j| -j * i }.join(", ")}]" } }'
cat >prog.rb <<'RUBY'
require_relative "literals"
puts L1.size
RUBY
profiled "$WORK/s" "$RUBY" prog.rb >/dev/null
profile=$(only_profile "$WORK/s")
uminus=$(check weight "$profile" "Integer#-@")
require_time=$(check weight "$profile" "Kernel#require_relative")
note "Integer#-@: $uminus ns; Kernel#require_relative: $((require_time / 1000000)) ms"
[ "$uminus" = 0 ] || fail "Integer#-@ holds $uminus ns in a program without unary minus"
at_least "$require_time" 20000000 || fail "require_relative of a large file holds only $require_time ns"
