#include "config.h"
#include <string.h>
#include "reconcile.h"

int
reconcile_master_ready(const struct rc_state *s)
{
	return s->master == RC_MASTER_READY && !s->stopping && !s->ha_wait && (!s->standby || s->leader_known);
}

static void
decide_publish(const struct rc_state *s, struct rc_actions *a)
{
	int ready = reconcile_master_ready(s);
	if (s->master == RC_MASTER_NONE) {
		/* the follower writes what the head says; a head that stopped answering may have lost
		 * its master too, so the files stop saying ready */
		if (s->follow_lost && s->files_ready) {
			a->publish = RC_PUBLISH_NOT_READY;
			a->publish_gen = s->files_gen;
		}
		return;
	}
	/* files that said not ready while the master ran (HA: no leader served for a while) get a new
	 * generation once it is ready again */
	if (ready && (s->master_gen != s->published || s->target_changed ||
	    (s->files_gen > 0 && !s->files_ready && !s->files_error))) {
		a->publish = RC_PUBLISH_NEW;
		a->publish_gen = s->files_gen + 1;
	} else if (ready && s->reload) {
		a->publish = RC_PUBLISH_REWRITE;
		a->publish_gen = s->files_gen;
	} else if (!ready && s->files_gen > 0 && (s->files_ready || s->reload)) {
		a->publish = RC_PUBLISH_NOT_READY;
		a->publish_gen = s->files_gen;
	}
}

/* Stop order: this node's segments drained (workers.drain_on_stop; a second signal skips it), the
 * workers (both at once on a second signal), then the master, then whatever escaped, the last step
 * before the exit, once a follower's head has heard that this node stops (unless a second signal
 * came); each only once per level. */
static void
decide_stop(const struct rc_state *s, struct rc_actions *a)
{
	int level = s->stop_now ? 2 : 1, master_gone;
	if (!s->stopping)
		return;
	if (s->drain_pending && !s->stop_now) {
		a->start_drain = !s->drain_started;
		return;		/* the workers keep their segments until it ends */
	}
	if (s->workers_stop_sent < level)
		a->stop_workers = level;
	if (s->master != RC_MASTER_NONE && s->master_stop_sent < level &&
	    (s->stop_now || s->workers_running == 0))
		a->stop_master = level;
	master_gone = s->master == RC_MASTER_NONE || !s->master_alive;
	if (s->workers_running == 0 && master_gone && !s->orphans_signalled &&
	    ((!s->report_pending && !s->lease_pending) || s->stop_now))
		a->signal_orphans = 1;
}

void
reconcile_decide(const struct rc_state *s, struct rc_actions *a)
{
	int ready_due;
	memset(a, 0, sizeof *a);
	a->reopen_logs = s->reload;
	decide_publish(s, a);
	decide_stop(s, a);
	a->start_workers = !s->stopping;
	/* What systemd hears waits for the files: a publish is told in the next step, once its write
	 * has succeeded or failed. */
	if (a->publish != RC_PUBLISH_NONE) {
		a->again = 1;
		return;
	}
	if (s->stopping)
		return;			/* STOPPING=1 said it */
	ready_due = !s->ready_sent && s->node_ready;
	a->notify = ready_due ? RC_NOTIFY_READY : RC_NOTIFY_STATUS;
}

const char *
reconcile_publish_name(int p)
{
	static const char *const names[] = { "none", "new", "rewrite", "not-ready" };
	return p >= 0 && p <= RC_PUBLISH_NOT_READY ? names[p] : "?";
}
