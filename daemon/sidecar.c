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
#include "auth.h"
#include "child.h"
#include "endpoints.h"
#include "follow.h"
#include "log.h"
#include "master.h"
#include "notify.h"
#include "reconcile.h"
#include "sidecar.h"
#include "view.h"
#include "workerenv.h"
#include "workers.h"

static void	step(evutil_socket_t, short, void *);

void
sidecar_changed(struct sidecar *s)
{
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
};

static void
target_of(const struct sidecar *s, struct target *t)
{
	const struct child *c = master_child(s->master);
	long leader_port;
	memset(t, 0, sizeof *t);
	t->m = (struct endpoints_master){
		s->cfg.master.node, s->master_address, s->cfg.master.rpc_port,
		s->cfg.master.http_metadata_port, s->cfg.master.metrics_port, c->pid, c->restarts,
		c->ready_wall, NULL
	};
	t->standby = strcmp(master_role(s->master), "standby") == 0;
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

static void
gather(const struct sidecar *s, const struct target *t, struct rc_state *st)
{
	memset(st, 0, sizeof *st);
	if (s->master != NULL) {
		const struct child *c = master_child(s->master);
		st->master = master_state(c);
		st->master_alive = c->pid > 0;
		st->master_gen = master_generation(s->master);
		st->standby = t->standby;
		st->leader_known = t->leader_known;
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
	st->ready_sent = s->ready_sent;
	st->workers = workers_count(s->workers);
	st->workers_ready = workers_ready(s->workers);
	st->workers_running = workers_running(s->workers);
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
	char status[2048];
	if (a->reopen_logs && s->master != NULL)
		master_reopen_log(s->master);
	if (a->reopen_logs)
		admin_reload_tls(s->admin);
	if (a->publish != RC_PUBLISH_NONE) {
		struct endpoints_master m = t->m;
		if (a->publish == RC_PUBLISH_NOT_READY)
			m.ready_wall = 0;
		endpoints_publish(s->endpoints, a->publish_gen, a->publish != RC_PUBLISH_NOT_READY, &m);
		if (a->publish == RC_PUBLISH_NEW) {
			s->published = master_generation(s->master);
			snprintf(s->published_target, sizeof s->published_target, "%s", t->text);
		}
	}
	if (a->stop_workers) {
		s->workers_stop_sent = a->stop_workers;
		workers_stop(s->workers, a->stop_workers == 2);
	}
	if (a->start_workers)
		workers_update(s->workers);
	if (a->stop_master) {
		s->master_stop_sent = a->stop_master;
		master_stop(s->master, a->stop_master == 2);
	}
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
	if (a->notify != RC_NOTIFY_NONE) {
		struct view v;
		view_build(s, &v);
		view_status_text(&v, status, sizeof status);
		view_free(&v);
		if (a->notify == RC_NOTIFY_READY) {
			notify_ready(status);
			s->ready_sent = 1;
		} else
			notify_status(status);
	}
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

int
sidecar_read_token(const char *path, char *out, size_t len, char *err, size_t errlen)
{
	char buf[AUTH_TOKEN_MAX + 2], why[256];
	size_t n;
	FILE *f = fopen(path, "re");
	if (f == NULL) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	n = fread(buf, 1, sizeof buf, f);
	fclose(f);
	if (auth_token_parse(buf, n, out, len, why, sizeof why) != 0) {
		snprintf(err, errlen, "%s: %s", path, why);
		return -1;
	}
	return 0;
}
