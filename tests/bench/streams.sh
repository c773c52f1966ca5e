#!/bin/bash
# Head fan-out over event streams: one head sidecar (stand-in master, default limits for a job of
# N+1 nodes) and one process (tests/tools/streamload) holding N /endpoints?stream=1 streams from N
# loopback addresses, for each N given. KILLS times kill -9 of the master; for the not-ready event
# and the next ready one, the arrival in every stream against the head's own publish time (its log,
# "renamed at"). Prints the head's CPU per not-ready publish (its process_cpu_seconds_total; the
# restart backoff of 1 s keeps the new master's start out of it) and per stream, its RSS per held
# stream, its idle CPU with N held, and delivery p50/p99/max. Beside it, from the same run, the
# floor: the same client against streamload serve, a trivial epoll server writing an event of the
# same size to the same N sockets (its own CPU for the writes, and the arrival against its write).
# Usage: tests/bench/streams.sh [N ...]    (default: 1000 4000 10000; KILLS=3, IDLE_S=5)
set -uo pipefail
. "$(dirname "$0")/lib.sh"
SIZES=${*:-1000 4000 10000}
KILLS=${KILLS:-3}
IDLE_S=${IDLE_S:-5}
LOAD=$top_builddir/tests/tools/streamload
cpu_ms() { adm /metrics | awk '/^process_cpu_seconds_total / { printf "%.3f\n", $2 * 1000 }'; }
rss_kb() { awk '/^VmRSS/ { print $2 }' /proc/"$1"/status; }
published() { sed -n "s/.*endpoints: generation $2 (master .*, renamed at \\([0-9.]*\\)) in .*/\\1/p" "$1" | head -1; }
# event OUT GEN READY: "streams min p50 p99 max" of that event in the client's last report
event() { awk -v g="gen=$2" -v r="ready=$3" '$2 == g && $3 == r { split($4, a, "="); s = a[2]; l = $0 } END { print l }' "$1" |
    sed 's/.*streams=\([0-9]*\) min=\([0-9]*\) p50=\([0-9]*\) p99=\([0-9]*\) max=\([0-9]*\)/\1 \2 \3 \4 \5/'; }
# has OUT PID N GEN READY: ask the client for a report until N streams have that event
has() { kill -USR1 "$2"; sleep 0.05; read -r n _ <<<"$(event "$1" "$4" "$5")"; [ "${n:-0}" -ge "$3" ]; }
ms_since() { awk -v t="$1" -v h="$2" 'BEGIN { printf "%.1f", (t / 1e6 - h) * 1000 }'; }
ulimit -n "$(ulimit -Hn)"
echo "mooncake-sidecar stream fan-out benchmark, $(nproc) cores, $(date -u +%F); streams from one client process"
for N in $SIZES; do
	D=$T/n$N
	mkdir -p "$D"
	new_ports
	write_config "h$N" '"address": "127.0.0.1", "restart": { "backoff_initial_ms": 1000, "backoff_max_ms": 1000, "burst": 100 }'
	sed -i "s/\"nodes\": \"localhost\", \"node\": \"localhost\"/\"nodes\": \"localhost,f[1-$N]\", \"node\": \"localhost\"/" "$T/h$N.json"
	start_sidecar "h$N"
	HEAD=$SC_PID HOUT=$SC_OUT
	wait_for 20 notified 'READY=1' || fail "N=$N: head not ready"
	RSS0=$(rss_kb "$HEAD")
	"$LOAD" client "$SIDE" "$N" "/endpoints?stream=1&timeout_ms=3600000" >"$D/client" 2>"$D/client.err" &
	CL=$!
	STARTED+=($CL)
	wait_for 120 grep -q '^held' "$D/client" || fail "N=$N: the client holds $(kill -USR1 $CL; sleep 0.2; tail -1 "$D/client") ($(tail -2 "$D/client.err"))"
	EV=$(( $(curl -s "http://127.0.0.1:$SIDE/endpoints" | wc -c) + 30 ))	# with the event framing
	C0=$(cpu_ms) W0=$(now_ms)
	sleep "$IDLE_S"
	C1=$(cpu_ms) W1=$(now_ms)
	IDLE=$(awk -v c="$C1" -v c0="$C0" -v w=$((W1 - W0)) 'BEGIN { printf "%.2f", 100 * (c - c0) / w }')
	RSS1=$(rss_kb "$HEAD")
	: >"$D/cpu"; : >"$D/nr"; : >"$D/r"
	for k in $(seq "$KILLS"); do
		G=$("$TESTKIT" json-get "$T/h$N/endpoints.json" generation)
		C0=$(cpu_ms)
		kill -KILL "$(master_pid "h$N")"
		wait_for 30 has "$D/client" "$CL" "$N" "$G" 0 || fail "N=$N kill $k: $(event "$D/client" "$G" 0) streams of $N have generation $G not ready"
		C1=$(cpu_ms)
		echo "$C1 - $C0" | bc -l >>"$D/cpu"
		wait_for 30 has "$D/client" "$CL" "$N" "$((G + 1))" 1 || fail "N=$N kill $k: not every stream has generation $((G + 1)) ready"
		for w in "$G 0 nr not ready" "$((G + 1)) 1 r ready"; do
			set -- $w
			read -r _ _ p50 p99 max <<<"$(event "$D/client" "$1" "$2")"
			H=$(published "$HOUT" "$1 ${*:4}")
			echo "$(ms_since "$p50" "$H") $(ms_since "$p99" "$H") $(ms_since "$max" "$H")" >>"$D/$3"
		done
	done
	kill -TERM "$CL"; wait "$CL" 2>/dev/null
	PUB=$(pct 50 <"$D/cpu")
	col() { awk -v c="$1" '{ print $c }' "$2" | pct "${3:-50}"; }
	printf 'N=%-6d head: CPU per publish %s ms [%s-%s] = %.2f us per stream; RSS %.1f MiB (%.1f before: %.2f KiB per held stream); idle %s %% of a core\n' \
	    "$N" "$PUB" "$(pct 0 <"$D/cpu")" "$(pct 100 <"$D/cpu")" "$(echo "$PUB * 1000 / $N" | bc -l)" \
	    "$(echo "$RSS1 / 1024" | bc -l)" "$(echo "$RSS0 / 1024" | bc -l)" "$(echo "($RSS1 - $RSS0) / $N" | bc -l)" "$IDLE"
	printf '          delivery (publish -> arrival in the stream, %d kills): not ready p50 %s ms, p99 %s, max %s; ready p50 %s, p99 %s, max %s\n' \
	    "$KILLS" "$(col 1 "$D/nr")" "$(col 2 "$D/nr")" "$(col 3 "$D/nr" 100)" "$(col 1 "$D/r")" "$(col 2 "$D/r")" "$(col 3 "$D/r" 100)"
	kill -KILL "$HEAD" 2>/dev/null; wait "$HEAD" 2>/dev/null
	SIDECARS=()
	# the floor: the same client, N sockets, an event of the same size written to each
	FP=$("$TESTKIT" freeports 1)
	mkfifo "$D/floor.in"
	"$LOAD" serve "$FP" <"$D/floor.in" >"$D/floor.out" 2>&1 &
	FS=$!
	STARTED+=($FS)
	exec 8>"$D/floor.in"
	wait_for 10 grep -q '^serving' "$D/floor.out" || fail "the floor server did not start"
	"$LOAD" client "$FP" "$N" / >"$D/fclient" 2>"$D/fclient.err" &
	CL=$!
	STARTED+=($CL)
	wait_for 120 grep -q '^held' "$D/fclient" || fail "N=$N: the floor client does not hold its streams"
	: >"$D/fcpu"; : >"$D/fnr"
	for k in $(seq "$KILLS"); do
		echo "$k 0 $EV" >&8
		wait_for 30 has "$D/fclient" "$CL" "$N" "$k" 0 || fail "N=$N floor $k: not every stream has the event"
		read -r _ _ p50 p99 max <<<"$(event "$D/fclient" "$k" 0)"
		H=$(sed -n 's/^published t=//p' "$D/floor.out" | sed -n "${k}p")
		echo "$(ms_since "$p50" "$(echo "$H / 1000000" | bc -l)") $(ms_since "$p99" "$(echo "$H / 1000000" | bc -l)") $(ms_since "$max" "$(echo "$H / 1000000" | bc -l)")" >>"$D/fnr"
		sed -n 's/^written .*cpu_us=//p' "$D/floor.out" | sed -n "${k}p" | awk '{ print $1 / 1000 }' >>"$D/fcpu"
	done
	exec 8>&-
	kill -TERM "$CL" "$FS" 2>/dev/null; wait "$CL" "$FS" 2>/dev/null
	FPUB=$(pct 50 <"$D/fcpu")
	printf '          floor (a trivial epoll server, %d-byte event to the same %d streams): CPU %s ms = %.2f us per stream; delivery p50 %s ms, p99 %s, max %s\n' \
	    "$EV" "$N" "$FPUB" "$(echo "$FPUB * 1000 / $N" | bc -l)" "$(col 1 "$D/fnr")" "$(col 2 "$D/fnr")" "$(col 3 "$D/fnr" 100)"
done
finish
