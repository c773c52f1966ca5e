#!/bin/bash
# etcd HA on the Mooncake its users install: a real etcd (Debian's etcd-server) on loopback, two
# sidecars each supervising the released wheel's mooncake_master with master.ha.backend etcd://...
# (the OpLog on), and the wheel's own Python store client, reading nothing but a sidecar's store
# config (the etcd:// entry): PRELOAD keys (10,000) stored in batches, then a key every 20 ms. Shown:
# one leader serves, the other a standby; three kill -9s of the leader, a switchover, a graceful stop
# of the leader's sidecar and a rolling restart: each time the dead leader's etcd lease is revoked by
# its sidecar (never a newer leader's), the other master serves after its warmup, the client stores
# again and finds every key it was told was stored one by one (the batch-stored ones are counted:
# the OpLog's last batch stays in the leader's memory until more writes come); etcd killed, then
# SIGSTOPped for ETCD_STOP_S (30 s): the sidecars answer throughout and service comes back; at the
# end only keys acknowledged while etcd was down, or just before (the OpLog's last batch), are lost.
# Each handover's times and the sidecar's part are printed (tests/bench/ha.sh gathers them).
# Skipped, saying why, without the wheel or etcd; under CI=true a failure.
. "$(dirname "$0")/lib.sh"
ETCD=$(command -v etcd || true)
WHEEL=${MCS_WHEEL_CPU_MASTER:-$(bash "${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}/scripts/wheel-master.sh" --cpu 2>"$T/wheel.err" | tail -1)}
for need in "$ETCD:no etcd (apt-get install etcd-server; scripts/deps.sh installs it)" "$WHEEL:no released Mooncake wheel: $(tail -1 "$T/wheel.err" 2>/dev/null)"; do
	[ -n "${need%%:*}" ] && continue
	[ "${CI:-}" = true ] && fail "${need#*:}"
	echo "real_ha_etcd: SKIPPED: ${need#*:}"
	exit 77
done
PY=$(dirname "$WHEEL")/python
echo "   masters and client: $("$WHEEL" --version 2>&1 | head -1); etcd $("$ETCD" --version | head -1 | awk '{ print $3 }')"
read -r EPORT PPORT <<<"$("$TESTKIT" freeports 2 | tr '\n' ' ')"
"$ETCD" --name t --data-dir "$T/etcd" --listen-client-urls "http://127.0.0.1:$EPORT" \
    --advertise-client-urls "http://127.0.0.1:$EPORT" --listen-peer-urls "http://127.0.0.1:$PPORT" \
    --initial-advertise-peer-urls "http://127.0.0.1:$PPORT" --initial-cluster "t=http://127.0.0.1:$PPORT" >"$T/etcd.out" 2>&1 &
STARTED+=($!)
wait_for 10 eval 'curl -s "http://127.0.0.1:$EPORT/health" | grep -q true' || fail "etcd did not start: $(tail -3 "$T/etcd.out")"
# The master acknowledges a put before its OpLog entry is in etcd (PutEnd: visible before durable):
# what it acknowledged within this long before etcd stopped may never reach it.
OPLOG_WINDOW_MS=${OPLOG_WINDOW_MS:-1000}
STORE='"global_segment_size": "64MB", "local_buffer_size": "16MB", "protocol": "tcp", "device_name": "", "metadata_server": "P2PHANDSHAKE"'

# ha NAME: a sidecar on a wheel master in etcd HA
ha() { ha_sidecar "$1" "$WHEEL" '{ "backend": "etcd://127.0.0.1:'"$EPORT"'" }' "$STORE"; }
st() { curl -s "http://127.0.0.1:$1/status"; }
phase() { st "$1" | "$TESTKIT" json-get /dev/stdin master.ha.phase 2>/dev/null; }
ready_code() { curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$1/readyz"; }
mono_ms() { echo $(( $("$TESTKIT" now) / 1000000 )); }

ha a
wait_for 40 is serving phase "$SIDE_a" || fail "a never served: $(st "$SIDE_a"; tail -5 "$T/a/mooncake_master.log")"
ha b
wait_for 40 is standby phase "$SIDE_b" || fail "b is not a standby: $(st "$SIDE_b")"
wait_for 10 is 200 ready_code "$SIDE_b" || fail "b (standby of a serving leader) not ready: $(curl -s "http://127.0.0.1:$SIDE_b/readyz")"
for n in a b; do
	grep -qxF "MOONCAKE_MASTER=\"etcd://127.0.0.1:$EPORT\"" "$T/$n/mooncake.env" &&
	    [ "$("$TESTKIT" json-get "$T/$n/mooncake_store_config.json" master_server_address)" = "etcd://127.0.0.1:$EPORT" ] ||
	    fail "$n's files do not give clients the etcd:// entry: $(grep MOONCAKE_MASTER "$T/$n/mooncake.env")"
	tr '\0' ' ' <"/proc/$(master_pid "$n")/cmdline" | grep -q -- "--ha_backend_type=etcd --etcd_endpoints=127.0.0.1:$EPORT --enable_oplog=true" ||
	    fail "$n's master does not run with etcd and the OpLog: $(tr '\0' ' ' <"/proc/$(master_pid "$n")/cmdline")"
done
pass "a serves, b is its standby (ready); both masters run --ha_backend_type=etcd with the OpLog; both sets of files give clients etcd://127.0.0.1:$EPORT"

# The client, from a's files; it stores a key every 20 ms until told to stop.
PRELOAD=${PRELOAD:-10000} "$PY" "$top_srcdir/tests/tools/wheel-client" "$T/a/mooncake_store_config.json" "$T/client.out" "$T/client.stop" \
    >"$T/client.res" 2>"$T/client.err" &
CL=$!
STARTED+=($CL)
oks() { awk '$1 == "ok" { n++ } END { print n + 0 }' "$T/client.out" 2>/dev/null || echo 0; }
wait_for 30 eval '[ "$(oks)" -ge 20 ]' || fail "the client stores nothing: $(tail -3 "$T/client.out" "$T/client.err")"
grep -q "^preloaded ${PRELOAD:-10000}$" "$T/client.out" || fail "the client did not store its first keys: $(head -3 "$T/client.out")"
pass "the wheel's Python store client, reading a's store config only, stored ${PRELOAD:-10000} keys in batches, then a key every 20 ms ($(oks) so far)"

# after WHAT T0 LEAD OTHER N: once WHAT (at T0) left OTHER to lead: OTHER serves, the client stores
# again (once OTHER serves), LEAD is back as a standby, and the client counts its keys (check N);
# each said.
after() {
	local what=$1 t0=$2 ls os t1 t2 kept acked
	eval "ls=\$SIDE_$3 os=\$SIDE_$4"
	wait_for 30 is serving phase "$os" || fail "$what: $4 does not serve: $(st "$os")"
	t1=$(mono_ms)
	# stores again: a put acknowledged once the other serves (one just after t0 may be the old
	# leader's, before it stopped)
	wait_for 30 eval 'awk -v t='"$t1"' '"'"'$1 == "ok" && $3 > t { f = 1 } END { exit !f }'"'"' "$T/client.out"' ||
	    fail "$what: the client does not store again: $(tail -3 "$T/client.out")"
	t2=$(awk -v t="$t1" '$1 == "ok" && $3 > t { print int($3); exit }' "$T/client.out")
	wait_for 40 is standby phase "$ls" || fail "$what: $3 did not come back as a standby: $(st "$ls")"
	touch "$T/client.stop.$5"
	wait_for 30 grep_q "$T/client.out" "^check $5 " || fail "$what: the client did not count its keys"
	read -r _ _ kept acked pkept ptotal oldest <<<"$(grep "^check $5 " "$T/client.out")"
	echo "   $what: $4 serving after $((t1 - t0)) ms; the client stores again after $((t2 - t0)) ms; keys: $kept of $acked acknowledged one by one found, $pkept of the $ptotal stored first"
	# the keys stored first are counted, not required: the OpLog's last batch stays in the
	# leader's memory until more writes come (a kill loses it), which the sidecar cannot change
	# a key lost must have been acknowledged within the OpLog's last batch before the handover
	if [ "$kept" != "$acked" ]; then
		lag=$(awk -v k="$oldest" -v t="$t0" '$1 == "ok" && $2 == k { printf "%d", t - $3 }' "$T/client.out")
		echo "      $((acked - kept)) lost, the oldest acknowledged ${lag:-?} ms before the handover (the OpLog's last batch)"
		[ -n "$lag" ] && [ "$lag" -le "$OPLOG_WINDOW_MS" ] || fail "$what: $kept of $acked acknowledged keys found (the oldest lost ${lag:-?} ms before)"
	fi
	[ "$acked" -gt 0 ] || fail "$what: no key acknowledged"
}

# kill -9 of the leader, three times: its sidecar revokes the dead leader's lease; the other serves.
lead=a other=b
for k in 1 2 3; do
	eval "LOUT=\$OUT_$lead"
	R0=$(grep -c 'its leadership released in etcd' "$LOUT")
	M=$(master_pid "$lead")
	t0=$(mono_ms)
	kill -KILL "$M"
	after "kill $k of $lead's master" "$t0" "$lead" "$other" "$k"
	[ "$(grep -c 'its leadership released in etcd' "$LOUT")" -gt "$R0" ] ||
	    fail "kill $k: $lead's sidecar did not revoke the lease: $(grep -a 'etcd' "$LOUT" | tail -3)"
	pass "kill -9 $k of the leader ($lead): its sidecar revoked the dead leader's etcd lease $(grep -o 'its leadership released in etcd [0-9.]* ms' "$LOUT" | tail -1 | awk '{ print $6 }') ms after the death, $other served, the client stored again and found every key it was told was stored"
	tmp=$lead lead=$other other=$tmp
done

# A switchover: the leader steps down, its lease revoked, the other serves, it rejoins as a standby.
t0=$(mono_ms)
"$SIDECAR" ctl -c "$T/$lead.json" switchover >"$T/sw.out" 2>&1 || fail "ctl switchover: $(cat "$T/sw.out")"
after "switchover from $lead" "$t0" "$lead" "$other" 4
pass "switchover on etcd: $lead stepped down, $other serves, $lead rejoined as its standby, every key found"
tmp=$lead lead=$other other=$tmp

# A graceful stop of the leader's sidecar (as systemctl stop): its master stops, its lease is
# revoked before the sidecar exits, and the other serves; started again, it rejoins as a standby.
eval "LS=\$SIDE_$lead SCP=\$SC_$lead LOUT=\$OUT_$lead"
t0=$(mono_ms)
kill -TERM "$SCP"
wait "$SCP"; RC=$?
[ "$RC" = 0 ] || fail "the leader's sidecar exited $RC on SIGTERM"
grep -q 'its leadership released in etcd' <(tail -5 "$LOUT") || fail "the stop did not revoke the lease: $(tail -5 "$LOUT")"
ha "$lead"
after "graceful stop of $lead" "$t0" "$lead" "$other" 5
pass "SIGTERM to the leader's sidecar: exit 0 after revoking its master's lease, the other served, the sidecar started again rejoined as a standby, every key found"
tmp=$lead lead=$other other=$tmp

# A rolling restart: the standby's master first, then the leader's (a failover).
eval "OS=\$SIDE_$other"
"$SIDECAR" ctl -c "$T/$other.json" restart master >"$T/rr.out" 2>&1 || fail "ctl restart of the standby: $(cat "$T/rr.out")"
wait_for 40 is standby phase "$OS" || fail "the restarted standby is not a standby again: $(st "$OS")"
t0=$(mono_ms)
"$SIDECAR" ctl -c "$T/$lead.json" restart master >"$T/rr.out" 2>&1 || fail "ctl restart of the leader: $(cat "$T/rr.out")"
after "rolling restart, the leader $lead last" "$t0" "$lead" "$other" 6
pass "rolling restart of both masters (ctl restart master, the standby first): the other served, every key found"
tmp=$lead lead=$other other=$tmp

# etcd killed and started again, then stopped (SIGSTOP) for ETCD_STOP_S: the sidecars answer
# throughout, say what is true, and service comes back once etcd does.
eval "LS=\$SIDE_$lead OS=\$SIDE_$other"
EP=$(pgrep -f -- "--data-dir $T/etcd" | head -1)
W0=$(mono_ms)
kill -KILL "$EP"
for i in 1 2 3; do
	nap 1
	[ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$LS/livez")" = 200 ] &&
	    [ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$OS/livez")" = 200 ] || fail "a sidecar does not answer /livez with etcd dead"
done
"$ETCD" --name t --data-dir "$T/etcd" --listen-client-urls "http://127.0.0.1:$EPORT" \
    --advertise-client-urls "http://127.0.0.1:$EPORT" --listen-peer-urls "http://127.0.0.1:$PPORT" \
    --initial-advertise-peer-urls "http://127.0.0.1:$PPORT" --initial-cluster "t=http://127.0.0.1:$PPORT" >>"$T/etcd.out" 2>&1 &
STARTED+=($!)
wait_for 60 eval '[ "$(ready_code "$LS")" = 200 ] && [ "$(ready_code "$OS")" = 200 ] && { is serving phase "$LS" || is serving phase "$OS"; }' ||
    fail "no leader serves after etcd came back: $(st "$LS" | "$TESTKIT" json-get /dev/stdin master.ha; st "$OS" | "$TESTKIT" json-get /dev/stdin master.ha)"
W1=$(mono_ms)
pass "etcd killed for 3 s: both sidecars answered /livez throughout; once it was back, a leader served and both nodes were ready ($((W1 - W0)) ms after the kill)"
EP=$(pgrep -f -- "--data-dir $T/etcd" | head -1)
STOP_S=${ETCD_STOP_S:-30}
kill -STOP "$EP"
t0=$(mono_ms) W2=$(mono_ms)
while [ $(( $(mono_ms) - t0 )) -lt $((STOP_S * 1000)) ]; do
	for s in "$LS" "$OS"; do
		c=$(curl -s -m 2 -o /dev/null -w '%{http_code}' "http://127.0.0.1:$s/livez")
		[ "$c" = 200 ] || { kill -CONT "$EP"; fail "a sidecar answered /livez $c with etcd stopped"; }
	done
	nap 1
done
PH="$(phase "$LS")/$(phase "$OS")"
kill -CONT "$EP"
wait_for 60 eval '[ "$(ready_code "$LS")" = 200 ] && [ "$(ready_code "$OS")" = 200 ] && { is serving phase "$LS" || is serving phase "$OS"; }' ||
    fail "no leader serves after etcd resumed: $(st "$LS" | "$TESTKIT" json-get /dev/stdin master.ha; st "$OS" | "$TESTKIT" json-get /dev/stdin master.ha)"
W3=$(mono_ms)
pass "etcd stopped (SIGSTOP) for $STOP_S s: both sidecars answered /livez every second (phases at the end: $PH); resumed, a leader served and both nodes were ready ($((W3 - W2 - STOP_S * 1000)) ms after)"

# The keys the client was told were stored: every one, but those acknowledged while etcd was down or
# stopped (the master acknowledges a put before its OpLog entry is in etcd: master_service.cpp's
# PutEnd, visible before durable), which are counted.
wait_for 30 eval 'awk -v t='"$W3"' '"'"'$1 == "ok" && $3 > t { f = 1 } END { exit !f }'"'"' "$T/client.out"' ||
    fail "the client does not store again after etcd's outage: $(tail -3 "$T/client.out")"
touch "$T/client.stop"
wait_for 60 grep_q "$T/client.res" '^kept' || fail "the client did not count its keys: $(tail -3 "$T/client.err")"
read -r _ KEPT _ ACKED _ PKEPT _ PTOTAL <"$T/client.res"
ACKED=${ACKED%,}
FAILED=$(grep -c '^fail ' "$T/client.out")
# a lost key acknowledged shortly before an outage began was in the OpLog batch not yet in etcd
read -r OUTSIDE INSIDE BEFORE <<<"$(awk -v a="$W0" -v b="$W1" -v c="$W2" -v d="$W3" '
	FILENAME == ARGV[1] && $1 == "ok" { t[$2] = $3 }
	FILENAME == ARGV[2] && $1 == "lost" { for (i = 2; i <= NF; i++) { x = t[$i]
		if ((x >= a && x <= b) || (x >= c && x <= d)) in_++
		else { out++; g = (x < a ? a - x : c - x); if (g > 0 && g > before) before = g } } }
	END { printf "%d %d %d\n", out, in_, before }' "$T/client.out" "$T/client.res")"
echo "   keys: $KEPT of $ACKED acknowledged one by one found at the end ($FAILED puts refused while no master served), $PKEPT of the $PTOTAL stored first; lost: $INSIDE acknowledged while etcd was down or stopped, $OUTSIDE before it (at most $BEFORE ms before: the OpLog's last batch)"
[ "$ACKED" -gt 0 ] && { [ "$OUTSIDE" = 0 ] || [ "$BEFORE" -le "$OPLOG_WINDOW_MS" ]; } ||
    fail "$OUTSIDE acknowledged keys lost outside etcd's outages (up to $BEFORE ms before one), $PKEPT of $PTOTAL first keys kept: $(cut -c1-200 "$T/client.res")"
pass "every key acknowledged while etcd was up was found at the end but those of the OpLog's last batch before an outage ($KEPT of $ACKED one by one, $PKEPT of $PTOTAL stored first; $INSIDE lost were acknowledged while etcd was down or stopped, $OUTSIDE within $BEFORE ms before)"
finish
