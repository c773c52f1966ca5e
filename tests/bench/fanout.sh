#!/bin/bash
# Fan-out benchmark: one head sidecar (stand-in master, default limits but the per-IP one, as
# tests/integration/scale.sh) and N real follower sidecars on loopback, for each N given. For each
# N, KILLS times kill -9 of the master; every follower's rename of the new files, from the
# sidecars' own logs ("renamed at"), against the head's publish. Prints p50/p99/max of
# publish -> follower rename for the not-ready and the next ready generation, the head's CPU per
# publish (the not-ready one: the restart backoff keeps the new master's start out of it), its idle
# CPU with N followers held, its RSS and memory per held follower, beside one loopback round trip
# and the floor of this machine (testkit fanout-floor: N minimal processes doing only a follower's
# wake and rename), from the same run.
# Usage: tests/bench/fanout.sh [N ...]    (default: 64 256 1024; KILLS=3, IDLE_S=10; PERF=FILE records
#        the head's not-ready publishes with perf into FILE.N.KILL)
set -uo pipefail
[ -d /dev/shm ] && export TMPDIR=/dev/shm
. "$(dirname "$0")/lib.sh"
SIZES=${*:-64 256 1024}
KILLS=${KILLS:-3}
IDLE_S=${IDLE_S:-10}

# the head's CPU time in ms, from its own process_cpu_seconds_total (getrusage, microseconds; the
# /metrics request that reads it costs the same each time)
cpu_ms() { adm /metrics | awk '/^process_cpu_seconds_total / { printf "%.3f\n", $2 * 1000 }'; }
rss_kb() { awk '/^VmRSS/ { print $2 }' /proc/"$1"/status; }
renamed() { sed -n "s/.*endpoints: generation $2 (master .*, renamed at \\([0-9.]*\\)) in .*/\\1/p" "$1" | head -1; }
ulimit -n "$(ulimit -Hn)"
echo "mooncake-sidecar fan-out benchmark, $(nproc) cores, run dirs on $(df --output=fstype "$T" | tail -1), $(date -u +%F)"
echo "   loopback TCP round trip (testkit rtt): $("$TESTKIT" rtt 20000)"
for N in $SIZES; do
	D=$T/n$N
	mkdir -p "$D/run"
	new_ports
	write_config "h$N" '"address": "127.0.0.1", "restart": { "backoff_initial_ms": 1000, "backoff_max_ms": 1000, "burst": 100 }' \
	    '"admin": { "listen": "127.0.0.1:@SIDE@", "max_connections_per_ip": 0 }'
	python3 - "$T/h$N.json" "$N" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
c["job"]["nodes"] = "head,f[1-%s]" % sys.argv[2]
c["job"]["node"] = "head"
json.dump(c, open(sys.argv[1], "w"))
PY
	start_sidecar "h$N"
	HEAD=$SC_PID HOUT=$SC_OUT
	wait_for 20 notified 'READY=1' || fail "N=$N: head not ready"
	RSS0=$(rss_kb "$HEAD")
	cat >"$D/f.json" <<JSON
{ "job": { "id": "test", "nodes": "head,f[1-$N]", "run_dir": "$D/run/\${FNODE}" },
  "master": { "enabled": false, "node": "head", "url": "http://127.0.0.1:$SIDE" },
  "admin": { "listen": "127.0.0.1:0" }, "endpoints": { "flavor": "vllm" } }
JSON
	PIDS=()
	for i in $(seq "$N"); do
		FNODE=f$i "$SIDECAR" -c "$D/f.json" --node "f$i" >"$D/f$i.out" 2>&1 &
		PIDS+=($!)
		STARTED+=($!)
		[ $((i % 64)) -eq 0 ] && sleep 0.2	# (spread the starts: 64 dynamic linkings at a time)
	done
	held() { [ "$(adm /metrics | sed -n 's/^mooncake_sidecar_admin_long_polls //p')" -ge "$N" ]; }
	wait_for 120 held || fail "N=$N: the head holds $(adm /metrics | sed -n 's/^mooncake_sidecar_admin_long_polls //p') long-polls"
	# idle: N long-polls held, the master ready
	C0=$(cpu_ms) W0=$(now_ms)
	sleep "$IDLE_S"
	C1=$(cpu_ms) W1=$(now_ms)
	IDLE=$(awk -v c="$(echo "$C1 - $C0" | bc -l)" -v w=$((W1 - W0)) 'BEGIN { printf "%.2f", 100 * c / w }')
	RSS1=$(rss_kb "$HEAD")
	: >"$D/lat-nr"; : >"$D/lat-r"; : >"$D/cpu"; : >"$D/fcpu"
	# 8 followers' own CPU counters (their admin ports, as their logs name them)
	FPORTS=$(for i in 1 2 3 4 5 6 7 8; do sed -n 's/.*admin: listening on 127.0.0.1 port \([0-9]*\).*/\1/p' "$D/f$i.out"; done)
	for k in $(seq "$KILLS"); do
		G=$("$TESTKIT" json-get "$T/h$N/endpoints.json" generation)
		# (one process reads the logs as they grow: a shell loop's forks would take CPU from the sidecars it times)
		all() { "$TESTKIT" wait-logs 30 "endpoints: generation $1" "$D"/f*.out; }
		fcpu_sum() { local p s=0; for p in $FPORTS; do s=$(echo "$s + $(curl -s "http://127.0.0.1:$p/metrics" | awk '/^process_cpu_seconds_total / { print $2 * 1000 }')" | bc -l); done; echo "$s"; }
		F0=$(fcpu_sum)
		C0=$(cpu_ms)
		[ -n "${PERF:-}" ] && { if [ -n "${PERF_ALL:-}" ]; then WHO="-p $(IFS=,; echo "${PIDS[*]:0:64}")"; else WHO="-p $HEAD"; fi; [ -n "${PERF_SYS:-}" ] && WHO=-a; perf record -q -g -e cpu-clock -F 20000 $WHO -o "${PERF}.$N.$k" 2>/dev/null & PERFP=$!; sleep 0.5; }
		kill -KILL "$(master_pid "h$N")"
		all "$G not ready" || fail "N=$N kill $k: not every follower wrote generation $G not ready"
		C1=$(cpu_ms)
		F1=$(fcpu_sum)
		[ -n "${PERF:-}" ] && { kill -INT "$PERFP"; wait "$PERFP"; }
		echo "$C1 - $C0" | bc -l >>"$D/cpu"
		B0=$(fcpu_sum); B1=$(fcpu_sum)	# what reading the counters costs them
		echo "($F1 - $F0 - ($B1 - $B0)) * 1000 / $(echo $FPORTS | wc -w)" | bc -l >>"$D/fcpu"
		all "$((G + 1)) ready" || fail "N=$N kill $k: not every follower wrote generation $((G + 1))"
		for w in "$G not ready:lat-nr" "$((G + 1)) ready:lat-r"; do
			H=$(renamed "$HOUT" "${w%:*}")
			for f in "$D"/f*.out; do
				awk -v h="$H" -v t="$(renamed "$f" "${w%:*}")" 'BEGIN { printf "%.1f\n", (t - h) * 1000 }'
			done >>"$D/${w#*:}"
		done
	done
	printf 'N=%-5d publish -> rename, not ready: p50 %s ms, p99 %s ms, max %s ms; ready: p50 %s, p99 %s, max %s ms (%d followers x %d kills)\n' \
	    "$N" "$(pct 50 <"$D/lat-nr")" "$(pct 99 <"$D/lat-nr")" "$(pct 100 <"$D/lat-nr")" "$(pct 50 <"$D/lat-r")" \
	    "$(pct 99 <"$D/lat-r")" "$(pct 100 <"$D/lat-r")" "$N" "$KILLS"
	printf '        a follower: CPU per not-ready publish (the event on its stream, the files written) %.0f us (8 of them, their process_cpu_seconds_total)\n' "$(pct 50 <"$D/fcpu")"
	printf '        head: CPU per publish (not ready, an event on each of %d streams) %s ms [%s-%s]; idle with %d held %s %% of a core; RSS %.1f MiB (%.1f before the followers: %.1f KiB per held follower)\n' \
	    "$N" "$(pct 50 <"$D/cpu")" "$(pct 0 <"$D/cpu")" "$(pct 100 <"$D/cpu")" "$N" "$IDLE" "$(echo "$RSS1 / 1024" | bc -l)" \
	    "$(echo "$RSS0 / 1024" | bc -l)" "$(echo "($RSS1 - $RSS0) / $N" | bc -l)"
	kill -KILL "${PIDS[@]}" "$HEAD" 2>/dev/null
	wait "${PIDS[@]}" "$HEAD" 2>/dev/null
	# the floor of this machine from the same run, with the followers gone: N small processes that
	# do only what a follower must (woken by a loopback write, a file written and renamed)
	mkdir -p "$D/floor"
	read -r F50 F99 FMAX <<<"$("$TESTKIT" fanout-floor "$N" "$KILLS" "$D/floor")"
	printf '        floor: %d processes of the test kit woken by one writer, each writing and renaming a file: p50 %s ms, p99 %s ms, max %s ms\n' \
	    "$N" "$F50" "$F99" "$FMAX"
	SIDECARS=()
	rm -rf "$D/run"
done
finish
