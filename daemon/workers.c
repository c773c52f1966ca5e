#include "config.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "child.h"
#include "endpoints.h"
#include "hostlist.h"
#include "log.h"
#include "sidecar.h"
#include "topology.h"
#include "workercmd.h"
#include "workers.h"
#include "xalloc.h"

struct worker {
	struct child	 child;
	size_t		 proc;		/* into the topology */
	char		 cvd[256];
};

struct workers {
	struct sidecar	*sc;
	struct topology	 topo;
	struct worker	*w;
	size_t		 n;
	int		 started;
	unsigned	 generation;	/* of the endpoint files the workers were started with */
};

static void
worker_changed(struct child *c, int old)
{
	struct workers *ws = c->arg;
	if (c->state != old)
		sidecar_update(ws->sc);
}

static const struct child_ops worker_ops = { NULL, NULL, worker_changed, NULL };

struct workers *
workers_new(struct sidecar *sc, char *err, size_t errlen)
{
	struct workers *ws = xcalloc(1, sizeof *ws);
	const struct cfg *c = &sc->cfg;
	int me = hostlist_index(&c->job.nodes, c->job.node);
	ws->sc = sc;
	if (topology_build(c, &c->job.nodes, c->job.gpus_per_node, &ws->topo, err, errlen) != 0) {
		free(ws);
		return NULL;
	}
	if (me < 0 && ws->topo.nprocs > 0)
		log_warn("workers: this node (%s) is not in job.nodes; it runs no workers", c->job.node);
	ws->w = xcalloc(ws->topo.nprocs + 1, sizeof *ws->w);
	for (size_t i = 0; me >= 0 && i < ws->topo.nprocs; i++)
		if (ws->topo.procs[i].node == (size_t)me)
			ws->w[ws->n++].proc = i;
	if (ws->n > 0)
		log_notice("workers: %zu process%s on %s", ws->n, ws->n == 1 ? "" : "es", c->job.node);
	return ws;
}

/* Build (or rebuild) worker k's argv and environment from the current endpoint files. */
static void
render(struct workers *ws, struct worker *w, int first)
{
	const struct cfg *c = &ws->sc->cfg;
	struct kvlist mc = { 0 };
	struct worker_cmd cmd;
	const struct kvlist *envs[1];
	if (ws->sc->endpoints != NULL)
		endpoints_worker_env(ws->sc->endpoints, &mc);
	workercmd_build(c, &ws->topo, w->proc, &c->job.nodes, c->job.nodes.v, &mc, &cmd);
	envs[0] = &cmd.env;
	snprintf(w->cvd, sizeof w->cvd, "%s", cmd.cvd);
	if (first) {
		child_init(&w->child, ws->sc->base, cmd.name, strv_dup(cmd.argv.v), child_env(envs, 1), cmd.log,
		    NULL, &c->workers.restart, c->workers.stop_timeout_ms, &worker_ops, ws);
	} else {
		strv_freev(w->child.argv);
		strv_freev(w->child.envp);
		w->child.argv = strv_dup(cmd.argv.v);
		w->child.envp = child_env(envs, 1);
	}
	workercmd_free(&cmd);
	kvlist_clear(&mc);
}

void
workers_update(struct workers *ws)
{
	const struct cfg *c;
	struct endpoints *e;
	if (ws == NULL || ws->n == 0 || ws->sc->stopping)
		return;
	c = &ws->sc->cfg;
	e = ws->sc->endpoints;
	if (!ws->started) {
		if (c->workers.wait_for_master && (e == NULL || !endpoints_ready(e)))
			return;
		ws->started = 1;
		ws->generation = e ? endpoints_generation(e) : 0;
		log_notice("workers: starting %zu on %s (endpoint generation %u)", ws->n, c->job.node,
		    ws->generation);
		for (size_t i = 0; i < ws->n; i++)
			render(ws, &ws->w[i], 1);
		for (size_t i = 0; i < ws->n; i++)
			child_start(&ws->w[i].child);
		return;
	}
	if (e != NULL && endpoints_ready(e) && endpoints_generation(e) != ws->generation) {
		ws->generation = endpoints_generation(e);
		if (strcmp(c->workers.on_master_restart, "restart") != 0)
			return;
		char why[64];
		snprintf(why, sizeof why, "the master is at generation %u", ws->generation);
		for (size_t i = 0; i < ws->n; i++) {
			render(ws, &ws->w[i], 0);
			if (child_running(&ws->w[i].child))
				child_fail(&ws->w[i].child, why);
		}
	}
}

void
workers_stop(struct workers *ws, int now)
{
	for (size_t i = 0; ws != NULL && ws->started && i < ws->n; i++)
		child_stop(&ws->w[i].child, now);
}

size_t
workers_count(const struct workers *ws)
{
	return ws ? ws->n : 0;
}

size_t
workers_running(const struct workers *ws)
{
	size_t n = 0;
	for (size_t i = 0; ws != NULL && ws->started && i < ws->n; i++)
		n += child_running(&ws->w[i].child);
	return n;
}

size_t
workers_ready(const struct workers *ws)
{
	size_t n = 0;
	for (size_t i = 0; ws != NULL && ws->started && i < ws->n; i++)
		n += ws->w[i].child.state == CHILD_READY;
	return n;
}

json_t *
workers_status(const struct workers *ws)
{
	json_t *a = json_array();
	for (size_t i = 0; ws != NULL && i < ws->n; i++) {
		const struct worker *w = &ws->w[i];
		const struct topo_process *p = &ws->topo.procs[w->proc];
		json_t *o = json_object();
		json_object_set_new(o, "name", json_string(ws->started ? w->child.name : ""));
		json_object_set_new(o, "role", json_string(p->role));
		json_object_set_new(o, "worker_index", json_integer(p->worker_index));
		json_object_set_new(o, "state", json_string(ws->started ? child_state_name(w->child.state) :
		    "waiting"));
		json_object_set_new(o, "pid", ws->started && w->child.pid > 0 ? json_integer(w->child.pid) :
		    json_null());
		json_object_set_new(o, "restarts", json_integer(ws->started ? w->child.restarts : 0));
		json_object_set_new(o, "cuda_visible_devices", w->cvd[0] ? json_string(w->cvd) : json_null());
		json_object_set_new(o, "ports", json_pack("{s:i, s:i, s:i, s:i, s:i, s:i}", "http", p->http_port,
		    "bootstrap", p->bootstrap_port, "kv_events", p->kv_events_port, "nixl", p->nixl_port,
		    "sys", p->sys_port, "dp_rpc", p->dp_rpc_port));
		json_array_append_new(a, o);
	}
	return a;
}

void
workers_free(struct workers *ws)
{
	if (ws == NULL)
		return;
	for (size_t i = 0; ws->started && i < ws->n; i++)
		child_free(&ws->w[i].child);
	free(ws->w);
	topology_free(&ws->topo);
	free(ws);
}
