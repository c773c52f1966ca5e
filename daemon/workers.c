/* This node's GPU workers: their processes, health checks and addresses; their gangs are in
 * daemon/gangs.c. Everything that happens is reported through env->changed and acted on in the
 * sidecar's one step (workers_step). */
#include "config.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "addrs.h"
#include "clock.h"
#include "counters.h"
#include "hostlist.h"
#include "httpc.h"
#include "log.h"
#include "view.h"
#include "workercmd.h"
#include "workers.h"
#include "workers_int.h"
#include "xalloc.h"

#define LEADER_TIMEOUT_MS	2000
#define LEADER_RETRY_MAX_MS	2000

static void ask_leader(struct leader *);

static void
leader_answered(const struct httpc_response *r, void *arg)
{
	struct leader *l = arg;
	struct workers *ws = l->ws;
	const char *node = ws->cfg->job.nodes.v[l->node];
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
		ws->changed(ws->arg);
		return;
	}
	a->quality = NODEADDR_GOOD;
	snprintf(a->addr, sizeof a->addr, "%s", addr);
	snprintf(a->source, sizeof a->source, "named by the sidecar of %s at %.180s", node, l->url);
	ws->ips[l->node] = a->addr;
	l->why[0] = '\0';
	ws->pending--;
	log_notice("workers: %s is %s (%s)", node, a->addr, a->source);
	ws->changed(ws->arg);
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
decide_addresses(struct workers *ws, const struct workers_env *env, int me, char *err, size_t errlen)
{
	const struct cfg *c = ws->cfg;
	const struct strv *nodes = &c->job.nodes;
	int multi = nodes->n > 1;
	ws->addr = xcalloc(nodes->n + 1, sizeof *ws->addr);
	ws->ips = xcalloc(nodes->n + 1, sizeof *ws->ips);
	ws->leaders = xcalloc(nodes->n + 1, sizeof *ws->leaders);
	for (size_t i = 0; i < nodes->n; i++)
		ws->ips[i] = nodes->v[i];
	if (ws->n == 0)
		return 0;
	if (env->iface_missing) {
		snprintf(err, errlen, "job.network_interface: node %s has no usable IPv4 address on interface %s",
		    c->job.node, c->job.network_interface);
		return -1;
	}
	ws->addr[me] = *env->self;
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
		if ((l->h = peers_client(ws->peers, nodes->v[L], l->url, sizeof l->url, 1024 * 1024,
		    LEADER_TIMEOUT_MS, err, errlen)) == NULL)
			return -1;
		l->ws = ws;
		l->node = L;
		l->retry = evtimer_new(ws->base, leader_retry, l);
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

	char before[sizeof w->hlast];
	w->req = NULL;
	snprintf(before, sizeof before, "%s", w->hlast);
	w->hok = r->outcome == HTTPC_OK && (w->htype == HEALTH_TCP || r->status == 200);
	if (r->outcome != HTTPC_OK)
		snprintf(w->hlast, sizeof w->hlast, "%s", r->detail ? r->detail : "no answer");
	else if (w->htype == HEALTH_TCP)
		snprintf(w->hlast, sizeof w->hlast, "connected");
	else
		snprintf(w->hlast, sizeof w->hlast, "%s answered HTTP %d", hc->path, r->status);
	w->hlast_at = now;
	counters_observe(OP_HEALTH_CHECK, w->hok ? ST_OK : r->outcome == HTTPC_TIMEOUT ? ST_TIMEOUT : ST_ERROR,
	    r->seconds);
	/* what it says is part of the node's readiness reason (STATUS=): a new answer is news */
	if (strcmp(before, w->hlast) != 0)
		w->ws->changed(w->ws->arg);
	if (c->state == CHILD_STARTING) {
		if (w->hok) {
			w->hfails = 0;
			child_ready(c);
			health_schedule(w, hc->interval_ms);
		} else if ((now - c->spawned_at) * 1000.0 >= (double)hc->ready_timeout_ms) {
			snprintf(why, sizeof why, "not healthy within health.ready_timeout_ms %ld (last: %s)",
			    hc->ready_timeout_ms, w->hlast);
			w->unhealthy = 1;
			child_fail(c, why);
		} else
			health_schedule(w, hc->interval_ms);
	} else if (c->state == CHILD_READY) {
		if (w->hok)
			w->hfails = 0;
		else if (++w->hfails >= (unsigned)hc->failures) {
			snprintf(why, sizeof why, "unhealthy: %u failed health checks in a row (last: %s)",
			    w->hfails, w->hlast);
			w->unhealthy = 1;
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
	w->gang_stop = 0;
	w->unhealthy = 0;
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
	int down = c->state == CHILD_BACKOFF || c->state == CHILD_STOPPING || c->state == CHILD_STOPPED ||
	    c->state == CHILD_FATAL;
	if (c->state != CHILD_STARTING && c->state != CHILD_READY)
		health_cancel(w);
	/* A member that died (or was found hung) takes its gang down with it: a fact for the step. */
	if (w->gang != NULL && down && (old == CHILD_STARTING || old == CHILD_READY) && !w->gang_stop &&
	    !child_shutting_down(c) && !w->ws->stopping)
		gangs_member_down(w);
	if (c->state == CHILD_READY && old == CHILD_STARTING) {
		prom_hist_observe(&w->ws->ready[w->ws->topo.endpoints[w->ws->topo.procs[w->proc].endpoint].group],
		    view_ready_buckets, VIEW_READY_NBUCKETS, c->ready_seconds);
	}
	if (w->gang != NULL && c->state == CHILD_READY && w->gang->ready_at == 0 && gang_ready(w->gang))
		w->gang->ready_at = mono_now();
	if (c->state != old)
		w->ws->changed(w->ws->arg);
}


static const struct child_ops worker_ops = { NULL, worker_spawned, worker_changed, NULL };

/* The check a process gets: its group's, none for a rank that serves nothing (headless, or a
 * multi-node rank after the first), on 127.0.0.1 at its HTTP or system port. */
static void
health_init(struct workers *ws, struct worker *w)
{
	const struct topo_process *p = &ws->topo.procs[w->proc];
	const struct health_cfg *hc = &ws->cfg->workers.groups[ws->topo.endpoints[p->endpoint].group].health;
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
	w->h = httpc_new(ws->base, &t, 1, 64 * 1024, hc->timeout_ms);
	w->htimer = evtimer_new(ws->base, health_cb, w);
}

struct workers *
workers_new(const struct workers_env *env, struct topology *t, char *err, size_t errlen)
{
	struct workers *ws = xcalloc(1, sizeof *ws);
	const struct cfg *c = env->cfg;
	int me = hostlist_index(&c->job.nodes, c->job.node);
	ws->base = env->base;
	ws->cfg = c;
	ws->peers = env->peers;
	ws->changed = env->changed;
	ws->arg = env->arg;
	ws->topo = *t;	/* taken over */
	memset(t, 0, sizeof *t);
	ws->ready = xcalloc(c->workers.ngroups + 1, sizeof *ws->ready);
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
	if (decide_addresses(ws, env, me, err, errlen) != 0 || gangs_init(ws, me, err, errlen) != 0) {
		workers_free(ws);
		return NULL;
	}
	return ws;
}

/* Build (or rebuild) worker w's argv and environment from the endpoint files' variables. */
void
workers_render(struct workers *ws, struct worker *w, const struct kvlist *mc, int first)
{
	const struct cfg *c = ws->cfg;
	struct kvlist none = { 0 };
	struct worker_cmd cmd;
	const struct kvlist *envs[1];
	workercmd_build(c, &ws->topo, w->proc, &c->job.nodes, ws->ips, mc ? mc : &none, &cmd);
	envs[0] = &cmd.env;
	snprintf(w->cvd, sizeof w->cvd, "%s", cmd.cvd);
	if (first) {
		child_init(&w->child, ws->base, cmd.name, strv_dup(cmd.argv.v), child_env(envs, 1), cmd.log,
		    NULL, &c->workers.restart, c->workers.stop_timeout_ms, &worker_ops, w);
		w->child.managed = w->gang != NULL;
	} else {
		strv_freev(w->child.argv);
		strv_freev(w->child.envp);
		w->child.argv = strv_dup(cmd.argv.v);
		w->child.envp = child_env(envs, 1);
	}
	workercmd_free(&cmd);
}

/* What the workers wait for before they start, or NULL. */
static const char *
waiting_for(const struct workers *ws)
{
	if (ws->n == 0 || ws->started)
		return NULL;
	for (size_t i = 0; i < ws->nleaders; i++)
		if (ws->leaders[i].why[0] != '\0')
			return ws->leaders[i].why;
	if (gangs_unseen(ws) != NULL)
		return "the generation of its gang from the leader's sidecar (GET /gangs)";
	return ws->cfg->workers.wait_for_master && !ws->files_ready ? "the master's endpoint files to be ready" : NULL;
}

void
workers_step(struct workers *ws, const struct workers_files *f)
{
	const struct cfg *c;
	if (ws == NULL || ws->n == 0 || ws->stopping)
		return;
	c = ws->cfg;
	ws->files_ready = f->ready;
	gangs_step(ws);
	if (!ws->started) {
		if (waiting_for(ws) != NULL)
			return;
		ws->started = 1;
		ws->generation = f->generation;
		log_notice("workers: starting %zu on %s (endpoint generation %u)", ws->n, c->job.node,
		    ws->generation);
		for (size_t i = 0; i < ws->n; i++)
			workers_render(ws, &ws->w[i], f->env, 1);
		for (size_t i = 0; i < ws->n; i++)
			child_start(&ws->w[i].child);
		gangs_started(ws);	/* the first start counts toward the burst */
		return;
	}
	if (f->ready && f->generation != ws->generation) {
		char why[64];
		ws->generation = f->generation;
		if (strcmp(c->workers.on_master_restart, "restart") != 0)
			return;
		snprintf(why, sizeof why, "the master is at generation %u", ws->generation);
		for (size_t i = 0; i < ws->n; i++) {
			workers_render(ws, &ws->w[i], f->env, 0);
			ws->w[i].gang_stop = 1;	/* all restart: not a member failing */
			if (ws->w[i].gang != NULL)
				child_restart_in(&ws->w[i].child, why, 0);
			else if (child_running(&ws->w[i].child))
				child_fail(&ws->w[i].child, why);
		}
	}
}

void
workers_stop(struct workers *ws, int now)
{
	if (ws == NULL)
		return;
	ws->stopping = 1;
	for (size_t i = 0; ws->started && i < ws->n; i++)
		child_stop(&ws->w[i].child, now);
}

const struct topology *
workers_topology(const struct workers *ws)
{
	return ws ? &ws->topo : NULL;
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

void
workers_view(const struct workers *ws, struct view *v)
{
	double now = mono_now();
	if (ws == NULL)
		return;
	v->workers_waiting = view_str(v, waiting_for(ws));
	v->workers = xcalloc(ws->n + 1, sizeof *v->workers);
	for (size_t i = 0; i < ws->n; i++) {
		const struct worker *w = &ws->w[i];
		const struct topo_process *p = &ws->topo.procs[w->proc];
		struct view_worker *o = &v->workers[v->nworkers++];
		o->name = ws->started ? view_str(v, w->child.name) : "";
		o->role = p->role;
		o->worker_index = p->worker_index;
		o->state = ws->started ? child_state_name(w->child.state) : "waiting";
		o->reason = ws->started ? view_str(v, w->child.reason) : "";
		o->pid = ws->started && w->child.pid > 0 ? w->child.pid : 0;
		o->restarts = ws->started ? w->child.restarts : 0;
		o->cvd = w->cvd[0] ? view_str(v, w->cvd) : NULL;
		o->check = w->htype == HEALTH_HTTP ? "http" : w->htype == HEALTH_TCP ? "tcp" : "none";
		o->ok = w->hok;
		o->last = view_str(v, w->hlast);
		o->age_ms = w->hlast_at > 0 ? (now - w->hlast_at) * 1000.0 : -1;
		o->failures = w->hfails;
		o->ready_s = ws->started ? w->child.ready_seconds : 0;
		o->ports[VIEW_PORT_HTTP] = p->http_port;
		o->ports[VIEW_PORT_BOOTSTRAP] = p->bootstrap_port;
		o->ports[VIEW_PORT_KV_EVENTS] = p->kv_events_port;
		o->ports[VIEW_PORT_NIXL] = p->nixl_port;
		o->ports[VIEW_PORT_SYS] = p->sys_port;
		o->ports[VIEW_PORT_DP_RPC] = p->dp_rpc_port;
		o->dp_rank = p->dp_rank;
		o->group_index = (int)ws->topo.endpoints[p->endpoint].group;
		v->workers_healthy += ws->started && w->child.state == CHILD_READY;
	}
	if (ws->n > 0) {
		v->ready_hist = xcalloc(ws->cfg->workers.ngroups + 1, sizeof *v->ready_hist);
		for (size_t g = 0; g < ws->cfg->workers.ngroups; g++)
			v->ready_hist[v->nready_hist++] = (struct view_ready_hist){ ws->cfg->workers.groups[g].role, g,
			    ws->ready[g] };
	}
	gangs_view(ws, v);
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
	gangs_free(ws);
	free(ws->leaders);
	free(ws->addr);
	free(ws->ips);
	free(ws->w);
	free(ws->ready);
	topology_free(&ws->topo);
	free(ws);
}
