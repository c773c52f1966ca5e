#!/bin/bash
# Build tests/tools/store-client (the project's own C, against Mooncake's store_c.h) into DIR and
# print, on the last line of stdout, the command to run it with: MOONCAKE_STORE_LIB=<library> and
# the tool's path. The library and its header come from scripts/real-master.sh --client (built
# once into the cache with the master).
#   scripts/store-client.sh [DIR]      DIR defaults to build-client/ in the source tree
#   MCS_CLIENT_CACHED=1                only with a library already built (never start the build)
# Exit 0; 3 with one line saying why when there is no library to build against; 1 on a failure.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$top/build-client}
lib=$(bash "$top/scripts/real-master.sh" --client ${MCS_CLIENT_CACHED:+--cached} | tail -1) || exit $?
inc=$(dirname "$(dirname "$lib")")/include
[ -f "$inc/store_c.h" ] || inc=${MCS_STORE_INCLUDE:-$inc}
[ -f "$inc/store_c.h" ] || { echo "store-client: no store_c.h beside $lib (set MCS_STORE_INCLUDE)" >&2; exit 3; }
mkdir -p "$out"
[ -f "$out/config.h" ] || { printf '#define PACKAGE_VERSION "store-client"\n' >"$out/config.h.$$" && mv "$out/config.h.$$" "$out/config.h"; }
src=$top/tests/tools/store-client.c
bin=$out/store-client
# several test scripts may build it at once: each into its own file, renamed over the tool (atomic)
if [ ! -x "$bin" ] || [ "$src" -nt "$bin" ] || [ "$top/common/envfile.c" -nt "$bin" ]; then
	cc -std=c11 -O2 -g -Wall -Wextra -Werror -D_GNU_SOURCE -I"$out" -I"$top/common" -I"$inc" \
	    $(pkg-config --cflags jansson) -o "$bin.tmp.$$" "$src" "$top/common/envfile.c" "$top/common/sizes.c" \
	    "$top/common/kvlist.c" "$top/common/buf.c" "$top/common/xalloc.c" $(pkg-config --libs jansson) -ldl -lm -pthread
	mv "$bin.tmp.$$" "$bin"
fi
echo "MOONCAKE_STORE_LIB=$lib LD_LIBRARY_PATH=$(dirname "$lib") $bin"
