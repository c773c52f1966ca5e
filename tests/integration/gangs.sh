#!/bin/bash
# Gangs across nodes: two sidecars on this machine as the nodes head and worker1 of one vLLM TP 2
# endpoint (one rank each, coupled: a rank restarted alone could not rejoin). Killing either rank
# restarts both, on both nodes, under a new gang generation that head (the endpoint's first node)
# starts and worker1 follows through GET /gangs; worker1's sidecar going away counts as its rank
# dying after workers.peer_timeout_ms. A DP 2 group on one node restarts together too.
. "$(dirname "$0")/lib.sh"
export MC_STANDIN_START_DELAY_MS=100
FAKE=$top_srcdir/tests/tools/fake-worker
routable_iface
new_ports
GROUP='"workers": { "flavor": "vllm", "dp_launch_mode": "per_node", "peer_timeout_ms": 1000,
    "restart": { "backoff_initial_ms": 50, "burst": 100 },
    "groups": [ { "role": "agg", "count": 1, "gpus": 2, "tp": 2, "health": { "type": "none" },
                  "command": ["'"$FAKE"'", "serve", "/model", "--port", "{http_port}"] } ] }'
two_nodes "$GROUP" "$GROUP"
mkdir -p "$T/w0" "$T/w1"
FAKE_WORKER_DIR=$T/w0 start_sidecar head
HEAD_OUT=$SC_OUT HEAD_PID=$SC_PID
FAKE_WORKER_DIR=$T/w1 start_sidecar worker1
W1_OUT=$SC_OUT W1_PID=$SC_PID
# rank R's pid as its fake worker recorded it (a new one on each start)
rpid() { cat "$T/w$1/worker-750$1.pid" 2>/dev/null; }
running() { local p; p=$(rpid "$1"); [ -n "$p" ] && [ "$p" != "${2:-}" ] && alive "$p"; }
wait_for 20 running 0 && wait_for 20 running 1 || fail "the two ranks did not start: $(tail -n 5 "$HEAD_OUT" "$W1_OUT")"
gangs() { curl -s "http://127.0.0.1:$1/gangs" >"$T/gangs.json" && "$TESTKIT" json-get "$T/gangs.json" "gangs.0.$2"; }
[ "$(gangs "$HEAD_SIDE" name)" = agg_w0 ] && [ "$(gangs "$HEAD_SIDE" leader)" = head ] &&
    [ "$(gangs "$HEAD_SIDE" nodes.1)" = worker1 ] && [ "$(gangs "$HEAD_SIDE" members.0)" = agg_w0_r0 ] &&
    [ "$(gangs "$FSIDE" generation)" = 1 ] || fail "/gangs: $(cat "$T/gangs.json")"
pass "one gang agg_w0 over head and worker1, generation 1 on both (/gangs)"

# The rank on worker1 dies: worker1 stops its members and says so; head starts generation 2;
# both ranks run again under new pids.
# /gangs is long-polled: ?since=<its etag> is held until the gangs change (or timeout_ms).
E=$(gangs "$HEAD_SIDE" name >/dev/null; "$TESTKIT" json-get "$T/gangs.json" etag)
t0=$(now_ms)
curl -s "http://127.0.0.1:$HEAD_SIDE/gangs?since=$E&timeout_ms=300" >"$T/held.json"
held=$(( $(now_ms) - t0 ))
[ "$held" -ge 300 ] && [ "$("$TESTKIT" json-get "$T/held.json" etag)" = "$E" ] || fail "/gangs?since= not held: $held ms, $(cat "$T/held.json")"
curl -s "http://127.0.0.1:$HEAD_SIDE/gangs?since=$E&timeout_ms=60000" >"$T/changed.json" &
POLL=$!
A0=$(rpid 0) A1=$(rpid 1)
cp "$T/w0/worker-7500.argv" "$T/argv0.before"; cp "$T/w1/worker-7501.argv" "$T/argv1.before"
kill -KILL "$A1"
wait_for 10 running 1 "$A1" && wait_for 10 running 0 "$A0" || fail "not both restarted: $(grep gang "$HEAD_OUT" "$W1_OUT")"
dead "$A0" && dead "$A1" || fail "a rank of the old generation is still alive"
cmp -s "$T/w0/worker-7500.argv" "$T/argv0.before" && cmp -s "$T/w1/worker-7501.argv" "$T/argv1.before" ||
    fail "the new generation runs other ranks or ports: $(diff "$T/argv1.before" "$T/w1/worker-7501.argv")"
wait_for 10 dead "$POLL" && [ "$("$TESTKIT" json-get "$T/changed.json" etag)" != "$E" ] ||
    fail "the held /gangs was not answered at the change: $(cat "$T/changed.json")"
grep_q "$W1_OUT" "workers: gang agg_w0: agg_w0_r1: .*; stopping its 1 member on worker1 until head's next generation" &&
    grep_q "$HEAD_OUT" "workers: gang agg_w0 generation 2: a member on worker1 failed; restarting its 1 member on head" &&
    grep_q "$W1_OUT" "workers: gang agg_w0 generation 2: head started it; restarting its 1 member on worker1" ||
    fail "the gang's log: $(grep -h 'gang agg_w0' "$HEAD_OUT" "$W1_OUT")"
pass "kill -9 of worker1's rank: worker1 stopped its member, head started generation 2, both ranks restarted with the same argv (ranks, ports), none of the old left; a held GET /gangs?since= answered at the change (held $held ms without one)"

# The rank on head dies: generation 3, both restarted.
B0=$(rpid 0) B1=$(rpid 1)
kill -KILL "$B0"
wait_for 10 running 0 "$B0" && wait_for 10 running 1 "$B1" || fail "not both restarted: $(grep gang "$HEAD_OUT" "$W1_OUT")"
grep_q "$W1_OUT" "workers: gang agg_w0 generation 3: head started it" || fail "worker1 did not follow generation 3"
[ "$(gangs "$HEAD_SIDE" generation)" = 3 ] && [ "$(gangs "$FSIDE" generation)" = 3 ] || fail "/gangs: $(cat "$T/gangs.json")"
"$SIDECAR" --status "http://127.0.0.1:$FSIDE" >"$T/st.txt"
grep -q '^   agg_w0  *head  *3  *2 ready ' "$T/st.txt" && grep -q '^   agg_w0_r1 .* none$' "$T/st.txt" ||
    fail "--status on worker1: $(cat "$T/st.txt")"
pass "kill -9 of head's rank: generation 3 on both nodes, both ranks restarted; --status shows the gang and each worker's check"

# worker1's sidecar is killed (its rank goes with it): after peer_timeout_ms head restarts its rank.
C0=$(rpid 0)
kill -KILL "$W1_PID"
wait_for 10 running 0 "$C0" || fail "head's rank was not restarted: $(grep gang "$HEAD_OUT")"
grep_q "$HEAD_OUT" "workers: gang agg_w0 generation 4: the sidecar of worker1 did not answer for 1000 ms" ||
    fail "head's log: $(grep 'gang agg_w0' "$HEAD_OUT")"
pass "worker1's sidecar gone: head counted its rank dead after peer_timeout_ms and restarted its own (generation 4)"

# worker1's sidecar back: it rejoins at head's generation. Stopped gracefully while head holds its
# long-poll of /gangs (a member node polls its leader, saying its failures; the leader polls no
# one), it exits 0, and head holds none of it any more.
kill_quiet "$W1_PID"
FAKE_WORKER_DIR=$T/w1 start_sidecar worker1
W1_PID=$SC_PID W1_OUT=$SC_OUT
at_head() { [ "$(gangs "$FSIDE" generation)" = "$(gangs "$HEAD_SIDE" generation)" ] && running 1; }
wait_for 20 at_head || fail "worker1 did not rejoin: $(cat "$T/gangs.json")"
held_at() { curl -s "http://127.0.0.1:$1/metrics" | grep -q "^mooncake_sidecar_admin_long_polls $2\$"; }
held_some() { curl -s "http://127.0.0.1:$1/metrics" | grep -q '^mooncake_sidecar_admin_long_polls [1-9]'; }
wait_for 10 held_some "$HEAD_SIDE" || fail "head holds no long-poll of worker1's: $(curl -s "http://127.0.0.1:$HEAD_SIDE/metrics" | grep -E "long_polls|gangs")"
held_at "$FSIDE" 0 || fail "worker1 holds a long-poll: head polls it"
kill -TERM "$W1_PID"; wait "$W1_PID"; rc=$?
[ $rc -eq 0 ] || fail "worker1's sidecar exited $rc on SIGTERM while polling head: $(tail -5 "$W1_OUT")"
wait_for 10 held_at "$HEAD_SIDE" 0 || fail "head still holds worker1's long-poll after it stopped"
pass "worker1's sidecar restarted: it rejoins at head's generation; it holds a poll of head's /gangs (head polls no one); stopped, it exits 0 and head's hold of its poll ends at once"

# The leader streams /gangs to a member for one hold (half of peer_timeout_ms, here 25 s): an event
# per change on one connection, not a request per change. Three generations started by head (its
# rank killed each time) reach worker1 on at most two requests (one hold may end meanwhile); an
# observer's stream of head's /gangs gets each of them as an event on its one connection.
kill -TERM "$HEAD_PID"; wait "$HEAD_PID"
new_ports
LONG=${GROUP/\"peer_timeout_ms\": 1000/\"peer_timeout_ms\": 50000}
two_nodes "$LONG" "$LONG"
rm -f "$T"/w0/* "$T"/w1/*
FAKE_WORKER_DIR=$T/w0 start_sidecar head
HEAD_OUT=$SC_OUT HEAD_PID=$SC_PID
FAKE_WORKER_DIR=$T/w1 start_sidecar worker1
W1_OUT=$SC_OUT W1_PID=$SC_PID
wait_for 20 running 0 && wait_for 20 running 1 && wait_for 10 held_some "$HEAD_SIDE" ||
    fail "the second pair did not start: $(tail -n 5 "$HEAD_OUT" "$W1_OUT")"
curl -sN "http://127.0.0.1:$HEAD_SIDE/gangs?stream=1&timeout_ms=60000" >"$T/observer.txt" &
OBS=$!
first_event() { grep -q '"generation": *1,' "$T/observer.txt"; }
wait_for 10 first_event || fail "the observer's /gangs stream has no first event: $(cat "$T/observer.txt")"
gang_requests() {
	curl -s "http://127.0.0.1:$HEAD_SIDE/metrics" |
	    awk '/^mooncake_sidecar_http_requests_total\{.*route="\/gangs"/ { n += $NF } END { print n + 0 }'
}
R0=$(gang_requests)
for g in 2 3 4; do
	P0=$(rpid 0) P1=$(rpid 1)
	kill -KILL "$P0"
	wait_for 10 running 0 "$P0" && wait_for 10 running 1 "$P1" &&
	    wait_for 10 grep_q "$W1_OUT" "workers: gang agg_w0 generation $g: head started it" ||
	    fail "generation $g did not reach worker1: $(grep -h 'gang agg_w0' "$HEAD_OUT" "$W1_OUT")"
done
R1=$(gang_requests)
[ $((R1 - R0)) -le 1 ] || fail "worker1 asked head's /gangs $((R1 - R0)) times for 3 changes (a request per change: not streamed)"
for g in 2 3 4; do
	grep -q "\"generation\": *$g," "$T/observer.txt" || fail "the observer's stream has no event of generation $g: $(cat "$T/observer.txt")"
done
alive "$OBS" || fail "the observer's /gangs stream ended"
kill "$OBS" 2>/dev/null; wait "$OBS" 2>/dev/null
pass "/gangs streamed: generations 2 to 4 reached worker1 on $((R1 - R0)) new request(s) to head, and an observer's one stream got an event of each"
kill -TERM "$W1_PID"; wait "$W1_PID"

# A data-parallel group of 2 ranks on one node is a gang too; with workers.gang "process" a rank
# restarts alone, as before.
for mode in endpoint process; do
	new_ports
	mkdir -p "$T/dp-$mode"
	write_config "dp-$mode" '"address": "127.0.0.1"' '"workers": { "flavor": "vllm", "dp_launch_mode": "per_gpu",
	    "gang": "'"$mode"'", "restart": { "backoff_initial_ms": 50, "burst": 100 },
	    "groups": [ { "role": "agg", "count": 1, "gpus": 2, "dp": 2, "health": { "type": "none" },
	                  "command": ["'"$FAKE"'", "serve", "/model", "--port", "{http_port}"] } ] }'
	sed -i 's|"job": {|"job": { "gpus_per_node": 2,|' "$T/dp-$mode.json"
	FAKE_WORKER_DIR=$T/dp-$mode start_sidecar "dp-$mode"
	dpid() { cat "$T/dp-$mode/worker-750$1.pid" 2>/dev/null; }
	up2() { local p; p=$(dpid "$1"); [ -n "$p" ] && [ "$p" != "${2:-}" ] && alive "$p"; }
	wait_for 20 up2 0 && wait_for 20 up2 1 || fail "$mode: the DP ranks did not start: $(tail -n 5 "$SC_OUT")"
	D0=$(dpid 0) D1=$(dpid 1)
	kill -KILL "$D0"
	wait_for 10 up2 0 "$D0" || fail "$mode: rank 0 not restarted"
	if [ "$mode" = endpoint ]; then
		wait_for 10 up2 1 "$D1" || fail "rank 1 was not restarted with its gang: $(grep gang "$SC_OUT")"
		grep_q "$SC_OUT" "workers: gang agg_w0 generation 2: agg_w0_r0: " || fail "no gang restart logged: $(grep gang "$SC_OUT")"
	else
		[ "$(dpid 1)" = "$D1" ] || fail "gang process: rank 1 was restarted with rank 0"
	fi
	kill -TERM "$SC_PID"; wait "$SC_PID"
done
pass "per_gpu DP 2 on one node: kill -9 of rank 0 restarts both (gang endpoint), or rank 0 alone (gang process)"
# Per gang, on one node: a crash-looping DP gang goes fatal after restart.burst starts and stays
# down while the other gangs run; a member found unhealthy restarts its gang (and only it); a
# process alone in its endpoint (a gang of one) restarts alone.
new_ports
for i in $(seq 20); do	# five free HTTP ports in a row, for the five model servers
	HP=$("$TESTKIT" freeports 1)
	[ "$HP" -lt 65530 ] && ! accepts $((HP + 1)) && ! accepts $((HP + 2)) && ! accepts $((HP + 3)) &&
	    ! accepts $((HP + 4)) && break
done
mkdir -p "$T/pg"
echo "exit 3" >"$T/pg/worker-7500.control"
echo "exit 3" >"$T/pg/worker-7501.control"
HEALTH='"health": { "type": "http", "interval_ms": 100, "timeout_ms": 200, "failures": 3 }'
write_config pg '"address": "127.0.0.1"' '"workers": { "flavor": "vllm", "dp_launch_mode": "per_gpu",
    "restart": { "backoff_initial_ms": 50, "burst": 3, "burst_window_ms": 60000 },
    "ports": { "http_base": '"$HP"', "http_stride": 1 },
    "groups": [ { "role": "prefill", "count": 1, "gpus": 2, "dp": 2, '"$HEALTH"',
                  "command": ["'"$FAKE"'", "serve", "/model", "--port", "{http_port}"] },
                { "role": "decode", "count": 1, "gpus": 2, "dp": 2, '"$HEALTH"',
                  "command": ["'"$FAKE"'", "serve", "/model", "--port", "{http_port}"] },
                { "role": "decode", "count": 1, "gpus": 1, '"$HEALTH"',
                  "command": ["'"$FAKE"'", "serve", "/model", "--port", "{http_port}"] } ] }'
sed -i 's|"job": {|"job": { "gpus_per_node": 5,|' "$T/pg.json"
FAKE_WORKER_DIR=$T/pg FAKE_WORKER_TESTKIT=$TESTKIT FAKE_WORKER_READY_MS=0 start_sidecar pg
gang_field() { curl -s "http://127.0.0.1:$SIDE/gangs" >"$T/pg-gangs.json" &&
    "$TESTKIT" json-get "$T/pg-gangs.json" "gangs.$1.$2"; }
wid() { cat "$T/pg/worker-$1.pid" 2>/dev/null; }
wstate() { adm /status >"$T/pg-st.json"; "$TESTKIT" json-get "$T/pg-st.json" "workers.$1.state"; }
wait_for 20 is fatal gang_field 0 state || fail "prefill_w0 not fatal: $(cat "$T/pg-gangs.json"; grep 'gang prefill' "$SC_OUT")"
grep_q "$SC_OUT" "workers: gang prefill_w0 fatal: more than 3 starts in 60000 ms; not restarting" ||
    fail "no fatal line: $(grep 'gang prefill' "$SC_OUT")"
[ "$(gang_field 0 generation)" = 3 ] || fail "prefill_w0 generation: $(cat "$T/pg-gangs.json")"
wait_for 10 is ready gang_field 1 state && wait_for 10 is ready wstate 4 ||
    fail "the other gangs are not ready: $(cat "$T/pg-gangs.json")"
dead "$(wid 7500)" && dead "$(wid 7501)" || fail "a member of the fatal gang still runs"
adm /metrics >"$T/pg.prom"
grep -q '^mooncake_sidecar_gang_up{gang="prefill_w0"} 0$' "$T/pg.prom" &&
    grep -q '^mooncake_sidecar_gang_up{gang="decode_w0"} 1$' "$T/pg.prom" &&
    grep -q '^mooncake_sidecar_gang_restarts_total{gang="prefill_w0",group="prefill",reason="member_failed"} 2$' "$T/pg.prom" ||
    fail "gang metrics: $(grep gang "$T/pg.prom")"
pass "a crash-looping DP gang: fatal after 3 starts (generation 3), both members down, the other gangs ready; gang_up and gang_restarts_total say so"

E0=$(wid 7502) E1=$(wid 7503) S=$(wid 7504)
echo unhealthy >"$T/pg/worker-7503.control"
wait_for 10 grep_q "$SC_OUT" "workers: gang decode_w0 generation 2: decode_w0_r1: unhealthy: 3 failed health checks in a row" ||
    fail "no gang restart for the unhealthy member: $(grep 'decode_w0' "$SC_OUT" | tail -5)"
echo healthy >"$T/pg/worker-7503.control"
renewed() { local p; p=$(wid "$1"); [ -n "$p" ] && [ "$p" != "$2" ] && alive "$p"; }
wait_for 10 renewed 7502 "$E0" && wait_for 10 renewed 7503 "$E1" && wait_for 10 is ready gang_field 1 state ||
    fail "decode_w0 not restarted whole: $(cat "$T/pg-gangs.json")"
[ "$(wid 7504)" = "$S" ] || fail "the gang of one was restarted with decode_w0"
adm /metrics | grep -q '^mooncake_sidecar_gang_restarts_total{gang="decode_w0",group="decode",reason="unhealthy"} 1$' ||
    fail "no unhealthy restart counted"
pass "a member found unhealthy (503 three times): its gang restarted, both members anew and ready; the gang of one untouched"

E0=$(wid 7502) E1=$(wid 7503)
kill -KILL "$S"
wait_for 10 renewed 7504 "$S" && wait_for 10 is ready wstate 4 || fail "decode_w1 not restarted"
[ "$(wid 7502)" = "$E0" ] && [ "$(wid 7503)" = "$E1" ] || fail "decode_w0 was restarted with the gang of one"
dead "$(wid 7500)" || fail "the fatal gang came back"
pass "kill -9 of a process alone in its endpoint: only it restarts; the fatal gang stays down"

# A /gangs long-poll still held when the sidecar stops is answered, and the sidecar exits 0.
E=$(gang_field 0 name >/dev/null; "$TESTKIT" json-get "$T/pg-gangs.json" etag)
curl -s "http://127.0.0.1:$SIDE/gangs?since=$E&timeout_ms=60000" >"$T/pg-held.json" &
POLL=$!
held() { adm /metrics | grep -q '^mooncake_sidecar_admin_long_polls 1$'; }
wait_for 5 held || fail "the /gangs long-poll is not held: $(adm /metrics | grep long_polls)"
kill -TERM "$SC_PID"; wait "$SC_PID"; rc=$?
[ $rc -eq 0 ] || fail "the sidecar exited $rc on SIGTERM with a /gangs long-poll held"
wait_for 5 dead "$POLL" || fail "the held /gangs was not answered at the stop"
pass "SIGTERM with a /gangs long-poll held: the poll answered, the sidecar exited 0"
finish
