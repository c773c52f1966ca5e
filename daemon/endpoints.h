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

/* The files workers read, in job.run_dir: mooncake.env, mooncake_store_config.json (vllm) and
 * endpoints.json. An endpoints.json left by an earlier run is marked not ready at once and its
 * generation continued, so that readers never see the generation go back. */
struct endpoints *endpoints_new(const struct cfg *);
void		 endpoints_free(struct endpoints *);
/* Write generation gen. ready: all three files, atomically and durably, endpoints.json last;
 * not ready: endpoints.json only. Returns 0, or -1 after logging why. */
int		 endpoints_publish(struct endpoints *, unsigned, int, const struct endpoints_master *);
/* A node without a master: write the head sidecar's endpoints.json as it is and, when it says ready,
 * this node's mooncake.env and store config pointing at the master it names. */
int		 endpoints_mirror(struct endpoints *, const char *);
/* The mooncake variables of the last ready write (what mooncake.env says), for this node's workers;
 * -1 before any. */
int		 endpoints_worker_env(const struct endpoints *, struct kvlist *);
unsigned	 endpoints_generation(const struct endpoints *);
int		 endpoints_ready(const struct endpoints *);
const char	*endpoints_json(const struct endpoints *);	/* NULL before the first write */
double		 endpoints_written_at(const struct endpoints *);
/* This node's first non-loopback IPv4 address, or 127.0.0.1. */
void		 endpoints_local_ipv4(char *, size_t);
#endif
