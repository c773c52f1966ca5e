#!/bin/bash
# The children's logs: in job.log_dir (apart from the run directory that systemd removes at stop),
# rotated by the sidecar at log.max_bytes into name.log.1 .. name.log.<keep>, nothing lost at a
# rotation (the sidecar owns the pipe), the oldest dropped; SIGHUP reopens them.
. "$(dirname "$0")/lib.sh"
new_ports
L=$T/logs
# a worker that writes numbered lines, 100 bytes each: 12,000 of them is 1.2 MB
write_config g '"address": "127.0.0.1"' '"log": { "max_bytes": 200000, "keep": 3 },
  "workers": { "flavor": "generic", "groups": [ { "role": "agg", "count": 1, "gpus": 1,
    "command": ["/bin/sh", "-c", "i=0; while [ $i -lt 12000 ]; do printf \"%099d\\n\" $i; i=$((i+1)); done; echo done; exec sleep 100000"] } ] }'
sed -i 's|"run_dir": "\([^"]*\)" }|"run_dir": "\1", "log_dir": "'"$L"'", "gpus_per_node": 1 }|' "$T/g.json"
start_sidecar g
wait_for 10 notified 'READY=1' || fail "no READY=1"
W=$L/localhost_agg_w0.log
done_() { grep -q '^done$' "$W" 2>/dev/null; }
wait_for 30 done_ || fail "the worker's output did not reach $W: $(ls -l "$L" 2>&1)"
[ -f "$L/mooncake_master.log" ] && [ ! -e "$T/g/mooncake_master.log" ] && [ ! -e "$T/g/localhost_agg_w0.log" ] ||
    fail "logs not in job.log_dir: $(ls "$L" "$T/g")"
grep -q 'Master admin server started' "$L/mooncake_master.log" || fail "master log"
pass "job.log_dir: the master's and the worker's logs are there, none in the run directory"
for k in 1 2 3; do [ -f "$W.$k" ] || fail "no $W.$k: $(ls "$L")"; done
[ ! -e "$W.4" ] || fail "more than log.keep 3 rotated files: $(ls "$L")"
for f in "$W" "$W.1" "$W.2" "$W.3"; do
	[ "$(stat -c %s "$f")" -le $((200000 + 65536)) ] || fail "$f is $(stat -c %s "$f") bytes"
done
# What is kept is whole and in order: the newest lines, no gap, no split line.
cat "$W.3" "$W.2" "$W.1" "$W" | grep -v '^done$' >"$T/kept"
[ "$(grep -cvx '[0-9]\{99\}' "$T/kept")" -eq 0 ] || fail "a split or foreign line: $(grep -vx '[0-9]\{99\}' "$T/kept" | head -2)"
awk 'NR == 1 { prev = $1 + 0; next } $1 + 0 != prev + 1 { print "gap after " prev; exit 1 } { prev = $1 + 0 }' "$T/kept" ||
    fail "lines lost at a rotation"
[ "$(tail -1 "$T/kept" | sed 's/^0*//')" = 11999 ] || fail "the last line is not the last written"
pass "log.max_bytes 200000, log.keep 3: ${W##*/} and .1 .. .3, each within the limit, $(wc -l <"$T/kept") newest lines whole and without a gap; older dropped"
mv "$L/mooncake_master.log" "$L/mooncake_master.log.old"
kill -HUP "$SC_PID"
wait_for 5 test -f "$L/mooncake_master.log" || fail "SIGHUP did not reopen the master's log"
pass "SIGHUP reopens the logs"
finish
