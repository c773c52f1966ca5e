#!/bin/bash
# A bad config: every error with its JSON path, exit 78, nothing spawned. -n on a good one: OK, 0.
. "$(dirname "$0")/lib.sh"
new_ports
write_config good
OUT=$("$SIDECAR" -c "$T/good.json" -n 2>&1); RC=$?
[ "$RC" -eq 0 ] && [ "$OUT" = "configuration OK" ] || fail "-n on a good config: $RC $OUT"
pass "-n: configuration OK, exit 0"
cat >"$T/bad.json" <<JSON
{ "master": { "command": ["$STANDIN"], "rpc_port": 70000, "metrics_port": $ADMIN, "bogus": true,
              "restart": { "policy": "sometimes" } },
  "admin": { "listen": "127.0.0.1:$ADMIN" }, "job": { "run_dir": "$T/bad" } }
JSON
OUT=$(MC_STANDIN_EVENTS=$T/events-bad "$SIDECAR" -c "$T/bad.json" 2>&1); RC=$?
[ "$RC" -eq 78 ] || fail "exit $RC, want 78"
for e in "master.rpc_port: must be 1..65535, got 70000" "master.bogus: unknown key" \
    'master.restart.policy: must be one of always, on-failure, never, got "sometimes"' \
    "admin.listen: port $ADMIN is also used by master.metrics_port" "$T/bad.json: 4 errors"; do
	grep -qF -- "$e" <<<"$OUT" || fail "missing error '$e' in: $OUT"
done
pass "bad config: every error with its JSON path, exit 78"
# Not a terminal (journald, a pipe): each line carries its priority, so journalctl -p err shows it.
[ "$(grep -vc '^<3>' <<<"$OUT")" -eq 0 ] || fail "config errors without <3>: $(grep -v '^<3>' <<<"$OUT")"
OUT=$(script -qc "$SIDECAR -c $T/bad.json -n" /dev/null 2>&1)
grep -q '^master.bogus: unknown key' <<<"$(tr -d '\r' <<<"$OUT")" || fail "on a terminal: $OUT"
pass "config errors carry <3> when stderr is not a terminal (and not on one)"
[ ! -e "$T/events-bad" ] && [ ! -d "$T/bad" ] || fail "something was started or created"
pass "nothing spawned, no run directory created"
OUT=$("$SIDECAR" -c "$T/bad.json" -n 2>&1); RC=$?
[ "$RC" -eq 78 ] || fail "-n exit $RC"
pass "-n on the bad config: exit 78"
echo '{"job":' >"$T/broken.json"
OUT=$("$SIDECAR" -c "$T/broken.json" -n 2>&1); RC=$?
[ "$RC" -eq 78 ] && grep -q "$T/broken.json:2:" <<<"$OUT" || fail "syntax error: $RC $OUT"
pass "JSON syntax error: file:line:column, exit 78"
OUT=$("$SIDECAR" -c "$T/missing.json" 2>&1); RC=$?
[ "$RC" -eq 78 ] && grep -q "$T/missing.json: No such file or directory" <<<"$OUT" || fail "missing file: $RC $OUT"
pass "missing config file: named, exit 78"
# A run directory others could write into: its files could be replaced under the workers.
new_ports
write_config unsafe
mkdir -p "$T/unsafe"
chmod 0777 "$T/unsafe"
OUT=$("$SIDECAR" -c "$T/unsafe.json" 2>&1); RC=$?
[ "$RC" -eq 78 ] && grep -q "job.run_dir: $T/unsafe: writable by everyone without the sticky bit (mode 0777)" <<<"$OUT" ||
    fail "world-writable run dir: $RC $OUT"
[ ! -e "$T/unsafe/mooncake_master.pid" ] || fail "a master was started"
pass "a world-writable run directory without the sticky bit: refused, exit 78, nothing started"
# A job larger than the open-file limit can hold: refused at the start, naming LimitNOFILE, not left
# to refuse the followers' connections one by one
new_ports
write_config nofile
sed -i 's/"nodes": "localhost", "node": "localhost"/"nodes": "localhost,n[0001-1000]", "node": "localhost"/' "$T/nofile.json"
OUT=$(ulimit -n 512 && "$SIDECAR" -c "$T/nofile.json" 2>&1); RC=$?
[ "$RC" -eq 78 ] && grep -q "the open-file limit 512 cannot hold a connection from each of this job's 1000 other nodes .*raise it to at least [0-9]* (LimitNOFILE= in the unit" <<<"$OUT" ||
    fail "an open-file limit below job.nodes: $RC $OUT"
[ ! -e "$T/nofile/mooncake_master.pid" ] || fail "a master was started under too small an open-file limit"
pass "job.nodes larger than the open-file limit holds: refused, exit 78, naming LimitNOFILE, nothing started"
# The master binary not installed, the likeliest first failure: -n and the start refuse it, naming
# it (the start used to retry it until fatal); --plan, made anywhere, does not need it.
new_ports
write_config nobin
for cmd in "$T/nowhere/mooncake_master" no-such-mooncake-master; do
	sed -i "s|\"command\": \[\"[^\"]*\"\]|\"command\": [\"$cmd\"]|" "$T/nobin.json"
	OUT=$("$SIDECAR" -n -c "$T/nobin.json" 2>&1); RC=$?
	[ "$RC" -eq 78 ] && grep -q "master.command: $cmd \(does not exist\|is not found on PATH\): install Mooncake" <<<"$OUT" ||
	    fail "-n with master.command $cmd: $RC $OUT"
	OUT=$("$SIDECAR" -c "$T/nobin.json" 2>&1); RC=$?
	[ "$RC" -eq 78 ] && [ ! -e "$T/nobin/mooncake_master.pid" ] || fail "the start with master.command $cmd: $RC $OUT"
done
"$SIDECAR" --plan -c "$T/nobin.json" >/dev/null 2>&1 || fail "--plan needs the master binary"
pass "a master binary not installed (a path that does not exist, a name not on PATH): -n and the start exit 78 naming it; --plan does not need it"
"$SIDECAR" --bogus >/dev/null 2>&1; RC=$?
[ "$RC" -eq 64 ] || fail "unknown option exit $RC"
pass "unknown option: exit 64"
finish
