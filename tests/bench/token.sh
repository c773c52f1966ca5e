#!/bin/bash
# The admin server's bearer-token check (common/auth.c, constant-time): a 64-character token
# against a guess wrong at its first character and one wrong at its last (63 characters matching),
# 10,000 tries each, interleaved. The two must take the same time; the right token is beside them.
# Usage: tests/bench/token.sh [N]   (default 10000)
set -uo pipefail
N=${1:-10000}
. "$(dirname "$0")/lib.sh"
echo "bearer-token check timing, $N tries each, $(nproc) cores, $(date -u +%F)"
"$TESTKIT" token-timing "$N"
finish >/dev/null
