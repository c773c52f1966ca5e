#!/bin/bash
# HA: two stand-in masters (--enable_ha), A the leader and B a standby naming A, each under its own
# sidecar. A's files point at A; B's at A too, saying leader_via B. The roles are flipped at run time
# (SIGUSR1 + control file): both sets of files switch to B within a few probe intervals.
. "$(dirname "$0")/lib.sh"
export MC_STANDIN_START_DELAY_MS=100
ENTRY="etcd://127.0.0.1:2379;127.0.0.2:2379"
HA_ARGS='"extra_args": ["--rpc_address=127.0.0.1", "--metrics_host=127.0.0.1", "--enable_ha=true", "--etcd_endpoints=127.0.0.1:2379;127.0.0.2:2379"]'
new_ports
RPC_A=$RPC
write_config a "\"address\": \"127.0.0.1\", $HA_ARGS"
echo 'role=leader' >"$T/control-a"
MC_STANDIN_ROLE=leader MC_STANDIN_CONTROL=$T/control-a start_sidecar a
SC_A=$SC_PID N_A=$NOTIFY_OUT SIDE_A=$SIDE
wait_for 10 notified 'READY=1' || fail "A: no READY=1"
MP_A=$(master_pid a)
new_ports
RPC_B=$RPC
write_config b "\"address\": \"127.0.0.1\", $HA_ARGS"
echo 'role=standby' >"$T/control-b"
MC_STANDIN_ROLE=standby MC_STANDIN_LEADER=127.0.0.1:$RPC_A MC_STANDIN_CONTROL=$T/control-b start_sidecar b
wait_for 10 notified 'READY=1' || fail "B (standby): no READY=1: $(tail -3 "$SC_OUT")"
MP_B=$(master_pid b)
points() { grep -q "\"rpc\": \"127.0.0.1:$2\"" "$T/$1/endpoints.json" && grep -q '"ready": true' "$T/$1/endpoints.json"; }
via() { grep -q "\"leader_via\": \"127.0.0.1:$2\"" "$T/$1/endpoints.json"; }
points a "$RPC_A" && ! via a "$RPC_A" || fail "A's files: $(cat "$T/a/endpoints.json")"
points b "$RPC_A" && via b "$RPC_B" || fail "B's files: $(cat "$T/b/endpoints.json")"
# Clients connect through the HA entry and follow a failover themselves; endpoints.json names the leader.
for n in a b; do
	grep -qxF "MOONCAKE_MASTER=\"$ENTRY\"" "$T/$n/mooncake.env" &&
	    [ "$("$TESTKIT" json-get "$T/$n/mooncake_store_config.json" master_server_address)" = "$ENTRY" ] &&
	    [ "$("$TESTKIT" json-get "$T/$n/endpoints.json" master.client_address)" = "$ENTRY" ] ||
	    fail "$n's files do not give clients the HA entry: $(grep MOONCAKE_MASTER "$T/$n/mooncake.env")"
done
pass "leader A and standby B (naming A): both sets of files point at A (B's say leader_via B); MOONCAKE_MASTER and master_server_address are the HA entry $ENTRY"
# A follower of A's sidecar mirrors the entry.
follower_config f "$SIDE_A"
"$SIDECAR" -c "$T/f.json" >"$T/sidecar-f.out" 2>&1 &
FP=$!
STARTED+=($FP)
wait_for 10 grep_q "$T/f/mooncake.env" MOONCAKE_MASTER || fail "the follower wrote no env: $(tail -3 "$T/sidecar-f.out")"
grep -qxF "MOONCAKE_MASTER=\"$ENTRY\"" "$T/f/mooncake.env" &&
    [ "$("$TESTKIT" json-get "$T/f/mooncake_store_config.json" master_server_address)" = "$ENTRY" ] ||
    fail "the follower's files: $(grep MOONCAKE_MASTER "$T/f/mooncake.env")"
kill -TERM "$FP"; wait "$FP"
pass "a follower of A mirrors the HA entry into its own mooncake.env and store config"
GA=$(sed -n 's/.*"generation": \([0-9]*\),.*/\1/p' "$T/a/endpoints.json")
GB=$(sed -n 's/.*"generation": \([0-9]*\),.*/\1/p' "$T/b/endpoints.json")

printf 'role=standby\nleader=127.0.0.1:%s\n' "$RPC_B" >"$T/control-a"
echo 'role=leader' >"$T/control-b"
T0=$(now_ms)
kill -USR1 "$MP_B" "$MP_A"
wait_for 5 points b "$RPC_B" || fail "B's files did not switch: $(cat "$T/b/endpoints.json")"
T1=$(now_ms)
wait_for 5 points a "$RPC_B" || fail "A's files did not switch: $(cat "$T/a/endpoints.json")"
T2=$(now_ms)
via a "$RPC_A" && ! via b "$RPC_B" || fail "leader_via after the switch"
grep -qxF "MOONCAKE_MASTER=\"$ENTRY\"" "$T/a/mooncake.env" || fail "A's env after the switch"
pass "roles flipped: B's files point at B ($((T1 - T0)) ms), A's at B via A ($((T2 - T0)) ms); probe interval 20 ms"
grep -q "\"generation\": $((GA + 1))," "$T/a/endpoints.json" && grep -q "\"generation\": $((GB + 1))," "$T/b/endpoints.json" ||
    fail "generation not bumped on the switch"
[ "$MP_A" = "$(master_pid a)" ] && [ "$MP_B" = "$(master_pid b)" ] || fail "a master was restarted by the switch"
pass "each switch is a new generation; neither master was restarted"
curl -s "http://127.0.0.1:$SIDE/role" | grep -qx leader || fail "B /role through its sidecar"
pass "B's sidecar proxies /role: leader"

# A reader on A's files while the leader moves between A and B (another address every generation):
# no read that saw one generation from start to end mixes files of two.
"$TESTKIT" read-endpoints "$T/a" 1000000 >"$T/reader.out" &
RP=$!
FLIPS=0
while [ $FLIPS -lt 12 ]; do
	if [ $((FLIPS % 2)) -eq 0 ]; then L=a F=b LR=$RPC_A; else L=b F=a LR=$RPC_B; fi
	echo 'role=leader' >"$T/control-$L"
	printf 'role=standby\nleader=127.0.0.1:%s\n' "$LR" >"$T/control-$F"
	kill -USR1 "$MP_A" "$MP_B"
	wait_for 5 points a "$LR" || fail "flip $FLIPS: A's files did not switch to $LR: $(cat "$T/a/endpoints.json")"
	FLIPS=$((FLIPS + 1))
done
kill -TERM "$RP"; wait "$RP"
read -r _ READS _ PARTIAL _ READY _ GENS _ BACK _ _ _ TORN _ MIXED _ LAST <"$T/reader.out"
[ "$PARTIAL" -eq 0 ] && [ "$BACK" -eq 0 ] && [ "$MIXED" -eq 0 ] && [ "$GENS" -ge 2 ] ||
    fail "reader during $FLIPS leader moves: $(cat "$T/reader.out")"
pass "$READS reads of A's files while the leader moved $FLIPS times (RPC $RPC_A <-> $RPC_B): none partial, none mixing two generations ($TORN torn by a publish and read again), $GENS generations seen"
finish
