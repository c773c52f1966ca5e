#!/bin/bash
# Workers are ready when they answer their health check, not when they are exec'd: two fake model
# servers that listen only after FAKE_WORKER_READY_MS stay "starting" until GET /health answers
# 200; one that answers 503, one that hangs, and one that never gets healthy are each stopped and
# restarted (and only that one), saying why; /status, STATUS= and the metrics show it.
. "$(dirname "$0")/lib.sh"
export MC_STANDIN_START_DELAY_MS=100 FAKE_WORKER_DIR=$T FAKE_WORKER_TESTKIT=$TESTKIT FAKE_WORKER_READY_MS=500
FAKE=$top_srcdir/tests/tools/fake-worker
new_ports
# Two HTTP ports next to each other: a free one whose successor nothing listens on.
for i in $(seq 20); do
	HP=$("$TESTKIT" freeports 1)
	[ "$HP" -lt 65535 ] && ! accepts $((HP + 1)) && break
done
write_config h '"address": "127.0.0.1"' '"workers": { "flavor": "generic",
    "restart": { "backoff_initial_ms": 50, "burst": 100 },
    "ports": { "http_base": '"$HP"', "http_stride": 1 },
    "groups": [ { "role": "agg", "count": 2, "gpus": 1,
                  "health": { "type": "http", "interval_ms": 100, "timeout_ms": 200, "failures": 3,
                              "ready_timeout_ms": 3000 },
                  "command": ["'"$FAKE"'", "--port", "{http_port}"] } ] }'
sed -i 's|"job": {|"job": { "gpus_per_node": 2,|' "$T/h.json"
start_sidecar h
# state N: worker agg_wN's state in /status; pid N its pid.
field() { adm /status >"$T/st.json"; "$TESTKIT" json-get "$T/st.json" "workers.$1.$2"; }
state() { field "$1" state; }
pid() { field "$1" pid; }
wait_for 10 is starting state 0 || fail "worker 0 never starting: $(cat "$T/st.json")"
is starting state 1 || fail "worker 1 not starting while it does not listen: $(cat "$T/st.json")"
field 0 health.check >"$T/check" && [ "$(cat "$T/check")" = http ] || fail "health check: $(cat "$T/st.json")"
pass "exec'd workers that do not answer yet are \"starting\", not ready"
wait_for 10 is ready state 0 && wait_for 5 is ready state 1 || fail "workers never ready: $(cat "$T/st.json")"
R=$(printf %.3f "$(field 0 ready_s)")
awk -v r="$R" 'BEGIN { exit !(r >= 0.5) }' || fail "ready after $R s, before it listened (500 ms)"
wait_for 5 notified '2/2 workers running' || fail "STATUS does not count the healthy workers: $(tail -1 "$NOTIFY_OUT")"
pass "both ready once GET /health answers 200 (worker 0 after $R s); STATUS= says 2/2"

# 503: stopped after 3 failed checks and restarted; the other worker untouched.
P0=$(pid 0) P1=$(pid 1)
echo unhealthy >"$T/worker-7500.control"
wait_for 10 grep_q "$SC_OUT" 'agg_w0: ready -> stopping: unhealthy: 3 failed health checks in a row (last: /health answered HTTP 503)' ||
    fail "no restart for a 503: $(grep agg_w0 "$SC_OUT" | tail -3)"
echo healthy >"$T/worker-7500.control"
restarted() { local p; p=$(pid "$1"); [ -n "$p" ] && [ "$p" != "$2" ] && [ "$(state "$1")" = ready ]; }
wait_for 10 restarted 0 "$P0" || fail "worker 0 not back: $(cat "$T/st.json")"
[ "$(pid 1)" = "$P1" ] || fail "worker 1 was restarted too"
pass "a worker answering 503: stopped after 3 failed checks, restarted and healthy again; the other untouched"

# A hung server (accepts, never answers): the checks time out, same outcome.
P1=$(pid 1)
echo hang >"$T/worker-7501.control"
wait_for 10 grep_q "$SC_OUT" "agg_w1: ready -> stopping: unhealthy: 3 failed health checks in a row (last: no answer from 127.0.0.1:$((HP + 1)) within 200 ms)" ||
    fail "no restart for a hung worker: $(grep agg_w1 "$SC_OUT" | tail -3)"
echo healthy >"$T/worker-7501.control"
wait_for 10 restarted 1 "$P1" || fail "worker 1 not back: $(cat "$T/st.json")"
pass "a hung worker (pid alive, no answer): stopped after 3 timed-out checks and restarted"

# Never healthy after a restart: stopped at health.ready_timeout_ms.
P0=$(pid 0)
echo unhealthy >"$T/worker-7500.control"
kill -KILL "$P0"
wait_for 10 grep_q "$SC_OUT" 'agg_w0: starting -> stopping: not healthy within health.ready_timeout_ms 3000 (last: /health answered HTTP 503)' ||
    fail "no ready timeout: $(grep agg_w0 "$SC_OUT" | tail -3)"
echo healthy >"$T/worker-7500.control"
wait_for 10 is ready state 0 || fail "worker 0 not back after its ready timeout"
pass "a worker never healthy after a restart: stopped at health.ready_timeout_ms, then healthy again"

adm /metrics >"$T/m.txt"
grep -q '^mooncake_sidecar_operations_total{operation="health_check",status="ok"} [1-9]' "$T/m.txt" &&
    grep -q '^mooncake_sidecar_operations_total{operation="health_check",status="error"} [1-9]' "$T/m.txt" &&
    grep -q '^mooncake_sidecar_operations_total{operation="health_check",status="timeout"} [1-9]' "$T/m.txt" ||
    fail "health checks in the metrics: $(grep health_check "$T/m.txt" | grep total)"
L='group="agg",group_index="0"'
N=$(sed -n 's/^mooncake_sidecar_worker_ready_seconds_count{'"$L"'} //p' "$T/m.txt")
grep -q '^mooncake_sidecar_worker_ready_seconds_bucket{'"$L"',le="0.1"} 0$' "$T/m.txt" &&
    grep -q '^mooncake_sidecar_worker_ready_seconds_bucket{'"$L"',le="+Inf"} '"$N"'$' "$T/m.txt" && [ "${N:-0}" -ge 5 ] ||
    fail "time to ready: $(grep worker_ready "$T/m.txt")"
pass "health checks counted in the per-operation metrics (ok, error, timeout); time to ready in a histogram per group ($N starts, none under 0.1 s for servers that listen after 0.5 s)"
finish
