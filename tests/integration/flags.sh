#!/bin/bash
# The master's flags checked against the binary: -n (and the start) ask master.command for its flags
# (--helpxml, --version), refuse a flag it does not know or a value of the wrong type naming the key,
# the flag and the version, and keep the answer cached by the binary's path, size and mtime (asked
# again when the binary changes). A command that cannot be asked is a warning, not an error. (On
# the real mooncake_master: real_master.sh.)
. "$(dirname "$0")/lib.sh"
export XDG_CACHE_HOME=$T/cache
unset CACHE_DIRECTORY

# conf NAME COMMAND EXTRA_ARGS: a config whose master is COMMAND (a JSON string) with EXTRA_ARGS.
conf() {
	new_ports
	write_config "$1" '"extra_args": ['"$3"']'
	sed -i "s|\"command\": \\[\"$STANDIN\"\\]|\"command\": [$2]|" "$T/$1.json"
}
check() { OUT=$("$SIDECAR" -n -c "$T/$1.json" 2>&1); RC=$?; }

# A binary that counts how often it is asked, in front of the stand-in.
ASKED=$T/asked
cat >"$T/master" <<EOF
#!/bin/sh
echo "\$1" >>"$ASKED"
exec "$STANDIN" "\$@"
EOF
chmod +x "$T/master"

conf bad "\"$T/master\"" '"--rpc_address=127.0.0.1", "--metrics_hostname=127.0.0.1", "--client_ttl", "ten"'
check bad
[ "$RC" = 78 ] || fail "-n accepted flags the binary does not know (exit $RC): $OUT"
grep -q "master.extra_args\[1\]: --metrics_hostname=127.0.0.1: master 0.3.12.post1 at $T/master has no flag \"metrics_hostname\"" <<<"$OUT" &&
    grep -q "master.extra_args\[2\]: --client_ttl: \"ten\" is not an int64 (the type of --client_ttl in master 0.3.12.post1 at $T/master)" <<<"$OUT" ||
    fail "the errors do not name the key, the flag and the version: $OUT"
pass "-n refuses an unknown flag and a value of the wrong type, naming key, flag and version: $(grep -m1 metrics_hostname <<<"$OUT")"
[ "$(grep -c . "$ASKED")" = 2 ] || fail "the binary was not asked once for each of --helpxml and --version: $(cat "$ASKED")"
check bad
[ "$RC" = 78 ] && [ "$(grep -c . "$ASKED")" = 2 ] || fail "the second -n asked the binary again: $(cat "$ASKED")"
touch -d '1 minute ago' "$T/master"
check bad
[ "$RC" = 78 ] && [ "$(grep -c . "$ASKED")" = 4 ] || fail "a changed binary (mtime) was not asked again: $(cat "$ASKED")"
pass "asked once ($(sort -u "$ASKED" | tr '\n' ' ')), cached under $(ls "$XDG_CACHE_HOME/mooncake-sidecar"), asked again when the binary changed"

conf good "\"$T/master\"" '"--rpc_address=127.0.0.1", "--metrics_host=127.0.0.1", "--client_ttl=20", "--noenable_ha", "-v", "1"'
check good
[ "$RC" = 0 ] || fail "-n refused flags the binary takes (exit $RC): $OUT"
XDG_CACHE_HOME=/proc/no-cache start_sidecar good	# no cache directory it can write, as in the shipped unit
wait_for 10 notified READY=1 || fail "a master with valid flags did not start: $(tail -3 "$SC_OUT")"
pass "valid flags (=value, a separate value, --noflag, a short -v) pass -n and start"

# A reload runs in the loop and never runs the binary: it checks against the flags asked at the
# start (kept in memory, no cache directory needed). A binary not asked then (here: changed since)
# goes unchecked, with a warning, and the reload applies.
reload() { curl -s --unix-socket "$T/good/control-localhost.sock" -X POST http://localhost/control/reload -w ' %{http_code}'; }
n=$(grep -c -- --helpxml "$ASKED")
sed -i 's|"--client_ttl=20"|"--client_ttl=20", "--metrics_hostname=x"|' "$T/good.json"
OUT=$(reload)
case $OUT in *'"outcome":"invalid"'*'--metrics_hostname=x: master 0.3.12.post1 at '"$T/master"' has no flag'*' 422') ;; *) fail "reload of a flag the binary does not know: $OUT" ;; esac
[ "$(grep -c -- --helpxml "$ASKED")" = "$n" ] || fail "the reload ran the binary"
sed -i 's|"--client_ttl=20", "--metrics_hostname=x"|"--client_ttl=30"|' "$T/good.json"
touch -d '2 minutes ago' "$T/master"
OUT=$(reload)
case $OUT in *'"outcome":"ok"'*'"restarted":["mooncake_master"]'*' 200') ;; *) fail "reload with a changed binary: $OUT" ;; esac
grep -q "reload: master.command: cannot ask $T/master for its flags (this binary is not the one the sidecar asked at its start, and a reload does not run it): its arguments are not checked" "$SC_OUT" &&
    [ "$(grep -c -- --helpxml "$ASKED")" = "$n" ] || fail "the reload asked the binary, or did not say it did not: $(grep reload: "$SC_OUT")"
runs_with() { tr '\0' ' ' <"/proc/$(master_pid good)/cmdline" 2>/dev/null | grep -q -- "$1"; }
wait_for 10 runs_with --client_ttl=30 ||
    fail "the master was not restarted with --client_ttl=30"
kill_quiet "$SC_PID"
pass "a reload checks against the flags asked at the start without a cache directory (422 for an unknown flag); a binary changed since: not run (--helpxml asked $n times before and after), a warning in the log, the reload applied"

# At start too: refused before anything is started, exit 78.
conf start "\"$T/master\"" '"--metrics_hostname=x"'
start_sidecar start
wait "$SC_PID"
RC=$?
[ "$RC" = 78 ] && grep -q 'master.extra_args\[0\]: --metrics_hostname=x' "$SC_OUT" && [ ! -e "$T/start/mooncake_master.pid" ] ||
    fail "the start did not refuse the flag (exit $RC): $(cat "$SC_OUT")"
pass "the start refuses it too (exit 78) and starts nothing"

# master.check_flags false: not asked.
conf off "\"$T/master\"" '"--metrics_hostname=x"'
sed -i 's|"command":|"check_flags": false, "command":|' "$T/off.json"
n=$(grep -c . "$ASKED")
check off
[ "$RC" = 0 ] && [ "$(grep -c . "$ASKED")" = "$n" ] || fail "master.check_flags false: exit $RC, asked $(($(grep -c . "$ASKED") - n)) times: $OUT"
pass "master.check_flags false: the binary is not asked"

# A command that is not a gflags program: warned, not refused.
conf sh '"/bin/true"' '"--whatever"'
check sh
[ "$RC" = 0 ] && grep -q "warning: master.command: cannot ask /bin/true for its flags (not gflags' --helpxml (no <AllFlags>)): its arguments are not checked" <<<"$OUT" ||
    fail "a command that cannot be asked: exit $RC: $OUT"
pass "a command that is not a gflags program: a warning, not checked"

finish
