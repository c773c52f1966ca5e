#!/bin/bash
# Supervision benchmark. Prints, from one run on this machine:
#  (a) readiness detection: the stand-in's last port listening -> READY=1 (median of N starts),
#      beside a shell loop that polls the same three checks once a second;
#  (b) crash-to-respawn: kill -9 of the master -> exec of the new one (median of N), with
#      backoff_initial_ms 100 and 0, beside a bash `while true; do master; done` loop;
#  (c) resident memory while supervising, beside that bash loop.
# The run directory is on tmpfs (/dev/shm) when there is one, as under the systemd unit (/run): the
# endpoint files written before READY=1 and on each death cost a journal commit on disk instead
# (tests/bench/endpoints.sh measures both).
# Usage: tests/bench/supervise.sh [N]   (default 20)
set -uo pipefail
[ -d /dev/shm ] && export TMPDIR=/dev/shm
N=${1:-20}
. "$(dirname "$0")/lib.sh"

loop_execs_over() { [ "$(count "$EV" '^exec')" -gt "$1" ]; }
rss_kb() { awk '/^VmRSS/{print $2}' /proc/"$1"/status; }

echo "mooncake-sidecar supervision benchmark, $N runs each, $(nproc) cores, run dir on $(df --output=fstype "$T" | tail -1), $(date -u +%F)"

# (a) readiness detection. The start-up delay is drawn from 1.0-2.0 s so that a fixed-period poll
# meets readiness at a random phase, as it does in real life.
delay() { echo $((1000 + RANDOM % 1000)); }
# ready_runs OUT ON_OUTPUT: N starts with master.probe_on_output ON_OUTPUT (true: probe when the
# master's output says a server is up; false: the probe_interval_ms poll alone).
ready_runs() {
	: >"$1"
	for i in $(seq "$N"); do
		new_ports
		write_config "ra$2$i" '"restart": { "backoff_initial_ms": 100 }, "probe_on_output": '"$2"
		MC_STANDIN_START_DELAY_MS=$(delay) start_sidecar "ra$2$i"
		wait_for 20 notified 'READY=1' || fail "run $i: no READY=1"
		L=$(awk '$1=="listening"{print $3}' "$EVENTS" | tail -1)
		R=$(awk '/READY=1/{print $1; exit}' "$NOTIFY_OUT")
		echo "$(( (R - L) / 1000 ))" >>"$1"
		kill -TERM "$SC_PID"; wait "$SC_PID"
	done
}
ready_runs "$T/ready-sidecar" true
ready_runs "$T/ready-poll" false
: >"$T/ready-shell"
for i in $(seq "$N"); do
	new_ports
	MC_STANDIN_EVENTS=$T/events-sh$i MC_STANDIN_START_DELAY_MS=$(delay) "$STANDIN" --rpc_port=$RPC --rpc_address=127.0.0.1 \
	    --enable_http_metadata_server=true --http_metadata_server_port=$META \
	    --metrics_port=$ADMIN --metrics_host=127.0.0.1 2>/dev/null &
	MP=$!
	STARTED+=($MP)
	# The shell-script way: all three checks, then `sleep 1`.
	until curl -sf "http://127.0.0.1:$META/health" >/dev/null &&
	    curl -sf "http://127.0.0.1:$ADMIN/health" | grep -q '"service_ready":true' && accepts "$RPC"; do
		sleep 1
	done
	D=$("$TESTKIT" now)
	L=$(awk '$1=="listening"{print $3}' "$T/events-sh$i")
	echo "$(( (D - L) / 1000 ))" >>"$T/ready-shell"
	kill -TERM "$MP"; wait "$MP" 2>/dev/null
done
RA=$(awk '{print $1/1000}' "$T/ready-sidecar" | median)
RP=$(awk '{print $1/1000}' "$T/ready-poll" | median)
RS=$(awk '{print $1/1000}' "$T/ready-shell" | median)
p99() { sort -n | awk '{a[NR]=$1} END {printf "%.1f", a[int(NR * 0.99) + (NR * 0.99 > int(NR * 0.99))]}'; }
echo "(a) readiness detection, last port listening -> READY=1 (ms, median [min-max], p99):"
echo "    sidecar, probe on output (default)  $RA $(awk '{print $1/1000}' "$T/ready-sidecar" | range) p99 $(awk '{print $1/1000}' "$T/ready-sidecar" | p99)"
echo "    sidecar, probe_interval_ms 20 poll  $RP $(awk '{print $1/1000}' "$T/ready-poll" | range) p99 $(awk '{print $1/1000}' "$T/ready-poll" | p99)"
echo "    shell loop polling every 1 s        $RS $(awk '{print $1/1000}' "$T/ready-shell" | range)"

# (b) crash-to-respawn, (c) RSS
respawn() {
	local name=$1 backoff=$2 out=$3 i M K E
	new_ports
	write_config "$name" "\"restart\": { \"backoff_initial_ms\": $backoff, \"reset_after_ms\": 0, \"burst\": 1000 }"
	MC_STANDIN_START_DELAY_MS=50 start_sidecar "$name"
	wait_for 20 notified 'READY=1' || fail "no READY=1"
	: >"$out"
	for i in $(seq "$N"); do
		M=$(master_pid "$name")
		K=$("$TESTKIT" kill 9 "$M")
		wait_for 10 notified "STATUS=master ready (gen $((i + 1))," || fail "no respawn $i"
		E=$(awk -v p="$(master_pid "$name")" '$1=="exec" && $2==p {print $3}' "$EVENTS")
		echo "$(( (E - K) / 1000 ))" >>"$out"
	done
	RSS=$(rss_kb "$SC_PID")
	RSS_SPLIT=$(rss_split "$SC_PID")
	kill -TERM "$SC_PID"; wait "$SC_PID"
}
respawn rb100 100 "$T/respawn-100"
RSS_SIDECAR=$RSS
RSS_SIDECAR_SPLIT=$RSS_SPLIT
respawn rb0 0 "$T/respawn-0"

# loop_respawn OUT LAUNCHER...: the master run again and again by LAUNCHER (a bash `while true`
# loop, or testkit's C loop of vfork, execvp and waitpid: the least a supervisor can do between a
# death and the next exec); kill -9 -> exec of the next, N times. Sets RSS_LOOP to the launcher's RSS.
loop_respawn() {
	local out=$1 M K E
	shift
	new_ports
	EV=$T/events-loop-$(basename "$out")
	MC_STANDIN_EVENTS=$EV MC_STANDIN_START_DELAY_MS=50 "$@" "$STANDIN" --rpc_port=$RPC \
	    --rpc_address=127.0.0.1 --enable_http_metadata_server=true --http_metadata_server_port=$META \
	    --metrics_port=$ADMIN --metrics_host=127.0.0.1 2>/dev/null &
	LOOP=$!
	STARTED+=($LOOP)
	: >"$out"
	for i in $(seq "$N"); do
		wait_for 10 accepts "$RPC" || fail "loop master not up"
		M=$(awk '$1=="exec"{p=$2} END{print p}' "$EV")
		K=$("$TESTKIT" kill 9 "$M")
		wait_for 10 loop_execs_over "$i" || fail "loop did not respawn"
		E=$(awk '$1=="exec"{t=$3} END{print t}' "$EV")
		echo "$(( (E - K) / 1000 ))" >>"$out"
	done
	RSS_LOOP=$(rss_kb "$LOOP")
	M=$(awk '$1=="exec"{p=$2} END{print p}' "$EV")
	kill_quiet "$LOOP"
	[ "$(cat /proc/"$M"/comm 2>/dev/null)" = mooncake_master ] && kill -KILL "$M"
	pkill -KILL -f -- "--rpc_port=$RPC " 2>/dev/null	# a respawn racing the loop's end: this run's port
}
bash_loop() { while true; do "$@"; done; }
export -f bash_loop
loop_respawn "$T/respawn-c" "$TESTKIT" respawn-loop
loop_respawn "$T/respawn-loop" bash -c 'exec 2>/dev/null; bash_loop "$@"' bash
RSS_BASH=$RSS_LOOP

echo "(b) crash-to-respawn, kill -9 -> exec of the new master (ms, median [min-max]):"
echo "    sidecar, backoff_initial_ms 100     $(awk '{print $1/1000}' "$T/respawn-100" | median) $(awk '{print $1/1000}' "$T/respawn-100" | range)"
echo "    sidecar, backoff_initial_ms 0       $(awk '{print $1/1000}' "$T/respawn-0" | median) $(awk '{print $1/1000}' "$T/respawn-0" | range)"
echo "    bash while-true loop (no backoff)   $(awk '{print $1/1000}' "$T/respawn-loop" | median) $(awk '{print $1/1000}' "$T/respawn-loop" | range)"
echo "    C loop: vfork, execvp, waitpid      $(awk '{print $1/1000}' "$T/respawn-c" | median) $(awk '{print $1/1000}' "$T/respawn-c" | range)  (the floor)"
echo "(c) resident memory while supervising (VmRSS):"
echo "    sidecar                             $(awk -v k="$RSS_SIDECAR" 'BEGIN{printf "%.1f MiB", k/1024}')"
echo "      $RSS_SIDECAR_SPLIT"
echo "    bash while-true loop                $(awk -v k="$RSS_BASH" 'BEGIN{printf "%.1f MiB", k/1024}')"
