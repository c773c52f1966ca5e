#ifndef DAEMON_MASTER_H
#define DAEMON_MASTER_H
#include <event2/event.h>
#include "cfg.h"
#include "child.h"

enum { PROBE_RPC, PROBE_METADATA, PROBE_ADMIN, PROBE_COUNT };

struct probe_stat {
	int	 ok;
	double	 seconds;
	double	 at;		/* monotonic time of the last result */
	char	 detail[160];
};

struct master;
typedef void (*master_changed_fn)(struct master *, void *);

struct master	*master_new(struct event_base *, const struct cfg *, master_changed_fn, void *);
void		 master_free(struct master *);
void		 master_start(struct master *);
void		 master_stop(struct master *, int);
void		 master_reopen_log(struct master *);
const struct child *master_child(const struct master *);
unsigned	 master_generation(const struct master *);
const struct probe_stat *master_probe_stat(const struct master *, int);
/* HA: the role the master's /health reported ("leader" or "standby") and the leader it names
 * ("host:port", or "" when none is known). */
const char	*master_role(const struct master *);
const char	*master_leader(const struct master *);
/* The argv the master is started with (command, port flags, extra_args). */
char		**master_argv(const struct cfg *);
/* Where the probes connect: the bind address from extra_args, loopback for a wildcard. */
void		 master_probe_hosts(const struct cfg *, char *, char *, size_t);
#endif
