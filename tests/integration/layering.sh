#!/bin/bash
# The include graph of common/ and daemon/ has no cycle, common/ includes nothing of daemon/, calls
# follow the includes (no function declared in another module's header), and no file is over 800
# lines (tests/tools/layering.sh derives it from the sources and prints the layers). The tool is
# held to it: a copy of the tree with one of each fault added fails, naming it.
. "$(dirname "$0")/lib.sh"
src=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
tool=$src/tests/tools/layering.sh
sh "$tool" "$src" >"$T/layers.txt" 2>&1 || fail "$(cat "$T/layers.txt")"
cat "$T/layers.txt"
pass "$(grep -c '^layer ' "$T/layers.txt") layers, no include cycle, common/ includes nothing of daemon/, $(sed -n 's/.*\(arrows back up: [0-9]*\).*/\1/p' "$T/layers.txt"), no file over 800 lines"

# faulty NAME EXPECTED: the copy in $T/NAME fails and says EXPECTED.
faulty() {
	local out
	if out=$(sh "$tool" "$T/$1" 2>&1); then
		fail "layering.sh passes a tree with $1: $(echo "$out" | tail -3)"
	fi
	echo "$out" | grep -q -- "$2" || fail "layering.sh on $1 does not say \"$2\": $(echo "$out" | grep '^layering:' | head -3)"
}
copy() { mkdir -p "$T/$1" && cp -r "$src/common" "$src/daemon" "$T/$1/"; }
copy cycle
echo '#include "sidecar.h"' >>"$T/cycle/daemon/clock.h"
faulty cycle 'include cycle through:.*daemon/clock'
copy arrow
printf 'int admin_port(const struct admin *);\n' >>"$T/arrow/daemon/view.h"
faulty arrow 'defines admin_port(), declared in daemon/view.h'
copy large
for i in $(seq 801); do echo "/* $i */"; done >>"$T/large/daemon/stop_me.c"
faulty large 'daemon/stop_me.c has 801 lines, over 800'
copy upward
echo '#include "sidecar.h"' >>"$T/upward/common/log.h"
faulty upward 'common/log includes daemon/sidecar'
pass "the tool fails a tree with an include cycle, an arrow back up, a file over 800 lines, common/ including daemon/"
finish
