#!/bin/bash
# Operator control benchmark. Prints, from one run on this machine:
#  (a) `ctl restart master --wait`: the ctl's start -> the new master ready (STATUS= from the sidecar),
#      and -> ctl's exit, beside a kill -9 of the master -> ready again (the crash path), N each;
#  (b) GET /health (proxied to the master) p50/p99 over 1,000 requests on one connection, alone and
#      while 50 control requests (pause, resume, reload, an unknown worker, drain) arrive at once.
# The stand-in master starts in 50 ms; backoff_initial_ms 0 for the crash path.
# Usage: tests/bench/control.sh [N]   (default 10)
set -uo pipefail
[ -d /dev/shm ] && export TMPDIR=/dev/shm
N=${1:-10}
. "$(dirname "$0")/lib.sh"
HL=$top/tests/tools/health-load
echo "mooncake-sidecar control benchmark, $N runs each, $(nproc) cores, $(date -u +%F)"

new_ports
write_config b '"restart": { "backoff_initial_ms": 0, "reset_after_ms": 0, "burst": 1000 }'
MC_STANDIN_START_DELAY_MS=50 start_sidecar b
wait_for 20 notified 'READY=1' || fail "no READY=1"
SOCK=$T/b/control-localhost.sock
ready_at() { awk -v g="STATUS=master ready (gen $1," 'index($0, g) {print $1; exit}' "$NOTIFY_OUT"; }
: >"$T/ctl-ready" ; : >"$T/ctl-exit" ; : >"$T/kill-ready"
gen=1
for i in $(seq "$N"); do
	t0=$("$TESTKIT" now)
	"$SIDECAR" ctl -c "$T/b.json" restart master --wait=20 >/dev/null || fail "ctl restart $i"
	t1=$("$TESTKIT" now)
	gen=$((gen + 1))
	wait_for 5 notified "STATUS=master ready (gen $gen," || fail "no gen $gen"
	echo "$(( ($(ready_at $gen) - t0) / 1000 ))" >>"$T/ctl-ready"
	echo "$(( (t1 - t0) / 1000 ))" >>"$T/ctl-exit"
	K=$("$TESTKIT" kill 9 "$(master_pid b)")
	gen=$((gen + 1))
	wait_for 10 notified "STATUS=master ready (gen $gen," || fail "no respawn to gen $gen"
	echo "$(( ($(ready_at $gen) - K) / 1000 ))" >>"$T/kill-ready"
done
ms() { awk '{print $1/1000}' "$1" | median; }
msr() { awk '{print $1/1000}' "$1" | range; }
echo "(a) restart of the master -> ready again (ms, median [range] of $N)"
printf '    %-48s %8s %s\n' "ctl restart master --wait: ctl start -> ready" "$(ms "$T/ctl-ready")" "$(msr "$T/ctl-ready")"
printf '    %-48s %8s %s\n' "ctl restart master --wait: ctl start -> ctl exit" "$(ms "$T/ctl-exit")" "$(msr "$T/ctl-exit")"
printf '    %-48s %8s %s\n' "kill -9 of the master -> ready (backoff 0)" "$(ms "$T/kill-ready")" "$(msr "$T/kill-ready")"

read -r A50 A99 AMAX ABAD < <("$HL" "$SIDE" 1000)
"$HL" "$SIDE" 1000 >"$T/health.out" &
HPID=$! PIDS=()
for i in $(seq 0 49); do
	case $((i % 5)) in 0) v=pause ;; 1) v=resume ;; 2) v=reload ;; 3) v='restart?target=worker:nosuch' ;; 4) v=drain ;; esac
	curl -s --unix-socket "$SOCK" -X POST "http://localhost/control/$v" >/dev/null &
	PIDS+=($!)
done
wait "$HPID"; wait "${PIDS[@]}"
read -r B50 B99 BMAX BBAD <"$T/health.out"
"$SIDECAR" ctl -c "$T/b.json" resume >/dev/null
echo "(b) GET /health on one connection, 1,000 requests (us)"
printf '    %-48s p50 %6s  p99 %6s  max %6s  failed %s\n' "alone" "$A50" "$A99" "$AMAX" "$ABAD"
printf '    %-48s p50 %6s  p99 %6s  max %6s  failed %s\n' "with 50 control requests at once" "$B50" "$B99" "$BMAX" "$BBAD"
awk -v a="$A99" -v b="$B99" 'BEGIN { printf "    p99 with / without: %.2fx (goal <= 2x)\n", b / a }'
kill -TERM "$SC_PID"; wait "$SC_PID"
finish
