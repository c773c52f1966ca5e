#!/bin/bash
# Warm restart benchmark, on the real mooncake_master with Mooncake's own store client. For each key
# count K: a sidecar with master.snapshot (interval 2 s, kv_lease_ttl_ms 1 h), K keys of 64 bytes
# stored by one client that stays, two snapshots after the puts; then kill -9 of the master and
# the time to the files ready again (the sidecar's own timestamps: STATUS= "master ready"), the keys
# the restored master holds (its master_key_count) and the client finds; the snapshot's time (the
# child's run, sampled from /proc), its size on disk, the master's RSS, and the fork's memory: the
# snapshot child's peak private memory (its pages no longer shared with the master: what the fork
# costs) and peak RSS, sampled from /proc while a snapshot runs. The keys are put 1,000 at a time
# (batch_put_from) and read back the same way. Beside it, from the same run, the same kill without
# master.snapshot (cold: every key lost).
# Usage: tests/bench/warm.sh [K...]   (default 1000 10000 100000; 1000000 takes some 10 minutes)
set -uo pipefail
KS=${*:-1000 10000 100000}
. "$(dirname "$0")/lib.sh"
need_real_master
need_real_client
echo "mooncake-sidecar warm restart benchmark, $(nproc) cores, real master $("$REAL" --version 2>&1 | head -1), $(date -u +%F)"
STORE='"global_segment_size": "2GB", "local_buffer_size": "64MB", "protocol": "tcp", "device_name": ""'
PERSISTED='cpp:[0-9]*] \[Snapshot\] Child process successfully persisted state'
ready_at() { awk -v g="STATUS=master ready (gen $1," 'index($0, g) {print $1; exit}' "$NOTIFY_OUT"; }
metric() { curl -s "http://127.0.0.1:$ADMIN/metrics" | awk -v n="$1" '$1 == n {print $2; exit}'; }
# fork_watch PID OUT: until killed, the snapshot child's (PID's child) peak private and RSS KiB and
# how long the last one ran (seen running until it exits: the master itself polls it every 2 s, so
# its log's times are rounded up to that) into OUT as "private rss ms"
fork_watch() {
	local m=$1 out=$2 c priv=0 rss=0 ms=0 p r st first=0 seen=0 now
	while :; do
		now=${EPOCHREALTIME/./}
		c=$(cat /proc/"$m"/task/*/children 2>/dev/null | awk '{print $1; exit}')
		st=$([ -n "$c" ] && awk '{print $3}' /proc/"$c"/stat 2>/dev/null)
		if [ -n "$c" ] && [ -n "$st" ] && [ "$st" != Z ]; then
			[ "$seen" = "$c" ] || { seen=$c; first=$now; }
			read -r p r < <(awk '/^Rss:/ {r = $2} /^Private_(Clean|Dirty):/ {p += $2} END {print p + 0, r + 0}' \
			    /proc/"$c"/smaps_rollup 2>/dev/null)
			[ "${p:-0}" -gt "$priv" ] && priv=$p
			[ "${r:-0}" -gt "$rss" ] && rss=$r
			ms=$(( (now - first) / 1000 ))
			echo "$priv $rss $ms" >"$out"
		fi
		sleep 0.002
	done
}
# run NAME K SNAPSHOT(0|1): prints "ready_ms keys_after found snap_ms snap_kib rss_mib fork_priv_mib fork_rss_mib"
run() {
	local name=$1 k=$2 warm=$3 snap='' m kill gen found=0 sid sms=0 skib=0 rss fw fpriv=- frss=- b=$(($2 < 1000 ? $2 : 1000))
	# it runs in a subshell ($(run ...)): what it starts is ended when it ends, however it ends
	local s0=${#STARTED[@]}
	trap 'for p in "${STARTED[@]:'"$s0"'}"; do kill -KILL "$p" 2>/dev/null; done' EXIT
	new_ports
	[ "$warm" = 1 ] && snap=', "snapshot": { "enabled": true, "dir": "'"$T/$name-snap"'", "interval_s": 2, "kv_lease_ttl_ms": 3600000 }'
	write_config "$name" '"address": "127.0.0.1", "ready_timeout_ms": 60000, "restart": { "backoff_initial_ms": 0 }'"$snap" \
	    '"admin": { "listen": "127.0.0.1:@SIDE@" }, "endpoints": { "store_config": { "metadata_server": "P2PHANDSHAKE", '"$STORE"' } }'
	sed -i "s|\"command\": \\[\"$STANDIN\"\\]|\"command\": [\"$REAL\"]|" "$T/$name.json"
	start_sidecar "$name"
	wait_for 30 notified 'READY=1' || fail "$name: no READY=1"
	env "$CLIENT_LIB" "$CLIENT_PATH" "$CLIENT" "$T/$name" --ops "$k" --size 64 --batch "$b" --stay --prefix b >"$T/$name.client" 2>/dev/null &
	local cpid=$!
	STARTED+=($cpid)
	wait_for 900 grep -q '^staying' "$T/$name.client" || fail "$name: the $k puts did not end"
	grep -q '^done: 0 failed' "$T/$name.client" || fail "$name: puts failed: $(grep -v 'failed=0$' "$T/$name.client" | tail -2)"
	if [ "$warm" = 1 ]; then
		local s0
		# the master's own line, not the child's that it relays ("[Snapshot:Child] ..."): two
		# persisted after the puts ended, so the second began after them
		s0=$(count "$T/$name/mooncake_master.log" "$PERSISTED")
		echo "0 0 0" >"$T/$name.fork"
		fork_watch "$(master_pid "$name")" "$T/$name.fork" >/dev/null 2>&1 &
		fw=$!
		STARTED+=($fw)
		wait_for 120 eval '[ "$(count "$T/$name/mooncake_master.log" "$PERSISTED")" -ge $((s0 + 2)) ]' ||
		    fail "$name: no snapshot after the puts"
		kill "$fw"
		wait "$fw" 2>/dev/null
		read -r fpriv frss sms <"$T/$name.fork"
		fpriv=$(awk -v k="$fpriv" 'BEGIN {printf "%.1f", k / 1024}')
		frss=$(awk -v k="$frss" 'BEGIN {printf "%.1f", k / 1024}')
		sid=$(grep -a "$PERSISTED" "$T/$name/mooncake_master.log" | tail -1 | sed 's/.*snapshot_id=\([^,]*\),.*/\1/')
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
	echo "$(( ($(ready_at $gen) - kill) / 1000000 )) ${keys:-?} $found $sms $skib $rss $fpriv $frss"
}
printf '%-9s %-6s %10s %12s %16s %12s %12s %9s %14s %12s\n' keys mode "kill->ready" "keys after" "client found" \
    "snapshot ms" "snapshot KiB" "RSS MiB" "fork priv MiB" "fork RSS MiB"
for k in $KS; do
	for mode in warm cold; do
		read -r r keys found sms skib rss fpriv frss <<<"$(run "$mode$k" "$k" "$([ $mode = warm ] && echo 1 || echo 0)")"
		printf '%-9s %-6s %8s ms %12s %16s %12s %12s %9s %14s %12s\n' "$k" "$mode" "$r" "$keys" "$found/$k" \
		    "$([ $mode = warm ] && echo "$sms" || echo -)" "$([ $mode = warm ] && echo "$skib" || echo -)" "$rss" "$fpriv" "$frss"
	done
done
finish
