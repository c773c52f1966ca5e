#!/bin/bash
# Replay the fuzz corpora (seeds and every input that ever crashed a target) through each target,
# built as a plain program with the project's compiler and sanitizers.
set -u
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
top_builddir=${top_builddir:-$top_srcdir}
passed=0 failed=0
for t in cfg hostlist sizes envfile prom httpresp query url epcheck nodeaddr gangview auth mhealth stall gflags drain sdreport sse resp etcd; do
	if "$top_builddir/tests/fuzz/replay_$t" "$top_srcdir/tests/fuzz/corpus/$t"; then
		passed=$((passed + 1))
	else
		echo "FAIL: replay_$t"
		failed=$((failed + 1))
	fi
done
echo "fuzz_replay: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
