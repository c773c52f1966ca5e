#!/bin/bash
# Fault injection. Each part prints what it tried and what held:
#  - 100 consecutive kill -9 of the master: 100 restarts on the configured backoff, endpoint
#    generation +100, never two masters alive at once;
#  - kill -9 of the sidecar running a master and 8 workers: nothing of them alive 1 s later;
#  - 1,000 idle and 1,000 slow-header connections on the admin port: /livez keeps answering;
#  - malformed requests: each gets a 4xx or a closed connection, and the daemon keeps serving.
. "$(dirname "$0")/lib.sh"
export MC_STANDIN_START_DELAY_MS=20
ulimit -n 8192

up k '"address": "127.0.0.1", "restart": { "backoff_initial_ms": 10, "backoff_max_ms": 10, "reset_after_ms": 0, "burst": 1000 }'
MAX=0
for i in $(seq 100); do
	kill -KILL "$(master_pid k)"
	N=$(pgrep -fc -- "--rpc_port=$RPC ")
	[ "$N" -gt "$MAX" ] && MAX=$N
	wait_for 10 notified "STATUS=master ready (gen $((i + 1))," || fail "restart $i did not become ready"
	N=$(pgrep -fc -- "--rpc_port=$RPC ")
	[ "$N" -gt "$MAX" ] && MAX=$N
done
[ "$(count "$SC_OUT" 'restarting in 10 ms')" -eq 100 ] || fail "backoff lines: $(count "$SC_OUT" 'restarting in 10 ms')"
grep -q '"generation": 101,' "$T/k/endpoints.json" && grep -q '"restarts": 100,' "$T/k/endpoints.json" || fail "generation/restarts"
[ "$MAX" -le 1 ] || fail "$MAX masters alive at once"
pass "100 x kill -9: 100 restarts each after 10 ms, generation 1 -> 101, at most $MAX master alive at any sample"
kill -TERM "$SC_PID"; wait "$SC_PID"

# A sidecar with a master and 8 workers, SIGKILLed.
new_ports
write_config w '"address": "127.0.0.1"' '"workers": { "flavor": "generic", "groups": [ { "role": "agg", "count": 8, "gpus": 1, "command": ["'"$top_builddir"'/tests/tools/stamp", "'"$T"'/stamps"] } ] }'
sed -i 's|"run_dir": "\([^"]*\)" }|"run_dir": "\1", "gpus_per_node": 8 }|' "$T/w.json"
start_sidecar w
eight() { [ -f "$T/stamps" ] && [ "$(wc -l <"$T/stamps")" -ge 8 ]; }
wait_for 10 eight || fail "8 workers did not start"
PIDS="$(master_pid w) $(awk '{print $1}' "$T/stamps")"
kill -KILL "$SC_PID"
all_dead() { for p in $PIDS; do alive "$p" && return 1; done; return 0; }
wait_for 1 all_dead || fail "alive 1 s after the sidecar's SIGKILL: $(for p in $PIDS; do alive "$p" && echo "$p"; done)"
pass "kill -9 of the sidecar with a master and 8 workers: all 9 gone within 1 s"

# Connection storms on the admin port.
up c '"address": "127.0.0.1"' '"admin": { "listen": "127.0.0.1:@SIDE@", "max_connections": 4096 }'
"$TESTKIT" conns "$SIDE" 1000 idle 6 >"$T/idle.out" &
P1=$!
"$TESTKIT" conns "$SIDE" 1000 slow 6 >"$T/slow.out" &
P2=$!
opened() { grep -q '^connected 1000$' "$T/idle.out" && grep -q '^connected 1000$' "$T/slow.out"; }
wait_for 20 opened || fail "the storm's connections did not open: $(cat "$T/idle.out" "$T/slow.out")"
: >"$T/livez.ms"
for i in $(seq 100); do
	curl -s -o /dev/null -w '%{http_code} %{time_total}\n' "http://127.0.0.1:$SIDE/livez" >>"$T/livez.ms"
done
wait "$P1" "$P2"
[ "$(grep -c '^200 ' "$T/livez.ms")" -eq 100 ] || fail "/livez failed under the storm: $(grep -v '^200 ' "$T/livez.ms" | head -3)"
P99=$(awk '{print $2 * 1000}' "$T/livez.ms" | sort -n | awk '{a[NR]=$1} END {print a[int(NR * 0.99)]}')
awk -v p="$P99" 'BEGIN { exit !(p < 250) }' || fail "/livez p99 $P99 ms under the storm"
pass "1,000 idle + 1,000 slow-header connections ($(tail -1 "$T/idle.out"), $(tail -1 "$T/slow.out")): 100/100 /livez 200, p99 $P99 ms"

# Malformed requests.
try() {	# try NAME EXPECT(4xx|closed|2xx) BYTES...
	local name=$1 want=$2 got
	shift 2
	printf "$@" >"$T/req"
	got=$("$TESTKIT" raw "$SIDE" "$T/req" | head -1)
	case "$want:$got" in
	4xx:HTTP/1.?\ 4*|closed:closed|4xx:closed|2xx:HTTP/1.?\ 2*) ;;
	*) fail "$name: got '$got', want $want" ;;
	esac
	echo "   $name -> $got"
}
try "bad method" 4xx 'FROB /livez HTTP/1.1\r\nHost: x\r\n\r\n'
try "64 KiB header" 4xx "GET /livez HTTP/1.1\r\nX-Big: $(head -c 65536 /dev/zero | tr '\0' a)\r\n\r\n"
try "invalid percent-encoding" 4xx 'GET /query_key?key=%%zz HTTP/1.1\r\nHost: x\r\n\r\n'
try "absolute-form URI" 4xx 'GET http://evil.example/health HTTP/1.1\r\nHost: x\r\n\r\n'
try "HTTP/0.9" 4xx 'GET /livez\r\n\r\n'
try "garbage" 4xx '\x01\x02\x03\x04\r\n\r\n'
printf 'GET /livez HTTP/1.1\r\nHost: x\r\n\r\nGET /readyz HTTP/1.1\r\nHost: x\r\n\r\n' >"$T/req"
[ "$("$TESTKIT" raw "$SIDE" "$T/req" | tail -1)" = 2 ] || fail "pipelined requests: not two answers"
echo "   pipelined /livez + /readyz -> 2 answers"
[ "$(adm /livez)" = ok ] && alive "$SC_PID" || fail "the daemon stopped serving"
pass "malformed requests: each a 4xx or a closed connection; pipelined requests both answered; still serving"
finish
