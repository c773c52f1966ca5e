#!/bin/bash
# A real Prometheus and Alertmanager (Debian's) on loopback, with their own temporary storage,
# scraping a running sidecar (stand-in master, a gang of two workers) every second with conf/prometheus/alerts.yml
# loaded. Through their HTTP APIs: the target is up; the sidecar's and the master's series are
# there; every query of the Grafana dashboard evaluates without error and returns data; then the
# master is driven into fatal and MooncakeMasterFatal fires and reaches Alertmanager.
. "$(dirname "$0")/lib.sh"
CONF=$top_srcdir/conf
FAKE=$top_srcdir/tests/tools/fake-worker
for b in prometheus prometheus-alertmanager; do
	command -v "$b" >/dev/null || fail "$b is not installed (scripts/test.sh installs prometheus and prometheus-alertmanager)"
done
export MC_STANDIN_START_DELAY_MS=100 FAKE_WORKER_DIR=$T
new_ports
read -r PROM AM AMC <<<"$("$TESTKIT" freeports 3 | tr '\n' ' ')"

# The master runs through a wrapper that, once $T/crash exists, exits at once: a crash loop.
cat >"$T/master.sh" <<SH
#!/bin/sh
[ -e "$T/crash" ] && exit 3
exec "$STANDIN" "\$@"
SH
chmod +x "$T/master.sh"
write_config p '"restart": { "backoff_initial_ms": 10, "backoff_max_ms": 40, "burst": 3, "burst_window_ms": 60000 }' \
    '"workers": { "flavor": "vllm", "dp_launch_mode": "per_gpu", "groups": [ { "role": "agg", "count": 1,
      "gpus": 2, "dp": 2, "health": { "type": "none" }, "command": ["'"$FAKE"'", "serve", "/m", "--port", "{http_port}"] } ] }'
python3 - "$T/p.json" "$T/master.sh" "$T/p" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
c["master"]["command"] = [sys.argv[2]]
c["job"].update({"gpus_per_node": 2, "run_dir": sys.argv[3]})
json.dump(c, open(sys.argv[1], "w"))
PY
start_sidecar p
wait_for 10 notified 'READY=1' || fail "no READY=1"
for i in 1 2 3 4 5; do adm /health >/dev/null; done	# proxy traffic for the dashboard

cat >"$T/am.yml" <<YML
route: { receiver: "null", group_wait: 1s, group_interval: 1s, repeat_interval: 1h }
receivers: [ { name: "null" } ]
YML
cat >"$T/prom.yml" <<YML
global: { scrape_interval: 1s, evaluation_interval: 1s }
rule_files: [ "$CONF/prometheus/alerts.yml" ]
alerting:
  alertmanagers: [ { static_configs: [ { targets: [ "127.0.0.1:$AM" ] } ] } ]
scrape_configs:
  - job_name: mooncake-sidecar
    static_configs: [ { targets: [ "127.0.0.1:$SIDE" ] } ]
YML
prometheus-alertmanager --config.file="$T/am.yml" --storage.path="$T/am" --web.listen-address="127.0.0.1:$AM" \
    --cluster.listen-address="" >"$T/am.out" 2>&1 &
STARTED+=($!)
prometheus --config.file="$T/prom.yml" --storage.tsdb.path="$T/tsdb" --web.listen-address="127.0.0.1:$PROM" \
    >"$T/prom.out" 2>&1 &
STARTED+=($!)
# q EXPR: the query's JSON answer in $T/q.json; succeeds when Prometheus accepted it.
q() {
	curl -s -G "http://127.0.0.1:$PROM/api/v1/query" --data-urlencode "query=$1" >"$T/q.json" &&
	    grep -q '"status":"success"' "$T/q.json"
}
has_data() { q "$1" && ! grep -q '"result":\[\]' "$T/q.json"; }
wait_for 30 has_data 'up{job="mooncake-sidecar"} == 1' || fail "target not up: $(cat "$T/q.json"; tail -5 "$T/prom.out")"
pass "Prometheus scrapes the sidecar: up == 1"
for s in mooncake_sidecar_master_ready mooncake_sidecar_endpoints_ready 'mooncake_sidecar_child_up{child="agg_w0_r0"}' 'mooncake_sidecar_gang_generation{gang="agg_w0"}' \
    master_key_count master_total_capacity_bytes process_resident_memory_bytes; do
	wait_for 10 has_data "$s == 1 or $s >= 0" || fail "no series $s: $(cat "$T/q.json")"
done
pass "the sidecar's series (master, endpoint files, worker, process) and the master's own (keys, capacity) are in Prometheus"

# Every dashboard query, with Grafana's variables as Grafana would fill them.
python3 - "$CONF/grafana/mooncake-sidecar.json" >"$T/exprs" <<'PY'
import json, sys
for p in json.load(open(sys.argv[1]))["panels"]:
    for t in p["targets"]:
        if "vllm:" not in t["expr"]:	# the store's panels, from the workers: sd.sh
            print(p["title"] + "\t" + t["expr"].replace("$instance", ".*").replace("$__rate_interval", "10s"))
PY
N=0
while IFS=$'\t' read -r title expr; do
	q "$expr" || fail "panel \"$title\": Prometheus refused $expr: $(cat "$T/q.json")"
	wait_for 20 has_data "$expr" || fail "panel \"$title\": no data for $expr"
	N=$((N + 1))
done <"$T/exprs"
pass "all $N queries of the dashboard's panels on the sidecar and the master evaluate and return data (the store's, from the workers: sd.sh)"

q 'ALERTS{alertstate="firing"}' && grep -q '"result":\[\]' "$T/q.json" || fail "alerts firing on a healthy sidecar: $(cat "$T/q.json")"
touch "$T/crash"
kill -KILL "$(master_pid p)"
wait_for 10 notified 'STATUS=master fatal' || fail "the master did not go fatal"
firing() { q 'ALERTS{alertname="MooncakeMasterFatal", alertstate="firing"}' && ! grep -q '"result":\[\]' "$T/q.json"; }
wait_for 30 firing || fail "MooncakeMasterFatal does not fire: $(cat "$T/q.json")"
at_am() { curl -s "http://127.0.0.1:$AM/api/v2/alerts" >"$T/am.json" && grep -q '"alertname":"MooncakeMasterFatal"' "$T/am.json"; }
wait_for 30 at_am || fail "the alert did not reach Alertmanager: $(cat "$T/am.json"; tail -5 "$T/prom.out")"
grep -q '"summary":"mooncake_master on 127.0.0.1:'"$SIDE"' crashed too often' "$T/am.json" || fail "alert summary: $(cat "$T/am.json")"
pass "master driven into fatal: MooncakeMasterFatal fires in Prometheus and reaches Alertmanager with its summary"
finish
