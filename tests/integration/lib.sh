# Shared helpers for the integration scripts: free ports, a config writer, bounded waits, cleanup
# that kills only what the script started. Sourced, not run.
set -u
top_builddir=${top_builddir:-$(cd "$(dirname "$0")/../.." && pwd)}
SIDECAR=$top_builddir/daemon/mooncake-sidecar
STANDIN=$top_builddir/tests/standin/mooncake_master
TESTKIT=$top_builddir/tests/tools/testkit
T=$(mktemp -d "${TMPDIR:-/tmp}/mcs-test.XXXXXX")
STARTED=()
SIDECARS=()
TEST_NAME=$(basename "$0" .sh)
CHECKS=0

cleanup() {
	local p
	exec 2>/dev/null	# no job-control notices for what we kill here
	for p in "${STARTED[@]}"; do
		kill -KILL "$p" 2>/dev/null
	done
	# A master whose sidecar died is gone through PDEATHSIG; make sure of it by its pid file.
	for f in "$T"/*/mooncake_master.pid; do
		[ -f "$f" ] || continue
		p=$(cat "$f")
		[ "$(cat /proc/"$p"/comm 2>/dev/null)" = mooncake_master ] && kill -KILL "$p" 2>/dev/null
	done
	[ -n "${KEEP:-}" ] && echo "kept $T" || rm -rf "$T"
}
trap cleanup EXIT

fail() {
	echo "FAIL [$TEST_NAME]: $*"
	for f in "$T"/sidecar*.out "$T"/notify*.out; do
		[ -f "$f" ] && { echo "---- $f"; tail -40 "$f"; }
	done
	exit 1
}

pass() {
	CHECKS=$((CHECKS + 1))
	echo "ok $CHECKS - $*"
}

# Stop every sidecar still running with SIGTERM: it must exit 0, and nothing it (or the stand-in)
# printed may be a sanitizer report.
finish() {
	local p rc
	for p in "${SIDECARS[@]}"; do
		alive "$p" || continue
		kill -TERM "$p"
		wait "$p"; rc=$?
		[ "$rc" -eq 0 ] || fail "sidecar $p exited $rc on SIGTERM"
	done
	if grep -l 'ERROR: AddressSanitizer\|ERROR: LeakSanitizer\|runtime error:' "$T"/sidecar*.out \
	    "$T"/*/mooncake_master.log >/dev/null 2>&1; then
		fail "sanitizer report: $(grep -h -A5 'Sanitizer\|runtime error' "$T"/sidecar*.out "$T"/*/mooncake_master.log | head -40)"
	fi
	echo "$TEST_NAME: time $SECONDS s"
	echo "$TEST_NAME: $CHECKS passed, 0 failed"
	exit 0
}

# pct P: the P-th percentile (nearest rank) of the numbers on stdin.
pct() { sort -n | awk -v p="$1" '{ a[NR] = $1 } END { if (NR == 0) { print "nan"; exit } r = int(NR * p / 100 + 0.999999); if (r < 1) r = 1; if (r > NR) r = NR; print a[r] }'; }

now_ms() { local t=${EPOCHREALTIME/./}; echo $((t / 1000)); }

# nap SECONDS: sleep without a process of its own (a read that times out on a pipe nobody writes):
# a bounded poll runs its check, not a fork of sleep and date, every 10 ms.
exec {NAP_FD}<> <(:)
nap() { read -r -t "$1" -u "$NAP_FD" _; return 0; }
# poll_until INTERVAL SECONDS command...: run the command every INTERVAL until it succeeds (0), or
# SECONDS have passed (1).
poll_until() {
	local every=$1 deadline=$(( ${EPOCHREALTIME/./} / 1000 + $2 * 1000 ))
	shift 2
	until "$@"; do
		[ $(( ${EPOCHREALTIME/./} / 1000 )) -ge "$deadline" ] && return 1
		nap "$every"
	done
	return 0
}
# wait_for SECONDS command...: poll every 10 ms until the command succeeds or time runs out.
wait_for() { poll_until 0.01 "$@"; }
# wait_slowly SECONDS command...: the same, polling every 250 ms, for a condition whose check is
# itself costly (reading hundreds of logs) while the processes it watches need the CPU.
wait_slowly() { poll_until 0.25 "$@"; }

# is VALUE CMD...: CMD prints VALUE (for wait_for, which runs it again on every poll)
is() { [ "$("${@:2}")" = "$1" ]; }
accepts() { (exec 3<>/dev/tcp/127.0.0.1/"$1") 2>/dev/null; }	# something listens on the port
alive() { "$TESTKIT" alive "$1"; }
dead() { ! "$TESTKIT" alive "$1"; }
grep_q() { grep -q -- "$2" "$1" 2>/dev/null; }
count() { local n; n=$(grep -c -- "$2" "$1" 2>/dev/null); echo "${n:-0}"; }

# routable_iface: IFACE and ADDR, this machine's first interface with a usable IPv4 address (not
# 127/8 or 169.254/16), for job.network_interface in multi-node configs.
routable_iface() {
	read -r IFACE ADDR < <(ip -4 -o addr show | awk '$4 !~ /^(127|169\.254)\./ { sub("/.*", "", $4); print $2, $4; exit }')
	[ -n "${ADDR:-}" ] || fail "this machine has no interface with a routable IPv4 address: $(ip -4 -o addr show)"
}

# two_nodes HEAD_WORKERS FOLLOWER_WORKERS: $T/head.json and $T/worker1.json for two sidecars on this
# machine as the nodes head (the master, admin port HEAD_SIDE) and worker1 (following it, admin
# port FSIDE) of one job, one GPU each, on this machine's interface (job.network_interface), each
# told where the other's sidecar is (job.sidecars); each "workers" section as given. Needs
# new_ports and routable_iface first.
two_nodes() {
	local job
	FSIDE=$("$TESTKIT" freeports 1) HEAD_SIDE=$SIDE
	job='"job": { "id": "test", "nodes": "head,worker1", "node": "NODE", "gpus_per_node": 1,
	    "network_interface": "'"$IFACE"'", "run_dir": "'"$T"'/NODE",
	    "sidecars": { "head": "http://127.0.0.1:'"$SIDE"'", "worker1": "http://127.0.0.1:'"$FSIDE"'" } }'
	write_config head '"address": "127.0.0.1"' "$1"
	python3 - "$T/head.json" "${job//NODE/head}" <<'PY'
import json, sys
c = json.load(open(sys.argv[1])); c["job"] = json.loads("{" + sys.argv[2] + "}")["job"]
json.dump(c, open(sys.argv[1], "w"))
PY
	mkdir -p "$T/worker1"
	cat >"$T/worker1.json" <<JSON
{ ${job//NODE/worker1},
  "master": { "enabled": false, "url": "http://127.0.0.1:$HEAD_SIDE" },
  "admin": { "listen": "127.0.0.1:$FSIDE" },
  "endpoints": { "flavor": "vllm" }, $2 }
JSON
}

# Fresh ports for this run: RPC META ADMIN SIDE.
new_ports() {
	local p
	p=$("$TESTKIT" freeports 4 | tr '\n' ' ')
	read -r RPC META ADMIN SIDE <<<"$p"
}

# write_config NAME [master-json-extra] [top-level-json-extra]: defaults fill in only the master keys
# that the extra does not set.
write_config() {
	local name=$1 mextra=${2:-} extra=${3:-} key defaults=""
	local -A dflt=(
		[stop_timeout_ms]='"stop_timeout_ms": 5000'
		[restart]='"restart": { "backoff_initial_ms": 100, "backoff_max_ms": 2000, "reset_after_ms": 60000, "burst": 20, "burst_window_ms": 60000 }'
		[extra_args]='"extra_args": ["--rpc_address=127.0.0.1", "--metrics_host=127.0.0.1"]'
	)
	for key in "${!dflt[@]}"; do
		case $mextra in *"\"$key\""*) ;; *) defaults="$defaults${dflt[$key]}, " ;; esac
	done
	local admin='"admin": { "listen": "127.0.0.1:'"$SIDE"'" }'
	extra=${extra//@SIDE@/$SIDE}	# the admin port is only known here
	case $extra in *'"admin"'*) admin=$extra; extra="" ;; esac
	mkdir -p "$T/$name"
	cat >"$T/$name.json" <<JSON
{
  "job": { "id": "test", "nodes": "localhost", "node": "localhost", "run_dir": "$T/$name" },
  "master": {
    $defaults
    "command": ["$STANDIN"],
    "rpc_port": $RPC, "http_metadata_port": $META, "metrics_port": $ADMIN${mextra:+,
    $mextra}
  },
  $admin${extra:+,
  $extra}
}
JSON
}

# kill_quiet PID...: SIGKILL and reap without job-control notices.
kill_quiet() {
	{ kill -KILL "$@"; wait "$@"; } 2>/dev/null
	return 0
}

# start_sidecar NAME: run it with a notify socket (SIDECAR_ARGS: more options); sets SC_PID, SC_OUT,
# NOTIFY_OUT.
start_sidecar() {
	local name=$1
	NOTIFY_OUT=$T/notify-$name.out
	"$TESTKIT" notify-recv "$T/notify-$name.sock" >"$NOTIFY_OUT" &
	STARTED+=($!)
	wait_for 5 test -S "$T/notify-$name.sock" || fail "notify receiver did not start"
	SC_OUT=$T/sidecar-$name.out
	# SIDECAR_WRAPPER (e.g. valgrind) runs in front of the sidecar; a wrapper's error exit fails finish().
	NOTIFY_SOCKET=$T/notify-$name.sock MC_STANDIN_EVENTS=$T/events-$name \
	    ${SIDECAR_WRAPPER:-} "$SIDECAR" ${SIDECAR_ARGS:-} -c "$T/$name.json" >"$SC_OUT" 2>&1 &
	SC_PID=$!
	STARTED+=($SC_PID)
	SIDECARS+=($SC_PID)
	EVENTS=$T/events-$name
}

# up NAME [master-json-extra]: fresh ports, a config, a sidecar, and wait for READY=1; sets MP to the
# master's pid. Extra environment for the stand-in goes before the call.
up() {
	new_ports
	write_config "$@"
	start_sidecar "$1"
	wait_for 10 notified 'READY=1' || fail "$1: no READY=1"
	MP=$(master_pid "$1")
}

# sidecar_metric PORT SERIES: the value of one series in /metrics of the sidecar on 127.0.0.1:PORT.
sidecar_metric() { curl -s "http://127.0.0.1:$1/metrics" | awk -v k="$2" '$1 == k { print $2 }'; }
# endpoints_ended PORT: the /endpoints requests that sidecar answered 200 to their end (a held
# stream counts once it ends).
endpoints_ended() { sidecar_metric "$1" 'mooncake_sidecar_http_requests_total{route="/endpoints",code="200"}'; }

master_pid() { cat "$T/$1/mooncake_master.pid" 2>/dev/null; }
notified() { grep -q -- "$1" "$NOTIFY_OUT" 2>/dev/null; }
exec_count() { count "$EVENTS" '^exec '; }
execs_at_least() { [ "$(exec_count)" -ge "$1" ]; }

# The sidecar's admin port: adm PATH [curl args] prints the body; adm_code PATH prints the status.
# follower_config NAME HEAD_PORT [HEAD_HOST]: $T/NAME.json for a follower (node worker1, no master) of
# the head sidecar on HEAD_HOST (127.0.0.1):HEAD_PORT, its admin port in FSIDE (picked here), its run dir $T/NAME.
follower_config() {
	FSIDE=$("$TESTKIT" freeports 1)
	mkdir -p "$T/$1"
	cat >"$T/$1.json" <<JSON
{ "job": { "id": "test", "nodes": "head,worker1", "node": "worker1", "run_dir": "$T/$1" },
  "master": { "enabled": false, "url": "http://${3:-127.0.0.1}:$2" },
  "admin": { "listen": "127.0.0.1:$FSIDE" },
  "endpoints": { "flavor": "vllm", "store_config": { "protocol": "tcp", "global_segment_size": "4GB" } } }
JSON
}

# REAL: the real mooncake_master (MCS_REAL_MASTER, else built or found by scripts/real-master.sh).
# Without one the script says why and is skipped (exit 77); under CI=true that is a failure.
need_real_master() {
	local rc why
	REAL=${MCS_REAL_MASTER:-}
	[ -n "$REAL" ] && [ -x "$REAL" ] && return 0
	REAL=$(bash "${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}/scripts/real-master.sh" 2>"$T/real-master.err" | tail -1)
	rc=$?
	[ -n "$REAL" ] && [ -x "$REAL" ] && return 0
	why=$(tail -1 "$T/real-master.err")
	[ "${CI:-}" = true ] && fail "no real mooncake_master in CI: $why"
	echo "$TEST_NAME: SKIPPED: ${why:-no mooncake_master (rc $rc)}"
	exit 77
}

# CLIENT: Mooncake's own store client through tests/tools/store-client (built against the cached
# library and header by scripts/store-client.sh); client RUN_DIR [options] runs it. Without the
# library the script says why and is skipped (exit 77); under CI=true that is a failure.
need_real_client() {
	local line why
	line=$(bash "${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}/scripts/store-client.sh" \
	    "$top_builddir/tests/tools/client" 2>"$T/client.err" | tail -1)
	if [ -z "$line" ]; then
		why=$(tail -1 "$T/client.err")
		[ "${CI:-}" = true ] && fail "no Mooncake store client in CI: $why"
		echo "$TEST_NAME: SKIPPED: ${why:-no Mooncake store client library}"
		exit 77
	fi
	read -r CLIENT_LIB CLIENT_PATH CLIENT <<<"$line"
}
client() { env "$CLIENT_LIB" "$CLIENT_PATH" "$CLIENT" "$@"; }

# ha_sidecar NAME MASTER HA_JSON STORE_JSON [EXTRA_ARG]: a sidecar on the real HA master MASTER with
# master.ha HA_JSON and the store config's STORE_JSON, checked by -n first; its ports in RPC_<NAME>,
# SIDE_<NAME>, its pid in SC_<NAME>, its output in OUT_<NAME>, its notifications in NOTIFY_<NAME>.
ha_sidecar() {
	new_ports
	write_config "$1" '"address": "127.0.0.1", "ready_timeout_ms": 30000, "liveness_interval_ms": 500,
	  "extra_args": ["--rpc_address=127.0.0.1", "--metrics_host=127.0.0.1"'"${5:+, \"$5\"}"'],
	  "ha": '"$3" '"admin": { "listen": "127.0.0.1:@SIDE@" }, "endpoints": { "store_config": { '"$4"' } }'
	sed -i "s|\"command\": \\[\"$STANDIN\"\\]|\"command\": [\"$2\"]|" "$T/$1.json"
	"$SIDECAR" -c "$T/$1.json" -n >"$T/$1.check" 2>&1 || fail "$1: -n: $(cat "$T/$1.check")"
	start_sidecar "$1"
	eval "RPC_$1=$RPC SIDE_$1=$SIDE SC_$1=$SC_PID OUT_$1=$SC_OUT NOTIFY_$1=$NOTIFY_OUT"
}

adm() { curl -s "http://127.0.0.1:$SIDE$1" "${@:2}"; }
adm_code() { curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$SIDE$1" "${@:2}"; }
direct() { curl -s "http://127.0.0.1:$ADMIN$1"; }
