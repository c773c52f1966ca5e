#!/bin/bash
# The unit under a real systemd as PID 1: systemd boots in new pid, mount, net, uts, ipc and cgroup
# namespaces over a throw-away overlay of / (the host's files are the read-only lower layer; nothing
# is written to them), the sidecar is installed inside as the README says, with the stand-in as
# mooncake_master, and driven with systemctl: start returns after READY=1, a killed master is
# restarted by the sidecar and a killed sidecar by systemd, stop is clean (and kills a master that
# ignores SIGTERM after master.stop_timeout_ms), the watchdog restarts a stopped sidecar, journald
# keeps the priorities, the logs outlive a stop, reload reopens them, and it all runs as an
# unprivileged dynamic user with the exposure systemd-analyze security prints. Only the PID 1 it started is
# killed (its pid namespace dies with it). MCS_SKIP_SYSTEMD_PID1=1 skips it, and says so.
. "$(dirname "$0")/lib.sh"
if [ -n "${MCS_SKIP_SYSTEMD_PID1:-}" ]; then
	echo "$TEST_NAME: SKIPPED because MCS_SKIP_SYSTEMD_PID1 is set"
	exit 77
fi
[ "$(id -u)" -eq 0 ] || fail "needs root (namespaces, mounts, cgroups); MCS_SKIP_SYSTEMD_PID1=1 skips it"
[ -x "$SIDECAR" ] && [ -x "$STANDIN" ] || fail "no $SIDECAR or $STANDIN: build first"
for b in unshare nsenter /lib/systemd/systemd; do
	command -v "$b" >/dev/null || fail "$b not found; MCS_SKIP_SYSTEMD_PID1=1 skips this test"
done
CG=/sys/fs/cgroup/unified
[ -f "$CG/cgroup.procs" ] || CG=/sys/fs/cgroup
[ -f "$CG/cgroup.procs" ] || fail "no cgroup2 hierarchy at /sys/fs/cgroup/unified or /sys/fs/cgroup"
CGROUP=$CG/mcs-pid1-$$
PID1=
teardown() {
	if [ -n "$PID1" ] && [ "$(readlink "/proc/$PID1/ns/pid")" != "$(readlink /proc/self/ns/pid)" ] &&
	    grep -q systemd "/proc/$PID1/cmdline" 2>/dev/null; then
		kill -KILL "$PID1"
		wait_for 10 dead "$PID1"
	fi
	# systemd made its own groups below ours: remove them deepest first.
	rm_groups() { find "$CGROUP" -depth -type d -exec rmdir {} + 2>/dev/null; [ ! -d "$CGROUP" ]; }
	[ -d "$CGROUP" ] && { wait_for 10 rm_groups || echo "$TEST_NAME: could not remove $CGROUP"; }
}
trap 'teardown; cleanup' EXIT

# The root inside: an overlay over /, with the sidecar installed as the README says.
cat >"$T/inner.sh" <<'INNER'
set -e
T=$1 SIDECAR=$2 STANDIN=$3
cut -d' ' -f4 /proc/self/stat >"$T/pid1"	# this shell's pid as the host sees it
O=$T/ovl
mkdir -p "$O"
mount -t tmpfs tmpfs "$O"
mkdir -p "$O/upper" "$O/work" "$O/root"
mount -t overlay overlay -o "lowerdir=/,upperdir=$O/upper,workdir=$O/work" "$O/root"
R=$O/root
mount -t proc proc "$R/proc"
mount --bind "$R/proc/sys" "$R/proc/sys" && mount -o remount,bind,ro "$R/proc/sys"
mount -t sysfs -o ro sysfs "$R/sys"
mount -t cgroup2 cgroup2 "$R/sys/fs/cgroup"
mount -t tmpfs -o mode=755 tmpfs "$R/dev"
for d in null zero full random urandom tty; do touch "$R/dev/$d"; mount --bind "/dev/$d" "$R/dev/$d"; done
mkdir -p "$R/dev/pts" "$R/dev/shm"
mount -t devpts -o newinstance,ptmxmode=0666 devpts "$R/dev/pts"
ln -s pts/ptmx "$R/dev/ptmx"
for d in dev/shm run tmp; do mount -t tmpfs tmpfs "$R/$d"; done
mkdir -p "$R/oldroot" "$R/run/mcs"
mount --bind "$T" "$R/run/mcs"	# the test's directory, for what it hands over and reads back
# Only basic.target and what the test starts: no host wants, the host-only units masked.
find "$R/etc/systemd/system" -name '*.wants' -prune -exec rm -rf {} +
for u in systemd-udevd.service systemd-udevd-control.socket systemd-udevd-kernel.socket \
    systemd-udev-trigger.service systemd-udev-settle.service systemd-sysctl.service \
    systemd-modules-load.service systemd-binfmt.service proc-sys-fs-binfmt_misc.automount \
    systemd-timesyncd.service systemd-pstore.service systemd-random-seed.service \
    systemd-remount-fs.service systemd-hwdb-update.service kmod-static-nodes.service \
    systemd-journald-audit.socket swap.target timers.target getty.target sys-kernel-debug.mount \
    sys-kernel-tracing.mount sys-kernel-config.mount sys-fs-fuse-connections.mount dev-hugepages.mount \
    dev-mqueue.mount systemd-firstboot.service systemd-machine-id-commit.service; do
	ln -sf /dev/null "$R/etc/systemd/system/$u"
done
printf '[Unit]\nDescription=the test target\nRequires=basic.target\nAfter=basic.target\n' \
    >"$R/etc/systemd/system/mcs-test.target"
# The README's install commands, into the overlay.
install -m 0755 "$SIDECAR" "$R/usr/local/sbin/mooncake-sidecar"
install -m 0755 "$STANDIN" "$R/usr/local/bin/mooncake_master"
install -D -m 0644 "$T/sidecar.json" "$R/etc/mooncake-sidecar/sidecar.json"
install -m 0644 "$T/mooncake-sidecar.service" "$R/etc/systemd/system/"
install -m 0644 "$T/mooncake-sidecar.default" "$R/etc/default/mooncake-sidecar"
ip link set lo up 2>/dev/null || true
cd "$R"
pivot_root . oldroot
umount -l /oldroot
exec env container=mcs-test /lib/systemd/systemd --unit=mcs-test.target --log-target=journal
INNER
# The shipped files; the head-node example with a short stop timeout for the SIGTERM-ignoring case.
sed 's/"stop_timeout_ms": 10000/"stop_timeout_ms": 1500/' "$top_srcdir/conf/head-node.json" >"$T/sidecar.json"
grep -q '"stop_timeout_ms": 1500' "$T/sidecar.json" || fail "could not set master.stop_timeout_ms"
cp "$top_srcdir/systemd/mooncake-sidecar.service" "$top_srcdir/systemd/mooncake-sidecar.default" "$T/"

mkdir "$CGROUP" || fail "cannot create $CGROUP"
(
	echo "$BASHPID" >"$CGROUP/cgroup.procs"
	exec unshare -fpmuin -C --propagation private bash "$T/inner.sh" "$T" "$SIDECAR" "$STANDIN"
) >"$T/boot.out" 2>&1 &
STARTED+=($!)
wait_for 10 test -s "$T/pid1" || fail "the namespace did not start: $(cat "$T/boot.out")"
PID1=$(cat "$T/pid1")
in_ns() { nsenter -t "$PID1" -a "$@"; }
booted() { in_ns systemctl is-system-running >"$T/state" 2>&1; grep -qx 'running\|degraded' "$T/state"; }
wait_for 30 booted || fail "systemd did not finish booting: $(cat "$T/state" "$T/boot.out"; in_ns systemctl --failed --no-legend 2>&1 | head)"
pass "systemd 252 booted as PID 1 in its own namespaces ($(cat "$T/state"), host pid $PID1)"
prop() { in_ns systemctl show -p "$1" --value mooncake-sidecar; }
RUN=/run/mooncake-sidecar LOGS=/var/log/mooncake-sidecar
in_file() { in_ns cat "$1" 2>/dev/null; }
master_in() { in_file $RUN/mooncake_master.pid; }

# start: returns once READY=1 is sent, about the master's start time (the stand-in takes 300 ms).
in_ns mkdir -p /etc/systemd/system/mooncake-sidecar.service.d
# (In a sanitizer build, LeakSanitizer cannot stop the process's threads under the unit's system call
# filter and fails the exit; leaks are checked by every other test, not this one.)
printf '[Service]\nEnvironment=MC_STANDIN_START_DELAY_MS=300 ASAN_OPTIONS=detect_leaks=0\n' >"$T/delay.conf"
in_ns cp /run/mcs/delay.conf /etc/systemd/system/mooncake-sidecar.service.d/delay.conf
in_ns systemctl daemon-reload
t0=$(now_ms)
in_ns systemctl start mooncake-sidecar || fail "systemctl start: $(in_ns journalctl -u mooncake-sidecar --no-pager | tail -20)"
START_MS=$(( $(now_ms) - t0 ))
[ "$(prop ActiveState)" = active ] && [ "$(prop SubState)" = running ] || fail "not active: $(prop ActiveState)/$(prop SubState)"
STATUS=$(prop StatusText)
case $STATUS in "master ready (gen 1, pid "*", 0 restarts)") ;; *) fail "StatusText at return: $STATUS" ;; esac
[ "$START_MS" -ge 300 ] || fail "systemctl start returned in $START_MS ms, before the master could be ready"
pass "systemctl start returned after READY=1 in $START_MS ms (master start 300 ms); StatusText \"$STATUS\""
SPID=$(prop MainPID)
[ "$(prop WatchdogUSec)" = 30s ] && [ "$SPID" -gt 1 ] || fail "MainPID $SPID, WatchdogUSec $(prop WatchdogUSec)"
in_file $RUN/endpoints.json >"$T/ep.json"
grep -q '"ready": true' "$T/ep.json" && in_ns test -s $RUN/mooncake.env && in_ns test -s $RUN/mooncake_store_config.json ||
    fail "files in the RuntimeDirectory: $(in_ns ls -l $RUN)"
in_ns curl -s http://127.0.0.1:9103/status >"$T/status.json"
grep -q '"state": "ready"' "$T/status.json" || fail "/status inside: $(cat "$T/status.json")"
pass "MainPID $SPID, WatchdogUSec 30s; endpoint files ready in $RUN; /status over loopback inside says ready"
uid_of() { in_ns awk '/^Uid:/ { print $2 }' "/proc/$1/status"; }
SUID=$(uid_of "$SPID") MUID=$(uid_of "$(master_in)")
[ -n "$SUID" ] && [ "$SUID" -ne 0 ] && [ "$MUID" = "$SUID" ] || fail "the sidecar runs as uid $SUID, the master as $MUID"
in_ns grep -q '^CapEff:[[:space:]]*0*$' "/proc/$SPID/status" || fail "the sidecar has capabilities: $(in_ns grep Cap "/proc/$SPID/status")"
in_ns systemd-analyze security mooncake-sidecar --no-pager >"$T/security.txt" 2>&1
EXPOSURE=$(sed -n 's/.*Overall exposure level for mooncake-sidecar.service: \([0-9.]*\) \([A-Z]*\).*/\1 \2/p' "$T/security.txt")
[ -n "$EXPOSURE" ] && awk -v e="${EXPOSURE% *}" 'BEGIN { exit !(e <= 3.0) }' ||
    fail "systemd-analyze security: ${EXPOSURE:-no score}: $(tail -5 "$T/security.txt")"
pass "unprivileged: the sidecar and the master run as dynamic uid $SUID with no capabilities; systemd-analyze security: exposure $EXPOSURE"

# kill -9 of the master: the sidecar restarts it; systemd's NRestarts stays 0.
M1=$(master_in)
in_ns kill -KILL "$M1"
regen() { [ "$(prop StatusText)" != "$STATUS" ] && case $(prop StatusText) in "master ready (gen 2, "*) true ;; *) false ;; esac; }
wait_for 10 regen || fail "the master was not restarted: $(prop StatusText)"
[ "$(prop NRestarts)" = 0 ] && [ "$(prop MainPID)" = "$SPID" ] || fail "NRestarts $(prop NRestarts), MainPID $(prop MainPID)"
pass "kill -9 of the master: restarted by the sidecar ($(prop StatusText)), NRestarts 0, same MainPID"
in_ns journalctl -p warning --no-pager -u mooncake-sidecar >"$T/warn.txt"
grep -q "mooncake_master: pid $M1 .*signal 9\|mooncake_master: pid $M1 .*KILL" "$T/warn.txt" ||
    fail "the master's death is not in journalctl -p warning: $(tail -5 "$T/warn.txt")"
pass "journalctl -p warning shows the killed master"

# kill -9 of the sidecar: systemd restarts it after RestartSec; nothing of the old instance is left,
# and the generation goes on from the one the files said.
M2=$(master_in)
in_ns kill -KILL "$SPID"
restarted() { [ "$(prop NRestarts)" = 1 ] && [ "$(prop ActiveState)" = active ] && case $(prop StatusText) in "master ready (gen 3, "*) true ;; *) false ;; esac; }
wait_for 15 restarted || fail "not restarted by systemd: NRestarts $(prop NRestarts), $(prop ActiveState), $(prop StatusText)"
SPID2=$(prop MainPID) M3=$(master_in)
in_ns test -d /proc/"$M2" && fail "the old master $M2 survived its sidecar"
CGPATH=$(prop ControlGroup)
in_ns cat "/sys/fs/cgroup$CGPATH/cgroup.procs" | sort >"$T/procs"
[ "$(tr '\n' ' ' <"$T/procs")" = "$(printf '%s\n' "$SPID2" "$M3" | sort | tr '\n' ' ')" ] ||
    fail "the unit's cgroup holds $(tr '\n' ' ' <"$T/procs"), want the new sidecar $SPID2 and master $M3"
grep -q '"generation": 3' <(in_file $RUN/endpoints.json) || fail "endpoints.json: $(in_file $RUN/endpoints.json)"
pass "kill -9 of the sidecar: restarted by systemd (NRestarts 1), the old master gone, the cgroup holds only the new pair; gen 3 in STATUS= and endpoints.json"

# reload (ExecReload) reopens the children's logs.
in_ns mv $LOGS/mooncake_master.log $LOGS/mooncake_master.log.old
timeout 30 nsenter -t "$PID1" -a systemctl reload mooncake-sidecar || fail "systemctl reload"
wait_for 10 in_ns test -e $LOGS/mooncake_master.log || fail "reload did not reopen the master's log"
pass "systemctl reload reopened the master's log"

# reload applies a changed config: the master's argv changed, so only it restarts; an invalid file
# fails systemctl reload with its errors in the journal and changes nothing.
CONF=/etc/mooncake-sidecar/sidecar.json
M4=$(master_in) GEN=$(sed -n 's/^master ready (gen \([0-9]*\),.*/\1/p' <<<"$(prop StatusText)")
in_ns sed -i 's/--default_kv_lease_ttl=10000/--default_kv_lease_ttl=20000/' $CONF
timeout 30 nsenter -t "$PID1" -a systemctl reload mooncake-sidecar || fail "systemctl reload of a changed config: $(in_ns journalctl -u mooncake-sidecar --no-pager | tail -5)"
newgen() { case $(prop StatusText) in "master ready (gen $((GEN + 1)), "*) true ;; *) false ;; esac; }
wait_for 10 newgen || fail "the master was not restarted by the reload: $(prop StatusText)"
M5=$(master_in)
[ "$M5" != "$M4" ] && in_ns cat "/proc/$M5/cmdline" | tr '\0' ' ' | grep -q -- '--default_kv_lease_ttl=20000' ||
    fail "the new master $M5 does not run the new flag: $(in_ns cat "/proc/$M5/cmdline" | tr '\0' ' ')"
in_ns journalctl -u mooncake-sidecar --no-pager -o cat | grep -q 'control: reload by uid:'"$SUID"': ok' ||
    fail "no audit line for the reload: $(in_ns journalctl -u mooncake-sidecar --no-pager -o cat | grep control: | tail -3)"
in_ns sed -i 's/"metrics_port": 9003/"metrics_port": "x"/' $CONF
timeout 30 nsenter -t "$PID1" -a systemctl reload mooncake-sidecar 2>"$T/reload.err" && fail "systemctl reload of an invalid config succeeded"
in_ns journalctl -u mooncake-sidecar --no-pager -o cat | grep -q 'master.metrics_port' ||
    fail "the invalid config's error is not in the journal: $(in_ns journalctl -u mooncake-sidecar --no-pager -o cat | tail -5)"
[ "$(master_in)" = "$M5" ] && [ "$(prop ActiveState)" = active ] && newgen || fail "the invalid reload changed something: $(prop StatusText)"
in_ns sed -i 's/"metrics_port": "x"/"metrics_port": 9003/' $CONF
pass "systemctl reload (ExecReload=mooncake-sidecar ctl reload): a changed master flag restarted only the master (gen $((GEN + 1)), audited as uid $SUID); an invalid file failed the reload with its error in the journal, nothing changed"

# stop: the master gets SIGTERM and exits by itself; Result=success; nothing left; logs kept.
M4=$(master_in)
in_ns systemctl stop mooncake-sidecar || fail "systemctl stop"
in_ns journalctl -u mooncake-sidecar --no-pager | grep -q "mooncake_master: pid $M4 exited with code 0" ||
    fail "the master did not exit 0 on stop: $(in_ns journalctl -u mooncake-sidecar --no-pager | grep mooncake_master | tail -3)"
[ "$(prop Result)" = success ] && [ "$(prop ActiveState)" = inactive ] ||
    fail "after stop: $(prop Result) $(prop ActiveState): $(in_ns journalctl -u mooncake-sidecar --no-pager | tail -15)"
in_ns test -d /proc/"$M4" && fail "the master outlived the stop"
grep -q 'Shutdown signal received' <(in_file $LOGS/mooncake_master.log; in_file $LOGS/mooncake_master.log.old) ||
    fail "the master did not get SIGTERM: $(in_file $LOGS/mooncake_master.log | tail -3)"
in_ns test -s $LOGS/mooncake_master.log.old || fail "the logs are gone after stop: $(in_ns ls -l $LOGS)"
pass "systemctl stop: the master got SIGTERM and exited 0, Result=success, nothing left, the logs in $LOGS kept"

# A master that ignores SIGTERM: SIGKILL after master.stop_timeout_ms (1.5 s), inside TimeoutStopSec.
printf '[Service]\nEnvironment=MC_STANDIN_IGNORE_SIGTERM=1\n' >"$T/ignore.conf"
in_ns cp /run/mcs/ignore.conf /etc/systemd/system/mooncake-sidecar.service.d/ignore.conf
in_ns systemctl daemon-reload
in_ns systemctl start mooncake-sidecar || fail "start with a master that ignores SIGTERM"
t0=$(now_ms)
in_ns systemctl stop mooncake-sidecar
STOP_MS=$(( $(now_ms) - t0 ))
[ "$(prop Result)" = success ] || fail "stop of a master that ignores SIGTERM: Result=$(prop Result)"
[ "$STOP_MS" -ge 1500 ] && [ "$STOP_MS" -lt 60000 ] || fail "stop took $STOP_MS ms"
in_ns journalctl -u mooncake-sidecar --no-pager | grep -q 'SIGKILL' || fail "no SIGKILL logged"
in_ns rm /etc/systemd/system/mooncake-sidecar.service.d/ignore.conf
pass "a master ignoring SIGTERM: SIGKILL after master.stop_timeout_ms, stop took $STOP_MS ms (TimeoutStopSec 60 s), Result=success"

# The watchdog: with WatchdogSec=4, a stopped sidecar is killed and restarted by systemd.
printf '[Service]\nWatchdogSec=4\n' >"$T/wd.conf"
in_ns cp /run/mcs/wd.conf /etc/systemd/system/mooncake-sidecar.service.d/wd.conf
in_ns systemctl daemon-reload
in_ns systemctl start mooncake-sidecar || fail "start with WatchdogSec=4"
WPID=$(prop MainPID) N0=$(prop NRestarts)
in_ns kill -STOP "$WPID"
wd() { [ "$(prop NRestarts)" -gt "$N0" ] && [ "$(prop ActiveState)" = active ] && [ "$(prop MainPID)" != "$WPID" ]; }
wait_for 20 wd || fail "the watchdog did not restart it: NRestarts $(prop NRestarts), $(prop ActiveState)"
in_ns journalctl -u mooncake-sidecar --no-pager | grep -q 'Watchdog timeout' || fail "no watchdog timeout in the journal"
in_ns systemctl stop mooncake-sidecar
pass "WatchdogSec=4 and SIGSTOP: systemd's watchdog killed and restarted the sidecar"

# The real mooncake_master (a C++ program) under the same hardening: ready, and a graceful stop.
if [ -n "${MCS_REAL_MASTER:-}" ] && [ -x "$MCS_REAL_MASTER" ]; then
	in_ns ln -sf "$MCS_REAL_MASTER" /usr/local/bin/mooncake_master
	t0=$(now_ms)
	in_ns systemctl start mooncake-sidecar || fail "start with the real master: $(in_ns journalctl -u mooncake-sidecar --no-pager | tail -15)"
	REAL_MS=$(( $(now_ms) - t0 ))
	case $(prop StatusText) in "master ready (gen "*) ;; *) fail "the real master under the unit: $(prop StatusText)" ;; esac
	RM=$(master_in)
	in_ns systemctl stop mooncake-sidecar
	[ "$(prop Result)" = success ] || fail "stop with the real master: $(prop Result)"
	in_ns journalctl -u mooncake-sidecar --no-pager | grep -q "mooncake_master: pid $RM exited with code 0" ||
	    fail "the real master did not exit 0: $(in_ns journalctl -u mooncake-sidecar --no-pager | grep mooncake_master | tail -3)"
	pass "the real mooncake_master under the hardened unit: ready in $REAL_MS ms, graceful stop with exit 0"
else
	[ "${CI:-}" = true ] && fail "no real mooncake_master (MCS_REAL_MASTER) in CI"
	echo "# the real master part is not run: MCS_REAL_MASTER is not set"
fi

# A configuration error reaches journalctl -p err.
in_ns systemd-run --wait --unit=mcs-badconf /usr/local/sbin/mooncake-sidecar -c /nonexistent.json >"$T/run.out" 2>&1
in_ns journalctl -p err -u mcs-badconf --no-pager >"$T/err.txt"
grep -q 'nonexistent.json' "$T/err.txt" || fail "the config error is not under -p err: $(cat "$T/err.txt" "$T/run.out")"
pass "a configuration error (systemd-run mooncake-sidecar -c /nonexistent.json) is under journalctl -p err"
finish
