/*
 * The operator's verbs, carried out on the sidecar's components: never waiting (a restart asked is
 * a restart begun; /status and ctl --wait follow it), every one safe to repeat: asking again for
 * what is under way, or already so, is a no-op that says so; asking for something else of a target
 * busy with another change is a 409 naming it.
 */
#include "config.h"
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>
#include "audit.h"
#include "child.h"
#include "clock.h"
#include "control.h"
#include "draining.h"
#include "halease.h"
#include "log.h"
#include "master.h"
#include "masterha.h"
#include "mhealth.h"
#include "notify.h"
#include "reload.h"
#include "sidecar.h"
#include "workers.h"

/* What an action came to, before it is answered, logged and counted. */
struct outcome {
	int		 code;		/* HTTP status */
	const char	*kind;		/* the target's kind */
	const char	*word;		/* ok, noop, conflict, invalid, error */
	char		 state[64];	/* the target's state after it */
	char		 msg[600];
	json_t		*extra;		/* more for the answer (reload: what changed), or NULL */
};

static void
say(struct outcome *o, int code, const char *word, const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static void
say(struct outcome *o, int code, const char *word, const char *fmt, ...)
{
	va_list ap;
	o->code = code;
	o->word = word;
	va_start(ap, fmt);
	vsnprintf(o->msg, sizeof o->msg, fmt, ap);
	va_end(ap);
}

/* The master: restart, stop (held until a start), start. */
static void
on_master(struct sidecar *s, const char *verb, const char *why, struct outcome *o)
{
	struct child *c;
	int running;
	if (s->master == NULL) {
		say(o, 409, "conflict", "the master does not run on this node: it runs on %s; act on it through "
		    "that node's sidecar", s->cfg.master.node);
		return;
	}
	c = master_process(s->master);
	running = c->state == CHILD_STARTING || c->state == CHILD_READY;
	if (strcmp(verb, "restart") != 0 && (c->state == CHILD_STOPPING || c->state == CHILD_BACKOFF) && c->lc.asked)
		say(o, 409, "conflict", "a restart of the master is under way (%s); %s it once it is done",
		    child_state_name(c->state), verb);
	else if (strcmp(verb, "restart") == 0) {
		if ((c->state == CHILD_STOPPING || c->state == CHILD_BACKOFF) && c->lc.asked)
			say(o, 200, "noop", "the master is restarting already");
		else if (c->state == CHILD_STOPPING && c->lc.shutting_down)
			say(o, 409, "conflict", "the master is being stopped (%.400s); start it once it has", c->reason);
		else {
			child_restart_asked(c, why);
			say(o, 200, "ok", "the master restarts: the endpoint files say not ready until it is ready again");
		}
	} else if (strcmp(verb, "stop") == 0) {
		if (child_held(c) && !running)
			say(o, 200, "noop", "the master is stopped already");
		else {
			child_hold(c);
			say(o, 200, "ok", "the master stops and stays stopped until POST /control/start");
		}
	} else {
		if (running && !child_held(c))
			say(o, 200, "noop", "the master runs already");
		else if (c->state == CHILD_STOPPING)
			say(o, 409, "conflict", "the master is still stopping (%.400s); start it once it has", c->reason);
		else {
			child_start(c);
			say(o, 200, "ok", "the master starts");
		}
	}
	snprintf(o->state, sizeof o->state, "%s", child_state_name(c->state));
}

static void
on_workers(struct sidecar *s, const char *verb, const char *kind, const char *name, const char *why,
    struct outcome *o)
{
	struct workers_acted w;
	int v = strcmp(verb, "restart") == 0 ? WORKERS_RESTART : strcmp(verb, "stop") == 0 ? WORKERS_STOP : WORKERS_START;
	int rc;
	if (strcmp(kind, "gang") == 0 && v != WORKERS_RESTART) {
		say(o, 400, "invalid", "a gang is restarted as one (restart); stop and start its workers with "
		    "target=worker:NAME or target=workers");
		return;
	}
	rc = strcmp(kind, "gang") == 0 ? workers_gang_restart(s->workers, name, why, &w) :
	    workers_act(s->workers, v, name, why, &w);
	snprintf(o->state, sizeof o->state, "%s", w.state);
	switch (rc) {
	case WORKERS_DONE: say(o, 200, "ok", "%s", w.msg); break;
	case WORKERS_NOOP: say(o, 200, "noop", "%s", w.msg); break;
	case WORKERS_NONE: say(o, 404, "invalid", "%s", w.msg); break;
	default: say(o, 409, "conflict", "%s", w.msg); break;
	}
}

static void
on_pause(int on, struct outcome *o)
{
	if (child_paused() == on)
		say(o, 200, "noop", "supervision is %s already", on ? "paused" : "running");
	else if (on) {
		child_pause(1);
		audit_paused(1, wall_now());
		say(o, 200, "ok", "supervision paused: nothing is restarted, stopped for a failure or backed off "
		    "until POST /control/resume; probes and the endpoint files go on");
	} else {
		audit_paused(0, 0);
		child_resume();
		say(o, 200, "ok", "supervision resumed: what ended during the pause is started");
	}
	snprintf(o->state, sizeof o->state, "%s", child_paused() ? "paused" : "supervising");
}

static void
on_drain(struct sidecar *s, struct outcome *o)
{
	struct drain_info i;
	if (s->drain == NULL) {
		say(o, 409, "conflict", "nothing to drain: workers.drain_on_stop is off or no workers run on this node");
		return;
	}
	if (drain_again(s->drain) != 0)
		say(o, 200, "noop", "a drain runs already");
	else
		say(o, 202, "ok", "draining this node's segments; GET /status shows the drain and its outcome");
	drain_info(s->drain, &i);
	snprintf(o->state, sizeof o->state, "%s", i.state);
}

/* HA: the leader steps down for another master (Redis HA, halease.c). */
#define SWITCHOVER_TIMEOUT_MS	15000

static void
on_switchover(struct sidecar *s, struct outcome *o)
{
	struct master_ha ha;
	struct halease *l = s->master != NULL ? master_lease(s->master) : NULL;
	if (s->master == NULL) {
		say(o, 409, "conflict", "the master does not run on this node: it runs on %s; ask the sidecar of the "
		    "leader", s->cfg.master.node);
		return;
	}
	if (l == NULL) {
		say(o, 409, "conflict", "switchover needs an HA master on Redis (master.ha)");
		return;
	}
	master_ha(s->master, &ha);
	if (!halease_switching(l) && (!ha.answered || ha.phase != MH_SERVING)) {
		if (ha.answered && ha.phase == MH_STANDBY && ha.leader[0])
			say(o, 409, "conflict", "this master is a standby; the leader is %.300s: ask its sidecar", ha.leader);
		else
			say(o, 409, "conflict", "this master is not a serving leader (%s); switch over from the sidecar "
			    "of the one that serves", ha.answered ? mhealth_phase_name(ha.phase) : "it has not said");
		snprintf(o->state, sizeof o->state, "%s", ha.answered ? mhealth_phase_name(ha.phase) : "unknown");
		return;
	}
	o->code = halease_switchover(l, master_process(s->master), SWITCHOVER_TIMEOUT_MS, o->msg, sizeof o->msg);
	o->word = o->code == 200 ? "noop" : "ok";
	snprintf(o->state, sizeof o->state, "switching over");
}

static const char *
kind_of(const char *target, const char **name)
{
	*name = NULL;
	if (target == NULL || target[0] == '\0')
		return "sidecar";
	if (strcmp(target, "master") == 0)
		return "master";
	if (strcmp(target, "workers") == 0)
		return "workers";
	if (strncmp(target, "worker:", 7) == 0 && target[7] != '\0') {
		*name = target + 7;
		return "worker";
	}
	if (strncmp(target, "gang:", 5) == 0 && target[5] != '\0') {
		*name = target + 5;
		return "gang";
	}
	return "unknown";
}

static void
act(struct sidecar *s, const struct admin_control *req, struct outcome *o)
{
	static const char *const verbs[] = { "restart", "stop", "start", "pause", "resume", "drain", "reload",
		"switchover", NULL };
	const char *verb = req->verb, *name;
	char why[200];
	int known = 0, targeted;
	o->kind = kind_of(req->target, &name);
	for (int i = 0; verbs[i] != NULL; i++)
		known |= strcmp(verb, verbs[i]) == 0;
	if (!known) {
		say(o, 404, "invalid", "no control verb \"%.100s\": restart, stop, start, pause, resume, drain, reload, "
		    "switchover", verb);
		return;
	}
	targeted = strcmp(verb, "restart") == 0 || strcmp(verb, "stop") == 0 || strcmp(verb, "start") == 0;
	if (targeted && strcmp(o->kind, "sidecar") == 0) {
		say(o, 400, "invalid", "%s needs ?target=master, workers, worker:NAME or gang:NAME", verb);
		return;
	}
	if (strcmp(o->kind, "unknown") == 0 || (!targeted && strcmp(o->kind, "sidecar") != 0)) {
		say(o, 400, "invalid", targeted ? "target \"%.160s\" is none of master, workers, worker:NAME, gang:NAME" :
		    "%s takes no target (got \"%.160s\")", targeted ? req->target : verb, req->target);
		return;
	}
	if (s->stopping) {
		say(o, 409, "conflict", "the sidecar is stopping");
		return;
	}
	snprintf(why, sizeof why, "%s asked by the operator (%.100s)", verb, req->who);
	if (strcmp(verb, "pause") == 0 || strcmp(verb, "resume") == 0)
		on_pause(strcmp(verb, "pause") == 0, o);
	else if (strcmp(verb, "drain") == 0)
		on_drain(s, o);
	else if (strcmp(verb, "switchover") == 0)
		on_switchover(s, o);
	else if (strcmp(verb, "reload") == 0) {
		control_reopen(s);	/* as SIGHUP always did: the logs reopened, the files rewritten */
		o->code = reload_apply(s, o->msg, sizeof o->msg, &o->word, &o->extra);
	} else if (strcmp(o->kind, "master") == 0)
		on_master(s, verb, why, o);
	else
		on_workers(s, verb, o->kind, name, why, o);
}

void
control_reopen(struct sidecar *s)
{
	notify_reloading();
	s->reload = 1;
	s->ready_sent = 0;
}

void
control_act(struct sidecar *s, const struct admin_control *req, struct admin_answer *ans)
{
	struct outcome o = { 0 };
	struct audit_entry e = { 0 };
	json_t *j;
	if (req->refused)
		say(&o, req->refused, "refused", "%s", req->refused == 401 ? "no valid credentials" :
		    req->why != NULL ? req->why : "the control routes need admin.auth over the network");
	else
		act(s, req, &o);
	if (o.kind == NULL)
		o.kind = kind_of(req->target, &(const char *){ NULL });
	e.at = wall_now();
	snprintf(e.who, sizeof e.who, "%s", req->who);
	snprintf(e.action, sizeof e.action, "%s", strlen(req->verb) < sizeof e.action ? req->verb : "other");
	snprintf(e.target, sizeof e.target, "%s", req->target ? req->target : "");
	snprintf(e.kind, sizeof e.kind, "%s", o.kind);
	snprintf(e.outcome, sizeof e.outcome, "%s", o.word);
	snprintf(e.message, sizeof e.message, "%.399s", o.msg);
	e.code = o.code;
	audit_record(&e);
	log_msg(o.code < 300 ? LOG_LVL_NOTICE : LOG_LVL_WARN, "control: %s%s%s by %s: %s (%d): %s", e.action,
	    e.target[0] ? " " : "", e.target, e.who, e.outcome, o.code, o.msg);
	if (req->refused) {
		json_decref(o.extra);
		return;
	}
	j = json_pack("{s:b, s:s, s:s?, s:s, s:s, s:s}", "ok", o.code < 300, "action", req->verb, "target",
	    req->target, "outcome", o.word, o.code < 300 ? "message" : "error", o.msg, "state", o.state);
	if (o.extra != NULL)
		json_object_update_new(j, o.extra);
	ans->code = o.code;
	ans->ctype = "application/json";
	ans->body = json_dumps(j, JSON_COMPACT);
	ans->len = strlen(ans->body);
	json_decref(j);
	/* after every action, refused ones too: STATUS= and /status show it, and a reload that said
	 * RELOADING=1 (even an invalid one) says READY=1 here */
	sidecar_changed(s);
}
