#!/bin/bash
# job.user: a sidecar started as root outside systemd becomes that user once its admin port is
# bound, before it writes or starts anything: the sidecar, the master and the workers all run as
# it, and the run directory and the files in it are its own. An unknown user is a -n error.
. "$(dirname "$0")/lib.sh"
if [ "$(id -u)" != 0 ]; then
	echo "$TEST_NAME: SKIPPED: needs root (it checks that root becomes job.user)"
	[ "${CI:-}" = true ] && fail "CI runs as root"
	exit 77
fi
U=nobody
UID_=$(id -u "$U") || fail "no user $U here"
GID_=$(id -g "$U")
chmod 1777 "$T"	# the user reaches its run directory, and the stand-in its events file
new_ports
write_config bad '"address": "127.0.0.1"'
sed -i 's|"job": {|"job": { "user": "no-such-user-42",|' "$T/bad.json"
OUT=$("$SIDECAR" -c "$T/bad.json" -n 2>&1); RC=$?
[ "$RC" -eq 78 ] && grep -q 'job.user: no user "no-such-user-42" on this node' <<<"$OUT" || fail "-n: $RC $OUT"
pass "-n: an unknown job.user is an error naming the key, exit 78"

FAKE=$top_srcdir/tests/tools/fake-worker
write_config u '"address": "127.0.0.1"' '"workers": { "flavor": "generic", "groups": [ { "role": "agg",
    "count": 1, "gpus": 1, "health": { "type": "none" }, "command": ["'"$FAKE"'"] } ] }'
sed -i 's|"job": {|"job": { "user": "'"$U"'", "gpus_per_node": 1,|' "$T/u.json"
FAKE_WORKER_DIR=$T/u start_sidecar u
ready() { [ "$(adm /readyz)" = ready ]; }
wait_for 10 ready || fail "never ready: $(tail -5 "$SC_OUT")"
wpid() { cat "$T/u/worker-"*.pid 2>/dev/null | head -1; }
has_worker() { [ -n "$(wpid)" ]; }
wait_for 10 has_worker || fail "the worker did not start: $(tail -5 "$SC_OUT")"
uids() { awk '/^Uid:/ {print $2, $3, $4, $5} /^Gid:/ {print $2, $3, $4, $5}' "/proc/$1/status" | tr '\n' ' '; }
WANT="$UID_ $UID_ $UID_ $UID_ $GID_ $GID_ $GID_ $GID_ "
for p in "$SC_PID" "$(master_pid u)" "$(wpid)"; do
	[ "$(uids "$p")" = "$WANT" ] || fail "pid $p runs as $(uids "$p"), not $U ($WANT)"
done
[ "$(stat -c %u "$T/u")" = "$UID_" ] && [ "$(stat -c %u "$T/u/endpoints.json")" = "$UID_" ] ||
    fail "run dir or endpoints.json not owned by $U: $(ls -ln "$T/u" | head -5)"
grep_q "$SC_OUT" "running as $U (uid $UID_, gid $GID_) from here on" || fail "no notice: $(head -12 "$SC_OUT")"
grep_q "$SC_OUT" "running as root outside systemd" && fail "warned about root although job.user is set"
pass "job.user $U: the sidecar, the master and the worker run as uid/gid $UID_/$GID_; the run dir and endpoints.json are its"
finish
