#!/bin/bash
# The endpoint files: written once the master is proven ready, what they say (srtctl's names and
# precedence, store_config verbatim, values that sh reads back exactly), atomic under a reader that
# parses them 40,000 times while the master is killed over and over, generation +1 per restart,
# ready:false on death and on stop, a previous run's file marked not ready, the sglang flavor.
. "$(dirname "$0")/lib.sh"
export MC_STANDIN_START_DELAY_MS=50
export MCS_DEVICE=mlx5_0
TRICKY='a "quoted" $HOME `tick` back\slash
second line  '
export TRICKY
ENDPOINTS='"endpoints": { "flavor": "vllm",
    "store_config": { "metadata_server": "P2PHANDSHAKE", "global_segment_size": "100GB", "new_upstream_field": 42,
                      "device_name": "${MCS_DEVICE}", "master_server_address": "overridden:1", "protocol": "tcp" },
    "env": { "MOONCAKE_MASTER": "ignored:9999", "MOONCAKE_LOCAL_HOSTNAME": "custom-rdma-nic",
             "MC_STORE_CLIENT_METRIC": "1", "TRICKY": "${TRICKY}" } }'
new_ports
write_config e '"address": "127.0.0.1", "restart": { "backoff_initial_ms": 20, "reset_after_ms": 0, "burst": 1000 }' "$ENDPOINTS"
[ ! -e "$T/e/endpoints.json" ] || fail "files before the master started"
rmdir "$T/e"	# the sidecar creates its run directory (0750)
start_sidecar e
wait_for 10 notified 'READY=1' || fail "no READY=1"
D=$T/e
for f in endpoints.json mooncake.env mooncake_store_config.json; do
	[ -f "$D/$f" ] && [ "$(stat -c %a "$D/$f")" = 644 ] || fail "$f missing or not 0644"
	[ "$(stat -c %a "$D")" = 750 ] || fail "the run dir the sidecar created is $(stat -c %a "$D"), not 0750"
done
ls "$D" | grep -q '\.tmp\.' && fail "temporary files left behind"
pass "READY=1 after all three files are in place (mode 0644, the run dir the sidecar made 0750, no temporaries left)"
MP=$(master_pid e)
J=$(cat "$D/endpoints.json")
for k in '"generation": 1' '"ready": true' '"job_id": "test"' '"node": "localhost"' '"address": "127.0.0.1"' \
    "\"rpc\": \"127.0.0.1:$RPC\"" "\"metadata_url\": \"http://127.0.0.1:$META/metadata\"" \
    "\"admin_url\": \"http://127.0.0.1:$ADMIN\"" "\"pid\": $MP" '"restarts": 0' '"ready_at": "20' \
    "\"admin_url\": \"http://127.0.0.1:$SIDE\""; do
	grep -qF "$k" <<<"$J" || fail "endpoints.json lacks $k: $J"
done
[ "$(adm /endpoints)" = "$J" ] || fail "/endpoints differs from endpoints.json"
adm /metrics >"$T/m1.txt"
grep -q '^mooncake_sidecar_endpoints_generation 1$' "$T/m1.txt" && grep -q '^mooncake_sidecar_endpoints_ready 1$' "$T/m1.txt" ||
    fail "generation and ready gauges: $(grep endpoints_ "$T/m1.txt")"
pass "endpoints.json says generation 1, ready, the master's addresses and pid; /endpoints serves it; the gauges follow"
get() { sh -c '. "$1"; printf %s "$(eval printf %s \"\$$2\")"' _ "$D/mooncake.env" "$1"; }
[ "$(get MOONCAKE_MASTER)" = "127.0.0.1:$RPC" ] || fail "MOONCAKE_MASTER $(get MOONCAKE_MASTER)"
[ "$(get MOONCAKE_TE_META_DATA_SERVER)" = "http://127.0.0.1:$META/metadata" ] || fail "TE_META"
[ "$(get MOONCAKE_CONFIG_PATH)" = "$D/mooncake_store_config.json" ] || fail "CONFIG_PATH"
[ "$(get MOONCAKE_LOCAL_HOSTNAME)" = custom-rdma-nic ] || fail "LOCAL_HOSTNAME override"
[ "$(get MC_STORE_CLIENT_METRIC)" = 1 ] || fail "passthrough"
pass "mooncake.env: forced MOONCAKE_MASTER/TE_META_DATA_SERVER/CONFIG_PATH, LOCAL_HOSTNAME overridable, env passed through"
V=$(sh -c '. "$1"; printf %s "$TRICKY"' _ "$D/mooncake.env")
[ "$V" = "$TRICKY" ] || fail "sh read back '$V'"
pass "a value with quotes, \$, backticks, a backslash, a newline and trailing spaces reads back exactly through sh"
EXPECT="{
  \"metadata_server\": \"P2PHANDSHAKE\",
  \"global_segment_size\": \"100GB\",
  \"new_upstream_field\": 42,
  \"device_name\": \"mlx5_0\",
  \"master_server_address\": \"127.0.0.1:$RPC\",
  \"protocol\": \"tcp\",
  \"local_hostname\": \"custom-rdma-nic\"
}"
[ "$(cat "$D/mooncake_store_config.json")" = "$EXPECT" ] || fail "store config: $(cat "$D/mooncake_store_config.json")"
pass "store config: verbatim order and types, \${VAR} expanded, master_server_address replaced in place, local_hostname as mooncake.env says"

# A reader parses the files 40,000 times while the master is killed again and again.
"$TESTKIT" read-endpoints "$D" 40000 >"$T/reader.out" &
RP=$!
KILLS=0
while alive "$RP" && [ $KILLS -lt 40 ]; do
	M=$(master_pid e)
	kill -KILL "$M" 2>/dev/null || continue
	KILLS=$((KILLS + 1))
	wait_for 10 notified "STATUS=master ready (gen $((KILLS + 1))," || fail "not ready after kill $KILLS"
done
wait "$RP"
read -r _ READS _ PARTIAL _ READY _ GENS _ BACK _ STALE _ TORN _ MIXED _ LAST <"$T/reader.out"
[ "$KILLS" -ge 3 ] || fail "only $KILLS kills during the reads"
[ "$PARTIAL" -eq 0 ] && [ "$BACK" -eq 0 ] && [ "$MIXED" -eq 0 ] || fail "reader: $(cat "$T/reader.out")"
pass "$READS reads during $KILLS kill -9: none partial or mixed, generation never went back ($(cat "$T/reader.out"))"
awk -v s="$STALE" 'BEGIN{exit !(s < 100)}' || fail "ready:true stayed up to $STALE ms after its master was gone"
pass "ready:true never outlived its master by more than the sidecar's reaction time (max $STALE ms)"
[ "$(grep -c 'endpoints: generation [0-9]* ready' "$SC_OUT")" -eq $((KILLS + 1)) ] || fail "ready writes != restarts + 1"
grep -q "\"generation\": $((KILLS + 1))," "$D/endpoints.json" || fail "final generation"
grep -q "\"restarts\": $KILLS," "$D/endpoints.json" || fail "restarts in endpoints.json"
pass "generation went up exactly once per restart: $((KILLS + 1)) after $KILLS kills"
N=$(grep -c 'endpoints: generation [0-9]* not ready' "$SC_OUT")
[ "$N" -eq "$KILLS" ] || fail "$N not-ready writes for $KILLS deaths"
pass "each death wrote ready:false (same generation) before the restart"
kill -TERM "$SC_PID"; wait "$SC_PID"
grep -q '"ready": false' "$D/endpoints.json" || fail "ready after stop"
pass "SIGTERM: endpoints.json says ready:false"
GEN=$(sed -n 's/.*"generation": \([0-9]*\),.*/\1/p' "$D/endpoints.json")

# A new sidecar on the same run directory, with the file claiming ready: marked not ready at once,
# generation continued.
sed -i 's/"ready": false/"ready": true/' "$D/endpoints.json"
MC_STANDIN_START_DELAY_MS=1000 start_sidecar e
wait_for 5 grep_q "$SC_OUT" "marked the previous run's" || fail "stale file not marked"
grep -q '"ready": false' "$D/endpoints.json" || fail "stale file still says ready"
wait_for 10 notified 'READY=1' || fail "no READY=1"
grep -q "\"generation\": $((GEN + 1))," "$D/endpoints.json" || fail "generation did not continue from $GEN"
# One counter wherever it is shown: STATUS=, /status (master and endpoints), the ETag, the gauge.
grep -q "READY=1|STATUS=master ready (gen $((GEN + 1))," "$NOTIFY_OUT" || fail "STATUS= says another generation: $(grep READY=1 "$NOTIFY_OUT")"
adm /status >"$T/status.json"
adm /metrics >"$T/metrics.txt"
curl -s -D "$T/ep.hdr" -o /dev/null "http://127.0.0.1:$SIDE/endpoints"
[ "$("$TESTKIT" json-get "$T/status.json" master.generation)" = $((GEN + 1)) ] &&
    [ "$("$TESTKIT" json-get "$T/status.json" endpoints.generation)" = $((GEN + 1)) ] &&
    grep -qi "^etag: \"\?$((GEN + 1))-ready" "$T/ep.hdr" &&
    grep -q "^mooncake_sidecar_endpoints_generation $((GEN + 1))$" "$T/metrics.txt" ||
    fail "/status, ETag or gauge: $(cat "$T/ep.hdr") $(grep endpoints_generation "$T/metrics.txt") $(cat "$T/status.json")"
pass "a previous run's ready:true file is marked not ready at start; generation continues ($GEN -> $((GEN + 1))) in the files, STATUS=, /status, the ETag and the gauge"
kill -TERM "$SC_PID"; wait "$SC_PID"

# sglang, no metadata server: env only, no TE metadata variable, no store config.
new_ports
META=0
write_config g '"address": "127.0.0.1"' '"endpoints": { "flavor": "sglang", "env": { "MOONCAKE_PROTOCOL": "rdma" } }'
start_sidecar g
wait_for 10 notified 'READY=1' || fail "sglang: no READY=1"
[ ! -e "$T/g/mooncake_store_config.json" ] || fail "store config written for sglang"
grep -q MOONCAKE_TE_META_DATA_SERVER "$T/g/mooncake.env" && fail "TE metadata without a metadata server"
grep -q MOONCAKE_CONFIG_PATH "$T/g/mooncake.env" && fail "CONFIG_PATH for sglang"
grep -q '"metadata_url": null' "$T/g/endpoints.json" || fail "metadata_url not null"
grep -q '^MOONCAKE_PROTOCOL="rdma"$' "$T/g/mooncake.env" || fail "sglang env"
pass "sglang without a metadata server: env file only, no TE metadata or config path, metadata_url null"
finish
