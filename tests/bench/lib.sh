# Shared by the benchmarks (sourced after TMPDIR is chosen): the optimized build, the test kit of
# tests/integration/lib.sh, and median/range of the numbers on stdin with BENCH_DECIMALS places.
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
bash "$top/scripts/build.sh" "$top/build-bench" >/dev/null || exit 1
top_builddir=$top/build-bench
. "$top/tests/integration/lib.sh"
BENCH_DECIMALS=${BENCH_DECIMALS:-1}
median() { sort -n | awk -v d="$BENCH_DECIMALS" '{a[NR]=$1} END {if (NR == 0) {print "nan"; exit} m = (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2; printf "%." d "f", m}'; }
range() { sort -n | awk -v d="$BENCH_DECIMALS" 'NR==1{lo=$1} {hi=$1} END {printf "[%." d "f-%." d "f]", lo, hi}'; }
