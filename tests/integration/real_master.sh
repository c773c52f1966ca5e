#!/bin/bash
# The sidecar on the real mooncake_master (built once by scripts/real-master.sh, or the one on PATH,
# or MCS_REAL_MASTER): start -> ready -> READY=1 (time printed), the proxied routes the same as a
# direct request, /metrics with the master's families, kill -9 -> respawn -> ready again, the
# endpoint files and --status of a real run, SIGTERM -> the master's graceful shutdown, exit 0, and
# each port held by a stranger (what the real master does is printed; the sidecar never says ready).
# Without a binary it says why and is skipped; under CI=true that is a failure.
. "$(dirname "$0")/lib.sh"
need_real_master
echo "   real master: $REAL ($("$REAL" --version 2>&1 | head -1))"
REAL_VERSION=$("$REAL" --version 2>&1 | head -1 | sed -n 's/^[^ ]* version \([^ ]*\).*/\1/p')
use_real() { sed -i "s|\"command\": \\[\"$STANDIN\"\\]|\"command\": [\"$REAL\"]|" "$T/$1.json"; }

# Start to READY=1.
new_ports
write_config r '"address": "127.0.0.1", "ready_timeout_ms": 20000, "extra_args": ["--rpc_address=127.0.0.1", "--metrics_host=127.0.0.1"]' '"admin": { "listen": "127.0.0.1:@SIDE@", "debug_routes": true }'
use_real r
start_sidecar r
wait_for 20 notified 'READY=1' || fail "the real master never became ready: $(tail -5 "$T/r/mooncake_master.log")"
T_START=$(awk 'NR==1 {print $1}' "$NOTIFY_OUT")
T_READY=$(awk '/READY=1/ {print $1; exit}' "$NOTIFY_OUT")
MS=$(( (T_READY - T_START) / 1000000 ))
MP=$(master_pid r)
[ "$(cat /proc/"$MP"/comm)" = mooncake_master ] || fail "pid $MP is $(cat /proc/"$MP"/comm)"
grep -q 'Master admin server started on port' "$T/r/mooncake_master.log" || fail "the real master's log is not in its log file"
pass "real master ready: READY=1 $MS ms after the first STATUS (the master sleeps 1 s before its admin and RPC ports)"

# Proxied routes against a direct request: status and content type always; the body too where it
# does not change by the second (the summaries carry rates and uptimes: their line structure).
n=0
for p in /health /role /leader /ha_status /metrics/summary /kv_events/status '/query_key?key=nosuchkey' \
    '/query_key?key=a:b/c' '/batch_query_keys?keys=k1,k2' '/batch_query_keys?keys=a%3Ab,p+q' /get_all_keys \
    /get_all_segments /get_segments_detail '/query_segment?segment=s' '/api/v1/drain_jobs/query?job_id=j' \
    '/api/v1/segments/status?segment=s' /api/v1/segments/status /api/v1/tenant_quotas; do
	curl -s -D "$T/s.hdr" -o "$T/s.body" "http://127.0.0.1:$SIDE$p"
	curl -s -D "$T/d.hdr" -o "$T/d.body" "http://127.0.0.1:$ADMIN$p"
	[ "$(head -1 "$T/s.hdr" | tr -d '\r')" = "$(head -1 "$T/d.hdr" | tr -d '\r')" ] ||
	    fail "$p: $(head -1 "$T/s.hdr") vs $(head -1 "$T/d.hdr")"
	CT=$(grep -i '^content-type:' "$T/d.hdr" | tr -d '\r')
	[ -z "$CT" ] || grep -qi "^$CT\$" <(tr -d '\r' <"$T/s.hdr") || fail "$p: content type $CT not passed through"
	case $p in
	/metrics/summary) [ "$(sed 's/[0-9.]\+//g' "$T/s.body")" = "$(sed 's/[0-9.]\+//g' "$T/d.body")" ] || fail "$p: body shape differs" ;;
	*) cmp -s "$T/s.body" "$T/d.body" || fail "$p: body differs: $(head -c 200 "$T/s.body") vs $(head -c 200 "$T/d.body")" ;;
	esac
	n=$((n + 1))
done
pass "$n proxied requests (every GET route of its admin API): the real master's status and content type, and its body (the summary by shape)"
adm /metrics >"$T/metrics"
for fam in mooncake_sidecar_master_ready master_key_count master_total_capacity_bytes; do
	grep -q "^$fam" "$T/metrics" || fail "/metrics lacks $fam"
done
pass "/metrics: the sidecar's families, then the real master's ($(grep -c '^# TYPE master_' "$T/metrics") master_ families)"
# The lock probe on the real master: /batch_query_keys answers (the keys do not exist), no stall.
lock_ok() { adm /metrics | sed -n 's/^mooncake_sidecar_operation_duration_seconds_count{operation="probe_lock",status="ok"} //p'; }
wait_slowly 10 eval '[ "$(lock_ok)" -ge 2 ] 2>/dev/null' || fail "the lock probe does not answer on the real master: $(adm /metrics | grep probe_lock)"
[ "$(adm /metrics | sed -n 's/^mooncake_sidecar_master_stalled //p')" = 0 ] && [ "$(adm_code /readyz)" = 200 ] ||
    fail "the real master is called stalled: $(adm /readyz)"
pass "the lock probe answers on the real master ($(lock_ok) so far), not stalled, ready"

# The endpoint files and --status of a real run.
[ "$("$TESTKIT" json-get "$T/r/endpoints.json" master.pid)" = "$MP" ] && [ "$("$TESTKIT" json-get "$T/r/endpoints.json" ready)" = true ] ||
    fail "endpoints.json: $(cat "$T/r/endpoints.json")"
grep -q "^MOONCAKE_MASTER=\"127.0.0.1:$RPC\"$" "$T/r/mooncake.env" || fail "mooncake.env: $(cat "$T/r/mooncake.env")"
[ "$("$TESTKIT" json-get "$T/r/mooncake_store_config.json" master_server_address)" = "127.0.0.1:$RPC" ] || fail "store config"
"$SIDECAR" --status "http://127.0.0.1:$SIDE" >"$T/status.txt" || fail "--status: $(cat "$T/status.txt")"
grep -q "master: ready, pid $MP" "$T/status.txt" || fail "--status: $(cat "$T/status.txt")"
pass "endpoint files name the real master (pid $MP, rpc 127.0.0.1:$RPC); --status says ready"

# kill -9 -> respawn -> ready again.
kill -KILL "$MP"
wait_for 20 notified 'STATUS=master ready (gen 2,' || fail "not ready again after kill -9"
MP2=$(master_pid r)
[ "$MP2" != "$MP" ] && alive "$MP2" || fail "no new master"
[ "$("$TESTKIT" json-get "$T/r/endpoints.json" generation)" = 2 ] || fail "generation not 2"
pass "kill -9 of the real master: respawned (pid $MP2), ready again, generation 2"

# The operator's verbs on the real master, over the control socket: restart (a graceful stop, exit 0),
# stop and start, a kill -9 during a pause (not restarted) and resume, reload of a changed flag and of
# one the binary refuses (422 naming it, nothing restarted).
ctl() { "$SIDECAR" ctl -c "$T/r.json" "$@"; }
ctl restart master --wait=20 >"$T/ctl.out" 2>&1 || fail "ctl restart master: $(cat "$T/ctl.out")"
MP3=$(master_pid r)
[ "$MP3" != "$MP2" ] && alive "$MP3" && [ "$("$TESTKIT" json-get "$T/r/endpoints.json" generation)" = 3 ] ||
    fail "restart: pid $MP2 -> $MP3, generation $("$TESTKIT" json-get "$T/r/endpoints.json" generation)"
grep -q "mooncake_master: pid $MP2 exited with code 0" "$SC_OUT" || fail "the restarted master did not exit 0: $(grep "pid $MP2" "$SC_OUT")"
ctl stop master --wait=20 >"$T/ctl.out" 2>&1 || fail "ctl stop master: $(cat "$T/ctl.out")"
! alive "$MP3" && [ "$("$TESTKIT" json-get "$T/r/endpoints.json" ready)" = false ] || fail "stop: $MP3 alive or files ready"
grep -q "mooncake_master: pid $MP3 exited with code 0" "$SC_OUT" || fail "the stopped master did not exit 0"
ctl start master --wait=20 >"$T/ctl.out" 2>&1 || fail "ctl start master: $(cat "$T/ctl.out")"
MP4=$(master_pid r)
[ "$("$TESTKIT" json-get "$T/r/endpoints.json" ready)" = true ] && alive "$MP4" || fail "start: files not ready"
ctl pause >/dev/null || fail "ctl pause"
kill -KILL "$MP4"
wait_for 10 notified "STATUS=paused: master stopped" || fail "paused, killed: $(tail -2 "$NOTIFY_OUT")"
[ "$("$TESTKIT" json-get "$T/r/endpoints.json" ready)" = false ] || fail "files ready with the master killed during the pause"
ctl resume >/dev/null || fail "ctl resume"
wait_for 20 grep_q "$T/r/endpoints.json" '"ready": true' || fail "resume did not start the master"
MP5=$(master_pid r)
sed -i 's|"--metrics_host=127.0.0.1"\]|"--metrics_host=127.0.0.1", "--client_ttl=20"]|' "$T/r.json"
ctl reload >"$T/ctl.out" 2>&1 || fail "ctl reload: $(cat "$T/ctl.out")"
# the restart is begun, not done, when the answer comes: wait for the new master's files
wait_for 20 eval '[ -n "$(master_pid r)" ] && [ "$(master_pid r)" != "$MP5" ] && grep_q "$T/r/endpoints.json" "\"ready\": true"' ||
    fail "not ready after the reload"
MP6=$(master_pid r)
[ "$MP6" != "$MP5" ] && tr '\0' ' ' <"/proc/$MP6/cmdline" | grep -q -- '--client_ttl=20' || fail "reload: the master does not run --client_ttl=20"
sed -i 's|"--client_ttl=20"|"--metrics_hostname=x"|' "$T/r.json"
ctl reload >"$T/ctl.out" 2>&1 && fail "reload of a flag the binary refuses succeeded"
grep -q 'metrics_hostname' "$T/ctl.out" && [ "$(master_pid r)" = "$MP6" ] || fail "refused reload: $(cat "$T/ctl.out")"
sed -i 's|, "--metrics_hostname=x"||' "$T/r.json"
pass "ctl on the real master: restart (graceful, exit 0, gen 3), stop (exit 0, files not ready) and start, kill -9 while paused not restarted and resume started it, reload of --client_ttl=20 restarted it, --metrics_hostname refused (422) and nothing restarted"

# SIGTERM: the master shuts down gracefully, exits 0, the sidecar exits 0.
kill -TERM "$SC_PID"
wait "$SC_PID"; RC=$?
[ "$RC" = 0 ] || fail "sidecar exit $RC"
grep -q 'exited with code 0' "$SC_OUT" || fail "the real master did not exit 0: $(grep mooncake_master: "$SC_OUT" | tail -3)"
[ "$("$TESTKIT" json-get "$T/r/endpoints.json" ready)" = false ] || fail "files ready after the stop"
pass "SIGTERM: the real master exited 0 ($(grep -o 'Shutdown signal received[^,]*' "$T/r/mooncake_master.log" | head -1 || echo no shutdown line)), sidecar exit 0, files not ready"

# Each port held by a stranger: first what the real master does alone, then the sidecar.
for which in rpc metadata admin; do
	new_ports
	case $which in rpc) P=$RPC ;; metadata) P=$META ;; admin) P=$ADMIN ;; esac
	"$TESTKIT" hold "$P" 0.0.0.0 >"$T/hold.out" &
	HOLD=$!
	STARTED+=($HOLD)
	wait_for 5 grep_q "$T/hold.out" ready || fail "could not hold $P"
	timeout 10 "$REAL" --rpc_port="$RPC" --rpc_address=127.0.0.1 --enable_http_metadata_server=true \
	    --http_metadata_server_port="$META" --enable_metric_reporting=true --metrics_port="$ADMIN" \
	    --metrics_host=127.0.0.1 >"$T/alone.log" 2>&1
	ARC=$?
	echo "   $which port $P held: the real master alone exits $ARC$( [ $ARC -gt 128 ] && echo " (signal $((ARC - 128)))"): $(grep -m1 -o 'Failed[^:]*\(: .*\)\?' "$T/alone.log" | head -c 120)"
	write_config "h$which" '"address": "127.0.0.1", "restart": { "backoff_initial_ms": 200, "burst": 3, "burst_window_ms": 60000 }'
	use_real "h$which"
	start_sidecar "h$which"
	wait_for 15 grep_q "$SC_OUT" "port $P is already in use by pid $HOLD" || fail "$which: the holder was not named: $(tail -3 "$SC_OUT")"
	notified 'READY=1' && fail "$which: READY=1 while a stranger holds port $P"
	kill_quiet "$SC_PID" "$HOLD"
done
pass "each of the three ports held by a stranger: the sidecar names the port and the holder's pid and never says ready"

# admin.write_routes on the real master: each mutating route through the sidecar answers what the
# master answers directly (status, content type, body).
head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$T/token"
new_ports
write_config w '"address": "127.0.0.1", "ready_timeout_ms": 20000' '"admin": { "listen": "127.0.0.1:@SIDE@", "write_routes": true, "auth": { "bearer_token_file": "'"$T/token"'" } }'
use_real w
start_sidecar w
wait_for 20 notified 'READY=1' || fail "write routes: the real master never became ready"
same() {	# same METHOD PATH [curl args]
	curl -s -X "$1" -D "$T/hs" -o "$T/bs" -H "Authorization: Bearer $(cat "$T/token")" "${@:3}" "http://127.0.0.1:$SIDE$2"
	curl -s -X "$1" -D "$T/hd" -o "$T/bd" "${@:3}" "http://127.0.0.1:$ADMIN$2"
	[ "$(head -1 "$T/hs" | tr -d '\r')" = "$(head -1 "$T/hd" | tr -d '\r')" ] &&
	    [ "$(grep -i '^content-type' "$T/hs")" = "$(grep -i '^content-type' "$T/hd")" ] && cmp -s "$T/bs" "$T/bd" ||
	    fail "$1 $2: through the sidecar $(head -1 "$T/hs") $(cat "$T/bs"), direct $(head -1 "$T/hd") $(cat "$T/bd")"
	echo "   $1 $2: $(head -1 "$T/hd" | tr -d '\r' | cut -d' ' -f2-) $(head -c 90 "$T/bd")"
}
same POST /api/v1/remove_all
same PUT '/api/v1/tenant_quotas?tenant_id=t1' -H 'Content-Type: application/json' -d '{"requested_quota_bytes": 1048576}'
same PUT '/api/v1/tenant_quotas?tenant_id=t1' -H 'Content-Type: application/json' -d '{"requested_quota_bytes": 0}'
same DELETE '/api/v1/tenant_quotas?tenant_id=t1'
same POST /api/v1/drain_jobs -H 'Content-Type: application/json' -d '{}'
same POST /api/v1/drain_jobs/cancel -d '{}'
pass "write routes on the real master: remove_all, tenant_quotas PUT (two bodies) and DELETE, drain_jobs and its cancel through the sidecar answer as the master does directly"
# Its flags, asked by -n: one it does not know refused naming it and the version; valid ones pass;
# the second run from the cache.
export XDG_CACHE_HOME=$T/flags-cache
unset CACHE_DIRECTORY
new_ports
write_config fbad '"extra_args": ["--rpc_address=127.0.0.1", "--metrics_host=127.0.0.1", "--metrics_hostname=127.0.0.1"]'
use_real fbad
t0=$(now_ms); OUT=$("$SIDECAR" -n -c "$T/fbad.json" 2>&1); RC=$?; t1=$(now_ms)
[ "$RC" = 78 ] && grep -q "master.extra_args\[2\]: --metrics_hostname=127.0.0.1: mooncake_master $REAL_VERSION at $REAL has no flag \"metrics_hostname\"" <<<"$OUT" ||
    fail "-n on an unknown flag of the real master: exit $RC: $OUT"
t2=$(now_ms); "$SIDECAR" -n -c "$T/fbad.json" >/dev/null 2>&1; RC=$?; t3=$(now_ms)
[ "$RC" = 78 ] || fail "the second -n: exit $RC"
write_config fgood '"extra_args": ["--rpc_address=127.0.0.1", "--metrics_host=127.0.0.1", "--eviction_high_watermark_ratio=0.9", "--client_ttl", "20", "--noenable_ha"]'
use_real fgood
OUT=$("$SIDECAR" -n -c "$T/fgood.json" 2>&1) || fail "-n refused flags the real master takes: $OUT"
pass "flags against the real binary: --metrics_hostname refused naming it and $REAL_VERSION (exit 78); --metrics_host, --client_ttl 20, --noenable_ha pass; -n took $((t1 - t0)) ms asking it, $((t3 - t2)) ms from the cache"
finish
