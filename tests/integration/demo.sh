#!/bin/bash
# The demo (scripts/demo.sh, conf/demo.json: fixed ports 9103, 9003, 8080, 50051 on loopback) with the
# real mooncake_master on PATH, as a user would run it: the demo says it uses the real master, the
# master becomes ready, both fake workers start with their GPU and the master's address, the curl
# commands it suggests answer, kill -9 of the master is repaired, and Ctrl-C (SIGINT) stops
# everything with exit 0. When one of its fixed ports is taken, it says which and is skipped.
. "$(dirname "$0")/lib.sh"
need_real_master
top=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
for p in 9103 9003 8080 50051; do
	if (exec 3<>/dev/tcp/127.0.0.1/"$p") 2>/dev/null; then
		[ "${CI:-}" = true ] && fail "the demo's port $p is taken on this machine"
		echo "demo: SKIPPED: the demo's fixed port $p is taken on this machine"
		exit 77
	fi
done
mkdir -p "$T/bin"
ln -s "$REAL" "$T/bin/mooncake_master"
D=$T/demo
PATH=$T/bin:$PATH DEMO_RUN_DIR=$D DEMO_BUILD_DIR=$top_builddir bash "$top/scripts/demo.sh" >"$T/sidecar-demo.out" 2>&1 &
DP=$!
STARTED+=($DP)
wait_for 60 grep_q "$T/sidecar-demo.out" 'using the real mooncake_master' ||
    fail "the demo did not pick the real master: $(head -5 "$T/sidecar-demo.out")"
grep -q "using the real mooncake_master: $T/bin/mooncake_master" "$T/sidecar-demo.out" || fail "which master"
both() { [ -f "$D/worker-7500.env" ] && [ -f "$D/worker-7501.env" ]; }
wait_for 20 both || fail "the two workers did not start: $(tail -20 "$T/sidecar-demo.out")"
MP=$(cat "$D/mooncake_master.pid")
[ "$(cat /proc/"$MP"/comm)" = mooncake_master ] && grep -q 'Master admin server started on port 9003' "$D/mooncake_master.log" ||
    fail "not the real master: $(cat /proc/"$MP"/comm)"
for w in 0 1; do
	grep -qx "CUDA_VISIBLE_DEVICES=$w" "$D/worker-750$w.env" && grep -qx 'MOONCAKE_MASTER=127.0.0.1:50051' "$D/worker-750$w.env" ||
	    fail "worker $w: $(grep -E 'CUDA|MOONCAKE' "$D/worker-750$w.env")"
done
pass "scripts/demo.sh with the real master on PATH: it says so, the master is ready, two workers with GPU 0 and 1 and MOONCAKE_MASTER"
# With the store client library (CI has it): the workers move real bytes, shown in the terminal.
CLIENTS=0
if grep -q "the two workers are Mooncake's store client" "$T/sidecar-demo.out"; then
	CLIENTS=1
	kv() { [ "$(grep -c '^  \[worker\] get key=w750[01]-[0-9]* .* ok crc=' "$T/sidecar-demo.out")" -ge 4 ]; }
	wait_for 20 kv || fail "no KV traffic in the demo's output: $(tail -5 "$T/sidecar-demo.out")"
	pass "the two workers are Mooncake's store client: their puts and gets (checksummed) show in the demo's output"
elif [ "${CI:-}" = true ]; then
	fail "the demo did not run the store client: $(grep -i worker "$T/sidecar-demo.out" | head -3)"
fi
[ "$(curl -s http://127.0.0.1:9103/health)" = "$(curl -s http://127.0.0.1:9003/health)" ] &&
    [ "$(curl -s http://127.0.0.1:9103/role)" = leader ] && [ "$(curl -s http://127.0.0.1:9103/readyz)" = ready ] &&
    curl -s http://127.0.0.1:9103/status | grep -q "\"pid\": $MP" && curl -s http://127.0.0.1:9103/metrics | grep -q '^master_key_count [0-9]' &&
    "$top_builddir/daemon/mooncake-sidecar" --status | grep -q "master: ready, pid $MP" &&
    grep -q '^MOONCAKE_MASTER="127.0.0.1:50051"$' "$D/mooncake.env" || fail "the demo's suggested commands"
pass "the commands the demo suggests answer: /status, /health (the master's own), /role, /readyz, /metrics, --status, mooncake.env"
# master.snapshot (conf/demo.json): two snapshots before the kill, so that the workers' first keys are in one
snaps() { curl -s http://127.0.0.1:9103/status | "$TESTKIT" json-get /dev/stdin master.snapshot.persisted 2>/dev/null; }
wait_for 30 eval '[ "$(snaps)" -ge 2 ]' || fail "the demo's master took no snapshot: $(curl -s http://127.0.0.1:9103/status | "$TESTKIT" json-get /dev/stdin master.snapshot)"
L=$(wc -l <"$T/sidecar-demo.out")
kill -KILL "$MP"
# ready again with another master (the old one's /readyz may still answer until its death is seen)
again() {
	MP2=$(cat "$D/mooncake_master.pid" 2>/dev/null)
	[ -n "$MP2" ] && [ "$MP2" != "$MP" ] && [ "$(cat /proc/"$MP2"/comm 2>/dev/null)" = mooncake_master ] &&
	    [ "$(curl -s http://127.0.0.1:9103/readyz)" = ready ]
}
wait_for 20 again || fail "not ready again with a new master after kill -9: pid file ${MP2:-absent}"
[ "$(curl -s http://127.0.0.1:9103/status | "$TESTKIT" json-get /dev/stdin master.snapshot.last_start)" = restored ] ||
    fail "the demo's master did not restore its snapshot: $(curl -s http://127.0.0.1:9103/status | "$TESTKIT" json-get /dev/stdin master.snapshot)"
pass "kill -9 of the real master as the demo suggests: a new one (pid $MP2) is ready, restored from its snapshot"

if [ "$CLIENTS" = 1 ]; then
	# Once the new master is ready, the workers store again: a put and then a get that succeed in lines
	# written after that. A put in flight across the kill may fail or may be retried by the store client
	# until the new master answers; both are shown, neither is required.
	R=$(wc -l <"$T/sidecar-demo.out")
	stored() {
		tail -n +"$((R + 1))" "$T/sidecar-demo.out" | grep '^  \[worker\] \(put\|get\) ' |
		    awk '/^  \[worker\] put .* ok rc=0/ { p = 1 } p && /^  \[worker\] get .* ok crc=/ { f = 1 } END { exit !f }'
	}
	wait_for 30 stored || fail "the workers did not store again with the new master: $(tail -5 "$T/sidecar-demo.out")"
	NF=$(tail -n +"$((L + 1))" "$T/sidecar-demo.out" | grep -c '^  \[worker\] put .* error rc=')
	kept() { [ "$(tail -n +"$((L + 1))" "$T/sidecar-demo.out" | grep -c '^  \[worker\] old key=w750[01]-0 kept after the store came back')" -ge 1 ]; }
	wait_for 20 kept || fail "the demo does not say the workers' old keys were kept: $(tail -n +"$((L + 1))" "$T/sidecar-demo.out" | grep 'old key' | head -2)"
	grep -q '^  \[worker\] old key=.* lost' "$T/sidecar-demo.out" && fail "a worker's old key was lost: $(grep 'old key' "$T/sidecar-demo.out")"
	pass "the workers put and get again with the new master, in the demo's output ($NF put(s) failed while it was down), and say their first key was kept: $(grep -m1 'old key' "$T/sidecar-demo.out" | sed 's/^ *//')"
fi
WP="$(cat "$D"/worker-7500.pid) $(cat "$D"/worker-7501.pid)"
kill -INT "$DP"
wait "$DP"; RC=$?
[ "$RC" -eq 0 ] || fail "Ctrl-C: exit $RC: $(tail -5 "$T/sidecar-demo.out")"
for p in $MP2 $WP; do dead "$p" || fail "pid $p still running after Ctrl-C"; done
grep -q 'Shutdown signal received, exiting gracefully' "$D/mooncake_master.log" || fail "the master was not stopped gracefully"
pass "Ctrl-C: workers and the real master stopped (its graceful shutdown), exit 0"
finish
