#!/bin/bash
# 1,000 event streams of /endpoints?stream=1 held by one client process (tests/tools/streamload),
# each from its own loopback address, on the head's defaults for a job of 1,001 nodes: every stream
# gets every event (the not-ready one and the ready one of each of two master deaths), none ends.
# No timing is asserted (tests/bench/streams.sh measures).
. "$(dirname "$0")/lib.sh"
N=1000
LOAD=$top_builddir/tests/tools/streamload
ulimit -n "$(ulimit -Hn)"
[ "$(ulimit -n)" -ge $((N + 512)) ] || fail "the open-file limit $(ulimit -n) cannot hold $N streams"
new_ports
write_config h '"restart": { "backoff_initial_ms": 200, "backoff_max_ms": 200 }'
sed -i "s/\"nodes\": \"localhost\", \"node\": \"localhost\"/\"nodes\": \"localhost,f[1-$N]\", \"node\": \"localhost\"/" "$T/h.json"
start_sidecar h
wait_for 20 notified 'READY=1' || fail "not ready"
"$LOAD" client "$SIDE" "$N" "/endpoints?stream=1&timeout_ms=600000" >"$T/client" 2>"$T/client.err" &
CL=$!
STARTED+=($CL)
wait_for 60 grep -q '^held' "$T/client" || fail "the client does not hold $N streams: $(tail -2 "$T/client.err")"
pass "$N streams held on the defaults (job.nodes of $((N + 1))), each with the current endpoints as its first event"
# has GEN READY: every stream has that event (a report asked of the client)
has() {
	local before
	before=$(count "$T/client" '^streams held=')
	kill -USR1 "$CL"
	wait_for 5 eval '[ "$(count "$T/client" "^streams held=")" -gt '"$before"' ]' || return 1
	grep "^event gen=$1 ready=$2 " "$T/client" | tail -1 | grep -q " streams=$N "
}
for k in 1 2; do
	G=$("$TESTKIT" json-get "$T/h/endpoints.json" generation)
	kill -KILL "$(master_pid h)"
	wait_for 30 has "$G" 0 || fail "kill $k: $(grep "^event gen=$G ready=0 " "$T/client" | tail -1) of $N streams have generation $G not ready"
	wait_for 30 has "$((G + 1))" 1 || fail "kill $k: $(grep "^event gen=$((G + 1)) ready=1 " "$T/client" | tail -1) of $N streams have generation $((G + 1)) ready"
	pass "kill -9 $k: all $N streams got generation $G not ready, then $((G + 1)) ready"
done
grep "^streams held=" "$T/client" | tail -1 | grep -q "held=$N ended=0" || fail "streams ended: $(grep '^streams' "$T/client" | tail -1)"
pass "no stream ended: $(grep '^streams' "$T/client" | tail -1)"
finish
