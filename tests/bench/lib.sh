# Shared by the benchmarks (sourced after TMPDIR is chosen): the optimized build, the test kit of
# tests/integration/lib.sh, and median/range of the numbers on stdin with BENCH_DECIMALS places.
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
[ -n "${BENCH_NO_BUILD:-}" ] || bash "$top/scripts/build.sh" "$top/build-bench" >/dev/null || exit 1
top_builddir=$top/build-bench
. "$top/tests/integration/lib.sh"
BENCH_DECIMALS=${BENCH_DECIMALS:-1}
median() { sort -n | awk -v d="$BENCH_DECIMALS" '{a[NR]=$1} END {if (NR == 0) {print "nan"; exit} m = (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2; printf "%." d "f", m}'; }
range() { sort -n | awk -v d="$BENCH_DECIMALS" 'NR==1{lo=$1} {hi=$1} END {printf "[%." d "f-%." d "f]", lo, hi}'; }
# rss_split PID: the process's VmRSS, split into what it wrote itself (private dirty pages: heap,
# stack, data, the libraries' relocated tables) and the clean pages of the files it maps (shared
# libraries, which every process using them shares), grouped by what pulls them in.
rss_split() {
	awk '
	function group(f) {
		if (f ~ /\/(libgnutls|libp11-kit|libnettle|libhogweed|libgmp|libtasn1|libidn2|libunistring|libffi)\./) return "GnuTLS and its libraries (via libmicrohttpd)"
		if (f ~ /\/(libsystemd|libgcrypt|libgpg-error|liblzma|libzstd|liblz4|libcap)\./) return "libsystemd and its libraries"
		if (f ~ /\/(libc|ld-linux-x86-64)\./) return "libc and the loader"
		return "libevent, libmicrohttpd, jansson, libcrypt, the binary"
	}
	/^[0-9a-f]+-[0-9a-f]+ / { f = $6 }
	/^Rss:/ { rss += $2; r = $2 }
	/^Private_Dirty:/ { own += $2; if (f ~ /^\//) clean[group(f)] += r - $2 }
	END {
		printf "RSS %.1f MiB = own pages %.1f MiB (private dirty) + clean shared file pages %.1f MiB:", rss / 1024, own / 1024, (rss - own) / 1024
		for (g in clean) printf " %s %.1f;", g, clean[g] / 1024
		printf "\n"
	}' /proc/"$1"/smaps
}
