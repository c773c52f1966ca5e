#!/bin/bash
# This node's GPU workers: started only once the endpoint files say ready, with their GPUs, ports
# and the mooncake environment; restarted when they die; restarted or kept across a master restart
# as configured; stopped before the master; gone with the sidecar. A node without a master starts
# its workers once the head's master is ready and is READY=1 when they run.
. "$(dirname "$0")/lib.sh"
export MC_STANDIN_START_DELAY_MS=300 FAKE_WORKER_DIR=$T
FAKE=$top_srcdir/tests/tools/fake-worker
[ -n "${top_srcdir:-}" ] || FAKE=$(cd "$(dirname "$0")/../tools" && pwd)/fake-worker
WORKERS='"workers": { "flavor": "generic", "on_master_restart": "ON_RESTART",
    "restart": { "backoff_initial_ms": 50, "burst": 100 },
    "groups": [ { "role": "agg", "count": 2, "gpus": 1,
                  "command": ["'"$FAKE"'", "--port", "{http_port}", "--gpus", "{cuda_visible_devices}", "--node", "{node}"] } ] }'
JOB='"job": { "id": "test", "nodes": "localhost", "node": "localhost", "gpus_per_node": 2, "run_dir": "@RUN@" }'
# worker_pid N: the pid /status gives worker agg_wN (empty while it has none).
worker_pid() {
	adm /status | awk -v n="\"agg_w$1\"" '$0 ~ "\"name\": " n {f=1} f && /"pid":/ {gsub(/[^0-9]/, ""); print; exit}'
}
worker_pids() { echo "$(worker_pid 0) $(worker_pid 1) "; }
# restarted N OLD: worker N runs again under a pid other than OLD.
restarted() { local p; p=$(worker_pid "$1"); [ -n "$p" ] && [ "$p" != "$2" ] && alive "$p"; }
running() { adm /status | grep -c '"state": "ready"' | grep -qx 3; }

new_ports
write_config w '"address": "127.0.0.1"' "${WORKERS/ON_RESTART/restart}"
sed -i "s|\"job\": {[^}]*}|${JOB/@RUN@/$T/w}|" "$T/w.json"
start_sidecar w
wait_for 5 grep_q "$SC_OUT" "workers: 2 processes on localhost" || fail "no worker plan"
ls "$T"/worker-*.argv >/dev/null 2>&1 && fail "workers started before the master was ready"
wait_for 10 notified 'READY=1' || fail "no READY=1"
wait_for 10 running || fail "workers not running: $(adm /status)"
pass "2 workers start only after the master is ready and the files are written"
for w in "$T"/worker-*.env; do
	grep -qx "MOONCAKE_MASTER=127.0.0.1:$RPC" "$w" || fail "$w lacks MOONCAKE_MASTER"
	grep -qx "MOONCAKE_TE_META_DATA_SERVER=http://127.0.0.1:$META/metadata" "$w" || fail "$w lacks TE metadata"
done
grep -qx 'CUDA_VISIBLE_DEVICES=0' "$T/worker-7500.env" && grep -qx 'CUDA_VISIBLE_DEVICES=1' "$T/worker-7501.env" ||
    fail "CUDA_VISIBLE_DEVICES"
[ "$(tr '\n' ' ' <"$T/worker-7500.argv")" = "--port 6100 --gpus 0 --node localhost " ] || fail "argv 0: $(cat "$T/worker-7500.argv")"
[ "$(tr '\n' ' ' <"$T/worker-7501.argv")" = "--port 6132 --gpus 1 --node localhost " ] || fail "argv 1"
[ -f "$T/w/localhost_agg_w0.log" ] && grep -q 'fake worker 7500' "$T/w/localhost_agg_w0.log" || fail "worker log"
pass "each worker: its GPU, ports and placeholders, the mooncake env, its own log file"
wait_for 5 notified 'STATUS=master ready (gen 1, pid [0-9]*, 0 restarts); 2/2 workers running' || fail "STATUS"
adm /status | grep -q '"cuda_visible_devices": "1"' || fail "/status workers"
adm /metrics | grep -q '^mooncake_sidecar_child_up{child="agg_w1"} 1$' || fail "worker metrics"
pass "STATUS says 2/2 workers running; /status and /metrics list them"

read -r W0 W1 <<<"$(worker_pids)"
kill -KILL "$W0"
wait_for 10 restarted 0 "$W0" || fail "dead worker not restarted"
[ "$(worker_pid 1)" = "$W1" ] || fail "the other worker was restarted too"
wait_for 10 running || fail "workers not back"
adm /status | grep -q '"restarts": 1,' || fail "worker restarts"
pass "a worker killed with -9 is restarted"

read -r W0 W1 <<<"$(worker_pids)"
kill -KILL "$(master_pid w)"
wait_for 10 notified 'STATUS=master ready (gen 2' || fail "master not back"
wait_for 10 restarted 0 "$W0" && wait_for 10 restarted 1 "$W1" || fail "workers not restarted for the new master"
pass "on_master_restart restart: the workers restart with generation 2"

wait_for 10 running || fail "workers not running before the stop"
read -r W0 W1 <<<"$(worker_pids)"
MP=$(master_pid w)
kill -TERM "$SC_PID"; wait "$SC_PID"; RC=$?
[ "$RC" -eq 0 ] && dead "$W0" && dead "$W1" && dead "$MP" || fail "stop: rc $RC"
L_W=$(grep -n 'agg_w[01]: stopping -> stopped' "$SC_OUT" | tail -1 | cut -d: -f1)
L_M=$(grep -n 'mooncake_master: ready -> stopping' "$SC_OUT" | tail -1 | cut -d: -f1)
[ -n "$L_W" ] && [ -n "$L_M" ] && [ "$L_W" -lt "$L_M" ] || fail "the master was stopped before the workers"
pass "SIGTERM: workers stopped first, then the master; exit 0"

# keep: workers survive a master restart; SIGKILL of the sidecar takes everything.
new_ports
write_config k '"address": "127.0.0.1"' "${WORKERS/ON_RESTART/keep}"
sed -i "s|\"job\": {[^}]*}|${JOB/@RUN@/$T/k}|" "$T/k.json"
start_sidecar k
wait_for 10 running || fail "keep: workers not running"
read -r W0 W1 <<<"$(worker_pids)"
kill -KILL "$(master_pid k)"
wait_for 10 notified 'STATUS=master ready (gen 2' || fail "keep: master not back"
[ "$(worker_pids)" = "$W0 $W1 " ] || fail "keep: workers restarted"
pass "on_master_restart keep: the workers keep running across a master restart"
MP=$(master_pid k)
kill -KILL "$SC_PID"
wait_for 1 dead "$MP" && wait_for 1 dead "$W0" && wait_for 1 dead "$W1" || fail "something survived the sidecar"
pass "SIGKILL to the sidecar: master and workers gone within 1 s"
finish
