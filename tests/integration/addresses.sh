#!/bin/bash
# The addresses workers bind and dial across nodes, with two sidecars on this machine as the nodes
# head and worker1 of one vLLM TP 2 endpoint (one GPU each). With job.network_interface, worker1
# cannot know head's interface address itself: it asks head's sidecar (/status node_address),
# starts nothing while that sidecar does not answer (and says what it waits for in /status), and
# starts its rank with head's address once it answers; both ranks dial the same address.
. "$(dirname "$0")/lib.sh"
export MC_STANDIN_START_DELAY_MS=100
FAKE=$top_srcdir/tests/tools/fake-worker
[ -n "${top_srcdir:-}" ] || FAKE=$(cd "$(dirname "$0")/../tools" && pwd)/fake-worker
routable_iface

new_ports
GROUP='"workers": { "flavor": "vllm", "dp_launch_mode": "per_node", WAIT
    "groups": [ { "role": "agg", "count": 1, "gpus": 2, "tp": 2,
                  "command": ["'"$FAKE"'", "serve", "/model", "--port", "{http_port}"] } ] }'
two_nodes "${GROUP/WAIT/}" "${GROUP/WAIT/\"wait_for_master\": false,}"

# --plan says which address each node's processes use and where it comes from.
"$SIDECAR" -c "$T/worker1.json" --plan >"$T/plan.json" || fail "--plan: $(cat "$T/plan.json")"
"$TESTKIT" json-get "$T/plan.json" addresses.worker1.address >"$T/a" && [ "$(cat "$T/a")" = "$ADDR" ] ||
    fail "plan: worker1's address: $(cat "$T/plan.json")"
"$TESTKIT" json-get "$T/plan.json" addresses.head.source >"$T/a" &&
    [ "$(cat "$T/a")" = "interface $IFACE of head: its sidecar names it" ] || fail "plan: head's source: $(cat "$T/a")"
pass "--plan names each address and its source (worker1: interface $IFACE, head: its sidecar)"

# worker1 first: head's sidecar is not there; nothing starts, and /status says why.
mkdir -p "$T/w1" "$T/w0"
FAKE_WORKER_DIR=$T/w1 start_sidecar worker1
W1_OUT=$SC_OUT
waiting() { curl -s "http://127.0.0.1:$FSIDE/status" >"$T/w1status" && grep_q "$T/w1status" "$1"; }
wait_for 10 waiting "\"waiting_for\": \"the address of head from its sidecar at http://127.0.0.1:$HEAD_SIDE (connect to 127.0.0.1:$HEAD_SIDE: Connection refused)\"" ||
    fail "worker1 does not say what it waits for: $(cat "$T/w1status")"
ls "$T"/w1/worker-*.argv >/dev/null 2>&1 && fail "worker1 started a rank without the leader's address"
pass "head's sidecar down: worker1 starts nothing (without wait_for_master) and /status says it waits for head's address"

FAKE_WORKER_DIR=$T/w0 start_sidecar head
started() { ls "$T"/"$1"/worker-*.argv >/dev/null 2>&1; }
wait_for 15 started w1 || fail "worker1's rank did not start: $(tail -5 "$W1_OUT"; cat "$T/w1status")"
wait_for 15 started w0 || fail "head's rank did not start: $(tail -5 "$SC_OUT")"
for r in 0 1; do
	a=$(tr '\n' ' ' <"$T"/w$r/worker-*.argv)
	grep -q -- "--tensor-parallel-size 2 --master-addr $ADDR --nnodes 2 --node-rank $r" <<<"$a" || fail "rank $r argv: $a"
done
grep_q "$W1_OUT" "workers: head is $ADDR (named by the sidecar of head at http://127.0.0.1:$HEAD_SIDE)" ||
    fail "worker1's log: $(grep workers: "$W1_OUT")"
grep -qx "MOONCAKE_LOCAL_HOSTNAME=$ADDR" "$T"/w0/worker-*.env || fail "head's MOONCAKE_LOCAL_HOSTNAME: $(grep HOSTNAME "$T"/w0/worker-*.env)"
# endpoints.json lists the job's HTTP-serving processes (the TP leader only: rank 1 is headless),
# the same on both nodes.
wait_for 10 test -s "$T/worker1/endpoints.json" || fail "worker1 has no endpoints.json"
for n in head worker1; do
	"$TESTKIT" json-get "$T/$n/endpoints.json" workers >"$T/wl-$n" || fail "$n's endpoints.json: no workers"
	[ "$(tr -d ' \n' <"$T/wl-$n")" = '[{"node":"head","role":"agg","worker_index":0,"dp_rank":null,"http_port":6100}]' ] ||
	    fail "$n's endpoints.json workers: $(cat "$T/wl-$n")"
done
pass "head's sidecar up: both ranks run with --master-addr $ADDR (worker1 learnt it from head's /status); endpoints.json on both nodes lists the one HTTP-serving rank"
finish
