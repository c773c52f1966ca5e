#!/bin/bash
# Each of the three ports held by another process: a clear error naming the port and the holder's
# pid, the master never spawned, never declared ready. Then the race the real master hides: the RPC
# port taken after the metadata port is up, so admin says service_ready while RPC belongs to someone
# else; the sidecar must refuse to declare ready. Freeing the port lets the master start.
. "$(dirname "$0")/lib.sh"
export MC_STANDIN_START_DELAY_MS=300

hold() {
	"$TESTKIT" hold "$1" >"$T/hold-$1" &
	HOLDER=$!
	STARTED+=($HOLDER)
	wait_for 5 grep_q "$T/hold-$1" ready || fail "could not hold port $1"
}

for which in rpc metadata admin; do
	new_ports
	case $which in rpc) P=$RPC ;; metadata) P=$META ;; admin) P=$ADMIN ;; esac
	hold "$P"
	write_config "$which"
	start_sidecar "$which"
	wait_for 5 grep_q "$SC_OUT" "port $P is already in use by pid $HOLDER (testkit) (the master's $which port)" ||
	    fail "no clear error for the $which port: $(cat "$SC_OUT")"
	wait_for 5 notified "STATUS=master backoff: port $P is already in use by pid $HOLDER" || fail "STATUS lacks the reason"
	[ "$(exec_count)" -eq 0 ] || fail "master spawned with the $which port taken"
	notified 'READY=1' && fail "READY=1 with the $which port taken"
	pass "$which port $P held by pid $HOLDER: named in the log and STATUS, master not spawned"
	kill_quiet "$SC_PID" "$HOLDER"
done

# The port is freed: the next attempt after the backoff starts the master.
new_ports
hold "$RPC"
write_config freed
start_sidecar freed
wait_for 5 grep_q "$SC_OUT" "port $RPC is already in use" || fail "no error while held"
kill_quiet "$HOLDER"
wait_for 10 notified 'READY=1' || fail "not ready after the port was freed"
pass "port freed: the master starts on the next attempt and becomes ready"
kill_quiet "$SC_PID"

# The late holder: take RPC once the metadata port answers (the master is in its start-up delay,
# 3 s here: the 300 ms of the others was too short for this script to take the port first on a
# loaded machine, and the master then had it).
new_ports
write_config late
MC_STANDIN_START_DELAY_MS=3000 start_sidecar late
wait_for 10 curl -sf -o /dev/null "http://127.0.0.1:$META/health" || fail "metadata never came up"
hold "$RPC"
wait_for 10 grep_q "$SC_OUT" "not declaring ready: port $RPC is already in use by pid $HOLDER (testkit), not by pid" ||
    fail "ownership not checked: $(cat "$SC_OUT")"
pass "admin said service_ready while RPC was someone else's: not declared ready"
wait_for 10 grep_q "$SC_OUT" "exited with code 1" || fail "the master did not exit 1 as the real one does"
notified 'READY=1' && fail "READY=1 although the RPC port was never the master's"
pass "the master exited 1 silently; READY=1 was never sent"
kill_quiet "$SC_PID"

# backoff 0 and a port taken: each refused start waits for the next loop pass, so the admin port
# answers among them, long before the burst makes it fatal (all in one pass, it would answer after).
new_ports
hold "$RPC"
write_config zero '"restart": { "backoff_initial_ms": 0, "reset_after_ms": 0, "burst": 40, "burst_window_ms": 600000 }'
start_sidecar zero
wait_for 10 grep_q "$SC_OUT" "not starting: port $RPC" || fail "backoff 0: no refused start"
[ "$(adm_code /livez)" = 200 ] || fail "backoff 0: /livez while starts are refused"
grep -q "more than 40 starts" "$SC_OUT" && fail "backoff 0: /livez answered only after all 40 refused starts"
N=$(grep -c "not starting: port $RPC" "$SC_OUT")
# each refused start looks for the port's holder in /proc: under valgrind, most of a second
wait_for 90 grep_q "$SC_OUT" "more than 40 starts" || fail "backoff 0: not fatal after the burst"
[ "$(grep -c "not starting: port $RPC" "$SC_OUT")" -eq 40 ] || fail "backoff 0: $(grep -c "not starting" "$SC_OUT") refused starts, want 40"
pass "backoff 0, RPC port taken: /livez answered after $N of 40 refused starts, then fatal"
finish
