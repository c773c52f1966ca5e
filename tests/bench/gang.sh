#!/bin/bash
# Gang restart benchmark. Two sidecars on this machine as the nodes head and worker1 of one vLLM
# TP 2 endpoint (one rank each, a gang). kill -9 of one rank (in turn the rank on worker1, whose
# failure head learns through GET /gangs, and the rank on head, whose new generation worker1 learns
# the same way) -> both ranks of the new generation exec'd: the median and range of N, beside the
# gang's backoff (workers.restart.backoff_initial_ms = backoff_max_ms = 100), which is the floor:
# the rest is what noticing the failure and telling the other node costs.
# srtctl tears the whole job down at a worker's death instead; there is no restart to compare.
# Then, on a node without the master: its worker's health server listening -> the node's READY=1
# (median of N starts), beside the health check interval, which bounds it.
# Usage: tests/bench/gang.sh [N]   (default 20)
set -uo pipefail
[ -d /dev/shm ] && export TMPDIR=/dev/shm
N=${1:-20}
. "$(dirname "$0")/lib.sh"
export MC_STANDIN_START_DELAY_MS=0
STAMP=$top_builddir/tests/tools/stamp
FAKE=$top/tests/tools/fake-worker
export FAKE_WORKER_TESTKIT=$TESTKIT FAKE_WORKER_READY_MS=300
BACKOFF=100


echo "mooncake-sidecar gang restart benchmark, $N kills, $(nproc) cores, $(date -u +%F)"
routable_iface
new_ports
GROUP='"workers": { "flavor": "vllm", "dp_launch_mode": "per_node", "peer_timeout_ms": 5000,
    "restart": { "backoff_initial_ms": '"$BACKOFF"', "backoff_max_ms": '"$BACKOFF"', "burst": 1000 },
    "groups": [ { "role": "agg", "count": 1, "gpus": 2, "tp": 2, "health": { "type": "none" },
                  "command": ["'"$STAMP"'", "'"$T"'/stamps"] } ] }'
two_nodes "$GROUP" "$GROUP"
start_sidecar head
HEAD_PID=$SC_PID
start_sidecar worker1
W1_PID=$SC_PID
gang_of() { curl -s "http://127.0.0.1:$1/gangs" | "$TESTKIT" json-get /dev/stdin "gangs.0.$2"; }
both_at() { [ "$(gang_of "$HEAD_SIDE" generation)" = "$1" ] && [ "$(gang_of "$FSIDE" generation)" = "$1" ] &&
    [ "$(gang_of "$HEAD_SIDE" state)" = ready ] && [ "$(gang_of "$FSIDE" state)" = ready ]; }
lines() { [ -f "$T/stamps" ] && [ "$(wc -l <"$T/stamps")" -ge "$1" ]; }
wait_for 20 lines 2 || fail "the two ranks did not start"
: >"$T/ms"
for i in $(seq "$N"); do
	have=$(wc -l <"$T/stamps")
	# the ranks now running: the last two stamps; kill the one on worker1, then the one on head
	victim=$(tail -2 "$T/stamps" | sed -n "$((i % 2 + 1))p" | cut -d' ' -f1)
	K=$("$TESTKIT" kill 9 "$victim")
	wait_for 10 lines $((have + 2)) || fail "kill $i: the gang was not restarted"
	E=$(tail -2 "$T/stamps" | cut -d' ' -f2 | sort -n | tail -1)
	echo "$(( (E - K) / 1000 ))" | awk '{printf "%.1f\n", $1 / 1000}' >>"$T/ms"
	# the next kill only once both nodes run the new generation
	wait_for 10 both_at $((i + 1)) || fail "kill $i: the nodes do not agree on generation $((i + 1))"
done
printf 'kill -9 of a rank -> both ranks of the new generation exec'"'"'d: median %s ms %s (backoff %d ms, target <= %d ms)\n' \
    "$(median <"$T/ms")" "$(range <"$T/ms")" "$BACKOFF" $((BACKOFF + 50))
kill -TERM "$HEAD_PID" "$W1_PID"; wait "$HEAD_PID" "$W1_PID"
SIDECARS=()

INTERVAL=100
: >"$T/ready.ms"
for i in $(seq "$N"); do
	new_ports
	# the two "nodes" share this machine: each its own HTTP port
	read -r HP0 HP1 <<<"$("$TESTKIT" freeports 2 | tr '\n' ' ')"
	G='"workers": { "flavor": "vllm", "dp_launch_mode": "per_node", "ports": { "http_base": @HP@ },
	    "groups": [ { "role": "agg", "count": 2, "gpus": 1,
	                  "health": { "type": "http", "interval_ms": '"$INTERVAL"', "timeout_ms": 200 },
	                  "command": ["'"$FAKE"'", "serve", "/model", "--port", "{http_port}"] } ] }'
	two_nodes "${G/@HP@/$HP0}" "${G/@HP@/$HP1}"
	mkdir -p "$T/r$i"
	FAKE_WORKER_DIR=$T/r$i start_sidecar head
	HEAD_PID=$SC_PID
	# a model load of 300-400 ms, so that the checks meet it at a random phase
	FAKE_WORKER_DIR=$T/r$i FAKE_WORKER_EVENTS=$T/r$i/listen FAKE_WORKER_READY_MS=$((300 + RANDOM % 100)) \
	    start_sidecar worker1
	W1_PID=$SC_PID
	wait_for 20 notified 'READY=1' || fail "run $i: worker1 never READY=1"
	L=$(awk '$1 == "listening" {print $3}' "$T/r$i/listen" 2>/dev/null | tail -1)
	[ -n "$L" ] || fail "run $i: no listening time from worker1's health server"
	R=$(awk '/READY=1/ {print $1; exit}' "$NOTIFY_OUT")
	echo "$(( (R - L) / 1000 ))" | awk '{printf "%.1f\n", $1 / 1000}' >>"$T/ready.ms"
	kill -TERM "$HEAD_PID" "$W1_PID"; wait "$HEAD_PID" "$W1_PID"
	SIDECARS=()
done
printf 'a worker'"'"'s health server listening -> its node'"'"'s READY=1: median %s ms %s (health.interval_ms %d, target <= %d ms)\n' \
    "$(median <"$T/ready.ms")" "$(range <"$T/ready.ms")" "$INTERVAL" $((INTERVAL + 5))
finish
