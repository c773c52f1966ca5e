#!/bin/bash
# admin.auth: with a bearer token file, every route but admin.public_routes (/livez, /readyz) answers
# 401 with WWW-Authenticate without the token or with a wrong one; the right one opens them all
# (the proxied master routes and /metrics too). --status --token-file, and a follower with the same
# configuration, speak it. A bad token file is a -n error naming the key. basic_auth_users (bcrypt
# hashes) work beside the token, checked off the loop.
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

# Basic auth (basic_auth_users, bcrypt hashes) beside the token. The checks run off the loop: while
# one for a cost-14 hash (about a second of CPU) is pending, /livez still answers.
HP=$("$TESTKIT" bcrypt 5 "pr0m-pass") && HS=$("$TESTKIT" bcrypt 14 "slow-pass") || fail "testkit bcrypt"
kill -TERM "$SC_PID"; wait "$SC_PID"
new_ports
BASIC='"auth": { "bearer_token_file": "'"$T/token"'", "basic_auth_users": { "prom": "'"$HP"'", "slow": "'"$HS"'" } }'
write_config basic '"address": "127.0.0.1"' '"admin": { "listen": "127.0.0.1:@SIDE@", '"$BASIC"' }'
start_sidecar basic
wait_for 10 notified 'READY=1' || fail "no READY=1"
[ "$(code /status -u prom:pr0m-pass)" = 200 ] && [ "$(code /metrics -u prom:pr0m-pass)" = 200 ] ||
    fail "basic auth with the right password: $(code /status -u prom:pr0m-pass)"
[ "$(code /status -u prom:wrong)" = 401 ] && [ "$(code /status -u stranger:pr0m-pass)" = 401 ] &&
    [ "$(code /status -H "Authorization: Bearer $TOKEN")" = 200 ] || fail "basic auth: wrong password or user not refused"
curl -s -D "$T/h" -o /dev/null -u prom:wrong "http://127.0.0.1:$SIDE/status"
grep -qi '^WWW-Authenticate: Basic realm="mooncake-sidecar"' "$T/h" && grep -qi '^WWW-Authenticate: Bearer' "$T/h" ||
    fail "401 does not offer both schemes: $(cat "$T/h")"
curl -s -o "$T/slow.out" -w '%{http_code}' -u slow:slow-pass "http://127.0.0.1:$SIDE/status" >"$T/slow.code" &
SLOW=$!
t0=$(now_ms)
meanwhile() { [ "$(code /livez)" = 200 ] && alive "$SLOW"; }
wait_for 5 meanwhile || fail "/livez was not answered while a bcrypt check was pending (the loop waited for it)"
during=$(( $(now_ms) - t0 ))
wait "$SLOW"
first=$(( $(now_ms) - t0 ))
[ "$(cat "$T/slow.code")" = 200 ] || fail "the cost-14 user: $(cat "$T/slow.code")"
t1=$(now_ms)
[ "$(code /status -u slow:slow-pass)" = 200 ] || fail "the remembered password was refused"
again=$(( $(now_ms) - t1 ))
pass "basic_auth_users: right password 200, wrong one or unknown user 401 offering Basic and Bearer; /livez answered ${during} ms into a pending cost-14 check, which took ${first} ms; the same password again ${again} ms (remembered)"

sed "s|\"prom\": \"[^\"]*\"|\"prom\": \"pr0m-pass\"|" "$T/basic.json" >"$T/bad.json"
"$SIDECAR" -n -c "$T/bad.json" >"$T/n.out" 2>&1 && fail "-n accepted a plain-text password"
grep -q 'admin.auth.basic_auth_users.prom: not a bcrypt hash' "$T/n.out" || fail "-n: $(cat "$T/n.out")"
pass "-n refuses a plain-text password in basic_auth_users, naming the user"
finish
