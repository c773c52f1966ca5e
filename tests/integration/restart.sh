#!/bin/bash
# kill -9 of the master: a new pid, ready again with the next generation, after the configured
# backoff, which doubles on a second quick crash. SIGHUP reopens the master's log file.
. "$(dirname "$0")/lib.sh"
export MC_STANDIN_START_DELAY_MS=200
new_ports
write_config r '"liveness_interval_ms": 200'
start_sidecar r
wait_for 10 notified 'READY=1' || fail "no READY=1"
M1=$(master_pid r)
KILL_AT=$("$TESTKIT" kill 9 "$M1")
wait_for 10 notified 'STATUS=master ready (gen 2' || fail "not ready again after kill -9"
M2=$(master_pid r)
[ -n "$M2" ] && [ "$M2" != "$M1" ] && alive "$M2" || fail "no new master pid ($M1 -> $M2)"
pass "kill -9 $M1 -> new master $M2, ready with generation 2"
grep -q 'ready -> backoff: killed by signal 9 (Killed); restarting in 100 ms' "$SC_OUT" || fail "no 100 ms backoff logged"
EXEC2=$(awk -v p="$M2" '$1=="exec" && $2==p {print $3}' "$EVENTS")
DELAY_MS=$(( (EXEC2 - KILL_AT) / 1000000 ))
[ "$DELAY_MS" -ge 100 ] && [ "$DELAY_MS" -lt 1000 ] || fail "respawn $DELAY_MS ms after the kill, want >= 100"
pass "respawned ${DELAY_MS} ms after kill -9 (backoff_initial_ms 100)"
grep -q "STATUS=master ready (gen 2, pid $M2, 1 restart)" "$NOTIFY_OUT" || fail "STATUS lacks the restart count"
pass "STATUS= says gen 2, the new pid and 1 restart"

# Second crash well inside reset_after_ms: the backoff doubles.
kill -KILL "$M2"
wait_for 10 notified 'STATUS=master ready (gen 3' || fail "not ready after the second kill"
grep -q 'restarting in 200 ms' "$SC_OUT" || fail "backoff did not double"
pass "second crash within reset_after_ms backs off 200 ms"

# SIGHUP: the log is reopened; the next master writes into the new file.
mv "$T/r/mooncake_master.log" "$T/r/mooncake_master.log.1"
kill -HUP "$SC_PID"
wait_for 5 notified 'RELOADING=1' || fail "no RELOADING=1 on SIGHUP"
M3=$(master_pid r)
kill -KILL "$M3"
wait_for 10 notified 'STATUS=master ready (gen 4' || fail "not ready after the third kill"
wait_for 5 grep_q "$T/r/mooncake_master.log" "Master admin server started" || fail "new log file not written"
pass "SIGHUP reopened mooncake_master.log (RELOADING=1 sent)"
[ "$(pgrep -g "$M1" | wc -l)" -eq 0 ] && [ "$(pgrep -g "$M2" | wc -l)" -eq 0 ] || fail "old masters' groups still have processes"
N=$(pgrep -f -- "--rpc_port=$RPC " | wc -l)
[ "$N" -eq 1 ] || fail "$N masters alive"
pass "exactly one master alive, nothing left of the killed ones"
kill_quiet "$SC_PID"

# Backoff 0: each new master is exec'd only after endpoints.json says the killed one is not ready.
# A wrapper in front of the stand-in reads the file as the exec happens (exec keeps its pid); the
# sidecar asking for its flags before the start is not a start.
ORIG=$STANDIN
cat >"$T/wrap.sh" <<SH
#!/bin/sh
case "\$1" in --helpxml|--version) ;; *) "$TESTKIT" ep "$T/z/endpoints.json" >>"$T/seen" ;; esac
exec "$ORIG" "\$@"
SH
chmod +x "$T/wrap.sh"
new_ports
STANDIN=$T/wrap.sh write_config z '"restart": { "backoff_initial_ms": 0, "reset_after_ms": 0, "burst": 100, "burst_window_ms": 60000 }'
MC_STANDIN_START_DELAY_MS=50 start_sidecar z
wait_for 10 notified 'READY=1' || fail "backoff 0: no READY=1"
for i in 1 2 3 4 5; do
	kill -KILL "$(master_pid z)"
	wait_for 10 notified "STATUS=master ready (gen $((i + 1))," || fail "backoff 0: not ready again after kill $i"
done
# line i+1 of seen: what the file said when the master after the i-th kill was exec'd, "<gen> <ready> <pid>"
BAD=$(awk 'NR > 1 && !($1 == NR - 1 && $2 == 0 && $3 == 0) { print NR ": " $0 }' "$T/seen")
[ "$(wc -l <"$T/seen")" -eq 6 ] && [ -z "$BAD" ] || fail "backoff 0: endpoints.json at the execs: $(tr '\n' ';' <"$T/seen")"
pass "backoff 0: 5 kill -9, each next master exec'd after endpoints.json said its generation not ready"
finish
