#ifndef DAEMON_WORKERS_H
#define DAEMON_WORKERS_H
#include <stddef.h>
#include <event2/event.h>
#include "cfg.h"
#include "kvlist.h"
#include "nodeaddr.h"

struct peers;
struct topology;
struct view;
struct workers;

/* What the workers are given: the loop, the configuration, how to reach other sidecars, this
 * node's address, and whom to tell that something happened (the sidecar's step). */
struct workers_env {
	struct event_base	*base;
	const struct cfg	*cfg;
	const struct peers	*peers;
	const struct nodeaddr	*self;
	int			 iface_missing;	/* job.network_interface has no address here */
	void			(*changed)(void *);
	void			*arg;
};

/* What the endpoint files say, as the sidecar step hands it over. */
struct workers_files {
	int			 ready;
	unsigned		 generation;
	const struct kvlist	*env;	/* the mooncake variables of the last ready write, or NULL */
};

/* This node's share of the worker plan t (the layout of the checked configuration, taken over:
 * t is empty afterwards), with the addresses its processes bind and dial decided (a leader's that
 * only its sidecar knows is asked for). NULL with err filled when, in a multi-node job, an address
 * is not reachable from other nodes. */
struct workers	*workers_new(const struct workers_env *, struct topology *, char *, size_t);
void		 workers_free(struct workers *);
/* The sidecar's step: the gangs' facts through their table, then start once every leader's address
 * is known and the files say ready (or at once without wait_for_master); with on_master_restart
 * "restart", restart at each new generation. */
void		 workers_step(struct workers *, const struct workers_files *);
/* Stop every worker (the process groups; SIGKILL after workers.stop_timeout_ms, or now). */
void		 workers_stop(struct workers *, int);
size_t		 workers_count(const struct workers *);
/* The whole job's layout (every node's processes). */
const struct topology *workers_topology(const struct workers *);
size_t		 workers_running(const struct workers *);	/* processes alive */
size_t		 workers_ready(const struct workers *);		/* in state ready */
/* A member node's poll of /gangs said (node, failures): what its leader gangs take of it. */
void		 workers_gang_report(struct workers *, const char *, const char *);
/* The tag of what /gangs says (it changes with it), without a view. */
void		 workers_gangs_etag(const struct workers *, char *, size_t);
/* The operator's verbs (daemon/workersctl.c): on the worker of that name (as /status shows it), or
 * on every worker here (name NULL); a gang's restart on its leader node. why: what the reason says. */
enum { WORKERS_RESTART, WORKERS_STOP, WORKERS_START };
enum { WORKERS_DONE, WORKERS_NOOP, WORKERS_NONE, WORKERS_BUSY, WORKERS_ELSEWHERE };
struct workers_acted {
	size_t		 acted;
	char		 state[32];	/* the (last) worker's state after it */
	const char	*leader;	/* WORKERS_ELSEWHERE: the node that leads the gang */
	char		 msg[400];
};
int		 workers_act(struct workers *, int verb, const char *name, const char *why, struct workers_acted *);
int		 workers_gang_restart(struct workers *, const char *name, const char *why, struct workers_acted *);
/* A reload changed the configuration in place (a group's command or env): every worker's command
 * line built again with mc (the endpoint files' variables); those whose argv or environment
 * differ restart (unless the operator stopped them). Their names pushed to restarted. */
struct strv;
void		 workers_reload(struct workers *, const struct kvlist *mc, struct strv *restarted);
/* The workers' and gangs' part of the view: their values, copied. */
void		 workers_view(const struct workers *, struct view *);
#endif
