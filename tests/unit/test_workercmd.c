#include "config.h"
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "topo_helper.h"
#include "workercmd.h"
#include "unit.h"

static char *const ips[] = { "10.0.0.1", "10.0.0.2", "10.0.0.3", "10.0.0.4" };

/* Render process i of the layout; returns argv joined by spaces. */
static char *
render(const char *workers, const char *nodes, long gpn, size_t i, struct worker_cmd *w)
{
	struct cfg c;
	struct strv list;
	struct topology t;
	struct kvlist mc = { 0 };
	char err[512], *joined = xstrdup("");
	ck_assert_int_eq(topo_load(workers, nodes, gpn, "7", &c, &list, &t, err, sizeof err), 0);
	ck_assert_uint_lt(i, t.nprocs);
	kvlist_set(&mc, "MOONCAKE_MASTER", "10.0.0.1:50051");
	kvlist_set(&mc, "MOONCAKE_LOCAL_HOSTNAME", ips[t.procs[i].node]);
	workercmd_build(&c, &t, i, &list, ips, &mc, w);
	for (size_t k = 0; k < w->argv.n; k++) {
		char *s = xasprintf("%s%s%s", joined, k ? " " : "", w->argv.v[k]);
		free(joined);
		joined = s;
	}
	kvlist_clear(&mc);
	topology_free(&t);
	strv_free(&list);
	cfg_free(&c);
	return joined;
}

#define CMD(role, count, gpus, more, command) "{\"role\":\"" role "\",\"count\":" #count ",\"gpus\":" \
	#gpus more ",\"command\":" command "}"

START_TEST(test_per_gpu_recipe_rpc_port)	/* V13 */
{
	struct worker_cmd w;
	char *a = render(GROUPS("vllm", ",\"dp_launch_mode\":\"per_gpu\"", CMD("prefill", 1, 16, ",\"dp\":16",
	    "[\"vllm\",\"serve\",\"/m\",\"--data-parallel-rpc-port\",\"13345\"]")), "n[0-1]", 8, 5, &w);
	ck_assert_str_eq(a, "vllm serve /m --data-parallel-rank 5 --data-parallel-address 10.0.0.1 "
	    "--data-parallel-rpc-port 13345 --data-parallel-size 16");
	ck_assert_str_eq(w.name, "prefill_w0_r5");
	ck_assert_ptr_nonnull(strstr(w.log, "/n0_prefill_w0_r5.log"));
	ck_assert_str_eq(kvlist_get(&w.env, "CUDA_VISIBLE_DEVICES"), "5");
	ck_assert_ptr_null(kvlist_get(&w.env, "VLLM_PORT"));	/* the endpoint spans two nodes */
	free(a);
	workercmd_free(&w);
}
END_TEST

START_TEST(test_multi_node_tp)	/* V15: TP16 without DP on 2 x 8 GPUs */
{
	struct worker_cmd w;
	char *a = render(GROUPS("vllm", "", CMD("agg", 1, 16, ",\"tp\":16", "[\"vllm\",\"serve\",\"/m\",\"--headless\"]")),
	    "n[0-1]", 8, 0, &w);
	ck_assert_str_eq(a, "vllm serve /m --tensor-parallel-size 16 --master-addr 10.0.0.1 --nnodes 2 --node-rank 0");
	ck_assert_ptr_null(kvlist_get(&w.env, "CUDA_VISIBLE_DEVICES"));	/* full nodes */
	ck_assert_ptr_null(kvlist_get(&w.env, "VLLM_PORT"));
	free(a);
	workercmd_free(&w);
	a = render(GROUPS("vllm", "", CMD("agg", 1, 16, ",\"tp\":16", "[\"vllm\",\"serve\",\"/m\"]")), "n[0-1]", 8, 1, &w);
	ck_assert_str_eq(a, "vllm serve /m --tensor-parallel-size 16 --master-addr 10.0.0.1 --nnodes 2 --node-rank 1 --headless");
	ck_assert_str_eq(w.name, "agg_w0_r1");
	free(a);
	workercmd_free(&w);
}
END_TEST

START_TEST(test_per_node_flags)	/* V1 with --device-ids; recipe duplicates dropped */
{
	struct worker_cmd w;
	char *a = render(GROUPS("vllm", ",\"device_ids\":true", CMD("prefill", 1, 8, ",\"dp\":8",
	    "[\"vllm\",\"serve\",\"/m\",\"--port\",\"{http_port}\",\"--data-parallel-size-local\",\"99\","
	    "\"--data-parallel-hybrid-lb\",\"--headless\",\"--enable-expert-parallel\"]")), "node[0-1]", 4, 1, &w);
	ck_assert_str_eq(a, "vllm serve /m --port 6100 --enable-expert-parallel --device-ids 0,1,2,3 "
	    "--data-parallel-size-local 4 --data-parallel-start-rank 4 --data-parallel-address 10.0.0.1 "
	    "--data-parallel-rpc-port 8400 --data-parallel-hybrid-lb --data-parallel-size 8");
	ck_assert_ptr_null(kvlist_get(&w.env, "CUDA_VISIBLE_DEVICES"));
	ck_assert_str_eq(kvlist_get(&w.env, "DYN_VLLM_KV_EVENT_PORT"), "5204");
	ck_assert_str_eq(kvlist_get(&w.env, "VLLM_NIXL_SIDE_CHANNEL_PORT"), "5400");
	ck_assert_str_eq(kvlist_get(&w.env, "VLLM_NIXL_SIDE_CHANNEL_HOST"), "10.0.0.2");
	ck_assert_str_eq(w.name, "prefill_w0_r4");
	free(a);
	workercmd_free(&w);
}
END_TEST

START_TEST(test_vllm_port_and_cvd)
{
	struct worker_cmd w;
	char *a = render(GROUPS("vllm", "", CMD("agg", 2, 4, "", "[\"vllm\",\"serve\",\"--port\",\"{http_port}\"]")),
	    "n0", 8, 1, &w);
	ck_assert_str_eq(a, "vllm serve --port 6132");
	ck_assert_str_eq(kvlist_get(&w.env, "VLLM_PORT"), "20050");	/* sys 7501 */
	ck_assert_str_eq(kvlist_get(&w.env, "CUDA_VISIBLE_DEVICES"), "4,5,6,7");
	ck_assert_str_eq(kvlist_get(&w.env, "DYN_SYSTEM_PORT"), "7501");
	ck_assert_str_eq(w.name, "agg_w1");
	free(a);
	workercmd_free(&w);
	/* sys below its base clamps to VLLM_PORT's base */
	a = render(GROUPS("vllm", ",\"ports\":{\"sys_base\":7490}", CMD("agg", 1, 4, "", "[\"x\"]")), "n0", 8, 0, &w);
	ck_assert_str_eq(kvlist_get(&w.env, "VLLM_PORT"), "20000");
	free(a);
	workercmd_free(&w);
}
END_TEST

START_TEST(test_sglang_and_env_order)
{
	struct worker_cmd w;
	char *a = render(GROUPS("sglang", ",\"ports\":{\"sys_base\":7495}", CMD("decode", 2, 2,
	    ",\"env\":{\"MOONCAKE_MASTER\":\"mine\",\"CUDA_VISIBLE_DEVICES\":\"9\",\"WHERE\":\"{node}-{worker_index}\"}",
	    "[\"python3\",\"-m\",\"sglang.launch_server\",\"--nccl-port\",\"1\",\"--port\",\"{http_port}\"]")),
	    "gpu-[01-02]", 4, 1, &w);
	ck_assert_str_eq(a, "python3 -m sglang.launch_server --port 6132 --nccl-port 17501");
	ck_assert_str_eq(kvlist_get(&w.env, "CUDA_VISIBLE_DEVICES"), "2,3");
	ck_assert_str_eq(kvlist_get(&w.env, "MOONCAKE_MASTER"), "10.0.0.1:50051");
	ck_assert_str_eq(kvlist_get(&w.env, "WHERE"), "gpu-01-1");
	ck_assert_ptr_null(kvlist_get(&w.env, "VLLM_PORT"));
	free(a);
	workercmd_free(&w);
	/* multi-node SGLang: dist-init on the leader */
	a = render(GROUPS("sglang", "", CMD("prefill", 1, 8, ",\"tp\":8", "[\"s\"]")), "n[0-1]", 4, 1, &w);
	ck_assert_str_eq(a, "s --tp-size 8 --nccl-port 17501 --dist-init-addr 10.0.0.1:8300 --nnodes 2 --node-rank 1");
	free(a);
	workercmd_free(&w);
}
END_TEST

START_TEST(test_generic_placeholders)
{
	struct worker_cmd w;
	char *a = render(GROUPS("generic", "", CMD("agg", 1, 2, "", "[\"run\",\"{node}:{node_ip}:{role}:{worker_index}:"
	    "{cuda_visible_devices}:{http_port}:{job_id}:{unknown}\"]")), "n0", 4, 0, &w);
	ck_assert_str_eq(a, "run n0:10.0.0.1:agg:0:0,1:6100:7:{unknown}");
	free(a);
	workercmd_free(&w);
}
END_TEST

/* A group's tp and pp reach the command in the engine's own flag when the command leaves them
 * out (above 1: both default to 1), and are not repeated when it carries them. */
START_TEST(test_parallel_flags)
{
	static const struct { const char *workers; const char *argv; } cases[] = {
		{ GROUPS("vllm", "", CMD("agg", 1, 4, ",\"tp\":2,\"pp\":2", "[\"vllm\",\"serve\",\"/m\"]")),
		  "vllm serve /m --tensor-parallel-size 2 --pipeline-parallel-size 2" },
		{ GROUPS("vllm", "", CMD("agg", 1, 4, ",\"tp\":4", "[\"vllm\",\"serve\",\"/m\",\"-tp\",\"4\"]")),
		  "vllm serve /m -tp 4" },
		{ GROUPS("vllm", "", CMD("agg", 1, 4, ",\"tp\":4", "[\"vllm\",\"serve\",\"--tensor-parallel-size=4\"]")),
		  "vllm serve --tensor-parallel-size=4" },
		{ GROUPS("vllm", "", CMD("agg", 1, 4, "", "[\"vllm\",\"serve\",\"/m\"]")), "vllm serve /m" },
		{ GROUPS("sglang", "", CMD("agg", 1, 4, ",\"tp\":2,\"pp\":2", "[\"s\"]")),
		  "s --tp-size 2 --pp-size 2 --nccl-port 17500" },
		{ GROUPS("sglang", "", CMD("agg", 1, 4, ",\"tp\":4", "[\"s\",\"--tp\",\"4\"]")),
		  "s --tp 4 --nccl-port 17500" },
		{ GROUPS("generic", "", CMD("agg", 1, 4, ",\"tp\":4", "[\"w\"]")), "w" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct worker_cmd w;
		char *a = render(cases[i].workers, "n0", 4, 0, &w);
		ck_assert_str_eq(a, cases[i].argv);
		free(a);
		workercmd_free(&w);
	}
}
END_TEST

static void
same_cmd(const struct worker_cmd *a, const struct worker_cmd *b)
{
	ck_assert_str_eq(a->name, b->name);
	ck_assert_str_eq(a->log, b->log);
	ck_assert_str_eq(a->cvd, b->cvd);
	ck_assert_uint_eq(a->argv.n, b->argv.n);
	ck_assert_ptr_null(a->argv.v[a->argv.n]);
	for (size_t k = 0; k < a->argv.n; k++)
		ck_assert_str_eq(a->argv.v[k], b->argv.v[k]);
	ck_assert_uint_eq(a->env.n, b->env.n);
	for (size_t k = 0; k < a->env.n; k++) {
		ck_assert_str_eq(a->env.v[k].key, b->env.v[k].key);
		ck_assert_str_eq(a->env.v[k].value, b->env.v[k].value);
	}
}

/* workercmd_rebuild over whatever was built before (more or fewer arguments and variables, another
 * flavor's flags) gives what a fresh workercmd_build gives, process after process, both orders. */
START_TEST(test_rebuild_is_build)
{
	static const char *const layouts[] = {
		GROUPS("vllm", ",\"dp_launch_mode\":\"per_gpu\"", CMD("prefill", 1, 8, ",\"dp\":8",
		    "[\"vllm\",\"serve\",\"/m\",\"--port\",\"{http_port}\"]") ","
		    CMD("decode", 2, 4, ",\"tp\":4", "[\"vllm\",\"serve\",\"/m\",\"--headless\",\"--data-parallel-size\",\"9\"]") ","
		    CMD("agg", 1, 16, ",\"tp\":16", "[\"vllm\",\"serve\",\"/m\"]")),
		GROUPS("sglang", "", CMD("prefill", 1, 16, ",\"tp\":16", "[\"s\",\"--nnodes\",\"3\"]") ","
		    CMD("decode", 2, 8, "", "[\"s\"]")),
	};
	for (size_t l = 0; l < sizeof layouts / sizeof layouts[0]; l++) {
		struct cfg c;
		struct strv list;
		struct topology t;
		struct kvlist mc = { 0 };
		struct worker_cmd w, fresh;
		char err[512];
		ck_assert_int_eq(topo_load(layouts[l], "n[0-3]", 8, "7", &c, &list, &t, err, sizeof err), 0);
		ck_assert_uint_gt(t.nprocs, 2);
		kvlist_set(&mc, "MOONCAKE_MASTER", "10.0.0.1:50051");
		for (int order = 0; order < 2; order++) {
			for (size_t n = 0; n < t.nprocs; n++) {
				size_t i = order ? t.nprocs - 1 - n : n;
				if (n == 0)
					workercmd_build(&c, &t, i, &list, ips, &mc, &w);
				else
					workercmd_rebuild(&c, &t, i, &list, ips, &mc, &w);
				workercmd_build(&c, &t, i, &list, ips, &mc, &fresh);
				same_cmd(&w, &fresh);
				workercmd_free(&fresh);
			}
			workercmd_free(&w);
		}
		kvlist_clear(&mc);
		topology_free(&t);
		strv_free(&list);
		cfg_free(&c);
	}
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("workercmd");
	TCase *tc = tcase_create("workercmd");
	tcase_add_test(tc, test_per_gpu_recipe_rpc_port);
	tcase_add_test(tc, test_multi_node_tp);
	tcase_add_test(tc, test_per_node_flags);
	tcase_add_test(tc, test_vllm_port_and_cvd);
	tcase_add_test(tc, test_sglang_and_env_order);
	tcase_add_test(tc, test_generic_placeholders);
	tcase_add_test(tc, test_parallel_flags);
	tcase_add_test(tc, test_rebuild_is_build);
	suite_add_tcase(s, tc);
	return unit_run(s);
}
