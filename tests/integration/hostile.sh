#!/bin/bash
# Hostile clients, files and peers: none wedges the sidecar, blinds its probes, makes it delete or
# replace what is not its own, or writes its log.
#  1. a master.command whose --helpxml never answers (or closes its output and stays): -n and the
#     start go on within the question's deadline, and the child is killed with its group;
#  2. slowloris: tests/integration/slowloris.sh (in the slow set);
#  3. a symbolic link in the snapshot directory, where the put-back and the keeping of the last good
#     snapshot would remove a directory: what it points to is left whole;
#  4. a refused control request whose ?target= carries a line feed and a journald priority: one line;
#  5. a FIFO, and a file over 2 MiB, at the configuration's path at a reload: refused at once, the
#     loop free (/livez answers);
#  6. a Redis that announces a 512 MB answer to HMGET: refused at its length line, the memory flat;
#  7. a regular file at admin.control_socket: -n and the start refuse it, and it stays;
#  8. unknown Basic users flooding the bcrypt queue: each real user not yet remembered is served;
#  9. a request head of every size around the 3.5 KiB limit is answered (200 or 431); 405, 413 and
#     400 on /control are audited; a master.env string the kernel would refuse fails -n and a
#     reload; a malformed /sd report is said and counted.
. "$(dirname "$0")/lib.sh"
export MC_STANDIN_START_DELAY_MS=100
code() { curl -s -m 5 -o /dev/null -w '%{http_code}' "http://127.0.0.1:$SIDE$1" "${@:2}"; }
# master_command NAME PATH: the master of config NAME is PATH instead of the stand-in
master_command() { sed -i "s|\"command\": \\[\"$STANDIN\"\\]|\"command\": [\"$2\"]|" "$T/$1.json"; }

# ---- 1. a --helpxml that never answers
cat >"$T/hung-master" <<EOF
#!/bin/sh
case " \$* " in *" --helpxml "*)
	echo "\$HELPXML \$\$" >>"$T/asked.pids"
	[ "\$HELPXML" = closes ] && exec >&-
	exec sleep 600 ;;
esac
exec "$STANDIN" "\$@"
EOF
chmod +x "$T/hung-master"
new_ports
write_config hung
master_command hung "$T/hung-master"
for mode in silent closes; do	# both at once: each waits out the question's deadline
	( t0=$(now_ms); HELPXML=$mode timeout 20 "$SIDECAR" -n -c "$T/hung.json" >"$T/n-$mode.out" 2>&1
	  echo "$? $(( $(now_ms) - t0 ))" >"$T/n-$mode.rc" ) &
	NS+=($!)
done
wait "${NS[@]}"
for mode in silent closes; do
	read -r RC took <"$T/n-$mode.rc"
	[ "$RC" -eq 0 ] && [ "$took" -lt 8000 ] || fail "-n with a --helpxml that $mode: exit $RC after $took ms: $(cat "$T/n-$mode.out")"
	grep -q "master.command: cannot ask $T/hung-master for its flags (it did not" "$T/n-$mode.out" ||
	    fail "-n does not say why the flags were not checked: $(cat "$T/n-$mode.out")"
	p=$(awk -v m="$mode" '$1 == m { p = $2 } END { print p }' "$T/asked.pids")
	wait_for 2 dead "$p" || fail "the --helpxml child $p ($mode) was left running"
done
pass "-n with a --helpxml that never answers, and one that closes its output and stays: done in under 8 s, the question's deadline said, the child killed"
HELPXML=silent start_sidecar hung
wait_for 10 eval '[ "$(code /livez)" = 200 ]' || fail "no admin port with a hung --helpxml: $(tail -5 "$SC_OUT")"
wait_for 10 notified 'READY=1' || fail "the master was not started after the hung --helpxml: $(tail -5 "$SC_OUT")"
p=$(awk '{ p = $2 } END { print p }' "$T/asked.pids")
dead "$p" || fail "the start left the --helpxml child $p running"
kill -TERM "$SC_PID"; wait "$SC_PID" 2>/dev/null
pass "a start with that master: the admin port answers and the master runs within the deadline"

up a

# ---- 9a. a request head of every size around the limit gets an answer
for n in $(seq 3300 40 4300); do
	c=$(code /livez -H "X-Big: $(head -c "$n" /dev/zero | tr '\0' a)")
	case $c in 200|431) ;; *) fail "a $n-byte header got $c" ;; esac
done
[ "$(code /livez -H "X-Big: $(head -c 3300 /dev/zero | tr '\0' a)")" = 200 ] &&
    [ "$(code /livez -H "X-Big: $(head -c 3650 /dev/zero | tr '\0' a)")" = 431 ] || fail "the 3.5 KiB limit moved"
pass "request heads of 3.4 to 4.4 KB: each answered, 200 up to 3584 bytes, 431 above"

# ---- 4 and 9b. refused control requests: audited, one line each
FORGED='%0A<5>control:%20stop%20master%20by%20token:%20ok%20(200):%20forged'
[ "$(code "/control/stop?target=$FORGED" -X POST)" = 403 ] || fail "control over the network without admin.auth"
grep -aq '^<5>control: stop master by token' "$SC_OUT" && fail "a forged line in the log: $(grep -a 'forged' "$SC_OUT")"
grep -aq 'control: stop \\n<5>control: stop master by token: ok (200): forged by anonymous: refused (403)' "$SC_OUT" ||
    fail "the refusal is not one escaped line: $(grep -a 'forged' "$SC_OUT")"
SOCK=$T/a/control-localhost.sock
local_code() { curl -s -m 5 -o /dev/null -w '%{http_code}' --unix-socket "$SOCK" "http://localhost$1" "${@:2}"; }
[ "$(code /control/stop)" = 405 ] && [ "$(local_code /control/stop -X POST -d x)" = 413 ] &&
    [ "$(local_code '/control/stop?target=%01' -X POST)" = 400 ] || fail "405, 413, 400 on /control"
for c in 405 413 400; do
	grep -aq "control: stop.* by [a-z0-9:]*: [a-z]* ($c)" "$SC_OUT" || fail "the $c on /control is not audited: $(grep -a 'control:' "$SC_OUT")"
done
n=$(curl -s "http://127.0.0.1:$SIDE/metrics" | awk '/^mooncake_sidecar_control_actions_total\{action="stop",.*outcome="(refused|invalid)"/ { n += $2 } END { print n + 0 }')
[ "$n" -ge 4 ] || fail "the refusals are not counted: $n"
pass "a ?target= with a line feed and a journald priority is logged escaped, on one line; 405, 413 and 400 on /control are audited and counted like 401 and 403"

# ---- 5. a FIFO, then a file over 2 MiB, at the configuration's path at a reload
mv "$T/a.json" "$T/a.json.good"
mkfifo "$T/a.json"
kill -HUP "$SC_PID"
wait_for 5 grep_q "$SC_OUT" "reload: $T/a.json: not a regular file" || fail "a FIFO at the config path: $(tail -3 "$SC_OUT")"
[ "$(code /livez)" = 200 ] || fail "/livez after a reload from a FIFO"
rm "$T/a.json"
head -c 3000000 /dev/zero | tr '\0' ' ' >"$T/a.json"
kill -HUP "$SC_PID"
wait_for 5 grep_q "$SC_OUT" "reload: $T/a.json: larger than 2097152 bytes" || fail "a 3 MB config: $(tail -3 "$SC_OUT")"
[ "$(code /livez)" = 200 ] || fail "/livez after a reload of a 3 MB config"
mv "$T/a.json.good" "$T/a.json"
pass "a FIFO and a 3 MB file at the configuration's path: each reload refused at once, naming why; /livez answered"

# ---- 9c. a master.env string the kernel would refuse
python3 - "$T/a.json" "$T/big.json" <<'PY'
import json, sys
c = json.load(open(sys.argv[1])); c["master"]["env"] = {"BIG": "x" * 140000}
json.dump(c, open(sys.argv[2], "w"))
PY
"$SIDECAR" -n -c "$T/big.json" >"$T/n.out" 2>&1; RC=$?
[ "$RC" -eq 78 ] && grep -q 'master.env.BIG: 140004 bytes; the kernel refuses' "$T/n.out" || fail "-n on a 140 KB env value: $RC $(cut -c1-300 "$T/n.out")"
cp "$T/a.json" "$T/a.json.good"
cp "$T/big.json" "$T/a.json"
kill -HUP "$SC_PID"
wait_for 5 grep_q "$SC_OUT" 'reload: master.env.BIG: 140004 bytes' || fail "the reload took a 140 KB env value: $(tail -3 "$SC_OUT" | cut -c1-300)"
mv "$T/a.json.good" "$T/a.json"
alive "$(master_pid a)" || fail "the master is not running after the refused reload"
pass "a master.env value over the kernel's 128 KiB per string: -n exit 78 and the reload refused, naming master.env.BIG"
finish_one() { kill -TERM "$1"; wait "$1" 2>/dev/null; }
finish_one "$SC_PID"

# ---- 3. symbolic links in the snapshot directory
SNAP=$T/snap
PARTS="descriptor.txt manifest.txt metadata segments task_manager"
snapdir() { mkdir -p "$1"; for f in $PARTS; do echo data >"$1/$f"; done; }
victim() { mkdir -p "$1"; echo precious >"$1/precious"; for f in $PARTS; do echo theirs >"$1/$f"; done; }
intact() { [ "$(cat "$1/precious" 2>/dev/null)" = precious ] && [ "$(ls "$1" | wc -l)" = 6 ]; }
CAT=$SNAP/mooncake_master_snapshot/mooncake_cluster
# the put-back: the last good one is s0; the master's s0 is a link to someone else's directory
victim "$T/victimA"
snapdir "$SNAP/last-good/s0"
mkdir -p "$CAT"
ln -s "$T/victimA" "$CAT/s0"
new_ports
write_config w '"snapshot": { "enabled": true, "dir": "'"$SNAP"'", "interval_s": 60 }'
start_sidecar w
wait_for 10 notified 'READY=1' || fail "w: no READY=1: $(tail -3 "$SC_OUT")"
intact "$T/victimA" || fail "the put-back removed files through $CAT/s0: $(ls -la "$T/victimA")"
grep -aq "mooncake_master: $CAT/s0 is not a directory the sidecar made (a symbolic link): left as it is" "$SC_OUT" ||
    fail "the link is not said: $(grep -a mooncake_master "$SC_OUT" | tail -3)"
finish_one "$SC_PID"
# keeping the last good one: an older one in last-good/ is a link to someone else's directory
rm -rf "$SNAP"
victim "$T/victimB"
mkdir -p "$SNAP/last-good"
ln -s "$T/victimB" "$SNAP/last-good/s1"
snapdir "$CAT/s2"
cat >"$T/snap-master" <<EOF
#!/bin/sh
case " \$* " in *" --helpxml "*|*" --version "*) exec "$STANDIN" "\$@" ;; esac
echo "I1207 00:00:00.000000 1 snapshot.cpp:1] [Snapshot] Child process successfully persisted state child_pid=2 snapshot_id=s2, took 1 ms"
exec "$STANDIN" "\$@"
EOF
chmod +x "$T/snap-master"
new_ports
write_config w2 "\"snapshot\": { \"enabled\": true, \"dir\": \"$SNAP\", \"interval_s\": 60 }"
master_command w2 "$T/snap-master"
start_sidecar w2
wait_for 10 notified 'READY=1' || fail "w2: no READY=1: $(tail -3 "$SC_OUT")"
wait_for 10 eval '[ "$(adm /status | "$TESTKIT" json-get /dev/stdin master.snapshot.last_good.id 2>/dev/null)" = s2 ]' ||
    fail "s2 not kept: $(adm /status | "$TESTKIT" json-get /dev/stdin master.snapshot)"
intact "$T/victimB" || fail "keeping s2 removed files through last-good/s1: $(ls -la "$T/victimB")"
[ -L "$SNAP/last-good/s1" ] && [ -f "$SNAP/last-good/s2/metadata" ] || fail "last-good/: $(ls -la "$SNAP/last-good")"
finish_one "$SC_PID"
pass "a link at the master's snapshot and one in last-good/: neither is followed (the put-back refused and said, s2 kept beside the link), what they point to is whole"

# ---- 6. a Redis that announces 512 MB
cat >"$T/bigredis.py" <<'PY'
import socket, sys, threading
srv = socket.socket(); srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
srv.bind(("127.0.0.1", int(sys.argv[1]))); srv.listen(16)
print("ready", flush=True)
def serve(c):
    buf = b""
    try:
        while True:
            d = c.recv(65536)
            if not d:
                return
            buf += d
            if b"HMGET" in buf:   # a bulk string announced at 512 MB, and its bytes, a MiB at a time
                c.sendall(b"*2\r\n$536870912\r\n")
                for _ in range(512):
                    c.sendall(b"a" * (1 << 20))
                return
    except OSError:
        pass
    finally:
        c.close()
while True:
    c, _ = srv.accept()
    threading.Thread(target=serve, args=(c,), daemon=True).start()
PY
RPORT=$("$TESTKIT" freeports 1)
python3 "$T/bigredis.py" "$RPORT" >"$T/redis.out" 2>&1 &
STARTED+=($!)
wait_for 10 grep_q "$T/redis.out" ready || fail "the fake Redis did not start"
new_ports
write_config r '"address": "127.0.0.1", "ha": { "backend": "redis://127.0.0.1:'"$RPORT"'", "snapshot_dir": "'"$T/rsnap"'" }'
MC_STANDIN_ROLE=leader SIDECAR_ARGS=-v start_sidecar r	# -v: the learn's failure is a debug line
wait_for 15 grep_q "$SC_OUT" 'a bulk string of 536870912 bytes: more than the answer to this question can be (4096 bytes)' ||
    fail "the 512 MB answer was not refused at its length: $(grep -a Redis "$SC_OUT" | tail -3)"
hwm=$(awk '/^VmHWM/ { print $2 }' "/proc/$SC_PID/status")
[ "$hwm" -lt 65536 ] || fail "the sidecar's peak memory is $hwm kB after the 512 MB answer"
[ "$(code /livez)" = 200 ] || fail "/livez after the Redis answers"
finish_one "$SC_PID"
pass "a Redis answering HMGET with a 512 MB bulk string: refused at its length line, peak memory $((hwm / 1024)) MiB"

# ---- 7. a regular file at admin.control_socket
new_ports
echo "the operator's" >"$T/opfile"
write_config cs '"address": "127.0.0.1"' '"admin": { "listen": "127.0.0.1:@SIDE@", "control_socket": "'"$T/opfile"'" }'
"$SIDECAR" -n -c "$T/cs.json" >"$T/n.out" 2>&1; RC=$?
[ "$RC" -eq 78 ] && grep -q "admin.control_socket: $T/opfile exists and is not a socket (a regular file): the sidecar does not replace it" "$T/n.out" ||
    fail "-n on a file at admin.control_socket: $RC $(cat "$T/n.out")"
"$SIDECAR" -c "$T/cs.json" >"$T/cs.out" 2>&1; RC=$?
[ "$RC" -eq 78 ] && [ "$(cat "$T/opfile")" = "the operator's" ] || fail "the start: exit $RC, file: $(ls -la "$T/opfile")"
pass "a regular file at admin.control_socket: -n and the start exit 78 naming it, and the file is left as it was"
# a FIFO at admin.auth.bearer_token_file: refused at once, never a read that waits for a writer
mkfifo "$T/token.fifo"
write_config tf '"address": "127.0.0.1"' '"admin": { "listen": "127.0.0.1:@SIDE@", "auth": { "bearer_token_file": "'"$T/token.fifo"'" } }'
timeout 10 "$SIDECAR" -n -c "$T/tf.json" >"$T/n.out" 2>&1; RC=$?
[ "$RC" -eq 78 ] && grep -q "admin.auth.bearer_token_file: $T/token.fifo: not a regular file" "$T/n.out" ||
    fail "-n on a FIFO as the token file: exit $RC: $(cat "$T/n.out")"
pass "a FIFO as admin.auth.bearer_token_file: -n exit 78 at once, naming it"

# ---- 8. unknown Basic users flood the bcrypt queue
USERS=""
for i in 0 1 2 3 4 5 6 7 8 9; do
	USERS="$USERS${USERS:+, }\"user$i\": \"$("$TESTKIT" bcrypt 10 "pw$i")\""
done
new_ports
write_config b '"address": "127.0.0.1"' '"admin": { "listen": "127.0.0.1:@SIDE@", "auth": { "basic_auth_users": { '"$USERS"' } } }'
start_sidecar b
wait_for 10 notified 'READY=1' || fail "b: no READY=1"
touch "$T/flood.on"
# 48 clients in one process, each asking again as soon as it is answered, each as its own unknown user
python3 - "$SIDE" "$T/flood.on" <<'FLOOD' &
import base64, http.client, os, sys, threading
port, on = int(sys.argv[1]), sys.argv[2]
def client(i):
    auth = "Basic " + base64.b64encode(("nobody%d:guess" % i).encode()).decode()
    while os.path.exists(on):
        try:
            c = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
            c.request("GET", "/status", headers={"Authorization": auth})
            c.getresponse().read()
            c.close()
        except OSError:
            pass
for i in range(48):
    threading.Thread(target=client, args=(i,), daemon=True).start()
while os.path.exists(on):
    threading.Event().wait(0.1)
FLOOD
STARTED+=($!)
wait_for 10 eval '[ "$(grep -c "refused (503)" "$SC_OUT" 2>/dev/null)" -gt 0 ] || [ "$(code /status -u nobody:x)" = 503 ]' ||
    fail "the unknown users do not fill their queue"
ok=0
for i in 0 1 2 3 4 5 6 7 8 9; do
	c=$(code /status -u "user$i:pw$i")
	[ "$c" = 200 ] && ok=$((ok + 1))
done
rm -f "$T/flood.on"
[ "$ok" = 10 ] || fail "real users not yet remembered served $ok of 10 times while unknown users flooded"
pass "48 clients of unknown Basic users flooding: each of 10 real users not yet remembered served (10 of 10)"
finish_one "$SC_PID"

# ---- 9d. a malformed /sd report
new_ports
write_config sd '"address": "127.0.0.1"'
python3 - "$T/sd.json" <<'PY'
import json, sys
c = json.load(open(sys.argv[1])); c["job"]["nodes"] = "localhost,peer1"
json.dump(c, open(sys.argv[1], "w"))
PY
start_sidecar sd
wait_for 10 notified 'READY=1' || fail "sd: no READY=1: $(tail -3 "$SC_OUT")"
for i in 1 2 3; do curl -s -m 5 -o /dev/null "http://127.0.0.1:$SIDE/endpoints?node=peer1&sd=not-a-report"; done
n=$(sidecar_metric "$SIDE" mooncake_sidecar_sd_reports_refused_total)
[ "$n" = 3 ] && [ "$(grep -ac '/sd: the report of node peer1 is refused' "$SC_OUT")" = 1 ] ||
    fail "a malformed /sd report: counted $n, said $(grep -ac '/sd: the report' "$SC_OUT") times"
pass "a malformed /sd report: counted each time (3), said once"
finish
