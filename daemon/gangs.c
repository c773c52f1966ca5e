/*
 * The gangs with members on this node and the peers they poll. Events (a member here failing, a
 * peer's answer) are recorded as facts on their gang; the sidecar's one step hands them to the gang
 * table (common/gangfsm.c) in the order they came, and what it says is carried out here.
 */
#include "config.h"
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "buf.h"
#include "clock.h"
#include "hostlist.h"
#include "httpc.h"
#include "log.h"
#include "sse.h"
#include "view.h"
#include "workers.h"
#include "workers_int.h"
#include "xalloc.h"

/* A member node polls its gangs' leader's /gangs, saying in each poll how many times a member here
 * failed (?node=&failures=); the leader polls no one. The leader streams its gangs for the hold,
 * half of workers.peer_timeout_ms (at most 25 s), an event per change, then ends the stream: a
 * member that stops asking for peer_timeout_ms is lost, and one that asks again after each stream
 * never is. After a failed poll (or from a leader that ends it at once without a change) the next
 * waits GANG_POLL_MS; after a failure here, the poll goes again at once. A leader that does not
 * stream answers once, at a change or after the hold: the same, one poll per change. */
#define GANG_POLL_MS		200
#define GANG_PEER_TIMEOUT_MS	1000	/* beyond the hold */

static long
hold_ms(const struct workers *ws)
{
	long h = ws->cfg->workers.peer_timeout_ms / 2;
	return h > 25000 ? 25000 : h;
}

static void poll_peer(evutil_socket_t, short, void *);

static struct gang_fact *
fact(struct gang *g, int event, int restart, long delay_ms, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

static struct gang_fact *
fact(struct gang *g, int event, int restart, long delay_ms, const char *fmt, ...)
{
	struct gang_fact *f;
	va_list ap;
	if (g->nfacts == g->capfacts) {
		g->capfacts = g->capfacts ? g->capfacts * 2 : 4;
		g->facts = xrealloc(g->facts, g->capfacts * sizeof *g->facts);
	}
	f = &g->facts[g->nfacts++];
	f->event = event;
	f->restart = restart;
	f->delay_ms = delay_ms;
	va_start(ap, fmt);
	vsnprintf(f->why, sizeof f->why, fmt, ap);
	va_end(ap);
	return f;
}

/* Every member here is healthy. */
int
gang_ready(const struct gang *g)
{
	for (size_t k = 0; k < g->nlocal; k++)
		if (!g->ws->started || g->ws->w[g->local[k]].child.state != CHILD_READY)
			return 0;
	return 1;
}

/* fatal or stopped (down for good), waiting (for the leader's next generation), starting (a
 * member here is not healthy yet), or ready (every member here is). */
static const char *
gang_state(const struct gang *g)
{
	if (g->state != GANG_RUNNING)
		return gang_state_name(g->state);
	return gang_ready(g) ? "ready" : "starting";
}

/* Restart every member here in the gang's generation, after delay_ms. */
static void
restart_members(struct gang *g, int reason, const char *why, long delay_ms)
{
	struct workers *ws = g->ws;
	char text[600];
	g->restarts++;
	g->ready_at = 0;
	g->start_at = mono_now() + (double)delay_ms / 1000.0;
	snprintf(g->why, sizeof g->why, "%s", why);
	snprintf(text, sizeof text, "gang %s generation %u: %s", g->name, g->generation, why);
	log_notice("workers: %s; restarting its %zu member%s on %s in %ld ms", text, g->nlocal,
	    g->nlocal == 1 ? "" : "s", ws->cfg->job.node, delay_ms);
	g->by_reason[reason]++;
	for (size_t k = 0; ws->started && k < g->nlocal; k++) {
		struct worker *w = &ws->w[g->local[k]];
		w->gang_stop = 1;
		child_restart_in(&w->child, text, delay_ms);
	}
}

void
gangs_restart_members(struct gang *g, const char *why)
{
	restart_members(g, GANG_R_LEADER, why, 0);
}

/* Every member here stops: down for good (fatal, stopped), or until the leader's next generation. */
static void
stop_members(struct gang *g, int why, const char *cause)
{
	struct workers *ws = g->ws;
	const struct restart_cfg *r = &ws->cfg->workers.restart;
	const char *s = g->nlocal == 1 ? "" : "s";
	if (why == GANG_WHY_WAIT) {
		snprintf(g->why, sizeof g->why, "%s", cause);
		log_notice("workers: gang %s: %s; stopping its %zu member%s on %s until %s's next generation", g->name,
		    cause, g->nlocal, s, ws->cfg->job.node, ws->cfg->job.nodes.v[g->leader]);
	} else {
		if (why == GANG_WHY_POLICY)
			snprintf(g->why, sizeof g->why, "%.400s; restart policy %s", cause, cfg_policy_name(r->policy));
		else if (why == GANG_WHY_BURST)
			snprintf(g->why, sizeof g->why, "more than %ld starts in %ld ms; not restarting (last: %.400s)",
			    r->burst, r->burst_window_ms, cause);
		else
			snprintf(g->why, sizeof g->why, "%s", cause);
		log_msg(g->state == GANG_FATAL ? LOG_LVL_ERR : LOG_LVL_NOTICE, "workers: gang %s %s: %s; its %zu "
		    "member%s on %s stay%s down", g->name, gang_state_name(g->state), g->why, g->nlocal, s,
		    ws->cfg->job.node, g->nlocal == 1 ? "s" : "");
	}
	for (size_t k = 0; ws->started && k < g->nlocal; k++) {
		struct worker *w = &ws->w[g->local[k]];
		w->gang_stop = 1;
		child_stop(&w->child, 0);
	}
}

/* One fact through the gang table, and what it says carried out. */
static void
carry(struct gang *g, const struct gang_fact *f)
{
	struct workers *ws = g->ws;
	const struct restart_cfg *r = &ws->cfg->workers.restart;
	double now = mono_now();
	struct gang_ctx c = { g->is_leader, f->restart, burst_exceeded(&g->burst, now, r->burst_window_ms),
		ws->stopping };
	struct gang_actions a;
	long delay_ms = f->delay_ms;
	gang_next(&g->state, f->event, &c, &a);
	if (a.count_failure)
		g->failures++;
	if (a.count_failure && !g->is_leader)	/* the leader hears of it in the next poll: now */
		for (size_t i = 0; i < ws->npeers; i++)
			if (ws->peers_polled[i].node == g->leader) {
				httpc_cancel(ws->peers_polled[i].req);
				ws->peers_polled[i].req = NULL;
				poll_peer(-1, 0, &ws->peers_polled[i]);
			}
	if (a.new_generation) {
		if (backoff_reset_due(g->ready_at, now, r->reset_after_ms))
			g->gfailures = 0;
		g->gfailures++;
		burst_record(&g->burst, (unsigned)r->burst, now);
		g->generation++;
		delay_ms = backoff_delay(r->backoff_initial_ms, r->backoff_max_ms, g->gfailures);
	}
	if (a.restart_members)
		restart_members(g, a.reason, f->why, delay_ms);
	if (a.stop_members)
		stop_members(g, a.why, f->why);
}

void
gangs_step(struct workers *ws)
{
	for (size_t i = 0; i < ws->ngangs; i++) {
		struct gang *g = &ws->gangs[i];
		/* a fact carried out may add none: the members it stops are the gang's own doing */
		for (size_t k = 0; k < g->nfacts; k++)
			carry(g, &g->facts[k]);
		g->nfacts = 0;
	}
}

void
gangs_member_down(struct worker *w)
{
	struct gang *g = w->gang;
	struct child *c = &w->child;
	const struct restart_cfg *r = c->restart;
	int failed = c->last_code != 0 || c->last_signal > 0 || c->state == CHILD_STOPPING;
	/* several members going down at once are one failure of their gang */
	for (size_t k = 0; k < g->nfacts; k++)
		if (g->facts[k].event == GANG_MEMBER_FAILED || g->facts[k].event == GANG_MEMBER_UNHEALTHY)
			return;
	fact(g, w->unhealthy ? GANG_MEMBER_UNHEALTHY : GANG_MEMBER_FAILED,
	    r->policy == RESTART_ALWAYS || (r->policy == RESTART_ON_FAILURE && failed), 0, "%s: %.300s", c->name,
	    c->reason);
	w->ws->changed(w->ws->arg);
}

void
gangs_started(struct workers *ws)
{
	for (size_t i = 0; i < ws->ngangs; i++)
		burst_record(&ws->gangs[i].burst, (unsigned)ws->cfg->workers.restart.burst, mono_now());
}

/* One /gangs document of a leader (an answer, or an event of its stream): what it says of the gangs
 * it leads, recorded on each as a fact. The number of its gangs, or -1 with err. */
static int
peer_view(struct peer *pr, const char *body, size_t len, char *err, size_t errlen)
{
	struct workers *ws = pr->ws;
	const char *node = ws->cfg->job.nodes.v[pr->node];
	struct gang_view v[64];
	int n, news = 0;
	char tag[32] = "";

	if ((n = gangview_parse(body, len, v, 64, err, errlen, tag, sizeof tag)) < 0)
		return -1;
	if (strcmp(tag, pr->etag) != 0)
		pr->news = 1;
	snprintf(pr->etag, sizeof pr->etag, "%s", tag);
	for (size_t i = 0; i < ws->ngangs; i++) {
		struct gang *g = &ws->gangs[i];
		const struct gang_view *gv = n > 0 ? gangview_find(v, (size_t)n, g->name) : NULL;
		if (g->is_leader || g->leader != pr->node || gv == NULL)
			continue;
		if (!g->seen) {		/* before its members start: the generation they start in */
			g->seen = 1;
			g->generation = (unsigned)gv->generation;
			news = 1;
		} else if (gv->over != GANGVIEW_RUNNING) {
			fact(g, gv->over == GANGVIEW_FATAL ? GANG_LEADER_FATAL : GANG_LEADER_STOPPED, 0, 0,
			    "%s says it is %s", node, gv->over == GANGVIEW_FATAL ? "fatal" : "stopped");
			news = 1;
		} else if ((unsigned)gv->generation != g->generation) {
			g->generation = (unsigned)gv->generation;
			/* its members here start when the leader's do */
			fact(g, GANG_LEADER_STARTED, 1, (long)gv->starts_in_ms, "%s started it", node);
			news = 1;
		}
	}
	if (news)
		ws->changed(ws->arg);
	return n;
}

/* Why the leader's last answer or event was of no use ("" when it was), logged when it changes. */
static void
peer_problem(struct peer *pr, const char *err)
{
	if (err[0] != '\0' && strcmp(err, pr->error) != 0)
		log_warn("workers: the sidecar of %s at %s: %s", pr->ws->cfg->job.nodes.v[pr->node], pr->url, err);
	snprintf(pr->error, sizeof pr->error, "%s", err);
}

/* The whole events of a leader's stream so far, each taken: the bytes they used. */
static size_t
peer_events(struct peer *pr, const char *body, size_t len)
{
	size_t n, off = 0;
	char err[300];
	while ((n = sse_next(body + off, len - off, &pr->ev)) > 0) {
		off += n;
		if (pr->ev.has_data) {
			err[0] = '\0';
			if (peer_view(pr, pr->ev.data.p, pr->ev.data.len, err, sizeof err) < 0)
				pr->bad = 1;
			peer_problem(pr, err);
		}
	}
	return off;
}

static size_t
peer_streamed(const struct httpc_response *r, void *arg)
{
	return httpc_is_stream(r) ? peer_events(arg, r->body, r->len) : 0;
}

/* The poll ended: the leader answered it whole, ended its stream (its hold is up), or did not
 * answer. The next goes at once with ?since=, unless this one failed, or brought nothing new well
 * before the hold (a leader that ignores ?since=): then after GANG_POLL_MS. */
static void
peer_answered(const struct httpc_response *r, void *arg)
{
	struct peer *pr = arg;
	struct workers *ws = pr->ws;
	int ok = 0;
	char err[300] = "";

	pr->req = NULL;
	if (r->outcome != HTTPC_OK)
		snprintf(err, sizeof err, "%s", r->detail ? r->detail : "no answer");
	else if (r->status != 200)
		snprintf(err, sizeof err, "/gangs answered HTTP %d", r->status);
	else if (httpc_is_stream(r)) {
		peer_events(pr, r->body, r->len);
		ok = !pr->bad;
	} else
		ok = peer_view(pr, r->body, r->len, err, sizeof err) >= 0;
	if (!ws->stopping) {
		struct timeval tv = ms_tv(ok && pr->etag[0] != '\0' &&
		    (pr->news || r->seconds * 1000.0 >= hold_ms(ws) / 2) ? 0 : GANG_POLL_MS);
		evtimer_add(pr->again, &tv);
	}
	if (!httpc_is_stream(r) || !pr->bad)	/* a bad event said why already */
		peer_problem(pr, err);
}

/* The leader's /gangs, streamed for one hold: an event per change, then the stream ends and the
 * next is asked (asking is how a member node is heard), at once after a failure here. */
static void
poll_peer(evutil_socket_t fd, short what, void *arg)
{
	struct peer *pr = arg;
	struct workers *ws = pr->ws;
	struct buf path = { 0 };
	const char *sep = "";
	(void)fd;
	(void)what;
	if (ws->stopping || pr->req != NULL)
		return;
	buf_printf(&path, "/gangs?stream=1&timeout_ms=%ld&node=%s&failures=", hold_ms(ws), ws->cfg->job.node);
	for (size_t i = 0; i < ws->ngangs; i++)
		if (!ws->gangs[i].is_leader && ws->gangs[i].leader == pr->node) {
			buf_printf(&path, "%s%s:%u", sep, ws->gangs[i].name, ws->gangs[i].failures);
			sep = ",";
		}
	if (pr->etag[0] != '\0')
		buf_printf(&path, "&since=%s", pr->etag);
	pr->news = pr->bad = 0;
	pr->req = httpc_watch(pr->h, path.p, hold_ms(ws) + GANG_PEER_TIMEOUT_MS, peer_streamed, peer_answered, pr);
	buf_free(&path);
}

static int
add_peer(struct workers *ws, size_t node, char *err, size_t errlen)
{
	struct peer *pr;
	for (size_t i = 0; i < ws->npeers; i++)
		if (ws->peers_polled[i].node == node)
			return 0;
	pr = &ws->peers_polled[ws->npeers];
	if ((pr->h = peers_client(ws->peers, ws->cfg->job.nodes.v[node], pr->url, sizeof pr->url,
	    1024 * 1024, hold_ms(ws) + GANG_PEER_TIMEOUT_MS, err, errlen)) == NULL)
		return -1;
	pr->ws = ws;
	pr->node = node;
	pr->again = evtimer_new(ws->base, poll_peer, pr);
	ws->npeers++;
	return 0;
}

/* What a member node said in its poll: its failures, gang by gang; heard now. */
void
workers_gang_report(struct workers *ws, const char *node, const char *failures)
{
	struct gang_report r[64];
	char err[200];
	int n, news = 0, idx;
	double now = mono_now();
	if (ws == NULL || ws->ngangs == 0 || (idx = hostlist_index(&ws->cfg->job.nodes, node)) < 0)
		return;
	if ((n = gangview_report_parse(failures, strlen(failures), r, 64, err, sizeof err)) < 0) {
		log_warn("workers: the sidecar of %s reported its gangs badly (%s); not taken", node, err);
		return;
	}
	for (size_t i = 0; i < ws->ngangs; i++) {
		struct gang *g = &ws->gangs[i];
		const struct gang_report *rep = NULL;
		for (int k = 0; k < n && rep == NULL; k++)
			if (strcmp(r[k].name, g->name) == 0)
				rep = &r[k];
		for (size_t k = 0; g->is_leader && rep != NULL && k < g->nmembers; k++) {
			if (g->members[k] != (size_t)idx)
				continue;
			g->member_down_since[k] = now;	/* heard of now */
			g->member_down_counted[k] = 0;
			if (rep->failures > g->member_failures[k]) {
				fact(g, GANG_PEER_FAILED, ws->cfg->workers.restart.policy != RESTART_NEVER, 0,
				    "a member on %s failed", node);
				news = 1;
			}
			g->member_failures[k] = rep->failures;	/* a restarted sidecar counts from 0 */
		}
	}
	if (news)
		ws->changed(ws->arg);
}

/* The leader's member nodes that have not asked for peer_timeout_ms: lost, once per outage. */
static long
lost_check_ms(const struct workers *ws)
{
	long ms = ws->cfg->workers.peer_timeout_ms / 5;
	return ms < 50 ? 50 : ms;
}

static void
lost_check(evutil_socket_t fd, short what, void *arg)
{
	struct workers *ws = arg;
	double now = mono_now();
	int news = 0;
	(void)fd;
	(void)what;
	for (size_t i = 0; !ws->stopping && i < ws->ngangs; i++) {
		struct gang *g = &ws->gangs[i];
		for (size_t k = 0; g->is_leader && k < g->nmembers; k++)
			if (!g->member_down_counted[k] && (now - g->member_down_since[k]) * 1000.0 >=
			    (double)ws->cfg->workers.peer_timeout_ms) {
				g->member_down_counted[k] = 1;
				fact(g, GANG_PEER_LOST, 1, 0, "the sidecar of %s did not answer for %ld ms (it stopped polling)",
				    ws->cfg->job.nodes.v[g->members[k]], ws->cfg->workers.peer_timeout_ms);
				news = 1;
			}
	}
	if (news)
		ws->changed(ws->arg);
}

/* The gangs with members on this node (workers.gang "endpoint"): an endpoint of more than one
 * process. Before the loop: peers' names are resolved here. */
int
gangs_init(struct workers *ws, int me, char *err, size_t errlen)
{
	const struct cfg *c = ws->cfg;
	const struct topology *t = &ws->topo;
	if (strcmp(c->workers.gang, "endpoint") != 0 || ws->n == 0)
		return 0;
	ws->gangs = xcalloc(t->nendpoints + 1, sizeof *ws->gangs);
	ws->peers_polled = xcalloc(c->job.nodes.n + 1, sizeof *ws->peers_polled);
	for (size_t e = 0; e < t->nendpoints; e++) {
		size_t nproc = 0, nlocal = 0, nn = (size_t)t->endpoints[e].nnodes + 1;
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
		g->members = xcalloc(nn, sizeof *g->members);
		g->member_failures = xcalloc(nn, sizeof *g->member_failures);
		g->member_down_since = xcalloc(nn, sizeof *g->member_down_since);
		g->member_down_counted = xcalloc(nn, sizeof *g->member_down_counted);
		for (int k = 0; k < t->endpoints[e].nnodes; k++) {
			size_t node = t->endpoints[e].first_node + (size_t)k;
			if ((int)node == me)
				continue;
			if (g->is_leader) {	/* counted as heard of now: lost if it never asks */
				g->member_down_since[g->nmembers] = mono_now();
				g->members[g->nmembers++] = node;
			}
			if (node == g->leader && add_peer(ws, node, err, errlen) != 0)
				return -1;
		}
	}
	for (size_t i = 0; i < ws->npeers; i++) {
		struct timeval tv = { 0, 0 };
		evtimer_add(ws->peers_polled[i].again, &tv);
	}
	for (size_t i = 0; i < ws->ngangs; i++)
		if (ws->gangs[i].is_leader && ws->gangs[i].nmembers > 0) {
			struct timeval tv = ms_tv(lost_check_ms(ws));
			ws->lost_ev = event_new(ws->base, -1, EV_PERSIST, lost_check, ws);
			evtimer_add(ws->lost_ev, &tv);
			break;
		}
	if (ws->ngangs > 0)
		log_notice("workers: %zu gang%s with members here, %zu peer sidecar%s", ws->ngangs,
		    ws->ngangs == 1 ? "" : "s", ws->npeers, ws->npeers == 1 ? "" : "s");
	return 0;
}

/* A gang led elsewhere whose generation this node has not learnt yet: its members wait for it, so
 * that a failure is always measured against the generation they run in. */
const struct gang *
gangs_unseen(const struct workers *ws)
{
	for (size_t i = 0; i < ws->ngangs; i++)
		if (!ws->gangs[i].is_leader && !ws->gangs[i].seen)
			return &ws->gangs[i];
	return NULL;
}

/* What another node reads of this node's gangs, as one tag: it changes when any of it does. */
void
gangs_etag(const struct workers *ws, char *buf, size_t len)
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

void
gangs_view(const struct workers *ws, struct view *v)
{
	double now = mono_now();
	gangs_etag(ws, v->gangs_etag, sizeof v->gangs_etag);
	v->gangs = xcalloc(ws->ngangs + 1, sizeof *v->gangs);
	for (size_t i = 0; i < ws->ngangs; i++) {
		const struct gang *g = &ws->gangs[i];
		struct view_gang *o = &v->gangs[v->ngangs++];
		double left = (g->start_at - now) * 1000.0;
		o->name = view_str(v, g->name);
		o->group = g->ep->role;
		o->leader = ws->cfg->job.nodes.v[g->leader];
		o->state = gang_state(g);
		o->last_cause = view_str(v, g->why);
		o->nodes = xcalloc((size_t)g->ep->nnodes + 1, sizeof *o->nodes);
		for (int k = 0; k < g->ep->nnodes; k++)
			o->nodes[o->nnodes++] = ws->cfg->job.nodes.v[g->leader + (size_t)k];
		o->members = xcalloc(g->nlocal + 1, sizeof *o->members);
		for (size_t k = 0; k < g->nlocal; k++)
			o->members[o->nmembers++] = ws->started ? view_str(v, ws->w[g->local[k]].child.name) : "";
		o->generation = g->generation;
		o->failures = g->failures;
		o->restarts = g->restarts;
		o->starts_in_ms = left > 0 ? (long)(left + 0.5) : 0;
		o->waiting = g->state == GANG_WAITING;
		o->up = g->state == GANG_RUNNING || g->state == GANG_WAITING;
		memcpy(o->by_reason, g->by_reason, sizeof o->by_reason);
	}
}

void
workers_gangs_etag(const struct workers *ws, char *buf, size_t len)
{
	gangs_etag(ws, buf, len);
}

void
gangs_free(struct workers *ws)
{
	for (size_t i = 0; i < ws->npeers; i++) {
		httpc_cancel(ws->peers_polled[i].req);
		httpc_free(ws->peers_polled[i].h);
		if (ws->peers_polled[i].again != NULL)
			event_free(ws->peers_polled[i].again);
		sse_event_free(&ws->peers_polled[i].ev);
	}
	for (size_t i = 0; i < ws->ngangs; i++) {
		free(ws->gangs[i].local);
		free(ws->gangs[i].members);
		free(ws->gangs[i].member_failures);
		free(ws->gangs[i].member_down_since);
		free(ws->gangs[i].member_down_counted);
		free(ws->gangs[i].facts);
		burst_free(&ws->gangs[i].burst);
	}
	free(ws->gangs);
	free(ws->peers_polled);
	if (ws->lost_ev != NULL)
		event_free(ws->lost_ev);
}
