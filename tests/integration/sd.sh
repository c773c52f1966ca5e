#!/bin/bash
# GET /sd, Prometheus's HTTP service discovery, with a real Prometheus (Debian's) pointed at it by
# http_sd_configs: the sidecar, the master's metrics port and each running worker's HTTP port are
# discovered with their labels (job_id, node, role, group, group_index, worker, worker_index, dp_rank, gang,
# generation); a worker killed and restarted comes back under its next generation; the sidecar's
# own scrape of the master shows as mooncake_sidecar_upstream_scrape_up{target="master"}; the fake
# workers' /metrics in vLLM's MooncakeStoreConnector shape are scraped and every store panel of the
# dashboard returns data. Then two nodes: the head's /sd covers the job from what the other nodes
# report in their polls, follows a restart there and drops a node that stops (at once) or is lost
# (once it has not been heard for 40 s).
. "$(dirname "$0")/lib.sh"
command -v prometheus >/dev/null || fail "prometheus is not installed (scripts/test.sh installs it)"
export MC_STANDIN_START_DELAY_MS=100 FAKE_WORKER_DIR=$T FAKE_WORKER_TESTKIT=$TESTKIT
FAKE=$top_srcdir/tests/tools/fake-worker
new_ports
PROM=$("$TESTKIT" freeports 1)
write_config s '"address": "127.0.0.1"' '"workers": { "flavor": "vllm", "dp_launch_mode": "per_gpu", "restart": { "backoff_initial_ms": 50 },
    "groups": [ { "role": "agg", "count": 1, "gpus": 2, "dp": 2, "health": { "type": "http", "interval_ms": 100 },
                  "command": ["'"$FAKE"'", "serve", "/m", "--port", "{http_port}"] } ] }'
python3 - "$T/s.json" <<'PY'
import json, sys
c = json.load(open(sys.argv[1])); c["job"]["gpus_per_node"] = 2; json.dump(c, open(sys.argv[1], "w"))
PY
start_sidecar s
SIDE1=$SIDE
wait_for 15 notified 'READY=1' || fail "no READY=1: $(tail -3 "$SC_OUT")"
cat >"$T/prom.yml" <<YML
global: { scrape_interval: 1s }
scrape_configs:
  - job_name: mooncake-job
    http_sd_configs: [ { url: "http://127.0.0.1:$SIDE/sd", refresh_interval: 1s } ]
YML
prometheus --config.file="$T/prom.yml" --storage.tsdb.path="$T/tsdb" --web.listen-address="127.0.0.1:$PROM" \
    >"$T/prom.out" 2>&1 &
PROM_PID=$!
STARTED+=($PROM_PID)
# targets: "worker generation gang dp_rank group_index role job_id node instance" for each active target, sorted
targets() {
	curl -s "http://127.0.0.1:$PROM/api/v1/targets?state=active" | python3 -c '
import json, sys
d = sys.stdin.read()
if not d:
    sys.exit(1)    # Prometheus not answering yet
for t in json.loads(d)["data"]["activeTargets"]:
    l = t["labels"]
    if l.get("group", l["role"]) != l["role"]:
        print("group", l.get("group"), "is not the role", l["role"])
    print(l.get("worker", "-"), l.get("generation", "-"), l.get("gang", "-"), l.get("dp_rank", "-"), l.get("group_index", "-"), l["role"], l["job_id"], l["node"], l["instance"])
' | sort >"$T/targets"
}
four() { targets && [ "$(wc -l <"$T/targets")" = 4 ]; }
wait_for 30 four || fail "Prometheus did not discover 4 targets: $(cat "$T/targets"; tail -3 "$T/prom.out")"
ADDR=$("$TESTKIT" json-get <(adm /status) node_address.address 2>/dev/null || true)
[ -n "$ADDR" ] || { adm /status >"$T/st.json"; ADDR=$("$TESTKIT" json-get "$T/st.json" node_address.address); }
cat >"$T/want" <<EOF
- 1 - - - master test localhost 127.0.0.1:$ADMIN
- - - - - sidecar test localhost 127.0.0.1:$SIDE
agg_w0_r0 1 agg_w0 0 0 agg test localhost $ADDR:6100
agg_w0_r1 1 agg_w0 1 0 agg test localhost $ADDR:6132
EOF
sort -o "$T/want" "$T/want"
diff "$T/want" "$T/targets" >"$T/d" || fail "discovered targets differ (< wanted, > Prometheus): $(cat "$T/d")"
pass "Prometheus discovers through /sd: the sidecar, the master's metrics port and both DP ranks with job_id, node, role, group, group_index, worker, worker_index, dp_rank, gang and generation"

adm /status >"$T/st.json"
W1=$("$TESTKIT" json-get "$T/st.json" workers.1.pid)
kill -KILL "$W1"
next_gen() { targets && grep -q "^agg_w0_r1 2 agg_w0 1 0 " "$T/targets"; }
wait_for 30 next_gen || fail "the restarted worker is not discovered under generation 2: $(cat "$T/targets")"
pass "kill -9 of agg_w0_r1: Prometheus discovers it again under generation 2"

q() { curl -s -G "http://127.0.0.1:$PROM/api/v1/query" --data-urlencode "query=$1" >"$T/q.json" && ! grep -q '"result":\[\]' "$T/q.json"; }
wait_for 20 q 'mooncake_sidecar_upstream_scrape_up{target="master",role="sidecar"} == 1' ||
    fail "no upstream scrape series: $(cat "$T/q.json")"
q 'mooncake_sidecar_upstream_up{target="master"} == 1' || fail "upstream_up{target=master}: $(cat "$T/q.json")"
pass "mooncake_sidecar_upstream_up and _upstream_scrape_up{target=\"master\"} 1, with the scrape's duration"

# The workers' own /metrics (vLLM's vllm:mooncake_store_operation_* families) scraped through the
# discovery: every store panel of the dashboard returns data, by node and role.
worker_up() { q 'up{role="agg", worker="agg_w0_r0"} == 1'; }
wait_for 20 worker_up || fail "the worker's /metrics is not scraped: $(cat "$T/q.json")"
python3 - "$top_srcdir/conf/grafana/mooncake-sidecar.json" >"$T/exprs" <<'PY'
import json, sys
for p in json.load(open(sys.argv[1]))["panels"]:
    for t in p["targets"]:
        if "vllm:" in t["expr"]:
            print(p["title"] + "\t" + t["expr"].replace("$instance", ".*").replace("$__rate_interval", "10s"))
PY
N=0
while IFS=$'\t' read -r title expr; do
	wait_for 20 q "$expr" || fail "store panel \"$title\": no data for $expr: $(cat "$T/q.json")"
	N=$((N + 1))
done <"$T/exprs"
[ "$N" -ge 4 ] || fail "only $N store queries in the dashboard"
q 'sum by (node, role) (rate(vllm:mooncake_store_operation_bytes_total[10s])) > 0' && grep -q '"node":"localhost","role":"agg"' "$T/q.json" ||
    fail "store bytes by node and role: $(cat "$T/q.json")"
pass "the workers' vllm:mooncake_store_operation_* scraped with the job's labels: all $N store queries of the dashboard return data"
kill_quiet "$SC_PID"

# Two nodes: the head's /sd covers the job, the follower's processes from what its polls report; a
# follower's worker restarted shows under its next generation there; a lost node's targets go.
new_ports
routable_iface
# group HTTP_BASE: both nodes' workers (one each); on one machine each node's HTTP port its own
group() { echo '"workers": { "flavor": "vllm", "restart": { "backoff_initial_ms": 50 }, "ports": { "http_base": '"$1"' },
    "groups": [ { "role": "agg", "count": 2, "gpus": 1, "health": { "type": "http", "interval_ms": 100 },
    "command": ["'"$FAKE"'", "serve", "/m", "--port", "{http_port}"] } ] }'; }
read -r HB0 HB1 <<<"$("$TESTKIT" freeports 2 | tr '\n' ' ')"
two_nodes "$(group "$HB0")" "$(group "$HB1")"
mkdir -p "$T/w0" "$T/w1"
FAKE_WORKER_DIR=$T/w0 start_sidecar head
HEAD_PID=$SC_PID
FAKE_WORKER_DIR=$T/w1 start_sidecar worker1
W1_PID=$SC_PID
hsd() { curl -s "http://127.0.0.1:$HEAD_SIDE/sd" >"$T/hsd.json" && python3 - "$T/hsd.json" <<'PY' | sort >"$T/hsd"
import json, sys
for g in json.load(open(sys.argv[1])):
    l = g["labels"]
    print(l["node"], l["role"], l.get("worker", "-"), l.get("generation", "-"), g["targets"][0])
PY
}
has() { hsd && grep -q "$1" "$T/hsd"; }
wait_for 20 has "^worker1 agg agg_w1 1 $ADDR:" || fail "the head's /sd does not list worker1's worker: $(cat "$T/hsd")"
grep -q "^worker1 sidecar - - 127.0.0.1:$FSIDE$" "$T/hsd" && grep -q "^head agg agg_w0 1 " "$T/hsd" && grep -q "^head master " "$T/hsd" ||
    fail "the head's /sd: $(cat "$T/hsd")"
# Prometheus now discovers the job through the head alone (its configuration reloaded).
sed -i "s|http://127.0.0.1:$SIDE1/sd|http://127.0.0.1:$HEAD_SIDE/sd|" "$T/prom.yml"
kill -HUP "$PROM_PID"
both() { targets && grep -q "^agg_w1 1 - - 0 agg test worker1 $ADDR:$HB1$" "$T/targets" && grep -q "^agg_w0 1 - - 0 agg test head $ADDR:$HB0$" "$T/targets" &&
    [ "$(wc -l <"$T/targets")" = 5 ]; }
wait_for 30 both || fail "Prometheus through the head's /sd: $(cat "$T/targets")"
scraped() { q 'up{node="worker1", worker="agg_w1"} == 1' && q 'vllm:mooncake_store_operation_total{node="worker1", role="agg", operation="load_get"} > 0'; }
wait_for 20 scraped || fail "worker1's worker is not scraped through the head's discovery: $(cat "$T/q.json")"
pass "the head's /sd covers the job: Prometheus pointed at the head alone discovers and scrapes both nodes' sidecars and workers and the master, each under its node"
curl -s "http://127.0.0.1:$FSIDE/status" >"$T/w1st.json"
kill -KILL "$("$TESTKIT" json-get "$T/w1st.json" workers.0.pid)"
wait_for 20 has "^worker1 agg agg_w1 2 " || fail "the head's /sd does not show worker1's restarted worker: $(cat "$T/hsd")"
pass "kill -9 of worker1's worker: the head's /sd lists it under generation 2 (the follower told it at once)"
gone() { hsd && ! grep -q "^worker1 " "$T/hsd"; }
T0=$(now_ms)
kill -TERM "$W1_PID"
wait "$W1_PID" || fail "worker1's sidecar exit $?"
T1=$(now_ms)
gone || fail "worker1 stopped and exited: its targets stay in the head's /sd: $(cat "$T/hsd")"
p_gone() { targets && ! grep -q " worker1 " "$T/targets"; }
wait_for 20 p_gone || fail "Prometheus still has worker1's targets: $(cat "$T/targets")"
pass "worker1 stopped (SIGTERM): its targets left the head's /sd before its sidecar exited, $((T1 - T0)) ms after the signal (its last report said so), and Prometheus's targets $(( $(now_ms) - T0 )) ms later"
FAKE_WORKER_DIR=$T/w1 start_sidecar worker1
W1_PID=$SC_PID
wait_for 20 has "^worker1 agg agg_w1 1 $ADDR:" || fail "worker1 back: not in the head's /sd: $(cat "$T/hsd")"
# Its one stream stays open past the 40 s a report lasts: the head hears the node on it every 10 s.
N0=$(endpoints_ended "$HEAD_SIDE")
END=$(( $(now_ms) + 45000 ))
while [ "$(now_ms)" -lt "$END" ]; do
	has "^worker1 agg agg_w1 1 $ADDR:" || fail "worker1 alive, its stream open: its targets left the head's /sd: $(cat "$T/hsd")"
	sleep 1
done
[ "$(endpoints_ended "$HEAD_SIDE")" = "$N0" ] || fail "worker1's stream ended meanwhile ($N0 /endpoints requests ended, then $(endpoints_ended "$HEAD_SIDE")): not what this shows"
pass "worker1 alive on one stream for 45 s: its targets stay in the head's /sd past the 40 s a report lasts (heard again every 10 s on the open stream)"
kill_quiet "$W1_PID"
T0=$(now_ms)
wait_slowly 60 gone || fail "worker1's targets stay in the head's /sd after it was lost: $(cat "$T/hsd")"
pass "worker1 lost (its sidecar killed): its targets left the head's /sd $(( $(now_ms) - T0 )) ms later (heard at each poll, and every 10 s while its stream is open: dropped 40 s after the last)"
finish
