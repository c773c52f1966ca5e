#ifndef COMMON_RECONCILE_H
#define COMMON_RECONCILE_H
#include <stddef.h>

/*
 * The one decision of the daemon. Every event (a child's state, a probe, the follower, a signal, a
 * file write) only records what happened and schedules one deferred reconcile step; the step fills
 * a struct rc_state from the whole state, asks reconcile_decide() what must happen, and carries the
 * actions out in the order of struct rc_actions. An action whose outcome changes the state (a
 * publish, a stop) is decided alone in its step and followed by another step (again).
 */

enum rc_master {
	RC_MASTER_NONE,		/* no master on this node: the follower mirrors the head's files */
	RC_MASTER_STOPPED,
	RC_MASTER_STARTING,
	RC_MASTER_READY,
	RC_MASTER_BACKOFF,
	RC_MASTER_STOPPING,
	RC_MASTER_FATAL
};

struct rc_state {
	int		 master;		/* enum rc_master */
	int		 master_alive;		/* its process exists */
	unsigned	 master_gen;		/* its ready generation (one more at each ready) */
	int		 standby;		/* HA: it says it is a standby */
	int		 leader_known;		/* and names a leader workers can reach */
	int		 ha_wait;		/* HA: no serving leader is known (its own warmup, a leader
						   that does not serve, none named) */
	unsigned	 published;		/* the master generation last published as ready */
	int		 target_changed;	/* where workers are pointed differs from that publish */
	unsigned	 files_gen;		/* what the endpoint files say */
	int		 files_ready;
	int		 files_error;		/* the last write failed; a retry is pending */
	int		 reload;		/* SIGHUP: rewrite the files as they stand, READY=1 again */
	int		 stopping;		/* a stop signal came */
	int		 stop_now;		/* a second one, or SIGQUIT */
	int		 workers_stop_sent;	/* 0, 1 (graceful), 2 (at once) */
	int		 master_stop_sent;	/* likewise */
	int		 orphans_signalled;
	int		 drain_pending;		/* workers.drain_on_stop: this node's segments not drained yet */
	int		 drain_started;		/* the drain is under way */
	int		 ready_sent;		/* READY=1 went out (since the last reload) */
	int		 node_ready;		/* the readiness rule says so (common/readiness.h) */
	int		 follow_lost;		/* no master here: the head sidecar stopped answering */
	int		 report_pending;	/* stopping follower: the head has not heard it stop yet */
	int		 lease_pending;		/* an HA master's lease being released (within 1 s): its
						   stop waits for it, or the next leader waits out the lease */
	size_t		 workers;		/* this node's */
	size_t		 workers_ready;
	size_t		 workers_running;
};

enum rc_publish {
	RC_PUBLISH_NONE,
	RC_PUBLISH_NEW,		/* a new generation, ready: files_gen + 1 */
	RC_PUBLISH_REWRITE,	/* as they stand, ready (reload) */
	RC_PUBLISH_NOT_READY	/* the same generation, not ready (a follower: what it mirrors) */
};

enum rc_notify {
	RC_NOTIFY_NONE,
	RC_NOTIFY_STATUS,	/* STATUS= only */
	RC_NOTIFY_READY		/* READY=1 with STATUS= */
};

/* In the order the daemon carries them out. */
struct rc_actions {
	int		 reopen_logs;		/* reload: before anything is written */
	int		 publish;		/* enum rc_publish */
	unsigned	 publish_gen;		/* the generation the files get */
	int		 start_drain;		/* stopping: drain this node's segments before the workers go */
	int		 stop_workers;		/* 0, 1 (graceful), 2 (at once) */
	int		 start_workers;		/* let the workers start what is due */
	int		 stop_master;		/* 0, 1 (graceful), 2 (at once) */
	int		 signal_orphans;	/* last: whatever escaped the process groups */
	int		 notify;		/* enum rc_notify */
	int		 again;			/* decide once more after these (the state moved) */
};

/* Whether the master is what workers may be pointed at now. */
int	reconcile_master_ready(const struct rc_state *);
void	reconcile_decide(const struct rc_state *, struct rc_actions *);
/* Names for tests and logs. */
const char	*reconcile_publish_name(int);
#endif
