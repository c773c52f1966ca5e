#!/bin/bash
# Chaos soak: a head sidecar (master + a worker, its run_dir on a small tmpfs of its own) and a
# follower sidecar (a worker) run for CHAOS_SECONDS (120 by default) while a driver injects, at random
# intervals: kill -9 of the master, of a worker, of the follower sidecar (restarted at once), the run
# dir filled and freed, the run dir removed, SIGHUP/SIGUSR1 storms, the head's fd limit lowered. A
# reader checks all the time, on both nodes, the files and /endpoints: never ready while the master
# pid they name is dead (beyond 100 ms), the generation never going back, no file that does not
# parse, never two masters, the head sidecar never dead. It prints what it injected and every
# violation; any violation fails it.
. "$(dirname "$0")/lib.sh"
SECS=${CHAOS_SECONDS:-120}
export MC_STANDIN_START_DELAY_MS=50 FAKE_WORKER_DIR=$T
FAKE=$top_srcdir/tests/tools/fake-worker
[ -n "${top_srcdir:-}" ] || FAKE=$(cd "$(dirname "$0")/../tools" && pwd)/fake-worker
new_ports
FSIDE=$("$TESTKIT" freeports 1)
HR=$T/hr
mkdir -p "$HR"
WORKERS='"workers": { "flavor": "generic", "restart": { "backoff_initial_ms": 50, "burst": 60000 },
    "groups": [ { "role": "agg", "count": 2, "gpus": 1, "command": ["'"$FAKE"'"] } ] }'
write_config head '"address": "127.0.0.1", "restart": { "backoff_initial_ms": 20, "backoff_max_ms": 200, "reset_after_ms": 0, "burst": 60000 }' "$WORKERS"
# Two nodes whose names do not reach each other: the workers use this machine's interface.
routable_iface
sed -i "s|\"job\": {[^}]*}|\"job\": { \"id\": \"chaos\", \"nodes\": \"localhost,n2\", \"node\": \"localhost\", \"gpus_per_node\": 1, \"network_interface\": \"$IFACE\", \"run_dir\": \"$HR/run\" }|" "$T/head.json"
sed "s|\"run_dir\": \"$HR/run\"|\"run_dir\": \"$T/fol\"|; s|\"node\": \"localhost\", \"gpus|\"node\": \"n2\", \"gpus|" "$T/head.json" >"$T/fol.json"
sed -i "s|\"metrics_port\": $ADMIN|\"metrics_port\": $ADMIN, \"node\": \"localhost\", \"url\": \"http://127.0.0.1:$SIDE\"|" "$T/fol.json"
sed -i "s|127.0.0.1:$SIDE\" }|127.0.0.1:$FSIDE\" }|" "$T/fol.json"
"$SIDECAR" -n -c "$T/fol.json" >/dev/null || fail "follower config: $("$SIDECAR" -n -c "$T/fol.json" 2>&1)"
printf '#!/bin/sh\nexec unshare -m --propagation private sh -c '"'"'mount -t tmpfs -o size=512k tmpfs "$0" && exec "$@"'"'"' "%s" "$@"\n' "$HR" >"$T/tmpfs.sh"
chmod +x "$T/tmpfs.sh"
SIDECAR_WRAPPER="$T/tmpfs.sh ${SIDECAR_WRAPPER:-}" start_sidecar head
HEAD=$SC_PID
wait_for 15 notified 'READY=1' || fail "head: no READY=1"
in_head() { nsenter -t "$HEAD" -m -- "$@"; }
start_follower() {
	"$SIDECAR" -c "$T/fol.json" >>"$T/sidecar-fol.out" 2>&1 &
	FOL=$!
	STARTED+=($FOL)
}
start_follower
wait_for 15 grep_q "$T/fol/endpoints.json" '"ready": true' || fail "the follower never mirrored a ready head"

# The reader: one line per violation in $T/violations.
reader() {
	local src out gen ready pid key n=0 now
	local -A last_gen=() first_bad=()
	while [ -f "$T/running" ]; do
		for src in headfile headhttp folfile folhttp; do
			case $src in
			headfile) out=$(in_head cat "$HR/run/endpoints.json" 2>/dev/null | "$TESTKIT" ep -) ;;
			headhttp) out=$(curl -s -m 2 "http://127.0.0.1:$SIDE/endpoints" | "$TESTKIT" ep -) ;;
			folfile) out=$("$TESTKIT" ep "$T/fol/endpoints.json") ;;
			folhttp) out=$(curl -s -m 2 "http://127.0.0.1:$FSIDE/endpoints" | "$TESTKIT" ep -) ;;
			esac
			case $out in
			none|'') continue ;;
			unparseable*) case $src in *file) echo "$src: a file that does not parse: $out" >>"$T/violations" ;; esac; continue ;;
			esac
			read -r gen ready pid <<<"$out"
			if [ -n "${last_gen[$src]:-}" ] && [ "$gen" -lt "${last_gen[$src]}" ]; then
				echo "$src: generation went back from ${last_gen[$src]} to $gen" >>"$T/violations"
			fi
			last_gen[$src]=$gen
			now=$(now_ms)
			key="$src $gen $pid"
			if [ "$ready" = 1 ] && [ "$pid" -gt 0 ] && dead "$pid"; then
				if [ -z "${first_bad[$key]:-}" ]; then
					first_bad[$key]=$now
				elif [ $(( now - first_bad[$key] )) -gt 100 ]; then
					echo "$src: ready for dead master pid $pid (generation $gen) for $(( now - first_bad[$key] )) ms" >>"$T/violations"
					first_bad[$key]=$(( now + 1000000 ))
				fi
			fi
		done
		n=$(pgrep -fc -- "--rpc_port=$RPC ")
		[ "$n" -le 1 ] || echo "$n masters at once" >>"$T/violations"
		alive "$HEAD" || { echo "the head sidecar died" >>"$T/violations"; return; }
		echo x >>"$T/samples"
	done
}
touch "$T/running"
: >"$T/violations"
reader &
READER=$!
STARTED+=($READER)

declare -A did
END=$(( $(now_ms) + SECS * 1000 ))
FILLED=0 LOWERED=0
while [ "$(now_ms)" -lt "$END" ]; do
	sleep "0.$(( RANDOM % 9 + 1 ))"	# the driver's random interval, not a wait for a condition
	if [ "$FILLED" = 1 ]; then in_head rm -f "$HR/fill"; FILLED=0; did[freed]=$(( ${did[freed]:-0} + 1 )); fi
	if [ "$LOWERED" = 1 ]; then prlimit --pid "$HEAD" --nofile="$HARD":"$HARD"; LOWERED=0; fi
	case $(( RANDOM % 8 )) in
	0|1) curl -s -m 2 -o "$T/st.json" "http://127.0.0.1:$SIDE/status"
	   M=$("$TESTKIT" json-get "$T/st.json" master.pid 2>/dev/null)
	   [ "${M:-null}" != null ] && kill -KILL "$M" 2>/dev/null && did[kill_master]=$(( ${did[kill_master]:-0} + 1 )) ;;
	2) W=$(ls "$T"/worker-*.pid 2>/dev/null | shuf -n 1)
	   [ -n "$W" ] && kill -KILL "$(cat "$W")" 2>/dev/null && did[kill_worker]=$(( ${did[kill_worker]:-0} + 1 )) ;;
	3) kill_quiet "$FOL"; start_follower; did[kill_follower]=$(( ${did[kill_follower]:-0} + 1 )) ;;
	4) in_head sh -c "cat /dev/zero >'$HR/fill' 2>/dev/null; true"; FILLED=1; did[fill]=$(( ${did[fill]:-0} + 1 )) ;;
	5) in_head rm -rf "$HR/run"; did[rm_run_dir]=$(( ${did[rm_run_dir]:-0} + 1 )) ;;
	6) for i in $(seq 10); do kill -HUP "$HEAD"; kill -USR1 "$HEAD"; done; did[hup_usr1_storm]=$(( ${did[hup_usr1_storm]:-0} + 1 )) ;;
	7) HARD=$(prlimit --pid "$HEAD" --nofile --noheadings --output HARD)
	   prlimit --pid "$HEAD" --nofile=$(( $(ls /proc/"$HEAD"/fd | wc -l) + 4 )):"$HARD" && LOWERED=1
	   did[fd_limit]=$(( ${did[fd_limit]:-0} + 1 )) ;;
	esac
done
in_head rm -f "$HR/fill"
[ "$LOWERED" = 1 ] && prlimit --pid "$HEAD" --nofile="$HARD":"$HARD"
rm -f "$T/running"
wait "$READER" 2>/dev/null
touch "$T/samples"
[ "$(wc -l <"$T/samples")" -ge 10 ] || fail "the reader took only $(wc -l <"$T/samples") samples"
[ "${did[kill_master]:-0}" -ge 1 ] || fail "no master was killed"
INJ=$(for k in "${!did[@]}"; do echo "$k ${did[$k]}"; done | sort | tr '\n' ',' | sed 's/,$//; s/,/, /g')
echo "   injected in $SECS s: $INJ"
echo "   reader samples: $(wc -l <"$T/samples"), violations: $(wc -l <"$T/violations")"
[ -s "$T/violations" ] && { sort "$T/violations" | uniq -c | head -20; fail "$(wc -l <"$T/violations") violation(s)"; }
alive "$HEAD" && alive "$FOL" || fail "a sidecar is dead at the end"
# After the storm the system settles: both nodes ready again on one generation.
wait_for 20 grep_q "$T/fol/endpoints.json" '"ready": true' || fail "the follower did not settle on a ready head"
pass "chaos for $SECS s ($INJ): $(wc -l <"$T/samples") reader samples on both nodes, no violation"
finish
