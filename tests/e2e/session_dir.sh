# Unsafe or unusable session directories: one line naming the problem, no
# profile written there, the program's output and status unchanged.
. "$(dirname "$0")/lib.sh"

expect_refused() {
    local what=$1 dir=$2 needle=$3 rc=0
    LD_PRELOAD="$PRELOAD" RPERF_SESSION_DIR="$dir" "$RUBY" -e 'puts "out"; exit 4' >out.txt 2>err.txt || rc=$?
    [ "$rc" = 4 ] || fail "$what: exit status $rc"
    [ "$(cat out.txt)" = out ] || fail "$what: stdout changed"
    [ "$(wc -l <err.txt)" = 1 ] || fail "$what: expected one line, got: $(cat err.txt)"
    grep -q "^rperf: cannot use session directory .*$needle" err.txt || fail "$what: $(cat err.txt)"
    note "$what: $(cat err.txt)"
}

mkdir real && ln -s real link
expect_refused symlink "$WORK/link" "symbolic link"
[ -z "$(ls real)" ] || fail "wrote through the symlink"
mkdir -m 0777 open && chmod 0777 open
expect_refused world-writable "$WORK/open" "writable by group or others"
[ -z "$(ls open)" ] || fail "wrote into the world-writable directory"
if [ "$(id -u)" = 0 ]; then
    mkdir theirs && chown nobody theirs
    expect_refused not-owned "$WORK/theirs" "owned by another user"
fi
: >plainfile
expect_refused not-a-directory "$WORK/plainfile" "not a directory"
expect_refused missing-parent "$WORK/no/such/dir" "No such file or directory"
mkdir ro && chmod 0500 ro
if [ "$(id -u)" != 0 ]; then
    expect_refused unwritable "$WORK/ro/s" "Permission denied"
fi

# The directory disappears while the program runs: one line at exit.
rc=0
LD_PRELOAD="$PRELOAD" RPERF_SESSION_DIR="$WORK/gone" "$RUBY" -e 'Dir.rmdir(ENV["RPERF_SESSION_DIR"]); puts "out"; exit 2' \
    >out.txt 2>err.txt || rc=$?
[ "$rc" = 2 ] && [ "$(cat out.txt)" = out ] || fail "deleted directory: status $rc, out $(cat out.txt)"
grep -q "^rperf: cannot write profile to .*gone: No such file or directory" err.txt || fail "deleted directory: $(cat err.txt)"
note "deleted directory: $(cat err.txt)"

# A full disk: a tiny tmpfs. As root it is mounted here; otherwise in a
# user and mount namespace of our own (unshare -rm) where the kernel
# allows one; where neither works the case cannot run, and says so.
cat >full_disk.sh <<'SH'
set -eu
mkdir full
mount -t tmpfs -o size=12k tmpfs full
mkdir -m 0700 full/s
cat /dev/zero >full/filler 2>/dev/null || true
rc=0
LD_PRELOAD="$PRELOAD" RPERF_SESSION_DIR="$PWD/full/s" "$RUBY" -e '200_000.times.sum; puts "out"' >out.txt 2>err.txt || rc=$?
ls full/s >left.txt
umount full
exit "$rc"
SH
export PRELOAD RUBY
runner=()
[ "$(id -u)" = 0 ] || runner=(unshare -rm)
if "${runner[@]}" true 2>/dev/null && mkdir probe && "${runner[@]}" mount -t tmpfs tmpfs probe 2>/dev/null; then
    [ "$(id -u)" = 0 ] && umount probe
    rc=0
    "${runner[@]}" sh full_disk.sh || rc=$?
    [ "$rc" = 0 ] && [ "$(cat out.txt)" = out ] || fail "full disk: status $rc"
    grep -q "^rperf: cannot write profile .*No space left on device" err.txt || fail "full disk: $(cat err.txt)"
    [ ! -s left.txt ] || fail "full disk: left $(cat left.txt)"
    note "full disk: $(cat err.txt)"
else
    note "full disk: NOT RUN — cannot mount a tmpfs here (not root, and unshare -rm is refused)"
fi
