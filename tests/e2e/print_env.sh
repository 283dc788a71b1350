# rperf record --print-env: the agent's environment as `export` lines for a
# shell to eval, nothing run; the command a wrapper then runs unchanged is
# profiled (its children too) into the session directory named, which the
# analyzer reads; a path with a quote survives the shell; a command or a
# file name for -o is refused.
. "$(dirname "$0")/lib.sh"
RPERF="$RPERF_TEST_RPERF"

cat >app.rb <<'RUBY'
require "cpu_burn"
def parent_work = burn_cpu(0.2)
def child_work = burn_cpu(0.2)
pid = fork { child_work }
parent_work
Process.wait(pid)
RUBY
dir="$PWD/it's here"
"$RPERF" record --print-env -m wall -o "$dir" >env.sh 2>err.txt || fail "--print-env: $(cat err.txt)"
grep -q "^export RPERF_MODE='wall'$" env.sh || fail "no RPERF_MODE: $(cat env.sh)"
grep -q "^export LD_PRELOAD=" env.sh || fail "no LD_PRELOAD: $(cat env.sh)"
[ ! -e "$dir" ] || fail "--print-env made the directory or ran something"
# what a CI wrapper does: source it, run the command verbatim
bash -c '. ./env.sh && exec "$0" app.rb' "$RUBY" >out.txt 2>err.txt || fail "app.rb under the printed env: $(cat err.txt)"
files=("$dir"/profile-*.json.gz)
[ "${#files[@]}" -eq 2 ] || fail "expected the parent's and the child's profiles in $dir: $(ls -A "$dir" 2>&1)"
grep -q "2 profiles in $dir" err.txt || fail "the root did not say where its session is: $(cat err.txt)"
"$ANALYZE" report "$dir" >report.txt || fail "report of the session"
grep -q "Object#parent_work" report.txt && grep -q "Object#child_work" report.txt \
    || fail "parent and child not both in the session: $(cat report.txt)"
grep -q "^Total: .*(wall)" report.txt || fail "not recorded in wall mode: $(head -1 report.txt)"

"$RPERF" record --print-env -o out.json.gz >/dev/null 2>err.txt && fail "-o out.json.gz was taken"
grep -q "with --print-env, -o names the session directory the profiles go to, not one file: got 'out.json.gz'" err.txt \
    || fail "-o file: $(cat err.txt)"
"$RPERF" record --print-env "$RUBY" app.rb >/dev/null 2>err.txt && fail "a command was taken with --print-env"
grep -q "print-env runs no command" err.txt || fail "command: $(cat err.txt)"
"$RPERF" stat --print-env >/dev/null 2>err.txt && fail "stat --print-env was taken"
grep -q "stat: --print-env belongs to record" err.txt || fail "stat: $(cat err.txt)"
note "--print-env: $(wc -l <env.sh) lines; the session of parent and child read back"
