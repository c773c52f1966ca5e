#!/bin/bash
# --plan=all for NODES nodes (default 1,024) x 8 GPUs: per_gpu (8 processes a node) and per_node (1).
# Prints wall time (median of 11, beside that of -n alone: start-up and the configuration check, and
# the floor: cat writing the same bytes into a file) and peak RSS for each, and with BASE (another
# build) its wall time from the same run and its instruction count. srtctl, for reference, computes
# the same layout in Python at job start and resolves every node's IP with one srun per node.
# Usage: [NODES=10000] tests/bench/plan.sh [BASE]
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
bash "$top/scripts/build.sh" "$top/build-bench" >/dev/null || exit 1
SIDECAR=$top/build-bench/daemon/mooncake-sidecar
BASE=${1:-}
NODES=${NODES:-1024}
W=$(printf '%0*d' ${#NODES} 1)
# instructions BINARY ARGS...: what callgrind counts for one run, in millions
instructions() {
	valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" 2>&1 >/dev/null |
	    awk '/Collected :/ { printf "%.1f M", $NF / 1e6 }'
}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
for mode in per_gpu per_node; do
	cat >"$T/$mode.json" <<JSON
{ "job": { "id": "4242", "nodes": "gpu-[$W-$NODES]", "node": "gpu-$W", "gpus_per_node": 8, "run_dir": "/tmp/plan" },
  "master": { "command": ["mooncake_master"] },
  "workers": { "flavor": "vllm", "dp_launch_mode": "$mode",
    "groups": [ { "role": "prefill", "count": $((NODES / 2)), "gpus": 8, "dp": 8,
                  "command": ["vllm", "serve", "/model", "--port", "{http_port}"] },
                { "role": "decode", "count": $((NODES - NODES / 2)), "gpus": 8, "dp": 8,
                  "command": ["vllm", "serve", "/model", "--port", "{http_port}"] } ] } }
JSON
	# stderr: the layout warns that no command uses a Mooncake connector, as it should
	/usr/bin/time -f '%M' -o "$T/rss" "$SIDECAR" -c "$T/$mode.json" --plan=all >"$T/out.json" 2>"$T/err" ||
	    { cat "$T/err"; exit 1; }
	# BASE runs alternate with the sidecar's, so that a change in the machine's speed shows in both;
	# so do runs of -n alone (start-up and the configuration check, no plan)
	for i in $(seq 11); do
		for who in sidecar check base floor; do
			bin=$SIDECAR what=--plan=all
			[ "$who" = check ] && what=-n
			if [ "$who" = base ]; then
				[ -n "$BASE" ] || continue
				bin=$BASE
			fi
			S=${EPOCHREALTIME/./}
			if [ "$who" = floor ]; then	# the same bytes copied into a file by cat: no plan at all
				cat "$T/out.json" >"$T/floor.json" || exit 1
			else
				"$bin" -c "$T/$mode.json" "$what" >"$T/$who.json" 2>/dev/null || exit 1
			fi
			E=${EPOCHREALTIME/./}
			echo "$(( (E - S) / 1000 )).$(( (E - S) % 1000 / 100 ))" >>"$T/$mode.$who.times"
		done
	done
	procs=$(grep -o '"worker_index"' "$T/sidecar.json" | wc -l)
	median() { sort -n "$1" | awk '{t[NR]=$1} END {printf "%.1f ms", t[int((NR+1)/2)]}'; }
	printf -- '--plan=all %-8s %5d processes: %s (median of 11; -n alone %s; floor: cat of its %.1f MB into a file %s), peak RSS %.1f MiB' "$mode" \
	    "$procs" "$(median "$T/$mode.sidecar.times")" "$(median "$T/$mode.check.times")" \
	    "$(stat -c %s "$T/out.json" | awk '{ print $1 / 1e6 }')" "$(median "$T/$mode.floor.times")" \
	    "$(awk '{print $1 / 1024}' "$T/rss")"
	[ -n "$BASE" ] && printf ', BASE %s' "$(median "$T/$mode.base.times")"
	echo
	if command -v valgrind >/dev/null; then
		printf '  instructions: %s (-n alone: %s)' "$(instructions "$SIDECAR" -c "$T/$mode.json" --plan=all)" \
		    "$(instructions "$SIDECAR" -c "$T/$mode.json" -n)"
		[ -n "$BASE" ] && printf ', BASE %s' "$(instructions "$BASE" -c "$T/$mode.json" --plan=all)"
		echo
	fi
done
