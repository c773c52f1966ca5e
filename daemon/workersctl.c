/*
 * The operator's verbs on this node's workers (POST /control/...?target=worker:NAME|workers|gang:NAME):
 * each worker by the name /status shows. A worker the operator acts on is no failure of its gang;
 * a gang restarted is a new generation from its leader, which every node follows as it follows any.
 */
#include "config.h"
#include <stdio.h>
#include <string.h>
#include "child.h"
#include "log.h"
#include "workers.h"
#include "workers_int.h"

static const char *
verb_name(int verb)
{
	return verb == WORKERS_RESTART ? "restart" : verb == WORKERS_STOP ? "stop" : "start";
}

/* One worker: 1 acted on, 0 nothing to do (already so), -1 busy (msg says with what). */
static int
act_one(struct worker *w, int verb, const char *why, char *msg, size_t len)
{
	struct child *c = &w->child;
	int running = c->state == CHILD_STARTING || c->state == CHILD_READY;
	if (verb != WORKERS_RESTART && (c->state == CHILD_STOPPING || c->state == CHILD_BACKOFF) && c->lc.asked) {
		snprintf(msg, len, "a restart of %s is under way (%s); %s it once it is done", c->name,
		    child_state_name(c->state), verb == WORKERS_STOP ? "stop" : "start");
		return -1;
	}
	switch (verb) {
	case WORKERS_RESTART:
		if ((c->state == CHILD_STOPPING || c->state == CHILD_BACKOFF) && c->lc.asked) {
			snprintf(msg, len, "%s is restarting already", c->name);
			return 0;
		}
		if (c->state == CHILD_STOPPING && c->lc.shutting_down) {
			snprintf(msg, len, "%s is being stopped (%.300s)", c->name, c->reason);
			return -1;
		}
		w->gang_stop = 1;
		child_restart_asked(c, why);
		return 1;
	case WORKERS_STOP:
		if (child_held(c) && !running) {
			snprintf(msg, len, "%s is stopped already", c->name);
			return 0;
		}
		w->gang_stop = 1;
		child_hold(c);
		return 1;
	default:
		if (running && !child_held(c)) {
			snprintf(msg, len, "%s runs already", c->name);
			return 0;
		}
		if (c->state == CHILD_STOPPING) {
			snprintf(msg, len, "%s is still stopping (%.300s); start it once it has", c->name, c->reason);
			return -1;
		}
		child_start(c);
		return 1;
	}
}

int
workers_act(struct workers *ws, int verb, const char *name, const char *why, struct workers_acted *out)
{
	size_t done = 0, noop = 0;
	memset(out, 0, sizeof *out);
	if (ws == NULL || ws->n == 0) {
		snprintf(out->msg, sizeof out->msg, "no workers run on this node");
		return WORKERS_NONE;
	}
	if (!ws->started) {
		snprintf(out->msg, sizeof out->msg, "the workers have not started yet");
		return WORKERS_BUSY;
	}
	for (size_t i = 0; i < ws->n; i++) {
		struct worker *w = &ws->w[i];
		int rc;
		if (name != NULL && strcmp(w->child.name, name) != 0)
			continue;
		rc = act_one(w, verb, why, out->msg, sizeof out->msg);
		if (rc < 0 && name != NULL)
			return WORKERS_BUSY;
		done += rc > 0;
		noop += rc == 0;
		snprintf(out->state, sizeof out->state, "%s", child_state_name(w->child.state));
		if (name != NULL)
			break;
	}
	if (done + noop == 0 && name != NULL) {
		snprintf(out->msg, sizeof out->msg, "no worker \"%.200s\" on this node (the names are /status's)", name);
		return WORKERS_NONE;
	}
	out->acted = done;
	if (name != NULL && done > 0)
		snprintf(out->msg, sizeof out->msg, "%s: %s", name, verb == WORKERS_RESTART ? "restarting" :
		    verb == WORKERS_STOP ? "stopping; it stays stopped until POST /control/start" : "starting");
	if (name == NULL)
		snprintf(out->msg, sizeof out->msg, "%zu of %zu workers: %s", done, ws->n, done ? verb_name(verb) :
		    "nothing to do");
	if (done > 0)
		ws->changed(ws->arg);
	return done > 0 ? WORKERS_DONE : WORKERS_NOOP;
}

int
workers_gang_restart(struct workers *ws, const char *name, const char *why, struct workers_acted *out)
{
	memset(out, 0, sizeof *out);
	for (size_t i = 0; ws != NULL && i < ws->ngangs; i++) {
		struct gang *g = &ws->gangs[i];
		if (strcmp(g->name, name) != 0)
			continue;
		if (!g->is_leader) {
			snprintf(out->msg, sizeof out->msg, "gang %s is led by %s: restart it on that node's sidecar",
			    g->name, ws->cfg->job.nodes.v[g->leader]);
			out->leader = ws->cfg->job.nodes.v[g->leader];
			return WORKERS_ELSEWHERE;
		}
		if (!ws->started) {
			snprintf(out->msg, sizeof out->msg, "the workers have not started yet");
			return WORKERS_BUSY;
		}
		/* a new generation at once, not counted as a failure: every member node follows it */
		g->generation++;
		g->state = GANG_RUNNING;
		g->gfailures = 0;
		gangs_restart_members(g, why);
		snprintf(out->msg, sizeof out->msg, "gang %s: generation %u, its members on every node restart",
		    g->name, g->generation);
		snprintf(out->state, sizeof out->state, "generation %u", g->generation);
		out->acted = g->nlocal;
		ws->changed(ws->arg);
		return WORKERS_DONE;
	}
	snprintf(out->msg, sizeof out->msg, "no gang \"%.200s\" has members on this node (the names are /gangs's)", name);
	return WORKERS_NONE;
}

void
workers_reload(struct workers *ws, const struct kvlist *mc, struct strv *restarted)
{
	for (size_t i = 0; ws != NULL && ws->started && i < ws->n; i++) {
		struct worker *w = &ws->w[i];
		char **argv = strv_dup(w->child.argv), **envp = strv_dup(w->child.envp);
		workers_render(ws, w, mc, 0);
		if (!strv_eq(argv, w->child.argv) || !strv_eq(envp, w->child.envp)) {
			strv_push(restarted, w->child.name);
			if (!child_held(&w->child)) {
				w->gang_stop = 1;
				child_restart_asked(&w->child, "reload: its command line or environment changed");
			}
		}
		strv_freev(argv);
		strv_freev(envp);
	}
}
