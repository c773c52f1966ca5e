#!/bin/bash
# Build the Debian package offline (dpkg-buildpackage -us -uc -b) in a scratch copy of the tree,
# unpack it into a scratch root with dpkg -x, and check what it installs: the binary runs -n on the
# shipped configuration, and the unit, man page, defaults file, alert rules and dashboard are in place.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
bash "$top/scripts/deps.sh" debhelper dpkg-dev fakeroot >/dev/null || exit 1
w=$(mktemp -d)
trap 'rm -rf "$w"' EXIT
mkdir -p "$w/src"
(cd "$top" && git ls-files -z | xargs -0 cp --parents -t "$w/src") || exit 1
(cd "$w/src" && dpkg-buildpackage -us -uc -b >"$w/build.log" 2>&1) || { echo "deb: build failed"; tail -30 "$w/build.log"; exit 1; }
deb=$(ls "$w"/mooncake-sidecar_*.deb)
dpkg -x "$deb" "$w/root" || exit 1
ok=0 bad=0
check() { if eval "$2"; then ok=$((ok + 1)); echo "deb: $1"; else bad=$((bad + 1)); echo "deb: FAILED $1"; fi; }
check "built $(basename "$deb") ($(du -k "$deb" | cut -f1) KiB)" 'test -s "$deb"'
# where mooncake_master is installed (-n refuses a master binary it cannot find); /bin/true answers
# no --helpxml, which -n only warns about
mkdir -p "$w/bin" && ln -sf /bin/true "$w/bin/mooncake_master"
check "/usr/sbin/mooncake-sidecar -n on /etc/mooncake-sidecar/sidecar.json: configuration OK" \
    '[ "$(PATH=$w/bin:$PATH "$w/root/usr/sbin/mooncake-sidecar" -n -c "$w/root/etc/mooncake-sidecar/sidecar.json" 2>/dev/null)" = "configuration OK" ]'
check "unit installed, ExecStart=/usr/sbin/mooncake-sidecar" \
    'grep -q "^ExecStart=/usr/sbin/mooncake-sidecar " "$w/root/usr/lib/systemd/system/mooncake-sidecar.service"'
check "man page installed" 'test -s "$w/root/usr/share/man/man8/mooncake-sidecar.8.gz"'
check "defaults file and examples installed" 'test -f "$w/root/etc/default/mooncake-sidecar" && ls "$w/root/usr/share/doc/mooncake-sidecar/examples/"*.json >/dev/null'
check "alert rules and dashboard under /usr/share/mooncake-sidecar: promtool test rules passes there" \
    'test -s "$w/root/usr/share/mooncake-sidecar/grafana/mooncake-sidecar.json" &&
     (cd "$w/root/usr/share/mooncake-sidecar/prometheus" && promtool test rules alerts.test.yml >/dev/null)'
check "conffiles: /etc/mooncake-sidecar/sidecar.json" 'dpkg-deb -e "$deb" "$w/ctl" && grep -qx /etc/mooncake-sidecar/sidecar.json "$w/ctl/conffiles"'
echo "deb: $ok passed, $bad failed"
[ "$bad" -eq 0 ]
