#!/bin/bash
# A head whose machine vanishes without a word (no FIN, no RST: its address gone, every packet to it
# dropped), on two network namespaces joined by a veth pair: the follower's held event stream is
# ended by TCP keepalive within 25 s of silence and its files say not ready at once, instead of
# claiming a master that may be gone with the machine for three more failed tries; the head lets go of the stream of a follower it can no
# longer reach too. When the address comes back the follower follows again. Runs as root, in
# namespaces of its own; nothing on this machine's network changes.
. "$(dirname "$0")/lib.sh"
if [ -z "${MCS_NETNS:-}" ]; then
	why=""
	if [ "$(id -u)" != 0 ]; then
		why="needs root (network namespaces and a veth pair)"
	elif ! unshare -n true 2>/dev/null; then
		why="unshare -n fails here: $(unshare -n true 2>&1 | head -1)"
	elif ! command -v ip >/dev/null; then
		why="no ip command (iproute2)"
	fi
	if [ -n "$why" ]; then
		echo "$TEST_NAME: SKIPPED: $why"
		[ "${CI:-}" = true ] && fail "$why"
		exit 77
	fi
	rm -rf "$T"
	exec unshare -n env MCS_NETNS=1 bash "$0" "$@"
fi
ip link set lo up || fail "lo up in the test's namespace"
# the follower's namespace: a process holding it, joined with nsenter
unshare -n sleep 100000 &
NS=$!
STARTED+=($NS)
own_ns() { local n; n=$(readlink "/proc/$NS/ns/net" 2>/dev/null); [ -n "$n" ] && [ "$n" != "$(readlink /proc/self/ns/net)" ]; }
wait_for 5 own_ns || fail "no namespace for the follower"
ip link add hv0 type veth peer name fv0 && ip link set fv0 netns "$NS" || fail "veth pair: $(ip link 2>&1 | tail -2)"
ip addr add 10.203.0.1/24 dev hv0 && ip link set hv0 up || fail "head's end of the veth"
nsenter -t "$NS" -n sh -c 'ip link set lo up && ip addr add 10.203.0.2/24 dev fv0 && ip link set fv0 up' ||
    fail "follower's end of the veth"

# The head listens on every address (the test reaches it on 127.0.0.1); the follower on its own node.
new_ports
write_config head '"address": "127.0.0.1"' '"admin": { "listen": "0.0.0.0:@SIDE@" }'
sed -i 's|"nodes": "localhost", "node": "localhost"|"nodes": "head,worker1", "node": "head"|' "$T/head.json"
start_sidecar head
HP=$SC_PID
wait_for 10 notified 'READY=1' || fail "head: no READY=1"
follower_config f "$SIDE" 10.203.0.1
"$TESTKIT" notify-recv "$T/notify-f.sock" >"$T/notify-f.out" &
STARTED+=($!)
wait_for 5 test -S "$T/notify-f.sock" || fail "notify receiver"
NOTIFY_SOCKET=$T/notify-f.sock nsenter -t "$NS" -n "$SIDECAR" -c "$T/f.json" >"$T/sidecar-f.out" 2>&1 &
FP=$!
STARTED+=($FP)
SIDECARS+=($FP)
wait_for 10 grep_q "$T/notify-f.out" 'READY=1' || fail "follower: no READY=1 through the veth"
wait_for 5 is 1 sidecar_metric "$SIDE" mooncake_sidecar_admin_long_polls || fail "the follower holds no stream: $(sidecar_metric "$SIDE" mooncake_sidecar_admin_long_polls)"
grep -q '"ready": true' "$T/f/endpoints.json" || fail "follower files not ready"
pass "a follower in its own network namespace follows the head through a veth: ready, its stream held"

# The head's machine vanishes: its address goes, and what the follower sends to it is dropped.
T0=$(now_ms)
ip addr del 10.203.0.1/24 dev hv0 || fail "address not removed"
wait_for 45 grep_q "$T/f/endpoints.json" '"ready": false' || fail "the follower still says ready $(( $(now_ms) - T0 )) ms after the head vanished: $(tail -3 "$T/sidecar-f.out")"
T1=$(now_ms)
WHY=$(grep -o 'waiting for the head sidecar at http://10.203.0.1:[0-9]*: recv: .*' "$T/sidecar-f.out" | head -1 | sed 's/.*: recv: //')
case $WHY in
"Connection timed out"|"No route to host") ;;
*) fail "the follower's stream did not end by keepalive: $(grep 'follow:' "$T/sidecar-f.out" | tail -3)" ;;
esac
# the files went not ready at the first failure, not after two more tries to reach the head
TRIES=$(awk '/follow: waiting for the head sidecar/ { w++ } /endpoints: generation [0-9]+ not ready/ { print w + 0; exit }' "$T/sidecar-f.out")
[ "$TRIES" = 1 ] || fail "not ready after $TRIES failures: $(grep 'follow:\|endpoints:' "$T/sidecar-f.out")"
wait_for 20 is 0 sidecar_metric "$SIDE" mooncake_sidecar_admin_long_polls || fail "the head still holds the vanished follower's stream: $(sidecar_metric "$SIDE" mooncake_sidecar_admin_long_polls)"
T2=$(now_ms)
pass "head's machine gone silent: keepalive ended the follower's stream ($WHY) and its files said not ready at once, $((T1 - T0)) ms after; the head let go of the follower's stream $((T2 - T0)) ms after"

# The address comes back: the follower reconnects and its files say ready again.
ip addr add 10.203.0.1/24 dev hv0 || fail "address not restored"
wait_for 40 grep_q "$T/f/endpoints.json" '"ready": true' || fail "the follower did not come back: $(tail -3 "$T/sidecar-f.out")"
pass "the head's address back: the follower follows again, ready, $(( $(now_ms) - T2 )) ms later"
finish
