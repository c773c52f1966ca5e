#include "config.h"
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "hostlist.h"
#include "topology.h"
#include "topo_helper.h"
#include "unit.h"

/* One line per process "role/index@node{gpus} r=rank h=http b=boot kv=.. nx=.. sys=.. rpc=..", or
 * "error: ...". */
static char *
layout(const char *workers, const char *nodes, long gpn, const char *job_id)
{
	struct cfg c;
	struct strv list;
	struct topology t;
	char err[512], *out = xstrdup("");
	if (topo_load(workers, nodes, gpn, job_id, &c, &list, &t, err, sizeof err) != 0) {
		free(out);
		out = xasprintf("error: %s", err);
	}
	for (size_t i = 0; i < t.nprocs; i++) {
		const struct topo_process *p = &t.procs[i];
		char gpus[128] = "", *line;
		for (int g = 0; g < p->ngpus; g++)
			snprintf(gpus + strlen(gpus), sizeof gpus - strlen(gpus), "%s%d", g ? "," : "", p->gpus[g]);
		line = xasprintf("%s%s/%d@%s{%s} r=%d h=%d b=%d kv=%d nx=%d sys=%d rpc=%d%s\n", out, p->role,
		    p->worker_index, list.v[p->node], gpus, p->node_rank, p->http_port, p->bootstrap_port,
		    p->kv_events_port, p->nixl_port, p->sys_port, p->dp_rpc_port, p->headless ? " headless" : "");
		free(out);
		out = line;
	}
	topology_free(&t);
	strv_free(&list);
	cfg_free(&c);
	return out;
}

#define EXPECT(got, want) do { char *g_ = (got); ck_assert_str_eq(g_, want); free(g_); } while (0)

START_TEST(test_worked_vector)	/* srtctl's worked layout: 2P x2 + 2D x2, gpn 4, node0/node1 */
{
	EXPECT(layout(GROUPS("sglang", "", G("prefill", 2, 2, "") "," G("decode", 2, 2, "")), "node[0-1]", 4, NULL),
	    "prefill/0@node0{0,1} r=0 h=6100 b=7200 kv=5200 nx=5400 sys=7500 rpc=0\n"
	    "prefill/1@node0{2,3} r=0 h=6132 b=7201 kv=5201 nx=5401 sys=7501 rpc=0\n"
	    "decode/0@node1{0,1} r=0 h=6100 b=0 kv=5202 nx=5402 sys=7502 rpc=0\n"
	    "decode/1@node1{2,3} r=0 h=6132 b=0 kv=5203 nx=5403 sys=7503 rpc=0\n");
}
END_TEST

START_TEST(test_allocation_table)	/* srtctl's allocation table */
{
	EXPECT(layout(GROUPS("sglang", "", G("prefill", 2, 4, "") "," G("decode", 2, 4, "")), "n[0-3]", 4, NULL),
	    "prefill/0@n0{0,1,2,3} r=0 h=6100 b=7200 kv=5200 nx=5400 sys=7500 rpc=0\n"
	    "prefill/1@n1{0,1,2,3} r=0 h=6100 b=7200 kv=5201 nx=5401 sys=7501 rpc=0\n"
	    "decode/0@n2{0,1,2,3} r=0 h=6100 b=0 kv=5202 nx=5402 sys=7502 rpc=0\n"
	    "decode/1@n3{0,1,2,3} r=0 h=6100 b=0 kv=5203 nx=5403 sys=7503 rpc=0\n");
	EXPECT(layout(GROUPS("sglang", "", G("prefill", 1, 8, ",\"tp\":8") "," G("decode", 1, 8, ",\"tp\":8")), "n[0-3]", 4, NULL),
	    "prefill/0@n0{0,1,2,3} r=0 h=6100 b=7200 kv=5200 nx=5400 sys=7500 rpc=0\n"
	    "prefill/0@n1{0,1,2,3} r=1 h=0 b=7200 kv=5201 nx=5401 sys=7501 rpc=0\n"
	    "decode/0@n2{0,1,2,3} r=0 h=6100 b=0 kv=5202 nx=5402 sys=7502 rpc=0\n"
	    "decode/0@n3{0,1,2,3} r=1 h=0 b=0 kv=5203 nx=5403 sys=7503 rpc=0\n");
	EXPECT(layout(GROUPS("sglang", "", G("prefill", 1, 2, "") "," G("decode", 1, 4, "")), "node[0-1]", 4, NULL),
	    "prefill/0@node0{0,1} r=0 h=6100 b=7200 kv=5200 nx=5400 sys=7500 rpc=0\n"
	    "decode/0@node1{0,1,2,3} r=0 h=6100 b=0 kv=5201 nx=5401 sys=7501 rpc=0\n");
	EXPECT(layout(GROUPS("sglang", ",\"spread\":true", G("prefill", 1, 1, "") "," G("decode", 2, 2, "")), "n[0-2]", 4, NULL),
	    "prefill/0@n0{0} r=0 h=6100 b=7200 kv=5200 nx=5400 sys=7500 rpc=0\n"
	    "decode/0@n1{0,1} r=0 h=6100 b=0 kv=5201 nx=5401 sys=7501 rpc=0\n"
	    "decode/1@n2{0,1} r=0 h=6100 b=0 kv=5202 nx=5402 sys=7502 rpc=0\n");
	EXPECT(layout(GROUPS("sglang", "", G("decode", 2, 2, "")), "n[0-1]", 4, NULL),
	    "decode/0@n0{0,1} r=0 h=6100 b=0 kv=5200 nx=5400 sys=7500 rpc=0\n"
	    "decode/1@n0{2,3} r=0 h=6132 b=0 kv=5201 nx=5401 sys=7501 rpc=0\n");
	/* colocation allowed but 6 + 4 > 8: prefill and decode still on separate nodes */
	EXPECT(layout(GROUPS("vllm", ",\"allow_colocation\":true", G("prefill", 1, 6, "") "," G("decode", 1, 4, "")), "n[0-1]", 8, NULL),
	    "prefill/0@n0{0,1,2,3,4,5} r=0 h=6100 b=7200 kv=5200 nx=5400 sys=7500 rpc=0\n"
	    "decode/0@n1{0,1,2,3} r=0 h=6100 b=0 kv=5201 nx=5401 sys=7501 rpc=0\n");
}
END_TEST

START_TEST(test_port_vectors)	/* srtctl's port vectors */
{
	EXPECT(layout(GROUPS("sglang", "", G("prefill", 1, 2, "") "," G("decode", 1, 2, "")), "n0", 4, NULL),
	    "prefill/0@n0{0,1} r=0 h=6100 b=7200 kv=5200 nx=5400 sys=7500 rpc=0\n"
	    "decode/0@n0{2,3} r=0 h=6132 b=0 kv=5201 nx=5401 sys=7501 rpc=0\n");
	EXPECT(layout(GROUPS("sglang", "", G("prefill", 1, 8, "") "," G("decode", 1, 8, "")), "n[0-1]", 8, NULL),
	    "prefill/0@n0{0,1,2,3,4,5,6,7} r=0 h=6100 b=7200 kv=5200 nx=5400 sys=7500 rpc=0\n"
	    "decode/0@n1{0,1,2,3,4,5,6,7} r=0 h=6100 b=0 kv=5201 nx=5401 sys=7501 rpc=0\n");
	EXPECT(layout(GROUPS("vllm", ",\"allow_colocation\":true", G("prefill", 1, 4, "") "," G("decode", 1, 4, "")), "node0", 8, NULL),
	    "prefill/0@node0{0,1,2,3} r=0 h=6100 b=7200 kv=5200 nx=5400 sys=7500 rpc=0\n"
	    "decode/0@node0{4,5,6,7} r=0 h=6132 b=0 kv=5201 nx=5401 sys=7501 rpc=0\n");
	/* multi-node prefill TP8 on 4-GPU nodes: the follower has no HTTP port, the same bootstrap */
	EXPECT(layout(GROUPS("sglang", "", G("prefill", 1, 8, ",\"tp\":8")), "n[0-1]", 4, NULL),
	    "prefill/0@n0{0,1,2,3} r=0 h=6100 b=7200 kv=5200 nx=5400 sys=7500 rpc=0\n"
	    "prefill/0@n1{0,1,2,3} r=1 h=0 b=7200 kv=5201 nx=5401 sys=7501 rpc=0\n");
}
END_TEST

START_TEST(test_per_node_vectors)	/* srtctl's vLLM data-parallel vectors */
{
	/* V1: prefill DP8 over two 4-GPU nodes */
	EXPECT(layout(GROUPS("vllm", "", G("prefill", 1, 8, ",\"dp\":8")), "node[0-1]", 4, NULL),
	    "prefill/0@node0{0,1,2,3} r=0 h=6100 b=7200 kv=5200 nx=5400 sys=7500 rpc=8400\n"
	    "prefill/0@node1{0,1,2,3} r=4 h=6100 b=7200 kv=5204 nx=5400 sys=7501 rpc=8400\n");
	/* V2: decode DP4, two endpoints on one 8-GPU node */
	EXPECT(layout(GROUPS("vllm", "", G("decode", 2, 4, ",\"dp\":4")), "node0", 8, NULL),
	    "decode/0@node0{0,1,2,3} r=0 h=6100 b=0 kv=5200 nx=5400 sys=7500 rpc=8400\n"
	    "decode/1@node0{4,5,6,7} r=0 h=6132 b=0 kv=5204 nx=5404 sys=7501 rpc=8401\n");
	/* V4: DP4 x TP4 agg over four 4-GPU nodes: one DP rank per node */
	EXPECT(layout(GROUPS("vllm", "", G("agg", 1, 16, ",\"dp\":4,\"tp\":4")), "n[0-3]", 4, NULL),
	    "agg/0@n0{0,1,2,3} r=0 h=6100 b=0 kv=5200 nx=5400 sys=7500 rpc=8400\n"
	    "agg/0@n1{0,1,2,3} r=1 h=6100 b=0 kv=5201 nx=5400 sys=7501 rpc=8400\n"
	    "agg/0@n2{0,1,2,3} r=2 h=6100 b=0 kv=5202 nx=5400 sys=7502 rpc=8400\n"
	    "agg/0@n3{0,1,2,3} r=3 h=6100 b=0 kv=5203 nx=5400 sys=7503 rpc=8400\n");
	/* V7: DP2 x TP2 x PP2 over two 4-GPU nodes */
	EXPECT(layout(GROUPS("vllm", "", G("agg", 1, 8, ",\"dp\":2,\"tp\":2,\"pp\":2")), "n[0-1]", 4, NULL),
	    "agg/0@n0{0,1,2,3} r=0 h=6100 b=0 kv=5200 nx=5400 sys=7500 rpc=8400\n"
	    "agg/0@n1{0,1,2,3} r=1 h=6100 b=0 kv=5201 nx=5400 sys=7501 rpc=8400\n");
	/* A replica wider than a node: DP2 x TP8 on four 4-GPU nodes spans, headless followers */
	EXPECT(layout(GROUPS("vllm", "", G("agg", 1, 16, ",\"dp\":2,\"tp\":8")), "n[0-3]", 4, NULL),
	    "agg/0@n0{0,1,2,3} r=0 h=6100 b=0 kv=5200 nx=5400 sys=7500 rpc=0\n"
	    "agg/0@n1{0,1,2,3} r=1 h=0 b=0 kv=5201 nx=5401 sys=7501 rpc=0 headless\n"
	    "agg/0@n2{0,1,2,3} r=2 h=0 b=0 kv=5202 nx=5402 sys=7502 rpc=0 headless\n"
	    "agg/0@n3{0,1,2,3} r=3 h=0 b=0 kv=5203 nx=5403 sys=7503 rpc=0 headless\n");
	/* V8, V9 and the other per_node errors, verbatim */
	EXPECT(layout(GROUPS("vllm", "", G("prefill", 1, 8, ",\"dp\":7")), "n[0-1]", 4, NULL),
	    "error: prefill data-parallel-size=7, tensor-parallel-size=1, and pipeline-parallel-size=1 require 7 GPUs, but the endpoint has 8 allocated GPUs");
	EXPECT(layout(GROUPS("vllm", "", G("prefill", 1, 16, ",\"dp\":3,\"tp\":8")), "n[0-1]", 8, NULL),
	    "error: prefill data-parallel-size=3, tensor-parallel-size=8, and pipeline-parallel-size=1 require 24 GPUs, but the endpoint has 16 allocated GPUs");
	EXPECT(layout(GROUPS("vllm", "", G("agg", 1, 12, ",\"dp\":2,\"tp\":6")), "n[0-2]", 4, NULL),
	    "error: agg TP x PP replica size 6 does not divide evenly across nodes with 4 allocated GPUs each");
	EXPECT(layout(GROUPS("vllm", "", G("decode", 1, 12, ",\"dp\":4,\"tp\":3")), "n[0-2]", 4, NULL),
	    "error: decode TP x PP replica size 3 does not divide the node's 4 allocated GPUs");
}
END_TEST

START_TEST(test_per_gpu_vectors)	/* srtctl's per_gpu vectors (V10, V11), but every rank has its own HTTP port */
{
	char *got = layout(GROUPS("vllm", ",\"dp_launch_mode\":\"per_gpu\"", G("prefill", 1, 16, ",\"dp\":16")),
	    "n[0-1]", 8, NULL);
	ck_assert_ptr_nonnull(strstr(got, "prefill/0@n0{0} r=0 h=6100 b=7200 kv=5200 nx=5400 sys=7500 rpc=8400\n"));
	ck_assert_ptr_nonnull(strstr(got, "prefill/0@n0{7} r=7 h=6324 b=0 kv=5207 nx=5400 sys=7507 rpc=8400\n"));
	ck_assert_ptr_nonnull(strstr(got, "prefill/0@n1{0} r=8 h=6100 b=0 kv=5208 nx=5400 sys=7508 rpc=8400\n"));
	ck_assert_ptr_nonnull(strstr(got, "prefill/0@n1{7} r=15 h=6324 b=0 kv=5215 nx=5400 sys=7515 rpc=8400\n"));
	free(got);
	got = layout(GROUPS("vllm", ",\"dp_launch_mode\":\"per_gpu\"", G("decode", 2, 4, ",\"dp\":4")), "node0", 8, NULL);
	ck_assert_ptr_nonnull(strstr(got, "decode/0@node0{3} r=3 h=6196 b=0 kv=5203 nx=5400 sys=7503 rpc=8400\n"));
	ck_assert_ptr_nonnull(strstr(got, "decode/1@node0{4} r=0 h=6228 b=0 kv=5204 nx=5404 sys=7504 rpc=8401\n"));
	ck_assert_ptr_nonnull(strstr(got, "decode/1@node0{7} r=3 h=6324 b=0 kv=5207 nx=5404 sys=7507 rpc=8401\n"));
	free(got);
}
END_TEST

/* The engines' world size against the GPUs (vllm/config/parallel.py ParallelConfig, SGLang
 * server_args.py), and per_gpu ranks against data-parallel-size (vLLM: data_parallel_rank <
 * data_parallel_size). */
START_TEST(test_parallel_sizes)
{
	static const struct { const char *workers, *nodes; long gpn; const char *want; } cases[] = {
		/* TP x PP above the GPUs, on one node and across two */
		{ GROUPS("vllm", "", G("agg", 1, 4, ",\"tp\":8")), "n0", 4,
		  "error: agg tensor-parallel-size=8 x pipeline-parallel-size=1 is 8 GPUs, but the endpoint "
		  "has 4 allocated GPUs (1 node x 4)" },
		{ GROUPS("sglang", "", G("agg", 1, 8, ",\"tp\":4")), "n[0-1]", 4,
		  "error: agg tensor-parallel-size=4 x pipeline-parallel-size=1 is 4 GPUs, but the endpoint "
		  "has 8 allocated GPUs (2 nodes x 4)" },
		/* equal, or fewer on one node (GPUs left idle, as asked) */
		{ GROUPS("vllm", "", G("agg", 1, 8, ",\"tp\":4,\"pp\":2")), "n[0-1]", 4,
		  "agg/0@n0{0,1,2,3} r=0 h=6100 b=0 kv=5200 nx=5400 sys=7500 rpc=0\n"
		  "agg/0@n1{0,1,2,3} r=1 h=0 b=0 kv=5201 nx=5401 sys=7501 rpc=0\n" },
		{ GROUPS("vllm", "", G("agg", 1, 4, ",\"tp\":2")), "n0", 4,
		  "agg/0@n0{0,1,2,3} r=0 h=6100 b=0 kv=5200 nx=5400 sys=7500 rpc=0\n" },
		/* per_gpu with TP 2: ranks 0..7 of DP 4; the same as per_node is one process */
		{ GROUPS("vllm", ",\"dp_launch_mode\":\"per_gpu\"", G("agg", 1, 8, ",\"tp\":2,\"dp\":4")), "n0", 8,
		  "error: agg dp_launch_mode per_gpu starts one process per GPU, so with "
		  "tensor-parallel-size=2 x pipeline-parallel-size=1 its ranks would reach 7 while "
		  "data-parallel-size is 4: use dp_launch_mode per_node" },
		{ GROUPS("vllm", "", G("agg", 1, 8, ",\"tp\":2,\"dp\":4")), "n0", 8,
		  "agg/0@n0{0,1,2,3,4,5,6,7} r=0 h=6100 b=0 kv=5200 nx=5400 sys=7500 rpc=8400\n" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
		EXPECT(layout(cases[i].workers, cases[i].nodes, cases[i].gpn, NULL), cases[i].want);
}
END_TEST

START_TEST(test_jitter_and_capacity)
{
	ck_assert_int_eq(topology_jitter("12345"), 4691);
	ck_assert_int_eq(topology_jitter("144826"), 9653);
	ck_assert_int_eq(topology_jitter("145866"), 1733);
	ck_assert_int_eq(topology_jitter(""), 0);
	ck_assert_int_eq(topology_jitter("not-a-number"), 0);
	ck_assert_int_eq(topology_jitter(NULL), 0);
	EXPECT(layout(GROUPS("sglang", ",\"ports\":{\"http_base\":30000,\"bootstrap_base\":31000,\"job_jitter\":true}",
	    G("prefill", 1, 4, "")), "n0", 4, "12345"),
	    "prefill/0@n0{0,1,2,3} r=0 h=34691 b=35691 kv=5200 nx=5400 sys=7500 rpc=0\n");
	EXPECT(layout(GROUPS("sglang", "", G("prefill", 3, 8, "")), "n[0-1]", 8, NULL),
	    "error: prefill worker 2 needs node 3 of the job, but job.nodes has 2 nodes of 8 GPUs");
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("topology");
	TCase *tc = tcase_create("topology");
	tcase_add_test(tc, test_worked_vector);
	tcase_add_test(tc, test_allocation_table);
	tcase_add_test(tc, test_port_vectors);
	tcase_add_test(tc, test_per_node_vectors);
	tcase_add_test(tc, test_per_gpu_vectors);
	tcase_add_test(tc, test_parallel_sizes);
	tcase_add_test(tc, test_jitter_and_capacity);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
