#!/bin/bash
# Mooncake's own store client (its C ABI, through tests/tools/store-client) reads nothing but the
# files the sidecar writes and moves real bytes through the real mooncake_master the sidecar
# supervises: puts and gets of 1 KiB to 8 MiB with checksums; the keys seen through the sidecar's
# proxied debug routes; kill -9 of the master (the client's errors, the files not ready, then the
# same client and a new one storing again in the next generation, the old keys gone); a client that
# waits for the files before the master is ready; a graceful stop of the sidecar under a client;
# the master's HTTP metadata server instead of P2PHANDSHAKE; two nodes' clients reading each other's
# keys. Without the real master or the client library it says why and is skipped (CI: a failure).
. "$(dirname "$0")/lib.sh"
need_real_master
need_real_client
use_real() { sed -i "s|\"command\": \\[\"$STANDIN\"\\]|\"command\": [\"$REAL\"]|" "$T/$1.json"; }
STORE='"global_segment_size": "256MB", "local_buffer_size": "64MB", "protocol": "tcp", "device_name": ""'
# real NAME METADATA_SERVER [endpoints.env JSON]: a sidecar on the real master, debug routes on.
real() {
	new_ports
	write_config "$1" '"address": "127.0.0.1", "ready_timeout_ms": 20000' '"admin": { "listen": "127.0.0.1:@SIDE@", "debug_routes": true },
	  "endpoints": { "store_config": { "metadata_server": "'"$2"'", '"$STORE"' }, "env": { '"${3:-}"' } }'
	use_real "$1"
}
gen_ready() { [ "$("$TESTKIT" json-get "$1/endpoints.json" ready 2>/dev/null)" = true ] &&
    [ "$("$TESTKIT" json-get "$1/endpoints.json" generation)" = "$2" ]; }
# bg NAME RUN_DIR [options]: a client in the background, its output in $T/NAME.out, its pid in BG.
bg() {
	env "$CLIENT_LIB" "$CLIENT_PATH" "$CLIENT" "$2" "${@:3}" >"$T/$1.out" 2>"$T/$1.err" &
	BG=$!
	STARTED+=($BG)
}
ok_puts() { grep -c '^put .* ok rc=0$' "$1" 2>/dev/null || echo 0; }
puts_at_least() { [ "$(ok_puts "$2")" -ge "$1" ]; }	# puts_at_least N FILE
errors_at_least() { [ "$(grep -c '^put .* error' "$2" 2>/dev/null)" -ge "$1" ]; }

# 1. Put, exist and get through the files, with P2PHANDSHAKE.
real r P2PHANDSHAKE
start_sidecar r
wait_for 20 notified 'READY=1' || fail "the real master never became ready: $(tail -5 "$T/r/mooncake_master.log")"
HOST=$(sh -c '. "$1"; printf %s "$MOONCAKE_LOCAL_HOSTNAME"' _ "$T/r/mooncake.env")
client "$T/r" --ops 16 >"$T/c1.out" 2>"$T/c1.err" || fail "the client failed: $(grep -v '^I' "$T/c1.err" | tail -5; tail -5 "$T/c1.out")"
grep -q "^config (vllm flavor, generation 1): local_hostname=$HOST metadata_server=P2PHANDSHAKE master_server_address=127.0.0.1:$RPC global_segment_size=268435456 local_buffer_size=67108864 protocol=tcp " "$T/c1.out" ||
    fail "the client's parameters: $(head -1 "$T/c1.out")"
[ "$(grep -c '^get .* ok crc=' "$T/c1.out")" = 16 ] && [ "$(ok_puts "$T/c1.out")" = 16 ] || fail "puts and gets: $(cat "$T/c1.out")"
grep -q '^get key=[^ ]*-7 bytes=8388608 .* ok' "$T/c1.out" || fail "no 8 MiB value"
pass "a client set up from the files alone (local_hostname $HOST from mooncake.env, the rest from the store config): 16 puts, exists and checksummed gets of 1 KiB to 8 MiB ($(awk '/^put.*bytes=8388608/ {print $4; exit}' "$T/c1.out") for 8 MiB)"

# 2. A client that stays: its keys through the sidecar's debug routes.
bg a "$T/r" --loop 100 --keep --prefix a
A=$BG
wait_for 20 puts_at_least 3 "$T/a.out" ||
    fail "the looping client stores nothing: $(tail -3 "$T/a.out")"
adm /get_all_keys >"$T/keys"
grep -q 'a-0' "$T/keys" && grep -q 'a-2' "$T/keys" || fail "/get_all_keys through the sidecar: $(head -c 300 "$T/keys")"
[ "$(adm_code '/query_key?key=a-0')" = 200 ] || fail "/query_key: $(adm '/query_key?key=a-0')"
pass "the keys it put are listed by /get_all_keys and answered by /query_key through the sidecar"

# 3. kill -9 of the master: errors, the files not ready, then storing again in generation 2.
curl -s "http://127.0.0.1:$SIDE/endpoints?since=1-ready&timeout_ms=20000" >"$T/lp.json" &
LP=$!
MP=$(master_pid r)
KILL_MS=$(now_ms)
kill -KILL "$MP"
wait "$LP"
[ "$("$TESTKIT" json-get "$T/lp.json" ready)" = false ] && [ "$("$TESTKIT" json-get "$T/lp.json" generation)" = 1 ] ||
    fail "the long-poll after the kill: $(cat "$T/lp.json")"
wait_for 20 gen_ready "$T/r" 2 || fail "generation 2 never ready"
stored_after() { awk -v t="$1" '/^put .* ok rc=0$/ { for (i = 1; i <= NF; i++) if ($i ~ /^t=/) { sub("t=", "", $i); if ($i + 0 > t) n++ } } END { exit !(n >= 2) }' "$T/a.out"; }
READY_MS=$(date -d "$("$TESTKIT" json-get "$T/r/endpoints.json" master.ready_at)" +%s%3N)
wait_for 20 stored_after "$READY_MS" || fail "the same client does not store again: $(tail -5 "$T/a.out")"
alive "$A" || fail "the client died"
grep -q '^put .* error rc=' "$T/a.out" || fail "the client saw no error while the master was down"
FIRST_ERR=$(awk '/^put .* error/ { for (i = 1; i <= NF; i++) if ($i ~ /^t=/) { sub("t=", "", $i); print $i; exit } }' "$T/a.out")
FIRST_OK=$(awk -v t="$KILL_MS" '/^put .* ok rc=0$/ { for (i = 1; i <= NF; i++) if ($i ~ /^t=/) { sub("t=", "", $i); if ($i + 0 > t) { print $i; exit } } }' "$T/a.out")
[ "$(adm_code '/query_key?key=a-0')" != 200 ] || fail "a key of the old master still there: $(adm '/query_key?key=a-0')"
client "$T/r" --ops 4 >"$T/c2.out" 2>"$T/c2.err" || fail "a new client after the restart: $(tail -3 "$T/c2.out")"
grep -q '^config (vllm flavor, generation 2)' "$T/c2.out" || fail "the new client did not read generation 2"
pass "kill -9: the long-poll said generation 1 not ready, then generation 2; the client failed ($((FIRST_ERR - KILL_MS)) ms after the kill), stored again $((FIRST_OK - KILL_MS)) ms after it (the new master ready after $((READY_MS - KILL_MS)) ms); its old keys are gone; a new client stores too"
kill -INT "$A"
wait_for 10 dead "$A" || fail "the client did not stop on SIGINT"

# 4. A client started before the master is ready waits for the files and succeeds at once.
new_ports
real w P2PHANDSHAKE
bg w "$T/w" --wait-ready 30000 --ops 4
W=$BG
start_sidecar w
wait_for 30 dead "$W" || fail "the waiting client never finished: $(tail -3 "$T/w.out")"
wait "$W" || fail "the waiting client failed: $(cat "$T/w.out"; grep -v '^I' "$T/w.err" | tail -3)"
grep -q '^files ready after' "$T/w.out" && grep -q '^put key=[^ ]*-0 .* tries=1 ok' "$T/w.out" ||
    fail "not at the first try: $(cat "$T/w.out")"
pass "a client started before the master: waited $(sed -n 's/^files ready after \([0-9.]*\) ms.*/\1/p' "$T/w.out") ms for endpoints.json, then stored at its first try"

# 5. A graceful stop of the sidecar while a client is connected.
bg b "$T/w" --loop 100
B=$BG
wait_for 20 puts_at_least 2 "$T/b.out" || fail "client b stores nothing"
kill -TERM "$SC_PID"
wait "$SC_PID"; RC=$?
[ "$RC" = 0 ] || fail "the sidecar exited $RC with a client connected"
[ "$("$TESTKIT" json-get "$T/w/endpoints.json" ready)" = false ] || fail "files still ready after the stop"
wait_for 10 errors_at_least 1 "$T/b.out" || fail "the client saw no error after the stop"
alive "$B" || fail "the client died when the sidecar stopped: $(grep -v '^I' "$T/b.err" | tail -3)"
kill_quiet "$B"	# (its own SIGINT path unmounts from a master that is gone: that takes its time)
pass "SIGTERM to the sidecar with a client connected: exit 0, the files not ready, the master gone; the client sees errors and carries on"

# 6. The master's HTTP metadata server instead of P2PHANDSHAKE.
real m '{metadata_url}'
start_sidecar m
wait_for 20 notified 'READY=1' || fail "metadata variant: never ready"
client "$T/m" --ops 8 >"$T/c3.out" 2>"$T/c3.err" || fail "the client on the metadata server: $(tail -3 "$T/c3.out"; grep -v '^I' "$T/c3.err" | tail -3)"
grep -q "metadata_server=http://127.0.0.1:$META/metadata " "$T/c3.out" || fail "metadata server: $(head -1 "$T/c3.out")"
pass "store_config.metadata_server \"{metadata_url}\": the client uses the master's http://127.0.0.1:$META/metadata and stores"

# 7. Two nodes: a head and a follower, each with its own MOONCAKE_LOCAL_HOSTNAME; each node's
# client reads the other's key.
routable_iface
real h2 P2PHANDSHAKE '"MOONCAKE_LOCAL_HOSTNAME": "127.0.0.1"'
start_sidecar h2
wait_for 20 notified 'READY=1' || fail "two nodes: the head never ready"
follower_config f2 "$SIDE"
python3 - "$T/f2.json" "$ADDR" "$STORE" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
c["endpoints"] = {"store_config": json.loads("{\"metadata_server\": \"P2PHANDSHAKE\", " + sys.argv[3] + "}"),
                  "env": {"MOONCAKE_LOCAL_HOSTNAME": sys.argv[2]}}
json.dump(c, open(sys.argv[1], "w"))
PY
start_sidecar f2
wait_for 10 notified 'READY=1' || fail "the follower never ready"
bg x "$T/h2" --loop 200 --keep --prefix x
X=$BG
bg y "$T/f2" --loop 200 --keep --prefix y
Y=$BG
wait_for 20 puts_at_least 1 "$T/x.out" || fail "client x stores nothing: $(tail -3 "$T/x.out")"
wait_for 20 puts_at_least 1 "$T/y.out" || fail "client y stores nothing: $(tail -3 "$T/y.out")"
grep -q "local_hostname=127.0.0.1 " "$T/x.out" && grep -q "local_hostname=$ADDR " "$T/y.out" || fail "local hostnames"
client "$T/f2" --get x-0:1024 >"$T/gx.out" 2>"$T/gx.err" || fail "the follower's node cannot read x-0: $(cat "$T/gx.out")"
client "$T/h2" --get y-0:1024 >"$T/gy.out" 2>"$T/gy.err" || fail "the head's node cannot read y-0: $(cat "$T/gy.out")"
pass "two nodes (local hostnames 127.0.0.1 and $ADDR): each node's client reads the key the other's put, checksums equal"
kill -INT "$X" "$Y"
wait_for 10 dead "$X" && wait_for 10 dead "$Y" || fail "clients x, y did not stop"
finish
