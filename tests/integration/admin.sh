#!/bin/bash
# The admin server: every route in every master state (starting, ready, backoff, fatal, hung),
# 405/404/400/413, CR/LF injection, HEAD on proxied routes, /metrics through promtool, and 200
# concurrent requests to a hung master while /livez, /status and /metrics keep answering.
. "$(dirname "$0")/lib.sh"
PROXIED="/health /role /leader /ha_status /metrics/summary /kv_events/status /query_key?key=x
/batch_query_keys?keys=k1,k2 /get_all_keys /get_all_segments /get_segments_detail /query_segment?segment=s
/api/v1/drain_jobs/query?job_id=j /api/v1/segments/status?segment=s /api/v1/tenant_quotas"
state_is() { adm /status | grep -q "\"state\": \"$1\""; }
json_state() { grep -q "\"state\":\"$2\"" <<<"$1"; }

# starting: the master's admin port is not open yet.

new_ports
write_config st '' '"admin": { "listen": "127.0.0.1:@SIDE@", "debug_routes": true }'
MC_STANDIN_START_DELAY_MS=4000 start_sidecar st
wait_for 5 state_is starting || fail "never starting"
wait_for 5 curl -sf -o /dev/null "http://127.0.0.1:$META/health" || fail "metadata never up"
for p in $PROXIED; do
	B=$(adm "$p"); C=$(adm_code "$p")
	[ "$C" = 502 ] && json_state "$B" starting || fail "starting $p: $C $B"
done
pass "starting: proxied routes 502 with {\"error\",\"state\":\"starting\"}"
[ "$(adm /livez)" = ok ] && [ "$(adm_code /readyz)" = 503 ] && adm /readyz | grep -q '^not ready: master starting' ||
    fail "starting livez/readyz"
adm /metrics | grep -q '^mooncake_sidecar_master_ready 0$' || fail "starting metrics"
[ "$(adm_code /endpoints)" = 503 ] || fail "/endpoints before any generation"
"$SIDECAR" --status "http://127.0.0.1:$SIDE" >"$T/status.txt"; RC=$?
[ "$RC" -eq 3 ] && grep -q 'master: starting' "$T/status.txt" || fail "--status while starting: $RC"
pass "starting: /livez ok, /readyz 503 with the reason, /metrics says not ready, --status exits 3"
kill_quiet "$SC_PID"

# ready: the same status, content type and body as the master itself.
MC_STANDIN_KEYS='a:b/c=4096,k1=1024,p+q=8' up r '"liveness_failures": 1000' '"admin": { "listen": "127.0.0.1:@SIDE@", "debug_routes": true }'
for p in $PROXIED; do
	HS=$(curl -s -D - -o "$T/side.body" "http://127.0.0.1:$SIDE$p")
	curl -s -D "$T/direct.hdr" -o "$T/direct.body" "http://127.0.0.1:$ADMIN$p"
	cmp -s "$T/side.body" "$T/direct.body" || fail "$p body differs"
	[ "$(head -1 <<<"$HS" | tr -d '\r')" = "$(head -1 "$T/direct.hdr" | tr -d '\r')" ] || fail "$p status differs"
	CTD=$(grep -i '^content-type:' "$T/direct.hdr" | tr -d '\r')
	[ -z "$CTD" ] || grep -qi "^$CTD" <<<"$(tr -d '\r' <<<"$HS")" || fail "$p content type differs"
	grep -qi "^X-Mooncake-Sidecar-Upstream: 127.0.0.1:$ADMIN" <<<"$HS" || fail "$p: no upstream header"
	grep -qi '^Cache-Control: no-store' <<<"$HS" || fail "$p: no Cache-Control"
done
pass "ready: $(wc -w <<<"$PROXIED") proxied routes pass status, content type and body through, with the upstream header"
# The master reads /query_key's value undecoded and the others' decoded: the query must reach it
# byte for byte, '+' and escapes as the client wrote them.
for q in '/query_key?key=a:b/c' '/query_key?key=a%3Ab%2Fc' '/query_key?key=p+q' '/query_key?x&key=k1&key=a:b/c' \
    '/batch_query_keys?keys=a%3Ab%2Fc,k1,zz' '/batch_query_keys?keys=p%2Bq,p+q'; do
	[ "$(adm "$q")" = "$(direct "$q")" ] && [ "$(adm_code "$q")" = "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$ADMIN$q")" ] ||
	    fail "$q: $(adm "$q") vs $(direct "$q")"
done
adm '/query_key?key=a:b/c' | grep -q '"size_":4096' && [ "$(adm_code '/query_key?key=a%3Ab%2Fc')" = 404 ] &&
    adm '/query_key?key=p+q' | grep -q '"size_":8' && adm '/batch_query_keys?keys=a%3Ab%2Fc,k1,zz' |
    grep -q '"a:b/c":{"ok":true.*"k1":{"ok":true.*"zz":{"ok":false' || fail "stored keys not found through the sidecar"
pass "queries reach the master as sent: /query_key?key=a:b/c finds the key, a%3Ab%2Fc does not, p+q does; batch decodes"
for p in /health /role; do
	H=$(curl -s -I "http://127.0.0.1:$SIDE$p")
	[ "$(head -1 <<<"$H" | awk '{print $2}')" = 200 ] || fail "HEAD $p: $(head -1 <<<"$H")"
	[ "$(curl -s -I -o /dev/null -w '%{size_download}' "http://127.0.0.1:$SIDE$p")" = 0 ] || fail "HEAD body"
done
[ "$(curl -s -o /dev/null -w '%{http_code}' -I "http://127.0.0.1:$ADMIN/health")" = 404 ] || fail "stand-in HEAD"
pass "HEAD on proxied routes: GET upstream (the master 404s HEAD), 200 without a body"
[ "$(adm_code /health -X POST)" = 405 ] && curl -s -D - -o /dev/null -X DELETE "http://127.0.0.1:$SIDE/role" | grep -qi '^Allow: GET, HEAD' ||
    fail "405/Allow"
[ "$(adm_code /nope)" = 404 ] && [ "$(adm /nope)" = '{"error":"not found","path":"/nope"}' ] || fail "404"
[ "$(adm_code '/query_key?key=a%0d%0aX-Injected:%201')" = 400 ] || fail "CR/LF in the query"
[ "$(adm_code '/query_key?key=a%00b')" = 400 ] || fail "NUL in the query"
[ "$(adm_code '/he%0d%0alth')" = 400 ] || fail "CR/LF in the path"
[ "$(adm_code /livez -X GET -d body)" = 413 ] || fail "request body"
[ "$(adm_code /livez -H "X-Big: $(head -c 9000 /dev/zero | tr '\0' a)")" = 431 ] || fail "9 KiB header"
# the cap the README names: 3 KiB of headers pass, 4 KiB do not (each connection's buffer is 4 KiB)
[ "$(adm_code /livez -H "X-Big: $(head -c 3000 /dev/zero | tr '\0' a)")" = 200 ] || fail "3 KiB header refused"
[ "$(adm_code /livez -H "X-Big: $(head -c 4000 /dev/zero | tr '\0' a)")" = 431 ] || fail "4 KiB header taken"
pass "405 with Allow, 404 JSON, 400 on CR/LF/NUL (never forwarded), 413 on a body, 431 on 4 KiB of headers (3 KiB pass)"
for p in /livez /readyz /status /endpoints /metrics /health /nope; do
	H=$(curl -s -D - -o /dev/null "http://127.0.0.1:$SIDE$p" | tr -d '\r')
	grep -qi '^Content-Type: .' <<<"$H" && grep -qi '^Cache-Control: no-store' <<<"$H" || fail "$p headers: $H"
done
pass "every response carries Content-Type and Cache-Control: no-store"
S=$(adm /status)
for k in '"version"' '"node": "localhost"' '"job_id": "test"' '"uptime_s"' '"ready": true' '"state": "ready"' \
    "\"pid\": $MP" '"restarts": 0' '"last_exit": null' '"ready_since": "20' "\"rpc\": $RPC" "\"metadata\": $META" \
    "\"admin\": $ADMIN" '"probes"' '"workers": \[\]' '"endpoints"' '"generation": 1'; do
	grep -q "$k" <<<"$S" || fail "/status lacks $k: $S"
done
pass "/status has every field of the contract"
[ "$(adm /readyz)" = ready ] || fail "readyz when ready"
"$SIDECAR" --status "http://127.0.0.1:$SIDE" >"$T/status.txt" || fail "--status exit when ready"
grep -q "master: ready, pid $MP, 0 restarts" "$T/status.txt" || fail "--status text: $(cat "$T/status.txt")"
pass "/readyz ready; --status prints the summary and exits 0"
adm /metrics >"$T/metrics.txt"
grep -q '^master_key_count 3$' "$T/metrics.txt" && grep -q '^mooncake_sidecar_master_ready 1$' "$T/metrics.txt" ||
    fail "metrics lack the master's or the sidecar's families"
grep -q '^mooncake_sidecar_operations_total{operation="probe_admin",status="ok"} [1-9]' "$T/metrics.txt" &&
    grep -q '^mooncake_sidecar_operations_total{operation="proxy",status="ok"} [1-9]' "$T/metrics.txt" &&
    grep -q '^mooncake_sidecar_operations_total{operation="spawn",status="ok"} 1$' "$T/metrics.txt" &&
    grep -q '^mooncake_sidecar_http_requests_total{route="/health",code="200"} [1-9]' "$T/metrics.txt" &&
    grep -q '^mooncake_sidecar_child_state{child="mooncake_master",state="ready"} 1$' "$T/metrics.txt" &&
    grep -q '^process_resident_memory_bytes [1-9]' "$T/metrics.txt" || fail "sidecar metrics values"
pass "/metrics: the sidecar's families (probes, proxy, spawn, http, child state, process) then the master's"
command -v promtool >/dev/null || fail "promtool is not installed (scripts/deps.sh installs prometheus)"
# The sidecar's own part must be lint-clean; the whole must parse (exit 1 is a parse error). The
# master's names are passed through unchanged, and promtool lints three of them (master_key_count,
# master_soft_pin_key_count, total_get_nums_): any finding must name a master family.
sed '/^# HELP master_allocated_bytes /,$d' "$T/metrics.txt" >"$T/own.txt"
promtool check metrics <"$T/own.txt" >"$T/promtool.out" 2>&1 || fail "promtool on the sidecar's part: $(cat "$T/promtool.out")"
promtool check metrics <"$T/metrics.txt" >"$T/promtool.out" 2>&1; RC=$?
[ "$RC" -eq 0 ] || { [ "$RC" -eq 3 ] && ! grep -q '^mooncake_sidecar\|^process_' "$T/promtool.out"; } ||
    fail "promtool on the whole: exit $RC $(cat "$T/promtool.out")"
[ "$(grep -c '^# TYPE ' "$T/metrics.txt")" = "$(grep '^# TYPE ' "$T/metrics.txt" | awk '{print $3}' | sort -u | wc -l)" ] ||
    fail "a metric family appears twice"
pass "promtool: the sidecar's part is clean, the whole parses (findings only on the master's own names), no family twice"
kill -TERM "$SC_PID"; wait "$SC_PID"

# backoff and fatal
new_ports
write_config b '"restart": { "backoff_initial_ms": 60000, "backoff_max_ms": 60000, "burst": 5 }'
MC_STANDIN_START_DELAY_MS=100 MC_STANDIN_CRASH_AFTER_MS=300 start_sidecar b
wait_for 10 state_is backoff || fail "never in backoff"
B=$(adm /health)
[ "$(adm_code /health)" = 503 ] && json_state "$B" backoff || fail "backoff /health: $B"
adm /readyz | grep -q '^not ready: master backoff: exited with code 1; restarting in 60000 ms' || fail "backoff readyz"
grep -q '"code": 1' <<<"$(adm /status)" || fail "last_exit code"
pass "backoff: proxied 503 {\"state\":\"backoff\"}, /readyz says why, /status last_exit code 1"
# admin.debug_routes off (the default): the routes that list the store's keys, segments, tenants or
# jobs are not there at all; the others still proxy.
for p in /query_key?key=x /batch_query_keys?keys=a /get_all_keys /get_all_segments /get_segments_detail \
    /query_segment?segment=s /api/v1/drain_jobs/query /api/v1/segments/status /api/v1/tenant_quotas; do
	[ "$(adm_code "$p")" = 404 ] && adm "$p" | grep -q '"error":"not found"' || fail "debug route $p: $(adm_code "$p") $(adm "$p")"
done
[ "$(adm_code /kv_events/status)" = 503 ] || fail "/kv_events/status is not a debug route"
pass "admin.debug_routes false (the default): the 9 routes that list the store answer 404; /health, /kv_events/status and the rest proxy"
kill_quiet "$SC_PID"
new_ports
write_config f '"restart": { "backoff_initial_ms": 10, "burst": 1 }'
MC_STANDIN_START_DELAY_MS=100 MC_STANDIN_CRASH_AFTER_MS=200 MC_STANDIN_CRASH_SIGNAL=11 start_sidecar f
wait_for 10 state_is fatal || fail "never fatal"
B=$(adm /role)
[ "$(adm_code /role)" = 503 ] && json_state "$B" fatal || fail "fatal /role: $B"
grep -q '"signal": 11' <<<"$(adm /status)" || fail "last_exit signal"
"$SIDECAR" --status "http://127.0.0.1:$SIDE" >/dev/null; [ $? -eq 3 ] || fail "--status exit when fatal"
pass "fatal: proxied 503 {\"state\":\"fatal\"}, last_exit signal 11, --status exits 3"
kill_quiet "$SC_PID"

# hung: 200 concurrent proxied requests wait for the upstream timeout; the own routes do not.
MC_STANDIN_START_DELAY_MS=100 MC_STANDIN_HANG_ADMIN_AFTER_MS=500 up h '"liveness_failures": 1000, "stall_restart_ms": 0' '"admin": { "listen": "127.0.0.1:@SIDE@", "upstream_timeout_ms": 1500, "max_connections_per_ip": 0 }'
wait_for 5 grep_q "$SC_OUT" 'liveness probe failed' || fail "hang not seen"
"$TESTKIT" flood "$SIDE" /health 200 5000 >"$T/flood.out" &
FP=$!
MAX=0
for i in $(seq 20); do
	L=$(curl -s -o /dev/null -w '%{time_total}' "http://127.0.0.1:$SIDE/livez")
	S=$(curl -s -o /dev/null -w '%{time_total}' "http://127.0.0.1:$SIDE/status")
	M=$(curl -s -o /dev/null -w '%{time_total}' "http://127.0.0.1:$SIDE/metrics")
	MAX=$(awk -v a="$MAX" -v b="$L" -v c="$S" -v d="$M" 'BEGIN{m=a; if(b>m)m=b; if(c>m)m=c; if(d>m)m=d; print m}')
done
wait "$FP"
grep -q '^504 200$' "$T/flood.out" || fail "flood: $(cat "$T/flood.out")"
awk -v m="$MAX" 'BEGIN{exit !(m < 0.5)}' || fail "own routes took up to $MAX s while the master hung"
pass "hung master: 200 concurrent /health all 504; /livez, /status, /metrics answered meanwhile (slowest $MAX s, upstream timeout 1.5 s)"
[ "$(adm_code /health)" = 504 ] && json_state "$(adm /health)" ready || fail "504 body"
pass "504 body names the master state"
finish
