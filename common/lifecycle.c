#include "config.h"
#include <string.h>
#include "cfg.h"
#include "lifecycle.h"

static const char *const state_names[LC_NSTATES] = {
	"stopped", "starting", "ready", "backoff", "stopping", "fatal"
};
static const char *const event_names[LC_NEVENTS] = {
	"start", "backoff-done", "spawned", "spawn-failed", "probed-ready", "fail", "exited", "died", "stop",
	"stop-now", "gang-restart", "restart", "hold"
};

const char *
lc_state_name(int s)
{
	return s >= 0 && s < LC_NSTATES ? state_names[s] : "?";
}

const char *
lc_event_name(int e)
{
	return e >= 0 && e < LC_NEVENTS ? event_names[e] : "?";
}

static void
to(struct lc *l, struct lc_actions *a, int state, int why)
{
	l->state = state;
	a->why = why;
}

/* A start is attempted: more than the burst (a gang counts its own) makes it fatal. */
static void
attempt(struct lc *l, const struct lc_ctx *c, struct lc_actions *a)
{
	if (!c->managed && c->burst_exceeded) {
		to(l, a, LC_FATAL, LC_WHY_BURST);
		return;
	}
	l->asked = 0;
	a->record_start = 1;
	a->spawn = 1;
}

/* Its process ended: the restart policy (or its gang) decides what follows. */
static void
ended(struct lc *l, int died, const struct lc_ctx *c, struct lc_actions *a)
{
	int restart;
	a->cancel_timer = 1;
	if (l->shutting_down) {
		to(l, a, LC_STOPPED, l->held ? LC_WHY_HELD : LC_WHY_EXIT);
		return;
	}
	if (l->gang_restart) {	/* its gang's restart, or the operator's */
		l->gang_restart = 0;
		a->backoff = LC_BACKOFF_GANG;
		to(l, a, LC_BACKOFF, LC_WHY_GANG_DELAY);
		return;
	}
	if (c->paused) {
		l->restart_after_stop = 0;
		l->paused_out = 1;
		to(l, a, LC_STOPPED, LC_WHY_PAUSED);
		return;
	}
	if (c->managed) {
		l->restart_after_stop = 0;
		to(l, a, LC_STOPPED, LC_WHY_GANG_DECIDES);
		return;
	}
	restart = l->restart_after_stop || c->policy == RESTART_ALWAYS || (c->policy == RESTART_ON_FAILURE && died);
	l->restart_after_stop = 0;
	if (!restart) {
		to(l, a, died ? LC_FATAL : LC_STOPPED, LC_WHY_POLICY);
		return;
	}
	a->backoff = LC_BACKOFF_OWN;
	to(l, a, LC_BACKOFF, LC_WHY_RESTARTING);
}

static void
stop(struct lc *l, int now, const struct lc_ctx *c, struct lc_actions *a)
{
	int why = l->held ? LC_WHY_HELD : LC_WHY_SHUTDOWN;
	l->shutting_down = 1;
	l->restart_after_stop = 0;
	l->gang_restart = 0;
	l->asked = 0;
	l->paused_out = 0;
	if (c->running) {
		if (l->state != LC_STOPPING)
			to(l, a, LC_STOPPING, why);
		if (now) {
			a->kill = 1;
			a->cancel_timer = 1;
		} else
			a->term = 1;
	} else if (l->state == LC_BACKOFF || (l->held && (l->state == LC_FATAL || l->state == LC_STOPPED))) {
		a->cancel_timer = 1;
		to(l, a, LC_STOPPED, why);
	}
}

/* A restart by its gang (asked 0) or by the operator (1): stopped first if it runs, started after
 * the gang's delay (the operator's: none). */
static void
restart(struct lc *l, int asked, const struct lc_ctx *c, struct lc_actions *a)
{
	l->shutting_down = 0;
	l->held = 0;
	l->paused_out = 0;
	l->asked = asked;
	if (c->running) {
		l->gang_restart = 1;
		l->restart_after_stop = 0;
		if (l->state != LC_STOPPING) {	/* one already stopping keeps its SIGKILL deadline */
			a->term = 1;
			to(l, a, LC_STOPPING, asked ? LC_WHY_ASKED : LC_WHY_GANG);
		}
	} else {
		l->gang_restart = 0;
		a->cancel_timer = asked;
		a->backoff = LC_BACKOFF_GANG;
		to(l, a, LC_BACKOFF, asked ? LC_WHY_ASKED : LC_WHY_GANG_DELAY);
	}
}

void
lc_next(struct lc *l, int ev, const struct lc_ctx *c, struct lc_actions *a)
{
	int asked = l->state == LC_STOPPED || l->state == LC_BACKOFF || l->state == LC_FATAL;
	memset(a, 0, sizeof *a);
	switch (ev) {
	case LC_START:
		if (c->running || l->state == LC_STARTING || l->state == LC_READY || l->state == LC_STOPPING)
			break;
		l->shutting_down = 0;
		l->held = 0;
		l->paused_out = 0;
		a->cancel_timer = 1;
		attempt(l, c, a);
		break;
	case LC_BACKOFF_DONE:
		if (l->state != LC_BACKOFF || c->running)
			break;
		if (c->paused && !l->asked) {
			l->paused_out = 1;
			to(l, a, LC_STOPPED, LC_WHY_PAUSED);
		} else
			attempt(l, c, a);
		break;
	case LC_SPAWNED:
		if (asked)
			to(l, a, LC_STARTING, LC_WHY_PID);
		break;
	case LC_SPAWN_FAILED:
		if (asked) {
			a->backoff = LC_BACKOFF_OWN;
			to(l, a, LC_BACKOFF, LC_WHY_NOT_STARTED);
		}
		break;
	case LC_PROBED_READY:
		if (l->state == LC_STARTING && c->running)
			to(l, a, LC_READY, LC_WHY_READY);
		break;
	case LC_FAIL:
		if (c->paused || !c->running || (l->state != LC_STARTING && l->state != LC_READY))
			break;
		l->restart_after_stop = 1;
		a->term = 1;
		to(l, a, LC_STOPPING, LC_WHY_FAILED);
		break;
	case LC_EXITED:
	case LC_DIED:
		if (l->state == LC_STARTING || l->state == LC_READY || l->state == LC_STOPPING)
			ended(l, ev == LC_DIED, c, a);
		break;
	case LC_STOP:
	case LC_STOP_NOW:
		stop(l, ev == LC_STOP_NOW, c, a);
		break;
	case LC_HOLD:
		l->held = 1;
		stop(l, 0, c, a);
		break;
	case LC_GANG_RESTART:
		if (!c->paused && !l->held)
			restart(l, 0, c, a);
		break;
	case LC_RESTART:
		restart(l, 1, c, a);
		break;
	}
}
