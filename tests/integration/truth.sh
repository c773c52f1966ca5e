#!/bin/bash
# The files never lie, and the daemon's memory is the truth the disk follows:
#  - run_dir removed, then the master killed: /endpoints, its ETag and /readyz say not ready at once;
#    the write is retried until run_dir is back, then endpoints.json says not ready;
#  - a full tmpfs (ENOSPC): the same, and written once space returns;
#  - mooncake.env cannot be renamed (a directory holds its name): endpoints.json stays not ready on
#    disk while /readyz says why, and everything is written once the obstacle goes;
#  - every signal whose default would end the sidecar is caught; USR1 reopens the logs; QUIT stops
#    at once with the files not ready.
. "$(dirname "$0")/lib.sh"
export MC_STANDIN_START_DELAY_MS=50
etag() { curl -s -D - -o /dev/null "http://127.0.0.1:$SIDE/endpoints" | tr -d '\r' | sed -n 's/^ETag: //Ip'; }
disk_ready() { "$TESTKIT" json-get "$1/endpoints.json" ready 2>/dev/null; }

# 1. run_dir removed, then kill -9 with restart policy never.
up rm '"restart": { "policy": "never" }'
D=$T/rm
[ "$(etag)" = 1-ready ] || fail "etag before: $(etag)"
rm -rf "$D"
T0=$(now_ms)
kill -KILL "$MP"
wait_for 5 is 1-not-ready etag || fail "/endpoints still $(etag) after the master died"
MS=$(( $(now_ms) - T0 ))
[ "$(adm_code /readyz)" = 503 ] || fail "/readyz after the master died"
adm /endpoints | grep -q '"ready": false' || fail "/endpoints body still ready"
wait_for 10 is false disk_ready "$D" || fail "endpoints.json not rewritten not ready after run_dir came back: $(ls "$D" 2>&1)"
pass "run_dir removed + kill -9: /endpoints 1-not-ready $MS ms after the kill, /readyz 503, endpoints.json rewritten not ready in a recreated run_dir"
kill_quiet "$SC_PID"

# 2. A full tmpfs: the write fails with ENOSPC, memory says not ready, disk follows once space returns.
new_ports
write_config fs '"restart": { "policy": "never" }'
mkdir -p "$T/small"
sed -i "s|\"run_dir\": \"$T/fs\"|\"run_dir\": \"$T/small/run\"|" "$T/fs.json"
printf '#!/bin/sh\nexec unshare -m --propagation private sh -c '"'"'mount -t tmpfs -o size=256k tmpfs "$0" && exec "$@"'"'"' "%s" "$@"\n' "$T/small" >"$T/tmpfs.sh"
chmod +x "$T/tmpfs.sh"
SIDECAR_WRAPPER="$T/tmpfs.sh ${SIDECAR_WRAPPER:-}" start_sidecar fs
wait_for 10 notified 'READY=1' || fail "fs: no READY=1"
in_ns() { nsenter -t "$SC_PID" -m -- "$@"; }
in_ns test -f "$T/small/run/endpoints.json" || fail "no endpoints.json on the small tmpfs"
# the pid file goes first: its removal at the master's death would free the page the write needs
FMP=$(in_ns cat "$T/small/run/mooncake_master.pid")
in_ns rm -f "$T/small/run/mooncake_master.pid"
in_ns sh -c "cat /dev/zero >'$T/small/fill' 2>/dev/null; true"
# and keeps it full: the page the sidecar frees by removing the stale endpoints.json is taken at
# once, as on a disk that other writers fill
in_ns sh -c "echo \$\$ >'$T/filler.pid'; while :; do cat /dev/zero >>'$T/small/fill' 2>/dev/null; done" &
wait_for 5 test -s "$T/filler.pid" || fail "the filler did not start"
FILLER=$(cat "$T/filler.pid")
STARTED+=($FILLER)
kill -KILL "$FMP"
wait_for 5 is 1-not-ready etag || fail "/endpoints still $(etag) with the disk full"
# (ENOSPC; this machine's sandboxed kernel reports EIO for a full tmpfs)
wait_for 5 grep -q "files not written (retrying).*\(No space left on device\|Input/output error\)" "$SC_OUT" ||
    fail "the full disk was not reported: $(tail -3 "$SC_OUT")"
adm /status | grep -q '"error": ".*\(No space left on device\|Input/output error\)' || fail "/status does not say the files are not written"
[ "$(in_ns "$TESTKIT" json-get "$T/small/run/endpoints.json" ready 2>/dev/null)" = true ] &&
    fail "a stale ready endpoints.json stayed on the full disk"
kill -KILL "$FILLER"
wait_for 5 dead "$FILLER" || fail "the filler did not stop"
in_ns rm -f "$T/small/fill"
wait_for 10 is false in_ns "$TESTKIT" json-get "$T/small/run/endpoints.json" ready || fail "not written after space came back"
wait_for 5 grep_q "$SC_OUT" "files written again after" || fail "no recovery line"
adm /status | grep -q '"error": null' || fail "/status still reports an error"
pass "ENOSPC: /endpoints not ready at once, /status says why, no stale ready endpoints.json on the full disk (removed when it cannot be rewritten), not ready once space returned"
kill_quiet "$SC_PID"

# 3. mooncake.env cannot be renamed: all or nothing.
new_ports
write_config part
mkdir -p "$T/part/mooncake.env"
start_sidecar part
wait_for 10 grep_q "$SC_OUT" "files not written (retrying)" || fail "the failed rename was not reported"
[ "$(disk_ready "$T/part")" = false ] || fail "endpoints.json says ready although mooncake.env is missing"
[ "$(adm_code /readyz)" = 503 ] && adm /readyz | grep -q 'endpoint files not written' || fail "/readyz: $(adm /readyz)"
notified 'READY=1' && fail "READY=1 before the files were written"
rmdir "$T/part/mooncake.env"
wait_for 10 is true disk_ready "$T/part" || fail "not written once the directory was gone"
test -f "$T/part/mooncake.env" && test -f "$T/part/mooncake_store_config.json" || fail "env or store config missing"
wait_for 5 notified 'READY=1' || fail "no READY=1 after the files were written"
[ "$(adm_code /readyz)" = 200 ] || fail "/readyz after recovery"
pass "a directory named mooncake.env: endpoints.json not ready on disk, /readyz 503 saying why, no READY=1; all written and READY=1 once it is gone"
kill -TERM "$SC_PID"; wait "$SC_PID"
[ "$(disk_ready "$T/part")" = false ] || fail "not ready after a graceful stop"
pass "graceful stop: endpoints.json not ready"

# 5. A master whose child escapes its group (setsid) and takes the RPC port once the master is gone:
# the sidecar kills it before the respawn it blocks; an escaped process is also stopped at exit.
new_ports
{
	echo '#!/bin/sh'
	echo "case \"\$1\" in --helpxml|--version) exec '$STANDIN' \"\$1\";; esac"
	echo "if [ ! -f '$T/escaped' ]; then"
	echo "	touch '$T/escaped'"
	echo "	TESTKIT_HOLD_RETRY_MS=60000 setsid '$TESTKIT' hold $RPC >/dev/null 2>&1 &"
	echo "	echo \$! >'$T/escaped.pid'"
	echo "	setsid sleep 100000 >/dev/null 2>&1 &"
	echo "	echo \$! >'$T/sleeper.pid'"
	echo "fi"
	echo "exec '$STANDIN' \"\$@\""
} >"$T/escaping-master.sh"
chmod +x "$T/escaping-master.sh"
write_config esc
sed -i "s|\"command\": \[\"$STANDIN\"\]|\"command\": [\"$T/escaping-master.sh\"]|" "$T/esc.json"
start_sidecar esc
wait_for 10 notified 'READY=1' || fail "esc: no READY=1"
HOLDER=$(cat "$T/escaped.pid") SLEEPER=$(cat "$T/sleeper.pid")
kill -KILL "$(master_pid esc)"
wait_for 10 grep_q "$SC_OUT" "left by an earlier master, holds the rpc port $RPC: SIGKILL" || fail "the escaped holder was not found: $(tail -5 "$SC_OUT")"
wait_for 10 notified "STATUS=master ready (gen 2," || fail "not ready again after the escaped holder was killed"
dead "$HOLDER" || fail "the escaped port holder lives"
alive "$SLEEPER" || fail "the escaped sleeper is already gone"
kill -TERM "$SC_PID"; wait "$SC_PID"
wait_for 5 dead "$SLEEPER" || fail "an escaped process outlived the sidecar's stop"
grep -q "escaped process pid $SLEEPER (sleep) outlived its parent: SIGTERM" "$SC_OUT" || fail "the stop did not name it"
pass "an escaped holder of the RPC port killed before the respawn it blocked (ready again, gen 2); an escaped sleeper stopped with the sidecar"

# 6. Out of descriptors: the probes' own EMFILE is the sidecar's trouble, never a hung master.
up fd '"liveness_interval_ms": 100, "liveness_failures": 3'
HARD=$(prlimit --pid "$SC_PID" --nofile --noheadings --output HARD)
prlimit --pid "$SC_PID" --nofile=$(( $(ls /proc/"$SC_PID"/fd | wc -l) )):"$HARD" || fail "prlimit"
"$TESTKIT" conns "$SIDE" 20 idle 2 >/dev/null &
STARTED+=($!)
wait_for 10 grep_q "$SC_OUT" "the sidecar's own trouble, not the master's" || fail "EMFILE of a probe not reported as the sidecar's"
wait_for 10 grep_q "$SC_OUT" "admin: cannot accept connections" || fail "accept at the fd limit not reported"
prlimit --pid "$SC_PID" --nofile="$HARD":"$HARD"
wait_for 10 is 200 adm_code /readyz || fail "not serving again after the fd limit was raised"
grep -q 'liveness probe failed\|hung:' "$SC_OUT" && fail "the sidecar's EMFILE counted against the master: $(grep -m1 'liveness probe failed\|hung:' "$SC_OUT")"
[ "$(master_pid fd)" = "$MP" ] || fail "the master was restarted"
pass "at the fd limit: probe EMFILE logged as the sidecar's own trouble, accept paused, no liveness failure counted, master $MP kept"
kill_quiet "$SC_PID"

# 4. Signals.
up sig
for s in USR2 ALRM VTALRM PROF IO PWR XCPU XFSZ STKFLT TRAP TSTP TTIN TTOU $(seq "$(kill -l RTMIN)" "$(kill -l RTMAX)"); do
	kill -"$s" "$SC_PID" || fail "kill -$s"
	kill -"$s" "$SC_PID"
done
wait_for 5 grep_q "$SC_OUT" "ignoring signal $(kill -l RTMAX)" || fail "RTMAX not logged: $(tail -3 "$SC_OUT")"
alive "$SC_PID" && alive "$MP" || fail "a signal ended the sidecar or the master"
[ "$(count "$SC_OUT" 'ignoring signal 12 ')" = 1 ] || fail "USR2 logged $(count "$SC_OUT" 'ignoring signal 12 ') times"
[ "$(adm_code /readyz)" = 200 ] || fail "not ready after the signals"
pass "USR2 ALRM VTALRM PROF IO PWR XCPU XFSZ STKFLT TRAP TSTP TTIN TTOU and every real-time signal, twice each: caught, each logged once, sidecar and master alive"
mv "$T/sig/mooncake_master.log" "$T/sig/mooncake_master.log.1"
kill -USR1 "$SC_PID"
wait_for 5 grep_q "$SC_OUT" "SIGUSR1: reopening log files" || fail "USR1 did not reopen"
wait_for 5 test -f "$T/sig/mooncake_master.log" || fail "the master's log was not reopened"
pass "USR1 reopens the logs like HUP (logrotate)"
T0=$(now_ms)
kill -QUIT "$SC_PID"
wait "$SC_PID"; RC=$?
MS=$(( $(now_ms) - T0 ))
dead "$MP" || fail "the master outlived SIGQUIT"
[ "$(disk_ready "$T/sig")" = false ] || fail "files ready after SIGQUIT"
pass "QUIT: stopped in $MS ms (exit $RC), master gone, endpoints.json not ready"
finish
