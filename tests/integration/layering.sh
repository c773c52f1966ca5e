#!/bin/bash
# The include graph of common/ and daemon/ has no cycle, and common/ includes nothing of daemon/
# (tests/tools/layering.sh derives it from the sources and prints the layers).
. "$(dirname "$0")/lib.sh"
src=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
sh "$src/tests/tools/layering.sh" "$src" >"$T/layers.txt" 2>&1 || fail "$(cat "$T/layers.txt")"
cat "$T/layers.txt"
pass "$(grep -c '^layer ' "$T/layers.txt") layers, no include cycle, common/ includes nothing of daemon/"
finish
