#include "config.h"
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>
#include <jansson.h>
#include "endpoints.h"
#include "master.h"
#include "plan.h"
#include "topology.h"
#include "workercmd.h"
#include "workerenv.h"
#include "xalloc.h"

static json_t *
env_json(const struct kvlist *l)
{
	json_t *o = json_object();
	for (size_t i = 0; i < l->n; i++)
		json_object_set_new(o, l->v[i].key, json_string(l->v[i].value));
	return o;
}

static json_t *
strv_json(char *const *v)
{
	json_t *a = json_array();
	for (; v != NULL && *v != NULL; v++)
		json_array_append_new(a, json_string(*v));
	return a;
}

static json_t *
process_json(const struct topo_process *p, const struct worker_cmd *w, const char *node)
{
	json_t *o = json_object(), *gpus = json_array();
	for (int g = 0; g < p->ngpus; g++)
		json_array_append_new(gpus, json_integer(p->gpus[g]));
	json_object_set_new(o, "node", json_string(node));
	json_object_set_new(o, "role", json_string(p->role));
	json_object_set_new(o, "worker_index", json_integer(p->worker_index));
	json_object_set_new(o, "name", json_string(w->name));
	json_object_set_new(o, "node_rank", json_integer(p->node_rank));
	json_object_set_new(o, "nnodes", json_integer(p->nnodes));
	if (p->dp_size > 0) {
		json_object_set_new(o, "dp_size", json_integer(p->dp_size));
		if (p->dp_rank >= 0)
			json_object_set_new(o, "dp_rank", json_integer(p->dp_rank));
		if (p->dp_size_local > 0) {
			json_object_set_new(o, "dp_size_local", json_integer(p->dp_size_local));
			json_object_set_new(o, "dp_start_rank", json_integer(p->dp_start_rank));
		}
	}
	json_object_set_new(o, "gpus", gpus);
	json_object_set_new(o, "cuda_visible_devices", w->cvd[0] ? json_string(w->cvd) : json_null());
	json_object_set_new(o, "ports", json_pack("{s:i, s:i, s:i, s:i, s:i, s:i}", "http", p->http_port,
	    "bootstrap", p->bootstrap_port, "kv_events", p->kv_events_port, "nixl", p->nixl_port, "sys",
	    p->sys_port, "dp_rpc", p->dp_rpc_port));
	json_object_set_new(o, "argv", strv_json(w->argv.v));
	json_object_set_new(o, "env", env_json(&w->env));
	json_object_set_new(o, "log", json_string(w->log));
	return o;
}

static json_t *
node_plan(const struct cfg *cfg, const struct topology *t, size_t node_index, char *const *addrs,
    const char *local_ip)
{
	const char *node = cfg->job.nodes.v[node_index];
	json_t *o = json_object(), *files = json_array(), *procs = json_array();
	struct kvlist mc = { 0 };
	char *store = xasprintf("%s/mooncake_store_config.json", cfg->job.run_dir);
	const char *master_addr = cfg->master.address[0] ? cfg->master.address : cfg->master.node;
	struct master_addr ma = { master_addr, cfg->master.rpc_port, cfg->master.http_metadata_port };

	json_object_set_new(o, "node", json_string(node));
	if (cfg->master.enabled && strcmp(cfg->master.node, node) == 0) {
		json_t *m = json_object();
		char **a = master_argv(cfg);
		json_object_set_new(m, "node", json_string(node));
		json_object_set_new(m, "role", json_string("master"));
		json_object_set_new(m, "argv", strv_json(a));
		json_object_set_new(m, "env", env_json(&cfg->master.env));
		json_object_set_new(m, "log", json_sprintf("%s/mooncake_master.log", cfg->job.run_dir));
		json_object_set_new(m, "pid_file", json_sprintf("%s/mooncake_master.pid", cfg->job.run_dir));
		json_object_set_new(o, "master", m);
		strv_freev(a);
	} else
		json_object_set_new(o, "master", json_null());
	/* The worker's own node gets its IPv4 as MOONCAKE_LOCAL_HOSTNAME, others their name. */
	workerenv_build(&mc, cfg->endpoints.flavor, &ma, store,
	    strcmp(node, cfg->job.node) == 0 ? local_ip : node, &cfg->endpoints.env);
	for (size_t i = 0; i < t->nprocs; i++) {
		struct worker_cmd w;
		if (t->procs[i].node != node_index)
			continue;
		workercmd_build(cfg, t, i, &cfg->job.nodes, addrs, &mc, &w);
		json_array_append_new(procs, process_json(&t->procs[i], &w, node));
		workercmd_free(&w);
	}
	json_object_set_new(o, "processes", procs);
	json_array_append_new(files, json_sprintf("%s/mooncake.env", cfg->job.run_dir));
	if (strcmp(cfg->endpoints.flavor, "vllm") == 0)
		json_array_append_new(files, json_string(store));
	json_array_append_new(files, json_sprintf("%s/endpoints.json", cfg->job.run_dir));
	json_object_set_new(o, "files", files);
	kvlist_clear(&mc);
	free(store);
	return o;
}

int
plan_print(const struct cfg *cfg, int all, FILE *f)
{
	struct topology t;
	char err[512], local_ip[64];
	json_t *root;
	int this = -1;

	if (topology_build(cfg, &cfg->job.nodes, cfg->job.gpus_per_node, &t, err, sizeof err) != 0)
		return EX_CONFIG;	/* check_config has reported it */
	endpoints_local_ipv4(local_ip, sizeof local_ip);
	for (size_t i = 0; i < cfg->job.nodes.n; i++)
		if (strcmp(cfg->job.nodes.v[i], cfg->job.node) == 0)
			this = (int)i;
	root = json_object();
	json_object_set_new(root, "job_id", json_string(cfg->job.id));
	if (all) {
		json_t *nodes = json_array();
		for (size_t i = 0; i < cfg->job.nodes.n; i++)
			json_array_append_new(nodes, node_plan(cfg, &t, i, cfg->job.nodes.v, local_ip));
		json_object_set_new(root, "nodes", nodes);
	} else if (this < 0) {
		fprintf(stderr, "job.node \"%s\" is not in job.nodes (use --node NAME)\n", cfg->job.node);
		json_decref(root);
		topology_free(&t);
		return EX_CONFIG;
	} else {
		json_t *np = node_plan(cfg, &t, (size_t)this, cfg->job.nodes.v, local_ip);
		json_object_update(root, np);
		json_decref(np);
	}
	json_dumpf(root, f, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	fputc('\n', f);
	json_decref(root);
	topology_free(&t);
	return fflush(f) == 0 ? 0 : EX_IOERR;
}
