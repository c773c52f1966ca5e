#!/bin/bash
# The alert rules and the dashboard as files: promtool checks the rules and runs their unit tests
# (conf/prometheus/alerts.test.yml); every rule has a test that needs it to fire (the tests fail
# without it); the dashboard is a Grafana dashboard whose every panel has a query. Their queries
# run against a real Prometheus in prometheus.sh.
. "$(dirname "$0")/lib.sh"
CONF=$top_srcdir/conf
command -v promtool >/dev/null || fail "promtool is not installed (scripts/deps.sh installs prometheus)"
promtool check rules "$CONF/prometheus/alerts.yml" >"$T/check.out" 2>&1 || fail "promtool check rules: $(cat "$T/check.out")"
N=$(sed -n 's/.*SUCCESS: \([0-9]*\) rules found.*/\1/p' "$T/check.out")
pass "promtool check rules: $N rules"
(cd "$CONF/prometheus" && promtool test rules alerts.test.yml) >"$T/test.out" 2>&1 || fail "promtool test rules: $(cat "$T/test.out")"
pass "promtool test rules: every alert firing and not firing where it must not"

# Each rule taken out in turn: the tests must notice.
python3 - "$CONF/prometheus/alerts.yml" "$T" <<'PY' || fail "splitting the rules"
import sys, yaml
doc = yaml.safe_load(open(sys.argv[1]))
rules = doc["groups"][0]["rules"]
for i, r in enumerate(rules):
    d = {"groups": [{"name": "g", "rules": rules[:i] + rules[i + 1:]}]}
    yaml.safe_dump(d, open(f"{sys.argv[2]}/without-{r['alert']}.yml", "w"))
PY
missed=""
for f in "$T"/without-*.yml; do
	sed "s|^  - alerts.yml|  - $f|; s|^- alerts.yml|- $f|" "$CONF/prometheus/alerts.test.yml" >"$T/t.yml"
	grep -q -- "$f" "$T/t.yml" || fail "could not point the tests at $f"
	promtool test rules "$T/t.yml" >/dev/null 2>&1 && missed="$missed ${f##*/without-}"
done
[ -z "$missed" ] || fail "no test needs these rules to fire:$missed"
pass "each of the $N rules is needed by a test: taking any one out fails them"

python3 - "$CONF/grafana/mooncake-sidecar.json" >"$T/dash.out" 2>&1 <<'PY' || fail "dashboard: $(cat "$T/dash.out")"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["uid"] and d["title"] and d["schemaVersion"] >= 36, "uid, title, schemaVersion"
names = [v["name"] for v in d["templating"]["list"]]
assert names == ["datasource", "instance"], names
ids = set()
for p in d["panels"]:
    assert p["id"] not in ids, f"duplicate panel id {p['id']}"
    ids.add(p["id"])
    assert p["targets"] and all(t["expr"].strip() for t in p["targets"]), p["title"]
    assert p["datasource"]["uid"] == "${datasource}", p["title"]
    g = p["gridPos"]
    assert 0 <= g["x"] and g["x"] + g["w"] <= 24, p["title"]
print(len(d["panels"]))
PY
pass "the Grafana dashboard: $(cat "$T/dash.out") panels, each with a query on the \${datasource} variable"
finish
