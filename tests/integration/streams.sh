#!/bin/bash
# 1,000 event streams of /endpoints?stream=1 held by one client process (tests/tools/streamload),
# each from its own loopback address, on the head's defaults for a job of 1,001 nodes: every stream
# gets every event (the not-ready one and the ready one of each of two master deaths), none ends.
# Then 1,000 more of /gangs?stream=1 beside them, from a second client: the head leads a TP 2 gang
# over it and f1, and each of two deaths of its rank (a new generation) reaches every stream.
# No timing is asserted (tests/bench/streams.sh measures).
. "$(dirname "$0")/lib.sh"
N=1000
LOAD=$top_builddir/tests/tools/streamload
ulimit -n "$(ulimit -Hn)"
[ "$(ulimit -n)" -ge $((2 * N + 512)) ] || fail "the open-file limit $(ulimit -n) cannot hold $((2 * N)) streams"
new_ports
routable_iface
# a gang of the head's rank and f1's (f1 never asks: peer_timeout_ms keeps it from being lost here)
write_config h '"restart": { "backoff_initial_ms": 200, "backoff_max_ms": 200 }' '"workers": { "flavor": "vllm",
    "dp_launch_mode": "per_node", "peer_timeout_ms": 600000, "restart": { "backoff_initial_ms": 50, "burst": 100 },
    "groups": [ { "role": "agg", "count": 1, "gpus": 2, "tp": 2, "health": { "type": "none" },
                  "command": ["'"$top_srcdir"'/tests/tools/fake-worker", "serve", "/model", "--port", "{http_port}"] } ] }'
sed -i "s/\"nodes\": \"localhost\", \"node\": \"localhost\"/\"nodes\": \"localhost,f[1-$N]\", \"node\": \"localhost\", \"gpus_per_node\": 1, \"network_interface\": \"$IFACE\"/" "$T/h.json"
mkdir -p "$T/w"
FAKE_WORKER_DIR=$T/w start_sidecar h
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

"$LOAD" client "$SIDE" "$N" "/gangs?stream=1&timeout_ms=600000" >"$T/gclient" 2>"$T/gclient.err" &
GC=$!
STARTED+=($GC)
wait_for 60 grep -q '^held' "$T/gclient" || fail "the client does not hold $N /gangs streams: $(tail -2 "$T/gclient.err")"
# ghas GEN: every /gangs stream has an event of that generation
ghas() {
	local before
	before=$(count "$T/gclient" '^streams held=')
	kill -USR1 "$GC"
	wait_for 5 eval '[ "$(count "$T/gclient" "^streams held=")" -gt '"$before"' ]' || return 1
	grep "^event gen=$1 ready=-1 " "$T/gclient" | tail -1 | grep -q " streams=$N "
}
rank() { cat "$T/w/worker-7500.pid" 2>/dev/null; }
wait_for 20 eval '[ -n "$(rank)" ]' || fail "the head's rank did not start: $(grep -h 'agg_w0' "$SC_OUT" | tail -3)"
for g in 2 3; do
	P=$(rank)
	kill -KILL "$P"
	wait_for 30 ghas "$g" || fail "rank kill: $(grep "^event gen=$g " "$T/gclient" | tail -1) of $N /gangs streams have generation $g"
	wait_for 10 eval '[ -n "$(rank)" ] && [ "$(rank)" != '"$P"' ]' || fail "the rank was not restarted"
done
grep "^streams held=" "$T/gclient" | tail -1 | grep -q "held=$N ended=0" || fail "/gangs streams ended: $(grep '^streams' "$T/gclient" | tail -1)"
pass "$N /gangs streams beside them: each of two deaths of the gang's rank (generations 2 and 3) reached every one, none ended"
finish
