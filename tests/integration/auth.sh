#!/bin/bash
# admin.auth: with a bearer token file, every route but admin.public_routes (/livez, /readyz) answers
# 401 with WWW-Authenticate without the token or with a wrong one; the right one opens them all
# (the proxied master routes and /metrics too). --status --token-file, and a follower with the same
# configuration, speak it. A bad token file is a -n error naming the key.
. "$(dirname "$0")/lib.sh"
export MC_STANDIN_START_DELAY_MS=100
head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$T/token"
TOKEN=$(cat "$T/token")
AUTH='"auth": { "bearer_token_file": "'"$T/token"'" }'
new_ports
write_config a '"address": "127.0.0.1"' '"admin": { "listen": "127.0.0.1:@SIDE@", '"$AUTH"' }'
start_sidecar a
wait_for 10 notified 'READY=1' || fail "no READY=1"
code() { curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$SIDE$1" "${@:2}"; }
for r in /livez /readyz; do
	[ "$(code $r)" = 200 ] || fail "$r without a token: $(code $r)"
done
for r in /status /metrics /health /endpoints /gangs /role; do
	[ "$(code $r)" = 401 ] || fail "$r without a token: $(code $r)"
	[ "$(code $r -H "Authorization: Bearer wrong-token-0123456789")" = 401 ] || fail "$r with a wrong token"
	[ "$(code $r -H "Authorization: Bearer $TOKEN")" = 200 ] || fail "$r with the token: $(code $r -H "Authorization: Bearer $TOKEN")"
done
curl -s -D "$T/h" -o "$T/b" "http://127.0.0.1:$SIDE/status" >/dev/null
grep -qi '^WWW-Authenticate: Bearer realm="mooncake-sidecar"' "$T/h" && grep -q '"error"' "$T/b" ||
    fail "401 without WWW-Authenticate or a JSON error: $(cat "$T/h" "$T/b")"
pass "/livez and /readyz open; /status, /metrics, /endpoints, /gangs and the proxied /health, /role: 401 (WWW-Authenticate) without or with a wrong token, 200 with it"

"$SIDECAR" --status "http://127.0.0.1:$SIDE" >"$T/st.out" 2>&1; RC=$?
[ "$RC" -eq 77 ] && grep -q 'answered HTTP 401: it wants a bearer token (--token-file FILE)' "$T/st.out" ||
    fail "--status without a token: exit $RC: $(cat "$T/st.out")"
"$SIDECAR" --status "http://127.0.0.1:$SIDE" --token-file "$T/token" >"$T/st.out" 2>&1 || fail "--status --token-file: $(cat "$T/st.out")"
grep -q 'master: ready' "$T/st.out" || fail "--status: $(cat "$T/st.out")"
pass "--status: exit 77 naming --token-file without it, the summary with it"

follower_config f "$SIDE"
python3 - "$T/f.json" "$T/token" <<'PY'
import json, sys
c = json.load(open(sys.argv[1])); c["admin"]["auth"] = {"bearer_token_file": sys.argv[2]}
json.dump(c, open(sys.argv[1], "w"))
PY
start_sidecar f
wait_for 10 grep_q "$T/f/endpoints.json" '"ready": true' || fail "the follower did not mirror the head: $(tail -3 "$SC_OUT")"
pass "a follower with the same admin.auth mirrors the head through its token"

adm /metrics -H "Authorization: Bearer $TOKEN" | grep -q '^mooncake_sidecar_http_requests_total{route="unauthorized",code="401"} [1-9]' ||
    fail "401s not counted"
printf 'short\n' >"$T/short"
sed "s|$T/token|$T/short|" "$T/a.json" >"$T/bad.json"
"$SIDECAR" -n -c "$T/bad.json" >"$T/n.out" 2>&1 && fail "-n accepted a 5-character token"
grep -q "admin.auth.bearer_token_file: $T/short: the token is 5 characters long; it must be 16 to 4096" "$T/n.out" ||
    fail "-n: $(cat "$T/n.out")"
sed "s|$T/token|$T/missing|" "$T/a.json" >"$T/bad.json"
"$SIDECAR" -n -c "$T/bad.json" >"$T/n.out" 2>&1 && fail "-n accepted a missing token file"
grep -q "admin.auth.bearer_token_file: $T/missing: No such file or directory" "$T/n.out" || fail "-n: $(cat "$T/n.out")"
pass "401s counted in the metrics; -n refuses a short or missing token file, naming the key"
finish
