#!/bin/bash
# SIGTERM: the master gets SIGTERM, both exit, the sidecar with 0 and STOPPING=1. A master that
# ignores SIGTERM is killed after stop_timeout_ms, or at once on a second SIGTERM. SIGKILL to the
# sidecar takes the master with it within a second.
. "$(dirname "$0")/lib.sh"
export MC_STANDIN_START_DELAY_MS=100 MC_STANDIN_STOP_MS=200
up s
kill -TERM "$SC_PID"
wait "$SC_PID"; RC=$?
[ "$RC" -eq 0 ] || fail "sidecar exit $RC"
grep -q 'Shutdown signal received, exiting gracefully' "$T/s/mooncake_master.log" || fail "master did not get SIGTERM"
dead "$MP" || fail "master $MP still alive"
notified 'STOPPING=1' || fail "no STOPPING=1"
[ ! -e "$T/s/mooncake_master.pid" ] || fail "pid file left behind"
pass "SIGTERM: master stopped gracefully, sidecar exit 0, STOPPING=1, pid file removed"

MC_STANDIN_IGNORE_SIGTERM=1 up i '"stop_timeout_ms": 300'
kill -TERM "$SC_PID"
wait "$SC_PID"; RC=$?
[ "$RC" -eq 0 ] || fail "sidecar exit $RC"
grep -q "still running 300 ms after SIGTERM; sending SIGKILL" "$SC_OUT" || fail "no SIGKILL escalation"
grep -q "killed by signal 9" "$SC_OUT" && dead "$MP" || fail "master not killed"
pass "master ignoring SIGTERM: SIGKILL after stop_timeout_ms, exit 0"

MC_STANDIN_IGNORE_SIGTERM=1 up j '"stop_timeout_ms": 60000'
T0=$(now_ms)
kill -TERM "$SC_PID"
wait_for 5 grep_q "$SC_OUT" 'ready -> stopping' || fail "no stop started"
kill -TERM "$SC_PID"
wait "$SC_PID"; RC=$?
T1=$(now_ms)
[ "$RC" -eq 0 ] && [ $((T1 - T0)) -lt 5000 ] || fail "second SIGTERM: exit $RC after $((T1 - T0)) ms"
dead "$MP" || fail "master alive after the second SIGTERM"
pass "second SIGTERM skips the 60 s wait: done in $((T1 - T0)) ms"

up k
kill_quiet "$SC_PID"
wait_for 1 dead "$MP" || fail "master $MP survived the sidecar's SIGKILL by more than 1 s"
pass "SIGKILL to the sidecar: master gone within 1 s"
finish
