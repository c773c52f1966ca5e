#!/bin/bash
# Warm restart benchmark, on the real mooncake_master with Mooncake's own store client. For each key
# count K: a sidecar with master.snapshot (interval 2 s, kv_lease_ttl_ms 1 h), K keys of 64 bytes
# stored by one client that stays, two snapshots after the puts; then kill -9 of the master and
# the time to the files ready again (the sidecar's own timestamps: STATUS= "master ready"), the keys
# the restored master holds (its master_key_count) and the client finds; the snapshot's time (the
# master's log: fork -> persisted), its size on disk, and the master's RSS. Beside it, from the same
# run, the same kill without master.snapshot (cold: every key lost).
# Usage: tests/bench/warm.sh [K...]   (default 1000 10000 100000)
set -uo pipefail
KS=${*:-1000 10000 100000}
. "$(dirname "$0")/lib.sh"
need_real_master
need_real_client
echo "mooncake-sidecar warm restart benchmark, $(nproc) cores, real master $("$REAL" --version 2>&1 | head -1), $(date -u +%F)"
STORE='"global_segment_size": "512MB", "local_buffer_size": "64MB", "protocol": "tcp", "device_name": ""'
ready_at() { awk -v g="STATUS=master ready (gen $1," 'index($0, g) {print $1; exit}' "$NOTIFY_OUT"; }
metric() { curl -s "http://127.0.0.1:$ADMIN/metrics" | awk -v n="$1" '$1 == n {print $2; exit}'; }
glog_ms() { grep -a "$2" "$1" | tail -1 | awk '{ print $2 }' | { read -r t; date -d "$(date +%F) $t" +%s%3N; }; }
# run NAME K SNAPSHOT(0|1): prints "ready_ms keys_after found snap_ms snap_kib rss_mib"
run() {
	local name=$1 k=$2 warm=$3 snap='' m kill gen found=0 sid sms=0 skib=0 rss
	new_ports
	[ "$warm" = 1 ] && snap=', "snapshot": { "enabled": true, "dir": "'"$T/$name-snap"'", "interval_s": 2, "kv_lease_ttl_ms": 3600000 }'
	write_config "$name" '"address": "127.0.0.1", "ready_timeout_ms": 60000, "restart": { "backoff_initial_ms": 0 }'"$snap" \
	    '"admin": { "listen": "127.0.0.1:@SIDE@" }, "endpoints": { "store_config": { "metadata_server": "P2PHANDSHAKE", '"$STORE"' } }'
	sed -i "s|\"command\": \\[\"$STANDIN\"\\]|\"command\": [\"$REAL\"]|" "$T/$name.json"
	start_sidecar "$name"
	wait_for 30 notified 'READY=1' || fail "$name: no READY=1"
	env "$CLIENT_LIB" "$CLIENT_PATH" "$CLIENT" "$T/$name" --ops "$k" --size 64 --keep --stay --prefix b >"$T/$name.client" 2>/dev/null &
	local cpid=$!
	STARTED+=($cpid)
	wait_for 600 grep -q '^staying' "$T/$name.client" || fail "$name: the $k puts did not end"
	if [ "$warm" = 1 ]; then
		local s0
		s0=$(count "$T/$name/mooncake_master.log" 'Child process successfully persisted state')
		wait_for 120 eval '[ "$(count "$T/$name/mooncake_master.log" "Child process successfully persisted state")" -ge $((s0 + 2)) ]' ||
		    fail "$name: no snapshot after the puts"
		sid=$(grep -a 'Child process successfully persisted state' "$T/$name/mooncake_master.log" | tail -1 | sed 's/.*snapshot_id=\([^,]*\),.*/\1/')
		sms=$(( $(glog_ms "$T/$name/mooncake_master.log" "persisted state, snapshot_id=$sid, child_pid") - $(glog_ms "$T/$name/mooncake_master.log" "Preparing to fork child process, snapshot_id=$sid") ))
		skib=$(du -sk "$T/$name-snap/mooncake_master_snapshot/"*/"$sid" | awk '{print $1}')
	fi
	m=$(master_pid "$name")
	rss=$(awk '/^VmRSS/ {printf "%.0f", $2 / 1024}' "/proc/$m/status")
	gen=2
	kill=$("$TESTKIT" kill 9 "$m")
	wait_for 120 notified "STATUS=master ready (gen $gen," || fail "$name: not ready again"
	local keys
	keys=$(metric master_key_count)
	kill -USR2 "$cpid"
	wait_for 600 grep -q '^rechecked: ' "$T/$name.client" || fail "$name: no recheck"
	found=$(sed -n 's/^rechecked: \([0-9]*\) of .*/\1/p' "$T/$name.client" | tail -1)
	kill -TERM "$cpid" 2>/dev/null
	kill_quiet "$SC_PID"
	echo "$(( ($(ready_at $gen) - kill) / 1000000 )) ${keys:-?} $found $sms $skib $rss"
}
printf '%-9s %-6s %10s %12s %12s %12s %12s %9s\n' keys mode "kill->ready" "keys after" "client found" "snapshot ms" "snapshot KiB" "RSS MiB"
for k in $KS; do
	for mode in warm cold; do
		read -r r keys found sms skib rss <<<"$(run "$mode$k" "$k" "$([ $mode = warm ] && echo 1 || echo 0)")"
		printf '%-9s %-6s %8s ms %12s %12s %12s %12s %9s\n' "$k" "$mode" "$r" "$keys" "$found/$k" \
		    "$([ $mode = warm ] && echo "$sms" || echo -)" "$([ $mode = warm ] && echo "$skib" || echo -)" "$rss"
	done
done
finish
