#!/bin/bash
# Proxy benchmark: wrk on GET /health for D seconds at concurrency 1 and 32, through the sidecar,
# directly on the stand-in master, and through nginx (one worker, proxy_pass with upstream
# keepalive) to the same stand-in. Prints requests/s, p50 and p99 for each, and the sidecar's
# resident memory after the runs. With BASE (a mooncake-sidecar binary, e.g. a build of the previous
# release), that binary runs beside it on its own stand-in, for a before/after in the same run. The
# same build also runs with admin.busy_poll_us 0 (the loop sleeps at once after each answer, where
# by default it polls for 100 us after a request back to back), on a stand-in of its own.
# With MASTER=real every instance runs the real mooncake_master (MCS_REAL_MASTER, or what
# scripts/real-master.sh builds or finds) instead of the stand-in.
#   Usage: [ROUNDS=R] [MASTER=real] tests/bench/proxy.sh [D [BASE]]   (D default 10)
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
D=${1:-10}
BASE=${2:-}
bash "$top/scripts/deps.sh" wrk nginx >/dev/null || exit 1
. "$top/tests/bench/lib.sh"
MEXTRA='"liveness_interval_ms": 1000'
MASTER_NAME="the stand-in"
if [ "${MASTER:-}" = real ]; then
	need_real_master
	STANDIN=$REAL
	MEXTRA='"liveness_interval_ms": 1000, "address": "127.0.0.1", "ready_timeout_ms": 20000'
	MASTER_NAME="the real mooncake_master ($REAL)"
fi

NGX=$("$TESTKIT" freeports 1)
if [ -n "$BASE" ]; then
	NEW=$SIDECAR
	SIDECAR=$BASE
	MC_STANDIN_START_DELAY_MS=100 up b "$MEXTRA"
	BASE_SIDE=$SIDE
	BASE_PID=$SC_PID
	SIDECAR=$NEW
fi
# the same build with admin.busy_poll_us 0, on its own stand-in
BUSY_US=0
MC_STANDIN_START_DELAY_MS=100 up bp "$MEXTRA" \
    '"admin": { "listen": "127.0.0.1:@SIDE@", "busy_poll_us": '"$BUSY_US"' }'
BUSY_SIDE=$SIDE
BUSY_PID=$SC_PID
MC_STANDIN_START_DELAY_MS=100 up p "$MEXTRA"
mkdir -p "$T/nginx/logs"
cat >"$T/nginx/nginx.conf" <<CONF
worker_processes 1;
daemon off;
pid $T/nginx/nginx.pid;
error_log $T/nginx/error.log;
events { worker_connections 1024; }
http {
	access_log off;
	upstream master { server 127.0.0.1:$ADMIN; keepalive 32; }
	server {
		listen 127.0.0.1:$NGX;
		location / {
			proxy_pass http://master;
			proxy_http_version 1.1;
			proxy_set_header Connection "";
		}
	}
}
CONF
nginx -p "$T/nginx" -c "$T/nginx/nginx.conf" &
NP=$!
STARTED+=($NP)
wait_for 5 curl -sf -o /dev/null "http://127.0.0.1:$NGX/health" || fail "nginx did not start"
NGX_WORKER=$(pgrep -P "$NP" | head -1)

# run NAME PORT CONC [PID]: wrk, then "req/s p50 p99" in ms, and with PID the CPU time that
# process spent per request (user + system, from /proc; ticks of 10 ms over the whole run).
cputicks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
run() {
	local out=$T/wrk-$1-$3 c0=0
	[ -n "${4:-}" ] && c0=$(cputicks "$4")
	wrk -t "$(( $3 > 1 ? 2 : 1 ))" -c "$3" -d "${D}s" --latency "http://127.0.0.1:$2/health" >"$out" 2>&1
	[ -n "${4:-}" ] && echo "cpu_ticks $(( $(cputicks "$4") - c0 )) $(getconf CLK_TCK)" >>"$out"
	awk '/Requests\/sec:/{r=$2} /requests in/{n=$1} $1=="50%"{p50=$2} $1=="99%"{p99=$2}
	    $1=="cpu_ticks"{cpu=$2/$3*1e6}
	    function ms(v) { if (v ~ /us$/) return v/1000; if (v ~ /ms$/) return v+0; if (v ~ /s$/) return v*1000; return v }
	    END { printf "%10.0f req/s   p50 %7.3f ms   p99 %7.3f ms", r, ms(p50), ms(p99)
		  if (cpu != "" && n > 0) printf "   %5.1f us CPU/req", cpu / n
		  printf "\n" }' "$out"
}
echo "GET /health on $MASTER_NAME, ${D} s per run, wrk, $(nproc) cores, $(date -u +%F)"
# With BASE, the two sidecars run in turn ROUNDS times (default 3) and the median round of each
# is printed: on a shared 2-core machine one pair of runs differs by up to 10 % from noise alone.
ROUNDS=${ROUNDS:-3}
median() { sort -n -k1,1 | awk '{ l[NR] = $0 } END { print l[int((NR + 1) / 2)] }'; }
for c in 1 32; do
	echo "concurrency $c:"
	if [ -n "$BASE" ]; then
		: >"$T/rounds-new"; : >"$T/rounds-base"
		for r in $(seq "$ROUNDS"); do
			run sidecar "$SIDE" $c "$SC_PID" >>"$T/rounds-new"
			run base "$BASE_SIDE" $c "$BASE_PID" >>"$T/rounds-base"
		done
		printf '  %-28s %s  (median of %d)\n' "mooncake-sidecar" "$(median <"$T/rounds-new")" "$ROUNDS"
		printf '  %-28s %s  (median of %d)\n' "$(basename "$(dirname "$(dirname "$BASE")")") (BASE)" \
		    "$(median <"$T/rounds-base")" "$ROUNDS"
	else
		printf '  %-28s %s\n' "mooncake-sidecar" "$(run sidecar "$SIDE" $c "$SC_PID")"
	fi
	printf '  %-28s %s\n' "  admin.busy_poll_us $BUSY_US" "$(run busy "$BUSY_SIDE" $c "$BUSY_PID")"
	DIRECT=$(run direct "$ADMIN" $c)
	NGINX=$(run nginx "$NGX" $c "$NGX_WORKER")
	printf '  %-28s %s\n' "direct to the master" "$DIRECT" "nginx (1 worker, keepalive)" "$NGINX"
	if [ "$c" = 1 ]; then
		# What a proxy adds over direct at concurrency 1, beside the least one more hop can cost:
		# a one-byte round trip over loopback TCP between two processes, measured now.
		wrk_p50() { awk '$1=="50%"{v=$2; if (v ~ /us$/) v=v+0; else if (v ~ /ms$/) v=v*1000; else v=v*1e6; print v}' "$T/wrk-$1-1"; }
		added() { awk -v a="$(wrk_p50 "$1")" -v d="$(wrk_p50 direct)" 'BEGIN { printf "%.0f", a - d }'; }
		RTT=$("$TESTKIT" rtt 20000)
		printf '  added p50 over direct: mooncake-sidecar %s us, busy_poll_us %s %s us, nginx %s us;' \
		    "$(added sidecar)" "$BUSY_US" "$(added busy)" "$(added nginx)"
		printf ' one loopback TCP round trip between two processes: %s us (p99 %s)\n' ${RTT% *} ${RTT#* }
	fi
done
echo "sidecar after the runs: $(rss_split "$SC_PID")"
awk '/^VmRSS/{printf "nginx worker RSS after the runs: %.1f MiB\n", $2/1024}' /proc/"$NGX_WORKER"/status 2>/dev/null
grep -q 'Non-2xx' "$T"/wrk-sidecar-* && fail "non-2xx answers through the sidecar: $(grep -h Non-2xx "$T"/wrk-sidecar-*)"
kill -QUIT "$NP"; wait "$NP" 2>/dev/null
finish >/dev/null
