#!/bin/bash
# workers.drain_on_stop on the real mooncake_master with Mooncake's own store clients: a node whose
# worker (a real client that mounted a segment and put keys) stops gracefully first has its
# segments drained through the head sidecar's routes (authenticated), so every key is still
# readable from a client on another node afterwards; /status shows the drain; without it, the keys
# that lived on the leaving node are gone. Figures: keys, bytes, drain time.
. "$(dirname "$0")/lib.sh"
need_real_master
need_real_client
STORE='"global_segment_size": "256MB", "local_buffer_size": "64MB", "protocol": "tcp", "device_name": "", "metadata_server": "P2PHANDSHAKE"'
SIZES=(1024 4096 16384 65536 262144 1048576 4194304 8388608)
KEYS=16
head -c 24 /dev/urandom | base64 >"$T/token"
TOKEN=$(cat "$T/token")
hadm() { curl -s -H "Authorization: Bearer $TOKEN" "http://127.0.0.1:$HSIDE$1"; }

# The head: the real master, its own client staying (where drained keys can go).
new_ports
write_config h '"address": "127.0.0.1", "ready_timeout_ms": 20000' '"admin": { "listen": "127.0.0.1:@SIDE@",
  "debug_routes": true, "write_routes": true, "auth": { "bearer_token_file": "'"$T/token"'" } },
  "endpoints": { "store_config": { '"$STORE"' }, "env": { "MOONCAKE_LOCAL_HOSTNAME": "127.0.0.1" } }'
sed -i "s|\"command\": \\[\"$STANDIN\"\\]|\"command\": [\"$REAL\"]|" "$T/h.json"
start_sidecar h
HSIDE=$SIDE
routable_iface
wait_for 20 notified 'READY=1' || fail "the head never ready: $(tail -5 "$T/h/mooncake_master.log")"
env "$CLIENT_LIB" "$CLIENT_PATH" "$CLIENT" "$T/h" --ops 0 --stay >"$T/keeper.out" 2>"$T/keeper.err" &
STARTED+=($!)
wait_for 20 grep_q "$T/keeper.out" '^staying' || fail "the head's client did not stay: $(tail -3 "$T/keeper.out")"

# leaving NAME DRAIN PREFIX: a node (127.0.0.2) whose one worker is a real client that puts KEYS
# keys and stays; its sidecar follows the head. (The job's second node: one worker a node, the
# first one's is the head's, which runs none.)
leaving() {
	FSIDE=$("$TESTKIT" freeports 1)
	mkdir -p "$T/$1"
	cat >"$T/$1.json" <<JSON
{ "job": { "id": "test", "nodes": "head,worker1", "node": "worker1", "gpus_per_node": 1, "run_dir": "$T/$1",
    "network_interface": "$IFACE" },
  "master": { "enabled": false, "node": "head", "url": "http://127.0.0.1:$HSIDE" },
  "admin": { "listen": "127.0.0.1:$FSIDE", "auth": { "bearer_token_file": "$T/token" } },
  "endpoints": { "store_config": { $STORE }, "env": { "MOONCAKE_LOCAL_HOSTNAME": "127.0.0.2" } },
  "workers": { "flavor": "generic", "drain_on_stop": $2, "drain_timeout_ms": 60000,
    "groups": [ { "role": "agg", "count": 2, "gpus": 1, "health": { "type": "none" },
      "command": ["env", "$CLIENT_LIB", "$CLIENT_PATH", "$CLIENT", "{run_dir}", "--ops", "$KEYS", "--keep", "--stay",
                  "--prefix", "$3"] } ] } }
JSON
	start_sidecar "$1"
	LDIR=$T/$1
	stays() { WLOG=$(ls "$LDIR"/*_agg_*.log 2>/dev/null | head -1); [ -n "$WLOG" ] && grep -q "^staying" "$WLOG"; }
	wait_for 30 stays ||
	    fail "$1: the worker did not put its keys and stay: $(tail -5 "$T/$1"/*_agg_*.log 2>/dev/null; tail -5 "$SC_OUT")"
	[ "$(grep -c '^put .* ok rc=0$' "$WLOG")" = "$KEYS" ] || fail "$1: not every put succeeded: $(grep '^put' "$WLOG" | tail -3)"
}
# on_leaving PREFIX: how many of its keys have a replica on the leaving node's segment
on_leaving() {
	local k
	k=$(seq -s, -f "$1-%g" 0 $((KEYS - 1)))
	hadm "/batch_query_keys?keys=$k" | python3 -c '
import json, sys
d = json.load(sys.stdin)["data"]
print(sum(1 for v in d.values() if v["ok"] and any(x["transport_endpoint_"].startswith("127.0.0.2:") for x in v["values"])))'
}
# readable PREFIX: how many of its keys a client on the head's node reads back, checksums equal
readable() {
	local i n=0
	for i in $(seq 0 $((KEYS - 1))); do
		env "$CLIENT_LIB" "$CLIENT_PATH" "$CLIENT" "$T/h" --get "$1-$i:${SIZES[$((i % 8))]}" >"$T/get.out" 2>/dev/null && n=$((n + 1))
	done
	echo "$n"
}

# 1. With the drain.
leaving a true k
ON=$(on_leaving k)
[ "$ON" -ge 1 ] || fail "no key of the leaving node's client landed on its own segment (placement: $ON)"
BYTES=$(awk '/^put .* ok/ { for (i = 1; i <= NF; i++) if ($i ~ /^bytes=/) { sub("bytes=", "", $i); s += $i } } END { print s }' "$WLOG")
T0=$(now_ms)
kill -TERM "$SC_PID"
draining() { curl -s -H "Authorization: Bearer $TOKEN" "http://127.0.0.1:$FSIDE/status" >"$T/st.json" &&
    case $("$TESTKIT" json-get "$T/st.json" drain.state) in running|succeeded) true ;; *) false ;; esac; }
wait_for 10 draining || fail "/status does not show the drain: $(cat "$T/st.json")"
pass "/status during the stop: drain $("$TESTKIT" json-get "$T/st.json" drain.state) of $("$TESTKIT" json-get "$T/st.json" drain.segments) segment(s) of $("$TESTKIT" json-get "$T/st.json" drain.host) via $("$TESTKIT" json-get "$T/st.json" drain.via), job $("$TESTKIT" json-get "$T/st.json" drain.job_id)"
wait "$SC_PID"
RC=$?
T1=$(now_ms)
[ "$RC" = 0 ] || fail "the leaving sidecar exited $RC: $(tail -5 "$SC_OUT")"
grep -q "drain: 1 segment of 127.0.0.2 drained in [0-9.]* s: [0-9]* units, [0-9]* bytes moved" "$SC_OUT" ||
    fail "the drain did not finish: $(grep drain "$SC_OUT")"
awk '/drain: 1 segment of 127.0.0.2 drained/ { d = NR } /agg_w1: ready -> stopping/ { s = NR } END { exit !(d && s > d) }' "$SC_OUT" &&
    grep -q 'Received signal 15, cleaning up resources' "$WLOG" || fail "the worker was not stopped (SIGTERM) after the drain: $(grep -E 'drain|agg_w1' "$SC_OUT")"
DRAINED=$(grep -o 'drained in [0-9.]* s: [0-9]* units, [0-9]* bytes moved' "$SC_OUT")
N=$(readable k)
[ "$N" = "$KEYS" ] || fail "after a drained stop, only $N of $KEYS keys are readable from the head's node"
pass "drain on: $KEYS keys ($BYTES bytes), $ON on the leaving node; SIGTERM -> $DRAINED -> workers stopped, exit 0 ($((T1 - T0)) ms); all $N readable from the head's node, checksums equal"

# 2. Without it.
leaving b false m
ON=$(on_leaving m)
[ "$ON" -ge 1 ] || fail "no key of the second leaving client landed on its own segment"
kill -TERM "$SC_PID"
wait "$SC_PID" || fail "the second leaving sidecar exited $?"
! grep -q "drain:" "$SC_OUT" || fail "drained without workers.drain_on_stop"
N=$(readable m)
[ "$N" = $((KEYS - ON)) ] || fail "without the drain $N of $KEYS keys are readable, expected the $((KEYS - ON)) that were not on the leaving node"
pass "drain off: $ON of $KEYS keys lived on the leaving node and are gone after its stop; $N readable"
finish
