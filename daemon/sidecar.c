/*
 * The reconcile step: events only record what happened and call sidecar_changed(); one deferred
 * event then gathers the whole state, lets reconcile_decide() (common/reconcile.c) say what must
 * happen, and carries that out here.
 */
#include "config.h"
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <event2/event.h>
#include "admin.h"
#include "audit.h"
#include "child.h"
#include "clock.h"
#include "draining.h"
#include "buf.h"
#include "sdreport.h"
#include "endpoints.h"
#include "follow.h"
#include "log.h"
#include "master.h"
#include "notify.h"
#include "readiness.h"
#include "reconcile.h"
#include "stall.h"
#include "halease.h"
#include "sidecar.h"
#include "view.h"
#include "workerenv.h"
#include "workers.h"
#include "xalloc.h"

static void	step(evutil_socket_t, short, void *);

void
sidecar_changed(void *arg)
{
	struct sidecar *s = arg;
	if (s->reconcile_ev == NULL)
		s->reconcile_ev = event_new(s->base, -1, 0, step, s);
	event_active(s->reconcile_ev, 0, 0);
}

static int
master_state(const struct child *c)
{
	switch (c->state) {
	case CHILD_STARTING: return RC_MASTER_STARTING;
	case CHILD_READY: return RC_MASTER_READY;
	case CHILD_BACKOFF: return RC_MASTER_BACKOFF;
	case CHILD_STOPPING: return RC_MASTER_STOPPING;
	case CHILD_FATAL: return RC_MASTER_FATAL;
	default: return RC_MASTER_STOPPED;
	}
}

/* Where workers are pointed: an HA standby points them at the leader it names, on the same ports. */
struct target {
	struct endpoints_master	 m;
	char			 leader_host[URL_HOST_MAX];
	char			 via[URL_HOST_MAX + 16];
	char			 text[URL_HOST_MAX * 2 + 64];
	int			 standby, leader_known;
	int			 ha_wait;	/* HA: no leader serves that it knows of */
};

static void
target_of(const struct sidecar *s, struct target *t)
{
	const struct child *c = master_child(s->master);
	struct master_ha ha;
	long leader_port;
	memset(t, 0, sizeof *t);
	master_ha(s->master, &ha);
	t->m = (struct endpoints_master){
		s->cfg.master.node, s->master_address, s->cfg.master.rpc_port,
		s->cfg.master.http_metadata_port, s->cfg.master.metrics_port, c->pid, c->restarts,
		c->ready_wall, NULL
	};
	t->standby = strcmp(master_role(s->master), "standby") == 0;
	t->ha_wait = ha.on && !ha.serving_leader;
	if (t->standby && split_hostport(master_leader(s->master), t->leader_host, sizeof t->leader_host,
	    &leader_port) == 0) {
		t->leader_known = 1;
		snprintf(t->via, sizeof t->via, strchr(s->master_address, ':') ? "[%s]:%ld" : "%s:%ld",
		    s->master_address, s->cfg.master.rpc_port);
		t->m.address = t->leader_host;
		t->m.rpc_port = leader_port;
		t->m.leader_via = t->via;
	}
	snprintf(t->text, sizeof t->text, "%s:%ld via %s", t->m.address, t->m.rpc_port,
	    t->m.leader_via ? t->m.leader_via : "-");
}

static void sd_report(const struct sidecar *, const struct view *);

static void
gather(const struct sidecar *s, const struct target *t, struct rc_state *st)
{
	struct view v;
	memset(st, 0, sizeof *st);
	if (s->master != NULL) {
		const struct child *c = master_child(s->master);
		st->master = master_state(c);
		st->master_alive = c->pid > 0;
		st->master_gen = master_generation(s->master);
		st->standby = t->standby;
		st->leader_known = t->leader_known;
		st->ha_wait = t->ha_wait;
		st->published = s->published;
		st->target_changed = strcmp(t->text, s->published_target) != 0;
	}
	if (s->endpoints != NULL) {
		st->files_gen = endpoints_generation(s->endpoints);
		st->files_ready = endpoints_ready(s->endpoints);
		st->files_error = endpoints_error(s->endpoints) != NULL;
	}
	st->reload = s->reload;
	st->stopping = s->stopping;
	st->stop_now = s->stop_now;
	st->workers_stop_sent = s->workers_stop_sent;
	st->master_stop_sent = s->master_stop_sent;
	st->orphans_signalled = s->orphans_signalled;
	st->drain_pending = s->drain != NULL && !drain_ended(s->drain) && workers_running(s->workers) > 0;
	st->drain_started = drain_started(s->drain);
	st->ready_sent = s->ready_sent;
	st->workers = workers_count(s->workers);
	st->workers_ready = workers_ready(s->workers);
	st->workers_running = workers_running(s->workers);
	st->follow_lost = follow_lost(s->follow);
	sidecar_view(s, &v, 0);
	st->node_ready = v.ready;
	if (s->follow != NULL)
		sd_report(s, &v);
	view_free(&v);
	/* a head known to be unreachable is not waited for */
	st->report_pending = s->follow != NULL && !follow_told(s->follow) && !follow_lost(s->follow) &&
	    !s->bye_waited;
	st->lease_pending = s->master != NULL && halease_releasing(master_lease(s->master));
}

static void
orphans_kill_cb(evutil_socket_t fd, short what, void *arg)
{
	struct sidecar *s = arg;
	(void)fd;
	(void)what;
	child_signal_orphans(SIGKILL);
	event_base_loopexit(s->base, NULL);
}

/* Carry out one decision; memory first: a publish is served at once, a failed write retried by
 * endpoints.c. */
static void
act(struct sidecar *s, const struct target *t, const struct rc_actions *a)
{
	if (a->reopen_logs && s->master != NULL)
		master_reopen_log(s->master);
	if (a->reopen_logs)
		admin_reload_tls(s->admin);
	if (a->publish != RC_PUBLISH_NONE && s->master == NULL)
		endpoints_mirror_not_ready(s->endpoints);
	else if (a->publish != RC_PUBLISH_NONE) {
		struct endpoints_master m = t->m;
		if (a->publish == RC_PUBLISH_NOT_READY)
			m.ready_wall = 0;
		endpoints_publish(s->endpoints, a->publish_gen, a->publish != RC_PUBLISH_NOT_READY, &m);
		if (a->publish == RC_PUBLISH_NEW) {
			s->published = master_generation(s->master);
			snprintf(s->published_target, sizeof s->published_target, "%s", t->text);
		}
	}
	if (a->start_drain)
		drain_start(s->drain);
	if (a->stop_workers) {
		s->workers_stop_sent = a->stop_workers;
		workers_stop(s->workers, a->stop_workers == 2);
	}
	if (a->start_workers) {
		struct kvlist env = { 0 };
		int have = s->endpoints != NULL && endpoints_worker_env(s->endpoints, &env) == 0;
		struct workers_files f = { s->endpoints != NULL && endpoints_ready(s->endpoints),
			s->endpoints != NULL ? endpoints_generation(s->endpoints) : 0, have ? &env : NULL };
		workers_step(s->workers, &f);
		kvlist_clear(&env);
	}
	if (a->stop_master) {
		s->master_stop_sent = a->stop_master;
		master_stop(s->master, a->stop_master == 2);
	}
	if (a->signal_orphans && s->follow != NULL && follow_told(s->follow))
		log_info("follow: the head sidecar heard that this node stops: its /sd lists nothing of this node");
	else if (a->signal_orphans && s->follow != NULL)
		log_warn("follow: the head sidecar did not hear that this node stops (%s): its /sd lists this "
		    "node's targets until they expire", follow_state(s->follow));
	if (a->signal_orphans) {
		struct timeval tv = { 1, 0 };
		s->orphans_signalled = 1;
		if (!s->stop_now && child_signal_orphans(SIGTERM) > 0)
			event_base_once(s->base, -1, EV_TIMEOUT, orphans_kill_cb, s, &tv);
		else
			event_base_once(s->base, -1, EV_TIMEOUT, orphans_kill_cb, s, NULL);
	}
	/* whatever changed, the long-polls waiting on it (a follower's /endpoints, a peer's /gangs) */
	admin_changed(s->admin);
	if (a->notify != RC_NOTIFY_NONE && notify_enabled()) {
		struct view v;
		sidecar_view(s, &v, 0);
		if (a->notify == RC_NOTIFY_READY)
			notify_ready(v.status_line);
		else
			notify_status(v.status_line);
		view_free(&v);
	}
	if (a->notify == RC_NOTIFY_READY)
		s->ready_sent = 1;
}

static void
step(evutil_socket_t fd, short what, void *arg)
{
	struct sidecar *s = arg;
	struct rc_state st;
	struct rc_actions a;
	struct target t;
	(void)fd;
	(void)what;
	/* A publish is followed at once by the decision that sees its outcome; the decision never asks
	 * for more than that, the bound only guards it. */
	for (int i = 0; i < 4; i++) {
		if (s->master != NULL)
			target_of(s, &t);
		gather(s, &t, &st);
		reconcile_decide(&st, &a);
		s->reload = 0;
		act(s, &t, &a);
		if (!a.again)
			break;
	}
}

void
sidecar_free_events(struct sidecar *s)
{
	if (s->reconcile_ev != NULL)
		event_free(s->reconcile_ev);
	s->reconcile_ev = NULL;
}

/* The readiness rule (common/readiness.c) over the view: its answer and the STATUS= line, in it. */
/* HA: what the master is for clients (ha_role, once a leader serves) or why none serves (ha_wait). */
static void
ha_words(struct view *v, const char **role, const char **wait)
{
	char s[1200];
	*role = *wait = NULL;
	if (!v->ha_on || !v->master_ready)
		return;
	if (v->ha_serving_leader && strcmp(v->ha_phase, "serving") == 0)
		*role = "the HA leader";
	else if (v->ha_serving_leader) {
		snprintf(s, sizeof s, "an HA standby of %s", v->ha_leader);
		*role = view_str(v, s);
	} else {
		if (strcmp(v->ha_phase, "warmup") == 0)
			snprintf(s, sizeof s, "up as the HA leader, in warmup for %.1f s", v->ha_phase_s);
		else if (strcmp(v->ha_phase, "standby") == 0)
			snprintf(s, sizeof s, "up as an HA standby, its leader %s not serving: %s", v->ha_leader,
			    v->ha_leader_detail);
		else
			snprintf(s, sizeof s, "up as an HA standby that names no leader (ha_state %s, for %.1f s)",
			    v->ha_state, v->ha_phase_s);
		if (v->ha_problem != NULL) {
			size_t n = strlen(s);
			snprintf(s + n, sizeof s - n, "; %s", v->ha_problem);
		}
		*wait = view_str(v, s);
	}
}

static void
readiness_of(struct view *v, int stopping)
{
	struct rd_facts f = { 0 };
	char why[2048], line[2048], paused[2048 + 16];
	f.stopping = stopping;
	f.has_master = v->has_master;
	f.master_ready = v->master_ready;
	f.master_state = v->has_master ? v->master_state : "absent";
	f.master_reason = v->master_reason ? v->master_reason : "";
	f.master_pid = v->master_pid;
	f.master_restarts = v->master_restarts;
	ha_words(v, &f.ha_role, &f.ha_wait);
	f.master_restore = v->warm_on ? v->warm_restore : NULL;
	f.master_stalled = v->stall_why;
	f.master_node = v->master_node;
	f.follow_state = v->follow_state;
	f.files_ready = v->files_ready;
	f.files_gen = v->files_gen;
	f.files_error = v->files_error;
	f.workers = v->nworkers;
	f.workers_healthy = v->workers_healthy;
	f.workers_waiting = v->workers_waiting;
	for (size_t i = 0; i < v->nworkers && f.worker_name == NULL; i++) {
		const struct view_worker *w = &v->workers[i];
		if (strcmp(w->state, "ready") == 0)
			continue;
		f.worker_name = w->name;
		f.worker_state = w->state;
		f.worker_detail = strcmp(w->state, "starting") == 0 && w->last[0] ? w->last : w->reason;
	}
	v->ready = readiness(&f, why, sizeof why);
	readiness_status_line(&f, line, sizeof line);
	/* maintenance (POST /control/pause): said everywhere the state is */
	strncat(why, v->paused ? " (supervision paused)" : "", sizeof why - strlen(why) - 1);
	v->ready_reason = view_str(v, why);
	snprintf(paused, sizeof paused, "%s%s", v->paused ? "paused: " : "", line);
	v->status_line = view_str(v, paused);
}

/* The one place that reads the master, the children, the endpoint files, the follower and the
 * workers for the outputs: every value copied into the view. */
/* A node's report is dropped once it has not been heard for this long: a follower that polls does
 * so at least every FOLLOW_HOLD_MS while it lives, and one holding a stream is heard every 10 s
 * (adminhold.c) until the stream ends. */
#define SD_PEER_EXPIRE_S	(FOLLOW_HOLD_MS / 1000.0 + 15.0)

static struct sd_target *
sd_add(struct view *v, const char *node, const char *target, const char *role)
{
	struct view_sd *e = &v->sd[v->nsd++];
	memset(e, 0, sizeof *e);
	e->node = node;
	snprintf(e->t.target, sizeof e->t.target, "%s", target);
	snprintf(e->t.role, sizeof e->t.role, "%s", role);
	e->t.group_index = e->t.worker_index = e->t.dp_rank = -1;
	return &e->t;
}

/* "host:port" of a bind address (its host, or the node's for a wildcard). */
static void
bind_target(const char *bind, const char *node_addr, long port, char *t, size_t len)
{
	const char *h = bind == NULL || bind[0] == '\0' || strcmp(bind, "0.0.0.0") == 0 || strcmp(bind, "::") == 0 ?
	    node_addr : bind;
	char *hp = hostport(h, port);
	snprintf(t, len, "%s", hp);
	free(hp);
}

/* What /sd lists: this node's sidecar (at admin.listen's address, or the node's for a wildcard), the
 * master's metrics port (at its --metrics_host, or the node's), each running worker with an API
 * server of its own, then the other nodes' reports that are fresh. */
static void
sd_build(const struct sidecar *sc, struct view *v)
{
	const struct cfg *c = &sc->cfg;
	char host[URL_HOST_MAX] = "", t[URL_HOST_MAX + 16];
	long port;
	size_t cap = 2 + v->nworkers;
	double now = mono_now();
	for (size_t i = 0; i < sc->nsd_peers; i++)
		cap += sc->sd_peers[i].n;
	v->sd = xcalloc(cap, sizeof *v->sd);
	(void)split_hostport(c->admin.listen, host, sizeof host, &port);	/* its host (port 0 too) */
	bind_target(host, sc->node_addr.addr, c->admin.port, t, sizeof t);
	sd_add(v, v->node, t, "sidecar");
	v->sd_tls = c->admin.tls_cert_file[0] != '\0';
	if (sc->master != NULL && master_child(sc->master)->pid > 0) {
		bind_target(workerenv_gflag(c->master.extra_args, "metrics_host", 0), sc->node_addr.addr,
		    c->master.metrics_port, t, sizeof t);
		sd_add(v, v->node, t, "master")->generation = v->files_gen;
	}
	for (size_t i = 0; i < v->nworkers; i++) {
		const struct view_worker *w = &v->workers[i];
		struct sd_target *e;
		char gang[64];
		if (w->pid <= 0 || strcmp(w->check, "http") != 0 || w->ports[VIEW_PORT_HTTP] <= 0)
			continue;	/* not running, or no API server of its own (a headless rank) */
		bind_target(NULL, sc->node_addr.addr, w->ports[VIEW_PORT_HTTP], t, sizeof t);
		e = sd_add(v, v->node, t, w->role);
		snprintf(e->worker, sizeof e->worker, "%s", w->name);
		e->group_index = w->group_index;
		e->worker_index = w->worker_index;
		e->dp_rank = w->dp_rank;
		e->generation = w->restarts + 1;
		snprintf(gang, sizeof gang, "%s_w%d", w->role, w->worker_index);
		for (size_t k = 0; k < v->ngangs; k++)
			if (strcmp(v->gangs[k].name, gang) == 0)
				snprintf(e->gang, sizeof e->gang, "%s", gang);
	}
	for (size_t i = 0; i < sc->nsd_peers; i++) {
		const struct sd_peer *p = &sc->sd_peers[i];
		if (p->heard == 0 || now - p->heard > SD_PEER_EXPIRE_S)
			continue;	/* never heard, or it stopped polling: lost, and its targets with it */
		for (size_t k = 0; k < p->n; k++) {
			v->sd[v->nsd].node = view_str(v, sc->cfg.job.nodes.v[i]);
			v->sd[v->nsd++].t = p->t[k];
		}
	}
}

static unsigned long
name_hash(const char *s)
{
	unsigned long h = 2166136261UL;
	for (; *s != '\0'; s++)
		h = (h ^ (unsigned char)*s) * 16777619UL;
	return h;
}

/* The index of node in job.nodes, or -1: a hash of the names, built at the first report (a head
 * hears every other node's poll, and a linear search for each would cost O(nodes) a poll). */
static long
node_index(struct sidecar *sc, const char *node)
{
	const struct strv *nodes = &sc->cfg.job.nodes;
	size_t mask;
	if (sc->sd_slots == 0) {
		for (sc->sd_slots = 16; sc->sd_slots < 2 * nodes->n; sc->sd_slots *= 2)
			;
		sc->sd_hash = xcalloc(sc->sd_slots, sizeof *sc->sd_hash);
		for (size_t i = 0; i < nodes->n; i++) {
			size_t k = name_hash(nodes->v[i]) & (sc->sd_slots - 1);
			while (sc->sd_hash[k] != 0)
				k = (k + 1) & (sc->sd_slots - 1);
			sc->sd_hash[k] = (long)i + 1;
		}
		sc->sd_peers = xcalloc(nodes->n + 1, sizeof *sc->sd_peers);
		sc->nsd_peers = nodes->n;
	}
	mask = sc->sd_slots - 1;
	for (size_t k = name_hash(node) & mask; sc->sd_hash[k] != 0; k = (k + 1) & mask)
		if (strcmp(nodes->v[sc->sd_hash[k] - 1], node) == 0)
			return sc->sd_hash[k] - 1;
	return -1;
}

void
sidecar_sd_heard(struct sidecar *sc, const char *node, const char *sd)
{
	static struct sd_target t[SD_MAX_TARGETS];
	struct sd_peer *p;
	char err[300];
	size_t n;
	long i = node_index(sc, node);
	if (i < 0 || strcmp(node, sc->cfg.job.node) == 0)
		return;		/* not another node of this job */
	p = &sc->sd_peers[i];
	if (sd != NULL && (p->raw == NULL || strcmp(p->raw, sd) != 0)) {	/* news: read it (most polls bring none) */
		if (sdreport_parse(sd, t, SD_MAX_TARGETS, &n, err, sizeof err) != 0) {
			/* counted each time; said once for each report as it came (a follower repeats its
			 * report in every poll), and /sd keeps what that node reported last */
			sc->sd_refused++;
			if (p->refused == NULL || strcmp(p->refused, sd) != 0) {
				log_warn("/sd: the report of node %s is refused (%s): /sd keeps what it reported before",
				    node, err);
				free(p->refused);
				p->refused = xstrdup(sd);
			}
			return;
		}
		free(p->refused);
		p->refused = NULL;
		free(p->t);
		p->t = n ? xcalloc(n, sizeof *p->t) : NULL;
		if (n)
			memcpy(p->t, t, n * sizeof *t);
		p->n = n;
		free(p->raw);
		p->raw = xstrdup(sd);
	}
	p->heard = mono_now();
}

void
sidecar_sd_free(struct sidecar *sc)
{
	for (size_t i = 0; i < sc->nsd_peers; i++) {
		free(sc->sd_peers[i].t);
		free(sc->sd_peers[i].raw);
		free(sc->sd_peers[i].refused);
	}
	free(sc->sd_peers);
	free(sc->sd_hash);
	sc->sd_peers = NULL;
	sc->sd_hash = NULL;
	sc->nsd_peers = sc->sd_slots = 0;
}

/* The follower tells the head what runs here: this node's part of /sd. */
static void
sd_report(const struct sidecar *sc, const struct view *v)
{
	struct buf b = { 0 };
	size_t n = 0;
	/* stopping: nothing here is to be scraped any more; the head hears it at once */
	for (size_t i = 0; i < v->nsd && n < SD_MAX_TARGETS && !sc->stopping; i++)
		if (strcmp(v->sd[i].node, v->node) == 0) {
			sdreport_render(&v->sd[i].t, 1, &b);
			n++;
		}
	follow_report(sc->follow, b.p ? b.p : "");
	buf_free(&b);
}

void
sidecar_view(const struct sidecar *sc, struct view *v, int files)
{
	const struct child *c = sc->master ? master_child(sc->master) : NULL;
	const struct endpoints *e = sc->endpoints;
	struct child **list;
	size_t n = child_list(&list);
	double now = mono_now();

	memset(v, 0, sizeof *v);
	v->node = sc->cfg.job.node;
	v->job_id = sc->cfg.job.id;
	v->address = view_str(v, sc->node_addr.addr);
	v->address_source = view_str(v, sc->node_addr.source);
	v->run_dir = sc->cfg.job.run_dir;
	v->uptime_s = now - sc->started;
	v->start_wall = sc->started_wall;
	v->master_node = sc->cfg.master.node;
	v->last_code = v->last_signal = -1;
	if (sc->drain != NULL) {
		struct drain_info d;
		drain_info(sc->drain, &d);
		v->has_drain = 1;
		v->drain_state = d.state;
		v->drain_via = view_str(v, d.via);
		v->drain_host = view_str(v, d.host);
		v->drain_why = view_str(v, d.why);
		v->drain_job = view_str(v, d.job.id);
		v->drain_job_status = view_str(v, d.job.status);
		v->drain_segments = d.nsegments;
		v->drain_moved = d.job.succeeded;
		v->drain_moving = d.job.active;
		v->drain_blocked = d.job.blocked;
		v->drain_failed = d.job.failed;
		v->drain_bytes = d.job.bytes;
		v->drain_s = d.seconds;
	}
	if (e != NULL) {
		v->files_gen = endpoints_generation(e);
		v->files_ready = endpoints_ready(e);
		v->files_error = view_str(v, endpoints_error(e));
		v->written_at = endpoints_written_at(e);
		v->has_files = endpoints_json(e) != NULL;
		if (files)
			v->files_json = view_str(v, endpoints_json(e));
	}
	if (c != NULL) {
		v->has_master = 1;
		v->master_state = child_state_name(c->state);
		v->master_reason = view_str(v, c->reason);
		v->master_ready = c->state == CHILD_READY;
		v->master_pid = c->pid > 0 ? c->pid : 0;
		v->master_restarts = c->restarts;
		v->last_code = c->last_code;
		v->last_signal = c->last_signal;
		v->ready_wall = c->ready_wall;
		v->stalls = master_stalls(sc->master);
		if (master_stall(sc->master)->stalled) {
			v->stall_why = view_str(v, master_stall(sc->master)->why);
			v->stall_s = now - master_stall(sc->master)->since;
		}
		v->ports[VIEW_RPC] = sc->cfg.master.rpc_port;
		v->ports[VIEW_METADATA] = sc->cfg.master.http_metadata_port;
		v->ports[VIEW_ADMIN] = sc->cfg.master.metrics_port;
		for (int i = 0; i < VIEW_NPROBES; i++) {
			const struct probe_stat *p = master_probe_stat(sc->master, i);
			v->probes[i] = (struct view_probe){ i != VIEW_METADATA || v->ports[i] != 0, p->ok,
			    p->seconds * 1000.0, view_str(v, p->detail), p->at > 0 ? (now - p->at) * 1000.0 : -1 };
		}
		master_view(sc->master, v);	/* its HA, snapshots and lease */
	} else if (sc->follow != NULL) {
		v->follow_url = view_str(v, follow_url(sc->follow));
		v->follow_state = view_str(v, follow_state(sc->follow));
	}
	v->children = xcalloc(n + 1, sizeof *v->children);
	for (size_t i = 0; i < n; i++)
		v->children[v->nchildren++] = (struct view_child){ view_str(v, list[i]->name), list[i]->state,
		    list[i]->pid > 0 ? list[i]->pid : 0, list[i]->restarts, list[i]->ready_seconds };
	workers_view(sc->workers, v);
	sd_build(sc, v);
	v->long_polls = admin_long_polls(sc->admin);
	v->coalesced = admin_coalesced(sc->admin);
	admin_conn_stats(sc->admin, &v->conns);
	v->sd_refused = sc->sd_refused;
	audit_view(v, child_paused());
	readiness_of(v, sc->stopping);
}
