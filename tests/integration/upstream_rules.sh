#!/bin/bash
# The upstream rules (tests/tools/upstream-rules: vLLM's arg_utils.py and config/parallel.py,
# SGLang's server_args.py) over --plan=all of every example in conf/ with workers, and of the
# layouts srtctl's vectors cover: each parallel flag once, DP ranks below the DP size, world size
# times local DP ranks equal to a process's GPUs (all GPUs across nodes), node ranks in range, no
# loopback leader address in a multi-node job, and the examples' workers using the store. The
# checker is shown to fail on a plan that breaks each rule.
. "$(dirname "$0")/lib.sh"
top=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
RULES=$top/tests/tools/upstream-rules

n=0
for f in "$top"/conf/*.json; do
	fl=$(python3 -c 'import json,sys; c=json.load(open(sys.argv[1])); w=c.get("workers",{}); print(w.get("flavor","vllm") if w.get("groups") else "")' "$f")
	[ "$fl" = vllm ] || [ "$fl" = sglang ] || continue
	"$SIDECAR" -c "$f" --plan=all >"$T/plan.json" 2>"$T/plan.err" || fail "$f: --plan=all: $(cat "$T/plan.err")"
	OUT=$(python3 "$RULES" "$fl" --store <"$T/plan.json") || fail "$(basename "$f"): $OUT"
	n=$((n + 1))
done
[ "$n" -ge 2 ] || fail "only $n examples with vLLM or SGLang workers"
pass "$n examples in conf/ keep vLLM's and SGLang's rules, and their workers use the store"

# layout NAME FLAVOR NODES GPN MODE GROUP...: --plan=all of those groups, checked.
layout() {
	local name=$1 fl=$2 nodes=$3 gpn=$4 mode=$5 groups
	shift 5
	groups=$(IFS=,; echo "$*")
	cat >"$T/$name.json" <<JSON
{ "job": { "id": "1", "nodes": "$nodes", "gpus_per_node": $gpn, "run_dir": "$T/run" },
  "master": { "command": ["mooncake_master"], "address": "10.0.0.1" },
  "endpoints": { "flavor": "$fl" },
  "workers": { "flavor": "$fl", "dp_launch_mode": "$mode", "groups": [ $groups ] } }
JSON
	"$SIDECAR" -c "$T/$name.json" --plan=all >"$T/$name.plan" 2>"$T/$name.err" || fail "$name: $(cat "$T/$name.err")"
	OUT=$(python3 "$RULES" "$fl" <"$T/$name.plan") || fail "$name: $OUT"
	echo "   $name: $OUT"
}
G() { echo "{ \"role\": \"$1\", \"count\": $2, \"gpus\": $3 $4, \"command\": [\"w\", \"--port\", \"{http_port}\"] }"; }
layout per_gpu_dp16 vllm "n[0-1]" 8 per_gpu "$(G prefill 1 16 ', "dp": 16')"
layout per_gpu_two_endpoints vllm n0 8 per_gpu "$(G decode 2 4 ', "dp": 4')"
layout per_node_dp8 vllm "n[0-1]" 4 per_node "$(G prefill 1 8 ', "dp": 8')"
layout per_node_dp4_tp4 vllm "n[0-3]" 4 per_node "$(G agg 1 16 ', "dp": 4, "tp": 4')"
layout per_node_dp2_tp2_pp2 vllm "n[0-1]" 4 per_node "$(G agg 1 8 ', "dp": 2, "tp": 2, "pp": 2')"
layout spanning_dp2_tp8 vllm "n[0-3]" 4 per_node "$(G agg 1 16 ', "dp": 2, "tp": 8')"
layout tp16 vllm "n[0-1]" 8 per_node "$(G agg 1 16 ', "tp": 16')"
layout disagg_tp4 vllm "n[0-1]" 8 per_node "$(G prefill 2 4 ', "tp": 4')" "$(G decode 1 8 ', "tp": 8')"
layout sglang_tp8 sglang "n[0-1]" 4 per_node "$(G agg 1 8 ', "tp": 8')"
layout sglang_disagg sglang "n[0-1]" 8 per_node "$(G prefill 2 4 ', "tp": 4')" "$(G decode 1 8 ', "tp": 8, "pp": 1')"
pass "10 layouts (srtctl's vLLM DP vectors, TP across nodes, SGLang) keep the rules"

# The checker fails where a rule is broken: a plan edited to break each.
bad() {
	local why=$1 fl=$2 edit=$3 src=$4
	python3 -c "import json,sys; p=json.load(open(sys.argv[1])); a=p['nodes'][0]['processes'][0]['argv']; $edit; json.dump(p, sys.stdout)" \
	    "$T/$src.plan" >"$T/bad.plan"
	OUT=$(python3 "$RULES" "$fl" <"$T/bad.plan") && fail "the checker passed a plan with $why"
	grep -q . <<<"$OUT" || fail "the checker failed silently on $why"
}
bad "a rank at the DP size" vllm 'i=a.index("--data-parallel-rank"); a[i+1]="16"' per_gpu_dp16
bad "a flag twice" vllm 'a += ["--data-parallel-size", "16"]' per_gpu_dp16
bad "a loopback leader" vllm 'i=a.index("--data-parallel-address"); a[i+1]="127.0.1.1"' per_gpu_dp16
bad "TP 2 on one GPU" vllm 'a += ["-tp", "2"]' per_gpu_dp16
bad "4 local ranks of TP 2 on 4 GPUs" vllm 'a += ["--tensor-parallel-size=2"]' per_node_dp8
bad "TP 8 over 2 nodes of 8" vllm 'i=a.index("--tensor-parallel-size"); a[i+1]="8"' tp16
bad "a node rank out of range" sglang 'i=a.index("--node-rank"); a[i+1]="2"' sglang_tp8
bad "SGLang TP 4 across 2 nodes of 4" sglang 'i=a.index("--tp-size"); a[i+1]="4"' sglang_tp8
python3 "$RULES" vllm --store <"$T/tp16.plan" >"$T/out" && fail "the checker passed workers that do not use the store"
pass "the checker fails on each broken rule: rank >= DP size, a flag twice, a loopback leader, world size against GPUs (3 ways), node rank, the store unused"
finish
