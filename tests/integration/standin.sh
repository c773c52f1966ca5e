#!/bin/bash
# The stand-in master behaves as the real one was observed to: flags, port order and delay, routes
# and bodies, exit codes on busy ports and signals, HA roles changed at run time.
. "$(dirname "$0")/lib.sh"

run_bg() { "$STANDIN" "$@" 2>"$T/standin.err" & SP=$!; STARTED+=($SP); }
reap() { wait "$SP" 2>/dev/null; }
flags() { echo --rpc_port=$RPC --rpc_address=127.0.0.1 --enable_http_metadata_server=true --http_metadata_server_port=$META --metrics_port=$ADMIN --metrics_host=127.0.0.1 "$@"; }
body() { curl -s "http://127.0.0.1:$1$2"; }
code() { curl -s -o /dev/null -w '%{http_code}' "${@:2}" "http://127.0.0.1:$1"; }

OUT=$("$STANDIN" --bogus_flag=1 2>&1); RC=$?
[ "$RC" -eq 1 ] && [ "$OUT" = "ERROR: unknown command line flag 'bogus_flag'" ] || fail "unknown flag: $RC $OUT"
OUT=$("$STANDIN" --rpc_port=abc 2>&1); RC=$?
[ "$RC" -eq 1 ] && [ "$OUT" = "ERROR: illegal value 'abc' specified for int32 flag 'rpc_port'" ] || fail "bad int: $RC $OUT"
OUT=$("$STANDIN" --version); RC=$?
[ "$RC" -eq 0 ] && [ "$OUT" = "mooncake_master version 0.3.12.post1" ] || fail "--version: $RC $OUT"
pass "flags: unknown flag and illegal int32 exit 1 with gflags' words; --version exits 0"

new_ports
MC_STANDIN_START_DELAY_MS=400 run_bg $(flags --eviction_high_watermark_ratio=0.9 --default_kv_lease_ttl=10000)
wait_for 5 accepts "$META" || fail "metadata port never opened"
accepts "$ADMIN" && fail "admin open together with metadata"
accepts "$RPC" && fail "rpc open together with metadata"
pass "metadata port first; admin and RPC closed during the start-up delay (real master: 1 s)"
wait_for 5 accepts "$RPC" && accepts "$ADMIN" || fail "admin/rpc never opened"
pass "admin and RPC open after the delay"
[ "$(body "$ADMIN" /health)" = '{"status":"ok","role":"leader","ha_state":"serving","service_ready":true,"leader_address":null,"view_version":null}' ] || fail "/health"
[ "$(body "$ADMIN" /role)" = leader ] && [ "$(body "$ADMIN" /ha_status)" = serving ] || fail "/role /ha_status"
[ "$(body "$ADMIN" /leader)" = '{"present":false,"leader_address":null,"view_version":null}' ] || fail "/leader"
CT=$(curl -s -o /dev/null -w '%{content_type}' "http://127.0.0.1:$ADMIN/health")
[ "$CT" = "application/json; charset=utf-8" ] || fail "content type $CT"
pass "admin /health /role /ha_status /leader: real bodies and content types"
[ "$(code "$ADMIN/query_key?key=x")" = 404 ] && [ "$(body "$ADMIN" '/query_key?key=x')" = '{"success":false,"error_code":-704,"error_message":"OBJECT_NOT_FOUND"}' ] || fail "/query_key"
[ "$(code "$ADMIN/nonexistent")" = 404 ] && [ "$(body "$ADMIN" /nonexistent)" = "404 Not Found" ] || fail "unknown route"
[ "$(code "$ADMIN/health" -I)" = 404 ] || fail "HEAD /health is not 404"
[ "$(code "$ADMIN/health" -X POST)" = 404 ] || fail "POST /health is not 404"
curl -s "http://127.0.0.1:$ADMIN/metrics" | grep -q '^total_get_nums_ 2$' || fail "/metrics does not count the two gets"
[ "$(code "$ADMIN/batch_query_keys")" = 400 ] || fail "/batch_query_keys without keys"
body "$ADMIN" /metrics/summary | grep -q '^role=leader, state=serving, service_ready=true, master={Mem Storage' || fail "/metrics/summary"
pass "admin /query_key 404 JSON, unknown route and HEAD/POST 404, /metrics, /metrics/summary"
[ "$(body "$META" /health)" = OK ] || fail "metadata /health"
[ "$(code "$META/metadata")" = 400 ] && [ "$(body "$META" /metadata)" = "Missing key parameter" ] || fail "missing key"
[ "$(body "$META" '/metadata?key=foo')" = "metadata not found" ] || fail "absent key"
[ "$(curl -s -X PUT --data '{"hello":"world"}' "http://127.0.0.1:$META/metadata?key=foo")" = "metadata updated" ] || fail "PUT"
[ "$(body "$META" '/metadata?key=foo')" = '{"hello":"world"}' ] || fail "GET after PUT"
curl -s -X PUT --data a "http://127.0.0.1:$META/metadata?key=mooncake/rpc_meta/a" >/dev/null
[ "$(curl -s -X PUT --data a "http://127.0.0.1:$META/metadata?key=mooncake/rpc_meta/a")" = "metadata unchanged" ] || fail "rpc_meta same"
[ "$(curl -s -X PUT --data b "http://127.0.0.1:$META/metadata?key=mooncake/rpc_meta/a")" = "Duplicate rpc_meta key not allowed" ] || fail "rpc_meta differs"
[ "$(curl -s -X DELETE "http://127.0.0.1:$META/metadata?key=foo")" = "metadata deleted" ] || fail "DELETE"
[ "$(curl -s -X DELETE "http://127.0.0.1:$META/metadata?key=foo")" = "metadata not found" ] || fail "DELETE again"
pass "metadata server: /health OK, GET/PUT/DELETE, rpc_meta write-once, missing key 400"
RPC_REPLY=$(curl -s --max-time 3 "http://127.0.0.1:$RPC/"; echo "rc=$?")
[ "$RPC_REPLY" = "rc=52" ] || fail "HTTP to the RPC port: $RPC_REPLY"
pass "HTTP on the RPC port: empty reply (curl 52)"
kill -TERM "$SP"; reap; RC=$?
[ "$RC" -eq 0 ] && grep -q 'Shutdown signal received, exiting gracefully' "$T/standin.err" &&
    grep -q 'HTTP metadata server stopped' "$T/standin.err" || fail "SIGTERM after start: $RC"
pass "SIGTERM after the handler is installed: exit 0 with the real shutdown lines"

new_ports
MC_STANDIN_START_DELAY_MS=2000 run_bg $(flags)
wait_for 5 accepts "$META" || fail "no metadata port"
kill -TERM "$SP"; reap; RC=$?
[ "$RC" -eq 143 ] || fail "SIGTERM before the handler: exit $RC, want 143"
pass "SIGTERM during the start-up delay: killed by the signal (143)"

hold() { "$TESTKIT" hold "$1" >"$T/hold" & HP=$!; STARTED+=($HP); wait_for 5 grep_q "$T/hold" ready || fail "hold $1"; }
new_ports; hold "$ADMIN"
MC_STANDIN_START_DELAY_MS=100 run_bg $(flags); reap; RC=$?
[ "$RC" -eq 1 ] && grep -q "Failed to start master admin server on 127.0.0.1:$ADMIN: Address already in use" "$T/standin.err" || fail "admin busy: $RC"
pass "admin port busy: exit 1 with the real error lines"
kill_quiet "$HP"
new_ports; hold "$META"
run_bg $(flags); reap; RC=$?
[ "$RC" -eq 134 ] && grep -q "^F.*Failed to start HTTP metadata server" "$T/standin.err" || fail "metadata busy: $RC"
pass "metadata port busy: glog FATAL and SIGABRT (134)"
kill_quiet "$HP"
new_ports; hold "$RPC"
MC_STANDIN_START_DELAY_MS=100 run_bg $(flags)
wait_for 5 accepts "$ADMIN" || fail "admin never up with RPC busy"
body "$ADMIN" /health | grep -q '"service_ready":true' || fail "admin should claim ready"
reap; RC=$?
[ "$RC" -eq 1 ] && ! grep -q '^[EF][0-9]' "$T/standin.err" || fail "rpc busy: exit $RC or an error line"
pass "RPC port busy: admin claims service_ready, then exit 1 with no error line"
kill_quiet "$HP"

new_ports
printf 'role=standby\nleader=10.0.0.1:50051\n' >"$T/control"
MC_STANDIN_START_DELAY_MS=100 MC_STANDIN_ROLE=standby MC_STANDIN_LEADER=10.0.0.1:50051 MC_STANDIN_CONTROL=$T/control \
    run_bg $(flags --enable_ha=true)
wait_for 5 accepts "$ADMIN" || fail "HA admin"
[ "$(body "$ADMIN" /role)" = standby ] && ! accepts "$RPC" || fail "standby role or open RPC"
[ "$(body "$ADMIN" /leader)" = '{"present":true,"leader_address":"10.0.0.1:50051","view_version":1}' ] || fail "standby /leader: $(body "$ADMIN" /leader)"
body "$ADMIN" /health | grep -q '"role":"standby","ha_state":"standby","service_ready":false' || fail "standby /health"
[ "$(code "$ADMIN/get_all_segments")" = 503 ] || fail "service route on a standby"
pass "HA standby: role standby, service_ready false, RPC refused, /leader names the leader, 503 service routes"
echo 'role=leader' >"$T/control"
kill -USR1 "$SP"
wait_for 5 accepts "$RPC" || fail "promotion did not open RPC"
[ "$(body "$ADMIN" /role)" = leader ] || fail "role after promotion"
body "$ADMIN" /health | grep -q "\"service_ready\":true,\"leader_address\":\"127.0.0.1:$RPC\"" || fail "leader /health"
pass "role changed at run time (SIGUSR1 + control file): leader, RPC open"
kill -TERM "$SP"; reap; RC=$?
[ "$RC" -eq 143 ] || fail "HA SIGTERM exit $RC, want 143 (no handler in HA)"
pass "HA mode has no SIGTERM handler: killed by the signal"

# The benchmarks' floors: testkit respawn-loop runs a program again each time it ends, and testkit rtt
# times round trips over loopback TCP.
new_ports
MC_STANDIN_EVENTS=$T/loop-events MC_STANDIN_START_DELAY_MS=50 "$TESTKIT" respawn-loop "$STANDIN" $(flags) \
    2>/dev/null &
LP=$!
STARTED+=($LP)
wait_for 5 accepts "$RPC" || fail "respawn-loop: the stand-in did not start"
execs() { [ "$(grep -c '^exec' "$T/loop-events")" -ge "$1" ]; }
# stopped first, so that it starts nothing more; then its child, then the loop
stop_loop() { kill -STOP "$LP"; pkill -KILL -P "$LP"; kill -KILL "$LP"; wait "$LP" 2>/dev/null; }
M1=$(awk '$1=="exec"{p=$2} END{print p}' "$T/loop-events")
kill -KILL "$M1"
wait_for 5 execs 2 || { stop_loop; fail "respawn-loop: no second exec after kill -9"; }
M2=$(awk '$1=="exec"{p=$2} END{print p}' "$T/loop-events")
PARENT=$(ps -o ppid= -p "$M2" | tr -d ' ')
stop_loop
[ "$M2" != "$M1" ] && [ "$PARENT" = "$LP" ] || fail "respawn-loop: pid $M2 (parent $PARENT) is not its child"
read -r MED P99 < <("$TESTKIT" rtt 500)
awk -v m="$MED" -v p="$P99" 'BEGIN { exit !(m > 0 && p >= m) }' || fail "rtt: median '$MED', p99 '$P99'"
pass "testkit respawn-loop runs the master again after kill -9 (pid $M1, then $M2); testkit rtt: $MED us, p99 $P99 us"
finish
