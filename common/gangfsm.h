#ifndef COMMON_GANGFSM_H
#define COMMON_GANGFSM_H

/*
 * A gang (the processes of one endpoint, which only work together) as one table: gang_next() takes
 * its state on this node and an event and gives the next state and what to do; daemon/workers.c
 * carries it out. The endpoint's first node leads the gang and owns its generation; the other
 * member nodes follow what the leader's GET /gangs says. Pure.
 */

enum gang_state {
	GANG_RUNNING,	/* its members here run (or start) in the current generation */
	GANG_WAITING,	/* a member node: its members here stopped until the leader's next generation */
	GANG_FATAL,	/* over its burst limit: down for good */
	GANG_STOPPED,	/* its restart policy does not restart it: down for good */
	GANG_NSTATES
};

enum gang_event {
	GANG_MEMBER_FAILED,	/* a member on this node exited (or was not healthy in time) */
	GANG_MEMBER_UNHEALTHY,	/* a member on this node failed its health checks */
	GANG_PEER_FAILED,	/* the leader: a member node's /gangs counts a new failure there */
	GANG_PEER_LOST,		/* the leader: a member node's sidecar did not answer for peer_timeout_ms */
	GANG_LEADER_STARTED,	/* a member node: the leader's /gangs shows another generation */
	GANG_LEADER_FATAL,	/* a member node: the leader's /gangs says the gang is fatal */
	GANG_LEADER_STOPPED,	/* a member node: ... that it is stopped */
	GANG_NEVENTS
};

/* Why a gang restarted, as the metrics count it. */
enum gang_reason { GANG_R_MEMBER_FAILED, GANG_R_UNHEALTHY, GANG_R_PEER_LOST, GANG_R_LEADER, GANG_NREASONS };

struct gang_ctx {
	int	leader;		/* this node leads the gang */
	int	restart;	/* the restart policy restarts after this failure */
	int	burst_exceeded;	/* one more generation would be more than restart.burst in the window */
	int	stopping;	/* the sidecar is stopping: nothing restarts */
};

enum gang_why { GANG_WHY_NONE, GANG_WHY_POLICY, GANG_WHY_BURST, GANG_WHY_LEADER_SAYS, GANG_WHY_WAIT };

struct gang_actions {
	int	count_failure;		/* one more failure of a member here (what this node's /gangs says) */
	int	new_generation;		/* the leader: the next generation, counted toward the burst, whose
					   members start after the gang's backoff */
	int	restart_members;	/* restart the members here in the (new) generation */
	int	stop_members;		/* stop the members here */
	int	reason;			/* enum gang_reason, with restart_members */
	int	why;			/* enum gang_why: how a stop is worded */
};

void		 gang_next(int *state, int event, const struct gang_ctx *, struct gang_actions *);
const char	*gang_state_name(int);
const char	*gang_event_name(int);
const char	*gang_reason_name(int);
#endif
