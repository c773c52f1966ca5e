#ifndef DAEMON_WORKERS_INT_H
#define DAEMON_WORKERS_INT_H
/* The workers' insides, shared by daemon/workers.c (the processes, their health checks and
 * addresses) and daemon/gangs.c (the gangs and the peers they poll); nothing else includes it. */
#include <stddef.h>
#include <event2/event.h>
#include "backoff.h"
#include "cfg.h"
#include "child.h"
#include "gangfsm.h"
#include "gangview.h"
#include "nodeaddr.h"
#include "peers.h"
#include "prom.h"
#include "sse.h"
#include "topology.h"
#include "url.h"

enum { HEALTH_NONE, HEALTH_HTTP, HEALTH_TCP };

struct gang;

struct worker {
	struct child		 child;
	struct workers		*ws;
	size_t			 proc;		/* into the topology */
	char			 cvd[256];
	/* the health check: starting until the first healthy answer, ready after it */
	int			 htype;
	const struct health_cfg	*hc;
	struct httpc		*h;		/* 127.0.0.1:<its port> */
	struct httpc_req	*req;
	struct event		*htimer;
	unsigned		 hfails;	/* consecutive failed checks once ready */
	int			 hok;		/* the last check's outcome, -1 before any */
	char			 hlast[300];	/* what it said */
	double			 hlast_at;	/* monotonic */
	struct gang		*gang;		/* NULL: restarted alone */
	int			 gang_stop;	/* stopped by its gang (or the sidecar): not a failure */
	int			 unhealthy;	/* stopped for its health checks */
};

/* An event for a gang, recorded where it was seen and handed to the gang table (common/gangfsm.c)
 * by the sidecar's one step. */
struct gang_fact {
	int		 event;		/* enum gang_event */
	int		 restart;	/* the restart policy restarts after it */
	long		 delay_ms;	/* GANG_LEADER_STARTED: when the leader's members start */
	char		 why[500];
};

/*
 * A gang: the processes of one endpoint (a data-parallel group, a replica spanning nodes), which
 * only work together. Its leader node (the endpoint's first) owns its generation: a member failing
 * on the leader, or a member node reporting a new failure, or not answering for
 * workers.peer_timeout_ms, starts a new generation, and every node restarts its members when it
 * sees one. A member failing elsewhere stops that node's members until the next generation. Nodes
 * learn from each other through GET /gangs only.
 */
struct gang {
	struct workers	*ws;
	char		 name[GANG_NAME_MAX];	/* "<role>_w<index>", as on every node */
	size_t		 leader;		/* node index */
	int		 is_leader;
	size_t		*local;			/* into ws->w */
	size_t		 nlocal;
	int		 state;			/* enum gang_state */
	unsigned	 generation;		/* leader: its own; elsewhere the leader's, last seen */
	int		 seen;			/* elsewhere: the leader answered at least once */
	unsigned	 failures;		/* of members here */
	unsigned	 restarts;		/* generations applied here */
	struct gang_fact *facts;		/* waiting for the step, oldest first */
	size_t		 nfacts, capfacts;
	size_t		*members;		/* leader: the other nodes with members */
	long long	*member_failures;	/* their failure counts as last seen */
	double		*member_down_since;	/* when it last asked (monotonic) */
	int		*member_down_counted;	/* its silence counted already (once per outage) */
	size_t		 nmembers;
	char		 why[500];		/* the last generation's cause */
	/* the restart policy, counted per gang (the leader's; a member elsewhere follows it) */
	unsigned	 gfailures;		/* consecutive generations, for the backoff */
	struct burst	 burst;			/* the last workers.restart.burst starts */
	double		 start_at;		/* monotonic: when this generation's members start */
	double		 ready_at;		/* when every member here was last healthy, 0: not */
	unsigned	 by_reason[GANG_NREASONS];	/* restarts applied here, by reason */
	const struct topo_endpoint *ep;		/* its endpoint: role, nodes (the leader first) */
};

/* Another node's sidecar, polled for /gangs. */
struct peer {
	struct workers		*ws;
	size_t			 node;
	char			 url[URL_HOST_MAX + 300];
	struct httpc		*h;
	struct httpc_req	*req;
	struct event		*again;		/* the next poll */
	char			 etag[32];	/* what it last said, for ?since= */
	char			 error[300];	/* why the last poll failed, or "" */
	int			 news;		/* the open poll brought another etag */
	int			 bad;		/* and an event of no use */
	struct sse_event	 ev;		/* its stream's events, one at a time */
};

/* Another node whose address only its own sidecar knows (job.network_interface): asked once. */
struct leader {
	struct workers		*ws;
	size_t			 node;
	char			 url[URL_HOST_MAX + 300];
	struct httpc		*h;
	struct httpc_req	*req;
	struct event		*retry;
	long			 backoff_ms;
	char			 why[1024];	/* what is awaited, for /status and the log */
};

struct workers {
	struct event_base	*base;
	const struct cfg	*cfg;
	const struct peers	*peers;
	void			(*changed)(void *);	/* something the sidecar step should see happened */
	void			*arg;
	int			 stopping;
	int			 files_ready;	/* what the last step said of the endpoint files */
	struct prom_hist	*ready;		/* by group index */
	struct topology		 topo;
	struct worker		*w;
	size_t			 n;
	int			 started;
	unsigned		 generation;	/* of the endpoint files the workers were started with */
	struct nodeaddr		*addr;		/* by node index: self and this node's leaders decided */
	char			**ips;		/* by node index: addr's, else the node's name */
	struct leader		*leaders;
	size_t			 nleaders, pending;
	struct gang		*gangs;
	size_t			 ngangs;
	struct peer		*peers_polled;	/* the leaders of the gangs with members here */
	size_t			 npeers;
	struct event		*lost_ev;	/* the leader: which member nodes stopped asking */
};

/* daemon/workers.c: build (first: and init) worker w's argv and environment from the configuration
 * and the endpoint files' variables (mc, or NULL). */
void	workers_render(struct workers *, struct worker *, const struct kvlist *mc, int first);
/* daemon/gangs.c */
int	gangs_init(struct workers *, int, char *, size_t);
void	gangs_free(struct workers *);
/* A member here left its run (exited, failed its checks): a fact for the next step. */
void	gangs_member_down(struct worker *);
/* The step: every fact each gang gathered, through the gang table, in the order they came. */
void	gangs_step(struct workers *);
/* Every member here restarts now in the gang's generation (the operator's restart). */
void	gangs_restart_members(struct gang *, const char *);
/* The first start of the workers counts toward each gang's burst. */
void	gangs_started(struct workers *);
/* A gang led elsewhere whose generation this node has not learnt yet, or NULL. */
const struct gang *gangs_unseen(const struct workers *);
int	gang_ready(const struct gang *);
struct view;
/* The gangs' part of the view: each gang's values and the tag of what /gangs says. */
void	gangs_view(const struct workers *, struct view *);
void	gangs_etag(const struct workers *, char *, size_t);
#endif
