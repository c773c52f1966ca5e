#!/bin/bash
# Slowloris against the probes: 600 connections from 10 addresses, each sending a header byte a
# second, over admin.max_connections (512 for one node): /readyz, /livez and /status are answered
# throughout (the connection waiting longest for its head makes room), and every such connection is
# ended by the deadline for a whole request head (10 s), however its bytes trickle. The other hostile
# inputs are tests/integration/hostile.sh.
. "$(dirname "$0")/lib.sh"
export MC_STANDIN_START_DELAY_MS=100
code() { curl -s -m 5 -o /dev/null -w '%{http_code}' "http://127.0.0.1:$SIDE$1" "${@:2}"; }
up a
SRCS=$(echo 127.0.0.{2..11} | tr ' ' ',')
"$TESTKIT" conns "$SIDE" 600 slow 13 "$SRCS" >"$T/slow.out" &
SLOW=$!
STARTED+=($SLOW)
wait_for 10 grep_q "$T/slow.out" '^connected' || fail "the slow clients did not connect"
[ "$(grep -o '[0-9]*' "$T/slow.out" | head -1)" -ge 528 ] || fail "fewer slow connections than the limit: $(cat "$T/slow.out")"
nap 2	# the attack held for 2 s: each slow connection has dripped more bytes, and is older than the 100 ms a head may take before its connection can be made to give way
for i in 1 2 3 4 5; do
	c=$(code /readyz)
	[ "$c" = 200 ] || fail "/readyz during slowloris, try $i: $c ($(sidecar_metric "$SIDE" mooncake_sidecar_admin_connections))"
done
[ "$(code /status)" = 200 ] && [ "$(code /livez)" = 200 ] || fail "/status or /livez refused during slowloris"
ev=$(sidecar_metric "$SIDE" 'mooncake_sidecar_admin_connections_refused_total{reason="evicted"}')
[ "${ev:-0}" -ge 1 ] || fail "no slow connection made room for the probes: $(curl -s "http://127.0.0.1:$SIDE/metrics" | grep admin_conn)"
pass "600 slow connections from 10 addresses over admin.max_connections (512): /readyz 5 of 5, /status and /livez answered; $ev slow connections made room"
wait "$SLOW"
grep -q '^held 600 closed 600$' "$T/slow.out" || fail "slow connections outlived the head deadline: $(cat "$T/slow.out")"
to=$(sidecar_metric "$SIDE" 'mooncake_sidecar_admin_connections_refused_total{reason="head_timeout"}')
[ "${to:-0}" -ge 500 ] || fail "head_timeout counted $to"
pass "every slow connection was ended within 13 s, $to of them by the deadline for a whole request head"

finish
