/*
 * --plan: what a node (or every node) would run, as JSON. Each node is written straight into a buffer
 * (8,192 processes would otherwise be 300,000 JSON nodes); --plan=all prints one compact line per node,
 * --plan reads its one node back to print it indented.
 */
#include "config.h"
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>
#include <jansson.h>
#include "addrs.h"
#include "buf.h"
#include "master.h"
#include "masterflags.h"
#include "log.h"
#include "plan.h"
#include "topology.h"
#include "workercmd.h"
#include "workerenv.h"
#include "xalloc.h"

/* --plan=all writes out what it has at this size: the buffer stays in the cache, its pages few. */
#define PLAN_FLUSH	(64 * 1024)

/* A member's name: key() for the names written here (nothing to escape), data_key() for names
 * that come from the configuration. key() and the fields that call it are inlined, so that the
 * length of each literal name is known at compile time. */
static inline __attribute__((always_inline)) void
key(struct buf *b, int *first, const char *k)
{
	if (!*first)
		buf_add(b, ",", 1);
	*first = 0;
	buf_add(b, "\"", 1);
	buf_add(b, k, strlen(k));
	buf_add(b, "\":", 2);
}

static void
data_key(struct buf *b, int *first, const char *k)
{
	if (!*first)
		buf_add(b, ",", 1);
	*first = 0;
	buf_json_string(b, k);
	buf_add(b, ":", 1);
}

static inline __attribute__((always_inline)) void
str_field(struct buf *b, int *first, const char *k, const char *v)
{
	key(b, first, k);
	if (v != NULL)
		buf_json_string(b, v);
	else
		buf_puts(b, "null");
}

static inline __attribute__((always_inline)) void
int_field(struct buf *b, int *first, const char *k, long v)
{
	key(b, first, k);
	buf_long(b, v);
}

static inline __attribute__((always_inline)) void
strv_field(struct buf *b, int *first, const char *k, char *const *v)
{
	key(b, first, k);
	buf_add(b, "[", 1);
	for (int i = 0; v != NULL && v[i] != NULL; i++) {
		if (i)
			buf_add(b, ",", 1);
		buf_json_string(b, v[i]);
	}
	buf_add(b, "]", 1);
}

static inline __attribute__((always_inline)) void
env_field(struct buf *b, int *first, const char *k, const struct kvlist *l)
{
	int inner = 1;
	key(b, first, k);
	buf_add(b, "{", 1);
	for (size_t i = 0; i < l->n; i++) {
		data_key(b, &inner, l->v[i].key);
		if (l->v[i].value != NULL)
			buf_json_string(b, l->v[i].value);
		else
			buf_puts(b, "null");
	}
	buf_add(b, "}", 1);
}

static void
process_json(struct buf *b, const struct topo_process *p, const struct worker_cmd *w, const char *node)
{
	int first = 1, in = 1;
	buf_add(b, "{", 1);
	str_field(b, &first, "node", node);
	str_field(b, &first, "role", p->role);
	int_field(b, &first, "worker_index", p->worker_index);
	str_field(b, &first, "name", w->name);
	int_field(b, &first, "node_rank", p->node_rank);
	int_field(b, &first, "nnodes", p->nnodes);
	if (p->dp_size > 0) {
		int_field(b, &first, "dp_size", p->dp_size);
		if (p->dp_rank >= 0)
			int_field(b, &first, "dp_rank", p->dp_rank);
		if (p->dp_size_local > 0) {
			int_field(b, &first, "dp_size_local", p->dp_size_local);
			int_field(b, &first, "dp_start_rank", p->dp_start_rank);
		}
	}
	key(b, &first, "gpus");
	buf_add(b, "[", 1);
	for (int g = 0; g < p->ngpus; g++) {
		if (g)
			buf_add(b, ",", 1);
		buf_long(b, p->gpus[g]);
	}
	buf_add(b, "]", 1);
	str_field(b, &first, "cuda_visible_devices", w->cvd[0] ? w->cvd : NULL);
	key(b, &first, "ports");
	buf_add(b, "{", 1);
	int_field(b, &in, "http", p->http_port);
	int_field(b, &in, "bootstrap", p->bootstrap_port);
	int_field(b, &in, "kv_events", p->kv_events_port);
	int_field(b, &in, "nixl", p->nixl_port);
	int_field(b, &in, "sys", p->sys_port);
	int_field(b, &in, "dp_rpc", p->dp_rpc_port);
	buf_add(b, "}", 1);
	strv_field(b, &first, "argv", w->argv.v);
	env_field(b, &first, "env", &w->env);
	str_field(b, &first, "log", w->log);
	buf_add(b, "}", 1);
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

/* Each node's address as this machine sees it, decided the first time a plan needs it. */
struct addresses {
	struct nodeaddr	*a;
	char		**ips;	/* a[i].addr once decided, else the name */
	char		*decided;
	int		 all;	/* --plan=all: no name lookups for other nodes */
};

static void
address_of(const struct cfg *cfg, struct addresses *ad, size_t i)
{
	const char *node = cfg->job.nodes.v[i];
	if (ad->decided[i])
		return;
	/* A failed lookup can take tens of milliseconds: a thousand of them would make --plan=all take
	 * a minute. Each node decides its own at start; --plan --node NAME shows one. */
	if (ad->all && cfg->job.network_interface[0] == '\0' && strcmp(node, cfg->job.node) != 0) {
		ad->a[i].quality = NODEADDR_UNRESOLVED;
		snprintf(ad->a[i].addr, sizeof ad->a[i].addr, "%s", node);
		snprintf(ad->a[i].source, sizeof ad->a[i].source,
		    "not looked up by --plan=all: the name is shown; %s resolves it at start", node);
	} else
		addrs_decide(cfg->job.node, node, cfg->job.network_interface, &ad->a[i]);
	ad->ips[i] = ad->a[i].addr;
	ad->decided[i] = 1;
}

/* "addresses": the node's own and those of the leaders its processes dial, with their sources. */
static void
addresses_field(struct buf *b, int *first, const struct cfg *cfg, const struct topology *t,
    const struct node_index *ix, struct addresses *ad, size_t node_index)
{
	char *shown = xcalloc(cfg->job.nodes.n + 1, 1);
	int in = 1;
	key(b, first, "addresses");
	buf_add(b, "{", 1);
	for (size_t k = ix->first[node_index]; k <= ix->first[node_index + 1]; k++) {
		size_t n = k < ix->first[node_index + 1] ? t->procs[ix->by_node[k]].leader : node_index;
		int in2 = 1;
		if (shown[n])
			continue;
		shown[n] = 1;
		address_of(cfg, ad, n);
		data_key(b, &in, cfg->job.nodes.v[n]);
		buf_add(b, "{", 1);
		str_field(b, &in2, "address", ad->a[n].addr);
		str_field(b, &in2, "source", ad->a[n].source);
		buf_add(b, "}", 1);
	}
	buf_add(b, "}", 1);
	free(shown);
}

/* The endpoint files' paths, the same on every node. */
struct run_files {
	char	*env, *store, *endpoints;
};

static void
node_plan(struct buf *b, const struct cfg *cfg, const struct topology *t, const struct node_index *ix,
    size_t node_index, struct addresses *ad, const struct run_files *rf)
{
	const char *node = cfg->job.nodes.v[node_index];
	struct kvlist mc = { 0 };
	struct worker_cmd w;
	char *path;
	const char *master_addr = cfg->master.address[0] ? cfg->master.address : cfg->master.node;
	struct master_addr ma = { master_addr, cfg->master.rpc_port, cfg->master.http_metadata_port,
	    cfg->master.ha_entry };
	int first = 1;

	buf_add(b, "{", 1);
	str_field(b, &first, "node", node);
	key(b, &first, "master");
	if (cfg->master.enabled && strcmp(cfg->master.node, node) == 0) {
		char **a = master_argv(cfg);
		int in = 1;
		buf_add(b, "{", 1);
		str_field(b, &in, "node", node);
		str_field(b, &in, "role", "master");
		strv_field(b, &in, "argv", a);
		env_field(b, &in, "env", &cfg->master.env);
		path = xasprintf("%s/mooncake_master.log", cfg->job.run_dir);
		str_field(b, &in, "log", path);
		free(path);
		path = xasprintf("%s/mooncake_master.pid", cfg->job.run_dir);
		str_field(b, &in, "pid_file", path);
		free(path);
		buf_add(b, "}", 1);
		strv_freev(a);
	} else
		buf_puts(b, "null");
	addresses_field(b, &first, cfg, t, ix, ad, node_index);
	/* MOONCAKE_LOCAL_HOSTNAME: the node's own address, the one its workers bind. */
	workerenv_build(&mc, cfg->endpoints.flavor, &ma, rf->store, ad->ips[node_index], &cfg->endpoints.env);
	key(b, &first, "processes");
	buf_add(b, "[", 1);
	for (size_t k = ix->first[node_index]; k < ix->first[node_index + 1]; k++) {
		size_t i = ix->by_node[k];
		if (k > ix->first[node_index]) {
			workercmd_rebuild(cfg, t, i, &cfg->job.nodes, ad->ips, &mc, &w);
			buf_add(b, ",", 1);
		} else
			workercmd_build(cfg, t, i, &cfg->job.nodes, ad->ips, &mc, &w);
		process_json(b, &t->procs[i], &w, node);
	}
	if (ix->first[node_index + 1] > ix->first[node_index])
		workercmd_free(&w);
	buf_add(b, "]", 1);
	key(b, &first, "files");
	buf_add(b, "[", 1);
	buf_json_string(b, rf->env);
	if (strcmp(cfg->endpoints.flavor, "vllm") == 0) {
		buf_add(b, ",", 1);
		buf_json_string(b, rf->store);
	}
	buf_add(b, ",", 1);
	buf_json_string(b, rf->endpoints);
	buf_add(b, "]}", 2);
	kvlist_clear(&mc);
}

int
plan_print(const struct cfg *cfg, const struct topology *t, int all, FILE *f)
{
	struct node_index ix;
	struct buf b = { 0 };
	struct addresses ad;
	struct run_files rf = { xasprintf("%s/mooncake.env", cfg->job.run_dir),
		xasprintf("%s/mooncake_store_config.json", cfg->job.run_dir),
		xasprintf("%s/endpoints.json", cfg->job.run_dir) };
	int this = -1, rc = 0;

	ad.a = xcalloc(cfg->job.nodes.n + 1, sizeof *ad.a);
	ad.ips = xcalloc(cfg->job.nodes.n + 1, sizeof *ad.ips);
	ad.decided = xcalloc(cfg->job.nodes.n + 1, 1);
	ad.all = all;
	for (size_t i = 0; i < cfg->job.nodes.n; i++)
		ad.ips[i] = cfg->job.nodes.v[i];
	index_by_node(t, cfg->job.nodes.n, &ix);
	for (size_t i = 0; i < cfg->job.nodes.n; i++)
		if (strcmp(cfg->job.nodes.v[i], cfg->job.node) == 0)
			this = (int)i;
	if (all) {
		buf_puts(&b, "{\"job_id\":");
		buf_json_string(&b, cfg->job.id);
		buf_puts(&b, ",\"nodes\":[\n");
		for (size_t i = 0; i < cfg->job.nodes.n; i++) {
			node_plan(&b, cfg, t, &ix, i, &ad, &rf);
			buf_puts(&b, i + 1 < cfg->job.nodes.n ? ",\n" : "\n");
			if (b.len > PLAN_FLUSH || i + 1 == cfg->job.nodes.n) {
				fwrite(b.p, 1, b.len, f);
				b.len = 0;
			}
		}
		fputs("]}\n", f);
	} else if (this < 0) {
		log_print(LOG_LVL_ERR, "job.node \"%s\" is not in job.nodes (use --node NAME)", cfg->job.node);
		rc = EX_CONFIG;
	} else {
		json_t *root = json_object(), *np;
		node_plan(&b, cfg, t, &ix, (size_t)this, &ad, &rf);
		np = json_loadb(b.p, b.len, 0, NULL);
		json_object_set_new(root, "job_id", json_string(cfg->job.id));
		json_object_update(root, np);
		json_dumpf(root, f, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
		fputc('\n', f);
		json_decref(np);
		json_decref(root);
	}
	buf_free(&b);
	free(ix.first);
	free(ix.by_node);
	free(ad.a);
	free(ad.ips);
	free(ad.decided);
	if (rc == 0 && fflush(f) != 0)
		rc = EX_IOERR;
	free(rf.env);
	free(rf.store);
	free(rf.endpoints);
	return rc;
}
