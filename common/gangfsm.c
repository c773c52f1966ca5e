#include "config.h"
#include <string.h>
#include "gangfsm.h"

static const char *const state_names[GANG_NSTATES] = { "running", "waiting", "fatal", "stopped" };
static const char *const event_names[GANG_NEVENTS] = {
	"member-failed", "member-unhealthy", "peer-failed", "peer-lost", "leader-started", "leader-fatal",
	"leader-stopped"
};
static const char *const reason_names[GANG_NREASONS] = { "member_failed", "unhealthy", "peer_lost", "leader" };

const char *
gang_state_name(int s)
{
	return s >= 0 && s < GANG_NSTATES ? state_names[s] : "?";
}

const char *
gang_event_name(int e)
{
	return e >= 0 && e < GANG_NEVENTS ? event_names[e] : "?";
}

const char *
gang_reason_name(int r)
{
	return r >= 0 && r < GANG_NREASONS ? reason_names[r] : "?";
}

static void
end(int *state, int to, int why, struct gang_actions *a)
{
	*state = to;
	a->stop_members = 1;
	a->why = why;
}

/* The leader starts the next generation, unless its policy lets the gang stay down or one more
 * start would be over the burst. */
static void
next_generation(int *state, int reason, const struct gang_ctx *c, struct gang_actions *a)
{
	if (!c->restart)
		end(state, GANG_STOPPED, GANG_WHY_POLICY, a);
	else if (c->burst_exceeded)
		end(state, GANG_FATAL, GANG_WHY_BURST, a);
	else {
		*state = GANG_RUNNING;
		a->new_generation = 1;
		a->restart_members = 1;
		a->reason = reason;
	}
}

void
gang_next(int *state, int ev, const struct gang_ctx *c, struct gang_actions *a)
{
	int over = *state == GANG_FATAL || *state == GANG_STOPPED;
	memset(a, 0, sizeof *a);
	if (ev == GANG_MEMBER_FAILED || ev == GANG_MEMBER_UNHEALTHY)
		a->count_failure = 1;
	if (over || c->stopping)
		return;
	switch (ev) {
	case GANG_MEMBER_FAILED:
	case GANG_MEMBER_UNHEALTHY:
		if (c->leader)
			next_generation(state, ev == GANG_MEMBER_UNHEALTHY ? GANG_R_UNHEALTHY : GANG_R_MEMBER_FAILED, c, a);
		else
			end(state, GANG_WAITING, GANG_WHY_WAIT, a);
		break;
	case GANG_PEER_FAILED:
	case GANG_PEER_LOST:
		if (c->leader)
			next_generation(state, ev == GANG_PEER_LOST ? GANG_R_PEER_LOST : GANG_R_MEMBER_FAILED, c, a);
		break;
	case GANG_LEADER_STARTED:
		if (!c->leader) {
			*state = GANG_RUNNING;
			a->restart_members = 1;
			a->reason = GANG_R_LEADER;
		}
		break;
	case GANG_LEADER_FATAL:
	case GANG_LEADER_STOPPED:
		if (!c->leader)
			end(state, ev == GANG_LEADER_FATAL ? GANG_FATAL : GANG_STOPPED, GANG_WHY_LEADER_SAYS, a);
		break;
	}
}
