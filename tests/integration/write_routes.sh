#!/bin/bash
# admin.write_routes: the master's mutating routes (POST /api/v1/remove_all, /api/v1/drain_jobs,
# /api/v1/drain_jobs/cancel, PUT and DELETE /api/v1/tenant_quotas) are 405 unless it is on; on, they
# need admin.auth (never public), are forwarded once with their body (at most 1 MiB) and Content-Type,
# and answer what the master answers directly; every other method stays 405. -n refuses
# write_routes without admin.auth.
. "$(dirname "$0")/lib.sh"
export MC_STANDIN_START_DELAY_MS=100
head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$T/token"
TOKEN=$(cat "$T/token")
H="Authorization: Bearer $TOKEN"
new_ports
write_config off '"address": "127.0.0.1"' '"admin": { "listen": "127.0.0.1:@SIDE@", "auth": { "bearer_token_file": "'"$T/token"'" } }'
start_sidecar off
wait_for 10 notified 'READY=1' || fail "no READY=1"
code() { curl -s -o /dev/null -w '%{http_code}' "$@"; }
[ "$(code -X POST -H "$H" "http://127.0.0.1:$SIDE/api/v1/remove_all")" = 405 ] || fail "write_routes off: POST not 405"
grep_q "$EVENTS" '^write ' && fail "write_routes off: the master got a write"
pass "write_routes off (the default): POST /api/v1/remove_all with the token is 405, the master never sees it"
kill -TERM "$SC_PID"; wait "$SC_PID"
SIDECARS=()

python3 - "$T/off.json" "$T/noauth.json" <<'PY'
import json, sys
c = json.load(open(sys.argv[1])); del c["admin"]["auth"]; c["admin"]["write_routes"] = True
json.dump(c, open(sys.argv[2], "w"))
PY
OUT=$("$SIDECAR" -c "$T/noauth.json" -n 2>&1); RC=$?
[ "$RC" -eq 78 ] && grep -q 'admin.write_routes: the master.s mutating routes .* need admin.auth' <<<"$OUT" ||
    fail "-n with write_routes and no auth: $RC $OUT"
pass "-n refuses admin.write_routes without admin.auth"

new_ports
write_config on '"address": "127.0.0.1"' '"admin": { "listen": "127.0.0.1:@SIDE@", "write_routes": true, "auth": { "bearer_token_file": "'"$T/token"'" } }'
start_sidecar on
wait_for 10 notified 'READY=1' || fail "no READY=1"
[ "$(code -X POST "http://127.0.0.1:$SIDE/api/v1/remove_all")" = 401 ] || fail "a write without the token was not 401"
grep_q "$EVENTS" '^write ' && fail "a write without the token reached the master"
# the same request through the sidecar and to the master directly: status, content type and body
same() {	# same METHOD PATH [curl args]
	curl -s -X "$1" -D "$T/hs" -o "$T/bs" -H "$H" "${@:3}" "http://127.0.0.1:$SIDE$2"
	curl -s -X "$1" -D "$T/hd" -o "$T/bd" "${@:3}" "http://127.0.0.1:$ADMIN$2"
	[ "$(head -1 "$T/hs" | tr -d '\r')" = "$(head -1 "$T/hd" | tr -d '\r')" ] &&
	    [ "$(grep -i '^content-type' "$T/hs")" = "$(grep -i '^content-type' "$T/hd")" ] && cmp -s "$T/bs" "$T/bd" ||
	    fail "$1 $2: through the sidecar $(head -1 "$T/hs") $(cat "$T/bs"), direct $(head -1 "$T/hd") $(cat "$T/bd")"
}
same POST /api/v1/remove_all
same POST '/api/v1/remove_all?force=true'
same PUT '/api/v1/tenant_quotas?tenant_id=t1' -H 'Content-Type: application/json' -d '{"requested_quota_bytes": 1048576}'
same PUT '/api/v1/tenant_quotas?tenant_id=t1' -H 'Content-Type: application/json' -d 'not json'
same PUT /api/v1/tenant_quotas -d '{"requested_quota_bytes": 5}'
same DELETE '/api/v1/tenant_quotas?tenant_id=t1'
same POST /api/v1/drain_jobs -H 'Content-Type: application/json' -d '{"segment": "s1"}'
same POST /api/v1/drain_jobs/cancel -d '{}'
grep_q "$EVENTS" '^write /api/v1/tenant_quotas 34 ' || fail "the PUT body did not reach the master whole: $(grep '^write' "$EVENTS")"
pass "write_routes on: 401 without the token (not forwarded); with it remove_all, tenant_quotas PUT and DELETE, drain_jobs and its cancel answer as the master does directly, bodies forwarded whole"

head -c $((1024 * 1024 + 1)) /dev/zero | tr '\0' 'x' >"$T/big"
n=$(count "$EVENTS" '^write ')
[ "$(code -X PUT -H "$H" --data-binary @"$T/big" "http://127.0.0.1:$SIDE/api/v1/tenant_quotas?tenant_id=t1")" = 413 ] ||
    fail "a body over 1 MiB was not 413"
[ "$(count "$EVENTS" '^write ')" = "$n" ] || fail "a body over 1 MiB reached the master"
[ "$(code -X POST -H "$H" "http://127.0.0.1:$SIDE/health")" = 405 ] &&
    [ "$(code -X POST -H "$H" "http://127.0.0.1:$SIDE/api/v1/tenant_quotas")" = 405 ] &&
    [ "$(code -X PATCH -H "$H" "http://127.0.0.1:$SIDE/api/v1/tenant_quotas")" = 405 ] &&
    [ "$(code -X DELETE -H "$H" "http://127.0.0.1:$SIDE/api/v1/remove_all")" = 405 ] || fail "another method was not 405"
[ "$(code -H "$H" "http://127.0.0.1:$SIDE/health")" = 200 ] || fail "GET /health after the writes"
pass "a body over 1 MiB is 413 and not forwarded; POST /health, POST /api/v1/tenant_quotas, PATCH and DELETE /api/v1/remove_all are 405"
finish
