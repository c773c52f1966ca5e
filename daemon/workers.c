#include "config.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "addrs.h"
#include "backoff.h"
#include "child.h"
#include "metrics.h"
#include "clock.h"
#include "endpoints.h"
#include "follow.h"
#include "gangview.h"
#include "httpc.h"
#include "hostlist.h"
#include "log.h"
#include "nodeaddr.h"
#include "prom.h"
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
	struct gang		*gang;		/* NULL: restarted alone */
	int			 gang_stop;	/* stopped by its gang (or the sidecar): not a failure */
	int			 unhealthy;	/* stopped for its health checks */
};

/*
 * A gang: the processes of one endpoint (a data-parallel group, a replica spanning nodes), which
 * only work together. Its leader node (the endpoint's first) owns its generation: a member failing
 * on the leader, or a member node reporting a new failure, or not answering for
 * workers.peer_timeout_ms, starts a new generation, and every node restarts its members when it
 * sees one. A member failing elsewhere stops that node's members until the next generation. Nodes
 * learn from each other through GET /gangs only.
 */
struct gang {
	struct workers	*ws;
	char		 name[GANG_NAME_MAX];	/* "<role>_w<index>", as on every node */
	size_t		 leader;		/* node index */
	int		 is_leader;
	size_t		*local;			/* into ws->w */
	size_t		 nlocal;
	unsigned	 generation;		/* leader: its own; elsewhere the leader's, last seen */
	int		 seen;			/* elsewhere: the leader answered at least once */
	unsigned	 failures;		/* of members here */
	unsigned	 restarts;		/* generations applied here */
	int		 waiting;		/* members stopped here until the next generation */
	char		 pending[400];		/* a local failure, for the deferred step */
	size_t		*members;		/* leader: the other nodes with members */
	long long	*member_failures;	/* their failure counts as last seen */
	double		*member_down_since;	/* 0: answering */
	int		*member_down_counted;
	size_t		 nmembers;
	char		 why[500];		/* the last generation's cause */
	/* the restart policy, counted per gang (the leader's; a member elsewhere follows it) */
	unsigned	 gfailures;		/* consecutive generations, for the backoff */
	struct burst	 burst;			/* the last workers.restart.burst starts */
	double		 start_at;		/* monotonic: when this generation's members start */
	double		 ready_at;		/* when every member here was last healthy, 0: not */
	int		 pending_restart;	/* the pending failure asks for a restart (policy) */
	int		 pending_unhealthy;	/* it was stopped for its health checks */
	int		 over;			/* GANG_FATAL or GANG_STOPPED: stays down */
	int		 reason;		/* of the last generation: enum gang_reason */
	unsigned	 by_reason[4];		/* restarts applied here, by reason */
	const struct topo_endpoint *ep;		/* its endpoint: role, nodes (the leader first) */
};

/* Why a gang restarted, as the metrics say: one of its members failed (exited, or was stopped at
 * health.ready_timeout_ms), was found unhealthy, another node's sidecar stopped answering, or
 * (elsewhere than its leader) the leader started a new generation. */
enum gang_reason { GANG_MEMBER_FAILED, GANG_UNHEALTHY, GANG_PEER_LOST, GANG_LEADER };
static const char *const gang_reason_names[] = { "member_failed", "unhealthy", "peer_lost", "leader" };

enum { GANG_RUNNING, GANG_FATAL, GANG_STOPPED };
static const char *const gang_over_names[] = { "running", "fatal", "stopped" };

/* Another node's sidecar, polled for /gangs. */
struct peer {
	struct workers		*ws;
	size_t			 node;
	char			 url[URL_HOST_MAX + 300];
	struct httpc		*h;
	struct httpc_req	*req;
	struct event		*again;		/* the next poll */
	char			 etag[32];	/* what it last said, for ?since= */
	char			 error[300];	/* why the last poll failed, or "" */
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

/* Time from exec to the first healthy check (model loading), per group. */
static const double ready_buckets[] = { 0.1, 0.5, 1, 5, 10, 30, 60, 120, 300, 600, 1200, 1800 };
#define NREADY_BUCKETS	(sizeof ready_buckets / sizeof ready_buckets[0])

struct workers {
	struct sidecar	*sc;
	struct prom_hist *ready;	/* by group index */
	struct topology	 topo;
	struct worker	*w;
	size_t		 n;
	int		 started;
	unsigned	 generation;	/* of the endpoint files the workers were started with */
	struct nodeaddr	*addr;		/* by node index: self and this node's leaders decided */
	char		**ips;		/* by node index: addr's, else the node's name */
	struct leader	*leaders;
	size_t		 nleaders, pending;
	struct gang	*gangs;
	size_t		 ngangs;
	struct peer	*peers;
	size_t		 npeers;
	struct event	*gang_ev;	/* deferred: act on local member failures */
};

/* A peer's /gangs is long-polled: it answers when its gangs change, or after GANG_HOLD_MS; after a
 * failed poll (or from a peer that answers at once without a change) the next waits GANG_POLL_MS. */
#define GANG_POLL_MS		200
#define GANG_HOLD_MS		1000
#define GANG_PEER_TIMEOUT_MS	1000	/* beyond the hold */

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
		sidecar_changed(ws->sc);
		return;
	}
	a->quality = NODEADDR_GOOD;
	snprintf(a->addr, sizeof a->addr, "%s", addr);
	snprintf(a->source, sizeof a->source, "named by the sidecar of %s at %.180s", node, l->url);
	ws->ips[l->node] = a->addr;
	l->why[0] = '\0';
	ws->pending--;
	log_notice("workers: %s is %s (%s)", node, a->addr, a->source);
	sidecar_changed(ws->sc);
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
		if ((l->h = follow_sidecar_of(ws->sc, nodes->v[L], l->url, sizeof l->url, 1024 * 1024,
		    LEADER_TIMEOUT_MS, err, errlen)) == NULL)
			return -1;
		l->ws = ws;
		l->node = L;
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

static int	gang_ready(const struct gang *);
static const char	*gang_state(const struct gang *);

static void
worker_changed(struct child *c, int old)
{
	struct worker *w = (struct worker *)c;
	int down = c->state == CHILD_BACKOFF || c->state == CHILD_STOPPING || c->state == CHILD_STOPPED ||
	    c->state == CHILD_FATAL;
	if (c->state != CHILD_STARTING && c->state != CHILD_READY)
		health_cancel(w);
	/* A member that died (or was found hung) takes its gang down with it: acted on from the loop. */
	if (w->gang != NULL && down && (old == CHILD_STARTING || old == CHILD_READY) && !w->gang_stop &&
	    !c->shutting_down && !w->ws->sc->stopping && w->gang->pending[0] == '\0') {
		const struct restart_cfg *r = c->restart;
		int failed = c->last_code != 0 || c->last_signal > 0 || c->state == CHILD_STOPPING;
		snprintf(w->gang->pending, sizeof w->gang->pending, "%s: %.300s", c->name, c->reason);
		w->gang->pending_restart = r->policy == RESTART_ALWAYS || (r->policy == RESTART_ON_FAILURE && failed);
		w->gang->pending_unhealthy = w->unhealthy;
		event_active(w->ws->gang_ev, 0, 0);
	}
	if (c->state == CHILD_READY && old == CHILD_STARTING) {
		prom_hist_observe(&w->ws->ready[w->ws->topo.endpoints[w->ws->topo.procs[w->proc].endpoint].group],
		    ready_buckets, NREADY_BUCKETS, c->ready_seconds);
	}
	if (w->gang != NULL && c->state == CHILD_READY && w->gang->ready_at == 0 && gang_ready(w->gang))
		w->gang->ready_at = mono_now();
	if (c->state != old)
		sidecar_changed(w->ws->sc);
}

/* A new generation reached this node: restart every member here. */
static void
gang_apply(struct gang *g, const char *why, long delay_ms)
{
	struct workers *ws = g->ws;
	char reason[600];
	g->restarts++;
	g->waiting = 0;
	g->ready_at = 0;
	g->start_at = mono_now() + (double)delay_ms / 1000.0;
	snprintf(g->why, sizeof g->why, "%s", why);
	snprintf(reason, sizeof reason, "gang %s generation %u: %s", g->name, g->generation, why);
	log_notice("workers: %s; restarting its %zu member%s on %s in %ld ms", reason, g->nlocal,
	    g->nlocal == 1 ? "" : "s", ws->sc->cfg.job.node, delay_ms);
	g->by_reason[g->reason]++;
	for (size_t k = 0; ws->started && k < g->nlocal; k++) {
		struct worker *w = &ws->w[g->local[k]];
		w->gang_stop = 1;
		child_restart_in(&w->child, reason, delay_ms);
	}
}

/* Every member here stops and stays down: the gang went over its burst limit (fatal), or its
 * restart policy does not restart it. */
static void
gang_end(struct gang *g, int over, const char *why)
{
	struct workers *ws = g->ws;
	if (g->over != GANG_RUNNING)
		return;
	g->over = over;
	g->waiting = 0;
	snprintf(g->why, sizeof g->why, "%s", why);
	log_msg(over == GANG_FATAL ? LOG_LVL_ERR : LOG_LVL_NOTICE, "workers: gang %s %s: %s; its %zu member%s on %s "
	    "stay%s down", g->name, gang_over_names[over], why, g->nlocal, g->nlocal == 1 ? "" : "s",
	    ws->sc->cfg.job.node, g->nlocal == 1 ? "s" : "");
	for (size_t k = 0; ws->started && k < g->nlocal; k++) {
		struct worker *w = &ws->w[g->local[k]];
		w->gang_stop = 1;
		child_stop(&w->child, 0);
	}
}

/* The leader starts the next generation, after the gang's backoff, unless the gang went over its
 * burst limit or its policy lets it stay down. */
static void
gang_next(struct gang *g, int reason, const char *why, int restart)
{
	const struct restart_cfg *r = &g->ws->sc->cfg.workers.restart;
	double now = mono_now();
	char buf[700];
	if (g->over != GANG_RUNNING)
		return;
	if (!restart) {
		snprintf(buf, sizeof buf, "%s; restart policy %s", why, cfg_policy_name(r->policy));
		gang_end(g, GANG_STOPPED, buf);
		return;
	}
	if (burst_exceeded(&g->burst, now, r->burst_window_ms)) {
		snprintf(buf, sizeof buf, "more than %ld starts in %ld ms; not restarting (last: %s)", r->burst,
		    r->burst_window_ms, why);
		gang_end(g, GANG_FATAL, buf);
		return;
	}
	if (backoff_reset_due(g->ready_at, now, r->reset_after_ms))
		g->gfailures = 0;
	g->gfailures++;
	burst_record(&g->burst, (unsigned)r->burst, now);
	g->generation++;
	g->reason = reason;
	gang_apply(g, why, backoff_delay(r->backoff_initial_ms, r->backoff_max_ms, g->gfailures));
}

/* The deferred step: each gang with a member that failed here. */
static void
gang_step(evutil_socket_t fd, short what, void *arg)
{
	struct workers *ws = arg;
	(void)fd;
	(void)what;
	for (size_t i = 0; i < ws->ngangs; i++) {
		struct gang *g = &ws->gangs[i];
		char why[400];
		if (g->pending[0] == '\0')
			continue;
		snprintf(why, sizeof why, "%s", g->pending);
		g->pending[0] = '\0';
		g->failures++;
		if (ws->sc->stopping)
			continue;
		if (g->is_leader) {
			gang_next(g, g->pending_unhealthy ? GANG_UNHEALTHY : GANG_MEMBER_FAILED, why, g->pending_restart);
			continue;
		}
		/* Not the leader: stop the members here; the leader starts the next generation. */
		g->waiting = 1;
		snprintf(g->why, sizeof g->why, "%s", why);
		log_notice("workers: gang %s: %s; stopping its %zu member%s on %s until %s's next generation", g->name,
		    why, g->nlocal, g->nlocal == 1 ? "" : "s", ws->sc->cfg.job.node, ws->sc->cfg.job.nodes.v[g->leader]);
		for (size_t k = 0; k < g->nlocal; k++) {
			struct worker *w = &ws->w[g->local[k]];
			w->gang_stop = 1;
			child_stop(&w->child, 0);
		}
	}
	sidecar_changed(ws->sc);	/* what /gangs says changed: the peers' long-polls hear it */
}

/* What a peer said (or that it did not answer), applied to every gang it takes part in. */
static void
peer_answered(const struct httpc_response *r, void *arg)
{
	struct peer *pr = arg;
	struct workers *ws = pr->ws;
	const char *node = ws->sc->cfg.job.nodes.v[pr->node];
	struct gang_view v[64];
	int n = -1;
	char err[300] = "", why[500];
	double now = mono_now();

	char tag[32] = "";

	pr->req = NULL;
	if (r->outcome != HTTPC_OK)
		snprintf(err, sizeof err, "%s", r->detail ? r->detail : "no answer");
	else if (r->status != 200)
		snprintf(err, sizeof err, "/gangs answered HTTP %d", r->status);
	else
		n = gangview_parse(r->body, r->len, v, 64, err, sizeof err, tag, sizeof tag);
	if (!ws->sc->stopping) {
		/* the next poll at once with ?since=, unless the answer carried no etag or came back
		 * unchanged well before the hold (the peer ignores ?since=): then after GANG_POLL_MS */
		long next_ms = tag[0] != '\0' && (strcmp(tag, pr->etag) != 0 ||
		    r->seconds * 1000.0 >= GANG_HOLD_MS / 2) ? 0 : GANG_POLL_MS;
		struct timeval tv = { next_ms / 1000, (next_ms % 1000) * 1000 };
		snprintf(pr->etag, sizeof pr->etag, "%s", tag);
		evtimer_add(pr->again, &tv);
	}
	if (n < 0 && strcmp(err, pr->error) != 0)
		log_warn("workers: the sidecar of %s at %s: %s", node, pr->url, err);
	snprintf(pr->error, sizeof pr->error, "%s", n < 0 ? err : "");
	for (size_t i = 0; i < ws->ngangs; i++) {
		struct gang *g = &ws->gangs[i];
		const struct gang_view *gv = n > 0 ? gangview_find(v, (size_t)n, g->name) : NULL;
		if (!g->is_leader && g->leader == pr->node && gv != NULL) {
			if (!g->seen) {		/* before its members start: the generation they start in */
				g->seen = 1;
				g->generation = (unsigned)gv->generation;
				sidecar_changed(ws->sc);
			} else if (gv->over != GANGVIEW_RUNNING) {
				snprintf(why, sizeof why, "%s says it is %s", node, gang_over_names[gv->over]);
				gang_end(g, gv->over == GANGVIEW_FATAL ? GANG_FATAL : GANG_STOPPED, why);
			} else if ((unsigned)gv->generation != g->generation) {
				g->generation = (unsigned)gv->generation;
				snprintf(why, sizeof why, "%s started it", node);
				g->reason = GANG_LEADER;
				/* its members here start when the leader's do */
				gang_apply(g, why, (long)gv->starts_in_ms);
			}
			continue;
		}
		for (size_t k = 0; g->is_leader && k < g->nmembers; k++) {
			if (g->members[k] != pr->node)
				continue;
			if (n >= 0 && gv != NULL) {
				g->member_down_since[k] = 0;
				g->member_down_counted[k] = 0;
				if (gv->failures > g->member_failures[k]) {
					snprintf(why, sizeof why, "a member on %s failed", node);
					gang_next(g, GANG_MEMBER_FAILED, why,
					    ws->sc->cfg.workers.restart.policy != RESTART_NEVER);
				}
				g->member_failures[k] = gv->failures;	/* a restarted sidecar counts from 0 */
			} else if (g->member_down_since[k] == 0)
				g->member_down_since[k] = now;
			else if (!g->member_down_counted[k] && (now - g->member_down_since[k]) * 1000.0 >=
			    (double)ws->sc->cfg.workers.peer_timeout_ms) {
				g->member_down_counted[k] = 1;
				snprintf(why, sizeof why, "the sidecar of %s did not answer for %ld ms (%s)", node,
				    ws->sc->cfg.workers.peer_timeout_ms, pr->error);
				gang_next(g, GANG_PEER_LOST, why, 1);
			}
		}
	}
}

static void
poll_peer(evutil_socket_t fd, short what, void *arg)
{
	struct peer *pr = arg;
	char path[96];
	(void)fd;
	(void)what;
	if (pr->ws->sc->stopping || pr->req != NULL)
		return;
	if (pr->etag[0] != '\0')
		snprintf(path, sizeof path, "/gangs?since=%s&timeout_ms=%d", pr->etag, GANG_HOLD_MS);
	else
		snprintf(path, sizeof path, "/gangs");
	pr->req = httpc_get(pr->h, path, GANG_HOLD_MS + GANG_PEER_TIMEOUT_MS, peer_answered, pr);
}

static int
add_peer(struct workers *ws, size_t node, char *err, size_t errlen)
{
	struct peer *pr;
	for (size_t i = 0; i < ws->npeers; i++)
		if (ws->peers[i].node == node)
			return 0;
	pr = &ws->peers[ws->npeers];
	if ((pr->h = follow_sidecar_of(ws->sc, ws->sc->cfg.job.nodes.v[node], pr->url, sizeof pr->url,
	    1024 * 1024, GANG_HOLD_MS + GANG_PEER_TIMEOUT_MS, err, errlen)) == NULL)
		return -1;
	pr->ws = ws;
	pr->node = node;
	pr->again = evtimer_new(ws->sc->base, poll_peer, pr);
	ws->npeers++;
	return 0;
}

/* The gangs with members on this node (workers.gang "endpoint"): an endpoint of more than one
 * process. Before the loop: peers' names are resolved here. */
static int
gangs_init(struct workers *ws, int me, char *err, size_t errlen)
{
	const struct cfg *c = &ws->sc->cfg;
	const struct topology *t = &ws->topo;
	if (strcmp(c->workers.gang, "endpoint") != 0 || ws->n == 0)
		return 0;
	ws->gangs = xcalloc(t->nendpoints + 1, sizeof *ws->gangs);
	ws->peers = xcalloc(c->job.nodes.n + 1, sizeof *ws->peers);
	for (size_t e = 0; e < t->nendpoints; e++) {
		size_t nproc = 0, nlocal = 0;
		struct gang *g;
		for (size_t i = 0; i < t->nprocs; i++)
			nproc += t->procs[i].endpoint == e;
		for (size_t k = 0; k < ws->n; k++)
			nlocal += t->procs[ws->w[k].proc].endpoint == e;
		if (nproc < 2 || nlocal == 0)
			continue;
		g = &ws->gangs[ws->ngangs++];
		g->ws = ws;
		snprintf(g->name, sizeof g->name, "%s_w%d", t->endpoints[e].role, t->endpoints[e].index);
		g->ep = &t->endpoints[e];
		g->leader = t->endpoints[e].first_node;
		g->is_leader = (int)g->leader == me;
		g->generation = 1;
		g->local = xcalloc(nlocal, sizeof *g->local);
		for (size_t k = 0; k < ws->n; k++)
			if (t->procs[ws->w[k].proc].endpoint == e) {
				g->local[g->nlocal++] = k;
				ws->w[k].gang = g;
			}
		g->members = xcalloc((size_t)t->endpoints[e].nnodes + 1, sizeof *g->members);
		g->member_failures = xcalloc((size_t)t->endpoints[e].nnodes + 1, sizeof *g->member_failures);
		g->member_down_since = xcalloc((size_t)t->endpoints[e].nnodes + 1, sizeof *g->member_down_since);
		g->member_down_counted = xcalloc((size_t)t->endpoints[e].nnodes + 1, sizeof *g->member_down_counted);
		for (int k = 0; k < t->endpoints[e].nnodes; k++) {
			size_t node = t->endpoints[e].first_node + (size_t)k;
			if ((int)node == me)
				continue;
			if (g->is_leader)
				g->members[g->nmembers++] = node;
			if ((g->is_leader || node == g->leader) && add_peer(ws, node, err, errlen) != 0)
				return -1;
		}
	}
	ws->gang_ev = event_new(ws->sc->base, -1, 0, gang_step, ws);
	for (size_t i = 0; i < ws->npeers; i++) {
		struct timeval tv = { 0, 0 };
		evtimer_add(ws->peers[i].again, &tv);
	}
	if (ws->ngangs > 0)
		log_notice("workers: %zu gang%s with members here, %zu peer sidecar%s", ws->ngangs,
		    ws->ngangs == 1 ? "" : "s", ws->npeers, ws->npeers == 1 ? "" : "s");
	return 0;
}

/* A gang led elsewhere whose generation this node has not learnt yet: its members wait for it, so
 * that a failure is always measured against the generation they run in. */
static const struct gang *
gang_unseen(const struct workers *ws)
{
	for (size_t i = 0; i < ws->ngangs; i++)
		if (!ws->gangs[i].is_leader && !ws->gangs[i].seen)
			return &ws->gangs[i];
	return NULL;
}

void
workers_metrics(const struct workers *ws, struct buf *b)
{
	const struct cfg *c = ws != NULL ? &ws->sc->cfg : NULL;
	prom_family(b, "mooncake_sidecar_worker_ready_seconds", "Time from a worker's exec to its first healthy "
	    "check (model loading), by group.", "histogram");
	for (size_t g = 0; ws != NULL && ws->n > 0 && g < c->workers.ngroups; g++) {
		char idx[24];
		const char *l[] = { "group", c->workers.groups[g].role, "group_index", idx, NULL };
		snprintf(idx, sizeof idx, "%zu", g);
		prom_histogram(b, "mooncake_sidecar_worker_ready_seconds", l, ready_buckets, NREADY_BUCKETS,
		    &ws->ready[g]);
	}
	prom_family(b, "mooncake_sidecar_gang_generation",
	    "The generation of a gang with members on this node (one more at each gang restart).", "gauge");
	for (size_t i = 0; ws != NULL && i < ws->ngangs; i++) {
		const char *l[] = { "gang", ws->gangs[i].name, NULL };
		prom_sample(b, "mooncake_sidecar_gang_generation", l, ws->gangs[i].generation);
	}
	prom_family(b, "mooncake_sidecar_gang_restarts_total", "Gang restarts applied on this node, by group and reason.",
	    "counter");
	for (size_t i = 0; ws != NULL && i < ws->ngangs; i++)
		for (int r = 0; r < 4; r++) {
			const char *l[] = { "gang", ws->gangs[i].name, "group", ws->gangs[i].ep->role, "reason",
			    gang_reason_names[r], NULL };
			prom_sample(b, "mooncake_sidecar_gang_restarts_total", l, ws->gangs[i].by_reason[r]);
		}
	prom_family(b, "mooncake_sidecar_gang_up", "Whether a gang with members here may run: 0 once it is fatal "
	    "or stopped by its restart policy.", "gauge");
	for (size_t i = 0; ws != NULL && i < ws->ngangs; i++) {
		const char *l[] = { "gang", ws->gangs[i].name, NULL };
		prom_sample(b, "mooncake_sidecar_gang_up", l, ws->gangs[i].over == GANG_RUNNING);
	}
}

/* What another node reads of this node's gangs, as one tag: it changes when any of it does. */
void
workers_gangs_etag(const struct workers *ws, char *buf, size_t len)
{
	unsigned long long h = 14695981039346656037ULL;	/* FNV-1a */
	for (size_t i = 0; ws != NULL && i < ws->ngangs; i++) {
		const struct gang *g = &ws->gangs[i];
		char part[GANG_NAME_MAX + 64];
		int n = snprintf(part, sizeof part, "%s %u %u %s;", g->name, g->generation, g->failures, gang_state(g));
		for (int k = 0; k < n && k < (int)sizeof part; k++)
			h = (h ^ (unsigned char)part[k]) * 1099511628211ULL;
	}
	snprintf(buf, len, "%016llx", h);
}

/* fatal or stopped (down for good), waiting (for the leader's next generation), starting (a
 * member here is not healthy yet), or ready (every member here is). */
static const char *
gang_state(const struct gang *g)
{
	if (g->over != GANG_RUNNING)
		return gang_over_names[g->over];
	if (g->waiting)
		return "waiting";
	return gang_ready(g) ? "ready" : "starting";
}

/* Every member here is healthy. */
static int
gang_ready(const struct gang *g)
{
	for (size_t k = 0; k < g->nlocal; k++)
		if (!g->ws->started || g->ws->w[g->local[k]].child.state != CHILD_READY)
			return 0;
	return 1;
}

json_t *
workers_gangs(const struct workers *ws)
{
	json_t *a = json_array();
	double now = mono_now();
	for (size_t i = 0; ws != NULL && i < ws->ngangs; i++) {
		const struct gang *g = &ws->gangs[i];
		json_t *m = json_array();
		for (size_t k = 0; k < g->nlocal; k++)
			json_array_append_new(m, json_string(ws->started ? ws->w[g->local[k]].child.name : ""));
		double left = (g->start_at - now) * 1000.0;
		json_t *nodes = json_array();
		for (int k = 0; k < g->ep->nnodes; k++)
			json_array_append_new(nodes, json_string(ws->sc->cfg.job.nodes.v[g->leader + (size_t)k]));
		json_array_append_new(a, json_pack("{s:s, s:I, s:I, s:s, s:o, s:b, s:s, s:I, s:I, s:o, s:s}", "name",
		    g->name, "generation", (json_int_t)g->generation, "failures", (json_int_t)g->failures, "leader",
		    ws->sc->cfg.job.nodes.v[g->leader], "nodes", nodes, "waiting", g->waiting, "state", gang_state(g),
		    "restarts", (json_int_t)g->restarts, "starts_in_ms", (json_int_t)(left > 0 ? left + 0.5 : 0),
		    "members", m, "last_cause", g->why));
	}
	return a;
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
workers_new(struct sidecar *sc, struct topology *t, char *err, size_t errlen)
{
	struct workers *ws = xcalloc(1, sizeof *ws);
	const struct cfg *c = &sc->cfg;
	int me = hostlist_index(&c->job.nodes, c->job.node);
	ws->sc = sc;
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
	if (decide_addresses(ws, me, err, errlen) != 0 || gangs_init(ws, me, err, errlen) != 0) {
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
		w->child.managed = w->gang != NULL;
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
		if (ws->pending > 0 || gang_unseen(ws) != NULL ||
		    (c->workers.wait_for_master && (e == NULL || !endpoints_ready(e))))
			return;
		ws->started = 1;
		ws->generation = e ? endpoints_generation(e) : 0;
		log_notice("workers: starting %zu on %s (endpoint generation %u)", ws->n, c->job.node,
		    ws->generation);
		for (size_t i = 0; i < ws->n; i++)
			render(ws, &ws->w[i], 1);
		for (size_t i = 0; i < ws->n; i++)
			child_start(&ws->w[i].child);
		for (size_t i = 0; i < ws->ngangs; i++)	/* the first start counts toward the burst */
			burst_record(&ws->gangs[i].burst, (unsigned)c->workers.restart.burst, mono_now());
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
	for (size_t i = 0; ws != NULL && ws->started && i < ws->n; i++)
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

const char *
workers_waiting_for(const struct workers *ws)
{
	const struct endpoints *e;
	if (ws == NULL || ws->n == 0 || ws->started)
		return NULL;
	for (size_t i = 0; i < ws->nleaders; i++)
		if (ws->leaders[i].why[0] != '\0')
			return ws->leaders[i].why;
	if (gang_unseen(ws) != NULL)
		return "the generation of its gang from the leader's sidecar (GET /gangs)";
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
	for (size_t i = 0; i < ws->npeers; i++) {
		httpc_cancel(ws->peers[i].req);
		httpc_free(ws->peers[i].h);
		if (ws->peers[i].again != NULL)
			event_free(ws->peers[i].again);
	}
	for (size_t i = 0; i < ws->ngangs; i++) {
		free(ws->gangs[i].local);
		free(ws->gangs[i].members);
		free(ws->gangs[i].member_failures);
		free(ws->gangs[i].member_down_since);
		free(ws->gangs[i].member_down_counted);
		burst_free(&ws->gangs[i].burst);
	}
	free(ws->gangs);
	free(ws->peers);
	if (ws->gang_ev != NULL)
		event_free(ws->gang_ev);
	free(ws->leaders);
	free(ws->addr);
	free(ws->ips);
	free(ws->w);
	free(ws->ready);
	topology_free(&ws->topo);
	free(ws);
}
