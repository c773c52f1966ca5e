#!/bin/bash
# The operator's verbs (POST /control/..., mooncake-sidecar ctl): restart, stop and start of the
# master, one worker and every worker; pause and resume; reload; each answered with JSON, logged as
# one audit line, counted in /metrics and kept in /status. Over the network they need admin.auth
# (403 without it, 401 with a wrong token); over the control socket (mode 0600) they work without.
. "$(dirname "$0")/lib.sh"
export MC_STANDIN_START_DELAY_MS=100 FAKE_WORKER_DIR=$T
FAKE=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/tools/fake-worker
new_ports
read -r HTTP SYS <<<"$("$TESTKIT" freeports 2 | tr '\n' ' ')"
group() { echo '{ "role": "agg", "count": 1, "gpus": 1, "command": ["'"$FAKE"'", "--port", "{http_port}"'"$1"'] }'; }
workers() {
	echo '"workers": { "flavor": "generic", "ports": { "http_base": '"$HTTP"', "http_stride": 1, "sys_base": '"$SYS"', "bootstrap_base": '"$SYS"' },
	  "restart": { "backoff_initial_ms": 50 }, "groups": [ '"$(group "")"', '"$(group "$1")"' ] }'
}
write_config c '"address": "127.0.0.1"' "$(workers "")"
sed -i 's|"node": "localhost",|"node": "localhost", "gpus_per_node": 2,|' "$T/c.json"
start_sidecar c
wait_for 10 notified 'READY=1' || fail "no READY=1"
SOCK=$T/c/control-localhost.sock
ctl() { "$SIDECAR" ctl -c "$T/c.json" "$@"; }
post() { curl -s --unix-socket "$SOCK" -X POST "http://localhost/control/$1" -w ' %{http_code}'; }
st() { adm /status | python3 -c "import json, sys; d = json.load(sys.stdin); print($1)"; }
wpid() { st "[w['pid'] for w in d['workers'] if w['name'] == '$1'][0]"; }
wstate() { st "[w['state'] for w in d['workers'] if w['name'] == '$1'][0]"; }
audit() { count "$SC_OUT" "control: $1"; }
metric() { sidecar_metric "$SIDE" "mooncake_sidecar_control_actions_total{action=\"$1\",target_kind=\"$2\",outcome=\"$3\"}"; }
wait_for 10 is ready wstate agg_w1 || fail "workers not ready: $(adm /status)"

[ "$(stat -c %a "$SOCK")" = 600 ] && [ -S "$SOCK" ] || fail "control socket: $(ls -l "$SOCK")"
CODE=$(adm_code "/control/restart?target=master" -X POST)
[ "$CODE" = 403 ] && adm "/control/restart?target=master" -X POST | grep -q "need admin.auth over the network; on this node use the control socket $SOCK" ||
    fail "POST over TCP without admin.auth: $CODE"
curl -s -D "$T/h" -o /dev/null "http://127.0.0.1:$SIDE/control/restart?target=master"
grep -q '^HTTP/1.1 405' "$T/h" && grep -qi '^Allow: POST' "$T/h" || fail "GET of a control route: $(cat "$T/h")"
[ "$(audit "restart master by anonymous: refused (403)")" = 2 ] && [ "$(audit "restart master by anonymous: refused (405)")" = 1 ] &&
    [ "$(metric restart master refused)" = 3 ] || fail "the refusals (403 twice, 405) are not audited and counted"
pass "control socket mode 0600; over TCP without admin.auth: 403 naming the socket, GET 405 (Allow: POST); refusals audited, counted"

# restart of the master: ctl --wait returns once the new one is ready; a second restart meanwhile is a no-op
M1=$(master_pid c)
OUT=$(post "restart?target=master")
case $OUT in *'"ok":true'*'"outcome":"ok"'*'"state":"'*' 200') ;; *) fail "restart: $OUT" ;; esac
ctl restart master --wait=10 >"$T/ctl.out" 2>&1 || fail "ctl restart master --wait: $(cat "$T/ctl.out")"
M2=$(master_pid c)
[ "$M2" != "$M1" ] && alive "$M2" && [ "$(st "d['master']['state']")" = ready ] || fail "not a new ready master: $M1 -> $M2"
grep -q 'done after' "$T/ctl.out" || fail "ctl --wait: $(cat "$T/ctl.out")"
wait_for 5 notified "STATUS=master ready (gen 2, pid $M2" || fail "STATUS= after the restart"
[ "$(audit "restart master by uid:$(id -u): ok")" -ge 1 ] || fail "no audit line: $(grep control: "$SC_OUT")"
pass "POST /control/restart?target=master over the socket: 200 JSON; ctl restart master --wait: back ready as $M2 (generation 2), audited"

# stop holds it stopped (files not ready, STATUS=, /metrics), start brings it back
OUT=$(post "stop?target=master")
case $OUT in *'"outcome":"ok"'*' 200') ;; *) fail "stop: $OUT" ;; esac
wait_for 5 is stopped st "d['master']['state']" || fail "master not stopped"
EX=$(exec_count)
grep -q '"ready": false' "$T/c/endpoints.json" || fail "endpoints.json still ready with the master stopped"
wait_for 5 notified 'STATUS=master stopped: stopped by the operator' || fail "STATUS= for a stopped master: $(tail -2 "$NOTIFY_OUT")"
[ "$(sidecar_metric "$SIDE" 'mooncake_sidecar_child_state{child="mooncake_master",state="stopped"}')" = 1 ] || fail "metric state"
case $(post "stop?target=master") in *'"outcome":"noop"'*'stopped already'*' 200') ;; *) fail "second stop not a no-op" ;; esac
[ "$(exec_count)" = "$EX" ] || fail "the stopped master was started again"
ctl start master --wait=10 >"$T/ctl.out" 2>&1 || fail "ctl start master: $(cat "$T/ctl.out")"
wait_for 5 grep_q "$T/c/endpoints.json" '"ready": true' || fail "files not ready after start"
case $(post "start?target=master") in *'"outcome":"noop"'*'runs already'*' 200') ;; *) fail "second start not a no-op" ;; esac
pass "stop: stopped (reason 'stopped by the operator'), files not ready, STATUS= and the state metric say so, not restarted; start: ready; repeats are no-ops"

# one worker, then every worker; the other's pid unchanged
W0=$(wpid agg_w0) W1=$(wpid agg_w1)
ctl restart worker:agg_w1 --wait=10 >"$T/ctl.out" 2>&1 || fail "ctl restart worker:agg_w1: $(cat "$T/ctl.out")"
[ "$(wpid agg_w0)" = "$W0" ] && [ "$(wpid agg_w1)" != "$W1" ] || fail "restart worker:agg_w1: pids $W0 $W1 -> $(wpid agg_w0) $(wpid agg_w1)"
ctl stop worker:agg_w0 --wait=10 >"$T/ctl.out" 2>&1 || fail "ctl stop worker:agg_w0: $(cat "$T/ctl.out")"
[ "$(wstate agg_w0)" = stopped ] && ! alive "$W0" || fail "agg_w0 not stopped"
st "d['ready']" | grep -qx False || fail "node ready with a worker stopped"
ctl start worker:agg_w0 --wait=10 >/dev/null 2>&1 || fail "ctl start worker:agg_w0"
W0=$(wpid agg_w0) W1=$(wpid agg_w1)
ctl restart workers --wait=10 >"$T/ctl.out" 2>&1 || fail "ctl restart workers: $(cat "$T/ctl.out")"
[ "$(wpid agg_w0)" != "$W0" ] && [ "$(wpid agg_w1)" != "$W1" ] || fail "restart workers: not both restarted"
grep -q '2 of 2 workers: restart' "$T/ctl.out" || fail "ctl restart workers said: $(cat "$T/ctl.out")"
pass "restart worker:agg_w1 (agg_w0's pid unchanged), stop/start worker:agg_w0 (node not ready meanwhile), restart workers: both"

# wrong verbs and targets: clear errors, sysexits
ctl restart worker:nosuch >"$T/ctl.out" 2>&1; RC=$?
[ "$RC" = 65 ] && grep -q 'HTTP 404: no worker "nosuch" on this node' "$T/ctl.out" || fail "unknown worker: $RC $(cat "$T/ctl.out")"
case $(post "restart") in *'needs ?target=master, workers, worker:NAME or gang:NAME'*' 400') ;; *) fail "restart without a target" ;; esac
case $(post "restart?target=bogus") in *'is none of master'*' 400') ;; *) fail "bad target" ;; esac
case $(post "explode") in *'no control verb'*' 404') ;; *) fail "unknown verb" ;; esac
case $(post "restart?target=gang:none") in *'no gang'*' 404') ;; *) fail "unknown gang" ;; esac
ctl frobnicate >/dev/null 2>&1; [ $? = 64 ] || fail "ctl with an unknown verb: not 64"
pass "an unknown worker, verb, target or gang: 404/400 naming it; ctl exits 65 (data) and 64 (usage)"

# pause: a kill -9 is not restarted, files truthful, paused said everywhere; resume starts it
ctl pause >"$T/ctl.out" 2>&1 || fail "ctl pause"
M=$(master_pid c)
kill -KILL "$M"
wait_for 5 is stopped st "d['master']['state']" || fail "paused: killed master not stopped: $(st "d['master']")"
st "d['master']['reason']" | grep -q 'not restarted: supervision is paused' || fail "reason: $(st "d['master']['reason']")"
wait_for 5 grep_q "$T/c/endpoints.json" '"ready": false' || fail "files still ready with the master dead"
[ "$(st "d['control']['paused']")" = True ] && adm /readyz | grep -q '(supervision paused)' || fail "paused not in /status or /readyz"
wait_for 5 notified 'STATUS=paused: master stopped: killed by signal 9' || fail "STATUS= does not say paused"
[ "$(sidecar_metric "$SIDE" mooncake_sidecar_paused)" = 1 ] || fail "mooncake_sidecar_paused"
EX=$(exec_count)
"$SIDECAR" ctl -c "$T/c.json" status | grep -q 'supervision PAUSED' || fail "ctl status does not say paused"
[ "$(exec_count)" = "$EX" ] || fail "a master was started during the pause"
ctl resume --wait=10 >"$T/ctl.out" 2>&1 || fail "ctl resume --wait: $(cat "$T/ctl.out")"
[ "$(st "d['master']['state']")" = ready ] && [ "$(sidecar_metric "$SIDE" mooncake_sidecar_paused)" = 0 ] || fail "not ready after resume"
pass "pause: kill -9 of the master not restarted, files not ready, paused in /status, /readyz, STATUS=, ctl status and the metric; resume starts it, ready"

# reload: only the worker whose command changed restarts; an invalid file changes nothing (422);
# a change a running sidecar cannot apply is a 409 naming the key; SIGHUP does the same as POST
W0=$(wpid agg_w0) W1=$(wpid agg_w1) M=$(master_pid c)
cp "$T/c.json" "$T/c.good"
python3 - "$T/c.json" <<'PY'
import json, sys
c = json.load(open(sys.argv[1])); c["workers"]["groups"][1]["command"].append("--reloaded")
json.dump(c, open(sys.argv[1], "w"))
PY
ctl reload --wait=10 >"$T/ctl.out" 2>&1 || fail "ctl reload: $(cat "$T/ctl.out")"
grep -q 'restarted: agg_w1' "$T/ctl.out" && ! grep -q 'restarted: agg_w0' "$T/ctl.out" || fail "reload said: $(cat "$T/ctl.out")"
wait_for 5 grep_q "$T/worker-$((SYS + 1)).argv" -- '--reloaded' || fail "agg_w1 not started with the new argv"
[ "$(wpid agg_w0)" = "$W0" ] && [ "$(wpid agg_w1)" != "$W1" ] && [ "$(master_pid c)" = "$M" ] || fail "reload restarted more than agg_w1"
case $(post reload) in *'"outcome":"noop"'*'unchanged'*' 200') ;; *) fail "reload of the same file not a no-op" ;; esac
cp "$T/c.json" "$T/c.reloaded"
sed -i 's|"gpus": 1,|"gpus": "one",|' "$T/c.json"
OUT=$(post reload)
case $OUT in *'"outcome":"invalid"'*'"errors":['*'workers.groups[0].gpus: must be an integer'*' 422') ;; *) fail "invalid reload: $OUT" ;; esac
ctl reload >/dev/null 2>&1; [ $? = 65 ] || fail "ctl reload of an invalid file: not 65"
sed 's|"listen": "127.0.0.1:'"$SIDE"'"|"listen": "127.0.0.1:'"$SIDE"'", "max_waiters": 77|' "$T/c.reloaded" >"$T/c.json"
OUT=$(post reload)
case $OUT in *'"outcome":"conflict"'*'"needs_restart":["admin.max_waiters"]'*' 409') ;; *) fail "non-live reload: $OUT" ;; esac
[ "$(wpid agg_w0)" = "$W0" ] && [ "$(master_pid c)" = "$M" ] || fail "a refused reload restarted something"
cp "$T/c.good" "$T/c.json"
W1=$(wpid agg_w1)
kill -HUP "$SC_PID"
wait_for 5 grep_q "$SC_OUT" 'control: reload by signal:SIGHUP: ok (200)' || fail "SIGHUP did not reload: $(grep control: "$SC_OUT" | tail -2)"
wait_for 10 eval '[ "$(wpid agg_w1)" != "$W1" ]' || fail "SIGHUP's reload did not restart agg_w1"
pass "reload: only agg_w1 (its command changed) restarted, the same file a no-op, an invalid one 422 with its errors (ctl 65), admin.max_waiters 409 naming it, nothing restarted; SIGHUP reloads the same way"

# what /status keeps and /metrics counts
N=$(st "len(d['control']['actions'])")
LAST=$(st "d['control']['actions'][-1]['action'] + ' ' + d['control']['actions'][-1]['who'] + ' ' + d['control']['actions'][-1]['outcome']")
[ "$N" -ge 20 ] && [ "$N" -le 32 ] && [ "$LAST" = "reload signal:SIGHUP ok" ] || fail "/status control.actions: $N, last $LAST"
[ "$(metric restart master ok)" -ge 1 ] && [ "$(metric stop worker ok)" = 1 ] && [ "$(metric reload sidecar invalid)" -ge 2 ] ||
    fail "metrics: $(adm /metrics | grep control_actions)"
pass "/status keeps the last actions ($N, the newest SIGHUP's reload), /metrics counts them by action, target kind and outcome"

# 50 control requests at once, mixed with 1,000 GET /health on one connection: every answer right
HL=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/tools/health-load
"$HL" "$SIDE" 1000 >"$T/health.out" &
HPID=$! PIDS=()
for i in $(seq 0 49); do
	case $((i % 5)) in 0) v=pause ;; 1) v=resume ;; 2) v=reload ;; 3) v='restart?target=worker:nosuch' ;; 4) v=drain ;; esac
	post "$v" >"$T/par.$i" 2>&1 &
	PIDS+=($!)
done
wait "$HPID" || fail "health-load: $(cat "$T/health.out")"
wait "${PIDS[@]}"
for i in $(seq 0 49); do
	case $((i % 5)) in 0 | 1 | 2) want=200 ;; 3) want=404 ;; 4) want=409 ;; esac
	case $(cat "$T/par.$i") in *'"action":'*" $want") ;; *) fail "control request $i: $(cat "$T/par.$i"), want $want" ;; esac
done
read -r P50 P99 MAX BAD <"$T/health.out"
[ "$BAD" = 0 ] || fail "$BAD of 1,000 GET /health failed during the control requests"
ctl resume >/dev/null || fail "resume after the mix"
[ "$(metric pause sidecar ok)" -ge 1 ] && [ "$(metric drain sidecar conflict)" = 10 ] || fail "mix not counted: $(adm /metrics | grep control_actions)"
pass "50 control requests at once (pause, resume, reload, an unknown worker, drain) mixed with 1,000 GET /health: all 50 answered as expected (200/404/409), every /health 200 (p50 $P50 us, p99 $P99 us)"
kill_quiet "$SC_PID"

# with admin.auth: a wrong token 401 (audited), the token 200 as "token"
head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$T/token"
new_ports
write_config a '' '"admin": { "listen": "127.0.0.1:@SIDE@", "auth": { "bearer_token_file": "'"$T/token"'" } }'
start_sidecar a
wait_for 10 notified 'READY=1' || fail "auth: no READY=1"
[ "$(adm_code "/control/restart?target=master" -X POST)" = 401 ] || fail "no token: not 401"
[ "$(adm_code "/control/restart?target=master" -X POST -H 'Authorization: Bearer wrong-token-0123456789')" = 401 ] || fail "wrong token: not 401"
"$SIDECAR" ctl restart master --url "http://127.0.0.1:$SIDE" >/dev/null 2>&1; [ $? = 77 ] || fail "ctl without a token: not 77"
"$SIDECAR" ctl restart master --url "http://127.0.0.1:$SIDE" --token-file "$T/token" --wait=10 >"$T/ctl.out" 2>&1 ||
    fail "ctl --url --token-file: $(cat "$T/ctl.out")"
grep -q 'control: restart master by anonymous: refused (401)' "$SC_OUT" && grep -q 'control: restart master by token: ok (200)' "$SC_OUT" ||
    fail "audit with auth: $(grep control: "$SC_OUT")"
"$SIDECAR" ctl -c "$T/a.json" restart master >/dev/null 2>&1 || fail "the socket needs no token"
pass "admin.auth: no or a wrong token 401 (audited, ctl exits 77); ctl --url --token-file works as 'token'; the socket needs none"
finish
