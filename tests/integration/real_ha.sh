#!/bin/bash
# Real HA: a redis-server started here on loopback, two sidecars each supervising a real
# mooncake_master with master.ha (the Redis backend, one shared snapshot directory), and Mooncake's own
# store client reading nothing but one sidecar's files (the redis:// entry). Shown: one leader serves
# and the other is a healthy standby (neither restarted, both nodes ready); three kill -9s of the
# leader, each with the time to the other serving and to the client storing again, the keys stored
# before each kill found or not, the other master a standby again, no wrong restart, the leader's
# snapshots as /status counts them against its log; redis-server killed and started again (what the
# masters and the sidecars then do).
# Skipped, saying why, without the Redis-enabled build or redis-server; under CI=true a failure.
. "$(dirname "$0")/lib.sh"
need_real_master
need_real_client
REDIS=$(command -v redis-server || true)
if [ -z "$REDIS" ]; then
	[ "${CI:-}" = true ] && fail "no redis-server in CI (scripts/deps.sh installs it)"
	echo "real_ha: SKIPPED: no redis-server (apt-get install redis-server)"
	exit 77
fi
if ! "$REAL" --helpxml 2>/dev/null | grep -q '<name>ha_backend_connstring</name>'; then
	[ "${CI:-}" = true ] && fail "the real master has no HA flags: $REAL"
	echo "real_ha: SKIPPED: $REAL has no --ha_backend_connstring (scripts/real-master.sh builds one with Redis)"
	exit 77
fi
STORE='"global_segment_size": "64MB", "local_buffer_size": "16MB", "protocol": "tcp", "device_name": ""'
SNAP=$T/snapshots
mkdir -p "$SNAP"

RPORT=$("$TESTKIT" freeports 1)
start_redis() {
	"$REDIS" --port "$RPORT" --bind 127.0.0.1 --save '' --appendonly no >"$T/redis.out" 2>&1 &
	REDIS_PID=$!
	STARTED+=($REDIS_PID)
	wait_for 10 accepts "$RPORT" || fail "redis-server did not start: $(tail -3 "$T/redis.out")"
}
start_redis

# ha NAME: a sidecar on a real HA master on the Redis backend
ha() {
	ha_sidecar "$1" "$REAL" '{ "backend": "redis://127.0.0.1:'"$RPORT"'", "snapshot_dir": "'"$SNAP"'" }' \
	    '"metadata_server": "P2PHANDSHAKE", '"$STORE" --http_metadata_server_host=127.0.0.1
}
st() { curl -s "http://127.0.0.1:$1/status"; }
phase() { st "$1" | "$TESTKIT" json-get /dev/stdin master.ha.phase 2>/dev/null; }
restarts() { st "$1" | "$TESTKIT" json-get /dev/stdin master.restarts 2>/dev/null; }
ready_code() { curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$1/readyz"; }
serving_side() {	# the admin port of the sidecar whose master serves, or nothing
	local s
	for s in "$SIDE_a" "$SIDE_b"; do [ "$(phase "$s")" = serving ] && echo "$s"; done
}

ha a
wait_for 30 is serving phase "$SIDE_a" || fail "a never served: $(st "$SIDE_a"; tail -5 "$T/a/mooncake_master.log")"
T_A=$(now_ms)
ha b
wait_for 30 is standby phase "$SIDE_b" || fail "b is not a standby: $(st "$SIDE_b")"
wait_for 10 is 200 ready_code "$SIDE_b" || fail "b (standby of a serving leader) not ready: $(curl -s "http://127.0.0.1:$SIDE_b/readyz")"
[ "$(restarts "$SIDE_a")" = 0 ] && [ "$(restarts "$SIDE_b")" = 0 ] || fail "a restart while starting: $(st "$SIDE_a") $(st "$SIDE_b")"
for n in a b; do
	grep -qxF "MOONCAKE_MASTER=\"redis://127.0.0.1:$RPORT\"" "$T/$n/mooncake.env" &&
	    [ "$("$TESTKIT" json-get "$T/$n/mooncake_store_config.json" master_server_address)" = "redis://127.0.0.1:$RPORT" ] ||
	    fail "$n's files do not give clients the redis:// entry: $(grep MOONCAKE_MASTER "$T/$n/mooncake.env")"
done
pass "a serves, b is its standby: both nodes ready (b: $(curl -s "http://127.0.0.1:$SIDE_b/readyz")), no restart, both sets of files give clients redis://127.0.0.1:$RPORT"

# A client that keeps storing, set up from b's files alone; it finds the leader through Redis itself.
bg() {
	env "$CLIENT_LIB" "$CLIENT_PATH" "$CLIENT" "$2" "${@:3}" >"$T/$1.out" 2>"$T/$1.err" &
	BG=$!
	STARTED+=($BG)
}
ok_puts() { count "$1" '^put .* ok rc=0$'; }
puts_at_least() { [ "$(ok_puts "$2")" -ge "$1" ]; }
bg loop "$T/b" --loop 50 --keep --prefix loop
LOOP=$BG
wait_for 30 puts_at_least 3 "$T/loop.out" || fail "the looping client stores nothing: $(tail -3 "$T/loop.out"; grep -v '^I' "$T/loop.err" | tail -3)"
# t= of the first failed put after T, and of the first good one after that failure
first_after() { awk -v t="$2" -v want="$1" '/^put / { for (i = 1; i <= NF; i++) if ($i ~ /^t=/) { v = substr($i, 3) + 0 }
    if (v > t && ($0 ~ / ok rc=0$/) == (want == "ok")) { printf "%.0f\n", v; exit } }' "$T/loop.out"; }
stores_again() { local e; e=$(first_after error "$1"); [ -n "$e" ] && [ -n "$(first_after ok "$e")" ]; }
SNAP_OK='successfully persisted state, snapshot_id=.*child_pid' SNAP_FAILED='\[Snapshot\] Child process exited with error code'
snapshots() { echo $(( $(count "$T/$1/mooncake_master.log" "$SNAP_OK") + $(count "$T/$1/mooncake_master.log" "$SNAP_FAILED") )); }
snap_get() { st "$1" | "$TESTKIT" json-get /dev/stdin "master.ha.snapshots.$2"; }
# /status and /metrics count what the master's log says (every master that sidecar started)
snap_seen() {
	local okn badn
	okn=$(count "$T/$2/mooncake_master.log" "$SNAP_OK") badn=$(count "$T/$2/mooncake_master.log" "$SNAP_FAILED")
	wait_for 5 eval '[ "$(snap_get '"$1"' persisted)" = '"$okn"' ] && [ "$(snap_get '"$1"' failed)" = '"$badn"' ]' &&
	    curl -s "http://127.0.0.1:$1/metrics" | grep -qx "mooncake_sidecar_master_ha_snapshots_total{outcome=\"failed\"} $badn" &&
	    { [ "$(snap_get "$1" failing_for)" = 0 ] || [ -n "$(snap_get "$1" last_error)" ]; }
}
snap_word() {
	if [ "$(snap_get "$1" failing_for)" = 0 ]; then echo "persisted"; else echo "failing ($(snap_get "$1" failing_for) in a row: $(snap_get "$1" last_error | cut -c1-120))"; fi
}
glog_ms() {	# the wall time in ms of the last line of FILE matching PATTERN (glog: I1206 04:20:01.123456)
	grep "$2" "$1" | tail -1 | awk '{ print $2 }' | { read -r t; date -d "$(date +%F) $t" +%s%3N; }
}
SERVE_MS=() STORE_MS=() KEPT=() OVERHEAD=() WON=() SNAPS=()
for k in 1 2 3; do
	L=$(serving_side)
	[ -n "$L" ] || fail "kill $k: no master serves: $(st "$SIDE_a") $(st "$SIDE_b")"
	if [ "$L" = "$SIDE_a" ]; then Ln=a Fn=b F=$SIDE_b; else Ln=b Fn=a F=$SIDE_a; fi
	# keys stored before the kill by a client that stays (a value lives in its client's segment)
	bg pre$k "$T/$Fn" --ops 4 --keep --stay --prefix pre$k
	PRE=$BG
	wait_for 30 puts_at_least 4 "$T/pre$k.out" || fail "kill $k: the keys before it were not stored: $(tail -3 "$T/pre$k.out")"
	# the leader's next snapshot after the puts, persisted or failed (0.3.12 can fail every one after a
	# promotion: the sidecar says so in /status and /metrics)
	S0=$(snapshots "$Ln")
	wait_for 20 eval '[ "$(snapshots '"$Ln"')" -gt '"$S0"' ]' || fail "kill $k: no snapshot ended after the puts: $(grep -i snapshot "$T/$Ln/mooncake_master.log" | tail -3)"
	snap_seen "$L" "$Ln" || fail "kill $k: /status says of $Ln's snapshots $(st "$L" | "$TESTKIT" json-get /dev/stdin master.ha.snapshots), its log: $(count "$T/$Ln/mooncake_master.log" "$SNAP_OK") persisted, $(count "$T/$Ln/mooncake_master.log" "$SNAP_FAILED") failed"
	SNAPS+=("$(snap_word "$L")")
	LP=$(master_pid "$Ln") FP=$(master_pid "$Fn") FR=$(restarts "$F") LR=$(restarts "$L")
	REL=$(count "$T/sidecar-$Ln.out" 'its leadership released in Redis')
	KILL=$(now_ms)
	kill -KILL "$LP"
	# its sidecar releases the dead leader's lease at once: the standby need not wait 5 s for it to lapse
	wait_for 5 eval '[ "$(count "$T/sidecar-$Ln.out" "its leadership released in Redis")" -gt '"$REL"' ]' &&
	    [ "$(st "$L" | "$TESTKIT" json-get /dev/stdin master.ha.lease_releases.released)" = $((REL + 1)) ] ||
	    fail "kill $k: $Ln's sidecar did not release the lease: $(grep -i 'lease\|Redis' "$T/sidecar-$Ln.out" | tail -3)"
	RELMS=$(sed -n 's/.*its leadership released in Redis \([0-9.]*\) ms after.*/\1/p' "$T/sidecar-$Ln.out" | tail -1)
	# the lease is taken by whichever asks first once it lapses: the standby, or the killed master
	# started again by its sidecar (both restore from the same snapshots)
	gone() { [ "$(phase "$L")" != serving ] || [ "$(master_pid "$Ln")" != "$LP" ]; }
	wait_for 10 gone || fail "kill $k: $Ln still says its master serves: $(st "$L")"
	wait_for 30 eval '[ -n "$(serving_side)" ]' || fail "kill $k: no master serves again: $(st "$F") $(st "$L")"
	SERVED=$(now_ms) W=$(serving_side)
	if [ "$W" = "$F" ]; then Wn=$Fn Sn=$Ln S=$L; else Wn=$Ln Sn=$Fn S=$F; fi
	wait_for 30 stores_again "$KILL" || fail "kill $k: the client does not store again: $(tail -5 "$T/loop.out")"
	STORED=$(first_after ok "$(first_after error "$KILL")")
	wait_for 30 is standby phase "$S" || fail "kill $k: $Sn is not the standby of $Wn: $(st "$S")"
	[ "$(master_pid "$Fn")" = "$FP" ] && [ "$(restarts "$F")" = "$FR" ] || fail "kill $k: $Fn's master was restarted"
	[ "$(restarts "$L")" = $((LR + 1)) ] || fail "kill $k: $Ln's master restarted $(( $(restarts "$L") - LR )) times"
	wait_for 10 is 200 ready_code "$F" && wait_for 10 is 200 ready_code "$L" || fail "kill $k: not both ready again"
	# the client that stored them, still there, reads them again
	R0=$(count "$T/pre$k.out" '^rechecked: ')
	kill -USR2 "$PRE"	# USR1 is the library's own
	wait_for 30 eval '[ "$(count "$T/pre$k.out" "^rechecked: ")" -gt '"$R0"' ]' || fail "kill $k: the client did not read its keys again: $(tail -3 "$T/pre$k.out")"
	found=$(sed -n 's/^rechecked: \([0-9]*\) of .*/\1/p' "$T/pre$k.out" | tail -1)
	kill -TERM "$PRE"
	# the sidecar's own part: from the master's "serving" line (its own clock) to the files written
	OV=$(awk -v w="$(st "$W" | "$TESTKIT" json-get /dev/stdin endpoints.written_at)" -v s="$(glog_ms "$T/$Wn/mooncake_master.log" 'Master runtime state -> serving')" \
	    'BEGIN { printf "%.1f", w * 1000 - s }')
	SERVE_MS+=($((SERVED - KILL))) STORE_MS+=($((STORED - KILL))) KEPT+=("$found/4") OVERHEAD+=("$OV") WON+=("$Wn")
	if [ "$Wn" = "$Fn" ]; then who="the standby $Fn took over, $Ln is back as its standby"; else who="$Ln's master, started again at once, took the lease back before the standby $Fn"; fi
	pass "kill $k of the leader ($Ln, its last snapshot ${SNAPS[-1]}): $who; serving $((SERVED - KILL)) ms after the kill, the client stores again at $((STORED - KILL)) ms; $found of 4 keys stored before it found; no other restart; the lease released by $Ln's sidecar $RELMS ms after the death; $Wn's sidecar: $OV ms from its master's serving to its files ready"
done
echo "   kills: serving again after ${SERVE_MS[*]} ms (by ${WON[*]}); client storing again after ${STORE_MS[*]} ms; keys kept ${KEPT[*]}; sidecar's part ${OVERHEAD[*]} ms"

# Switchover: asked of the standby's sidecar, refused naming the leader; of the leader's, the leader
# steps down (its lease released), the other master takes over, and the old leader starts again as
# its standby; ctl --wait returns once the new leader serves.
L=$(serving_side)
if [ "$L" = "$SIDE_a" ]; then Ln=a Fn=b F=$SIDE_b; else Ln=b Fn=a F=$SIDE_a; fi
"$SIDECAR" ctl switchover -c "$T/$Fn.json" >"$T/sw.out" 2>&1
RC=$?
[ "$RC" = 75 ] && grep -q "this master is a standby; the leader is 127.0.0.1:$(eval echo \$RPC_$Ln): ask its sidecar" "$T/sw.out" ||
    fail "switchover on the standby: exit $RC: $(cat "$T/sw.out")"
FP=$(master_pid "$Fn") FR=$(restarts "$F")
SW=$(now_ms)
"$SIDECAR" ctl switchover --wait=40 -c "$T/$Ln.json" >"$T/sw.out" 2>&1 || fail "switchover: $(cat "$T/sw.out"; st "$L" | "$TESTKIT" json-get /dev/stdin master.ha)"
SW_DONE=$(now_ms)
[ "$(serving_side)" = "$F" ] || fail "switchover: $Fn does not serve: $(st "$F" | "$TESTKIT" json-get /dev/stdin master.ha)"
[ "$(master_pid "$Fn")" = "$FP" ] && [ "$(restarts "$F")" = "$FR" ] || fail "switchover: $Fn's master was restarted"
wait_for 30 is standby phase "$L" || fail "switchover: $Ln is not $Fn's standby: $(st "$L" | "$TESTKIT" json-get /dev/stdin master.ha)"
[ "$(st "$L" | "$TESTKIT" json-get /dev/stdin master.ha.switchover.state)" = done ] || fail "switchover: /status says $(st "$L" | "$TESTKIT" json-get /dev/stdin master.ha.switchover)"
wait_for 30 stores_again "$SW" || fail "switchover: the client does not store again: $(tail -5 "$T/loop.out")"
SW_STORED=$(first_after ok "$(first_after error "$SW")")
grep -q "control: switchover by uid:$(id -u): ok (202)" "$T/sidecar-$Ln.out" || fail "switchover not audited: $(grep control: "$T/sidecar-$Ln.out" | tail -2)"
pass "switchover: on the standby's sidecar 409 naming the leader; on the leader's ($Ln): $(st "$L" | "$TESTKIT" json-get /dev/stdin master.ha.switchover.message); $Fn serves $((SW_DONE - SW)) ms after the request (ctl --wait: $(grep -o 'done after .*' "$T/sw.out")), the client stores again at $((SW_STORED - SW)) ms, $Ln back as its standby, $Fn not restarted"

# Redis itself killed, then started again on its port: what the masters and the sidecars do.
RA=$(restarts "$SIDE_a") RB=$(restarts "$SIDE_b")
kill -KILL "$REDIS_PID"
wait "$REDIS_PID" 2>/dev/null
KILL=$(now_ms)
# a node is ready only while a leader serves; a leader that cannot renew its lease stops serving
notready() { [ "$(ready_code "$SIDE_a")" != 200 ] || [ "$(ready_code "$SIDE_b")" != 200 ]; }
if wait_for 15 notready; then
	DOWN="$(( $(now_ms) - KILL )) ms after, a node says not ready: a: $(curl -s "http://127.0.0.1:$SIDE_a/readyz"); b: $(curl -s "http://127.0.0.1:$SIDE_b/readyz")"
else
	DOWN="15 s after, both nodes still ready (a leader serves on: $(serving_side))"
fi
start_redis
BACK=$(now_ms)
wait_for 40 eval '[ -n "$(serving_side)" ] && [ "$(ready_code "$SIDE_a")" = 200 ] && [ "$(ready_code "$SIDE_b")" = 200 ]' ||
    fail "Redis back: no master serves with both nodes ready: $(st "$SIDE_a" | "$TESTKIT" json-get /dev/stdin master.ha) $(st "$SIDE_b" | "$TESTKIT" json-get /dev/stdin master.ha)"
UP=$(( $(now_ms) - BACK ))
LOOP_L=$(wc -l <"$T/loop.out")
# the store client is Mooncake's own: whether it finds the new leader is its part, shown not asserted
if wait_for 30 eval '[ "$(tail -n +'"$((LOOP_L + 1))"' "$T/loop.out" | grep -c " ok rc=0$")" -ge 2 ]'; then
	CL="the client stores again $(( $(now_ms) - BACK )) ms after Redis is back"
else
	CL="the client (0.3.12's) still fails 30 s after: $(tail -1 "$T/loop.out" | cut -d' ' -f1,2,6-)"
fi
pass "redis-server killed: $DOWN; started again (empty): a master serves and both nodes are ready $UP ms later; $CL; masters restarted meanwhile: a $(( $(restarts "$SIDE_a") - RA )), b $(( $(restarts "$SIDE_b") - RB ))"
echo "   status a: $(curl -s "http://127.0.0.1:$SIDE_a/readyz"); b: $(curl -s "http://127.0.0.1:$SIDE_b/readyz")"
echo "   ha a: $(st "$SIDE_a" | "$TESTKIT" json-get /dev/stdin master.ha)"
echo "   ha b: $(st "$SIDE_b" | "$TESTKIT" json-get /dev/stdin master.ha)"
finish
