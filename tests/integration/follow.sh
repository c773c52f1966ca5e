#!/bin/bash
# A node without a master follows the head sidecar: it waits (no files) until the head's master is
# ready, then writes the same endpoints.json and its own mooncake.env and store config; it follows a
# master restart (ready:false, then the next generation) through the /endpoints long-poll; when the
# head is gone it stops claiming ready. A shared run directory ends up with one consistent content.
. "$(dirname "$0")/lib.sh"
export MC_STANDIN_START_DELAY_MS=300
new_ports
follower_config f "$SIDE"
"$TESTKIT" notify-recv "$T/notify-f.sock" >"$T/notify-f.out" &
STARTED+=($!)
wait_for 5 test -S "$T/notify-f.sock" || fail "notify receiver"
NOTIFY_SOCKET=$T/notify-f.sock "$SIDECAR" -c "$T/f.json" >"$T/sidecar-f.out" 2>&1 &
FP=$!
STARTED+=($FP)
SIDECARS+=($FP)
fadm() { curl -s "http://127.0.0.1:$FSIDE$1"; }
fnotified() { grep -q -- "$1" "$T/notify-f.out"; }
wait_for 5 grep_q "$T/sidecar-f.out" "waiting for the head sidecar at http://127.0.0.1:$SIDE" || fail "follower not waiting"
[ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$FSIDE/readyz")" = 503 ] || fail "follower ready without a head"
fadm /status | grep -q '"state": "remote"' || fail "follower /status"
[ ! -e "$T/f/endpoints.json" ] || fail "follower wrote files with no master"
pass "follower without a head: waits, /readyz 503, /status master remote, writes nothing"

write_config h '"address": "127.0.0.1", "restart": { "backoff_initial_ms": 300, "reset_after_ms": 0, "burst": 100 }' \
    '"endpoints": { "flavor": "vllm", "store_config": { "protocol": "tcp", "global_segment_size": "4GB" } }'
start_sidecar h
wait_for 10 notified 'READY=1' || fail "head: no READY=1"
wait_for 5 fnotified 'READY=1' || fail "follower: no READY=1 after the head was ready"
cmp -s "$T/h/endpoints.json" "$T/f/endpoints.json" || fail "endpoints.json differs"
# the same store config but for each node's own local_hostname, which mooncake.env names too
same_but_host() { grep -v '"local_hostname"' "$1" | sed 's/,$//'; }
[ "$(same_but_host "$T/h/mooncake_store_config.json")" = "$(same_but_host "$T/f/mooncake_store_config.json")" ] ||
    fail "store config differs"
fhost=$(sh -c '. "$1"; printf %s "$MOONCAKE_LOCAL_HOSTNAME"' _ "$T/f/mooncake.env")
grep -q "\"local_hostname\": \"$fhost\"" "$T/f/mooncake_store_config.json" || fail "follower store config: local_hostname"
grep -q "^MOONCAKE_MASTER=\"127.0.0.1:$RPC\"$" "$T/f/mooncake.env" || fail "follower env"
grep -q "^MOONCAKE_CONFIG_PATH=\"$T/f/mooncake_store_config.json\"$" "$T/f/mooncake.env" || fail "follower config path"
[ "$(fadm /readyz)" = ready ] || fail "follower readyz"
grep -q 'STATUS=following the master through' "$T/notify-f.out" || fail "follower STATUS"
pass "head ready: the follower writes the same endpoints.json and store config, its own env, READY=1"

# A master restart on the head: the follower goes not ready, then follows the next generation, on
# the event stream it holds open (no request of its own ends meanwhile), as a client of
# ?stream=1 does.
wait_for 5 is 1 sidecar_metric "$SIDE" mooncake_sidecar_admin_long_polls || fail "the follower holds no stream: $(sidecar_metric "$SIDE" mooncake_sidecar_admin_long_polls)"
# held for minutes: both ends of it have TCP keepalive on, so that a peer that vanishes is noticed
if command -v ss >/dev/null; then
	ss -tnoH state established "( sport = :$SIDE )" >"$T/ss-head"
	ss -tnoH state established "( dport = :$SIDE )" >"$T/ss-fol"
	grep -q 'timer:(keepalive' "$T/ss-head" && grep -q 'timer:(keepalive' "$T/ss-fol" ||
	    fail "the stream's sockets lack keepalive: head $(cat "$T/ss-head"); follower $(cat "$T/ss-fol")"
fi
START_MS=$(now_ms)
curl -sN -D "$T/stream.hdr" "http://127.0.0.1:$SIDE/endpoints?stream=1&timeout_ms=4000" >"$T/stream.out" &
CURL=$!
wait_for 5 test -s "$T/stream.out" || fail "no first event on the stream"
[ "$(sidecar_metric "$SIDE" mooncake_sidecar_admin_long_polls)" = 2 ] || fail "streams not counted as held (admin.max_waiters)"
N0=$(endpoints_ended "$SIDE")
MP=$(master_pid h)
kill -KILL "$MP"
wait_for 5 grep_q "$T/f/endpoints.json" '"ready": false' || fail "follower kept ready after the master died"
pass "master killed on the head: the follower's endpoints.json says ready:false"
wait_for 10 grep_q "$T/f/endpoints.json" '"generation": 2' || fail "follower missed generation 2"
grep -q '"ready": true' "$T/f/endpoints.json" && cmp -s "$T/h/endpoints.json" "$T/f/endpoints.json" || fail "generation 2 differs"
[ "$(endpoints_ended "$SIDE")" = "$N0" ] || fail "the follower's stream ended: $N0 requests to /endpoints before the restart, $(endpoints_ended "$SIDE") after"
pass "the follower follows the restart on its stream: generation 2, ready, same file as the head"
wait "$CURL" || fail "curl of the stream: exit $?"
ELAPSED=$(( $(now_ms) - START_MS ))
tr -d '\r' <"$T/stream.hdr" | grep -qi '^content-type: text/event-stream' || fail "stream content type: $(cat "$T/stream.hdr")"
# the events as the standard reads them: ids in order, the last one's data
awk -v last="$T/stream.last" '/^id: / { id = substr($0, 5) } /^data: / { d = d substr($0, 7) "\n" }
    /^$/ { if (d != "") { print id; l = substr(d, 1, length(d) - 1) } d = "" } END { printf "%s", l >last }' \
    "$T/stream.out" >"$T/stream.ids"
[ "$(head -1 "$T/stream.ids")" = 1-ready ] && [ "$(tail -1 "$T/stream.ids")" = 2-ready ] &&
    grep -qx 1-not-ready "$T/stream.ids" || fail "stream events: $(tr '\n' ' ' <"$T/stream.ids")"
cmp -s "$T/stream.last" "$T/h/endpoints.json" || fail "the last event is not the head's endpoints.json"
[ "$ELAPSED" -ge 4000 ] || fail "the stream ended after $ELAPSED ms, before its timeout_ms"
pass "GET /endpoints?stream=1: text/event-stream, one event per change ($(tr '\n' ' ' <"$T/stream.ids")), the last one the head's file, ended at timeout_ms"

# The head sidecar disappears: after a few failed polls the follower stops claiming ready.
kill_quiet "$SC_PID"
wait_for 10 grep_q "$T/f/endpoints.json" '"ready": false' || fail "follower still ready with the head gone"
[ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$FSIDE/readyz")" = 503 ] || fail "follower readyz"
pass "head gone: the follower marks its files not ready and /readyz says why"
kill -TERM "$FP"; wait "$FP"; RC=$?
[ "$RC" -eq 0 ] || fail "follower exit $RC"
grep -q 'follow: the head sidecar did not hear that this node stops' "$T/sidecar-f.out" ||
    fail "a follower stopped with its head gone does not say the head did not hear it: $(tail -3 "$T/sidecar-f.out")"
pass "a follower stopped with its head gone exits 0 and says that the head did not hear it stop"

# One run directory shared by the head and a follower: one consistent content.
new_ports
FSIDE=$("$TESTKIT" freeports 1)
write_config s '"address": "127.0.0.1"'
sed -i 's|"nodes": "localhost", "node": "localhost"|"nodes": "head,worker1", "node": "head"|' "$T/s.json"
sed -e "s|$T/f\"|$T/s\"|; s|127.0.0.1:[0-9]*\" },|127.0.0.1:$SIDE\" },|; s|\"listen\": \"127.0.0.1:[0-9]*\"|\"listen\": \"127.0.0.1:$FSIDE\"|" "$T/f.json" >"$T/fs.json"
"$SIDECAR" -c "$T/fs.json" >"$T/sidecar-fs.out" 2>&1 &
FS=$!
STARTED+=($!)
SIDECARS+=($!)
start_sidecar s
wait_for 10 notified 'READY=1' || fail "shared: head not ready"
wait_for 5 grep_q "$T/sidecar-fs.out" 'endpoints: generation 1 ready' || fail "shared: follower did not write"
"$TESTKIT" read-endpoints "$T/s" 2000 >"$T/reader.out"
read -r _ _ _ PARTIAL _ <"$T/reader.out"
[ "$PARTIAL" -eq 0 ] && grep -q '"ready": true' "$T/s/endpoints.json" || fail "shared dir: $(cat "$T/reader.out")"
pass "a run directory shared by head and follower stays whole and consistent"

# A follower stopped (SIGTERM) leaves the head's /sd before it exits, even with nothing of its own to
# stop first: its last report (nothing to scrape here) reaches the head, not only its absence 40 s on.
listed() { curl -s "http://127.0.0.1:$SIDE/sd" | grep -q '"node": *"worker1"'; }
wait_for 10 listed || fail "the head's /sd never listed the follower: $(curl -s "http://127.0.0.1:$SIDE/sd")"
kill -TERM "$FS"
wait "$FS" || fail "follower exit $?"
listed && fail "the follower exited and the head's /sd still lists it: $(curl -s "http://127.0.0.1:$SIDE/sd")"
grep -q 'the head sidecar heard that this node stops' "$T/sidecar-fs.out" || fail "the follower did not log its last report: $(tail -3 "$T/sidecar-fs.out")"
pass "a follower stopped with nothing to stop: the head's /sd drops it before the follower has exited"
finish
