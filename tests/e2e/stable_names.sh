# Names the same in every run: a singleton method of an object and a
# method of an anonymous class are named without the receiver's address
# ("#<Array>.crunch"), so that two runs diff method by method.
. "$(dirname "$0")/lib.sh"

cat >prog.rb <<'RUBY'
require "cpu_burn"
list = []
def list.crunch = burn_cpu(0.3)
anon = Class.new { def spin = burn_cpu(0.3) }
list.crunch
anon.new.spin
RUBY

for run in 1 2; do
    profiled "$WORK/s$run" "$RUBY" prog.rb
    "$ANALYZE" convert --collapsed "$WORK/s$run" | sed 's/ [0-9]*$//' | tr ';' '\n' | sort -u >"names$run.txt"
done
grep -q '0x' names1.txt && fail "names with addresses: $(grep '0x' names1.txt | tr '\n' ' ')"
grep -qx '#<Array>.crunch' names1.txt || fail "no '#<Array>.crunch' among: $(tr '\n' ' ' <names1.txt)"
grep -q '^#<Class>#spin$' names1.txt || fail "no '#<Class>#spin' among: $(tr '\n' ' ' <names1.txt)"
grep -E 'crunch|spin' names1.txt >anon1.txt
grep -E 'crunch|spin' names2.txt >anon2.txt
cmp -s anon1.txt anon2.txt || fail "two runs name the anonymous receivers differently: $(diff anon1.txt anon2.txt | tr '\n' ' ')"
note "the same in both runs: $(tr '\n' ' ' <anon1.txt)"
