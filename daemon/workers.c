#include "config.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "addrs.h"
#include "child.h"
#include "metrics.h"
#include "clock.h"
#include "endpoints.h"
#include "follow.h"
#include "httpc.h"
#include "hostlist.h"
#include "log.h"
#include "nodeaddr.h"
#include "sidecar.h"
#include "topology.h"
#include "workercmd.h"
#include "workers.h"
#include "xalloc.h"

enum { HEALTH_NONE, HEALTH_HTTP, HEALTH_TCP };

struct worker {
	struct child		 child;
	struct workers		*ws;
	size_t			 proc;		/* into the topology */
	char			 cvd[256];
	/* the health check: starting until the first healthy answer, ready after it */
	int			 htype;
	const struct health_cfg	*hc;
	struct httpc		*h;		/* 127.0.0.1:<its port> */
	struct httpc_req	*req;
	struct event		*htimer;
	unsigned		 hfails;	/* consecutive failed checks once ready */
	int			 hok;		/* the last check's outcome, -1 before any */
	char			 hlast[300];	/* what it said */
	double			 hlast_at;	/* monotonic */
};

/* Another node whose address only its own sidecar knows (job.network_interface): asked once. */
struct leader {
	struct workers		*ws;
	size_t			 node;
	char			 url[URL_HOST_MAX + 300];
	struct httpc		*h;
	struct httpc_req	*req;
	struct event		*retry;
	long			 backoff_ms;
	char			 why[1024];	/* what is awaited, for /status and the log */
};

struct workers {
	struct sidecar	*sc;
	struct topology	 topo;
	struct worker	*w;
	size_t		 n;
	int		 started;
	unsigned	 generation;	/* of the endpoint files the workers were started with */
	struct nodeaddr	*addr;		/* by node index: self and this node's leaders decided */
	char		**ips;		/* by node index: addr's, else the node's name */
	struct leader	*leaders;
	size_t		 nleaders, pending;
};

#define LEADER_TIMEOUT_MS	2000
#define LEADER_RETRY_MAX_MS	2000

static void ask_leader(struct leader *);

static void
leader_answered(const struct httpc_response *r, void *arg)
{
	struct leader *l = arg;
	struct workers *ws = l->ws;
	const char *node = ws->sc->cfg.job.nodes.v[l->node];
	char addr[NODEADDR_LEN], err[300], why[1024];
	struct nodeaddr *a = &ws->addr[l->node];

	l->req = NULL;
	if (r->outcome != HTTPC_OK)
		snprintf(err, sizeof err, "%s", r->detail ? r->detail : "no answer");
	else if (r->status != 200)
		snprintf(err, sizeof err, "/status answered HTTP %d", r->status);
	if ((r->outcome != HTTPC_OK || r->status != 200) ||
	    nodeaddr_from_status(r->body, r->len, addr, sizeof addr, err, sizeof err) != 0) {
		snprintf(why, sizeof why, "the address of %s from its sidecar at %s (%s)", node, l->url, err);
		if (strcmp(why, l->why) != 0)
			log_notice("workers: waiting for %s", why);
		snprintf(l->why, sizeof l->why, "%s", why);
		l->backoff_ms = l->backoff_ms == 0 ? 50 : l->backoff_ms * 2;
		if (l->backoff_ms > LEADER_RETRY_MAX_MS)
			l->backoff_ms = LEADER_RETRY_MAX_MS;
		struct timeval tv = { l->backoff_ms / 1000, (l->backoff_ms % 1000) * 1000 };
		evtimer_add(l->retry, &tv);
		sidecar_update(ws->sc);
		return;
	}
	a->quality = NODEADDR_GOOD;
	snprintf(a->addr, sizeof a->addr, "%s", addr);
	snprintf(a->source, sizeof a->source, "named by the sidecar of %s at %.180s", node, l->url);
	ws->ips[l->node] = a->addr;
	l->why[0] = '\0';
	ws->pending--;
	log_notice("workers: %s is %s (%s)", node, a->addr, a->source);
	sidecar_update(ws->sc);
}

static void
leader_retry(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	ask_leader(arg);
}

static void
ask_leader(struct leader *l)
{
	l->req = httpc_get(l->h, "/status", LEADER_TIMEOUT_MS, leader_answered, l);
}

/* Decide the address of this node and of each node whose sidecar leads one of its processes; a
 * multi-node job refuses an address other nodes cannot reach. Before the loop. */
static int
decide_addresses(struct workers *ws, int me, char *err, size_t errlen)
{
	const struct cfg *c = &ws->sc->cfg;
	const struct strv *nodes = &c->job.nodes;
	int multi = nodes->n > 1;
	ws->addr = xcalloc(nodes->n + 1, sizeof *ws->addr);
	ws->ips = xcalloc(nodes->n + 1, sizeof *ws->ips);
	ws->leaders = xcalloc(nodes->n + 1, sizeof *ws->leaders);
	for (size_t i = 0; i < nodes->n; i++)
		ws->ips[i] = nodes->v[i];
	if (ws->n == 0)
		return 0;
	if (ws->sc->iface_missing) {
		snprintf(err, errlen, "job.network_interface: node %s has no usable IPv4 address on interface %s",
		    c->job.node, c->job.network_interface);
		return -1;
	}
	ws->addr[me] = ws->sc->node_addr;
	ws->ips[me] = ws->addr[me].addr;
	if (multi && nodeaddr_check(&ws->addr[me], c->job.node, c->job.network_interface, err, errlen) != 0)
		return -1;
	for (size_t k = 0; k < ws->n; k++) {
		size_t L = ws->topo.procs[ws->w[k].proc].leader;
		struct leader *l;
		if (ws->ips[L] != nodes->v[L] || (int)L == me)
			continue;
		addrs_decide(c->job.node, nodes->v[L], c->job.network_interface, &ws->addr[L]);
		if (nodeaddr_check(&ws->addr[L], nodes->v[L], c->job.network_interface, err, errlen) != 0)
			return -1;
		ws->ips[L] = ws->addr[L].addr;
		if (ws->addr[L].quality != NODEADDR_REMOTE)
			continue;
		l = &ws->leaders[ws->nleaders];
		struct httpc_target t;
		if (follow_sidecar_of(c, nodes->v[L], l->url, sizeof l->url, &t, err, errlen) != 0)
			return -1;
		l->ws = ws;
		l->node = L;
		l->h = httpc_new(ws->sc->base, &t, 1, 1024 * 1024, LEADER_TIMEOUT_MS);
		l->retry = evtimer_new(ws->sc->base, leader_retry, l);
		snprintf(l->why, sizeof l->why, "the address of %s from its sidecar at %s", nodes->v[L], l->url);
		ws->nleaders++;
		ws->pending++;
		log_notice("workers: %s", ws->addr[L].source);
		ask_leader(l);
	}
	return 0;
}

static void health_schedule(struct worker *, long);

static void
health_answered(const struct httpc_response *r, void *arg)
{
	struct worker *w = arg;
	struct child *c = &w->child;
	const struct health_cfg *hc = w->hc;
	double now = mono_now();
	char why[600];

	w->req = NULL;
	w->hok = r->outcome == HTTPC_OK && (w->htype == HEALTH_TCP || r->status == 200);
	if (r->outcome != HTTPC_OK)
		snprintf(w->hlast, sizeof w->hlast, "%s", r->detail ? r->detail : "no answer");
	else if (w->htype == HEALTH_TCP)
		snprintf(w->hlast, sizeof w->hlast, "connected");
	else
		snprintf(w->hlast, sizeof w->hlast, "%s answered HTTP %d", hc->path, r->status);
	w->hlast_at = now;
	metrics_observe(OP_HEALTH_CHECK, w->hok ? ST_OK : r->outcome == HTTPC_TIMEOUT ? ST_TIMEOUT : ST_ERROR,
	    r->seconds);
	if (c->state == CHILD_STARTING) {
		if (w->hok) {
			w->hfails = 0;
			child_ready(c);
			health_schedule(w, hc->interval_ms);
		} else if ((now - c->spawned_at) * 1000.0 >= (double)hc->ready_timeout_ms) {
			snprintf(why, sizeof why, "not healthy within health.ready_timeout_ms %ld (last: %s)",
			    hc->ready_timeout_ms, w->hlast);
			child_fail(c, why);
		} else
			health_schedule(w, hc->interval_ms);
	} else if (c->state == CHILD_READY) {
		if (w->hok)
			w->hfails = 0;
		else if (++w->hfails >= (unsigned)hc->failures) {
			snprintf(why, sizeof why, "unhealthy: %u failed health checks in a row (last: %s)",
			    w->hfails, w->hlast);
			child_fail(c, why);
			return;
		}
		health_schedule(w, hc->interval_ms);
	}
}

static void
health_cb(evutil_socket_t fd, short what, void *arg)
{
	struct worker *w = arg;
	(void)fd;
	(void)what;
	if (w->child.state != CHILD_STARTING && w->child.state != CHILD_READY)
		return;
	if (w->htype == HEALTH_TCP)
		w->req = httpc_connect(w->h, w->hc->timeout_ms, health_answered, w);
	else
		w->req = httpc_get(w->h, w->hc->path, w->hc->timeout_ms, health_answered, w);
}

static void
health_schedule(struct worker *w, long ms)
{
	struct timeval tv = { ms / 1000, (ms % 1000) * 1000 };
	evtimer_add(w->htimer, &tv);
}

static void
health_cancel(struct worker *w)
{
	httpc_cancel(w->req);
	w->req = NULL;
	if (w->htimer != NULL)
		evtimer_del(w->htimer);
}

/* A new process runs: alive is healthy without a check; else the first check after a tenth of the
 * interval (at least 20 ms), so that a quick start is seen quickly. */
static void
worker_spawned(struct child *c)
{
	struct worker *w = (struct worker *)c;
	w->hfails = 0;
	w->hok = -1;
	w->hlast[0] = '\0';
	if (w->htype == HEALTH_NONE) {
		child_ready(c);
		return;
	}
	health_cancel(w);
	health_schedule(w, w->hc->interval_ms / 10 > 20 ? w->hc->interval_ms / 10 : 20);
}

static void
worker_changed(struct child *c, int old)
{
	struct worker *w = (struct worker *)c;
	if (c->state != CHILD_STARTING && c->state != CHILD_READY)
		health_cancel(w);
	if (c->state != old)
		sidecar_update(w->ws->sc);
}

static const struct child_ops worker_ops = { NULL, worker_spawned, worker_changed, NULL };

/* The check a process gets: its group's, none for a rank that serves nothing (headless, or a
 * multi-node rank after the first), on 127.0.0.1 at its HTTP or system port. */
static void
health_init(struct workers *ws, struct worker *w)
{
	const struct topo_process *p = &ws->topo.procs[w->proc];
	const struct health_cfg *hc = &ws->sc->cfg.workers.groups[ws->topo.endpoints[p->endpoint].group].health;
	int port = strcmp(hc->port, "sys") == 0 ? p->sys_port : p->http_port;
	struct httpc_target t;
	w->ws = ws;
	w->hc = hc;
	w->hok = -1;
	w->htype = strcmp(hc->type, "http") == 0 ? HEALTH_HTTP : strcmp(hc->type, "tcp") == 0 ? HEALTH_TCP :
	    HEALTH_NONE;
	if (p->headless || (p->nnodes > 1 && p->node_rank > 0) || port <= 0)
		w->htype = HEALTH_NONE;
	if (w->htype == HEALTH_NONE)
		return;
	httpc_numeric("127.0.0.1", port, &t);
	w->h = httpc_new(ws->sc->base, &t, 1, 64 * 1024, hc->timeout_ms);
	w->htimer = evtimer_new(ws->sc->base, health_cb, w);
}

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
		if (ws->topo.procs[i].node == (size_t)me) {
			ws->w[ws->n].proc = i;
			health_init(ws, &ws->w[ws->n++]);
		}
	if (ws->n > 0)
		log_notice("workers: %zu process%s on %s", ws->n, ws->n == 1 ? "" : "es", c->job.node);
	if (decide_addresses(ws, me, err, errlen) != 0) {
		workers_free(ws);
		return NULL;
	}
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
	workercmd_build(c, &ws->topo, w->proc, &c->job.nodes, ws->ips, &mc, &cmd);
	envs[0] = &cmd.env;
	snprintf(w->cvd, sizeof w->cvd, "%s", cmd.cvd);
	if (first) {
		child_init(&w->child, ws->sc->base, cmd.name, strv_dup(cmd.argv.v), child_env(envs, 1), cmd.log,
		    NULL, &c->workers.restart, c->workers.stop_timeout_ms, &worker_ops, w);
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
		if (ws->pending > 0 || (c->workers.wait_for_master && (e == NULL || !endpoints_ready(e))))
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

const char *
workers_waiting_for(const struct workers *ws)
{
	const struct endpoints *e;
	if (ws == NULL || ws->n == 0 || ws->started)
		return NULL;
	for (size_t i = 0; i < ws->nleaders; i++)
		if (ws->leaders[i].why[0] != '\0')
			return ws->leaders[i].why;
	e = ws->sc->endpoints;
	return ws->sc->cfg.workers.wait_for_master && (e == NULL || !endpoints_ready(e)) ?
	    "the master's endpoint files to be ready" : NULL;
}

void
workers_describe(const struct workers *ws, char *out, size_t len)
{
	const char *waiting = workers_waiting_for(ws);
	snprintf(out, len, "%zu/%zu workers running%s%s%s", workers_ready(ws), workers_count(ws),
	    waiting ? " (waiting for " : "", waiting ? waiting : "", waiting ? ")" : "");
}

json_t *
workers_status(const struct workers *ws)
{
	json_t *a = json_array();
	const char *waiting = workers_waiting_for(ws);
	for (size_t i = 0; ws != NULL && i < ws->n; i++) {
		const struct worker *w = &ws->w[i];
		const struct topo_process *p = &ws->topo.procs[w->proc];
		json_t *o = json_object();
		json_object_set_new(o, "name", json_string(ws->started ? w->child.name : ""));
		json_object_set_new(o, "role", json_string(p->role));
		json_object_set_new(o, "worker_index", json_integer(p->worker_index));
		json_object_set_new(o, "state", json_string(ws->started ? child_state_name(w->child.state) :
		    "waiting"));
		if (waiting != NULL)
			json_object_set_new(o, "waiting_for", json_string(waiting));
		json_object_set_new(o, "pid", ws->started && w->child.pid > 0 ? json_integer(w->child.pid) :
		    json_null());
		json_object_set_new(o, "restarts", json_integer(ws->started ? w->child.restarts : 0));
		json_object_set_new(o, "cuda_visible_devices", w->cvd[0] ? json_string(w->cvd) : json_null());
		json_object_set_new(o, "health", json_pack("{s:s, s:o, s:s, s:o, s:i}", "check",
		    w->htype == HEALTH_HTTP ? "http" : w->htype == HEALTH_TCP ? "tcp" : "none",
		    "ok", w->hok < 0 ? json_null() : json_boolean(w->hok), "last", w->hlast,
		    "age_ms", w->hlast_at > 0 ? json_integer((json_int_t)((mono_now() - w->hlast_at) * 1000)) :
		    json_null(), "failures", (int)w->hfails));
		json_object_set_new(o, "ready_s", ws->started && w->child.ready_seconds > 0 ?
		    json_real(w->child.ready_seconds) : json_null());
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
	for (size_t i = 0; i < ws->n; i++) {
		health_cancel(&ws->w[i]);
		if (ws->w[i].htimer != NULL)
			event_free(ws->w[i].htimer);
		httpc_free(ws->w[i].h);
		if (ws->started)
			child_free(&ws->w[i].child);
	}
	for (size_t i = 0; i < ws->nleaders; i++) {
		httpc_cancel(ws->leaders[i].req);
		event_free(ws->leaders[i].retry);
		httpc_free(ws->leaders[i].h);
	}
	free(ws->leaders);
	free(ws->addr);
	free(ws->ips);
	free(ws->w);
	topology_free(&ws->topo);
	free(ws);
}
