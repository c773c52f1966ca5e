#include "config.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cfg.h"
#include "cfgdiff.h"
#include "child.h"
#include "endpoints.h"
#include "log.h"
#include "master.h"
#include "masterflags.h"
#include "reload.h"
#include "sidecar.h"
#include "topology.h"
#include "workers.h"

#define RELOAD_MAX_PATHS	64

static json_t *
strv_json(const struct strv *v)
{
	json_t *a = json_array();
	for (size_t i = 0; i < v->n; i++)
		json_array_append_new(a, json_string(v->v[i]));
	return a;
}

static int
same_proc(const struct topo_process *a, const struct topo_process *b)
{
	return a->endpoint == b->endpoint && a->kind == b->kind && strcmp(a->role, b->role) == 0 &&
	    a->worker_index == b->worker_index && a->node == b->node && a->node_rank == b->node_rank &&
	    a->nnodes == b->nnodes && a->leader == b->leader && a->ngpus == b->ngpus &&
	    memcmp(a->gpus, b->gpus, (size_t)a->ngpus) == 0 && a->http_port == b->http_port &&
	    a->bootstrap_port == b->bootstrap_port && a->kv_events_port == b->kv_events_port &&
	    a->nixl_port == b->nixl_port && a->sys_port == b->sys_port && a->dp_rpc_port == b->dp_rpc_port &&
	    a->dp_size == b->dp_size && a->dp_size_local == b->dp_size_local &&
	    a->dp_start_rank == b->dp_start_rank && a->dp_rank == b->dp_rank && a->headless == b->headless;
}

/* The layout (every process's node, GPUs, ports, ranks) is the one running. */
static int
same_layout(const struct topology *a, const struct topology *b)
{
	if (a == NULL || a->nprocs != b->nprocs)
		return a == NULL && b->nprocs == 0;
	for (size_t i = 0; i < a->nprocs; i++)
		if (!same_proc(&a->procs[i], &b->procs[i]))
			return 0;
	return 1;
}

#define SWAP(x, y) do { __typeof__(x) t_ = (x); (x) = (y); (y) = t_; } while (0)

/* The keys that apply live, moved into the running configuration (n takes the old values). */
static void
take_live(struct cfg *run, struct cfg *n)
{
	SWAP(run->master.command, n->master.command);
	SWAP(run->master.extra_args, n->master.extra_args);
	SWAP(run->master.env, n->master.env);
	for (size_t i = 0; i < run->workers.ngroups && i < n->workers.ngroups; i++) {
		SWAP(run->workers.groups[i].command, n->workers.groups[i].command);
		SWAP(run->workers.groups[i].env, n->workers.groups[i].env);
	}
}

/* The master's command line or environment differs from its process's: replaced and restarted. */
static int
master_reload(struct sidecar *s)
{
	const struct kvlist *env[] = { &s->cfg.master.env };
	struct child *c;
	char **argv, **envp;
	if (s->master == NULL)
		return 0;
	c = master_process(s->master);
	argv = master_argv(&s->cfg);
	envp = s->cfg.master.env.n ? child_env(env, 1) : NULL;
	if (strv_eq(argv, c->argv) && strv_eq(envp, c->envp)) {
		strv_freev(argv);
		strv_freev(envp);
		return 0;
	}
	strv_freev(c->argv);
	strv_freev(c->envp);
	c->argv = argv;
	c->envp = envp;
	if (!child_held(c))
		child_restart_asked(c, "reload: its command line or environment changed");
	return 1;
}

int
reload_apply(struct sidecar *s, char *msg, size_t len, const char **word, json_t **extra)
{
	struct cfg n;
	struct strv errs = { 0 }, warns = { 0 }, diff = { 0 }, fixed = { 0 }, restarted = { 0 };
	struct topology t = { 0 };
	json_t *root = cfg_read_json(s->cfg_path, &errs);	/* once: what is loaded is what is compared */
	char err[512];
	size_t ndiff;
	int code;
	if (root == NULL)
		cfg_defaults(&n);
	else if (cfg_load_json(root, &s->ov, &n, &errs) == 0) {
		cfg_check_exec(&n, child_environ_bytes(), sysconf(_SC_ARG_MAX), &errs);
		if (topology_build(&n, &n.job.nodes, n.job.gpus_per_node, &t, err, sizeof err) != 0)
			strv_pushf(&errs, "workers: %s", err);
		else if (n.master.runs_here && n.master.check_flags)
			master_flags_check(&n, 0, &errs, &warns);	/* cached only: no child run in the loop */
	}
	if (errs.n > 0) {
		for (size_t i = 0; i < errs.n; i++)
			log_err("reload: %s", errs.v[i]);
		snprintf(msg, len, "%s: %zu error%s; nothing changed", s->cfg_path, errs.n, errs.n == 1 ? "" : "s");
		*word = "invalid";
		*extra = json_pack("{s:o}", "errors", strv_json(&errs));
		code = 422;
		goto out;
	}
	ndiff = cfgdiff(s->cfg_root, root, &diff, RELOAD_MAX_PATHS);
	for (size_t i = 0; i < diff.n; i++)
		if (!cfgdiff_live(diff.v[i]))
			strv_push(&fixed, diff.v[i]);
	if (ndiff == 0) {
		snprintf(msg, len, "%s is unchanged", s->cfg_path);
		*word = "noop";
		code = 200;
		goto out;
	}
	/* what the master's flags decide beyond its command line: where it listens, its HA entry */
	if (n.master.rpc_port != s->cfg.master.rpc_port || n.master.http_metadata_port != s->cfg.master.http_metadata_port ||
	    n.master.metrics_port != s->cfg.master.metrics_port || strcmp(n.master.ha_entry, s->cfg.master.ha_entry) != 0)
		strv_push(&fixed, "master ports or HA entry (from master.extra_args)");
	if (fixed.n > 0 || ndiff > diff.n || !same_layout(workers_topology(s->workers), &t)) {
		snprintf(msg, len, "%s changes %s%s that a running sidecar cannot apply; nothing changed: restart "
		    "the sidecar (systemctl restart) to apply it", s->cfg_path, fixed.n ? fixed.v[0] : "the workers' layout",
		    fixed.n > 1 ? " and more" : "");
		*word = "conflict";
		*extra = json_pack("{s:o, s:o}", "changed", strv_json(&diff), "needs_restart", strv_json(&fixed));
		code = 409;
		goto out;
	}
	take_live(&s->cfg, &n);
	json_decref(s->cfg_root);
	s->cfg_root = root;
	root = NULL;
	if (master_reload(s))
		strv_push(&restarted, "mooncake_master");
	{
		struct kvlist env = { 0 };
		int have = s->endpoints != NULL && endpoints_worker_env(s->endpoints, &env) == 0;
		workers_reload(s->workers, have ? &env : NULL, &restarted);
		kvlist_clear(&env);
	}
	snprintf(msg, len, "%s reloaded: %zu key%s changed, %zu process%s restarted", s->cfg_path, diff.n,
	    diff.n == 1 ? "" : "s", restarted.n, restarted.n == 1 ? "" : "es");
	*word = "ok";
	*extra = json_pack("{s:o, s:o}", "changed", strv_json(&diff), "restarted", strv_json(&restarted));
	code = 200;
out:
	for (size_t i = 0; i < warns.n; i++)
		log_warn("reload: %s", warns.v[i]);
	json_decref(root);
	topology_free(&t);
	cfg_free(&n);
	strv_free(&errs);
	strv_free(&warns);
	strv_free(&diff);
	strv_free(&fixed);
	strv_free(&restarted);
	return code;
}
