#!/bin/bash
# HA failover on both backends, side by side from one run: tests/integration/real_ha.sh (0.3.12 built
# from source, Redis, its C store client) and tests/integration/real_ha_etcd.sh (the 0.3.13.post1
# wheel, etcd with the OpLog, its Python store client, 10,000 keys stored first), each run once on
# the optimized build; their figures gathered per handover: kill -9 (or switchover, graceful stop)
# -> another master serving, -> the client storing again, the sidecar's own part (the dead leader's
# lease released), and the keys found after it. Both masters warm up 5 s as a new leader before
# they serve; the goals are that + 0.5 s, and the sidecar's part within 5 ms.
# Usage: tests/bench/ha.sh    (PRELOAD=10000 keys on etcd; ETCD_STOP_S=5 for its etcd outage)
set -uo pipefail
. "$(dirname "$0")/lib.sh"
export PRELOAD=${PRELOAD:-10000} ETCD_STOP_S=${ETCD_STOP_S:-5} top_builddir top_srcdir=$top
echo "mooncake-sidecar HA failover, $(nproc) cores, $(date -u +%F); the new leader's warmup is 5 s on both"
for t in real_ha real_ha_etcd; do
	bash "$top/tests/integration/$t.sh" >"$T/$t.out" 2>&1 || { tail -20 "$T/$t.out"; fail "$t.sh failed"; }
done
printf '%-34s | %-44s | %s\n' "handover" "Redis (0.3.12, snapshots)" "etcd (0.3.13.post1 wheel, OpLog)"
# Redis: "kill K of the leader (...): ...; serving S ms after the kill, the client stores again at C ms;
# F of 4 keys stored before it found; ...; the lease released by X's sidecar R ms after the death"
sed -n 's/^ok [0-9]* - kill \([0-9]\) of the leader .*serving \([0-9]*\) ms after the kill, the client stores again at \([0-9]*\) ms; \([0-9]*\) of 4 keys.* released by .* \([0-9.]*\) ms after the death.*/\1 \2 \3 \4 \5/p' \
    "$T/real_ha.out" >"$T/redis"
# etcd: "kill K of X's master: Y serving after S ms; the client stores again after C ms; keys: A of B
# acknowledged one by one found, P of Q stored first", then the revoke's line
sed -n 's/^   kill \([0-9]\) of .* serving after \([0-9]*\) ms; the client stores again after \([0-9]*\) ms; keys: \([0-9]*\) of \([0-9]*\) .* \([0-9]*\) of the \([0-9]*\) stored first.*/\1 \2 \3 \4 \5 \6 \7/p' \
    "$T/real_ha_etcd.out" >"$T/etcd"
grep -o "lease [0-9.]* ms after the death" "$T/real_ha_etcd.out" | awk '{ print $2 }' >"$T/etcd.rel"
for k in 1 2 3; do
	read -r _ rs rc rf rr <<<"$(awk -v k="$k" '$1 == k' "$T/redis")"
	read -r _ es ec ea eb ep eq <<<"$(awk -v k="$k" '$1 == k' "$T/etcd")"
	er=$(sed -n "${k}p" "$T/etcd.rel")
	printf '%-34s | %-44s | %s\n' "kill -9 $k: other serving / client" "${rs:-?} / ${rc:-?} ms" "${es:-?} / ${ec:-?} ms"
	printf '%-34s | %-44s | %s\n' "  the sidecar's part (lease freed)" "${rr:-?} ms" "${er:-?} ms"
	printf '%-34s | %-44s | %s\n' "  keys found" "${rf:-?} of 4 (the last snapshot's)" "${ea:-?} of ${eb:-?} one by one, ${ep:-?} of ${eq:-?} stored first"
done
rsw=$(sed -n 's/.*a serves \([0-9]*\) ms after the request.*client stores again at \([0-9]*\) ms.*/\1 \/ \2 ms/p' "$T/real_ha.out" | head -1)
esw=$(sed -n 's/^   switchover from .* serving after \([0-9]*\) ms; the client stores again after \([0-9]*\) ms.*/\1 \/ \2 ms/p' "$T/real_ha_etcd.out")
egs=$(sed -n 's/^   graceful stop of .* serving after \([0-9]*\) ms; the client stores again after \([0-9]*\) ms.*/\1 \/ \2 ms/p' "$T/real_ha_etcd.out")
err=$(sed -n 's/^   rolling restart.* serving after \([0-9]*\) ms; the client stores again after \([0-9]*\) ms.*/\1 \/ \2 ms/p' "$T/real_ha_etcd.out")
printf '%-34s | %-44s | %s\n' "switchover: other serving / client" "${rsw:-?}" "${esw:-?}"
printf '%-34s | %-44s | %s\n' "graceful stop of the leader" "(not run)" "${egs:-?}"
printf '%-34s | %-44s | %s\n' "rolling restart, the leader last" "(not run)" "${err:-?}"
echo "etcd outages: $(grep -o 'lost: .*' "$T/real_ha_etcd.out" | head -1)"
