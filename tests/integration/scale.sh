#!/bin/bash
# A job of SCALE_FOLLOWERS + 1 nodes (256 followers by default) on the default head config: one head
# sidecar (the stand-in master; only the per-IP connection limit is lifted, since every follower
# here comes from 127.0.0.1 where a real job's come from as many addresses) and that many real
# follower sidecars on loopback, each on a port of its own that the kernel picks (admin.listen port
# 0: no port can be taken by anyone else first). Every follower writes generation 1, then, after a
# kill -9 of the master, generation 1 not ready and generation 2 ready; none is turned away or
# reset. Publish -> rename figures come from the sidecars' own logs ("renamed at").
. "$(dirname "$0")/lib.sh"
N=${SCALE_FOLLOWERS:-256}
export MC_STANDIN_START_DELAY_MS=200
new_ports
write_config h '"address": "127.0.0.1"' '"admin": { "listen": "127.0.0.1:@SIDE@", "max_connections_per_ip": 0 }'
python3 - "$T/h.json" "$N" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
c["job"]["nodes"] = "head,f[1-%s]" % sys.argv[2]
c["job"]["node"] = "head"
json.dump(c, open(sys.argv[1], "w"))
PY
start_sidecar h
HEAD=$SC_PID HEAD_OUT=$SC_OUT HEAD_NOTIFY=$NOTIFY_OUT
wait_for 10 notified 'READY=1' || fail "head: no READY=1"
cat >"$T/f.json" <<JSON
{ "job": { "id": "test", "nodes": "head,f[1-$N]", "run_dir": "$T/run/\${FNODE}" },
  "master": { "enabled": false, "node": "head", "url": "http://127.0.0.1:$SIDE" },
  "admin": { "listen": "127.0.0.1:0" },
  "endpoints": { "flavor": "vllm" } }
JSON
FNODE=f1 "$SIDECAR" -n -c "$T/f.json" --node f1 >/dev/null 2>"$T/n.err" || fail "follower config: $(cat "$T/n.err")"
mkdir -p "$T/run"
T0=$(now_ms)
for i in $(seq "$N"); do
	FNODE=f$i "$SIDECAR" -c "$T/f.json" --node "f$i" >"$T/follower-f$i.out" 2>&1 &
	STARTED+=($!)
	SIDECARS+=($!)
done
# with_line PATTERN: how many followers' logs have it
with_line() { grep -l -- "$1" "$T"/follower-f*.out 2>/dev/null | wc -l; }
# lacking PATTERN: the log of one follower without it, for the failure message
lacking() { local f; f=$(grep -L -- "$1" "$T"/follower-f*.out 2>/dev/null | head -1); [ -n "$f" ] && echo "$(basename "$f"): $(tail -4 "$f" | tr '\n' ' ')"; }
all_have() { [ "$(with_line "$1")" -eq "$N" ]; }
wait_slowly 60 all_have 'endpoints: generation 1 ready' ||
    fail "$(with_line 'endpoints: generation 1 ready') of $N followers wrote generation 1: $(grep -h 'follow:' "$T"/follower-f*.out | sort | uniq -c | sort -rn | head -3); $(lacking 'endpoints: generation 1 ready'); the head: $(adm /metrics | grep -E '^mooncake_sidecar_(admin_long_polls|http_requests_total.*endpoints)' | tr '\n' ' ')"
pass "$N followers started and wrote generation 1 in $(( $(now_ms) - T0 )) ms"
held() { [ "$(adm /metrics | sed -n 's/^mooncake_sidecar_admin_long_polls //p')" -ge "$N" ]; }
wait_for 10 held || fail "the head holds $(adm /metrics | sed -n 's/^mooncake_sidecar_admin_long_polls //p') long-polls, not $N"
pass "the head holds all $N followers' long-polls on its defaults (admin.max_waiters and max_connections derived from job.nodes)"

MP=$(master_pid h)
kill -KILL "$MP"
wait_for 20 grep_q "$HEAD_OUT" 'endpoints: generation 2 ready' || fail "head: generation 2 never ready"
wait_slowly 30 all_have 'endpoints: generation 1 not ready' ||
    fail "$(with_line 'endpoints: generation 1 not ready') of $N followers wrote generation 1 not ready; $(lacking 'endpoints: generation 1 not ready')"
wait_slowly 30 all_have 'endpoints: generation 2 ready' ||
    fail "$(with_line 'endpoints: generation 2 ready') of $N followers wrote generation 2; $(lacking 'endpoints: generation 2 ready')"
for f in "$T"/follower-f*.out; do
	grep -q 'busy\|HTTP 503\|Connection reset' "$f" && fail "$(basename "$f"): $(grep -m1 'busy\|HTTP 503\|Connection reset' "$f")"
done
# publish -> rename, from the sidecars' own "renamed at" times
renamed() { sed -n "s/.*endpoints: generation $2 (master .*, renamed at \\([0-9.]*\\)) in .*/\\1/p" "$1" | head -1; }
for what in "1 not ready" "2 ready"; do
	H=$(renamed "$HEAD_OUT" "$what")
	for f in "$T"/follower-f*.out; do
		awk -v h="$H" -v t="$(renamed "$f" "$what")" 'BEGIN { printf "%.1f\n", (t - h) * 1000 }'
	done >"$T/lat"
	echo "   generation $what: head -> $N followers renamed: p50 $(pct 50 <"$T/lat") ms, p99 $(pct 99 <"$T/lat") ms, max $(pct 100 <"$T/lat") ms"
done
pass "kill -9 of the master: every one of $N followers wrote generation 1 not ready, then generation 2; none was turned away or reset"
finish
