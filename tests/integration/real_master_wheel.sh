#!/bin/bash
# real_master.sh on the Mooncake its users install: the released wheel's mooncake_master, the
# console script pip puts on PATH (scripts/wheel-master.sh installs the version pinned in
# scripts/versions.sh into a cache outside the tree). The sidecar supervises the script as a user
# starts it: its --helpxml, its readiness and ports, a kill -9 and a stop reaching the binary, its log.
# Without the wheel it says why and is skipped; under CI=true that is a failure.
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
if [ -z "${MCS_WHEEL_MASTER:-}" ]; then
	MCS_WHEEL_MASTER=$(bash "$top_srcdir/scripts/wheel-master.sh" 2>"${TMPDIR:-/tmp}/wheel-master.$$.err" | tail -1)
	why=$(tail -1 "${TMPDIR:-/tmp}/wheel-master.$$.err")
	rm -f "${TMPDIR:-/tmp}/wheel-master.$$.err"
	if [ -z "$MCS_WHEEL_MASTER" ]; then
		[ "${CI:-}" = true ] && { echo "FAIL [real_master_wheel]: no released mooncake_master in CI: $why"; exit 1; }
		echo "real_master_wheel: SKIPPED: $why"
		exit 77
	fi
fi
MCS_REAL_MASTER=$MCS_WHEEL_MASTER
. "$(dirname "$0")/real_master.sh"
