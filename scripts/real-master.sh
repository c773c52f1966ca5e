#!/bin/bash
# Find or build the real mooncake_master and Mooncake's own store client library (C ABI), and print
# the path of one of them on the last line of stdout.
#   scripts/real-master.sh            the master: mooncake_master on PATH, else the cached build of the
#                                     shared tarball, built when missing (a second run reuses it in seconds)
#   scripts/real-master.sh --cached [--client]  the same, but only a build already cached (or on PATH,
#                                     or MCS_STORE_LIB): exit 3 rather than build
#   scripts/real-master.sh --client   the client: libmooncake_store.so (store_c.h's C ABI) from
#                                     MCS_STORE_LIB, else the same cached build; its header is in
#                                     ../include/store_c.h beside it
# One CMake tree builds both targets (mooncake_master and mooncake_store_c) with one set of options, so
# the client and the master always come from the same source: the client refuses a master of another
# version. The build has the Redis HA backend (-DSTORE_USE_REDIS=ON -DUSE_REDIS=ON, Debian's
# libhiredis-dev): one build serves the single-master tests and the HA ones (tests/integration/real_ha.sh).
#   MCS_MASTER_TARBALL=FILE           the source tarball (default: ../shared/mooncake/*.tar.xz)
#   MCS_MASTER_CACHE=DIR              the cache (default: /var/cache/mooncake-sidecar/real-master)
# Exit 0 with the path; exit 3 with one line saying why when there is neither a binary nor a tarball;
# any other failure exits 1. Nothing is written inside the source tree.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
want=master cached_only=
for a in "$@"; do
	case $a in
	--client) want=client ;;
	--cached) cached_only=1 ;;
	*) echo "real-master: unknown option $a" >&2; exit 1 ;;
	esac
done

if [ $want = client ] && [ -n "${MCS_STORE_LIB:-}" ]; then
	[ -f "$MCS_STORE_LIB" ] || { echo "real-master: MCS_STORE_LIB=$MCS_STORE_LIB does not exist" >&2; exit 1; }
	echo "$MCS_STORE_LIB"
	exit 0
fi
if [ $want = master ] && [ -z "${MCS_REAL_MASTER_BUILD:-}" ] && command -v mooncake_master >/dev/null 2>&1; then
	bin=$(command -v mooncake_master)
	echo "real-master: using mooncake_master from PATH ($bin)" >&2
	echo "$bin"
	exit 0
fi

tarball=${MCS_MASTER_TARBALL:-}
if [ -z "$tarball" ]; then
	for t in "$top"/../shared/mooncake/mooncake-*-src.tar.xz; do
		[ -f "$t" ] && tarball=$t
	done
fi
if [ -z "$tarball" ] || [ ! -f "$tarball" ]; then
	echo "real-master: no mooncake_master on PATH and no source tarball (looked for ../shared/mooncake/mooncake-*-src.tar.xz; set MCS_MASTER_TARBALL)" >&2
	exit 3
fi

sum=$(sha256sum "$tarball" | cut -d' ' -f1)
# The options are part of the cache's name: a build without the Redis backend is not reused.
cache=${MCS_MASTER_CACHE:-/var/cache/mooncake-sidecar/real-master}/$sum-redis
bin=$cache/bin/mooncake_master
lib=$cache/lib/libmooncake_store.so
result() {
	if [ $want = client ]; then echo "$lib"; else echo "$bin"; fi
}
cached() { [ -x "$bin" ] && [ -f "$lib" ] && [ -f "$cache/include/store_c.h" ] && "$bin" --version >/dev/null 2>&1; }
if cached; then
	echo "real-master: cached build $(result)" >&2
	result
	exit 0
fi

if [ -n "$cached_only" ]; then
	echo "real-master: no cached build in $cache (scripts/real-master.sh builds it, about 15 minutes)" >&2
	exit 3
fi

# One build at a time into the cache: a second run (a test of make check while scripts/test.sh
# builds) waits for the first and takes its build, instead of deleting its tree under it.
mkdir -p "$(dirname "$cache")"
exec 9>"$cache.lock"
if ! flock -n 9; then
	echo "real-master: another run is building into $cache; waiting for it" >&2
	flock 9
fi
if cached; then
	echo "real-master: cached build $(result), built by the run waited for" >&2
	result
	exit 0
fi

# Debian packages the master's build needs (and nothing it does not).
bash "$top/scripts/deps.sh" g++ make cmake xz-utils pkg-config libgflags-dev libgoogle-glog-dev \
	libjsoncpp-dev libyaml-cpp-dev libzstd-dev libxxhash-dev libnuma-dev libibverbs-dev \
	libcurl4-openssl-dev libmsgpack-dev python3-dev libhiredis-dev >&2

echo "real-master: building $(basename "$tarball") into $cache (about 15 minutes on 2 cores for both targets)" >&2
mkdir -p "$cache"
work=$cache/work
rm -rf "$work"
mkdir -p "$work/src" "$work/prefix" "$work/build-ylt" "$work/build"
log=$cache/build.log
: >"$log"
started=$(date +%s)
{
	tar -xJf "$tarball" -C "$work/src"
	cmake -S "$work/src/extern/yalantinglibs" -B "$work/build-ylt" -DCMAKE_INSTALL_PREFIX="$work/prefix" \
		-DBUILD_EXAMPLES=OFF -DBUILD_BENCHMARK=OFF -DBUILD_UNIT_TESTS=OFF
	cmake --build "$work/build-ylt" -j2
	cmake --install "$work/build-ylt"
	cmake -S "$work/src" -B "$work/build" -DCMAKE_PREFIX_PATH="$work/prefix" \
		-DPython3_EXECUTABLE=/usr/bin/python3 -DCMAKE_BUILD_TYPE=Release -DBUILD_UNIT_TESTS=OFF \
		-DBUILD_EXAMPLES=OFF -DBUILD_BENCHMARK=OFF -DWITH_TE=ON -DWITH_STORE=ON -DWITH_STORE_RUST=OFF \
		-DWITH_STORE_GO=OFF -DWITH_P2P_STORE=OFF -DWITH_EP=OFF -DWITH_RUST_EXAMPLE=OFF -DUSE_CUDA=OFF \
		-DUSE_ETCD=OFF -DSTORE_USE_ETCD=OFF -DSTORE_USE_REDIS=ON -DUSE_REDIS=ON -DUSE_HTTP=ON \
		-DWITH_METRICS=ON -DUSE_TENT=OFF -DENABLE_KV_EVENTS=OFF -DENABLE_DEBUG_SYMBOLS=OFF \
		-DBUILD_SHARED_LIBS=OFF -DWITH_STORE_C_SHARED=ON -DCMAKE_DISABLE_FIND_PACKAGE_CUDAToolkit=ON
	make -C "$work/build" -j2 mooncake_master mooncake_store_c
} >>"$log" 2>&1 || { echo "real-master: build failed, see $log" >&2; tail -20 "$log" >&2; exit 1; }

# Keep the master, the one library of its own build tree, the client library and its header; drop the
# rest (about 110 MiB). A CUDA toolkit on the build machine is ignored on purpose
# (CMAKE_DISABLE_FIND_PACKAGE_CUDAToolkit): the client would otherwise need libcudart where it runs.
mkdir -p "$cache/bin" "$cache/lib" "$cache/include"
cp "$work/build/mooncake-store/src/mooncake_master" "$cache/bin/mooncake_master.real"
cp "$(find "$work/build" -name 'libasio.so*' -print -quit)" "$cache/lib/"
cp "$work/build/mooncake-store/src/shared/libmooncake_store.so" "$lib"
cp "$work/src/mooncake-store/include/store_c.h" "$cache/include/"
cat >"$bin.tmp" <<EOF
#!/bin/sh
LD_LIBRARY_PATH=$cache/lib\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH} exec $cache/bin/mooncake_master.real "\$@"
EOF
chmod +x "$bin.tmp"
mv "$bin.tmp" "$bin"
rm -rf "$work"
"$bin" --version >&2
echo "real-master: built in $(($(date +%s) - started)) s" >&2
result
