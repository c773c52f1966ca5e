#!/bin/bash
# Spawning this node's workers: from endpoints.json renamed ready to the exec of the eighth of eight
# local workers (median of N starts), beside a bash loop starting the same eight processes with `&`.
# The workers are a static one-purpose program (tests/tools/stamp.c) so the figure is the spawner's,
# not the started program's dynamic linking. The run directory is on tmpfs when there is one. Usage: tests/bench/spawn.sh [N]   (default 10)
set -uo pipefail
N=${1:-10}
[ -d /dev/shm ] && export TMPDIR=/dev/shm
BENCH_DECIMALS=2
. "$(dirname "$0")/lib.sh"
eighth() { [ -f "$1" ] && [ "$(wc -l <"$1")" -ge 8 ]; }
STAMP=$top_builddir/tests/tools/stamp
: >"$T/sidecar.ms"
for i in $(seq "$N"); do
	new_ports
	write_config s$i '"address": "127.0.0.1"' '"workers": { "flavor": "generic", "groups": [ { "role": "agg", "count": 8, "gpus": 1, "command": ["'"$STAMP"'", "'"$T"'/stamps'"$i"'"] } ] }'
	sed -i 's|"run_dir": "\([^"]*\)" }|"run_dir": "\1", "gpus_per_node": 8 }|' "$T/s$i.json"
	mkdir -p "$T/s$i"
	"$TESTKIT" watch-endpoints "$T/s$i" >"$T/watch$i" &
	W=$!
	STARTED+=($W)
	MC_STANDIN_START_DELAY_MS=50 start_sidecar s$i
	wait_for 20 eighth "$T/stamps$i" || fail "8 workers did not start"
	R=$(awk '$3==1 {print $1; exit}' "$T/watch$i")
	E=$(sort -k2 -n "$T/stamps$i" | tail -1 | awk '{print $2}')
	awk -v r="$R" -v e="$E" 'BEGIN {printf "%.3f\n", (e-r)/1e6}' >>"$T/sidecar.ms"
	kill -TERM "$SC_PID"; wait "$SC_PID"
	kill_quiet "$W"
done
: >"$T/bash.ms"
for i in $(seq "$N"); do
	S=$("$TESTKIT" now)
	for k in 1 2 3 4 5 6 7 8; do "$STAMP" "$T/bstamps$i" & STARTED+=($!); done
	wait_for 20 eighth "$T/bstamps$i" || fail "bash: 8 processes did not start"
	E=$(sort -k2 -n "$T/bstamps$i" | tail -1 | awk '{print $2}')
	awk -v s="$S" -v e="$E" 'BEGIN {printf "%.3f\n", (e-s)/1e6}' >>"$T/bash.ms"
	for p in $(awk '{print $1}' "$T/bstamps$i"); do kill_quiet "$p"; done
done
echo "spawning 8 local workers, $N runs, $(nproc) cores, run dir on $(df --output=fstype "$T" | tail -1), $(date -u +%F)"
echo "  sidecar: endpoints.json ready -> 8th worker exec    $(median <"$T/sidecar.ms") ms $(range <"$T/sidecar.ms")"
echo "  bash: 8 x 'cmd &' -> 8th exec                       $(median <"$T/bash.ms") ms $(range <"$T/bash.ms")"
finish >/dev/null
