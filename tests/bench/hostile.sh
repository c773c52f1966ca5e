#!/bin/bash
# The probes under attack: /readyz latency (a new connection per request, as a kubelet or systemd
# probe makes) quiet, then while SLOW slowloris connections (a header byte a second, from 20
# loopback addresses) and STREAMS idle /endpoints event streams (each from its own address) are
# held. Two heads: one on the defaults of a job of STREAMS+1 nodes (room for both), and one whose
# admin.max_connections (LIMIT) is below what the attack holds, so that the probes get their place
# by eviction or from the reserve. Prints p50/p99/max and the answers that were not 200 beside the
# quiet figures of the same head.
# Usage: tests/bench/hostile.sh    (SLOW=1000 STREAMS=1000 PROBES=300 LIMIT=1500)
set -uo pipefail
. "$(dirname "$0")/lib.sh"
SLOW=${SLOW:-1000}
STREAMS=${STREAMS:-1000}
PROBES=${PROBES:-300}
LIMIT=${LIMIT:-1500}
LOAD=$top_builddir/tests/tools/streamload
ulimit -n "$(ulimit -Hn)"
# probe: PROBES sequential GET /readyz, each on its own connection: "CODE SECONDS" a line
probe() {
	local args=() i
	for i in $(seq "$PROBES"); do args+=(-o /dev/null "http://127.0.0.1:$SIDE/readyz"); done
	curl -s -m 5 -H 'Connection: close' -w '%{http_code} %{time_total}\n' "${args[@]}"
}
# stats FILE: "p50 p99 max (ms), not 200 of N"
stats() {
	local ms
	ms=$(awk '{ printf "%.3f\n", $2 * 1000 }' "$1")
	printf 'p50 %s ms, p99 %s, max %s; not 200: %d of %d' "$(pct 50 <<<"$ms")" "$(pct 99 <<<"$ms")" "$(pct 100 <<<"$ms")" \
	    "$(awk '$1 != 200' "$1" | wc -l)" "$(wc -l <"$1")"
}
echo "mooncake-sidecar probes under attack, $(nproc) cores, $(date -u +%F): $SLOW slowloris + $STREAMS idle streams, $PROBES probes each"
for limit in default "$LIMIT"; do
	D=$T/$limit
	mkdir -p "$D"
	new_ports
	if [ "$limit" = default ]; then
		write_config "h$limit" '"address": "127.0.0.1"'
	else
		write_config "h$limit" '"address": "127.0.0.1"' '"admin": { "listen": "127.0.0.1:@SIDE@", "max_connections": '"$limit"' }'
	fi
	sed -i "s/\"nodes\": \"localhost\", \"node\": \"localhost\"/\"nodes\": \"localhost,f[1-$STREAMS]\", \"node\": \"localhost\"/" "$T/h$limit.json"
	start_sidecar "h$limit"
	wait_for 20 notified 'READY=1' || fail "$limit: head not ready: $(tail -3 "$SC_OUT")"
	probe >"$D/quiet"
	"$LOAD" client "$SIDE" "$STREAMS" "/endpoints?stream=1&timeout_ms=3600000" >"$D/streams" 2>"$D/streams.err" &
	CL=$!
	STARTED+=($CL)
	wait_for 60 grep -q '^held' "$D/streams" || fail "$limit: the streams are not held: $(tail -2 "$D/streams.err")"
	"$TESTKIT" conns "$SIDE" "$SLOW" slow 30 "$(echo 127.0.3.{1..20} | tr ' ' ',')" >"$D/slow" &
	SL=$!
	STARTED+=($SL)
	wait_for 60 grep_q "$D/slow" "^connected" || fail "$limit: the slow clients did not connect"
	nap 1	# held: each slow connection has sent a header byte more
	open=$(sidecar_metric "$SIDE" 'mooncake_sidecar_admin_connections{state="open"}')
	probe >"$D/attack"
	conns=$(curl -s "http://127.0.0.1:$SIDE/metrics" | awk -F'[{}"]' '/^mooncake_sidecar_admin_connections_refused_total/ && $NF + 0 > 0 { printf "%s %s; ", $3, $NF + 0 }')
	printf 'admin.max_connections %s (%s open during the attack)\n' \
	    "$(adm /status >/dev/null; grep -o '"max_connections": [0-9]*' "$T/h$limit.json" | grep -o '[0-9]*' || echo "default for $((STREAMS + 1)) nodes: $((2 * (STREAMS + 1) + 256))")" "$open"
	printf '  quiet:        %s\n  under attack: %s\n  the limits ended or refused: %s\n' "$(stats "$D/quiet")" "$(stats "$D/attack")" "${conns:-none}"
	kill -TERM "$CL" "$SL" 2>/dev/null; wait "$CL" "$SL" 2>/dev/null
	kill -TERM "$SC_PID"; wait "$SC_PID" 2>/dev/null
	SIDECARS=()
done
