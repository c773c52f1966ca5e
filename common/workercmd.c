#include "config.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "buf.h"
#include "parflags.h"
#include "workercmd.h"
#include "xalloc.h"

#define SGLANG_NCCL_BASE	17500
#define SGLANG_DIST_INIT_PORT	8300
#define VLLM_PORT_BASE		20000
#define VLLM_PORT_STRIDE	50
#define VLLM_DP_RPC_DEFAULT	8400

/* A placeholder's value: a string, or a number formatted only when a template uses it. */
struct fill {
	const char	*name;
	const char	*s;
	long		 n;
};

#define FILL_S(f, k, name_, str)	((f)[(k)++] = (struct fill){ (name_), (str), 0 })
#define FILL_N(f, k, name_, num)	((f)[(k)++] = (struct fill){ (name_), NULL, (long)(num) })

/* Replace every {name} we know; unknown ones stay as they are. The result is w's. */
static char *
substitute(struct worker_cmd *w, const char *in, const struct fill *f, size_t n)
{
	struct buf *b = &w->scratch;
	const char *p = in, *open = strchr(p, '{');
	if (open == NULL)
		return arena_strdup(&w->strings, in);
	b->len = 0;
	while (*p) {
		const char *close = open ? strchr(open, '}') : NULL;
		size_t i = n;
		if (open == NULL || close == NULL) {
			buf_puts(b, p);
			break;
		}
		for (i = 0; i < n; i++)
			if (strlen(f[i].name) == (size_t)(close - open - 1) &&
			    strncmp(f[i].name, open + 1, (size_t)(close - open - 1)) == 0)
				break;
		buf_add(b, p, (size_t)(open - p));
		if (i == n)
			buf_add(b, open, (size_t)(close + 1 - open));
		else if (f[i].s != NULL)
			buf_puts(b, f[i].s);
		else
			buf_long(b, f[i].n);
		p = close + 1;
		open = strchr(p, '{');
	}
	return arena_strndup(&w->strings, b->p, b->len);
}

/* Remove --flag (and its value, for value flags) from argv; returns the value it had, or NULL. */
static const char *
drop_flag(struct strv *argv, const char *flag, int takes_value)
{
	size_t n = strlen(flag);
	const char *value = NULL;
	for (size_t i = 0; i < argv->n;) {
		char *a = argv->v[i];
		size_t span = 0;
		if (a[0] != flag[0] || (n > 1 && a[1] != flag[1]) || (n > 2 && a[2] != flag[2])) {
			i++;	/* cannot be it: most arguments differ within their first three bytes */
			continue;
		}
		if (strcmp(a, flag) == 0)
			span = takes_value && i + 1 < argv->n ? 2 : 1;
		else if (takes_value && strncmp(a, flag, n) == 0 && a[n] == '=')
			span = 1;
		if (span == 0) {
			i++;
			continue;
		}
		value = span == 2 ? argv->v[i + 1] : a[n] == '=' ? a + n + 1 : NULL;
		memmove(argv->v + i, argv->v + i + span, (argv->n - i - span + 1) * sizeof(char *));
		argv->n -= span;
	}
	return value;
}

/* A literal, as it is (see workercmd.h: nothing writes or frees w's strings). */
static void
push(struct worker_cmd *w, const char *literal)
{
	strv_take(&w->argv, (char *)literal);
}

/* A literal flag and a copy of value. */
static void
push_str(struct worker_cmd *w, const char *flag, const char *value)
{
	push(w, flag);
	strv_take(&w->argv, arena_strdup(&w->strings, value));
}

static void
push_num(struct worker_cmd *w, const char *flag, long value)
{
	char t[LONG_STR_MAX];
	long_str(value, t);
	push_str(w, flag, t);
}

/* "0,1,2": a process's GPU indices, as CUDA_VISIBLE_DEVICES and --device-ids take them. */
static void
join_gpus(const struct topo_process *p, char *buf, size_t len)
{
	size_t at = 0;
	buf[0] = '\0';
	for (int x = 0; x < p->ngpus; x++) {
		char t[LONG_STR_MAX];
		size_t n = long_str(p->gpus[x], t);
		if (at + n + 2 > len)
			break;
		if (x)
			buf[at++] = ',';
		memcpy(buf + at, t, n + 1);
		at += n;
	}
}

static void
vllm_flags(const struct cfg *c, const struct topo_process *p, const char *leader_ip, struct worker_cmd *w)
{
	static const char *const owned_values[] = { "--data-parallel-size-local", "--data-parallel-start-rank",
		"--data-parallel-address", "--data-parallel-size", "--data-parallel-rank", "--master-addr",
		"--nnodes", "--node-rank", "--device-ids", NULL };
	const char *recipe_rpc = drop_flag(&w->argv, "--data-parallel-rpc-port", 1);
	int rpc = recipe_rpc ? atoi(recipe_rpc) : VLLM_DP_RPC_DEFAULT;
	for (int i = 0; owned_values[i] != NULL; i++)
		drop_flag(&w->argv, owned_values[i], 1);
	drop_flag(&w->argv, "--data-parallel-hybrid-lb", 0);
	drop_flag(&w->argv, "--headless", 0);
	if (c->workers.device_ids) {
		char ids[256];
		join_gpus(p, ids, sizeof ids);
		push_str(w, "--device-ids", ids);
	}
	switch (p->kind) {
	case TOPO_PER_GPU:
		push_num(w, "--data-parallel-rank", p->dp_rank);
		push_str(w, "--data-parallel-address", leader_ip);
		push_num(w, "--data-parallel-rpc-port", recipe_rpc ? rpc : p->dp_rpc_port);
		push_num(w, "--data-parallel-size", p->dp_size);
		break;
	case TOPO_PER_NODE:
		push_num(w, "--data-parallel-size-local", p->dp_size_local);
		push_num(w, "--data-parallel-start-rank", p->dp_start_rank);
		push_str(w, "--data-parallel-address", leader_ip);
		push_num(w, "--data-parallel-rpc-port", p->dp_rpc_port);
		push(w, "--data-parallel-hybrid-lb");
		push_num(w, "--data-parallel-size", p->dp_size);
		break;
	case TOPO_SPANNING:
	case TOPO_STANDARD:
		if (p->nnodes > 1) {
			push_str(w, "--master-addr", leader_ip);
			push_num(w, "--nnodes", p->nnodes);
			push_num(w, "--node-rank", p->node_rank);
		}
		if (p->kind == TOPO_SPANNING) {
			push_str(w, "--data-parallel-address", leader_ip);
			push_num(w, "--data-parallel-rpc-port", rpc);
			push_num(w, "--data-parallel-size", p->dp_size);
		}
		if (p->node_rank > 0)
			push(w, "--headless");
		break;
	}
}

static void
sglang_flags(const struct cfg *c, const struct topo_process *p, const char *leader_ip, struct worker_cmd *w)
{
	/* A deterministic NCCL port: SGLang's own free-port probe races between workers on a node. */
	drop_flag(&w->argv, "--nccl-port", 1);
	push_num(w, "--nccl-port", SGLANG_NCCL_BASE + (p->sys_port - c->workers.ports.sys_base));
	if (p->nnodes > 1) {
		drop_flag(&w->argv, "--dist-init-addr", 1);
		drop_flag(&w->argv, "--nnodes", 1);
		drop_flag(&w->argv, "--node-rank", 1);
		w->scratch.len = 0;
		buf_puts(&w->scratch, leader_ip);
		buf_add(&w->scratch, ":", 1);
		buf_long(&w->scratch, SGLANG_DIST_INIT_PORT);
		push_str(w, "--dist-init-addr", w->scratch.p);
		push_num(w, "--nnodes", p->nnodes);
		push_num(w, "--node-rank", p->node_rank);
	}
}

/* The group's tensor and pipeline parallel sizes above 1 (both engines default to 1), in the
 * flavor's own flag, unless the command carries them (-n has checked that it carries the same). */
static void
parallel_flags(const char *flavor, const struct worker_group *g, struct worker_cmd *w)
{
	for (int pp = 0; pp < 2; pp++) {
		const char *const *sp = parflags_spellings(flavor, pp);
		char spelling[64];
		long v;
		if (sp != NULL && (pp ? g->pp : g->tp) > 1 &&
		    !parflags_find(flavor, w->argv.v, pp, &v, spelling, sizeof spelling))
			push_num(w, sp[0], pp ? g->pp : g->tp);
	}
}

/* "role_wN_rK", or with a directory "dir/node_role_wN_rK.log" (8,192 of each for --plan=all). */
static char *
worker_name(struct worker_cmd *w, const char *dir, const char *node, const char *role, int index,
    const char *rank)
{
	struct buf *b = &w->scratch;
	b->len = 0;
	if (dir != NULL) {
		buf_puts(b, dir);
		buf_add(b, "/", 1);
		buf_puts(b, node);
		buf_add(b, "_", 1);
	}
	buf_puts(b, role);
	buf_add(b, "_w", 2);
	buf_long(b, index);
	buf_puts(b, rank);
	if (dir != NULL)
		buf_add(b, ".log", 4);
	return arena_strndup(&w->strings, b->p, b->len);
}

/* The environment, later entries winning: a key already there keeps its place. The value is w's,
 * the key a literal or copied. */
static void
env_put(struct worker_cmd *w, const char *key, int literal, char *value)
{
	struct kv *e = kvlist_slot(&w->env, key);
	if (e->key == NULL)
		e->key = literal ? (char *)key : arena_strdup(&w->strings, key);
	e->value = value;
}

static void
env_set(struct worker_cmd *w, const char *literal, const char *value)
{
	env_put(w, literal, 1, arena_strdup(&w->strings, value));
}

static void
env_num(struct worker_cmd *w, const char *literal, long value)
{
	char t[LONG_STR_MAX];
	long_str(value, t);
	env_set(w, literal, t);
}

/* Into w, whose lists are empty. */
static void
build(const struct cfg *c, const struct topology *t, size_t i, const struct strv *nodes,
    char *const *node_ips, const struct kvlist *mooncake, struct worker_cmd *w)
{
	const struct topo_process *p = &t->procs[i];
	const struct worker_group *g = &c->workers.groups[t->endpoints[p->endpoint].group];
	const char *node = nodes->v[p->node], *leader_ip = node_ips[p->leader];
	int vllm = strcmp(c->workers.flavor, "vllm") == 0;
	int processes = p->kind == TOPO_PER_GPU ? 2 : p->nnodes;	/* more than one: name by rank */
	struct fill f[32];
	size_t n = 0;
	char rank[32] = "";

	if (processes > 1) {
		memcpy(rank, "_r", 2);
		long_str(p->node_rank, rank + 2);
	}
	w->name = worker_name(w, NULL, NULL, p->role, p->worker_index, rank);
	w->log = worker_name(w, c->job.log_dir, node, p->role, p->worker_index, rank);
	join_gpus(p, w->cvd, sizeof w->cvd);

	FILL_S(f, n, "node", node);
	FILL_N(f, n, "node_index", p->node);
	FILL_S(f, n, "node_ip", node_ips[p->node]);
	FILL_S(f, n, "role", p->role);
	FILL_N(f, n, "worker_index", p->worker_index);
	FILL_S(f, n, "cuda_visible_devices", w->cvd);
	FILL_N(f, n, "http_port", p->http_port);
	FILL_N(f, n, "bootstrap_port", p->bootstrap_port);
	FILL_N(f, n, "kv_events_port", p->kv_events_port);
	FILL_N(f, n, "nixl_port", p->nixl_port);
	FILL_N(f, n, "sys_port", p->sys_port);
	FILL_N(f, n, "dp_rpc_port", p->dp_rpc_port);
	FILL_N(f, n, "dp_size", p->dp_size);
	FILL_N(f, n, "dp_size_local", p->dp_size_local);
	FILL_N(f, n, "dp_start_rank", p->dp_start_rank);
	FILL_N(f, n, "dp_rank", p->dp_rank < 0 ? 0 : p->dp_rank);
	FILL_S(f, n, "dp_address", leader_ip);
	FILL_N(f, n, "nnodes", p->nnodes);
	FILL_N(f, n, "node_rank", p->node_rank);
	FILL_S(f, n, "master_addr", leader_ip);
	FILL_S(f, n, "run_dir", c->job.run_dir);
	FILL_S(f, n, "job_id", c->job.id);

	for (char **a = g->command; *a != NULL; a++)
		strv_take(&w->argv, substitute(w, *a, f, n));
	parallel_flags(c->workers.flavor, g, w);
	if (vllm)
		vllm_flags(c, p, leader_ip, w);
	else if (strcmp(c->workers.flavor, "sglang") == 0)
		sglang_flags(c, p, leader_ip, w);

	/* Later entries win, in srtctl's order. */
	env_num(w, "DYN_SYSTEM_PORT", p->sys_port);
	for (size_t k = 0; k < g->env.n; k++)
		env_put(w, g->env.v[k].key, 0, substitute(w, g->env.v[k].value, f, n));
	if (p->ngpus < c->job.gpus_per_node && !(vllm && c->workers.device_ids))
		env_set(w, "CUDA_VISIBLE_DEVICES", w->cvd);
	else
		w->cvd[0] = '\0';
	if (vllm) {
		env_num(w, "DYN_VLLM_KV_EVENT_PORT", p->kv_events_port);
		env_num(w, "VLLM_NIXL_SIDE_CHANNEL_PORT", p->nixl_port);
		env_set(w, "VLLM_NIXL_SIDE_CHANNEL_HOST", node_ips[p->node]);
		/* Concurrent TP ranks of a multi-node endpoint race for it: left unset there. */
		if (p->nnodes <= 1) {
			long off = p->sys_port - c->workers.ports.sys_base;
			env_num(w, "VLLM_PORT", VLLM_PORT_BASE + VLLM_PORT_STRIDE * (off > 0 ? off : 0));
		}
	}
	for (size_t k = 0; mooncake != NULL && k < mooncake->n; k++)
		env_put(w, mooncake->v[k].key, 0, arena_strdup(&w->strings, mooncake->v[k].value));
}

void
workercmd_build(const struct cfg *c, const struct topology *t, size_t i, const struct strv *nodes,
    char *const *node_ips, const struct kvlist *mooncake, struct worker_cmd *w)
{
	memset(w, 0, sizeof *w);
	build(c, t, i, nodes, node_ips, mooncake, w);
}

void
workercmd_rebuild(const struct cfg *c, const struct topology *t, size_t i, const struct strv *nodes,
    char *const *node_ips, const struct kvlist *mooncake, struct worker_cmd *w)
{
	arena_reset(&w->strings);
	w->argv.n = 0;
	if (w->argv.v != NULL)
		w->argv.v[0] = NULL;
	w->env.n = 0;
	build(c, t, i, nodes, node_ips, mooncake, w);
}

void
workercmd_free(struct worker_cmd *w)
{
	arena_free(&w->strings);
	buf_free(&w->scratch);
	free(w->argv.v);	/* the strings were the arena's */
	free(w->env.v);
	memset(w, 0, sizeof *w);
}
