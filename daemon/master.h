#ifndef DAEMON_MASTER_H
#define DAEMON_MASTER_H
#include <event2/event.h>
#include "cfg.h"
#include "child.h"
#include "httpc.h"
#include "masterha.h"

enum { PROBE_RPC, PROBE_METADATA, PROBE_ADMIN, PROBE_COUNT };

struct probe_stat {
	int	 ok;
	double	 seconds;
	double	 at;		/* monotonic time of the last result */
	int	 local;		/* it failed for the sidecar's own reasons (EMFILE...) */
	char	 detail[400];
};

struct master;
typedef void (*master_changed_fn)(struct master *, void *);

/* targets: where the probes connect, from master_targets() */
struct master	*master_new(struct event_base *, const struct cfg *, const struct httpc_target *,
		    master_changed_fn, void *);
void		 master_free(struct master *);
void		 master_start(struct master *);
void		 master_stop(struct master *, int);
void		 master_reopen_log(struct master *);
const struct child *master_child(const struct master *);
/* Its process, for the operator's verbs (child_restart_asked, child_hold, child_start). */
struct child	*master_process(struct master *);
unsigned	 master_generation(const struct master *);
const struct probe_stat *master_probe_stat(const struct master *, int);
/* HA: the role the master's /health reported ("leader" or "standby") and the leader it names
 * ("host:port", or "" when none is known). */
const char	*master_role(const struct master *);
const char	*master_leader(const struct master *);
/* HA (--enable_ha): what its /health last said and what follows for clients. */
void		 master_ha(const struct master *, struct master_ha *);
/* Its part of the view: its HA, its snapshots, its lease (the probes are the sidecar's). */
struct view;
void		 master_view(const struct master *, struct view *);
/* Its lease in Redis (Redis HA), or NULL. */
struct halease	*master_lease(const struct master *);
/* Once ready: whether it is stalled under its metadata locks, since when and why. */
struct stall_out;
const struct stall_out *master_stall(const struct master *);
unsigned long	 master_stalls(const struct master *);	/* how many began since the sidecar started */
/* Where the probes connect, by port (PROBE_*): the bind address from extra_args (loopback for a
 * wildcard), resolved. Blocking: before the loop. Returns -1 with err naming the key. */
int		 master_targets(const struct cfg *, struct httpc_target *, char *, size_t);
#endif
