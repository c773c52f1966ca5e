#!/bin/bash
# Configure and build out of tree: scripts/build.sh DIR [configure flags...]
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
dir=$1
shift
cd "$top"
[ -x configure ] || ./autogen.sh >/dev/null 2>&1
mkdir -p "$dir"
cd "$dir"
if [ ! -f Makefile ] || [ "$top/configure" -nt Makefile ]; then
	"$top/configure" -q "$@"
fi
make -j2 >/dev/null
