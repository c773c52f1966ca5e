#!/bin/bash
# Install the released Mooncake wheel (scripts/versions.sh) into a virtual environment in a cache
# outside the tree, as a user of vLLM or SGLang installs it (pip, with its dependencies), and print
# the path of its mooncake_master console script on the last line of stdout. A second run reuses
# the environment in milliseconds.
#   scripts/wheel-master.sh            the newest release (MCS_WHEEL), installed when missing
#   scripts/wheel-master.sh --cpu      the newest whose store client runs on a CPU (MCS_WHEEL_CPU): its
#                                      python, beside the console script, imports mooncake.store
#   --cached                           only one already installed: exit 3 rather than install
#   MCS_WHEEL_CACHE=DIR                the cache (default: /var/cache/mooncake-sidecar/wheel)
# When the pinned wheel cannot be installed or its master does not run here, the fallback is tried,
# and each failure is said on stderr. Exit 0 with the path; exit 3 with one line saying why.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/scripts/versions.sh"
cached_only= cpu=
for a in "$@"; do
	case $a in
	--cached) cached_only=1 ;;
	--cpu) cpu=1 ;;
	*) echo "wheel-master: unknown option $a" >&2; exit 3 ;;
	esac
done
root=${MCS_WHEEL_CACHE:-/var/cache/mooncake-sidecar/wheel}
py=$(command -v python3) || { echo "wheel-master: no python3" >&2; exit 3; }

# try SPEC: the environment for SPEC (pkg==version) in $root, installed when missing; its console
# script on stdout, or 1 with why on stderr
try() {
	local spec=$1 env=$root/${1/==/-} t0
	local bin=$env/bin/mooncake_master
	if [ -x "$bin" ] && "$bin" --version >/dev/null 2>&1; then
		echo "wheel-master: cached $spec in $env" >&2
		echo "$bin"
		return 0
	fi
	[ -n "$cached_only" ] && { echo "wheel-master: $spec is not installed in $env" >&2; return 1; }
	mkdir -p "$root"
	exec 9>"$env.lock"
	flock 9
	if [ ! -x "$bin" ] || ! "$bin" --version >/dev/null 2>&1; then
		t0=$(date +%s)
		rm -rf "$env"
		"$py" -m venv "$env" >&2 || { echo "wheel-master: $py -m venv failed" >&2; return 1; }
		if ! "$env/bin/pip" install -q --disable-pip-version-check "$spec" >"$env.pip.log" 2>&1; then
			echo "wheel-master: pip install $spec failed: $(tail -1 "$env.pip.log")" >&2
			rm -rf "$env"
			return 1
		fi
		if ! "$bin" --version >"$env.version" 2>&1; then
			echo "wheel-master: $spec installed, but its mooncake_master does not run here: $(tail -1 "$env.version")" >&2
			rm -rf "$env"
			return 1
		fi
		echo "wheel-master: installed $spec into $env in $(( $(date +%s) - t0 )) s ($(du -sh "$env" | cut -f1))" >&2
	fi
	exec 9>&-
	echo "$bin"
}

if [ -n "$cpu" ]; then
	try "$MCS_WHEEL_CPU" && exit 0
else
	try "$MCS_WHEEL" && exit 0
	try "$MCS_WHEEL_CPU" && exit 0
fi
echo "wheel-master: no released mooncake_master could be installed (see above)" >&2
exit 3
