#ifndef DAEMON_VIEW_H
#define DAEMON_VIEW_H
#include <stddef.h>
#include <sys/types.h>
#include <jansson.h>
#include "buf.h"

struct sidecar;

/*
 * One read-only view of the daemon's state, built at once from the master, the children, the
 * endpoint files and the follower; /status, /metrics, STATUS= and (through /status) --status render
 * it and nothing else. Its strings point into the state: build, render, drop, within one callback.
 */

enum { VIEW_RPC, VIEW_METADATA, VIEW_ADMIN, VIEW_NPROBES };

struct view_probe {
	int		 present;	/* the port is probed (the metadata server may be off) */
	int		 ok;
	double		 last_ms;
	const char	*detail;
	double		 age_ms;	/* < 0: never probed */
};

struct view_child {
	const char	*name;
	int		 state;		/* CHILD_* order, as view_state_names */
	pid_t		 pid;		/* 0: not running */
	unsigned	 restarts;
	double		 ready_seconds;
};

struct view {
	const char		*node, *job_id, *address, *address_source, *run_dir;
	double			 uptime_s;
	int			 ready;		/* what /readyz and /status say */
	/* the master: here (has_master), followed elsewhere (follow_url), or absent */
	int			 has_master;
	const char		*master_node;
	const char		*master_state, *master_reason;
	int			 master_ready;
	pid_t			 master_pid;
	unsigned		 master_restarts;
	int			 last_code, last_signal;	/* -1: none */
	double			 ready_wall;
	long			 ports[VIEW_NPROBES];
	struct view_probe	 probes[VIEW_NPROBES];
	const char		*follow_url, *follow_state;
	/* the endpoint files */
	unsigned		 files_gen;
	int			 files_ready;
	const char		*files_error;	/* NULL: disk says what memory says */
	double			 written_at;	/* 0: never */
	/* every supervised process, the master first */
	struct view_child	*children;
	size_t			 nchildren;
	/* the admin server */
	long			 long_polls;
	unsigned long		 coalesced;
	const struct sidecar	*sc;		/* for the workers' own renderings (workers.h) */
};

extern const char *const view_state_names[];
extern const int view_nstates;

void	view_build(const struct sidecar *, struct view *);
void	view_free(struct view *);
/* The renderings. */
char	*view_status_json(const struct view *);		/* GET /status */
void	 view_status_text(const struct view *, char *, size_t);	/* STATUS= */
#endif
