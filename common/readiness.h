#ifndef COMMON_READINESS_H
#define COMMON_READINESS_H
#include <stddef.h>
#include <sys/types.h>

/*
 * The one readiness rule of a node. /readyz, /status ("ready", and --status's exit code), READY=1,
 * the STATUS= line and the mooncake_sidecar_ready gauge all come from it. A node is ready when
 * what it is responsible for is: its master (when it runs one) ready, under HA a leader serving (the
 * master itself, or the leader it names as a standby), and published; its endpoint files written and saying ready; every one of its workers
 * healthy; and it is not stopping. The reason a node is not ready is one text, the same wherever it
 * is shown.
 */

/* What the rule reads, as values: the daemon fills it from its state in one go. */
struct rd_facts {
	int		 stopping;
	int		 has_master;		/* this node runs the master */
	int		 master_ready;		/* it is proven ready (state "ready") */
	const char	*master_state;		/* its state's name: "starting", "backoff", ... */
	const char	*master_reason;		/* why it is in that state ("" when nothing to say) */
	pid_t		 master_pid;		/* 0: not running */
	unsigned	 master_restarts;
	const char	*ha_role;		/* HA: "the HA leader" or "an HA standby of H:P" when a leader
						   serves (itself or the one it names); NULL without HA */
	const char	*ha_wait;		/* HA: why no serving leader is known ("up as the HA leader, in
						   warmup for 2.1 s", ...), or NULL */
	const char	*master_stalled;	/* why it is stalled under its metadata locks, or NULL */
	const char	*master_restore;	/* master.snapshot: "restored" or "cold" at its start, or NULL */
	const char	*master_node;		/* where the master runs */
	const char	*follow_state;		/* a node without the master: its follower's line, or NULL */
	int		 files_ready;		/* endpoints.json says ready (in memory: what /endpoints serves) */
	unsigned	 files_gen;
	const char	*files_error;		/* why the disk is behind memory, or NULL */
	size_t		 workers;		/* this node's */
	size_t		 workers_healthy;	/* of them, past their health check */
	const char	*workers_waiting;	/* what they wait for before they start, or NULL */
	const char	*worker_name;		/* the first one not healthy, when one is */
	const char	*worker_state;		/* its state: "starting", "backoff", "fatal", ... */
	const char	*worker_detail;		/* its last health check, or why it stopped ("" if none) */
};

/* 1 when the node is ready; why gets "ready", or "not ready: <reason>" (what /readyz answers). */
int	readiness(const struct rd_facts *, char *why, size_t len);
/* The STATUS= line: the master (or the follower), the files when they are behind, the workers.
 * A reason the node is not ready is in it with the same words as in readiness()'s. */
void	readiness_status_line(const struct rd_facts *, char *line, size_t len);
#endif
