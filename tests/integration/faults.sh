#!/bin/bash
# Fault injection. Each part prints what it tried and what held:
#  - 100 consecutive kill -9 of the master: 100 restarts on the configured backoff, endpoint
#    generation +100, never two masters alive at once;
#  - kill -9 of the sidecar running a master and 8 workers: nothing of them alive 1 s later;
#  - 2,000 long-polls, 2,000 idle and 2,000 slow-header connections on the admin port, from one
#    address and spread over eight: the admin routes keep answering (p50/p99 printed);
#  - malformed requests: each gets a 4xx or a closed connection, and the daemon keeps serving.
. "$(dirname "$0")/lib.sh"
export MC_STANDIN_START_DELAY_MS=20
ulimit -n 32768

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
t0=$(now_ms)
kill -KILL "$SC_PID"
all_dead() { for p in $PIDS; do alive "$p" && return 1; done; return 0; }
# No orphan may survive; how fast they go is the kernel's (PR_SET_PDEATHSIG), and is printed.
wait_for 10 all_dead || fail "alive 10 s after the sidecar's SIGKILL: $(for p in $PIDS; do alive "$p" && echo "$p"; done)"
pass "kill -9 of the sidecar with a master and 8 workers: all 9 gone $(( $(now_ms) - t0 )) ms after it"

# Connection storms on the admin port: one client (then one spread over 127.0.0.2-9) holds 2,000
# long-polls, 2,000 idle and 2,000 slow-header connections; /livez, /readyz, /status and /metrics
# from another address keep answering (p50/p99 printed), and the client's own address is answered
# again as soon as it has closed everything.
up c '"address": "127.0.0.1"' '"admin": { "listen": "127.0.0.1:@SIDE@", "max_connections": 4096 }'
wait_for 5 test -f "$T/c/endpoints.json" || fail "no endpoints.json"
ETAG=$(curl -s -D - -o /dev/null "http://127.0.0.1:$SIDE/endpoints" | tr -d '\r' | sed -n 's/^ETag: //Ip')
storm() {	# storm LOAD-SOURCES CHECK-SOURCE LABEL
	local pids=() f t0 p50 p99
	for mode in "/endpoints?since=$ETAG&timeout_ms=60000" idle slow; do
		f=$T/storm.$(( ${#pids[@]} )).out
		"$TESTKIT" conns "$SIDE" 2000 "$mode" 60 "$1" >"$f" &
		pids+=($!)
		STARTED+=($!)
	done
	opened() { grep -q '^connected' "$T/storm.0.out" && grep -q '^connected' "$T/storm.1.out" && grep -q '^connected' "$T/storm.2.out"; }
	wait_for 60 opened || fail "the storm's connections did not open"
	: >"$T/lat.ms"
	for i in $(seq 25); do
		for r in /livez /readyz /status /metrics; do
			curl -s -m 3 --interface "$2" -o /dev/null -w '%{http_code} %{time_total}\n' "http://127.0.0.1:$SIDE$r" >>"$T/lat.ms"
		done
	done
	[ "$(grep -c '^200 ' "$T/lat.ms")" -eq 100 ] || fail "$3: not answered under the storm: $(grep -v '^200 ' "$T/lat.ms" | head -3)"
	p50=$(awk '{print $2 * 1000}' "$T/lat.ms" | sort -n | awk '{a[NR]=$1} END {print a[int(NR * 0.50)]}')
	p99=$(awk '{print $2 * 1000}' "$T/lat.ms" | sort -n | awk '{a[NR]=$1} END {print a[int(NR * 0.99)]}')
	kill_quiet "${pids[@]}"
	t0=$(now_ms)
	back() { [ "$(curl -s -m 1 --interface "${1%%,*}" -o /dev/null -w '%{http_code}' "http://127.0.0.1:$SIDE/livez")" = 200 ]; }
	wait_for 5 back "$1" || fail "$3: the client's address is not answered after it left"
	pass "$3: 6,000 connections ($(sed -n 's/^connected //p' "$T"/storm.*.out | tr '\n' ' ')accepted by the client); /livez /readyz /status /metrics from $2 100/100: p50 $p50 ms, p99 $p99 ms; the client's own address answered $(( $(now_ms) - t0 )) ms after it closed"
}
storm 127.0.0.1 127.0.0.2 "one client (127.0.0.1)"
storm 127.0.0.2,127.0.0.3,127.0.0.4,127.0.0.5,127.0.0.6,127.0.0.7,127.0.0.8,127.0.0.9 127.0.0.10 "spread over 127.0.0.2-9"

# A worker writing 1 GiB to stdout as fast as it can: the loop keeps serving (its output is read
# 64 KiB per turn) and no liveness probe of the master fails.
# (under a wrapper such as valgrind every turn is some 20 times slower: the probe gets 1 s)
kill_quiet "$SC_PID"
LIVE=$([ -n "${SIDECAR_WRAPPER:-}" ] && echo 1000 || echo 100)
new_ports
write_config g '"address": "127.0.0.1", "liveness_interval_ms": '"$LIVE" '"workers": { "flavor": "generic", "groups": [ { "role": "agg", "count": 1, "gpus": 1, "command": ["/bin/sh", "-c", "while [ ! -f '"$T"'/go ]; do sleep 0.01; done; head -c 1073741824 /dev/zero; echo wrote-all; exec sleep 100000"] } ] }'
sed -i 's|"run_dir": "\([^"]*\)" }|"run_dir": "\1", "gpus_per_node": 1 }|' "$T/g.json"
start_sidecar g
wait_for 10 notified 'READY=1' || fail "g: no READY=1"
: >"$T/lat.ms"
wrote() { tail -c 64 "$T/g/localhost_agg_w0.log" 2>/dev/null | grep -q wrote-all; }
writing() { ! wrote; }
T0=$(now_ms)
touch "$T/go"
for i in $(seq 2000); do
	curl -s -m 3 -o /dev/null -w '%{http_code} %{time_total}\n' "http://127.0.0.1:$SIDE/livez" >>"$T/lat.ms"
	writing || break
done
wait_for 120 wrote || fail "the worker's 1 GiB did not reach its log"
MS=$(( $(now_ms) - T0 ))
[ "$(grep -vc '^200 ' "$T/lat.ms")" -eq 0 ] || fail "/livez failed while the worker wrote: $(grep -v '^200 ' "$T/lat.ms" | head -3)"
grep -q 'liveness probe failed' "$SC_OUT" && fail "a liveness probe failed while the worker wrote: $(grep -m1 'liveness probe failed' "$SC_OUT")"
P50=$(awk '{print $2 * 1000}' "$T/lat.ms" | sort -n | awk '{a[NR]=$1} END {print a[int(NR * 0.50) + 1]}')
P99=$(awk '{print $2 * 1000}' "$T/lat.ms" | sort -n | awk '{a[NR]=$1} END {print a[int(NR * 0.99) + 1]}')
pass "a worker wrote 1 GiB to stdout ($(stat -c %s "$T/g/localhost_agg_w0.log") bytes logged in $MS ms): $(wc -l <"$T/lat.ms") /livez meanwhile all 200, p50 $P50 ms, p99 $P99 ms; no liveness probe failed (interval and timeout $LIVE ms)"
rm -f "$T/g/localhost_agg_w0.log"
kill_quiet "$SC_PID"
up c2 '"address": "127.0.0.1"'

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
try "invalid percent-encoding" 4xx 'GET /health?key=%%zz HTTP/1.1\r\nHost: x\r\n\r\n'
try "absolute-form URI" 4xx 'GET http://evil.example/health HTTP/1.1\r\nHost: x\r\n\r\n'
try "HTTP/0.9" 4xx 'GET /livez\r\n\r\n'
try "garbage" 4xx '\x01\x02\x03\x04\r\n\r\n'
printf 'GET /livez HTTP/1.1\r\nHost: x\r\n\r\nGET /readyz HTTP/1.1\r\nHost: x\r\n\r\n' >"$T/req"
[ "$("$TESTKIT" raw "$SIDE" "$T/req" | tail -1)" = 2 ] || fail "pipelined requests: not two answers"
echo "   pipelined /livez + /readyz -> 2 answers"
[ "$(adm /livez)" = ok ] && alive "$SC_PID" || fail "the daemon stopped serving"
pass "malformed requests: each a 4xx or a closed connection; pipelined requests both answered; still serving"
finish
