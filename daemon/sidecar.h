#ifndef DAEMON_SIDECAR_H
#define DAEMON_SIDECAR_H
#include <stdio.h>
#include <event2/event.h>
#include "cfg.h"
#include "httpc.h"
#include "nodeaddr.h"
#include "peers.h"
#include "sdreport.h"
#include "tls.h"
#include "url.h"

struct master;
struct admin;
struct drain;
struct endpoints;
struct follow;
struct view;
struct workers;

/* The one daemon: its loop, its configuration and what it supervises. */
struct sidecar {
	struct event_base	*base;
	struct cfg		 cfg;
	const char		*cfg_path;	/* where it was read: a reload reads it again */
	struct cfg_overrides	 ov;		/* and the command line's overrides */
	json_t			*cfg_root;	/* the file as last applied, for a reload's difference */
	struct master		*master;
	struct admin		*admin;
	struct endpoints	*endpoints;
	struct follow		*follow;	/* nodes without a master */
	struct workers		*workers;	/* this node's GPU workers */
	struct drain		*drain;		/* workers.drain_on_stop, or NULL */
	struct peers		 peers;		/* how the other sidecars of the job are reached */
	int			 stop_now;	/* a second stop signal: no more waiting */
	int			 workers_stop_sent;	/* 0, 1 (graceful), 2 (at once) */
	int			 master_stop_sent;
	int			 reload;	/* SIGHUP: for the next reconcile step */
	struct event		*reconcile_ev;
	double			 busy_until;	/* admin.busy_poll_us: poll the loop without sleeping until then */
	char			 master_address[URL_HOST_MAX];	/* advertised to workers */
	struct nodeaddr		 node_addr;	/* this node's, for its workers and MOONCAKE_LOCAL_HOSTNAME */
	int			 iface_missing;	/* job.network_interface has no address here */
	char			 token[4097];	/* admin.auth's bearer token, or "" */
	struct tls_pem		 tls;		/* admin.tls, read and checked; cert NULL: plain HTTP */
	void			*peer_cred;	/* https to other sidecars (master.ca_file), or NULL */
	struct httpc_target	 master_targets[3];	/* where the probes and the proxy connect */
	unsigned		 published;	/* the master generation last written as ready */
	char			 published_target[URL_HOST_MAX * 2 + 64];	/* and where it pointed workers */
	double			 started;	/* monotonic */
	double			 started_wall;
	int			 stopping;
	int			 ready_sent;
	int			 orphans_signalled;	/* at stop: escaped processes sent SIGTERM */
	int			 bye_waited;	/* a follower's stop waited FOLLOW_BYE_MS for its head */
	char			 ignored_logged[65];	/* signals already logged as ignored (NSIG) */
	/* on the head: what each other node's sidecar last reported running (its /endpoints poll) */
	struct sd_peer {
		struct sd_target	*t;
		size_t			 n;
		char			*raw;	/* the report as it came */
		double			 heard;	/* monotonic; 0: never */
		char			*refused;	/* the last report refused as it came, or NULL */
	}			*sd_peers;	/* by index in job.nodes: that node's report */
	unsigned long		 sd_refused;	/* reports that did not parse */
	size_t			 nsd_peers;
	long			*sd_hash;	/* job.nodes' names: index + 1, 0 empty */
	size_t			 sd_slots;
};

/* Something changed: one deferred reconcile step (daemon/sidecar.c) decides what follows. arg is
 * the struct sidecar, so that it serves as every component's callback. */
void	sidecar_changed(void *);
void	sidecar_free_events(struct sidecar *);
/* The read-only view of the whole state, the readiness rule's answer in it (daemon/view.h); with
 * files, the text of endpoints.json too (what /endpoints serves: a large job's is large). */
void	sidecar_view(const struct sidecar *, struct view *, int files);
/* A node's poll of /endpoints said what runs there (?node=&sd=, common/sdreport.h); NULL: it is still
 * there (its stream is open), its report unchanged. */
void	sidecar_sd_heard(struct sidecar *, const char *node, const char *sd);
void	sidecar_sd_free(struct sidecar *);
#endif
