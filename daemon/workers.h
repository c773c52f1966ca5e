#ifndef DAEMON_WORKERS_H
#define DAEMON_WORKERS_H
#include <stddef.h>
#include <jansson.h>

struct buf;
struct sidecar;
struct workers;
struct topology;

/* This node's share of the worker plan t (the layout of the checked configuration, taken over:
 * t is empty afterwards), with the addresses its processes bind and dial decided (a leader's that
 * only its sidecar knows is asked for). NULL with err filled when, in a multi-node job, an address
 * is not reachable from other nodes. */
struct workers	*workers_new(struct sidecar *, struct topology *, char *, size_t);
void		 workers_free(struct workers *);
/* After any state change: start once every leader's address is known and the endpoint files say
 * ready (or at once without wait_for_master); with on_master_restart "restart", restart on each new generation. */
void		 workers_update(struct workers *);
/* Stop every worker (the process groups; SIGKILL after workers.stop_timeout_ms, or now). */
void		 workers_stop(struct workers *, int);
size_t		 workers_count(const struct workers *);
/* The whole job's layout (every node's processes). */
const struct topology *workers_topology(const struct workers *);
size_t		 workers_running(const struct workers *);	/* processes alive */
size_t		 workers_ready(const struct workers *);		/* in state ready */
json_t		*workers_status(const struct workers *);
/* A tag of what other nodes read of this node's gangs (GET /gangs?since=): changes with it. */
void		 workers_gangs_etag(const struct workers *, char *, size_t);
/* This node's gangs (name, generation, failures here, leader, state, members), for /gangs and
 * /status. */
json_t		*workers_gangs(const struct workers *);
/* The gangs' families for /metrics: generation and restarts applied here, by gang. */
void		 workers_metrics(const struct workers *, struct buf *);
/* What the workers wait for before they start, or NULL. */
const char	*workers_waiting_for(const struct workers *);
/* "N/M workers running[ (waiting for ...)]", for STATUS= and /readyz. */
void		 workers_describe(const struct workers *, char *, size_t);
#endif
