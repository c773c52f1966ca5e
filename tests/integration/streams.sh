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
# client NAME PATH: a streamload client holding N streams of PATH, its report in $T/NAME; CL its pid
client() {
	"$LOAD" client "$SIDE" "$N" "$2" >"$T/$1" 2>"$T/$1.err" &
	CL=$!
	STARTED+=($CL)
	wait_for 60 grep -q '^held' "$T/$1" || fail "the client does not hold $N streams of $2: $(tail -2 "$T/$1.err")"
}
# has NAME PID GEN READY: every stream of that client has that event (a report asked of it)
has() {
	local f=$T/$1 before
	before=$(count "$f" '^streams held=')
	kill -USR1 "$2"
	wait_for 5 eval '[ "$(count "'"$f"'" "^streams held=")" -gt '"$before"' ]' || return 1
	grep "^event gen=$3 ready=$4 " "$f" | tail -1 | grep -q " streams=$N "
}
# none_ended NAME: the client's last report holds every stream, none ended
none_ended() { grep "^streams held=" "$T/$1" | tail -1 | grep -q "held=$N ended=0"; }
client eclient "/endpoints?stream=1&timeout_ms=600000"
EP=$CL
pass "$N streams held on the defaults (job.nodes of $((N + 1))), each with the current endpoints as its first event"
for k in 1 2; do
	G=$("$TESTKIT" json-get "$T/h/endpoints.json" generation)
	kill -KILL "$(master_pid h)"
	wait_for 30 has eclient "$EP" "$G" 0 || fail "kill $k: $(grep "^event gen=$G ready=0 " "$T/eclient" | tail -1) of $N streams have generation $G not ready"
	wait_for 30 has eclient "$EP" "$((G + 1))" 1 || fail "kill $k: $(grep "^event gen=$((G + 1)) ready=1 " "$T/eclient" | tail -1) of $N streams have generation $((G + 1)) ready"
	pass "kill -9 $k: all $N streams got generation $G not ready, then $((G + 1)) ready"
done
none_ended eclient || fail "streams ended: $(grep '^streams' "$T/eclient" | tail -1)"
pass "no stream ended: $(grep '^streams' "$T/eclient" | tail -1)"

client gclient "/gangs?stream=1&timeout_ms=600000"
GC=$CL
rank() { cat "$T/w/worker-7500.pid" 2>/dev/null; }
wait_for 20 eval '[ -n "$(rank)" ]' || fail "the head's rank did not start: $(grep -h 'agg_w0' "$SC_OUT" | tail -3)"
for g in 2 3; do
	P=$(rank)
	kill -KILL "$P"
	wait_for 30 has gclient "$GC" "$g" -1 || fail "rank kill: $(grep "^event gen=$g " "$T/gclient" | tail -1) of $N /gangs streams have generation $g"
	wait_for 10 eval '[ -n "$(rank)" ] && [ "$(rank)" != '"$P"' ]' || fail "the rank was not restarted"
done
none_ended gclient || fail "/gangs streams ended: $(grep '^streams' "$T/gclient" | tail -1)"
pass "$N /gangs streams beside them: each of two deaths of the gang's rank (generations 2 and 3) reached every one, none ended"
finish
