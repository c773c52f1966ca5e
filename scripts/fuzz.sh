#!/bin/bash
# Run each libFuzzer target (clang, ASan+UBSan) for FUZZ_SECONDS (default 30) starting from its
# corpus in tests/fuzz/corpus/, FUZZ_JOBS (default: the number of CPUs) at a time. An input that
# crashes a target is saved into that corpus (which make check replays) and the run fails.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
secs=${FUZZ_SECONDS:-30}
jobs=${FUZZ_JOBS:-$(nproc)}
targets=${FUZZ_TARGETS:-"cfg hostlist sizes envfile prom httpresp query url epcheck nodeaddr gangview auth mhealth stall gflags drain sdreport sse resp etcd"}
bash "$top/scripts/deps.sh" clang libclang-rt-14-dev libjansson-dev >/dev/null || exit 1
out=$top/build-fuzz
mkdir -p "$out/obj"
[ -f "$top/build-fuzz/config.h" ] || printf '#define PACKAGE_VERSION "fuzz"\n' >"$out/config.h"
cflags="-g -O1 -std=c11 -D_GNU_SOURCE -I$out -I$top/common $(pkg-config --cflags jansson)"
# Every pure module, compiled once for all the targets (instrumented, not linked with libFuzzer's
# main): each target links them all and uses what it reaches.
rm -f "$out"/obj/*.o
printf '%s\n' "$top"/common/*.c | xargs -P "$jobs" -I{} sh -c \
    'clang '"$cflags"' -fsanitize=fuzzer-no-link,address,undefined -c -o "$1/obj/$(basename "$2" .c).o" "$2"' \
    _ "$out" {} || exit 1

# run_one T: build and run fuzz_T; its one-line result in $out/fuzz_T.result.
run_one() {
	local t=$1 work=$out/corpus-$t art=$out/artifacts-$t rc runs crash
	clang $cflags -fsanitize=fuzzer,address,undefined -o "$out/fuzz_$t" "$top/tests/fuzz/fuzz_$t.c" \
	    "$out"/obj/*.o $(pkg-config --libs jansson) -lm || { echo "fuzz_$t: FAILED to build" >"$out/fuzz_$t.result"; return; }
	mkdir -p "$work" "$art"
	(cd "$out" && ./fuzz_"$t" -max_total_time="$secs" -max_len=4096 -print_final_stats=1 \
	    -artifact_prefix="$art/" "$work" "$top/tests/fuzz/corpus/$t" >"$out/fuzz_$t.log" 2>&1)
	rc=$?
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$out/fuzz_$t.log")
	if [ $rc -eq 0 ]; then
		echo "fuzz_$t: ${runs:-?} runs in ${secs} s, no crash" >"$out/fuzz_$t.result"
		return
	fi
	{
		for crash in "$art"/crash-* "$art"/leak-* "$art"/timeout-*; do
			[ -f "$crash" ] && mv "$crash" "$top/tests/fuzz/corpus/$t/" && echo "saved $(basename "$crash") to tests/fuzz/corpus/$t"
		done
		echo "fuzz_$t: FAILED after ${runs:-?} runs"
		tail -20 "$out/fuzz_$t.log"
	} >"$out/fuzz_$t.result"
}

running=0
for t in $targets; do
	rm -f "$out/fuzz_$t.result"
	if [ "$running" -ge "$jobs" ]; then
		wait -n
		running=$((running - 1))
	fi
	run_one "$t" &
	running=$((running + 1))
done
wait
failed=0
for t in $targets; do
	[ -f "$out/fuzz_$t.result" ] || echo "fuzz_$t: FAILED: no result" >"$out/fuzz_$t.result"
	cat "$out/fuzz_$t.result"
	grep -q "^fuzz_$t: FAILED" "$out/fuzz_$t.result" && failed=$((failed + 1))
done
set -- $targets
echo "fuzz: $(($# - failed)) passed, $failed failed"
[ $failed -eq 0 ]
