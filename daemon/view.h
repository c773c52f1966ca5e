#ifndef DAEMON_VIEW_H
#define DAEMON_VIEW_H
#include <stddef.h>
#include <sys/types.h>
#include "admin.h"
#include "arena.h"
#include "gangfsm.h"
#include "prom.h"
#include "sdreport.h"

/*
 * One read-only view of the daemon's state, as values: the sidecar step fills it (each component
 * its own part: workers_view(), ...) and the outputs render it and nothing else: /status, /gangs,
 * /readyz, /metrics (daemon/render.c, daemon/metrics.c, daemon/routes.c) and STATUS=. Its strings
 * are its own (copied into strings) or the configuration's, which does not change while the daemon
 * runs; it holds no pointer into the daemon's state. Build, render, free.
 */

enum { VIEW_RPC, VIEW_METADATA, VIEW_ADMIN, VIEW_NPROBES };
enum { VIEW_PORT_HTTP, VIEW_PORT_BOOTSTRAP, VIEW_PORT_KV_EVENTS, VIEW_PORT_NIXL, VIEW_PORT_SYS, VIEW_PORT_DP_RPC,
	VIEW_NPORTS };

struct view_probe {
	int		 present;	/* the port is probed (the metadata server may be off) */
	int		 ok;
	double		 last_ms;
	const char	*detail;
	double		 age_ms;	/* < 0: never probed */
};

struct view_child {
	const char	*name;
	int		 state;		/* enum child_state, as view_state_names */
	pid_t		 pid;		/* 0: not running */
	unsigned	 restarts;
	double		 ready_seconds;
};

struct view_worker {
	const char	*name;		/* "" before the workers start */
	const char	*role;
	int		 worker_index;
	const char	*state;		/* "waiting" before they start */
	const char	*reason;	/* why it is in that state ("" before they start) */
	pid_t		 pid;		/* 0: not running */
	unsigned	 restarts;
	const char	*cvd;		/* CUDA_VISIBLE_DEVICES given, or NULL */
	const char	*check;		/* "http", "tcp" or "none" */
	int		 ok;		/* the last check: 1, 0, or -1 before any */
	const char	*last;		/* what it said */
	double		 age_ms;	/* < 0: never checked */
	unsigned	 failures;	/* failed checks in a row */
	double		 ready_s;	/* exec to healthy, the last time it was; <= 0: never */
	int		 ports[VIEW_NPORTS];
	int		 dp_rank;	/* -1: none */
	int		 group_index;	/* into workers.groups */
};

struct view_gang {
	const char	*name, *group, *leader, *state, *last_cause;
	const char	**nodes;	/* every node it spans, its leader first */
	size_t		 nnodes;
	const char	**members;	/* its processes on this node */
	size_t		 nmembers;
	unsigned	 generation, failures, restarts;
	long		 starts_in_ms;
	int		 waiting, up;
	unsigned	 by_reason[GANG_NREASONS];	/* restarts applied here, by reason */
};

/* The time from a worker's exec to its first healthy check (model loading), for one group, in
 * these buckets (seconds). */
#define VIEW_READY_NBUCKETS	12
extern const double view_ready_buckets[VIEW_READY_NBUCKETS];
struct view_ready_hist {
	const char		*role;
	size_t			 index;	/* the group's, in workers.groups */
	struct prom_hist	 hist;
};

struct view {
	struct arena		 strings;	/* every string below that is not the configuration's */
	const char		*node, *job_id, *address, *address_source, *run_dir, *master_node;
	double			 uptime_s;
	double			 start_wall;	/* when the sidecar started, wall clock */
	/* the readiness rule's answer (common/readiness.h): /readyz, /status, STATUS=, the gauge */
	int			 ready;
	const char		*ready_reason;	/* "ready" or "not ready: ..." */
	const char		*status_line;	/* STATUS= */
	/* the master: here (has_master), followed elsewhere (follow_url), or absent */
	int			 has_master;
	const char		*master_state, *master_reason;
	int			 master_ready;
	pid_t			 master_pid;
	unsigned		 master_restarts;
	int			 last_code, last_signal;	/* -1: none */
	const char		*stall_why;	/* stalled under its metadata locks: why; NULL: not */
	double			 stall_s;	/* for how long */
	unsigned long		 stalls;	/* stalls seen since the sidecar started */
	double			 ready_wall;
	/* HA (--enable_ha; ha_on 0: none): the master's phase and what follows for clients */
	int			 ha_on, ha_answered, ha_leader_serving, ha_serving_leader;
	const char		*ha_phase, *ha_state, *ha_leader, *ha_leader_detail, *ha_problem;
	double			 ha_phase_s;
	double			 ha_since;	/* wall clock of the phase's start, as endpoints' written_at */
	/* its snapshots (what a standby is promoted from): counts, the last that persisted (wall, 0
	 * none), failed in a row since, and why the last failed */
	unsigned long		 ha_snap_ok, ha_snap_failed;
	unsigned		 ha_snap_failing;
	double			 ha_snap_last_ok;
	const char		*ha_snap_error;
	/* master.snapshot (warm_on 0: off): where and how often, what the last start's restore came to
	 * ("restored", "cold", NULL not said yet), the snapshots as ha_snap_* count them */
	int			 warm_on;
	const char		*warm_dir, *warm_restore, *warm_restore_what;
	long			 warm_interval_s;
	unsigned		 warm_unusable;
	double			 warm_keys;	/* restored: keys at its first reading; <0 not known */
	const char		*warm_good;	/* the last good snapshot kept ("" none) and its bytes */
	long long		 warm_good_bytes;
	/* Redis HA: the leases of its dead masters the sidecar released (daemon/halease.c) */
	int			 ha_lease_on;
	unsigned long		 ha_lease_released, ha_lease_gone, ha_lease_failed;
	double			 ha_lease_last_ms;	/* from the exit to Redis's answer, the last one */
	const char		*ha_lease_error;
	/* the last switchover (ha_sw_state NULL: none): its state, the new leader, how long, what came of it */
	const char		*ha_sw_state, *ha_sw_from, *ha_sw_to, *ha_sw_msg;
	double			 ha_sw_took_ms;
	long			 ports[VIEW_NPROBES];
	struct view_probe	 probes[VIEW_NPROBES];
	const char		*follow_url, *follow_state;
	/* the endpoint files */
	unsigned		 files_gen;
	int			 files_ready;
	const char		*files_error;	/* NULL: disk says what memory says */
	double			 written_at;	/* 0: never */
	int			 has_files;	/* an endpoints.json exists (in memory) */
	const char		*files_json;	/* what /endpoints serves (in a view made with it), else NULL */
	/* every supervised process, the master first */
	struct view_child	*children;
	size_t			 nchildren;
	/* this node's workers, gangs and their time to ready */
	struct view_worker	*workers;
	size_t			 nworkers, workers_healthy;
	const char		*workers_waiting;	/* what they wait for before they start, or NULL */
	struct view_gang	*gangs;
	size_t			 ngangs;
	char			 gangs_etag[32];	/* changes whenever what /gangs says does */
	struct view_ready_hist	*ready_hist;
	size_t			 nready_hist;
	/* workers.drain_on_stop: this node's segments drained at a graceful stop (has_drain 0: off) */
	int			 has_drain;
	const char		*drain_state, *drain_via, *drain_host, *drain_why, *drain_job, *drain_job_status;
	size_t			 drain_segments;
	long long		 drain_moved, drain_moving, drain_blocked, drain_failed, drain_bytes;
	double			 drain_s;
	/* what /sd lists: this node's running processes, then (on the head) what the other nodes
	 * reported in their polls */
	struct view_sd {
		const char		*node;
		struct sd_target	 t;
	}			*sd;
	size_t			 nsd;
	int			 sd_tls;
	unsigned long		 sd_refused;	/* nodes' /sd reports that did not parse */
	/* the operator's control: supervision paused (since, wall clock), the last actions, oldest first */
	int			 paused;
	double			 paused_since;
	struct view_action {
		double		 at;
		const char	*who, *action, *target, *outcome, *message;
		int		 code;
	}			*actions;
	size_t			 nactions;
	/* the admin server */
	long			 long_polls;
	struct admin_conn_stats	 conns;		/* the admin port's */
	unsigned long		 coalesced;
};

extern const char *const view_state_names[];
extern const int view_nstates;

/* A string kept by the view (NULL stays NULL). */
const char	*view_str(struct view *, const char *);
void		 view_free(struct view *);
#endif
