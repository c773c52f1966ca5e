#!/bin/bash
# The HTTP layer under what broke it: a master admin host given as a name (a crash before), chunked
# upstream bodies larger than one read (502 before), 700 long-polls from one client (the admin port
# unanswerable before, and after the client left), failures found at once (EMFILE, ENETUNREACH)
# reported from the loop, DNS names of 253 characters and a name with several addresses.
. "$(dirname "$0")/lib.sh"

# 1. --metrics_host=localhost: accepted by -n, then every proxied request answers and nothing dies.
new_ports
write_config lh '"extra_args": ["--rpc_address=127.0.0.1", "--metrics_host=localhost"]'
[ "$("$SIDECAR" -n -c "$T/lh.json" 2>&1)" = "configuration OK" ] || fail "-n with --metrics_host=localhost"
start_sidecar lh
wait_for 10 notified 'READY=1' || fail "lh: no READY=1"
for i in 1 2 3 4 5 6; do
	[ "$(adm_code /health)" = 200 ] || fail "request $i through --metrics_host=localhost: $(adm /health)"
done
alive "$SC_PID" && alive "$(master_pid lh)" || fail "sidecar or master died"
pass "--metrics_host=localhost: -n OK, 6 proxied /health 200, sidecar and master alive"
kill_quiet "$SC_PID"

# An unknown name is a -n error naming the key (resolved with a hosts file and resolver of our own).
cat >"$T/with-hosts.sh" <<'EOF'
#!/bin/sh
# with-hosts.sh HOSTS CMD...: run CMD with HOSTS as /etc/hosts and no DNS server, in a mount
# namespace of its own (the machine's files are not touched).
hosts=$1; shift
exec unshare -m --propagation private sh -c 'mount --bind "$0" /etc/hosts && echo "nameserver 127.0.0.1" >"$0.resolv" && mount --bind "$0.resolv" /etc/resolv.conf && exec "$@"' "$hosts" "$@"
EOF
chmod +x "$T/with-hosts.sh"
LONG=$(printf 'a%062d.b%062d.c%062d.d%060d' 1 2 3 4)
printf '127.0.0.1 localhost\n127.0.0.1 %s\n127.0.0.9 multi.test\n127.0.0.1 multi.test\n' "$LONG" >"$T/hosts"
new_ports
write_config bad '"extra_args": ["--metrics_host=no-such-host.test"]'
OUT=$("$T/with-hosts.sh" "$T/hosts" "$SIDECAR" -n -c "$T/bad.json" 2>&1); RC=$?
[ "$RC" = 78 ] && grep -q '^<3>master.extra_args: --metrics_host=no-such-host.test: cannot resolve "no-such-host.test"' <<<"$OUT" ||
    fail "unresolvable --metrics_host: $RC $OUT"
write_config badurl '"enabled": false, "url": "http://no-such-host.test:9103"'
OUT=$("$T/with-hosts.sh" "$T/hosts" "$SIDECAR" -n -c "$T/badurl.json" 2>&1); RC=$?
[ "$RC" = 78 ] && grep -q '^<3>master.url: cannot resolve "no-such-host.test"' <<<"$OUT" || fail "unresolvable master.url: $RC $OUT"
pass "names that do not resolve: -n exits 78 naming master.extra_args and master.url"

# A 253-character name as the master's address and admin host; a follower whose head name has two
# addresses, the first refusing: tried in order.
new_ports
write_config long '"address": "'"$LONG"'", "extra_args": ["--rpc_address=127.0.0.1", "--metrics_host='"$LONG"'"]'
[ "$("$T/with-hosts.sh" "$T/hosts" "$SIDECAR" -n -c "$T/long.json" 2>&1)" = "configuration OK" ] || fail "-n with a 253-character name"
SIDECAR_WRAPPER="$T/with-hosts.sh $T/hosts ${SIDECAR_WRAPPER:-}" start_sidecar long
HEAD_PID=$SC_PID HEAD_SIDE=$SIDE
wait_for 10 notified 'READY=1' || fail "long: no READY=1"
[ "$(adm_code /health)" = 200 ] || fail "proxy through a 253-character name"
[ "$("$TESTKIT" json-get "$T/long/endpoints.json" master.address)" = "$LONG" ] || fail "endpoints.json address"
grep -q "^MOONCAKE_MASTER=\"$LONG:$RPC\"\$" "$T/long/mooncake.env" || fail "mooncake.env: $(head -3 "$T/long/mooncake.env")"
curl -s "http://127.0.0.1:$SIDE/status" | grep -q "\"url\"" && fail "the head claims a url"
SIDE=$("$TESTKIT" freeports 1)
write_config fol '"enabled": false, "node": "head", "url": "http://multi.test:'"$HEAD_SIDE"'"'
sed -i 's/"nodes": "localhost"/"nodes": "localhost,head"/' "$T/fol.json"
SIDECAR_WRAPPER="$T/with-hosts.sh $T/hosts ${SIDECAR_WRAPPER:-}" start_sidecar fol
FOL_PID=$SC_PID FOL_SIDE=$SIDE
wait_for 10 grep_q "$T/fol/endpoints.json" '"ready": true' || fail "follower through multi.test: $(adm /status)"
pass "253-character names for master.address and --metrics_host; multi.test: 127.0.0.9 refused, 127.0.0.1 followed"

# EMFILE on the follower's own connect: reported from the loop as the sidecar's trouble, retried.
# The limit below its lowest free descriptor and below its lowest socket: the stream's descriptor,
# freed when the head dies, cannot be taken again for the next connect.
lowest_limit() {
	local i=0 fd low=
	while [ -e "/proc/$FOL_PID/fd/$i" ]; do i=$((i + 1)); done
	for fd in $(ls /proc/"$FOL_PID"/fd | sort -n); do
		case $(readlink "/proc/$FOL_PID/fd/$fd") in socket:*) low=$fd; break ;; esac
	done
	[ -n "$low" ] && [ "$low" -lt "$i" ] && i=$low
	echo "$i"
}
HARD=$(prlimit --pid "$FOL_PID" --nofile --noheadings --output HARD)
prlimit --pid "$FOL_PID" --nofile="$(lowest_limit)":"$HARD" || fail "prlimit"
kill_quiet "$HEAD_PID"
wait_for 10 grep_q "$T/sidecar-fol.out" "Too many open files" || fail "EMFILE not reported: $(tail -5 "$T/sidecar-fol.out")"
alive "$FOL_PID" || fail "the follower died of EMFILE"
prlimit --pid "$FOL_PID" --nofile="$HARD":"$HARD" || fail "prlimit back"
SIDE=$HEAD_SIDE
SIDECAR_WRAPPER="$T/with-hosts.sh $T/hosts ${SIDECAR_WRAPPER:-}" start_sidecar long
SIDE=$FOL_SIDE
wait_for 15 sh -c "curl -s http://127.0.0.1:$FOL_SIDE/status | grep -q 'generation [0-9]*, ready'" ||
    fail "the follower did not recover after EMFILE: $(adm /status | head -30)"
pass "EMFILE on the follower's connect: logged ($(grep -m1 -o 'socket for [^ ]*: Too many open files' "$T/sidecar-fol.out")), no crash, follows again"

# connect_fails NAME URL SETUP ERRNO MESSAGE: a follower of URL in a network namespace with only
# loopback (SETUP run there first) gets MESSAGE from connect at once: reported from the loop,
# retried with backoff, no crash.
connect_fails() {
	new_ports
	write_config "$1" '"enabled": false, "node": "head", "url": "'"$2"'"'
	sed -i 's/"nodes": "localhost"/"nodes": "localhost,head"/' "$T/$1.json"
	printf '#!/bin/sh\nexec unshare -n sh -c '"'"'ip link set lo up%s && exec "$@"'"'"' sh "$@"\n' "$3" >"$T/$1-ns.sh"
	chmod +x "$T/$1-ns.sh"
	SIDECAR_WRAPPER="$T/$1-ns.sh ${SIDECAR_WRAPPER:-}" start_sidecar "$1"
	wait_for 10 grep_q "$SC_OUT" "$5" || fail "$4 not reported: $(tail -5 "$SC_OUT")"
	CONNECT_MSG=$5
	retried() { [ "$(count "$SC_OUT" "$CONNECT_MSG")" -ge 2 ]; }
	wait_for 10 retried || fail "not retried after $4"
	alive "$SC_PID" || fail "the follower died of $4"
	CONNECT_ERR=$(grep -m1 -o 'connect to [^ ]*: [^,]*' "$SC_OUT")
	kill_quiet "$SC_PID"
}

# ENETUNREACH: the head off-link.
connect_fails unreach 'http://[2001:db8::1]:9103' '' ENETUNREACH 'Network is unreachable'
pass "ENETUNREACH from connect: reported from the loop, retried with backoff, no crash"
kill_quiet "$FOL_PID"

# EADDRNOTAVAIL: the head's URL is an IPv6 address and this node has no IPv6 address at all (IPv6
# off on its loopback), the family mismatch of a v6 URL on a v4 node.
connect_fails nov6 'http://[::1]:9103' ' && sysctl -qw net.ipv6.conf.lo.disable_ipv6=1' EADDRNOTAVAIL \
    'Cannot assign requested address'
pass "EADDRNOTAVAIL from connect (an IPv6 URL, no IPv6 on the node): $CONNECT_ERR, retried, no crash"

# 2. Chunked bodies of every size pass through unchanged.
MC_STANDIN_CHUNKED=1 up ch
for n in 500 5000 50000 200000; do
	curl -s -o "$T/side.$n" -w '%{http_code}' "http://127.0.0.1:$SIDE/metrics/summary?bytes=$n" >"$T/code.$n"
	curl -s -o "$T/direct.$n" "http://127.0.0.1:$ADMIN/metrics/summary?bytes=$n"
	[ "$(cat "$T/code.$n")" = 200 ] && [ "$(stat -c %s "$T/side.$n")" = "$n" ] && cmp -s "$T/side.$n" "$T/direct.$n" ||
	    fail "chunked $n bytes: HTTP $(cat "$T/code.$n"), $(stat -c %s "$T/side.$n") bytes"
done
pass "chunked upstream bodies of 500, 5000, 50000 and 200000 bytes: 200, byte-identical"

# 3. 700 long-polls from one client: others keep being answered, and so does everyone once it leaves.
ETAG=$(curl -s -D - -o /dev/null "http://127.0.0.1:$SIDE/endpoints" | tr -d '\r' | sed -n 's/^ETag: //Ip')
[ -n "$ETAG" ] || fail "no ETag"
other() { curl -s -m 3 --interface 127.0.0.2 -o /dev/null -w '%{http_code}' "http://127.0.0.1:$SIDE$1"; }
"$TESTKIT" conns "$SIDE" 700 "/endpoints?since=$ETAG&timeout_ms=60000" 120 >"$T/polls.out" &
POLLS=$!
STARTED+=($POLLS)
wait_for 30 grep_q "$T/polls.out" connected || fail "the long-poll client did not connect"
[ "$(other /livez)" = 200 ] && [ "$(other /metrics)" = 200 ] && [ "$(other /status)" = 200 ] ||
    fail "admin port wedged by 700 long-polls from one client"
pass "700 long-polls from 127.0.0.1 (per-IP limit 64): /livez, /metrics, /status answer 127.0.0.2"
kill_quiet "$POLLS"
T0=$(now_ms)
wait_for 5 is 200 other /livez || fail "not answering after the client left"
[ "$(curl -s -m 1 -o /dev/null -w '%{http_code}' "http://127.0.0.1:$SIDE/livez")" = 200 ] || fail "127.0.0.1 itself not answered after it left"
pass "after the client closed its 700 sockets: answered in $(( $(now_ms) - T0 )) ms, from 127.0.0.1 too"
kill_quiet "$SC_PID"

# The waiter cap alone (no per-IP limit): 64 held, the rest 503 with Retry-After, slots freed at once.
new_ports
write_config cap "" '"admin": { "listen": "127.0.0.1:@SIDE@", "max_connections": 2000, "max_connections_per_ip": 0 }'
start_sidecar cap
wait_for 10 notified 'READY=1' || fail "cap: no READY=1"
wait_for 5 test -f "$T/cap/endpoints.json" || fail "cap: no endpoints.json"
ETAG=$(curl -s -D - -o /dev/null "http://127.0.0.1:$SIDE/endpoints" | tr -d '\r' | sed -n 's/^ETag: //Ip')
"$TESTKIT" conns "$SIDE" 700 "/endpoints?since=$ETAG&timeout_ms=60000" 120 >"$T/polls2.out" &
POLLS=$!
STARTED+=($POLLS)
wait_for 30 grep_q "$T/polls2.out" connected || fail "the long-poll client did not connect"
H=$(curl -s -m 3 -D - -o /dev/null "http://127.0.0.1:$SIDE/endpoints?since=$ETAG&timeout_ms=100" | tr -d '\r')
grep -q '^HTTP/1.1 503' <<<"$H" && grep -qi '^Retry-After: 1' <<<"$H" || fail "65th long-poll: $H"
[ "$(adm_code /livez)" = 200 ] && [ "$(adm_code /metrics)" = 200 ] || fail "wedged by held long-polls"
kill_quiet "$POLLS"
T0=$(now_ms)
# held: a new long-poll is held for its 300 ms (not refused with 503)
held() { curl -s -m 5 -o /dev/null -w '%{http_code} %{time_total}\n' "http://127.0.0.1:$SIDE/endpoints?since=$ETAG&timeout_ms=300" |
    awk '$1 == 200 && $2 >= 0.25 { ok = 1 } END { exit !ok }'; }
wait_for 5 held || fail "long-poll slots not freed after the client left"
pass "admin.max_waiters 64: the 65th long-poll 503 with Retry-After; after the client closed, a new long-poll is held again ($(( $(now_ms) - T0 )) ms, its own 300 ms included)"

# Coalescing: 20 identical GETs while the master takes 300 ms to answer reach it as one or two
# requests; each client gets the master's answer; a later request is sent afresh.
MC_STANDIN_SLOW_MS=300 up co
upstream() { count "$EVENTS" '^admin /health?x=1 '; }
for i in $(seq 20); do
	curl -s -o /dev/null -w '%{http_code}\n' "http://127.0.0.1:$SIDE/health?x=1" >>"$T/co.codes" &
done
wait_for 10 is 20 count "$T/co.codes" '^200$' || fail "not all 20 answered 200: $(sort "$T/co.codes" | uniq -c)"
N=$(upstream)
[ "$N" -ge 1 ] && [ "$N" -le 2 ] || fail "20 identical requests reached the master $N times"
adm /metrics >"$T/co.txt"
grep -q "^mooncake_sidecar_proxy_coalesced_total $((20 - N))$" "$T/co.txt" ||
    fail "coalesced counter: $(grep coalesced "$T/co.txt"), upstream $N"
[ "$(adm_code '/health?x=1')" = 200 ] && [ "$(upstream)" -eq $((N + 1)) ] || fail "a later request was not sent afresh"
pass "20 identical GETs during a 300 ms answer: $N request(s) to the master, $((20 - N)) coalesced (counted), all 200; the next one sent afresh"

# admin.busy_poll_us: the loop polls (no sleep) for 2 ms after the answers to 50 requests back to
# back, and sleeps again once they stop: over 1 s of quiet the sidecar uses about no CPU, where
# polling would use all of a second.
up bp '"liveness_interval_ms": 60000' '"admin": { "listen": "127.0.0.1:@SIDE@", "busy_poll_us": 2000 }'
for i in $(seq 50); do printf 'url = "http://127.0.0.1:%s/health"\noutput = "/dev/null"\n' "$SIDE"; done >"$T/bp.curl"
[ "$(curl -s -K "$T/bp.curl" -w '%{http_code}\n' | grep -c '^200$')" = 50 ] || fail "busy_poll_us: not 50 answers"
ticks() { awk '{ print $14 + $15 }' "/proc/$SC_PID/stat"; }
C0=$(ticks)
sleep 1	# a measurement window, not a wait for a condition
C1=$(ticks)
[ $((C1 - C0)) -lt $(( $(getconf CLK_TCK) / 4 )) ] || fail "busy_poll_us: $((C1 - C0)) ticks of CPU over 1 s of quiet"
kill -TERM "$SC_PID"
wait "$SC_PID"; RC=$?
[ "$RC" = 0 ] || fail "busy_poll_us: exit $RC after SIGTERM"
pass "admin.busy_poll_us 2000: 50 proxied answers, $((C1 - C0)) CPU ticks over the next quiet second (of $(getconf CLK_TCK)), exit 0 on SIGTERM"

# It polls only while at most two admin connections are open, and only after a request that came
# within busy_poll_us of the answer before it: a client asking every 5 ms for 0.5 s keeps a
# busy_poll_us 10000 loop polling all along; with two more connections open (clients in parallel)
# the loop sleeps between the requests instead, and so it does for a client asking every 20 ms,
# whom polling 10 ms after each answer would never meet.
up bq '"liveness_interval_ms": 60000' '"admin": { "listen": "127.0.0.1:@SIDE@", "busy_poll_us": 10000 }'
for i in $(seq 100); do printf 'url = "http://127.0.0.1:%s/livez"\noutput = "/dev/null"\n' "$SIDE"; done >"$T/bq.curl"
# paced RATE N: the sidecar's CPU ticks over N requests at RATE per second, in TICKS
paced() {
	local c0 n
	c0=$(ticks)
	n=$(head -n $(($2 * 2)) "$T/bq.curl" | curl -s --rate "$1/s" -K - -w '%{http_code}\n' | grep -c '^200$')
	[ "$n" = "$2" ] || fail "busy_poll_us 10000: $n of $2 paced requests answered"
	TICKS=$(( $(ticks) - c0 ))
}
paced 200 100
ONE=$TICKS
paced 50 50
SPACED=$TICKS
exec 7<>"/dev/tcp/127.0.0.1/$SIDE" 8<>"/dev/tcp/127.0.0.1/$SIDE"
paced 200 100
THREE=$TICKS
exec 7>&- 8>&-
HZ=$(getconf CLK_TCK)
[ "$ONE" -gt $((HZ / 4)) ] || fail "busy_poll_us 10000, one client every 5 ms: $ONE ticks of CPU over 0.5 s (no polling?)"
[ "$SPACED" -lt $((HZ / 8)) ] || fail "busy_poll_us 10000, one client every 20 ms: $SPACED ticks of CPU over 1 s (it polled)"
[ "$THREE" -lt $((HZ / 8)) ] || fail "busy_poll_us 10000 with 3 connections open: $THREE ticks of CPU over 0.5 s (it polled)"
kill_quiet "$SC_PID"
pass "admin.busy_poll_us 10000: $ONE CPU ticks (of $HZ a second) over 100 requests 5 ms apart on one connection, $THREE with three open, $SPACED over 50 requests 20 ms apart"
finish
