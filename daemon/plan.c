#include "config.h"
#include <malloc.h>
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

/* by_node[first[n] .. first[n+1]) are the indices of node n's processes, in allocation order. */
struct node_index {
	size_t	*first;
	size_t	*by_node;
};

static void
index_by_node(const struct topology *t, size_t nnodes, struct node_index *ix)
{
	size_t *fill = xcalloc(nnodes + 1, sizeof *fill);
	ix->first = xcalloc(nnodes + 1, sizeof *ix->first);
	ix->by_node = xcalloc(t->nprocs + 1, sizeof *ix->by_node);
	for (size_t i = 0; i < t->nprocs; i++)
		ix->first[t->procs[i].node + 1]++;
	for (size_t n = 0; n < nnodes; n++)
		ix->first[n + 1] += ix->first[n];
	for (size_t i = 0; i < t->nprocs; i++) {
		size_t n = t->procs[i].node;
		ix->by_node[ix->first[n] + fill[n]++] = i;
	}
	free(fill);
}

static json_t *
node_plan(const struct cfg *cfg, const struct topology *t, const struct node_index *ix,
    size_t node_index, char *const *addrs, const char *local_ip)
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
	for (size_t k = ix->first[node_index]; k < ix->first[node_index + 1]; k++) {
		struct worker_cmd w;
		size_t i = ix->by_node[k];
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
	struct node_index ix;
	char err[512], local_ip[64];
	json_t *root;
	int this = -1, rc;

	/* A one-shot run that allocates and frees a node's worth at a time: keep the freed heap instead
	 * of returning it and faulting it back in for the next node. */
	mallopt(M_TRIM_THRESHOLD, 256 * 1024 * 1024);
	mallopt(M_TOP_PAD, 16 * 1024 * 1024);

	if (topology_build(cfg, &cfg->job.nodes, cfg->job.gpus_per_node, &t, err, sizeof err) != 0)
		return EX_CONFIG;	/* check_config has reported it */
	endpoints_local_ipv4(local_ip, sizeof local_ip);
	index_by_node(&t, cfg->job.nodes.n, &ix);
	for (size_t i = 0; i < cfg->job.nodes.n; i++)
		if (strcmp(cfg->job.nodes.v[i], cfg->job.node) == 0)
			this = (int)i;
	root = json_object();
	json_object_set_new(root, "job_id", json_string(cfg->job.id));
	if (all) {
		/* Streamed a node at a time, one line each: thousands of nodes in bounded memory. */
		char *id = json_dumps(json_object_get(root, "job_id"), JSON_ENCODE_ANY);
		fprintf(f, "{\"job_id\":%s,\"nodes\":[\n", id);
		free(id);
		for (size_t i = 0; i < cfg->job.nodes.n; i++) {
			json_t *np = node_plan(cfg, &t, &ix, i, cfg->job.nodes.v, local_ip);
			char *line = json_dumps(np, JSON_COMPACT | JSON_PRESERVE_ORDER);
			fputs(line, f);
			fputs(i + 1 < cfg->job.nodes.n ? ",\n" : "\n", f);
			free(line);
			json_decref(np);
		}
		fputs("]}\n", f);
		rc = 0;
	} else if (this < 0) {
		fprintf(stderr, "job.node \"%s\" is not in job.nodes (use --node NAME)\n", cfg->job.node);
		rc = EX_CONFIG;
	} else {
		json_t *np = node_plan(cfg, &t, &ix, (size_t)this, cfg->job.nodes.v, local_ip);
		json_object_update(root, np);
		json_decref(np);
		json_dumpf(root, f, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
		fputc('\n', f);
		rc = 0;
	}
	json_decref(root);
	topology_free(&t);
	free(ix.first);
	free(ix.by_node);
	if (rc == 0 && fflush(f) != 0)
		rc = EX_IOERR;
	return rc;
}
