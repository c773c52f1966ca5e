#!/bin/bash
# --plan, --plan=all and --node: the JSON of every process (node, role, worker index, ranks, GPUs,
# ports, argv with placeholders filled, env) and the files, for this node or all; nothing started or
# written; layout errors and a node outside the job fail with exit 78.
. "$(dirname "$0")/lib.sh"
J() { "$TESTKIT" json-get "$T/out.json" "$1"; }
cat >"$T/job.json" <<JSON
{ "job": { "id": "4242", "nodes": "gpu-[01-02]", "gpus_per_node": 4, "run_dir": "$T/run" },
  "master": { "command": ["mooncake_master"], "address": "10.1.0.1" },
  "endpoints": { "flavor": "vllm", "env": { "MOONCAKE_PROTOCOL": "rdma" } },
  "workers": { "flavor": "vllm", "dp_launch_mode": "per_node",
    "groups": [ { "role": "prefill", "count": 1, "gpus": 4, "dp": 4, "command": ["vllm", "serve", "--port", "{http_port}"],
                  "env": { "WHO": "{role}-{worker_index}@{node}" } },
                { "role": "decode", "count": 2, "gpus": 2, "command": ["vllm", "serve", "--port", "{http_port}"] } ] } }
JSON
"$SIDECAR" -c "$T/job.json" --plan --node gpu-02 >"$T/out.json" || fail "--plan exit $?"
[ ! -e "$T/run" ] || fail "--plan created the run directory"
[ "$(J node)" = gpu-02 ] && [ "$(J master)" = null ] && [ "$(J processes.#)" = 2 ] || fail "gpu-02 plan: $(cat "$T/out.json")"
[ "$(J processes.0.role)" = decode ] && [ "$(J processes.0.worker_index)" = 0 ] && [ "$(J processes.0.gpus)" = '[0,1]' ] &&
    [ "$(J processes.1.gpus)" = '[2,3]' ] && [ "$(J processes.1.cuda_visible_devices)" = 2,3 ] || fail "decode processes"
[ "$(J processes.1.argv)" = '["vllm","serve","--port","6132"]' ] || fail "argv: $(J processes.1.argv)"
[ "$(J processes.1.env.CUDA_VISIBLE_DEVICES)" = 2,3 ] && [ "$(J processes.1.env.MOONCAKE_MASTER)" = 10.1.0.1:50051 ] &&
    [ "$(J processes.1.env.MOONCAKE_PROTOCOL)" = rdma ] && [ "$(J processes.1.env.VLLM_PORT)" = 20100 ] || fail "env: $(J processes.1.env)"
[ "$(J files.#)" = 3 ] && [ "$(J files.2)" = "$T/run/endpoints.json" ] || fail "files"
pass "--plan --node gpu-02: two decode workers with their GPUs, ports, argv and env; nothing written"
"$SIDECAR" -c "$T/job.json" --plan=all >"$T/out.json" || fail "--plan=all exit $?"
[ "$(J job_id)" = 4242 ] && [ "$(J nodes.#)" = 2 ] && [ "$(J nodes.0.node)" = gpu-01 ] || fail "--plan=all nodes"
[ "$(J nodes.0.master.argv.1)" = "--rpc_port=50051" ] && [ "$(J nodes.1.master)" = null ] || fail "master only on gpu-01"
[ "$(J nodes.0.processes.0.dp_size_local)" = 4 ] && [ "$(J nodes.0.processes.0.env.WHO)" = prefill-0@gpu-01 ] || fail "prefill"
tr -d '\n' <<<"$(J nodes.0.processes.0.argv)" | grep -q '"--data-parallel-size-local","4","--data-parallel-start-rank","0","--data-parallel-address","gpu-01","--data-parallel-rpc-port","8400","--data-parallel-hybrid-lb","--data-parallel-size","4"' ||
    fail "prefill flags: $(J nodes.0.processes.0.argv)"
[ "$(J nodes.0.processes.0.ports)" = '{"http":6100,"bootstrap":7200,"kv_events":5200,"nixl":5400,"sys":7500,"dp_rpc":8400}' ] || fail "ports"
pass "--plan=all: both nodes, the master on the first, per_node DP flags and ports"
sed 's/"dp": 4/"dp": 3/' "$T/job.json" >"$T/bad.json"
OUT=$("$SIDECAR" -c "$T/bad.json" --plan 2>&1); RC=$?
[ "$RC" -eq 78 ] && grep -qF 'workers: prefill data-parallel-size=3, tensor-parallel-size=1, and pipeline-parallel-size=1 require 3 GPUs, but the endpoint has 4 allocated GPUs' <<<"$OUT" ||
    fail "layout error: $RC $OUT"
OUT=$("$SIDECAR" -c "$T/bad.json" -n 2>&1); RC=$?
[ "$RC" -eq 78 ] || fail "-n accepted a bad layout"
sed 's/"gpu-\[01-02\]"/"gpu-01"/' "$T/job.json" >"$T/small.json"
OUT=$("$SIDECAR" -c "$T/small.json" -n 2>&1); RC=$?
[ "$RC" -eq 78 ] && grep -qF 'workers: decode worker 0 needs node 2 of the job, but job.nodes has 1 nodes of 4 GPUs' <<<"$OUT" || fail "capacity: $OUT"
OUT=$("$SIDECAR" -c "$T/job.json" --plan --node gpu-09 2>&1); RC=$?
[ "$RC" -eq 78 ] && grep -q 'is not in job.nodes' <<<"$OUT" || fail "foreign node: $RC $OUT"
pass "srtctl's layout errors and a too-small allocation: exit 78 at -n and --plan; a node outside the job too"
finish
