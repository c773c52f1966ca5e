#!/bin/bash
# Run each libFuzzer target (clang, ASan+UBSan) for FUZZ_SECONDS (default 30) starting from its
# corpus in tests/fuzz/corpus/. An input that crashes a target is saved into that corpus (which
# make check replays) and the run fails.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
secs=${FUZZ_SECONDS:-30}
targets=${FUZZ_TARGETS:-"cfg hostlist sizes envfile prom httpresp query url epcheck nodeaddr gangview auth mhealth stall gflags drain sdreport sse"}
bash "$top/scripts/deps.sh" clang libclang-rt-14-dev libjansson-dev >/dev/null || exit 1
out=$top/build-fuzz
mkdir -p "$out"
[ -f "$top/build-fuzz/config.h" ] || printf '#define PACKAGE_VERSION "fuzz"\n' >"$out/config.h"
# every pure module: the targets link whatever of common/ they reach
common=$(ls "$top"/common/*.c)
failed=0
for t in $targets; do
	clang -g -O1 -std=c11 -D_GNU_SOURCE -fsanitize=fuzzer,address,undefined -I"$out" -I"$top/common" \
	    $(pkg-config --cflags jansson) -o "$out/fuzz_$t" "$top/tests/fuzz/fuzz_$t.c" $common \
	    $(pkg-config --libs jansson) -lm || exit 1
	work=$out/corpus-$t
	mkdir -p "$work"
	(cd "$out" && ./fuzz_"$t" -max_total_time="$secs" -max_len=4096 -print_final_stats=1 \
	    "$work" "$top/tests/fuzz/corpus/$t" >"$out/fuzz_$t.log" 2>&1)
	rc=$?
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$out/fuzz_$t.log")
	if [ $rc -ne 0 ]; then
		failed=$((failed + 1))
		for crash in "$out"/crash-* "$out"/leak-* "$out"/timeout-*; do
			[ -f "$crash" ] && mv "$crash" "$top/tests/fuzz/corpus/$t/" && echo "saved $(basename "$crash") to tests/fuzz/corpus/$t"
		done
		echo "fuzz_$t: FAILED after ${runs:-?} runs"
		tail -20 "$out/fuzz_$t.log"
	else
		echo "fuzz_$t: ${runs:-?} runs in ${secs} s, no crash"
	fi
done
set -- $targets
echo "fuzz: $(($# - failed)) passed, $failed failed"
[ $failed -eq 0 ]
