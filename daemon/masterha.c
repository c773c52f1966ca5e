#include "config.h"
#include <stdio.h>
#include <string.h>
#include "clock.h"
#include "log.h"
#include "mhealth.h"
#include "stall.h"
#include "workerenv.h"
#include "masterha.h"

/* A standby's leader is asked at most this often whether it serves (a connect to its RPC port). */
#define LEADER_PROBE_MS			200
/* What 0.3.12 logs, once a second, when it holds the leadership but its standby cannot be promoted
 * (a Redis standby without --enable_snapshot_restore: ha/standby_controller.cpp). */
#define PROMOTE_REFUSED			"Failed to promote standby for serve"
/* What it logs at each change of its HA state (ha/leadership/master_service_supervisor.cpp): the
 * sidecar asks /health at once instead of at the next probe. */
#define HA_STATE_LINE			"Master runtime state -> "

static void
told(struct mha *h)
{
	if (h->changed != NULL)
		h->changed(h->arg);
}

void
mha_init(struct mha *h, struct event_base *base, const char *name, int on, void (*changed)(void *), void *arg)
{
	memset(h, 0, sizeof *h);
	h->base = base;
	h->name = name;
	h->on = on;
	h->changed = changed;
	h->arg = arg;
	h->phase = MH_NO_LEADER;
}

void
mha_free(struct mha *h)
{
	httpc_cancel(h->leader_req);
	httpc_free(h->leader_h);
	h->leader_req = NULL;
	h->leader_h = NULL;
}

void
mha_spawned(struct mha *h)
{
	h->line_len = 0;
	h->snap_why[0] = '\0';
	h->restore = MH_RESTORE_NONE;
	h->restore_what[0] = '\0';
	h->restore_unusable = 0;
	h->restore_keys = -1;
}

void
mha_forget(struct mha *h, int keep_problem)
{
	if (!keep_problem || h->phase != MH_NO_LEADER) {
		h->role[0] = '\0';
		h->leader[0] = '\0';
		h->ha_state[0] = '\0';
		h->phase = MH_NO_LEADER;
		h->phase_since = mono_now();
	}
	if (!keep_problem)
		h->problem[0] = '\0';
	httpc_cancel(h->leader_req);
	h->leader_req = NULL;
	h->leader_serving = 0;
	h->leader_h_for[0] = '\0';
}

int
mha_health(struct mha *h, const char *body, size_t len, int said)
{
	struct mhealth x;
	char old_role[sizeof h->role], old_leader[sizeof h->leader];
	snprintf(old_role, sizeof old_role, "%s", h->role);
	snprintf(old_leader, sizeof old_leader, "%s", h->leader);
	int parsed = mhealth_parse(body, len, &x) == 0, old_phase = h->phase;
	snprintf(h->role, sizeof h->role, "%s", x.role);
	snprintf(h->leader, sizeof h->leader, "%s", x.leader);
	snprintf(h->ha_state, sizeof h->ha_state, "%s", x.ha_state);
	if (h->on && parsed)
		h->phase = mhealth_phase(&x);
	if (h->phase != old_phase)
		h->phase_since = mono_now();
	if (strcmp(old_leader, h->leader) != 0)
		h->leader_asked = 0;		/* a new leader: ask it at once */
	if ((said || h->on) && (strcmp(old_role, h->role) != 0 || strcmp(old_leader, h->leader) != 0 ||
	    h->phase != old_phase)) {
		log_notice("%s: HA role %s (%s), leader %s", h->name, h->role,
		    h->ha_state[0] ? h->ha_state : mhealth_phase_name(h->phase), h->leader[0] ? h->leader : "unknown");
		told(h);
	}
	/* under HA a master that answers with its state is up, whatever the state: whether clients
	 * may be pointed at it is the readiness rule's question */
	return h->on ? parsed : mhealth_usable(&x);
}

static void
leader_answered(const struct httpc_response *r, void *arg)
{
	struct mha *h = arg;
	int was = h->leader_serving;
	h->leader_req = NULL;
	h->leader_serving = r->outcome == HTTPC_OK;
	snprintf(h->leader_detail, sizeof h->leader_detail, "%s", h->leader_serving ? "serving" : r->detail);
	if (h->leader_serving != was) {
		log_notice("%s: the HA leader %s %s", h->name, h->leader_h_for,
		    h->leader_serving ? "serves (its RPC port accepts)" : "does not serve");
		told(h);
	}
}

/* A standby's leader serves when its RPC port accepts: the address it registered (rpc_address:port)
 * is numeric, so this never resolves a name in the loop. */
void
mha_leader_probe(struct mha *h)
{
	char host[URL_HOST_MAX];
	long port;
	struct httpc_target t;
	double now = mono_now();
	if (!h->on || h->phase != MH_STANDBY || h->leader_req != NULL ||
	    now - h->leader_asked < LEADER_PROBE_MS / 1000.0)
		return;
	h->leader_asked = now;
	if (strcmp(h->leader_h_for, h->leader) != 0) {
		httpc_free(h->leader_h);
		h->leader_h = NULL;
		h->leader_serving = 0;
		snprintf(h->leader_h_for, sizeof h->leader_h_for, "%s", h->leader);
		if (split_hostport(h->leader, host, sizeof host, &port) != 0 || port <= 0 ||
		    httpc_numeric(strcmp(host, "0.0.0.0") == 0 ? "127.0.0.1" : host, (int)port, &t) != 0) {
			snprintf(h->leader_detail, sizeof h->leader_detail, "its address \"%s\" is not a numeric "
			    "host:port, so it is not asked", h->leader);
			return;
		}
		h->leader_h = httpc_new(h->base, &t, 1, 1024, READINESS_PROBE_TIMEOUT_MS);
	}
	if (h->leader_h != NULL)
		h->leader_req = httpc_connect(h->leader_h, READINESS_PROBE_TIMEOUT_MS, leader_answered, h);
}

/* One line of its log: a snapshot persisted or failed (said once when that changes), a promotion
 * it refuses, a change of its HA state (returns 1). */
static int
one_line(struct mha *h, const char *l, size_t n)
{
	struct master_snapshots *s = &h->snap;
	char why[sizeof h->snap_why];
	if (h->problem[0] == '\0' && memmem(l, n, PROMOTE_REFUSED, strlen(PROMOTE_REFUSED)) != NULL) {
		snprintf(h->problem, sizeof h->problem, "it holds the HA leadership but cannot serve: its log says "
		    "\"" PROMOTE_REFUSED "\" (0.3.12 promotes a Redis standby only with --enable_snapshot_restore "
		    "and a snapshot store: see master.ha)");
		log_err("%s: %s", h->name, h->problem);
		told(h);
	}
	if (memmem(l, n, HA_STATE_LINE, strlen(HA_STATE_LINE)) != NULL)
		return 1;
	switch (mhealth_restore_line(l, n, why, sizeof why)) {
	case MH_RESTORED:
		h->restore = MH_RESTORED;
		snprintf(h->restore_what, sizeof h->restore_what, "%s", why);
		log_notice("%s: restored from the snapshot %s", h->name, why);
		told(h);
		return 0;
	case MH_RESTORE_UNUSABLE:
		h->restore_unusable++;
		snprintf(h->restore_what, sizeof h->restore_what, "%s", why);
		log_warn("%s: the snapshot %s; it tries the next, else starts cold", h->name, why);
		return 0;
	case MH_RESTORE_FAILED:
	case MH_RESTORE_FRESH:
		h->restore = MH_RESTORE_FRESH;
		if (h->restore_unusable > 0)
			log_err("%s: no snapshot of %u could be restored (the last: %s): a cold start, every key lost",
			    h->name, h->restore_unusable, h->restore_what);
		else
			log_notice("%s: no snapshot to restore: a cold start", h->name);
		told(h);
		return 0;
	}
	switch (mhealth_snapshot_line(l, n, why, sizeof why)) {
	case MH_SNAP_WHY:
		snprintf(h->snap_why, sizeof h->snap_why, "%s", why);
		return 0;
	case MH_SNAP_OK:
		/* the master's word is checked against its files (master.snapshot: daemon/warm.c) */
		if (h->verify != NULL && h->verify(h->verify_arg, why, h->snap_why, sizeof h->snap_why) != 0)
			goto failed;
		if (s->failing_for > 0)
			log_notice("%s: a snapshot persisted again, after %u failed", h->name, s->failing_for);
		s->ok++;
		s->failing_for = 0;
		s->last_ok = wall_now();
		s->last_error[0] = '\0';
		break;
	case MH_SNAP_FAILED:
	failed:
		s->failed++;
		snprintf(s->last_error, sizeof s->last_error, "%s", h->snap_why[0] ? h->snap_why : "see its log");
		if (s->failing_for++ == 0)
			log_err("%s: its snapshot failed (%s): %s from the last one that persisted%s", h->name,
			    s->last_error, h->on ? "a standby promoted now starts" : "a restart now restores",
			    s->last_ok > 0 ? "" : " (none yet)");
		break;
	default:
		return 0;
	}
	h->snap_why[0] = '\0';
	told(h);
	return 0;
}

int
mha_output(struct mha *h, const char *p, size_t n)
{
	int state = 0;
	for (size_t i = 0; i < n; i++) {
		if (p[i] == '\n') {
			state |= one_line(h, h->line, h->line_len);
			h->line_len = 0;
		} else if (h->line_len < sizeof h->line)
			h->line[h->line_len++] = p[i];	/* a longer line: its start */
	}
	return state;
}

int
mha_standby(const struct mha *h)
{
	return strcmp(h->role, "standby") == 0;
}

void
mha_get(const struct mha *h, int answered, struct master_ha *o)
{
	memset(o, 0, sizeof *o);
	o->on = h->on;
	o->answered = h->on && answered;
	o->phase = h->phase;
	o->ha_state = h->ha_state[0] ? h->ha_state : mhealth_phase_name(h->phase);
	o->phase_s = mono_now() - h->phase_since;
	o->leader = h->leader;
	o->leader_serving = h->phase == MH_STANDBY && h->leader_serving && strcmp(h->leader_h_for, h->leader) == 0;
	o->leader_detail = h->phase == MH_SERVING ? "this master serves" : h->phase != MH_STANDBY ? "no leader to ask" :
	    h->leader_detail[0] ? h->leader_detail : "not asked yet";
	o->problem = h->problem[0] ? h->problem : NULL;
	o->serving_leader = o->answered && (h->phase == MH_SERVING || o->leader_serving);
	o->snap = h->snap;
	o->restore = h->restore;
	o->restore_what = h->restore_what;
	o->restore_unusable = h->restore_unusable;
	o->restore_keys = h->restore == MH_RESTORED ? h->restore_keys : -1;
}

void
mha_first_metrics(struct mha *h, const char *body, size_t len)
{
	double keys;
	if (h->restore == MH_RESTORED && h->restore_keys < 0 &&
	    stall_metric(body, len, "master_key_count", &keys) == 0) {
		h->restore_keys = keys;
		log_notice("%s: %.0f keys restored", h->name, keys);
		told(h);
	}
}
