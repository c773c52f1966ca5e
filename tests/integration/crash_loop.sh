#!/bin/bash
# Crash loop -> fatal after the burst, no further spawns, the sidecar stays up and says why.
# Restart policies: exit 0 is not restarted under on-failure, is under always.
. "$(dirname "$0")/lib.sh"
export MC_STANDIN_START_DELAY_MS=100
new_ports
MC_STANDIN_CRASH_AFTER_MS=30 MC_STANDIN_CRASH_EXIT=3 \
write_config c '"restart": { "backoff_initial_ms": 10, "backoff_max_ms": 40, "burst": 3, "burst_window_ms": 60000 }'
MC_STANDIN_CRASH_AFTER_MS=30 MC_STANDIN_CRASH_EXIT=3 start_sidecar c
wait_for 10 notified 'STATUS=master fatal' || fail "never went fatal"
pass "crash loop went fatal"
grep -q 'STATUS=master fatal: more than 3 starts in 60000 ms; not restarting (last: exited with code 3' "$NOTIFY_OUT" ||
    fail "STATUS does not say why: $(grep STATUS "$NOTIFY_OUT" | tail -1)"
pass "STATUS= says why (burst and last exit code)"
[ "$(exec_count)" -eq 3 ] || fail "$(exec_count) spawns, want 3"
grep -q 'exited during startup\|last lines of' "$SC_OUT" || fail "no log tail for a startup failure"
grep -q '| I.*Master service started on port' "$SC_OUT" || fail "log tail lacks the master's lines"
pass "each startup crash logged the master's last lines into the sidecar log"
# No new spawn: poll for one for a second (25 times the longest backoff); it fails at the first.
wait_for 1 execs_at_least 4 && fail "spawned again after fatal"
alive "$SC_PID" || fail "sidecar exited on fatal"
pass "no spawn after fatal, the sidecar keeps running"
kill -TERM "$SC_PID"
wait "$SC_PID"; RC=$?
[ "$RC" -eq 0 ] || fail "sidecar exit $RC after SIGTERM in fatal"
pass "SIGTERM in fatal: exit 0"

# A burst larger than any fixed table: fatal after exactly that many starts.
new_ports
write_config l '"restart": { "backoff_initial_ms": 1, "backoff_max_ms": 1, "burst": 70, "burst_window_ms": 60000 }'
MC_STANDIN_START_DELAY_MS=40 MC_STANDIN_CRASH_AFTER_MS=1 MC_STANDIN_CRASH_EXIT=5 start_sidecar l
wait_for 60 notified 'STATUS=master fatal: more than 70 starts in 60000 ms' || fail "burst 70 never fatal ($(exec_count) spawns)"
[ "$(exec_count)" -eq 70 ] || fail "$(exec_count) spawns with burst 70"
pass "burst 70: fatal after exactly 70 starts"
kill -TERM "$SC_PID"; wait "$SC_PID"

# on-failure and a clean exit: stopped, not restarted.
new_ports
write_config z
MC_STANDIN_CRASH_AFTER_MS=1500 MC_STANDIN_CRASH_EXIT=0 start_sidecar z
wait_for 10 notified 'STATUS=master stopped: exited with code 0; restart policy on-failure' || fail "exit 0 not 'stopped'"
wait_for 1 execs_at_least 2 && fail "exit 0 restarted under on-failure"
pass "exit 0 under on-failure: stopped, not restarted"
kill -TERM "$SC_PID"; wait "$SC_PID"

# always: a clean exit is restarted.
new_ports
write_config w '"restart": { "policy": "always", "backoff_initial_ms": 10, "burst": 100 }'
MC_STANDIN_CRASH_AFTER_MS=400 MC_STANDIN_CRASH_EXIT=0 start_sidecar w
wait_for 10 execs_at_least 2 || fail "exit 0 not restarted under always"
pass "exit 0 under always: restarted"
finish
