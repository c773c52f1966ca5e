#!/bin/bash
# A master whose admin port stops answering after it was ready is hung: after N failed liveness
# probes it is stopped and restarted. One that never becomes ready is stopped after ready_timeout_ms.
. "$(dirname "$0")/lib.sh"
export MC_STANDIN_START_DELAY_MS=100
new_ports
write_config h '"liveness_interval_ms": 100, "liveness_failures": 3, "stop_timeout_ms": 1000'
MC_STANDIN_HANG_ADMIN_AFTER_MS=300 MC_STANDIN_STOP_MS=100 start_sidecar h
wait_for 10 notified 'READY=1' || fail "no READY=1"
M1=$(master_pid h)
wait_for 10 grep_q "$SC_OUT" 'ready -> stopping: hung: 3 liveness probes failed in a row (no answer from 127.0.0.1:' || fail "hang not detected"
pass "hung admin detected after 3 failed liveness probes"
grep -q 'liveness probe failed (1 of 3): admin no answer from 127.0.0.1:[0-9]* within 100 ms' "$SC_OUT" || fail "failures not logged one by one"
wait_for 10 notified 'STATUS=master ready (gen 2' || fail "not restarted after the hang"
M2=$(master_pid h)
[ "$M1" != "$M2" ] && dead "$M1" || fail "old master $M1 still there"
pass "hung master $M1 stopped and replaced by $M2"
kill_quiet "$SC_PID"

new_ports
write_config t '"ready_timeout_ms": 500'
MC_STANDIN_HANG_ADMIN=1 MC_STANDIN_STOP_MS=100 start_sidecar t
wait_for 10 grep_q "$SC_OUT" 'starting -> stopping: not ready after 500 ms (admin: no answer for ' || fail "ready timeout not applied: $(cat "$SC_OUT")"
wait_for 10 grep_q "$SC_OUT" 'stopping -> backoff' || fail "no backoff after the ready timeout"
pass "never-ready master stopped after ready_timeout_ms and backed off"
finish
