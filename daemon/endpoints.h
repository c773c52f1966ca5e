#ifndef DAEMON_ENDPOINTS_H
#define DAEMON_ENDPOINTS_H
#include <sys/types.h>
#include "cfg.h"

/* What is known of the master when the files are written. */
struct endpoints_master {
	const char	*node;
	const char	*address;	/* advertised to workers */
	long		 rpc_port, metadata_port, admin_port;
	pid_t		 pid;		/* 0: not known here */
	unsigned	 restarts;
	double		 ready_wall;	/* 0: not ready */
	const char	*leader_via;	/* HA: the standby whose /leader named the address, or NULL */
};

struct endpoints;
struct topology;

/* The files workers read, in job.run_dir: mooncake.env, mooncake_store_config.json (vllm) and
 * endpoints.json. An endpoints.json left by an earlier run is marked not ready at once and its
 * generation continued, so that readers never see the generation go back. */
struct event_base;
/* changed(arg) is called from the loop when a retried write brought the disk up to date. */
/* local_ip: this node's address (MOONCAKE_LOCAL_HOSTNAME, the sidecar's own address when it
 * listens on a wildcard); topo: the job's layout, whose HTTP-serving processes endpoints.json lists. */
struct endpoints *endpoints_new(const struct cfg *, struct event_base *, const char *,
		    const struct topology *, void (*)(void *), void *);
void		 endpoints_free(struct endpoints *);
/* Generation gen becomes what /endpoints serves at once; then the files are written. ready: all
 * three, atomically and durably, endpoints.json last (not ready instead when another one fails);
 * not ready: endpoints.json only. A failed write is retried with backoff (recreating run_dir).
 * Returns 0 when the disk says it, -1 when a retry is pending (endpoints_error() says why). */
int		 endpoints_publish(struct endpoints *, unsigned, int, const struct endpoints_master *);
/* A node without a master: check the head sidecar's endpoints.json (types, ranges, addresses, a
 * generation that never goes back for the same head run), then serve and write it as it is and,
 * when it says ready, this node's mooncake.env and store config pointing at the master it names.
 * -1 with err when it is not usable (nothing written). */
int		 endpoints_mirror(struct endpoints *, const char *, char *, size_t);
/* The same for a text the caller has checked already (epcheck's view of it). */
struct ep_view;
int		 endpoints_mirror_checked(struct endpoints *, const char *, const struct ep_view *, char *, size_t);
/* A node without a master whose head is lost: what it mirrors, marked not ready. */
int		 endpoints_mirror_not_ready(struct endpoints *);
/* Write again now what memory says, when the disk is behind (at exit). */
int		 endpoints_flush(struct endpoints *);
/* Why the files on disk are not what /endpoints says, or NULL when they are. */
const char	*endpoints_error(const struct endpoints *);
/* The mooncake variables of the last ready write (what mooncake.env says), for this node's workers;
 * -1 before any. */
int		 endpoints_worker_env(const struct endpoints *, struct kvlist *);
unsigned	 endpoints_generation(const struct endpoints *);
int		 endpoints_ready(const struct endpoints *);
const char	*endpoints_json(const struct endpoints *);	/* NULL before the first write */
double		 endpoints_written_at(const struct endpoints *);
#endif
