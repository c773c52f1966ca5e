#!/bin/bash
# Start -> ready: READY=1 on a real notify socket, the master started with the right flags, in its
# own process group, with its pid file and its log.
. "$(dirname "$0")/lib.sh"
new_ports
write_config a
start_sidecar a
wait_for 10 notified 'READY=1' || fail "no READY=1"
pass "READY=1 received on NOTIFY_SOCKET"
grep -E " $SC_PID READY=1\|STATUS=master ready \(gen 1, pid [0-9]+, 0 restarts\)" "$NOTIFY_OUT" >/dev/null ||
    fail "READY=1 not sent by the sidecar pid with the status line: $(cat "$NOTIFY_OUT")"
pass "READY=1 came from pid $SC_PID with STATUS=master ready (gen 1, ...)"
MP=$(master_pid a)
[ -n "$MP" ] && alive "$MP" || fail "no live master pid in the pid file"
grep -q "STATUS=master ready (gen 1, pid $MP," "$NOTIFY_OUT" || fail "status names another pid"
pass "pid file $MP matches the pid in STATUS"
ARGV=$(tr '\0' ' ' </proc/"$MP"/cmdline)
EXPECT="$STANDIN --rpc_port=$RPC --enable_http_metadata_server=true --http_metadata_server_port=$META --enable_metric_reporting=true --metrics_port=$ADMIN --rpc_address=127.0.0.1 --metrics_host=127.0.0.1 "
[ "$ARGV" = "$EXPECT" ] || fail "argv: got '$ARGV' expected '$EXPECT'"
pass "master argv: ports, metadata and metrics flags, then extra_args"
read -r _ _ _ PPID_ PGID SID _ < <(sed 's/^.*) //' /proc/"$MP"/stat | awk '{print 0,0,$1,$2,$3,$4}')
[ "$PPID_" = "$SC_PID" ] || fail "master parent is $PPID_, not the sidecar $SC_PID"
[ "$PGID" = "$MP" ] && [ "$SID" = "$MP" ] || fail "master pgid/sid $PGID/$SID, not its own"
pass "master is the sidecar's child, leads its own session and process group"
# The exact descriptor set: the same as the stand-in's own when a shell starts it with nothing but
# stdin from /dev/null and stdout and stderr on one pipe (kinds, by number; inode numbers masked).
# A TCP socket is named by what it is: listening on the RPC, metadata or admin port, or connected
# to one of them from a process of this test (the sidecar's probes keep theirs open).
fdset() {
	python3 - "$@" <<'PY'
import os, sys
pid, names = sys.argv[1], dict(zip(map(int, sys.argv[3::2]), sys.argv[2::2]))
socks = {}
for t in ("/proc/net/tcp", "/proc/net/tcp6"):
    try:
        for line in open(t).readlines()[1:]:
            f = line.split()
            lport, rport = int(f[1].rsplit(":", 1)[1], 16), int(f[2].rsplit(":", 1)[1], 16)
            socks[f[9]] = ("listening on " if f[3] == "0A" else "accepted on ") + names.get(lport, "another port")
    except OSError:
        pass
for fd in sorted(os.listdir(f"/proc/{pid}/fd"), key=int):
    l = os.readlink(f"/proc/{pid}/fd/{fd}")
    kind = l.split(":[")[0]
    if kind == "socket":
        kind += " " + socks.get(l[8:-1], "(not TCP)")
    print(fd, kind)
PY
}
wait_for 5 curl -sf -o /dev/null "http://127.0.0.1:$ADMIN/health" || fail "master admin not up"
SIDE_PIPE=$(readlink /proc/"$MP"/fd/1)
[ "$(readlink /proc/"$MP"/fd/2)" = "$SIDE_PIPE" ] && ls -l /proc/"$SC_PID"/fd | grep -qF "$SIDE_PIPE" ||
    fail "the master's stdout and stderr are not one pipe the sidecar reads: $(ls -l /proc/"$MP"/fd)"
read -r BR BM BA <<<"$("$TESTKIT" freeports 3 | tr '\n' ' ')"
python3 -c 'import subprocess, sys
p = subprocess.Popen(sys.argv[1:], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, close_fds=True)
print(p.pid, flush=True)
p.stdout.read()' "$STANDIN" --rpc_port="$BR" --enable_http_metadata_server=true --http_metadata_server_port="$BM" \
    --enable_metric_reporting=true --metrics_port="$BA" --rpc_address=127.0.0.1 --metrics_host=127.0.0.1 >"$T/baseline.pid" &
STARTED+=($!)
wait_for 5 curl -sf -o /dev/null "http://127.0.0.1:$BA/health" || fail "baseline stand-in not up"
BP=$(cat "$T/baseline.pid")
[ -n "$BP" ] && STARTED+=($BP) || fail "no baseline pid"
# (by kind: a connection the probes made may take a lower number than a later listening socket)
kinds() { fdset "$@" | grep -v ' accepted on ' | awk '{ if ($1 > 2) $1 = "n"; print }' | sort; }
kinds "$MP" rpc "$RPC" metadata "$META" admin "$ADMIN" >"$T/fds.master"
kinds "$BP" rpc "$BR" metadata "$BM" admin "$BA" >"$T/fds.alone"
fdset "$MP" rpc "$RPC" metadata "$META" admin "$ADMIN" | grep -v ' accepted on \(admin\|metadata\|rpc\)$' |
    awk '{ if ($1 > 2) $1 = "n"; print }' | sort | cmp -s - "$T/fds.master" || fail "the master holds a socket accepted on no port of its own: $(fdset "$MP" rpc "$RPC" metadata "$META" admin "$ADMIN")"
cmp -s "$T/fds.master" "$T/fds.alone" || fail "the master's fds differ from the stand-in's own set:
$(diff "$T/fds.alone" "$T/fds.master")"
pass "master holds exactly the fds it opens itself, besides connections the probes made: $(cut -d' ' -f2- "$T/fds.master" | sort | uniq -c | awk '{n = $1; $1 = ""; printf "%s%s x%s", (NR > 1 ? "," : ""), $0, n}')"
[ "$(readlink /proc/"$MP"/fd/0)" = /dev/null ] || fail "stdin is not /dev/null"
wait_for 5 grep_q "$T/a/mooncake_master.log" "Master admin server started on port $ADMIN" ||
    fail "master log lacks the admin line"
pass "master stdout/stderr captured in run_dir/mooncake_master.log"
[ "$(curl -s "http://127.0.0.1:$ADMIN/health")" = '{"status":"ok","role":"leader","ha_state":"serving","service_ready":true,"leader_address":null,"view_version":null}' ] ||
    fail "master /health"
pass "master answers /health with service_ready:true"
LAST=$(awk '$1=="listening"{print $3}' "$EVENTS" | tail -1)
READY_AT=$(grep 'READY=1' "$NOTIFY_OUT" | head -1 | awk '{print $1}')
[ -n "$LAST" ] && [ "$READY_AT" -ge "$LAST" ] || fail "READY=1 ($READY_AT) before the last port listened ($LAST)"
pass "READY=1 came after the last port listened ($(( (READY_AT - LAST) / 1000 )) us later)"

# The systemd watchdog: WATCHDOG=1 at half of WATCHDOG_USEC, from the loop.
kill -TERM "$SC_PID"; wait "$SC_PID"
new_ports
write_config w
WATCHDOG_USEC=200000 start_sidecar w
wait_for 10 notified 'READY=1' || fail "watchdog run: no READY=1"
count_wd() { [ "$(count "$NOTIFY_OUT" "^[0-9]* $SC_PID WATCHDOG=1$")" -ge "$1" ]; }
wait_for 5 count_wd 6 || fail "fewer than 6 WATCHDOG=1 pings: $(grep -c WATCHDOG "$NOTIFY_OUT")"
GAP=$(awk '$3=="WATCHDOG=1"{ if (p) print ($1-p)/1e6; p=$1 }' "$NOTIFY_OUT" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
awk -v g="$GAP" 'BEGIN { exit !(g > 50 && g < 250) }' || fail "median gap between pings $GAP ms, want about 100"
pass "WATCHDOG_USEC=200000: WATCHDOG=1 from the sidecar every ${GAP} ms (median), half the interval"

# React, don't poll: with a probe every minute, the master's "Master admin server started" line is
# what brings the probe that finds it ready, 5 s after exec (without it, the start-up retries that
# double from 1 ms come at 4.1 s and next at 8.2 s).
kill -TERM "$SC_PID"; wait "$SC_PID"
new_ports
write_config o '"probe_interval_ms": 60000'
MC_STANDIN_START_DELAY_MS=5000 start_sidecar o
# (bounded from the master's last port, not from the sidecar's start, which valgrind slows by seconds)
wait_for 15 notified 'READY=1' || fail "no READY=1 within 15 s with probe_interval_ms 60000"
L=$(awk '$1=="listening"{print $3}' "$EVENTS" | tail -1)
R=$(awk '/READY=1/{print $1; exit}' "$NOTIFY_OUT")
[ $(( (R - L) / 1000000 )) -lt 2000 ] ||
    fail "READY=1 $(( (R - L) / 1000000 )) ms after the last port listened: not brought by the start-up line"
pass "probe_interval_ms 60000: READY=1 $(( (R - L) / 1000 )) us after the last port listened, brought by the master's own start-up line"
finish
