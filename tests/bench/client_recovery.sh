#!/bin/bash
# Client recovery benchmark, on the real mooncake_master with Mooncake's own store client: N times
# kill -9 of the master the sidecar supervises, and from each kill (wall clock, every figure from
# the processes' own timestamps):
#  - the new master ready: the sidecar's ready_at in endpoints.json (the master's own start, exec to
#    ports up, is the sidecar's child_ready_seconds beside it);
#  - the existing client (one store-client putting every 20 ms all along): its first successful put;
#  - a new client started as soon as the files say not ready, waiting for them (--wait-ready): its
#    first successful put, and how long after the new master's readiness that came.
# Usage: tests/bench/client_recovery.sh [N]   (default 10)
set -uo pipefail
[ -d /dev/shm ] && export TMPDIR=/dev/shm
N=${1:-10}
. "$(dirname "$0")/lib.sh"
need_real_master
need_real_client
BENCH_DECIMALS=0

echo "mooncake-sidecar client recovery benchmark, $N kills, $(nproc) cores, real master $("$REAL" --version 2>&1 | head -1), $(date -u +%F)"
new_ports
write_config c '"address": "127.0.0.1", "ready_timeout_ms": 20000, "restart": { "backoff_initial_ms": 100, "backoff_max_ms": 100, "burst": 1000 }' \
    '"admin": { "listen": "127.0.0.1:@SIDE@" }, "endpoints": { "store_config": { "metadata_server": "P2PHANDSHAKE", "global_segment_size": "256MB", "local_buffer_size": "64MB", "protocol": "tcp", "device_name": "" } }'
sed -i "s|\"command\": \\[\"$STANDIN\"\\]|\"command\": [\"$REAL\"]|" "$T/c.json"
start_sidecar c
wait_for 20 notified 'READY=1' || fail "the real master never became ready"
env "$CLIENT_LIB" "$CLIENT_PATH" "$CLIENT" "$T/c" --loop 20 --keep --prefix old >"$T/old.out" 2>"$T/old.err" &
OLD=$!
STARTED+=($OLD)
stored() { grep -q '^put .* ok rc=0$' "$T/old.out"; }
wait_for 20 stored || fail "the existing client stores nothing"
wall_of() { date -d "$1" +%s%3N; }
not_ready() { [ "$("$TESTKIT" json-get "$T/c/endpoints.json" ready)" = false ]; }
gen_ready() { [ "$("$TESTKIT" json-get "$T/c/endpoints.json" generation)" = "$1" ] && [ "$("$TESTKIT" json-get "$T/c/endpoints.json" ready)" = true ]; }
# first_ok FILE AFTER: the wall time of the first successful put in FILE after AFTER
first_ok() { awk -v t="$2" '/^put .* ok rc=0$/ { for (i = 1; i <= NF; i++) if ($i ~ /^t=/) { sub("t=", "", $i); if ($i + 0 > t) { print $i; exit } } }' "$1"; }
: >"$T/ready" ; : >"$T/start" ; : >"$T/old" ; : >"$T/new" ; : >"$T/new_after_ready" ; : >"$T/old_after_ready"
for i in $(seq "$N"); do
	G=$("$TESTKIT" json-get "$T/c/endpoints.json" generation)
	MP=$(master_pid c)
	K=$(now_ms)
	kill -KILL "$MP"
	wait_for 10 not_ready || fail "kill $i: the files never said not ready"
	env "$CLIENT_LIB" "$CLIENT_PATH" "$CLIENT" "$T/c" --wait-ready 30000 --ops 1 --retry-ms 10000 --prefix "new$i" \
	    >"$T/new$i.out" 2>"$T/new$i.err"
	wait_for 20 gen_ready $((G + 1)) || fail "kill $i: generation $((G + 1)) never ready"
	R=$(wall_of "$("$TESTKIT" json-get "$T/c/endpoints.json" master.ready_at)")
	old_back() { [ -n "$(first_ok "$T/old.out" "$R")" ]; }
	wait_for 20 old_back || fail "kill $i: the existing client does not store again: $(tail -3 "$T/old.out")"
	O=$(first_ok "$T/old.out" "$K")
	NW=$(first_ok "$T/new$i.out" 0)
	[ -n "$O" ] && [ -n "$NW" ] || fail "kill $i: no successful put (existing ${O:-none}, new ${NW:-none}): $(tail -3 "$T/new$i.out")"
	echo $((R - K)) >>"$T/ready"
	adm /metrics | sed -n 's/^mooncake_sidecar_child_ready_seconds{child="mooncake_master"} //p' | awk '{printf "%.0f\n", $1 * 1000}' >>"$T/start"
	echo $((O - K)) >>"$T/old"
	echo $((O - R)) >>"$T/old_after_ready"
	echo $((NW - K)) >>"$T/new"
	echo $((NW - R)) >>"$T/new_after_ready"
	printf '  kill %2d: master ready +%d ms; existing client stores +%d ms; new client +%d ms (%d ms after ready, %s)\n' "$i" \
	    $((R - K)) $((O - K)) $((NW - K)) $((NW - R)) "$(grep -o 'tries=[0-9]*' "$T/new$i.out" | head -1)"
done
row() { printf '%-66s %6s ms %s\n' "$1" "$(median <"$2")" "$(range <"$2")"; }
echo "medians over $N kills [min-max]:"
row "the master's own start (exec -> every port up, the sidecar's count)" "$T/start"
row "kill -9 -> new master ready, files at the new generation" "$T/ready"
row "kill -9 -> the existing client's first successful put" "$T/old"
row "   of which after the new master was ready (the client's own retry)" "$T/old_after_ready"
row "kill -9 -> a new client's first successful put (waiting on the files)" "$T/new"
row "   of which after the new master was ready (goal: <= 50 ms)" "$T/new_after_ready"
kill -INT "$OLD" 2>/dev/null
finish
