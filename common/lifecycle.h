#ifndef COMMON_LIFECYCLE_H
#define COMMON_LIFECYCLE_H

/*
 * The lifecycle of one supervised process (the master, a worker) as one table, as s6-supervise
 * keeps actions[state][event]: lc_next() takes the state and an event and gives the next state and
 * what to do; daemon/child.c only carries that out (spawns, signals, timers) and feeds back what
 * happened as the next event. Pure: no clock, no process.
 */

enum lc_state { LC_STOPPED, LC_STARTING, LC_READY, LC_BACKOFF, LC_STOPPING, LC_FATAL, LC_NSTATES };

enum lc_event {
	LC_START,		/* run it (the first start, or again after a stop) */
	LC_BACKOFF_DONE,	/* the backoff timer fired */
	LC_SPAWNED,		/* its process exists */
	LC_SPAWN_FAILED,	/* it could not be started: a port taken, no such command, clone failed */
	LC_PROBED_READY,	/* its probes or health check say it is ready */
	LC_FAIL,		/* found hung or unhealthy, or not ready in time: stop it, then restart it */
	LC_EXITED,		/* its process ended with code 0 */
	LC_DIED,		/* its process ended with another code, or by a signal */
	LC_STOP,		/* stop it for good: SIGTERM, SIGKILL after the stop timeout */
	LC_STOP_NOW,		/* the same at once: SIGKILL */
	LC_GANG_RESTART,	/* its gang restarts it: stopped first if it runs, started after the gang's delay */
	LC_RESTART,		/* the operator restarts it: the same, paused or not, not counted as a failure */
	LC_HOLD,		/* the operator stops it: as LC_STOP, and nothing but LC_START starts it again */
	LC_NEVENTS
};

/* The state and what it remembers between events. */
struct lc {
	int	state;			/* enum lc_state */
	int	restart_after_stop;	/* it is being stopped for a failure: restart it once it exits */
	int	shutting_down;		/* it is being stopped for good */
	int	gang_restart;		/* its gang restarts it once it exits */
	int	asked;			/* the operator restarts it: started even while paused */
	int	held;			/* the operator stopped it: only LC_START starts it again */
	int	paused_out;		/* left stopped because supervision was paused: resuming starts it */
};

/* What the table reads besides the state. */
struct lc_ctx {
	int	policy;		/* enum restart_policy (cfg.h): always, on-failure, never */
	int	managed;	/* a gang member: its gang decides every restart, and counts its starts */
	int	running;	/* its process exists */
	int	burst_exceeded;	/* one more start would be more than restart.burst in the window */
	int	paused;		/* supervision is paused: no restart, no stop for a failure, no backoff */
};

/* How the new state is worded (daemon/child.c fills in the details). */
enum lc_why {
	LC_WHY_NONE,		/* the state did not change */
	LC_WHY_PID,		/* starting: "pid N" */
	LC_WHY_READY,		/* ready: "pid N ready after S s" */
	LC_WHY_BURST,		/* fatal: "more than N starts in W ms; not restarting (last: ...)" */
	LC_WHY_NOT_STARTED,	/* backoff: why it could not start; "restarting in N ms" */
	LC_WHY_RESTARTING,	/* backoff: how it ended; "restarting in N ms" */
	LC_WHY_GANG_DELAY,	/* backoff: "...; restarting in N ms with its gang" */
	LC_WHY_GANG_DECIDES,	/* stopped: how it ended; "its gang decides" */
	LC_WHY_POLICY,		/* stopped or fatal: how it ended; "restart policy P" */
	LC_WHY_FAILED,		/* stopping: why it was found failing */
	LC_WHY_SHUTDOWN,	/* stopping or stopped: "shutting down" */
	LC_WHY_EXIT,		/* stopped: how it ended, while shutting down */
	LC_WHY_GANG,		/* stopping: why its gang restarts it */
	LC_WHY_PAUSED,		/* stopped: how it ended; "not restarted: supervision is paused" */
	LC_WHY_ASKED,		/* stopping: "restart asked by the operator" */
	LC_WHY_HELD		/* stopping or stopped: "stopped by the operator" */
};

enum lc_backoff {
	LC_BACKOFF_NONE,
	LC_BACKOFF_OWN,		/* one more consecutive failure: the restart policy's doubling delay */
	LC_BACKOFF_GANG		/* the delay its gang gave */
};

struct lc_actions {
	int	spawn;		/* start the process now (then LC_SPAWNED or LC_SPAWN_FAILED) */
	int	record_start;	/* count this start toward restart.burst */
	int	backoff;	/* enum lc_backoff: arm the restart timer */
	int	term;		/* SIGTERM to its process group, SIGKILL after the stop timeout */
	int	kill;		/* SIGKILL to its process group now */
	int	cancel_timer;	/* a pending backoff or kill timer goes */
	int	why;		/* enum lc_why; LC_WHY_NONE when the state stays as it is */
};

void		 lc_next(struct lc *, int event, const struct lc_ctx *, struct lc_actions *);
const char	*lc_state_name(int);
const char	*lc_event_name(int);
#endif
