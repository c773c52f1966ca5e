#!/bin/bash
# One readiness rule: on a node that runs the master and two GPU workers whose health check does
# not pass yet, /readyz answers 503 naming the worker, /status says "ready": false, --status exits
# 3, the mooncake_sidecar_ready gauge is 0 and no READY=1 goes out; once the workers answer their
# health check all of them say ready together. The same on a node without the master.
. "$(dirname "$0")/lib.sh"
export MC_STANDIN_START_DELAY_MS=100 FAKE_WORKER_TESTKIT=$TESTKIT
FAKE=$top_srcdir/tests/tools/fake-worker

# Two HTTP ports next to each other, free, for the workers' health servers.
http_pair() {
	local i p
	for i in $(seq 20); do
		p=$("$TESTKIT" freeports 1)
		[ "$p" -lt 65535 ] && ! accepts $((p + 1)) && { echo "$p"; return; }
	done
	fail "no two free ports in a row"
}
workers_json() {
	echo '"workers": { "flavor": "generic", "restart": { "backoff_initial_ms": 50, "burst": 100 },
	    "ports": { "http_base": '"$1"', "http_stride": 1 },
	    "groups": [ { "role": "agg", "count": 2, "gpus": 1,
	                  "health": { "type": "http", "interval_ms": 50, "timeout_ms": 200, "failures": 3,
	                              "ready_timeout_ms": 60000 },
	                  "command": ["'"$FAKE"'", "--port", "{http_port}"] } ] }'
}
# says URL NOTIFY_FILE READYZ_CODE STATUS_READY STATUS_EXIT GAUGE READY1: what each output says.
says() {
	local u=$1 code body st ex g r
	code=$(curl -s -o "$T/readyz" -w '%{http_code}' "$u/readyz")
	curl -s "$u/status" >"$T/status.json"
	st=$("$TESTKIT" json-get "$T/status.json" ready)
	"$SIDECAR" --status "$u" >"$T/status.txt"
	ex=$?
	g=$(curl -s "$u/metrics" | sed -n 's/^mooncake_sidecar_ready //p')
	r=$(grep -c 'READY=1' "$2")
	echo "$code $st $ex $g $r"
}
# check_node NAME URL NOTIFY_FILE DIR: both workers of the node held unhealthy, then released.
check_node() {
	local name=$1 u=$2 nf=$3 dir=$4 got
	# field N KEY: worker N's KEY in /status
	field() { curl -s "$u/status" >"$T/st.json"; "$TESTKIT" json-get "$T/st.json" "workers.$1.$2"; }
	checked() { [ "$(field "$1" health.last)" = "/health answered HTTP 503" ] && [ "$(field "$1" state)" = starting ]; }
	# both started and answered at least one check with 503: nothing may say ready
	wait_for 15 checked 0 && wait_for 5 checked 1 || fail "$name: workers never checked: $(cat "$T/st.json")"
	got=$(says "$u" "$nf")
	[ "$got" = "503 false 3 0 0" ] || fail "$name: /readyz, /status, --status, gauge, READY=1 said \"$got\"; /readyz: $(cat "$T/readyz")"
	grep -q '^not ready: 0/2 workers running (agg_w0 starting: /health answered HTTP 503)$' "$T/readyz" ||
	    fail "$name: /readyz does not name the worker: $(cat "$T/readyz")"
	grep -q 'not ready: 0/2 workers running (agg_w0 starting' "$T/status.txt" || fail "$name: --status: $(cat "$T/status.txt")"
	grep -q "STATUS=.*0/2 workers running (agg_w0 starting: /health answered HTTP 503)" "$nf" ||
	    fail "$name: STATUS= lacks the reason: $(tail -2 "$nf")"
	pass "$name, workers not healthy yet: /readyz 503 \"$(cat "$T/readyz")\", /status ready false, --status 3, gauge 0, no READY=1, STATUS= gives the same reason"
	echo healthy >"$dir/worker-7500.control"
	wait_for 10 is ready field 0 state || fail "$name: worker 0 not ready: $(cat "$T/st.json")"
	checked 1 || fail "$name: worker 1 changed: $(cat "$T/st.json")"
	got=$(says "$u" "$nf")
	[ "$got" = "503 false 3 0 0" ] || fail "$name: with one of two healthy: \"$got\""
	grep -q '^not ready: 1/2 workers running (agg_w1 starting: /health answered HTTP 503)$' "$T/readyz" ||
	    fail "$name: /readyz: $(cat "$T/readyz")"
	echo healthy >"$dir/worker-7501.control"
	wait_for 10 grep_q "$nf" 'READY=1' || fail "$name: no READY=1 once both are healthy"
	got=$(says "$u" "$nf")
	[ "$got" = "200 true 0 1 1" ] || fail "$name: after READY=1: \"$got\""
	[ "$(cat "$T/readyz")" = ready ] || fail "$name: /readyz body $(cat "$T/readyz")"
	grep -q 'READY=1|STATUS=.*2/2 workers running' "$nf" || fail "$name: READY=1 without 2/2: $(grep READY=1 "$nf")"
	pass "$name, one worker healthy: still not ready, naming the other; both healthy: READY=1 and /readyz 200, /status ready, --status 0, gauge 1"
}

# A node that runs the master and its two workers.
mkdir -p "$T/a"
export FAKE_WORKER_DIR=$T/a
echo unhealthy >"$T/a/worker-7500.control"
echo unhealthy >"$T/a/worker-7501.control"
new_ports
write_config h '"address": "127.0.0.1"' "$(workers_json "$(http_pair)")"
sed -i 's|"job": {|"job": { "gpus_per_node": 2,|' "$T/h.json"
start_sidecar h
check_node "master node" "http://127.0.0.1:$SIDE" "$NOTIFY_OUT" "$T/a"
HEAD_SIDE=$SIDE HEAD_PID=$SC_PID

# A node without the master: the head above (its workers stay healthy), a follower with two of its
# own. Its workers sit on the first node of job.nodes, the master on the second.
mkdir -p "$T/b" "$T/f"
export FAKE_WORKER_DIR=$T/b
echo unhealthy >"$T/b/worker-7500.control"
echo unhealthy >"$T/b/worker-7501.control"
FSIDE=$("$TESTKIT" freeports 1)
routable_iface
cat >"$T/f.json" <<JSON
{ "job": { "id": "test", "nodes": "worker1,head", "node": "worker1", "gpus_per_node": 2, "run_dir": "$T/f",
           "network_interface": "$IFACE" },
  "master": { "enabled": false, "node": "head", "url": "http://127.0.0.1:$HEAD_SIDE" },
  "admin": { "listen": "127.0.0.1:$FSIDE" },
  $(workers_json "$(http_pair)") }
JSON
start_sidecar f
check_node "node without the master" "http://127.0.0.1:$FSIDE" "$NOTIFY_OUT" "$T/b"
[ "$(curl -s "http://127.0.0.1:$HEAD_SIDE/readyz")" = ready ] || fail "the head is no longer ready"
finish
