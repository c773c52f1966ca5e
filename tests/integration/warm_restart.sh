#!/bin/bash
# Warm restart (master.snapshot) on the real mooncake_master and Mooncake's own store client: keys
# stored, a snapshot, kill -9 of the master; the sidecar's restart restores it, and the same client
# and a new one find the keys with their content; /status and /metrics say restored. Then every
# snapshot corrupted and another kill -9: the master starts cold, and the sidecar says so (log,
# /status). Skipped, saying why, without the real master or the client library; under CI=true a
# failure.
. "$(dirname "$0")/lib.sh"
need_real_master
need_real_client
STORE='"global_segment_size": "256MB", "local_buffer_size": "64MB", "protocol": "tcp", "device_name": ""'
SNAP=$T/snapshots
# wconf NAME SNAPSHOT_JSON: a sidecar's config on the real master with master.snapshot
wconf() {
	new_ports
	write_config "$1" '"address": "127.0.0.1", "ready_timeout_ms": 20000, "restart": { "backoff_initial_ms": 0 },
	  "snapshot": '"$2" '"admin": { "listen": "127.0.0.1:@SIDE@" },
	  "endpoints": { "store_config": { "metadata_server": "P2PHANDSHAKE", '"$STORE"' } }'
	sed -i "s|\"command\": \\[\"$STANDIN\"\\]|\"command\": [\"$REAL\"]|" "$T/$1.json"
}
wconf w '{ "enabled": true, "dir": "'"$SNAP"'", "interval_s": 2, "kv_lease_ttl_ms": 3600000 }'
"$SIDECAR" -n -c "$T/w.json" >"$T/check.out" 2>&1 || fail "-n: $(cat "$T/check.out")"
start_sidecar w
wait_for 20 notified 'READY=1' || fail "the real master never became ready: $(tail -5 "$T/w/mooncake_master.log")"
snap() { adm /status | "$TESTKIT" json-get /dev/stdin "master.snapshot.$1" 2>/dev/null; }
for f in --enable_snapshot=true --snapshot_interval_seconds=2 --snapshot_object_store_type=local \
    --enable_snapshot_restore=true --default_kv_lease_ttl=3600000; do
	tr '\0' '\n' <"/proc/$(master_pid w)/cmdline" | grep -qx -- "$f" || fail "the master was not started with $f"
done
tr '\0' '\n' <"/proc/$(master_pid w)/environ" | grep -qx "MOONCAKE_SNAPSHOT_LOCAL_PATH=$SNAP" || fail "no MOONCAKE_SNAPSHOT_LOCAL_PATH"
[ "$(snap last_start)" = cold ] || fail "the first start (no snapshot yet) is not said cold: $(adm /status | "$TESTKIT" json-get /dev/stdin master.snapshot)"
pass "the master runs with the snapshot flags and MOONCAKE_SNAPSHOT_LOCAL_PATH; its first start, with nothing to restore, is cold"

# keys stored by a client that stays (a value lives in its client's segment), then a snapshot
N=24
bg() {
	env "$CLIENT_LIB" "$CLIENT_PATH" "$CLIENT" "$2" "${@:3}" >"$T/$1.out" 2>"$T/$1.err" &
	BG=$!
	STARTED+=($BG)
}
ok_puts() { count "$1" '^put .* ok rc=0$'; }
# recheck PID OUT N: the client reads its keys again (SIGUSR2) and says how many it found; its first
# request after the master's restart may fail on the connection to the dead one (rc -900), so a
# second round is read when the first found fewer than N
recheck() {
	local pid=$1 out=$2 want=$3 r0 found try
	for try in 1 2; do
		r0=$(count "$out" '^rechecked: ')
		kill -USR2 "$pid"
		wait_for 60 eval '[ "$(count "$out" "^rechecked: ")" -gt $r0 ]' || { echo "no recheck"; return; }
		found=$(sed -n 's/^rechecked: \([0-9]*\) of .*/\1/p' "$out" | tail -1)
		[ "$found" = "$want" ] && break
	done
	echo "$found"
}
bg keeper "$T/w" --ops $N --keep --stay --prefix warm
KEEPER=$BG
wait_for 60 eval '[ "$(ok_puts "$T/keeper.out")" -ge '$N' ]' || fail "the keys were not stored: $(tail -3 "$T/keeper.out"; grep -v '^I' "$T/keeper.err" | tail -3)"
S0=$(snap persisted)
wait_for 20 eval '[ "$(snap persisted)" -gt $((S0 + 1)) ]' || fail "no snapshot after the puts: $(adm /status | "$TESTKIT" json-get /dev/stdin master.snapshot)"
[ -n "$(snap last_persisted)" ] && [ "$(sidecar_metric "$SIDE" 'mooncake_sidecar_master_snapshots_total{outcome="persisted"}')" -ge 1 ] ||
    fail "/metrics does not count the snapshot"
BYTES=$(snap last_good.bytes)
[ "${BYTES:-0}" -gt 0 ] && [ -d "$SNAP/last-good/$(snap last_good.id)" ] &&
    [ "$(sidecar_metric "$SIDE" mooncake_sidecar_master_snapshot_bytes)" -gt 0 ] || fail "no last good snapshot: $(adm /status | "$TESTKIT" json-get /dev/stdin master.snapshot)"
pass "$N keys stored, then a snapshot persisted ($(snap persisted) so far, /status and /metrics count them; the last good one, $BYTES bytes, kept in last-good/)"

M=$(master_pid w)
KILL=$(now_ms)
kill -KILL "$M"
wait_for 20 eval '[ "$(master_pid w)" != "$M" ] && [ "$(snap last_start)" = restored ] && [ "$(adm /status | "$TESTKIT" json-get /dev/stdin ready)" = true ]' ||
    fail "not restored: $(adm /status | "$TESTKIT" json-get /dev/stdin master.snapshot; grep -a Restore "$T/w/mooncake_master.log" | tail -3)"
READY_MS=$(( $(now_ms) - KILL ))
FROM=$(snap restored_from)
grep -q "mooncake_master: restored from the snapshot $FROM" "$SC_OUT" || fail "the log does not say it restored $FROM"
wait_for 5 grep_q "$NOTIFY_OUT" "STATUS=master ready (gen [0-9]*, pid $(master_pid w), 1 restart, restored)" ||
    fail "STATUS= does not say restored: $(grep STATUS= "$NOTIFY_OUT" | tail -1)"
[ "$(sidecar_metric "$SIDE" mooncake_sidecar_master_restored)" = 1 ] || fail "mooncake_sidecar_master_restored is not 1"
wait_for 5 eval '[ -n "$(snap keys_restored)" ] && [ "$(snap keys_restored)" != null ]' ||
    fail "/status does not count the keys restored: $(adm /status | "$TESTKIT" json-get /dev/stdin master.snapshot)"
KEYS=$(snap keys_restored)
[ "$KEYS" = $N ] && [ "$(sidecar_metric "$SIDE" mooncake_sidecar_master_keys_restored)" = $N ] &&
    grep -q "mooncake_master: $N keys restored" "$SC_OUT" || fail "keys restored: /status $KEYS, /metrics $(sidecar_metric "$SIDE" mooncake_sidecar_master_keys_restored), want $N"
FOUND=$(recheck "$KEEPER" "$T/keeper.out" $N)
[ "$FOUND" = $N ] || fail "the same client found $FOUND of $N keys after the restore"
# a new client reads some of them, checking their content
NEWOK=0
for k in 0 5 11 23; do
	size=$(sed -n "s/^put key=warm-$k bytes=\([0-9]*\) .* ok rc=0$/\1/p" "$T/keeper.out" | head -1)
	client "$T/w" --get "warm-$k:$size" >"$T/get$k.out" 2>&1 && NEWOK=$((NEWOK + 1))
done
[ "$NEWOK" = 4 ] || fail "a new client read $NEWOK of 4 keys: $(tail -2 "$T/get0.out")"
pass "kill -9 -> restored from $FROM, ready $READY_MS ms after the kill; the same client found $FOUND of $N keys, a new one read 4 of 4 with their content; /status last_start restored and keys_restored $KEYS, mooncake_sidecar_master_restored 1"

# every snapshot corrupted: the next start cannot use any, starts cold, and says so
S0=$(snap persisted)
wait_for 20 eval '[ "$(snap persisted)" -gt $((S0 + 1)) ]' || fail "no snapshot to corrupt"
find "$SNAP" -type f ! -name '*.txt' -exec sh -c 'head -c 64 /dev/urandom >"$1"' _ {} \;
M=$(master_pid w)
kill -KILL "$M"
wait_for 20 eval '[ "$(master_pid w)" != "$M" ] && [ "$(snap last_start)" = cold ] && [ "$(adm /status | "$TESTKIT" json-get /dev/stdin ready)" = true ]' ||
    fail "a corrupt snapshot: $(adm /status | "$TESTKIT" json-get /dev/stdin master.snapshot; grep -a Restore "$T/w/mooncake_master.log" | tail -3)"
grep -q "mooncake_master: no snapshot of [0-9]* could be restored" "$SC_OUT" && [ "$(snap unusable)" -ge 1 ] ||
    fail "the cold start is not explained: $(grep -a 'snapshot' "$SC_OUT" | tail -3)"
[ "$(sidecar_metric "$SIDE" mooncake_sidecar_master_restored)" = 0 ] || fail "mooncake_sidecar_master_restored is not 0"
pass "every snapshot corrupted, kill -9: $(grep -o 'no snapshot of [0-9]* could be restored.*' "$SC_OUT" | tail -1 | cut -c1-160); ready again, cold"
kill -TERM "$KEEPER"
kill_quiet "$SC_PID"

# the snapshot directory's disk fills up (a tmpfs of 4 MiB made here): 0.3.12 then writes every
# file of a snapshot empty and says it persisted, and its retention deletes the good ones. The
# sidecar counts each as failed, the master serves on unrestarted, and at the next start the last
# good snapshot, kept aside, is what it restores.
FULL=$T/full
mkdir -p "$FULL"
if [ "$(id -u)" = 0 ] && mount -t tmpfs -o size=4m tmpfs "$FULL" 2>"$T/mount.err"; then
	trap 'umount "$FULL" 2>/dev/null; cleanup' EXIT
	wconf f '{ "enabled": true, "dir": "'"$FULL"'/snap", "interval_s": 1, "kv_lease_ttl_ms": 3600000 }'
	start_sidecar f
	wait_for 20 notified 'READY=1' || fail "the master on the small disk did not start: $(tail -3 "$SC_OUT")"
	bg small "$T/f" --ops 4 --keep --stay --prefix small
	SMALL=$BG
	wait_for 60 eval '[ "$(ok_puts "$T/small.out")" -ge 4 ]' || fail "the keys were not stored on the small disk's master"
	S0=$(snap persisted)
	wait_for 20 eval '[ "$(snap persisted)" -gt $((S0 + 1)) ]' && [ "$(snap failing_for)" = 0 ] || fail "no good snapshot before the disk fills"
	GOOD=$(ls "$FULL/snap/last-good")
	dd if=/dev/zero of="$FULL/filler" bs=4k 2>/dev/null	# the disk full
	wait_for 30 eval '[ "$(snap failing_for)" -ge 2 ]' ||
	    fail "a full disk is not reported: $(adm /status | "$TESTKIT" json-get /dev/stdin master.snapshot; grep -a 'Snapshot\]' "$T/f/mooncake_master.log" | tail -3)"
	[ -n "$(snap last_error)" ] || fail "no last_error for the failed snapshots"
	[ "$(adm /status | "$TESTKIT" json-get /dev/stdin master.restarts)" = 0 ] && [ "$(adm /status | "$TESTKIT" json-get /dev/stdin ready)" = true ] ||
	    fail "a full snapshot disk restarted the master or made it not ready"
	grep -q "mooncake_master: its snapshot failed" "$SC_OUT" || fail "the failure is not in the log"
	FF=$(snap failing_for)
	M=$(master_pid f)
	kill -KILL "$M"
	wait_for 20 eval '[ "$(master_pid f)" != "$M" ] && [ -n "$(snap last_start)" ] && [ "$(adm /status | "$TESTKIT" json-get /dev/stdin ready)" = true ]' ||
	    fail "no start after the kill: $(adm /status | "$TESTKIT" json-get /dev/stdin master.snapshot)"
	[ "$(snap last_start)" = restored ] && [ "$(snap restored_from)" = "$GOOD" ] ||
	    fail "not restored from $GOOD: $(adm /status | "$TESTKIT" json-get /dev/stdin master.snapshot; grep -a 'Restore\]' "$T/f/mooncake_master.log" | tail -4)"
	FOUND=$(recheck "$SMALL" "$T/small.out" 4)
	[ "$FOUND" = 4 ] || fail "$FOUND of 4 keys found after restoring the last good snapshot"
	pass "the snapshot disk full (4 MiB tmpfs): $FF snapshots failed in a row (\"$(snap last_error | cut -c1-90)\"), the master served on unrestarted; after a kill -9 it restored the last good snapshot, $GOOD: 4 of 4 keys found"
	kill -TERM "$SMALL"
	kill_quiet "$SC_PID"
	# an empty store, its disk filled after a good snapshot: 0.3.12 writes its small files empty,
	# says "successfully persisted state", points latest.txt at it and deletes the good ones; the
	# sidecar counts them failed and at the next start puts the last good one back
	rm -rf "$FULL/snap" "$FULL/filler"
	wconf e '{ "enabled": true, "dir": "'"$FULL"'/snap", "interval_s": 1 }'
	start_sidecar e
	wait_for 20 notified 'READY=1' || fail "the master of the empty store did not start: $(tail -3 "$SC_OUT")"
	wait_for 20 eval '[ "$(snap persisted)" -ge 1 ]' || fail "no good snapshot of the empty store"
	GOOD=$(ls "$FULL/snap/last-good")
	dd if=/dev/zero of="$FULL/filler" bs=4k 2>/dev/null
	CLAIMED=$(count "$T/e/mooncake_master.log" "Child process successfully persisted state")
	wait_for 20 eval '[ "$(count "$T/e/mooncake_master.log" "Child process successfully persisted state")" -ge $((CLAIMED + 2)) ] && [ "$(snap failing_for)" -ge 2 ]' ||
	    fail "an empty snapshot said persisted is not counted failed: $(adm /status | "$TESTKIT" json-get /dev/stdin master.snapshot)"
	case $(snap last_error) in *"is empty (the master wrote nothing: a full disk?)"*) ;; *) fail "last_error: $(snap last_error)" ;; esac
	M=$(master_pid e)
	kill -KILL "$M"
	wait_for 20 eval '[ "$(master_pid e)" != "$M" ] && [ -n "$(snap last_start)" ] && [ "$(adm /status | "$TESTKIT" json-get /dev/stdin ready)" = true ]' ||
	    fail "no start after the kill: $(adm /status | "$TESTKIT" json-get /dev/stdin master.snapshot)"
	grep -q "mooncake_master: the latest snapshot .* is not good (.*is empty.*)" "$SC_OUT" &&
	    [ "$(snap last_start)" = restored ] && [ "$(snap restored_from)" = "$GOOD" ] ||
	    fail "not restored from the last good snapshot $GOOD: $(adm /status | "$TESTKIT" json-get /dev/stdin master.snapshot; grep -a 'snapshot' "$SC_OUT" | tail -3; grep -a 'Restore\]' "$T/e/mooncake_master.log" | tail -3)"
	if [ -d "$FULL/snap/mooncake_master_snapshot/mooncake_cluster/$GOOD" ] && ! grep -q "put back for the restore" "$SC_OUT"; then
		HOW="it was still in the master's catalog"
	else
		HOW="the sidecar put it back from last-good/"
	fi
	pass "an empty store's disk filled: 0.3.12 said $(( $(count "$T/e/mooncake_master.log" "Child process successfully persisted state") - CLAIMED )) snapshots persisted with every file empty; the sidecar counted them failed (\"$(snap last_error | cut -c1-70)\"), and after a kill -9 the master restored the last good one, $GOOD ($HOW)"
	kill_quiet "$SC_PID"
	umount "$FULL"
	trap cleanup EXIT
else
	echo "   (no full-disk check: mounting a tmpfs needs root: $(cat "$T/mount.err" 2>/dev/null))"
fi
finish
