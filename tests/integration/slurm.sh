#!/bin/bash
# A real SLURM: two logical nodes (two slurmd -N) on this machine, four fake GPUs each (character
# devices, so steps get SLURM_GPUS_ON_NODE and CUDA_VISIBLE_DEVICES). One allocation of two GPUs on
# both nodes; inside it one sidecar per node with srun --overlap: n1 runs the stand-in master, n2
# follows it; a vLLM per_gpu DP4 endpoint puts two fake workers on each node. Each worker's GPU,
# rank and ports are checked; scancel --signal=TERM stops everything gracefully. Then an allocation
# of all four GPUs of both nodes runs one vLLM TP 8 worker across them (per node: one process of 4
# GPUs, --tensor-parallel-size 8, --master-addr, --nnodes, --node-rank, --headless on n2). The
# addresses: node names that resolve nowhere are refused; with job.network_interface each rank
# dials that interface's address, n2 learning n1's from n1's sidecar. Only the daemons this script
# started are stopped.
# MCS_SKIP_SLURM=1 skips it, and says so.
. "$(dirname "$0")/lib.sh"
if [ -n "${MCS_SKIP_SLURM:-}" ]; then
	echo "slurm: SKIPPED because MCS_SKIP_SLURM is set"
	exit 77
fi
bash "$top_srcdir/scripts/deps.sh" slurmctld slurmd slurm-client munge >/dev/null || fail "cannot install SLURM"
FAKE=$top_srcdir/tests/tools/fake-worker
export SLURM_CONF=$T/slurm.conf

# munge: reuse a running munged, else start one (and stop it at the end).
if ! pgrep -x munged >/dev/null; then
	[ -f /etc/munge/munge.key ] || { dd if=/dev/urandom of=/etc/munge/munge.key bs=1024 count=1 2>/dev/null;
	    chown munge:munge /etc/munge/munge.key; chmod 400 /etc/munge/munge.key; }
	mkdir -p /run/munge && chown munge:munge /run/munge
	runuser -u munge -- /usr/sbin/munged || fail "munged did not start"
	wait_for 5 test -S /run/munge/munge.socket.2 || fail "no munge socket"
	STARTED+=("$(cat /run/munge/munged.pid)")
fi

read -r CTLD P1 P2 SIDE1 SIDE2 RPC META ADMIN <<<"$("$TESTKIT" freeports 8 | tr '\n' ' ')"
mkdir -p "$T/state" "$T/spool" "$T/workers" "$T/run"
for n in n1 n2; do
	mkdir -p "$T/dev/$n"
	for g in 0 1 2 3; do mknod "$T/dev/$n/nvidia$g" c 1 3; done
done
cat >"$SLURM_CONF" <<CONF
ClusterName=mcs
SlurmctldHost=localhost
SlurmctldPort=$CTLD
SlurmUser=root
AuthType=auth/munge
StateSaveLocation=$T/state
SlurmdSpoolDir=$T/spool/%n
SlurmctldPidFile=$T/slurmctld.pid
SlurmdPidFile=$T/slurmd-%n.pid
SlurmctldLogFile=$T/slurmctld.log
SlurmdLogFile=$T/slurmd-%n.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SlurmdParameters=config_overrides
GresTypes=gpu
MpiDefault=none
ReturnToService=2
KillWait=5
NodeName=n1 NodeHostname=localhost NodeAddr=127.0.0.1 Port=$P1 CPUs=2 RealMemory=1000 Gres=gpu:4 State=UNKNOWN
NodeName=n2 NodeHostname=localhost NodeAddr=127.0.0.1 Port=$P2 CPUs=2 RealMemory=1000 Gres=gpu:4 State=UNKNOWN
PartitionName=test Nodes=n1,n2 Default=YES MaxTime=INFINITE State=UP
CONF
cat >"$T/gres.conf" <<CONF
NodeName=n1 Name=gpu File=$T/dev/n1/nvidia[0-3]
NodeName=n2 Name=gpu File=$T/dev/n2/nvidia[0-3]
CONF
slurmctld -D -i >"$T/slurmctld.out" 2>&1 &
STARTED+=($!)
for n in n1 n2; do
	slurmd -D -N "$n" >"$T/slurmd-$n.out" 2>&1 &
	STARTED+=($!)
done
idle() { [ "$(sinfo -h -N -o '%N %T' 2>/dev/null | grep -c ' idle')" -eq 2 ]; }
wait_for 30 idle || fail "SLURM nodes not idle: $(sinfo -N 2>&1; tail -5 "$T/slurmctld.log")"
pass "a two-node SLURM cluster on this machine (slurmctld, slurmd -N n1, slurmd -N n2)"

cat >"$T/job.json" <<JSON
{ "job": { "id": "\${SLURM_JOB_ID}", "nodes": "\${SLURM_JOB_NODELIST}", "gpus_per_node": 0,
           "run_dir": "$T/run/\${SLURMD_NODENAME}",
           "sidecars": { "n1": "http://127.0.0.1:$SIDE1", "n2": "http://127.0.0.1:$SIDE2" } },
  "master": { "command": ["$STANDIN"], "address": "127.0.0.1", "rpc_port": $RPC, "http_metadata_port": $META,
              "metrics_port": $ADMIN, "url": "http://127.0.0.1:$SIDE1",
              "extra_args": ["--rpc_address=127.0.0.1", "--metrics_host=127.0.0.1"] },
  "endpoints": { "flavor": "vllm" },
  "workers": { "flavor": "vllm", "dp_launch_mode": "per_gpu",
               "groups": [ { "role": "agg", "count": 1, "gpus": 4, "dp": 4,
                             "command": ["$FAKE", "serve", "/model", "--port", "{http_port}"] } ] } }
JSON
# job NAME GPUS CONFIG WORKERS: an allocation of GPUS on both nodes (JOB), and in it one sidecar per
# node started with srun --overlap (SRUN), its output in $T/srun-NAME.out.
job() {
	salloc -N2 --gres=gpu:"$2" --no-shell -J "mcs-$1" >"$T/salloc-$1.out" 2>&1 || fail "salloc: $(cat "$T/salloc-$1.out")"
	JOB=$(sed -n 's/.*Granted job allocation \([0-9]*\).*/\1/p' "$T/salloc-$1.out")
	[ -n "$JOB" ] || fail "no job id: $(cat "$T/salloc-$1.out")"
	mkdir -p "$4"
	FAKE_WORKER_DIR=$4 MC_STANDIN_START_DELAY_MS=200 srun --jobid="$JOB" --overlap -N2 --ntasks-per-node=1 \
	    --gres=gpu:"$2" sh -c 'exec "$0" -c "$1" --listen "127.0.0.1:$([ "$SLURMD_NODENAME" = n1 ] && echo "$2" || echo "$3")"' \
	    "$SIDECAR" "$3" "$SIDE1" "$SIDE2" >"$T/srun-$1.out" 2>&1 &
	SRUN=$!
	STARTED+=($SRUN)
}
# The nodes n1 and n2 are SLURM's names only: they resolve nowhere (as a name that resolves to
# 127.0.1.1 would reach nobody). Without job.network_interface both sidecars refuse to start,
# each naming its node, before anything runs.
srun_rc=0
salloc -N2 --gres=gpu:2 -J mcs-noaddr srun -N2 --ntasks-per-node=1 --gres=gpu:2 "$SIDECAR" -c "$T/job.json" \
    >"$T/srun-noaddr.out" 2>&1 || srun_rc=$?
[ "$srun_rc" -eq 78 ] || fail "a job whose nodes have no routable address: exit $srun_rc: $(tail -5 "$T/srun-noaddr.out")"
for n in n1 n2; do
	grep -q "workers: job.nodes: node $n has no address other nodes can reach" "$T/srun-noaddr.out" ||
	    fail "no error naming $n: $(cat "$T/srun-noaddr.out")"
done
[ ! -e "$T/run/n1/mooncake_master.pid" ] || fail "a master was started for a job that cannot run: $(cat "$T/srun-noaddr.out")"
pass "node names that resolve nowhere: both sidecars exit 78 naming their node, no master started"

# job.network_interface: the address of this machine's first interface with a usable IPv4 address.
routable_iface
sed -i "s|\"gpus_per_node\": 0,|\"gpus_per_node\": 0, \"network_interface\": \"$IFACE\",|" "$T/job.json"
grep -q "\"network_interface\": \"$IFACE\"" "$T/job.json" || fail "job.json: $(cat "$T/job.json")"
job dp4 2 "$T/job.json" "$T/workers"
ready4() { [ "$(ls "$T"/workers/worker-*.env 2>/dev/null | wc -l)" -eq 4 ]; }
wait_for 30 ready4 || fail "4 workers did not start: $(tail -20 "$T/srun-dp4.out")"
pass "srun --overlap: one sidecar per node, the master on n1, 4 workers started"
for sys in 7500 7501 7502 7503; do
	r=$((sys - 7500))
	node=$([ $r -lt 2 ] && echo n1 || echo n2)
	e=$T/workers/worker-$sys.env a=$T/workers/worker-$sys.argv
	grep -qx "CUDA_VISIBLE_DEVICES=$((r % 2))" "$e" || fail "rank $r: $(grep CUDA "$e")"
	grep -qx "SLURMD_NODENAME=$node" "$e" || fail "rank $r ran on $(grep SLURMD_NODENAME "$e")"
	tr '\n' ' ' <"$a" | grep -q -- "--data-parallel-rank $r --data-parallel-address $ADDR --data-parallel-rpc-port 8400 --data-parallel-size 4" ||
	    fail "rank $r argv: $(tr '\n' ' ' <"$a")"
	grep -qx "MOONCAKE_LOCAL_HOSTNAME=$ADDR" "$e" && grep -qx "VLLM_NIXL_SIDE_CHANNEL_HOST=$ADDR" "$e" ||
	    fail "rank $r addresses: $(grep -E 'HOSTNAME|NIXL_SIDE' "$e")"
	grep -qx "MOONCAKE_MASTER=127.0.0.1:$RPC" "$e" || fail "rank $r MOONCAKE_MASTER"
	grep -qx "DYN_SYSTEM_PORT=$sys" "$e" && grep -qx "DYN_VLLM_KV_EVENT_PORT=$((5200 + r))" "$e" || fail "rank $r ports"
done
for sys in 7500 7501 7502 7503; do
	want=$((6100 + 32 * ((sys - 7500) % 2)))
	tr '\n' ' ' <"$T/workers/worker-$sys.argv" | grep -q -- "--port $want " || fail "rank $((sys - 7500)) http port: $(tr '\n' ' ' <"$T/workers/worker-$sys.argv")"
done
pass "each worker: its node, CUDA_VISIBLE_DEVICES (0/1 per node), DP rank, rpc port, sys and kv ports, its own HTTP port (6100, 6132 per node)"
want='[{"node":"n1","role":"agg","worker_index":0,"dp_rank":0,"http_port":6100},{"node":"n1","role":"agg","worker_index":0,"dp_rank":1,"http_port":6132},{"node":"n2","role":"agg","worker_index":0,"dp_rank":2,"http_port":6100},{"node":"n2","role":"agg","worker_index":0,"dp_rank":3,"http_port":6132}]'
for n in n1 n2; do
	wait_for 10 test -s "$T/run/$n/endpoints.json" || fail "$n has no endpoints.json"
	"$TESTKIT" json-get "$T/run/$n/endpoints.json" workers >"$T/wl-$n" && [ "$(tr -d ' \n' <"$T/wl-$n")" = "$want" ] ||
	    fail "$n's endpoints.json workers: $(cat "$T/wl-$n")"
done
pass "endpoints.json on both nodes lists every rank's node, DP rank and HTTP port"
curl -s "http://127.0.0.1:$SIDE1/status" >"$T/status1.json"
"$TESTKIT" json-get "$T/status1.json" node_address.address >"$T/addr1" && [ "$(cat "$T/addr1")" = "$ADDR" ] ||
    fail "n1's /status node_address: $(cat "$T/status1.json")"
"$TESTKIT" json-get "$T/status1.json" node_address.source >"$T/src1" && [ "$(cat "$T/src1")" = "interface $IFACE" ] ||
    fail "n1's address source: $(cat "$T/src1")"
grep -q "workers: n1 is $ADDR (named by the sidecar of n1 at http://127.0.0.1:$SIDE1)" "$T/srun-dp4.out" ||
    fail "n2 did not take n1's address from n1's sidecar: $(grep workers: "$T/srun-dp4.out")"
pass "job.network_interface $IFACE: every rank on both nodes dials $ADDR (--data-parallel-address, MOONCAKE_LOCAL_HOSTNAME, VLLM_NIXL_SIDE_CHANNEL_HOST); n2 took n1's from n1's /status"
curl -s "http://127.0.0.1:$SIDE2/status" | grep -q '"state": "remote"' || fail "n2's sidecar does not follow n1"
pass "n2's sidecar follows n1's master"

# The DP 4 group is one gang over both nodes: kill -9 of a rank on n2 restarts all four ranks.
declare -A OLD
for sys in 7500 7501 7502 7503; do OLD[$sys]=$(cat "$T/workers/worker-$sys.pid"); done
kill -KILL "${OLD[7503]}"
all_new() {
	local sys p
	for sys in 7500 7501 7502 7503; do
		p=$(cat "$T/workers/worker-$sys.pid" 2>/dev/null)
		[ -n "$p" ] && [ "$p" != "${OLD[$sys]}" ] && alive "$p" || return 1
	done
}
wait_for 20 all_new || fail "the gang was not restarted on both nodes: $(grep 'gang agg_w0' "$T/srun-dp4.out")"
grep -q "workers: gang agg_w0 generation 2: a member on n2 failed; restarting its 2 members on n1" "$T/srun-dp4.out" ||
    fail "n1 did not start generation 2: $(grep 'gang agg_w0' "$T/srun-dp4.out")"
pass "kill -9 of one DP rank on n2: the gang's generation 2 restarted all four ranks on both nodes"

# The graceful path first: SIGTERM to the step's tasks (the two sidecars) and nothing else; each
# stops its workers and n1's its master, which shuts down by itself, and the step ends with 0.
WPIDS=$(cat "$T"/workers/worker-*.pid)
MPID=$(cat "$T/run/n1/mooncake_master.pid")
gone() {
	for p in $WPIDS $MPID; do alive "$p" && return 1; done
	! pgrep -f -- "--rpc_port=$RPC " >/dev/null && ! pgrep -f -- "$T/job.json" >/dev/null
}
scancel --signal=TERM "$JOB"
wait_for 30 gone || fail "left running after scancel --signal=TERM: $(pgrep -af -- "$T" | head)"
wait "$SRUN"; RC=$?
[ "$RC" -eq 0 ] || fail "the step ended with $RC: $(tail -20 "$T/srun-dp4.out")"
grep -q 'Shutdown signal received, exiting gracefully' "$T/run/n1/mooncake_master.log" ||
    fail "the master was not stopped gracefully: $(tail -5 "$T/run/n1/mooncake_master.log")"
grep -q "mooncake_master: pid $MPID exited with code 0" "$T/srun-dp4.out" ||
    fail "n1's sidecar did not see the master exit 0: $(grep mooncake_master "$T/srun-dp4.out" | tail -5)"
squeue -h -j "$JOB" -o %T 2>/dev/null | grep -q RUNNING || fail "the allocation ended with the step"
pass "scancel --signal=TERM: the master shut down gracefully and exited 0, workers and sidecars gone, the step exited 0, the allocation kept"
scancel "$JOB"
wait_for 30 is "" squeue -h -j "$JOB" -o %T || fail "the allocation did not end: $(squeue -j "$JOB" 2>&1)"
pass "scancel: the allocation ends"

# vLLM TP 8 across the two 4-GPU nodes: one process per node with the multi-node flags.
sed -e 's|"dp_launch_mode": "per_gpu"|"dp_launch_mode": "per_node"|' \
    -e 's|"count": 1, "gpus": 4, "dp": 4,|"count": 1, "gpus": 8, "tp": 8,|' "$T/job.json" >"$T/tp8.json"
grep -q '"tp": 8' "$T/tp8.json" || fail "tp8 config: $(cat "$T/tp8.json")"
job tp8 4 "$T/tp8.json" "$T/workers2"
two() { [ "$(ls "$T"/workers2/worker-*.env 2>/dev/null | wc -l)" -eq 2 ]; }
wait_for 30 two || fail "the 2 TP processes did not start: $(tail -20 "$T/srun-tp8.out")"
for sys in 7500 7501; do
	r=$((sys - 7500)) node=n$((sys - 7499))
	e=$T/workers2/worker-$sys.env a=$(tr '\n' ' ' <"$T/workers2/worker-$sys.argv")
	grep -qx "SLURMD_NODENAME=$node" "$e" || fail "TP rank $r ran on $(grep SLURMD_NODENAME "$e")"
	grep -q -- "--tensor-parallel-size 8 --master-addr $ADDR --nnodes 2 --node-rank $r" <<<"$a" || fail "TP rank $r argv: $a"
	[ $r -eq 0 ] && grep -q -- '--headless' <<<"$a" && fail "the leader is headless: $a"
	[ $r -eq 1 ] && ! grep -q -- '--headless$\|--headless ' <<<"$a" && fail "the follower is not headless: $a"
	grep -q -- '--data-parallel' <<<"$a" && fail "DP flags on a TP-only worker: $a"
done
pass "TP 8 over two 4-GPU nodes: one process per node, --tensor-parallel-size 8 --master-addr $ADDR --nnodes 2 --node-rank 0/1, --headless on n2 only"
scancel --signal=TERM "$JOB"
wait "$SRUN"; RC=$?
[ "$RC" -eq 0 ] || fail "the TP step ended with $RC: $(tail -10 "$T/srun-tp8.out")"
scancel "$JOB"
finish
