#!/bin/bash
# Install what is missing, build with ASan+UBSan and -Werror, run every test, print the counts.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
started=$(date +%s)
# phase NAME: prints how long the step since the previous phase took (each suite's time in the run).
last=$started
phase() { local now; now=$(date +%s); echo "time $1: $((now - last)) s"; last=$now; }
bash scripts/deps.sh prometheus prometheus-alertmanager python3 python3-yaml python3-venv iproute2 util-linux redis-server \
    etcd-server || exit 1
# peer VAR LABEL ERRFILE COMMAND...: a test-time peer's path into VAR (exported) unless it is set,
# from COMMAND's last line, said with how long it took (or why it is unavailable, from ERRFILE).
peer() {
	local var=$1 label=$2 err=$3 t0 v
	shift 3
	if [ -z "${!var:-}" ]; then
		t0=$(date +%s)
		v=$("$@" 2>>"$err" | tail -1)
		printf -v "$var" '%s' "$v"
		echo "$label: ${v:-unavailable: $(tail -1 "$err")} ($(( $(date +%s) - t0 )) s)"
	fi
	export "${var?}"
}
rm -f "$top/real-master.err" "$top/wheel-master.err"
# The real mooncake_master: on PATH, or built once from ../shared/mooncake into a cache outside the
# tree (about 9 minutes the first time, seconds after); tests/integration/real_master.sh runs on it.
peer MCS_REAL_MASTER "real master" "$top/real-master.err" bash scripts/real-master.sh
# Mooncake's own store client library, from the same build (tests/integration/real_client.sh).
peer MCS_STORE_LIB "store client library" "$top/real-master.err" bash scripts/real-master.sh --client
# The released wheels (scripts/versions.sh), each installed once into a cache outside the tree
# (about 30 s and 200 MB the first time, milliseconds after): the newest release's master
# (real_master_wheel.sh), and the CPU build whose Python store client runs here (real_ha_etcd.sh).
peer MCS_WHEEL_MASTER "released master" "$top/wheel-master.err" bash scripts/wheel-master.sh
peer MCS_WHEEL_CPU_MASTER "released master and client (CPU)" "$top/wheel-master.err" bash scripts/wheel-master.sh --cpu
phase "deps and real master"
build=$top/build-test
bash scripts/build.sh "$build" --enable-sanitizers --enable-werror || { echo "build failed"; exit 1; }
cd "$build"
phase build
# Every test: the slow integration scripts first, four at a time (they wait more than they compute).
make -j4 check-all >make-check.out 2>&1
rc=$?
phase "make check"
grep -E '^(PASS|FAIL|ERROR|XPASS|SKIP):' make-check.out
passed=0
failed=0
standin=0 real=0 kit=0
# Check writes its summary into each suite's log; the integration scripts end with "N passed, N failed".
for log in tests/unit/*.log; do
	line=$(grep -E '^[0-9]+%: Checks: ' "$log")
	echo "$(basename "$log" .log): $line"
	set -- $(sed -E 's/^[0-9]+%: Checks: ([0-9]+), Failures: ([0-9]+), Errors: ([0-9]+)/\1 \2 \3/' <<<"$line")
	passed=$((passed + $1 - $2 - $3))
	failed=$((failed + $2 + $3))
done
for log in tests/integration/*.log tests/fuzz/*.log; do
	line=$(grep -E '^[a-z0-9_]+: [0-9]+ passed, [0-9]+ failed$' "$log" | tail -1)
	if grep -q '^[a-z0-9_]*: SKIPPED' "$log"; then
		grep '^[a-z0-9_]*: SKIPPED' "$log"
		continue
	fi
	if [ -z "$line" ]; then
		echo "$(basename "$log" .log): did not finish"
		grep -E '^FAIL' "$log" | head -5
		failed=$((failed + 1))
		continue
	fi
	echo "$line ($(sed -n 's/^[a-z0-9_]*: time \([0-9]*\) s$/\1 s/p' "$log" | tail -1))"
	set -- $(sed -E 's/^[a-z0-9_]+: ([0-9]+) passed, ([0-9]+) failed$/\1 \2/' <<<"$line")
	passed=$((passed + $1))
	failed=$((failed + $2))
	case $(basename "$log" .log) in
	standin|transcript) kit=$((kit + $1)) ;;	# the test kit itself, held to the real master
	real_master|real_master_wheel|real_client|real_ha|real_ha_etcd|drain|demo) real=$((real + $1)) ;;
	replay) ;;
	*) standin=$((standin + $1)) ;;
	esac
done
echo "integration checks passed: $standin on the stand-in, $real on the real mooncake_master;" \
    "$kit of the test kit itself (standin, transcript: not the product's)"
if [ $rc -ne 0 ]; then
	for log in $(grep -lE '^(FAIL|ERROR)' tests/*/*.log 2>/dev/null); do
		echo "==== $log"; tail -40 "$log"
	done
fi
# The release tarball must build and pass its own tests from a read-only source tree.
dist=$top/build-dist
# Its make check is the unit tests and the fast integration scripts (all ran above on the sanitizer
# build); the SLURM and systemd-as-PID-1 tests have just run above; in the tarball's run they are skipped,
# and say so)
bash "$top/scripts/build.sh" "$dist" --enable-werror &&
    MCS_SKIP_SLURM=1 MCS_SKIP_SYSTEMD_PID1=1 make -C "$dist" -j3 distcheck >"$dist/distcheck.out" 2>&1
drc=$?
phase distcheck
if [ $drc -eq 0 ]; then
	echo "distcheck: $(grep 'archives ready' "$dist/distcheck.out")"
else
	# Each failed test of the tarball's own run counts, with the end of its log; a failure before
	# or after the tests (build, install, uninstall check) counts as one.
	dfail=$(grep -cE '^(FAIL|ERROR):' "$dist/distcheck.out")
	echo "distcheck failed ($dfail failed test(s)):"
	grep -E '^(FAIL|ERROR):' "$dist/distcheck.out"
	for t in $(sed -nE 's/^(FAIL|ERROR): //p' "$dist/distcheck.out"); do
		log=$(ls "$dist"/mooncake-sidecar-*/_build/sub/"${t%.sh}".log 2>/dev/null | head -1)
		[ -n "$log" ] && { echo "==== distcheck $t"; grep -m3 -E '^(FAIL|not ok)' "$log"; tail -40 "$log"; }
	done
	[ "$dfail" -gt 0 ] || { tail -30 "$dist/distcheck.out"; dfail=1; }
	failed=$((failed + dfail))
fi
# Each libFuzzer target for FUZZ_SECONDS (10 here, 30 by default in scripts/fuzz.sh); a crashing input lands in the corpus that
# make check replays.
FUZZ_SECONDS=${FUZZ_SECONDS:-10} bash "$top/scripts/fuzz.sh" >"$top/build-test/fuzz.out" 2>&1
frc=$?
phase fuzz
grep -E '^(fuzz_[a-z]+:|saved )' "$top/build-test/fuzz.out"
set -- $(sed -n 's/^fuzz: \([0-9]*\) passed, \([0-9]*\) failed$/\1 \2/p' "$top/build-test/fuzz.out")
passed=$((passed + ${1:-0}))
failed=$((failed + ${2:-1}))
[ $frc -eq 0 ] || tail -30 "$top/build-test/fuzz.out"
# Every sidecar of the integration scripts under valgrind: no error, no leak.
bash "$top/scripts/valgrind.sh" >"$top/build-test/valgrind.out" 2>&1
vrc=$?
phase valgrind
grep '^valgrind' "$top/build-test/valgrind.out"
set -- $(sed -n 's/^valgrind: \([0-9]*\) passed, \([0-9]*\) failed$/\1 \2/p' "$top/build-test/valgrind.out")
passed=$((passed + ${1:-0}))
failed=$((failed + ${2:-1}))
# The Debian package: built offline, unpacked into a scratch root, checked.
bash "$top/scripts/deb.sh" >"$top/build-test/deb.out" 2>&1
brc=$?
phase deb
grep '^deb: ' "$top/build-test/deb.out"
set -- $(sed -n 's/^deb: \([0-9]*\) passed, \([0-9]*\) failed$/\1 \2/p' "$top/build-test/deb.out")
passed=$((passed + ${1:-0}))
failed=$((failed + ${2:-1}))
echo "time: $(( $(date +%s) - started )) s"
echo "total: $passed passed, $failed failed"
[ $rc -eq 0 ] && [ $failed -eq 0 ] && [ $drc -eq 0 ] && [ $frc -eq 0 ] && [ $brc -eq 0 ] && [ $vrc -eq 0 ]
