#!/bin/bash
# Install the Debian packages this project needs that are not installed yet.
#   scripts/deps.sh            build and test dependencies
#   scripts/deps.sh PKG...     those plus extra packages (benchmarks, tools)
set -euo pipefail
need=(build-essential autoconf automake libtool pkg-config libevent-dev libmicrohttpd-dev libgnutls28-dev libcrypt-dev
	libsystemd-dev libjansson-dev check curl procps openssl "$@")
missing=()
for p in "${need[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
	echo "installing: ${missing[*]}"
	if [ "$(id -u)" -ne 0 ]; then
		echo "not root: run as root, or install these yourself: ${missing[*]}" >&2
		exit 1
	fi
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
