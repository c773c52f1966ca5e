#!/bin/bash
# The unit file passes systemd-analyze verify with nothing on stderr (it exits 0 on settings it
# ignores), and every example config in conf/ passes -n.
. "$(dirname "$0")/lib.sh"
bash "$top_srcdir/scripts/deps.sh" systemd man-db >/dev/null || fail "cannot install systemd (for systemd-analyze)"
sed "s|^\(Exec[A-Za-z]*\)=/usr/local/sbin/mooncake-sidecar|\1=$SIDECAR|" "$top_srcdir/systemd/mooncake-sidecar.service" \
    >"$T/mooncake-sidecar.service"
# Documentation=man:mooncake-sidecar(8) is looked up too: the page in the source tree.
MANPATH=$top_srcdir/doc systemd-analyze verify "$T/mooncake-sidecar.service" >"$T/verify.out" 2>"$T/verify.err"; RC=$?
[ "$RC" -eq 0 ] && [ ! -s "$T/verify.err" ] || fail "systemd-analyze verify: exit $RC: $(cat "$T/verify.err")"
for k in 'Type=notify' 'NotifyAccess=main' 'WatchdogSec=' 'Restart=on-failure' 'KillMode=mixed' 'TimeoutStopSec=' \
    'EnvironmentFile=-/etc/default/mooncake-sidecar' 'NoNewPrivileges=yes' 'ProtectSystem=strict' 'DynamicUser=yes' 'CapabilityBoundingSet=$' 'SystemCallFilter=@system-service' \
    'ProtectHome=yes' 'PrivateTmp=yes' 'RestrictAddressFamilies=' 'LimitNOFILE=' 'ExecReload=[^ ]*mooncake-sidecar ctl reload'; do
	grep -q "^$k" "$T/mooncake-sidecar.service" || fail "the unit lacks $k"
done
pass "systemd-analyze verify: clean; Type=notify, watchdog, restart, KillMode=mixed, ExecReload (ctl reload), hardening all present"
# where the examples' mooncake_master is installed (-n refuses a master binary it cannot find)
mkdir -p "$T/bin"
ln -s "$STANDIN" "$T/bin/mooncake_master"
for f in "$top_srcdir"/conf/*.json; do
	OUT=$(PATH=$T/bin:$PATH MOONCAKE_MASTER_BIN=/bin/true "$SIDECAR" -n -c "$f" 2>&1) || fail "$(basename "$f"): $OUT"
done
pass "every example in conf/ passes -n ($(ls "$top_srcdir"/conf/*.json | wc -l) files)"
man -l "$top_srcdir/doc/man8/mooncake-sidecar.8" 2>"$T/man.err" | grep -q 'SIGNALS' && [ ! -s "$T/man.err" ] ||
    fail "man page: $(cat "$T/man.err")"
pass "the man page renders without warnings"
finish
