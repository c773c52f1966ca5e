#!/bin/bash
# The integration scripts that start sidecars, with every sidecar under valgrind (memcheck, full leak
# check): any error or definite/indirect leak makes the sidecar exit non-zero at its final SIGTERM,
# which fails the script. The build is the plain one (no sanitizers).
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
bash "$top/scripts/deps.sh" valgrind >/dev/null || exit 1
bash "$top/scripts/build.sh" "$top/build-valgrind" >/dev/null || exit 1
export top_srcdir=$top top_builddir=$top/build-valgrind
export SIDECAR_WRAPPER="valgrind -q --leak-check=full --errors-for-leak-kinds=definite,indirect --error-exitcode=1"
# VALGRIND_JOBS (default: the number of CPUs) scripts at a time: each picks its own free ports.
jobs=${VALGRIND_JOBS:-$(nproc)}
tests="start_ready restart crash_loop ports_taken hung_admin stop admin endpoints follow ha workers gangs faults"
running=0
for t in $tests; do
	if [ "$running" -ge "$jobs" ]; then
		wait -n
		running=$((running - 1))
	fi
	(bash "$top/tests/integration/$t.sh" >"$top_builddir/valgrind-$t.log" 2>&1; echo $? >"$top_builddir/valgrind-$t.rc") &
	running=$((running + 1))
done
wait
passed=0 failed=0
for t in $tests; do
	if [ "$(cat "$top_builddir/valgrind-$t.rc" 2>/dev/null)" = 0 ]; then
		passed=$((passed + 1))
		echo "valgrind $t: $(tail -1 "$top_builddir/valgrind-$t.log")"
	else
		failed=$((failed + 1))
		echo "valgrind $t: FAILED"
		grep -E '^FAIL|==[0-9]+==' "$top_builddir/valgrind-$t.log" | head -20
	fi
done
echo "valgrind: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
