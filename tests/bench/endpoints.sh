#!/bin/bash
# Endpoint-file benchmark, from one run on this machine (median [min-max] of N):
#  - master proven ready -> all three files renamed into place (the sidecar's write, as it logs it);
#  - kill -9 of the master -> endpoints.json saying ready:false renamed into place (seen by inotify);
# beside the shell-script way of writing the same three files (printf > tmp; mv; sync).
# Usage: tests/bench/endpoints.sh [N]   (default 50)
# It runs twice: with the run directory on the disk under /tmp (ext4 here) and on tmpfs (/dev/shm,
# as a systemd RuntimeDirectory under /run would be), since fsync costs what the filesystem makes it.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
N=${1:-50}
if [ -z "${ENDPOINTS_BENCH_INNER:-}" ]; then
	for dir in /tmp /dev/shm; do
		[ -d "$dir" ] && ENDPOINTS_BENCH_INNER=1 TMPDIR=$dir bash "$0" "$N" || exit 1
	done
	exit 0
fi
BENCH_DECIMALS=3
. "$(dirname "$0")/lib.sh"
stat_of() { printf '%s %s' "$(median <"$1")" "$(range <"$1")"; }

new_ports
write_config b '"address": "127.0.0.1", "restart": { "backoff_initial_ms": 20, "reset_after_ms": 0, "burst": 10000 }'
mkdir -p "$T/b"
"$TESTKIT" watch-endpoints "$T/b" >"$T/watch" &
STARTED+=($!)
MC_STANDIN_START_DELAY_MS=20 start_sidecar b
wait_for 10 notified 'READY=1' || fail "no READY=1"
: >"$T/death"
for i in $(seq "$N"); do
	M=$(master_pid b)
	K=$("$TESTKIT" kill 9 "$M")
	wait_for 10 notified "STATUS=master ready (gen $((i + 1))," || fail "no restart $i"
	W=$(awk -v g="$i" '$2==g && $3==0 {print $1; exit}' "$T/watch")
	[ -n "$W" ] || fail "no ready:false for generation $i"
	awk -v w="$W" -v k="$K" 'BEGIN{printf "%.3f\n", (w-k)/1e6}' >>"$T/death"
done
sed -n 's/.*endpoints: generation [0-9]* ready (master .*) in \([0-9.]*\) ms$/\1/p' "$SC_OUT" | tail -n "$N" >"$T/ready"

# The shell-script way: three files, each through a temporary and mv, then sync.
: >"$T/shell"
for i in $(seq "$N"); do
	S=${EPOCHREALTIME/./}
	printf 'MOONCAKE_MASTER=127.0.0.1:50051\n' >"$T/sh.env.tmp" && mv "$T/sh.env.tmp" "$T/sh.env"
	printf '{"master_server_address":"127.0.0.1:50051"}' >"$T/sh.store.tmp" && mv "$T/sh.store.tmp" "$T/sh.store"
	printf '{"generation":%d,"ready":true}' "$i" >"$T/sh.json.tmp" && mv "$T/sh.json.tmp" "$T/sh.json"
	sync
	E=${EPOCHREALTIME/./}
	awk -v s="$S" -v e="$E" 'BEGIN{printf "%.3f\n", (e-s)/1000}' >>"$T/shell"
done
echo "endpoint files, $N runs, $(nproc) cores, run dir on $(df --output=fstype "$T" | tail -1) ($TMPDIR), $(date -u +%F)"
echo "  proven ready -> 3 files renamed (fsync each, dir once)   $(stat_of "$T/ready") ms"
echo "  kill -9 -> ready:false renamed (reap, write, fsync)      $(stat_of "$T/death") ms"
echo "  shell way: 3 files via tmp+mv, then sync                 $(stat_of "$T/shell") ms"
finish >/dev/null
