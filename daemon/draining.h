#ifndef DAEMON_DRAINING_H
#define DAEMON_DRAINING_H
#include <event2/event.h>
#include "cfg.h"
#include "drain.h"
#include "httpc.h"

/*
 * workers.drain_on_stop: at a graceful stop, before the workers go, ask the master to move this
 * node's segments elsewhere (mooncake_master's drain jobs) and wait up to workers.drain_timeout_ms
 * for it: GET /get_all_segments, the names on this node's host, POST /api/v1/drain_jobs, then GET
 * /api/v1/drain_jobs/query every 250 ms until the job ends. Through the master's admin port on its
 * own node, through the head sidecar's routes (admin.debug_routes, admin.write_routes, the token)
 * elsewhere. It reports upward only through its callback.
 */

struct drain;
typedef void (*drain_changed_fn)(void *);

/* What /status shows. */
struct drain_info {
	const char		*state;		/* idle, listing, creating, running, succeeded, failed, timed out, skipped */
	const char		*via;		/* where it asks */
	const char		*host;		/* the segments' host it drains */
	const char		*why;		/* the last error or the end, "" */
	size_t			 nsegments;
	struct drain_job	 job;
	double			 seconds;	/* since it began (to its end) */
};

/* h: a client of the master's admin port or of the head sidecar (owned from here on); via names it. */
struct drain	*drain_new(struct event_base *, const struct cfg *, struct httpc *, const char *via,
		    const char *host, drain_changed_fn, void *);
void		 drain_free(struct drain *);
void		 drain_start(struct drain *);
/* The operator's drain (POST /control/drain): once more, after one that ended; -1 while one runs. */
int		 drain_again(struct drain *);
/* A second stop signal: stop waiting (the job goes on at the master, cancelled). */
void		 drain_skip(struct drain *);
int		 drain_started(const struct drain *);
int		 drain_ended(const struct drain *);
void		 drain_info(const struct drain *, struct drain_info *);
#endif
