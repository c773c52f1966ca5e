#!/bin/bash
# Proxy benchmark: wrk on GET /health for D seconds at concurrency 1 and 32, through the sidecar,
# directly on the stand-in master, and through nginx (one worker, proxy_pass with upstream
# keepalive) to the same stand-in. Prints requests/s, p50 and p99 for each, and the sidecar's
# resident memory after the runs. With BASE (a mooncake-sidecar binary, e.g. a build of the previous
# release), that binary runs beside it on its own stand-in, for a before/after in the same run.
#   Usage: tests/bench/proxy.sh [D [BASE]]   (D default 10)
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
D=${1:-10}
BASE=${2:-}
bash "$top/scripts/deps.sh" wrk nginx >/dev/null || exit 1
bash "$top/scripts/build.sh" "$top/build-bench" >/dev/null || exit 1
top_builddir=$top/build-bench
. "$top/tests/integration/lib.sh"

NGX=$("$TESTKIT" freeports 1)
if [ -n "$BASE" ]; then
	NEW=$SIDECAR
	SIDECAR=$BASE
	MC_STANDIN_START_DELAY_MS=100 up b '"liveness_interval_ms": 1000'
	BASE_SIDE=$SIDE
	SIDECAR=$NEW
fi
MC_STANDIN_START_DELAY_MS=100 up p '"liveness_interval_ms": 1000'
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

# run NAME PORT CONC: wrk, then "req/s p50 p99" in ms.
run() {
	local out=$T/wrk-$1-$3
	wrk -t "$(( $3 > 1 ? 2 : 1 ))" -c "$3" -d "${D}s" --latency "http://127.0.0.1:$2/health" >"$out" 2>&1
	awk '/Requests\/sec:/{r=$2} $1=="50%"{p50=$2} $1=="99%"{p99=$2}
	    function ms(v) { if (v ~ /us$/) return v/1000; if (v ~ /ms$/) return v+0; if (v ~ /s$/) return v*1000; return v }
	    END { printf "%10.0f req/s   p50 %7.3f ms   p99 %7.3f ms\n", r, ms(p50), ms(p99) }' "$out"
}
echo "GET /health, ${D} s per run, wrk, $(nproc) cores, $(date -u +%F)"
for c in 1 32; do
	echo "concurrency $c:"
	printf '  %-28s %s\n' "mooncake-sidecar" "$(run sidecar "$SIDE" $c)"
	[ -n "$BASE" ] && printf '  %-28s %s\n' "$(basename "$(dirname "$(dirname "$BASE")")") (BASE)" "$(run base "$BASE_SIDE" $c)"
	printf '  %-28s %s\n' "direct to the master" "$(run direct "$ADMIN" $c)"
	printf '  %-28s %s\n' "nginx (1 worker, keepalive)" "$(run nginx "$NGX" $c)"
done
awk '/^VmRSS/{printf "sidecar RSS after the runs: %.1f MiB\n", $2/1024}' /proc/"$SC_PID"/status
awk '/^VmRSS/{printf "nginx worker RSS after the runs: %.1f MiB\n", $2/1024}' /proc/"$(pgrep -P "$NP" | head -1)"/status 2>/dev/null
grep -q 'Non-2xx' "$T"/wrk-sidecar-* && fail "non-2xx answers through the sidecar: $(grep -h Non-2xx "$T"/wrk-sidecar-*)"
kill -QUIT "$NP"; wait "$NP" 2>/dev/null
finish >/dev/null
