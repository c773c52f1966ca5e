#!/bin/bash
# A master frozen under its metadata locks (the stand-in's freeze: the routes that take the shard
# locks and the clients' pings stop, /health and the RPC port stay green) is seen as stalled within
# the configured window: /readyz says why, /status, STATUS= and the metric show it, and the master
# is restarted after master.stall_restart_ms, before client_ttl would expire every client. Each sign
# alone: the lock probe, and the ping counter with clients connected (not without: a client that is
# gone stays counted until its ttl). A master that answers slowly but within the probe's deadline is
# never called stalled.
. "$(dirname "$0")/lib.sh"
export MC_STANDIN_CLIENTS=4
ARGS='"extra_args": ["--rpc_address=127.0.0.1", "--metrics_host=127.0.0.1", "--client_ttl=10"]'
metric() { adm /metrics | sed -n "s/^$1 //p"; }
lock_ok() { metric 'mooncake_sidecar_operation_duration_seconds_count{operation="probe_lock",status="ok"}'; }
answered_at_least() { [ "${2:-$(lock_ok)}" -ge "$1" ] 2>/dev/null; }
code_is() { [ "$(adm_code /readyz)" = "$1" ]; }

# 1. The lock probe: frozen at t0, stalled within the probe's timeout (and one interval), restarted
# after stall_restart_ms.
export MC_STANDIN_CONTROL=$T/control-a
up a '"lock_probe_interval_ms": 200, "lock_probe_timeout_ms": 500, "stall_window_ms": 1500,
    "stall_restart_ms": 3000, '"$ARGS"
exec 5<>"/dev/tcp/127.0.0.1/$RPC"	# a client's connection to the RPC port, as the store's clients keep
wait_for 10 answered_at_least 5 || fail "the lock probe never answered: $(adm /metrics | grep probe_lock)"
[ "$(adm_code /readyz)" = 200 ] && [ "$(metric mooncake_sidecar_master_stalled)" = 0 ] ||
    fail "a healthy master is not ready or stalled: $(adm /readyz)"
pass "healthy: $(lock_ok) lock probes answered, ready, mooncake_sidecar_master_stalled 0"
echo freeze=1 >"$MC_STANDIN_CONTROL"
t0=$(now_ms)
kill -USR1 "$MP"
wait_for 5 code_is 503 || fail "a frozen master still ready: $(adm /readyz)"
t1=$(now_ms)
adm /readyz >"$T/readyz"
grep -q "^not ready: master stalled (pid $MP): the lock probe (/batch_query_keys) has not answered for " "$T/readyz" ||
    fail "/readyz does not say why: $(cat "$T/readyz")"
[ $((t1 - t0)) -le 1700 ] || fail "stalled seen after $((t1 - t0)) ms, past the window (500 ms probe timeout + 200 ms interval, 1500 ms window)"
pass "frozen master seen stalled $((t1 - t0)) ms after the freeze (probe timeout 500 ms, window 1500 ms): $(cat "$T/readyz")"
adm /status >"$T/status.json"
[ -n "$("$TESTKIT" json-get "$T/status.json" master.stall.reason)" ] && [ "$(metric mooncake_sidecar_master_stalled)" = 1 ] &&
    wait_for 2 notified "STATUS=master stalled (pid $MP): the lock probe" ||
    fail "/status, the metric or STATUS= does not show it: $(cat "$T/status.json"); $(grep STATUS= "$NOTIFY_OUT" | tail -2)"
pass "/status master.stall, mooncake_sidecar_master_stalled 1 and STATUS= show it"
changed() { [ -n "$(master_pid a)" ] && [ "$(master_pid a)" != "$MP" ]; }
wait_for 12 changed || fail "the stalled master was not restarted: $(tail -5 "$SC_OUT")"
t2=$(now_ms)
[ $((t2 - t0)) -lt 10000 ] || fail "restarted $((t2 - t0)) ms after the freeze: client_ttl (10 s) would have expired every client"
[ $((t2 - t0)) -ge 3000 ] || fail "restarted $((t2 - t0)) ms after the freeze, before stall_restart_ms 3000"
grep -q "stalled for [0-9.]* s (the lock probe (/batch_query_keys) has not answered for [0-9.]* s.*); restarted before client_ttl expires every client" "$SC_OUT" ||
    fail "the restart's reason is not logged: $(grep -i stall "$SC_OUT")"
wait_for 10 code_is 200 || fail "the new master never ready: $(adm /readyz)"
[ "$(metric mooncake_sidecar_master_stalled)" = 0 ] || fail "still stalled after the restart"
pass "restarted $((t2 - t0)) ms after the freeze (stall_restart_ms 3000, client_ttl 10 s), ready again, not stalled"
exec 5>&-
kill_quiet "$SC_PID"

# 2. The ping counter alone (the lock probe's timeout longer than the window): flat with a client
# connected is a stall, named as such; with none connected it is not (the probe, later, still is).
stall_b() {
	export MC_STANDIN_CONTROL=$T/control-$1
	up "$1" '"lock_probe_interval_ms": 200, "lock_probe_timeout_ms": 8000, "stall_window_ms": 1000,
	    "stall_restart_ms": 0, '"$ARGS"
	[ "$2" = connected ] && exec 5<>"/dev/tcp/127.0.0.1/$RPC"
	wait_for 10 answered_at_least 3 || fail "$1: the lock probe never answered"
	echo freeze=1 >"$MC_STANDIN_CONTROL"
	kill -USR1 "$MP"
	B0=$(now_ms)
}
stall_b b connected
wait_for 5 code_is 503 || fail "pings flat with a client connected: not stalled: $(adm /readyz)"
b1=$(now_ms)
grep -q "master_ping_requests_total has not moved for" <(adm /readyz) || fail "/readyz does not name the ping counter: $(adm /readyz)"
pass "pings flat with a client connected: stalled $((b1 - B0)) ms after the freeze (window 1000 ms): $(adm /readyz)"
exec 5>&-
kill_quiet "$SC_PID"
stall_b c alone
scrapes() { grep -c '^admin /metrics ' "$EVENTS"; }
n0=$(scrapes)
wait_slowly 10 eval '[ $(($(scrapes) - n0)) -ge 10 ]' || fail "the master's counters are not read: $(tail -3 "$EVENTS")"
[ "$(adm_code /readyz)" = 200 ] || fail "pings flat without a client connected called a stall: $(adm /readyz)"
grep -q "master.stall_restart_ms 0: not restarting it" "$T/sidecar-b.out" ||
    fail "stall_restart_ms 0 does not say it will not restart"
pass "pings flat without a client connected, $(( $(now_ms) - B0 )) ms: still ready (the clients are gone, not the master); restart 0 says so"
kill_quiet "$SC_PID"

# 3. Slow but healthy: every admin answer 300 ms late, within the probe's 1000 ms: never stalled,
# never restarted, over longer than stall_restart_ms.
export MC_STANDIN_CONTROL=$T/control-d
MC_STANDIN_SLOW_MS=300 up d '"lock_probe_interval_ms": 200, "lock_probe_timeout_ms": 1000, "stall_window_ms": 1000,
    "stall_restart_ms": 1500, '"$ARGS"
exec 5<>"/dev/tcp/127.0.0.1/$RPC"
n0=$(lock_ok)
wait_slowly 15 answered_at_least $((n0 + 10)) || fail "the slow master's lock probes do not answer: $(adm /metrics | grep probe_lock)"
[ "$(master_pid d)" = "$MP" ] && [ "$(exec_count)" = 1 ] && ! grep -q "stalled" "$SC_OUT" ||
    fail "a slow but healthy master was called stalled or restarted: $(grep -i stall "$SC_OUT")"
pass "slow (300 ms per answer) but within the deadline: $(( $(lock_ok) - n0 )) lock probes, never stalled, never restarted"
exec 5>&-
finish
