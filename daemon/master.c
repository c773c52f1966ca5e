/*
 * The master as a supervised child: its argv, its three ports probed until one round finds them
 * all answering (and owned by its pid), then watched for liveness and for a stall under its
 * metadata locks; what an HA master says of itself is daemon/masterha.c's. Over 600 lines: the
 * probe rounds, the stall watch and the reaction to its output share one round's state.
 */
#include "config.h"
#include <stdio.h>
#include <stdlib.h>
#include <limits.h>
#include <string.h>
#include <signal.h>
#include <unistd.h>
#include "clock.h"
#include "log.h"
#include "mhealth.h"
#include "stall.h"
#include "workerenv.h"
#include "master.h"
#include "masterflags.h"
#include "halease.h"
#include "masterha.h"
#include "view.h"
#include "warm.h"
#include "hacfg.h"
#include "counters.h"
#include "ports.h"
#include "httpc.h"
#include "url.h"
#include "xalloc.h"

#define PROBE_MAX_BODY			(1024 * 1024)
static const char *const probe_names[PROBE_COUNT] = { "rpc", "metadata", "admin" };

struct slot {
	struct master	*m;
	int		 idx;
};

struct master {
	struct child		 child;
	const struct cfg	*cfg;
	struct event_base	*base;
	struct event		*round_timer;
	struct event		*deadline;
	struct httpc		*up[PROBE_COUNT];	/* one pool per port */
	struct httpc_req	*probes[PROBE_COUNT];
	struct slot		 slots[PROBE_COUNT];
	int			 pending;
	int			 round_ok[PROBE_COUNT];
	int			 round_local;	/* a probe failed for the sidecar's own reasons */
	double			 round_started;
	long			 retry_ms;	/* starting: the next round after a failed one, doubling */
	double			 hot_until;	/* starting: after a start-up line, retry every 1 ms until then */
	int			 rerun;		/* a start-up line came during a round: another at once */
	char			 scan[64];	/* the end of the last output chunk, for a line cut in two */
	int			 live_failures;
	double			 last_failure_count;	/* when live_failures last went up */
	unsigned		 generation;
	int			 ha;		/* --enable_ha: watch /health every probe interval */
	struct mha		 h;		/* its role, leader and HA phase (daemon/masterha.c) */
	struct halease		*lease;		/* Redis HA: its lease, released when it dies (halease.c) */
	struct warm		*warm;		/* master.snapshot: its snapshots checked, the last good kept */
	int			 round_rpc;	/* this round connected to the RPC port */
	char			 last_warning[256];
	struct probe_stat	 stat[PROBE_COUNT];
	/* once ready: is it stalled under its metadata locks? (common/stall.c) */
	struct httpc		*lock_h, *metrics_h;	/* the admin port, apart from the liveness probe's */
	struct httpc_req	*lock_req, *metrics_req;
	struct event		*stall_timer;
	double			 lock_unanswered;	/* the first lock probe sent since the last answer, 0: none */
	double			 ping_moved;	/* when master_ping_requests_total last moved (or clients came) */
	double			 ping_last;
	int			 ping_seen;
	struct stall_out	 stall;
	unsigned long		 stalls;	/* stalls seen since the sidecar started */
	master_changed_fn	 changed;
	void			*arg;
};

static void round_start(struct master *);

/* Keys that hash across the metadata shards: asking for them takes each shard's lock, which a
 * sweep under the write locks holds (Mooncake #3395; /health and the RPC port stay green then). */
#define LOCK_PROBE_PATH	"/batch_query_keys?keys=mooncake-sidecar-lock-probe-0,mooncake-sidecar-lock-probe-1," \
	"mooncake-sidecar-lock-probe-2,mooncake-sidecar-lock-probe-3,mooncake-sidecar-lock-probe-4," \
	"mooncake-sidecar-lock-probe-5,mooncake-sidecar-lock-probe-6,mooncake-sidecar-lock-probe-7"

static void
stall_reset(struct master *m)
{
	httpc_cancel(m->lock_req);
	httpc_cancel(m->metrics_req);
	m->lock_req = m->metrics_req = NULL;
	m->lock_unanswered = 0;
	m->ping_seen = 0;
	memset(&m->stall, 0, sizeof m->stall);
	if (m->stall_timer != NULL)
		evtimer_del(m->stall_timer);
}

/* The two signs through the table, and what follows: a change told, a restart when due. */
static void
stall_judge(struct master *m)
{
	const struct cfg *c = m->cfg;
	double now = mono_now();
	struct stall_in in = { now, m->lock_unanswered, (double)c->master.lock_probe_timeout_ms / 1000.0,
		m->ping_seen ? m->ping_moved : 0, (double)c->master.stall_window_ms / 1000.0,
		(double)c->master.stall_restart_ms / 1000.0 };
	int was = m->stall.stalled;
	char why[600];
	stall_check(&in, &m->stall);
	if (m->stall.stalled && !was)
		m->stalls++;
	if (m->stall.stalled && !was)
		log_err("%s: stalled: %s%s", m->child.name, m->stall.why, c->master.stall_restart_ms > 0 ?
		    "; it is restarted if this goes on" : " (master.stall_restart_ms 0: not restarting it)");
	else if (!m->stall.stalled && was)
		log_notice("%s: answering through its locks again", m->child.name);
	if (m->stall.stalled != was && m->changed != NULL)
		m->changed(m, m->arg);
	if (m->stall.restart) {
		snprintf(why, sizeof why, "stalled for %.1f s (%s); restarted before client_ttl expires every client",
		    now - m->stall.since, m->stall.why);
		child_fail(&m->child, why);
	}
}

static void
lock_answered(const struct httpc_response *r, void *arg)
{
	struct master *m = arg;
	m->lock_req = NULL;
	counters_observe(OP_PROBE_LOCK, r->outcome == HTTPC_OK ? ST_OK : r->outcome == HTTPC_TIMEOUT ? ST_TIMEOUT :
	    ST_ERROR, r->seconds);
	if (r->outcome == HTTPC_OK)	/* any answer: the locks let it through */
		m->lock_unanswered = 0;
	stall_judge(m);
}

static void
metrics_answered(const struct httpc_response *r, void *arg)
{
	struct master *m = arg;
	double ping, clients, now = mono_now();
	m->metrics_req = NULL;
	if (r->outcome == HTTPC_OK && r->status == 200 && !m->ping_seen)
		mha_first_metrics(&m->h, r->body, r->len);	/* a restored master's keys */
	if (r->outcome != HTTPC_OK || r->status != 200 ||
	    stall_metric(r->body, r->len, "master_ping_requests_total", &ping) != 0 ||
	    stall_metric(r->body, r->len, "master_active_clients", &clients) != 0)
		return;		/* no reading: nothing said either way */
	/* Flat with clients counted is a stall only while clients are connected to the RPC port: the
	 * master counts a client that is gone until its client_ttl expires it, and a job whose every
	 * worker stopped stops pinging too. */
	if (!m->ping_seen || ping != m->ping_last || clients <= 0 ||
	    ports_clients((int)m->cfg->master.rpc_port) == 0)
		m->ping_moved = now;	/* moving, or nobody to ping: not flat */
	m->ping_last = ping;
	m->ping_seen = 1;
	stall_judge(m);
}

static void
stall_tick(evutil_socket_t fd, short what, void *arg)
{
	struct master *m = arg;
	const struct cfg *c = m->cfg;
	(void)fd;
	(void)what;
	if (m->child.state != CHILD_READY)
		return;
	if (m->lock_req == NULL) {
		if (m->lock_unanswered == 0)
			m->lock_unanswered = mono_now();
		m->lock_req = httpc_get(m->lock_h, LOCK_PROBE_PATH, c->master.lock_probe_timeout_ms, lock_answered, m);
	}
	if (m->metrics_req == NULL)
		m->metrics_req = httpc_get(m->metrics_h, "/metrics", c->master.lock_probe_timeout_ms, metrics_answered, m);
	stall_judge(m);
}

static void
probe_host(const char *bind, char *out, size_t len)
{
	if (bind == NULL || *bind == '\0' || strcmp(bind, "0.0.0.0") == 0)
		snprintf(out, len, "127.0.0.1");
	else if (strcmp(bind, "::") == 0 || strcmp(bind, "[::]") == 0)
		snprintf(out, len, "::1");
	else
		snprintf(out, len, "%s", bind);
}

int
master_targets(const struct cfg *cfg, struct httpc_target *t, char *err, size_t errlen)
{
	static const char *const flags[PROBE_COUNT] = {
		"rpc_address", "http_metadata_server_host", "metrics_host"
	};
	for (int i = 0; i < PROBE_COUNT; i++) {
		char host[URL_HOST_MAX], why[400];
		long port = i == PROBE_RPC ? cfg->master.rpc_port : i == PROBE_METADATA ?
		    cfg->master.http_metadata_port : cfg->master.metrics_port;
		probe_host(workerenv_gflag(cfg->master.extra_args, flags[i], 0), host, sizeof host);
		if (httpc_resolve(host, (int)(port ? port : 1), &t[i], why, sizeof why) != 0) {
			snprintf(err, errlen, "master.extra_args: --%s=%s: %s", flags[i], host, why);
			return -1;
		}
	}
	return 0;
}

static int
port_of(const struct master *m, int idx)
{
	switch (idx) {
	case PROBE_RPC: return (int)m->cfg->master.rpc_port;
	case PROBE_METADATA: return (int)m->cfg->master.http_metadata_port;
	default: return (int)m->cfg->master.metrics_port;
	}
}

/* Before each spawn: the command exists and the three ports are free. */
static int
master_prepare(struct child *c, char *why, size_t len)
{
	struct master *m = c->arg;
	char path[PATH_MAX];
	if (command_path(c->argv[0], path, sizeof path) != 0) {
		snprintf(why, len, "%s: command not found (PATH=%s)", c->argv[0],
		    getenv("PATH") ? getenv("PATH") : "");
		return -1;
	}
	warm_prepare(m->warm);	/* master.snapshot: what it restores from is good */
	for (int i = 0; i < PROBE_COUNT; i++) {
		char msg[200];
		if (port_of(m, i) == 0)
			continue;
		if (ports_check_free(port_of(m, i), msg, sizeof msg) != 0) {
			pid_t holder = ports_holder(port_of(m, i));
			snprintf(why, len, "%s (the master's %s port)", msg, probe_names[i]);
			/* An escaped process of an earlier master (re-parented to us) holds it: it goes. */
			if (child_is_orphan(holder)) {
				log_warn("%s: pid %ld, left by an earlier master, holds the %s port %d: SIGKILL",
				    c->name, (long)holder, probe_names[i], port_of(m, i));
				kill(holder, SIGKILL);
			}
			return -1;
		}
	}
	return 0;
}

static void
cancel_probes(struct master *m)
{
	for (int i = 0; i < PROBE_COUNT; i++) {
		httpc_cancel(m->probes[i]);
		m->probes[i] = NULL;
	}
	m->pending = 0;
	if (m->round_timer != NULL)
		evtimer_del(m->round_timer);
	if (m->deadline != NULL)
		evtimer_del(m->deadline);
}

static void
schedule_round(struct master *m, long interval_ms)
{
	double due = m->round_started + (double)interval_ms / 1000.0, now = mono_now();
	long ms = due > now ? (long)((due - now) * 1000.0 + 0.5) : 0;
	struct timeval tv = ms_tv(ms);
	evtimer_add(m->round_timer, &tv);
}

static void
warn_once(struct master *m, const char *msg)
{
	if (strcmp(m->last_warning, msg) != 0) {
		log_warn("%s: %s", m->child.name, msg);
		snprintf(m->last_warning, sizeof m->last_warning, "%s", msg);
	}
}

/* Whether its RPC port is expected open: without HA unless it says standby; under HA only once it
 * serves (0.3.12 opens the RPC server after the warmup, and a standby has none). */
static int
rpc_expected(const struct master *m)
{
	return m->ha ? m->h.phase == MH_SERVING : !mha_standby(&m->h);
}

/* All probes of a startup round succeeded: make sure it is our child that answered (one look at
 * the listeners and the child's descriptors for all its ports). */
static int
verify_owner(struct master *m)
{
	char msg[200], why[256];
	int ports[PROBE_COUNT];
	size_t n = 0;
	for (int i = 0; i < PROBE_COUNT; i++)
		if (port_of(m, i) != 0 && !(i == PROBE_RPC && !rpc_expected(m)))
			ports[n++] = port_of(m, i);
	if (!ports_owned_by(m->child.pid, ports, n, msg, sizeof msg)) {
		snprintf(why, sizeof why, "not declaring ready: %s, not by pid %ld", msg, (long)m->child.pid);
		warn_once(m, why);
		return 0;
	}
	return 1;
}

static void
round_done(struct master *m)
{
	int all = 1;
	for (int i = 0; i < PROBE_COUNT; i++)
		all &= m->round_ok[i];
	if (m->child.state == CHILD_STARTING) {
		struct timeval tv;
		/* HA: it said it serves in a round that did not ask its RPC port: ask at once */
		if (all && m->ha && rpc_expected(m) && !m->round_rpc)
			m->rerun = 1;
		else if (all && m->child.pid > 0 && verify_owner(m)) {
			child_ready(&m->child);
			return;
		}
		if (m->rerun) {
			m->rerun = 0;
			round_start(m);
			return;
		}
		/* Refused while starting: again soon, 1 ms doubling up to the probe interval. For one
		 * interval after a start-up line it stays at 1 ms: the master prints the admin server's
		 * line before its RPC server listens, and a doubling that starts there would meet the
		 * last port up to twice as late as it opened. */
		tv = ms_tv(m->retry_ms);
		evtimer_add(m->round_timer, &tv);
		if (mono_now() >= m->hot_until)
			m->retry_ms = m->retry_ms * 2 < m->cfg->master.probe_interval_ms ? m->retry_ms * 2 :
			    m->cfg->master.probe_interval_ms;
		return;
	}
	if (m->child.state != CHILD_READY)
		return;
	long interval = m->ha ? m->cfg->master.probe_interval_ms : m->cfg->master.liveness_interval_ms;
	if (m->rerun) {
		/* a state line came during this round: the next one now, as the state may have moved on */
		m->rerun = 0;
		interval = 0;
	}
	if (m->ha && m->h.phase == MH_WARMUP && m->cfg->master.ha_warmup_timeout_ms > 0 &&
	    mono_now() - m->h.phase_since > (double)m->cfg->master.ha_warmup_timeout_ms / 1000.0) {
		char why[300];
		snprintf(why, sizeof why, "HA leader in warmup for %.1f s, more than master.ha.warmup_timeout_ms "
		    "(%ld); 0.3.12's warmup is one leadership lease, 5 s", mono_now() - m->h.phase_since,
		    m->cfg->master.ha_warmup_timeout_ms);
		child_fail(&m->child, why);
		return;
	}
	if (all)
		m->live_failures = 0;
	else if (m->round_local)
		warn_once(m, m->stat[!m->round_ok[PROBE_ADMIN] ? PROBE_ADMIN : PROBE_RPC].detail);
	else if (mono_now() - m->last_failure_count >=
	    (double)m->cfg->master.liveness_interval_ms / 1000.0 * 0.999) {
		/* Counted at most once per liveness interval, however often /health is watched. */
		char why[600];
		const struct probe_stat *s = !m->round_ok[PROBE_ADMIN] ? &m->stat[PROBE_ADMIN] :
		    &m->stat[PROBE_RPC];
		m->last_failure_count = mono_now();
		m->live_failures++;
		log_warn("%s: liveness probe failed (%d of %ld): %s %s", m->child.name,
		    m->live_failures, m->cfg->master.liveness_failures,
		    !m->round_ok[PROBE_ADMIN] ? "admin" : "rpc", s->detail);
		if (m->live_failures >= m->cfg->master.liveness_failures) {
			snprintf(why, sizeof why, "hung: %d liveness probes failed in a row (%s)",
			    m->live_failures, s->detail);
			child_fail(&m->child, why);
			return;
		}
	}
	schedule_round(m, interval);
}

static void
probe_done(const struct httpc_response *r, void *arg)
{
	struct slot *sl = arg;
	struct master *m = sl->m;
	struct probe_stat *st = &m->stat[sl->idx];
	int ok = r->outcome == HTTPC_OK;

	m->probes[sl->idx] = NULL;
	st->local = r->outcome == HTTPC_LOCAL;
	if (ok && sl->idx != PROBE_RPC && r->status != 200) {
		ok = 0;
		snprintf(st->detail, sizeof st->detail, "HTTP %d", r->status);
	} else if (ok && sl->idx == PROBE_METADATA && strcmp(r->body, "OK") != 0) {
		ok = 0;
		snprintf(st->detail, sizeof st->detail, "/health answered \"%.40s\", not OK", r->body);
	} else if (ok && sl->idx == PROBE_ADMIN && !mha_health(&m->h, r->body, r->len, m->child.state == CHILD_READY) &&
	    m->child.state == CHILD_STARTING) {
		ok = 0;
		snprintf(st->detail, sizeof st->detail, "/health: %s and no leader known",
		    mha_standby(&m->h) ? "a standby" : "the service is not ready");
	} else if (st->local)
		snprintf(st->detail, sizeof st->detail, "the sidecar's own trouble, not the master's: %s",
		    r->detail);
	else
		snprintf(st->detail, sizeof st->detail, "%s", ok ? "ok" : r->detail);
	counters_observe(OP_PROBE_RPC + sl->idx, ok ? ST_OK : r->outcome == HTTPC_TIMEOUT ?
	    ST_TIMEOUT : ST_ERROR, r->seconds);
	st->ok = ok;
	st->seconds = r->seconds;
	st->at = mono_now();
	m->round_ok[sl->idx] = ok;
	m->round_local |= st->local;
	if (--m->pending == 0)
		round_done(m);
}

static void
round_start(struct master *m)
{
	int liveness = m->child.state == CHILD_READY;
	long timeout = liveness ? m->cfg->master.liveness_interval_ms : READINESS_PROBE_TIMEOUT_MS;
	m->round_started = mono_now();
	m->pending = 0;
	m->round_local = 0;
	m->round_rpc = rpc_expected(m) && port_of(m, PROBE_RPC) != 0;
	mha_leader_probe(&m->h);
	for (int i = 0; i < PROBE_COUNT; i++) {
		m->round_ok[i] = 1;
		if (port_of(m, i) == 0 || (liveness && i == PROBE_METADATA) ||
		    (i == PROBE_RPC && !rpc_expected(m)))
			continue;
		m->pending++;
		m->probes[i] = i == PROBE_RPC ? httpc_connect(m->up[i], timeout, probe_done, &m->slots[i]) :
		    httpc_get(m->up[i], "/health", timeout, probe_done, &m->slots[i]);
	}
	if (m->pending == 0)
		round_done(m);
}

static void
round_cb(evutil_socket_t fd, short what, void *arg)
{
	round_start(arg);
}

static void
deadline_cb(evutil_socket_t fd, short what, void *arg)
{
	struct master *m = arg;
	char why[1400];
	int n = 0;
	for (int i = 0; i < PROBE_COUNT && n < (int)sizeof why; i++) {
		if (port_of(m, i) == 0)
			continue;
		if (m->probes[i] != NULL)
			n += snprintf(why + n, sizeof why - (size_t)n, "%s%s: no answer for %.0f ms",
			    n ? "; " : "", probe_names[i], (mono_now() - m->round_started) * 1000.0);
		else if (!m->stat[i].ok)
			n += snprintf(why + n, sizeof why - (size_t)n, "%s%s: %s", n ? "; " : "",
			    probe_names[i], m->stat[i].detail);
	}
	if (n == 0)
		snprintf(why, sizeof why, "%s", m->last_warning);
	char msg[1500];
	snprintf(msg, sizeof msg, "not ready after %ld ms (%s)", m->cfg->master.ready_timeout_ms, why);
	child_fail(&m->child, msg);
}

static void
master_spawned(struct child *c)
{
	struct master *m = c->arg;
	struct timeval tv = ms_tv(m->cfg->master.ready_timeout_ms);
	m->last_warning[0] = '\0';
	m->retry_ms = 1;
	m->hot_until = 0;
	m->rerun = 0;
	m->scan[0] = '\0';
	mha_spawned(&m->h);
	for (int i = 0; i < PROBE_COUNT; i++) {
		m->stat[i].ok = 0;
		snprintf(m->stat[i].detail, sizeof m->stat[i].detail, "not probed yet");
	}
	evtimer_add(m->deadline, &tv);
	round_start(m);
}

static void
master_changed(struct child *c, int old)
{
	struct master *m = c->arg;
	if (c->state != old && (old == CHILD_STARTING || old == CHILD_READY))
		cancel_probes(m);
	if (c->state != old && old == CHILD_READY)
		stall_reset(m);
	if (c->state == CHILD_READY && old == CHILD_STARTING) {
		m->generation++;
		m->live_failures = 0;
		m->round_started = mono_now();
		schedule_round(m, m->ha ? m->cfg->master.probe_interval_ms :
		    m->cfg->master.liveness_interval_ms);
		if (m->cfg->master.lock_probe_interval_ms > 0) {
			struct timeval tv = ms_tv(m->cfg->master.lock_probe_interval_ms);
			evtimer_add(m->stall_timer, &tv);
		}
		if (m->cfg->master.snapshot && m->metrics_req == NULL)	/* its keys now, not at the first tick */
			m->metrics_req = httpc_get(m->metrics_h, "/metrics", READINESS_PROBE_TIMEOUT_MS, metrics_answered, m);
	}
	/* a leader that ended leaves its lease in Redis: released now, not after it lapses */
	if ((old == CHILD_STARTING || old == CHILD_READY || old == CHILD_STOPPING) &&
	    c->state != CHILD_STARTING && c->state != CHILD_READY && c->state != CHILD_STOPPING)
		halease_exited(m->lease, c->spawns);
	/* what a master said of its HA is of that process: gone with it, not carried to the next one
	 * (why it was restarted is kept past a death, until the next start) */
	if (c->state == CHILD_STARTING && old != CHILD_STARTING)
		mha_forget(&m->h, 0);
	else if (c->state != CHILD_STARTING && c->state != CHILD_READY)
		mha_forget(&m->h, 1);
	if (m->changed != NULL)
		m->changed(m, m->arg);
}

/* React, don't poll: the master says on stderr when a server of its is up ("Master admin server
 * started on port N", "HTTP metadata server started on H:P"); probe at once then (the readiness rule
 * is unchanged: every probe in one round, the sockets owned by the child). */
static void
master_output(struct child *c, const char *p, size_t n)
{
	static const char *const lines[] = { "Master admin server started on port",
		"HTTP metadata server started on", NULL };
	struct master *m = c->arg;
	char buf[sizeof m->scan + 16384];
	size_t keep = strlen(m->scan), take = n < sizeof buf - keep - 1 ? n : sizeof buf - keep - 1;
	int hit = 0, starting = c->state == CHILD_STARTING && m->cfg->master.probe_on_output;
	if ((m->ha || m->cfg->master.snapshot) && mha_output(&m->h, p, n) && c->state == CHILD_READY) {
		/* its HA state changed: ask /health now */
		if (m->pending > 0)
			m->rerun = 1;
		else {
			evtimer_del(m->round_timer);
			round_start(m);
		}
		return;
	}
	if (!starting)
		return;
	/* the previous chunk's end, then this chunk's end: a line cut between two reads is seen */
	memcpy(buf, m->scan, keep);
	memcpy(buf + keep, p + n - take, take);
	buf[keep + take] = '\0';
	for (int i = 0; lines[i] != NULL && !hit; i++)
		hit = memmem(buf, keep + take, lines[i], strlen(lines[i])) != NULL;
	snprintf(m->scan, sizeof m->scan, "%s", buf + (keep + take > sizeof m->scan - 1 ?
	    keep + take - (sizeof m->scan - 1) : 0));
	if (!hit)
		return;
	m->retry_ms = 1;
	m->hot_until = mono_now() + (double)m->cfg->master.probe_interval_ms / 1000.0;
	if (m->pending > 0)
		m->rerun = 1;
	else {
		evtimer_del(m->round_timer);
		round_start(m);
	}
}

static int
verify_snapshot(void *arg, const char *id, char *why, size_t len)
{
	struct master *m = arg;
	return warm_persisted(m->warm, id, why, len);
}

/* a release of the lease ended: a stop that waited for it goes on */
static void
lease_released(void *arg)
{
	struct master *m = arg;
	if (m->changed != NULL)
		m->changed(m, m->arg);
}

static void
ha_changed(void *arg)
{
	struct master *m = arg;
	if (m->h.phase == MH_SERVING || m->h.phase == MH_WARMUP)
		halease_learn(m->lease, m->child.spawns);
	if (m->changed != NULL)
		m->changed(m, m->arg);
}

static const struct child_ops master_ops = {
	master_prepare, master_spawned, master_changed, master_output
};

struct master *
master_new(struct event_base *base, const struct cfg *cfg, const struct httpc_target *targets,
    master_changed_fn changed, void *arg)
{
	struct master *m = xcalloc(1, sizeof *m);
	const struct kvlist *env[] = { &cfg->master.env };
	char *log_path = xasprintf("%s/mooncake_master.log", cfg->job.log_dir);
	char *pid_path = xasprintf("%s/mooncake_master.pid", cfg->job.run_dir), **argv, err[300] = "";

	m->cfg = cfg;
	m->base = base;
	m->changed = changed;
	m->arg = arg;
	for (int i = 0; i < PROBE_COUNT; i++) {
		m->slots[i] = (struct slot){ m, i };
		m->up[i] = httpc_new(base, &targets[i], 1, PROBE_MAX_BODY, READINESS_PROBE_TIMEOUT_MS);
	}
	m->ha = cfg->master.ha_entry[0] != '\0';
	mha_init(&m->h, base, "mooncake_master", m->ha, ha_changed, m);
	m->round_timer = evtimer_new(base, round_cb, m);
	m->stall_timer = event_new(base, -1, EV_PERSIST, stall_tick, m);
	m->lock_h = httpc_new(base, &targets[PROBE_ADMIN], 1, PROBE_MAX_BODY, cfg->master.lock_probe_timeout_ms);
	m->metrics_h = httpc_new(base, &targets[PROBE_ADMIN], 1, 4 * PROBE_MAX_BODY, cfg->master.lock_probe_timeout_ms);
	m->deadline = evtimer_new(base, deadline_cb, m);
	argv = master_argv(cfg);
	if (cfg->master.snapshot) {
		m->warm = warm_new(cfg->master.snapshot_dir, hacfg_cluster_id(argv, &cfg->master.env));
		m->h.verify = verify_snapshot;
		m->h.verify_arg = m;
	}
	if (m->ha && (m->lease = halease_new(base, cfg, argv, err, sizeof err)) == NULL && err[0])
		log_warn("mooncake_master: its lease in its HA backend cannot be released when it dies (%s): another "
		    "master then leads only once the lease lapses", err);
	halease_on_release(m->lease, lease_released, m);
	child_init(&m->child, base, "mooncake_master", argv,
	    cfg->master.env.n ? child_env(env, 1) : NULL, log_path, pid_path, &cfg->master.restart,
	    cfg->master.stop_timeout_ms, &master_ops, m);
	m->child.yield = 1;
	free(log_path);
	free(pid_path);
	return m;
}

void
master_free(struct master *m)
{
	cancel_probes(m);
	stall_reset(m);
	mha_free(&m->h);
	halease_free(m->lease);
	warm_free(m->warm);
	event_free(m->stall_timer);
	httpc_free(m->lock_h);
	httpc_free(m->metrics_h);
	for (int i = 0; i < PROBE_COUNT; i++)
		httpc_free(m->up[i]);
	event_free(m->round_timer);
	event_free(m->deadline);
	child_free(&m->child);
	free(m);
}

void
master_start(struct master *m)
{
	child_start(&m->child);
}

struct child *
master_process(struct master *m)
{
	return &m->child;
}

void
master_stop(struct master *m, int now)
{
	child_stop(&m->child, now);
}

void
master_reopen_log(struct master *m)
{
	child_reopen_log(&m->child);
}

const struct child *
master_child(const struct master *m)
{
	return &m->child;
}

unsigned
master_generation(const struct master *m)
{
	return m->generation;
}

const char *
master_role(const struct master *m)
{
	return m->h.role[0] ? m->h.role : "leader";
}

const char *
master_leader(const struct master *m)
{
	return m->h.leader;
}

void
master_view(const struct master *m, struct view *v)
{
	struct master_ha ha;
	master_ha(m, &ha);
	v->ha_on = ha.on;
	v->ha_answered = ha.answered;
	v->ha_phase = mhealth_phase_name(ha.phase);
	v->ha_state = view_str(v, ha.ha_state);
	v->ha_phase_s = ha.phase_s;
	v->ha_since = wall_now() - ha.phase_s;
	v->ha_leader = view_str(v, ha.leader);
	v->ha_leader_serving = ha.leader_serving;
	v->ha_leader_detail = view_str(v, ha.leader_detail);
	v->ha_problem = view_str(v, ha.problem);
	v->ha_serving_leader = ha.serving_leader;
	v->ha_snap_ok = ha.snap.ok;
	v->ha_snap_failed = ha.snap.failed;
	v->ha_snap_failing = ha.snap.failing_for;
	v->ha_snap_last_ok = ha.snap.last_ok;
	v->ha_snap_error = ha.snap.last_error[0] ? view_str(v, ha.snap.last_error) : NULL;
	halease_view(master_lease(m), v);
	v->warm_on = m->cfg->master.snapshot;
	v->warm_dir = m->cfg->master.snapshot_dir;
	v->warm_interval_s = m->cfg->master.snapshot_interval_s;
	v->warm_restore = ha.restore == MH_RESTORED ? "restored" : ha.restore == MH_RESTORE_FRESH ? "cold" : NULL;
	v->warm_restore_what = view_str(v, ha.restore_what);
	v->warm_unusable = ha.restore_unusable;
	v->warm_keys = ha.restore_keys;
	v->warm_good = view_str(v, warm_good(m->warm, &v->warm_good_bytes));
}

struct halease *
master_lease(const struct master *m)
{
	return m->lease;
}

void
master_ha(const struct master *m, struct master_ha *h)
{
	mha_get(&m->h, m->child.state == CHILD_READY, h);
}

const struct probe_stat *
master_probe_stat(const struct master *m, int i)
{
	return &m->stat[i];
}

const struct stall_out *
master_stall(const struct master *m)
{
	return &m->stall;
}

unsigned long
master_stalls(const struct master *m)
{
	return m->stalls;
}
